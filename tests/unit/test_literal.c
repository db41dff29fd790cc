/* test_literal.c - literal storage, conversion on access, and printing.
 *
 * Expected texts are XLA's: several are copied from constants in the
 * shared corpus (0.333333343, 1.42108547e-14, 5.734e+04, { {1} }). */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "literal.h"

static int setup(void **state)
{
	Arena *a = malloc(sizeof *a);
	if (!a)
		return -1;
	arena_init(a);
	*state = a;
	return 0;
}

static int teardown(void **state)
{
	arena_free(*state);
	free(*state);
	return 0;
}

static Literal *make(Arena *a, Dtype t, int rank, const int64_t *dims)
{
	Literal *l = literal_new(a, shape_array(a, t, rank, dims));
	assert_non_null(l);
	return l;
}

static Literal *scalar(Arena *a, Dtype t) { return make(a, t, 0, NULL); }

static Literal *f32_bits(Arena *a, uint32_t u)
{
	Literal *l = scalar(a, DT_F32);
	memcpy(l->data, &u, 4);
	return l;
}

static void expect_text(const Literal *l, int64_t max, const char *want)
{
	StrBuf b;
	sb_init(&b);
	literal_print(&b, l, max);
	assert_string_equal(sb_str(&b), want);
	sb_free(&b);
}

static void expect_f64(Arena *a, Dtype t, double v, const char *want)
{
	Literal *l = scalar(a, t);
	literal_set_f64(l, 0, v);
	expect_text(l, 0, want);
}

static Literal *iota(Arena *a, Dtype t, int rank, const int64_t *dims)
{
	Literal *l = make(a, t, rank, dims);
	for (int64_t i = 0; i < l->n; i++)
		literal_set_i64(l, i, i + 1);
	return l;
}

/* --- creation -------------------------------------------------------------- */

static void new_zero_filled(void **state)
{
	Arena *a = *state;
	int64_t dims[] = {2, 3};
	Literal *l = make(a, DT_F32, 2, dims);
	assert_int_equal(l->n, 6);
	for (int64_t i = 0; i < 6; i++)
		assert_true(literal_get_f64(l, i) == 0.0);
	assert_false(l->elided);
	Literal *s = scalar(a, DT_C128);
	assert_int_equal(s->n, 1);
	expect_text(s, 0, "(0, 0)");
}

static void new_refuses_absurd_sizes(void **state)
{
	Arena *a = *state;
	int64_t huge[] = {(int64_t)1 << 30, (int64_t)1 << 30};
	assert_null(literal_new(a, shape_array(a, DT_S8, 2, huge)));
	int64_t big[] = {(int64_t)1 << 33}; /* fine count, 2^35 bytes */
	assert_null(literal_new(a, shape_array(a, DT_F32, 1, big)));
	int64_t wrap[] = {INT64_MAX / 2, 4};
	assert_null(literal_new(a, shape_array(a, DT_PRED, 2, wrap)));
	int64_t unbounded[] = {-1};
	assert_null(literal_new(a, shape_array(a, DT_F32, 1, unbounded)));
	int64_t empty[] = {0, (int64_t)1 << 40};
	Literal *z = literal_new(a, shape_array(a, DT_F32, 2, empty));
	assert_non_null(z);
	assert_int_equal(z->n, 0);
	assert_null(literal_new(a, NULL));
}

static void new_tuple_makes_elements(void **state)
{
	Arena *a = *state;
	int64_t d2[] = {2};
	Shape *el[] = {shape_scalar(a, DT_F32), shape_array(a, DT_S32, 1, d2),
		       shape_tuple(a, 0, NULL)};
	Literal *t = literal_new(a, shape_tuple(a, 3, el));
	assert_non_null(t);
	assert_int_equal(t->ntuple, 3);
	assert_int_equal(t->n, 0);
	assert_int_equal(t->tuple[0]->n, 1);
	assert_int_equal(t->tuple[1]->n, 2);
	assert_int_equal(t->tuple[2]->ntuple, 0);
	assert_ptr_equal(t->tuple[1]->shape, el[1]);
	literal_set_i64(t->tuple[1], 1, 3);
	literal_set_f64(t->tuple[0], 0, 1);
	literal_set_i64(t->tuple[1], 0, 2);
	expect_text(t, 0, "( 1, {2, 3}, (  ) )");
	int64_t big[] = {(int64_t)1 << 33};
	Shape *bad[] = {shape_scalar(a, DT_F32),
			shape_array(a, DT_F64, 1, big)};
	assert_null(literal_new(a, shape_tuple(a, 2, bad)));
}

static void token_literal(void **state)
{
	Arena *a = *state;
	Literal *l = literal_new(a, shape_scalar(a, DT_TOKEN));
	assert_non_null(l);
	assert_int_equal(l->n, 0);
	expect_text(l, 0, "token");
}

/* --- element access -------------------------------------------------------- */

static void set_f64_saturates_ints(void **state)
{
	Arena *a = *state;
	Literal *s8 = scalar(a, DT_S8);
	const double in[] = {300, -300, NAN, -2.7, 2.7, INFINITY, -INFINITY};
	const int64_t out[] = {127, -128, 0, -2, 2, 127, -128};
	for (int i = 0; i < 7; i++) {
		literal_set_f64(s8, 0, in[i]);
		assert_int_equal(literal_get_i64(s8, 0), out[i]);
	}
	Literal *u8 = scalar(a, DT_U8);
	literal_set_f64(u8, 0, -3);
	assert_int_equal(literal_get_i64(u8, 0), 0);
	literal_set_f64(u8, 0, 255.9);
	assert_int_equal(literal_get_i64(u8, 0), 255);
	Literal *u32 = scalar(a, DT_U32);
	literal_set_f64(u32, 0, 1e20);
	assert_int_equal(literal_get_i64(u32, 0), 4294967295);
	Literal *s64 = scalar(a, DT_S64);
	literal_set_f64(s64, 0, 1e19);
	assert_true(literal_get_i64(s64, 0) == INT64_MAX);
	literal_set_f64(s64, 0, -1e19);
	assert_true(literal_get_i64(s64, 0) == INT64_MIN);
	Literal *u64 = scalar(a, DT_U64);
	literal_set_f64(u64, 0, 1e30);
	expect_text(u64, 0, "18446744073709551615");
	Literal *s4 = scalar(a, DT_S4);
	literal_set_f64(s4, 0, 100);
	assert_int_equal(literal_get_i64(s4, 0), 7);
	literal_set_f64(s4, 0, -100);
	assert_int_equal(literal_get_i64(s4, 0), -8);
	Literal *u2 = scalar(a, DT_U2);
	literal_set_f64(u2, 0, 9);
	assert_int_equal(literal_get_i64(u2, 0), 3);
}

static void set_i64_wraps_sub_byte(void **state)
{
	Arena *a = *state;
	Literal *s4 = scalar(a, DT_S4);
	literal_set_i64(s4, 0, 9);
	assert_int_equal(literal_get_i64(s4, 0), -7);
	assert_int_equal(*(uint8_t *)s4->data, 0xf9); /* sign-extended */
	literal_set_i64(s4, 0, -9);
	assert_int_equal(literal_get_i64(s4, 0), 7);
	literal_set_i64(s4, 0, -1);
	assert_int_equal(*(uint8_t *)s4->data, 0xff);
	Literal *u4 = scalar(a, DT_U4);
	literal_set_i64(u4, 0, 17);
	assert_int_equal(literal_get_i64(u4, 0), 1);
	literal_set_i64(u4, 0, -1);
	assert_int_equal(literal_get_i64(u4, 0), 15);
	Literal *s1 = scalar(a, DT_S1);
	literal_set_i64(s1, 0, 1);
	assert_int_equal(literal_get_i64(s1, 0), -1);
	Literal *s2 = scalar(a, DT_S2);
	literal_set_i64(s2, 0, 2);
	assert_int_equal(literal_get_i64(s2, 0), -2);
	Literal *u1 = scalar(a, DT_U1);
	literal_set_i64(u1, 0, 3);
	assert_int_equal(literal_get_i64(u1, 0), 1);
	Literal *s16 = scalar(a, DT_S16);
	literal_set_i64(s16, 0, 40000);
	assert_int_equal(literal_get_i64(s16, 0), 40000 - 65536);
}

static void access_converts_floats(void **state)
{
	Arena *a = *state;
	Literal *bf = scalar(a, DT_BF16);
	literal_set_f64(bf, 0, 1.0 / 3.0);
	assert_true(literal_get_f64(bf, 0) == 0.333984375);
	assert_int_equal(*(uint16_t *)bf->data, 0x3eab);
	Literal *h = scalar(a, DT_F16);
	literal_set_i64(h, 0, 2049);
	assert_true(literal_get_f64(h, 0) == 2048); /* tie to even */
	literal_set_f64(h, 0, 1e6);
	assert_true(isinf(literal_get_f64(h, 0)));
	Literal *fn = scalar(a, DT_F8E4M3FN);
	literal_set_f64(fn, 0, 1000);
	assert_true(isnan(literal_get_f64(fn, 0)));
	literal_set_f64(fn, 0, 448);
	assert_int_equal(*(uint8_t *)fn->data, 0x7e);
	Literal *f4 = scalar(a, DT_F4E2M1FN);
	literal_set_i64(f4, 0, -5);
	assert_true(literal_get_f64(f4, 0) == -4);
	Literal *f = scalar(a, DT_F32);
	literal_set_f64(f, 0, 0.1);
	assert_true(literal_get_f64(f, 0) == (double)0.1f);
	literal_set_f64(f, 0, 3.9e9);
	assert_int_equal(literal_get_i64(f, 0), 3900000000LL);
	literal_set_f64(f, 0, NAN);
	assert_int_equal(literal_get_i64(f, 0), 0);
	Literal *p = scalar(a, DT_PRED);
	literal_set_f64(p, 0, 0.5);
	assert_int_equal(literal_get_i64(p, 0), 1);
	literal_set_i64(p, 0, 0);
	assert_true(literal_get_f64(p, 0) == 0);
}

static void complex_parts(void **state)
{
	Arena *a = *state;
	Literal *c = scalar(a, DT_C64);
	literal_set_c(c, 0, 1.5, -2);
	double re, im;
	literal_get_c(c, 0, &re, &im);
	assert_true(re == 1.5 && im == -2);
	assert_true(literal_get_f64(c, 0) == 1.5);
	float parts[2];
	memcpy(parts, c->data, sizeof parts);
	assert_true(parts[0] == 1.5f && parts[1] == -2.0f);
	literal_set_f64(c, 0, 3);
	literal_get_c(c, 0, &re, &im);
	assert_true(re == 3 && im == 0);
	Literal *r = scalar(a, DT_F64);
	literal_set_c(r, 0, 4, 9);
	literal_get_c(r, 0, &re, &im);
	assert_true(re == 4 && im == 0);
}

/* --- printing scalars ------------------------------------------------------ */

static void print_f32_scalars(void **state)
{
	Arena *a = *state;
	expect_f64(a, DT_F32, 1.5, "1.5");
	expect_f64(a, DT_F32, 1, "1");
	expect_f64(a, DT_F32, 100, "100");
	expect_f64(a, DT_F32, 0.1, "0.1");
	expect_f64(a, DT_F32, 0.001, "0.001");
	expect_f64(a, DT_F32, 1e-5, "1e-05");
	expect_f64(a, DT_F32, 1e10, "1e+10");
	expect_f64(a, DT_F32, 500000, "500000");
	expect_f64(a, DT_F32, -0.0, "-0");
	expect_f64(a, DT_F32, INFINITY, "inf");
	expect_f64(a, DT_F32, -INFINITY, "-inf");
	expect_f64(a, DT_F32, 1.0 / 3.0, "0.333333343");
	expect_f64(a, DT_F32, 0x1p-46, "1.42108547e-14");
	expect_f64(a, DT_F32, 0x1p-14, "6.10351562e-05");
	expect_f64(a, DT_F32, 0x1p-23, "1.1920929e-07");
	expect_f64(a, DT_F32, 6.28318548, "6.28318548");
	expect_f64(a, DT_F32, -2.38197633e+38, "-2.38197633e+38");
}

static void print_nans(void **state)
{
	Arena *a = *state;
	expect_f64(a, DT_F32, NAN, "nan");
	expect_f64(a, DT_F32, -NAN, "-nan");
	expect_text(f32_bits(a, 0x7fc00001), 0, "nan(0x400001)");
	expect_text(f32_bits(a, 0x7f800001), 0, "nan(0x1)");
	expect_f64(a, DT_F64, NAN, "nan");
	expect_f64(a, DT_BF16, NAN, "nan");
	Literal *h = scalar(a, DT_F16);
	*(uint16_t *)h->data = 0x7c01;
	expect_text(h, 0, "nan(0x1)");
	Literal *fn = scalar(a, DT_F8E4M3FN);
	*(uint8_t *)fn->data = 0xff;
	expect_text(fn, 0, "-nan");
	Literal *uz = scalar(a, DT_F8E4M3FNUZ);
	*(uint8_t *)uz->data = 0x80;
	expect_text(uz, 0, "-nan");
	expect_f64(a, DT_F8E8M0FNU, NAN, "nan");
}

static void print_other_floats(void **state)
{
	Arena *a = *state;
	expect_f64(a, DT_F64, 0.1, "0.1");
	expect_f64(a, DT_F64, 1.0 / 3.0, "0.33333333333333331");
	expect_f64(a, DT_F64, 0x1p-24, "5.9604644775390625e-08");
	expect_f64(a, DT_F64, 1e300, "1e+300");
	expect_f64(a, DT_BF16, 0.1, "0.1001");
	expect_f64(a, DT_BF16, 57344, "5.734e+04");
	expect_f64(a, DT_BF16, 1.002e-12, "1.002e-12");
	expect_f64(a, DT_BF16, -9984, "-9984");
	expect_f64(a, DT_BF16, 448, "448");
	expect_f64(a, DT_F16, 65504, "65504");
	expect_f64(a, DT_F16, 0.1, "0.099976");
	expect_f64(a, DT_F16, -0.0, "-0");
	expect_f64(a, DT_F8E4M3FN, 448, "448");
	expect_f64(a, DT_F8E4M3FN, 0.2, "0.203");
	expect_f64(a, DT_F8E5M2, 57344, "5.7e+04");
	expect_f64(a, DT_F8E5M2, -INFINITY, "-inf");
	expect_f64(a, DT_F8E8M0FNU, 0x1p-127, "5.9e-39");
	expect_f64(a, DT_F4E2M1FN, -1.5, "-1.5");
}

static void print_ints_preds_complex(void **state)
{
	Arena *a = *state;
	Literal *s = scalar(a, DT_S32);
	literal_set_i64(s, 0, -7);
	expect_text(s, 0, "-7");
	Literal *m = scalar(a, DT_S64);
	literal_set_i64(m, 0, INT64_MIN);
	expect_text(m, 0, "-9223372036854775808");
	Literal *u = scalar(a, DT_U4);
	literal_set_i64(u, 0, 15);
	expect_text(u, 0, "15");
	Literal *p = scalar(a, DT_PRED);
	expect_text(p, 0, "false");
	literal_set_i64(p, 0, 1);
	expect_text(p, 0, "true");
	Literal *c = scalar(a, DT_C64);
	literal_set_c(c, 0, 1.5, -2);
	expect_text(c, 0, "(1.5, -2)");
	Literal *z = scalar(a, DT_C128);
	literal_set_c(z, 0, 0x1p-24, 0);
	expect_text(z, 0, "(5.9604644775390625e-08, 0)");
	StrBuf b;
	sb_init(&b);
	literal_print_scalar(&b, c, 0);
	assert_string_equal(sb_str(&b), "(1.5, -2)");
	sb_free(&b);
}

/* --- printing arrays ------------------------------------------------------- */

static void print_vectors_and_matrices(void **state)
{
	Arena *a = *state;
	int64_t d3[] = {3}, d22[] = {2, 2}, d23[] = {2, 3}, d11[] = {1, 1};
	expect_text(iota(a, DT_S32, 1, d3), 0, "{1, 2, 3}");
	expect_text(iota(a, DT_S32, 2, d22), 0, "{ { 1, 2 }, { 3, 4 } }");
	expect_text(iota(a, DT_S32, 2, d23), 0, "{ { 1, 2, 3 }, { 4, 5, 6 } }");
	expect_text(iota(a, DT_F32, 2, d11), 0, "{ {1} }");
	int64_t d21[] = {2, 1};
	expect_text(iota(a, DT_U8, 2, d21), 0, "{ {1}, {2} }");
	int64_t d212[] = {2, 1, 2};
	expect_text(iota(a, DT_S32, 3, d212), 0,
		    "{ { { 1, 2 } }, { { 3, 4 } } }");
}

static void print_rank4_index_comments(void **state)
{
	Arena *a = *state;
	int64_t d[] = {1, 2, 1, 2};
	expect_text(iota(a, DT_S32, 4, d), 0,
		    "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 } }, "
		    "{ /*i1=1*/ { 3, 4 } } } }");
	int64_t z[] = {1, 0, 2, 2};
	expect_text(make(a, DT_S32, 4, z), 0, "{ { /*i0=0*/ } }");
}

static void print_zero_element_arrays(void **state)
{
	Arena *a = *state;
	int64_t d0[] = {0}, d03[] = {0, 3}, d20[] = {2, 0};
	expect_text(make(a, DT_BF16, 1, d0), 0, "{}");
	expect_text(make(a, DT_F32, 2, d03), 0, "{  }");
	expect_text(make(a, DT_F32, 2, d20), 0, "{ {}, {} }");
}

static void print_preds_and_specials_in_arrays(void **state)
{
	Arena *a = *state;
	int64_t d3[] = {3};
	Literal *p = make(a, DT_PRED, 1, d3);
	literal_set_i64(p, 0, 1);
	literal_set_i64(p, 2, 1);
	expect_text(p, 0, "{1, 0, 1}");
	Literal *f = make(a, DT_F32, 1, d3);
	literal_set_f64(f, 0, NAN);
	literal_set_f64(f, 1, -INFINITY);
	literal_set_f64(f, 2, -0.0);
	expect_text(f, 0, "{nan, -inf, -0}");
}

static void print_elision(void **state)
{
	Arena *a = *state;
	int64_t d5[] = {5};
	Literal *l = iota(a, DT_S32, 1, d5);
	expect_text(l, 4, "{...}");
	expect_text(l, 5, "{1, 2, 3, 4, 5}");
	expect_text(l, 0, "{1, 2, 3, 4, 5}");
	Literal *s = scalar(a, DT_F32);
	expect_text(s, 1, "0");
	l->elided = true;
	expect_text(l, 0, "{...}");
	Shape *el[] = {shape_array(a, DT_S32, 1, d5), shape_scalar(a, DT_S8)};
	Literal *t = literal_new(a, shape_tuple(a, 2, el));
	assert_non_null(t);
	expect_text(t, 2, "( {...}, 0 )");
}

/* --- round trips of the printed text ------------------------------------- */

static uint64_t next_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return *s >> 11;
}

static void print_text(StrBuf *b, const Literal *l)
{
	sb_clear(b);
	literal_print(b, l, 0);
}

/* The text reads back to the same bits, and when %.6g reads back XLA's
 * shorter form is the one used. */
static void f32_text_reads_back(void **state)
{
	Arena *a = *state;
	Literal *l = scalar(a, DT_F32);
	StrBuf b;
	sb_init(&b);
	uint64_t seed = 42;
	for (int i = 0; i < 100000; i++) {
		uint32_t u = (uint32_t)next_rand(&seed);
		if ((u & 0x7f800000) == 0x7f800000)
			continue;
		memcpy(l->data, &u, 4);
		print_text(&b, l);
		float back = strtof(sb_str(&b), NULL);
		uint32_t v;
		memcpy(&v, &back, 4);
		assert_int_equal(v, u);
		float f;
		memcpy(&f, &u, 4);
		char short6[32];
		snprintf(short6, sizeof short6, "%.6g", f);
		if (strtof(short6, NULL) == f)
			assert_string_equal(sb_str(&b), short6);
	}
	sb_free(&b);
}

static void f64_text_reads_back(void **state)
{
	Arena *a = *state;
	Literal *l = scalar(a, DT_F64);
	StrBuf b;
	sb_init(&b);
	uint64_t seed = 7;
	for (int i = 0; i < 50000; i++) {
		uint64_t u = next_rand(&seed) << 11 ^ next_rand(&seed);
		if (((u >> 52) & 0x7ff) == 0x7ff)
			continue;
		memcpy(l->data, &u, 8);
		print_text(&b, l);
		double back = strtod(sb_str(&b), NULL);
		assert_memory_equal(&back, &u, 8);
	}
	sb_free(&b);
}

/* Every non-NaN code of every narrow type: print, strtod, convert back. */
static void narrow_text_reads_back(void **state)
{
	Arena *a = *state;
	const Dtype ts[] = {DT_F16,       DT_BF16,       DT_F8E5M2,
			    DT_F8E4M3,    DT_F8E4M3FN,   DT_F8E4M3B11FNUZ,
			    DT_F8E3M4,    DT_F8E5M2FNUZ, DT_F8E4M3FNUZ,
			    DT_F8E8M0FNU, DT_F4E2M1FN};
	StrBuf b;
	sb_init(&b);
	for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
		Dtype t = ts[k];
		Literal *l = scalar(a, t);
		int bytes = dtype_bytes(t);
		uint32_t n = bytes == 2 ? 65536 : t == DT_F4E2M1FN ? 16 : 256;
		for (uint32_t c = 0; c < n; c++) {
			memcpy(l->data, &c, (size_t)bytes); /* little-endian */
			if (isnan(literal_get_f64(l, 0)))
				continue;
			print_text(&b, l);
			double v = strtod(sb_str(&b), NULL);
			assert_int_equal(dtype_double_to_small_float(t, v), c);
		}
	}
	sb_free(&b);
}

/* --- fill, clone, equal ------------------------------------------------------ */

static void fill_is_deterministic(void **state)
{
	Arena *a = *state;
	int64_t d[] = {64};
	Literal *x = make(a, DT_F32, 1, d);
	Literal *y = make(a, DT_F32, 1, d);
	literal_fill_pseudo_random(x, 5);
	literal_fill_pseudo_random(y, 5);
	assert_true(literal_equal(x, y));
	literal_fill_pseudo_random(y, 6);
	assert_false(literal_equal(x, y));
	double lo = 1, hi = -1;
	for (int64_t i = 0; i < 64; i++) {
		double v = literal_get_f64(x, i);
		assert_true(v >= -1 && v < 1);
		lo = fmin(lo, v);
		hi = fmax(hi, v);
	}
	assert_true(lo < -0.5 && hi > 0.5); /* spread, not constant */
}

static void fill_ranges_per_type(void **state)
{
	Arena *a = *state;
	int64_t d[] = {200};
	const Dtype ts[] = {DT_S32, DT_U8, DT_S2, DT_U1, DT_PRED, DT_S64};
	const int64_t lo[] = {-5, 0, -2, 0, 0, -5};
	const int64_t hi[] = {4, 9, 1, 1, 1, 4};
	for (int k = 0; k < 6; k++) {
		Literal *l = make(a, ts[k], 1, d);
		literal_fill_pseudo_random(l, 99);
		bool seen_lo = false, seen_hi = false;
		for (int64_t i = 0; i < 200; i++) {
			int64_t v = literal_get_i64(l, i);
			assert_true(v >= lo[k] && v <= hi[k]);
			seen_lo |= v == lo[k];
			seen_hi |= v == hi[k];
		}
		assert_true(seen_lo && seen_hi);
	}
	Literal *e = make(a, DT_F8E8M0FNU, 1, d);
	literal_fill_pseudo_random(e, 1);
	for (int64_t i = 0; i < 200; i++) {
		double v = literal_get_f64(e, i);
		assert_true(v >= 0x1p-8 && v <= 0.5);
	}
	Literal *c = make(a, DT_C64, 1, d);
	literal_fill_pseudo_random(c, 1);
	double re, im;
	literal_get_c(c, 3, &re, &im);
	assert_true(re != im && re >= -1 && re < 1 && im >= -1 && im < 1);
}

static void fill_tuple_elements(void **state)
{
	Arena *a = *state;
	int64_t d[] = {8};
	Shape *el[] = {shape_array(a, DT_F32, 1, d),
		       shape_array(a, DT_F32, 1, d)};
	Literal *t = literal_new(a, shape_tuple(a, 2, el));
	literal_fill_pseudo_random(t, 3);
	assert_false(literal_equal(t->tuple[0], t->tuple[1]));
	assert_true(literal_get_f64(t->tuple[0], 0) != 0);
}

static void clone_is_deep(void **state)
{
	Arena *a = *state;
	int64_t d[] = {2, 2};
	Shape *el[] = {shape_array(a, DT_S32, 2, d), shape_scalar(a, DT_F16)};
	Literal *t = literal_new(a, shape_tuple(a, 2, el));
	literal_fill_pseudo_random(t, 11);
	t->tuple[0]->elided = true;
	Arena other;
	arena_init(&other);
	Literal *c = literal_clone(&other, t);
	assert_non_null(c);
	assert_true(literal_equal(t, c));
	assert_ptr_not_equal(c->shape, t->shape);
	assert_ptr_not_equal(c->tuple[0]->data, t->tuple[0]->data);
	assert_true(c->tuple[0]->elided);
	literal_set_i64(c->tuple[0], 1, 1234);
	assert_false(literal_equal(t, c));
	assert_int_not_equal(literal_get_i64(t->tuple[0], 1), 1234);
	arena_free(&other);
}

static void equal_compares_shape_and_bits(void **state)
{
	Arena *a = *state;
	int64_t d4[] = {4}, d22[] = {2, 2};
	Literal *v = iota(a, DT_S32, 1, d4);
	Literal *m = iota(a, DT_S32, 2, d22);
	assert_false(literal_equal(v, m)); /* same bytes, other dims */
	Literal *u = iota(a, DT_U32, 1, d4);
	assert_false(literal_equal(v, u));
	Literal *z = scalar(a, DT_F32), *nz = scalar(a, DT_F32);
	literal_set_f64(nz, 0, -0.0);
	assert_false(literal_equal(z, nz));
	literal_set_f64(z, 0, NAN);
	literal_set_f64(nz, 0, NAN);
	assert_true(literal_equal(z, nz));
	nz->elided = true;
	assert_false(literal_equal(z, nz));
	assert_true(literal_equal(NULL, NULL));
	assert_false(literal_equal(z, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_zero_filled),
		cmocka_unit_test(new_refuses_absurd_sizes),
		cmocka_unit_test(new_tuple_makes_elements),
		cmocka_unit_test(token_literal),
		cmocka_unit_test(set_f64_saturates_ints),
		cmocka_unit_test(set_i64_wraps_sub_byte),
		cmocka_unit_test(access_converts_floats),
		cmocka_unit_test(complex_parts),
		cmocka_unit_test(print_f32_scalars),
		cmocka_unit_test(print_nans),
		cmocka_unit_test(print_other_floats),
		cmocka_unit_test(print_ints_preds_complex),
		cmocka_unit_test(print_vectors_and_matrices),
		cmocka_unit_test(print_rank4_index_comments),
		cmocka_unit_test(print_zero_element_arrays),
		cmocka_unit_test(print_preds_and_specials_in_arrays),
		cmocka_unit_test(print_elision),
		cmocka_unit_test(f32_text_reads_back),
		cmocka_unit_test(f64_text_reads_back),
		cmocka_unit_test(narrow_text_reads_back),
		cmocka_unit_test(fill_is_deterministic),
		cmocka_unit_test(fill_ranges_per_type),
		cmocka_unit_test(fill_tuple_elements),
		cmocka_unit_test(clone_is_deep),
		cmocka_unit_test(equal_compares_shape_and_bits),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
