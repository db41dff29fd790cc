/* testutil.h - helpers shared by the cmocka units: reading a file, loading
 * a module (parse + verify), applying a pass, walking the corpus index,
 * seeded inputs, running a module through the interpreter (or checking
 * that an interrupt stops it, or stopping it on a timer), matching an
 * error text, and checking that every use list is exact.
 *
 * Each unit is its own executable built from one .c file
 * (tests/tests.cmake), so the helpers are static inline here rather than
 * a library that every test would have to link. */
#ifndef XR_TESTUTIL_H
#define XR_TESTUTIL_H

/* cmocka.h needs these first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "interp.h"
#include "parse.h"
#include "passes/pass.h"
#include "verify.h"

/* SIGALRM calls handler on every delivery: sigaction, because signal()
 * may be one-shot (System V semantics under _POSIX_C_SOURCE). */
static inline void alarm_install(void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(SIGALRM, &sa, NULL);
}

/* --- a run stopped on a timer ------------------------------------------- */

/* The flag timer_arm sets after its delay: an InterpOpts interrupt. */
static inline volatile int *timer_flag(void)
{
	static volatile int flag;
	return &flag;
}

static inline void timer_on_alarm(int sig)
{
	(void)sig;
	*timer_flag() = 1;
}

/* Clears the flag and sets it in s seconds (SIGALRM). */
static inline void timer_arm(double s)
{
	alarm_install(timer_on_alarm);
	*timer_flag() = 0;
	struct itimerval tv = {{0, 0}, {(long)s, (long)((s - (long)s) * 1e6)}};
	setitimer(ITIMER_REAL, &tv, NULL);
}

static inline void timer_disarm(void)
{
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
}

/* A monotonic clock in milliseconds. */
static inline double clock_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The whole file, NUL-terminated, its length in *n; NULL when it cannot
 * be opened. The caller frees it. */
static inline char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)len + 1);
	*n = fread(b, 1, (size_t)len, f);
	b[*n] = 0;
	fclose(f);
	return b;
}

/* The file name in folder dir (with or without a trailing '/'), as
 * slurp reads it. */
static inline char *slurp_in(const char *dir, const char *name, size_t *n)
{
	char path[8192];
	size_t k = strlen(dir);
	snprintf(path, sizeof path, "%s%s%s", dir,
		 k && dir[k - 1] == '/' ? "" : "/", name);
	return slurp(path, n);
}

/* Parses and verifies text as file `name`; NULL (diagnostics in d) when
 * either fails. Asserts nothing, so a test can expect the failure. */
static inline HloModule *load_verified(const char *name, const char *text,
				       size_t n, Diag *d)
{
	SrcFile f = {name, text, n, 0};
	HloModule *m = parse_module(&f, d, NULL);
	if (m && !verify_module(m, d, &f)) {
		hlo_module_free(m);
		m = NULL;
	}
	return m;
}

/* Parses and verifies text (as t.hlo); a module that does not load
 * fails the test, showing the diagnostics and the text. */
static inline HloModule *load_text(const char *text)
{
	Diag d;
	diag_init(&d);
	HloModule *m = load_verified("t.hlo", text, strlen(text), &d);
	if (!m)
		fail_msg("%s\n%s", diag_text(&d), text);
	diag_free(&d);
	return m;
}

/* The file name in folder dir, parsed and verified as name; a file that
 * is missing or does not load fails the test. */
static inline HloModule *load_file(const char *dir, const char *name)
{
	size_t n = 0;
	char *text = slurp_in(dir, name, &n);
	if (!text)
		fail_msg("cannot read %s in %s", name, dir);
	Diag d;
	diag_init(&d);
	HloModule *m = load_verified(name, text, n, &d);
	free(text);
	if (!m)
		fail_msg("%s", diag_text(&d));
	diag_free(&d);
	return m;
}

/* --- passes --------------------------------------------------------------- */

/* Applies pass `name` to m, which stays the caller's, with cx (NULL: an
 * empty context; its d is set to d for the call). The new module, even
 * when nothing changed (*changed says, when not NULL), or NULL with the
 * reason in d when the pass failed. An unknown name fails the test. */
static inline HloModule *pass_try(const HloModule *m, const char *name,
				  PassCtx *cx, Diag *d, bool *changed)
{
	const Pass *p = pass_find(name);
	if (!p)
		fail_msg("no pass %s", name);
	PassCtx plain = {0};
	if (!cx)
		cx = &plain;
	cx->d = d;
	PassResult r;
	bool ok = pass_apply(m, p, cx, &r);
	cx->d = NULL;
	if (changed)
		*changed = ok && r.changed;
	return ok ? r.m : NULL;
}

/* Replaces m by the result of pass `name` (m is freed); a pass that
 * fails fails the test. cx and changed as for pass_try. */
static inline HloModule *apply_pass(HloModule *m, const char *name, PassCtx *cx,
				    bool *changed)
{
	Diag d;
	diag_init(&d);
	HloModule *r = pass_try(m, name, cx, &d, changed);
	if (!r)
		fail_msg("pass %s: %s", name, diag_text(&d));
	diag_free(&d);
	hlo_module_free(m);
	return r;
}

/* --- the corpus ----------------------------------------------------------- */

enum { CORPUS_COLS = 20, CORPUS_LINE = 1 << 16 };

/* The corpus index (XR_CORPUS_DIR/INDEX.tsv) opened for reading; NULL
 * when the corpus is absent (the caller then skips). */
static inline FILE *corpus_index_open(void)
{
	char index[4096];
	snprintf(index, sizeof index, "%s/INDEX.tsv", XR_CORPUS_DIR);
	return fopen(index, "r");
}

/* The index read entry by entry (corpus_open, corpus_next). */
typedef struct Corpus {
	FILE *f;
	char line[CORPUS_LINE];
	char *col[CORPUS_COLS]; /* the entry's columns, NULL past the last:
				   col[0] the file, col[3] its instruction
				   count, col[15] its kind */
	int ncols;
	char path[CORPUS_LINE + 4096]; /* XR_CORPUS_DIR/col[0] */
} Corpus;

/* The index, past its header line; NULL, saying so, when the corpus is
 * absent (the caller then skips). */
static inline Corpus *corpus_open(void)
{
	FILE *f = corpus_index_open();
	if (!f) {
		print_message("corpus not found at %s\n", XR_CORPUS_DIR);
		return NULL;
	}
	Corpus *c = calloc(1, sizeof *c);
	assert_non_null(c);
	c->f = f;
	if (!fgets(c->line, sizeof c->line, f))
		c->line[0] = 0;
	return c;
}

/* The next entry (a line with at least two columns) into c; false at the
 * end of the index. */
static inline bool corpus_next(Corpus *c)
{
	while (fgets(c->line, sizeof c->line, c->f)) {
		char *s = c->line;
		c->ncols = 0;
		memset(c->col, 0, sizeof c->col);
		while (c->ncols < CORPUS_COLS) {
			c->col[c->ncols++] = s;
			s += strcspn(s, "\t\n");
			bool tab = *s == '\t';
			*s = 0;
			if (!tab)
				break;
			s++;
		}
		if (c->ncols < 2)
			continue;
		snprintf(c->path, sizeof c->path, "%s/%s", XR_CORPUS_DIR,
			 c->col[0]);
		return true;
	}
	return false;
}

static inline void corpus_close(Corpus *c)
{
	fclose(c->f);
	free(c);
}

/* What corpus_each went through: entries of the index, those it tried
 * to load (all of them unless fn stopped it) and those that loaded. */
typedef struct CorpusCount {
	int listed, tried, loaded;
} CorpusCount;

/* Called with each module that loads (name: its file, as in the index),
 * which it then owns (and frees); returns false to load no more. */
typedef bool (*CorpusFn)(const char *name, HloModule *m, void *ctx);

/* Loads (parse + verify) every module of the index in its order and
 * calls fn on those that load; the modules that do not are passed over
 * (test_corpus.c decides which must load). Skips the test when the
 * corpus is absent. */
static inline CorpusCount corpus_each(CorpusFn fn, void *ctx)
{
	CorpusCount n = {0};
	Corpus *c = corpus_open();
	if (!c)
		skip();
	bool more = true;
	while (corpus_next(c)) {
		n.listed++;
		if (!more)
			continue;
		n.tried++;
		size_t len;
		char *text = slurp(c->path, &len);
		Diag d;
		diag_init(&d);
		d.max_warnings = 0;
		HloModule *m =
			text ? load_verified(c->col[0], text, len, &d) : NULL;
		free(text);
		diag_free(&d);
		if (!m)
			continue;
		n.loaded++;
		more = fn(c->col[0], m, ctx);
	}
	corpus_close(c);
	return n;
}

/* A check's failure message for module name (malloc'd; NULL: it passed)
 * printed and freed; 1 when there was one, else 0, to count failures. */
static inline int tally_fail(const char *name, char *msg)
{
	if (!msg)
		return 0;
	print_message("FAIL %s: %s\n", name, msg);
	free(msg);
	return 1;
}

/* --- inputs --------------------------------------------------------------- */

/* The bytes the entry parameters of m take; -1 when one has no size. */
static inline int64_t inputs_bytes(const HloModule *m)
{
	int64_t bytes = 0;
	int np = hlo_comp_param_count(m->entry);
	for (int i = 0; i < np; i++) {
		HloInstr *p = hlo_comp_param(m->entry, i);
		int64_t b = p ? shape_bytes(p->shape) : -1;
		bytes = b < 0 || bytes < 0 ? -1 : bytes + b;
	}
	return bytes;
}

/* One literal in a per entry parameter of m (NULL-terminated), parameter
 * i filled by literal_fill_pseudo_random with seed + i: the same inputs
 * for the same seed. NULL when one cannot be made. */
static inline Literal **inputs_seeded(const HloModule *m, Arena *a,
				      uint64_t seed)
{
	int np = hlo_comp_param_count(m->entry);
	Literal **args = arena_alloc(a, sizeof *args * (size_t)(np + 1));
	if (!args)
		return NULL;
	for (int i = 0; i < np; i++) {
		args[i] = literal_new(a, hlo_comp_param(m->entry, i)->shape);
		if (!args[i])
			return NULL;
		literal_fill_pseudo_random(args[i], seed + (uint64_t)i);
	}
	args[np] = NULL;
	return args;
}

/* The entry of m run on args (results in a, 1 GiB limit); a failed run
 * fails the test. */
static inline Literal *interp_ok(const HloModule *m, Literal *const *args,
				 Arena *a)
{
	Diag d;
	diag_init(&d);
	InterpOpts o = {(int64_t)1 << 30, NULL};
	Literal *r = interp_run(m, args, hlo_comp_param_count(m->entry), a, &o,
				&d, NULL);
	if (!r)
		fail_msg("%s", diag_text(&d));
	diag_free(&d);
	return r;
}

/* The entry of m run on args (results in a, 1 GiB limit), stopped after
 * budget seconds; NULL when the run fails, the reason in d ("interrupted"
 * when the time ran out). st, when not NULL, gets the run's figures. */
static inline Literal *interp_timed(const HloModule *m, Literal *const *args,
				    Arena *a, double budget, Diag *d,
				    InterpStats *st)
{
	InterpOpts o = {(int64_t)1 << 30, timer_flag()};
	timer_arm(budget);
	Literal *r = interp_run(m, args, hlo_comp_param_count(m->entry), a, &o,
				d, st);
	timer_disarm();
	return r;
}

/* The entry of m run on inputs_seeded(m, a, seed); a failed run fails the
 * test. */
static inline Literal *run_seeded(const HloModule *m, Arena *a, uint64_t seed)
{
	Literal **args = inputs_seeded(m, a, seed);
	assert_non_null(args);
	return interp_ok(m, args, a);
}

/* The error text must contain want (location and message). */
static inline void check_error(const char *got, const char *want)
{
	if (!strstr(got, want))
		fail_msg("expected error\n  %s\ngot\n  %s", want, got);
}

/* --- one module through the interpreter ---------------------------------- */

/* A loaded module with its own arena and diagnostics, and zero-filled
 * arguments (run_init) that a test may overwrite before run_go. */
typedef struct Run {
	Arena a;
	Diag d;
	HloModule *m;
	Literal *args[4];
	int nargs;
} Run;

/* Loads text into r; a module that does not load fails the test. */
static inline void run_load(Run *r, const char *text)
{
	memset(r, 0, sizeof *r);
	arena_init(&r->a);
	diag_init(&r->d);
	r->m = load_verified("test.hlo", text, strlen(text), &r->d);
	if (!r->m)
		fail_msg("%s\n%s", diag_text(&r->d), text);
}

/* Loads text and makes a zero-filled literal for each entry parameter. */
static inline void run_init(Run *r, const char *text)
{
	run_load(r, text);
	r->nargs = hlo_comp_param_count(r->m->entry);
	assert_true(r->nargs <= 4);
	for (int i = 0; i < r->nargs; i++) {
		const Shape *s = hlo_comp_param(r->m->entry, i)->shape;
		r->args[i] = literal_new(&r->a, s);
		assert_non_null(r->args[i]);
	}
}

/* Runs the entry on args; NULL when the run fails (message in r->d). */
static inline Literal *run_with(Run *r, Literal *const *args, int nargs,
				volatile const int *intr)
{
	InterpOpts o = {(int64_t)1 << 30, intr};
	return interp_run(r->m, args, nargs, &r->a, &o, &r->d, NULL);
}

/* Runs the entry on r->args; intr may stop it (then NULL). */
static inline Literal *run_go(Run *r, volatile const int *intr)
{
	return run_with(r, r->args, r->nargs, intr);
}

/* Runs the entry on r->args; a failed run fails the test. */
static inline Literal *run_ok(Run *r)
{
	Literal *res = run_go(r, NULL);
	if (!res)
		fail_msg("%s", diag_text(&r->d));
	return res;
}

static inline void run_free(Run *r)
{
	hlo_module_free(r->m);
	arena_free(&r->a);
	diag_free(&r->d);
}

/* text, run with the interrupt flag already set, must stop with an
 * "interrupted" error: long operations poll the flag themselves. */
static inline void assert_interrupted(const char *text)
{
	static const int on = 1;
	Run r;
	run_init(&r, text);
	assert_null(run_go(&r, &on));
	assert_non_null(strstr(diag_text(&r.d), "interrupted"));
	run_free(&r);
}

/* Every use list of m is exact: ins is a user of v once, exactly when v
 * is one of its operands, and every user is a live instruction of the
 * same computation. */
static inline void assert_uses_exact(const HloModule *m)
{
	for (int ci = 0; ci < m->ncomps; ci++) {
		const HloComp *c = m->comps[ci];
		for (int i = 0; i < c->n; i++) {
			const HloInstr *v = c->instrs[i];
			assert_ptr_equal(v->parent, c);
			for (int k = 0; k < v->nusers; k++) {
				const HloInstr *u = v->users[k];
				assert_ptr_equal(u->parent, c);
				bool uses = false;
				for (int j = 0; j < u->nops; j++)
					uses |= u->ops[j] == v;
				assert_true(uses);
				for (int j = 0; j < k; j++)
					assert_ptr_not_equal(v->users[j], u);
			}
			for (int j = 0; j < v->nops; j++) {
				const HloInstr *o = v->ops[j];
				int seen = 0;
				for (int k = 0; k < o->nusers; k++)
					seen += o->users[k] == v;
				assert_int_equal(seen, 1);
			}
		}
	}
}

#endif
