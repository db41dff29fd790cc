/* viz.c - pictures of the graph: render, compare, report.
 *
 * The DOT text comes from viz/dot.c, the SVG/PNG/PDF bytes from
 * viz/render.c (Graphviz in-process). Everything is made in memory
 * first and written only when it is complete, so a failing command
 * leaves no file behind and changes nothing in the session. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "fileio.h"
#include "dot.h"
#include "render.h"
#include "report.h"

static VizOpts base_opts(const Session *s)
{
	return (VizOpts){.fusions_collapsed = s->fusions_collapsed,
			 .bodies_summarised = s->bodies_summarised,
			 .max_nodes = s->node_cap};
}

static const char *quote(char *buf, size_t cap, const char *w)
{
	return repl_quote(buf, cap, w, strlen(w));
}

static bool write_file(Session *s, const char *path, const char *data, size_t n)
{
	char q[160];
	if (!file_write_whole(path, data, n))
		return repl_error(s, "cannot write '%s': %s",
				  quote(q, sizeof q, path), strerror(errno));
	return true;
}

/* The picture format of path; an error when it has none we know, or
 * needs Graphviz that this build lacks. */
static const char *picture_format(Session *s, const char *path)
{
	char q[160];
	const char *fmt = viz_format_of(path);
	if (!fmt) {
		repl_error(s,
			   "cannot tell the picture format of '%s': the name "
			   "must end in .svg, .png, .pdf or .dot",
			   quote(q, sizeof q, path));
		return NULL;
	}
	/* "render .svg" would write a hidden file named ".svg". */
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (base[0] == '.' && strchr(base + 1, '.') == NULL) {
		repl_error(s, "'%s' has no file name before %s",
			   quote(q, sizeof q, path), base);
		return NULL;
	}
	if (strcmp(fmt, "dot") != 0 && !viz_have_graphviz()) {
		repl_error(s,
			   "cannot render '%s': built without Graphviz, so "
			   "only .dot is available (install libgraphviz-dev "
			   "and rebuild)",
			   quote(q, sizeof q, path));
		return NULL;
	}
	return fmt;
}

/* A picture being made: what to draw and how it came out. */
typedef struct Picture {
	const HloModule *a, *b; /* a: compare's first panel */
	const char *ta, *tb;
	bool compare;
	VizOpts o;
	VizResult ra, rb;
	bool redrawn; /* the layout ran out of time: drawn again smaller */
} Picture;

static bool picture_dot(Picture *p, StrBuf *dot)
{
	sb_clear(dot);
	bool ok = p->compare ? viz_dot_compare(dot, p->a, p->ta, p->b, p->tb,
					       &p->o, &p->ra, &p->rb)
			     : viz_dot_module(dot, p->b, &p->o, &p->rb);
	return ok && !dot->oom;
}

/* Lays dot out under the time limit; when it runs out, draws the picture
 * again with a small node cap. */
static bool render_timed(Session *s, Picture *p, StrBuf *dot, const char *fmt,
			 char **data, size_t *n)
{
	char err[600];
	bool late;
	bool ok = viz_render_guarded(sb_str(dot), fmt, VIZ_RENDER_LIMIT_MS,
				     data, n, &late, err, sizeof err);
	if (!ok && late) {
		p->o.max_nodes = VIZ_RETRY_MAX_NODES;
		p->redrawn = true;
		if (!picture_dot(p, dot))
			return repl_error(s, "out of memory");
		ok = viz_render_guarded(sb_str(dot), fmt, VIZ_RENDER_LIMIT_MS,
					data, n, &late, err, sizeof err);
	}
	if (!ok)
		return repl_error(s, "cannot render: %s", err);
	return true;
}

/* Makes the picture in fmt (DOT text for "dot") and writes it. */
static bool draw_picture(Session *s, Picture *p, const char *path,
			 const char *fmt)
{
	StrBuf dot;
	sb_init(&dot);
	char *data = NULL;
	size_t n = 0;
	bool ok = picture_dot(p, &dot);
	if (!ok)
		repl_error(s, "out of memory");
	else if (strcmp(fmt, "dot") == 0)
		ok = write_file(s, path, sb_str(&dot), dot.len);
	else
		ok = render_timed(s, p, &dot, fmt, &data, &n) &&
		     write_file(s, path, data, n);
	free(data);
	sb_free(&dot);
	return ok;
}

static void print_redrawn(Session *s, const Picture *p)
{
	if (p->redrawn)
		fprintf(s->out,
			"note: the layout took over %d s: drawn again with a "
			"cap of %d nodes\n",
			VIZ_RENDER_LIMIT_MS / 1000, VIZ_RETRY_MAX_NODES);
}

static bool parse_depth(Session *s, const char *w, int *depth)
{
	char q[80];
	if (!repl_parse_int(w, 0, VIZ_MAX_DEPTH, depth))
		return repl_error(s,
				  "invalid depth '%s' (a number from 0 to %d)",
				  quote(q, sizeof q, w), VIZ_MAX_DEPTH);
	return true;
}

static void print_note(Session *s, const char *which, const VizResult *r)
{
	if (r->note[0])
		fprintf(s->out, "note: %s%s\n", which, r->note);
}

bool cmd_render(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	const char *path = a->argv[0];
	const char *fmt = picture_format(s, path);
	if (!fmt)
		return false;
	VizOpts o = base_opts(s);
	if (a->argc >= 2) {
		char q[80];
		o.center = repl_find_instr(s->mod, a->argv[1]);
		if (!o.center)
			return repl_error(
				s, "no instruction '%s' in module '%s'",
				quote(q, sizeof q, a->argv[1]), s->mod->name);
		o.depth = 2;
	}
	if (a->argc == 3 && !parse_depth(s, a->argv[2], &o.depth))
		return false;
	/* the step before, for what changed: not when this step holds
	 * another module (load, new, example, a typed block) */
	int kp = cmd_current_step(s) - 1;
	const HistStep *now = repl_history_step(s, kp + 1);
	if (repl_history_step(s, kp) && !(now && now->starts) &&
	    !(o.prev = repl_history_module(s, kp)))
		return false;
	Picture p = {.b = s->mod, .o = o};
	if (!draw_picture(s, &p, path, fmt))
		return false;
	fprintf(s->out, "render: wrote %s (%s, %d node%s)\n", path, fmt,
		p.rb.nodes, p.rb.nodes == 1 ? "" : "s");
	print_note(s, "", &p.rb);
	print_redrawn(s, &p);
	return true;
}

bool cmd_compare(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	const char *path = a->argv[0];
	int ka, kb;
	if (!cmd_step_pair(s, a->argv + 1, a->argc - 1, &ka, &kb,
			   "compare PATH"))
		return false;
	const char *fmt = picture_format(s, path);
	if (!fmt)
		return false;
	const HloModule *ma = repl_history_module(s, ka);
	const HloModule *mb = ma ? repl_history_module(s, kb) : NULL;
	if (!mb)
		return false;
	const HistStep *ha = repl_history_step(s, ka);
	const HistStep *hb = repl_history_step(s, kb);
	char ta[128], tb[128];
	snprintf(ta, sizeof ta, "step %d: %s", ka, ha->label);
	snprintf(tb, sizeof tb, "step %d: %s", kb, hb->label);
	Picture p = {.a = ma,
		     .b = mb,
		     .ta = ta,
		     .tb = tb,
		     .compare = true,
		     .o = base_opts(s)};
	if (!draw_picture(s, &p, path, fmt))
		return false;
	fprintf(s->out,
		"compare: wrote %s (%s, step %d: %d nodes, step %d: %d "
		"nodes)\n",
		path, fmt, ka, p.ra.nodes, kb, p.rb.nodes);
	print_note(s, "before: ", &p.ra);
	print_note(s, "after: ", &p.rb);
	print_redrawn(s, &p);
	return true;
}

static bool ends_with_html(const char *path)
{
	size_t n = strlen(path);
	return n > 5 && strcasecmp(path + n - 5, ".html") == 0 &&
	       path[n - 6] != '/';
}

static void stats_line(char *buf, size_t cap, const HloModule *m)
{
	int v[NSTATS];
	cmd_module_stats(m, v);
	size_t k = (size_t)snprintf(buf, cap, "stats:");
	for (int i = 0; i < NSTATS && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, " %s=%d",
				      cmd_stat_names[i], v[i]);
}

bool cmd_report(Session *s, const CmdArgs *a)
{
	const char *path = a->argv[0];
	char q[160];
	if (!repl_need_module(s))
		return false;
	if (!ends_with_html(path))
		return repl_error(s,
				  repl_has_ext(path, ".html") ||
						  strcasecmp(path, ".html") == 0
					  ? "'report' writes HTML: '%s' has no "
					    "file name before .html"
					  : "'report' writes HTML: '%s' must "
					    "end in .html",
				  quote(q, sizeof q, path));
	if (!viz_have_graphviz())
		return repl_error(s, "cannot draw the report's pictures: built "
				     "without Graphviz (install "
				     "libgraphviz-dev and rebuild)");
	if (s->nhist == 0)
		return repl_error(s, "no history to report");
	VizStep *steps = calloc((size_t)s->nhist, sizeof *steps);
	char(*stats)[160] = calloc((size_t)s->nhist, sizeof *stats);
	if (!steps || !stats) {
		free(steps);
		free(stats);
		return repl_error(s, "out of memory");
	}
	for (int i = 0; i < s->nhist; i++) {
		/* Every step is drawn: those that kept no module are made
		 * again. */
		if (!repl_history_module(s, s->hist_dropped + i)) {
			free(steps);
			free(stats);
			return false;
		}
		stats_line(stats[i], sizeof stats[i], s->hist[i].mod);
		steps[i] =
			(VizStep){s->hist_dropped + i, s->hist[i].label,
				  stats[i], s->hist[i].mod, i == s->hist_cur,
				  s->hist[i].starts};
	}
	char title[200], err[600];
	snprintf(title, sizeof title, "xla-repl session: module %s",
		 s->mod->name);
	VizOpts o = base_opts(s);
	StrBuf page;
	sb_init(&page);
	bool ok =
		viz_report(&page, title, steps, s->nhist, &o, err, sizeof err);
	if (!ok)
		repl_error(s, "cannot write the report: %s", err);
	else
		ok = write_file(s, path, sb_str(&page), page.len);
	if (ok)
		fprintf(s->out, "report: wrote %s (%d step%s)\n", path,
			s->nhist, s->nhist == 1 ? "" : "s");
	sb_free(&page);
	free(steps);
	free(stats);
	return ok;
}
