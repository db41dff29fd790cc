/* render.h - DOT text to SVG, PNG or PDF through Graphviz's libgvc,
 * in-process (never by running `dot`).
 *
 * Built without Graphviz (no XR_HAVE_GRAPHVIZ), every call fails with a
 * message saying so; DOT text itself never needs Graphviz (dot.h). */
#ifndef XR_VIZ_RENDER_H
#define XR_VIZ_RENDER_H
#include <stdbool.h>
#include <stddef.h>

/* Was this build linked with Graphviz? */
bool viz_have_graphviz(void);

/* The format an output file name asks for: "svg", "png", "pdf" or
 * "dot" (case-insensitive extension), or NULL when it is none of them. */
const char *viz_format_of(const char *path);

/* Lays out dot (with the `dot` engine) and renders it in format ("svg",
 * "png" or "pdf") into a malloc'd buffer *out of *len bytes, which the
 * caller frees. On failure returns false with Graphviz's own message (or
 * "built without Graphviz") in err. */
bool viz_render(const char *dot, const char *format, char **out, size_t *len,
		char *err, size_t errcap);

/* What the commands give one picture's layout, and the node cap of the
 * picture drawn again when that ran out. */
enum { VIZ_RENDER_LIMIT_MS = 8000, VIZ_RETRY_MAX_NODES = 100 };

/* As viz_render, but in a child process allowed limit_ms milliseconds:
 * a layout that runs longer is stopped (*timed_out set), and so is a
 * crash inside Graphviz; neither takes the session down or leaves
 * anything behind. */
bool viz_render_guarded(const char *dot, const char *format, int limit_ms,
			char **out, size_t *len, bool *timed_out, char *err,
			size_t errcap);

#endif
