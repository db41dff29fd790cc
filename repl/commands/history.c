/* history.c - commands that step through module versions: passes, pass,
 * pipeline, undo, redo, history, diff.
 *
 * A command that applies passes runs them one after another on one clone
 * of the current module (pass_run: each verified afterwards) and commits
 * them only when every one succeeded: a failing command changes nothing.
 * Every application is a history step, even one that changed nothing, so
 * `history` reads as the list of what was done; the steps before the
 * last keep no module of their own but are made again by replay when
 * asked for (session.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "passes/fusion.h"
#include "passes/pass.h"
#include "print.h"
#include "textdiff.h"

/* constant-folding's cap on the elements of a folded result. */
enum { FOLD_MAX_ELEMS = 1 << 16, DIFF_CONTEXT = 3, PASS_LOG_LINES = 100 };

/* One pass applied on the side, waiting to be committed. */
typedef struct Applied {
	const Pass *pass;
	PassResult r;
	PassCtx cx;
	FusionLog *log; /* what a fusion pass decided */
	StrBuf rewrites; /* one line per rewrite (`set pass-log on`) */
} Applied;

bool cmd_passes(Session *s, const CmdArgs *a)
{
	(void)a;
	int n;
	const Pass *p = pass_table(&n);
	for (int i = 0; i < n; i++)
		fprintf(s->out, "  %-18s %s\n", p[i].name, p[i].summary);
	return true;
}

static void list_names(StrBuf *b, const char *const *v, int n)
{
	for (int i = 0; i < n; i++)
		sb_printf(b, "%s%s", i ? ", " : "", v[i]);
}

static bool unknown_pass(Session *s, const char *name)
{
	int n;
	const Pass *p = pass_table(&n);
	StrBuf b;
	sb_init(&b);
	for (int i = 0; i < n; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", p[i].name);
	char q[80];
	repl_error(s, "unknown pass '%s' (passes: %s)",
		   repl_quote(q, sizeof q, name, strlen(name)), sb_str(&b));
	sb_free(&b);
	return false;
}

static void free_applied(Applied *v, int n)
{
	for (int i = 0; i < n; i++) {
		fusion_log_free(v[i].log);
		sb_free(&v[i].rewrites);
	}
	free(v);
}

/* Runs the passes one after another on m, a clone of the current
 * module; first is m's counts (pass_clone_counted). False (with the
 * error printed) when one fails; m is then spent. */
static bool apply_all(Session *s, HloModule *m, const Pass **p, int n,
		      Applied *v, const PassResult *first)
{
	for (int i = 0; i < n; i++) {
		Diag d;
		diag_init(&d);
		v[i].pass = p[i];
		v[i].log = fusion_log_new();
		if (!v[i].log) {
			diag_free(&d);
			return repl_error(s, "out of memory");
		}
		sb_init(&v[i].rewrites);
		v[i].cx = (PassCtx){.d = &d,
				    .fold_max_elems = FOLD_MAX_ELEMS,
				    .fusion_log = v[i].log,
				    .fusion_off = s->fusion_off,
				    .log = s->pass_log ? &v[i].rewrites : NULL,
				    .prev = i ? &v[i - 1].r : first};
		bool ok = pass_run(m, p[i], &v[i].cx, &v[i].r);
		v[i].cx.d = NULL;
		v[i].cx.prev = NULL;
		repl_print_diag(s, &d);
		bool said = d.errors > 0;
		diag_free(&d);
		if (!ok) {
			if (!said)
				repl_error(s, "pass '%s' failed", p[i]->name);
			return false;
		}
	}
	return true;
}

static void print_applied(Session *s, Applied *v)
{
	const PassResult *r = &v->r;
	fprintf(s->out,
		"pass: name=%s changed=%s instructions=%d->%d "
		"kernels=%d->%d bytes=%lld->%lld time_ms=%.2f\n",
		v->pass->name, r->changed ? "yes" : "no", r->instrs_before,
		r->instrs_after, r->kernels_before, r->kernels_after,
		(long long)r->bytes_before, (long long)r->bytes_after, r->ms);
	for (int i = 0; i < v->cx.nrules; i++)
		fprintf(s->out, "  rule %s fired %d time%s\n",
			v->cx.rules[i].rule, v->cx.rules[i].count,
			v->cx.rules[i].count == 1 ? "" : "s");
	/* The rewrites themselves, at most PASS_LOG_LINES of them. */
	const char *t = sb_str(&v->rewrites);
	int lines = 0;
	while (*t) {
		size_t n = strcspn(t, "\n");
		if (lines++ < PASS_LOG_LINES)
			fprintf(s->out, "    %.*s\n", (int)n, t);
		t += n + (t[n] == '\n');
	}
	if (lines > PASS_LOG_LINES)
		fprintf(s->out, "    ... %d more rewrites\n",
			lines - PASS_LOG_LINES);
}

/* After a fusion pass made step `step`: its decisions are what `why` and
 * `fusions` answer from. `fusion` starts a new log; the multi-output
 * pass adds to the log of the last fusion pass before it, with other
 * passes (dce, say) in between or not, while that log holds (its step
 * not undone). `defuser` leaves no fusion for the decisions before it
 * to name: its step starts an empty log. */
static void keep_log(Session *s, Applied *v, int step)
{
	bool fresh = !strcmp(v->pass->name, "fusion") ||
		     !strcmp(v->pass->name, "defuser");
	bool more = !strcmp(v->pass->name, "multi-output-fusion");
	if (!fresh && !more)
		return;
	int base = step - 1;
	const FusionLog *prev =
		more ? repl_fusion_log_at(s, step - 1, NULL, &base) : NULL;
	FusionLog *l = v->log;
	if (prev) {
		/* the earlier step keeps its own (undo goes back to it) */
		l = fusion_log_copy(prev);
		if (!l || !fusion_log_merge(l, v->log)) {
			fusion_log_free(l);
			repl_error(s, "out of memory keeping the fusion log");
			return;
		}
	} else {
		base = step - 1;
		v->log = NULL;
	}
	repl_keep_fusion_log(s, step, l, base);
}

/* Applies p[0..n) as n history steps labelled "pass NAME" + suffix. */
static bool run_passes(Session *s, const Pass **p, int n, const char *suffix)
{
	if (!repl_need_module(s))
		return false;
	/* Its steps and the one it starts from fit in the history. */
	if (n > REPL_HISTORY_MAX - 1)
		return repl_error(s,
				  "%d passes in one command: at most %d (the "
				  "history keeps %d steps)",
				  n, REPL_HISTORY_MAX - 1, REPL_HISTORY_MAX);
	Applied *v = calloc((size_t)n + 1, sizeof *v);
	PassStep *ps = calloc((size_t)n + 1, sizeof *ps);
	PassResult counts;
	HloModule *m = v && ps ? pass_clone_counted(s->mod, &counts) : NULL;
	if (!m) {
		free(v);
		free(ps);
		return repl_error(s, "out of memory");
	}
	bool ok = apply_all(s, m, p, n, v, &counts);
	if (ok) {
		for (int i = 0; i < n; i++) {
			ps[i] = (PassStep){.pass = p[i],
					   .fusion_off = v[i].cx.fusion_off,
					   .fold_max_elems =
						   v[i].cx.fold_max_elems,
					   .instrs = v[i].r.instrs_after,
					   .kernels = v[i].r.kernels_after};
			snprintf(ps[i].label, sizeof ps[i].label, "pass %s%s",
				 p[i]->name, suffix);
		}
		int first = cmd_current_step(s) + 1;
		ok = repl_commit_passes(s, m, ps, n);
		/* The steps are numbered from first even when the oldest were
		 * dropped to make room: step numbers are never reused. */
		for (int i = 0; i < n && ok; i++) {
			keep_log(s, &v[i], first + i);
			print_applied(s, &v[i]);
		}
	} else {
		hlo_module_free(m);
	}
	free_applied(v, n);
	free(ps);
	return ok;
}

bool cmd_pass(Session *s, const CmdArgs *a)
{
	const Pass **p = calloc((size_t)a->argc, sizeof *p);
	if (!p)
		return repl_error(s, "out of memory");
	bool ok = true;
	for (int i = 0; i < a->argc && ok; i++)
		if (!(p[i] = pass_find(a->argv[i])))
			ok = unknown_pass(s, a->argv[i]);
	if (ok)
		ok = run_passes(s, p, a->argc, "");
	free(p);
	return ok;
}

static bool unknown_pipeline(Session *s, const char *name)
{
	int n;
	const char *const *v = pipeline_names(&n);
	StrBuf b;
	sb_init(&b);
	list_names(&b, v, n);
	char q[80];
	repl_error(s, "unknown pipeline '%s' (pipelines: %s)",
		   repl_quote(q, sizeof q, name, strlen(name)), sb_str(&b));
	sb_free(&b);
	return false;
}

bool cmd_pipeline(Session *s, const CmdArgs *a)
{
	const char *name = a->argc ? a->argv[0] : "default";
	int n;
	const char *const *names = pipeline_find(name, &n);
	if (!names)
		return unknown_pipeline(s, name);
	const Pass **p = calloc((size_t)n + 1, sizeof *p);
	if (!p)
		return repl_error(s, "out of memory");
	bool ok = true;
	for (int i = 0; i < n && ok; i++)
		if (!(p[i] = pass_find(names[i])))
			ok = repl_error(s,
					"internal error: pipeline '%s' names "
					"unknown pass '%s'",
					name, names[i]);
	char suffix[64];
	snprintf(suffix, sizeof suffix, " (pipeline %s)", name);
	if (ok)
		ok = run_passes(s, p, n, suffix);
	free(p);
	return ok;
}

void cmd_complete_passes(const Session *s, const char *prefix, CmdMatches *out)
{
	(void)s;
	int n;
	const Pass *p = pass_table(&n);
	for (int i = 0; i < n; i++)
		if (strncmp(p[i].name, prefix, strlen(prefix)) == 0)
			cmd_matches_add(out, p[i].name);
}

void cmd_complete_pipelines(const Session *s, const char *prefix,
			    CmdMatches *out)
{
	(void)s;
	int n;
	const char *const *v = pipeline_names(&n);
	for (int i = 0; i < n; i++)
		if (strncmp(v[i], prefix, strlen(prefix)) == 0)
			cmd_matches_add(out, v[i]);
}

/* --- moving through versions --- */

int cmd_current_step(const Session *s)
{
	return s->hist_dropped + s->hist_cur;
}

static void print_step(Session *s, int k, bool marker)
{
	const HistStep *h = repl_history_step(s, k);
	fprintf(s->out, "%c %3d  %-40s instructions=%d kernels=%d\n",
		marker ? '*' : ' ', k, h->label, h->instrs, h->kernels);
}

static bool move_to(Session *s, int k, const char *verb)
{
	if (!repl_history_goto(s, k))
		return false;
	const HistStep *h = repl_history_step(s, k);
	fprintf(s->out, "%s: at step %d (%s) instructions=%d kernels=%d\n",
		verb, k, h->label, h->instrs, h->kernels);
	return true;
}

bool cmd_undo(Session *s, const CmdArgs *a)
{
	(void)a;
	if (s->nhist == 0 || s->hist_cur == 0)
		return repl_error(s, "nothing to undo%s",
				  s->hist_dropped ? " (older steps were "
						    "dropped)"
						  : "");
	return move_to(s, cmd_current_step(s) - 1, "undo");
}

bool cmd_redo(Session *s, const CmdArgs *a)
{
	(void)a;
	if (s->hist_cur + 1 >= s->nhist)
		return repl_error(s, "nothing to redo");
	return move_to(s, cmd_current_step(s) + 1, "redo");
}

bool cmd_history(Session *s, const CmdArgs *a)
{
	(void)a;
	if (s->nhist == 0) {
		fprintf(s->out, "no history yet\n");
		return true;
	}
	if (s->hist_dropped)
		fprintf(s->out,
			"(steps 0-%d dropped: the history keeps the last %d)\n",
			s->hist_dropped - 1, REPL_HISTORY_MAX);
	for (int i = 0; i < s->nhist; i++)
		print_step(s, s->hist_dropped + i, i == s->hist_cur);
	return true;
}

/* A step number as `history` shows it, one that is still kept. */
bool cmd_parse_step(Session *s, const char *w, int *k)
{
	char q[80];
	if (!repl_parse_int(w, 0, 1 << 30, k))
		return repl_error(s,
				  "invalid step '%s' (a number from 'history')",
				  repl_quote(q, sizeof q, w, strlen(w)));
	if (repl_history_step(s, *k))
		return true;
	if (s->nhist == 0)
		return repl_error(s, "no step %d: the history is empty", *k);
	return repl_error(s, "no step %d (steps are %d-%d)", *k,
			  s->hist_dropped, s->hist_dropped + s->nhist - 1);
}

bool cmd_step_pair(Session *s, char *const *w, int n, int *ka, int *kb,
		   const char *cmd)
{
	int cur = cmd_current_step(s);
	*ka = cur - 1;
	*kb = cur;
	if (n == 0 && !repl_history_step(s, *ka))
		return repl_error(s, "no previous step to compare with (try "
				     "'%s A B')", cmd);
	if (n >= 1 && !cmd_parse_step(s, w[0], ka))
		return false;
	return n < 2 || cmd_parse_step(s, w[1], kb);
}

static void print_text(StrBuf *b, const HloModule *m)
{
	print_module(b, m, &print_opts_default);
}

static bool diff_steps(Session *s, int ka, int kb)
{
	const HloModule *ma = repl_history_module(s, ka);
	const HloModule *mb = ma ? repl_history_module(s, kb) : NULL;
	if (!mb)
		return false;
	const HistStep *ha = repl_history_step(s, ka);
	const HistStep *hb = repl_history_step(s, kb);
	StrBuf ta, tb, out;
	sb_init(&ta);
	sb_init(&tb);
	sb_init(&out);
	print_text(&ta, ma);
	print_text(&tb, mb);
	char na[128], nb[128];
	snprintf(na, sizeof na, "step %d: %s", ka, ha->label);
	snprintf(nb, sizeof nb, "step %d: %s", kb, hb->label);
	int n = textdiff_unified(&out, na, sb_str(&ta), ta.len, nb, sb_str(&tb),
				 tb.len, DIFF_CONTEXT);
	bool ok = !ta.oom && !tb.oom && !out.oom;
	if (!ok)
		repl_error(s, "out of memory");
	else if (n == 0)
		fprintf(s->out, "no differences between step %d and step %d\n",
			ka, kb);
	else
		fwrite(sb_str(&out), 1, out.len, s->out);
	sb_free(&ta);
	sb_free(&tb);
	sb_free(&out);
	return ok;
}

bool cmd_diff(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	int ka, kb;
	return cmd_step_pair(s, a->argv, a->argc, &ka, &kb, "diff") &&
	       diff_steps(s, ka, kb);
}
