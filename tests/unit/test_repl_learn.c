/* test_repl_learn.c - `example` and `explain`.
 *
 * Every opcode of the opcode table and every registered pass has an
 * explanation (a new opcode or pass without one fails here), every
 * explanation is short, and nothing is explained that does not exist.
 * Every built-in example loads through the `example` command as a
 * history step and runs on the interpreter, and its result has a
 * property that the computation guarantees (softmax rows sum to 1, a
 * layer norm's rows have mean 0 and variance 1, the MLP matches a plain
 * C evaluation, ...). Completion and unknown names are checked too. */
#include "testutil.h" /* first: it includes cmocka.h after its needs */

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "learn.h"
#include "passes/pass.h"
#include "session.h"

enum { MAX_LINES = 10, MAX_COLUMNS = 76 };

/* ---- explanations ------------------------------------------------------ */

static int count_lines(const char *text, int *widest)
{
	int n = 0;
	*widest = 0;
	for (const char *p = text; *p; n++) {
		const char *nl = strchr(p, '\n');
		int w = nl ? (int)(nl - p) : (int)strlen(p);
		if (w > *widest)
			*widest = w;
		p += w + (nl != NULL);
	}
	return n;
}

static void every_opcode_explained(void **state)
{
	(void)state;
	for (int op = HLO_INVALID + 1; op < HLO_OPCODE_COUNT; op++) {
		const char *name = hlo_opcode_name((HloOpcode)op);
		if (!cmd_topic_find(name, TOPIC_OPCODE))
			fail_msg("opcode '%s' has no explanation (add one to "
				 "repl/commands/learn_text.c)",
				 name);
	}
}

static void every_pass_explained(void **state)
{
	(void)state;
	int n;
	const Pass *p = pass_table(&n);
	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		if (!cmd_topic_find(p[i].name, TOPIC_PASS))
			fail_msg("pass '%s' has no explanation", p[i].name);
}

static void concepts_explained(void **state)
{
	(void)state;
	static const char *const want[] = {
		"hlo",
		"computation",
		"shape",
		"layout",
		"clusters",
		"fusion",
		"fusion-kinds",
		"multi-output-fusion",
		"buffer-assignment",
		"scheduling",
		"jit-vs-aot",
		"llvm-ir",
		"ptx",
		"lazy-tensors",
		"roofline",
		"interpreter",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!cmd_topic_find(want[i], TOPIC_CONCEPT))
			fail_msg("concept '%s' has no explanation", want[i]);
}

/* Short texts, and no entry for an opcode or pass that does not exist. */
static void explanations_are_short_and_real(void **state)
{
	(void)state;
	int n;
	const Topic *t = cmd_topic_table(&n);
	for (int i = 0; i < n; i++) {
		int widest, lines = count_lines(t[i].text, &widest);
		if (lines < 2 || lines > MAX_LINES || widest > MAX_COLUMNS)
			fail_msg("'%s': %d lines, widest %d", t[i].name, lines,
				 widest);
		if (t[i].kind == TOPIC_OPCODE &&
		    hlo_opcode_parse(t[i].name, (int)strlen(t[i].name)) ==
			    HLO_INVALID)
			fail_msg("'%s' is explained but is no opcode",
				 t[i].name);
		if (t[i].kind == TOPIC_PASS && !pass_find(t[i].name))
			fail_msg("'%s' is explained but is no pass", t[i].name);
		for (int j = 0; j < i; j++)
			if (t[j].kind == t[i].kind &&
			    strcmp(t[j].name, t[i].name) == 0)
				fail_msg("'%s' is explained twice", t[i].name);
	}
}

/* ---- the commands through a session ------------------------------------ */

typedef struct {
	Session s;
	char *out, *err;
	size_t nout, nerr;
	FILE *fout, *ferr;
} Sess;

static void sess_open(Sess *x)
{
	memset(x, 0, sizeof *x);
	x->fout = open_memstream(&x->out, &x->nout);
	x->ferr = open_memstream(&x->err, &x->nerr);
	assert_non_null(x->fout);
	assert_non_null(x->ferr);
	repl_session_init(&x->s, x->fout, x->ferr);
	x->s.src_name = "test";
}

static void sess_flush(Sess *x)
{
	fflush(x->fout);
	fflush(x->ferr);
}

static void sess_close(Sess *x)
{
	repl_session_free(&x->s);
	fclose(x->fout);
	fclose(x->ferr);
	free(x->out);
	free(x->err);
}

static void explain_command(void **state)
{
	(void)state;
	Sess x;
	sess_open(&x);
	assert_true(cmd_execute(&x.s, "explain reduce"));
	assert_true(cmd_execute(&x.s, "explain"));
	/* "fusion" is an opcode, a pass and a concept: all three print. */
	assert_true(cmd_execute(&x.s, "explain fusion"));
	sess_flush(&x);
	assert_non_null(strstr(x.out, "reduce (opcode)\n  Reduces"));
	assert_non_null(strstr(x.out, "Opcodes:\n"));
	assert_non_null(strstr(x.out, "Concepts:\n"));
	assert_non_null(strstr(x.out, "fusion (opcode)"));
	assert_non_null(strstr(x.out, "fusion (pass)"));
	assert_non_null(strstr(x.out, "fusion (concept)"));
	/* Unknown: an error that names the close topics. */
	assert_false(cmd_execute(&x.s, "explain reduc"));
	assert_false(cmd_execute(&x.s, "explain qqqqqqq"));
	assert_false(cmd_execute(&x.s, "explain a b"));
	sess_flush(&x);
	check_error(x.err, "unknown topic 'reduc' (did you mean: reduce,");
	check_error(x.err, "reduce-window");
	check_error(x.err, "unknown topic 'qqqqqqq' ('explain' lists");
	check_error(x.err, "Usage: explain");
	sess_close(&x);
}

/* The candidates for the last word of line. */
static char *completions(const Session *s, const char *line)
{
	const char *sp = strrchr(line, ' ');
	int start = sp ? (int)(sp - line) + 1 : 0;
	CmdMatches m = {0};
	assert_true(cmd_complete_line(s, line, start, line + start, &m));
	StrBuf b;
	sb_init(&b);
	for (int i = 0; i < m.n; i++)
		sb_printf(&b, "%s%s", i ? " " : "", m.v[i]);
	cmd_matches_free(&m);
	return sb_take(&b);
}

static void completion(void **state)
{
	(void)state;
	Sess x;
	sess_open(&x);
	char *c = completions(&x.s, "example so");
	assert_string_equal(c, "softmax");
	free(c);
	c = completions(&x.s, "exa");
	assert_string_equal(c, "example");
	free(c);
	c = completions(&x.s, "explain fusion");
	/* fusion once; fusion-off is a rule of the fusion log */
	assert_string_equal(c, "fusion fusion-kinds fusion-off");
	free(c);
	c = completions(&x.s, "fusions expensive");
	assert_string_equal(c, "expensive-duplicated");
	free(c);
	c = completions(&x.s, "explain all-reduce-");
	assert_string_equal(c, "all-reduce-done all-reduce-start");
	free(c);
	sess_close(&x);
}

/* ---- examples ---------------------------------------------------------- */

static const char *const required[] = {
	"elementwise", "softmax",   "layer-norm", "mlp",
	"attention",   "conv-pool", "while-loop", "embedding",
};

/* One example loaded through the command, with arguments to fill. */
typedef struct {
	Sess x;
	Arena a;
	Literal **args; /* one per entry parameter */
} Ex;

static void ex_load(Ex *e, const char *name)
{
	sess_open(&e->x);
	arena_init(&e->a);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "example %s", name);
	if (!cmd_execute(&e->x.s, cmd)) {
		sess_flush(&e->x);
		fail_msg("%s: %s", cmd, e->x.err);
	}
	const HistStep *h = repl_history_step(&e->x.s, 0);
	assert_non_null(h);
	assert_string_equal(h->label, cmd);
	e->args = inputs_seeded(e->x.s.mod, &e->a, 1);
	assert_non_null(e->args);
}

static Literal *ex_run(Ex *e) { return interp_ok(e->x.s.mod, e->args, &e->a); }

static void ex_fill(Literal *l, double v)
{
	for (int64_t i = 0; i < l->n; i++)
		literal_set_f64(l, i, v);
}

static void ex_free(Ex *e)
{
	arena_free(&e->a);
	sess_close(&e->x);
}

static void near(double got, double want, double tol, const char *what,
		 int64_t i)
{
	if (!(fabs(got - want) <= tol * (1 + fabs(want))))
		fail_msg("%s[%lld]: got %.9g, want %.9g", what, (long long)i,
			 got, want);
}

/* Every element of r is near want. */
static void near_all(const Literal *r, double want, double tol,
		     const char *what)
{
	for (int64_t i = 0; i < r->n; i++)
		near(literal_get_f64(r, i), want, tol, what, i);
}

static void examples_listed(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
		assert_non_null(cmd_example_find(required[i]));
	Sess x;
	sess_open(&x);
	assert_true(cmd_execute(&x.s, "example"));
	assert_false(cmd_execute(&x.s, "example nope"));
	sess_flush(&x);
	assert_non_null(strstr(x.out, "  softmax "));
	check_error(x.err, "unknown example 'nope' (examples: elementwise,");
	assert_null(x.s.mod); /* a failed example changes nothing */
	sess_close(&x);
}

static void example_elementwise(void **state)
{
	(void)state;
	Ex e;
	ex_load(&e, "elementwise");
	Literal *r = ex_run(&e);
	const Literal *x = e.args[0];
	assert_int_equal(r->n, 256 * 1024);
	for (int64_t i = 0; i < r->n; i++) {
		double v = literal_get_f64(x, i);
		double g =
			0.5 * v *
			(1 + tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
		near(literal_get_f64(r, i), g, 1e-5, "gelu", i);
	}
	ex_free(&e);
}

/* Every row of r (rows x cols) sums to 1 and lies in (0, 1]. */
static void rows_sum_to_one(const Literal *r, int64_t rows, int64_t cols)
{
	assert_int_equal(r->n, rows * cols);
	for (int64_t i = 0; i < rows; i++) {
		double sum = 0;
		for (int64_t j = 0; j < cols; j++) {
			double v = literal_get_f64(r, i * cols + j);
			assert_true(v > 0 && v <= 1);
			sum += v;
		}
		near(sum, 1, 1e-5, "row sum", i);
	}
}

static void example_softmax(void **state)
{
	(void)state;
	Ex e;
	ex_load(&e, "softmax");
	rows_sum_to_one(ex_run(&e), 32, 1024);
	ex_free(&e);
}

static void example_layer_norm(void **state)
{
	(void)state;
	Ex e;
	ex_load(&e, "layer-norm");
	ex_fill(e.args[1], 1); /* gamma */
	ex_fill(e.args[2], 0); /* beta */
	Literal *r = ex_run(&e);
	assert_int_equal(r->n, 32 * 768);
	for (int64_t i = 0; i < 32; i++) {
		double sum = 0, sq = 0;
		for (int64_t j = 0; j < 768; j++) {
			double v = literal_get_f64(r, i * 768 + j);
			sum += v;
			sq += v * v;
		}
		double mean = sum / 768;
		near(mean, 0, 1e-4, "row mean", i);
		near(sq / 768 - mean * mean, 1, 1e-3, "row variance", i);
	}
	ex_free(&e);
}

/* out[i][j] = sum_k a[i][k] * b[k][j] + bias[j], relu when asked. */
static void dense(const double *a, const Literal *b, const Literal *bias,
		  double *out, int n, int k, int m, bool relu)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < m; j++) {
			double s = literal_get_f64(bias, j);
			for (int t = 0; t < k; t++)
				s += a[i * k + t] *
				     literal_get_f64(b, t * m + j);
			out[i * m + j] = relu && s < 0 ? 0 : s;
		}
}

static void example_mlp(void **state)
{
	(void)state;
	Ex e;
	ex_load(&e, "mlp");
	Literal *r = ex_run(&e);
	double *x = malloc(sizeof *x * 32 * 784);
	double *h = malloc(sizeof *h * 32 * 256);
	double *y = malloc(sizeof *y * 32 * 10);
	for (int64_t i = 0; i < 32 * 784; i++)
		x[i] = literal_get_f64(e.args[0], i);
	dense(x, e.args[1], e.args[2], h, 32, 784, 256, true);
	dense(h, e.args[3], e.args[4], y, 32, 256, 10, false);
	assert_int_equal(r->n, 32 * 10);
	for (int64_t i = 0; i < r->n; i++)
		near(literal_get_f64(r, i), y[i], 1e-4, "mlp", i);
	free(x);
	free(h);
	free(y);
	ex_free(&e);
}

/* With v all ones, every output is a softmax-weighted mean of ones. */
static void example_attention(void **state)
{
	(void)state;
	Ex e;
	ex_load(&e, "attention");
	ex_fill(e.args[2], 1);
	Literal *r = ex_run(&e);
	assert_int_equal(r->n, 8 * 128 * 64);
	near_all(r, 1, 1e-5, "attention");
	ex_free(&e);
}

/* Ones in, ones as kernel, no bias: a 3x3x16 window that lies inside
 * the image sums to 144, and every 2x2 pooling window holds such a
 * pixel, so max-pooling gives 144 everywhere. */
static void example_conv_pool(void **state)
{
	(void)state;
	Ex e;
	ex_load(&e, "conv-pool");
	ex_fill(e.args[0], 1);
	ex_fill(e.args[1], 1);
	ex_fill(e.args[2], 0);
	Literal *r = ex_run(&e);
	assert_int_equal(r->n, 16 * 16 * 32);
	near_all(r, 144, 0, "pooled");
	/* A negative bias larger than any sum: relu makes it all zero. */
	ex_fill(e.args[2], -1000);
	r = ex_run(&e);
	near_all(r, 0, 0, "relu");
	ex_free(&e);
}

/* acc = sum over i < 100 of x * i = 4950 x. */
static void example_while_loop(void **state)
{
	(void)state;
	Ex e;
	ex_load(&e, "while-loop");
	Literal *r = ex_run(&e);
	assert_int_equal(r->n, 1024);
	for (int64_t i = 0; i < r->n; i++)
		near(literal_get_f64(r, i),
		     4950 * literal_get_f64(e.args[0], i), 1e-5, "loop", i);
	ex_free(&e);
}

/* table[r][c] = 64 r + c; row ids out of range are clamped into it. */
static void example_embedding(void **state)
{
	(void)state;
	Ex e;
	ex_load(&e, "embedding");
	for (int64_t i = 0; i < e.args[0]->n; i++)
		literal_set_f64(e.args[0], i, (double)i);
	Literal *ids = e.args[1];
	for (int64_t i = 0; i < ids->n; i++)
		literal_set_i64(ids, i, i * 37 % 1200 - 100);
	Literal *r = ex_run(&e);
	assert_int_equal(r->n, 8 * 16 * 64);
	for (int64_t t = 0; t < 8 * 16; t++) {
		int64_t id = literal_get_i64(ids, t);
		id = id < 0 ? 0 : id > 999 ? 999 : id;
		for (int64_t c = 0; c < 64; c++)
			near(literal_get_f64(r, t * 64 + c),
			     8.0 * (double)(id * 64 + c), 0, "embedding",
			     t * 64 + c);
	}
	ex_free(&e);
}

/* Each example is one history step; undo goes back to the one before. */
static void examples_are_history_steps(void **state)
{
	(void)state;
	Sess x;
	sess_open(&x);
	assert_true(cmd_execute(&x.s, "example softmax"));
	assert_true(cmd_execute(&x.s, "example mlp"));
	assert_string_equal(x.s.mod->name, "jit_mlp");
	assert_true(cmd_execute(&x.s, "undo"));
	assert_string_equal(x.s.mod->name, "jit_softmax");
	sess_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_opcode_explained),
		cmocka_unit_test(every_pass_explained),
		cmocka_unit_test(concepts_explained),
		cmocka_unit_test(explanations_are_short_and_real),
		cmocka_unit_test(explain_command),
		cmocka_unit_test(completion),
		cmocka_unit_test(examples_listed),
		cmocka_unit_test(example_elementwise),
		cmocka_unit_test(example_softmax),
		cmocka_unit_test(example_layer_norm),
		cmocka_unit_test(example_mlp),
		cmocka_unit_test(example_attention),
		cmocka_unit_test(example_conv_pool),
		cmocka_unit_test(example_while_loop),
		cmocka_unit_test(example_embedding),
		cmocka_unit_test(examples_are_history_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
