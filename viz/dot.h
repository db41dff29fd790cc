/* dot.h - HLO to Graphviz DOT text, as XLA's graph dumper draws it.
 *
 * A pure function of the module(s) and options: no Graphviz, no files,
 * the same text for the same input (golden-tested). Rendering the text
 * is render.h's business.
 *
 * What is drawn: the entry computation (or, with a centre, that
 * instruction's computation), one node per instruction coloured by opcode
 * category; small constants and broadcasts of them are written into
 * their users' labels instead; trivial reducers ("add", "maximum") are
 * named in their user's label; fusions are clusters of their fused
 * instructions or one node each; while, conditional and call bodies are
 * clusters (or one line in the caller's label when the graph is big).
 *
 * Big graphs: above the node cap the picture falls back to collapsed
 * fusions and summarised bodies, then to the neighbourhood of what
 * changed (against opts.prev), and says so in the result's note. */
#ifndef XR_VIZ_DOT_H
#define XR_VIZ_DOT_H
#include <stdbool.h>

#include "hlo.h"
#include "strbuf.h"

enum { VIZ_DEFAULT_MAX_NODES = 400, VIZ_MAX_DEPTH = 64 };
/* Network simplex (ranking and x positions in `dot`) can run for
 * minutes on some graphs of a few hundred nodes (a 400-node compare
 * picture of resnet50 did not finish in 20 minutes). From this many
 * nodes its iterations are bounded to VIZ_NSLIMIT per node, in the DOT
 * text written (dot.c) and in the layout made here (render.c): measured,
 * that picture then takes about 2 s, and small graphs converge before
 * the bound anyway. */
enum { VIZ_BOUND_FROM_NODES = 50, VIZ_NSLIMIT = 2 };

typedef struct VizOpts {
	bool fusions_collapsed; /* `set fusions collapsed` */
	bool bodies_summarised; /* `set bodies summary`: while, conditional
				   and call bodies as one line in their
				   caller's label, not clusters */
	int max_nodes;          /* node cap; <= 0: VIZ_DEFAULT_MAX_NODES */
	/* Neighbourhood: only instructions up to depth edges from centre
	 * (an instruction of the module drawn), cut-off edges dashed. */
	const HloInstr *center;
	int depth;
	/* The version before this one (for the fall-back to what changed);
	 * NULL: none. */
	const HloModule *prev;
	const char *title; /* graph label; NULL: the module's name */
	/* viz_report: layout time its pictures may take in all before the
	 * rest are drawn with the small cap; <= 0: a minute */
	int report_budget_ms;
} VizOpts;

/* How a picture came out. */
typedef enum {
	VIZ_FULL,      /* as asked */
	VIZ_COLLAPSED, /* fusions collapsed, bodies summarised */
	VIZ_CHANGED,   /* neighbourhood of the changed instructions */
	VIZ_TRUNCATED, /* even that was too big: cut at the cap */
} VizLevel;

typedef struct VizResult {
	int nodes;      /* instruction nodes drawn */
	int full_nodes; /* what the picture as asked would have had */
	VizLevel level;
	char note[320]; /* what was left out and why; "" when nothing */
} VizResult;

/* The DOT text of module m into out. False only when out of memory. */
bool viz_dot_module(StrBuf *out, const HloModule *m, const VizOpts *o,
		    VizResult *r);

/* One picture of two versions side by side: two clusters, a (titled
 * title_a) and b (title_b), with removed (in a), added (in b) and
 * changed instructions coloured, and a legend. Each panel gets half the
 * node cap and falls back on its own. a may be NULL: b alone, as added.
 * ra and rb (may be NULL) get each panel's result. */
bool viz_dot_compare(StrBuf *out, const HloModule *a, const char *title_a,
		     const HloModule *b, const char *title_b, const VizOpts *o,
		     VizResult *ra, VizResult *rb);

/* s[0..n) with & < > " escaped for HTML (and Graphviz's HTML-like
 * labels); control characters (and DEL) become blanks, or with controls
 * tab and line ends stay and the others become U+FFFD; a byte
 * that starts no valid UTF-8 sequence becomes U+FFFD. */
void viz_html_escape(StrBuf *b, const char *s, size_t n, bool controls);

/* Instructions of the entry computation of m added or changed with
 * respect to prev (matched by name); the count. */
int viz_count_changed(const HloModule *m, const HloModule *prev);

#endif
