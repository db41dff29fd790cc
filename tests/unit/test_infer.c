/* test_infer.c - shape inference rules (core/infer.c), one test per rule
 * or family: the inferred shape of a named instruction in a small module,
 * and for bad operands the located error. */
#include "infer.h"
#include "testutil.h"

/* Parses text (one module; the tested instruction is in the entry) and
 * infers the shape of instruction `name`. Returns the shape as text
 * ("f32[2,3]"), "no rule", or the diagnostics ("t.hlo:L:C: error: ..."). */
static const char *infer(const char *text, const char *name)
{
	static char out[4096];
	SrcFile f = {"t.hlo", text, strlen(text), 0};
	Diag d;
	diag_init(&d);
	HloModule *m = parse_module(&f, &d, NULL);
	if (!m) {
		snprintf(out, sizeof out, "parse: %s", diag_text(&d));
		diag_free(&d);
		return out;
	}
	HloInstr *ins = NULL;
	for (int i = 0; i < m->ncomps && !ins; i++)
		ins = hlo_comp_find(m->comps[i], name);
	assert_non_null(ins);
	bool no_rule = true;
	Shape *s = infer_shape(&m->arena, ins, &d, &f, &no_rule);
	if (s) {
		assert_false(no_rule);
		StrBuf b;
		sb_init(&b);
		shape_print(&b, s, false);
		snprintf(out, sizeof out, "%s", sb_str(&b));
		sb_free(&b);
	} else if (no_rule) {
		assert_int_equal(d.errors, 0);
		snprintf(out, sizeof out, "no rule");
	} else {
		assert_int_equal(d.errors, 1);
		snprintf(out, sizeof out, "%s", diag_text(&d));
	}
	diag_free(&d);
	hlo_module_free(m);
	return out;
}

#define ENTRY(params, body) "HloModule t\n\nENTRY e {\n" params body "}\n"

/* --- elementwise ----------------------------------------------------- */

static void unary_keeps_shape(void **st)
{
	(void)st;
	assert_string_equal(infer(ENTRY("  p = f32[2,3] parameter(0)\n",
					"  y = negate(p)\n"),
				  "y"),
			    "f32[2,3]");
	assert_string_equal(infer(ENTRY("  p = bf16[2,3] parameter(0)\n",
					"  y = is-finite(p)\n"),
				  "y"),
			    "pred[2,3]");
	assert_string_equal(
		infer(ENTRY("  p = c64[4] parameter(0)\n", "  y = abs(p)\n"),
		      "y"),
		"f32[4]");
	assert_string_equal(
		infer(ENTRY("  p = c128[4] parameter(0)\n", "  y = real(p)\n"),
		      "y"),
		"f64[4]");
	assert_string_equal(
		infer(ENTRY("  p = c64[] parameter(0)\n", "  y = imag(p)\n"),
		      "y"),
		"f32[]");
	assert_string_equal(infer(ENTRY("  p = (f32[2], s32[]) parameter(0)\n",
					"  y = copy(p)\n"),
				  "y"),
			    "(f32[2], s32[])");
}

static void binary_needs_equal_dims(void **st)
{
	(void)st;
	assert_string_equal(
		infer(ENTRY("  p = f32[4] parameter(0)\n", "  y = add(p, p)\n"),
		      "y"),
		"f32[4]");
	check_error(infer(ENTRY("  p = f32[4] parameter(0)\n"
				"  q = f32[5] parameter(1)\n",
				"  y = f32[4] add(p, q)\n"),
			  "y"),
		    "t.hlo:6:3: error: add 'y': operand shapes f32[4] and "
		    "f32[5] differ");
	check_error(infer(ENTRY("  p = f32[4] parameter(0)\n"
				"  q = s32[4] parameter(1)\n",
				"  y = f32[4] multiply(p, q)\n"),
			  "y"),
		    "multiply 'y': operand element types f32 and s32 differ");
	/* no implicit broadcast of a scalar */
	check_error(infer(ENTRY("  p = f32[4] parameter(0)\n"
				"  q = f32[] parameter(1)\n",
				"  y = f32[4] add(p, q)\n"),
			  "y"),
		    "operand shapes f32[4] and f32[] differ");
	assert_string_equal(infer(ENTRY("  p = f32[3] parameter(0)\n",
					"  y = complex(p, p)\n"),
				  "y"),
			    "c64[3]");
}

static void compare_gives_pred(void **st)
{
	(void)st;
	assert_string_equal(infer(ENTRY("  p = s32[2,2] parameter(0)\n",
					"  y = compare(p, p), direction=LT\n"),
				  "y"),
			    "pred[2,2]");
	check_error(infer(ENTRY("  p = s32[2] parameter(0)\n",
				"  y = pred[2] compare(p, p), direction=XX\n"),
			  "y"),
		    "compare 'y': unknown comparison direction XX");
}

static void select_and_clamp(void **st)
{
	(void)st;
	assert_string_equal(infer(ENTRY("  c = pred[] parameter(0)\n"
					"  p = f32[4] parameter(1)\n",
					"  y = select(c, p, p)\n"),
				  "y"),
			    "f32[4]");
	assert_string_equal(infer(ENTRY("  c = pred[4] parameter(0)\n"
					"  p = f32[4] parameter(1)\n",
					"  y = select(c, p, p)\n"),
				  "y"),
			    "f32[4]");
	check_error(infer(ENTRY("  c = pred[3] parameter(0)\n"
				"  p = f32[4] parameter(1)\n",
				"  y = f32[4] select(c, p, p)\n"),
			  "y"),
		    "select 'y': predicate pred[3] must be a scalar or have "
		    "the dims of f32[4]");
	assert_string_equal(infer(ENTRY("  lo = f32[] parameter(0)\n"
					"  p = f32[4] parameter(1)\n",
					"  y = clamp(lo, p, lo)\n"),
				  "y"),
			    "f32[4]");
	check_error(infer(ENTRY("  lo = f32[2] parameter(0)\n"
				"  p = f32[4] parameter(1)\n",
				"  y = f32[4] clamp(lo, p, lo)\n"),
			  "y"),
		    "clamp 'y': bound f32[2] must be a scalar or match operand "
		    "f32[4]");
}

static void convert_takes_declared_type(void **st)
{
	(void)st;
	assert_string_equal(infer(ENTRY("  p = f32[2,3] parameter(0)\n",
					"  y = s32[2,3] convert(p)\n"),
				  "y"),
			    "s32[2,3]");
	/* wrong dims in the declared shape show up as the inferred dims */
	assert_string_equal(infer(ENTRY("  p = f32[2,3] parameter(0)\n",
					"  y = s32[3,2] convert(p)\n"),
				  "y"),
			    "s32[2,3]");
	assert_string_equal(infer(ENTRY("  p = f32[4] parameter(0)\n",
					"  y = u8[4,4] bitcast-convert(p)\n"),
				  "y"),
			    "u8[4,4]");
	assert_string_equal(infer(ENTRY("  p = s8[3,4] parameter(0)\n",
					"  y = s32[3] bitcast-convert(p)\n"),
				  "y"),
			    "s32[3]");
	check_error(infer(ENTRY("  p = s8[3,2] parameter(0)\n",
				"  y = s32[3] bitcast-convert(p)\n"),
			  "y"),
		    "needs a minor dimension of 4");
	assert_string_equal(infer(ENTRY("  p = f32[4] parameter(0)\n",
					"  y = f32[4] custom-call(p), "
					"custom_call_target=\"x\"\n"),
				  "y"),
			    "no rule");
}

/* --- shape and data movement ---------------------------------------- */

static void broadcast_maps_dims(void **st)
{
	(void)st;
	assert_string_equal(
		infer(ENTRY("  p = f32[3] parameter(0)\n",
			    "  y = f32[2,3] broadcast(p), dimensions={1}\n"),
		      "y"),
		"f32[2,3]");
	/* the element type comes from the operand */
	assert_string_equal(
		infer(ENTRY("  p = s32[3] parameter(0)\n",
			    "  y = f32[3,2] broadcast(p), dimensions={0}\n"),
		      "y"),
		"s32[3,2]");
	check_error(
		infer(ENTRY("  p = f32[3] parameter(0)\n",
			    "  y = f32[2,3] broadcast(p), dimensions={0}\n"),
		      "y"),
		"t.hlo:5:3: error: broadcast 'y': operand dimension 0 "
		"(size 3) maps to result dimension 0 of size 2");
	check_error(infer(ENTRY("  p = f32[3] parameter(0)\n",
				"  y = f32[2,3] broadcast(p), dimensions={}\n"),
			  "y"),
		    "dimensions has 0 entries but operand f32[3] has rank 1");
}

static void reshape_keeps_elements(void **st)
{
	(void)st;
	assert_string_equal(infer(ENTRY("  p = f32[6] parameter(0)\n",
					"  y = f32[2,3] reshape(p)\n"),
				  "y"),
			    "f32[2,3]");
	check_error(infer(ENTRY("  p = f32[6] parameter(0)\n",
				"  y = f32[2,4] reshape(p)\n"),
			  "y"),
		    "reshape 'y': operand f32[6] has 6 elements, result "
		    "f32[2,4] has 8");
}

static void transpose_permutes(void **st)
{
	(void)st;
	assert_string_equal(
		infer(ENTRY("  p = f32[2,3,4] parameter(0)\n",
			    "  y = transpose(p), dimensions={2,0,1}\n"),
		      "y"),
		"f32[4,2,3]");
	check_error(
		infer(ENTRY("  p = f32[2,3] parameter(0)\n",
			    "  y = f32[2,3] transpose(p), dimensions={1,1}\n"),
		      "y"),
		"dimensions (a permutation): dimension 1 repeated");
}

static void slice_rounds_up(void **st)
{
	(void)st;
	assert_string_equal(
		infer(ENTRY("  p = f32[10,4] parameter(0)\n",
			    "  y = slice(p), slice={[1:8:3], [0:4]}\n"),
		      "y"),
		"f32[3,4]");
	check_error(infer(ENTRY("  p = f32[10] parameter(0)\n",
				"  y = f32[3] slice(p), slice={[2:11]}\n"),
			  "y"),
		    "slice 'y': slice [2:11:1] is invalid for dimension 0 of "
		    "f32[10]");
}

static void dynamic_slices(void **st)
{
	(void)st;
	assert_string_equal(infer(ENTRY("  p = f32[10,10] parameter(0)\n"
					"  i = s32[] parameter(1)\n",
					"  y = dynamic-slice(p, i, i), "
					"dynamic_slice_sizes={2,3}\n"),
				  "y"),
			    "f32[2,3]");
	/* the old form: one index vector */
	assert_string_equal(infer(ENTRY("  p = f32[10,10] parameter(0)\n"
					"  i = s32[2] parameter(1)\n",
					"  y = dynamic-slice(p, i), "
					"dynamic_slice_sizes={2,3}\n"),
				  "y"),
			    "f32[2,3]");
	check_error(infer(ENTRY("  p = f32[10] parameter(0)\n"
				"  i = s32[] parameter(1)\n",
				"  y = f32[11] dynamic-slice(p, i), "
				"dynamic_slice_sizes={11}\n"),
			  "y"),
		    "slice size 11 is out of range for dimension 0");
	assert_string_equal(
		infer(ENTRY("  p = f32[10,10] parameter(0)\n"
			    "  u = f32[2,10] parameter(1)\n"
			    "  i = s32[] parameter(2)\n",
			    "  y = dynamic-update-slice(p, u, i, i)\n"),
		      "y"),
		"f32[10,10]");
	check_error(infer(ENTRY("  p = f32[4] parameter(0)\n"
				"  u = f32[5] parameter(1)\n"
				"  i = s32[] parameter(2)\n",
				"  y = f32[4] dynamic-update-slice(p, u, i)\n"),
			  "y"),
		    "update f32[5] is larger than operand f32[4]");
}

static void concatenate_sums(void **st)
{
	(void)st;
	assert_string_equal(
		infer(ENTRY("  a = f32[2,3] parameter(0)\n"
			    "  b = f32[4,3] parameter(1)\n",
			    "  y = concatenate(a, b, a), dimensions={0}\n"),
		      "y"),
		"f32[8,3]");
	check_error(
		infer(ENTRY("  a = f32[2,3] parameter(0)\n"
			    "  b = f32[4,2] parameter(1)\n",
			    "  y = f32[6,3] concatenate(a, b), "
			    "dimensions={0}\n"),
		      "y"),
		"concatenate 'y': operand 1 f32[4,2] does not match f32[2,3] "
		"outside dimension 0");
}

static void pad_grows_and_shrinks(void **st)
{
	(void)st;
	/* 1 + 2 + 4 + 3 interior */
	assert_string_equal(infer(ENTRY("  p = f32[4] parameter(0)\n"
					"  z = f32[] constant(0)\n",
					"  y = pad(p, z), padding=1_2_1\n"),
				  "y"),
			    "f32[10]");
	assert_string_equal(infer(ENTRY("  p = f32[4,5] parameter(0)\n"
					"  z = f32[] constant(0)\n",
					"  y = pad(p, z), padding=-1_0x0_-2\n"),
				  "y"),
			    "f32[3,3]");
	check_error(infer(ENTRY("  p = f32[4] parameter(0)\n"
				"  z = f32[] constant(0)\n",
				"  y = f32[1] pad(p, z), padding=-3_-3\n"),
			  "y"),
		    "pad 'y': padding -3_-3_0 makes dimension 0 of f32[4] "
		    "negative");
}

static void reverse_and_iota(void **st)
{
	(void)st;
	assert_string_equal(infer(ENTRY("  p = f32[2,3] parameter(0)\n",
					"  y = reverse(p), dimensions={0,1}\n"),
				  "y"),
			    "f32[2,3]");
	check_error(infer(ENTRY("  p = f32[2,3] parameter(0)\n",
				"  y = f32[2,3] reverse(p), dimensions={2}\n"),
			  "y"),
		    "dimensions: dimension 2 out of range for rank 2");
	assert_string_equal(infer(ENTRY("", "  y = s32[4,5] iota(), "
					    "iota_dimension=1\n"),
				  "y"),
			    "s32[4,5]");
	check_error(infer(ENTRY("", "  y = s32[4] iota(), iota_dimension=1\n"),
			  "y"),
		    "t.hlo:4:3: error: iota 'y': iota_dimension 1 is out of "
		    "range for s32[4]");
}

/* --- reductions ------------------------------------------------------ */

#define ADD_F32                                                       \
	"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n" \
	"  ROOT s = f32[] add(a, b)\n}\n\n"

#define ARGMAX                                                         \
	"amax {\n  a = f32[] parameter(0)\n  i = s32[] parameter(1)\n" \
	"  b = f32[] parameter(2)\n  j = s32[] parameter(3)\n"         \
	"  ROOT t = (f32[], s32[]) tuple(a, i)\n}\n\n"

static void reduce_drops_dims(void **st)
{
	(void)st;
	assert_string_equal(
		infer("HloModule t\n\n" ADD_F32 "ENTRY e {\n"
		      "  p = f32[4,5,6] parameter(0)\n  z = f32[] constant(0)\n"
		      "  y = reduce(p, z), dimensions={0,2}, to_apply=add\n}\n",
		      "y"),
		"f32[5]");
	assert_string_equal(
		infer("HloModule t\n\n" ARGMAX "ENTRY e {\n"
		      "  p = f32[4,5] parameter(0)\n  i = s32[4,5] "
		      "parameter(1)\n"
		      "  z = f32[] constant(0)\n  k = s32[] constant(0)\n"
		      "  y = reduce(p, i, z, k), dimensions={1}, "
		      "to_apply=amax\n}\n",
		      "y"),
		"(f32[4], s32[4])");
	check_error(
		infer("HloModule t\n\n" ADD_F32 "ENTRY e {\n"
		      "  p = f32[4] parameter(0)\n  z = f32[2] parameter(1)\n"
		      "  y = f32[] reduce(p, z), dimensions={0}, to_apply=add\n"
		      "}\n",
		      "y"),
		"t.hlo:12:3: error: reduce 'y': init value 'z' must be a "
		"scalar, got f32[2]");
}

static void reduce_window_sizes(void **st)
{
	(void)st;
	assert_string_equal(
		infer("HloModule t\n\n" ADD_F32 "ENTRY e {\n"
		      "  p = f32[4,6] parameter(0)\n  z = f32[] constant(0)\n"
		      "  y = reduce-window(p, z), window={size=2x3 "
		      "stride=2x3}, "
		      "to_apply=add\n}\n",
		      "y"),
		"f32[2,2]");
	/* base dilation 2: 7 rows, padded 1+1: 9, window 3 dilated by 2: 5,
	 * stride 2: (9-5)/2+1 = 3 */
	assert_string_equal(
		infer("HloModule t\n\n" ADD_F32 "ENTRY e {\n"
		      "  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
		      "  y = reduce-window(p, z), window={size=3 stride=2 "
		      "pad=1_1 "
		      "lhs_dilate=2 rhs_dilate=2}, to_apply=add\n}\n",
		      "y"),
		"f32[3]");
	check_error(
		infer("HloModule t\n\n" ADD_F32 "ENTRY e {\n"
		      "  p = f32[4,6] parameter(0)\n  z = f32[] constant(0)\n"
		      "  y = f32[2] reduce-window(p, z), window={size=2}, "
		      "to_apply=add\n}\n",
		      "y"),
		"reduce-window 'y': window has 1 dimensions, expected 2");
}

static void sort_and_map(void **st)
{
	(void)st;
	assert_string_equal(
		infer("HloModule t\n\n"
		      "lt {\n  a = f32[] parameter(0)\n  b = f32[] "
		      "parameter(1)\n"
		      "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
		      "  ROOT r = compare(a, b), direction=LT\n}\n\n"
		      "ENTRY e {\n  p = f32[4,5] parameter(0)\n"
		      "  i = s32[4,5] parameter(1)\n"
		      "  y = sort(p, i), dimensions={1}, to_apply=lt\n}\n",
		      "y"),
		"(f32[4,5], s32[4,5])");
	assert_string_equal(
		infer("HloModule t\n\n"
		      "f {\n  a = f32[] parameter(0)\n  ROOT b = s32[] "
		      "convert(a)\n}\n\n"
		      "ENTRY e {\n  p = f32[4,5] parameter(0)\n"
		      "  y = map(p), dimensions={0,1}, to_apply=f\n}\n",
		      "y"),
		"s32[4,5]");
}

/* --- dot and convolution --------------------------------------------- */

static void dot_general(void **st)
{
	(void)st;
	assert_string_equal(
		infer(ENTRY("  a = f32[8,2,3] parameter(0)\n"
			    "  b = f32[8,3,4] parameter(1)\n",
			    "  y = dot(a, b), lhs_batch_dims={0}, "
			    "rhs_batch_dims={0}, lhs_contracting_dims={2}, "
			    "rhs_contracting_dims={1}\n"),
		      "y"),
		"f32[8,2,4]");
	/* free dims keep their order; the declared type wins */
	assert_string_equal(infer(ENTRY("  a = s8[5,3,2] parameter(0)\n"
					"  b = s8[3,7] parameter(1)\n",
					"  y = s32[5,2,7] dot(a, b), "
					"lhs_contracting_dims={1}, "
					"rhs_contracting_dims={0}\n"),
				  "y"),
			    "s32[5,2,7]");
	check_error(infer(ENTRY("  a = f32[2,3] parameter(0)\n"
				"  b = f32[4,5] parameter(1)\n",
				"  d = f32[2,5] dot(a, b), "
				"lhs_contracting_dims={1}, "
				"rhs_contracting_dims={0}\n"),
			  "d"),
		    "t.hlo:6:3: error: dot 'd': contracting dimension sizes 3 "
		    "and 4 differ");
	check_error(infer(ENTRY("  a = f32[2,3] parameter(0)\n"
				"  b = f32[3,5] parameter(1)\n",
				"  d = f32[2,5] dot(a, b), "
				"lhs_contracting_dims={1}, "
				"rhs_contracting_dims={0,1}\n"),
			  "d"),
		    "lhs and rhs have 0 and 0 batch, 1 and 2 contracting");
	/* absurd results are refused */
	check_error(infer(ENTRY("  a = f32[16777216,1] parameter(0)\n"
				"  b = f32[1,33554432] parameter(1)\n",
				"  d = f32[1,1] dot(a, b), "
				"lhs_contracting_dims={1}, "
				"rhs_contracting_dims={0}\n"),
			  "d"),
		    "dot 'd': shape too large");
}

static void convolution_windows(void **st)
{
	(void)st;
	assert_string_equal(
		infer(ENTRY("  x = f32[1,5,5,2] parameter(0)\n"
			    "  k = f32[3,3,2,4] parameter(1)\n",
			    "  y = convolution(x, k), window={size=3x3}, "
			    "dim_labels=b01f_01io->b01f\n"),
		      "y"),
		"f32[1,3,3,4]");
	assert_string_equal(
		infer(ENTRY("  x = f32[2,4,7,7] parameter(0)\n"
			    "  k = f32[8,2,3,3] parameter(1)\n",
			    "  y = convolution(x, k), window={size=3x3 "
			    "pad=1_1x1_1 "
			    "stride=2x2}, dim_labels=bf01_oi01->bf01, "
			    "feature_group_count=2\n"),
		      "y"),
		"f32[2,8,4,4]");
	check_error(
		infer(ENTRY("  x = f32[1,5,5,3] parameter(0)\n"
			    "  k = f32[3,3,2,4] parameter(1)\n",
			    "  y = f32[1,3,3,4] convolution(x, k), "
			    "window={size=3x3}, dim_labels=b01f_01io->b01f\n"),
		      "y"),
		"convolution 'y': input feature dimension 3 / "
		"feature_group_count 1 does not match kernel input feature "
		"dimension 2");
	check_error(
		infer(ENTRY("  x = f32[1,5,5,2] parameter(0)\n"
			    "  k = f32[3,3,2,4] parameter(1)\n",
			    "  y = f32[1,3,3,4] convolution(x, k), "
			    "window={size=2x3}, dim_labels=b01f_01io->b01f\n"),
		      "y"),
		"window size 2 of spatial dimension 0 differs from kernel "
		"size 3");
}

/* --- gather and scatter ---------------------------------------------- */

static void gather_dims(void **st)
{
	(void)st;
	/* index_vector_dim == rank: an implicit trailing 1 */
	assert_string_equal(
		infer(ENTRY("  p = f32[3,3] parameter(0)\n"
			    "  i = s32[2] parameter(1)\n",
			    "  y = gather(p, i), offset_dims={1}, "
			    "collapsed_slice_dims={0}, start_index_map={0}, "
			    "index_vector_dim=1, slice_sizes={1,3}\n"),
		      "y"),
		"f32[2,3]");
	assert_string_equal(
		infer(ENTRY("  p = f32[5,10,8] parameter(0)\n"
			    "  i = s32[4,2,7] parameter(1)\n",
			    "  y = gather(p, i), offset_dims={1,3,4}, "
			    "collapsed_slice_dims={}, start_index_map={1,2}, "
			    "index_vector_dim=1, slice_sizes={5,2,3}\n"),
		      "y"),
		"f32[4,5,7,2,3]");
	/* batching dims: operand dim 0 matches indices dim 0 */
	assert_string_equal(
		infer(ENTRY("  p = f32[4,10,8] parameter(0)\n"
			    "  i = s32[4,6,1] parameter(1)\n",
			    "  y = gather(p, i), offset_dims={2}, "
			    "collapsed_slice_dims={1}, start_index_map={1}, "
			    "operand_batching_dims={0}, "
			    "start_indices_batching_dims={0}, "
			    "index_vector_dim=2, "
			    "slice_sizes={1,1,8}\n"),
		      "y"),
		"f32[4,6,8]");
	check_error(
		infer(ENTRY("  p = f32[3,3] parameter(0)\n"
			    "  i = s32[2] parameter(1)\n",
			    "  y = f32[2,3] gather(p, i), offset_dims={1}, "
			    "collapsed_slice_dims={0}, start_index_map={0}, "
			    "index_vector_dim=1, slice_sizes={2,3}\n"),
		      "y"),
		"gather 'y': collapsed or batching dimension 0 has slice "
		"size 2");
}

static void scatter_dims(void **st)
{
	(void)st;
	assert_string_equal(
		infer("HloModule t\n\n" ADD_F32 "ENTRY e {\n"
		      "  p = f32[3,3] parameter(0)\n  i = s32[2] parameter(1)\n"
		      "  u = f32[2,3] parameter(2)\n"
		      "  y = scatter(p, i, u), update_window_dims={1}, "
		      "inserted_window_dims={0}, "
		      "scatter_dims_to_operand_dims={0}, "
		      "index_vector_dim=1, to_apply=add\n}\n",
		      "y"),
		"f32[3,3]");
	check_error(
		infer("HloModule t\n\n" ADD_F32 "ENTRY e {\n"
		      "  p = f32[3,3] parameter(0)\n  i = s32[2] parameter(1)\n"
		      "  u = f32[5,3] parameter(2)\n"
		      "  y = f32[3,3] scatter(p, i, u), "
		      "update_window_dims={1}, "
		      "inserted_window_dims={0}, "
		      "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
		      "to_apply=add\n}\n",
		      "y"),
		"scatter 'y': update scatter dimension 0 of f32[5,3] "
		"differs from the indices (2)");
}

/* --- tuples, calls, control flow ------------------------------------- */

static void tuples(void **st)
{
	(void)st;
	assert_string_equal(infer(ENTRY("  p = f32[4] parameter(0)\n"
					"  q = s32[] parameter(1)\n",
					"  t = tuple(p, q)\n"),
				  "t"),
			    "(f32[4], s32[])");
	assert_string_equal(
		infer(ENTRY("  p = (f32[4], s32[]) parameter(0)\n",
			    "  g = get-tuple-element(p), index=1\n"),
		      "g"),
		"s32[]");
	check_error(infer(ENTRY("  p = (f32[4], s32[]) parameter(0)\n",
				"  g = s32[] get-tuple-element(p), index=2\n"),
			  "g"),
		    "get-tuple-element 'g': index 2 is out of range for "
		    "(f32[4], s32[])");
}

#define BODY                                            \
	"body {\n  b = (s32[], f32[4]) parameter(0)\n"  \
	"  i = s32[] get-tuple-element(b), index=0\n"   \
	"  ROOT r = (s32[], f32[3]) tuple(i, i)\n}\n\n" \
	"cond {\n  c = (s32[], f32[4]) parameter(0)\n"  \
	"  ROOT t = pred[] constant(true)\n}\n\n"

static void calls_and_loops(void **st)
{
	(void)st;
	assert_string_equal(infer("HloModule t\n\n" ADD_F32 "ENTRY e {\n"
				  "  p = f32[] parameter(0)\n"
				  "  y = call(p, p), to_apply=add\n}\n",
				  "y"),
			    "f32[]");
	assert_string_equal(
		infer("HloModule t\n\n" ADD_F32 "ENTRY e {\n"
		      "  p = f32[] parameter(0)\n"
		      "  y = f32[] fusion(p, p), kind=kLoop, calls=add\n}\n",
		      "y"),
		"f32[]");
	check_error(infer("HloModule t\n\n" BODY "ENTRY e {\n"
			  "  p = (s32[], f32[4]) parameter(0)\n"
			  "  w = (s32[], f32[4]) while(p), condition=cond, "
			  "body=body\n"
			  "}\n",
			  "w"),
		    "while 'w': body 'body' returns (s32[], f32[3]) but the "
		    "init value is (s32[], f32[4])");
	assert_string_equal(
		infer("HloModule t\n\n"
		      "b0 {\n  x = f32[2] parameter(0)\n  ROOT y = "
		      "negate(x)\n}\n\n"
		      "b1 {\n  x = s32[] parameter(0)\n  o = f32[] "
		      "constant(1)\n"
		      "  ROOT y = f32[2] broadcast(o), dimensions={}\n}\n\n"
		      "ENTRY e {\n  k = s32[] parameter(0)\n"
		      "  a = f32[2] parameter(1)\n"
		      "  c = conditional(k, a, k), branch_computations={b0, "
		      "b1}\n}\n",
		      "c"),
		"f32[2]");
	check_error(
		infer("HloModule t\n\n"
		      "b0 {\n  x = f32[2] parameter(0)\n  ROOT y = "
		      "negate(x)\n}\n\n"
		      "b1 {\n  x = f32[3] parameter(0)\n  ROOT y = "
		      "negate(x)\n}\n\n"
		      "ENTRY e {\n  k = pred[] parameter(0)\n"
		      "  a = f32[2] parameter(1)\n  b = f32[3] parameter(2)\n"
		      "  c = f32[2] conditional(k, a, b), true_computation=b0, "
		      "false_computation=b1\n}\n",
		      "c"),
		"conditional 'c': branch 1 'b1' returns f32[3] but branch 0 "
		"'b0' returns f32[2]");
}

static void leaves_use_declared_shape(void **st)
{
	(void)st;
	assert_string_equal(
		infer(ENTRY("", "  p = f32[4]{0} parameter(0)\n"), "p"),
		"f32[4]");
	assert_string_equal(
		infer(ENTRY("", "  c = s32[2] constant({1, 2})\n"), "c"),
		"s32[2]");
}

/* Shapes left out in the text are filled in by the parser through
 * infer_shape; an inconsistent line then fails to parse, located. */
static void parser_uses_inference(void **st)
{
	(void)st;
	check_error(infer(ENTRY("  p = f32[4] parameter(0)\n"
				"  q = f32[5] parameter(1)\n",
				"  y = add(p, q)\n"),
			  "y"),
		    "t.hlo:6:3: error: add 'y': operand shapes f32[4] and "
		    "f32[5] differ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unary_keeps_shape),
		cmocka_unit_test(binary_needs_equal_dims),
		cmocka_unit_test(compare_gives_pred),
		cmocka_unit_test(select_and_clamp),
		cmocka_unit_test(convert_takes_declared_type),
		cmocka_unit_test(broadcast_maps_dims),
		cmocka_unit_test(reshape_keeps_elements),
		cmocka_unit_test(transpose_permutes),
		cmocka_unit_test(slice_rounds_up),
		cmocka_unit_test(dynamic_slices),
		cmocka_unit_test(concatenate_sums),
		cmocka_unit_test(pad_grows_and_shrinks),
		cmocka_unit_test(reverse_and_iota),
		cmocka_unit_test(reduce_drops_dims),
		cmocka_unit_test(reduce_window_sizes),
		cmocka_unit_test(sort_and_map),
		cmocka_unit_test(dot_general),
		cmocka_unit_test(convolution_windows),
		cmocka_unit_test(gather_dims),
		cmocka_unit_test(scatter_dims),
		cmocka_unit_test(tuples),
		cmocka_unit_test(calls_and_loops),
		cmocka_unit_test(leaves_use_declared_shape),
		cmocka_unit_test(parser_uses_inference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
