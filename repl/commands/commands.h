/* commands.h - the command table and the handlers it points to.
 *
 * One record per command drives dispatch, `help`, usage errors and tab
 * completion; adding a command is one record plus its handler. */
#ifndef XR_COMMANDS_H
#define XR_COMMANDS_H
#include <stdbool.h>
#include <stddef.h>

#include "session.h"

typedef struct Command Command;

/* The words after the command name. rest is the raw text after the name
 * (leading blanks skipped) for commands such as echo that take it as is. */
typedef struct CmdArgs {
	int argc;
	char **argv;
	const char *rest;
	const Command *cmd;
} CmdArgs;

/* Completion candidates collected for one word (malloc'd strings). */
typedef struct CmdMatches {
	char **v;
	int n, cap;
} CmdMatches;

typedef bool (*CmdRun)(Session *s, const CmdArgs *a);
/* Adds candidates starting with prefix. NULL in the table: file names. */
typedef void (*CmdComplete)(const Session *s, const char *prefix,
			    CmdMatches *out);

struct Command {
	const char *name;
	const char *synopsis; /* "load PATH": the usage line */
	const char *summary;  /* one line for `help` */
	const char *help;     /* longer text with an example, for `help CMD` */
	const char *group;    /* heading in `help` */
	int min_args, max_args; /* max_args < 0: no limit */
	CmdRun run;
	CmdComplete complete;
};

/* --- table.c --- */
const Command *cmd_table(int *n);
/* The command spelled exactly so (not a prefix), or NULL. */
const Command *cmd_find_exact(const char *name, size_t n);
/* Exact name or unique prefix, silently; NULL if none. */
const Command *cmd_find(const char *name, size_t n);
/* Exact name or unique prefix; reports unknown or ambiguous names. */
const Command *cmd_lookup(Session *s, const char *name);
/* Runs one command line: lookup by unique prefix, argument count check,
 * handler. Returns false when the command failed. */
bool cmd_execute(Session *s, const char *line);
/* Does line run `expect` (by its name or a unique prefix)? */
bool cmd_is_expect(const char *line);
/* Candidates for the word `prefix` that starts at byte `start` of line.
 * Returns false when file names are what fits there. */
bool cmd_complete_line(const Session *s, const char *line, int start,
		       const char *prefix, CmdMatches *out);
void cmd_matches_add(CmdMatches *m, const char *s);
void cmd_matches_free(CmdMatches *m);
void cmd_complete_none(const Session *s, const char *prefix, CmdMatches *out);
void cmd_complete_commands(const Session *s, const char *prefix,
			   CmdMatches *out);
/* Computation and instruction names (print). */
void cmd_complete_names(const Session *s, const char *prefix, CmdMatches *out);
/* Instruction names of every computation (info). */
void cmd_complete_instrs(const Session *s, const char *prefix, CmdMatches *out);
/* "computations" and the entry's instruction names (list). */
void cmd_complete_list(const Session *s, const char *prefix, CmdMatches *out);

/* --- module.c --- */
bool cmd_load(Session *s, const CmdArgs *a);
bool cmd_save(Session *s, const CmdArgs *a);
bool cmd_print(Session *s, const CmdArgs *a);
bool cmd_new(Session *s, const CmdArgs *a);

/* --- inspect.c --- */
bool cmd_list(Session *s, const CmdArgs *a);
bool cmd_info(Session *s, const CmdArgs *a);
bool cmd_stats(Session *s, const CmdArgs *a);
/* The counts of the `stats` line, in its order (`expect` checks them). */
typedef enum {
	STAT_INSTRUCTIONS,
	STAT_COMPUTATIONS,
	STAT_FUSIONS,
	STAT_KERNELS,
	STAT_KERNELS_ALL, /* control flow counting what it runs */
	NSTATS
} StatKind;
extern const char *const cmd_stat_names[NSTATS];
void cmd_module_stats(const HloModule *m, int out[NSTATS]);

/* --- run.c --- */
bool cmd_input(Session *s, const CmdArgs *a);
bool cmd_run(Session *s, const CmdArgs *a);
bool cmd_save_result(Session *s, const CmdArgs *a);
bool cmd_check(Session *s, const CmdArgs *a);

/* --- set.c --- */
bool cmd_set(Session *s, const CmdArgs *a);
void cmd_complete_options(const Session *s, const char *prefix,
			  CmdMatches *out);

/* --- scripts.c --- */
bool cmd_echo(Session *s, const CmdArgs *a);
bool cmd_source(Session *s, const CmdArgs *a);
bool cmd_expect(Session *s, const CmdArgs *a);
void cmd_complete_expect(const Session *s, const char *prefix, CmdMatches *out);

/* --- history.c --- */
bool cmd_passes(Session *s, const CmdArgs *a);
bool cmd_pass(Session *s, const CmdArgs *a);
bool cmd_pipeline(Session *s, const CmdArgs *a);
bool cmd_undo(Session *s, const CmdArgs *a);
bool cmd_redo(Session *s, const CmdArgs *a);
bool cmd_history(Session *s, const CmdArgs *a);
bool cmd_diff(Session *s, const CmdArgs *a);
void cmd_complete_passes(const Session *s, const char *prefix, CmdMatches *out);
/* The current history step's number, as `history` shows it. */
int cmd_current_step(const Session *s);
/* A step number from the history (error when there is none). */
bool cmd_parse_step(Session *s, const char *w, int *k);
/* Two steps from n words: none (the previous and the current step), A
 * (A and the current one) or A B. cmd names the command in errors. */
bool cmd_step_pair(Session *s, char *const *w, int n, int *ka, int *kb,
		   const char *cmd);
void cmd_complete_pipelines(const Session *s, const char *prefix,
			    CmdMatches *out);

/* --- fusion.c: the fusion decision log --- */
bool cmd_why(Session *s, const CmdArgs *a);
bool cmd_fusions(Session *s, const CmdArgs *a);
bool cmd_fuse(Session *s, const CmdArgs *a);
/* fused, declined, rule names and instruction names (fusions). */
void cmd_complete_fusions(const Session *s, const char *prefix,
			  CmdMatches *out);

/* --- analysis.c: cost model and buffer assignment --- */
bool cmd_cost(Session *s, const CmdArgs *a);
bool cmd_memory(Session *s, const CmdArgs *a);

/* --- viz.c: pictures of the graph --- */
bool cmd_render(Session *s, const CmdArgs *a);
bool cmd_compare(Session *s, const CmdArgs *a);
bool cmd_report(Session *s, const CmdArgs *a);

/* --- learn.c: built-in examples and explanations --- */
bool cmd_example(Session *s, const CmdArgs *a);
bool cmd_explain(Session *s, const CmdArgs *a);
void cmd_complete_examples(const Session *s, const char *prefix,
			   CmdMatches *out);
void cmd_complete_explain(const Session *s, const char *prefix,
			  CmdMatches *out);

/* --- misc.c --- */
bool cmd_help(Session *s, const CmdArgs *a);
bool cmd_quit(Session *s, const CmdArgs *a);

#endif
