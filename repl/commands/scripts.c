/* scripts.c - commands for scripts and script tests: echo, source and
 * expect.
 *
 * An `expect` is quiet when its fact holds and fails with "FILE:LINE:
 * expectation failed: ..." when it does not, so a script is a test. One
 * table of forms drives parsing, usage errors and completion. What the
 * forms look at (the last command's output, the command after `expect
 * error`) is kept by the script runner, repl/script.c. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "npy.h"

bool cmd_echo(Session *s, const CmdArgs *a)
{
	fprintf(s->out, "%s\n", a->rest);
	return true;
}

bool cmd_source(Session *s, const CmdArgs *a)
{
	return repl_source_file(s, a->argv[0]);
}

/* --- expect --- */

typedef struct Form Form;
struct Form {
	const char *name;
	const char *args;       /* usage after the name */
	int min_args, max_args; /* words after the name; -1: no limit */
	bool (*check)(Session *s, const Form *f, const CmdArgs *a);
	StatKind stat; /* for the counts */
};

static bool expect_count(Session *s, const Form *f, const CmdArgs *a);
static bool expect_error(Session *s, const Form *f, const CmdArgs *a);
static bool expect_output(Session *s, const Form *f, const CmdArgs *a);
static bool expect_close(Session *s, const Form *f, const CmdArgs *a);

static const Form forms[] = {
	{"kernels", "N", 1, 1, expect_count, STAT_KERNELS},
	{"kernels_all", "N", 1, 1, expect_count, STAT_KERNELS_ALL},
	{"instructions", "N", 1, 1, expect_count, STAT_INSTRUCTIONS},
	{"fusions", "N", 1, 1, expect_count, STAT_FUSIONS},
	{"computations", "N", 1, 1, expect_count, STAT_COMPUTATIONS},
	{"error", "", 0, 0, expect_error, 0},
	{"output", "TEXT", 1, -1, expect_output, 0},
	{"close", "PATH.npy [TOL]", 1, 2, expect_close, 0},
};

enum { NFORMS = sizeof forms / sizeof forms[0] };

static const Form *find_form(const char *name)
{
	for (int i = 0; i < NFORMS; i++)
		if (strcmp(forms[i].name, name) == 0)
			return &forms[i];
	return NULL;
}

static bool unknown_form(Session *s, const char *name)
{
	StrBuf b;
	sb_init(&b);
	for (int i = 0; i < NFORMS; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", forms[i].name);
	char q[80];
	repl_error(s, "unknown expectation '%s' (one of: %s)",
		   repl_quote(q, sizeof q, name, strlen(name)), sb_str(&b));
	sb_free(&b);
	return false;
}

static bool form_usage(Session *s, const Form *f)
{
	repl_error(s, "wrong number of arguments for 'expect %s'", f->name);
	fprintf(s->err, "Usage: expect %s%s%s\n", f->name, *f->args ? " " : "",
		f->args);
	return false;
}

/* The raw text after the first word of rest, blanks skipped. */
static const char *after_word(const char *rest)
{
	rest += strcspn(rest, " \t");
	return rest + strspn(rest, " \t");
}

bool cmd_expect(Session *s, const CmdArgs *a)
{
	const Form *f = find_form(a->argv[0]);
	if (!f)
		return unknown_form(s, a->argv[0]);
	int n = a->argc - 1;
	if (n < f->min_args || (f->max_args >= 0 && n > f->max_args))
		return form_usage(s, f);
	CmdArgs sub = {n, a->argv + 1, after_word(a->rest), a->cmd};
	return f->check(s, f, &sub);
}

void cmd_complete_expect(const Session *s, const char *prefix, CmdMatches *out)
{
	(void)s;
	for (int i = 0; i < NFORMS; i++)
		if (strncmp(forms[i].name, prefix, strlen(prefix)) == 0)
			cmd_matches_add(out, forms[i].name);
}

/* --- expect kernels|kernels_all|instructions|fusions|computations N --- */

static bool parse_count(const char *w, int *out)
{
	return repl_parse_int(w, 0, INT_MAX, out);
}

static bool expect_count(Session *s, const Form *f, const CmdArgs *a)
{
	int want;
	char q[80];
	const char *w = a->argv[0];
	if (!parse_count(w, &want))
		return repl_error(s, "'expect %s' needs a count, not '%s'",
				  f->name,
				  repl_quote(q, sizeof q, w, strlen(w)));
	if (!repl_need_module(s))
		return false;
	int v[NSTATS];
	cmd_module_stats(s->mod, v);
	if (v[f->stat] == want)
		return true;
	return repl_expect_failed(s, 0, "%s=%d, expected %d", f->name,
				  v[f->stat], want);
}

/* --- expect error --- */

/* Only arms the check: the script runner makes the next command's
 * failure expected, and reports it if that command succeeds. */
static bool expect_error(Session *s, const Form *f, const CmdArgs *a)
{
	(void)f, (void)a;
	s->expect_error = s->line;
	return true;
}

/* --- expect output TEXT --- */

/* The first line of the last output, quoted, for a failure message. */
static const char *first_line(Session *s, char *buf, size_t cap)
{
	const char *t = s->last_out;
	size_t n = s->last_out_len;
	const char *nl = memchr(t, '\n', n);
	return repl_quote(buf, cap, t, nl ? (size_t)(nl - t) : n);
}

/* Does hay[0..nh) contain needle[0..nn)? (memmem is not POSIX.) */
static bool contains(const char *hay, size_t nh, const char *needle, size_t nn)
{
	for (size_t i = 0; nn <= nh && i <= nh - nn; i++)
		if (memcmp(hay + i, needle, nn) == 0)
			return true;
	return false;
}

static bool expect_output(Session *s, const Form *f, const CmdArgs *a)
{
	(void)f;
	const char *text = a->rest;
	size_t n = strlen(text);
	while (n && (text[n - 1] == ' ' || text[n - 1] == '\t'))
		n--;
	char q[80], o[96];
	repl_quote(q, sizeof q, text, n);
	if (!s->last_out_line)
		return repl_expect_failed(s, 0, "no command ran before it");
	if (contains(s->last_out, s->last_out_len, text, n))
		return true;
	int line = s->last_out_line;
	if (!s->last_out_len)
		return repl_expect_failed(
			s, 0, "line %d printed nothing, not '%s'", line, q);
	return repl_expect_failed(s, 0,
				  "the output of line %d lacks '%s'; "
				  "it begins '%s'",
				  line, q, first_line(s, o, sizeof o));
}

/* --- expect close PATH.npy [TOL] --- */

static bool report_mismatch(Session *s, const Literal *got, const Literal *want,
			    const char *path, const CompareResult *c,
			    double tol)
{
	if (!c->shape_differs)
		return repl_expect_failed(
			s, 0,
			"the result differs from %s: %lld of %lld elements "
			"beyond tolerance %g (max_abs_err=%.3g at element "
			"%lld, max_rel_err=%.3g)",
			path, (long long)c->mismatches, (long long)c->elements,
			tol, c->max_abs_err, (long long)c->worst,
			c->max_rel_err);
	StrBuf g, w;
	sb_init(&g);
	sb_init(&w);
	shape_print(&g, got->shape, false);
	shape_print(&w, want->shape, false);
	repl_expect_failed(s, 0, "the result is %s but %s holds %s", sb_str(&g),
			   path, sb_str(&w));
	sb_free(&g);
	sb_free(&w);
	return false;
}

/* One array of the result against one file. */
static bool close_array(Session *s, const Literal *got, const char *path,
			double tol)
{
	Arena ar;
	arena_init(&ar);
	Diag d;
	diag_init(&d);
	Literal *want = npy_read(&ar, path, &d);
	repl_print_diag(s, &d);
	bool ok = want != NULL;
	if (!ok && d.errors == 0)
		repl_error(s, "cannot read '%s'", path);
	diag_free(&d);
	CompareResult c;
	if (ok && tol < 0)
		tol = compare_default_tol(got->shape);
	if (ok)
		literal_compare(got, want, tol, &c);
	if (ok && !c.ok)
		ok = report_mismatch(s, got, want, path, &c, tol);
	arena_free(&ar);
	return ok;
}

/* PATH.npy for an array; PATH.0.npy, PATH.1.npy, ... (PATH.0.1.npy for
 * nested tuples) for a tuple, as save-result names them. */
static bool close_value(Session *s, const Literal *l, const char *stem,
			double tol)
{
	char path[4096];
	if (l->shape->type != DT_TUPLE) {
		snprintf(path, sizeof path, "%s.npy", stem);
		return close_array(s, l, path, tol);
	}
	for (int i = 0; i < l->ntuple; i++) {
		snprintf(path, sizeof path, "%s.%d", stem, i);
		if (!close_value(s, l->tuple[i], path, tol))
			return false;
	}
	return true;
}

static bool expect_close(Session *s, const Form *f, const CmdArgs *a)
{
	(void)f;
	const char *p = a->argv[0];
	size_t n = strlen(p);
	double tol = -1;
	if (a->argc == 2) {
		char *e;
		tol = strtod(a->argv[1], &e);
		if (*e || !(tol >= 0))
			return repl_error(s, "bad tolerance '%s'", a->argv[1]);
	}
	if (!repl_has_ext(p, ".npy"))
		return repl_error(s, "'expect close' needs a PATH ending in "
				     ".npy");
	if (!s->result.lit)
		return repl_error(s, "no result yet (use 'run interp')");
	char stem[4096];
	snprintf(stem, sizeof stem, "%.*s", (int)(n - 4), p);
	return close_value(s, s->result.lit, stem, tol);
}
