/* textdiff.h - unified diff of two texts, line by line (for `diff`
 * between module versions). */
#ifndef XR_TEXTDIFF_H
#define XR_TEXTDIFF_H
#include <stddef.h>

#include "strbuf.h"

/* Appends a unified diff (---/+++ header with the two names, @@ hunks
 * with `context` lines around changes) of a and b to out. Nothing is
 * appended when the texts are equal. Returns the number of changed lines
 * (added plus removed). Linear memory; O((N+M)D) time (Myers). */
int textdiff_unified(StrBuf *out, const char *name_a, const char *a,
		     size_t alen, const char *name_b, const char *b,
		     size_t blen, int context);

#endif
