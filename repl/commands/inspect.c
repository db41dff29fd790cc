/* inspect.c - commands that look without touching: list, info, stats. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "passes/cost.h"
#include "print.h"

enum {
	INFO_MAX_USERS = 16, /* list this many users, then a count */
	INFO_MAX_CONST = 64, /* constant elements shown by info */
	LIST_MAX_WIDTH = 40, /* longer names push their line out */
};

/* --- list --- */

static bool matches(const char *pat, const char *text)
{
	if (strpbrk(pat, "*?["))
		return fnmatch(pat, text, 0) == 0;
	return strstr(text, pat) != NULL;
}

static bool instr_matches(const HloInstr *ins, const char *pat)
{
	return !pat || matches(pat, ins->name) ||
	       matches(pat, hlo_opcode_name(ins->op));
}

static int clamp_width(int w, int k)
{
	if (k > LIST_MAX_WIDTH)
		k = LIST_MAX_WIDTH;
	return k > w ? k : w;
}

/* Column widths for the name and opcode of the matching instructions. */
static void list_widths(const HloComp *c, const char *pat, int *wn, int *wo)
{
	*wn = *wo = 0;
	for (int i = 0; i < c->n; i++) {
		const HloInstr *ins = c->instrs[i];
		if (!instr_matches(ins, pat))
			continue;
		*wn = clamp_width(*wn, (int)strlen(ins->name));
		*wo = clamp_width(*wo, (int)strlen(hlo_opcode_name(ins->op)));
	}
}

static void list_instrs(Session *s, const HloComp *c, const char *pat)
{
	int wn, wo, shown = 0;
	list_widths(c, pat, &wn, &wo);
	StrBuf b;
	sb_init(&b);
	for (int i = 0; i < c->n; i++) {
		const HloInstr *ins = c->instrs[i];
		if (!instr_matches(ins, pat))
			continue;
		sb_clear(&b);
		if (ins->shape)
			shape_print(&b, ins->shape, false);
		fprintf(s->out, "%-*s  %-*s  %s\n", wn, ins->name, wo,
			hlo_opcode_name(ins->op), sb_text(&b));
		shown++;
	}
	sb_free(&b);
	char q[80];
	if (!shown && pat)
		fprintf(s->out, "no instruction matches '%s'\n",
			repl_quote(q, sizeof q, pat, strlen(pat)));
	else if (!shown)
		fprintf(s->out, "no instructions in %s\n", c->name);
}

static void list_comps(Session *s, const HloModule *m)
{
	int w = 0;
	for (int i = 0; i < m->ncomps; i++)
		w = clamp_width(w, (int)strlen(m->comps[i]->name));
	for (int i = 0; i < m->ncomps; i++) {
		const HloComp *c = m->comps[i];
		fprintf(s->out, "%-*s  %d instruction%s%s\n", w, c->name, c->n,
			c->n == 1 ? "" : "s", c == m->entry ? "  (entry)" : "");
	}
}

bool cmd_list(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	const char *pat = a->argc ? a->argv[0] : NULL;
	if (pat && strcmp(pat, "computations") == 0) {
		list_comps(s, s->mod);
		return true;
	}
	if (!s->mod->entry)
		return repl_error(s, "the module has no ENTRY computation");
	/* names are matched without their '%', as print and info take
	 * them with or without */
	list_instrs(s, s->mod->entry, pat ? repl_bare_name(pat) : NULL);
	return true;
}

/* --- info --- */

static void put_shape(StrBuf *b, const Shape *sh)
{
	if (sh)
		shape_print(b, sh, true);
	else
		sb_puts(b, "(none)");
}

static void info_operands(StrBuf *b, const HloInstr *ins)
{
	if (!ins->nops)
		sb_puts(b, "  operands    (none)\n");
	for (int i = 0; i < ins->nops; i++) {
		sb_printf(b, "  operand %-3d %%%s ", i, ins->ops[i]->name);
		put_shape(b, ins->ops[i]->shape);
		sb_putc(b, '\n');
	}
}

static void info_users(StrBuf *b, const HloInstr *ins)
{
	sb_puts(b, "  users      ");
	if (!ins->nusers)
		sb_puts(b, " (none)");
	for (int i = 0; i < ins->nusers && i < INFO_MAX_USERS; i++)
		sb_printf(b, " %%%s", ins->users[i]->name);
	if (ins->nusers > INFO_MAX_USERS)
		sb_printf(b, " ... (%d in all)", ins->nusers);
	sb_putc(b, '\n');
}

static void info_attrs(StrBuf *b, const HloInstr *ins)
{
	if (!ins->nattrs)
		sb_puts(b, "  attributes  (none)\n");
	for (int i = 0; i < ins->nattrs; i++) {
		sb_printf(b, "  attribute   %s=", ins->attrs[i].name);
		print_attr_value(b, &ins->attrs[i]);
		sb_putc(b, '\n');
	}
}

static void info_calls(StrBuf *b, const HloInstr *ins)
{
	int n = hlo_instr_ncalled(ins);
	sb_puts(b, "  calls      ");
	if (!n)
		sb_puts(b, " (none)");
	for (int i = 0; i < n; i++)
		sb_printf(b, " %%%s", hlo_instr_called_at(ins, i)->name);
	sb_putc(b, '\n');
}

/* Opcode-specific facts: a parameter's number, a constant's value. */
static void info_special(StrBuf *b, const HloInstr *ins)
{
	if (ins->op == HLO_PARAMETER)
		sb_printf(b, "  number      %lld\n", (long long)ins->param_no);
	if (ins->op == HLO_CONSTANT && ins->literal) {
		sb_puts(b, "  value       ");
		literal_print(b, ins->literal, INFO_MAX_CONST);
		sb_putc(b, '\n');
	}
	if (ins->op == HLO_WHILE) {
		char how[160];
		long long n = cost_trip_count(ins, how, sizeof how);
		if (n >= 0)
			sb_printf(b, "  trips       %lld (%s)\n", n, how);
		else
			sb_puts(b, "  trips       not known (no known_trip_count "
				   "in its backend_config, no counter from a "
				   "constant stepped by a constant and compared "
				   "with one)\n");
	}
}

static void info_location(StrBuf *b, const HloInstr *ins)
{
	if (ins->loc.line <= 0)
		sb_puts(b, "  written at  (made by the compiler)\n");
	else
		sb_printf(b, "  written at  line %d, column %d\n",
			  ins->loc.line, ins->loc.col);
}

static void info_text(StrBuf *b, const HloInstr *ins)
{
	const HloComp *c = ins->parent;
	sb_printf(b, "%%%s in computation %s%s\n", ins->name, c->name,
		  c->is_entry ? " (entry)" : "");
	sb_printf(b, "  opcode      %s%s\n", hlo_opcode_name(ins->op),
		  c->root == ins ? " (root)" : "");
	sb_puts(b, "  shape       ");
	put_shape(b, ins->shape);
	sb_putc(b, '\n');
	info_special(b, ins);
	info_operands(b, ins);
	info_users(b, ins);
	info_attrs(b, ins);
	info_calls(b, ins);
	info_location(b, ins);
}

bool cmd_info(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	const char *name = a->argv[0];
	HloInstr *ins = repl_find_instr(s->mod, name);
	if (!ins) {
		char q[80];
		return repl_error(s, "no instruction named '%s'",
				  repl_quote(q, sizeof q, name, strlen(name)));
	}
	StrBuf b;
	sb_init(&b);
	info_text(&b, ins);
	if (b.oom) {
		sb_free(&b);
		return repl_error(s, "out of memory");
	}
	fwrite(sb_str(&b), 1, b.len, s->out);
	sb_free(&b);
	return true;
}

/* --- stats --- */

static int count_fusions(const HloModule *m)
{
	int n = 0;
	for (int i = 0; i < m->ncomps; i++)
		for (int j = 0; j < m->comps[i]->n; j++)
			n += m->comps[i]->instrs[j]->op == HLO_FUSION;
	return n;
}

const char *const cmd_stat_names[NSTATS] = {
	[STAT_INSTRUCTIONS] = "instructions",
	[STAT_COMPUTATIONS] = "computations",
	[STAT_FUSIONS] = "fusions",
	[STAT_KERNELS] = "kernels",
	[STAT_KERNELS_ALL] = "kernels_all",
};

void cmd_module_stats(const HloModule *m, int out[NSTATS])
{
	out[STAT_INSTRUCTIONS] = hlo_module_instr_count(m);
	out[STAT_COMPUTATIONS] = m->ncomps;
	out[STAT_FUSIONS] = count_fusions(m);
	out[STAT_KERNELS] = hlo_module_kernels(m);
	out[STAT_KERNELS_ALL] = hlo_module_kernels_all(m);
}

bool cmd_stats(Session *s, const CmdArgs *a)
{
	(void)a;
	if (!repl_need_module(s))
		return false;
	int v[NSTATS];
	cmd_module_stats(s->mod, v);
	fputs("stats:", s->out);
	for (int i = 0; i < NSTATS; i++)
		fprintf(s->out, " %s=%d", cmd_stat_names[i], v[i]);
	fputc('\n', s->out);
	return true;
}
