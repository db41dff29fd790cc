/* diag.h - located diagnostics: FILE:LINE:COL: error: MESSAGE, line, caret.
 *
 * core/ never prints: diagnostics accumulate in a Diag and the caller
 * (the REPL, a test) decides where they go. */
#ifndef XR_DIAG_H
#define XR_DIAG_H
#include "strbuf.h"

/* A position in some source text. line/col are 1-based; 0 = unknown. */
typedef struct SrcLoc {
	int line, col;
} SrcLoc;

/* The text diagnostics point into: a file name and its contents. */
typedef struct SrcFile {
	const char *name; /* shown in messages, e.g. "model.hlo" or "<stdin>" */
	const char *text; /* whole text, NUL-terminated; may be NULL */
	size_t len;
	int line_offset;  /* added to line numbers (text embedded in a script) */
} SrcFile;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

typedef struct Diag {
	StrBuf out;       /* formatted messages, ready to print */
	int errors, warnings;
	int max_warnings; /* further warnings are counted, not formatted */
} Diag;

/* Appends line p (n bytes) as diagnostics show it, indented, and under
 * it a caret at column (from 1): tabs and control bytes as one blank or
 * '?' each, a blank per character before the caret (UTF-8 counted
 * once), a line over 120 bytes as a window around the column. */
void diag_show_line(StrBuf *b, const char *p, size_t n, int column);
void diag_init(Diag *d);
void diag_free(Diag *d);
void diag_clear(Diag *d);
/* Formats "name:line:col: level: msg" plus the source line and a caret when
 * the source is known. A NULL file gives "error: msg". */
void diag_report(Diag *d, DiagLevel lv, const SrcFile *f, SrcLoc loc,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#define diag_error(d, f, loc, ...) diag_report(d, DIAG_ERROR, f, loc, __VA_ARGS__)
#define diag_warning(d, f, loc, ...) \
	diag_report(d, DIAG_WARNING, f, loc, __VA_ARGS__)
const char *diag_text(Diag *d);

#endif
