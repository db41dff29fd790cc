/* learn.c - (being written) */
#include "commands.h"

bool cmd_example(Session *s, const CmdArgs *a)
{
	(void)a;
	return repl_error(s, "'example' is not built yet");
}

bool cmd_explain(Session *s, const CmdArgs *a)
{
	(void)a;
	return repl_error(s, "'explain' is not built yet");
}

void cmd_complete_examples(const Session *s, const char *prefix,
			   CmdMatches *out)
{
	(void)s, (void)prefix, (void)out;
}

void cmd_complete_explain(const Session *s, const char *prefix,
			  CmdMatches *out)
{
	(void)s, (void)prefix, (void)out;
}
