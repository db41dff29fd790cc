/* fusion.c - (being written) */
#include "commands.h"

bool cmd_why(Session *s, const CmdArgs *a)
{
	(void)a;
	return repl_error(s, "'why' is not built yet");
}

bool cmd_fusions(Session *s, const CmdArgs *a)
{
	(void)a;
	return repl_error(s, "'fusions' is not built yet");
}

bool cmd_fuse(Session *s, const CmdArgs *a)
{
	(void)a;
	return repl_error(s, "'fuse' is not built yet");
}

