/* analysis.c - (being written) */
#include "commands.h"

bool cmd_cost(Session *s, const CmdArgs *a)
{
	(void)a;
	return repl_error(s, "'cost' is not built yet");
}

bool cmd_memory(Session *s, const CmdArgs *a)
{
	(void)a;
	return repl_error(s, "'memory' is not built yet");
}

