/* script.c - runs what the reader yields: scripts, -e text, stdin and the
 * interactive prompt all go through repl_run_reader, so batch and
 * interactive sessions share every rule except prompts and stopping. */
#include <errno.h>
#include <string.h>

#include "commands.h"
#include "reader.h"
#include "session.h"

void repl_note_failure(Session *s)
{
	s->failures++;
	if (!s->interactive && !s->keep_going)
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

bool repl_run_reader(Session *s, Reader *r)
{
	bool ok = true;
	Unit u;
	while (!s->quit && repl_read_unit(r, &u)) {
		s->line = u.line;
		if (!run_unit(s, &u)) {
			ok = false;
			repl_note_failure(s);
		}
		fflush(s->out);
	}
	return ok;
}

bool repl_run_stream(Session *s, FILE *in, const char *name, bool interactive)
{
	/* Save the caller's position: a script may run inside another. */
	const char *old_name = s->src_name;
	int old_line = s->line;
	bool old_inter = s->interactive;
	s->src_name = name;
	s->interactive = interactive;
	Reader r;
	repl_reader_init(&r, in, interactive, s);
	bool ok = repl_run_reader(s, &r);
	repl_reader_free(&r);
	s->src_name = old_name;
	s->line = old_line;
	s->interactive = old_inter;
	return ok;
}

bool repl_run_file(Session *s, const char *path)
{
	FILE *f = fopen(path, "r");
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
