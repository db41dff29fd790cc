/* test_corpus.c - conformance over ../shared/corpus/hlo: every module
 * parses, verifies, keeps its instruction count (INDEX.tsv), and prints to
 * a fixed point: print(parse(print(parse(x)))) == print(parse(x)). */
#include "print.h"
#include "testutil.h"

/* Modules that must NOT load, with the reason. Everything else must. */
static const struct {
	const char *file, *why;
} expected_invalid[] = {
	{"openxla__xla/xla__tools__tests__data__invalid_concat.hlo",
	 "invalid on purpose: concatenate of mismatched shapes (README)"},
	/* The next four are inputs of XLA tests that parse without verifying;
	 * XLA's HloVerifier rejects them for the same reasons we do. */
	{"openxla__xla/xla__hlo__transforms__tests__operand_upcaster.hlo",
	 "dot without contracting dims is an outer product s32[8,8], the "
	 "text declares s32[8]"},
	{"openxla__xla/xla__tools__print_indexing_test.hlo",
	 "fusion passes s32[1024] to an s32[] parameter (XLA: shape mismatch "
	 "between parameter number 1 and its operand)"},
	{"openxla__xla/xla__hlo__tools__tests__generate_hlo_test_checks_test_input__part05.hlo",
	 "call passes f32[4] to f32[] parameters"},
	{"openxla__xla/xla__hlo__translate__hlo_to_mhlo__tests__import.hlo",
	 "MHLO import test: a 3x3 convolution window on a 2x2 kernel, a reduce "
	 "with f32[4] init values, reducers returning 1-tuples"},
};

static int count_instrs(const HloModule *m)
{
	/* INDEX counts "name = ..." statements: no inline bodies and no
	 * unnamed nested operands. */
	int n = 0;
	for (int i = 0; i < m->ncomps; i++) {
		const HloComp *c = m->comps[i];
		for (int j = 0; j < c->n && !c->inlined; j++)
			n += !c->instrs[j]->nested;
	}
	return n;
}

static bool is_expected_invalid(const char *file)
{
	for (size_t i = 0; i < sizeof expected_invalid / sizeof *expected_invalid; i++)
		if (!strcmp(file, expected_invalid[i].file))
			return true;
	return false;
}

/* Checks one module; returns a malloc'd failure message or NULL. */
static char *check_one(const char *path, const char *file, int want_instrs)
{
	size_t n;
	char *text = slurp(path, &n), *msg = NULL;
	if (!text)
		return strdup("cannot read");
	Diag d;
	diag_init(&d);
	d.max_warnings = 0;
	HloModule *m = load_verified(file, text, n, &d), *m2 = NULL;
	StrBuf p1, p2;
	sb_init(&p1);
	sb_init(&p2);
	if (is_expected_invalid(file)) {
		if (m || d.errors == 0)
			msg = strdup("expected a verifier error, got none");
		goto done;
	}
	if (!m) {
		msg = strdup(diag_text(&d));
		goto done;
	}
	if (count_instrs(m) != want_instrs) {
		char buf[128];
		snprintf(buf, sizeof buf, "instruction count %d, INDEX says %d",
			 count_instrs(m), want_instrs);
		msg = strdup(buf);
		goto done;
	}
	print_module(&p1, m, &print_opts_default);
	m2 = load_verified("<printed>", sb_str(&p1), p1.len, &d);
	if (!m2) {
		msg = strdup(diag_text(&d));
		goto done;
	}
	print_module(&p2, m2, &print_opts_default);
	if (strcmp(sb_str(&p1), sb_str(&p2)))
		msg = strdup("printing is not a fixed point");
	else if (hlo_module_instr_count(m2) != hlo_module_instr_count(m))
		msg = strdup("printed module has a different instruction count");
done:
	hlo_module_free(m);
	hlo_module_free(m2);
	sb_free(&p1);
	sb_free(&p2);
	diag_free(&d);
	free(text);
	return msg;
}

static void test_corpus(void **state)
{
	(void)state;
	Corpus *c = corpus_open();
	if (!c)
		skip();
	int total = 0, failed = 0;
	while (corpus_next(c)) {
		if (!c->col[3])
			continue;
		total++;
		char *msg = check_one(c->path, c->col[0], atoi(c->col[3]));
		failed += tally_fail(c->col[0], msg);
	}
	corpus_close(c);
	print_message("corpus: %d modules, %d failed\n", total, failed);
	assert_true(total >= 396);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
