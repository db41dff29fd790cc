/* test_interp_models.c - the real program dumps of the corpus (kind=dump
 * in INDEX.tsv) under the reference interpreter with random inputs.
 *
 * A module either runs, or stops for a reason that is not a bug: an
 * opcode the interpreter does not support (named), the time budget per
 * module (XR_MODEL_SECONDS, default 2), or the memory limit. Any other
 * error fails the test. The table it prints is the figure the issue asks
 * for: which run, how long each took, which opcodes block the rest. */
#include "testutil.h"

#define INPUT_LIMIT ((int64_t)256 << 20) /* random inputs take time to make */

/* Distinct unsupported opcodes of m, comma-separated into buf. */
static int unsupported(const HloModule *m, char *buf, size_t cap)
{
	bool seen[HLO_OPCODE_COUNT] = {0};
	int k = 0;
	buf[0] = 0;
	for (int i = 0; i < m->ncomps; i++)
		for (int j = 0; j < m->comps[i]->n; j++) {
			HloOpcode op = m->comps[i]->instrs[j]->op;
			if (interp_supports(op) || seen[op])
				continue;
			seen[op] = true;
			size_t len = strlen(buf);
			snprintf(buf + len, cap - len, "%s%s", k++ ? "," : "",
				 hlo_opcode_name(op));
		}
	return k;
}

typedef enum { R_OK, R_UNSUPPORTED, R_SLOW, R_MEMORY, R_ERROR } Outcome;
static const char *outcome_name[] = {"ok", "unsupported", "slow", "memory",
				     "ERROR"};

static Outcome run_module(const char *path, double budget_s, char *why,
			  size_t cap, double *ms, int64_t *peak)
{
	size_t n = 0;
	char *text = slurp(path, &n);
	Diag d;
	diag_init(&d);
	d.max_warnings = 0;
	HloModule *m = text ? load_verified(path, text, n, &d) : NULL;
	Outcome r = R_ERROR;
	Arena a;
	arena_init(&a);
	*ms = 0;
	*peak = 0;
	if (!m) {
		snprintf(why, cap, "load: %.200s", diag_text(&d));
		goto done;
	}
	if (unsupported(m, why, cap)) {
		r = R_UNSUPPORTED;
		goto done;
	}
	int64_t in_bytes = inputs_bytes(m);
	if (in_bytes < 0 || in_bytes > INPUT_LIMIT) { /* the 405B-weight dumps */
		snprintf(why, cap, "inputs need %.1f GB", in_bytes / 1e9);
		r = R_MEMORY;
		goto done;
	}
	Literal **args = inputs_seeded(m, &a, 1000);
	if (!args) {
		snprintf(why, cap, "cannot make the inputs");
		goto done;
	}
	double t0 = clock_ms();
	InterpStats st = {0};
	Literal *res = interp_timed(m, args, &a, budget_s, &d, &st);
	*peak = st.peak_bytes;
	*ms = clock_ms() - t0;
	if (res)
		r = R_OK;
	else if (strstr(diag_text(&d), "interrupted"))
		r = R_SLOW;
	else if (strstr(diag_text(&d), "max-memory"))
		r = R_MEMORY;
	else if (strstr(diag_text(&d), "not supported"))
		r = R_UNSUPPORTED;
	if (r != R_OK)
		snprintf(why, cap, "%.300s", diag_text(&d));
done:
	arena_free(&a);
	hlo_module_free(m);
	diag_free(&d);
	free(text);
	return r;
}

static void test_models(void **state)
{
	(void)state;
	Corpus *c = corpus_open();
	if (!c)
		skip();
	const char *env = getenv("XR_MODEL_SECONDS");
	double budget = env ? atof(env) : 1.0;
	int count[5] = {0};
	while (corpus_next(c)) {
		if (!c->col[15] || strcmp(c->col[15], "dump"))
			continue;
		char why[512];
		double ms;
		int64_t peak;
		Outcome r = run_module(c->path, budget, why, sizeof why, &ms,
				       &peak);
		count[r]++;
		const char *base = strrchr(c->col[0], '/');
		print_message("%-12s %8.1f ms %7.1f MB %5s instrs  %s%s%s\n",
			      outcome_name[r], ms, peak / 1048576.0, c->col[3],
			      base ? base + 1 : c->col[0],
			      r == R_OK ? "" : "  -- ", r == R_OK ? "" : why);
	}
	corpus_close(c);
	print_message("models: ok=%d unsupported=%d slow=%d memory=%d error=%d\n",
		      count[R_OK], count[R_UNSUPPORTED], count[R_SLOW],
		      count[R_MEMORY], count[R_ERROR]);
	assert_int_equal(count[R_ERROR], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_models),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
