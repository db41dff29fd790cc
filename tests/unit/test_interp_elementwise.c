/* test_interp_elementwise.c - the elementwise evaluators where a golden
 * file cannot say it: rng streams (range, moments, determinism), Ctrl-C
 * inside a long elementwise loop, arrays longer than one chunk, and NaN
 * payloads that HLO literal text cannot spell. */
#include <math.h>

#include "testutil.h"

/* Loads and runs text; NULL when the run fails (message in r->d). args
 * may be NULL when the entry has no parameters. */
static Literal *run_text(Run *r, const char *text, Literal *const *args,
			 int nargs, volatile const int *intr)
{
	run_load(r, text);
	return run_with(r, args, nargs, intr);
}

static void test_rng_uniform_range_and_determinism(void **state)
{
	(void)state;
	const char *text =
		"HloModule rng\n"
		"ENTRY main {\n"
		"  a = f32[] constant(2)\n"
		"  b = f32[] constant(3)\n"
		"  r1 = f32[10000] rng(a, b), distribution=rng_uniform\n"
		"  r2 = f32[10000] rng(a, b), distribution=rng_uniform\n"
		"  ROOT t = (f32[10000], f32[10000]) tuple(r1, r2)\n"
		"}\n";
	Run r1, r2;
	Literal *x = run_text(&r1, text, NULL, 0, NULL);
	Literal *y = run_text(&r2, text, NULL, 0, NULL);
	assert_non_null(x);
	assert_non_null(y);
	double sum = 0;
	for (int64_t i = 0; i < x->tuple[0]->n; i++) {
		double v = literal_get_f64(x->tuple[0], i);
		assert_true(v >= 2 && v < 3);
		sum += v;
	}
	assert_true(fabs(sum / 10000 - 2.5) < 0.015);
	assert_true(literal_equal(x, y)); /* reproducible */
	assert_false(literal_equal(x->tuple[0], x->tuple[1])); /* per name */
	run_free(&r1);
	run_free(&r2);
}

static void test_rng_normal_moments(void **state)
{
	(void)state;
	const char *text = "HloModule rng\n"
			   "ENTRY main {\n"
			   "  mu = f64[] constant(1)\n"
			   "  sigma = f64[] constant(2)\n"
			   "  ROOT r = f64[20000] rng(mu, sigma), "
			   "distribution=rng_normal\n"
			   "}\n";
	Run r;
	Literal *x = run_text(&r, text, NULL, 0, NULL);
	assert_non_null(x);
	double sum = 0, sq = 0;
	for (int64_t i = 0; i < x->n; i++) {
		double v = literal_get_f64(x, i);
		assert_true(isfinite(v));
		sum += v;
		sq += v * v;
	}
	double mean = sum / x->n, var = sq / x->n - mean * mean;
	assert_true(fabs(mean - 1) < 0.06);
	assert_true(fabs(var - 4) < 0.25);
	run_free(&r);
}

static void test_rng_uniform_int_covers_range(void **state)
{
	(void)state;
	const char *text =
		"HloModule rng\n"
		"ENTRY main {\n"
		"  a = s32[] constant(-3)\n"
		"  b = s32[] constant(4)\n"
		"  ROOT r = s32[5000] rng(a, b), distribution=rng_uniform\n"
		"}\n";
	Run r;
	Literal *x = run_text(&r, text, NULL, 0, NULL);
	assert_non_null(x);
	int seen[7] = {0};
	for (int64_t i = 0; i < x->n; i++) {
		int64_t v = literal_get_i64(x, i);
		assert_true(v >= -3 && v < 4);
		seen[v + 3]++;
	}
	for (int k = 0; k < 7; k++)
		assert_true(seen[k] > 500);
	run_free(&r);
}

/* An interrupt already raised stops the first elementwise loop. */
static void test_interrupt_stops_elementwise(void **state)
{
	(void)state;
	const char *text = "HloModule intr\n"
			   "ENTRY main {\n"
			   "  x = f32[100000] iota(), iota_dimension=0\n"
			   "  ROOT y = f32[100000] exponential(x)\n"
			   "}\n";
	static volatile int flag = 1;
	Run r;
	assert_null(run_text(&r, text, NULL, 0, &flag));
	assert_non_null(strstr(diag_text(&r.d), "interrupted"));
	run_free(&r);
}

/* Many chunks, scalar broadcast in select and clamp, and the f32/s32 fast
 * paths agree with the element formula everywhere. */
static void test_long_arrays_cross_chunks(void **state)
{
	(void)state;
	const char *text =
		"HloModule long\n"
		"ENTRY main {\n"
		"  i = s32[100003] iota(), iota_dimension=0\n"
		"  f = f32[100003] convert(i)\n"
		"  two = f32[100003] add(f, f)\n"
		"  lo = s32[] constant(10)\n"
		"  hi = s32[] constant(70000)\n"
		"  c = s32[100003] clamp(lo, i, hi)\n"
		"  k = s32[] constant(2)\n"
		"  kb = s32[100003] broadcast(k), dimensions={}\n"
		"  m = s32[100003] remainder(i, kb)\n"
		"  z = s32[] constant(0)\n"
		"  zb = s32[100003] broadcast(z), dimensions={}\n"
		"  even = pred[100003] compare(m, zb), direction=EQ\n"
		"  s = s32[100003] select(even, i, c)\n"
		"  ROOT t = (f32[100003], s32[100003]) tuple(two, s)\n"
		"}\n";
	Run r;
	Literal *x = run_text(&r, text, NULL, 0, NULL);
	assert_non_null(x);
	static const int64_t at[] = {0,     1,     9,     255,   256,   257,
				     65535, 65536, 69999, 70001, 100002};
	for (size_t j = 0; j < sizeof at / sizeof *at; j++) {
		int64_t i = at[j];
		assert_true(literal_get_f64(x->tuple[0], i) == 2.0 * (double)i);
		int64_t want = i % 2 == 0  ? i
			       : i < 10    ? 10
			       : i > 70000 ? 70000
					   : i;
		assert_int_equal(literal_get_i64(x->tuple[1], i), want);
	}
	run_free(&r);
}

static Literal *f32_bits(Arena *a, const uint32_t *bits, int64_t n)
{
	Literal *l = literal_new(a, shape_array(a, DT_F32, 1, &n));
	assert_non_null(l);
	memcpy(l->data, bits, (size_t)n * 4);
	return l;
}

/* TOTALORDER orders NaNs by payload, negative NaNs reversed; bitcasts keep
 * a signalling NaN's bits. */
static void test_nan_payloads(void **state)
{
	(void)state;
	const char *text =
		"HloModule nan\n"
		"ENTRY main {\n"
		"  x = f32[2] parameter(0)\n"
		"  y = f32[2] parameter(1)\n"
		"  lt = pred[2] compare(x, y), direction=LT, type=TOTALORDER\n"
		"  eq = pred[2] compare(x, y), direction=EQ, type=TOTALORDER\n"
		"  u = u32[2] bitcast-convert(x)\n"
		"  ROOT t = (pred[2], pred[2], u32[2]) tuple(lt, eq, u)\n"
		"}\n";
	static const uint32_t xb[] = {0x7fc00001u, 0xffc00002u};
	static const uint32_t yb[] = {0x7fc00002u, 0xffc00001u};
	Arena a;
	arena_init(&a);
	Literal *args[2] = {f32_bits(&a, xb, 2), f32_bits(&a, yb, 2)};
	Run r;
	Literal *res = run_text(&r, text, args, 2, NULL);
	assert_non_null(res);
	assert_int_equal(literal_get_i64(res->tuple[0], 0), 1);
	assert_int_equal(literal_get_i64(res->tuple[0], 1), 1);
	assert_int_equal(literal_get_i64(res->tuple[1], 0), 0);
	assert_int_equal(literal_get_i64(res->tuple[1], 1), 0);
	assert_int_equal(literal_get_i64(res->tuple[2], 0), 0x7fc00001);
	assert_int_equal(literal_get_i64(res->tuple[2], 1), 0xffc00002u);
	run_free(&r);
	arena_free(&a);
}

/* Doubles around every rounding case of f16 and bf16: random values over
 * the whole range, exact ties (half an ulp above a code) and the doubles
 * next to them, subnormals, overflow, zeros, inf and NaN. */
static int64_t half_cases(double *v, int64_t cap)
{
	uint64_t st = 12345;
	int64_t n = 0;
	static const double special[] = {0,      -0.0,  INFINITY, -INFINITY,
					 NAN,    65504, 65519.99, 65520,
					 1e-300, 6e-8};
	for (size_t i = 0; i < sizeof special / sizeof *special; i++)
		v[n++] = special[i];
	while (n + 8 <= cap) {
		st = st * 6364136223846793005u + 1442695040888963407u;
		uint16_t code = (uint16_t)(st >> 40);
		double a = dtype_small_float_to_double(DT_F16, code);
		double b = dtype_small_float_to_double(DT_BF16, code);
		int ea, eb; /* half an ulp: 11 and 8 significant bits */
		frexp(a, &ea);
		frexp(b, &eb);
		double ua = ldexp(1, ea - 12), ub = ldexp(1, eb - 9);
		v[n++] = a + ua;               /* f16 tie (for normals) */
		v[n++] = nextafter(a + ua, 0); /* just below */
		v[n++] = nextafter(a + ua, 1e300);
		v[n++] = b + ub; /* bf16 tie */
		v[n++] = nextafter(b + ub, -1e300);
		v[n++] = ldexp((double)(st >> 11) * 0x1p-53 + 0.5,
			       (int)(st % 300) - 150); /* random magnitude */
		v[n++] = -ldexp((double)(st >> 13) * 0x1p-51,
				(int)(st % 40) - 30);
		v[n++] = (double)(int64_t)(st >> 20) * 1e-3;
	}
	return n;
}

/* f16 and bf16 loads and stores (fast paths included) agree bit for bit
 * with the literal codec: convert f64 -> f16/bf16 and back. */
static void test_half_conversions_match_codec(void **state)
{
	(void)state;
	enum { N = 20010 };
	const char *text = "HloModule half\n"
			   "ENTRY main {\n"
			   "  x = f64[20010] parameter(0)\n"
			   "  c = u16[65536] parameter(1)\n"
			   "  h = f16[20010] convert(x)\n"
			   "  b = bf16[20010] convert(x)\n"
			   "  ch = f16[65536] bitcast-convert(c)\n"
			   "  cb = bf16[65536] bitcast-convert(c)\n"
			   "  wh = f64[65536] convert(ch)\n"
			   "  wb = f64[65536] convert(cb)\n"
			   "  ROOT t = (f16[20010], bf16[20010], f64[65536], "
			   "f64[65536]) tuple(h, b, wh, wb)\n"
			   "}\n";
	Arena a;
	arena_init(&a);
	int64_t nx = N, nc = 65536;
	Literal *x = literal_new(&a, shape_array(&a, DT_F64, 1, &nx));
	Literal *c = literal_new(&a, shape_array(&a, DT_U16, 1, &nc));
	double *xv = x->data;
	assert_int_equal(half_cases(xv, N), N);
	for (int64_t i = 0; i < nc; i++)
		literal_set_i64(c, i, i);
	Literal *args[2] = {x, c};
	Run r;
	Literal *res = run_text(&r, text, args, 2, NULL);
	assert_non_null(res);
	const uint16_t *h = res->tuple[0]->data, *b = res->tuple[1]->data;
	for (int64_t i = 0; i < N; i++) {
		uint32_t wh = dtype_double_to_small_float(DT_F16, xv[i]);
		uint32_t wb = dtype_double_to_small_float(DT_BF16, xv[i]);
		if (h[i] != wh || b[i] != wb)
			fail_msg("%.17g: f16 %04x want %04x, bf16 %04x want "
				 "%04x",
				 xv[i], h[i], wh, b[i], wb);
	}
	const double *dh = res->tuple[2]->data, *db = res->tuple[3]->data;
	for (int64_t i = 0; i < nc; i++) {
		double want_h = dtype_f16_to_float((uint16_t)i);
		double want_b = dtype_bf16_to_float((uint16_t)i);
		if (memcmp(&dh[i], &want_h, 8) || memcmp(&db[i], &want_b, 8))
			fail_msg("code %04llx: %g/%g want %g/%g",
				 (unsigned long long)i, dh[i], db[i], want_h,
				 want_b);
	}
	run_free(&r);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_uniform_range_and_determinism),
		cmocka_unit_test(test_rng_normal_moments),
		cmocka_unit_test(test_rng_uniform_int_covers_range),
		cmocka_unit_test(test_interrupt_stops_elementwise),
		cmocka_unit_test(test_long_arrays_cross_chunks),
		cmocka_unit_test(test_nan_payloads),
		cmocka_unit_test(test_half_conversions_match_codec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
