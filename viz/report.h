/* report.h - the whole session as one self-contained HTML page: every
 * history step with what made it, its stats line, the text diff against
 * the step before and a picture (before and after side by side, changes
 * coloured), inline SVG with pan and zoom by inline script. No network:
 * no external scripts, styles, fonts or images. */
#ifndef XR_VIZ_REPORT_H
#define XR_VIZ_REPORT_H
#include <stdbool.h>
#include <stddef.h>

#include "dot.h"
#include "strbuf.h"

typedef struct VizStep {
	int number;        /* as `history` numbers it */
	const char *label; /* what made it: "load x.hlo", "pass cse" */
	const char *stats; /* the `stats:` line of its module */
	const HloModule *mod;
	bool current; /* the step the session is at */
	bool starts;  /* holds another module than the step before (load,
			 new, ...): nothing to compare it with */
} VizStep;

/* Writes the page for steps[0..n) into out. Pictures go through
 * Graphviz (render.h); false with the reason in err when one cannot be
 * rendered (or the build has no Graphviz). */
bool viz_report(StrBuf *out, const char *title, const VizStep *steps, int n,
		const VizOpts *o, char *err, size_t errcap);

#endif
