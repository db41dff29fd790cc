/* test_verify.c - the HLO verifier (core/verify.c): module structure,
 * operands, attributes, element types, declared against inferred shapes
 * and called computation signatures. Each test names the rule it breaks
 * and checks the located message. */
#include "testutil.h"

/* Parses and verifies text; returns "" when it verifies, else the
 * diagnostics. The text must parse. */
static const char *verify(const char *text)
{
	static char out[8192];
	SrcFile f = {"t.hlo", text, strlen(text), 0};
	Diag d;
	diag_init(&d);
	HloModule *m = parse_module(&f, &d, NULL);
	if (!m)
		fail_msg("does not parse:\n%s", diag_text(&d));
	bool ok = verify_module(m, &d, &f);
	assert_true(ok == (d.errors == 0));
	snprintf(out, sizeof out, "%s", ok ? "" : diag_text(&d));
	diag_free(&d);
	hlo_module_free(m);
	return out;
}

#define MOD(body)   "HloModule t\n\n" body
#define ENTRY(body) "HloModule t\n\nENTRY e {\n" body "}\n"

#define ADD_F32                                                       \
	"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n" \
	"  ROOT s = f32[] add(a, b)\n}\n\n"

/* --- well-formed modules pass --------------------------------------- */

static void verify_accepts_axpy(void **st)
{
	(void)st;
	assert_string_equal(
		verify(MOD(
			ADD_F32
			"ENTRY main {\n"
			"  alpha = f32[] parameter(0)\n"
			"  x = f32[2,4]{1,0} parameter(1)\n"
			"  y = f32[2,4]{1,0} parameter(2)\n"
			"  ab = f32[2,4]{1,0} broadcast(alpha), dimensions={}\n"
			"  ax = f32[2,4]{0,1} multiply(ab, x)\n"
			"  axpy = f32[2,4]{1,0} add(ax, y)\n"
			"  zero = f32[] constant(0)\n"
			"  rowsum = f32[2]{0} reduce(axpy, zero), "
			"dimensions={1}, "
			"to_apply=add\n"
			"  ROOT out = (f32[2,4]{1,0}, f32[2]{0}) tuple(axpy, "
			"rowsum)\n"
			"}\n")),
		"");
}

static void verify_accepts_control_flow(void **st)
{
	(void)st;
	assert_string_equal(
		verify(MOD(
			"cond {\n  c = (s32[], f32[4]) parameter(0)\n"
			"  i = s32[] get-tuple-element(c), index=0\n"
			"  n = s32[] constant(10)\n"
			"  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\n"
			"body {\n  b = (s32[], f32[4]) parameter(0)\n"
			"  i = s32[] get-tuple-element(b), index=0\n"
			"  x = f32[4] get-tuple-element(b), index=1\n"
			"  one = s32[] constant(1)\n  j = s32[] add(i, one)\n"
			"  y = f32[4] negate(x)\n"
			"  ROOT r = (s32[], f32[4]) tuple(j, y)\n}\n\n"
			"ENTRY e {\n  p = (s32[], f32[4]) parameter(0)\n"
			"  ROOT w = (s32[], f32[4]) while(p), condition=cond, "
			"body=body\n}\n")),
		"");
}

/* --- module structure ------------------------------------------------ */

static void verify_entry_required(void **st)
{
	(void)st;
	HloModule *m = hlo_module_new("m");
	HloComp *c = hlo_comp_new(m, "c");
	int64_t four = 4;
	Shape *s = shape_array(&m->arena, DT_F32, 1, &four);
	HloInstr *p = hlo_instr_new(c, HLO_PARAMETER, s, "p", 0, NULL);
	p->param_no = 0;
	c->root = p;
	Diag d;
	diag_init(&d);
	assert_false(verify_module(m, &d, NULL));
	check_error(diag_text(&d),
		    "error: module 'm' has no entry computation");
	assert_int_equal(d.errors, 1);
	/* with the entry set it verifies */
	hlo_module_set_entry(m, c);
	diag_clear(&d);
	assert_true(verify_module(m, &d, NULL));
	diag_free(&d);
	hlo_module_free(m);
}

static void verify_operand_in_other_computation(void **st)
{
	(void)st;
	HloModule *m = hlo_module_new("m");
	HloComp *c = hlo_comp_new(m, "c"), *e = hlo_comp_new(m, "e");
	Shape *s = shape_scalar(&m->arena, DT_F32);
	HloInstr *p = hlo_instr_new(c, HLO_PARAMETER, s, "p", 0, NULL);
	c->root = p;
	HloInstr *q = hlo_instr_new(e, HLO_NEGATE, s, "q", 1, &p);
	e->root = q;
	hlo_module_set_entry(m, e);
	Diag d;
	diag_init(&d);
	assert_false(verify_module(m, &d, NULL));
	check_error(diag_text(&d),
		    "negate 'q': operand 0 'p' belongs to computation 'c'");
	/* a root that lives elsewhere */
	diag_clear(&d);
	e->root = p;
	assert_false(verify_module(m, &d, NULL));
	check_error(diag_text(&d), "root 'p' of computation 'e' belongs to "
				   "another computation");
	diag_free(&d);
	hlo_module_free(m);
}

static void verify_parameter_numbers(void **st)
{
	(void)st;
	check_error(
		verify(ENTRY("  p = f32[] parameter(0)\n"
			     "  q = f32[] parameter(2)\n"
			     "  ROOT r = f32[] add(p, q)\n")),
		"t.hlo:5:3: error: parameter 'q': parameter number 2 is out "
		"of range: the 2 parameters of computation 'e' (this one "
		"included) are numbered 0 to 1");
	check_error(verify(ENTRY("  p = f32[] parameter(0)\n"
				 "  q = f32[] parameter(0)\n"
				 "  ROOT r = f32[] add(p, q)\n")),
		    "t.hlo:5:3: error: parameter 'q': parameter number 0 is "
		    "already used by 'p'");
	/* a third of the same number names the first */
	const char *third = verify(ENTRY("  p = f32[] parameter(0)\n"
					 "  q = f32[] parameter(0)\n"
					 "  r = f32[] parameter(0)\n"
					 "  ROOT s = f32[] add(p, q)\n"));
	check_error(third, "parameter 'r': parameter number 0 is already "
			   "used by 'p'");
}

/* More parameters than check_params keeps as bits: the same messages
 * from its table. */
static void verify_parameter_numbers_many(void **st)
{
	(void)st;
	static char text[8192];
	for (int dup = 0; dup < 2; dup++) {
		int n = snprintf(text, sizeof text, "HloModule t\n\nENTRY e {\n");
		for (int i = 0; i < 70; i++)
			n += snprintf(text + n, sizeof text - (size_t)n,
				      "  p%d = f32[] parameter(%d)\n", i,
				      dup && i == 69 ? 3 : i);
		snprintf(text + n, sizeof text - (size_t)n,
			 "  ROOT r = f32[] add(p0, p1)\n}\n");
		const char *got = verify(text);
		if (!dup)
			assert_string_equal(got, "");
		else
			check_error(got, "parameter 'p69': parameter number 3 "
					 "is already used by 'p3'");
	}
}

static void verify_cycle(void **st)
{
	(void)st;
	const char *got = verify(ENTRY("  p = f32[4] parameter(0)\n"
				       "  x = f32[4] add(z, p)\n"
				       "  y = f32[4] negate(x)\n"
				       "  z = f32[4] exponential(y)\n"
				       "  ROOT r = f32[4] negate(z)\n"));
	check_error(got, "t.hlo:5:3: error: instruction 'x' depends on itself: "
			 "x -> z -> y -> x");
}

/* --- operands and attributes ---------------------------------------- */

static void verify_operand_count(void **st)
{
	(void)st;
	check_error(verify(ENTRY("  p = f32[4] parameter(0)\n"
				 "  ROOT n = f32[4] negate(p, p)\n")),
		    "negate 'n': expects 1 operand, got 2");
	check_error(verify(MOD(ADD_F32
			       "ENTRY e {\n"
			       "  p = f32[4] parameter(0)\n"
			       "  z = f32[] constant(0)\n"
			       "  r = f32[] reduce(p, z, p), dimensions={0}, "
			       "to_apply=add\n}\n")),
		    "t.hlo:12:3: error: reduce 'r': expects inputs and as many "
		    "init values, got 3 operands");
	check_error(
		verify(ENTRY("  p = f32[4,4] parameter(0)\n"
			     "  i = s32[] parameter(1)\n"
			     "  d = f32[2,2] dynamic-slice(p, i, i, i), "
			     "dynamic_slice_sizes={2,2}\n")),
		"dynamic-slice 'd': expects the operand and one start index "
		"per dimension, got 4 operands");
}

static void verify_required_attributes(void **st)
{
	(void)st;
	check_error(
		verify(ENTRY("  p = f32[4] parameter(0)\n"
			     "  c = pred[4] compare(p, p)\n")),
		"t.hlo:5:3: error: compare 'c': missing direction attribute");
	check_error(verify(ENTRY("  p = f32[4] parameter(0)\n"
				 "  z = f32[] constant(0)\n"
				 "  r = f32[] reduce(p, z), dimensions={0}\n")),
		    "reduce 'r': missing to_apply attribute");
	check_error(verify(ENTRY("  p = f32[4] parameter(0)\n"
				 "  b = f32[2,4] broadcast(p)\n")),
		    "broadcast 'b': missing dimensions attribute");
	check_error(verify(MOD(ADD_F32 "ENTRY e {\n  p = f32[] parameter(0)\n"
				       "  f = f32[] fusion(p, p), kind=kFast, "
				       "calls=add\n}\n")),
		    "fusion 'f': unknown fusion kind kFast");
}

static void verify_attribute_values(void **st)
{
	(void)st;
	check_error(
		verify(ENTRY("  p = (f32[], s32[]) parameter(0)\n"
			     "  g = s32[] get-tuple-element(p), index=2\n")),
		"get-tuple-element 'g': index 2 is out of range for "
		"(f32[], s32[])");
	check_error(verify(ENTRY("  i = s32[4,4] iota(), iota_dimension=2\n")),
		    "iota 'i': iota_dimension 2 is out of range for s32[4,4]");
	check_error(verify(ENTRY(
			    "  p = f32[2,3] parameter(0)\n"
			    "  t = f32[3,2] transpose(p), dimensions={0,0}\n")),
		    "transpose 't': dimensions (a permutation): dimension 0 "
		    "repeated");
}

/* --- element types ---------------------------------------------------- */

static void verify_operand_types(void **st)
{
	(void)st;
	check_error(verify(ENTRY("  p = f32[4] parameter(0)\n"
				 "  x = f32[4] and(p, p)\n")),
		    "t.hlo:5:3: error: and 'x': operand 0 'p' is f32[4], "
		    "expected pred or an integer type");
	check_error(verify(ENTRY("  p = s32[4] parameter(0)\n"
				 "  x = s32[4] exponential(p)\n")),
		    "exponential 'x': operand 0 'p' is s32[4], expected "
		    "floating point or complex");
	check_error(verify(ENTRY("  c = s32[4] parameter(0)\n"
				 "  p = f32[4] parameter(1)\n"
				 "  s = f32[4] select(c, p, p)\n")),
		    "select 's': operand 0 'c' is s32[4], expected pred");
	check_error(verify(ENTRY("  p = f32[8] parameter(0)\n"
				 "  i = f32[] parameter(1)\n"
				 "  d = f32[2] dynamic-slice(p, i), "
				 "dynamic_slice_sizes={2}\n")),
		    "dynamic-slice 'd': operand 1 'i' is f32[], expected an "
		    "integer type");
	check_error(verify(ENTRY("  i = pred[4] iota(), iota_dimension=0\n")),
		    "iota 'i': cannot make an iota of pred[4]");
	assert_string_equal(verify(ENTRY("  p = pred[4] parameter(0)\n"
					 "  ROOT x = pred[4] xor(p, p)\n")),
			    "");
}

/* --- declared against inferred --------------------------------------- */

static void verify_declared_shape(void **st)
{
	(void)st;
	check_error(verify(ENTRY("  p = f32[4] parameter(0)\n"
				 "  x = f32[5] negate(p)\n")),
		    "t.hlo:5:3: error: declared shape f32[5] of 'x' does not "
		    "match inferred f32[4]");
	check_error(verify(ENTRY("  p = f32[4] parameter(0)\n"
				 "  x = f32[4] broadcast(p), dimensions={0}\n"
				 "  y = s32[4] convert(p)\n"
				 "  c = s32[4] compare(p, p), direction=EQ\n")),
		    "t.hlo:7:3: error: declared shape s32[4] of 'c' does not "
		    "match inferred pred[4]");
	/* layouts do not matter */
	assert_string_equal(
		verify(ENTRY("  p = f32[2,3]{0,1} parameter(0)\n"
			     "  ROOT x = f32[2,3]{1,0} negate(p)\n")),
		"");
	/* broadcast keeps the operand's element type */
	check_error(
		verify(ENTRY("  p = s32[4] parameter(0)\n"
			     "  b = f32[2,4] broadcast(p), dimensions={1}\n")),
		"declared shape f32[2,4] of 'b' does not match inferred "
		"s32[2,4]");
	/* opaque opcodes keep their declared shape */
	assert_string_equal(
		verify(ENTRY("  p = f32[4] parameter(0)\n"
			     "  ROOT c = (s8[3], u32[]) custom-call(p), "
			     "custom_call_target=\"foo\"\n")),
		"");
}

/* --- called computations --------------------------------------------- */

static void verify_reducer_signature(void **st)
{
	(void)st;
	check_error(
		verify(MOD(
			"bad {\n  a = f32[] parameter(0)\n"
			"  b = f32[] parameter(1)\n  c = f32[] parameter(2)\n"
			"  ROOT s = f32[] add(a, b)\n}\n\n"
			"ENTRY e {\n  p = f32[4] parameter(0)\n"
			"  z = f32[] constant(0)\n"
			"  r = f32[] reduce(p, z), dimensions={0}, "
			"to_apply=bad\n}\n")),
		"t.hlo:13:3: error: reduce 'r': to_apply 'bad' takes 3 "
		"parameters, expected 2");
	check_error(verify(MOD("bad {\n  a = s32[] parameter(0)\n"
			       "  b = s32[] parameter(1)\n"
			       "  ROOT s = s32[] add(a, b)\n}\n\n"
			       "ENTRY e {\n  p = f32[4] parameter(0)\n"
			       "  z = f32[] constant(0)\n"
			       "  r = s32[] reduce(p, z), dimensions={0}, "
			       "to_apply=bad\n}\n")),
		    "reduce 'r': to_apply 'bad' returns s32[] where the init "
		    "value is f32[]");
	/* f32 accumulators over bf16 inputs are fine, as in XLA */
	assert_string_equal(
		verify(MOD(ADD_F32
			   "ENTRY e {\n  p = bf16[4] parameter(0)\n"
			   "  z = f32[] constant(0)\n"
			   "  ROOT r = f32[] reduce(p, z), dimensions={0}, "
			   "to_apply=add\n}\n")),
		"");
}

static void verify_sort_comparator(void **st)
{
	(void)st;
	check_error(
		verify(MOD(ADD_F32 "ENTRY e {\n  p = f32[4] parameter(0)\n"
				   "  s = f32[4] sort(p), dimensions={0}, "
				   "to_apply=add\n}\n")),
		"sort 's': comparator 'add' returns f32[], expected pred[]");
	check_error(
		verify(MOD(ADD_F32 "ENTRY e {\n  p = f32[4] parameter(0)\n"
				   "  q = s32[4] parameter(1)\n"
				   "  s = (f32[4], s32[4]) sort(p, q), "
				   "dimensions={0}, to_apply=add\n}\n")),
		"sort 's': comparator 'add' takes 2 parameters, expected 4");
}

static void verify_while_signature(void **st)
{
	(void)st;
	check_error(verify(MOD("cond {\n  c = s32[] parameter(0)\n"
			       "  ROOT n = s32[] negate(c)\n}\n\n"
			       "body {\n  b = s32[] parameter(0)\n"
			       "  ROOT n = s32[] negate(b)\n}\n\n"
			       "ENTRY e {\n  p = s32[] parameter(0)\n"
			       "  w = s32[] while(p), condition=cond, "
			       "body=body\n}\n")),
		    "t.hlo:15:3: error: while 'w': condition 'cond' returns "
		    "s32[], expected pred[]");
	check_error(verify(MOD("cond {\n  c = s32[] parameter(0)\n"
			       "  ROOT t = pred[] constant(true)\n}\n\n"
			       "body {\n  b = f32[] parameter(0)\n"
			       "  ROOT n = s32[] constant(1)\n}\n\n"
			       "ENTRY e {\n  p = s32[] parameter(0)\n"
			       "  w = s32[] while(p), condition=cond, "
			       "body=body\n}\n")),
		    "while 'w': parameter 0 of body 'body' is f32[], expected "
		    "s32[]");
}

static void verify_call_signature(void **st)
{
	(void)st;
	check_error(
		verify(MOD(ADD_F32
			   "ENTRY e {\n  p = f32[4] parameter(0)\n"
			   "  c = f32[] call(p, p), to_apply=add\n}\n")),
		"call 'c': parameter 0 of to_apply 'add' is f32[], expected "
		"f32[4]");
	check_error(
		verify(MOD(ADD_F32 "ENTRY e {\n  p = f32[] parameter(0)\n"
				   "  c = f32[] call(p), to_apply=add\n}\n")),
		"call 'c': to_apply 'add' takes 2 parameters, expected 1");
	check_error(
		verify(MOD(ADD_F32 "ENTRY e {\n  p = f32[] parameter(0)\n"
				   "  f = f32[2] fusion(p, p), kind=kLoop, "
				   "calls=add\n}\n")),
		"declared shape f32[2] of 'f' does not match inferred f32[]");
	/* a fusion may pass operands its computation does not use */
	assert_string_equal(
		verify(MOD(ADD_F32
			   "ENTRY e {\n  p = f32[] parameter(0)\n"
			   "  ROOT f = f32[] fusion(p, p, p), kind=kLoop, "
			   "calls=add\n}\n")),
		"");
}

static void verify_conditional_signature(void **st)
{
	(void)st;
	check_error(verify(MOD("b0 {\n  x = f32[2] parameter(0)\n"
			       "  ROOT y = f32[2] negate(x)\n}\n\n"
			       "b1 {\n  x = s32[] parameter(0)\n"
			       "  ROOT y = f32[2] constant({1, 2})\n}\n\n"
			       "ENTRY e {\n  k = s32[] parameter(0)\n"
			       "  a = f32[2] parameter(1)\n"
			       "  c = f32[2] conditional(k, a, a), "
			       "branch_computations={b0, b1}\n}\n")),
		    "conditional 'c': parameter 0 of branch 'b1' is s32[], "
		    "expected f32[2]");
	check_error(
		verify(MOD("b0 {\n  x = f32[2] parameter(0)\n"
			   "  ROOT y = f32[2] negate(x)\n}\n\n"
			   "ENTRY e {\n  k = f32[] parameter(0)\n"
			   "  a = f32[2] parameter(1)\n"
			   "  c = f32[2] conditional(k, a), "
			   "branch_computations={b0}\n}\n")),
		"conditional 'c': branch index 'k' is f32[], expected s32[]");
}

static void verify_map_and_select_and_scatter(void **st)
{
	(void)st;
	check_error(
		verify(MOD(ADD_F32 "ENTRY e {\n  p = s32[4] parameter(0)\n"
				   "  m = f32[4] map(p, p), dimensions={0}, "
				   "to_apply=add\n}\n")),
		"map 'm': parameter 0 of to_apply 'add' is f32[], expected "
		"s32[]");
	check_error(
		verify(MOD(ADD_F32 "ENTRY e {\n  p = f32[4] parameter(0)\n"
				   "  s = f32[2] parameter(1)\n"
				   "  z = f32[] constant(0)\n"
				   "  x = f32[4] select-and-scatter(p, s, z), "
				   "window={size=2 stride=2}, select=add, "
				   "scatter=add\n}\n")),
		"select-and-scatter 'x': select 'add' returns f32[], expected "
		"pred[]");
}

/* --- collecting errors ------------------------------------------------- */

/* Into text (cap bytes): an entry computation e whose instructions x0..
 * x(k-1) (lines 5 on) each declare a wrong shape (x_i: f32[5 + i]),
 * then tail. */
static void bad_entry(char *text, size_t cap, int k, const char *tail)
{
	int n = snprintf(
		text, cap,
		"HloModule t\n\nENTRY e {\n  p = f32[4] parameter(0)\n");
	for (int i = 0; i < k; i++)
		n += snprintf(text + n, cap - (size_t)n,
			      "  x%d = f32[%d] negate(p)\n", i, 5 + i);
	snprintf(text + n, cap - (size_t)n, "%s", tail);
}

static void verify_collects_and_caps_errors(void **st)
{
	(void)st;
	char text[8192];
	bad_entry(text, sizeof text, 30, "}\n");
	SrcFile f = {"t.hlo", text, strlen(text), 0};
	Diag d;
	diag_init(&d);
	HloModule *m = parse_module(&f, &d, NULL);
	assert_non_null(m);
	assert_false(verify_module(m, &d, &f));
	assert_int_equal(d.errors, 20);
	check_error(diag_text(&d), "t.hlo:5:3: error: declared shape f32[5]");
	check_error(diag_text(&d), "t.hlo:24:3: error: declared shape f32[24]");
	check_error(diag_text(&d), "note: too many errors");
	assert_null(strstr(diag_text(&d), "f32[25]"));
	/* verify_instr checks one instruction */
	diag_clear(&d);
	assert_false(verify_instr(hlo_comp_find(m->entry, "x3"), &d, &f));
	assert_int_equal(d.errors, 1);
	check_error(diag_text(&d), "t.hlo:8:3: error: declared shape f32[8] of "
				   "'x3' does not match inferred f32[4]");
	diag_clear(&d);
	assert_true(verify_instr(hlo_comp_find(m->entry, "p"), &d, &f));
	diag_free(&d);
	hlo_module_free(m);
}

/* The errors come in the text's order, the first 20 of them, wherever
 * the entry stands: a module that passes is verified with the entry last
 * (verify.c), one that fails is verified again in its own order. Here
 * the entry comes first with 22 errors, a computation after it with
 * one: only the entry's are reported, the first first, in both modes. */
static void verify_errors_in_text_order(void **st)
{
	(void)st;
	char text[8192];
	bad_entry(text, sizeof text, 22,
		  "  ROOT r = f32[4] negate(p)\n}\n\n"
		  "h {\n  a = f32[2] parameter(0)\n"
		  "  ROOT b = f32[3] negate(a)\n}\n");
	SrcFile f = {"t.hlo", text, strlen(text), 0};
	for (int changed = 0; changed < 2; changed++) {
		Diag d;
		diag_init(&d);
		HloModule *m = parse_module(&f, &d, NULL);
		assert_non_null(m);
		int checked;
		assert_false(
			changed ? verify_module_changed(m, &d, &f, &checked)
				: verify_module(m, &d, &f));
		assert_int_equal(d.errors, 20);
		const char *t = diag_text(&d);
		check_error(t, "t.hlo:5:3: error: declared shape f32[5]");
		assert_true(strstr(t, "t.hlo:5:3:") == t);
		check_error(t, "t.hlo:24:3: error: declared shape f32[24]");
		assert_null(strstr(t, "f32[3]"));
		diag_free(&d);
		hlo_module_free(m);
	}
}

/* verify_module_changed after a change: nothing to check when nothing
 * changed; a broken instruction is caught whether its operand was
 * replaced, an attribute rewritten in place or the shape of what it
 * reads changed; a clone inherits the verdicts (verify_inherit). */
static bool changed_ok(HloModule *m, int *checked)
{
	Diag d;
	diag_init(&d);
	bool ok = verify_module_changed(m, &d, NULL, checked);
	diag_free(&d);
	return ok;
}

/* Broadcast b of a scalar gets dimensions={0} in its attribute's slot
 * (caught), then dimensions={} (passes). */
static void wrong_dims_then_mended(HloModule *m, HloInstr *b)
{
	int checked;
	HloAttr *dims = hlo_attr_set(b, A_DIMENSIONS, NULL);
	int64_t *v = arena_alloc(&m->arena, sizeof *v);
	v[0] = 0;
	dims->u.ints.n = 1;
	dims->u.ints.v = v;
	assert_false(changed_ok(m, &checked));
	dims->u.ints.n = 0;
	assert_true(changed_ok(m, &checked));
}

/* What verify_module_changed_each hands its caller: a count per
 * instruction (by id). */
typedef struct Handed {
	int times[64];
	int n;
} Handed;

static void hand(void *ctx, HloInstr *const *xs, int n)
{
	Handed *h = ctx;
	for (int i = 0; i < n; i++) {
		assert_true(xs[i]->id >= 0 && xs[i]->id < 64);
		h->times[xs[i]->id]++;
		h->n++;
	}
}

static bool handed_ok(HloModule *m, Handed *h)
{
	*h = (Handed){{0}, 0};
	Diag d;
	diag_init(&d);
	int checked;
	bool ok = verify_module_changed_each(m, &d, NULL, &checked, hand, h);
	diag_free(&d);
	return ok;
}

/* Each entry instruction is handed once when the module passes, whether
 * it changed or not, and a changed one only after it passed its checks;
 * nothing of the entry is handed while another computation (a fused
 * one, verified before the entry) fails. */
static void verify_changed_hands_the_entry(void **state)
{
	(void)state;
	HloModule *m = load_text("HloModule t\n"
				 "ENTRY e {\n"
				 "  p = f32[4] parameter(0)\n"
				 "  q = f32[2] parameter(1)\n"
				 "  a = f32[4] negate(p)\n"
				 "  ROOT n = f32[4] negate(a)\n"
				 "}\n"
				 "f {\n  x = f32[4] parameter(0)\n"
				 "  ROOT y = f32[4] negate(x)\n}\n");
	HloComp *e = m->entry, *f = hlo_module_find_comp(m, "f");
	assert_non_null(f);
	HloInstr *p = hlo_comp_find(e, "p"), *q = hlo_comp_find(e, "q"),
		 *a = hlo_comp_find(e, "a"), *y = hlo_comp_find(f, "y");
	Handed h;
	assert_true(handed_ok(m, &h));
	assert_int_equal(h.n, e->n);
	for (int i = 0; i < e->n; i++)
		assert_int_equal(h.times[e->instrs[i]->id], 1);
	/* a changed, and passing: handed once all the same */
	hlo_set_operand(a, 0, hlo_comp_find(e, "n"));
	hlo_set_operand(a, 0, p);
	assert_true(handed_ok(m, &h));
	assert_int_equal(h.n, e->n);
	/* a broken: not handed */
	hlo_set_operand(a, 0, q);
	assert_false(handed_ok(m, &h));
	assert_int_equal(h.times[a->id], 0);
	hlo_set_operand(a, 0, p);
	assert_true(handed_ok(m, &h));
	assert_int_equal(h.times[a->id], 1);
	/* f (after the entry in the text, verified before it) broken:
	 * nothing of the entry handed */
	HloInstr *x = hlo_comp_find(f, "x");
	hlo_set_operand(y, 0, NULL);
	assert_false(handed_ok(m, &h));
	assert_int_equal(h.n, 0);
	hlo_set_operand(y, 0, x);
	assert_true(handed_ok(m, &h));
	assert_int_equal(h.n, e->n);
	hlo_module_free(m);
}

static void verify_changed_rechecks_what_moved(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n"
		"ENTRY e {\n"
		"  p = f32[4] parameter(0)\n"
		"  q = f32[2] parameter(1)\n"
		"  s = f32[] parameter(2)\n"
		"  b = f32[4] broadcast(s), dimensions={}\n"
		"  a = f32[4] add(p, b)\n"
		"  ROOT n = f32[4] negate(a)\n"
		"}\n");
	int checked = -1;
	assert_true(changed_ok(m, &checked));
	assert_int_equal(checked, 0);
	HloComp *e = m->entry;
	HloInstr *p = hlo_comp_find(e, "p"), *q = hlo_comp_find(e, "q"),
		 *a = hlo_comp_find(e, "a"), *b = hlo_comp_find(e, "b");
	/* an operand of the wrong shape */
	hlo_set_operand(a, 0, q);
	assert_false(changed_ok(m, &checked));
	hlo_set_operand(a, 0, p);
	assert_true(changed_ok(m, &checked));
	assert_int_equal(checked, 1);
	/* an attribute rewritten in its slot: broadcast of a scalar with a
	 * dimension it does not have */
	wrong_dims_then_mended(m, b);
	/* the shape of an operand replaced: its user is checked again */
	p->shape = q->shape;
	assert_false(changed_ok(m, &checked));
	HloModule *c = hlo_module_clone(m);
	assert_non_null(c);
	verify_inherit(c, m); /* m's a, n, p failed: not inherited */
	assert_false(changed_ok(c, &checked));
	hlo_module_free(c);
	hlo_module_free(m);
	/* a clone of a verified module has nothing to check */
	m = load_text("HloModule t\nENTRY e {\n  p = f32[4] parameter(0)\n"
		      "  ROOT n = f32[4] negate(p)\n}\n");
	c = hlo_module_clone(m);
	verify_inherit(c, m);
	assert_true(changed_ok(c, &checked));
	assert_int_equal(checked, 0);
	hlo_module_free(c);
	hlo_module_free(m);
}

/* A clone shares its source's shapes and attribute values, so it takes
 * each instruction's signature as it is (hlo_module_clone): nothing to
 * check after it, a constant included. A change made to the source after
 * its last run, or to the clone after the copy, is still caught: an
 * operand replaced, a list of computations pointed at another with
 * other parameters. A clone of a clone copies everything and gets its
 * signatures from verify_inherit. */
static void verify_clone_keeps_signatures(void **state)
{
	(void)state;
	const char *text = MOD(
		ADD_F32
		"addi {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
		"  ROOT s = s32[] add(a, b)\n}\n\n"
		"ENTRY e {\n"
		"  p = f32[4] parameter(0)\n"
		"  q = f32[2] parameter(1)\n"
		"  z = f32[] constant(0)\n"
		"  r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n"
		"  ROOT n = f32[4] negate(p)\n}\n");
	HloModule *m = load_text(text);
	int checked = -1;
	HloModule *c = hlo_module_clone(m);
	assert_non_null(c);
	assert_true(changed_ok(c, &checked));
	assert_int_equal(checked, 0);
	/* the clone's reduce pointed at a reducer of other types */
	HloInstr *r = hlo_comp_find(c->entry, "r");
	HloAttr *to = hlo_attr_find(r, A_TO_APPLY);
	HloComp *add = to->u.comps.v[0];
	to->u.comps.v[0] = hlo_module_find_comp(c, "addi");
	assert_false(changed_ok(c, &checked));
	to->u.comps.v[0] = add;
	assert_true(changed_ok(c, &checked));
	/* a clone of the clone copies all: verify_inherit */
	HloModule *c2 = hlo_module_clone(c);
	assert_non_null(c2);
	verify_inherit(c2, c);
	assert_true(changed_ok(c2, &checked));
	assert_int_equal(checked, 0);
	hlo_module_free(c2);
	hlo_module_free(c);
	/* m broken after its last run: the clone does not take it */
	HloComp *e = m->entry;
	hlo_set_operand(hlo_comp_find(e, "n"), 0, hlo_comp_find(e, "q"));
	c = hlo_module_clone(m);
	assert_non_null(c);
	assert_false(changed_ok(c, &checked));
	hlo_module_free(c);
	hlo_module_free(m);
}

/* A computation that failed as a whole (a cycle) keeps no verdicts: a
 * second incremental run with nothing changed still refuses it (each
 * instruction's own checks passed the first time, and a run that finds
 * nothing new to check skips the cycle walk). */
static void verify_changed_cycle_twice(void **state)
{
	(void)state;
	HloModule *m = load_text("HloModule t\nENTRY e {\n"
				 "  p = f32[4] parameter(0)\n"
				 "  a = f32[4] negate(p)\n"
				 "  b = f32[4] negate(a)\n"
				 "  ROOT r = f32[4] negate(b)\n}\n");
	int checked;
	HloInstr *a = hlo_comp_find(m->entry, "a"),
		 *b = hlo_comp_find(m->entry, "b");
	hlo_set_operand(a, 0, b); /* a reads b reads a */
	assert_false(changed_ok(m, &checked));
	assert_false(changed_ok(m, &checked));
	hlo_set_operand(a, 0, hlo_comp_find(m->entry, "p"));
	assert_true(changed_ok(m, &checked));
	hlo_module_free(m);
}

/* The order check before the cycle walk reads marks that other walks
 * left behind (positions, generations): a cycle is found whatever they
 * say, and the marks of a computation it looked at end older than any
 * fresh generation (the passes after it take a fresh mark without
 * clearing). */
static void verify_cycle_stale_marks(void **state)
{
	(void)state;
	for (int kind = 0; kind < 3; kind++) {
		HloModule *m = load_text("HloModule t\nENTRY e {\n"
					 "  p = f32[4] parameter(0)\n"
					 "  a = f32[4] negate(p)\n"
					 "  b = f32[4] negate(a)\n"
					 "  c = f32[4] negate(b)\n"
					 "  ROOT r = f32[4] negate(c)\n}\n");
		HloComp *e = m->entry;
		int checked;
		assert_true(changed_ok(m, &checked));
		/* a reads c: a cycle a -> c -> b -> a, a before c */
		hlo_set_operand(hlo_comp_find(e, "a"), 0,
				hlo_comp_find(e, "c"));
		for (int i = 0; i < e->n; i++)
			e->instrs[i]->mark = kind == 0	 ? (unsigned)i
					     : kind == 1 ? 0
							 : (unsigned)(e->n - 1 - i);
		assert_false(changed_ok(m, &checked));
		hlo_set_operand(hlo_comp_find(e, "a"), 0,
				hlo_comp_find(e, "p"));
		for (int i = 0; i < e->n; i++)
			e->instrs[i]->mark = (unsigned)i + 7;
		assert_true(changed_ok(m, &checked));
		unsigned fresh = hlo_new_mark(m);
		for (int i = 0; i < e->n; i++)
			assert_true(e->instrs[i]->mark < fresh);
		hlo_module_free(m);
	}
}

/* The signature walk asks in_order's question on the way (operands
 * before users in the computation's order): an instruction reading
 * itself is a cycle, one reading an instruction further on sends the
 * computation to the cycle walk, which finds none when there is none,
 * and one whose only operand moved behind it is still looked at. */
static void verify_changed_order_walk(void **state)
{
	(void)state;
	HloModule *m = load_text("HloModule t\nENTRY e {\n"
				 "  p = f32[4] parameter(0)\n"
				 "  a = f32[4] negate(p)\n"
				 "  b = f32[4] negate(a)\n"
				 "  ROOT r = f32[4] negate(b)\n}\n");
	HloComp *e = m->entry;
	HloInstr *a = hlo_comp_find(e, "a"), *b = hlo_comp_find(e, "b");
	int checked;
	assert_true(changed_ok(m, &checked));
	hlo_set_operand(a, 0, a);
	assert_false(changed_ok(m, &checked));
	hlo_set_operand(a, 0, hlo_comp_find(e, "p"));
	assert_true(changed_ok(m, &checked));
	/* b before a, nothing changed but the order: no cycle */
	int ia = 0, ib = 0;
	for (int i = 0; i < e->n; i++) {
		ia = e->instrs[i] == a ? i : ia;
		ib = e->instrs[i] == b ? i : ib;
	}
	e->instrs[ia] = b;
	e->instrs[ib] = a;
	assert_true(changed_ok(m, &checked));
	assert_int_equal(checked, 0);
	/* then a change makes a cycle through the instruction out of
	 * order: b reads a, a reads b */
	hlo_set_operand(a, 0, b);
	assert_false(changed_ok(m, &checked));
	hlo_set_operand(a, 0, hlo_comp_find(e, "p"));
	assert_true(changed_ok(m, &checked));
	hlo_module_free(m);
}

/* verify_module_changed checks an instruction like one that passed in
 * the same run only where it is (its operands' computation): the shapes
 * and attributes of each copy still count. */
static void verify_changed_copies(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule t\n"
		"%f (x: f32[4]) -> f32[4] {\n"
		"  %x = f32[4] parameter(0)\n"
		"  ROOT %y = f32[4] negate(%x)\n"
		"}\n"
		"ENTRY e {\n"
		"  p = f32[4] parameter(0)\n"
		"  q = f32[2] parameter(1)\n"
		"  s = f32[] parameter(2)\n"
		"  a = f32[4] negate(p)\n"
		"  c = f32[4] call(a), to_apply=%f\n"
		"  ROOT n = f32[4] negate(c)\n"
		"}\n");
	HloComp *e = m->entry, *f = hlo_module_find_comp(m, "f");
	assert_non_null(f);
	HloInstr *p = hlo_comp_find(e, "p"), *q = hlo_comp_find(e, "q"),
		 *s = hlo_comp_find(e, "s"), *x = hlo_comp_find(f, "x");
	int checked = -1;
	/* many copies of one kind: all pass */
	for (int i = 0; i < 8; i++)
		assert_non_null(hlo_instr_new(e, HLO_NEGATE,
					      shape_clone(&m->arena, p->shape),
					      NULL, 1, &p));
	assert_true(changed_ok(m, &checked));
	assert_int_equal(checked, 8);
	/* beside a passing copy: one reading another computation's value,
	 * one reading the wrong shape, one declaring the wrong shape; each
	 * caught, then mended */
	HloInstr *ins[3] = {NULL, NULL, NULL};
	for (int k = 0; k < 3; k++) {
		assert_non_null(hlo_instr_new(e, HLO_NEGATE,
					      shape_clone(&m->arena, p->shape),
					      NULL, 1, &p));
		HloInstr *from = k == 0 ? x : k == 1 ? q : p;
		const Shape *sh = k == 2 ? q->shape : p->shape;
		ins[k] = hlo_instr_new(e, HLO_NEGATE,
				       shape_clone(&m->arena, sh), NULL, 1,
				       &from);
		assert_non_null(ins[k]);
		assert_false(changed_ok(m, &checked));
		if (k < 2)
			hlo_set_operand(ins[k], 0, p);
		else
			ins[k]->shape = shape_clone(&m->arena, p->shape);
		assert_true(changed_ok(m, &checked));
	}
	/* broadcasts of one scalar: with the right dimensions, then with a
	 * dimension the scalar does not have */
	HloInstr *b1 = hlo_instr_new(
		e, HLO_BROADCAST, shape_clone(&m->arena, p->shape), NULL, 1, &s);
	HloInstr *b2 = hlo_instr_new(
		e, HLO_BROADCAST, shape_clone(&m->arena, p->shape), NULL, 1, &s);
	assert_non_null(hlo_attr_set(b1, A_DIMENSIONS, NULL));
	wrong_dims_then_mended(m, b2);
	hlo_module_free(m);
}

/* A fusion's computation is its own: shared with a call or another
 * fusion is refused, at the second caller; computations shared by
 * reducers or calls are fine. The incremental verifier catches a new
 * caller too, and accepts the module again once it is gone. */
#define NEG_K "K {\n  a = f32[8] parameter(0)\n  ROOT n = f32[8] negate(a)\n}\n\n"

/* Parameter numbers are checked on every incremental run: a number
 * taken twice, out of range (64 and past too) or negative in a fused
 * computation is caught, the mended one passes. Also a fused
 * computation called twice by one instruction (its calls in order). */
static void verify_changed_param_numbers(void **st)
{
	(void)st;
	HloModule *m = load_text(
		"HloModule t\n"
		"K {\n  a = f32[8] parameter(0)\n  b = f32[8] parameter(1)\n"
		"  ROOT s = f32[8] add(a, b)\n}\n\n"
		"ENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  ROOT f = f32[8] fusion(x, x), kind=kLoop, calls=K\n}\n");
	int checked;
	assert_true(changed_ok(m, &checked));
	HloInstr *b = hlo_comp_find(hlo_module_find_comp(m, "K"), "b");
	const int64_t wrong[] = {0, 2, -1, 64, (int64_t)1 << 40};
	for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
		b->param_no = wrong[i];
		assert_false(changed_ok(m, &checked));
		b->param_no = 1;
		assert_true(changed_ok(m, &checked));
	}
	const char *twice = verify(
		MOD(NEG_K "ENTRY e {\n"
			  "  p = pred[] parameter(0)\n"
			  "  x = f32[8] parameter(1)\n"
			  "  f = f32[8] fusion(x), kind=kLoop, calls=K\n"
			  "  ROOT c = f32[8] conditional(p, x, x), "
			  "true_computation=K, false_computation=K\n}\n"));
	assert_non_null(strstr(twice, "conditional 'c': calls computation "
				      "'K', the body of fusion 'f'"));
	assert_null(strstr(strstr(twice, "conditional 'c'") + 1,
			   "conditional 'c'"));
	hlo_module_free(m);
}

static void verify_fused_computation_owned(void **st)
{
	(void)st;
	check_error(verify(MOD(NEG_K "ENTRY e {\n"
				   "  x = f32[8] parameter(0)\n"
				   "  f = f32[8] fusion(x), kind=kLoop, calls=K\n"
				   "  ROOT c = f32[8] call(x), to_apply=K\n}\n")),
		    "t.hlo:11:8: error: call 'c': calls computation 'K', the "
		    "body of fusion 'f' (a fused computation belongs to its "
		    "one fusion)");
	check_error(verify(MOD(NEG_K "ENTRY e {\n"
				   "  x = f32[8] parameter(0)\n"
				   "  c = f32[8] call(x), to_apply=K\n"
				   "  ROOT f = f32[8] fusion(c), kind=kLoop, "
				   "calls=K\n}\n")),
		    "t.hlo:11:8: error: fusion 'f': its computation 'K' is "
		    "also called by call 'c'");
	check_error(verify(MOD(NEG_K "ENTRY e {\n"
				   "  x = f32[8] parameter(0)\n"
				   "  f = f32[8] fusion(x), kind=kLoop, calls=K\n"
				   "  ROOT g = f32[8] fusion(f), kind=kLoop, "
				   "calls=K\n}\n")),
		    "t.hlo:11:8: error: fusion 'g': calls computation 'K', the "
		    "body of fusion 'f'");
	/* one error per computation, however many callers */
	const char *three = verify(MOD(NEG_K "ENTRY e {\n"
					     "  x = f32[8] parameter(0)\n"
					     "  f = f32[8] fusion(x), kind=kLoop, "
					     "calls=K\n"
					     "  g = f32[8] fusion(f), kind=kLoop, "
					     "calls=K\n"
					     "  ROOT h = f32[8] fusion(g), "
					     "kind=kLoop, calls=K\n}\n"));
	assert_non_null(strstr(three, "fusion 'g'"));
	assert_null(strstr(three, "fusion 'h'"));
	/* shared reducers and called computations */
	assert_string_equal(
		verify(MOD(ADD_F32 NEG_K
			   "ENTRY e {\n"
			   "  x = f32[8] parameter(0)\n"
			   "  z = f32[] constant(0)\n"
			   "  r = f32[] reduce(x, z), dimensions={0}, "
			   "to_apply=add\n"
			   "  s = f32[] reduce(x, z), dimensions={0}, "
			   "to_apply=add\n"
			   "  c = f32[8] call(x), to_apply=K\n"
			   "  d = f32[8] call(c), to_apply=K\n"
			   "  ROOT t = (f32[], f32[], f32[8]) tuple(r, s, d)\n"
			   "}\n")),
		"");
	/* a new fusion over a fusion's computation, then gone */
	HloModule *m = load_text(NEG_K "ENTRY e {\n"
				       "  x = f32[8] parameter(0)\n"
				       "  ROOT f = f32[8] fusion(x), kind=kLoop, "
				       "calls=K\n}\n");
	Diag d;
	diag_init(&d);
	assert_true(verify_module_changed(m, &d, NULL, NULL));
	HloInstr *f = hlo_comp_find(m->entry, "f");
	HloInstr *g = hlo_instr_new(m->entry, HLO_FUSION, f->shape, "g", 1,
				    &f);
	assert_non_null(g);
	HloAttr *a = hlo_attr_set(g, A_KIND, NULL);
	*a = *hlo_attr_find(f, A_KIND);
	a = hlo_attr_set(g, A_CALLS, NULL);
	*a = *hlo_attr_find(f, A_CALLS);
	assert_false(verify_module_changed(m, &d, NULL, NULL));
	assert_non_null(strstr(diag_text(&d), "fusion 'g': calls computation "
					      "'K', the body of fusion 'f'"));
	diag_clear(&d);
	hlo_instr_remove(g);
	assert_true(verify_module_changed(m, &d, NULL, NULL));
	diag_free(&d);
	hlo_module_free(m);
	/* a call of a computation taken out of the module */
	m = load_text(NEG_K "ENTRY e {\n  x = f32[8] parameter(0)\n"
			    "  ROOT c = f32[8] call(x), to_apply=K\n}\n");
	hlo_module_remove_comp(m, hlo_module_find_comp(m, "K"));
	diag_init(&d);
	assert_false(verify_module_changed(m, &d, NULL, NULL));
	assert_non_null(strstr(diag_text(&d), "call 'c': calls computation "
					      "'K', which is not in the "
					      "module"));
	diag_free(&d);
	hlo_module_free(m);
}

/* The same with many computations, where the verifier reads the
 * module's name table once instead of looking up each computation
 * called: one taken out, one known by another name only. */
static void verify_calls_many_comps(void **state)
{
	(void)state;
	enum { N = 70 };
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "HloModule t\n");
	for (int i = 0; i < N; i++)
		sb_printf(&b,
			  "K%d {\n  a = f32[8] parameter(0)\n"
			  "  ROOT n = f32[8] negate(a)\n}\n",
			  i);
	sb_puts(&b, "ENTRY e {\n  x = f32[8] parameter(0)\n");
	for (int i = 0; i < N; i++)
		sb_printf(&b, "  c%d = f32[8] call(x), to_apply=K%d\n", i, i);
	sb_puts(&b, "  ROOT t = (f32[8], f32[8]) tuple(c0, c69)\n}\n");
	HloModule *m = load_text(sb_str(&b));
	sb_free(&b);
	Diag d;
	diag_init(&d);
	assert_true(verify_module_changed(m, &d, NULL, NULL));
	hlo_module_remove_comp(m, hlo_module_find_comp(m, "K5"));
	HloComp *k7 = hlo_module_find_comp(m, "K7");
	assert_true(namemap_del(&m->comp_names, "K7"));
	assert_true(namemap_put(&m->comp_names, "K7.other", k7));
	assert_false(verify_module_changed(m, &d, NULL, NULL));
	assert_non_null(strstr(diag_text(&d), "call 'c5': calls computation "
					      "'K5', which is not in the "
					      "module"));
	assert_non_null(strstr(diag_text(&d), "call 'c7': calls computation "
					      "'K7', which is not in the "
					      "module"));
	assert_int_equal(d.errors, 2);
	diag_free(&d);
	hlo_module_free(m);
}

/* verify_module_changed tells kinds apart by the values of typed
 * attributes and the computations they name, not by where those values
 * live or by untyped attributes like metadata: a reduce over the wrong
 * reducer is caught beside good copies whose attributes were made
 * separately. */
static HloInstr *reduce_with(HloModule *m, HloInstr *r, HloComp *reducer,
			     const char *meta)
{
	HloInstr *x = hlo_instr_new(m->entry, HLO_REDUCE, r->shape, NULL,
				    r->nops, r->ops);
	assert_non_null(x);
	HloAttr *d = hlo_attr_set(x, A_DIMENSIONS, NULL);
	int64_t *v = arena_alloc(&m->arena, sizeof *v);
	v[0] = 0;
	d->u.ints.n = 1;
	d->u.ints.v = v;
	HloAttr *t = hlo_attr_set(x, A_TO_APPLY, NULL);
	HloComp **c = arena_alloc(&m->arena, sizeof *c);
	c[0] = reducer;
	t->u.comps.n = 1;
	t->u.comps.v = c;
	if (meta) {
		HloAttr *md = hlo_attr_set(x, A_RAW, "metadata");
		md->u.s = arena_strdup(&m->arena, meta);
	}
	return x;
}

static void verify_changed_kinds_by_value(void **st)
{
	(void)st;
	HloModule *m = load_text(
		"HloModule t\n"
		"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(a, b)\n}\n\n"
		"addi {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
		"  ROOT s = s32[] add(a, b)\n}\n\n"
		"ENTRY e {\n  p = f32[4] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n"
		"}\n");
	HloComp *add = hlo_module_find_comp(m, "add"),
		*addi = hlo_module_find_comp(m, "addi");
	HloInstr *r = hlo_comp_find(m->entry, "r");
	int checked;
	assert_true(changed_ok(m, &checked));
	reduce_with(m, r, add, "{op_name=\"a\"}");
	reduce_with(m, r, add, "{op_name=\"b\"}");
	HloInstr *bad = reduce_with(m, r, addi, NULL);
	assert_false(changed_ok(m, &checked));
	HloAttr *t = hlo_attr_find(bad, A_TO_APPLY);
	HloComp **c = arena_alloc(&m->arena, sizeof *c);
	c[0] = add;
	t->u.comps.v = c;
	assert_true(changed_ok(m, &checked));
	assert_int_equal(checked, 1);
	/* the same kind with a dimension the operand lacks */
	reduce_with(m, r, add, NULL);
	HloInstr *wrong = reduce_with(m, r, add, NULL);
	int64_t *v = arena_alloc(&m->arena, sizeof *v);
	v[0] = 1;
	hlo_attr_find(wrong, A_DIMENSIONS)->u.ints.v = v;
	assert_false(changed_ok(m, &checked));
	hlo_module_free(m);
}

/* A string attribute counts by its text, wherever the text is: fusions
 * alike but for their kind's text are told apart (the unknown kind is
 * caught beside a passing one), and a copy of a passing kind's text
 * passes. */
#define NEG_FUSED(k)                                                    \
	"F" k " {\n  a = f32[8] parameter(0)\n"                           \
	"  ROOT n = f32[8] negate(a)\n}\n\n"

static void verify_changed_strings_by_text(void **st)
{
	(void)st;
	HloModule *m = load_text(MOD(
		NEG_FUSED("1") NEG_FUSED("2") NEG_FUSED("3")
		"ENTRY e {\n  x = f32[8] parameter(0)\n"
		"  f1 = f32[8] fusion(x), kind=kLoop, calls=F1\n"
		"  f2 = f32[8] fusion(x), kind=kLoop, calls=F2\n"
		"  f3 = f32[8] fusion(x), kind=kLoop, calls=F3\n"
		"  ROOT t = (f32[8], f32[8], f32[8]) tuple(f1, f2, f3)\n}\n"));
	HloInstr *f2 = hlo_comp_find(m->entry, "f2"),
		 *f3 = hlo_comp_find(m->entry, "f3");
	int checked;
	assert_true(changed_ok(m, &checked));
	HloAttr *k2 = hlo_attr_find(f2, A_KIND), *k3 = hlo_attr_find(f3, A_KIND);
	k2->u.s = arena_strdup(&m->arena, "kLoop");
	k3->u.s = arena_strdup(&m->arena, "kLoup");
	assert_false(changed_ok(m, &checked));
	k3->u.s = arena_strdup(&m->arena, "kLoop");
	assert_true(changed_ok(m, &checked));
	assert_int_equal(checked, 1);
	hlo_module_free(m);
}

/* The digest pass_run compares around a pass that reports no change:
 * the same for the same module and for a clone, moved by a changed
 * operand, attribute or shape, back when the change is undone. */
static void verify_digest_follows_changes(void **st)
{
	(void)st;
	HloModule *m = load_text(ENTRY(
		"  x = f32[8] parameter(0)\n  y = f32[8] parameter(1)\n"
		"  a = f32[8] add(x, y)\n"
		"  ROOT s = f32[2] slice(a), slice={[0:2]}\n"));
	uint64_t d0 = verify_module_digest(m);
	assert_true(d0 == verify_module_digest(m));
	HloModule *c = hlo_module_clone(m);
	assert_non_null(c);
	assert_true(d0 == verify_module_digest(c));
	hlo_module_free(c);
	HloInstr *a = hlo_comp_find(m->entry, "a"),
		 *x = hlo_comp_find(m->entry, "x"),
		 *y = hlo_comp_find(m->entry, "y");
	a->ops[1] = x; /* (users not kept: only the digest is asked) */
	assert_true(d0 != verify_module_digest(m));
	a->ops[1] = y;
	assert_true(d0 == verify_module_digest(m));
	HloInstr *s = hlo_comp_find(m->entry, "s");
	HloAttr *sl = hlo_attr_find(s, A_SLICE);
	assert_non_null(sl);
	SliceDim *was = sl->u.slice.v, now = {0, 4, 1};
	sl->u.slice.v = &now; /* a value replaced, as passes replace them */
	assert_true(d0 != verify_module_digest(m));
	sl->u.slice.v = was;
	Shape *shape = s->shape;
	s->shape = a->shape;
	assert_true(d0 != verify_module_digest(m));
	s->shape = shape;
	assert_true(d0 == verify_module_digest(m));
	hlo_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verify_accepts_axpy),
		cmocka_unit_test(verify_accepts_control_flow),
		cmocka_unit_test(verify_entry_required),
		cmocka_unit_test(verify_operand_in_other_computation),
		cmocka_unit_test(verify_parameter_numbers),
		cmocka_unit_test(verify_parameter_numbers_many),
		cmocka_unit_test(verify_cycle),
		cmocka_unit_test(verify_operand_count),
		cmocka_unit_test(verify_required_attributes),
		cmocka_unit_test(verify_attribute_values),
		cmocka_unit_test(verify_operand_types),
		cmocka_unit_test(verify_declared_shape),
		cmocka_unit_test(verify_reducer_signature),
		cmocka_unit_test(verify_sort_comparator),
		cmocka_unit_test(verify_while_signature),
		cmocka_unit_test(verify_call_signature),
		cmocka_unit_test(verify_conditional_signature),
		cmocka_unit_test(verify_map_and_select_and_scatter),
		cmocka_unit_test(verify_collects_and_caps_errors),
		cmocka_unit_test(verify_errors_in_text_order),
		cmocka_unit_test(verify_changed_hands_the_entry),
		cmocka_unit_test(verify_changed_rechecks_what_moved),
		cmocka_unit_test(verify_clone_keeps_signatures),
		cmocka_unit_test(verify_changed_cycle_twice),
		cmocka_unit_test(verify_cycle_stale_marks),
		cmocka_unit_test(verify_changed_order_walk),
		cmocka_unit_test(verify_calls_many_comps),
		cmocka_unit_test(verify_changed_copies),
		cmocka_unit_test(verify_fused_computation_owned),
		cmocka_unit_test(verify_changed_param_numbers),
		cmocka_unit_test(verify_changed_kinds_by_value),
		cmocka_unit_test(verify_changed_strings_by_text),
		cmocka_unit_test(verify_digest_follows_changes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
