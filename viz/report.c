/* report.c - the session report page (see report.h).
 *
 * Each step's picture is the compare picture of the step before and this
 * one (the first step alone), rendered to SVG and put inline; the page's
 * only script gives every picture pan (drag), zoom (wheel, + and -
 * buttons) and fit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "print.h"
#include "render.h"
#include "report.h"
#include "textdiff.h"

enum { DIFF_CONTEXT = 3, DIFF_MAX_LINES = 600 };

static void html(StrBuf *b, const char *s, size_t n)
{
	viz_html_escape(b, s, n, true);
}

static void html_str(StrBuf *b, const char *s) { html(b, s, strlen(s)); }

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
	"charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width\">\n"
	"<title>%s</title>\n<style>\n"
	"body{font-family:sans-serif;margin:0 auto;max-width:1200px;"
	"padding:0 1em 3em;color:#212121}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;"
	"border-bottom:1px solid #bdbdbd}\n"
	"nav ol{columns:2}\n"
	".stats{font-family:monospace;color:#424242}\n"
	".note{font-style:italic;color:#6d4c41}\n"
	"pre.diff{background:#fafafa;border:1px solid #e0e0e0;padding:.5em;"
	"overflow:auto;max-height:30em;font-size:12px}\n"
	".add{color:#1b5e20;background:#e8f5e9}.del{color:#b71c1c;"
	"background:#ffebee}.hunk{color:#1565c0}\n"
	".pic{position:relative;height:640px;resize:vertical;border:1px solid "
	"#bdbdbd;overflow:hidden;background:#fff;cursor:grab}\n"
	".pic svg{width:100%%;height:100%%;display:block}\n"
	".tools{position:absolute;right:6px;top:6px;z-index:1}\n"
	".tools button{font-size:14px;min-width:2em;margin-left:2px}\n"
	".current{color:#b71c1c}\n"
	"</style>\n</head>\n<body>\n";

/* Pan (drag), zoom (wheel, buttons) and fit, on the viewBox. */
static const char page_script[] =
	"<script>\n"
	"(function () {\n"
	"  function setup(box) {\n"
	"    var svg = box.querySelector('svg');\n"
	"    if (!svg || !svg.viewBox || !svg.viewBox.baseVal) return;\n"
	"    var v0 = svg.viewBox.baseVal;\n"
	"    var full = [v0.x, v0.y, v0.width, v0.height];\n"
	"    svg.removeAttribute('width');\n"
	"    svg.removeAttribute('height');\n"
	"    svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');\n"
	"    function set(x, y, w, h) {\n"
	"      svg.setAttribute('viewBox', x + ' ' + y + ' ' + w + ' ' + h);\n"
	"    }\n"
	"    function fit() { set(full[0], full[1], full[2], full[3]); }\n"
	"    function zoom(k, cx, cy) {\n"
	"      var v = svg.viewBox.baseVal;\n"
	"      if (cx === undefined) { cx = v.x + v.width / 2;"
	" cy = v.y + v.height / 2; }\n"
	"      set(cx - (cx - v.x) * k, cy - (cy - v.y) * k, v.width * k,"
	" v.height * k);\n"
	"    }\n"
	"    function point(e) {\n"
	"      var p = svg.createSVGPoint();\n"
	"      p.x = e.clientX; p.y = e.clientY;\n"
	"      return p.matrixTransform(svg.getScreenCTM().inverse());\n"
	"    }\n"
	"    box.addEventListener('wheel', function (e) {\n"
	"      e.preventDefault();\n"
	"      var q = point(e);\n"
	"      zoom(e.deltaY < 0 ? 0.8 : 1.25, q.x, q.y);\n"
	"    }, {passive: false});\n"
	"    var drag = null;\n"
	"    box.addEventListener('mousedown', function (e) {\n"
	"      if (e.target.tagName === 'BUTTON') return;\n"
	"      drag = {x: e.clientX, y: e.clientY};\n"
	"      box.style.cursor = 'grabbing';\n"
	"    });\n"
	"    window.addEventListener('mouseup', function () {\n"
	"      drag = null; box.style.cursor = '';\n"
	"    });\n"
	"    window.addEventListener('mousemove', function (e) {\n"
	"      if (!drag) return;\n"
	"      var s = svg.getScreenCTM().a, v = svg.viewBox.baseVal;\n"
	"      set(v.x - (e.clientX - drag.x) / s, v.y - (e.clientY - drag.y) "
	"/ s,"
	" v.width, v.height);\n"
	"      drag = {x: e.clientX, y: e.clientY};\n"
	"    });\n"
	"    var tools = document.createElement('div');\n"
	"    tools.className = 'tools';\n"
	"    [['+', function () { zoom(0.8); }], ['-', function () { "
	"zoom(1.25); "
	"}],\n"
	"     ['fit', fit]].forEach(function (t) {\n"
	"      var b = document.createElement('button');\n"
	"      b.textContent = t[0];\n"
	"      b.addEventListener('click', t[1]);\n"
	"      tools.appendChild(b);\n"
	"    });\n"
	"    box.appendChild(tools);\n"
	"    fit();\n"
	"    box.setAttribute('data-zoom', 'ready');\n"
	"  }\n"
	"  document.querySelectorAll('.pic').forEach(setup);\n"
	"})();\n"
	"</script>\n";

/* The diff text with one class per kind of line, cut at DIFF_MAX_LINES. */
static void diff_html(StrBuf *b, const char *d, size_t len)
{
	int lines = 0;
	const char *p = d, *end = d + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (lines++ == DIFF_MAX_LINES) {
			int more = 0;
			for (const char *q = p; q < end; q++)
				more += *q == '\n';
			sb_printf(b,
				  "<span class=\"note\">... %d more lines "
				  "(the 'diff' command shows them all)"
				  "</span>\n",
				  more);
			return;
		}
		const char *cls = NULL;
		if (n >= 2 && p[0] == '@' && p[1] == '@')
			cls = "hunk";
		else if (n && p[0] == '+' && !(n >= 3 && !strncmp(p, "+++", 3)))
			cls = "add";
		else if (n && p[0] == '-' && !(n >= 3 && !strncmp(p, "---", 3)))
			cls = "del";
		if (cls)
			sb_printf(b, "<span class=\"%s\">", cls);
		html(b, p, n);
		sb_puts(b, cls ? "</span>\n" : "\n");
		p += n + 1;
	}
}

static bool step_diff(StrBuf *b, const VizStep *a, const VizStep *s)
{
	StrBuf ta, tb, d;
	sb_init(&ta);
	sb_init(&tb);
	sb_init(&d);
	print_module(&ta, a->mod, &print_opts_default);
	print_module(&tb, s->mod, &print_opts_default);
	char na[128], nb[128];
	snprintf(na, sizeof na, "step %d: %s", a->number, a->label);
	snprintf(nb, sizeof nb, "step %d: %s", s->number, s->label);
	int n = textdiff_unified(&d, na, sb_str(&ta), ta.len, nb, sb_str(&tb),
				 tb.len, DIFF_CONTEXT);
	if (n == 0) {
		sb_printf(b, "<p>no differences from step %d</p>\n", a->number);
	} else {
		sb_printf(b,
			  "<details open><summary>text diff from step %d "
			  "(%d line%s changed)</summary>\n<pre class=\"diff\">",
			  a->number, n, n == 1 ? "" : "s");
		diff_html(b, sb_str(&d), d.len);
		sb_puts(b, "</pre></details>\n");
	}
	bool ok = !ta.oom && !tb.oom && !d.oom;
	sb_free(&ta);
	sb_free(&tb);
	sb_free(&d);
	return ok;
}

/* The SVG element of a rendered picture (the XML prologue dropped), its
 * ids prefixed with the step number: Graphviz numbers them the same way
 * in every picture, and ids must be unique in the page. */
static void put_svg(StrBuf *b, const char *svg, size_t len, int step)
{
	const char *p = strstr(svg, "<svg"), *end = svg + len;
	if (!p)
		return;
	for (const char *q; (q = strstr(p, " id=\"")) != NULL; p = q + 5) {
		sb_putn(b, p, (size_t)(q - p));
		sb_printf(b, " id=\"s%d_", step);
	}
	sb_putn(b, p, (size_t)(end - p));
}

static void note(StrBuf *b, const char *which, const VizResult *r)
{
	if (!r->note[0])
		return;
	sb_printf(b, "<p class=\"note\">%s: ", which);
	html_str(b, r->note);
	sb_puts(b, "</p>\n");
}

/* The compare picture of steps a (may be NULL) and s as SVG, its layout
 * given the time limit. */
static bool svg_once(const VizStep *a, const VizStep *s, const VizOpts *o,
		     VizResult *ra, VizResult *rb, char **svg, size_t *len,
		     bool *late, char *err, size_t errcap)
{
	char ta[128], tb[128];
	if (a)
		snprintf(ta, sizeof ta, "step %d: %s", a->number, a->label);
	snprintf(tb, sizeof tb, "step %d: %s", s->number, s->label);
	StrBuf dot;
	sb_init(&dot);
	bool ok = viz_dot_compare(&dot, a ? a->mod : NULL, a ? ta : NULL,
				  s->mod, tb, o, ra, rb) &&
		  !dot.oom;
	*late = false;
	if (!ok)
		snprintf(err, errcap, "out of memory");
	else
		ok = viz_render_guarded(sb_str(&dot), "svg",
					VIZ_RENDER_LIMIT_MS, svg, len, late,
					err, errcap);
	sb_free(&dot);
	return ok;
}

/* The node cap the report's pictures are drawn with, and why it came
 * down. A layout over the time limit is drawn again with a small cap,
 * and so is every later step's: the next step is most often the same
 * graph again, and each would wait out the limit first (a 21-step report
 * of a 151-instruction chain took 2 min 39 s, 17 steps timing out).
 * Layouts that stay under the limit but add up past the budget (a
 * minute unless VizOpts says) bring the cap down for the rest too. */
enum { REPORT_BUDGET_MS = 60000 };

typedef struct Pace {
	VizOpts o;       /* as the next picture is drawn */
	double spent_ms; /* layout time so far */
	const char *why; /* why o has the small cap, or NULL */
} Pace;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static bool can_shrink(const VizOpts *o)
{
	return o->max_nodes <= 0 || o->max_nodes > VIZ_RETRY_MAX_NODES;
}

static bool step_picture(StrBuf *b, const VizStep *a, const VizStep *s,
			 Pace *pace, char *err, size_t errcap)
{
	VizResult ra, rb;
	char *svg = NULL;
	size_t len = 0;
	bool late;
	const char *why = pace->why;
	double t0 = now_ms();
	bool ok = svg_once(a, s, &pace->o, &ra, &rb, &svg, &len, &late, err,
			   errcap);
	if (!ok && late && can_shrink(&pace->o)) {
		/* The layout ran out of time: a smaller picture, and the
		 * same cap for the steps after this one. */
		pace->o.max_nodes = VIZ_RETRY_MAX_NODES;
		pace->why = "an earlier step's layout took over the time "
			    "limit";
		ok = svg_once(a, s, &pace->o, &ra, &rb, &svg, &len, &late,
			      err, errcap);
		if (ok)
			sb_printf(b,
				  "<p class=\"note\">the layout took over %d "
				  "s: drawn again with a cap of %d nodes</p>\n",
				  VIZ_RENDER_LIMIT_MS / 1000,
				  VIZ_RETRY_MAX_NODES);
		why = NULL;
	}
	pace->spent_ms += now_ms() - t0;
	if (ok && why)
		sb_printf(b,
			  "<p class=\"note\">drawn with a cap of %d nodes: "
			  "%s</p>\n",
			  VIZ_RETRY_MAX_NODES, why);
	int budget = pace->o.report_budget_ms > 0 ? pace->o.report_budget_ms
						  : REPORT_BUDGET_MS;
	if (!pace->why && pace->spent_ms > budget &&
	    can_shrink(&pace->o)) {
		pace->o.max_nodes = VIZ_RETRY_MAX_NODES;
		pace->why = "the pictures before it took over the report's "
			    "time budget to lay out";
	}
	if (ok) {
		if (a)
			note(b, "before", &ra);
		note(b, a ? "after" : "picture", &rb);
		sb_printf(b, "<div class=\"pic\" id=\"pic-%d\">\n", s->number);
		put_svg(b, svg, len, s->number);
		sb_puts(b, "</div>\n");
	}
	free(svg);
	return ok;
}

static void nav(StrBuf *b, const VizStep *steps, int n)
{
	sb_puts(b, "<nav><ol start=\"0\">\n");
	for (int i = 0; i < n; i++) {
		sb_printf(b, "<li value=\"%d\"><a href=\"#step-%d\">",
			  steps[i].number, steps[i].number);
		html_str(b, steps[i].label);
		sb_printf(b, "</a>%s</li>\n",
			  steps[i].current
				  ? " <b class=\"current\">(current)</b>"
				  : "");
	}
	sb_puts(b, "</ol></nav>\n");
}

bool viz_report(StrBuf *out, const char *title, const VizStep *steps, int n,
		const VizOpts *o, char *err, size_t errcap)
{
	StrBuf t;
	sb_init(&t);
	html_str(&t, title);
	sb_printf(out, page_head, sb_str(&t));
	sb_printf(out,
		  "<h1>%s</h1>\n<p>%d history step%s. Pictures: drag to "
		  "pan, wheel or +/- to zoom, 'fit' to see it all; "
		  "added, removed and changed instructions are coloured "
		  "as the legend says.</p>\n",
		  sb_str(&t), n, n == 1 ? "" : "s");
	sb_free(&t);
	nav(out, steps, n);
	bool ok = true;
	Pace pace = {*o, 0, NULL};
	for (int i = 0; i < n && ok; i++) {
		const VizStep *s = &steps[i];
		const VizStep *a = i && !s->starts ? &steps[i - 1] : NULL;
		sb_printf(out,
			  "<section id=\"step-%d\">\n<h2>step %d: ", s->number,
			  s->number);
		html_str(out, s->label);
		sb_printf(out, "%s</h2>\n<p class=\"stats\">",
			  s->current ? " <span class=\"current\">(current)"
				       "</span>"
				     : "");
		html_str(out, s->stats);
		sb_puts(out, "</p>\n");
		if (a && !(ok = step_diff(out, a, s)))
			snprintf(err, errcap, "out of memory");
		ok = ok && step_picture(out, a, s, &pace, err, errcap);
		sb_puts(out, "</section>\n");
	}
	sb_puts(out, page_script);
	sb_puts(out, "</body>\n</html>\n");
	if (ok && out->oom) {
		snprintf(err, errcap, "out of memory");
		ok = false;
	}
	return ok;
}
