/* script.c - runs what the reader yields: scripts, -e text, stdin and the
 * interactive prompt all go through repl_run_reader, so batch and
 * interactive sessions share every rule except prompts and stopping. */
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "reader.h"
#include "session.h"

enum { SOURCE_MAX_DEPTH = 16 };

/* Batch mode without --keep-going stops at the first failure. */
static bool stops_at_failure(const Session *s)
{
	return !s->interactive && !s->keep_going;
}

void repl_note_failure(Session *s)
{
	if (s->source_depth)
		return; /* the sourced script stops; `source` fails outside */
	s->failures++;
	if (stops_at_failure(s))
		s->quit = true;
}

/* A module typed at the prompt is confirmed; in a script it is quiet like
 * any other line that changes the module. */
static bool run_block(Session *s, const Unit *u)
{
	const char *name = s->src_name ? s->src_name : "<stdin>";
	if (!repl_load_text(s, name, u->text, u->len, u->line - 1))
		return false;
	if (s->interactive)
		repl_describe_module(s, NULL);
	return true;
}

static bool run_unit(Session *s, const Unit *u)
{
	switch (u->kind) {
	case UNIT_COMMAND:
		return cmd_execute(s, u->text);
	case UNIT_INSTR:
		return repl_add_instr(s, u->text, u->len, u->line);
	case UNIT_BLOCK:
		return run_block(s, u);
	case UNIT_ERROR:
		break;
	}
	return repl_error(s, "%s", u->error);
}

static void keep_output(Session *s, char *buf, size_t len, int line)
{
	free(s->last_out);
	s->last_out = buf;
	s->last_out_len = len;
	s->last_out_line = line;
}

/* Runs u with s->out captured; its output becomes the last output. */
static bool run_captured(Session *s, const Unit *u)
{
	Capture c = {.real = s->out, .outer = s->capture};
	c.mem = open_memstream(&c.buf, &c.len);
	if (!c.mem) {
		keep_output(s, NULL, 0, u->line); /* out of memory: unknown */
		return run_unit(s, u);
	}
	s->out = c.mem;
	s->capture = &c;
	bool ok = run_unit(s, u);
	repl_flush_out(s);
	s->capture = c.outer;
	s->out = c.real;
	fclose(c.mem);
	keep_output(s, c.buf, c.len, u->line);
	return ok;
}

/* The first line of u's text, quoted for a message. */
static const char *unit_head(char *buf, size_t cap, const Unit *u)
{
	const char *nl = memchr(u->text, '\n', u->len);
	return repl_quote(buf, cap, u->text,
			  nl ? (size_t)(nl - u->text) : u->len);
}

/* `expect` lines check what is around them: they are neither the command
 * an `expect error` waits for nor the one `expect output` looks at. A
 * command that an `expect error` waits for must fail; its failure is
 * then no failure of the script. */
static bool run_checked(Session *s, const Unit *u)
{
	if (u->kind == UNIT_COMMAND && cmd_is_expect(u->text))
		return run_unit(s, u);
	int want_error = s->expect_error;
	s->expect_error = 0;
	bool ok = run_captured(s, u);
	if (!want_error)
		return ok;
	if (!ok)
		return true; /* failed as expected: reported, not counted */
	char q[80];
	return repl_expect_failed(s, want_error,
				  "line %d ('%s') succeeded, but an error was "
				  "expected",
				  u->line, unit_head(q, sizeof q, u));
}

/* An `expect error` with no command after it fails at the end. */
static bool no_pending_expect(Session *s)
{
	int line = s->expect_error;
	s->expect_error = 0;
	return !line || repl_expect_failed(
				s, line, "no command followed 'expect error'");
}

bool repl_run_reader(Session *s, Reader *r)
{
	bool ok = true, stopped = false;
	Unit u;
	while (!stopped && !s->quit && repl_read_unit(r, &u)) {
		s->line = u.line;
		if (u.kind == UNIT_ERROR) {
			s->unit_text = NULL;
		} else {
			const char *nl = memchr(u.text, '\n', u.len);
			s->unit_text = u.text;
			s->unit_len = nl ? (size_t)(nl - u.text) : u.len;
		}
		bool unit_ok = run_checked(s, &u);
		s->unit_text = NULL; /* (the reader's: gone at the next read) */
		repl_flush_out(s);
		if (!unit_ok) {
			ok = false;
			repl_note_failure(s);
			stopped = stops_at_failure(s);
		}
	}
	if (r->read_errno && !stopped && !s->quit) {
		repl_error(s, "cannot read %s: %s",
			   s->src_name ? s->src_name : "the input",
			   strerror(r->read_errno));
		ok = false;
		repl_note_failure(s);
		stopped = stops_at_failure(s);
	}
	if (!stopped && !s->quit && !no_pending_expect(s)) {
		ok = false;
		repl_note_failure(s);
	}
	s->expect_error = 0;
	return ok;
}

bool repl_run_stream(Session *s, FILE *in, const char *name, bool interactive)
{
	/* Save the caller's position: a script may run inside another. */
	const char *old_name = s->src_name;
	int old_line = s->line;
	const char *old_text = s->unit_text;
	size_t old_len = s->unit_len;
	bool old_inter = s->interactive;
	s->src_name = name;
	s->interactive = interactive;
	Reader r;
	repl_reader_init(&r, in, interactive, s);
	bool ok = repl_run_reader(s, &r);
	repl_reader_free(&r);
	s->src_name = old_name;
	s->line = old_line;
	s->unit_text = old_text;
	s->unit_len = old_len;
	s->interactive = old_inter;
	return ok;
}

/* fopen for reading, refusing a directory (which fopen opens, and which
 * then reads as empty: a script of no commands) with EISDIR. */
static FILE *open_script(const char *path)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	return f;
}

bool repl_run_file(Session *s, const char *path)
{
	FILE *f = open_script(path);
	if (!f) {
		repl_error(s, "cannot open script '%s': %s", path,
			   strerror(errno));
		repl_note_failure(s);
		return false;
	}
	bool ok = repl_run_stream(s, f, path, false);
	fclose(f);
	return ok;
}

bool repl_run_string(Session *s, const char *name, const char *text, size_t len)
{
	if (len == 0)
		return true; /* fmemopen refuses an empty buffer */
	FILE *f = fmemopen((void *)text, len, "r");
	if (!f) {
		repl_error(s, "cannot read commands: %s", strerror(errno));
		repl_note_failure(s);
		return false;
	}
	bool ok = repl_run_stream(s, f, name, false);
	fclose(f);
	return ok;
}

bool repl_source_file(Session *s, const char *path)
{
	if (s->source_depth >= SOURCE_MAX_DEPTH)
		return repl_error(s,
				  "cannot source '%s': scripts nested more "
				  "than %d deep (does a script source "
				  "itself?)",
				  path, SOURCE_MAX_DEPTH);
	FILE *f = open_script(path);
	if (!f)
		return repl_error(s, "cannot open script '%s': %s", path,
				  strerror(errno));
	s->source_depth++;
	bool ok = repl_run_stream(s, f, path, false);
	s->source_depth--;
	fclose(f);
	if (!ok)
		repl_error(s, "sourced script '%s' failed", path);
	return ok;
}
