/* test_passes.c - the pass registry, pass_apply's rollback, each
 * simplification pass on small modules (what must and must not change),
 * and the default pipeline over the corpus: every step succeeds and
 * verifies, and on the real program dumps the interpreter gives the same
 * numbers before and after. */

#include <limits.h>

#include "compare.h"
#include "passes/cost.h"
#include "passes/pass.h"
#include "passes/passes.h"
#include "print.h"
#include "testutil.h"

#define ENTRY(body) "HloModule t\n\nENTRY e {\n" body "}\n"

/* Applies pass `name` (which must succeed), frees m, returns the result. */
static HloModule *apply_cap(HloModule *m, const char *name, bool *changed,
			    int64_t cap)
{
	const Pass *p = pass_find(name);
	assert_non_null(p);
	Diag d;
	diag_init(&d);
	PassCtx cx = {0};
	cx.d = &d;
	cx.fold_max_elems = cap;
	PassResult r;
	if (!pass_apply(m, p, &cx, &r))
		fail_msg("pass %s: %s", name, diag_text(&d));
	assert_int_equal(r.instrs_before, hlo_module_instr_count(m));
	assert_int_equal(r.instrs_after, hlo_module_instr_count(r.m));
	if (changed)
		*changed = r.changed;
	diag_free(&d);
	hlo_module_free(m);
	return r.m;
}

static HloModule *apply(HloModule *m, const char *name, bool *changed)
{
	return apply_cap(m, name, changed, 0);
}

/* Instructions of opcode op in the entry computation. */
static int count_op(const HloModule *m, HloOpcode op)
{
	int k = 0;
	for (int i = 0; i < m->entry->n; i++)
		k += m->entry->instrs[i]->op == op;
	return k;
}

static int count_op_all(const HloModule *m, HloOpcode op)
{
	int k = 0;
	for (int c = 0; c < m->ncomps; c++)
		for (int i = 0; i < m->comps[c]->n; i++)
			k += m->comps[c]->instrs[i]->op == op;
	return k;
}

/* Entry computation, short form. */
static char *entry_text(const HloModule *m)
{
	StrBuf b;
	sb_init(&b);
	PrintOpts o = print_opts_default;
	o.short_form = true;
	print_comp(&b, m->entry, &o);
	return sb_take(&b);
}

static void assert_entry(const HloModule *m, const char *want)
{
	char *got = entry_text(m);
	if (strcmp(got, want))
		fail_msg("expected\n%s\ngot\n%s", want, got);
	free(got);
}

/* Runs m's entry on fixed pseudo-random inputs (in a). */
/* ---- registry ----------------------------------------------------------- */

static void test_registry(void **state)
{
	(void)state;
	int n, np;
	const Pass *t = pass_table(&n);
	assert_true(n >= 5);
	for (int i = 0; i < n; i++) {
		assert_ptr_equal(pass_find(t[i].name), &t[i]);
		assert_non_null(t[i].summary);
	}
	assert_null(pass_find("no-such-pass"));
	const char *const *steps = pipeline_find("default", &np);
	assert_non_null(steps);
	assert_true(np >= 5);
	for (int i = 0; i < np; i++)
		assert_non_null(pass_find(steps[i]));
	assert_null(pipeline_find("nope", &np));
	const char *const *names = pipeline_names(&n);
	assert_true(n >= 1);
	assert_string_equal(names[0], "default");
	PassCtx cx = {0};
	pass_note_rule(&cx, "x");
	pass_note_rule(&cx, "y");
	pass_note_rule(&cx, "x");
	assert_int_equal(cx.nrules, 2);
	assert_int_equal(cx.rules[0].count, 2);
}

static void test_kernels(void **state)
{
	(void)state;
	HloModule *m = load_text(
		ENTRY("  p = f32[4] parameter(0)\n"
		      "  c = f32[4] constant({1, 2, 3, 4})\n"
		      "  a = f32[4] add(p, c)\n"
		      "  b = f32[4] bitcast(a)\n"
		      "  e = f32[4] exponential(b)\n"
		      "  t = (f32[4], f32[4]) tuple(a, e)\n"
		      "  ROOT g = f32[4] get-tuple-element(t), index=1\n"));
	assert_int_equal(hlo_module_kernels(m), 2);
	hlo_module_free(m);
}

/* kernels_all: control flow counts the kernels of what it runs, a call
 * its callee's (a callee called twice, twice), a while its condition's
 * and body's (once: kernels as compiled, not as run), a conditional
 * every branch's; kernels counts each of them once. */
static void test_kernels_all(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\n"
		"two {\n"
		"  x = f32[4] parameter(0)\n"
		"  n = f32[4] negate(x)\n"
		"  ROOT e = f32[4] exponential(n)\n"
		"}\n\n"
		"nested {\n"
		"  y = f32[4] parameter(0)\n"
		"  ROOT c = f32[4] call(y), to_apply=two\n"
		"}\n\n"
		"cond {\n"
		"  s = (s32[], f32[4]) parameter(0)\n"
		"  i = s32[] get-tuple-element(s), index=0\n"
		"  k = s32[] constant(3)\n"
		"  ROOT lt = pred[] compare(i, k), direction=LT\n"
		"}\n\n"
		"body {\n"
		"  s = (s32[], f32[4]) parameter(0)\n"
		"  i = s32[] get-tuple-element(s), index=0\n"
		"  v = f32[4] get-tuple-element(s), index=1\n"
		"  one = s32[] constant(1)\n"
		"  j = s32[] add(i, one)\n"
		"  w = f32[4] sqrt(v)\n"
		"  ROOT t = (s32[], f32[4]) tuple(j, w)\n"
		"}\n\n"
		"br0 {\n"
		"  a = f32[4] parameter(0)\n"
		"  ROOT r = f32[4] abs(a)\n"
		"}\n\n"
		"br1 {\n"
		"  a = f32[4] parameter(0)\n"
		"  ROOT r = f32[4] call(a), to_apply=two\n"
		"}\n\n"
		"ENTRY e {\n"
		"  p = f32[4] parameter(0)\n"
		"  b = s32[] parameter(1)\n"
		"  c1 = f32[4] call(p), to_apply=two\n"
		"  c2 = f32[4] call(c1), to_apply=nested\n"
		"  z = s32[] constant(0)\n"
		"  init = (s32[], f32[4]) tuple(z, c2)\n"
		"  l = (s32[], f32[4]) while(init), condition=cond, body=body\n"
		"  v = f32[4] get-tuple-element(l), index=1\n"
		"  ROOT k = f32[4] conditional(b, v, v), "
		"branch_computations={br0, br1}\n"
		"}\n");
	assert_int_equal(hlo_module_kernels(m), 4);
	/* c1 2, c2 2, while 1 + 2, conditional 1 + 2 */
	assert_int_equal(hlo_module_kernels_all(m), 10);
	/* inlining the calls keeps it: the same kernels, in place */
	m = apply(m, "call-inliner", NULL);
	assert_int_equal(hlo_module_kernels(m), 6);
	assert_int_equal(hlo_module_kernels_all(m), 10);
	hlo_module_free(m);
}

/* ---- rollback ----------------------------------------------------------- */

/* A broken pass: gives the first add a wrong shape. */
static bool corrupt(HloModule *m, PassCtx *cx)
{
	(void)cx;
	HloComp *c = m->entry;
	for (int i = 0; i < c->n; i++)
		if (c->instrs[i]->op == HLO_ADD)
			c->instrs[i]->shape = shape_scalar(&m->arena, DT_S32);
	return true;
}

static bool failing(HloModule *m, PassCtx *cx)
{
	(void)m;
	diag_error(cx->d, NULL, (SrcLoc){0, 0}, "cannot do it");
	return false;
}

/* A pass that runs out of memory half way: it changes the module, then
 * reports it. */
static bool starving(HloModule *m, PassCtx *cx)
{
	corrupt(m, cx);
	pass_out_of_memory(cx);
	return true;
}

static void test_rollback(void **state)
{
	(void)state;
	const char *text = ENTRY("  p = f32[4] parameter(0)\n"
				 "  ROOT a = f32[4] add(p, p)\n");
	HloModule *m = load_text(text);
	StrBuf before, after;
	sb_init(&before);
	sb_init(&after);
	print_module(&before, m, &print_opts_default);
	Pass bad = {"corrupt", "breaks the module", corrupt};
	Diag d;
	diag_init(&d);
	PassCtx cx = {0};
	cx.d = &d;
	PassResult r;
	assert_false(pass_apply(m, &bad, &cx, &r));
	assert_null(r.m);
	check_error(diag_text(&d),
		    "internal error: pass 'corrupt' broke the module: ");
	check_error(diag_text(&d), "'a'");
	print_module(&after, m, &print_opts_default);
	assert_string_equal(sb_str(&before), sb_str(&after));
	diag_clear(&d);
	Pass fails = {"fails", "reports an error", failing};
	assert_false(pass_apply(m, &fails, &cx, &r));
	assert_null(r.m);
	check_error(diag_text(&d), "internal error: pass 'fails' failed: "
				   "cannot do it");
	/* out of memory is no internal error, and the module stays */
	diag_clear(&d);
	Pass starves = {"starves", "runs out of memory", starving};
	assert_false(pass_apply(m, &starves, &cx, &r));
	assert_null(r.m);
	assert_true(cx.oom);
	assert_int_equal(d.errors, 1);
	check_error(diag_text(&d), "error: pass 'starves' ran out of memory\n");
	assert_null(strstr(diag_text(&d), "internal"));
	sb_clear(&after);
	print_module(&after, m, &print_opts_default);
	assert_string_equal(sb_str(&before), sb_str(&after));
	/* and a failure after it is not taken for one */
	diag_clear(&d);
	assert_false(pass_apply(m, &fails, &cx, &r));
	assert_false(cx.oom);
	check_error(diag_text(&d), "internal error: pass 'fails' failed: ");
	diag_free(&d);
	sb_free(&before);
	sb_free(&after);
	hlo_module_free(m);
}

/* ---- cse ---------------------------------------------------------------- */

static void test_cse_commutative(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY("  p = f32[4] parameter(0)\n"
				  "  q = f32[4] parameter(1)\n"
				  "  a = f32[4] add(p, q)\n"
				  "  b = f32[4] add(q, p)\n"
				  "  s = f32[4] subtract(p, q)\n"
				  "  r = f32[4] subtract(q, p)\n"
				  "  ROOT t = (f32[4], f32[4], f32[4], f32[4]) "
				  "tuple(a, b, s, r)\n"));
	bool ch;
	m = apply(m, "cse", &ch);
	assert_true(ch);
	assert_entry(m,
		     "ENTRY e (p: f32[4], q: f32[4]) -> (f32[4], f32[4], "
		     "f32[4], f32[4]) {\n"
		     "  p = f32[4]{0} parameter(0)\n"
		     "  q = f32[4]{0} parameter(1)\n"
		     "  a = f32[4]{0} add(p, q)\n"
		     "  s = f32[4]{0} subtract(p, q)\n"
		     "  r = f32[4]{0} subtract(q, p)\n"
		     "  ROOT t = (f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}) "
		     "tuple(a, a, s, r)\n"
		     "}\n");
	m = apply(m, "cse", &ch);
	assert_false(ch);
	hlo_module_free(m);
}

/* Post order meets the later duplicate (x2, operand of the root) first;
 * the one kept must take the earlier position so that axpy, written
 * between them, still follows its operand. */
static void test_cse_keeps_definitions_first(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY("  a = f32[4] parameter(0)\n"
				  "  x = f32[4] parameter(1)\n"
				  "  ax = f32[4] multiply(a, x)\n"
				  "  axpy = f32[4] add(ax, x)\n"
				  "  ax2 = f32[4] multiply(x, a)\n"
				  "  ROOT out = f32[4] add(ax2, axpy)\n"));
	bool ch;
	m = apply(m, "cse", &ch);
	assert_true(ch);
	assert_entry(m, "ENTRY e (a: f32[4], x: f32[4]) -> f32[4] {\n"
			"  a = f32[4]{0} parameter(0)\n"
			"  x = f32[4]{0} parameter(1)\n"
			"  ax2 = f32[4]{0} multiply(x, a)\n"
			"  axpy = f32[4]{0} add(ax2, x)\n"
			"  ROOT out = f32[4]{0} add(ax2, axpy)\n"
			"}\n");
	hlo_module_free(m);
}

static void test_cse_chains_and_constants(void **state)
{
	(void)state;
	/* Merging the first level makes the second level identical. */
	HloModule *m = load_text(ENTRY(
		"  p = f32[4] parameter(0)\n"
		"  c1 = f32[] constant(2)\n"
		"  c2 = f32[] constant(2)\n"
		"  c3 = f32[] constant(3)\n"
		"  b1 = f32[4] broadcast(c1), dimensions={}\n"
		"  b2 = f32[4] broadcast(c2), dimensions={}\n"
		"  b3 = f32[4] broadcast(c3), dimensions={}\n"
		"  m1 = f32[4] multiply(p, b1)\n"
		"  m2 = f32[4] multiply(b2, p)\n"
		"  m3 = f32[4] multiply(p, b3)\n"
		"  e1 = f32[4] exponential(m1)\n"
		"  e2 = f32[4] exponential(m2)\n"
		"  ROOT t = (f32[4], f32[4], f32[4]) tuple(e1, e2, m3)\n"));
	m = apply(m, "cse", NULL);
	assert_int_equal(count_op(m, HLO_CONSTANT), 2);
	assert_int_equal(count_op(m, HLO_BROADCAST), 2);
	assert_int_equal(count_op(m, HLO_MULTIPLY), 2);
	assert_int_equal(count_op(m, HLO_EXP), 1);
	hlo_module_free(m);
}

static void test_cse_keeps_distinct(void **state)
{
	(void)state;
	/* Side effects, parameters, different attributes, different
	 * shapes/layouts and elided constants are never merged. */
	HloModule *m = load_text(ENTRY(
		"  p = f32[2,3] parameter(0)\n"
		"  q = f32[2,3] parameter(1)\n"
		"  k1 = f32[2,3] custom-call(p), custom_call_target=\"foo\"\n"
		"  k2 = f32[2,3] custom-call(p), custom_call_target=\"foo\"\n"
		"  r1 = f32[2] reduce(p, z), dimensions={1}, to_apply=add\n"
		"  z = f32[] constant(0)\n"
		"  r2 = f32[3] reduce(p, z), dimensions={0}, to_apply=add\n"
		"  c1 = f32[2,3]{1,0} copy(p)\n"
		"  c2 = f32[2,3]{0,1} copy(p)\n"
		"  e1 = f32[100] constant({...})\n"
		"  e2 = f32[100] constant({...})\n"
		"  ROOT t = (f32[2,3], f32[2,3], f32[2], f32[3], f32[2,3], "
		"f32[2,3], f32[2,3], f32[2,3], f32[100], f32[100]) "
		"tuple(k1, k2, r1, r2, c1, c2, p, q, e1, e2)\n"
		"}\n"
		"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(a, b)\n"));
	bool ch;
	int before = hlo_module_instr_count(m);
	m = apply(m, "cse", &ch);
	assert_false(ch);
	assert_int_equal(hlo_module_instr_count(m), before);
	hlo_module_free(m);
}

/* Keys are printed only for instructions sharing opcode and operands
 * (a signature) with another: the first of a signature must still be
 * found when a later one matches it, and a match is by the whole key. */
static void test_cse_same_signature(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY(
		"  p = f32[2,3] parameter(0)\n"
		"  s1 = f32[2,2] slice(p), slice={[0:2], [0:2]}\n"
		"  s2 = f32[2,2] slice(p), slice={[0:2], [1:3]}\n"
		"  s3 = f32[2,2] slice(p), slice={[0:2], [1:3]}\n"
		"  s4 = f32[2,2] slice(p), slice={[0:2], [0:2]}\n"
		"  s5 = f32[1,2] slice(p), slice={[0:1], [0:2]}\n"
		"  c1 = s32[2,3] convert(p)\n"
		"  c2 = f16[2,3] convert(p)\n"
		"  c3 = s32[2,3] convert(p)\n"
		"  ROOT t = (f32[2,2], f32[2,2], f32[2,2], f32[2,2], f32[1,2], "
		"s32[2,3], f16[2,3], s32[2,3]) tuple(s1, s2, s3, s4, s5, c1, "
		"c2, c3)\n"));
	bool ch;
	m = apply(m, "cse", &ch);
	assert_true(ch);
	/* s3 goes into s2 (the first of the signature, s1, differs), s4
	 * into s1, c3 into c1; s5 and c2 differ in shape. */
	static const char *const want[] = {"s1", "s2", "s2", "s1",
					   "s5", "c1", "c2", "c1"};
	HloInstr *t = m->entry->root;
	assert_int_equal(t->nops, 8);
	for (int i = 0; i < 8; i++)
		assert_string_equal(t->ops[i]->name, want[i]);
	assert_int_equal(m->entry->n, 7);
	assert_uses_exact(m);
	hlo_module_free(m);
}

/* Many merges under a value with many users (the shape of a real
 * module: one scalar broadcast again and again), then dce of what they
 * leave: use lists stay exact and in order. */
static void test_cse_dce_fan_out(void **state)
{
	(void)state;
	enum { N = 40 };
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "HloModule t\n\nENTRY e {\n"
		    "  s = f32[] parameter(0)\n"
		    "  x0 = f32[4] parameter(1)\n");
	for (int i = 0; i < N; i++) {
		sb_printf(&b, "  b%d = f32[4] broadcast(s), dimensions={}\n",
			  i);
		sb_printf(&b, "  x%d = f32[4] add(x%d, b%d)\n", i + 1, i, i);
		sb_printf(&b, "  d%d = f32[4] multiply(b%d, b%d)\n", i, i, i);
		sb_printf(&b, "  n%d = f32[4] negate(d%d)\n", i, i);
	}
	sb_printf(&b, "  ROOT r = f32[4] copy(x%d)\n}\n", N);
	HloModule *m = load_text(sb_str(&b));
	sb_free(&b);
	bool ch;
	m = apply(m, "cse", &ch);
	assert_true(ch);
	assert_uses_exact(m);
	assert_int_equal(count_op(m, HLO_BROADCAST), 1);
	assert_int_equal(count_op(m, HLO_MULTIPLY), 1);
	assert_int_equal(count_op(m, HLO_NEGATE), 1);
	HloInstr *b0 = hlo_comp_find(m->entry, "b0");
	assert_non_null(b0);
	/* b0's users: x1, d0, then x2 .. xN in the order they were moved */
	assert_int_equal(b0->nusers, N + 1);
	assert_string_equal(b0->users[0]->name, "x1");
	assert_string_equal(b0->users[1]->name, "d0");
	for (int i = 2; i <= N; i++)
		assert_int_equal(b0->users[i]->op, HLO_ADD);
	m = apply(m, "dce", &ch);
	assert_true(ch);
	assert_uses_exact(m);
	assert_null(hlo_comp_find(m->entry, "d0"));
	assert_null(hlo_comp_find(m->entry, "n0"));
	assert_int_equal(m->entry->n, 2 + 1 + N + 1);
	b0 = hlo_comp_find(m->entry, "b0"); /* the new module's */
	assert_int_equal(b0->nusers, N);
	assert_string_equal(b0->users[0]->name, "x1");
	assert_string_equal(b0->users[1]->name, "x2");
	hlo_module_free(m);
}

/* Calls of a computation with a side effect are neither merged nor
 * removed; calls of a pure one are both. */
static void test_side_effect_through_calls(void **state)
{
	(void)state;
	HloModule *m =
		load_text("HloModule t\n\n"
		     "noisy {\n  a = f32[] parameter(0)\n"
		     "  k = f32[] custom-call(a), custom_call_target=\"log\"\n"
		     "  ROOT n = f32[] negate(a)\n}\n"
		     "pure {\n  a = f32[] parameter(0)\n  ROOT n = f32[] "
		     "negate(a)\n}\n"
		     "ENTRY e {\n  p = f32[] parameter(0)\n"
		     "  n1 = f32[] call(p), to_apply=noisy\n"
		     "  n2 = f32[] call(p), to_apply=noisy\n"
		     "  n3 = f32[] call(p), to_apply=noisy\n"
		     "  q1 = f32[] call(p), to_apply=pure\n"
		     "  q2 = f32[] call(p), to_apply=pure\n"
		     "  q3 = f32[] call(p), to_apply=pure\n"
		     "  ROOT t = (f32[], f32[], f32[], f32[]) tuple(n1, n2, "
		     "q1, q2)\n"
		     "}\n");
	m = apply(m, "dce", NULL);
	assert_int_equal(count_op(m, HLO_CALL), 5);
	assert_non_null(hlo_comp_find(m->entry, "n3"));
	assert_null(hlo_comp_find(m->entry, "q3"));
	m = apply(m, "cse", NULL);
	assert_int_equal(count_op(m, HLO_CALL), 4);
	assert_non_null(hlo_comp_find(m->entry, "n2"));
	assert_null(hlo_comp_find(m->entry, "q2"));
	hlo_module_free(m);
}

/* ---- dce ---------------------------------------------------------------- */

static void test_dce(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\n"
		"unused {\n  a = f32[] parameter(0)\n  ROOT n = f32[] "
		"negate(a)\n}\n"
		"used {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
		"  dead = f32[] multiply(a, b)\n  ROOT s = f32[] add(a, b)\n}\n"
		"ENTRY e {\n"
		"  p = f32[4] parameter(0)\n"
		"  unusedp = f32[4] parameter(1)\n"
		"  d1 = f32[4] negate(p)\n"
		"  d2 = f32[4] exponential(d1)\n"
		"  k = f32[4] custom-call(p), custom_call_target=\"print\"\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=used\n"
		"}\n");
	bool ch;
	m = apply(m, "dce", &ch);
	assert_true(ch);
	assert_null(hlo_module_find_comp(m, "unused"));
	HloComp *used = hlo_module_find_comp(m, "used");
	assert_non_null(used);
	assert_null(hlo_comp_find(used, "dead"));
	assert_int_equal(used->n, 3);
	assert_non_null(hlo_comp_find(m->entry, "k"));
	assert_non_null(hlo_comp_find(m->entry, "unusedp"));
	assert_null(hlo_comp_find(m->entry, "d1"));
	assert_null(hlo_comp_find(m->entry, "d2"));
	assert_int_equal(m->entry->n, 5);
	m = apply(m, "dce", &ch);
	assert_false(ch);
	hlo_module_free(m);
}

/* Dead chains through repeated operands and shared operands: each dead
 * instruction goes once, live ones keep exact use lists. */
static void test_dce_repeated_operands(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY("  p = f32[4] parameter(0)\n"
				  "  a = f32[4] add(p, p)\n"
				  "  b = f32[4] multiply(a, a)\n"
				  "  c = f32[4] add(b, p)\n"
				  "  d = f32[4] subtract(c, b)\n"
				  "  live = f32[4] negate(a)\n"
				  "  ROOT r = f32[4] add(live, p)\n"));
	PassCtx cx = {0};
	Diag d;
	diag_init(&d);
	cx.d = &d;
	PassResult r;
	assert_true(pass_apply(m, pass_find("dce"), &cx, &r));
	assert_true(r.changed);
	assert_int_equal(cx.nrules, 1);
	assert_string_equal(cx.rules[0].rule, "dead-instruction");
	assert_int_equal(cx.rules[0].count, 3); /* b, c, d */
	assert_uses_exact(r.m);
	assert_entry(r.m, "ENTRY e (p: f32[4]) -> f32[4] {\n"
			  "  p = f32[4]{0} parameter(0)\n"
			  "  a = f32[4]{0} add(p, p)\n"
			  "  live = f32[4]{0} negate(a)\n"
			  "  ROOT r = f32[4]{0} add(live, p)\n"
			  "}\n");
	HloInstr *p = hlo_comp_find(r.m->entry, "p");
	assert_int_equal(p->nusers, 2);
	assert_string_equal(p->users[0]->name, "a");
	assert_string_equal(p->users[1]->name, "r");
	diag_free(&d);
	hlo_module_free(r.m);
	hlo_module_free(m);
}

/* ---- tuple-simplifier --------------------------------------------------- */

static void test_tuple_simplifier(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY("  p = f32[4] parameter(0)\n"
				  "  q = s32[] parameter(1)\n"
				  "  t = (f32[4], s32[]) tuple(p, q)\n"
				  "  g = s32[] get-tuple-element(t), index=1\n"
				  "  ROOT n = s32[] negate(g)\n"));
	bool ch;
	m = apply(m, "tuple-simplifier", &ch);
	assert_true(ch);
	assert_ptr_equal(m->entry->root->ops[0], hlo_comp_find(m->entry, "q"));
	assert_null(hlo_comp_find(m->entry, "g"));
	hlo_module_free(m);

	/* Rebuilding the whole tuple in order is the tuple itself. */
	m = load_text(ENTRY("  p = (f32[4], s32[]) parameter(0)\n"
		       "  a = f32[4] get-tuple-element(p), index=0\n"
		       "  b = s32[] get-tuple-element(p), index=1\n"
		       "  ROOT t = (f32[4], s32[]) tuple(a, b)\n"));
	m = apply(m, "tuple-simplifier", &ch);
	assert_true(ch);
	assert_ptr_equal(m->entry->root, hlo_comp_find(m->entry, "p"));
	m = apply(m, "dce", NULL);
	assert_int_equal(m->entry->n, 1);
	hlo_module_free(m);

	/* Swapped, partial or mixed tuples stay. */
	m = load_text(ENTRY("  p = (f32[4], f32[4], f32[4]) parameter(0)\n"
		       "  q = (f32[4], f32[4]) parameter(1)\n"
		       "  a = f32[4] get-tuple-element(p), index=0\n"
		       "  b = f32[4] get-tuple-element(p), index=1\n"
		       "  c = f32[4] get-tuple-element(q), index=1\n"
		       "  t1 = (f32[4], f32[4]) tuple(b, a)\n"
		       "  t2 = (f32[4], f32[4]) tuple(a, b)\n"
		       "  t3 = (f32[4], f32[4]) tuple(a, c)\n"
		       "  ROOT r = ((f32[4], f32[4]), (f32[4], f32[4]), "
		       "(f32[4], f32[4])) tuple(t1, t2, t3)\n"));
	m = apply(m, "tuple-simplifier", &ch);
	assert_false(ch);
	hlo_module_free(m);
}

/* ---- call-inliner ------------------------------------------------------- */

static const char nested_calls[] =
	"HloModule t\n\n"
	"inner {\n  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n"
	"  s = f32[4] subtract(a, b)\n  ROOT m = f32[4] multiply(s, a)\n}\n"
	"outer {\n  x = f32[4] parameter(0)\n  w = f32[4] parameter(1)\n"
	"  y = f32[4] call(x, w), to_apply=inner\n"
	"  s = f32[4] exponential(y)\n"
	"  ROOT z = f32[4] call(s, x), to_apply=inner\n}\n"
	"ENTRY e {\n  p = f32[4] parameter(0)\n  q = f32[4] parameter(1)\n"
	"  s = f32[4] add(p, q)\n"
	"  c = f32[4] call(s, q), to_apply=outer\n"
	"  ROOT r = f32[4] negate(c)\n}\n";

static void test_call_inliner(void **state)
{
	(void)state;
	HloModule *m = load_text(nested_calls);
	Arena a;
	arena_init(&a);
	Literal *want = run_seeded(m, &a, 7);
	bool ch;
	m = apply(m, "call-inliner", &ch);
	assert_true(ch);
	assert_int_equal(m->ncomps, 1);
	assert_int_equal(count_op_all(m, HLO_CALL), 0);
	assert_int_equal(count_op(m, HLO_MULTIPLY), 2);
	assert_int_equal(count_op(m, HLO_SUBTRACT), 2);
	/* names stay unique: two copies of inner's s next to the entry's s */
	assert_non_null(hlo_comp_find(m->entry, "s"));
	assert_non_null(hlo_comp_find(m->entry, "s.1"));
	/* definitions before uses in program order */
	for (int i = 0; i < m->entry->n; i++)
		for (int j = 0; j < m->entry->instrs[i]->nops; j++) {
			const HloInstr *o = m->entry->instrs[i]->ops[j];
			int k = 0;
			while (m->entry->instrs[k] != o)
				k++;
			assert_true(k < i);
		}
	Literal *got = run_seeded(m, &a, 7);
	assert_true(literal_equal(got, want));
	m = apply(m, "call-inliner", &ch);
	assert_false(ch);
	arena_free(&a);
	hlo_module_free(m);
}

/* ---- constant-folding --------------------------------------------------- */

static void test_constant_folding(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY("  a = f32[] constant(1.5)\n"
				  "  b = f32[] constant(2)\n"
				  "  s = f32[] add(a, b)\n"
				  "  p = f32[] parameter(0)\n"
				  "  n = f32[] negate(s)\n"
				  "  ROOT r = f32[] multiply(n, p)\n"));
	bool ch;
	m = apply(m, "constant-folding", &ch);
	assert_true(ch);
	m = apply(m, "dce", NULL);
	assert_entry(m, "ENTRY e (p: f32[]) -> f32[] {\n"
			"  p = f32[] parameter(0)\n"
			"  constant.1 = f32[] constant(-3.5)\n"
			"  ROOT r = f32[] multiply(constant.1, p)\n"
			"}\n");
	m = apply(m, "constant-folding", &ch);
	assert_false(ch);
	hlo_module_free(m);
}

/* Folding and tuple simplification take many instructions out at once
 * (unlinked, then swept): what stays has exact use lists, in order. */
static void test_removals_keep_uses_exact(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY("  k = f32[] constant(2)\n"
				  "  p = f32[] parameter(0)\n"
				  "  a = f32[] add(k, k)\n"
				  "  b = f32[] multiply(k, a)\n"
				  "  u = f32[] add(p, k)\n"
				  "  c = f32[] negate(b)\n"
				  "  t = (f32[], f32[], f32[]) tuple(c, u, p)\n"
				  "  g0 = f32[] get-tuple-element(t), index=0\n"
				  "  g1 = f32[] get-tuple-element(t), index=1\n"
				  "  g2 = f32[] get-tuple-element(t), index=2\n"
				  "  x = f32[] add(g0, g1)\n"
				  "  ROOT r = f32[] multiply(x, g2)\n"));
	bool ch;
	m = apply(m, "constant-folding", &ch);
	assert_true(ch);
	assert_uses_exact(m);
	HloInstr *k = hlo_comp_find(m->entry, "k");
	assert_int_equal(k->nusers, 1); /* u; a and b are folded */
	assert_string_equal(k->users[0]->name, "u");
	assert_int_equal(count_op(m, HLO_NEGATE), 0);
	m = apply(m, "tuple-simplifier", &ch);
	assert_true(ch);
	assert_uses_exact(m);
	assert_null(hlo_comp_find(m->entry, "g0"));
	assert_null(hlo_comp_find(m->entry, "g2"));
	HloInstr *p = hlo_comp_find(m->entry, "p");
	HloInstr *t = hlo_comp_find(m->entry, "t");
	assert_int_equal(p->nusers, 3); /* u, t, then r */
	assert_string_equal(p->users[0]->name, "u");
	assert_ptr_equal(p->users[1], t);
	assert_string_equal(p->users[2]->name, "r");
	assert_int_equal(t->nusers, 0); /* left for dce */
	m = apply(m, "dce", &ch);
	assert_true(ch);
	assert_uses_exact(m);
	assert_int_equal(m->entry->n, 6); /* k, p, u, folded c, x, r */
	hlo_module_free(m);
}

static void test_constant_folding_cap(void **state)
{
	(void)state;
	const char *text = ENTRY("  a = s32[4] constant({1, 2, 3, 4})\n"
				 "  b = s32[4] constant({10, 20, 30, 40})\n"
				 "  p = s32[4] parameter(0)\n"
				 "  x = s32[4] add(a, b)\n"
				 "  ROOT r = s32[4] add(x, p)\n");
	bool ch;
	HloModule *m = apply_cap(load_text(text), "constant-folding", &ch, 3);
	assert_false(ch);
	assert_int_equal(count_op(m, HLO_ADD), 2);
	hlo_module_free(m);
	m = apply_cap(load_text(text), "constant-folding", &ch, 4);
	assert_true(ch);
	m = apply(m, "dce", NULL);
	assert_int_equal(count_op(m, HLO_ADD), 1);
	const HloInstr *k = m->entry->root->ops[0];
	assert_int_equal(k->op, HLO_CONSTANT);
	assert_int_equal(literal_get_i64(k->literal, 0), 11);
	assert_int_equal(literal_get_i64(k->literal, 3), 44);
	hlo_module_free(m);
}

/* As XLA's HloConstantFolding: a broadcast or an iota stays (folding it
 * makes a constant as large as its result), also under a large cap; what
 * reads them folds only once they are constants, so here nothing does. */
static void test_constant_folding_leaves_broadcast_iota(void **state)
{
	(void)state;
	const char *text = ENTRY("  c = s32[] constant(7)\n"
				 "  b = s32[100] broadcast(c), dimensions={}\n"
				 "  i = s32[100] iota(), iota_dimension=0\n"
				 "  p = s32[100] parameter(0)\n"
				 "  x = s32[100] add(b, i)\n"
				 "  ROOT r = s32[100] add(x, p)\n");
	bool ch;
	HloModule *m =
		apply_cap(load_text(text), "constant-folding", &ch, 1 << 20);
	assert_false(ch);
	assert_int_equal(count_op(m, HLO_BROADCAST), 1);
	assert_int_equal(count_op(m, HLO_IOTA), 1);
	assert_int_equal(count_op(m, HLO_ADD), 2);
	hlo_module_free(m);
}

static void test_constant_folding_keeps(void **state)
{
	(void)state;
	/* rng, custom-call, elided constants and reductions through a
	 * reducer are handled; only the last may fold. */
	HloModule *m = load_text(
		"HloModule t\n\n"
		"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(a, b)\n}\n"
		"ENTRY e {\n"
		"  lo = f32[] constant(0)\n  hi = f32[] constant(1)\n"
		"  r = f32[3] rng(lo, hi), distribution=rng_uniform\n"
		"  k = f32[3] custom-call(lo), custom_call_target=\"f\"\n"
		"  e = f32[3] constant({...})\n"
		"  n = f32[3] negate(e)\n"
		"  v = f32[3] constant({1, 2, 3})\n"
		"  s = f32[] reduce(v, lo), dimensions={0}, to_apply=add\n"
		"  ROOT t = (f32[3], f32[3], f32[3], f32[]) tuple(r, k, n, s)\n"
		"}\n");
	bool ch;
	m = apply(m, "constant-folding", &ch);
	assert_true(ch);
	assert_int_equal(count_op(m, HLO_RNG), 1);
	assert_int_equal(count_op(m, HLO_CUSTOM_CALL), 1);
	assert_int_equal(count_op(m, HLO_NEGATE), 1);
	assert_int_equal(count_op(m, HLO_REDUCE), 0);
	const HloInstr *s = m->entry->root->ops[3];
	assert_int_equal(s->op, HLO_CONSTANT);
	assert_true(literal_get_f64(s->literal, 0) == 6.0);
	assert_int_equal(m->ncomps, 2); /* the temporary is gone */
	hlo_module_free(m);
}

/* A pipeline step takes its before-counts from the previous step's
 * result: they must equal what counting the module gives. */
static void test_prev_counts(void **state)
{
	(void)state;
	HloModule *m = load_text(nested_calls);
	Diag d;
	diag_init(&d);
	PassCtx cx = {.d = &d};
	PassResult r1, r2, r3;
	assert_true(pass_apply(m, pass_find("call-inliner"), &cx, &r1));
	assert_true(pass_apply(r1.m, pass_find("fusion"), &cx, &r2));
	cx.prev = &r1;
	assert_true(pass_apply(r1.m, pass_find("fusion"), &cx, &r3));
	assert_int_equal(r3.instrs_before, r2.instrs_before);
	assert_int_equal(r3.kernels_before, r2.kernels_before);
	assert_true(r3.bytes_before == r2.bytes_before);
	assert_int_equal(r2.instrs_before, r1.instrs_after);
	hlo_module_free(r3.m);
	hlo_module_free(r2.m);
	hlo_module_free(r1.m);
	hlo_module_free(m);
	diag_free(&d);
}

/* pass_clone_counted's counts are the clone's, as pass_run would count
 * them, and handed on as prev they give the first pass the same
 * before-counts as counting afresh. */
static void test_clone_counted(void **state)
{
	(void)state;
	HloModule *m = load_text(nested_calls);
	PassResult c;
	HloModule *k = pass_clone_counted(m, &c);
	assert_non_null(k);
	assert_ptr_equal(c.m, k);
	int kernels;
	int64_t bytes = cost_bytes_moved_kernels(m, &kernels);
	assert_int_equal(c.instrs_after, hlo_module_instr_count(m));
	assert_int_equal(c.kernels_after, kernels);
	assert_true(c.bytes_after == bytes);
	Diag d;
	diag_init(&d);
	PassCtx cx = {.d = &d, .prev = &c};
	PassResult r1, r2;
	assert_true(pass_run(k, pass_find("call-inliner"), &cx, &r1));
	HloModule *k2 = pass_clone(m);
	cx = (PassCtx){.d = &d};
	assert_true(pass_run(k2, pass_find("call-inliner"), &cx, &r2));
	assert_int_equal(r1.instrs_before, r2.instrs_before);
	assert_int_equal(r1.kernels_before, r2.kernels_before);
	assert_true(r1.bytes_before == r2.bytes_before);
	assert_int_equal(r1.kernels_after, r2.kernels_after);
	assert_true(r1.bytes_after == r2.bytes_after);
	hlo_module_free(k2);
	hlo_module_free(k);
	hlo_module_free(m);
	diag_free(&d);
}

/* pass_clone_counted counts a source that holds no other's arena on
 * the source itself (what it remembers stays there for the next clone):
 * counted again, and on a clone of a clone (copied whole, counted on
 * the copy), the counts are the same; so are the fresh ones. */
static void test_clone_counted_again(void **state)
{
	(void)state;
	HloModule *m = load_text(nested_calls);
	PassResult c1, c2, c3;
	HloModule *k1 = pass_clone_counted(m, &c1);
	HloModule *k2 = pass_clone_counted(m, &c2);
	HloModule *k3 = k1 ? pass_clone_counted(k1, &c3) : NULL;
	assert_non_null(k2);
	assert_non_null(k3);
	int kernels;
	int64_t bytes = cost_bytes_moved_kernels(m, &kernels);
	const PassResult *v[] = {&c1, &c2, &c3};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(v[i]->instrs_after, hlo_module_instr_count(m));
		assert_int_equal(v[i]->kernels_after, kernels);
		assert_int_equal(v[i]->kernels_before, kernels);
		assert_true(v[i]->bytes_after == bytes);
		assert_true(v[i]->bytes_before == bytes);
	}
	/* each clone's names name its own instructions */
	HloModule *k[] = {k1, k2, k3};
	for (int i = 0; i < 3; i++)
		for (int ci = 0; ci < k[i]->ncomps; ci++) {
			HloComp *cc = k[i]->comps[ci];
			for (int j = 0; j < cc->n; j++)
				assert_ptr_equal(namemap_get(&cc->names,
							     cc->instrs[j]->name),
						 cc->instrs[j]);
		}
	hlo_module_free(k3);
	hlo_module_free(k2);
	hlo_module_free(k1);
	hlo_module_free(m);
}

static void test_default_pipeline(void **state)
{
	(void)state;
	/* simplify leaves 7 kernels; default then fuses them into one. */
	static const struct {
		const char *name;
		int kernels;
	} cases[] = {{"simplify", 7}, {"default", 1}};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		HloModule *m = load_text(nested_calls);
		Arena a;
		arena_init(&a);
		Literal *want = run_seeded(m, &a, 7);
		int n;
		const char *const *steps = pipeline_find(cases[k].name, &n);
		assert_non_null(steps);
		for (int i = 0; i < n; i++)
			m = apply(m, steps[i], NULL);
		assert_int_equal(hlo_module_kernels(m), cases[k].kernels);
		assert_true(literal_equal(run_seeded(m, &a, 7), want));
		arena_free(&a);
		hlo_module_free(m);
	}
}

/* ---- the corpus ----------------------------------------------------------- */

/* A dump gets the numeric check when its entry inputs take at most
 * 16 MB (XR_PASSES_INPUT_MB) and the original runs within 0.5 s
 * (XR_PASSES_SECONDS). In an unoptimised build 64 MB and 1 s add one
 * more module for about ten more seconds of interpreting. */
static int64_t input_limit(void)
{
	const char *e = getenv("XR_PASSES_INPUT_MB");
	return (int64_t)((e ? atof(e) : 16) * 1048576);
}

static double run_budget(void)
{
	const char *e = getenv("XR_PASSES_SECONDS");
	return e ? atof(e) : 0.5;
}

typedef struct Totals {
	int modules, loaded, changed[8], numeric, numeric_skipped, trips;
	int failures;
	double pass_ms[8], interp_ms, total_ms;
} Totals;

/* Entry inputs for m (pseudo-random), or -1 when they are too big. */
static int make_inputs(const HloModule *m, Arena *a, Literal ***out)
{
	int64_t bytes = inputs_bytes(m);
	if (bytes < 0 || bytes > input_limit() ||
	    !(*out = inputs_seeded(m, a, 1000)))
		return -1;
	return hlo_comp_param_count(m->entry);
}

/* The entry's result within budget seconds, or NULL (why says why). */
static Literal *run_timed(const HloModule *m, Literal **args, Arena *a,
			  double budget, char *why, size_t cap, Totals *tt)
{
	double t0 = clock_ms();
	Diag d;
	diag_init(&d);
	Literal *r = interp_timed(m, args, a, budget, &d, NULL);
	if (!r)
		snprintf(why, cap, "%.200s", diag_text(&d));
	diag_free(&d);
	tt->interp_ms += clock_ms() - t0;
	return r;
}

/* Under ASan the interpreter runs and the reloads (strstr over the
 * whole text for each comment in the lexer) take minutes: skipped. */
static bool sanitized(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return true;
#else
	return false;
#endif
#else
	return false;
#endif
}

/* What `save` writes for m parses, verifies and prints the same again. */
static bool reloads(const HloModule *m, const char *file)
{
	StrBuf b, b2;
	sb_init(&b);
	sb_init(&b2);
	print_module(&b, m, &print_opts_default);
	Diag d;
	diag_init(&d);
	HloModule *m2 = load_verified(file, sb_str(&b), b.len, &d);
	if (m2)
		print_module(&b2, m2, &print_opts_default);
	bool ok = m2 && !strcmp(sb_str(&b), sb_str(&b2));
	if (!ok)
		print_error("%s\n", diag_text(&d));
	hlo_module_free(m2);
	diag_free(&d);
	sb_free(&b);
	sb_free(&b2);
	return ok;
}

/* Every while loop of before with a known trip count that after still
 * has (by name) has the same count there: the passes (fusion taking the
 * counter into a kernel) keep the cost model's view of the loop.
 * Returns how many were compared, -1 on a difference. */
static int trips_kept(const HloModule *before, const HloModule *after,
		      const char *file)
{
	int n = 0;
	for (int ci = 0; ci < before->ncomps; ci++) {
		const HloComp *c = before->comps[ci];
		for (int i = 0; i < c->n; i++) {
			const HloInstr *w = c->instrs[i];
			int64_t t = w->op == HLO_WHILE
					    ? cost_trip_count(w, NULL, 0)
					    : -1;
			for (int cj = 0; t >= 0 && cj < after->ncomps; cj++) {
				const HloInstr *w2 =
					hlo_comp_find(after->comps[cj], w->name);
				if (!w2 || w2->op != HLO_WHILE)
					continue;
				n++;
				int64_t t2 = cost_trip_count(w2, NULL, 0);
				if (t2 != t) {
					print_error("%s: while %s: trip count "
						    "%lld, %lld after the "
						    "pipeline\n",
						    file, w->name, (long long)t,
						    (long long)t2);
					return -1;
				}
			}
		}
	}
	return n;
}

/* The default pipeline over one module, step by step; on a dump, the
 * interpreter's result before and after must agree. */
static void corpus_one(const char *path, const char *file, bool dump,
		       Totals *tt)
{
	size_t n;
	char *text = slurp(path, &n);
	Diag d;
	diag_init(&d);
	d.max_warnings = 0;
	HloModule *m = text ? load_verified(file, text, n, &d) : NULL;
	free(text);
	tt->modules++;
	if (!m) {
		diag_free(&d);
		return; /* test_corpus.c owns which modules must load */
	}
	tt->loaded++;
	Arena a;
	arena_init(&a);
	Literal **args = NULL, *want = NULL;
	char why[256] = "";
	int np = -1;
	if (dump && !sanitized() && (np = make_inputs(m, &a, &args)) >= 0)
		want = run_timed(m, args, &a, run_budget(), why, sizeof why,
				 tt);
	if (getenv("XR_PASSES_VERBOSE"))
		print_message("%s %s %.60s\n", file, want ? "ran" : "skip",
			      why);
	int nsteps;
	const char *const *steps = pipeline_find("default", &nsteps);
	HloModule *cur = hlo_module_clone(m);
	bool any = false;
	for (int i = 0; i < nsteps && cur; i++) {
		PassCtx cx = {0};
		cx.d = &d;
		PassResult r;
		if (!pass_apply(cur, pass_find(steps[i]), &cx, &r)) {
			print_error("%s: %s: %s\n", file, steps[i],
				    diag_text(&d));
			tt->failures++;
			break;
		}
		tt->changed[i] += r.changed;
		any |= r.changed;
		tt->pass_ms[i] += r.ms;
		hlo_module_free(cur);
		cur = r.m; /* verified by pass_apply */
	}
	int trips = cur ? trips_kept(m, cur, file) : 0;
	if (trips < 0)
		tt->failures++;
	else
		tt->trips += trips;
	if (cur && any && !sanitized() && !reloads(cur, file)) {
		print_error("%s: the pipeline's result does not load back\n",
			    file);
		tt->failures++;
	}
	if (want && cur) {
		Literal *got =
			run_timed(cur, args, &a, 10.0, why, sizeof why, tt);
		CompareResult cr;
		if (got)
			literal_compare(got, want,
					compare_default_tol(want->shape), &cr);
		if (!got || !cr.ok) {
			print_error(
				"%s: default pipeline changed the result: %s "
				"max_abs_err=%g\n",
				file, got ? "" : why,
				got ? cr.max_abs_err : 0.0);
			tt->failures++;
		}
		tt->numeric++;
	} else if (dump) {
		tt->numeric_skipped++;
	}
	hlo_module_free(cur);
	hlo_module_free(m);
	arena_free(&a);
	diag_free(&d);
}

static void test_corpus_pipeline(void **state)
{
	(void)state;
	FILE *f = corpus_index_open();
	if (!f)
		skip();
	Totals tt = {0};
	double t0 = clock_ms();
	char line[1 << 16];
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	while (fgets(line, sizeof line, f)) {
		char *cols[17] = {0}, *s = line;
		for (int i = 0; i < 17 && s; i++) {
			cols[i] = s;
			s = strchr(s, '\t');
			if (s)
				*s++ = 0;
		}
		if (!cols[15])
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", XR_CORPUS_DIR, cols[0]);
		corpus_one(path, cols[0], !strcmp(cols[15], "dump"), &tt);
	}
	fclose(f);
	int nsteps;
	const char *const *steps = pipeline_find("default", &nsteps);
	print_message(
		"corpus: %d modules, %d loaded, numeric checks %d "
		"(skipped %d dumps), %d while trip counts kept; %.0f ms, "
		"%.0f ms of it interpreting\n",
		tt.modules, tt.loaded, tt.numeric, tt.numeric_skipped, tt.trips,
		clock_ms() - t0, tt.interp_ms);
	for (int i = 0; i < nsteps; i++)
		print_message("  %-18s changed %3d modules  %8.1f ms\n",
			      steps[i], tt.changed[i], tt.pass_ms[i]);
	assert_true(tt.modules >= 396);
	assert_int_equal(tt.failures, 0);
	assert_true(tt.trips > 0);
	if (!sanitized())
		assert_true(tt.numeric > 0);
}

/* pass_unshare_fused gives the second and third fusion of F copies of
 * their own (F.1, F.2), also when the mark counter wraps while it copies
 * (the marks it relies on are cleared then). */
static void test_unshare_fused(void **state)
{
	(void)state;
	const char *t = "HloModule t\n"
			"F {\n  a = f32[8] parameter(0)\n"
			"  ROOT n = f32[8] negate(a)\n}\n"
			"ENTRY e {\n  x = f32[8] parameter(0)\n"
			"  f1 = f32[8] fusion(x), kind=kLoop, calls=F\n"
			"  f2 = f32[8] fusion(f1), kind=kLoop, calls=F\n"
			"  ROOT f3 = f32[8] fusion(f2), kind=kLoop, calls=F\n}\n";
	for (unsigned back = 0; back < 8; back++) {
		SrcFile f = {"t.hlo", t, strlen(t), 0};
		Diag d;
		diag_init(&d);
		HloModule *m = parse_module(&f, &d, NULL);
		assert_non_null(m);
		assert_false(verify_module(m, &d, &f)); /* shared */
		diag_clear(&d);
		if (back)
			m->mark_gen = UINT_MAX - back;
		assert_true(pass_unshare_fused(m));
		assert_int_equal(m->ncomps, 4);
		if (!verify_module(m, &d, &f))
			fail_msg("near the wrap by %u: %s", back, diag_text(&d));
		const char *want[] = {"F", "F.1", "F.2"};
		for (int k = 0; k < 3; k++) {
			char name[4] = {'f', (char)('1' + k), 0};
			HloComp *c = hlo_attr_comp(hlo_comp_find(m->entry, name),
						   A_CALLS);
			assert_non_null(c);
			assert_string_equal(c->name, want[k]);
		}
		diag_free(&d);
		hlo_module_free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_unshare_fused),
		cmocka_unit_test(test_kernels),
		cmocka_unit_test(test_kernels_all),
		cmocka_unit_test(test_rollback),
		cmocka_unit_test(test_cse_commutative),
		cmocka_unit_test(test_cse_keeps_definitions_first),
		cmocka_unit_test(test_cse_chains_and_constants),
		cmocka_unit_test(test_cse_keeps_distinct),
		cmocka_unit_test(test_cse_same_signature),
		cmocka_unit_test(test_cse_dce_fan_out),
		cmocka_unit_test(test_side_effect_through_calls),
		cmocka_unit_test(test_dce),
		cmocka_unit_test(test_dce_repeated_operands),
		cmocka_unit_test(test_tuple_simplifier),
		cmocka_unit_test(test_call_inliner),
		cmocka_unit_test(test_constant_folding),
		cmocka_unit_test(test_constant_folding_cap),
		cmocka_unit_test(test_constant_folding_leaves_broadcast_iota),
		cmocka_unit_test(test_removals_keep_uses_exact),
		cmocka_unit_test(test_constant_folding_keeps),
		cmocka_unit_test(test_prev_counts),
		cmocka_unit_test(test_clone_counted),
		cmocka_unit_test(test_clone_counted_again),
		cmocka_unit_test(test_default_pipeline),
		cmocka_unit_test(test_corpus_pipeline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
