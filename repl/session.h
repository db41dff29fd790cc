/* session.h - the state one REPL session carries between commands.
 *
 * Everything a command may touch is here and passed explicitly: the
 * current module, where output goes, and where the command came from so
 * errors can point at it. Two sessions can live side by side, and a test
 * can hand one memory streams (fmemopen, tmpfile). */
#ifndef XR_SESSION_H
#define XR_SESSION_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "hlo.h"
#include "literal.h"

typedef struct Reader Reader;

/* One command's stdout being captured (for `expect output`): it is
 * written to mem and passed on to real as it goes, so the transcript is
 * the same as without capturing. A command that runs commands (`source`)
 * nests a capture inside its own. */
typedef struct Capture {
	FILE *mem; /* open_memstream over buf/len */
	char *buf;
	size_t len;
	size_t passed; /* bytes of buf already written to real */
	FILE *real;    /* the output before capturing began */
	struct Capture *outer;
} Capture;

/* A value kept between commands (an input, the last result): its own
 * arena, so replacing one frees it. */
typedef struct Value {
	Arena arena;
	Literal *lit;  /* NULL: none */
	char desc[96]; /* where it came from: "random (seed 3)", "x.npy" */
} Value;

/* One version of the module in the history and what made it: "load
 * x.hlo", "new", a typed line, "pass cse". The current step's module is
 * the session's current module (s->mod): commands never change a module
 * in place, they commit a new step. A step a pass made inside a longer
 * command (a pipeline's passes but the last) keeps no module: it is made
 * again when needed by replaying its pass on the step before it, and
 * kept from then on (passes are deterministic; unit.repl_history checks
 * that the replay is exact). */
struct Pass;
typedef struct HistStep {
	HloModule *mod; /* NULL: not kept; see repl_history_module */
	/* How to make it again: the pass and the options it ran with (NULL
	 * pass: the module is always kept). */
	const struct Pass *pass;
	bool fusion_off;
	int64_t fold_max_elems;
	int instrs, kernels; /* its counts, for `history` */
	char label[80];
	unsigned long serial; /* unique in the session: a step number is
				 reused after undo and a new step, this
				 is not */
	bool starts; /* a module that does not come from the step before
			(load, new, example, a typed block) */
	/* The fusion passes' decisions as they stand after this step,
	 * when a fusion pass made it (repl_fusion_log_at): log_step is the
	 * step that made them (another when the step that did was dropped
	 * from the history), log_base the step the first of those passes
	 * started from. NULL: none. */
	struct FusionLog *log;
	int log_step, log_base;
	/* A typed instruction line made it: the line (malloc'd) and where
	 * it was read, to add it again when the step keeps no module. */
	char *text;
	size_t text_len;
	int text_line;
} HistStep;

/* A step made by a pass, for repl_commit_passes. */
typedef struct PassStep {
	const struct Pass *pass;
	char label[80];
	bool fusion_off;
	int64_t fold_max_elems;
	int instrs, kernels; /* the module's counts after the pass */
} PassStep;

/* Steps kept; older ones are dropped (their numbers are not reused). */
enum { REPL_HISTORY_MAX = 200 };

typedef struct Session {
	HloModule *mod; /* current module; NULL until load/new/typed line */
	/* Module versions: hist[0..nhist), the current one hist[hist_cur].
	 * Step numbers count from the session's first step, so step k is
	 * hist[k - hist_dropped]. */
	HistStep *hist;
	int nhist, cap_hist, hist_cur, hist_dropped;
	FILE *out; /* normal output */
	FILE *err; /* errors and diagnostics */
	/* Where the current command came from: a script path, "<stdin>" or
	 * "-e"; NULL interactively (errors then carry no location). */
	const char *src_name;
	int line;         /* line of the current command in src_name */
	/* The first line of the unit being run (not NUL-terminated:
	 * unit_len bytes), for the caret under an error about it; NULL
	 * when there is none (between units, a reader's own error). */
	const char *unit_text;
	size_t unit_len;
	/* The column the next error points at (from 1), set just before
	 * it where the message does not say (repl_error_col); 0: find it */
	int err_col;
	bool interactive; /* prompt, banner, echo of typed instructions */
	bool keep_going;  /* --keep-going: a failure does not stop a batch */
	bool quit;        /* set by quit/exit or by a failure in batch */
	int failures;     /* failed commands so far */
	/* Running: inputs by entry parameter number, the last result. */
	Value *inputs;
	int ninputs;
	Value result;
	char result_backend[16];
	int64_t max_memory;       /* `set max-memory`: buffers of one run */
	volatile int interrupted; /* set by Ctrl-C during a run */
	/* Scripts as tests: what `expect` looks at. */
	Capture *capture; /* innermost capture of s->out; NULL: none */
	char *last_out;   /* stdout of the last command (not `expect`) */
	size_t last_out_len;
	int last_out_line; /* its line; 0: no command yet */
	int expect_error;  /* line of a pending `expect error`; 0: none */
	int source_depth;  /* scripts being sourced, one inside another */
	/* Options (`set`) that passes, analyses and pictures read. */
	bool fusion_off;        /* `set fusion off`: the fusion pass declines */
	bool fusions_collapsed; /* `set fusions collapsed`: one node each */
	bool bodies_summarised; /* `set bodies summary`: loop bodies drawn
				   as one line, not clusters */
	bool pass_log;          /* `set pass-log on`: `pass` prints each
				   rewrite */
	int node_cap;           /* `set node-cap N`: nodes a picture draws
				   before falling back; 0: VIZ_DEFAULT */
	/* `why` and `fuse`: what 'pass fusion' decides on the current
	 * module, from a trial run on a copy (commands/fusion.c), kept for
	 * the step of serial trial_serial with fusion switched as
	 * trial_off; NULL: none kept. */
	struct FusionLog *trial_log;
	unsigned long trial_serial;
	bool trial_off;
	double cpu_gbps, cpu_gflops; /* roofline machines for `cost` */
	double gpu_gbps, gpu_gflops;
	unsigned long next_serial;
} Session;

void repl_session_init(Session *s, FILE *out, FILE *err);
void repl_session_free(Session *s);
/* Makes m the current module (taking ownership) as a new history step
 * labelled label, dropping the steps that `undo` left for `redo`. On
 * failure (out of memory) m is freed, an error printed and nothing
 * changes. */
bool repl_commit_module(Session *s, HloModule *m, const char *label);
/* Commits n steps made from the current one by passes applied one after
 * another; m (taken) is the last one's module, the others keep none.
 * On failure m is freed, an error printed and nothing changes. */
bool repl_commit_passes(Session *s, HloModule *m, const PassStep *v, int n);
/* repl_commit_module for a module that does not come from the current
 * one (load, new, example, a typed block): what was learnt about the
 * old one (the fusion log) is dropped. */
bool repl_start_module(Session *s, HloModule *m, const char *label);
/* Makes history step k (a number as `history` shows it) current. False
 * (error printed) when its module cannot be made again (out of memory). */
bool repl_history_goto(Session *s, int k);
/* The step numbered k, or NULL when there is none (never was, or
 * dropped). Its mod may be NULL: use repl_history_module. */
const HistStep *repl_history_step(const Session *s, int k);
/* The module of step k, made again by replay when it was not kept; NULL
 * (error printed) when there is no such step or out of memory. */
const HloModule *repl_history_module(Session *s, int k);
/* The fusion passes' log that answers at step k: the log of the latest
 * step at or before k that has one, unless a step that started another
 * module comes first. *at gets the step that made it, *base the step its
 * first fusion pass started from (either may be NULL). NULL: none. */
struct FusionLog *repl_fusion_log_at(const Session *s, int k, int *at,
				     int *base);
/* repl_fusion_log_at the current step. */
struct FusionLog *repl_fusion_log(const Session *s);
/* Whether a step after the current one (that `redo` reaches) has a
 * log: the last fusion pass's step was undone. */
bool repl_fusion_log_undone(const Session *s);
/* Step k keeps log (taken), with the step its first fusion pass
 * started from. */
void repl_keep_fusion_log(Session *s, int k, struct FusionLog *log, int base);
/* Replaces v's contents by a copy of lit (NULL clears it). */
bool repl_value_set(Value *v, const Literal *lit, const char *desc);
void repl_value_clear(Value *v);
/* An empty module with an empty ENTRY computation "main". */
HloModule *repl_new_module(const char *name);

/* "FILE:LINE:COL: error: MESSAGE" in batch, then the line run and a
 * caret under column COL (repl_error_col); "error: MESSAGE"
 * interactively. Always returns false so handlers can
 * `return repl_error(...)`. */
bool repl_error(Session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool repl_verror(Session *s, const char *fmt, va_list ap);
/* The column (from 1) an error message msg (mlen bytes) points at in
 * line (len bytes): the first argument of the line that msg quotes
 * ('NAME'), else the line's first word (the command). */
int repl_error_col(const char *line, size_t len, const char *msg,
		   size_t mlen);
/* line (len bytes) and under it a caret at col, as core's diagnostics
 * show a line of HLO text (diag_show_line). */
void repl_print_caret(FILE *f, const char *line, size_t len, int col);
/* "FILE:LINE: expectation failed: MESSAGE" for a failed `expect` at
 * line (the current line when 0). Always returns false. */
bool repl_expect_failed(Session *s, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Passes captured output on and flushes it, so that what goes to s->err
 * next follows everything printed before it. */
void repl_flush_out(Session *s);
/* Prints a core Diag as it is (it already carries its locations). */
void repl_print_diag(Session *s, Diag *d);
/* Quotes untrusted text for an error message (cap >= 16): control bytes
 * escaped, long text cut, so junk cannot flood or garble a terminal. */
const char *repl_quote(char *buf, size_t cap, const char *s, size_t n);
/* Error "no module ..." unless a module is loaded. */
bool repl_need_module(Session *s);
/* A whole number from lo to hi written as w (digits, a '-' only when lo
 * is negative); false, saying nothing, otherwise. */
bool repl_parse_int(const char *w, long lo, long hi, int *out);
/* Instruction by name ('%' optional): the entry computation first, then
 * the others in definition order. NULL if there is none. */
HloInstr *repl_find_instr(const HloModule *m, const char *name);
/* "512 bytes", "3.2 KiB", "1.5 GiB". */
const char *repl_bytes(char *buf, size_t cap, int64_t bytes);
/* Strips the '%' sigil that XLA's long form puts before names. */
const char *repl_bare_name(const char *name);
/* Does path end in ext (".npy"), in any case, with a name before it? As
 * render reads its extensions. */
bool repl_has_ext(const char *path, const char *ext);

/* Parses and verifies text as a whole module and makes it current; on any
 * error prints the diagnostics and keeps the old module. line_offset is
 * the line before the text's first line in file name. */
bool repl_load_text(Session *s, const char *name, const char *text, size_t len,
		    int line_offset);
/* One line saying which module was loaded (from: a file name or NULL). */
void repl_describe_module(Session *s, const char *from);
/* load PATH: reads, parses and verifies a file, then reports it. */
bool repl_load_path(Session *s, const char *path);
/* Reads a file into a malloc'd NUL-terminated buffer; false with errno. */
bool repl_read_file(const char *path, char **text, size_t *len);
/* Adds one typed instruction ("[ROOT] name = ...") to the entry
 * computation; the module is unchanged on any error. */
bool repl_add_instr(Session *s, const char *text, size_t len, int line);

/* Counts a failed command; in batch without --keep-going it also ends
 * the session. Inside a sourced script it does neither: the script
 * stops, and `source` fails in its caller instead. */
void repl_note_failure(Session *s);
/* Runs every unit the reader yields until EOF or quit. Returns false when
 * a unit failed. */
bool repl_run_reader(Session *s, Reader *r);
/* Runs a stream as the source called name (NULL: interactive). */
bool repl_run_stream(Session *s, FILE *in, const char *name, bool interactive);
/* Runs a script file (batch). */
bool repl_run_file(Session *s, const char *path);
/* `source PATH`: runs a script inside the current one, with its own file
 * name and line numbers; false when it cannot be opened, is nested too
 * deeply, or a command in it failed. */
bool repl_source_file(Session *s, const char *path);
/* Runs text as a script called name. */
bool repl_run_string(Session *s, const char *name, const char *text,
		     size_t len);

#endif
