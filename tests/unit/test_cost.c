/* test_cost.c - the cost model on small modules whose flops and bytes are
 * worked out by hand in the comments (an elementwise chain, a batched
 * dot, convolutions, a reduce, fusions reading slices, a while, a
 * conditional), the roofline, and the whole corpus: no crash, no
 * negative figure, and the module's cost is the sum of its kernels'. */
#include <math.h>

#include "passes/cost.h"
#include "testutil.h"
#include "verify.h"

static const HloInstr *find(const HloModule *m, const char *name)
{
	for (int i = 0; i < m->ncomps; i++) {
		HloInstr *ins = hlo_comp_find(m->comps[i], name);
		if (ins)
			return ins;
	}
	fail_msg("no instruction %s", name);
	return NULL;
}

static void assert_cost(Cost c, double flops, double trans, int64_t rd,
			int64_t wr)
{
	if (c.flops != flops || c.transcendentals != trans ||
	    c.bytes_read != rd || c.bytes_written != wr)
		fail_msg("got flops=%g trans=%g read=%lld written=%lld, want "
			 "flops=%g trans=%g read=%lld written=%lld",
			 c.flops, c.transcendentals, (long long)c.bytes_read,
			 (long long)c.bytes_written, flops, trans,
			 (long long)rd, (long long)wr);
}

/* f32[4,8]: 32 elements, 128 bytes.
 *   e = exp(p)   32 flops, 32 transcendental, reads 128, writes 128
 *   a = add(e,p) 32 flops,                    reads 256, writes 128
 *   t = tanh(a)  32 flops, 32 transcendental, reads 128, writes 128
 *   c = copy(t)   0 flops,                    reads 128, writes 128 */
static void test_elementwise_chain(void **state)
{
	(void)state;
	HloModule *m = load_text("HloModule t\n\nENTRY e {\n"
				 "  p = f32[4,8] parameter(0)\n"
				 "  e = f32[4,8] exponential(p)\n"
				 "  a = f32[4,8] add(e, p)\n"
				 "  t = f32[4,8] tanh(a)\n"
				 "  ROOT c = f32[4,8] copy(t)\n"
				 "}\n");
	assert_cost(cost_instr(find(m, "e")), 32, 32, 128, 128);
	assert_cost(cost_instr(find(m, "a")), 32, 0, 256, 128);
	assert_cost(cost_instr(find(m, "c")), 0, 0, 128, 128);
	assert_cost(cost_instr(find(m, "p")), 0, 0, 0, 0);
	assert_cost(cost_module(m), 96, 64, 640, 512);
	assert_int_equal(cost_bytes_moved(m), 640 + 512);
	hlo_module_free(m);
}

/* Batched dot: [2,3,4] x [2,4,5] -> [2,3,5]: 2 * (2*3*5) * 4 = 240 flops;
 * reads (24 + 40) * 4 bytes, writes 30 * 4. */
static void test_dot(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\nENTRY e {\n"
		"  a = f32[2,3,4] parameter(0)\n"
		"  b = f32[2,4,5] parameter(1)\n"
		"  ROOT d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, "
		"lhs_contracting_dims={2}, rhs_batch_dims={0}, "
		"rhs_contracting_dims={1}\n"
		"}\n");
	assert_cost(cost_instr(find(m, "d")), 240, 0, 256, 120);
	hlo_module_free(m);
}

/* 3x3 convolution, 4 -> 16 features on an 8x8 image without padding:
 * 6x6x16 = 576 outputs, each 3*3*4 multiply-adds: 2 * 576 * 36 = 41472.
 * With feature_group_count=2 each output sees 4/2 input features:
 * 2 * 576 * 9 * 2 = 20736. */
static void test_convolution(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\nENTRY e {\n"
		"  x = f32[1,8,8,4] parameter(0)\n"
		"  k = f32[3,3,4,16] parameter(1)\n"
		"  kg = f32[3,3,2,16] parameter(2)\n"
		"  c = f32[1,6,6,16] convolution(x, k), window={size=3x3}, "
		"dim_labels=b01f_01io->b01f\n"
		"  g = f32[1,6,6,16] convolution(x, kg), window={size=3x3}, "
		"dim_labels=b01f_01io->b01f, feature_group_count=2\n"
		"  ROOT t = (f32[1,6,6,16], f32[1,6,6,16]) tuple(c, g)\n"
		"}\n");
	assert_cost(cost_instr(find(m, "c")), 41472, 0, (256 + 576) * 4,
		    576 * 4);
	assert_cost(cost_instr(find(m, "g")), 20736, 0, (256 + 288) * 4,
		    576 * 4);
	hlo_module_free(m);
}

/* reduce f32[16,8] over dim 1 with add: 128 inputs into 16 results,
 * 128 - 16 = 112 additions (k values combine in k - 1, as XLA's
 * HloCostAnalysis counts); reads the input (512) and the init value (4),
 * writes f32[16] (64). A reducer of two instructions (max then add)
 * doubles the flops; reduce-window of f32[8] with window 3 stride 1 ->
 * f32[6]: 6 * (3 - 1) * 1 flops. */
static void test_reduce(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\n"
		"add {\n"
		"  a = f32[] parameter(0)\n"
		"  b = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(a, b)\n"
		"}\n\n"
		"maxadd {\n"
		"  a = f32[] parameter(0)\n"
		"  b = f32[] parameter(1)\n"
		"  m = f32[] maximum(a, b)\n"
		"  ROOT s = f32[] add(m, b)\n"
		"}\n\n"
		"ENTRY e {\n"
		"  x = f32[16,8] parameter(0)\n"
		"  v = f32[8] parameter(1)\n"
		"  z = f32[] constant(0)\n"
		"  r = f32[16] reduce(x, z), dimensions={1}, "
		"to_apply=add\n"
		"  r2 = f32[16] reduce(x, z), dimensions={1}, "
		"to_apply=maxadd\n"
		"  w = f32[6] reduce-window(v, z), window={size=3}, "
		"to_apply=add\n"
		"  ROOT t = (f32[16], f32[16], f32[6]) tuple(r, r2, w)\n"
		"}\n");
	assert_cost(cost_instr(find(m, "r")), 112, 0, 516, 64);
	assert_cost(cost_instr(find(m, "r2")), 224, 0, 516, 64);
	assert_cost(cost_instr(find(m, "w")), 12, 0, 36, 24);
	/* the module: the three kernels; constant and tuple cost nothing */
	assert_cost(cost_module(m), 112 + 224 + 12, 0, 516 * 2 + 36,
		    64 * 2 + 24);
	hlo_module_free(m);
}

/* A fusion whose first operand (f32[100], 400 bytes) is only sliced
 * (10 elements) and dynamic-sliced (5 elements): it reads 60 bytes of
 * it, plus the s32[] index whole (4); its second operand is used whole
 * (f32[15], 60 bytes); its third is never used (0). Flops: exp of 10
 * (10 + 10 transcendental), add of 15 (concatenate: none). Writes
 * f32[15]. The same slice unfused reads only its 40 bytes too. */
static void test_fusion_slices(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\n"
		"fused {\n"
		"  p0 = f32[100] parameter(0)\n"
		"  i = s32[] parameter(1)\n"
		"  p2 = f32[15] parameter(2)\n"
		"  p3 = f32[64] parameter(3)\n"
		"  s = f32[10] slice(p0), slice={[0:10]}\n"
		"  e = f32[10] exponential(s)\n"
		"  d = f32[5] dynamic-slice(p0, i), dynamic_slice_sizes={5}\n"
		"  c = f32[15] concatenate(e, d), dimensions={0}\n"
		"  ROOT a = f32[15] add(c, p2)\n"
		"}\n\n"
		"ENTRY e {\n"
		"  x = f32[100] parameter(0)\n"
		"  i = s32[] parameter(1)\n"
		"  y = f32[15] parameter(2)\n"
		"  u = f32[64] parameter(3)\n"
		"  f = f32[15] fusion(x, i, y, u), kind=kLoop, calls=fused\n"
		"  s = f32[10] slice(x), slice={[10:20]}\n"
		"  ROOT t = (f32[15], f32[10]) tuple(f, s)\n"
		"}\n");
	const HloInstr *f = find(m, "f");
	assert_int_equal(cost_operand_bytes(f, 0), 60);
	assert_int_equal(cost_operand_bytes(f, 1), 4);
	assert_int_equal(cost_operand_bytes(f, 2), 60);
	assert_int_equal(cost_operand_bytes(f, 3), 0);
	assert_cost(cost_instr(f), 25, 10, 124, 60);
	/* what each fused instruction adds */
	HloComp *fc = hlo_attr_comp(f, A_CALLS);
	assert_cost(cost_flops(hlo_comp_find(fc, "e")), 10, 10, 0, 0);
	assert_cost(cost_flops(hlo_comp_find(fc, "c")), 0, 0, 0, 0);
	assert_cost(cost_instr(hlo_comp_find(m->entry, "s")), 0, 0, 40, 40);
	hlo_module_free(m);
}

/* A gather reads what it returns of its operand, fused as unfused: an
 * embedding lookup of 8 rows of 64 from a [1000,64] table reads 2 KiB of
 * the table, not 250 KiB (fusion made the embedding example cost more
 * bytes than before it). The indices are read whole. */
static void test_fusion_gather(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\n"
		"fused {\n"
		"  t = f32[1000,64] parameter(0)\n"
		"  i = s32[8,1] parameter(1)\n"
		"  g = f32[8,64] gather(t, i), offset_dims={1}, "
		"collapsed_slice_dims={0}, start_index_map={0}, "
		"index_vector_dim=1, slice_sizes={1,64}\n"
		"  ROOT e = f32[8,64] exponential(g)\n"
		"}\n\n"
		"ENTRY e {\n"
		"  t = f32[1000,64] parameter(0)\n"
		"  i = s32[8,1] parameter(1)\n"
		"  f = f32[8,64] fusion(t, i), kind=kLoop, calls=fused\n"
		"  g = f32[8,64] gather(t, i), offset_dims={1}, "
		"collapsed_slice_dims={0}, start_index_map={0}, "
		"index_vector_dim=1, slice_sizes={1,64}\n"
		"  ROOT r = (f32[8,64], f32[8,64]) tuple(f, g)\n"
		"}\n");
	const HloInstr *f = find(m, "f"), *g = find(m, "g");
	assert_int_equal(cost_operand_bytes(g, 0), 8 * 64 * 4);
	assert_int_equal(cost_operand_bytes(f, 0), 8 * 64 * 4);
	assert_int_equal(cost_operand_bytes(f, 1), 32);
	hlo_module_free(m);
}

/* A parameter that is also used whole (here by the root) is read
 * whole, even when a slice reads part of it too; a multi-output fusion
 * writes both of its results. */
static void test_fusion_whole_and_tuple(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\n"
		"fused {\n"
		"  p0 = f32[100] parameter(0)\n"
		"  s = f32[10] slice(p0), slice={[0:10]}\n"
		"  n = f32[100] negate(p0)\n"
		"  ROOT t = (f32[10], f32[100]) tuple(s, n)\n"
		"}\n\n"
		"ENTRY e {\n"
		"  x = f32[100] parameter(0)\n"
		"  ROOT f = (f32[10], f32[100]) fusion(x), kind=kLoop, "
		"calls=fused\n"
		"}\n");
	assert_cost(cost_instr(find(m, "f")), 100, 0, 400, 440);
	hlo_module_free(m);
}

/* A while whose counter goes from 0 while < 10 by 1: its body 10 times,
 * its condition 11; started from a parameter, each once (not known).
 *   body: i1 = add(i, 1)       s32[]: 1 flop, reads 8, writes 4
 *         x2 = multiply(x, x)  f32[8]: 8 flops, reads 64, writes 32
 *   cond: compare(i, 10)       1 flop, reads 8, writes 1 (pred)
 * A call: its computation's kernels. */
static void test_while_and_call(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\n"
		"body {\n"
		"  p = (s32[], f32[8]) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  x = f32[8] get-tuple-element(p), index=1\n"
		"  one = s32[] constant(1)\n"
		"  i1 = s32[] add(i, one)\n"
		"  x2 = f32[8] multiply(x, x)\n"
		"  ROOT t = (s32[], f32[8]) tuple(i1, x2)\n"
		"}\n\n"
		"cond {\n"
		"  p = (s32[], f32[8]) parameter(0)\n"
		"  i = s32[] get-tuple-element(p), index=0\n"
		"  ten = s32[] constant(10)\n"
		"  ROOT lt = pred[] compare(i, ten), direction=LT\n"
		"}\n\n"
		"sq {\n"
		"  a = f32[8] parameter(0)\n"
		"  ROOT m = f32[8] multiply(a, a)\n"
		"}\n\n"
		"ENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  c = f32[8] call(x), to_apply=sq\n"
		"  z = s32[] constant(0)\n"
		"  init = (s32[], f32[8]) tuple(z, c)\n"
		"  w = (s32[], f32[8]) while(init), condition=cond, "
		"body=body\n"
		"  s = s32[] parameter(1)\n"
		"  init2 = (s32[], f32[8]) tuple(s, c)\n"
		"  ROOT w2 = (s32[], f32[8]) while(init2), condition=cond, "
		"body=body\n"
		"}\n");
	assert_int_equal(cost_trip_count(find(m, "w"), NULL, 0), 10);
	assert_cost(cost_instr(find(m, "w")), 9 * 10 + 11, 0, 72 * 10 + 8 * 11,
		    36 * 10 + 11);
	assert_int_equal(cost_trip_count(find(m, "w2"), NULL, 0), -1);
	assert_cost(cost_instr(find(m, "w2")), 10, 0, 80, 37);
	assert_cost(cost_instr(find(m, "c")), 8, 0, 64, 32);
	assert_cost(cost_module(m), 8 + 101 + 10, 0, 64 + 808 + 80,
		    32 + 371 + 37);
	hlo_module_free(m);
}

/* --- trip counts: worked out against a simulation and the interpreter */

typedef struct {
	const char *name;
	int bits;
	bool sgn;
} LoopType;

static bool fits(const LoopType *t, int64_t v)
{
	if (t->bits == 64)
		return t->sgn || v >= 0;
	int64_t lo = t->sgn ? -((int64_t)1 << (t->bits - 1)) : 0;
	int64_t hi = t->sgn ? ((int64_t)1 << (t->bits - 1)) - 1
			    : ((int64_t)1 << t->bits) - 1;
	return v >= lo && v <= hi;
}

static bool holds(const char *dir, int64_t a, int64_t b)
{
	return !strcmp(dir, "LT")   ? a < b
	       : !strcmp(dir, "LE") ? a <= b
	       : !strcmp(dir, "GT") ? a > b
	       : !strcmp(dir, "GE") ? a >= b
	       : !strcmp(dir, "EQ") ? a == b
				    : a != b;
}

/* Body runs of the loop, -1 when its counter leaves its type (wraps),
 * LONG_LOOP when it runs past 5000 (endless, or too long to follow). */
#define LONG_LOOP (-2)

static int64_t simulate(const LoopType *t, const char *dir, bool swap,
			int64_t c0, int64_t n, int64_t step)
{
	int64_t i = c0, runs = 0;
	while (swap ? holds(dir, n, i) : holds(dir, i, n)) {
		if (++runs > 5000)
			return LONG_LOOP;
		if (__builtin_add_overflow(i, step, &i) || !fits(t, i))
			return -1;
	}
	return runs;
}

/* Loops `for (i = c0; i DIR n (or n DIR i); i += step)` over integer
 * types, directions, starts and bounds near the types' limits: the
 * trip count is the simulation's, -1 exactly when the simulation wraps
 * (past 5000 runs, where it stops following: -1 or more than 5000);
 * and the interpreter runs the body that many times (a second element
 * of the state counts the runs). */
static void test_trip_counts(void **state)
{
	(void)state;
	static const LoopType types[] = {{"s8", 8, true},   {"u8", 8, false},
					 {"s32", 32, true}, {"u32", 32, false},
					 {"s64", 64, true}, {"u64", 64, false}};
	static const char *const dirs[] = {"LT", "LE", "GT", "GE", "EQ", "NE"};
	int known = 0, cases = 0;
	for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++) {
		const LoopType *t = &types[ti];
		int64_t max = t->bits == 64 ? INT64_MAX
			      : t->sgn      ? ((int64_t)1 << (t->bits - 1)) - 1
					    : ((int64_t)1 << t->bits) - 1;
		int64_t min = !t->sgn ? 0
			      : t->bits == 64 ? INT64_MIN
					      : -((int64_t)1 << (t->bits - 1));
		const int64_t starts[] = {0, 7, -5, max - 4, min};
		const int64_t bounds[] = {10, -3, max, min, 0};
		const int64_t steps[] = {1, 3, -1, -2, 0};
		for (size_t di = 0; di < 6; di++)
			for (int k = 0; k < 5 * 5 * 5 * 2; k++) {
				int64_t c0 = starts[k % 5],
					n = bounds[k / 5 % 5],
					step = steps[k / 25 % 5];
				bool swap = k / 125;
				bool sub = step < 0 && (!t->sgn || k % 2);
				bool in_state = k % 3 == 0;
				if (!fits(t, c0) || !fits(t, n) ||
				    !fits(t, sub ? -step : step))
					continue;
				cases++;
				const char *dir = dirs[di], *ty = t->name;
				char bound[96], text[2048];
				if (in_state)
					snprintf(bound, sizeof bound,
						 "n = %s[] get-tuple-element(p), "
						 "index=2", ty);
				else /* a constant of the condition's own */
					snprintf(bound, sizeof bound,
						 "n = %s[] constant(%lld)", ty,
						 (long long)n);
				snprintf(
					text, sizeof text,
					"HloModule t\n\n"
					"cond {\n"
					"  p = (%s[], s64[], %s[]) parameter(0)\n"
					"  i = %s[] get-tuple-element(p), index=0\n"
					"  %s\n"
					"  ROOT c = pred[] compare(%s, %s), "
					"direction=%s\n"
					"}\n\n"
					"body {\n"
					"  p = (%s[], s64[], %s[]) parameter(0)\n"
					"  i = %s[] get-tuple-element(p), index=0\n"
					"  r = s64[] get-tuple-element(p), index=1\n"
					"  n = %s[] get-tuple-element(p), index=2\n"
					"  s = %s[] constant(%lld)\n"
					"  i1 = %s[] %s(i, s)\n"
					"  one = s64[] constant(1)\n"
					"  r1 = s64[] add(r, one)\n"
					"  ROOT t = (%s[], s64[], %s[]) tuple(i1, r1, n)\n"
					"}\n\n"
					"ENTRY e {\n"
					"  c0 = %s[] constant(%lld)\n"
					"  z = s64[] constant(0)\n"
					"  n = %s[] constant(%lld)\n"
					"  init = (%s[], s64[], %s[]) tuple(c0, z, n)\n"
					"  w = (%s[], s64[], %s[]) while(init), "
					"condition=cond, body=body\n"
					"  ROOT runs = s64[] get-tuple-element(w), "
					"index=1\n"
					"}\n",
					ty, ty, ty, bound, swap ? "n" : "i",
					swap ? "i" : "n", dir, ty, ty, ty, ty, ty,
					(long long)(sub ? -step : step), ty,
					sub ? "subtract" : "add", ty, ty, ty,
					(long long)c0, ty, (long long)n, ty, ty,
					ty, ty);
				HloModule *m = load_text(text);
				int64_t want = simulate(t, dir, swap, c0, n,
							step);
				char how[160];
				int64_t got = cost_trip_count(find(m, "w"), how,
							      sizeof how);
				/* past 5000: endless (-1), or as many runs
				 * as the simulation did not follow */
				if (want == LONG_LOOP && (got == -1 || got > 5000))
					want = got;
				if (got != want)
					fail_msg("%s %s %s%s c0=%lld n=%lld "
						 "step=%lld: trip count %lld, "
						 "simulated %lld\n%s",
						 ty, dir, swap ? "swapped " : "",
						 sub ? "subtract" : "add",
						 (long long)c0, (long long)n,
						 (long long)step, (long long)got,
						 (long long)want, text);
				if (got >= 0 && got <= 5000) {
					known++;
					assert_true(how[0] != 0);
					Arena a;
					arena_init(&a);
					Literal *r = interp_ok(m, NULL, &a);
					assert_int_equal(literal_get_i64(r, 0),
							 got);
					arena_free(&a);
				}
				hlo_module_free(m);
			}
	}
	/* most of them end without wrapping */
	assert_true(known > cases / 4);
	print_message("trip counts: %d loops, %d known\n", cases, known);
}

/* A loop that runs INT64_MAX times (said so, or counted from INT64_MIN
 * below -1): its condition's INT64_MAX + 1 runs do not fit, so the trip
 * count is not known and the loop is counted once (the sum overflowed,
 * an abort under UBSan). */
static void test_trip_count_limits(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\n"
		"c {\n  p = s64[] parameter(0)\n  n = s64[] constant(-1)\n"
		"  ROOT lt = pred[] compare(p, n), direction=LT\n}\n\n"
		"b {\n  p = s64[] parameter(0)\n  one = s64[] constant(1)\n"
		"  ROOT a = s64[] add(p, one)\n}\n\n"
		"ENTRY e {\n"
		"  lo = s64[] constant(-9223372036854775808)\n"
		"  w = s64[] while(lo), condition=c, body=b\n"
		"  z = s64[] constant(0)\n"
		"  ROOT k = s64[] while(z), condition=c, body=b, "
		"backend_config={\"known_trip_count\":{\"n\":"
		"\"9223372036854775807\"}}\n"
		"}\n");
	assert_int_equal(cost_trip_count(find(m, "w"), NULL, 0), -1);
	assert_int_equal(cost_trip_count(find(m, "k"), NULL, 0), -1);
	assert_cost(cost_instr(find(m, "w")), 2, 0, 32, 9);
	assert_cost(cost_instr(find(m, "k")), 2, 0, 32, 9);
	hlo_module_free(m);
}

/* Flops as XLA's HloCostAnalysis gives them for the same modules
 * (jaxlib's hlo_module_cost_analysis, read once and written here):
 * a 3x3 convolution with padding 1 counts only the taps on input
 * (100352, not 2*2*10*10*8*9*4 = 115200); with lhs_dilate=2 only the
 * taps on real elements (15488, not 56448); fft of c64[8,16], length
 * 16: 8 * 128 * 4 = 4096; triangular-solve of b f32[16,8] by a 16x16:
 * 2 * 128 * 16 = 4096; select-and-scatter of 200 sources over 2x2
 * windows: 200 * (3 selects + 1 add) = 800. */
static void test_xla_figures(void **state)
{
	(void)state;
	static const struct {
		const char *body;
		double flops;
	} cases[] = {
		{"  a = f32[2,10,10,4] parameter(0)\n"
		 "  k = f32[3,3,4,8] parameter(1)\n"
		 "  ROOT r = f32[2,10,10,8] convolution(a, k), window={size=3x3 "
		 "pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n",
		 100352},
		{"  a = f32[2,5,5,4] parameter(0)\n"
		 "  k = f32[3,3,4,8] parameter(1)\n"
		 "  ROOT r = f32[2,7,7,8] convolution(a, k), window={size=3x3 "
		 "lhs_dilate=2x2}, dim_labels=b01f_01io->b01f\n",
		 15488},
		{"  a = c64[8,16] parameter(0)\n"
		 "  ROOT r = c64[8,16] fft(a), fft_type=FFT, fft_length={16}\n",
		 4096},
		{"  a = f32[16,16] parameter(0)\n  b = f32[16,8] parameter(1)\n"
		 "  ROOT r = f32[16,8] triangular-solve(a, b), left_side=true, "
		 "lower=true, transpose_a=NO_TRANSPOSE\n",
		 4096},
		{"  a = f32[2,10,10,4] parameter(0)\n"
		 "  s = f32[2,5,5,4] parameter(1)\n  z = f32[] constant(0)\n"
		 "  ROOT r = f32[2,10,10,4] select-and-scatter(a, s, z), "
		 "window={size=1x2x2x1 stride=1x2x2x1}, select=ge, "
		 "scatter=add\n",
		 800},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[1024];
		snprintf(text, sizeof text,
			 "HloModule t\n\nge {\n  x = f32[] parameter(0)\n"
			 "  y = f32[] parameter(1)\n"
			 "  ROOT c = pred[] compare(x, y), direction=GE\n}\n\n"
			 "add {\n  x = f32[] parameter(0)\n"
			 "  y = f32[] parameter(1)\n"
			 "  ROOT s = f32[] add(x, y)\n}\n\nENTRY e {\n%s}\n",
			 cases[i].body);
		HloModule *m = load_text(text);
		Cost c = cost_instr(m->entry->root);
		if (c.flops != cases[i].flops)
			fail_msg("case %zu: %g flops, XLA counts %g", i, c.flops,
				 cases[i].flops);
		hlo_module_free(m);
	}
}

/* Bytes as XLA counts an update in place: a scatter of 8 rows of 16
 * into f32[32,16] reads the 8 updated rows of the operand (512), the
 * indices (32) and the updates (512), writes the 8 rows (512); a fusion
 * whose root is a dynamic-update-slice of its parameter reads the
 * update's source (64) and the indices (4), writes the update (64). */
static void test_in_place_bytes(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n\n"
		"add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(x, y)\n}\n\n"
		"fused {\n  x = f32[64,16] parameter(0)\n"
		"  u = f32[1,16] parameter(1)\n  i = s32[] parameter(2)\n"
		"  z = s32[] constant(0)\n  n = f32[1,16] negate(u)\n"
		"  ROOT d = f32[64,16] dynamic-update-slice(x, n, i, z)\n}\n\n"
		"ENTRY e {\n  a = f32[32,16] parameter(0)\n"
		"  i = s32[8,1] parameter(1)\n  u = f32[8,16] parameter(2)\n"
		"  sc = f32[32,16] scatter(a, i, u), update_window_dims={1}, "
		"inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
		"index_vector_dim=1, to_apply=add\n"
		"  x = f32[64,16] parameter(3)\n  v = f32[1,16] parameter(4)\n"
		"  j = s32[] parameter(5)\n"
		"  f = f32[64,16] fusion(x, v, j), kind=kLoop, calls=fused\n"
		"  ROOT t = (f32[32,16], f32[64,16]) tuple(sc, f)\n}\n");
	assert_cost(cost_instr(find(m, "sc")), 128, 0, 512 + 32 + 512, 512);
	assert_cost(cost_instr(find(m, "f")), 16, 0, 64 + 4, 64);
	hlo_module_free(m);
}

/* A conditional: each figure from its most expensive branch (only one
 * runs): branch a is exp of f32[4] (4 flops, 4 transcendental, 16 read,
 * 16 written), branch b two adds (8 flops, 64 read, 32 written). */
static void test_conditional(void **state)
{
	(void)state;
	HloModule *m = load_text("HloModule t\n\n"
				 "ba {\n"
				 "  x = f32[4] parameter(0)\n"
				 "  ROOT e = f32[4] exponential(x)\n"
				 "}\n\n"
				 "bb {\n"
				 "  x = f32[4] parameter(0)\n"
				 "  a = f32[4] add(x, x)\n"
				 "  ROOT b = f32[4] add(a, x)\n"
				 "}\n\n"
				 "ENTRY e {\n"
				 "  k = s32[] parameter(0)\n"
				 "  x = f32[4] parameter(1)\n"
				 "  ROOT c = f32[4] conditional(k, x, x), "
				 "branch_computations={ba, bb}\n"
				 "}\n");
	assert_cost(cost_instr(find(m, "c")), 8, 4, 64, 32);
	hlo_module_free(m);
}

static int64_t verified_bytes(HloModule *m)
{
	Diag d;
	diag_init(&d);
	assert_true(verify_module_changed(m, &d, NULL, NULL));
	diag_free(&d);
	return cost_bytes_moved_verified(m);
}

/* The bytes reused after a verification are those worked out afresh:
 * with nothing changed, and after a broadcast reads a bigger operand
 * (its signature moved: worked out again).
 *   b = broadcast(x)  reads 4,   writes 128
 *   n = negate(b)     reads 128, writes 128
 * then b = broadcast(y), y f32[8]: reads 32. */
static void test_bytes_after_verify(void **state)
{
	(void)state;
	HloModule *m = load_text("HloModule t\n\nENTRY e {\n"
				 "  x = f32[] parameter(0)\n"
				 "  y = f32[8] parameter(1)\n"
				 "  b = f32[4,8] broadcast(x), dimensions={}\n"
				 "  ROOT n = f32[4,8] negate(b)\n"
				 "}\n");
	for (int k = 0; k < 2; k++) {
		assert_int_equal(verified_bytes(m), 4 + 128 + 128 + 128);
		assert_int_equal(cost_bytes_moved(m), 4 + 128 + 128 + 128);
	}
	HloInstr *b = (HloInstr *)find(m, "b");
	hlo_set_operand(b, 0, (HloInstr *)find(m, "y"));
	HloAttr *dims = hlo_attr_set(b, A_DIMENSIONS, NULL);
	int64_t *v = arena_alloc(&m->arena, sizeof *v);
	assert_non_null(v);
	v[0] = 1;
	dims->u.ints.n = 1;
	dims->u.ints.v = v;
	for (int k = 0; k < 2; k++) {
		assert_int_equal(verified_bytes(m), 32 + 128 + 128 + 128);
		assert_int_equal(cost_bytes_moved(m), 32 + 128 + 128 + 128);
	}
	hlo_module_free(m);
}

/* The bytes with the kernel count from the same walk: the count is
 * hlo_module_kernels' (parameters, constants, tuples, get-tuple-elements
 * and bitcasts launch nothing; the halves of an async pair after the
 * start move no bytes but are kernels). */
static void test_bytes_and_kernels(void **state)
{
	(void)state;
	HloModule *m = load_text("HloModule t\n\nENTRY e {\n"
				 "  x = f32[] parameter(0)\n"
				 "  c = f32[] constant(1)\n"
				 "  b = f32[4,8] broadcast(x), dimensions={}\n"
				 "  n = f32[4,8] negate(b)\n"
				 "  t = (f32[4,8], f32[]) tuple(n, c)\n"
				 "  g = f32[4,8] get-tuple-element(t), index=0\n"
				 "  ROOT k = f32[4,8] bitcast(g)\n"
				 "}\n");
	int k = -1;
	assert_int_equal(cost_bytes_moved_kernels(m, &k), cost_bytes_moved(m));
	assert_int_equal(k, hlo_module_kernels(m));
	assert_int_equal(k, 2);
	Diag d;
	diag_init(&d);
	assert_true(verify_module_changed(m, &d, NULL, NULL));
	diag_free(&d);
	for (int i = 0; i < 2; i++) {
		k = -1;
		assert_int_equal(cost_bytes_moved_verified_kernels(m, &k),
				 cost_bytes_moved(m));
		assert_int_equal(k, 2);
	}
	assert_int_equal(cost_bytes_moved_kernels(m, NULL), cost_bytes_moved(m));
	hlo_module_free(m);
}

/* dynamic-update-slice updates in place: reads the update (and the
 * index), writes the update. */
static void test_dynamic_update_slice(void **state)
{
	(void)state;
	HloModule *m =
		load_text("HloModule t\n\nENTRY e {\n"
			  "  b = f32[100] parameter(0)\n"
			  "  u = f32[10] parameter(1)\n"
			  "  i = s32[] parameter(2)\n"
			  "  ROOT d = f32[100] dynamic-update-slice(b, u, i)\n"
			  "}\n");
	assert_cost(cost_instr(find(m, "d")), 0, 0, 44, 40);
	hlo_module_free(m);
}

static void test_roofline(void **state)
{
	(void)state;
	CostMachine mc = {"test", 10, 100}; /* 10 GB/s, 100 GFLOP/s */
	Cost c = {1e9, 0, 600000000, 400000000};
	bool mem = false;
	/* 1e9 bytes / 1e10 B/s = 0.1 s; 1e9 flops / 1e11 = 0.01 s */
	assert_true(fabs(cost_roofline_s(&c, &mc, &mem) - 0.1) < 1e-12);
	assert_true(mem);
	c.flops = 1e11; /* 1 s of compute */
	assert_true(fabs(cost_roofline_s(&c, &mc, &mem) - 1.0) < 1e-12);
	assert_false(mem);
	assert_true(fabs(cost_intensity(&c) - 100.0) < 1e-12);
	Cost none = {0};
	assert_true(cost_roofline_s(&none, &mc, NULL) == 0);
	assert_true(cost_intensity(&none) == 0);
}

/* --- the corpus ----------------------------------------------------------- */

static bool same_cost(Cost a, Cost b)
{
	return fabs(a.flops - b.flops) <= 1e-9 * fabs(a.flops) &&
	       fabs(a.transcendentals - b.transcendentals) <=
		       1e-9 * fabs(a.transcendentals) &&
	       a.bytes_read == b.bytes_read &&
	       a.bytes_written == b.bytes_written;
}

/* Returns a malloc'd failure message or NULL. */
static char *check_module(const HloModule *m)
{
	char buf[256];
	Cost sum = {0};
	for (int i = 0; m->entry && i < m->entry->n; i++) {
		Cost c = cost_instr(m->entry->instrs[i]);
		if (!(c.flops >= 0) || !(c.transcendentals >= 0) ||
		    !(c.transcendentals <= c.flops) || c.bytes_read < 0 ||
		    c.bytes_written < 0) {
			snprintf(buf, sizeof buf, "%s: bad cost",
				 m->entry->instrs[i]->name);
			return strdup(buf);
		}
		sum.flops += c.flops;
		sum.transcendentals += c.transcendentals;
		sum.bytes_read += c.bytes_read;
		sum.bytes_written += c.bytes_written;
	}
	Cost all = cost_module(m);
	if (!same_cost(sum, all)) {
		snprintf(buf, sizeof buf,
			 "module %g flops %lld bytes, kernels sum to %g, %lld",
			 all.flops,
			 (long long)(all.bytes_read + all.bytes_written),
			 sum.flops,
			 (long long)(sum.bytes_read + sum.bytes_written));
		return strdup(buf);
	}
	return NULL;
}

typedef struct Tally {
	int failed;
	double flops;
} Tally;

static bool check_one(const char *name, HloModule *m, void *ctx)
{
	Tally *t = ctx;
	char *msg = check_module(m);
	t->flops += cost_module(m).flops;
	t->failed += tally_fail(name, msg);
	hlo_module_free(m);
	return true;
}

static void test_corpus(void **state)
{
	(void)state;
	Tally t = {0};
	CorpusCount n = corpus_each(check_one, &t);
	print_message("cost: %d modules, %d costed, %d failed, %.3g flops\n",
		      n.listed, n.loaded, t.failed, t.flops);
	assert_true(n.listed >= 396);
	assert_true(n.loaded >= 390); /* a handful are invalid on purpose */
	assert_int_equal(t.failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elementwise_chain),
		cmocka_unit_test(test_dot),
		cmocka_unit_test(test_convolution),
		cmocka_unit_test(test_reduce),
		cmocka_unit_test(test_fusion_slices),
		cmocka_unit_test(test_fusion_gather),
		cmocka_unit_test(test_fusion_whole_and_tuple),
		cmocka_unit_test(test_while_and_call),
		cmocka_unit_test(test_trip_counts),
		cmocka_unit_test(test_xla_figures),
		cmocka_unit_test(test_in_place_bytes),
		cmocka_unit_test(test_trip_count_limits),
		cmocka_unit_test(test_conditional),
		cmocka_unit_test(test_dynamic_update_slice),
		cmocka_unit_test(test_bytes_after_verify),
		cmocka_unit_test(test_bytes_and_kernels),
		cmocka_unit_test(test_roofline),
		cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
