/* viz.c - (being written) */
#include "commands.h"

bool cmd_render(Session *s, const CmdArgs *a)
{
	(void)a;
	return repl_error(s, "'render' is not built yet");
}

bool cmd_compare(Session *s, const CmdArgs *a)
{
	(void)a;
	return repl_error(s, "'compare' is not built yet");
}

bool cmd_report(Session *s, const CmdArgs *a)
{
	(void)a;
	return repl_error(s, "'report' is not built yet");
}

