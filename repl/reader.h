/* reader.h - turns an input stream into units the session runs: one
 * command line, one typed instruction (possibly spanning lines), or one
 * multi-line HLO block (`HloModule ...`, `name { ... }`, `ENTRY ...`).
 *
 * Interactive input goes through GNU Readline when it was built in
 * (history in ~/.xla_repl_history, tab completion from the command
 * table); everything else is read with getline, so scripts and pipes
 * behave the same with or without Readline. */
#ifndef XR_READER_H
#define XR_READER_H
#include <stdbool.h>
#include <stdio.h>

#include "strbuf.h"

typedef struct Session Session;

typedef enum {
	UNIT_COMMAND, /* a command line for the command table */
	UNIT_INSTR,   /* "[ROOT] name = ..." for the entry computation */
	UNIT_BLOCK,   /* whole module text */
	UNIT_ERROR,   /* unreadable input; error says why */
} UnitKind;

typedef struct Unit {
	UnitKind kind;
	int line;         /* first line of the unit (for UNIT_ERROR: where) */
	const char *text; /* NUL-terminated, valid until the next read */
	size_t len;
	const char *error; /* UNIT_ERROR message */
} Unit;

/* What a single line is, decided from its first word and its braces. */
typedef enum {
	LINE_BLANK,
	LINE_COMMENT, /* '#' ..., or a line-long HLO comment */
	LINE_COMMAND, /* first word is a command's full name */
	LINE_OTHER,   /* anything else: a command prefix, or junk */
	LINE_INSTR,   /* [ROOT] [%]name = ... */
	LINE_BLOCK,   /* starts an HLO block */
	LINE_MODULE,  /* HloModule header: starts a block too */
} LineKind;

struct Reader {
	FILE *in;
	FILE *prompt_out; /* where prompts go without Readline */
	bool interactive; /* show prompts; ENTRY closes a block at once */
	bool readline;    /* GNU Readline reads the lines */
	int line;         /* lines consumed so far */
	char *buf;        /* getline buffer */
	size_t cap;
	StrBuf cur;       /* the line just read, without its newline */
	StrBuf unit;      /* text of the unit being assembled */
	bool has_pending; /* r->cur was read ahead and pushed back */
	bool eof;         /* input has ended */
	int read_errno;   /* it ended in a read error (not at its end) */
	int start;        /* first line of the unit being assembled */
	int depth;        /* open '{' and '(' in the unit so far */
	int base;         /* depth of the unit up to settled */
	size_t settled;   /* unit offset not inside a slash-star comment */
	bool in_comment;  /* the unit ends inside one (opened after settled) */
	int nlines;       /* lines in the unit so far */
	int nul_line;     /* first line of the unit holding a NUL byte */
	bool hlo;         /* the unit is HLO text (an instruction, a block):
			     a '#' word ends its lines, as a comment */
	char msg[96];
	char *history_path;
};
typedef struct Reader Reader;

/* interactive: prompts and, if built in and in is a terminal, Readline.
 * s is used only for tab completion and may be NULL. */
void repl_reader_init(Reader *r, FILE *in, bool interactive, const Session *s);
void repl_reader_free(Reader *r);
/* Next unit; false at end of input. */
bool repl_read_unit(Reader *r, Unit *u);
LineKind repl_classify_line(const char *s, size_t n);

#endif
