/* test_viz_render.c - DOT -> SVG/PNG/PDF through libgvc (viz/render.c)
 * and the report page (viz/report.c): the bytes are what each format
 * starts with, Graphviz's errors come back as messages, the page holds
 * one inline picture per step and nothing from the network. Skipped
 * where the build has no Graphviz (beyond the checks that need none). */
#include "testutil.h"

#include "dot.h"
#include "render.h"
#include "report.h"

#define GOLDEN XR_SOURCE_DIR "/tests/golden/dot/"

static void test_format_of(void **state)
{
	(void)state;
	assert_string_equal(viz_format_of("/tmp/g.svg"), "svg");
	assert_string_equal(viz_format_of("G.PNG"), "png");
	assert_string_equal(viz_format_of("a.b/c.pdf"), "pdf");
	assert_string_equal(viz_format_of("x.dot"), "dot");
	assert_null(viz_format_of("x.jpg"));
	assert_null(viz_format_of("svg"));
	assert_null(viz_format_of("dir.svg/x"));
	assert_null(viz_format_of("x.svgz"));
}

static void skip_without_graphviz(void)
{
	if (!viz_have_graphviz()) {
		char *out;
		size_t n;
		char err[200];
		assert_false(viz_render("digraph{}", "svg", &out, &n, err,
					sizeof err));
		assert_non_null(strstr(err, "built without Graphviz"));
		skip();
	}
}

static char *render(const char *dot, const char *fmt, size_t *n)
{
	char *out = NULL, err[600];
	if (!viz_render(dot, fmt, &out, n, err, sizeof err))
		fail_msg("render %s: %s", fmt, err);
	return out;
}

static void test_formats(void **state)
{
	(void)state;
	skip_without_graphviz();
	HloModule *m = load_file(GOLDEN, "fusion.hlo");
	StrBuf b;
	sb_init(&b);
	VizOpts o = {0};
	VizResult r;
	assert_true(viz_dot_module(&b, m, &o, &r));
	size_t n;
	char *svg = render(sb_str(&b), "svg", &n);
	assert_non_null(strstr(svg, "<svg"));
	assert_non_null(strstr(svg, "</svg>"));
	/* Every instruction node made it into the picture. */
	assert_non_null(strstr(svg, ">mul</text>"));
	assert_non_null(strstr(svg, ">Fused expression for </text>"));
	free(svg);
	char *png = render(sb_str(&b), "png", &n);
	assert_true(n > 8 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
	free(png);
	char *pdf = render(sb_str(&b), "pdf", &n);
	assert_true(n > 5 && memcmp(pdf, "%PDF-", 5) == 0);
	free(pdf);
	sb_free(&b);
	hlo_module_free(m);
}

static void test_errors(void **state)
{
	(void)state;
	skip_without_graphviz();
	char *out = (char *)1, err[600] = "";
	size_t n = 7;
	assert_false(viz_render("digraph { a -> ", "svg", &out, &n, err,
				sizeof err));
	assert_null(out);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err, "graphviz: "));
	assert_non_null(strstr(err, "syntax error"));
	/* An unknown output format is Graphviz's error too. */
	assert_false(viz_render("digraph { a }", "nosuchformat", &out, &n, err,
				sizeof err));
	assert_non_null(strstr(err, "graphviz: "));
	/* And a good one still works after the failures. */
	char *svg = render("digraph { a -> b }", "svg", &n);
	free(svg);
}

/* The guard: the same picture from a child process; Graphviz's errors
 * come through; a layout past its time is stopped. */
static void test_guarded(void **state)
{
	(void)state;
	skip_without_graphviz();
	char *out = NULL, err[600] = "";
	size_t n = 0;
	bool late = true;
	assert_true(viz_render_guarded("digraph { a -> b }", "png", 60000, &out,
				       &n, &late, err, sizeof err));
	assert_false(late);
	assert_true(n > 8 && memcmp(out, "\x89PNG\r\n\x1a\n", 8) == 0);
	free(out);
	assert_false(viz_render_guarded("digraph { a -> ", "svg", 60000, &out,
					&n, &late, err, sizeof err));
	assert_false(late);
	assert_null(out);
	assert_non_null(strstr(err, "syntax error"));
	/* 600 nodes in a grid cannot be laid out in a millisecond. */
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "digraph {");
	for (int i = 0; i < 600; i++)
		sb_printf(&b, " n%d -> n%d; n%d -> n%d;", i, i + 1, i,
			  (i * 7 + 3) % 600);
	sb_puts(&b, "}");
	assert_false(viz_render_guarded(sb_str(&b), "svg", 1, &out, &n, &late,
					err, sizeof err));
	assert_true(late);
	assert_null(out);
	assert_non_null(strstr(err, "longer than 1 ms"));
	sb_free(&b);
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void test_report(void **state)
{
	(void)state;
	skip_without_graphviz();
	HloModule *a = load_file(GOLDEN, "unfused.hlo");
	HloModule *b = load_file(GOLDEN, "fusion.hlo");
	HloModule *c = load_file(GOLDEN, "fusion.hlo");
	VizStep steps[] = {
		{0, "load unfused.hlo", "stats: instructions=13", a, false,
		 true},
		{1, "pass fusion", "stats: instructions=16", b, false, false},
		{2, "pass <nothing>", "stats: instructions=16", c, false,
		 false},
		{3, "load unfused.hlo", "stats: instructions=13", a, true,
		 true},
	};
	StrBuf out;
	sb_init(&out);
	VizOpts o = {0};
	char err[600] = "";
	assert_true(viz_report(&out, "session & more", steps, 4, &o, err,
			       sizeof err));
	const char *h = sb_str(&out);
	assert_int_equal(count(h, "<svg"), 4);
	assert_int_equal(count(h, "class=\"pic\""), 4);
	assert_int_equal(count(h, "<section"), 4);
	/* Labels are escaped; the diff is there; the last step changed
	 * nothing. */
	assert_non_null(strstr(h, "session &amp; more"));
	assert_non_null(strstr(h, "pass &lt;nothing&gt;"));
	assert_null(strstr(h, "pass <nothing>"));
	assert_non_null(strstr(h, "<span class=\"add\">"));
	assert_non_null(strstr(h, "no differences from step 1"));
	/* a step that loads another module is compared with none */
	assert_null(strstr(h, "from step 2"));
	/* Self-contained: no external script, style, font or image. */
	assert_null(strstr(h, "src="));
	assert_null(strstr(h, "<link"));
	assert_null(strstr(h, "@import"));
	assert_null(strstr(h, "url("));
	assert_int_equal(count(h, "<script>"), 1);
	sb_free(&out);
	hlo_module_free(a);
	hlo_module_free(b);
	hlo_module_free(c);
}

/* Once the report's layouts have taken its time budget, the later
 * steps are drawn with the small cap and say so (each would otherwise
 * take as long again, or wait out the time limit). */
static void test_report_budget(void **state)
{
	(void)state;
	skip_without_graphviz();
	StrBuf t;
	sb_init(&t);
	sb_puts(&t, "HloModule chain\n\nENTRY e {\n"
		    "  x0 = f32[4] parameter(0)\n");
	for (int i = 1; i < 110; i++)
		sb_printf(&t, "  x%d = f32[4] negate(x%d)\n", i, i - 1);
	sb_puts(&t, "  ROOT r = f32[4] negate(x109)\n}\n");
	HloModule *m = load_text(sb_str(&t));
	sb_free(&t);
	VizStep steps[] = {
		{0, "load chain", "stats: instructions=111", m, false, true},
		{1, "pass dce", "stats: instructions=111", m, false, false},
		{2, "pass cse", "stats: instructions=111", m, true, false},
	};
	StrBuf out;
	sb_init(&out);
	VizOpts o = {.report_budget_ms = 1};
	char err[600] = "";
	assert_true(viz_report(&out, "budget", steps, 3, &o, err, sizeof err));
	const char *h = sb_str(&out);
	assert_int_equal(count(h, "<svg"), 3);
	assert_int_equal(count(h, "drawn with a cap of 100 nodes: the "
				  "pictures before it took over"),
			 2);
	sb_free(&out);
	hlo_module_free(m);
}

int main(void)
{
	/* The tests that fork (the guarded renderer, the report) run first:
	 * rendering in this process starts Graphviz's font threads (pango,
	 * fontconfig), and a child forked while one of them holds a lock
	 * can wait on it for ever (it hung for the 60 s limit under load).
	 * The REPL itself only renders in children. */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_of),
		cmocka_unit_test(test_guarded),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_report_budget),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
