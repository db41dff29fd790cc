/* testutil.h - helpers shared by the cmocka units: reading a file, loading
 * a module (parse + verify), running one through the interpreter (or
 * checking that an interrupt stops it), and matching an error text.
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

#include "interp.h"
#include "parse.h"
#include "verify.h"

/* The corpus index (XR_CORPUS_DIR/INDEX.tsv) opened for reading; NULL
 * when the corpus is absent (the caller then skips). */
static inline FILE *corpus_index_open(void)
{
	char index[4096];
	snprintf(index, sizeof index, "%s/INDEX.tsv", XR_CORPUS_DIR);
	return fopen(index, "r");
}

/* SIGALRM calls handler on every delivery: sigaction, because signal()
 * may be one-shot (System V semantics under _POSIX_C_SOURCE). */
static inline void alarm_install(void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(SIGALRM, &sa, NULL);
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

#endif
