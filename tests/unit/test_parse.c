/* test_parse.c - the HLO text parser (core/parse.c): both printing styles,
 * the short hand-written form, inline computations, elided constants,
 * comments, forward references, parse status, error positions, one-line
 * parsing into a computation, brace depth and literals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "print.h"
#include "verify.h"

/* --- helpers ------------------------------------------------------------ */

static ParseStatus last_st;
static char last_diag[8192];
static int last_warnings;

/* Parses text as "t.hlo"; keeps the status and diagnostics in last_*. */
static HloModule *parse(const char *text)
{
	SrcFile f = {"t.hlo", text, strlen(text), 0};
	Diag d;
	diag_init(&d);
	last_st = (ParseStatus)-1;
	HloModule *m = parse_module(&f, &d, &last_st);
	snprintf(last_diag, sizeof last_diag, "%s", diag_text(&d));
	last_warnings = d.warnings;
	if (m)
		assert_int_equal(d.errors, 0);
	else
		assert_true(d.errors >= 1);
	diag_free(&d);
	return m;
}

static HloModule *parse_ok(const char *text)
{
	HloModule *m = parse(text);
	if (!m)
		fail_msg("did not parse:\n%s", last_diag);
	assert_int_equal(last_st, PARSE_OK);
	return m;
}

/* Parses and verifies. */
static HloModule *load_ok(const char *text)
{
	HloModule *m = parse_ok(text);
	SrcFile f = {"t.hlo", text, strlen(text), 0};
	Diag d;
	diag_init(&d);
	if (!verify_module(m, &d, &f))
		fail_msg("did not verify:\n%s", diag_text(&d));
	diag_free(&d);
	return m;
}

/* The parse must fail with status st and an error containing want
 * (e.g. "t.hlo:3:7: error: ..."). */
static void parse_fails(const char *text, ParseStatus st, const char *want)
{
	HloModule *m = parse(text);
	if (m) {
		hlo_module_free(m);
		fail_msg("parsed; expected '%s'", want);
	}
	if (!strstr(last_diag, want))
		fail_msg("expected '%s' in\n%s", want, last_diag);
	if (last_st != st)
		fail_msg("status %d, expected %d for\n%s", last_st, st,
			 last_diag);
}

static HloInstr *find(const HloModule *m, const char *name)
{
	for (int i = 0; i < m->ncomps; i++) {
		HloInstr *ins = hlo_comp_find(m->comps[i], name);
		if (ins)
			return ins;
	}
	fail_msg("no instruction '%s'", name);
	return NULL;
}

static const char *shape_of(const HloModule *m, const char *name)
{
	static char out[512];
	const HloInstr *ins = find(m, name);
	assert_non_null(ins->shape);
	StrBuf b;
	sb_init(&b);
	shape_print(&b, ins->shape, false);
	snprintf(out, sizeof out, "%s", sb_str(&b));
	sb_free(&b);
	return out;
}

static char *print_text(const HloModule *m)
{
	StrBuf b;
	sb_init(&b);
	print_module(&b, m, &print_opts_default);
	return sb_take(&b);
}

/* --- shared shapes --------------------------------------------------- */

/* Array shapes written alike (with or without the default layout) are one
 * Shape, also inside tuples; other layouts, dims, types and buffer marks
 * are not, and a buffer mark on one does not reach the others. */
static void shapes_shared(void **state)
{
	(void)state;
	static const char text[] =
		"HloModule s\n"
		"ENTRY e {\n"
		"  p = f32[4,8]{1,0} parameter(0)\n"
		"  q = f32[4,8] parameter(1)\n"
		"  r = f32[4,8]{0,1} parameter(2)\n"
		"  a = f32[4,8] add(p, q)\n"
		"  b = s32[4,8] convert(a)\n"
		"  c = f32[8,4] transpose(a), dimensions={1,0}\n"
		"  d = b(f32[4,8]) custom-call(a), custom_call_target=\"x\"\n"
		"  ROOT t = (f32[4,8], s32[4,8], f32[8,4], f32[4,8]{0,1}, "
		"b(f32[4,8])) tuple(a, b, c, r, d)\n"
		"}\n";
	HloModule *m = parse_ok(text);
	const Shape *p = find(m, "p")->shape;
	assert_ptr_equal(find(m, "q")->shape, p);
	assert_ptr_equal(find(m, "a")->shape, p);
	assert_ptr_not_equal(find(m, "r")->shape, p);
	assert_ptr_not_equal(find(m, "b")->shape, p);
	assert_ptr_not_equal(find(m, "c")->shape, p);
	const Shape *d = find(m, "d")->shape;
	assert_ptr_not_equal(d, p);
	assert_true(d->buffer);
	assert_false(p->buffer);
	assert_string_equal(shape_of(m, "a"), "f32[4,8]");
	assert_string_equal(shape_of(m, "d"), "b(f32[4,8])");
	assert_ptr_equal(find(m, "t")->shape->tuple[0], p);
	assert_non_null(find(m, "r")->shape->layout);
	assert_null(p->layout);
	hlo_module_free(m);
}

/* More distinct shapes than the table shares: each still right. */
static void shapes_many_distinct(void **state)
{
	(void)state;
	StrBuf b;
	sb_init(&b);
	sb_printf(&b, "HloModule many\nENTRY e {\n");
	enum { N = 5000 };
	for (int i = 0; i < N; i++)
		sb_printf(&b, "  p%d = f32[%d] parameter(%d)\n", i, i + 1, i);
	sb_printf(&b, "  n = f32[1] negate(p0)\n");
	sb_printf(&b, "  ROOT r = f32[%d] negate(p%d)\n}\n", N, N - 1);
	HloModule *m = parse_ok(sb_str(&b));
	for (int i = 0; i < N; i += 97) {
		char name[16];
		snprintf(name, sizeof name, "p%d", i);
		const Shape *s = find(m, name)->shape;
		assert_int_equal(s->rank, 1);
		assert_int_equal(s->dims[0], i + 1);
	}
	assert_ptr_equal(find(m, "n")->shape, find(m, "p0")->shape);
	assert_int_equal(find(m, "r")->shape->dims[0], N);
	sb_free(&b);
	hlo_module_free(m);
}

/* --- the two printing styles ----------------------------------------- */

static const char *const LONG_FORM =
	"HloModule long_form, entry_computation_layout={(f32[2,3]{1,0}, "
	"f32[2,3]{0,1})->f32[2]{0}}\n"
	"\n"
	"%add.1 (x.1: f32[], y.1: f32[]) -> f32[] {\n"
	"  %x.1 = f32[] parameter(0)\n"
	"  %y.1 = f32[] parameter(1)\n"
	"  ROOT %add.2 = f32[] add(f32[] %x.1, f32[] %y.1)\n"
	"}\n"
	"\n"
	"ENTRY %main.9 (p.0: f32[2,3], p.1: f32[2,3]) -> f32[2] {\n"
	"  %p.0 = f32[2,3]{1,0} parameter(0)\n"
	"  %p.1 = f32[2,3]{0,1} parameter(1)\n"
	"  %multiply.3 = f32[2,3]{1,0} multiply(f32[2,3]{1,0} %p.0, "
	"f32[2,3]{0,1} %p.1), metadata={op_type=\"mul\" op_name=\"jit(f)/mul\" "
	"source_file=\"f.py\" source_line=12}\n"
	"  %constant.4 = f32[] constant(0)\n"
	"  ROOT %reduce.5 = f32[2]{0} reduce(f32[2,3]{1,0} %multiply.3, f32[] "
	"%constant.4), dimensions={1}, to_apply=%add.1\n"
	"}\n";

static void long_form(void **st)
{
	(void)st;
	HloModule *m = load_ok(LONG_FORM);
	assert_string_equal(m->name, "long_form");
	assert_int_equal(m->ncomps, 2);
	assert_non_null(m->entry);
	assert_string_equal(m->entry->name, "main.9");
	assert_true(m->entry->is_entry);
	assert_int_equal(m->entry->n, 5);
	assert_string_equal(m->entry->root->name, "reduce.5");
	assert_true(m->entry->root_explicit);
	HloInstr *r = find(m, "reduce.5");
	assert_int_equal(r->op, HLO_REDUCE);
	assert_int_equal(r->nops, 2);
	assert_ptr_equal(r->ops[0], find(m, "multiply.3"));
	HloComp *add = hlo_attr_comp(r, A_TO_APPLY);
	assert_non_null(add);
	assert_string_equal(add->name, "add.1");
	assert_int_equal(find(m, "p.1")->shape->layout->minor_to_major[0], 0);
	assert_non_null(hlo_attr_find_raw(find(m, "multiply.3"), "metadata"));
	assert_int_equal(find(m, "p.0")->nusers, 1);
	assert_ptr_equal(find(m, "p.0")->users[0], find(m, "multiply.3"));
	hlo_module_free(m);
}

static void short_form(void **st)
{
	(void)st;
	HloModule *m = load_ok(
		"HloModule short_form\n"
		"\n"
		"add {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(x, y)\n"
		"}\n"
		"\n"
		"ENTRY main {\n"
		"  p = f32[2,3] parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  ROOT r = f32[2] reduce(p, z), dimensions={1}, to_apply=add\n"
		"}\n");
	assert_string_equal(m->name, "short_form");
	assert_string_equal(m->entry->name, "main");
	assert_int_equal(find(m, "r")->op, HLO_REDUCE);
	assert_null(find(m, "p")->shape->layout); /* none written */
	assert_true(find(m, "r")->shape_given);
	hlo_module_free(m);
}

/* Both styles of the same module are the same module. */
static void styles_agree(void **st)
{
	(void)st;
	const char *shortf =
		"HloModule long_form\n"
		"add.1 {\n"
		"  x.1 = f32[] parameter(0)\n"
		"  y.1 = f32[] parameter(1)\n"
		"  ROOT add.2 = f32[] add(x.1, y.1)\n"
		"}\n"
		"ENTRY main.9 {\n"
		"  p.0 = f32[2,3]{1,0} parameter(0)\n"
		"  p.1 = f32[2,3]{0,1} parameter(1)\n"
		"  multiply.3 = f32[2,3]{1,0} multiply(p.0, p.1), "
		"metadata={op_type=\"mul\" op_name=\"jit(f)/mul\" "
		"source_file=\"f.py\" source_line=12}\n"
		"  constant.4 = f32[] constant(0)\n"
		"  ROOT reduce.5 = f32[2]{0} reduce(multiply.3, constant.4), "
		"dimensions={1}, to_apply=add.1\n"
		"}\n";
	HloModule *a = load_ok(LONG_FORM), *b = load_ok(shortf);
	char *ta = print_text(a), *tb = print_text(b);
	assert_string_equal(ta, tb);
	assert_string_equal(ta, LONG_FORM);
	free(ta);
	free(tb);
	hlo_module_free(a);
	hlo_module_free(b);
}

/* --- what may be left out --------------------------------------------- */

static void missing_header(void **st)
{
	(void)st;
	HloModule *m =
		load_ok("ENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n");
	assert_non_null(m->name);
	assert_true(m->name[0] != 0);
	assert_string_equal(m->entry->name, "e");
	/* and it prints with a header that parses back */
	char *t = print_text(m);
	assert_true(strncmp(t, "HloModule ", 10) == 0);
	HloModule *m2 = load_ok(t);
	assert_string_equal(m2->name, m->name);
	free(t);
	hlo_module_free(m2);
	hlo_module_free(m);
}

static void missing_entry_marker(void **st)
{
	(void)st;
	/* no ENTRY: the last computation is the entry */
	HloModule *m = load_ok("HloModule m\n"
			       "f {\n  ROOT a = f32[] parameter(0)\n}\n"
			       "g {\n  x = f32[] parameter(0)\n"
			       "  ROOT c = f32[] call(x), to_apply=f\n}\n");
	assert_string_equal(m->entry->name, "g");
	assert_true(m->entry->is_entry);
	assert_false(hlo_module_find_comp(m, "f")->is_entry);
	hlo_module_free(m);
}

static void missing_root(void **st)
{
	(void)st;
	HloModule *m = load_ok("ENTRY e {\n"
			       "  p = f32[4] parameter(0)\n"
			       "  n = f32[4] negate(p)\n"
			       "  a = f32[4] abs(p)\n"
			       "}\n");
	assert_string_equal(m->entry->root->name, "a"); /* the last one */
	assert_false(m->entry->root_explicit);
	hlo_module_free(m);
	/* an explicit ROOT need not be last */
	m = load_ok("ENTRY e {\n"
		    "  p = f32[4] parameter(0)\n"
		    "  ROOT n = f32[4] negate(p)\n"
		    "  a = f32[4] abs(p)\n"
		    "}\n");
	assert_string_equal(m->entry->root->name, "n");
	assert_true(m->entry->root_explicit);
	hlo_module_free(m);
}

static void missing_shapes(void **st)
{
	(void)st;
	HloModule *m =
		load_ok("HloModule m\n"
			"add {\n"
			"  x = f32[] parameter(0)\n"
			"  y = f32[] parameter(1)\n"
			"  ROOT s = add(x, y)\n"
			"}\n"
			"ENTRY e {\n"
			"  p = f32[2,3] parameter(0)\n"
			"  q = s32[3] parameter(1)\n"
			"  t = transpose(p), dimensions={1,0}\n"
			"  b = s32[2,3] broadcast(q), dimensions={1}\n"
			"  c = negate(b)\n"
			"  sl = slice(p), slice={[0:2], [1:3:2]}\n"
			"  cmp = compare(p, p), direction=LT\n"
			"  z = f32[] constant(0)\n"
			"  r = reduce(t, z), dimensions={0}, to_apply=add\n"
			"  ROOT tup = tuple(r, cmp, c)\n"
			"}\n");
	assert_string_equal(shape_of(m, "s"), "f32[]");
	assert_string_equal(shape_of(m, "t"), "f32[3,2]");
	assert_string_equal(shape_of(m, "b"), "s32[2,3]");
	assert_string_equal(shape_of(m, "c"), "s32[2,3]");
	assert_string_equal(shape_of(m, "sl"), "f32[2,1]");
	assert_string_equal(shape_of(m, "cmp"), "pred[2,3]");
	assert_string_equal(shape_of(m, "r"), "f32[2]");
	assert_string_equal(shape_of(m, "tup"),
			    "(f32[2], pred[2,3], s32[2,3])");
	assert_false(find(m, "t")->shape_given);
	assert_true(find(m, "p")->shape_given);
	hlo_module_free(m);
}

/* A shape used before the instruction that makes it is inferred in
 * dependency order, not text order. */
static void missing_shapes_forward(void **st)
{
	(void)st;
	HloModule *m = load_ok("ENTRY e {\n"
			       "  ROOT r = add(n, n)\n"
			       "  n = negate(p)\n"
			       "  p = f16[5] parameter(0)\n"
			       "}\n");
	assert_string_equal(shape_of(m, "r"), "f16[5]");
	hlo_module_free(m);
}

static void missing_shape_without_rule(void **st)
{
	(void)st;
	parse_fails("ENTRY e {\n  p = f32[4] parameter(0)\n"
		    "  c = custom-call(p), custom_call_target=\"x\"\n}\n",
		    PARSE_ERROR,
		    "t.hlo:3:3: error: cannot infer the shape of 'c'");
	parse_fails("ENTRY e {\n  ROOT p = parameter(0)\n}\n", PARSE_ERROR,
		    "'p'");
}

/* --- inline computations ------------------------------------------------- */

static void inline_to_apply(void **st)
{
	(void)st;
	HloModule *m =
		load_ok("ENTRY e {\n"
			"  p = f32[4,5] parameter(0)\n"
			"  z = f32[] constant(0)\n"
			"  ROOT r = reduce(p, z), dimensions={1}, to_apply={\n"
			"    a = f32[] parameter(0)\n"
			"    b = f32[] parameter(1)\n"
			"    ROOT m = maximum(a, b)\n"
			"  }\n"
			"}\n");
	assert_int_equal(m->ncomps, 2);
	HloInstr *r = find(m, "r");
	HloComp *c = hlo_attr_comp(r, A_TO_APPLY);
	assert_non_null(c);
	assert_true(c->inlined);
	assert_false(c->is_entry);
	assert_ptr_equal(m->entry,
			 r->parent); /* the inline one is not the entry */
	assert_int_equal(c->n, 3);
	assert_string_equal(c->root->name, "m");
	assert_string_equal(shape_of(m, "m"), "f32[]");
	assert_string_equal(shape_of(m, "r"), "f32[4]");
	/* printed as a named computation that parses back */
	char *t = print_text(m);
	HloModule *m2 = load_ok(t);
	char *t2 = print_text(m2);
	assert_string_equal(t, t2);
	free(t);
	free(t2);
	hlo_module_free(m2);
	hlo_module_free(m);
}

static void inline_names_are_unique(void **st)
{
	(void)st;
	HloModule *m = load_ok("ENTRY e {\n"
			       "  p = f32[4] parameter(0)\n"
			       "  q = f32[4] map(p), dimensions={0}, "
			       "to_apply={ x = f32[] parameter(0)\n"
			       "    ROOT y = negate(x) }\n"
			       "  ROOT r = f32[4] map(q), dimensions={0}, "
			       "to_apply={ x = f32[] parameter(0)\n"
			       "    ROOT y = abs(x) }\n"
			       "}\n");
	assert_int_equal(m->ncomps, 3);
	HloComp *a = hlo_attr_comp(find(m, "q"), A_TO_APPLY);
	HloComp *b = hlo_attr_comp(find(m, "r"), A_TO_APPLY);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_string_not_equal(a->name, b->name);
	assert_int_equal(hlo_comp_find(a, "y")->op, HLO_NEGATE);
	assert_int_equal(hlo_comp_find(b, "y")->op, HLO_ABS);
	hlo_module_free(m);
}

/* --- elided constants ------------------------------------------------------ */

static const char *const ELIDED = "ENTRY e {\n"
				  "  a = f32[2,3] constant({...})\n"
				  "  b = s32[8] constant({...})\n"
				  "  ROOT t = tuple(a, b)\n"
				  "}\n";

static void elided_constant_warns(void **st)
{
	(void)st;
	HloModule *m = parse_ok(ELIDED);
	assert_int_equal(last_warnings, 2);
	assert_non_null(strstr(last_diag, "t.hlo:2:"));
	assert_non_null(strstr(last_diag, "warning: "));
	assert_non_null(strstr(last_diag, "'a'"));
	assert_null(strstr(last_diag, "error"));
	const Literal *l = find(m, "a")->literal;
	assert_non_null(l);
	assert_true(l->elided);
	assert_int_equal(l->n, 6);
	hlo_module_free(m);
}

static void elided_constant_deterministic(void **st)
{
	(void)st;
	HloModule *m1 = parse_ok(ELIDED), *m2 = parse_ok(ELIDED);
	const char *names[] = {"a", "b"};
	for (int i = 0; i < 2; i++) {
		const Literal *l1 = find(m1, names[i])->literal;
		const Literal *l2 = find(m2, names[i])->literal;
		assert_int_equal(l1->n, l2->n);
		size_t bytes =
			(size_t)l1->n * (size_t)dtype_bytes(l1->shape->type);
		assert_memory_equal(l1->data, l2->data, bytes);
	}
	/* filler, not zeros: some element differs from the first */
	const Literal *b = find(m1, "b")->literal;
	bool varied = false;
	for (int64_t i = 1; i < b->n; i++)
		varied |= literal_get_i64(b, i) != literal_get_i64(b, 0);
	assert_true(varied);
	hlo_module_free(m1);
	hlo_module_free(m2);
}

/* --- comments and layout of the text --------------------------------------- */

static void comments_everywhere(void **st)
{
	(void)st;
	HloModule *m = load_ok("// leading comment\n"
			       "/* block */ HloModule /* x */ c // trailing\n"
			       "\n"
			       "ENTRY /* a */ e /* b */ { // c\n"
			       "  /* d */ p /* e */ = /* f */ f32[4] /* g */ "
			       "parameter(/* h */ 0 /* i */) // j\n"
			       "  // k\n"
			       "  ROOT /* l */ r = f32[4] add(/* m */ p /* n "
			       "*/, /* o */ p) /* p */, "
			       "metadata={op_name=\"x\" /* q */} // r\n"
			       "  /* s */\n"
			       "} // t\n"
			       "/* u */\n");
	assert_string_equal(m->name, "c");
	assert_int_equal(m->entry->n, 2);
	assert_string_equal(m->entry->root->name, "r");
	assert_int_equal(find(m, "r")->nops, 2);
	hlo_module_free(m);
}

static void multi_line_instructions(void **st)
{
	(void)st;
	HloModule *m = load_ok("ENTRY e {\n"
			       "  p = f32[2,3]\n"
			       "      parameter(0)\n"
			       "  ROOT t =\n"
			       "    f32[3,2]\n"
			       "    transpose(\n"
			       "      p\n"
			       "    ),\n"
			       "    dimensions={\n"
			       "      1,\n"
			       "      0\n"
			       "    },\n"
			       "    metadata={op_name=\"t\"\n"
			       "              source_line=4}\n"
			       "}\n");
	HloInstr *t = find(m, "t");
	int n;
	const int64_t *d = hlo_attr_ints(t, A_DIMENSIONS, &n);
	assert_int_equal(n, 2);
	assert_int_equal(d[0], 1);
	assert_int_equal(d[1], 0);
	assert_int_equal(t->loc.line, 4);
	/* raw values are kept on one line */
	StrBuf b;
	sb_init(&b);
	print_instr(&b, t, &print_opts_default);
	assert_null(strchr(sb_str(&b), '\n'));
	assert_non_null(strstr(sb_str(&b), "source_line=4}"));
	sb_free(&b);
	hlo_module_free(m);
}

/* XLA's one whitespace rule: "key=" glued is an attribute name, so a
 * comma after an operand list starts an attribute only when an identifier
 * glued to '=' follows. Instruction names may be glued to their '=' when
 * they carry the '%' sigil, and may be followed by a space in any case. */
static void ident_equals_rule(void **st)
{
	(void)st;
	HloModule *m = load_ok("ENTRY e {\n"
			       "  %p=f32[2,3] parameter(0)\n"
			       "  q = f32[2,3] parameter(1)\n"
			       "  ROOT %t = f32[3,2] transpose(f32[2,3] %p), "
			       "dimensions={1,0}\n"
			       "}\n");
	assert_int_equal(find(m, "p")->param_no, 0);
	hlo_module_free(m);
	/* an unnamed nested operand followed by another operand */
	m = load_ok("ENTRY e {\n"
		    "  p = f32[4] parameter(0)\n"
		    "  ROOT r = f32[4] add(negate(p), p)\n"
		    "}\n");
	HloInstr *r = find(m, "r");
	assert_int_equal(r->nops, 2);
	assert_int_equal(r->ops[0]->op, HLO_NEGATE);
	assert_ptr_equal(r->ops[1], find(m, "p"));
	hlo_module_free(m);
}

static void nested_operands(void **st)
{
	(void)st;
	HloModule *m = load_ok("ENTRY e {\n"
			       "  p = f32[4] parameter(0)\n"
			       "  ROOT r = add(p, multiply(p, f32[4] "
			       "constant({1, 2, 3, 4})))\n"
			       "}\n");
	HloInstr *r = find(m, "r");
	assert_int_equal(r->ops[1]->op, HLO_MULTIPLY);
	assert_int_equal(r->ops[1]->ops[1]->op, HLO_CONSTANT);
	assert_int_equal(m->entry->n, 4);
	assert_ptr_equal(m->entry->root, r);
	hlo_module_free(m);
}

static void old_style_header(void **st)
{
	(void)st;
	HloModule *m = load_ok("HloModule convolution.167:\n"
			       "\n"
			       "ENTRY %c (p: f32[2]) -> f32[2] {\n"
			       "  ROOT %p = f32[2]{0} parameter(0)\n"
			       "}\n");
	assert_string_equal(m->name, "convolution.167");
	hlo_module_free(m);
}

static void header_attributes(void **st)
{
	(void)st;
	HloModule *m = load_ok(
		"HloModule h, is_scheduled=true, "
		"entry_computation_layout={(f32[2]{0})->f32[2]{0}}, "
		"frontend_attributes={a=\"1\",b=\"2\"}, replica_count=2\n"
		"ENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n");
	assert_string_equal(m->name, "h");
	char *t = print_text(m);
	assert_true(strncmp(t,
			    "HloModule h, is_scheduled=true, "
			    "entry_computation_layout={(f32[2]{0})->f32[2]{0}}",
			    79) == 0);
	assert_non_null(strstr(t, "frontend_attributes={a=\"1\",b=\"2\"}"));
	assert_non_null(strstr(t, "replica_count=2\n"));
	free(t);
	hlo_module_free(m);
}

static void execution_thread(void **st)
{
	(void)st;
	HloModule *m = load_ok("HloModule x\n"
			       "host {\n  ROOT a = f32[] parameter(0)\n}, "
			       "execution_thread=\"host\"\n"
			       "ENTRY e {\n  ROOT b = f32[] parameter(0)\n}\n");
	HloComp *h = hlo_module_find_comp(m, "host");
	assert_non_null(h);
	assert_non_null(h->exec_thread);
	assert_string_equal(h->exec_thread, "host");
	assert_null(m->entry->exec_thread);
	char *t = print_text(m);
	assert_non_null(strstr(t, "}, execution_thread=\"host\"\n"));
	free(t);
	hlo_module_free(m);
}

static void stack_frame_index(void **st)
{
	(void)st;
	const char *text =
		"HloModule j, entry_computation_layout={(f32[])->f32[]}\n"
		"\n"
		"FileNames\n"
		"1 \"/src/a.py\"\n"
		"2 \"b.py\"\n"
		"\n"
		"FunctionNames\n"
		"1 \"<module>\"\n"
		"\n"
		"FileLocations\n"
		"1 {file_name_id=1 function_name_id=1 line=9 end_line=9 "
		"column=25 end_column=74}\n"
		"\n"
		"StackFrames\n"
		"1 {file_location_id=1 parent_frame_id=1}\n"
		"\n"
		"ENTRY %e (p: f32[]) -> f32[] {\n"
		"  ROOT %p = f32[] parameter(0)\n"
		"}\n";
	HloModule *m = load_ok(text);
	assert_non_null(m->frame_index);
	assert_non_null(strstr(m->frame_index,
			       "FileNames\n1 \"/src/a.py\"\n2 \"b.py\"\n"));
	assert_non_null(strstr(
		m->frame_index,
		"StackFrames\n1 {file_location_id=1 parent_frame_id=1}"));
	char *t = print_text(m);
	assert_string_equal(t, text); /* kept verbatim, in place */
	free(t);
	hlo_module_free(m);
}

/* --- forward references -------------------------------------------------- */

static void forward_instruction_references(void **st)
{
	(void)st;
	HloModule *m = load_ok("ENTRY e {\n"
			       "  ROOT r = f32[4] add(a, b)\n"
			       "  a = f32[4] negate(p)\n"
			       "  b = f32[4] abs(a)\n"
			       "  p = f32[4] parameter(0)\n"
			       "}\n");
	HloInstr *r = find(m, "r"), *a = find(m, "a"), *p = find(m, "p");
	assert_ptr_equal(r->ops[0], a);
	assert_ptr_equal(r->ops[1], find(m, "b"));
	assert_ptr_equal(a->ops[0], p);
	assert_int_equal(a->nusers, 2); /* r and b */
	assert_int_equal(p->nusers, 1);
	hlo_module_free(m);
}

static void forward_computation_references(void **st)
{
	(void)st;
	HloModule *m = load_ok("HloModule f\n"
			       "ENTRY e {\n"
			       "  p = f32[] parameter(0)\n"
			       "  ROOT c = f32[] call(p), to_apply=later\n"
			       "}\n"
			       "later {\n"
			       "  x = f32[] parameter(0)\n"
			       "  ROOT y = f32[] call(x), to_apply=latest\n"
			       "}\n"
			       "latest {\n"
			       "  ROOT z = f32[] parameter(0)\n"
			       "}\n");
	assert_string_equal(m->entry->name, "e");
	assert_ptr_equal(hlo_attr_comp(find(m, "c"), A_TO_APPLY),
			 hlo_module_find_comp(m, "later"));
	assert_ptr_equal(hlo_attr_comp(find(m, "y"), A_TO_APPLY),
			 hlo_module_find_comp(m, "latest"));
	hlo_module_free(m);
}

/* Names are per computation: the same name may appear in two. */
static void names_per_computation(void **st)
{
	(void)st;
	HloModule *m = load_ok(
		"f {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n"
		"ENTRY e {\n  p = f32[] parameter(0)\n"
		"  ROOT r = f32[] call(p), to_apply=f\n}\n");
	assert_ptr_not_equal(hlo_comp_find(m->entry, "p"),
			     hlo_comp_find(hlo_module_find_comp(m, "f"), "p"));
	hlo_module_free(m);
}

/* --- parse status and error positions ---------------------------------------- */

static void incomplete_open_brace(void **st)
{
	(void)st;
	parse_fails("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n",
		    PARSE_INCOMPLETE,
		    "t.hlo:4:1: error: unexpected end of input");
	parse_fails(
		"ENTRY e {\n  p = f32[4] parameter(0)\n  r = f32[4] add(p,\n",
		PARSE_INCOMPLETE, "end of input");
	parse_fails("ENTRY e {\n  p = f32[4] parameter(0)\n  r = reduce(p, p), "
		    "to_apply={\n    a = f32[] parameter(0)\n",
		    PARSE_INCOMPLETE, "end of input");
	parse_fails("ENTRY e {\n  p = f32[4] parameter(0), "
		    "metadata={op_name=\"x\"\n",
		    PARSE_INCOMPLETE, "");
	parse_fails("HloModule m\n", PARSE_INCOMPLETE, "no computation");
}

/* A constant cut short inside its braces is incomplete too. */
static void incomplete_literal(void **st)
{
	(void)st;
	parse_fails("ENTRY e {\n  c = f32[2] constant({1,\n", PARSE_INCOMPLETE,
		    "");
	parse_fails("ENTRY e {\n  c = f32[2,2] constant({ {1, 2},\n",
		    PARSE_INCOMPLETE, "");
}

static void error_for_junk(void **st)
{
	(void)st;
	parse_fails("ENTRY e {\n  p = f32[4] parameter(0)\n  ) junk\n}\n",
		    PARSE_ERROR, "t.hlo:3:3: error: ");
	parse_fails("}\n", PARSE_ERROR,
		    "t.hlo:1:1: error: expected a computation");
	parse_fails("ENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n}\n",
		    PARSE_ERROR, "t.hlo:4:1: error:");
	parse_fails(
		"ENTRY e {\n  p = f32[4] parameter(0)\n  q = f32[4] bogus(p)\n",
		PARSE_ERROR, "unknown opcode 'bogus'");
	parse_fails("", PARSE_ERROR, "no computation");
	/* an open brace is not "incomplete" once something else is wrong */
	parse_fails("ENTRY e {\n  p = f32[4] wrong(0)\n", PARSE_ERROR,
		    "unknown opcode");
}

static void error_positions(void **st)
{
	(void)st;
	parse_fails("ENTRY e {\n  p = f32[4] parameter(0)\n  r = f32[4] add(p, "
		    "q)\n}\n",
		    PARSE_ERROR,
		    "t.hlo:3:21: error: undefined instruction 'q'");
	parse_fails("ENTRY e {\n  p = f32[4] parameter(0)\n  p = f32[4] "
		    "negate(p)\n}\n",
		    PARSE_ERROR,
		    "t.hlo:3:3: error: instruction 'p' is defined twice");
	parse_fails("ENTRY e {\n\tp = f32[4,-2] parameter(0)\n}\n", PARSE_ERROR,
		    "t.hlo:2:14: error: negative dimension size -2");
	parse_fails("ENTRY e {\n  c = s32[2] constant({1, 2.5})\n}\n",
		    PARSE_ERROR,
		    "t.hlo:2:27: error: expected an integer for s32");
	parse_fails("f {\n  ROOT a = f32[] parameter(0)\n}\n"
		    "ENTRY e {\n  p = f32[] parameter(0)\n"
		    "  ROOT c = f32[] call(p), to_apply=g\n}\n",
		    PARSE_ERROR,
		    "t.hlo:6:36: error: undefined computation 'g'");
	parse_fails("ENTRY e {\n  p = f32[2,3]{0,0} parameter(0)\n}\n",
		    PARSE_ERROR,
		    "t.hlo:2:20: error: layout is not a permutation");
	/* the source line and a caret follow the message */
	parse_fails("ENTRY e {\n  p = f32[4] parameter(0)\n  r = f32[4] add(p, "
		    "q)\n}\n",
		    PARSE_ERROR,
		    "\n    r = f32[4] add(p, q)\n                      ^\n");
}

/* diag_show_line, which shows the line under every error (HLO text and
 * commands alike): a blank per character before the caret, UTF-8
 * counted once; a tab shown as a blank; a long line as a window around
 * the column that never cuts a character. */
static void show_line_is(const char *line, int col, const char *want)
{
	StrBuf b;
	sb_init(&b);
	diag_show_line(&b, line, strlen(line), col);
	assert_string_equal(sb_str(&b), want);
	sb_free(&b);
}

static void error_line_and_caret(void **st)
{
	(void)st;
	show_line_is("load x.hlo", 6, "  load x.hlo\n       ^\n");
	show_line_is("\tpass \xc3\xa9 q", 10,
		     "   pass \xc3\xa9 q\n          ^\n");
	show_line_is("a\001b", 3, "  a?b\n    ^\n");
	/* past the end: under the end */
	show_line_is("ab", 9, "  ab\n    ^\n");
	/* 300 'x' with an 'e' acute at 100 and the column at 150: a window
	 * of 120 bytes from byte 89 (60 before the column), its ends
	 * marked */
	char line[320];
	memset(line, 'x', 300);
	memcpy(line + 100, "\xc3\xa9", 2);
	line[300] = 0;
	StrBuf b;
	sb_init(&b);
	diag_show_line(&b, line, 300, 150);
	const char *t = sb_str(&b);
	assert_memory_equal(t, "  ...xxxxxxxxxxx\xc3\xa9", 18);
	const char *nl = strchr(t, '\n');
	assert_non_null(nl);
	assert_memory_equal(nl - 3, "...", 3);
	/* the caret: 2 + 3 blanks, then one per character from 89 to 148
	 * (60 bytes, one character of two bytes) */
	const char *caret = strchr(nl + 1, '^');
	assert_non_null(caret);
	assert_int_equal(caret - (nl + 1), 5 + 59);
	sb_free(&b);
	/* a character across the window's start: shown whole */
	memset(line, 'x', 300);
	memcpy(line + 88, "\xc3\xa9", 2);
	sb_init(&b);
	diag_show_line(&b, line, 300, 150);
	assert_memory_equal(sb_str(&b), "  ...\xc3\xa9x", 8);
	sb_free(&b);
}

/* An error in a ROOT instruction points at its name, as for the others. */
static void error_position_of_root(void **st)
{
	(void)st;
	parse_fails("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT p = f32[4] "
		    "negate(p)\n}\n",
		    PARSE_ERROR,
		    "t.hlo:3:8: error: instruction 'p' is defined twice");
}

/* An unknown opcode is pointed at, not the space before it. */
static void error_position_of_opcode(void **st)
{
	(void)st;
	parse_fails("ENTRY e {\n  p = f32[4] parameter(0)\n  q = f32[4] "
		    "bogus(p)\n}\n",
		    PARSE_ERROR, "t.hlo:3:14: error: unknown opcode 'bogus'");
	parse_fails("ENTRY e {\n  p = f32[4] parameter(0)\n  q = bogus(p)\n}\n",
		    PARSE_ERROR, "t.hlo:3:7: error: unknown opcode 'bogus'");
}

static void nul_byte_is_an_error(void **st)
{
	(void)st;
	const char text[] = "ENTRY e {\n  p = f32[4] par\0ameter(0)\n}\n";
	SrcFile f = {"t.hlo", text, sizeof text - 1, 0};
	Diag d;
	diag_init(&d);
	ParseStatus s;
	HloModule *m = parse_module(&f, &d, &s);
	assert_null(m);
	assert_int_equal(s, PARSE_ERROR);
	assert_non_null(
		strstr(diag_text(&d), "t.hlo:2:17: error: binary data"));
	diag_free(&d);
}

/* Line numbers include the source's line offset (HLO embedded in a script). */
static void line_offset(void **st)
{
	(void)st;
	const char *text = "ENTRY e {\n  ROOT r = f32[4] add(p, p)\n}\n";
	SrcFile f = {"s.xr", text, strlen(text), 10};
	Diag d;
	diag_init(&d);
	assert_null(parse_module(&f, &d, NULL)); /* st may be NULL */
	assert_non_null(strstr(diag_text(&d), "s.xr:12:"));
	diag_free(&d);
}

/* --- parse_instr_line ---------------------------------------------------------- */

typedef struct {
	HloModule *m;
	HloComp *c;
	Diag d;
	ParseStatus st;
} Line;

static HloInstr *line(Line *l, const char *text)
{
	SrcFile f = {"<line>", text, strlen(text), 0};
	diag_clear(&l->d);
	l->st = (ParseStatus)-1;
	return parse_instr_line(l->c, &f, &l->d, &l->st);
}

static void line_setup(Line *l)
{
	l->m = parse_ok("ENTRY e {\n  p = f32[4] parameter(0)\n"
			"  ROOT q = f32[4] parameter(1)\n}\n");
	l->c = l->m->entry;
	diag_init(&l->d);
}

static void line_teardown(Line *l)
{
	diag_free(&l->d);
	hlo_module_free(l->m);
}

static void instr_line_appends(void **st)
{
	(void)st;
	Line l;
	line_setup(&l);
	HloInstr *a = line(&l, "a = add(p, q)");
	assert_non_null(a);
	assert_int_equal(l.st, PARSE_OK);
	assert_int_equal(l.c->n, 3);
	assert_ptr_equal(l.c->instrs[2], a);
	assert_ptr_equal(hlo_comp_find(l.c, "a"), a);
	assert_string_equal(shape_of(l.m, "a"), "f32[4]"); /* inferred */
	/* an explicit ROOT stays the root */
	assert_string_equal(l.c->root->name, "q");
	HloInstr *b = line(
		&l, "ROOT %b = f32[4]{0} multiply(f32[4]{0} %a, f32[4]{0} %p)");
	assert_non_null(b);
	assert_ptr_equal(l.c->root, b);
	assert_true(l.c->root_explicit);
	HloInstr *c = line(&l, "c = negate(b)");
	assert_non_null(c);
	assert_ptr_equal(l.c->root, b);
	assert_int_equal(find(l.m, "b")->nusers, 1);
	line_teardown(&l);
}

static void instr_line_errors(void **st)
{
	(void)st;
	Line l;
	line_setup(&l);
	assert_null(line(&l, "a = add(p, nothere)"));
	assert_int_equal(l.st, PARSE_ERROR);
	assert_non_null(
		strstr(diag_text(&l.d),
		       "<line>:1:12: error: undefined instruction 'nothere'"));
	assert_null(line(&l, "p = negate(q)"));
	assert_non_null(strstr(diag_text(&l.d), "defined twice"));
	assert_null(line(&l, "a = add(p,"));
	assert_int_equal(l.st, PARSE_INCOMPLETE);
	assert_null(line(&l, "a = negate(p) extra"));
	assert_int_equal(l.st, PARSE_ERROR);
	assert_non_null(strstr(diag_text(&l.d),
			       "unexpected text after the instruction"));
	assert_int_equal(l.c->n, 2);
	line_teardown(&l);
}

/* The computation is as it was before a failed line: instructions, names,
 * root and the users of the operands. */
static void check_unchanged(Line *l, const char *text)
{
	HloInstr *p = hlo_comp_find(l->c, "p"), *q = hlo_comp_find(l->c, "q");
	HloInstr *root = l->c->root;
	int n = l->c->n, pu = p->nusers, qu = q->nusers;
	if (line(l, text))
		fail_msg("'%s' was accepted", text);
	if (l->c->n != n)
		fail_msg("'%s' left %d instruction(s) behind", text,
			 l->c->n - n);
	if (p->nusers != pu || q->nusers != qu)
		fail_msg("'%s' left users on p or q", text);
	assert_ptr_equal(l->c->root, root);
	assert_null(hlo_comp_find(l->c, "y"));
}

static void instr_line_failure_changes_nothing(void **st)
{
	(void)st;
	Line l;
	line_setup(&l);
	check_unchanged(&l, "y = f32[4] add(p, nothere)");
	check_unchanged(&l, "y = f32[8] add(p, q), bogus={");
	check_unchanged(&l, "y = f32[4] negate(p), metadata=");
	check_unchanged(
		&l, "ROOT y = f32[4] add(p, q), dimensions=x, dimensions=y");
	check_unchanged(&l, "y = f32[4] add(p, negate(nothere))");
	check_unchanged(&l, "y = f32[4] add(negate(q), nothere)");
	line_teardown(&l);
}

/* Shapes left out inside one line (nested operands, inline computations)
 * are inferred as in a module. */
static void instr_line_nested_shapes(void **st)
{
	(void)st;
	Line l;
	line_setup(&l);
	HloInstr *y = line(&l, "y = add(p, negate(q))");
	if (!y)
		fail_msg("%s", diag_text(&l.d));
	assert_string_equal(shape_of(l.m, "y"), "f32[4]");
	HloInstr *r = line(
		&l,
		"r = f32[] reduce(p, f32[] constant(0)), dimensions={0}, "
		"to_apply={ a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
		" ROOT s = add(a, b) }");
	if (!r)
		fail_msg("%s", diag_text(&l.d));
	HloComp *c = hlo_attr_comp(r, A_TO_APPLY);
	assert_non_null(c);
	assert_non_null(c->root->shape);
	line_teardown(&l);
}

static void instr_line_computation_reference(void **st)
{
	(void)st;
	HloModule *m = parse_ok(
		"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
		"  ROOT s = add(a, b)\n}\n"
		"ENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n");
	Diag d;
	diag_init(&d);
	const char *ok = "r = f32[] reduce(p, f32[] constant(0)), "
			 "dimensions={0}, to_apply=add";
	SrcFile f = {"<l>", ok, strlen(ok), 0};
	HloInstr *r = parse_instr_line(m->entry, &f, &d, NULL);
	assert_non_null(r);
	assert_ptr_equal(hlo_attr_comp(r, A_TO_APPLY),
			 hlo_module_find_comp(m, "add"));
	const char *bad = "z = f32[] reduce(p, f32[] constant(0)), "
			  "dimensions={0}, to_apply=nope";
	SrcFile g = {"<l>", bad, strlen(bad), 0};
	ParseStatus s;
	int n = m->entry->n;
	assert_null(parse_instr_line(m->entry, &g, &d, &s));
	assert_int_equal(s, PARSE_ERROR);
	assert_non_null(strstr(diag_text(&d), "undefined computation 'nope'"));
	assert_int_equal(m->entry->n, n);
	diag_free(&d);
	hlo_module_free(m);
}

/* --- parse_open_depth ---------------------------------------------------------- */

static int depth(const char *s) { return parse_open_depth(s, strlen(s)); }

static void open_depth(void **st)
{
	(void)st;
	assert_int_equal(depth(""), 0);
	assert_int_equal(depth("ENTRY e {"), 1);
	assert_int_equal(depth("ENTRY e {\n  r = reduce(p, z), to_apply={"), 2);
	assert_int_equal(depth("ENTRY e {\n p = f32[] parameter(0)\n}"), 0);
	assert_int_equal(depth("a = add("), 1);
	assert_int_equal(depth("}"), -1);
	assert_int_equal(depth("{ \"}}}\" "), 1);    /* strings skipped */
	assert_int_equal(depth("{ \"a\\\"}\" "), 1); /* with escapes */
	assert_int_equal(depth("{ // }\n"), 1);      /* line comments */
	assert_int_equal(depth("{ /* } */"), 1);     /* block comments */
	assert_int_equal(depth("x /* open"), 1);     /* an open comment */
	assert_int_equal(depth("[[["), 0);           /* only { and ( count */
	/* only len bytes are looked at */
	assert_int_equal(parse_open_depth("{{}}", 2), 2);
}

/* --- parse_literal_text ---------------------------------------------------------- */

typedef struct {
	Arena a;
	Diag d;
} LitFx;

static const Literal *lit(LitFx *fx, const char *shape, const char *text)
{
	Shape *s = parse_shape_text(&fx->a, shape, &fx->d);
	assert_non_null(s);
	return parse_literal_text(&fx->a, s, text, &fx->d);
}

static void literal_text(void **st)
{
	(void)st;
	LitFx fx;
	arena_init(&fx.a);
	diag_init(&fx.d);
	const Literal *l =
		lit(&fx, "f32[2,3]", "{ { 1, 2, 3 }, { 4.5, -6, 7e2 } }");
	assert_non_null(l);
	assert_int_equal(l->n, 6);
	assert_true(literal_get_f64(l, 3) == 4.5);
	assert_true(literal_get_f64(l, 5) == 700);
	l = lit(&fx, "s32[]", "-17");
	assert_int_equal(literal_get_i64(l, 0), -17);
	l = lit(&fx, "pred[3]", "{true, false, 1}");
	assert_int_equal(literal_get_i64(l, 0), 1);
	assert_int_equal(literal_get_i64(l, 1), 0);
	assert_int_equal(literal_get_i64(l, 2), 1);
	l = lit(&fx, "f64[3]", "{inf, -inf, nan}");
	assert_true(isinf(literal_get_f64(l, 0)) && literal_get_f64(l, 0) > 0);
	assert_true(isinf(literal_get_f64(l, 1)) && literal_get_f64(l, 1) < 0);
	assert_true(isnan(literal_get_f64(l, 2)));
	l = lit(&fx, "c64[2]", "{(1, 2), (-3.5, 0)}");
	double re, im;
	literal_get_c(l, 1, &re, &im);
	assert_true(re == -3.5 && im == 0);
	l = lit(&fx, "(f32[], s8[2])", "(1.5, {3, -4})");
	assert_non_null(l);
	assert_int_equal(l->ntuple, 2);
	assert_int_equal(literal_get_i64(l->tuple[1], 1), -4);
	l = lit(&fx, "u64[]", "18446744073709551615");
	assert_true((uint64_t)literal_get_i64(l, 0) == UINT64_MAX);
	l = lit(&fx, "s64[]", "-9223372036854775808");
	assert_true(literal_get_i64(l, 0) == INT64_MIN);
	l = lit(&fx, "bf16[2]", "{0.5, -2}");
	assert_true(literal_get_f64(l, 0) == 0.5 &&
		    literal_get_f64(l, 1) == -2);
	assert_int_equal(fx.d.errors, 0);
	diag_free(&fx.d);
	arena_free(&fx.a);
}

static void literal_text_errors(void **st)
{
	(void)st;
	LitFx fx;
	arena_init(&fx.a);
	diag_init(&fx.d);
	const struct {
		const char *shape, *text, *msg;
	} bad[] = {
		{"f32[3]", "{1, 2}", "literal has 2 elements"},
		{"f32[2]", "{1, 2, 3}", "too many elements"},
		{"s32[]", "1.5", "expected an integer"},
		{"f32[]", "abc", "bad number 'abc'"},
		{"f32[2]", "{1, 2", ""},
		{"f32[]", "1 2", "unexpected text after the literal"},
		{"(f32[], f32[])", "(1)", "expected ','"},
		{"token[]", "1", "constant of type token"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		diag_clear(&fx.d);
		if (lit(&fx, bad[i].shape, bad[i].text))
			fail_msg("%s '%s' was accepted", bad[i].shape,
				 bad[i].text);
		if (!strstr(diag_text(&fx.d), bad[i].msg))
			fail_msg("%s '%s': expected '%s' in %s", bad[i].shape,
				 bad[i].text, bad[i].msg, diag_text(&fx.d));
	}
	diag_free(&fx.d);
	arena_free(&fx.a);
}

/* Values that do not fit the element type are errors, as in XLA. */
static void literal_text_out_of_range(void **st)
{
	(void)st;
	LitFx fx;
	arena_init(&fx.a);
	diag_init(&fx.d);
	const struct {
		const char *shape, *text;
	} bad[] = {
		{"u8[]", "256"},
		{"u8[]", "-1"},
		{"s8[]", "128"},
		{"s4[]", "8"},
		{"s64[]", "9223372036854775808"},
		{"u32[]", "4294967296"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		diag_clear(&fx.d);
		if (lit(&fx, bad[i].shape, bad[i].text))
			fail_msg("%s %s was accepted", bad[i].shape,
				 bad[i].text);
	}
	diag_free(&fx.d);
	arena_free(&fx.a);
}

/* -0 keeps its sign (XLA prints it as -0). */
static void literal_negative_zero(void **st)
{
	(void)st;
	LitFx fx;
	arena_init(&fx.a);
	diag_init(&fx.d);
	const Literal *l = lit(&fx, "f32[2]", "{-0, -0.0}");
	assert_non_null(l);
	assert_true(signbit(literal_get_f64(l, 1)));
	assert_true(signbit(literal_get_f64(l, 0)));
	diag_free(&fx.d);
	arena_free(&fx.a);
}

/* A NaN prints its payload as nan(0x...) and reads back bit for bit
 * (quiet and signalling, either sign), for every type that prints one;
 * a payload of 0, one wider than the mantissa or no hex digits is an
 * error. */
static void literal_nan_payloads(void **st)
{
	(void)st;
	LitFx fx;
	arena_init(&fx.a);
	diag_init(&fx.d);
	const struct {
		const char *shape;
		uint64_t bits;
	} cases[] = {
		{"f32[]", 0x7fc00001},	       {"f32[]", 0x7f800001},
		{"f32[]", 0xffbfffff},	       {"f32[]", 0x7ffffff9},
		{"f64[]", 0x7ff8000000000123}, {"f64[]", 0xfff0000000000001},
		{"f16[]", 0x7c01},	       {"f16[]", 0xfe10},
		{"bf16[]", 0x7f81},	       {"bf16[]", 0xffc1},
		{"f8e5m2[]", 0x7d},	       {"f8e5m2[]", 0xfe},
	};
	StrBuf b;
	sb_init(&b);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const Literal *z = lit(&fx, cases[k].shape, "0");
		assert_non_null(z);
		Literal *l = literal_clone(&fx.a, z);
		int bytes = dtype_bytes(l->shape->type);
		memcpy(l->data, &cases[k].bits, (size_t)bytes); /* LE */
		sb_clear(&b);
		literal_print_scalar(&b, l, 0);
		const Literal *back = lit(&fx, cases[k].shape, sb_str(&b));
		if (!back)
			fail_msg("%s %s: %s", cases[k].shape, sb_str(&b),
				 diag_text(&fx.d));
		if (memcmp(back->data, l->data, (size_t)bytes))
			fail_msg("%s %s did not read back", cases[k].shape,
				 sb_str(&b));
	}
	sb_free(&b);
	/* complex: each part keeps its own */
	const Literal *c = lit(&fx, "c64[]", "(nan(0x1), -nan(0x3))");
	assert_non_null(c);
	uint32_t parts[2];
	memcpy(parts, c->data, sizeof parts);
	assert_int_equal(parts[0], 0x7f800001);
	assert_int_equal(parts[1], 0xff800003);
	const struct {
		const char *shape, *text, *msg;
	} bad[] = {
		{"f32[]", "nan(0x0)", "bad NaN payload"},
		{"c64[]", "(1, nan(0x800000))", "does not fit c64"},
		{"f32[]", "nan(0x)", "bad NaN payload"},
		{"f32[]", "nan(0x800000)", "does not fit f32"},
		{"f16[]", "nan(0x400)", "does not fit f16"},
		{"f32[]", "nan(0x1", "bad NaN payload"},
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		diag_clear(&fx.d);
		assert_null(lit(&fx, bad[k].shape, bad[k].text));
		if (!strstr(diag_text(&fx.d), bad[k].msg))
			fail_msg("%s: expected '%s' in %s", bad[k].text,
				 bad[k].msg, diag_text(&fx.d));
	}
	diag_free(&fx.d);
	arena_free(&fx.a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(long_form),
		cmocka_unit_test(short_form),
		cmocka_unit_test(styles_agree),
		cmocka_unit_test(missing_header),
		cmocka_unit_test(missing_entry_marker),
		cmocka_unit_test(missing_root),
		cmocka_unit_test(missing_shapes),
		cmocka_unit_test(missing_shapes_forward),
		cmocka_unit_test(missing_shape_without_rule),
		cmocka_unit_test(inline_to_apply),
		cmocka_unit_test(inline_names_are_unique),
		cmocka_unit_test(elided_constant_warns),
		cmocka_unit_test(elided_constant_deterministic),
		cmocka_unit_test(comments_everywhere),
		cmocka_unit_test(multi_line_instructions),
		cmocka_unit_test(ident_equals_rule),
		cmocka_unit_test(nested_operands),
		cmocka_unit_test(old_style_header),
		cmocka_unit_test(header_attributes),
		cmocka_unit_test(execution_thread),
		cmocka_unit_test(stack_frame_index),
		cmocka_unit_test(forward_instruction_references),
		cmocka_unit_test(forward_computation_references),
		cmocka_unit_test(names_per_computation),
		cmocka_unit_test(incomplete_open_brace),
		cmocka_unit_test(incomplete_literal),
		cmocka_unit_test(error_for_junk),
		cmocka_unit_test(error_positions),
		cmocka_unit_test(error_position_of_root),
		cmocka_unit_test(error_position_of_opcode),
		cmocka_unit_test(nul_byte_is_an_error),
		cmocka_unit_test(line_offset),
		cmocka_unit_test(instr_line_appends),
		cmocka_unit_test(instr_line_errors),
		cmocka_unit_test(instr_line_failure_changes_nothing),
		cmocka_unit_test(instr_line_nested_shapes),
		cmocka_unit_test(instr_line_computation_reference),
		cmocka_unit_test(open_depth),
		cmocka_unit_test(literal_text),
		cmocka_unit_test(literal_text_errors),
		cmocka_unit_test(literal_text_out_of_range),
		cmocka_unit_test(literal_negative_zero),
		cmocka_unit_test(literal_nan_payloads),
		cmocka_unit_test(shapes_shared),
		cmocka_unit_test(shapes_many_distinct),
		cmocka_unit_test(error_line_and_caret),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
