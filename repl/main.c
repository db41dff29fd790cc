/* main.c - xla-repl: command-line options, then the prompt or batch mode.
 *
 * Batch mode (scripts, -e, or stdin that is not a terminal) prints no
 * banner or prompt and stops at the first failing command with status 1;
 * --keep-going runs on but still exits 1. Usage errors exit 2. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "session.h"

#ifndef XR_VERSION
#define XR_VERSION "0.0.0"
#endif

enum { EXIT_USAGE = 2, GO_ON = -1 };

typedef struct Options {
	const char **hlo; /* files loaded as HLO, in order */
	int nhlo;
	const char **scripts; /* .xr files, in order */
	int nscripts;
	StrBuf e; /* -e commands, one per line */
	int ne;
	bool keep_going;
} Options;

typedef enum { OPT_EXPR, OPT_KEEP_GOING, OPT_VERSION, OPT_HELP } OptId;

static const struct {
	const char *name;
	OptId id;
} options[] = {
	{"-e", OPT_EXPR},           {"--keep-going", OPT_KEEP_GOING},
	{"--version", OPT_VERSION}, {"--help", OPT_HELP},
	{"-h", OPT_HELP},
};

static void usage(FILE *f)
{
	fputs("Usage: xla-repl [OPTIONS] [FILE.hlo...] [SCRIPT.xr...]\n"
	      "An XLA-style HLO compiler you can step through.\n"
	      "\n"
	      "  (no file)       interactive prompt on a terminal; commands\n"
	      "                  from stdin (batch) otherwise\n"
	      "  FILE.hlo        load an HLO module first (any name not\n"
	      "                  ending in .xr)\n"
	      "  SCRIPT.xr       run the script in batch mode, then exit\n"
	      "  -e CMD          run CMD (repeatable, in order), then exit\n"
	      "  --keep-going    in batch, run on after a failing command\n"
	      "                  (the exit status is still 1)\n"
	      "  --version       print the version and exit\n"
	      "  --help, -h      print this help and exit\n"
	      "\n"
	      "Exit status: 0 success, 1 a command failed, 2 usage error.\n"
	      "Type 'help' at the prompt for the commands.\n",
	      f);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int find_option(const char *arg)
{
	for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
		if (strcmp(options[i].name, arg) == 0)
			return (int)options[i].id;
	return -1;
}

static void add_file(Options *o, const char *arg)
{
	if (ends_with(arg, ".xr"))
		o->scripts[o->nscripts++] = arg;
	else
		o->hlo[o->nhlo++] = arg;
}

static int bad_usage(const char *what, const char *arg)
{
	fprintf(stderr, "xla-repl: %s '%s'\n", what, arg);
	usage(stderr);
	return EXIT_USAGE;
}

/* Applies option argv[*i]; returns GO_ON or an exit status. */
static int apply_option(Options *o, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	switch (find_option(arg)) {
	case OPT_EXPR:
		if (++*i >= argc)
			return bad_usage("a command must follow", arg);
		sb_printf(&o->e, "%s\n", argv[*i]);
		o->ne++;
		return GO_ON;
	case OPT_KEEP_GOING:
		o->keep_going = true;
		return GO_ON;
	case OPT_VERSION:
		printf("xla-repl %s\n", XR_VERSION);
		return EXIT_SUCCESS;
	case OPT_HELP:
		usage(stdout);
		return EXIT_SUCCESS;
	}
	return bad_usage("unknown option", arg);
}

static int parse_args(int argc, char **argv, Options *o)
{
	memset(o, 0, sizeof *o);
	sb_init(&o->e);
	o->hlo = calloc((size_t)argc, sizeof *o->hlo);
	o->scripts = calloc((size_t)argc, sizeof *o->scripts);
	if (!o->hlo || !o->scripts) {
		fputs("xla-repl: out of memory\n", stderr);
		return EXIT_FAILURE;
	}
	bool files_only = false; /* after "--" */
	for (int i = 1; i < argc; i++) {
		if (!files_only && strcmp(argv[i], "--") == 0) {
			files_only = true;
		} else if (!files_only && argv[i][0] == '-' && argv[i][1]) {
			int rc = apply_option(o, argc, argv, &i);
			if (rc != GO_ON)
				return rc;
		} else {
			add_file(o, argv[i]);
		}
	}
	return GO_ON;
}

static void free_options(Options *o)
{
	free(o->hlo);
	free(o->scripts);
	sb_free(&o->e);
}

static void load_files(Session *s, const Options *o)
{
	for (int i = 0; i < o->nhlo && !s->quit; i++)
		if (!repl_load_path(s, o->hlo[i]))
			repl_note_failure(s);
}

static void run_scripts(Session *s, Options *o)
{
	for (int i = 0; i < o->nscripts && !s->quit; i++)
		repl_run_file(s, o->scripts[i]);
	if (o->ne && !s->quit)
		repl_run_string(s, "-e", sb_str(&o->e), o->e.len);
}

static void banner(void)
{
#ifdef XR_HAVE_READLINE
	const char *how = "";
#else
	const char *how = " (built without Readline)";
#endif
	printf("xla-repl %s%s: an HLO compiler you can step through.\n"
	       "Type 'help' for the commands, 'quit' or Ctrl-D to leave.\n",
	       XR_VERSION, how);
}

static void run_prompt(Session *s)
{
	repl_run_stream(s, stdin, NULL, true);
	if (!s->quit)
		putchar('\n'); /* end of input: leave the shell a fresh line */
}

static int run(Options *o)
{
	Session s;
	repl_session_init(&s, stdout, stderr);
	s.keep_going = o->keep_going;
	bool batch_args = o->nscripts || o->ne;
	s.interactive = !batch_args && isatty(STDIN_FILENO);
	if (s.interactive)
		banner();
	load_files(&s, o);
	if (batch_args)
		run_scripts(&s, o);
	else if (!s.quit && s.interactive)
		run_prompt(&s);
	else if (!s.quit)
		repl_run_stream(&s, stdin, "<stdin>", false);
	int status = s.failures && !s.interactive ? EXIT_FAILURE : 0;
	repl_session_free(&s);
	return status;
}

int main(int argc, char **argv)
{
	/* past the file size limit a write fails (EFBIG, and the file
	 * written whole stays as it was) instead of killing the process */
	signal(SIGXFSZ, SIG_IGN);
	/* a session makes and frees modules (history steps, passes) over
	 * and over */
	arena_keep_freed_memory();
	Options o;
	int rc = parse_args(argc, argv, &o);
	if (rc == GO_ON)
		rc = run(&o);
	free_options(&o);
	fflush(stdout);
	return rc;
}
