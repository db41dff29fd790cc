/* run.c - running the module: input, run, save-result, check.
 *
 * Inputs are kept per entry parameter number; a parameter without one
 * gets random values with a fixed seed (its number) at the first run, and
 * the session says so. A run is refused up front when its inputs and
 * buffers would not fit under `set max-memory`; Ctrl-C stops it and the
 * session keeps everything it had. */
#include <math.h>
#include <signal.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "commands.h"
#include "compare.h"
#include "npy.h"
#include "parse.h"

/* Results with more elements are summarised (first and last elements,
 * min/max/mean) instead of printed in full. */
enum { SHOW_ALL_ELEMS = 64, SHOW_EDGE = 4, MAX_ITERS = 100000 };
/* Notes about parameters given random values, before one summary line. */
enum { QUIET_NOTES = 4 };

/* ---- Ctrl-C ------------------------------------------------------------ */

/* The one flag a signal handler may touch; runs read it through
 * InterpOpts.interrupted. */
static volatile int run_interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	run_interrupted = 1;
}

typedef struct {
	struct sigaction old;
} SigGuard;

static void sig_catch(SigGuard *g)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	run_interrupted = 0;
	sigaction(SIGINT, &sa, &g->old);
}

static void sig_restore(SigGuard *g)
{
	sigaction(SIGINT, &g->old, NULL);
}

/* ---- printing values --------------------------------------------------- */

static void print_stats(FILE *f, const Literal *l)
{
	if (!dtype_is_float(l->shape->type) && !dtype_is_int(l->shape->type))
		return;
	double lo = INFINITY, hi = -INFINITY, sum = 0;
	int64_t nans = 0;
	for (int64_t i = 0; i < l->n; i++) {
		double v = literal_get_f64(l, i);
		if (isnan(v)) {
			nans++;
			continue;
		}
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		sum += v;
	}
	fprintf(f, "  (%lld elements; min %.6g max %.6g mean %.6g",
		(long long)l->n, lo, hi, l->n > nans ? sum / (double)(l->n - nans) : NAN);
	if (nans)
		fprintf(f, "; %lld NaN", (long long)nans);
	fputs(")\n", f);
}

/* "f32[2,3] { { 1, 2, 3 }, { 4, 5, 6 } }" like XLA prints a literal, or a
 * summary "f32[8,1000] {a, b, c, d, ..., w, x, y, z}" with statistics. */
static void print_array(FILE *f, const Literal *l)
{
	StrBuf b;
	sb_init(&b);
	shape_print(&b, l->shape, false);
	sb_putc(&b, ' ');
	if (l->n <= SHOW_ALL_ELEMS) {
		literal_print(&b, l, 0);
		fprintf(f, "%s\n", sb_text(&b));
		sb_free(&b);
		return;
	}
	sb_putc(&b, '{');
	for (int64_t i = 0; i < SHOW_EDGE; i++) {
		literal_print_scalar(&b, l, i);
		sb_puts(&b, ", ");
	}
	sb_puts(&b, "...");
	for (int64_t i = l->n - SHOW_EDGE; i < l->n; i++) {
		sb_puts(&b, ", ");
		literal_print_scalar(&b, l, i);
	}
	sb_putc(&b, '}');
	fprintf(f, "%s\n", sb_text(&b));
	print_stats(f, l);
	sb_free(&b);
}

static void print_value(FILE *f, const Literal *l, const char *label)
{
	if (l->shape->type != DT_TUPLE) {
		if (*label)
			fprintf(f, "%s ", label);
		if (dtype_is_array(l->shape->type))
			print_array(f, l);
		else
			fprintf(f, "%s[]\n", dtype_name(l->shape->type));
		return;
	}
	if (l->ntuple == 0)
		fprintf(f, "%s%s()\n", label, *label ? " " : "");
	for (int i = 0; i < l->ntuple; i++) {
		char sub[64];
		snprintf(sub, sizeof sub, "%s(%d)", label, i);
		print_value(f, l->tuple[i], sub);
	}
}

/* ---- inputs ------------------------------------------------------------ */

static bool grow_inputs(Session *s, int n)
{
	if (n <= s->ninputs)
		return true;
	Value *v = realloc(s->inputs, sizeof *v * (size_t)n);
	if (!v)
		return false;
	for (int i = s->ninputs; i < n; i++) {
		memset(&v[i], 0, sizeof v[i]);
		arena_init(&v[i].arena);
	}
	s->inputs = v;
	s->ninputs = n;
	return true;
}

static bool parse_count(const char *w, int64_t *out)
{
	if (*w < '0' || *w > '9') /* no blank, sign or empty word */
		return false;
	char *e;
	errno = 0;
	long long v = strtoll(w, &e, 10);
	if (*e || v < 0 || errno == ERANGE)
		return false;
	*out = v;
	return true;
}

static HloInstr *find_param(Session *s, const char *word)
{
	int64_t no;
	HloComp *e = s->mod->entry;
	int np = e ? hlo_comp_param_count(e) : 0;
	if (!parse_count(word, &no))
		return repl_error(s, "'%s' is not a parameter number", word), NULL;
	HloInstr *p = e ? hlo_comp_param(e, no) : NULL;
	if (!p)
		repl_error(s, "no parameter %lld: the entry computation '%s' has "
			   "%d parameter%s", (long long)no, e ? e->name : "?", np,
			   np == 1 ? "" : "s");
	return p;
}

static const char *shape_text(Arena *a, const Shape *s)
{
	return shape_str(a, s);
}

static bool fits_memory(Session *s, const HloInstr *p)
{
	int64_t b = shape_bytes(p->shape);
	if (b >= 0 && b <= s->max_memory)
		return true;
	Arena a;
	arena_init(&a);
	char lim[32];
	repl_error(s, "parameter %lld '%s' is %s, %s than max-memory %s (see "
		   "'set max-memory')", (long long)p->param_no, p->name,
		   shape_text(&a, p->shape), b < 0 ? "far more" : "more",
		   repl_bytes(lim, sizeof lim, s->max_memory));
	arena_free(&a);
	return false;
}

static void fill_ones(Literal *l)
{
	for (int64_t i = 0; i < l->n; i++)
		literal_set_f64(l, i, 1);
}

static void fill_iota(Literal *l)
{
	for (int64_t i = 0; i < l->n; i++)
		literal_set_f64(l, i, l->shape->type == DT_PRED ? (double)(i & 1)
								 : (double)i);
}

static Literal *random_input(Arena *a, const HloInstr *p, uint64_t seed)
{
	Literal *l = literal_new(a, p->shape);
	if (l)
		literal_fill_pseudo_random(l, seed);
	return l;
}

/* Does every value of the int8/uint8 literal l fit in t (s1, s2, s4 or
 * their unsigned kinds, one byte per element in a literal as in .npy)?
 * Else -1, or the index of the first that does not. */
static int64_t narrow_int_misfit(const Literal *l, Dtype t)
{
	int bits = dtype_bits(t);
	bool sgn = dtype_kind(t) == DK_SINT;
	int64_t lo = sgn ? -((int64_t)1 << (bits - 1)) : 0;
	int64_t hi = sgn ? ((int64_t)1 << (bits - 1)) - 1
			 : ((int64_t)1 << bits) - 1;
	for (int64_t i = 0; i < l->n; i++) {
		int64_t v = literal_get_i64(l, i);
		if (v < lo || v > hi)
			return i;
	}
	return -1;
}

/* A .npy file for parameter p: same dims, and the same element type, a
 * float32 file for a narrower float type (rounded), or an int8 (uint8)
 * file for s4, s2 or s1 (u4, u2, u1), which .npy has no type for, when
 * every value fits. */
static Literal *npy_input(Session *s, Arena *a, const HloInstr *p,
			  const char *path, char *desc, size_t cap)
{
	Diag d;
	diag_init(&d);
	Literal *l = npy_read(a, path, &d);
	repl_print_diag(s, &d);
	diag_free(&d);
	if (!l)
		return NULL;
	Dtype want = p->shape->type, got = l->shape->type;
	bool narrow = got == DT_F32 && dtype_is_float(want) && dtype_bits(want) < 32;
	bool narrow_int = dtype_is_int(want) && dtype_bits(want) < 8 &&
			  got == (dtype_kind(want) == DK_SINT ? DT_S8 : DT_U8);
	if (p->shape->type == DT_TUPLE || !shape_same_dims(l->shape, p->shape) ||
	    (got != want && !narrow && !narrow_int)) {
		repl_error(s, "%s is %s (%s) but parameter %lld '%s' is %s", path,
			   shape_text(a, l->shape), npy_dtype_name(got),
			   (long long)p->param_no, p->name, shape_text(a, p->shape));
		return NULL;
	}
	int64_t bad = narrow_int ? narrow_int_misfit(l, want) : -1;
	if (bad >= 0) {
		repl_error(s, "%s: value %lld (element %lld) does not fit "
			   "parameter %lld '%s' of type %s", path,
			   (long long)literal_get_i64(l, bad), (long long)bad,
			   (long long)p->param_no, p->name, dtype_name(want));
		return NULL;
	}
	if (narrow_int) {
		l = literal_convert(a, l, want);
		snprintf(desc, cap, "%s (%s as %s)", path,
			 npy_dtype_name(got), dtype_name(want));
	} else if (narrow) {
		l = literal_convert(a, l, want);
		snprintf(desc, cap, "%s (float32 rounded to %s)", path,
			 dtype_name(want));
	} else {
		snprintf(desc, cap, "%s", path);
	}
	return l;
}

static bool is_word(const CmdArgs *a, int i, const char *w)
{
	return a->argc > i && !strcmp(a->argv[i], w);
}

/* The text after "N " in the raw line: a literal such as {1, 2, 3},
 * up to a comment (a word that starts with '#': no literal has one),
 * copied into ar. */
static const char *literal_text(Arena *ar, const CmdArgs *a)
{
	const char *r = a->rest;
	r += strspn(r, " \t");
	r += strcspn(r, " \t");
	r += strspn(r, " \t");
	size_t n = 0;
	while (r[n] && !(r[n] == '#' && (n == 0 || r[n - 1] == ' ' ||
					  r[n - 1] == '\t')))
		n++;
	char *t = arena_alloc(ar, n + 1);
	if (!t)
		return "";
	memcpy(t, r, n);
	t[n] = 0;
	return t;
}

/* The values of parameter p did not fit in memory: said, NULL. */
static Literal *no_room(Session *s, const HloInstr *p, Arena *ar)
{
	char b[32];
	return repl_error(s, "out of memory for parameter %lld '%s' (%s, %s)",
			  (long long)p->param_no, p->name,
			  shape_text(ar, p->shape),
			  repl_bytes(b, sizeof b, shape_bytes(p->shape))),
	       NULL;
}

static Literal *make_input(Session *s, Arena *ar, const HloInstr *p,
			   const CmdArgs *a, char *desc, size_t cap)
{
	const char *w = a->argc > 1 ? a->argv[1] : "";
	bool npy = repl_has_ext(w, ".npy");
	bool word = !strcmp(w, "zeros") || !strcmp(w, "ones") ||
		    !strcmp(w, "iota") || npy;
	if (a->argc > (!strcmp(w, "random") ? 3 : word ? 2 : a->argc))
		return repl_error(s, "unexpected '%s' after '%s'",
				  a->argv[a->argc - 1], w),
		       NULL;
	if (!strcmp(w, "random")) {
		int64_t seed = p->param_no;
		if (a->argc > 2 && !parse_count(a->argv[2], &seed))
			return repl_error(s, "bad seed '%s'", a->argv[2]), NULL;
		snprintf(desc, cap, "random (seed %lld)", (long long)seed);
		Literal *l = random_input(ar, p, (uint64_t)seed);
		return l ? l : no_room(s, p, ar);
	}
	if (!strcmp(w, "zeros") || !strcmp(w, "ones") || !strcmp(w, "iota")) {
		Literal *l = literal_new(ar, p->shape);
		if (l && w[0] == 'o')
			fill_ones(l);
		if (l && w[0] == 'i')
			fill_iota(l);
		snprintf(desc, cap, "%s", w);
		return l ? l : no_room(s, p, ar);
	}
	if (npy)
		return npy_input(s, ar, p, w, desc, cap);
	Diag d;
	diag_init(&d);
	Literal *l = parse_literal_text(ar, p->shape, literal_text(ar, a), &d);
	if (!l)
		repl_error(s, "cannot read a value for parameter %lld '%s' (%s): %s",
			   (long long)p->param_no, p->name,
			   shape_text(ar, p->shape),
			   d.errors ? "not a literal of that shape"
				    : "expected random [SEED], zeros, ones, iota, "
				      "a .npy file or a literal");
	if (!l)
		repl_print_diag(s, &d);
	diag_free(&d);
	snprintf(desc, cap, "literal");
	return l;
}

static bool list_inputs(Session *s)
{
	HloComp *e = s->mod->entry;
	int np = e ? hlo_comp_param_count(e) : 0;
	if (np == 0)
		fprintf(s->out, "the entry computation has no parameters\n");
	Arena a;
	arena_init(&a);
	for (int i = 0; i < np; i++) {
		HloInstr *p = hlo_comp_param(e, i);
		const Value *v = i < s->ninputs ? &s->inputs[i] : NULL;
		fprintf(s->out, "input %d '%s' %s: %s\n", i, p ? p->name : "?",
			p ? shape_text(&a, p->shape) : "?",
			v && v->lit ? v->desc : "none yet (random at the first run)");
	}
	arena_free(&a);
	return true;
}

bool cmd_input(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	if (a->argc == 0)
		return list_inputs(s);
	if (a->argc == 1)
		return repl_error(s, "'input %s' needs a SOURCE (usage: %s)",
				  a->argv[0], a->cmd->synopsis);
	HloInstr *p = find_param(s, a->argv[0]);
	if (!p || !fits_memory(s, p))
		return false;
	Arena ar;
	arena_init(&ar);
	char desc[96];
	Literal *l = make_input(s, &ar, p, a, desc, sizeof desc);
	bool ok = l && grow_inputs(s, (int)p->param_no + 1) &&
		  repl_value_set(&s->inputs[p->param_no], l, desc);
	if (l && !ok)
		repl_error(s, "out of memory");
	if (ok)
		fprintf(s->out, "input %lld '%s': %s\n", (long long)p->param_no,
			p->name, desc);
	arena_free(&ar);
	return ok;
}

/* ---- running ----------------------------------------------------------- */

/* Arguments for every entry parameter: the inputs, with random ones made
 * (and kept, and announced) where there are none; *fresh (malloc'd)
 * flags those, which a run that fails takes back. */
static Literal **gather_args(Session *s, int *np, char **fresh)
{
	HloComp *e = s->mod->entry;
	*np = hlo_comp_param_count(e);
	Literal **args = calloc((size_t)*np + 1, sizeof *args);
	*fresh = calloc((size_t)*np + 1, 1);
	if (!args || !*fresh || !grow_inputs(s, *np)) {
		free(args);
		free(*fresh);
		*fresh = NULL;
		return repl_error(s, "out of memory"), NULL;
	}
	int made = 0;
	for (int i = 0; i < *np; i++) {
		HloInstr *p = hlo_comp_param(e, i);
		Value *v = &s->inputs[i];
		if (!v->lit) {
			Arena ar;
			arena_init(&ar);
			char desc[96];
			snprintf(desc, sizeof desc, "random (seed %d)", i);
			Literal *l = random_input(&ar, p, (uint64_t)i);
			bool ok = l && repl_value_set(v, l, desc);
			arena_free(&ar);
			if (!ok) {
				free(args);
				return repl_error(s, "out of memory"), NULL;
			}
			(*fresh)[i] = 1;
			if (++made <= QUIET_NOTES)
				fprintf(s->out, "note: parameter %d '%s' has no input; "
					"using %s\n", i, p->name, desc);
		}
		args[i] = v->lit;
	}
	if (made > QUIET_NOTES)
		fprintf(s->out, "note: and %d more parameter%s without input "
			"get%s random values (seed = parameter number)\n",
			made - QUIET_NOTES, made - QUIET_NOTES == 1 ? "" : "s",
			made - QUIET_NOTES == 1 ? "s" : "");
	return args;
}

/* Inputs and the interpreter's live buffers must fit under max-memory;
 * checked before any input is made. */
static bool check_memory(Session *s)
{
	HloComp *e = s->mod->entry;
	int64_t need = interp_estimate_bytes(s->mod);
	if (need == INTERP_OOM)
		return repl_error(s, "out of memory");
	for (int i = 0; i < hlo_comp_param_count(e) && need >= 0; i++) {
		HloInstr *p = hlo_comp_param(e, i);
		int64_t b = p ? shape_bytes(p->shape) : -1;
		need = b < 0 ? -1 : shape_bytes_add(need, b);
	}
	if (need >= 0 && need <= s->max_memory)
		return true;
	if (need < 0)
		return repl_error(s, "the run's buffers are too large to count");
	char n1[32], n2[32];
	return repl_error(s, "the run needs about %s (inputs and live buffers), "
			     "more than max-memory %s (see 'set max-memory')",
			  repl_bytes(n1, sizeof n1, need),
			  repl_bytes(n2, sizeof n2, s->max_memory));
}

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

typedef struct {
	Arena arena;
	Literal *value;
	double median_us, min_us;
	int64_t iters;
	/* the inputs this run made (fresh[i] for parameter i; NULL: none),
	 * for a later step of the same command that fails to take back */
	char *fresh;
	int np;
} RunOut;

/* Takes back the inputs run r made: a command that fails after it
 * changes nothing. */
static void forget_inputs(Session *s, RunOut *r)
{
	for (int i = 0; r->fresh && i < r->np; i++)
		if (r->fresh[i])
			repl_value_clear(&s->inputs[i]);
}

/* Runs the current module on backend b `iters` times; the value of the
 * last run is kept in r. Prints diagnostics on failure. */
static bool run_backend(Session *s, const Backend *b, int64_t iters, RunOut *r)
{
	memset(r, 0, sizeof *r);
	arena_init(&r->arena);
	int np;
	char *fresh = NULL;
	Literal **args = check_memory(s) ? gather_args(s, &np, &fresh) : NULL;
	if (!args) {
		free(fresh);
		return false;
	}
	double *t = malloc(sizeof *t * (size_t)iters);
	if (!t) /* (no run: the inputs made go below) */
		repl_error(s, "out of memory");
	Diag d;
	diag_init(&d);
	SigGuard g;
	sig_catch(&g);
	InterpOpts o = {s->max_memory, &run_interrupted};
	for (int64_t i = 0; t && i < iters; i++) {
		arena_free(&r->arena); /* keep one result, not iters of them */
		double t0 = now_us();
		r->value = b->run(s->mod, args, np, &r->arena, &o, &d);
		t[i] = now_us() - t0;
		if (!r->value)
			break;
		r->iters++;
	}
	sig_restore(&g);
	if (!r->value) {
		repl_print_diag(s, &d);
		if (!d.errors && t)
			repl_error(s, "the run failed");
	} else if (r->iters) {
		qsort(t, (size_t)r->iters, sizeof *t, cmp_double);
		r->min_us = t[0];
		r->median_us = t[r->iters / 2];
	}
	diag_free(&d);
	free(t);
	free(args);
	r->fresh = fresh;
	r->np = np;
	/* a run that failed changes nothing: the inputs it made go (and
	 * so does all it holds: the caller frees nothing of a failed run) */
	if (!r->value) {
		forget_inputs(s, r);
		free(r->fresh);
		r->fresh = NULL;
		arena_free(&r->arena);
	}
	return r->value != NULL;
}

static const Backend *get_backend(Session *s, const char *name)
{
	const Backend *b = backend_find(name);
	if (!b)
		return repl_error(s, "unknown backend '%s' (interp, cpu or gpu)",
				  name), NULL;
	const char *why = b->unavailable();
	if (why)
		return repl_error(s, "backend '%s' is not available: %s", name,
				  why), NULL;
	return b;
}

static bool keep_result(Session *s, const Backend *b, RunOut *r)
{
	bool ok = repl_value_set(&s->result, r->value, b->name);
	snprintf(s->result_backend, sizeof s->result_backend, "%s", b->name);
	if (!ok)
		repl_error(s, "out of memory keeping the result");
	return ok;
}

bool cmd_run(Session *s, const CmdArgs *a)
{
	int64_t iters = 1;
	char q[80];
	if (a->argc == 2 && is_word(a, 1, "-n"))
		return repl_error(s, "'-n' needs a count (usage: %s)",
				  a->cmd->synopsis);
	if (a->argc >= 2 && !is_word(a, 1, "-n"))
		return repl_error(s, "unexpected '%s' (usage: %s)", a->argv[1],
				  a->cmd->synopsis);
	if (a->argc > 3)
		return repl_error(s, "unexpected '%s' (usage: %s)", a->argv[3],
				  a->cmd->synopsis);
	if (a->argc == 3 && (!parse_count(a->argv[2], &iters) || iters < 1 ||
			     iters > MAX_ITERS))
		return repl_error(s, "-n needs a count from 1 to %d, not '%s'",
				  MAX_ITERS,
				  repl_quote(q, sizeof q, a->argv[2],
					     strlen(a->argv[2])));
	if (!repl_need_module(s))
		return false;
	const Backend *b = get_backend(s, a->argv[0]);
	RunOut r;
	bool ok = b && run_backend(s, b, iters, &r);
	if (ok && !(ok = keep_result(s, b, &r)))
		forget_inputs(s, &r);
	if (ok) {
		print_value(s->out, r.value, "");
		fprintf(s->out, "timing: backend=%s compile_ms=0.000 median_us=%.1f "
			"min_us=%.1f iters=%lld\n", b->name, r.median_us, r.min_us,
			(long long)r.iters);
	}
	if (b) {
		arena_free(&r.arena);
		free(r.fresh);
	}
	return ok;
}

/* ---- save-result ------------------------------------------------------- */

/* PATH.npy for an array; PATH.0.npy, PATH.1.npy, ... (PATH.0.1.npy for
 * nested tuples) for a tuple. */
static bool save_value(Session *s, const Literal *l, const char *stem)
{
	char path[4096];
	if (l->shape->type == DT_TUPLE) {
		for (int i = 0; i < l->ntuple; i++) {
			snprintf(path, sizeof path, "%s.%d", stem, i);
			if (!save_value(s, l->tuple[i], path))
				return false;
		}
		return true;
	}
	snprintf(path, sizeof path, "%s.npy", stem);
	Diag d;
	diag_init(&d);
	const char *note = NULL;
	bool ok = npy_write(path, l, &d, &note);
	repl_print_diag(s, &d);
	diag_free(&d);
	if (ok && note)
		fprintf(s->out, "saved %s to %s (%s)\n",
			dtype_name(l->shape->type), path, note);
	else if (ok)
		fprintf(s->out, "saved %s to %s\n", dtype_name(l->shape->type),
			path);
	return ok;
}

bool cmd_save_result(Session *s, const CmdArgs *a)
{
	const char *p = a->argv[0];
	size_t n = strlen(p);
	if (n < 5 || strcmp(p + n - 4, ".npy")) /* its tuple files add .N.npy */
		return repl_error(s, "save-result needs a PATH ending in .npy");
	if (!s->result.lit)
		return repl_error(s, "no result yet (use 'run interp')");
	char stem[4096];
	snprintf(stem, sizeof stem, "%.*s", (int)(n - 4), p);
	return save_value(s, s->result.lit, stem);
}

/* ---- check ------------------------------------------------------------- */

bool cmd_check(Session *s, const CmdArgs *a)
{
	double tol = -1;
	if (a->argc == 2) {
		char *e;
		tol = strtod(a->argv[1], &e);
		if (*e || !(tol >= 0))
			return repl_error(s, "bad tolerance '%s'", a->argv[1]);
	}
	if (!repl_need_module(s))
		return false;
	const Backend *b = get_backend(s, a->argv[0]);
	const Backend *ref = backend_find("interp");
	RunOut want, got;
	if (!b || !run_backend(s, ref, 1, &want))
		return false;
	bool ok = run_backend(s, b, 1, &got);
	if (!ok)
		forget_inputs(s, &want); /* the interpreter's run made them */
	if (ok) {
		if (tol < 0)
			tol = compare_default_tol(want.value->shape);
		CompareResult c;
		literal_compare(got.value, want.value, tol, &c);
		fprintf(s->out, "check: backend=%s max_abs_err=%.3g max_rel_err=%.3g "
			"%s\n", b->name, c.max_abs_err, c.max_rel_err,
			c.ok ? "ok" : "FAIL");
		keep_result(s, b, &got);
		if (!c.ok)
			ok = repl_error(s, c.shape_differs
					       ? "backend '%s' gave a result of another shape"
					       : "backend '%s' differs from the interpreter: "
						 "%lld of %lld elements beyond tolerance %g",
					b->name, (long long)c.mismatches,
					(long long)c.elements, tol);
	}
	arena_free(&want.arena);
	arena_free(&got.arena);
	free(want.fresh);
	free(got.fresh);
	return ok;
}
