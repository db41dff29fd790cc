/* session.c - session state, error reporting, the history of module
 * versions, and the ways a module changes: load from text, new, a typed
 * instruction line (and passes, in commands/history.c).
 *
 * Every change follows one rule: build the new module on the side (a
 * fresh parse or a clone), verify it, and only then swap it in, so a
 * failed command changes nothing. Each change is a history step holding
 * its own snapshot, so `undo` gives back exactly what was there. */
#include "session.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "passes/cost.h"
#include "passes/fusion.h"
#include "passes/pass.h"
#include "parse.h"
#include "print.h"
#include "verify.h"

/* Half the machine's memory, at most 16 GiB: a run that needs more is
 * refused up front instead of taking the machine down. */
static int64_t default_max_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
	int64_t half = pages > 0 && size > 0 ? (int64_t)pages * size / 2
					    : (int64_t)2 << 30;
	return half < ((int64_t)16 << 30) ? half : (int64_t)16 << 30;
}

void repl_session_init(Session *s, FILE *out, FILE *err)
{
	memset(s, 0, sizeof *s);
	s->out = out;
	s->err = err;
	s->max_memory = default_max_memory();
	s->cpu_gbps = COST_CPU_GBPS;
	s->cpu_gflops = COST_CPU_GFLOPS;
	s->gpu_gbps = COST_GPU_GBPS;
	s->gpu_gflops = COST_GPU_GFLOPS;
	arena_init(&s->result.arena);
}

void repl_value_clear(Value *v)
{
	arena_free(&v->arena);
	v->lit = NULL;
	v->desc[0] = 0;
}

bool repl_value_set(Value *v, const Literal *lit, const char *desc)
{
	Arena a;
	arena_init(&a);
	Literal *c = lit ? literal_clone(&a, lit) : NULL;
	if (lit && !c) {
		arena_free(&a);
		return false;
	}
	arena_free(&v->arena);
	v->arena = a;
	v->lit = c;
	snprintf(v->desc, sizeof v->desc, "%s", desc ? desc : "");
	return true;
}

static void clear_inputs(Session *s)
{
	for (int i = 0; i < s->ninputs; i++)
		repl_value_clear(&s->inputs[i]);
	free(s->inputs);
	s->inputs = NULL;
	s->ninputs = 0;
}

static void free_steps(Session *s, int from, int to)
{
	for (int i = from; i < to; i++) {
		hlo_module_free(s->hist[i].mod);
		fusion_log_free(s->hist[i].log);
		free(s->hist[i].text);
	}
}

void repl_session_free(Session *s)
{
	s->mod = NULL; /* the current step's */
	free_steps(s, 0, s->nhist);
	free(s->hist);
	s->hist = NULL;
	s->nhist = s->cap_hist = s->hist_cur = 0;
	clear_inputs(s);
	repl_value_clear(&s->result);
	free(s->last_out);
	s->last_out = NULL;
	fusion_log_free(s->trial_log);
	s->trial_log = NULL;
}

/* Keeps the inputs that still fit a parameter of the new module. */
static void prune_inputs(Session *s)
{
	HloComp *e = s->mod ? s->mod->entry : NULL;
	for (int i = 0; i < s->ninputs; i++) {
		HloInstr *p = e ? hlo_comp_param(e, i) : NULL;
		Literal *l = s->inputs[i].lit;
		if (l && (!p || !shape_compatible(l->shape, p->shape)))
			repl_value_clear(&s->inputs[i]);
	}
}

/* Makes m (a step's module) current; inputs that no longer fit a
 * parameter are dropped. */
static void set_current(Session *s, HloModule *m)
{
	s->mod = m;
	prune_inputs(s);
}

static HloInstr *add_line(HloModule *m, const char *name, const char *text,
			  size_t len, int line, Diag *d, bool verify);

/* Makes steps from..to (indices) again on m, in place: each one's pass,
 * or its typed line. A pass step passed on the way keeps a copy (undo
 * after undo would otherwise replay the same passes again and again);
 * typed lines are cheap to add again. first (or NULL) is m's counts
 * (pass_clone_counted); a pass step hands its own to the next. False
 * (the error printed, m freed) when that fails. */
static bool replay_steps(Session *s, HloModule *m, int from, int to,
			 const PassResult *first)
{
	PassResult prev;
	if (first)
		prev = *first;
	bool counted = first != NULL;
	for (int k = from; k <= to; k++) {
		const HistStep *h = &s->hist[k];
		Diag d;
		diag_init(&d);
		PassCtx cx = {.d = &d,
			      .fold_max_elems = h->fold_max_elems,
			      .fusion_off = h->fusion_off,
			      .prev = counted ? &prev : NULL};
		PassResult r;
		/* a line that passed once needs no verifying again */
		bool ok = h->pass ? pass_run(m, h->pass, &cx, &r)
			  : h->text ? add_line(m, "<history>", h->text,
					       h->text_len, h->text_line, &d,
					       false) != NULL
				    : false;
		if (!ok) {
			/* The same step on the same module succeeded
			 * before: out of memory, or a pass that is not
			 * deterministic (a bug). */
			if (d.errors)
				repl_print_diag(s, &d);
			repl_error(s,
				   "step %d (%s) could not be made again: "
				   "replaying '%s' failed",
				   s->hist_dropped + k, h->label,
				   h->pass ? h->pass->name : h->label);
			diag_free(&d);
			hlo_module_free(m);
			return false;
		}
		if (h->pass && k < to && !s->hist[k].mod)
			s->hist[k].mod = pass_clone(m); /* NULL: not kept */
		/* a typed line changed m behind the counts */
		counted = h->pass != NULL;
		if (counted)
			prev = r;
		diag_free(&d);
	}
	return true;
}

/* The nearest step at or before i that keeps its module; -1 when none
 * does (only after a replay failed). */
static int kept_before(const Session *s, int i)
{
	while (i >= 0 && !s->hist[i].mod)
		i--;
	return i;
}

/* Makes the module of hist[i] (none kept) by replaying the steps after
 * the nearest one before it that kept one. NULL (the error printed) when
 * that fails. */
static HloModule *replay(Session *s, int i)
{
	int j = kept_before(s, i);
	PassResult first;
	HloModule *m = j >= 0 ? pass_clone_counted(s->hist[j].mod, &first)
			      : NULL;
	if (!m) {
		repl_error(s, "out of memory making step %d again",
			   s->hist_dropped + i);
		return NULL;
	}
	return replay_steps(s, m, j + 1, i, &first) ? m : NULL;
}

/* Step i's module, made again and kept when it was not. */
static HloModule *step_module(Session *s, int i)
{
	if (!s->hist[i].mod)
		s->hist[i].mod = replay(s, i);
	return s->hist[i].mod;
}

/* Room for n more steps after the current one: the redo tail goes, and
 * at the cap the oldest steps too (the new oldest made again first when
 * it kept no module). Grows the array first, so that running out of
 * memory changes nothing. */
static bool make_room(Session *s, int n)
{
	int keep = s->nhist ? s->hist_cur + 1 : 0;
	if (keep + n > s->cap_hist) {
		int cap = s->cap_hist ? s->cap_hist : 16;
		while (cap < keep + n)
			cap *= 2;
		HistStep *h = realloc(s->hist, (size_t)cap * sizeof *h);
		if (!h)
			return false;
		s->hist = h;
		s->cap_hist = cap;
	}
	/* How many of the oldest steps go (never the current one, which
	 * the new steps start from); the first one kept after them must
	 * have its module. */
	int drop = keep + n - REPL_HISTORY_MAX;
	if (drop > keep - 1)
		drop = keep - 1;
	if (drop > 0 && !s->hist[drop].mod) {
		/* The new oldest is made from the module of a step that
		 * goes (no clone: at the cap this happens for every new
		 * step, and a clone costs the whole module). */
		int j = kept_before(s, drop);
		if (j < 0)
			return repl_error(s, "the history lost step %d's module",
					  s->hist_dropped + drop);
		HloModule *m = s->hist[j].mod;
		s->hist[j].mod = NULL;
		if (!replay_steps(s, m, j + 1, drop, NULL))
			return false;
		s->hist[drop].mod = m;
	}
	free_steps(s, keep, s->nhist);
	s->nhist = keep;
	if (drop > 0) {
		/* the log that answers at the first step kept goes with it
		 * (when that step does not start a module) */
		HistStep *first = &s->hist[drop];
		for (int i = drop - 1; i >= 0 && !first->log && !first->starts;
		     i--) {
			if (s->hist[i].log) {
				first->log = s->hist[i].log;
				first->log_step = s->hist[i].log_step;
				first->log_base = s->hist[i].log_base;
				s->hist[i].log = NULL;
			}
			if (s->hist[i].starts)
				break;
		}
		free_steps(s, 0, drop);
		memmove(s->hist, s->hist + drop,
			(size_t)(keep - drop) * sizeof *s->hist);
		s->nhist = keep - drop;
		s->hist_dropped += drop;
	}
	return true;
}

bool repl_start_module(Session *s, HloModule *m, const char *label)
{
	if (!repl_commit_module(s, m, label))
		return false;
	/* the fusion logs before it are about another module */
	s->hist[s->hist_cur].starts = true;
	return true;
}

static HistStep *add_step(Session *s, HloModule *m, const char *label)
{
	HistStep *h = &s->hist[s->nhist];
	memset(h, 0, sizeof *h);
	h->mod = m;
	h->serial = ++s->next_serial;
	snprintf(h->label, sizeof h->label, "%s", label);
	s->hist_cur = s->nhist++;
	return h;
}

bool repl_commit_module(Session *s, HloModule *m, const char *label)
{
	if (!make_room(s, 1)) {
		hlo_module_free(m);
		return repl_error(s, "out of memory");
	}
	HistStep *h = add_step(s, m, label);
	h->instrs = hlo_module_instr_count(m);
	h->kernels = hlo_module_kernels(m);
	set_current(s, m);
	return true;
}

bool repl_commit_passes(Session *s, HloModule *m, const PassStep *v, int n)
{
	assert(n > 0);
	if (!make_room(s, n)) {
		hlo_module_free(m);
		return repl_error(s, "out of memory");
	}
	for (int i = 0; i < n; i++) {
		HistStep *h = add_step(s, i == n - 1 ? m : NULL, v[i].label);
		h->pass = v[i].pass;
		h->fusion_off = v[i].fusion_off;
		h->fold_max_elems = v[i].fold_max_elems;
		h->instrs = v[i].instrs;
		h->kernels = v[i].kernels;
	}
	set_current(s, m);
	return true;
}

const HistStep *repl_history_step(const Session *s, int k)
{
	int i = k - s->hist_dropped;
	return i >= 0 && i < s->nhist ? &s->hist[i] : NULL;
}

const HloModule *repl_history_module(Session *s, int k)
{
	int i = k - s->hist_dropped;
	if (i < 0 || i >= s->nhist) {
		repl_error(s, "no step %d", k);
		return NULL;
	}
	return step_module(s, i); /* NULL: replay said why */
}

struct FusionLog *repl_fusion_log_at(const Session *s, int k, int *at,
				     int *base)
{
	for (int i = k - s->hist_dropped; i >= 0 && i < s->nhist; i--) {
		const HistStep *h = &s->hist[i];
		if (h->log) {
			if (at)
				*at = h->log_step;
			if (base)
				*base = h->log_base;
			return h->log;
		}
		if (h->starts)
			break;
	}
	return NULL;
}

struct FusionLog *repl_fusion_log(const Session *s)
{
	return repl_fusion_log_at(s, s->hist_dropped + s->hist_cur, NULL,
				  NULL);
}

bool repl_fusion_log_undone(const Session *s)
{
	for (int i = s->hist_cur + 1; i < s->nhist && !s->hist[i].starts; i++)
		if (s->hist[i].log)
			return true;
	return false;
}

void repl_keep_fusion_log(Session *s, int k, struct FusionLog *log, int base)
{
	int i = k - s->hist_dropped;
	if (i < 0 || i >= s->nhist) {
		fusion_log_free(log);
		return;
	}
	fusion_log_free(s->hist[i].log);
	s->hist[i].log = log;
	s->hist[i].log_step = k;
	s->hist[i].log_base = base;
}

bool repl_history_goto(Session *s, int k)
{
	HloModule *m = (HloModule *)repl_history_module(s, k);
	if (!m)
		return false;
	s->hist_cur = k - s->hist_dropped;
	set_current(s, m);
	return true;
}

HloModule *repl_new_module(const char *name)
{
	HloModule *m = hlo_module_new(name);
	if (!m)
		return NULL;
	HloComp *c = hlo_comp_new(m, "main");
	if (!c) {
		hlo_module_free(m);
		return NULL;
	}
	hlo_module_set_entry(m, c);
	return m;
}

void repl_flush_out(Session *s)
{
	/* Each capture's real output is the next one out's memory stream,
	 * and the outermost one's is the session's own output. */
	FILE *out = s->out;
	for (Capture *c = s->capture; c; c = c->outer) {
		fflush(c->mem);
		fwrite(c->buf + c->passed, 1, c->len - c->passed, c->real);
		c->passed = c->len;
		out = c->real;
	}
	fflush(out);
}

/* Is line[at, at + n) a whole word of line (len bytes)? Blanks, quotes,
 * '=' and ',' end a word; a '%' sigil may lead it. n == 0: does a word
 * start at at? */
static bool whole_word(const char *line, size_t len, size_t at, size_t n)
{
	static const char ends[] = " \t\"=,";
	bool before = at == 0 || strchr(ends, line[at - 1]) ||
		      (line[at - 1] == '%' &&
		       (at == 1 || strchr(ends, line[at - 2])));
	bool after = n == 0 || at + n == len || strchr(ends, line[at + n]);
	return before && after;
}

/* Where in line (len bytes) the word w (n bytes) stands first as a whole
 * word, or -1. A w that repl_quote cut short ("...") is a word's start. */
static long find_word(const char *line, size_t len, const char *w, size_t n)
{
	bool cut = n > 3 && !memcmp(w + n - 3, "...", 3);
	if (cut)
		n -= 3;
	for (size_t at = 0; n && at + n <= len; at++)
		if (!memcmp(line + at, w, n) &&
		    whole_word(line, len, at, cut ? 0 : n))
			return (long)at;
	return -1;
}

int repl_error_col(const char *line, size_t len, const char *msg,
		   size_t mlen)
{
	const char *mend = msg + mlen;
	size_t cmd = 0; /* the command word */
	while (cmd < len && (line[cmd] == ' ' || line[cmd] == '\t'))
		cmd++;
	/* the first name the message quotes ('...') that the line has as
	 * an argument, else as the command ("'expect kernels' needs a
	 * count, not 'two'": the argument) */
	long first = -1;
	/* or a PATH a message starts with ("x.npy: cannot open: ...") */
	size_t lead = 0;
	while (lead < mlen && !strchr(": '", msg[lead]))
		lead++;
	if (lead < mlen && msg[lead] == ':') {
		long at = find_word(line, len, msg, lead);
		if (at >= 0 && (size_t)at != cmd)
			return (int)at + 1;
	}
	for (const char *q = memchr(msg, '\'', mlen); q;
	     q = memchr(q, '\'', (size_t)(mend - q))) {
		const char *e = memchr(q + 1, '\'', (size_t)(mend - q - 1));
		if (!e)
			break;
		long at = find_word(line, len, q + 1, (size_t)(e - q - 1));
		if (at >= 0 && (size_t)at != cmd)
			return (int)at + 1;
		if (at >= 0 && first < 0)
			first = at;
		q = e + 1;
	}
	return (int)(first >= 0 ? (size_t)first : cmd) + 1;
}

void repl_print_caret(FILE *f, const char *line, size_t len, int col)
{
	/* room for the window diag_show_line shows: no allocation, so that
	 * an error about running out of memory still shows its line */
	char own[512];
	StrBuf b;
	sb_init_on(&b, own, sizeof own);
	diag_show_line(&b, line, len, col);
	if (!b.oom)
		fputs(sb_str(&b), f);
	sb_free(&b);
}

/* "FILE:LINE: KIND: MESSAGE" (no location interactively); an error is
 * "FILE:LINE:COL: error: MESSAGE", and one about the line being run has
 * the line and a caret under it (repl_error_col). stdout is buffered
 * and stderr is not: flush first so a transcript of both streams keeps
 * the order things happened in. */
static void vreport(Session *s, int line, const char *kind, const char *fmt,
		    va_list ap)
{
	repl_flush_out(s);
	int err_col = s->err_col;
	s->err_col = 0; /* for this error only */
	bool here = s->src_name && line > 0;
	bool error = !strcmp(kind, "error");
	bool caret = here && error && line == s->line && s->unit_text;
	int col = 1; /* the line's first when the line is not at hand */
	if (caret && err_col > 0) {
		col = err_col;
	} else if (caret) {
		/* from the message's start (what it quotes comes early):
		 * no allocation */
		char head[512];
		va_list again;
		va_copy(again, ap);
		vsnprintf(head, sizeof head, fmt, again);
		va_end(again);
		col = repl_error_col(s->unit_text, s->unit_len, head,
				     strlen(head));
	}
	if (here && error)
		fprintf(s->err, "%s:%d:%d: ", s->src_name, line, col);
	else if (here)
		fprintf(s->err, "%s:%d: ", s->src_name, line);
	fprintf(s->err, "%s: ", kind);
	vfprintf(s->err, fmt, ap);
	fputc('\n', s->err);
	if (caret)
		repl_print_caret(s->err, s->unit_text, s->unit_len, col);
	fflush(s->err);
}

bool repl_verror(Session *s, const char *fmt, va_list ap)
{
	vreport(s, s->line, "error", fmt, ap);
	return false;
}

bool repl_error(Session *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	repl_verror(s, fmt, ap);
	va_end(ap);
	return false;
}

bool repl_expect_failed(Session *s, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(s, line ? line : s->line, "expectation failed", fmt, ap);
	va_end(ap);
	return false;
}

void repl_print_diag(Session *s, Diag *d)
{
	const char *t = diag_text(d);
	if (d->out.oom) /* (first: what is left may be cut short) */
		repl_error(s, "out of memory (messages lost)");
	if (!*t)
		return;
	repl_flush_out(s);
	/* A message core made without a place (a pass, the interpreter, a
	 * file of values) is located at the script line that ran it; the
	 * first error shows that line with a caret (repl_error_col). */
	static const char *const kinds[] = {"error: ", "warning: ", "note: "};
	bool caret = s->unit_text != NULL; /* under the first error only */
	while (*t) {
		size_t n = strcspn(t, "\n");
		int kind = -1;
		for (int k = 0; k < 3 && s->src_name && s->line > 0; k++)
			if (!strncmp(t, kinds[k], strlen(kinds[k]))) {
				kind = k;
				break;
			}
		/* an error's column: what it names in the line run, else
		 * the line's first */
		int col = 0;
		if (kind == 0 && s->unit_text) {
			size_t kl = strlen(kinds[0]); /* the message */
			col = repl_error_col(s->unit_text, s->unit_len, t + kl,
					     n - kl);
		} else if (kind == 0) {
			col = 1;
		}
		if (col)
			fprintf(s->err, "%s:%d:%d: ", s->src_name, s->line,
				col);
		else if (kind >= 0)
			fprintf(s->err, "%s:%d: ", s->src_name, s->line);
		bool show = col && caret && s->unit_text;
		fwrite(t, 1, n, s->err);
		if (t[n] == '\n' || show)
			fputc('\n', s->err);
		if (show) {
			repl_print_caret(s->err, s->unit_text, s->unit_len,
					 col);
			caret = false;
		}
		t += n + (t[n] == '\n');
	}
	fflush(s->err);
}

const char *repl_quote(char *buf, size_t cap, const char *s, size_t n)
{
	/* Stop while there is room for one escape, "..." and the NUL. */
	size_t o = 0, i = 0;
	for (; i < n && o + 8 < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 32 || c == 127)
			o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	/* a cut in the middle of a UTF-8 character takes its first bytes
	 * back too (copied one for one: they are no control bytes), so
	 * that the text stays UTF-8 */
	while (i < n && i > 0 && o > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--, o--;
	if (i < n)
		o = (size_t)(stpcpy(buf + o, "...") - buf);
	buf[o] = 0;
	return buf;
}

bool repl_need_module(Session *s)
{
	if (s->mod)
		return true;
	return repl_error(s, "no module (use 'load PATH', 'new' or type "
			     "an instruction)");
}

bool repl_parse_int(const char *w, long lo, long hi, int *out)
{
	/* digits, a '-' first only where negatives are allowed: no blanks
	 * or '+' (strtol would take both) */
	const char *d = w + (lo < 0 && w[0] == '-');
	if (*d < '0' || *d > '9')
		return false;
	char *end;
	errno = 0;
	long v = strtol(w, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return false;
	*out = (int)v;
	return true;
}

const char *repl_bytes(char *buf, size_t cap, int64_t b)
{
	static const char *unit[] = {"KiB", "MiB", "GiB", "TiB"};
	/* a negative figure (a saving that costs) in the same units */
	double v = b < 0 ? -(double)b : (double)b;
	if (v < 1024) {
		snprintf(buf, cap, "%lld bytes", (long long)b);
		return buf;
	}
	v /= 1024;
	int u = 0;
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, cap, "%s%.1f %s", b < 0 ? "-" : "", v, unit[u]);
	return buf;
}

const char *repl_bare_name(const char *name)
{
	return name[0] == '%' ? name + 1 : name;
}

bool repl_has_ext(const char *path, const char *ext)
{
	size_t n = strlen(path), k = strlen(ext);
	return n > k && !strcasecmp(path + n - k, ext);
}

HloInstr *repl_find_instr(const HloModule *m, const char *name)
{
	name = repl_bare_name(name);
	if (m->entry) {
		HloInstr *ins = hlo_comp_find(m->entry, name);
		if (ins)
			return ins;
	}
	for (int i = 0; i < m->ncomps; i++) {
		HloInstr *ins = hlo_comp_find(m->comps[i], name);
		if (ins)
			return ins;
	}
	return NULL;
}

/* Prints what core said, or a fallback when it failed without a word
 * (out of memory, say), so a failure is never silent. */
static bool report(Session *s, Diag *d, bool ok, const char *fallback)
{
	repl_print_diag(s, d);
	if (!ok && d->errors == 0)
		repl_error(s, "%s", fallback);
	return ok;
}

/* Core records positions relative to the text it was given; text typed
 * in a script starts further down, and `info` should name the script
 * line. */
static void shift_instr(HloInstr *ins, int by)
{
	if (ins->loc.line > 0)
		ins->loc.line += by;
}

static void shift_locs(HloModule *m, int by)
{
	for (int i = 0; by && i < m->ncomps; i++) {
		HloComp *c = m->comps[i];
		if (c->loc.line > 0)
			c->loc.line += by;
		for (int j = 0; j < c->n; j++)
			shift_instr(c->instrs[j], by);
	}
}

static bool load_text(Session *s, const char *name, const char *text,
		      size_t len, int line_offset, const char *label)
{
	SrcFile src = {name, text, len, line_offset};
	Diag d;
	diag_init(&d);
	ParseStatus st = PARSE_OK;
	HloModule *m = parse_module(&src, &d, &st);
	bool ok = m && verify_module(m, &d, &src);
	report(s, &d, ok, "cannot load the module");
	diag_free(&d);
	if (!ok) {
		hlo_module_free(m);
		return false;
	}
	shift_locs(m, line_offset);
	return repl_start_module(s, m, label);
}

bool repl_load_text(Session *s, const char *name, const char *text, size_t len,
		    int line_offset)
{
	char label[80];
	snprintf(label, sizeof label, "block %s:%d", name, line_offset + 1);
	return load_text(s, name, text, len, line_offset, label);
}

enum { READ_MAX_GIB = 8 };
#define READ_MAX ((size_t)READ_MAX_GIB << 30)

bool repl_read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	StrBuf b;
	sb_init(&b);
	char chunk[65536];
	size_t n;
	/* stops at the first failed append, and past 8 GiB (a device such
	 * as /dev/zero never ends) */
	while (!b.oom && b.len <= READ_MAX &&
	       (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sb_putn(&b, chunk, n);
	int e = ferror(f)	   ? errno
		: b.oom		   ? ENOMEM
		: b.len > READ_MAX ? EFBIG
				   : 0;
	fclose(f);
	if (e) {
		sb_free(&b);
		errno = e;
		return false;
	}
	*len = b.len;
	*text = sb_take(&b);
	return *text != NULL || (errno = ENOMEM, false);
}

static const char *plural(int n) { return n == 1 ? "" : "s"; }

void repl_describe_module(Session *s, const char *from)
{
	const HloModule *m = s->mod;
	int n = hlo_module_instr_count(m);
	fprintf(s->out,
		"loaded module '%s'%s%s (%d computation%s, "
		"%d instruction%s)\n",
		m->name, from ? " from " : "", from ? from : "", m->ncomps,
		plural(m->ncomps), n, plural(n));
}

bool repl_load_path(Session *s, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	if (!repl_read_file(path, &text, &len))
		return repl_error(s, "cannot read '%s': %s", path,
				  strerror(errno));
	char label[80], q[64];
	snprintf(label, sizeof label, "load %s",
		 repl_quote(q, sizeof q, path, strlen(path)));
	bool ok = load_text(s, path, text, len, 0, label);
	free(text);
	if (ok)
		repl_describe_module(s, path);
	return ok;
}

/* Shows the instruction as parsed, inferred shape included, so a person
 * typing lines sees what the shape rules made of them. */
static void echo_instr(Session *s, const HloInstr *ins)
{
	StrBuf b;
	sb_init(&b);
	PrintOpts o = print_opts_default;
	o.short_form = true;
	o.max_const_elems = 64;
	print_instr(&b, ins, &o);
	fprintf(s->out, "%s\n", sb_str(&b));
	sb_free(&b);
}

/* The typed line, blanks trimmed, for `history`. */
static const char *instr_label(char *buf, size_t cap, const char *text,
			       size_t len)
{
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	while (len && isspace((unsigned char)*text))
		text++, len--;
	return repl_quote(buf, cap, text, len);
}

/* What a typed line may change in a module, to take it back. */
typedef struct LineMark {
	int n, ncomps;
	HloInstr *root;
	bool root_explicit;
} LineMark;

static LineMark line_mark(const HloModule *m)
{
	return (LineMark){m->entry->n, m->ncomps, m->entry->root,
			  m->entry->root_explicit};
}

static void take_back(HloModule *m, LineMark k)
{
	HloComp *e = m->entry;
	while (e->n > k.n)
		hlo_instr_remove(e->instrs[e->n - 1]);
	while (m->ncomps > k.ncomps)
		hlo_module_remove_comp(m, m->comps[m->ncomps - 1]);
	e->root = k.root;
	e->root_explicit = k.root_explicit;
}

/* Parses the typed line into m's entry and verifies what changed; on
 * failure takes back all the line added (m as it was) and returns NULL
 * with the reasons in d. */
/* The instructions a line added need checking on their own only: none
 * is a parameter (numbering is the computation's) or calls a
 * computation (callers are the module's), the line added no
 * computation, and the root is one of them or unchanged. Then nothing
 * else changed: older instructions do not read new ones. */
static bool verify_added(HloModule *m, LineMark k, Diag *d,
			 const SrcFile *src)
{
	HloComp *e = m->entry;
	bool alone = m->ncomps == k.ncomps;
	for (int i = k.n; i < e->n && alone; i++) {
		const HloInstr *x = e->instrs[i];
		alone = x->op != HLO_PARAMETER &&
			!(x->nattrs && hlo_instr_ncalled(x));
	}
	if (!alone)
		return verify_module_changed(m, d, src, NULL);
	bool ok = true;
	for (int i = k.n; i < e->n && ok; i++)
		ok = verify_instr(e->instrs[i], d, src);
#if XR_ASAN
	/* as verify_module_changed does under ASan: the shortcut must
	 * agree with the whole verifier */
	if (ok) {
		Diag full;
		diag_init(&full);
		bool oom = false; /* (then no verdict) */
		if (!verify_module_oom(m, &full, src, &oom) && !oom) {
			fprintf(stderr, "verify_added passed a line that "
					"verify_module rejects:\n%s",
				diag_text(&full));
			abort();
		}
		diag_free(&full);
	}
#endif
	return ok;
}

static HloInstr *add_line(HloModule *m, const char *name, const char *text,
			  size_t len, int line, Diag *d, bool verify)
{
	LineMark k = line_mark(m);
	SrcFile src = {name, text, len, line > 0 ? line - 1 : 0};
	ParseStatus st = PARSE_OK;
	HloInstr *ins = parse_instr_line(m->entry, &src, d, &st);
	if (ins && verify && !verify_added(m, k, d, &src)) {
		take_back(m, k);
		ins = NULL;
	}
	if (ins)
		shift_instr(ins, src.line_offset);
	return ins;
}

/* Steps a line may be added to in place: the step's module is then the
 * new step's, and the step keeps none (replay makes it again). One in
 * KEEP_EVERY steps keeps its module, so a replay is never long. */
enum { KEEP_EVERY = 32 };

static bool may_give_up_module(const Session *s, int i)
{
	if (i < 1 || !(s->hist[i].pass || s->hist[i].text))
		return false;
	int k = 1;
	while (k < KEEP_EVERY && i - k > 0 && !s->hist[i - k].mod)
		k++;
	return k < KEEP_EVERY;
}

bool repl_add_instr(Session *s, const char *text, size_t len, int line)
{
	char label[80];
	instr_label(label, sizeof label, text, len);
	/* Typing a module line by line must stay linear: the line goes into
	 * the current module itself when its step can be made again without
	 * it, else into a clone (which keeps what the verifier knows, so
	 * only the new instruction and what reads it are checked). */
	bool in_place = s->mod && s->nhist &&
			may_give_up_module(s, s->hist_cur);
	HloModule *m = in_place ? s->mod
		       : s->mod ? pass_clone(s->mod)
				: repl_new_module("module");
	char *copy = malloc(len + 1);
	if (!m || !copy) {
		free(copy);
		if (!in_place)
			hlo_module_free(m);
		return repl_error(s, "out of memory");
	}
	memcpy(copy, text, len);
	copy[len] = 0;
	if (!m->entry) {
		free(copy);
		if (!in_place)
			hlo_module_free(m);
		return repl_error(s, "the module has no ENTRY computation");
	}
	Diag d;
	diag_init(&d);
	LineMark k = line_mark(m);
	/* the kernel count grows by the line's own (a walk of the module
	 * per line made typing a module quadratic) */
	int kernels = s->mod ? s->hist[s->hist_cur].kernels : 0;
	HloInstr *ins = add_line(m, s->src_name ? s->src_name : "<stdin>",
				 text, len, line, &d, true);
	for (int i = k.n; ins && i < m->entry->n; i++)
		kernels += hlo_launches_kernel(m->entry->instrs[i]->op);
	report(s, &d, ins != NULL, "cannot add the instruction");
	diag_free(&d);
	/* room for the step (the redo tail goes): then nothing can fail */
	if (ins && !make_room(s, 1)) {
		if (in_place)
			take_back(m, k);
		ins = NULL;
		repl_error(s, "out of memory");
	}
	if (!ins) {
		free(copy);
		if (!in_place)
			hlo_module_free(m);
		return false;
	}
	if (in_place)
		s->hist[s->nhist - 1].mod = NULL; /* made again when needed */
	HistStep *h = add_step(s, m, label);
	h->text = copy;
	h->text_len = len;
	h->text_line = line;
	h->instrs = hlo_module_instr_count(m);
	h->kernels = kernels;
	set_current(s, m);
	if (s->interactive)
		echo_instr(s, ins);
	return true;
}
