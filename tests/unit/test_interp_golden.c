/* test_interp_golden.c - runs every tests/golden/interp/NAME.hlo through
 * the reference interpreter and compares with the expected values written
 * in the file's leading comments:
 *
 *   // input N: LITERAL          value of entry parameter N (HLO literal)
 *   // expect: LITERAL           result printed exactly like this
 *   // expect-close TOL: LITERAL result within TOL (abs or rel) elementwise
 *   // expect-error: TEXT        the run fails with a message containing TEXT
 *
 * Adding a test is adding a file; the file name says what it checks. */
#include <dirent.h>
#include <math.h>

#include "testutil.h"

enum { MAX_INPUTS = 16 };

typedef struct {
	const char *inputs[MAX_INPUTS];
	const char *expect, *expect_close, *expect_error;
	double tol;
} Spec;

/* Reads the "// key: value" lines; values point into a private copy. */
static void read_spec(char *text, Spec *s)
{
	memset(s, 0, sizeof *s);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		int n;
		if (sscanf(line, "// input %d:", &n) == 1 && n >= 0 && n < MAX_INPUTS)
			s->inputs[n] = strchr(line, ':') + 2;
		else if (!strncmp(line, "// expect: ", 11))
			s->expect = line + 11;
		else if (sscanf(line, "// expect-close %lf:", &s->tol) == 1)
			s->expect_close = strchr(line, ':') + 2;
		else if (!strncmp(line, "// expect-error: ", 17))
			s->expect_error = line + 17;
	}
}

static bool close_enough(const Literal *a, const Literal *b, double tol)
{
	if (a->shape->type == DT_TUPLE || b->shape->type == DT_TUPLE) {
		if (a->ntuple != b->ntuple)
			return false;
		for (int i = 0; i < a->ntuple; i++)
			if (!close_enough(a->tuple[i], b->tuple[i], tol))
				return false;
		return true;
	}
	if (a->n != b->n)
		return false;
	for (int64_t i = 0; i < a->n; i++) {
		double x = literal_get_f64(a, i), y = literal_get_f64(b, i);
		if (isnan(x) && isnan(y))
			continue;
		double e = fabs(x - y);
		if (!(e <= tol || e <= tol * fabs(y)) && x != y)
			return false;
	}
	return true;
}

/* Returns NULL on success, else a malloc'd message. */
static char *run_one(const char *path)
{
	size_t n = 0;
	char *text = slurp(path, &n), *specs = text ? strdup(text) : NULL;
	char *msg = NULL;
	Spec s;
	read_spec(specs, &s);
	Diag d;
	diag_init(&d);
	HloModule *m = load_verified(path, text, n, &d);
	Arena a;
	arena_init(&a);
	StrBuf got;
	sb_init(&got);
	if (!m) {
		msg = strdup(diag_text(&d));
		goto done;
	}
	int np = hlo_comp_param_count(m->entry);
	Literal *args[MAX_INPUTS];
	for (int i = 0; i < np && i < MAX_INPUTS; i++) {
		HloInstr *p = hlo_comp_param(m->entry, i);
		args[i] = p && s.inputs[i]
				  ? parse_literal_text(&a, p->shape, s.inputs[i], &d)
				  : NULL;
		if (!args[i]) {
			msg = strdup(s.inputs[i] ? diag_text(&d) : "missing // input line");
			goto done;
		}
	}
	InterpOpts o = {1 << 30, NULL};
	Literal *r = interp_run(m, args, np, &a, &o, &d, NULL);
	if (s.expect_error) {
		if (r || !strstr(diag_text(&d), s.expect_error)) {
			msg = malloc(4096);
			snprintf(msg, 4096, "expected an error with \"%s\", got: %s",
				 s.expect_error, r ? "a result" : diag_text(&d));
		}
		goto done;
	}
	if (!r) {
		msg = strdup(diag_text(&d));
		goto done;
	}
	literal_print(&got, r, 0);
	if (s.expect && strcmp(sb_str(&got), s.expect)) {
		msg = malloc(8192);
		snprintf(msg, 8192, "expected %s\n     got %s", s.expect, sb_str(&got));
	} else if (s.expect_close) {
		Literal *want = parse_literal_text(&a, r->shape, s.expect_close, &d);
		if (!want || !close_enough(r, want, s.tol)) {
			msg = malloc(8192);
			snprintf(msg, 8192, "expected within %g of %s\n     got %s",
				 s.tol, s.expect_close, sb_str(&got));
		}
	} else if (!s.expect) {
		msg = strdup("no // expect line");
	}
done:
	sb_free(&got);
	arena_free(&a);
	hlo_module_free(m);
	diag_free(&d);
	free(text);
	free(specs);
	return msg;
}

static void test_golden(void **state)
{
	(void)state;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/golden/interp", XR_SOURCE_DIR);
	DIR *dp = opendir(dir);
	assert_non_null(dp);
	int total = 0, failed = 0;
	const char *only = getenv("XR_GOLDEN");
	for (struct dirent *e; (e = readdir(dp));) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".hlo"))
			continue;
		if (only && !strstr(e->d_name, only))
			continue;
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		total++;
		char *msg = run_one(path);
		if (msg) {
			failed++;
			print_message("FAIL %s: %s\n", e->d_name, msg);
			free(msg);
		}
	}
	closedir(dp);
	print_message("interp golden: %d files, %d failed\n", total, failed);
	assert_true(total > 0);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
