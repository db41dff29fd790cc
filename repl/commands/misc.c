/* misc.c - session commands: help, quit. */
#include <string.h>

#include "commands.h"

static int synopsis_width(const Command *t, int n)
{
	int w = 0;
	for (int i = 0; i < n; i++) {
		int k = (int)strlen(t[i].synopsis);
		w = k > w ? k : w;
	}
	return w;
}

/* Was group g already printed by a command before index i? */
static bool group_seen(const Command *t, int i, const char *g)
{
	for (int j = 0; j < i; j++)
		if (strcmp(t[j].group, g) == 0)
			return true;
	return false;
}

static void list_group(Session *s, const Command *t, int n, const char *g,
		       int w)
{
	fprintf(s->out, "%s:\n", g);
	for (int i = 0; i < n; i++)
		if (strcmp(t[i].group, g) == 0)
			fprintf(s->out, "  %-*s  %s\n", w, t[i].synopsis,
				t[i].summary);
}

/* Lines that are not commands, shown under the table in `help`. */
static const char *const other_lines[][2] = {
	{"name = [shape] op(...)",
	 "Add an instruction to the entry computation."},
	{"HloModule ... | name {", "Load the module typed up to its '}'."},
	{"# text", "A comment (also after a command's arguments or typed HLO)."},
};

static void list_commands(Session *s)
{
	int n;
	const Command *t = cmd_table(&n);
	int w = synopsis_width(t, n);
	int nother = (int)(sizeof other_lines / sizeof other_lines[0]);
	for (int i = 0; i < nother; i++) {
		int k = (int)strlen(other_lines[i][0]);
		w = k > w ? k : w;
	}
	for (int i = 0; i < n; i++)
		if (!group_seen(t, i, t[i].group))
			list_group(s, t, n, t[i].group, w);
	fputs("Other lines:\n", s->out);
	for (int i = 0; i < nother; i++)
		fprintf(s->out, "  %-*s  %s\n", w, other_lines[i][0],
			other_lines[i][1]);
	fputs("A unique prefix runs a command ('st' is stats). 'help CMD' "
	      "explains one.\n",
	      s->out);
}

static void explain(Session *s, const Command *c)
{
	fprintf(s->out, "Usage: %s\n%s\n\n%s", c->synopsis, c->summary,
		c->help);
}

bool cmd_help(Session *s, const CmdArgs *a)
{
	if (a->argc == 0) {
		list_commands(s);
		return true;
	}
	const Command *c = cmd_lookup(s, a->argv[0]);
	if (!c)
		return false;
	explain(s, c);
	return true;
}

bool cmd_quit(Session *s, const CmdArgs *a)
{
	(void)a;
	s->quit = true;
	return true;
}
