/* parse.h - XLA HLO text parser (both printing styles and the short
 * hand-written form). Errors go to a Diag as FILE:LINE:COL messages. */
#ifndef XR_PARSE_H
#define XR_PARSE_H
#include "diag.h"
#include "hlo.h"

/* Largest constant the parser builds (values, splat or elided). */
#define XR_MAX_CONSTANT_BYTES ((int64_t)256 << 20)
/* Lowers that cap for this process (n bytes, at most the default): the
 * fuzz harness, whose sanitized build takes seconds to fill a constant
 * at the full cap and would report it as a hang. */
void parse_set_max_constant_bytes(int64_t n);

typedef enum {
	PARSE_OK,
	PARSE_ERROR,
	PARSE_INCOMPLETE, /* input ended inside an open '{' or '(' */
} ParseStatus;

/* Parses a whole module. On error returns NULL and *st says why (st may be
 * NULL). The module is not verified; see verify_module. */
HloModule *parse_module(const SrcFile *src, Diag *d, ParseStatus *st);

/* Parses one instruction "[ROOT] name = [shape] op(...), attrs" and appends
 * it to c; shapes left out are inferred. NULL on error (c unchanged). */
HloInstr *parse_instr_line(HloComp *c, const SrcFile *src, Diag *d,
			   ParseStatus *st);

/* Brace balance of text: > 0 while a block is still open (the REPL reads
 * continuation lines), 0 balanced, < 0 too many closers. Strings and
 * comments are skipped. */
int parse_open_depth(const char *text, size_t len);

/* Shape from text such as "f32[2,3]{1,0}" or "(s32[], f32[4])". */
Shape *parse_shape_text(Arena *a, const char *text, Diag *d);

/* Literal of shape s from text such as "{1, 2}", "3.5" or "true". */
Literal *parse_literal_text(Arena *a, const Shape *s, const char *text,
			    Diag *d);

#endif
