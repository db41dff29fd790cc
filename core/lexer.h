/* lexer.h - character cursor over HLO text: whitespace and comments,
 * identifiers, names, numbers and strings, with line/column tracking.
 *
 * HLO is lexed on demand by the parser rather than tokenised up front:
 * several attribute values (3x3, 1_1x0_0, b01f_01io->b01f, [2,4]<=[8])
 * only make sense to the sub-parser that reads them. */
#ifndef XR_LEXER_H
#define XR_LEXER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

typedef struct Lexer {
	const char *start, *p, *end;
	int line;
	const char *line_start;
	const char *open_comment; /* set when a comment runs to the end */
} Lexer;

void lex_init(Lexer *lx, const char *text, size_t len);
SrcLoc lex_loc(const Lexer *lx);
SrcLoc lex_loc_at(const Lexer *lx, const char *p); /* p on current line or later */
/* Skips spaces, newlines, line comments and block comments. */
void lex_skip(Lexer *lx);
bool lex_eof(Lexer *lx);          /* after skipping */
int lex_peek(Lexer *lx);          /* next significant char, -1 at end */
bool lex_accept(Lexer *lx, char c);
bool lex_accept_str(Lexer *lx, const char *s); /* exact text, no skip after */
bool lex_is_ident_char(int c);
/* Identifier [A-Za-z_][A-Za-z0-9_.-]* (digits allowed first when
 * allow_digit); returns length, 0 if none. Does not consume. */
int lex_peek_ident(Lexer *lx, bool allow_digit);
/* Consumes an identifier; s and n receive it. */
bool lex_ident(Lexer *lx, const char **s, int *n);
/* A name: optional percent sign then identifier chars (may start with a
 * digit after the sign). */
bool lex_name(Lexer *lx, const char **s, int *n);
/* Signed decimal integer (or 0x hex); false on overflow or none. */
bool lex_int(Lexer *lx, int64_t *v);
/* Double-quoted string with C escapes; s and n cover the body, escapes
 * kept. */
bool lex_string(Lexer *lx, const char **s, int *n);
/* Advances over one char, keeping line counts right. */
void lex_advance(Lexer *lx);
/* The "*" of the first "*" "/" pair in [q, end), or NULL. */
const char *lex_comment_end(const char *q, const char *end);
/* From the current position, finds the end of a balanced value:
 * stops at ',' or whitespace or an unmatched closer at depth 0. Returns
 * a pointer to the end (does not consume); NULL if a bracket is left open
 * at end of input. */
const char *lex_scan_value(const Lexer *lx);

#endif
