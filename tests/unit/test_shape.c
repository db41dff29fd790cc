/* test_shape.c - shapes (core/shape.c) and their text form
 * (parse_shape_text): element types, tuples, dynamic dims, layouts with
 * tiling/element-size/memory-space, buffers, sizes and comparisons. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "shape.h"

typedef struct {
	Arena a;
	Diag d;
} Fx;

static int setup(void **st)
{
	static Fx fx;
	arena_init(&fx.a);
	diag_init(&fx.d);
	*st = &fx;
	return 0;
}

static int teardown(void **st)
{
	Fx *fx = *st;
	diag_free(&fx->d);
	arena_free(&fx->a);
	return 0;
}

static Shape *parse_ok(Fx *fx, const char *text)
{
	Shape *s = parse_shape_text(&fx->a, text, &fx->d);
	if (!s)
		fail_msg("'%s' did not parse: %s", text, diag_text(&fx->d));
	return s;
}

static void parse_bad(Fx *fx, const char *text, const char *msg)
{
	diag_clear(&fx->d);
	Shape *s = parse_shape_text(&fx->a, text, &fx->d);
	if (s)
		fail_msg("'%s' parsed; expected an error", text);
	if (!strstr(diag_text(&fx->d), msg))
		fail_msg("'%s': expected '%s' in\n%s", text, msg,
			 diag_text(&fx->d));
	assert_true(fx->d.errors >= 1);
}

static const char *print(const Shape *s, bool layout)
{
	static char out[4096];
	StrBuf b;
	sb_init(&b);
	shape_print(&b, s, layout);
	snprintf(out, sizeof out, "%s", sb_str(&b));
	sb_free(&b);
	return out;
}

/* parse(text) prints back as text (with layouts). */
static void round_trip(Fx *fx, const char *text)
{
	const char *got = print(parse_ok(fx, text), true);
	if (strcmp(got, text))
		fail_msg("'%s' printed back as '%s'", text, got);
}

/* --- element types ----------------------------------------------------- */

static const struct {
	Dtype t;
	const char *name;
} all_types[] = {
#define X(e, s, b, k, eb, mb) {e, s},
	XR_DTYPES(X)
#undef X
};

static void every_element_type(void **st)
{
	Fx *fx = *st;
	size_t n = sizeof all_types / sizeof *all_types;
	assert_true(n >= 30);
	for (size_t i = 0; i < n; i++) {
		char text[64], want[128];
		bool array = all_types[i].t != DT_TOKEN &&
			     all_types[i].t != DT_OPAQUE;
		snprintf(text, sizeof text, "%s[%s]", all_types[i].name,
			 array ? "2,3" : "");
		Shape *s = parse_ok(fx, text);
		assert_int_equal(s->type, all_types[i].t);
		assert_int_equal(s->rank, array ? 2 : 0);
		assert_int_equal(shape_is_array(s), array);
		assert_false(shape_is_tuple(s));
		snprintf(want, sizeof want, "%s%s", text, array ? "{1,0}" : "");
		assert_string_equal(print(s, true), want);
		assert_string_equal(print(s, false), text);
	}
}

static void scalars(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "f32[]");
	assert_int_equal(s->rank, 0);
	assert_true(shape_is_scalar(s));
	assert_int_equal(shape_elements(s), 1);
	assert_int_equal(shape_bytes(s), 4);
	assert_string_equal(print(s, true), "f32[]"); /* no {} for scalars */
	s = parse_ok(fx, "pred[]");
	assert_int_equal(shape_bytes(s), 1);
	assert_false(shape_is_scalar(parse_ok(fx, "f32[1]")));
	assert_false(shape_is_scalar(parse_ok(fx, "token[]")));
}

static void bad_shapes(void **st)
{
	Fx *fx = *st;
	parse_bad(fx, "q32[2]", "unknown element type 'q32'");
	parse_bad(fx, "f32[2", "");
	parse_bad(fx, "f32[-3]", "negative dimension size -3");
	parse_bad(fx, "f32[2,x]", "expected a dimension size");
	parse_bad(fx, "f32[2]{1,0}",
		  "layout {...} has 2 entries for a rank-1 shape");
	parse_bad(fx, "f32[2,2]{1,1}", "not a permutation");
	parse_bad(fx, "f32[2,2]{0,2}", "not a permutation");
	parse_bad(fx, "(f32[], s32[]", "");
	parse_bad(fx, "f32[2] junk", "unexpected text after the shape");
	parse_bad(fx, "f32[65536,65536,65537]", "more than 2^48 elements");
	parse_ok(fx, "f32[65536,65536,65536]"); /* exactly 2^48: the limit */
	parse_bad(fx, "", "expected a shape");
}

/* --- tuples ---------------------------------------------------------------- */

static void tuples(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "(f32[2]{0}, (s32[], pred[3,4]{0,1}), ())");
	assert_true(shape_is_tuple(s));
	assert_false(shape_is_array(s));
	assert_int_equal(s->ntuple, 3);
	assert_int_equal(s->tuple[0]->type, DT_F32);
	assert_int_equal(s->tuple[1]->ntuple, 2);
	assert_int_equal(s->tuple[1]->tuple[1]->dims[1], 4);
	assert_int_equal(s->tuple[1]->tuple[1]->layout->minor_to_major[0], 0);
	assert_true(shape_is_tuple(s->tuple[2]));
	assert_int_equal(s->tuple[2]->ntuple, 0);
	assert_int_equal(shape_elements(s), 0);
	assert_int_equal(shape_bytes(s), 8 + 4 + 12);
	assert_string_equal(print(s, true),
			    "(f32[2]{0}, (s32[], pred[3,4]{0,1}), ())");
	assert_string_equal(print(s, false),
			    "(f32[2], (s32[], pred[3,4]), ())");
}

static void empty_tuple(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "()");
	assert_int_equal(s->type, DT_TUPLE);
	assert_int_equal(s->ntuple, 0);
	assert_string_equal(print(s, true), "()");
	s = parse_ok(fx, "( ( ) )");
	assert_int_equal(s->ntuple, 1);
	assert_string_equal(print(s, true), "(())");
}

/* XLA marks every fifth element of a long tuple with an index comment;
 * the parser skips it. */
static void long_tuple_index_comments(void **st)
{
	Fx *fx = *st;
	const char *text =
		"(f32[], f32[], f32[], f32[], f32[], /*index=5*/s32[], "
		"f32[], f32[], f32[], f32[], /*index=10*/pred[])";
	Shape *s = parse_ok(fx, text);
	assert_int_equal(s->ntuple, 11);
	assert_int_equal(s->tuple[5]->type, DT_S32);
	assert_int_equal(s->tuple[10]->type, DT_PRED);
	assert_string_equal(print(s, true), text);
}

/* --- dynamic dimensions ------------------------------------------------- */

static void dynamic_dims(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "f32[?,<=4,3]");
	assert_int_equal(s->rank, 3);
	assert_non_null(s->dyn);
	assert_int_equal(s->dyn[0], DIM_UNBOUNDED);
	assert_int_equal(s->dims[0], -1);
	assert_int_equal(s->dyn[1], DIM_BOUNDED);
	assert_int_equal(s->dims[1], 4);
	assert_int_equal(s->dyn[2], DIM_STATIC);
	assert_true(shape_is_dynamic(s));
	assert_string_equal(print(s, false), "f32[?,<=4,3]");
	assert_string_equal(print(s, true), "f32[?,<=4,3]{2,1,0}");
	assert_int_equal(shape_elements(s), 0); /* '?' holds nothing known */

	s = parse_ok(fx, "s32[<=10]");
	assert_int_equal(shape_elements(s), 10); /* bounded: its bound */
	s = parse_ok(fx, "f32[2,3]");
	assert_null(s->dyn);
	assert_false(shape_is_dynamic(s));
	s = parse_ok(fx, "(f32[2], (s32[<=3]))");
	assert_true(shape_is_dynamic(s));
	assert_false(shape_is_dynamic(parse_ok(fx, "(f32[2], ())")));
}

static void dynamic_round_trips(void **st)
{
	Fx *fx = *st;
	round_trip(fx, "f32[<=4,?]{0,1}");
	round_trip(fx, "(s32[?]{0}, f32[<=8,2]{1,0})");
	/* same dims but a different kind are different shapes */
	Shape *a = parse_ok(fx, "f32[<=4]"), *b = parse_ok(fx, "f32[4]");
	assert_false(shape_compatible(a, b));
	assert_false(shape_same_dims(a, b));
}

/* --- layouts ---------------------------------------------------------------- */

static void layout_minor_to_major(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "f32[2,3,4]{0,2,1}");
	assert_non_null(s->layout);
	assert_int_equal(s->layout->n, 3);
	assert_int_equal(s->layout->minor_to_major[0], 0);
	assert_int_equal(s->layout->minor_to_major[1], 2);
	assert_int_equal(s->layout->minor_to_major[2], 1);
	assert_null(s->layout->ext);
	assert_true(layout_valid(s->layout, 3));
	assert_false(layout_valid(s->layout, 2));
	assert_string_equal(print(s, true), "f32[2,3,4]{0,2,1}");
	/* no layout written: printed as the default, major-to-minor */
	s = parse_ok(fx, "f32[2,3,4]");
	assert_null(s->layout);
	assert_string_equal(print(s, true), "f32[2,3,4]{2,1,0}");
}

static void layout_tiles(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "f32[8,256]{1,0:T(8,128)(2,1)}");
	const Layout *l = s->layout;
	assert_non_null(l);
	assert_int_equal(l->minor_to_major[0], 1);
	assert_string_equal(l->ext, "T(8,128)(2,1)");
	assert_non_null(l->tiles);
	assert_string_equal(l->tiles, "(8,128)(2,1)");
	assert_int_equal(l->element_size_bits, 0);
	assert_int_equal(l->memory_space, 0);
	assert_string_equal(print(s, true), "f32[8,256]{1,0:T(8,128)(2,1)}");
	assert_string_equal(print(s, false), "f32[8,256]");
}

static void layout_element_size(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "s4[2,3,4,5]{3,2,1,0:E(4)}");
	assert_int_equal(s->layout->element_size_bits, 4);
	assert_null(s->layout->tiles);
	assert_string_equal(print(s, true), "s4[2,3,4,5]{3,2,1,0:E(4)}");
}

static void layout_memory_space(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "f32[16]{0:S(5)}");
	assert_int_equal(s->layout->memory_space, 5);
	assert_string_equal(print(s, true), "f32[16]{0:S(5)}");
	s = parse_ok(fx, "bf16[8,128]{1,0:T(8,128)(2,1)E(16)S(1)}");
	assert_int_equal(s->layout->memory_space, 1);
	assert_int_equal(s->layout->element_size_bits, 16);
	assert_string_equal(s->layout->tiles, "(8,128)(2,1)");
	assert_string_equal(print(s, true),
			    "bf16[8,128]{1,0:T(8,128)(2,1)E(16)S(1)}");
}

/* Whitespace inside the extras is dropped; the rest is kept verbatim. */
static void layout_ext_whitespace(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "f32[8,128]{1,0 : T(8, 128) S(2)}");
	assert_string_equal(s->layout->ext, "T(8,128)S(2)");
	assert_int_equal(s->layout->memory_space, 2);
	assert_string_equal(print(s, true), "f32[8,128]{1,0:T(8,128)S(2)}");
}

static void layout_empty_braces(void **st)
{
	Fx *fx = *st;
	/* "{}" on an array keeps the default order */
	Shape *s = parse_ok(fx, "f32[2,3]{}");
	assert_true(s->layout == NULL || (s->layout->minor_to_major[0] == 1 &&
					  s->layout->minor_to_major[1] == 0));
	assert_string_equal(print(s, true), "f32[2,3]{1,0}");
	assert_true(shape_equal(s, parse_ok(fx, "f32[2,3]{1,0}")));
	/* a scalar may carry extras only */
	s = parse_ok(fx, "f32[]{:S(1)}");
	assert_int_equal(s->layout->memory_space, 1);
	assert_string_equal(print(s, true), "f32[]{:S(1)}");
}

static void layout_round_trips(void **st)
{
	Fx *fx = *st;
	const char *texts[] = {
		"f32[2,3]{0,1}",
		"(f32[2,3]{0,1}, s8[4]{0:T(512)}, token[])",
		"u8[1,2,3,4,5]{4,0,3,1,2}",
		"c64[3]{0:S(3)}",
		"f8e4m3fn[128,128]{0,1:T(8,128)(4,1)}",
		"b(f32[4]{0})",
		"(b(s32[]), f32[])",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		round_trip(fx, texts[i]);
}

/* --- buffers --------------------------------------------------------------- */

static void buffer_shape(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "b(f32[4])");
	assert_true(s->buffer);
	assert_int_equal(s->type, DT_F32);
	assert_int_equal(s->dims[0], 4);
	assert_string_equal(print(s, true), "b(f32[4]{0})");
	assert_string_equal(print(s, false), "b(f32[4])");
	Shape *t = parse_ok(fx, "f32[4]");
	assert_false(shape_compatible(s, t));
	assert_true(shape_compatible(s, parse_ok(fx, "b(f32[4]{0})")));
	parse_bad(fx, "b(f32[4]", "");
}

/* --- sizes ----------------------------------------------------------------- */

static void elements_and_bytes(void **st)
{
	Fx *fx = *st;
	assert_int_equal(shape_elements(parse_ok(fx, "f32[2,3,4]")), 24);
	assert_int_equal(shape_bytes(parse_ok(fx, "f32[2,3,4]")), 96);
	assert_int_equal(shape_bytes(parse_ok(fx, "c128[2]")), 32);
	assert_int_equal(shape_bytes(parse_ok(fx, "s4[3]")), 3);
	assert_int_equal(shape_elements(parse_ok(fx, "f32[0,5]")), 0);
	assert_int_equal(shape_elements(parse_ok(fx, "token[]")), 0);
	assert_int_equal(shape_bytes(parse_ok(fx, "(f64[2], (u16[3]))")), 22);
}

static void elements_overflow(void **st)
{
	Fx *fx = *st;
	int64_t big[] = {INT64_C(1) << 24, INT64_C(1) << 24};
	Shape *s = shape_array(&fx->a, DT_F32, 2, big);
	assert_true(shape_elements(s) ==
		    XR_MAX_ELEMENTS); /* the limit itself */
	int64_t over[] = {(INT64_C(1) << 24) + 1, INT64_C(1) << 24};
	s = shape_array(&fx->a, DT_F32, 2, over);
	assert_int_equal(shape_elements(s), -1);
	assert_int_equal(shape_bytes(s), -1);
	int64_t wrap[] = {INT64_C(1) << 32, INT64_C(1) << 32, 4};
	s = shape_array(&fx->a, DT_F32, 3, wrap);
	assert_int_equal(shape_elements(s), -1);
	int64_t huge[] = {INT64_MAX, INT64_MAX};
	s = shape_array(&fx->a, DT_S8, 2, huge);
	assert_int_equal(shape_elements(s), -1);
	/* a tuple with an overflowing element overflows */
	Shape *el[2] = {parse_ok(fx, "f32[2]"),
			shape_array(&fx->a, DT_F32, 2, over)};
	assert_int_equal(shape_bytes(shape_tuple(&fx->a, 2, el)), -1);
	/* a tuple larger than INT64_MAX bytes saturates: 2,048 leaves of
	 * 2^52 bytes (c128[2^48]) are 2^63, 2,047 are exact */
	int64_t most[] = {INT64_C(1) << 48};
	Shape *leaves[2048];
	for (int i = 0; i < 2048; i++)
		leaves[i] = shape_array(&fx->a, DT_C128, 1, most);
	assert_true(shape_bytes(shape_tuple(&fx->a, 2047, leaves)) ==
		    (INT64_C(1) << 52) * 2047);
	assert_true(shape_bytes(shape_tuple(&fx->a, 2048, leaves)) ==
		    INT64_MAX);
}

/* A zero dimension makes the array empty whatever the other sizes, in
 * either order: f32[0,2^50] and f32[2^50,0] are alike. */
static void elements_zero_dim_any_order(void **st)
{
	Fx *fx = *st;
	int64_t zero[] = {0, INT64_C(1) << 50};
	Shape *s = shape_array(&fx->a, DT_S8, 2, zero);
	assert_int_equal(shape_elements(s), 0);
	zero[0] = INT64_C(1) << 50;
	zero[1] = 0;
	s = shape_array(&fx->a, DT_S8, 2, zero);
	assert_int_equal(shape_elements(s), 0);
	Diag d;
	diag_init(&d);
	assert_non_null(
		parse_shape_text(&fx->a, "f32[0,1125899906842624]", &d));
	assert_non_null(
		parse_shape_text(&fx->a, "f32[1125899906842624,0]", &d));
	diag_free(&d);
}

/* --- comparisons ------------------------------------------------------------ */

static void compatible_and_equal(void **st)
{
	Fx *fx = *st;
	Shape *a = parse_ok(fx, "f32[2,3]{1,0}");
	Shape *b = parse_ok(fx, "f32[2,3]{0,1}");
	Shape *c = parse_ok(fx, "f32[2,3]");
	Shape *d = parse_ok(fx, "s32[2,3]{1,0}");
	Shape *e = parse_ok(fx, "f32[3,2]{1,0}");
	assert_true(shape_compatible(a, b)); /* layouts ignored */
	assert_false(shape_equal(a, b));
	assert_true(shape_equal(a, c)); /* no layout == default */
	assert_true(shape_equal(c, a));
	assert_false(shape_compatible(a, d));
	assert_true(shape_same_dims(a, d));
	assert_false(shape_compatible(a, e));
	assert_false(shape_same_dims(a, e));
	assert_false(shape_same_dims(a, parse_ok(fx, "f32[2,3,1]")));

	Shape *t1 = parse_ok(fx, "(f32[2,3]{1,0}, s32[])");
	Shape *t2 = parse_ok(fx, "(f32[2,3]{0,1}, s32[])");
	Shape *t3 = parse_ok(fx, "(f32[2,3], s32[], s32[])");
	assert_true(shape_compatible(t1, t2));
	assert_false(shape_equal(t1, t2));
	assert_false(shape_compatible(t1, t3));
	assert_false(shape_compatible(t1, a));
	assert_true(shape_equal(t1, parse_ok(fx, "(f32[2,3], s32[])")));
}

static void equal_layout_extras(void **st)
{
	Fx *fx = *st;
	Shape *a = parse_ok(fx, "f32[8,128]{1,0:T(8,128)}");
	Shape *b = parse_ok(fx, "f32[8,128]{1,0}");
	Shape *c = parse_ok(fx, "f32[8,128]{1,0:T(8,128)}");
	Shape *d = parse_ok(fx, "f32[8,128]{1,0:T(4,128)}");
	assert_true(shape_compatible(a, b));
	assert_false(shape_equal(a, b));
	assert_false(shape_equal(b, a));
	assert_true(shape_equal(a, c));
	assert_false(shape_equal(a, d));
	/* scalars compare equal whatever is written after them */
	assert_true(
		shape_equal(parse_ok(fx, "f32[]"), parse_ok(fx, "f32[]{}")));
}

/* --- construction ------------------------------------------------------------ */

static void clone_is_deep(void **st)
{
	Fx *fx = *st;
	Shape *s = parse_ok(fx, "(f32[<=2,3]{0,1:T(2,128)}, s32[4])");
	Shape *c = shape_clone(&fx->a, s);
	assert_non_null(c);
	assert_true(shape_equal(s, c));
	assert_ptr_not_equal(c->tuple, s->tuple);
	assert_ptr_not_equal(c->tuple[0]->dims, s->tuple[0]->dims);
	assert_ptr_not_equal(c->tuple[0]->layout, s->tuple[0]->layout);
	c->tuple[0]->dims[1] = 7;
	c->tuple[0]->dyn[0] = DIM_STATIC;
	c->tuple[0]->layout->minor_to_major[0] = 1;
	assert_int_equal(s->tuple[0]->dims[1], 3);
	assert_int_equal(s->tuple[0]->dyn[0], DIM_BOUNDED);
	assert_int_equal(s->tuple[0]->layout->minor_to_major[0], 0);
	assert_null(shape_clone(&fx->a, NULL));
}

static void constructors(void **st)
{
	Fx *fx = *st;
	int64_t dims[] = {5, 6};
	Shape *a = shape_array(&fx->a, DT_BF16, 2, dims);
	dims[0] = 99; /* the shape keeps its own copy */
	assert_int_equal(a->dims[0], 5);
	assert_string_equal(shape_str(&fx->a, a), "bf16[5,6]");
	Shape *s = shape_scalar(&fx->a, DT_PRED);
	assert_true(shape_is_scalar(s));
	Shape *el[] = {a, s};
	Shape *t = shape_tuple(&fx->a, 2, el);
	el[0] = s;
	assert_ptr_equal(t->tuple[0], a);
	assert_string_equal(shape_str(&fx->a, t), "(bf16[5,6], pred[])");
	assert_string_equal(print(t, true), "(bf16[5,6]{1,0}, pred[])");
	Shape *e = shape_tuple(&fx->a, 0, NULL);
	assert_string_equal(shape_str(&fx->a, e), "()");
}

static void layout_valid_checks(void **st)
{
	(void)st;
	int p[] = {2, 0, 1};
	Layout l = {3, p, NULL, 0, 0, NULL};
	assert_true(layout_valid(&l, 3));
	p[1] = 2;
	assert_false(layout_valid(&l, 3));
	p[1] = 3;
	assert_false(layout_valid(&l, 3));
	p[1] = -1;
	assert_false(layout_valid(&l, 3));
	Layout z = {0, NULL, NULL, 0, 0, NULL};
	assert_true(layout_valid(&z, 0));
}

/* shape_print_same(a, b) holds exactly when the two print alike (cse
 * merges on it without printing): every pair of a list of shapes, with
 * and without layouts, each parsed on its own. */
static void print_same_matches_text(void **st)
{
	Fx *fx = *st;
	static const char *const texts[] = {
		"f32[]", "s32[]", "f32[2,3]{1,0}", "f32[2,3]{0,1}", "f32[3,2]{1,0}",
		"f32[2,3]", "f32[<=4,3]{1,0}", "f32[4,3]{1,0}", "f32[?,3]{1,0}",
		"f32[<=5,3]{1,0}", "f32[2,3]{1,0:T(8,128)}",
		"f32[2,3]{1,0:T(8,128)S(1)}", "f32[]{:S(1)}", "f32[]{:S(2)}",
		"(f32[], s32[2]{0})", "(f32[], s32[2]{0}, pred[])", "()",
		"(f32[2,3]{1,0})", "(f32[2,3]{0,1})", "b(f32[2]{0})", "f32[2]{0}",
		"token[]",
	};
	enum { N = sizeof texts / sizeof *texts };
	for (int wl = 0; wl < 2; wl++)
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				Shape *a = parse_ok(fx, texts[i]);
				Shape *b = parse_ok(fx, texts[j]);
				char pa[4096];
				snprintf(pa, sizeof pa, "%s", print(a, wl));
				bool same = !strcmp(pa, print(b, wl));
				if (shape_print_same(a, b, wl) != same)
					fail_msg("'%s' and '%s' (layouts %d): "
						 "shape_print_same %d, texts "
						 "equal %d", texts[i], texts[j],
						 wl, !same, same);
			}
}

/* shape_is_static_array: shape_is_array and not shape_is_dynamic. */
static void static_array(void **st)
{
	Fx *fx = *st;
	static const char *const texts[] = {
		"f32[]", "f32[2,3]", "f32[<=4,3]", "f32[?]", "(f32[])", "token[]",
		"(f32[?])",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		Shape *s = parse_ok(fx, texts[i]);
		assert_int_equal(shape_is_static_array(s),
				 shape_is_array(s) && !shape_is_dynamic(s));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_element_type),
		cmocka_unit_test(scalars),
		cmocka_unit_test(bad_shapes),
		cmocka_unit_test(tuples),
		cmocka_unit_test(empty_tuple),
		cmocka_unit_test(long_tuple_index_comments),
		cmocka_unit_test(dynamic_dims),
		cmocka_unit_test(dynamic_round_trips),
		cmocka_unit_test(layout_minor_to_major),
		cmocka_unit_test(layout_tiles),
		cmocka_unit_test(layout_element_size),
		cmocka_unit_test(layout_memory_space),
		cmocka_unit_test(layout_ext_whitespace),
		cmocka_unit_test(layout_empty_braces),
		cmocka_unit_test(layout_round_trips),
		cmocka_unit_test(buffer_shape),
		cmocka_unit_test(elements_and_bytes),
		cmocka_unit_test(elements_overflow),
		cmocka_unit_test(elements_zero_dim_any_order),
		cmocka_unit_test(compatible_and_equal),
		cmocka_unit_test(equal_layout_extras),
		cmocka_unit_test(clone_is_deep),
		cmocka_unit_test(constructors),
		cmocka_unit_test(layout_valid_checks),
		cmocka_unit_test(print_same_matches_text),
		cmocka_unit_test(static_array),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
