/* test_interp_reduce.c - reductions and sorting beyond the golden files:
 * sweeps of reduce (every subset of dimensions) and reduce-window (sizes,
 * strides, padding, dilations, a non-identity init) against the rules
 * written out here, a stable multi-operand sort against insertion sort,
 * a large variadic argmax, and interruption of long reductions. */
#include "testutil.h"

static const char add_s32[] = "add {\n"
			      "  a = s32[] parameter(0)\n"
			      "  b = s32[] parameter(1)\n"
			      "  ROOT s = s32[] add(a, b)\n"
			      "}\n";

/* reduce of s32[2,3,4] over each of the 8 subsets of its dimensions,
 * with a reducer called per element (acc - x, not a fast path) against
 * the in-order fold written out here. */
static void test_reduce_every_subset(void **state)
{
	(void)state;
	static const int64_t dims[3] = {2, 3, 4};
	for (int mask = 0; mask < 8; mask++) {
		char text[1024], dl[32] = "", sh[32] = "";
		int nk = 0;
		int64_t kdims[3];
		for (int d = 0; d < 3; d++) {
			char t[8];
			if (mask & 1 << d) {
				snprintf(t, sizeof t, "%s%d", *dl ? "," : "",
					 d);
				strcat(dl, t);
			} else {
				snprintf(t, sizeof t, "%s%lld", nk ? "," : "",
					 (long long)dims[d]);
				strcat(sh, t);
				kdims[nk++] = dims[d];
			}
		}
		snprintf(text, sizeof text,
			 "HloModule m\nsub {\n  a = s32[] parameter(0)\n"
			 "  b = s32[] parameter(1)\n"
			 "  ROOT s = s32[] subtract(a, b)\n}\n"
			 "ENTRY e {\n  p = s32[2,3,4] parameter(0)\n"
			 "  z = s32[] constant(1000)\n"
			 "  ROOT r = s32[%s] reduce(p, z), dimensions={%s}, "
			 "to_apply=sub\n}\n",
			 sh, dl);
		Run r;
		run_init(&r, text);
		for (int i = 0; i < 24; i++)
			literal_set_i64(r.args[0], i, i * i % 17);
		Literal *res = run_go(&r, NULL);
		if (!res)
			fail_msg("%s", diag_text(&r.d));
		int64_t want[24];
		int64_t nout = 1;
		for (int j = 0; j < nk; j++)
			nout *= kdims[j];
		for (int64_t o = 0; o < nout; o++)
			want[o] = 1000;
		/* row-major over the input is in-order over the reduced
		 * indices of every output element */
		for (int i = 0; i < 24; i++) {
			int idx[3] = {i / 12, i / 4 % 3, i % 4};
			int64_t o = 0;
			for (int d = 0; d < 3; d++)
				if (!(mask & 1 << d))
					o = o * dims[d] + idx[d];
			want[o] -= i * i % 17;
		}
		assert_int_equal(res->n, nout);
		for (int64_t o = 0; o < nout; o++)
			assert_int_equal(literal_get_i64(res, o), want[o]);
		run_free(&r);
	}
}

/* One reduce-window of s32[n] {1, 2, 4, ...} with add and init 100,
 * checked against the padded, dilated base written out here: padding
 * and base-dilation holes count as the init value. false when the
 * padding leaves nothing (no such case). */
static bool window_case(int n, int size, int stride, int lo, int hi, int ld,
			int rd)
{
	int base = (n - 1) * ld + 1 + lo + hi, win = (size - 1) * rd + 1;
	if (base < 0)
		return false;
	int nout = base >= win ? (base - win) / stride + 1 : 0;
	char text[1024];
	snprintf(text, sizeof text,
		 "HloModule m\n%sENTRY e {\n  p = s32[%d] parameter(0)\n"
		 "  z = s32[] constant(100)\n"
		 "  ROOT r = s32[%d] reduce-window(p, z), window={size=%d "
		 "stride=%d pad=%d_%d lhs_dilate=%d rhs_dilate=%d}, "
		 "to_apply=add\n}\n",
		 add_s32, n, nout, size, stride, lo, hi, ld, rd);
	Run r;
	run_init(&r, text);
	for (int i = 0; i < n; i++)
		literal_set_i64(r.args[0], i, 1 << i);
	Literal *res = run_go(&r, NULL);
	if (!res)
		fail_msg("%s\n%s", diag_text(&r.d), text);
	/* padded[j] = x[(j - lo) / ld] where that is a real element */
	for (int o = 0; o < nout; o++) {
		int64_t want = 100;
		for (int w = 0; w < size; w++) {
			int j = o * stride + w * rd - lo;
			bool real = j >= 0 && j % ld == 0 && j / ld < n;
			want += real ? 1 << (j / ld) : 100;
		}
		if (literal_get_i64(res, o) != want)
			fail_msg("case %s: out[%d] = %lld, want %lld", text, o,
				 (long long)literal_get_i64(res, o),
				 (long long)want);
	}
	run_free(&r);
	return true;
}

/* reduce-window over sizes, strides, padding (negative too) and both
 * dilations. */
static void test_reduce_window_sweep(void **state)
{
	(void)state;
	int cases = 0;
	for (int n = 1; n <= 4; n++)
		for (int size = 1; size <= 3; size++)
			for (int stride = 1; stride <= 2; stride++)
				for (int pad = 0; pad < 12; pad++)
					for (int dil = 0; dil < 4; dil++)
						cases += window_case(
							n, size, stride,
							pad / 3 - 1,
							pad % 3 - 1,
							dil / 2 + 1,
							dil % 2 + 1);
	assert_true(cases > 500);
}

/* A two-operand sort on keys only (LT) of length 0..70 with many equal
 * keys: the result is stable, as an insertion sort gives. */
static void test_sort_stable_sweep(void **state)
{
	(void)state;
	for (int n = 0; n <= 70; n += 7) {
		char text[1024];
		snprintf(text, sizeof text,
			 "HloModule m\nlt {\n  a = s32[] parameter(0)\n"
			 "  b = s32[] parameter(1)\n  c = s32[] parameter(2)\n"
			 "  d = s32[] parameter(3)\n"
			 "  ROOT l = pred[] compare(a, b), direction=LT\n}\n"
			 "ENTRY e {\n  k = s32[%d] parameter(0)\n"
			 "  v = s32[%d] parameter(1)\n"
			 "  ROOT r = (s32[%d], s32[%d]) sort(k, v), "
			 "dimensions={0}, is_stable=true, to_apply=lt\n}\n",
			 n, n, n, n);
		Run r;
		run_init(&r, text);
		int64_t key[80], val[80];
		for (int i = 0; i < n; i++) {
			key[i] = (i * 7919) % 5;
			val[i] = i;
			literal_set_i64(r.args[0], i, key[i]);
			literal_set_i64(r.args[1], i, val[i]);
		}
		for (int i = 1; i < n; i++) /* insertion sort: stable */
			for (int j = i; j > 0 && key[j] < key[j - 1]; j--) {
				int64_t t = key[j];
				key[j] = key[j - 1];
				key[j - 1] = t;
				t = val[j];
				val[j] = val[j - 1];
				val[j - 1] = t;
			}
		Literal *res = run_go(&r, NULL);
		if (!res)
			fail_msg("%s", diag_text(&r.d));
		for (int i = 0; i < n; i++) {
			assert_int_equal(literal_get_i64(res->tuple[0], i),
					 key[i]);
			assert_int_equal(literal_get_i64(res->tuple[1], i),
					 val[i]);
		}
		run_free(&r);
	}
}

static const char argmax_text[] =
	"HloModule m\nargmax {\n"
	"  av = f32[] parameter(0)\n  ai = s32[] parameter(1)\n"
	"  bv = f32[] parameter(2)\n  bi = s32[] parameter(3)\n"
	"  gt = pred[] compare(av, bv), direction=GT\n"
	"  eq = pred[] compare(av, bv), direction=EQ\n"
	"  lt = pred[] compare(ai, bi), direction=LT\n"
	"  tie = pred[] and(eq, lt)\n  keep = pred[] or(gt, tie)\n"
	"  v = f32[] select(keep, av, bv)\n  i = s32[] select(keep, ai, bi)\n"
	"  ROOT t = (f32[], s32[]) tuple(v, i)\n}\n"
	"ENTRY e {\n  v = f32[262144] parameter(0)\n"
	"  i = s32[262144] parameter(1)\n"
	"  lo = f32[] constant(-inf)\n  neg = s32[] constant(-1)\n"
	"  ROOT r = (f32[], s32[]) reduce(v, i, lo, neg), dimensions={0}, "
	"to_apply=argmax\n}\n";

/* A variadic argmax over 2^18 elements, the maximum appearing three
 * times: the first one wins. */
static void test_argmax_large(void **state)
{
	(void)state;
	Run r;
	run_init(&r, argmax_text);
	int64_t n = r.args[0]->n;
	for (int64_t i = 0; i < n; i++) {
		literal_set_f64(r.args[0], i, (double)(i * 37 % 1000));
		literal_set_i64(r.args[1], i, i);
	}
	literal_set_f64(r.args[0], 100001, 5000);
	literal_set_f64(r.args[0], 7, 4000);
	literal_set_f64(r.args[0], 200002, 5000);
	literal_set_f64(r.args[0], 250000, 5000);
	Literal *res = run_go(&r, NULL);
	if (!res)
		fail_msg("%s", diag_text(&r.d));
	assert_true(literal_get_f64(res->tuple[0], 0) == 5000);
	assert_int_equal(literal_get_i64(res->tuple[1], 0), 100001);
	run_free(&r);
}

/* Long reductions and sorts stop when interrupted. */
static void test_interrupted(void **state)
{
	(void)state;
	static const char *texts[] = {
		argmax_text,
		"HloModule m\nlt {\n  a = f32[] parameter(0)\n"
		"  b = f32[] parameter(1)\n"
		"  ROOT l = pred[] compare(a, b), direction=LT\n}\n"
		"ENTRY e {\n  p = f32[262144] parameter(0)\n"
		"  ROOT r = f32[262144] sort(p), dimensions={0}, "
		"to_apply=lt\n}\n",
		"HloModule m\nmax {\n  a = f32[] parameter(0)\n"
		"  b = f32[] parameter(1)\n"
		"  ROOT m = f32[] maximum(a, b)\n}\n"
		"ENTRY e {\n  p = f32[512,512] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[512,512] reduce-window(p, z), "
		"window={size=3x3 pad=1_1x1_1}, to_apply=max\n}\n",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		assert_interrupted(texts[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reduce_every_subset),
		cmocka_unit_test(test_reduce_window_sweep),
		cmocka_unit_test(test_sort_stable_sweep),
		cmocka_unit_test(test_argmax_large),
		cmocka_unit_test(test_interrupted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
