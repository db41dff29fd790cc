/* test_interp_data.c - data-movement evaluators beyond the golden files:
 * sweeps of pad and dynamic-slice edges against the rule written out
 * here, two independent paths that must agree (bitcast across layouts
 * vs transpose), a large scatter checked element by element, and
 * interruption of single long operations. */
#include "testutil.h"

/* pad of s32[n] with every lo/hi in [-4, 4] and interior in [0, 2],
 * against out[j] = x[(j - lo) / step] when j - lo is a non-negative
 * multiple of step below n * step, else the padding value. */
static void test_pad_sweep(void **state)
{
	(void)state;
	char text[512];
	int cases = 0;
	for (int n = 0; n <= 3; n++)
		for (int lo = -4; lo <= 4; lo++)
			for (int hi = -4; hi <= 4; hi++)
				for (int in = 0; in <= 2; in++) {
					int step = in + 1;
					int len = n + (n ? (n - 1) * in : 0) +
						  lo + hi;
					if (len < 0)
						continue;
					snprintf(
						text, sizeof text,
						"HloModule m\nENTRY e {\n"
						"  p = s32[%d] parameter(0)\n"
						"  v = s32[] parameter(1)\n"
						"  ROOT r = s32[%d] pad(p, v), "
						"padding=%d_%d_%d\n}\n",
						n, len, lo, hi, in);
					Run r;
					run_init(&r, text);
					for (int i = 0; i < n; i++)
						literal_set_i64(r.args[0], i,
								10 + i);
					literal_set_i64(r.args[1], 0, -1);
					Literal *out = run_go(&r, NULL);
					assert_non_null(out);
					for (int j = 0; j < len; j++) {
						int k = j - lo, want = -1;
						if (k >= 0 && k % step == 0 &&
						    k / step < n)
							want = 10 + k / step;
						if (literal_get_i64(out, j) !=
						    want)
							fail_msg(
								"%s: element "
								"%d is "
								"%lld, want %d",
								text, j,
								(long long)literal_get_i64(
									out, j),
								want);
					}
					run_free(&r);
					cases++;
				}
	assert_true(cases > 300);
}

/* dynamic-slice and dynamic-update-slice of s32[6] for every size and
 * a start range well past both ends: the start is clamped into
 * [0, 6 - size]. */
static void test_dynamic_slice_clamp_sweep(void **state)
{
	(void)state;
	char text[512];
	for (int size = 0; size <= 6; size++) {
		snprintf(text, sizeof text,
			 "HloModule m\nENTRY e {\n"
			 "  p = s32[6] parameter(0)\n"
			 "  u = s32[%d] parameter(1)\n"
			 "  i = s32[] parameter(2)\n"
			 "  d = s32[%d] dynamic-slice(p, i), "
			 "dynamic_slice_sizes={%d}\n"
			 "  w = s32[6] dynamic-update-slice(p, u, i)\n"
			 "  ROOT t = (s32[%d], s32[6]) tuple(d, w)\n}\n",
			 size, size, size, size);
		for (int start = -9; start <= 12; start++) {
			Run r;
			run_init(&r, text);
			for (int k = 0; k < 6; k++)
				literal_set_i64(r.args[0], k, k);
			for (int k = 0; k < size; k++)
				literal_set_i64(r.args[1], k, 100 + k);
			literal_set_i64(r.args[2], 0, start);
			Literal *out = run_go(&r, NULL);
			assert_non_null(out);
			int s = start < 0          ? 0
				: start > 6 - size ? 6 - size
						   : start;
			for (int k = 0; k < size; k++)
				assert_int_equal(
					literal_get_i64(out->tuple[0], k),
					s + k);
			for (int k = 0; k < 6; k++) {
				int want = k >= s && k < s + size ? 100 + k - s
								  : k;
				assert_int_equal(
					literal_get_i64(out->tuple[1], k),
					want);
			}
			run_free(&r);
		}
	}
}

/* A bitcast to f32[7,5,6]{0,2,1} reads p's row-major memory so that
 * r[i][j][k] = p[j][k][i]: the same values as transpose {2,0,1}, by a
 * different code path. */
static void test_bitcast_layout_is_transpose(void **state)
{
	(void)state;
	Run r;
	run_init(&r, "HloModule m\nENTRY e {\n"
		     "  p = f32[5,6,7]{2,1,0} parameter(0)\n"
		     "  b = f32[7,5,6]{0,2,1} bitcast(p)\n"
		     "  t = f32[7,5,6] transpose(p), dimensions={2,0,1}\n"
		     "  ROOT r = (f32[7,5,6], f32[7,5,6]) tuple(b, t)\n}\n");
	literal_fill_pseudo_random(r.args[0], 7);
	Literal *out = run_go(&r, NULL);
	assert_non_null(out);
	assert_true(literal_equal(out->tuple[0], out->tuple[1]));
	/* and the transpose itself, spot-checked: r[i][j][k] = p[j][k][i] */
	const Literal *p = r.args[0], *t = out->tuple[1];
	for (int64_t i = 0; i < 7; i += 3)
		for (int64_t j = 0; j < 5; j += 2)
			for (int64_t k = 0; k < 6; k += 5)
				assert_true(literal_get_f64(t, (i * 5 + j) * 6 +
								       k) ==
					    literal_get_f64(p, (j * 6 + k) * 7 +
								       i));
	run_free(&r);
}

/* 100000 row updates into 1000 rows with a combiner that keeps the
 * update: row q ends up with the last update aimed at it. Index k aims at
 * row (k * 7) % 1000 - 500, so half are out of bounds and skipped. */
static void test_scatter_large(void **state)
{
	(void)state;
	Run r;
	run_init(&r, "HloModule m\n"
		     "upd {\n  a = f32[] parameter(0)\n"
		     "  ROOT b = f32[] parameter(1)\n}\n"
		     "ENTRY e {\n"
		     "  p = f32[500,4] parameter(0)\n"
		     "  i = s32[100000] parameter(1)\n"
		     "  u = f32[100000,4] parameter(2)\n"
		     "  ROOT s = f32[500,4] scatter(p, i, u), "
		     "update_window_dims={1}, inserted_window_dims={0}, "
		     "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
		     "to_apply=upd\n}\n");
	int64_t last[500];
	for (int q = 0; q < 500; q++) {
		last[q] = -1;
		for (int c = 0; c < 4; c++)
			literal_set_f64(r.args[0], q * 4 + c, -1);
	}
	for (int64_t k = 0; k < 100000; k++) {
		int64_t row = (k * 7) % 1000 - 500;
		literal_set_i64(r.args[1], k, row);
		for (int c = 0; c < 4; c++)
			literal_set_f64(r.args[2], k * 4 + c,
					(double)(k * 4 + c));
		if (row >= 0)
			last[row] = k;
	}
	Literal *out = run_go(&r, NULL);
	assert_non_null(out);
	for (int q = 0; q < 500; q++)
		for (int c = 0; c < 4; c++)
			assert_true(literal_get_f64(out, q * 4 + c) ==
				    (last[q] < 0 ? -1.0
						 : (double)(last[q] * 4 + c)));
	run_free(&r);
}

/* One long operation notices Ctrl-C by itself (the engine only polls
 * between instructions). */
static void expect_interrupted(const char *text)
{
	static volatile int intr = 1;
	Run r;
	run_init(&r, text);
	assert_null(run_go(&r, &intr));
	if (!strstr(diag_text(&r.d), "interrupted"))
		fail_msg("no 'interrupted' in: %s", diag_text(&r.d));
	run_free(&r);
	/* and without the flag the same module runs */
	run_init(&r, text);
	assert_non_null(run_go(&r, NULL));
	run_free(&r);
}

static void test_interrupt_long_ops(void **state)
{
	(void)state;
	expect_interrupted(
		"HloModule m\nENTRY e {\n"
		"  p = f32[1000] parameter(0)\n"
		"  ROOT b = f32[1000,1000] broadcast(p), dimensions={0}\n}\n");
	expect_interrupted("HloModule m\nENTRY e {\n"
			   "  p = s8[100,100,100] parameter(0)\n"
			   "  ROOT t = s8[100,100,100] transpose(p), "
			   "dimensions={2,1,0}\n}\n");
	expect_interrupted(
		"HloModule m\nENTRY e {\n"
		"  p = s32[10,10] parameter(0)\n"
		"  i = s32[200000] parameter(1)\n"
		"  ROOT g = s32[200000,10] gather(p, i), offset_dims={1}, "
		"collapsed_slice_dims={0}, start_index_map={0}, "
		"index_vector_dim=1, slice_sizes={1,10}\n}\n");
	expect_interrupted(
		"HloModule m\n"
		"upd {\n  a = s32[] parameter(0)\n"
		"  ROOT b = s32[] parameter(1)\n}\n"
		"ENTRY e {\n"
		"  p = s32[10] parameter(0)\n"
		"  i = s32[200000] parameter(1)\n"
		"  u = s32[200000] parameter(2)\n"
		"  ROOT s = s32[10] scatter(p, i, u), "
		"update_window_dims={}, inserted_window_dims={0}, "
		"scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
		"to_apply=upd\n}\n");
	expect_interrupted("HloModule m\nENTRY e {\n"
			   "  p = f32[300,400]{1,0} parameter(0)\n"
			   "  ROOT b = f32[400,300]{0,1} bitcast(p)\n}\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pad_sweep),
		cmocka_unit_test(test_dynamic_slice_clamp_sweep),
		cmocka_unit_test(test_bitcast_layout_is_transpose),
		cmocka_unit_test(test_scatter_large),
		cmocka_unit_test(test_interrupt_long_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
