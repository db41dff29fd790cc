/* test_algsimp.c - the algsimp pass on small modules: which rules fire
 * (counts and log lines), what must not change (float-only hazards,
 * layouts, side effects, fusion bodies), that the rewritten module
 * computes bit-identical values on special inputs (NaN, inf, -0,
 * denormals, integer extremes), that it reaches a fixed point, removes
 * what it orphans and keeps definitions before uses. */
#include <dirent.h>
#include <math.h>

#include "compare.h"
#include "passes/pass.h"
#include "print.h"
#include "testutil.h"

#define ENTRY(body) "HloModule t\n\nENTRY e {\n" body "}\n"

/* One algsimp application: the result, its rule counts and log. */
typedef struct Out {
	HloModule *m;
	bool changed;
	PassCtx cx;
	StrBuf log;
} Out;

static void simp(const HloModule *m, Out *o)
{
	memset(o, 0, sizeof *o);
	sb_init(&o->log);
	o->cx.log = &o->log;
	Diag d;
	diag_init(&d);
	o->m = pass_try(m, "algsimp", &o->cx, &d, &o->changed);
	if (!o->m)
		fail_msg("algsimp: %s", diag_text(&d));
	diag_free(&d);
}

static void out_free(Out *o)
{
	hlo_module_free(o->m);
	sb_free(&o->log);
}

static int fired(const Out *o, const char *rule)
{
	for (int i = 0; i < o->cx.nrules; i++)
		if (!strcmp(o->cx.rules[i].rule, rule))
			return o->cx.rules[i].count;
	return 0;
}

static int count_op(const HloComp *c, HloOpcode op)
{
	int k = 0;
	for (int i = 0; i < c->n; i++)
		k += c->instrs[i]->op == op;
	return k;
}

static void assert_log(const Out *o, const char *line)
{
	if (!strstr(sb_str((StrBuf *)&o->log), line))
		fail_msg("log lacks '%s':\n%s", line,
			 sb_str((StrBuf *)&o->log));
}

/* Every operand is defined earlier in program order. */
static void assert_defs_first(const HloComp *c)
{
	for (int i = 0; i < c->n; i++) {
		c->instrs[i]->mark = (unsigned)i;
	}
	for (int i = 0; i < c->n; i++)
		for (int j = 0; j < c->instrs[i]->nops; j++) {
			const HloInstr *op = c->instrs[i]->ops[j];
			assert_true(op->parent == c);
			assert_true(op->mark < (unsigned)i);
		}
}

/* Entry parameters filled with values that catch inexact rules: NaN,
 * infinities, both zeros, denormals (1e-7 is one in f16, 1e-45 in
 * f32), large and small numbers (floats);
 * extremes and -1 (integers); alternating pred. */
static void fill_special(Literal *l)
{
	static const double f[] = {
		NAN,  INFINITY, -INFINITY, -0.0, 0.0,    1e-7,  1e-45, 1.0,
		-2.5, 3e38,     -1e-40,    0.1,  65504., -7.25, 2.0,   -1.0};
	static const int64_t iv[] = {INT64_MIN, INT64_MAX, -1,  0,   1,  2,
				     -128,      127,       255, 100, -7, 3};
	Dtype t = l->shape->type;
	for (int64_t i = 0; i < l->n; i++) {
		if (dtype_is_float(t))
			literal_set_f64(l, i, f[i % 16]);
		else if (t == DT_PRED)
			literal_set_i64(l, i, i & 1);
		else
			literal_set_i64(l, i, iv[i % 12]);
	}
}

/* A literal in a per entry parameter of m, filled by fill_special. */
static Literal **special_inputs(const HloModule *m, Arena *a)
{
	int np = hlo_comp_param_count(m->entry);
	Literal **args = arena_alloc(a, sizeof *args * (size_t)(np + 1));
	for (int i = 0; i < np; i++) {
		args[i] = literal_new(a, hlo_comp_param(m->entry, i)->shape);
		assert_non_null(args[i]);
		fill_special(args[i]);
	}
	return args;
}

static Literal *run_special(const HloModule *m, Arena *a)
{
	return interp_ok(m, special_inputs(m, a), a);
}

/* The module before and after give the same bits on special inputs. */
static void assert_exact(const HloModule *before, const HloModule *after)
{
	Arena a;
	arena_init(&a);
	Literal *want = run_special(before, &a);
	Literal *got = run_special(after, &a);
	if (!literal_equal(got, want)) {
		StrBuf b;
		sb_init(&b);
		sb_puts(&b, "want ");
		literal_print(&b, want, 64);
		sb_puts(&b, "\ngot  ");
		literal_print(&b, got, 64);
		fail_msg("%s", sb_str(&b));
	}
	arena_free(&a);
}

/* ---- rules that fire ---------------------------------------------------- */

static void test_arithmetic_identities(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY(
		"  p = f32[16] parameter(0)\n"
		"  one = f32[] constant(1)\n"
		"  ob = f32[16] broadcast(one), dimensions={}\n"
		"  nz = f32[] constant(-0)\n"
		"  nzb = f32[16] broadcast(nz), dimensions={}\n"
		"  pz = f32[16] constant({0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0})\n"
		"  a = f32[16] multiply(ob, p)\n"
		"  b = f32[16] divide(a, ob)\n"
		"  c = f32[16] add(b, nzb)\n"
		"  d = f32[16] subtract(c, pz)\n"
		"  e = f32[16] power(d, ob)\n"
		"  ROOT r = f32[16] negate(e)\n"));
	Out o;
	simp(m, &o);
	assert_true(o.changed);
	assert_int_equal(fired(&o, "mul-one"), 1);
	assert_int_equal(fired(&o, "div-one"), 1);
	assert_int_equal(fired(&o, "add-zero"), 1);
	assert_int_equal(fired(&o, "sub-zero"), 1);
	assert_int_equal(fired(&o, "pow-one"), 1);
	assert_log(&o, "mul-one: %a -> %p\n");
	assert_log(&o, "pow-one: %e -> %p\n");
	/* only the negate (and the parameter) is left */
	assert_int_equal(o.m->entry->n, 2);
	assert_ptr_equal(o.m->entry->root->ops[0],
			 hlo_comp_find(o.m->entry, "p"));
	/* x + (-0.0) and x - (+0.0) are exact, even for x = -0.0 */
	assert_exact(m, o.m);
	out_free(&o);
	hlo_module_free(m);
}

/* x + (+0.0) -> x is exact up to the sign of zero only, as documented:
 * the values agree within tolerance, -0.0 stays -0.0. */
static void test_add_zero_sign_of_zero(void **state)
{
	(void)state;
	HloModule *m =
		load_text(ENTRY("  p = f32[16] parameter(0)\n"
				"  z = f32[] constant(0)\n"
				"  zb = f32[16] broadcast(z), dimensions={}\n"
				"  ROOT a = f32[16] add(p, zb)\n"));
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "add-zero"), 1);
	Arena a;
	arena_init(&a);
	Literal *want = run_special(m, &a), *got = run_special(o.m, &a);
	CompareResult cr;
	literal_compare(got, want, 0, &cr);
	assert_true(cr.ok);
	assert_false(literal_equal(got, want)); /* element 3: -0 vs +0 */
	assert_true(signbit(literal_get_f64(got, 3)));
	assert_false(signbit(literal_get_f64(want, 3)));
	arena_free(&a);
	out_free(&o);
	hlo_module_free(m);
}

static void test_integer_rules(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY(
		"  i = s64[12] parameter(0)\n"
		"  z = s64[] constant(0)\n"
		"  zb = s64[12] broadcast(z), dimensions={}\n"
		"  m = s64[12] multiply(i, zb)\n"
		"  s = s64[12] subtract(i, i)\n"
		"  x = s64[12] xor(i, i)\n"
		"  lt = pred[12] compare(i, i), direction=LT\n"
		"  le = pred[12] compare(i, i), direction=LE\n"
		"  n = s64[12] negate(i)\n"
		"  nn = s64[12] negate(n)\n"
		"  ab = s64[12] abs(nn)\n"
		"  ab2 = s64[12] abs(ab)\n"
		"  ROOT t = (s64[12], s64[12], s64[12], pred[12], pred[12], "
		"s64[12]) tuple(m, s, x, lt, le, ab2)\n"));
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "mul-zero-int"), 1);
	assert_int_equal(fired(&o, "sub-self-int"), 1);
	assert_int_equal(fired(&o, "xor-self-int"), 1);
	assert_int_equal(fired(&o, "compare-self-int"), 2);
	assert_int_equal(fired(&o, "negate-negate"), 1);
	assert_int_equal(fired(&o, "abs-abs"), 1);
	/* mul-zero-int reuses the zero broadcast itself */
	assert_ptr_equal(o.m->entry->root->ops[0],
			 hlo_comp_find(o.m->entry, "zb"));
	assert_int_equal(count_op(o.m->entry, HLO_COMPARE), 0);
	/* INT64_MIN: negate twice and abs twice wrap the same way */
	assert_exact(m, o.m);
	assert_defs_first(o.m->entry);
	out_free(&o);
	hlo_module_free(m);
}

static void test_shape_chains(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY(
		"  p = f32[2,3,4] parameter(0)\n"
		"  r1 = f32[6,4] reshape(p)\n"
		"  r2 = f32[24] reshape(r1)\n"
		"  r3 = f32[2,3,4] reshape(r2)\n"
		"  t1 = f32[4,2,3] transpose(r3), dimensions={2,0,1}\n"
		"  t2 = f32[2,3,4] transpose(t1), dimensions={1,2,0}\n"
		"  s1 = f32[2,3,2] slice(t2), slice={[0:2], [0:3], [1:4:2]}\n"
		"  s2 = f32[1,3,1] slice(s1), slice={[1:2], [0:3], [1:2]}\n"
		"  b1 = f32[3] reshape(s2)\n"
		"  b2 = f32[5,3] broadcast(b1), dimensions={1}\n"
		"  b3 = f32[2,5,3] broadcast(b2), dimensions={1,2}\n"
		"  ROOT t = (f32[2,3,4], f32[1,3,1], f32[2,5,3]) "
		"tuple(t2, s2, b3)\n"));
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "reshape-reshape"), 2);
	assert_int_equal(fired(&o, "noop-reshape"), 1);
	assert_int_equal(fired(&o, "transpose-transpose"), 1);
	assert_int_equal(fired(&o, "noop-transpose"), 1);
	assert_int_equal(fired(&o, "slice-slice"), 1);
	assert_int_equal(fired(&o, "broadcast-broadcast"), 1);
	HloComp *e = o.m->entry;
	const HloInstr *p = hlo_comp_find(e, "p");
	assert_ptr_equal(e->root->ops[0], p);
	/* s2 reads p directly: [1:2], [0:3], [3:4] */
	const HloInstr *s2 = e->root->ops[1];
	assert_ptr_equal(s2->ops[0], p);
	const HloAttr *sl = hlo_attr_find(s2, A_SLICE);
	assert_int_equal(sl->u.slice.v[2].start, 3);
	assert_int_equal(sl->u.slice.v[2].limit, 4);
	/* b3 broadcasts b1 straight to dim 2 */
	int n;
	const int64_t *d = hlo_attr_ints(e->root->ops[2], A_DIMENSIONS, &n);
	assert_int_equal(n, 1);
	assert_int_equal(d[0], 2);
	assert_int_equal(count_op(e, HLO_TRANSPOSE), 0);
	assert_exact(m, o.m);
	assert_defs_first(e);
	out_free(&o);
	hlo_module_free(m);
}

static void test_dot_to_multiply(void **state)
{
	(void)state;
	/* integers, so the comparison is exact; batch dim last on the lhs
	 * needs a transpose */
	HloModule *m = load_text(
		ENTRY("  x = s32[5,1,2] parameter(0)\n"
		      "  y = s32[2,3,1] parameter(1)\n"
		      "  ROOT d = s32[2,5,3] dot(x, y), lhs_batch_dims={2}, "
		      "lhs_contracting_dims={1}, rhs_batch_dims={0}, "
		      "rhs_contracting_dims={2}\n"));
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "dot-to-multiply"), 1);
	HloComp *e = o.m->entry;
	assert_int_equal(e->root->op, HLO_MULTIPLY);
	assert_int_equal(count_op(e, HLO_DOT), 0);
	assert_int_equal(count_op(e, HLO_TRANSPOSE), 1);
	assert_exact(m, o.m);
	assert_defs_first(e);
	out_free(&o);
	hlo_module_free(m);

	/* f32 with a real contraction, or an algorithm= attribute: kept */
	m = load_text(ENTRY(
		"  a = f32[3,2] parameter(0)\n"
		"  b = f32[2,4] parameter(1)\n"
		"  ROOT d = f32[3,4] dot(a, b), lhs_contracting_dims={1}, "
		"rhs_contracting_dims={0}\n"));
	simp(m, &o);
	assert_false(o.changed);
	out_free(&o);
	hlo_module_free(m);
	m = load_text(ENTRY(
		"  a = f32[3,1] parameter(0)\n"
		"  b = f32[1,4] parameter(1)\n"
		"  ROOT d = f32[3,4] dot(a, b), lhs_contracting_dims={1}, "
		"rhs_contracting_dims={0}, algorithm=dot_bf16_bf16_f32\n"));
	simp(m, &o);
	assert_false(o.changed);
	out_free(&o);
	hlo_module_free(m);
}

static const char reducers[] =
	"HloModule t\n\n"
	"maxs {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
	"  ROOT m = s32[] maximum(a, b)\n}\n"
	"maxu {\n  a = u16[] parameter(0)\n  b = u16[] parameter(1)\n"
	"  ROOT m = u16[] maximum(b, a)\n}\n"
	"addf {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
	"  ROOT m = f32[] add(a, b)\n}\n"
	"ENTRY e {\n"
	"  i = s32[3,1] parameter(0)\n"
	"  u = u16[1,3] parameter(1)\n"
	"  f = f32[3,1,1] parameter(2)\n"
	"  smin = s32[] constant(-2147483648)\n"
	"  zero = s32[] constant(0)\n"
	"  uzero = u16[] constant(0)\n"
	"  nz = f32[] constant(-0)\n"
	"  r1 = s32[3] reduce(i, smin), dimensions={1}, to_apply=maxs\n"
	"  r2 = s32[3] reduce(i, zero), dimensions={1}, to_apply=maxs\n"
	"  r3 = u16[3] reduce(u, uzero), dimensions={0}, to_apply=maxu\n"
	"  r4 = f32[3] reduce(f, nz), dimensions={1,2}, to_apply=addf\n"
	"  ROOT t = (s32[3], s32[3], u16[3], f32[3]) tuple(r1, r2, r3, r4)\n"
	"}\n";

static void test_reduce_identity(void **state)
{
	(void)state;
	HloModule *m = load_text(reducers);
	Out o;
	simp(m, &o);
	/* r1 (INT_MIN), r3 (0 is the unsigned minimum) and r4 (-0.0) go;
	 * r2 keeps its reduce: 0 is not the identity of a signed max */
	assert_int_equal(fired(&o, "reduce-size1-to-reshape"), 3);
	assert_int_equal(count_op(o.m->entry, HLO_REDUCE), 1);
	assert_non_null(hlo_comp_find(o.m->entry, "r2"));
	assert_exact(m, o.m);
	out_free(&o);
	hlo_module_free(m);
}

static void test_convert_round_trips(void **state)
{
	(void)state;
	HloModule *m = load_text(
		ENTRY("  a = s8[12] parameter(0)\n"
		      "  b = u8[12] parameter(1)\n"
		      "  c = pred[12] parameter(2)\n"
		      "  h = f16[16] parameter(3)\n"
		      "  a1 = s16[12] convert(a)\n  a2 = s8[12] convert(a1)\n"
		      "  b1 = f16[12] convert(b)\n  b2 = u8[12] convert(b1)\n"
		      "  c1 = f32[12] convert(c)\n  c2 = pred[12] convert(c1)\n"
		      "  h1 = f32[16] convert(h)\n  h2 = f16[16] convert(h1)\n"
		      /* lossy: u8 -> s8, s16 -> f16, f16 -> bf16 */
		      "  x1 = s8[12] convert(b)\n  x2 = u8[12] convert(x1)\n"
		      "  y1 = f16[12] convert(a1)\n  y2 = s16[12] convert(y1)\n"
		      "  z1 = bf16[16] convert(h)\n  z2 = f16[16] convert(z1)\n"
		      "  ROOT t = (s8[12], u8[12], pred[12], f16[16], u8[12], "
		      "s16[12], f16[16]) tuple(a2, b2, c2, h2, x2, y2, z2)\n"));
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "convert-convert-same"), 4);
	const HloInstr *r = o.m->entry->root;
	for (int i = 0; i < 4; i++)
		assert_int_equal(r->ops[i]->op, HLO_PARAMETER);
	for (int i = 4; i < 7; i++)
		assert_int_equal(r->ops[i]->op, HLO_CONVERT);
	assert_exact(m, o.m);
	out_free(&o);
	hlo_module_free(m);
}

static void test_select_and_logic(void **state)
{
	(void)state;
	HloModule *m = load_text(
		ENTRY("  c = pred[16] parameter(0)\n"
		      "  a = f32[16] parameter(1)\n"
		      "  b = f32[16] parameter(2)\n"
		      "  n = pred[16] not(c)\n"
		      "  s = f32[16] select(n, a, b)\n"
		      "  nn = pred[16] not(n)\n"
		      "  t = pred[] constant(true)\n"
		      "  tb = pred[16] broadcast(t), dimensions={}\n"
		      "  k = pred[16] and(nn, tb)\n"
		      "  s2 = f32[16] select(k, a, a)\n"
		      "  mx = f32[16] maximum(b, b)\n"
		      "  ROOT r = (f32[16], pred[16], f32[16], f32[16]) "
		      "tuple(s, k, s2, mx)\n"));
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "select-not-pred"), 1);
	assert_int_equal(fired(&o, "not-not"), 1);
	assert_int_equal(fired(&o, "and-true"), 1);
	assert_int_equal(fired(&o, "select-same-operands"), 1);
	assert_int_equal(fired(&o, "max-self"), 1);
	assert_log(&o, "select-not-pred: %s rewritten in place\n");
	HloComp *e = o.m->entry;
	const HloInstr *s = e->root->ops[0];
	assert_ptr_equal(s->ops[0], hlo_comp_find(e, "c"));
	assert_ptr_equal(s->ops[1], hlo_comp_find(e, "b"));
	assert_ptr_equal(s->ops[2], hlo_comp_find(e, "a"));
	assert_int_equal(count_op(e, HLO_NOT), 0);
	assert_exact(m, o.m);
	out_free(&o);
	hlo_module_free(m);
}

/* ---- what must not change ----------------------------------------------- */

static void test_float_hazards_kept(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY(
		"  p = f32[16] parameter(0)\n"
		"  d = f64[16] parameter(1)\n"
		"  z = f32[] constant(0)\n"
		"  zb = f32[16] broadcast(z), dimensions={}\n"
		"  m = f32[16] multiply(p, zb)\n"
		"  s = f32[16] subtract(p, p)\n"
		"  e = pred[16] compare(p, p), direction=EQ\n"
		"  two = f64[] constant(2)\n"
		"  tb = f64[16] broadcast(two), dimensions={}\n"
		"  pw = f64[16] power(d, tb)\n"
		"  h = f16[16] convert(p)\n"
		"  h2 = f32[16] convert(h)\n"
		"  rp = f32[16] reduce-precision(p), exponent_bits=5, "
		"mantissa_bits=10\n"
		"  ROOT t = (f32[16], f32[16], pred[16], f64[16], f32[16], "
		"f32[16]) tuple(m, s, e, pw, h2, rp)\n"));
	Out o;
	simp(m, &o);
	assert_false(o.changed);
	assert_int_equal(o.cx.nrules, 0);
	assert_int_equal(o.log.len, 0);
	out_free(&o);
	hlo_module_free(m);
}

static void test_layouts_differ(void **state)
{
	(void)state;
	HloModule *m = load_text(ENTRY(
		"  p = f32[2,3]{0,1} parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  zb = f32[2,3]{1,0} broadcast(z), dimensions={}\n"
		"  a = f32[2,3]{1,0} add(p, zb)\n"
		"  r = f32[2,3]{1,0} reshape(p)\n"
		"  c = f32[2,3]{1,0} copy(p)\n"
		"  t = f32[2,3]{1,0} transpose(p), dimensions={0,1}\n"
		"  ROOT o = (f32[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{1,0}, "
		"f32[2,3]{1,0}) tuple(a, r, c, t)\n"));
	Out o;
	simp(m, &o);
	assert_false(o.changed);
	out_free(&o);
	hlo_module_free(m);
}

static void test_side_effects_kept(void **state)
{
	(void)state;
	HloModule *m = load_text(
		ENTRY("  p = s32[4] parameter(0)\n"
		      "  k = s32[4] custom-call(p), custom_call_target=\"f\"\n"
		      "  z = s32[] constant(0)\n"
		      "  zb = s32[4] broadcast(z), dimensions={}\n"
		      "  m = s32[4] multiply(k, zb)\n"
		      "  ROOT n = s32[4] negate(m)\n"));
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "mul-zero-int"), 1);
	/* the custom-call lost its only user but stays */
	assert_non_null(hlo_comp_find(o.m->entry, "k"));
	assert_null(hlo_comp_find(o.m->entry, "m"));
	out_free(&o);
	hlo_module_free(m);
}

static void test_fusion_body_untouched(void **state)
{
	(void)state;
	HloModule *m =
		load_text("HloModule t\n\n"
			  "fused {\n  a = f32[4] parameter(0)\n"
			  "  z = f32[] constant(0)\n"
			  "  zb = f32[4] broadcast(z), dimensions={}\n"
			  "  ROOT s = f32[4] add(a, zb)\n}\n"
			  "ENTRY e {\n  p = f32[4] parameter(0)\n"
			  "  f = f32[4] fusion(p), kind=kLoop, calls=fused\n"
			  "  n = f32[4] negate(f)\n"
			  "  ROOT nn = f32[4] negate(n)\n}\n");
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "negate-negate"), 1);
	assert_int_equal(fired(&o, "add-zero"), 0);
	HloComp *fc = hlo_module_find_comp(o.m, "fused");
	assert_int_equal(fc->root->op, HLO_ADD);
	assert_int_equal(o.m->entry->root->op, HLO_FUSION);
	out_free(&o);
	hlo_module_free(m);
}

/* Reducers and other called computations are simplified too. */
static void test_called_computations(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\n"
		"red {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
		"  one = f32[] constant(1)\n  m = f32[] multiply(b, one)\n"
		"  ROOT s = f32[] add(a, m)\n}\n"
		"ENTRY e {\n  p = f32[4,3] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[4] reduce(p, z), dimensions={1}, "
		"to_apply=red\n}\n");
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "mul-one"), 1);
	HloComp *red = hlo_module_find_comp(o.m, "red");
	assert_int_equal(red->n, 3);
	assert_exact(m, o.m);
	out_free(&o);
	hlo_module_free(m);
}

/* Instructions named in control-predecessors stay, so the printed
 * module still loads. */
static void test_control_predecessors(void **state)
{
	(void)state;
	HloModule *m = load_text(
		ENTRY("  p = f32[4] parameter(0)\n"
		      "  n1 = f32[4] negate(p)\n"
		      "  n2 = f32[4] negate(n1)\n"
		      "  k = f32[4] exponential(p), control-predecessors={n1}\n"
		      "  ROOT t = (f32[4], f32[4]) tuple(n2, k)\n"));
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "negate-negate"), 1);
	assert_ptr_equal(o.m->entry->root->ops[0],
			 hlo_comp_find(o.m->entry, "p"));
	assert_non_null(hlo_comp_find(o.m->entry, "n1"));
	StrBuf b;
	sb_init(&b);
	print_module(&b, o.m, &print_opts_default);
	HloModule *back = load_text(sb_str(&b));
	hlo_module_free(back);
	sb_free(&b);
	out_free(&o);
	hlo_module_free(m);
}

/* ---- fixed point, clean-up, big modules --------------------------------- */

static void test_fixed_point(void **state)
{
	(void)state;
	HloModule *m = load_text(
		ENTRY("  p = f32[2,3] parameter(0)\n"
		      "  c1 = f32[2,3] copy(p)\n"
		      "  r = f32[6] reshape(c1)\n"
		      "  r2 = f32[2,3] reshape(r)\n"
		      "  t = f32[3,2] transpose(r2), dimensions={1,0}\n"
		      "  t2 = f32[2,3] transpose(t), dimensions={1,0}\n"
		      "  s = f32[2,3] slice(t2), slice={[0:2], [0:3]}\n"
		      "  c = f32[2,3] concatenate(s), dimensions={1}\n"
		      "  ROOT n = f32[2,3] negate(c)\n"));
	Out o;
	simp(m, &o);
	assert_true(o.changed);
	/* one application reaches the end of the chain */
	assert_int_equal(o.m->entry->n, 2);
	Out o2;
	simp(o.m, &o2);
	assert_false(o2.changed);
	assert_int_equal(o2.cx.nrules, 0);
	out_free(&o2);
	out_free(&o);
	hlo_module_free(m);
}

/* A long chain: one application resolves it and keeps the order. */
static void test_long_chain(void **state)
{
	(void)state;
	enum { N = 20000 };
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "HloModule big\n\nENTRY e {\n  v0 = f32[4,4] parameter(0)\n"
		    "  z = f32[] constant(0)\n"
		    "  zb = f32[4,4] broadcast(z), dimensions={}\n");
	for (int i = 1; i <= N; i++) {
		switch (i % 4) {
		case 0:
			sb_printf(&b, "  v%d = f32[4,4] negate(v%d)\n", i,
				  i - 1);
			break;
		case 1:
			sb_printf(&b, "  v%d = f32[16] reshape(v%d)\n", i,
				  i - 1);
			break;
		case 2:
			sb_printf(&b, "  v%d = f32[4,4] reshape(v%d)\n", i,
				  i - 1);
			break;
		default:
			sb_printf(&b, "  v%d = f32[4,4] add(v%d, zb)\n", i,
				  i - 1);
		}
	}
	sb_printf(&b, "  ROOT r = f32[4,4] negate(v%d)\n}\n", N);
	HloModule *m = load_text(sb_str(&b));
	sb_free(&b);
	Out o;
	simp(m, &o);
	/* N/4 negates pair up; reshapes and adds all go */
	assert_int_equal(fired(&o, "negate-negate"), N / 8);
	assert_int_equal(fired(&o, "add-zero"), N / 4);
	assert_int_equal(o.m->entry->n, 2);
	assert_int_equal(o.m->entry->root->op, HLO_NEGATE);
	assert_defs_first(o.m->entry);
	out_free(&o);
	hlo_module_free(m);
}

/* An operand with many users, most of them rewritten away: its user
 * list ends exact (removals past FEW_USERS are done in bulk). */
static void test_shared_operand(void **state)
{
	(void)state;
	enum { N = 100 };
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "HloModule shared\n\nENTRY e {\n"
		    "  p = f32[4] parameter(0)\n  z = f32[] constant(-0)\n"
		    "  zb = f32[4] broadcast(z), dimensions={}\n"
		    "  m = f32[4] multiply(p, zb)\n");
	for (int i = 0; i < N; i++)
		sb_printf(&b, "  a%d = f32[4] add(%s, zb)\n", i,
			  i % 2 ? "m" : "p");
	sb_puts(&b, "  ROOT t = (");
	for (int i = 0; i < N; i++)
		sb_printf(&b, "%sf32[4]", i ? ", " : "");
	sb_puts(&b, ") tuple(");
	for (int i = 0; i < N; i++)
		sb_printf(&b, "%sa%d", i ? ", " : "", i);
	sb_puts(&b, ")\n}\n");
	HloModule *m = load_text(sb_str(&b));
	sb_free(&b);
	Out o;
	simp(m, &o);
	assert_int_equal(fired(&o, "add-zero"), N);
	HloComp *e = o.m->entry;
	assert_int_equal(e->n, 5); /* p z zb m t */
	const HloInstr *zb = hlo_comp_find(e, "zb");
	assert_int_equal(zb->nusers, 1);
	assert_ptr_equal(zb->users[0], hlo_comp_find(e, "m"));
	const HloInstr *mm = hlo_comp_find(e, "m");
	assert_int_equal(mm->nusers, 1);
	assert_ptr_equal(mm->users[0], e->root);
	assert_int_equal(hlo_comp_find(e, "p")->nusers, 2);
	assert_exact(m, o.m);
	out_free(&o);
	hlo_module_free(m);
}

/* ---- the golden modules on special values ------------------------------ */

/* The HLO block of a transcript: from "HloModule" to the first command
 * after it (run, pass, input, expect, print). NULL if none. */
static char *module_of(const char *xr)
{
	const char *a = strstr(xr, "HloModule");
	if (!a)
		return NULL;
	const char *e = a;
	static const char *const cmds[] = {"\nrun ", "\npass ", "\ninput ",
					   "\nexpect ", "\nprint"};
	const char *end = a + strlen(a);
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		const char *c = strstr(e, cmds[i]);
		if (c && c < end)
			end = c + 1;
	}
	return strndup(a, (size_t)(end - a));
}

/* Every module of tests/passes/algsimp-*.xr, run on NaN, inf, -0,
 * denormals and integer extremes, gives the same bits after algsimp;
 * where a rule exact only up to the sign of zero fired, the same values
 * with -0 == +0. */
static void test_golden_modules_exact(void **state)
{
	(void)state;
	static const char *const sign_of_zero[] = {"add-zero", "sub-zero",
						   "dot-to-multiply",
						   "reduce-size1-to-reshape"};
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/passes", XR_SOURCE_DIR);
	DIR *d = opendir(dir);
	if (!d)
		skip();
	int checked = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (strncmp(de->d_name, "algsimp-", 8) || len < 4 ||
		    strcmp(de->d_name + len - 3, ".xr"))
			continue;
		size_t n;
		char *xr = slurp_in(dir, de->d_name, &n);
		char *text = xr ? module_of(xr) : NULL;
		free(xr);
		if (!text)
			continue;
		HloModule *m = load_text(text);
		free(text);
		Arena a;
		arena_init(&a);
		Diag dg;
		diag_init(&dg);
		int np = hlo_comp_param_count(m->entry);
		Literal **args = special_inputs(m, &a);
		InterpOpts io = {(int64_t)1 << 30, NULL};
		Literal *want = interp_run(m, args, np, &a, &io, &dg, NULL);
		if (want) { /* else an opcode the interpreter lacks */
			Out o;
			simp(m, &o);
			Literal *got =
				interp_run(o.m, args, np, &a, &io, &dg, NULL);
			bool loose = false;
			for (size_t k = 0; k < 4; k++)
				loose |= fired(&o, sign_of_zero[k]) > 0;
			CompareResult cr = {0};
			if (got)
				literal_compare(got, want, 0, &cr);
			if (!got || !(loose ? cr.ok : literal_equal(got, want)))
				fail_msg("%s: algsimp changed the values (%s)",
					 de->d_name, got ? "" : diag_text(&dg));
			out_free(&o);
			checked++;
		}
		diag_free(&dg);
		arena_free(&a);
		hlo_module_free(m);
	}
	closedir(d);
	print_message("golden modules checked on special values: %d\n",
		      checked);
	assert_true(checked >= 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic_identities),
		cmocka_unit_test(test_add_zero_sign_of_zero),
		cmocka_unit_test(test_integer_rules),
		cmocka_unit_test(test_shape_chains),
		cmocka_unit_test(test_dot_to_multiply),
		cmocka_unit_test(test_reduce_identity),
		cmocka_unit_test(test_convert_round_trips),
		cmocka_unit_test(test_select_and_logic),
		cmocka_unit_test(test_float_hazards_kept),
		cmocka_unit_test(test_layouts_differ),
		cmocka_unit_test(test_side_effects_kept),
		cmocka_unit_test(test_fusion_body_untouched),
		cmocka_unit_test(test_called_computations),
		cmocka_unit_test(test_control_predecessors),
		cmocka_unit_test(test_fixed_point),
		cmocka_unit_test(test_long_chain),
		cmocka_unit_test(test_shared_operand),
		cmocka_unit_test(test_golden_modules_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
