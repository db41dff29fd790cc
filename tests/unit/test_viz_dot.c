/* test_viz_dot.c - HLO -> DOT (viz/dot.c): golden DOT files for colours,
 * labels, clusters, neighbourhoods, the node cap and compare panels
 * (tests/golden/dot/NAME.dot; XR_UPDATE=1 rewrites them), the rules
 * behind them checked one by one, and the node cap on every corpus
 * module. */
#include "testutil.h"

#include "dot.h"

#define GOLDEN XR_SOURCE_DIR "/tests/golden/dot/"

/* The DOT text equals GOLDEN/name.dot (or rewrites it under XR_UPDATE). */
static void golden(const char *name, const char *dot)
{
	char path[512];
	snprintf(path, sizeof path, GOLDEN "%s.dot", name);
	const char *upd = getenv("XR_UPDATE");
	if (upd && strcmp(upd, "1") == 0) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(dot, f);
		fclose(f);
		return;
	}
	size_t n = 0;
	char *want = slurp(path, &n);
	if (!want)
		fail_msg("no %s (run with XR_UPDATE=1)", path);
	if (strcmp(want, dot) != 0) {
		fprintf(stderr, "--- %s differs; got:\n%s", path, dot);
		free(want);
		fail_msg("golden %s differs", name);
	}
	free(want);
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* The attribute list of node `id` ("n12 [...]"), copied. */
static char *node_line(const char *dot, const HloModule *m, const char *name)
{
	HloInstr *ins = NULL;
	for (int c = 0; c < m->ncomps && !ins; c++)
		ins = hlo_comp_find(m->comps[c], name);
	assert_non_null(ins);
	char key[64];
	snprintf(key, sizeof key, "\n  n%d [", ins->id);
	const char *p = strstr(dot, key);
	if (!p) {
		snprintf(key, sizeof key, "  n%d [", ins->id);
		p = strstr(dot, key);
	}
	if (!p)
		return NULL;
	const char *e = strchr(p + 1, '\n');
	return strndup(p, (size_t)(e - p));
}

static bool has_node(const char *dot, const HloModule *m, const char *name)
{
	char *l = node_line(dot, m, name);
	free(l);
	return l != NULL;
}

static char *module_dot(const HloModule *m, const VizOpts *o, VizResult *r)
{
	StrBuf b;
	sb_init(&b);
	VizResult tmp;
	assert_true(viz_dot_module(&b, m, o, r ? r : &tmp));
	return sb_take(&b);
}

static void test_colours_and_labels(void **state)
{
	(void)state;
	HloModule *m = load_file(GOLDEN, "colours.hlo");
	VizOpts o = {0};
	char *dot = module_dot(m, &o, NULL);
	golden("colours", dot);
	/* Dark blue with white text: dot is "expensive". */
	char *l = node_line(dot, m, "d");
	assert_non_null(l);
	assert_non_null(strstr(l, "fillcolor=\"#1565c0\""));
	assert_non_null(strstr(l, "fontcolor=\"#ffffff\""));
	/* Name, then the opcode because the name does not start with it,
	 * then the shape with its layout (rank 2). */
	assert_non_null(strstr(l, "<b>d</b><br/>dot<br/>"));
	assert_non_null(strstr(l, "f32[4,16]{1,0}"));
	free(l);
	/* Green (data movement), purple (reduce) with its reducer named. */
	l = node_line(dot, m, "t");
	assert_non_null(strstr(l, "#c8e6c9"));
	free(l);
	l = node_line(dot, m, "r");
	assert_non_null(strstr(l, "#e1bee7"));
	assert_non_null(strstr(l, "Subcomputation: add"));
	/* The small constant operand is written into the label ... */
	assert_non_null(strstr(l, "<i>operand 1</i> = f32[] 0"));
	/* ... and the layout of a rank-1 shape is left out. */
	assert_non_null(strstr(l, "<br/>f32[16]"));
	assert_null(strstr(l, "f32[16]{0}"));
	free(l);
	/* Constants and the scalar broadcast are not nodes of their own. */
	assert_false(has_node(dot, m, "zero"));
	assert_false(has_node(dot, m, "two"));
	assert_false(has_node(dot, m, "b2"));
	l = node_line(dot, m, "m");
	assert_non_null(strstr(l, "f32[16] broadcast 2"));
	free(l);
	/* The reducer computation is summarised, not drawn. */
	assert_null(strstr(dot, "cluster"));
	/* Parameters: orange, darker when large, and numbered. */
	l = node_line(dot, m, "p0");
	assert_non_null(strstr(l, "#ffe0b2"));
	assert_non_null(strstr(l, "Parameter 0"));
	free(l);
	l = node_line(dot, m, "big");
	assert_non_null(strstr(l, "#ffb74d"));
	free(l);
	/* The root is marked. */
	assert_int_equal(count(dot, "label=\"ROOT\""), 1);
	free(dot);
	hlo_module_free(m);
}

static void test_fusion_expanded(void **state)
{
	(void)state;
	HloModule *m = load_file(GOLDEN, "fusion.hlo");
	VizOpts o = {0};
	char *dot = module_dot(m, &o, NULL);
	golden("fusion-expanded", dot);
	assert_int_equal(count(dot, "subgraph cluster_"), 1);
	assert_non_null(strstr(dot, "Fused expression for <b>fusion</b>"));
	/* The fused instructions are nodes, the fusion itself is not. */
	assert_true(has_node(dot, m, "mul"));
	assert_false(has_node(dot, m, "fusion"));
	/* Edges in go to the fused parameters: x -> p.0. */
	char e[64];
	snprintf(e, sizeof e, "n%d -> n%d", hlo_comp_find(m->entry, "x")->id,
		 hlo_comp_find(hlo_module_find_comp(m, "fused_computation"),
			       "p.0")
			 ->id);
	assert_non_null(strstr(dot, e));
	free(dot);
	hlo_module_free(m);
}

static void test_fusion_collapsed(void **state)
{
	(void)state;
	HloModule *m = load_file(GOLDEN, "fusion.hlo");
	VizOpts o = {.fusions_collapsed = true};
	char *dot = module_dot(m, &o, NULL);
	golden("fusion-collapsed", dot);
	assert_null(strstr(dot, "cluster"));
	char *l = node_line(dot, m, "fusion");
	assert_non_null(l);
	assert_non_null(strstr(l, "#cfd8dc"));
	assert_non_null(strstr(l, "kLoop"));
	free(l);
	assert_false(has_node(dot, m, "mul"));
	free(dot);
	hlo_module_free(m);
}

static void test_while_body_cluster(void **state)
{
	(void)state;
	HloModule *m = load_file(GOLDEN, "while.hlo");
	VizOpts o = {0};
	char *dot = module_dot(m, &o, NULL);
	golden("while", dot);
	assert_int_equal(count(dot, "subgraph cluster_"), 2);
	assert_non_null(strstr(dot, "Subcomputation for <b>w</b><br/>body"));
	char *l = node_line(dot, m, "w");
	assert_non_null(strstr(l, "shape=ellipse"));
	assert_non_null(strstr(l, "#2e7d32"));
	free(l);
	/* Each body's root goes back to the while, dashed. */
	assert_int_equal(count(dot, "style=dashed, ltail=cluster_"), 2);
	free(dot);
	/* `set bodies summary`: no clusters, the while node stays. */
	o.bodies_summarised = true;
	dot = module_dot(m, &o, NULL);
	assert_int_equal(count(dot, "subgraph cluster_"), 0);
	assert_true(has_node(dot, m, "w"));
	free(dot);
	hlo_module_free(m);
}

static void test_neighbourhood(void **state)
{
	(void)state;
	HloModule *m = load_file(GOLDEN, "chain.hlo");
	VizOpts o = {.center = hlo_comp_find(m->entry, "a4"), .depth = 1};
	VizResult r;
	char *dot = module_dot(m, &o, &r);
	golden("neighbourhood", dot);
	assert_int_equal(r.nodes, 3); /* a3, a4, a5 */
	assert_false(has_node(dot, m, "a2"));
	assert_false(has_node(dot, m, "a6"));
	/* The centre is highlighted; cut-off edges are dashed stubs. */
	char *l = node_line(dot, m, "a4");
	assert_non_null(strstr(l, "#b71c1c"));
	assert_non_null(strstr(l, "shape=diamond"));
	free(l);
	l = node_line(dot, m, "a3");
	assert_non_null(strstr(l, "filled,dashed"));
	free(l);
	assert_non_null(strstr(dot, "label=\"1 operand\""));
	assert_non_null(strstr(dot, "label=\"1 user\""));
	free(dot);
	hlo_module_free(m);
	/* inside a fused computation the title names it: the ROOT marked
	 * is that computation's */
	m = load_file(GOLDEN, "fusion.hlo");
	HloComp *fc = hlo_module_find_comp(m, "fused_computation");
	o = (VizOpts){.center = hlo_comp_find(fc, "mul"), .depth = 1};
	dot = module_dot(m, &o, &r);
	assert_non_null(strstr(dot, "neighbourhood of mul (depth 1) in "
				    "fused_computation</b>"));
	free(dot);
	o.center = hlo_comp_find(m->entry, "bc");
	dot = module_dot(m, &o, &r);
	assert_non_null(strstr(dot, "neighbourhood of bc (depth 1)</b>"));
	free(dot);
	hlo_module_free(m);
}

static void test_cap_falls_back(void **state)
{
	(void)state;
	HloModule *m = load_file(GOLDEN, "fusion.hlo");
	/* 11 nodes expanded, 8 collapsed: a cap of 8 collapses. */
	VizOpts o = {.max_nodes = 8};
	VizResult r;
	char *dot = module_dot(m, &o, &r);
	assert_int_equal(r.level, VIZ_COLLAPSED);
	assert_int_equal(r.full_nodes, 11);
	assert_true(r.nodes <= 8);
	assert_null(strstr(dot, "cluster"));
	assert_non_null(strstr(dot, "over the cap of 8"));
	free(dot);
	/* A cap of 3 needs the neighbourhood of what changed (against
	 * unfused.hlo: the fusion is new). */
	HloModule *prev = load_file(GOLDEN, "unfused.hlo");
	o = (VizOpts){.max_nodes = 3, .prev = prev};
	dot = module_dot(m, &o, &r);
	golden("cap-changed", dot);
	assert_true(r.level == VIZ_CHANGED || r.level == VIZ_TRUNCATED);
	assert_true(r.nodes <= 3);
	assert_non_null(strstr(r.note, "changed"));
	free(dot);
	hlo_module_free(prev);
	hlo_module_free(m);
}

/* Text is valid UTF-8 whatever the module holds: a cut never splits a
 * character, and bytes that are no UTF-8 become U+FFFD (Graphviz
 * refused such labels and drew the node's id instead). */
static void test_utf8_labels(void **state)
{
	(void)state;
	StrBuf t;
	sb_init(&t);
	sb_puts(&t, "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n"
		    "  ROOT c = f32[4] custom-call(p), custom_call_target=\"");
	for (int i = 0; i < 40; i++)
		sb_puts(&t, "\xc3\xa9"); /* e acute */
	sb_puts(&t, "\xff\xfe\"\n}\n");
	HloModule *m = load_text(sb_str(&t));
	sb_free(&t);
	VizOpts o = {0};
	char *dot = module_dot(m, &o, NULL);
	for (size_t i = 0, n = strlen(dot); i < n;) {
		size_t k = utf8_len(dot + i, n - i);
		if (!k)
			fail_msg("byte %zu of the DOT text is no UTF-8", i);
		i += k;
	}
	assert_non_null(strstr(dot, "\xc3\xa9..."));
	free(dot);
	sb_init(&t);
	viz_html_escape(&t, "ab\xff\xc3", 4, false);
	assert_string_equal(sb_str(&t), "ab\xef\xbf\xbd\xef\xbf\xbd");
	sb_free(&t);
	/* control characters: blanks in labels; in the report's HTML tab
	 * and line ends stay, the rest (ESC, DEL...) are not valid HTML
	 * text and become U+FFFD */
	sb_init(&t);
	viz_html_escape(&t, "a\x1b\tb\x7f\n", 6, false);
	assert_string_equal(sb_str(&t), "a  b  ");
	sb_clear(&t);
	viz_html_escape(&t, "a\x1b\tb\x7f\nc\x01", 8, true);
	assert_string_equal(sb_str(&t),
			    "a\xef\xbf\xbd\tb\xef\xbf\xbd\nc\xef\xbf\xbd");
	sb_free(&t);
	hlo_module_free(m);
}

/* A neighbourhood that cuts an open fusion's operands off draws their
 * stub into the fused parameters they feed, not into its root. */
static void test_cut_fusion_operands(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule m\n\nfc {\n  x = f32[8] parameter(0)\n"
		"  y = f32[8] parameter(1)\n  ROOT s = f32[8] add(x, y)\n}\n\n"
		"ENTRY e {\n  p = f32[8] parameter(0)\n"
		"  a = f32[8] exponential(p)\n  b = f32[8] negate(p)\n"
		"  f = f32[8] fusion(a, b), kind=kLoop, calls=fc\n"
		"  ROOT r = f32[8] negate(f)\n}\n");
	const HloComp *fc = hlo_instr_called_at(
		hlo_comp_find(m->entry, "f"), 0);
	VizOpts o = {.center = hlo_comp_find(m->entry, "f"), .depth = 0};
	char *dot = module_dot(m, &o, NULL);
	int f = hlo_comp_find(m->entry, "f")->id;
	char want[64];
	const char *to[] = {"x", "y"};
	for (int i = 0; i < 2; i++) {
		snprintf(want, sizeof want, "n%d_in -> n%d ", f,
			 hlo_comp_find(fc, to[i])->id);
		assert_non_null(strstr(dot, want));
	}
	snprintf(want, sizeof want, "n%d_in -> n%d ", f,
		 hlo_comp_find(fc, "s")->id);
	assert_null(strstr(dot, want));
	free(dot);
	hlo_module_free(m);
}

/* A small constant passed into a fusion is written into the label of
 * the fused parameter it binds (no edge brings it there). */
static void test_constant_bound_to_parameter(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule m\n\nfc {\n  x = f32[2,2] parameter(0)\n"
		"  k = f32[2,2] parameter(1)\n"
		"  ROOT s = f32[2,2] add(x, k)\n}\n\n"
		"ENTRY e {\n  p = f32[2,2] parameter(0)\n"
		"  c = f32[2,2] constant({{1, 2}, {3, 4}})\n"
		"  ROOT f = f32[2,2] fusion(p, c), kind=kLoop, calls=fc\n}\n");
	VizOpts o = {0};
	char *dot = module_dot(m, &o, NULL);
	char *l = node_line(dot, m, "k");
	assert_non_null(l);
	assert_non_null(strstr(l, "bound to</i> f32[2,2] { { 1, 2 }, { 3, 4 } }"));
	free(l);
	l = node_line(dot, m, "x");
	assert_null(strstr(l, "bound to"));
	free(l);
	free(dot);
	hlo_module_free(m);
}

/* Control edges are drawn dotted and labelled ctrl; a value read many
 * times by one instruction draws at most 64 edges to it (as XLA's
 * dumper), not one per operand. */
static void test_control_and_parallel_edges(void **state)
{
	(void)state;
	HloModule *m = load_text(
		"HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n"
		"  a = f32[4] negate(p)\n"
		"  b = f32[4] exponential(p), control-predecessors={%a}\n"
		"  ROOT t = (f32[4], f32[4]) tuple(a, b)\n}\n");
	VizOpts o = {0};
	char *dot = module_dot(m, &o, NULL);
	char want[64];
	snprintf(want, sizeof want, "n%d -> n%d [style=dotted",
		 hlo_comp_find(m->entry, "a")->id,
		 hlo_comp_find(m->entry, "b")->id);
	assert_non_null(strstr(dot, want));
	assert_int_equal(count(dot, "label=\"ctrl\""), 1);
	free(dot);
	hlo_module_free(m);

	StrBuf t;
	sb_init(&t);
	sb_puts(&t, "HloModule c\n\nENTRY e {\n  p = f32[1] parameter(0)\n"
		    "  ROOT c = f32[200] concatenate(");
	for (int i = 0; i < 200; i++)
		sb_printf(&t, "%sp", i ? ", " : "");
	sb_puts(&t, "), dimensions={0}\n}\n");
	m = load_text(sb_str(&t));
	sb_free(&t);
	dot = module_dot(m, &o, NULL);
	snprintf(want, sizeof want, "n%d -> n%d ",
		 hlo_comp_find(m->entry, "p")->id,
		 hlo_comp_find(m->entry, "c")->id);
	assert_int_equal(count(dot, want), 64);
	free(dot);
	hlo_module_free(m);
}

/* A control-predecessors name longer than 255 bytes names that
 * instruction, not one whose name is its first 255 bytes. */
static void test_control_edge_long_name(void **state)
{
	(void)state;
	char shortn[256], longn[301];
	memset(shortn, 'a', 255);
	shortn[255] = 0;
	memset(longn, 'a', 300);
	longn[300] = 0;
	StrBuf t;
	sb_init(&t);
	sb_printf(&t,
		  "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n"
		  "  %s = f32[4] negate(p)\n"
		  "  %s = f32[4] exponential(p)\n"
		  "  ROOT r = (f32[4], f32[4]) tuple(%s, %s), "
		  "control-predecessors={%s}\n}\n",
		  shortn, longn, shortn, longn, longn);
	HloModule *m = load_text(sb_str(&t));
	sb_free(&t);
	VizOpts o = {0};
	char *dot = module_dot(m, &o, NULL);
	char want[64], wrong[64];
	int r = hlo_comp_find(m->entry, "r")->id;
	snprintf(want, sizeof want, "n%d -> n%d [style=dotted",
		 hlo_comp_find(m->entry, longn)->id, r);
	snprintf(wrong, sizeof wrong, "n%d -> n%d [style=dotted",
		 hlo_comp_find(m->entry, shortn)->id, r);
	assert_non_null(strstr(dot, want));
	assert_null(strstr(dot, wrong));
	free(dot);
	hlo_module_free(m);
}

/* A picture of 50 nodes or more carries the bound on Graphviz's network
 * simplex in its DOT text, as rendering sets it: `dot` run on a written
 * file takes seconds, not minutes. A small one does not need it. */
static void test_layout_bound_in_text(void **state)
{
	(void)state;
	StrBuf t;
	sb_init(&t);
	sb_puts(&t, "HloModule chain\n\nENTRY e {\n"
		    "  p = f32[4] parameter(0)\n  x0 = f32[4] negate(p)\n");
	for (int i = 1; i < 60; i++)
		sb_printf(&t, "  x%d = f32[4] add(x%d, p)\n", i, i - 1);
	sb_puts(&t, "  ROOT r = f32[4] negate(x59)\n}\n");
	HloModule *big = load_text(sb_str(&t));
	sb_free(&t);
	HloModule *small = load_text(
		"HloModule s\n\nENTRY e {\n  p = f32[4] parameter(0)\n"
		"  ROOT n = f32[4] negate(p)\n}\n");
	VizOpts o = {0};
	VizResult r;
	char *dot = module_dot(big, &o, &r);
	assert_true(r.nodes >= VIZ_BOUND_FROM_NODES);
	assert_non_null(strstr(dot, "graph [nslimit=2, nslimit1=2];"));
	free(dot);
	dot = module_dot(small, &o, NULL);
	assert_null(strstr(dot, "nslimit"));
	free(dot);
	/* compare: both panels count */
	StrBuf c;
	sb_init(&c);
	assert_true(viz_dot_compare(&c, small, "a", big, "b", &o, NULL, NULL));
	assert_non_null(strstr(sb_str(&c), "graph [nslimit=2, nslimit1=2];"));
	sb_clear(&c);
	assert_true(viz_dot_compare(&c, small, "a", small, "b", &o, NULL,
				    NULL));
	assert_null(strstr(sb_str(&c), "nslimit"));
	sb_free(&c);
	hlo_module_free(big);
	hlo_module_free(small);
}

static void test_compare_panels(void **state)
{
	(void)state;
	HloModule *a = load_file(GOLDEN, "unfused.hlo");
	HloModule *b = load_file(GOLDEN, "fusion.hlo");
	VizOpts o = {0};
	StrBuf s;
	sb_init(&s);
	VizResult ra, rb;
	assert_true(viz_dot_compare(&s, a, "step 0: load unfused.hlo", b,
				    "step 1: pass fusion", &o, &ra, &rb));
	golden("compare", sb_str(&s));
	const char *dot = sb_str(&s);
	assert_non_null(strstr(dot, "subgraph cluster_a {"));
	assert_non_null(strstr(dot, "subgraph cluster_b {"));
	assert_non_null(strstr(dot, "legend [shape=plaintext"));
	/* The fusion is added (green) in b, boxed as a cluster. */
	char key[64];
	snprintf(key, sizeof key, "subgraph cluster_b%d",
		 hlo_comp_find(b->entry, "fusion")->id);
	assert_non_null(strstr(dot, key));
	/* x is unchanged: the same colour in both panels; mul moved into the
	 * fusion: changed (amber) in a. */
	snprintf(key, sizeof key, "  a%d [",
		 hlo_comp_find(a->entry, "mul")->id);
	const char *p = strstr(dot, key);
	assert_non_null(p);
	assert_true(strstr(p, "#ffe082") < strchr(p, '\n'));
	snprintf(key, sizeof key, "  a%d [", hlo_comp_find(a->entry, "x")->id);
	p = strstr(dot, key);
	assert_non_null(p);
	assert_true(strstr(p, "#ffe0b2") < strchr(p, '\n'));
	sb_free(&s);
	hlo_module_free(a);
	hlo_module_free(b);
}

/* Braces balance outside quoted strings and HTML labels. */
static bool balanced(const char *s)
{
	int depth = 0, angle = 0;
	bool q = false;
	for (; *s; s++) {
		if (q) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				q = false;
		} else if (angle) {
			angle += (*s == '<') - (*s == '>');
		} else if (*s == '"') {
			q = true;
		} else if (*s == '<') {
			angle = 1;
		} else if (*s == '{') {
			depth++;
		} else if (*s == '}' && --depth < 0) {
			return false;
		}
	}
	return depth == 0 && !q && !angle;
}

/* Every corpus module: under the cap, well formed. */
static bool cap_one(const char *name, HloModule *m, void *ctx)
{
	int *fell = ctx;
	for (int collapsed = 0; collapsed < 2; collapsed++) {
		VizOpts o = {.fusions_collapsed = collapsed};
		VizResult r;
		char *dot = module_dot(m, &o, &r);
		if (r.nodes > VIZ_DEFAULT_MAX_NODES || !balanced(dot))
			fail_msg("%s: %d nodes, balanced %d", name, r.nodes,
				 balanced(dot));
		*fell += r.level != VIZ_FULL;
		free(dot);
	}
	hlo_module_free(m);
	return true;
}

static void test_corpus_cap(void **state)
{
	(void)state;
	int fell = 0;
	CorpusCount n = corpus_each(cap_one, &fell);
	assert_true(n.loaded > 300);
	assert_true(fell > 0); /* the big ones did fall back */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colours_and_labels),
		cmocka_unit_test(test_fusion_expanded),
		cmocka_unit_test(test_fusion_collapsed),
		cmocka_unit_test(test_while_body_cluster),
		cmocka_unit_test(test_neighbourhood),
		cmocka_unit_test(test_cap_falls_back),
		cmocka_unit_test(test_utf8_labels),
		cmocka_unit_test(test_constant_bound_to_parameter),
		cmocka_unit_test(test_cut_fusion_operands),
		cmocka_unit_test(test_control_and_parallel_edges),
		cmocka_unit_test(test_control_edge_long_name),
		cmocka_unit_test(test_layout_bound_in_text),
		cmocka_unit_test(test_compare_panels),
		cmocka_unit_test(test_corpus_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
