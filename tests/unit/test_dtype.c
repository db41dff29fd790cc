/* test_dtype.c - the type table and the narrow float conversions.
 *
 * Known values come from ml_dtypes (what XLA uses) and IEEE 754. */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <string.h>

#include "dtype.h"

static const Dtype narrow[] = {
	DT_F8E5M2,     DT_F8E4M3,     DT_F8E4M3FN,  DT_F8E4M3B11FNUZ, DT_F8E3M4,
	DT_F8E5M2FNUZ, DT_F8E4M3FNUZ, DT_F8E8M0FNU, DT_F4E2M1FN,
};
enum { NNARROW = sizeof narrow / sizeof narrow[0] };

static uint32_t enc(Dtype t, double v)
{
	return dtype_double_to_small_float(t, v);
}
static double dec(Dtype t, uint32_t c)
{
	return dtype_small_float_to_double(t, c);
}
static int ncodes(Dtype t) { return t == DT_F4E2M1FN ? 16 : 256; }

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static float f32_of(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* --- the table --------------------------------------------------------------- */

static void parse_every_name(void **state)
{
	(void)state;
	int n = 0;
#define X(e, s, b, k, eb, mb)                                \
	assert_int_equal(dtype_parse(s, (int)strlen(s)), e); \
	assert_string_equal(dtype_name(e), s);               \
	n++;
	XR_DTYPES(X)
#undef X
	assert_int_equal(n, DT_TUPLE - 1);
}

static void parse_rejects_junk(void **state)
{
	(void)state;
	const char *junk[] = {"",     "f",         "f3",      "f320", "F32",
			      "f32 ", "tuple",     "invalid", "s3",   "u128",
			      "f8",   "f8e4m3fnx", "bf",      "c32",  "pred_"};
	for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
		assert_int_equal(dtype_parse(junk[i], (int)strlen(junk[i])),
				 DT_INVALID);
	assert_int_equal(dtype_parse(NULL, 3), DT_INVALID);
	assert_int_equal(dtype_parse("f32", -1), DT_INVALID);
}

static void parse_uses_length_not_nul(void **state)
{
	(void)state;
	assert_int_equal(dtype_parse("f32[2,3]", 3), DT_F32);
	assert_int_equal(dtype_parse("s4x", 2), DT_S4);
	assert_int_equal(dtype_parse("f8e4m3fnuz", 6), DT_F8E4M3);
	assert_int_equal(dtype_parse("f8e4m3fnuz", 8), DT_F8E4M3FN);
	assert_int_equal(dtype_parse("f32", 2), DT_INVALID);
}

static void sizes_and_kinds(void **state)
{
	(void)state;
	assert_int_equal(dtype_bytes(DT_PRED), 1);
	assert_int_equal(dtype_bits(DT_PRED), 8);
	assert_int_equal(dtype_bytes(DT_S4), 1);
	assert_int_equal(dtype_bits(DT_S4), 4);
	assert_int_equal(dtype_bits(DT_U1), 1);
	assert_int_equal(dtype_bits(DT_S2), 2);
	assert_int_equal(dtype_bytes(DT_F16), 2);
	assert_int_equal(dtype_bytes(DT_F8E8M0FNU), 1);
	assert_int_equal(dtype_bits(DT_F8E8M0FNU), 8);
	assert_int_equal(dtype_bits(DT_F4E2M1FN), 4);
	assert_int_equal(dtype_bytes(DT_F4E2M1FN), 1);
	assert_int_equal(dtype_bytes(DT_C64), 8);
	assert_int_equal(dtype_bits(DT_C64), 64);
	assert_int_equal(dtype_bytes(DT_C128), 16);
	assert_int_equal(dtype_bytes(DT_TOKEN), 0);
	assert_int_equal(dtype_bytes(DT_TUPLE), 0);
	assert_int_equal(dtype_exp_bits(DT_BF16), 8);
	assert_int_equal(dtype_mant_bits(DT_BF16), 7);
	assert_true(dtype_is_float(DT_F8E4M3FN));
	assert_false(dtype_is_float(DT_C64));
	assert_true(dtype_is_int(DT_U4));
	assert_false(dtype_is_int(DT_PRED));
	assert_true(dtype_is_array(DT_PRED));
	assert_true(dtype_is_array(DT_C128));
	assert_false(dtype_is_array(DT_TOKEN));
	assert_false(dtype_is_array(DT_OPAQUE));
	assert_false(dtype_is_array(DT_TUPLE));
	assert_false(dtype_is_array(DT_INVALID));
	assert_int_equal(dtype_kind(DT_S64), DK_SINT);
	assert_int_equal(dtype_kind(DT_TUPLE), DK_TUPLE);
	assert_string_equal(dtype_name((Dtype)999), "invalid");
}

/* --- every code of every narrow type ----------------------------------------- */

static void narrow_codes_round_trip(void **state)
{
	(void)state;
	for (int k = 0; k < NNARROW; k++) {
		Dtype t = narrow[k];
		for (int c = 0; c < ncodes(t); c++) {
			double v = dec(t, (uint32_t)c);
			uint32_t back = enc(t, v);
			if (isnan(v)) {
				assert_true(isnan(dec(t, back)));
				continue;
			}
			/* No two codes share a value, so the code itself
			 * comes back (-0 included where it exists). */
			assert_int_equal(back, c);
			double again = dec(t, back);
			assert_memory_equal(&again, &v, sizeof v);
		}
	}
}

static void narrow_codes_increase(void **state)
{
	(void)state;
	for (int k = 0; k < NNARROW; k++) {
		Dtype t = narrow[k];
		int half = t == DT_F8E8M0FNU ? 255 : ncodes(t) / 2;
		double prev = -INFINITY;
		for (int c = 0; c < half; c++) {
			double v = dec(t, (uint32_t)c);
			if (isnan(v))
				break;
			assert_true(v > prev);
			prev = v;
		}
	}
}

/* Every midpoint between neighbouring values rounds to the even code. */
static void narrow_midpoints_tie_to_even(void **state)
{
	(void)state;
	for (int k = 0; k < NNARROW; k++) {
		Dtype t = narrow[k];
		if (t == DT_F8E8M0FNU)
			continue; /* no mantissa: ties go up, tested below */
		int half = ncodes(t) / 2;
		for (int c = 0; c + 1 < half; c++) {
			double lo = dec(t, (uint32_t)c);
			double hi = dec(t, (uint32_t)c + 1);
			if (isnan(hi) || isinf(hi))
				break;
			uint32_t want = (c & 1) ? (uint32_t)c + 1 : (uint32_t)c;
			assert_int_equal(enc(t, (lo + hi) / 2), want);
			assert_int_equal(enc(t, nextafter((lo + hi) / 2, hi)),
					 c + 1);
			assert_int_equal(enc(t, nextafter((lo + hi) / 2, lo)),
					 c);
		}
	}
}

static void f16_and_bf16_all_codes(void **state)
{
	(void)state;
	for (uint32_t h = 0; h < 65536; h++) {
		float f = dtype_f16_to_float((uint16_t)h);
		assert_true(isnan(f) || dtype_float_to_f16(f) == h);
		assert_true(!isnan(f) ||
			    isnan(dtype_f16_to_float(dtype_float_to_f16(f))));
		float g = dtype_bf16_to_float((uint16_t)h);
		assert_true(isnan(g) || dtype_float_to_bf16(g) == h);
		assert_true(!isnan(g) ||
			    isnan(dtype_bf16_to_float(dtype_float_to_bf16(g))));
		double d = dec(DT_F16, h);
		assert_true(isnan(f) ? isnan(d) : d == (double)f);
		assert_true(isnan(f) || enc(DT_F16, f) == h);
	}
}

/* --- f16 ---------------------------------------------------------------------- */

static void f16_known_values(void **state)
{
	(void)state;
	assert_int_equal(dtype_float_to_f16(1.0f), 0x3c00);
	assert_int_equal(dtype_float_to_f16(-2.0f), 0xc000);
	assert_int_equal(dtype_float_to_f16(65504.0f), 0x7bff);
	assert_int_equal(dtype_float_to_f16(65519.0f), 0x7bff);
	assert_int_equal(dtype_float_to_f16(65520.0f), 0x7c00); /* tie up */
	assert_int_equal(dtype_float_to_f16(1e10f), 0x7c00);
	assert_int_equal(dtype_float_to_f16(-INFINITY), 0xfc00);
	assert_int_equal(dtype_float_to_f16(0x1p-14f), 0x0400);
	assert_int_equal(dtype_float_to_f16(0x1p-24f), 0x0001);
	assert_int_equal(dtype_float_to_f16(0x1p-25f), 0x0000); /* tie */
	assert_int_equal(dtype_float_to_f16(0x1.8p-25f), 0x0001);
	assert_int_equal(dtype_float_to_f16(0x1.8p-24f), 0x0002); /* tie */
	assert_int_equal(dtype_float_to_f16(-0x1p-26f), 0x8000);
	assert_int_equal(dtype_float_to_f16(1.0f + 0x1p-11f), 0x3c00);
	assert_int_equal(dtype_float_to_f16(1.0f + 0x3p-11f), 0x3c02);
	assert_int_equal(dtype_float_to_f16(1.0f + 0x1.8p-11f), 0x3c01);
	assert_true(dtype_f16_to_float(0x0001) == 0x1p-24f);
	assert_true(dtype_f16_to_float(0x7bff) == 65504.0f);
	assert_true(isinf(dtype_f16_to_float(0x7c00)));
	assert_true(dtype_f16_to_float(0x3555) == 0x1.554p-2f);
}

static void f16_nan(void **state)
{
	(void)state;
	assert_int_equal(dtype_float_to_f16(NAN), 0x7e00);
	assert_int_equal(dtype_float_to_f16(-NAN), 0xfe00);
	/* A signalling float NaN must not turn into inf. */
	assert_int_equal(dtype_float_to_f16(f32_of(0x7f800001)), 0x7e00);
	/* Widening keeps the payload. */
	assert_int_equal(f32_bits(dtype_f16_to_float(0x7c01)), 0x7f802000);
	assert_int_equal(f32_bits(dtype_f16_to_float(0xfe00)), 0xffc00000);
}

/* --- bf16 --------------------------------------------------------------------- */

static void bf16_known_values(void **state)
{
	(void)state;
	assert_int_equal(dtype_float_to_bf16(1.0f), 0x3f80);
	assert_int_equal(dtype_float_to_bf16(1.0f / 3.0f), 0x3eab);
	assert_true(dtype_bf16_to_float(0x3eab) == 0.333984375f);
	assert_int_equal(dtype_float_to_bf16(0.1f), 0x3dcd);
	/* Ties on the upper 16 bits go to even. */
	assert_int_equal(dtype_float_to_bf16(f32_of(0x3f808000)), 0x3f80);
	assert_int_equal(dtype_float_to_bf16(f32_of(0x3f818000)), 0x3f82);
	assert_int_equal(dtype_float_to_bf16(f32_of(0x3f808001)), 0x3f81);
	assert_int_equal(dtype_float_to_bf16(f32_of(0x3f807fff)), 0x3f80);
	/* Rounding can overflow to inf; denormals round too. */
	assert_int_equal(dtype_float_to_bf16(f32_of(0x7f7fffff)), 0x7f80);
	assert_int_equal(dtype_float_to_bf16(f32_of(0x00008000)), 0x0000);
	assert_int_equal(dtype_float_to_bf16(f32_of(0x00018000)), 0x0002);
	assert_int_equal(dtype_float_to_bf16(-0.0f), 0x8000);
	assert_int_equal(dtype_float_to_bf16(-INFINITY), 0xff80);
}

static void bf16_nan(void **state)
{
	(void)state;
	assert_int_equal(dtype_float_to_bf16(NAN), 0x7fc0);
	assert_int_equal(dtype_float_to_bf16(-NAN), 0xffc0);
	/* Low-payload NaNs would truncate to inf: they must stay NaN. */
	assert_int_equal(dtype_float_to_bf16(f32_of(0x7f800001)), 0x7fc0);
	assert_int_equal(dtype_float_to_bf16(f32_of(0x7fffffff)), 0x7fc0);
	assert_true(isnan(dtype_bf16_to_float(0x7f81)));
	assert_int_equal(f32_bits(dtype_bf16_to_float(0x7f81)), 0x7f810000);
}

/* The bit-level float -> f16/bf16 conversions agree with the generic
 * one through double (dtype_double_to_small_float) on every float of a
 * stride over all 2^32 patterns, and on every float of the exponents
 * where f16 turns subnormal, rounds to zero or overflows. (Both were
 * also compared on all 2^32 floats, bf16, and all floats with f16's
 * exponents 100-145, 0 and 255, when the fast ones were written.) */
static void fast_half_conversions_agree(void **state)
{
	(void)state;
	long bad = 0;
	for (uint64_t x = 0; x < ((uint64_t)1 << 32); x += 4099) {
		float f = f32_of((uint32_t)x);
		bad += dtype_float_to_f16(f) !=
		       dtype_double_to_small_float(DT_F16, f);
		bad += dtype_float_to_bf16(f) !=
		       dtype_double_to_small_float(DT_BF16, f);
	}
	static const uint32_t exps[] = {102, 103, 112, 113, 142, 143};
	for (size_t k = 0; k < sizeof exps / sizeof *exps; k++)
		for (uint32_t m = 0; m < (1u << 23); m += 7) {
			float f = f32_of(exps[k] << 23 | m);
			bad += dtype_float_to_f16(f) !=
			       dtype_double_to_small_float(DT_F16, f);
		}
	assert_int_equal(bad, 0);
}

/* --- f8 ----------------------------------------------------------------------- */

static void f8e4m3fn_values(void **state)
{
	(void)state;
	Dtype t = DT_F8E4M3FN;
	assert_int_equal(enc(t, 448), 0x7e);
	assert_true(dec(t, 0x7e) == 448);
	assert_int_equal(enc(t, 464), 0x7e); /* tie to even */
	assert_int_equal(enc(t, 465), 0x7f); /* past max: NaN */
	assert_int_equal(enc(t, 1e6), 0x7f);
	assert_int_equal(enc(t, -1e6), 0xff);
	assert_int_equal(enc(t, INFINITY), 0x7f);
	assert_int_equal(enc(t, -INFINITY), 0xff);
	assert_int_equal(enc(t, NAN), 0x7f);
	assert_int_equal(enc(t, 0x1p-9), 0x01);  /* smallest denormal */
	assert_int_equal(enc(t, 0x1p-10), 0x00); /* tie to even */
	assert_int_equal(enc(t, 0x1.8p-10), 0x01);
	assert_int_equal(enc(t, -1e-10), 0x80); /* -0 exists */
	assert_int_equal(enc(t, 0.2), 0x25);
	assert_true(dec(t, 0x25) == 0.203125);
	assert_true(isnan(dec(t, 0x7f)));
	assert_true(isnan(dec(t, 0xff)));
	assert_true(dec(t, 0x77) == 240); /* exponent 1111 is finite */
	assert_true(signbit(dec(t, 0x80)));
}

static void f8e5m2_values(void **state)
{
	(void)state;
	Dtype t = DT_F8E5M2;
	assert_int_equal(enc(t, 57344), 0x7b);
	assert_true(dec(t, 0x7b) == 57344);
	assert_int_equal(enc(t, 61439), 0x7b);
	assert_int_equal(enc(t, 61440), 0x7c); /* tie rounds to inf */
	assert_true(isinf(dec(t, 0x7c)));
	assert_true(isinf(dec(t, 0xfc)) && dec(t, 0xfc) < 0);
	assert_int_equal(enc(t, NAN), 0x7e);
	assert_int_equal(enc(t, -NAN), 0xfe);
	assert_true(isnan(dec(t, 0x7d)));
	assert_int_equal(enc(t, 0x1p-16), 0x01);
	assert_true(dec(t, 0x01) == 0x1p-16);
	assert_int_equal(enc(t, 0x1p-17), 0x00);
	assert_int_equal(enc(t, 0.2), 0x32);
}

static void f8e4m3_and_e3m4_values(void **state)
{
	(void)state;
	assert_int_equal(enc(DT_F8E4M3, 240), 0x77);
	assert_int_equal(enc(DT_F8E4M3, 248), 0x78); /* tie up to inf */
	assert_int_equal(enc(DT_F8E4M3, 247), 0x77);
	assert_true(isinf(dec(DT_F8E4M3, 0x78)));
	assert_int_equal(enc(DT_F8E4M3, NAN), 0x7c);
	assert_true(isnan(dec(DT_F8E4M3, 0x79)));
	assert_true(dec(DT_F8E3M4, 0x6f) == 15.5);
	assert_int_equal(enc(DT_F8E3M4, 2.9), 0x47);
	assert_int_equal(enc(DT_F8E3M4, 3.1), 0x49);
	assert_int_equal(enc(DT_F8E3M4, 100), 0x70);
	assert_int_equal(enc(DT_F8E3M4, NAN), 0x78);
	assert_true(dec(DT_F8E3M4, 0x01) == 0x1p-6);
}

static void f8_fnuz_values(void **state)
{
	(void)state;
	const Dtype ts[] = {DT_F8E4M3FNUZ, DT_F8E5M2FNUZ, DT_F8E4M3B11FNUZ};
	const double maxes[] = {240, 57344, 30};
	const double tiny[] = {0x1p-10, 0x1p-17, 0x1p-13};
	for (int k = 0; k < 3; k++) {
		Dtype t = ts[k];
		assert_true(dec(t, 0x7f) == maxes[k]);
		assert_int_equal(enc(t, maxes[k]), 0x7f);
		assert_true(dec(t, 0x01) == tiny[k]);
		assert_true(isnan(dec(t, 0x80)));
		assert_int_equal(enc(t, -0.0), 0x00); /* no -0 */
		assert_int_equal(enc(t, -tiny[k] / 4), 0x00);
		assert_int_equal(enc(t, NAN), 0x80);
		assert_int_equal(enc(t, -NAN), 0x80);
		assert_int_equal(enc(t, INFINITY), 0x80);
		assert_int_equal(enc(t, -maxes[k] * 2), 0x80);
		assert_true(dec(t, 0x81) == -tiny[k]);
	}
	assert_int_equal(enc(DT_F8E4M3FNUZ, 1.0), 0x40);
	assert_int_equal(enc(DT_F8E5M2FNUZ, 1.0), 0x40);
	assert_int_equal(enc(DT_F8E4M3B11FNUZ, 1.0), 0x58);
}

static void f8e8m0fnu_values(void **state)
{
	(void)state;
	Dtype t = DT_F8E8M0FNU;
	assert_true(dec(t, 127) == 1.0);
	assert_true(dec(t, 0) == 0x1p-127);
	assert_true(dec(t, 0xfe) == 0x1p127);
	assert_true(isnan(dec(t, 0xff)));
	assert_int_equal(enc(t, 1.0), 127);
	assert_int_equal(enc(t, 0.75), 127); /* tie goes up */
	assert_int_equal(enc(t, 0.74), 126);
	assert_int_equal(enc(t, 1.5), 128); /* tie goes up */
	assert_int_equal(enc(t, 3.0), 129); /* tie goes up */
	assert_int_equal(enc(t, 2.9), 128);
	assert_int_equal(enc(t, 0x1p127), 0xfe);
	assert_int_equal(enc(t, 0x1.7p127), 0xfe);
	assert_int_equal(enc(t, 0x1.8p127), 0xff); /* rounds past max */
	assert_int_equal(enc(t, 0x1p-127), 0x00);
	assert_int_equal(enc(t, 0x1p-140), 0x00);   /* no zero: smallest */
	assert_int_equal(enc(t, 0x1.6p-127), 0x00); /* nearest */
	assert_int_equal(enc(t, 0x1.8p-127), 0x01);
	assert_int_equal(enc(t, 0.0), 0xff);
	assert_int_equal(enc(t, -0.0), 0xff);
	assert_int_equal(enc(t, -1.0), 0xff);
	assert_int_equal(enc(t, INFINITY), 0xff);
	assert_int_equal(enc(t, NAN), 0xff);
}

static void f4e2m1fn_values(void **state)
{
	(void)state;
	Dtype t = DT_F4E2M1FN;
	const double want[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
	for (int c = 0; c < 8; c++) {
		assert_true(dec(t, (uint32_t)c) == want[c]);
		assert_true(dec(t, (uint32_t)c | 8) == -want[c]);
		assert_int_equal(enc(t, want[c]), c);
	}
	assert_true(signbit(dec(t, 8)));
	assert_true(dec(t, 0xf7) == 6); /* high bits ignored */
	assert_int_equal(enc(t, 0.25), 0x0);
	assert_int_equal(enc(t, 0.75), 0x2);
	assert_int_equal(enc(t, 1.25), 0x2);
	assert_int_equal(enc(t, 1.75), 0x4);
	assert_int_equal(enc(t, 2.5), 0x4);
	assert_int_equal(enc(t, 3.5), 0x6);
	assert_int_equal(enc(t, 5.0), 0x6);
	assert_int_equal(enc(t, 5.01), 0x7);
	assert_int_equal(enc(t, 7.0), 0x7); /* saturates */
	assert_int_equal(enc(t, 1e300), 0x7);
	assert_int_equal(enc(t, INFINITY), 0x7);
	assert_int_equal(enc(t, -INFINITY), 0xf);
	assert_int_equal(enc(t, -0.0), 0x8);
	assert_int_equal(enc(t, NAN), 0x8); /* ml_dtypes' "NaN" is -0 */
	assert_int_equal(enc(t, -NAN), 0x0);
}

static void f32_passes_through(void **state)
{
	(void)state;
	assert_int_equal(enc(DT_F32, 1.0), 0x3f800000);
	assert_true(dec(DT_F32, 0x3eaaaaab) == (double)(1.0f / 3.0f));
	assert_int_equal(enc(DT_F32, 1.0 / 3.0), 0x3eaaaaab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_every_name),
		cmocka_unit_test(parse_rejects_junk),
		cmocka_unit_test(parse_uses_length_not_nul),
		cmocka_unit_test(sizes_and_kinds),
		cmocka_unit_test(narrow_codes_round_trip),
		cmocka_unit_test(narrow_codes_increase),
		cmocka_unit_test(narrow_midpoints_tie_to_even),
		cmocka_unit_test(f16_and_bf16_all_codes),
		cmocka_unit_test(f16_known_values),
		cmocka_unit_test(f16_nan),
		cmocka_unit_test(bf16_known_values),
		cmocka_unit_test(bf16_nan),
		cmocka_unit_test(fast_half_conversions_agree),
		cmocka_unit_test(f8e4m3fn_values),
		cmocka_unit_test(f8e5m2_values),
		cmocka_unit_test(f8e4m3_and_e3m4_values),
		cmocka_unit_test(f8_fnuz_values),
		cmocka_unit_test(f8e8m0fnu_values),
		cmocka_unit_test(f4e2m1fn_values),
		cmocka_unit_test(f32_passes_through),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
