/* test_pass_numerics.c - every registered pass alone, and the default
 * pipeline, leave the numbers of every corpus module the interpreter runs
 * quickly unchanged.
 *
 * For each module of ../shared/corpus/hlo (INDEX.tsv order): load it,
 * apply each pass of pass_table() to the original on its own and the
 * default pipeline step by step (every application must succeed, which
 * includes the verifier). When the interpreter supports every opcode,
 * the entry inputs take at most XR_NUMERICS_INPUT_MB (default 4) and the
 * original runs within XR_NUMERICS_MODULE_SECONDS (default 0.5) on
 * pseudo-random inputs, each changed result runs on the same inputs and
 * must match the original's within the default tolerance of its type
 * (literal_compare). Any mismatch fails, naming the module and the pass.
 *
 * The whole test stops taking new modules after XR_NUMERICS_SECONDS
 * (default 30) of wall time, so it stays bounded under ASan; the table
 * it prints says how far it got, per pass: modules it applied to, how
 * many it changed, how many of those it compared, mismatches. It also
 * prints how often each algsimp rule fired over the modules reached.
 * XR_NUMERICS_VERBOSE=1 prints the time each module took. */
#include "compare.h"
#include "passes/pass.h"
#include "testutil.h"

enum { MAX_PASSES = 32, MAX_RULES = 128 };

static double env_num(const char *name, double dflt)
{
	const char *e = getenv(name);
	return e && *e ? atof(e) : dflt;
}

/* Per pass (and one more row for the pipeline). */
typedef struct Row {
	const char *name;
	int applied, changed, compared, mismatches, failures, slow;
} Row;

typedef struct Totals {
	Row rows[MAX_PASSES + 1];
	int nrows;
	int runnable;
	struct {
		const char *rule;
		int count, modules;
	} rules[MAX_RULES];
	int nrules;
} Totals;

static void add_rules(Totals *tt, const PassCtx *cx)
{
	for (int i = 0; i < cx->nrules; i++) {
		int k = 0;
		while (k < tt->nrules &&
		       strcmp(tt->rules[k].rule, cx->rules[i].rule))
			k++;
		if (k == MAX_RULES)
			continue;
		if (k == tt->nrules) {
			tt->rules[k].rule = cx->rules[i].rule;
			tt->nrules++;
		}
		tt->rules[k].count += cx->rules[i].count;
		tt->rules[k].modules++;
	}
}

static bool supported(const HloModule *m)
{
	for (int i = 0; i < m->ncomps; i++)
		for (int j = 0; j < m->comps[i]->n; j++)
			if (!interp_supports(m->comps[i]->instrs[j]->op))
				return false;
	return true;
}

/* Pseudo-random entry inputs in a, or NULL when they are too big. */
static Literal **make_inputs(const HloModule *m, Arena *a)
{
	int64_t bytes = inputs_bytes(m),
		limit = (int64_t)(env_num("XR_NUMERICS_INPUT_MB", 4) * 1048576);
	if (bytes < 0 || bytes > limit)
		return NULL;
	return inputs_seeded(m, a, 2024);
}

/* The entry's result within budget seconds, or NULL (*slow when it was
 * interrupted, else the interpreter's message in why). */
static Literal *run(const HloModule *m, Literal **args, Arena *a, double budget,
		    bool *slow, char *why, size_t cap)
{
	Diag d;
	diag_init(&d);
	Literal *r = interp_timed(m, args, a, budget, &d, NULL);
	*slow = !r && strstr(diag_text(&d), "interrupted");
	if (!r)
		snprintf(why, cap, "%.200s", diag_text(&d));
	diag_free(&d);
	return r;
}

typedef struct Ref {
	Literal **args, *want;
	double budget; /* for the runs after a pass */
} Ref;

/* Compares the result of got (a module some pass made) with the
 * original's, counting into row. */
static void compare_run(const HloModule *got, const Ref *ref, Arena *a,
			Row *row, const char *file)
{
	bool slow;
	char why[256] = "";
	Literal *r =
		run(got, ref->args, a, ref->budget, &slow, why, sizeof why);
	if (!r && slow) {
		row->slow++;
		return;
	}
	row->compared++;
	CompareResult cr = {0};
	if (r)
		literal_compare(r, ref->want,
				compare_default_tol(ref->want->shape), &cr);
	if (r && cr.ok)
		return;
	row->mismatches++;
	print_error("MISMATCH %s after %s: %s max_abs_err=%g "
		    "mismatches=%lld of %lld (worst element %lld)\n",
		    file, row->name, r ? "" : why, r ? cr.max_abs_err : 0.0,
		    (long long)cr.mismatches, (long long)cr.elements,
		    (long long)cr.worst);
}

/* Applies pass name to m; the result (owned by the caller) or NULL on
 * failure. */
static HloModule *apply(const HloModule *m, const char *name, Row *row,
			const char *file, Totals *tt, bool *changed)
{
	Diag d;
	diag_init(&d);
	PassCtx cx = {0};
	HloModule *out = pass_try(m, name, &cx, &d, changed);
	if (out && !strcmp(name, "algsimp") && row)
		add_rules(tt, &cx);
	else if (!out && row) {
		row->failures++;
		print_error("FAILED %s: %s\n", file, diag_text(&d));
	}
	diag_free(&d);
	return out;
}

typedef struct Walk {
	Totals *tt;
	double t0, budget; /* ms */
} Walk;

/* One module that loads; false, to load no more, past the budget. */
static bool one_module(const char *file, HloModule *m, void *ctx)
{
	Walk *w = ctx;
	Totals *tt = w->tt;
	double t1 = clock_ms();
	Arena a;
	arena_init(&a);
	Ref ref = {0};
	bool slow;
	char why[256];
	double per = env_num("XR_NUMERICS_MODULE_SECONDS", 0.5);
	if (supported(m) && (ref.args = make_inputs(m, &a))) {
		double t0 = clock_ms();
		ref.want = run(m, ref.args, &a, per, &slow, why, sizeof why);
		/* a pass may make a module a little slower to interpret;
		 * a run past this is counted as slow, not compared */
		ref.budget = 0.5 + 3 * (clock_ms() - t0) / 1e3;
	}
	tt->runnable += ref.want != NULL;
	int np;
	const Pass *t = pass_table(&np);
	for (int i = 0; i < np && i < MAX_PASSES; i++) {
		Row *row = &tt->rows[i];
		row->name = t[i].name;
		bool changed = false;
		HloModule *r = apply(m, t[i].name, row, file, tt, &changed);
		if (!r)
			continue;
		row->applied++;
		row->changed += changed;
		if (changed && ref.want)
			compare_run(r, &ref, &a, row, file);
		hlo_module_free(r);
	}
	/* the default pipeline, step by step */
	Row *row = &tt->rows[tt->nrows - 1];
	int ns;
	const char *const *steps = pipeline_find("default", &ns);
	HloModule *cur = hlo_module_clone(m);
	bool any = false;
	for (int i = 0; i < ns && cur; i++) {
		bool changed = false;
		HloModule *next =
			apply(cur, steps[i], NULL, file, tt, &changed);
		if (!next) {
			row->failures++;
			print_error("FAILED %s: pipeline step %s\n", file,
				    steps[i]);
		}
		any |= changed;
		hlo_module_free(cur);
		cur = next;
	}
	if (cur) {
		row->applied++;
		row->changed += any;
		if (any && ref.want)
			compare_run(cur, &ref, &a, row, file);
	}
	hlo_module_free(cur);
	hlo_module_free(m);
	arena_free(&a);
	if (getenv("XR_NUMERICS_VERBOSE"))
		print_message("%8.1f ms  %s\n", clock_ms() - t1, file);
	return clock_ms() - w->t0 <= w->budget;
}

static void test_numerics(void **state)
{
	(void)state;
	Totals totals = {0}, *tt = &totals;
	int np;
	pass_table(&np);
	tt->nrows = (np < MAX_PASSES ? np : MAX_PASSES) + 1;
	tt->rows[tt->nrows - 1].name = "pipeline default";
	Walk w = {tt, clock_ms(), env_num("XR_NUMERICS_SECONDS", 30) * 1e3};
	double budget = w.budget, t0 = w.t0;
	CorpusCount n = corpus_each(one_module, &w);
	print_message("numerics: %d of %d modules in %.0f ms (budget %.0f s), "
		      "%d loaded, %d run by the interpreter\n",
		      n.tried, n.listed, clock_ms() - t0, budget / 1e3,
		      n.loaded, tt->runnable);
	print_message("  %-20s %7s %7s %8s %10s %8s %5s\n", "pass", "applied",
		      "changed", "compared", "mismatches", "failures", "slow");
	int bad = 0;
	for (int i = 0; i < tt->nrows; i++) {
		const Row *r = &tt->rows[i];
		print_message("  %-20s %7d %7d %8d %10d %8d %5d\n", r->name,
			      r->applied, r->changed, r->compared,
			      r->mismatches, r->failures, r->slow);
		bad += r->mismatches + r->failures;
	}
	print_message("  algsimp rules (fired, modules):");
	for (int i = 0; i < tt->nrules; i++)
		print_message("%s %s=%d/%d", i % 4 ? "" : "\n   ",
			      tt->rules[i].rule, tt->rules[i].count,
			      tt->rules[i].modules);
	print_message("\n");
	int runnable = tt->runnable;
	assert_int_equal(bad, 0);
	assert_true(n.tried > 0);
	/* the corpus has runnable dumps near its start (INDEX order) */
	assert_true(runnable > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numerics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
