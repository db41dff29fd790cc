/* test_print.c - the HLO printer (core/print.c): XLA's long form and the
 * short form as exact text, elided constants, the fixed point
 * print(parse(print(parse(x)))) == print(parse(x)) over handwritten
 * modules, and clones printing like their originals. */
#include <limits.h>
#include <stdio.h>

#include "print.h"
#include "testutil.h"

static HloModule *load(const char *text)
{
	Diag d;
	diag_init(&d);
	HloModule *m = load_verified("t.hlo", text, strlen(text), &d);
	if (!m)
		fail_msg("did not load:\n%s\n%s", diag_text(&d), text);
	diag_free(&d);
	return m;
}

static char *print_with(const HloModule *m, const PrintOpts *o)
{
	StrBuf b;
	sb_init(&b);
	print_module(&b, m, o);
	assert_false(b.oom);
	return sb_take(&b);
}

static char *print_long(const HloModule *m)
{
	return print_with(m, &print_opts_default);
}

/* Each of want[0..n) is somewhere in t. */
static void contains_all(const char *t, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strstr(t, want[i]))
			fail_msg("no '%s' in:\n%s", want[i], t);
}

/* Like assert_string_equal, but shows the first differing line. */
static void same_text(const char *got, const char *want)
{
	if (!strcmp(got, want))
		return;
	const char *g = got, *w = want;
	int line = 1;
	while (*g && *g == *w) {
		line += *g == '\n';
		g++;
		w++;
	}
	fail_msg("texts differ at line %d:\n--- got:\n%s\n--- want:\n%s", line,
		 got, want);
}

/* t loaded again prints as t (what save writes loads back to itself);
 * the module, for more checks (the caller frees it). */
static HloModule *reloads_same(const char *t)
{
	HloModule *m = load(t);
	char *again = print_long(m);
	same_text(again, t);
	free(again);
	return m;
}

/* --- exact text ------------------------------------------------------------ */

static const char *const SMALL =
	"HloModule small\n"
	"\n"
	"add {\n"
	"  a = f32[] parameter(0)\n"
	"  b = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(a, b)\n"
	"}\n"
	"\n"
	"ENTRY main {\n"
	"  p = f32[2,3]{0,1} parameter(0)\n"
	"  q = f32[2,3] parameter(1)\n"
	"  c = f32[] constant(0)\n"
	"  m = multiply(p, q), metadata={op_name=\"mul\"   source_line=3}\n"
	"  ROOT r = f32[2] reduce(m, c), dimensions={1}, to_apply=add\n"
	"}\n";

static void long_form_text(void **st)
{
	(void)st;
	HloModule *m = load(SMALL);
	char *t = print_long(m);
	same_text(t,
		  "HloModule small, entry_computation_layout={(f32[2,3]{0,1}, "
		  "f32[2,3]{1,0})->f32[2]{0}}\n"
		  "\n"
		  "%add (a: f32[], b: f32[]) -> f32[] {\n"
		  "  %a = f32[] parameter(0)\n"
		  "  %b = f32[] parameter(1)\n"
		  "  ROOT %s = f32[] add(f32[] %a, f32[] %b)\n"
		  "}\n"
		  "\n"
		  "ENTRY %main (p: f32[2,3], q: f32[2,3]) -> f32[2] {\n"
		  "  %p = f32[2,3]{0,1} parameter(0)\n"
		  "  %q = f32[2,3]{1,0} parameter(1)\n"
		  "  %c = f32[] constant(0)\n"
		  "  %m = f32[2,3]{0,1} multiply(f32[2,3]{0,1} %p, "
		  "f32[2,3]{1,0} %q), "
		  "metadata={op_name=\"mul\" source_line=3}\n"
		  "  ROOT %r = f32[2]{0} reduce(f32[2,3]{0,1} %m, f32[] %c), "
		  "dimensions={1}, to_apply=%add\n"
		  "}\n");
	free(t);
	hlo_module_free(m);
}

static void short_form_text(void **st)
{
	(void)st;
	HloModule *m = load(SMALL);
	PrintOpts o = print_opts_default;
	o.short_form = true;
	char *t = print_with(m, &o);
	same_text(t,
		  "HloModule small, entry_computation_layout={(f32[2,3]{0,1}, "
		  "f32[2,3]{1,0})->f32[2]{0}}\n"
		  "\n"
		  "add (a: f32[], b: f32[]) -> f32[] {\n"
		  "  a = f32[] parameter(0)\n"
		  "  b = f32[] parameter(1)\n"
		  "  ROOT s = f32[] add(a, b)\n"
		  "}\n"
		  "\n"
		  "ENTRY main (p: f32[2,3], q: f32[2,3]) -> f32[2] {\n"
		  "  p = f32[2,3]{0,1} parameter(0)\n"
		  "  q = f32[2,3]{1,0} parameter(1)\n"
		  "  c = f32[] constant(0)\n"
		  "  m = f32[2,3]{0,1} multiply(p, q), "
		  "metadata={op_name=\"mul\" source_line=3}\n"
		  "  ROOT r = f32[2]{0} reduce(m, c), dimensions={1}, "
		  "to_apply=add\n"
		  "}\n");
	/* the short form parses back to the same module */
	HloModule *m2 = load(t);
	char *a = print_long(m), *b = print_long(m2);
	same_text(b, a);
	free(a);
	free(b);
	free(t);
	hlo_module_free(m2);
	hlo_module_free(m);
}

static const char *const TUPLES = "HloModule tuples, is_scheduled=true\n"
				  "\n"
				  "ENTRY main {\n"
				  "  p0 = f32[] parameter(0)\n"
				  "  p1 = f32[] parameter(1)\n"
				  "  p2 = f32[] parameter(2)\n"
				  "  p3 = f32[] parameter(3)\n"
				  "  p4 = f32[] parameter(4)\n"
				  "  p5 = s32[3] parameter(5)\n"
				  "  ROOT t = tuple(p0, p1, p2, p3, p4, p5)\n"
				  "}\n";

/* Every fifth element of a long tuple shape and every fifth parameter of
 * the entry layout carry XLA's index comment. */
static void long_tuple_shapes(void **st)
{
	(void)st;
	HloModule *m = load(TUPLES);
	char *t = print_long(m);
	const char *sh =
		"(f32[], f32[], f32[], f32[], f32[], /*index=5*/s32[3]{0})";
	char want[512];
	snprintf(
		want, sizeof want,
		"HloModule tuples, is_scheduled=true, entry_computation_layout="
		"{(f32[], f32[], f32[], f32[], f32[], "
		"/*index=5*/s32[3]{0})->%s}\n",
		sh);
	assert_true(strncmp(t, want, strlen(want)) == 0);
	assert_non_null(
		strstr(t, "ENTRY %main (p0: f32[], p1: f32[], p2: f32[], "
			  "p3: f32[], p4: f32[], p5: s32[3]) -> (f32[], f32[], "
			  "f32[], f32[], f32[], /*index=5*/s32[3]) {\n"));
	snprintf(want, sizeof want, "  ROOT %%t = %s tuple(", sh);
	assert_non_null(strstr(t, want));
	free(t);
	hlo_module_free(m);
}

/* ...and so does every fifth operand, as XLA prints them. */
static void long_operand_lists(void **st)
{
	(void)st;
	HloModule *m = load(TUPLES);
	char *t = print_long(m);
	assert_non_null(
		strstr(t, "tuple(f32[] %p0, f32[] %p1, f32[] %p2, f32[] %p3, "
			  "f32[] %p4, /*index=5*/s32[3]{0} %p5)\n"));
	free(t);
	PrintOpts o = print_opts_default;
	o.short_form = true;
	t = print_with(m, &o);
	assert_non_null(
		strstr(t, "tuple(p0, p1, p2, p3, p4, /*index=5*/p5)\n"));
	free(t);
	hlo_module_free(m);
}

static void header_keeps_attributes(void **st)
{
	(void)st;
	HloModule *m = load(
		"HloModule h, input_output_alias={ {}: (0, {}, may-alias) }, "
		"entry_computation_layout={(f32[4]{0})->f32[4]{0}}, "
		"num_partitions=2\n"
		"ENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n");
	char *t = print_long(m);
	assert_true(
		strncmp(t,
			"HloModule h, input_output_alias={ {}: (0, {}, "
			"may-alias) }, "
			"entry_computation_layout={(f32[4]{0})->f32[4]{0}}, "
			"num_partitions=2\n\n",
			124) == 0);
	free(t);
	hlo_module_free(m);
}

/* --- constants -------------------------------------------------------------- */

static const char *const CONSTS =
	"ENTRY e {\n"
	"  a = f32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })\n"
	"  b = f32[3] constant({1.5, -2, 1e+30})\n"
	"  c = pred[2] constant({1, 0})\n"
	"  d = c64[2] constant({(1, 2), (3.5, -4)})\n"
	"  e = s32[] constant(-7)\n"
	"  f = pred[] constant(true)\n"
	"  g = u8[5] constant({0, 1, 2, 3, 255})\n"
	"  ROOT t = tuple(a, b, c, d, e, f, g)\n"
	"}\n";

static void constants_in_full(void **st)
{
	(void)st;
	HloModule *m = load(CONSTS);
	char *t = print_long(m);
	assert_non_null(strstr(t, "  %a = f32[2,3]{1,0} constant({ { 1, 2, 3 "
				  "}, { 4, 5, 6 } })\n"));
	assert_non_null(
		strstr(t, "  %b = f32[3]{0} constant({1.5, -2, 1e+30})\n"));
	assert_non_null(strstr(t, "  %c = pred[2]{0} constant({1, 0})\n"));
	assert_non_null(
		strstr(t, "  %d = c64[2]{0} constant({(1, 2), (3.5, -4)})\n"));
	assert_non_null(strstr(t, "  %e = s32[] constant(-7)\n"));
	assert_non_null(strstr(t, "  %f = pred[] constant(true)\n"));
	assert_non_null(
		strstr(t, "  %g = u8[5]{0} constant({0, 1, 2, 3, 255})\n"));
	free(t);
	hlo_module_free(m);
}

static void constants_elided(void **st)
{
	(void)st;
	HloModule *m = load(CONSTS);
	PrintOpts o = print_opts_default;
	o.max_const_elems = 3;
	char *t = print_with(m, &o);
	assert_non_null(strstr(
		t, "  %a = f32[2,3]{1,0} constant({...})\n")); /* 6 > 3 */
	assert_non_null(strstr(
		t, "  %b = f32[3]{0} constant({1.5, -2, 1e+30})\n")); /* 3 */
	assert_non_null(strstr(t, "  %g = u8[5]{0} constant({...})\n"));
	assert_non_null(strstr(t, "  %e = s32[] constant(-7)\n"));
	free(t);
	/* elided text parses back (with filler values) and prints the same */
	o.max_const_elems = 1;
	t = print_with(m, &o);
	assert_non_null(strstr(t, "%b = f32[3]{0} constant({...})"));
	SrcFile f = {"t.hlo", t, strlen(t), 0};
	Diag d;
	diag_init(&d);
	HloModule *m2 = parse_module(&f, &d, NULL);
	assert_non_null(m2);
	assert_int_equal(d.warnings, 5);
	char *t2 = print_with(m2, &o);
	same_text(t2, t);
	free(t2);
	free(t);
	diag_free(&d);
	hlo_module_free(m2);
	hlo_module_free(m);
}

/* --- attributes -------------------------------------------------------------- */

static const char *instr_text(const HloModule *m, const char *name)
{
	static char out[2048];
	HloInstr *ins = NULL;
	for (int i = 0; i < m->ncomps && !ins; i++)
		ins = hlo_comp_find(m->comps[i], name);
	assert_non_null(ins);
	StrBuf b;
	sb_init(&b);
	PrintOpts o = print_opts_default;
	o.short_form = true;
	print_instr(&b, ins, &o);
	snprintf(out, sizeof out, "%s", sb_str(&b));
	sb_free(&b);
	return out;
}

static void attribute_forms(void **st)
{
	(void)st;
	HloModule *m = load(
		"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(a, b)\n}\n"
		"ENTRY e {\n"
		"  x = f32[1,8,8,4] parameter(0)\n"
		"  k = f32[3,3,4,16] parameter(1)\n"
		"  z = f32[] constant(0)\n"
		"  c = f32[1,4,4,16] convolution(x, k), window={size=3x3 "
		"stride=2x2 pad=1_1x1_1}, "
		"dim_labels=b01f_01io->b01f\n"
		"  pd = f32[1,10,9,4] pad(x, z), padding=0_0x1_1x0_1x0_0\n"
		"  pi = f32[1,17,15,4] pad(x, z), "
		"padding=0_0_0x1_1_1x0_0_1x0_0_0\n"
		"  sl = f32[1,4,2,4] slice(x), slice={[0:1], [0:8:2], [1:7:3], "
		"[0:4]}\n"
		"  rw = f32[1,4,4,4] reduce-window(x, z), window={size=1x2x2x1 "
		"stride=1x2x2x1}, "
		"to_apply=add\n"
		"  cmp = pred[1,8,8,4] compare(x, x), direction=GE, "
		"type=TOTALORDER\n"
		"  cc = f32[4] custom-call(z), "
		"custom_call_target=\"my\\\"target\", "
		"backend_config={\"a\": [1, 2]}\n"
		"  ROOT t = tuple(c, pd, pi, sl, rw, cmp, cc)\n"
		"}\n");
	assert_string_equal(instr_text(m, "c"),
			    "c = f32[1,4,4,16]{3,2,1,0} convolution(x, k), "
			    "window={size=3x3 stride=2x2 pad=1_1x1_1}, "
			    "dim_labels=b01f_01io->b01f");
	assert_string_equal(instr_text(m, "pd"),
			    "pd = f32[1,10,9,4]{3,2,1,0} pad(x, z), "
			    "padding=0_0x1_1x0_1x0_0");
	assert_string_equal(instr_text(m, "pi"),
			    "pi = f32[1,17,15,4]{3,2,1,0} pad(x, z), "
			    "padding=0_0_0x1_1_1x0_0_1x0_0_0");
	assert_string_equal(instr_text(m, "sl"),
			    "sl = f32[1,4,2,4]{3,2,1,0} slice(x), "
			    "slice={[0:1], [0:8:2], [1:7:3], [0:4]}");
	assert_string_equal(
		instr_text(m, "rw"),
		"rw = f32[1,4,4,4]{3,2,1,0} reduce-window(x, z), "
		"window={size=1x2x2x1 stride=1x2x2x1}, to_apply=add");
	assert_string_equal(
		instr_text(m, "cmp"),
		"cmp = pred[1,8,8,4]{3,2,1,0} compare(x, x), direction=GE, "
		"type=TOTALORDER");
	assert_string_equal(instr_text(m, "cc"),
			    "cc = f32[4]{0} custom-call(z), "
			    "custom_call_target=\"my\\\"target\", "
			    "backend_config={\"a\": [1, 2]}");
	hlo_module_free(m);
}

/* --- fixed point -------------------------------------------------------------- */

static const char *const MODULES[] = {
	/* 1: elementwise, short form, no header */
	"ENTRY e {\n  p = f32[4] parameter(0)\n  n = negate(p)\n  ROOT r = "
	"add(n, p)\n}\n",
	/* 2: layouts, tiles and memory spaces */
	"HloModule layouts\n"
	"ENTRY e {\n  p = f32[8,128]{0,1:T(8,128)(2,1)S(1)} parameter(0)\n"
	"  q = s4[2,4]{1,0:E(4)} parameter(1)\n"
	"  ROOT t = (f32[8,128]{0,1:T(8,128)(2,1)S(1)}, s4[2,4]{1,0:E(4)}) "
	"tuple(p, q)\n}\n",
	/* 3: dynamic shapes */
	"ENTRY e {\n  p = f32[<=8,?] parameter(0)\n  ROOT r = f32[<=8,?] "
	"abs(p)\n}\n",
	/* 4: while loop with a tuple state */
	"HloModule loop\n"
	"cond {\n  s = (s32[], f32[4]) parameter(0)\n"
	"  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(10)\n"
	"  ROOT lt = pred[] compare(i, n), direction=LT\n}\n"
	"body {\n  s = (s32[], f32[4]) parameter(0)\n"
	"  i = s32[] get-tuple-element(s), index=0\n  x = f32[4] "
	"get-tuple-element(s), index=1\n"
	"  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  y = f32[4] "
	"add(x, x)\n"
	"  ROOT t = (s32[], f32[4]) tuple(j, y)\n}\n"
	"ENTRY e {\n  p = (s32[], f32[4]) parameter(0)\n"
	"  ROOT w = (s32[], f32[4]) while(p), condition=cond, body=body\n}\n",
	/* 5: conditional with branch computations */
	"b0 {\n  ROOT a = f32[] parameter(0)\n}\n"
	"b1 {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(a)\n}\n"
	"ENTRY e {\n  i = s32[] parameter(0)\n  x = f32[] parameter(1)\n"
	"  ROOT c = f32[] conditional(i, x, x), branch_computations={b0, "
	"b1}\n}\n",
	/* 6: fusion with calls and kind */
	"HloModule f\n"
	"fused {\n  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n"
	"  m = f32[4] multiply(a, b)\n  ROOT s = f32[4] add(m, b)\n}\n"
	"ENTRY e {\n  p = f32[4] parameter(0)\n  q = f32[4] parameter(1)\n"
	"  ROOT f = f32[4] fusion(p, q), kind=kLoop, calls=fused\n}\n",
	/* 7: constants of many types */
	"ENTRY e {\n  a = bf16[3] constant({0.5, -1, 3})\n  b = f16[] "
	"constant(65504)\n"
	"  c = s4[4] constant({-8, -1, 0, 7})\n  d = u64[] "
	"constant(18446744073709551615)\n"
	"  e = c128[] constant((1.25, -2))\n  f = f64[2] constant({1e-300, "
	"-0.1})\n"
	"  g = f8e4m3fn[2] constant({0.5, 448})\n  h = pred[] constant(false)\n"
	"  ROOT t = tuple(a, b, c, d, e, f, g, h)\n}\n",
	/* 8: metadata, sharding, frontend attributes, backend config */
	"ENTRY e {\n  p = f32[4] parameter(0), sharding={devices=[2]0,1}, "
	"metadata={op_name=\"a\" source_file=\"x.py\" source_line=1}\n"
	"  ROOT c = f32[4] custom-call(p), custom_call_target=\"t\", "
	"backend_config=\"{\\\"k\\\": 1}\", frontend_attributes={_xla=\"1\"}, "
	"api_version=API_VERSION_STATUS_RETURNING\n}\n",
	/* 9: dot, gather, iota, sort */
	"cmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
	"  ROOT l = pred[] compare(a, b), direction=LT\n}\n"
	"ENTRY e {\n  x = f32[2,3,4] parameter(0)\n  y = f32[2,4,5] "
	"parameter(1)\n"
	"  d = f32[2,3,5] dot(x, y), lhs_batch_dims={0}, "
	"lhs_contracting_dims={2}, "
	"rhs_batch_dims={0}, rhs_contracting_dims={1}\n"
	"  i = s32[3,1] iota(), iota_dimension=0\n"
	"  g = f32[3,3,4] gather(x, i), offset_dims={1,2}, "
	"collapsed_slice_dims={0}, "
	"start_index_map={0}, index_vector_dim=1, slice_sizes={1,3,4}\n"
	"  v = f32[8] parameter(2)\n"
	"  s = f32[8] sort(v), dimensions={0}, is_stable=true, to_apply=cmp\n"
	"  ROOT t = tuple(d, g, s)\n}\n",
	/* 10: execution threads and an async pair */
	"HloModule a\n"
	"host {\n  ROOT x = f32[] parameter(0)\n}, execution_thread=\"host\"\n"
	"ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), "
	"to_apply=host\n}\n",
	/* 11: reduce of two values with an inline computation */
	"ENTRY e {\n  v = f32[4] parameter(0)\n  i = s32[4] parameter(1)\n"
	"  z = f32[] constant(0)\n  n = s32[] constant(0)\n"
	"  ROOT r = (f32[], s32[]) reduce(v, i, z, n), dimensions={0}, "
	"to_apply={\n"
	"    a = f32[] parameter(0)\n    ai = s32[] parameter(1)\n"
	"    b = f32[] parameter(2)\n    bi = s32[] parameter(3)\n"
	"    s = f32[] add(a, b)\n    si = s32[] add(ai, bi)\n"
	"    ROOT t = (f32[], s32[]) tuple(s, si)\n  }\n}\n",
	/* 12: tokens, comments and a stack frame index */
	"HloModule tok, entry_computation_layout={(f32[])->f32[]}\n\n"
	"FileNames\n1 \"a.py\"\n\nFunctionNames\n1 \"f\"\n\n"
	"FileLocations\n1 {file_name_id=1 function_name_id=1 line=1 end_line=1 "
	"column=1 end_column=2}\n\nStackFrames\n1 {file_location_id=1 "
	"parent_frame_id=1}\n\n"
	"ENTRY e { // comment\n  p = f32[] parameter(0) /* x */\n  t = token[] "
	"after-all()\n"
	"  ROOT r = f32[] add(p, p), metadata={op_name=\"r\" "
	"stack_frame_id=1}\n}\n",
	/* 13: broadcast, reshape, transpose, concatenate, slice, pad */
	"ENTRY e {\n  p = f32[3] parameter(0)\n  b = f32[2,3] broadcast(p), "
	"dimensions={1}\n"
	"  r = f32[3,2] reshape(b)\n  t = f32[2,3] transpose(r), "
	"dimensions={1,0}\n"
	"  c = f32[4,3] concatenate(b, t), dimensions={0}\n"
	"  s = f32[2,3] slice(c), slice={[1:3], [0:3]}\n  z = f32[] "
	"constant(0)\n"
	"  ROOT pd = f32[4,5] pad(s, z), padding=1_1x1_1\n}\n",
};

static void fixed_point(void **st)
{
	(void)st;
	PrintOpts forms[2] = {print_opts_default, print_opts_default};
	forms[1].short_form = true;
	for (size_t i = 0; i < sizeof MODULES / sizeof *MODULES; i++) {
		for (int k = 0; k < 2; k++) {
			HloModule *m = load(MODULES[i]);
			char *t1 = print_with(m, &forms[k]);
			HloModule *m2 = load(t1);
			char *t2 = print_with(m2, &forms[k]);
			if (strcmp(t1, t2))
				fail_msg("module %zu (%s form) is not a fixed "
					 "point:\n"
					 "--- first:\n%s--- second:\n%s",
					 i + 1, k ? "short" : "long", t1, t2);
			assert_int_equal(hlo_module_instr_count(m2),
					 hlo_module_instr_count(m));
			assert_int_equal(m2->ncomps, m->ncomps);
			free(t1);
			free(t2);
			hlo_module_free(m);
			hlo_module_free(m2);
		}
	}
}

/* Tuples of more than 1024 elements (JAX's parameter and result tuples
 * have them): a parameter of 1500 and a tuple of 2000 operands with its
 * shape left out load, and what is printed loads back the same (the
 * shape parser stopped at 1024, after the inferred shape was saved). */
static void long_tuples(void **st)
{
	(void)st;
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "HloModule big\nENTRY e {\n  p = (");
	for (int i = 0; i < 1500; i++)
		sb_puts(&b, i ? ", f32[]" : "f32[]");
	sb_puts(&b, ") parameter(0)\n  a = f32[] get-tuple-element(p), "
		    "index=1499\n  ROOT t = tuple(");
	for (int i = 0; i < 2000; i++)
		sb_puts(&b, i ? ", a" : "a");
	sb_puts(&b, ")\n}\n");
	assert_false(b.oom);
	HloModule *m = load(sb_str(&b));
	assert_int_equal(m->entry->root->shape->ntuple, 2000);
	char *t1 = print_long(m);
	HloModule *m2 = load(t1);
	char *t2 = print_long(m2);
	same_text(t2, t1);
	free(t1);
	free(t2);
	hlo_module_free(m);
	hlo_module_free(m2);
	sb_free(&b);
}

/* entry_computation_layout as the header gives it (a memory space, an
 * order other than the parameters') is printed back, by a clone too, as
 * XLA keeps it; a header without layouts means the default ones; a
 * header that no longer agrees with the entry gives way to the entry's
 * shapes. */
static void header_layout_kept(void **st)
{
	(void)st;
	const char *want = "HloModule m, entry_computation_layout={(f32[4]{0:S(1)}, "
			   "f32[4,2]{0,1})->f32[4]{0:S(2)}}\n";
	HloModule *m = load("HloModule m, entry_computation_layout="
			    "{(f32[4]{0:S(1)}, f32[4,2]{0,1})->f32[4]{0:S(2)}}\n"
			    "ENTRY e {\n  a = f32[4] parameter(0)\n"
			    "  b = f32[4,2] parameter(1)\n"
			    "  ROOT t = f32[4] negate(a)\n}\n");
	char *t = print_long(m);
	assert_true(strncmp(t, want, strlen(want)) == 0);
	HloModule *c = hlo_module_clone(m);
	char *t2 = print_long(c);
	assert_string_equal(t, t2);
	free(t);
	free(t2);
	/* the entry changed (a result of another shape): recomputed */
	HloInstr *a = hlo_comp_param(c->entry, 0);
	Shape *s = shape_array(&c->arena, DT_F32, 2,
			       (int64_t[]){2, 2});
	HloInstr *r = hlo_instr_new_unique(c->entry, HLO_RESHAPE, s, "r", 1,
					   &a);
	assert_non_null(r);
	c->entry->root = r;
	t = print_long(c);
	assert_non_null(strstr(t, "entry_computation_layout={(f32[4]{0}, "
				  "f32[4,2]{1,0})->f32[2,2]{1,0}}"));
	free(t);
	hlo_module_free(c);
	hlo_module_free(m);
	m = load("HloModule m, entry_computation_layout={(f32[4,2])->f32[4,2]}\n"
		 "ENTRY e {\n  a = f32[4,2]{0,1} parameter(0)\n"
		 "  ROOT t = f32[4,2]{0,1} negate(a)\n}\n");
	t = print_long(m);
	assert_non_null(strstr(t, "entry_computation_layout={(f32[4,2]{1,0})->"
				  "f32[4,2]{1,0}}"));
	free(t);
	hlo_module_free(m);
}

/* With its shape left out, an instruction takes its layout as XLA's
 * parser gives it (the expected lines are XLA's, from jaxlib's
 * hlo_module_from_text): elementwise ops and compare their first
 * operand's, a transpose the bitcast one (memory space kept), a tuple
 * its operands' shapes. */
static void omitted_shapes_take_layouts(void **st)
{
	(void)st;
	HloModule *m = load(
		"HloModule m\nENTRY e {\n  a = f32[4,2]{0,1} parameter(0)\n"
		"  b = f32[2,4] parameter(1)\n  n = negate(a)\n"
		"  t = transpose(a), dimensions={1,0}\n  s = add(t, b)\n"
		"  c = compare(a, n), direction=LT\n"
		"  x = f32[3,4,5]{0,2,1:S(1)} parameter(2)\n"
		"  y = transpose(x), dimensions={2,0,1}\n"
		"  ROOT r = tuple(n, t, s, c, y)\n}\n");
	char *t = print_long(m);
	static const char *const want[] = {
		"%n = f32[4,2]{0,1} negate(",
		"%t = f32[2,4]{1,0} transpose(",
		"%s = f32[2,4]{1,0} add(",
		"%c = pred[4,2]{0,1} compare(",
		"%y = f32[5,3,4]{1,0,2:S(1)} transpose(",
		"ROOT %r = (f32[4,2]{0,1}, f32[2,4]{1,0}, f32[2,4]{1,0}, "
		"pred[4,2]{0,1}, f32[5,3,4]{1,0,2:S(1)}) tuple(",
		"->(f32[4,2]{0,1}, f32[2,4]{1,0}, f32[2,4]{1,0}, pred[4,2]{0,1}, "
		"f32[5,3,4]{1,0,2:S(1)})}",
	};
	contains_all(t, want, sizeof want / sizeof *want);
	free(t);
	hlo_module_free(m);
}

/* A negative zero in a constant is written -0.0 (XLA prints -0, but its
 * parser reads -0 as +0 and -0.0 as -0: a saved -0 changed what the
 * module computes there); it reads back as -0, and -0.5, 0 and integers
 * are left alone. */
static void negative_zero_constants(void **st)
{
	(void)st;
	HloModule *m = load(
		"HloModule m\nENTRY e {\n  c = f32[] constant(-0)\n"
		"  d = f32[3] constant({-0, 1, -0.5})\n"
		"  x = c64[2] constant({(-0, -0), (1, 0)})\n"
		"  i = s32[2] constant({-0, -10})\n"
		"  ROOT r = (f32[], f32[3], c64[2], s32[2]) tuple(c, d, x, i)\n}\n");
	char *t = print_long(m);
	static const char *const want[] = {
		"constant(-0.0)\n", "constant({-0.0, 1, -0.5})\n",
		"constant({(-0.0, -0.0), (1, 0)})\n", "constant({0, -10})\n"};
	contains_all(t, want, sizeof want / sizeof *want);
	HloModule *m2 = reloads_same(t);
	const HloInstr *c = hlo_comp_find(m2->entry, "c");
	uint32_t bits;
	memcpy(&bits, c->literal->data, 4);
	assert_int_equal(bits, 0x80000000u);
	free(t);
	hlo_module_free(m);
	hlo_module_free(m2);
}

/* Bytes in a module's strings that are not printable ASCII are printed
 * escaped, as XLA's printer has them (its own output for this module,
 * jaxlib 0.10.2): control characters, DEL and UTF-8 as octal, tab and
 * line ends by letter; escapes already written stay; a fixed point. */
static void strings_escaped_as_xla(void **st)
{
	(void)st;
	HloModule *m = load(
		"HloModule m, frontend_attributes={k=\"v\x1b\"}\nENTRY e {\n"
		"  p = f32[2] parameter(0)\n"
		"  ROOT c = f32[2] custom-call(p), custom_call_target=\"a\x1b"
		"b\x01\xe6\x97\xa5\x7f\\033\tz\", "
		"metadata={op_name=\"q\x1br\"}\n}\n");
	char *t = print_long(m);
	static const char *const want[] = {
		/* one string over two lines (parenthesised: clang's
		 * -Wstring-concatenation takes it for a missing comma) */
		("custom_call_target=\"a\\033b\\001\\346\\227\\245\\177"
		 "\\033\\tz\""),
		"metadata={op_name=\"q\\033r\"}",
		"frontend_attributes={k=\"v\\033\"}"};
	contains_all(t, want, sizeof want / sizeof *want);
	for (const char *q = t; *q; q++)
		if ((unsigned char)*q >= 0x7f ||
		    ((unsigned char)*q < 0x20 && *q != '\n'))
			fail_msg("byte 0x%02x printed raw in:\n%s",
				 (unsigned char)*q, t);
	hlo_module_free(reloads_same(t));
	free(t);
	hlo_module_free(m);
}

/* Text that uses an instruction before the line defining it loads, and
 * is printed with every operand first, as XLA's parser needs it (the
 * source order was kept and XLA refused what we saved); an order that is
 * one already is kept as it is. */
static void operands_printed_first(void **st)
{
	(void)st;
	HloModule *m = load("HloModule m\nENTRY e {\n"
			    "  ROOT r = f32[4] add(a, b)\n"
			    "  a = f32[4] parameter(0)\n"
			    "  b = f32[4] negate(a)\n}\n");
	char *t = print_long(m);
	const char *pa = strstr(t, "%a = "), *pb = strstr(t, "%b = "),
		   *pr = strstr(t, "ROOT %r = ");
	assert_true(pa && pb && pr && pa < pb && pb < pr);
	free(t);
	hlo_module_free(m);
	m = load("HloModule m\nENTRY e {\n  b = f32[4] parameter(1)\n"
		 "  a = f32[4] parameter(0)\n  c = f32[4] negate(b)\n"
		 "  ROOT r = f32[4] add(a, c)\n}\n");
	t = print_long(m);
	pa = strstr(t, "%a = ");
	pb = strstr(t, "%b = ");
	assert_true(pa && pb && pb < pa);
	free(t);
	hlo_module_free(m);
}

/* Printing twice gives the same text (nothing in the printer is stateful). */
static void print_is_repeatable(void **st)
{
	(void)st;
	HloModule *m = load(MODULES[3]);
	char *a = print_long(m), *b = print_long(m);
	assert_string_equal(a, b);
	free(a);
	free(b);
	hlo_module_free(m);
}

/* --- clones ------------------------------------------------------------------ */

static void clone_prints_identically(void **st)
{
	(void)st;
	for (size_t i = 0; i < sizeof MODULES / sizeof *MODULES; i++) {
		HloModule *m = load(MODULES[i]);
		HloModule *c = hlo_module_clone(m);
		assert_non_null(c);
		char *a = print_long(m);
		hlo_module_free(m); /* the clone owns everything it needs */
		char *b = print_long(c);
		if (strcmp(a, b))
			fail_msg("clone of module %zu prints "
				 "differently:\n%s---\n%s",
				 i + 1, a, b);
		free(a);
		free(b);
		hlo_module_free(c);
	}
}

/* An instruction made through the API (no source position) prints and
 * parses back. */
static void built_instruction(void **st)
{
	(void)st;
	HloModule *m = load("ENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n");
	HloInstr *p = m->entry->root;
	HloInstr *ops[] = {p, p};
	HloInstr *a =
		hlo_instr_new(m->entry, HLO_ADD,
			      shape_clone(&m->arena, p->shape), NULL, 2, ops);
	assert_non_null(a);
	m->entry->root = a;
	char *t = print_long(m);
	assert_non_null(strstr(
		t,
		"  ROOT %add = f32[4]{0} add(f32[4]{0} %p, f32[4]{0} %p)\n"));
	assert_non_null(
		strstr(t, "entry_computation_layout={(f32[4]{0})->f32[4]{0}}"));
	HloModule *m2 = load(t);
	assert_int_equal(m2->entry->n, 2);
	free(t);
	hlo_module_free(m2);
	hlo_module_free(m);
}

/* sb_putint writes what printf's %lld does, extremes included. */
static void putint_matches_printf(void **st)
{
	(void)st;
	const long long v[] = {0, 1, -1, 9, 10, -10, 99, 100, 12345,
			       -987654321, 2147483647LL, -2147483648LL,
			       4294967296LL, LLONG_MAX, LLONG_MIN,
			       LLONG_MIN + 1, 1000000000000000000LL};
	StrBuf b;
	sb_init(&b);
	char want[64], all[2048] = "";
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		sb_putint(&b, v[i]);
		sb_putc(&b, ' ');
		snprintf(want, sizeof want, "%lld ", v[i]);
		strncat(all, want, sizeof all - strlen(all) - 1);
	}
	assert_string_equal(sb_str(&b), all);
	sb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(long_form_text),
		cmocka_unit_test(short_form_text),
		cmocka_unit_test(long_tuple_shapes),
		cmocka_unit_test(long_operand_lists),
		cmocka_unit_test(header_keeps_attributes),
		cmocka_unit_test(constants_in_full),
		cmocka_unit_test(constants_elided),
		cmocka_unit_test(attribute_forms),
		cmocka_unit_test(fixed_point),
		cmocka_unit_test(print_is_repeatable),
		cmocka_unit_test(clone_prints_identically),
		cmocka_unit_test(built_instruction),
		cmocka_unit_test(putint_matches_printf),
		cmocka_unit_test(long_tuples),
		cmocka_unit_test(header_layout_kept),
		cmocka_unit_test(omitted_shapes_take_layouts),
		cmocka_unit_test(negative_zero_constants),
		cmocka_unit_test(strings_escaped_as_xla),
		cmocka_unit_test(operands_printed_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
