/* module.c - commands that replace, write or show the whole module:
 * load, save, print, new. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "commands.h"
#include "fileio.h"
#include "print.h"

/* `print` elides big constants; `save` never does. */
enum { PRINT_MAX_CONST_ELEMS = 64 };

bool cmd_load(Session *s, const CmdArgs *a)
{
	return repl_load_path(s, a->argv[0]);
}

bool cmd_save(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	/* Only `new` leaves a module that would not load back. */
	if (s->mod->entry && s->mod->entry->n == 0)
		return repl_error(s, "module '%s' has no instructions yet",
				  s->mod->name);
	StrBuf b;
	sb_init(&b);
	print_module(&b, s->mod, &print_opts_default);
	const char *path = a->argv[0];
	bool ok = !b.oom && file_write_whole(path, sb_str(&b), b.len);
	if (!ok)
		repl_error(s, "cannot write '%s': %s", path,
			   strerror(b.oom ? ENOMEM : errno));
	else
		fprintf(s->out, "saved module '%s' to %s\n", s->mod->name,
			path);
	sb_free(&b);
	return ok;
}

/* A computation by that name, else an instruction (entry first). */
static bool print_named(Session *s, StrBuf *b, const char *name,
			const PrintOpts *o)
{
	const char *bare = repl_bare_name(name);
	HloComp *c = hlo_module_find_comp(s->mod, bare);
	if (c) {
		print_comp(b, c, o);
		return true;
	}
	HloInstr *ins = repl_find_instr(s->mod, bare);
	if (!ins) {
		char q[80];
		return repl_error(s, "no computation or instruction named '%s'",
				  repl_quote(q, sizeof q, name, strlen(name)));
	}
	print_instr(b, ins, o);
	return true;
}

bool cmd_print(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	PrintOpts o = print_opts_default;
	o.max_const_elems = PRINT_MAX_CONST_ELEMS;
	StrBuf b;
	sb_init(&b);
	bool ok = true;
	if (a->argc == 0)
		print_module(&b, s->mod, &o);
	else
		ok = print_named(s, &b, a->argv[0], &o);
	if (ok && b.len && b.s[b.len - 1] != '\n')
		sb_putc(&b, '\n');
	if (ok && b.oom)
		ok = repl_error(s, "out of memory");
	if (ok)
		fwrite(sb_str(&b), 1, b.len, s->out);
	sb_free(&b);
	return ok;
}

/* Module names end up in `HloModule NAME`: keep them parseable. */
/* A name the HLO parser reads back after "HloModule": a letter or '_'
 * first. */
static bool valid_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return false;
	return true;
}

bool cmd_new(Session *s, const CmdArgs *a)
{
	const char *name = a->argc ? a->argv[0] : "module";
	if (!valid_name(name)) {
		char q[80];
		return repl_error(s,
				  "invalid module name '%s' (a letter or '_', "
				  "then letters, digits, '_', '.' and '-')",
				  repl_quote(q, sizeof q, name, strlen(name)));
	}
	HloModule *m = repl_new_module(name);
	if (!m)
		return repl_error(s, "out of memory");
	char label[80];
	snprintf(label, sizeof label, "new %s", name);
	if (!repl_start_module(s, m, label))
		return false;
	fprintf(s->out, "new module '%s'\n", name);
	return true;
}
