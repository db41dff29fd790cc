/* dce.c - dead code elimination.
 *
 * Does: removes instructions that nothing uses, that are not their
 * computation's root and that have no side effects (pass_has_side_effect:
 * XF_SIDE opcodes such as custom-call, infeed, outfeed, send/recv, rng;
 * collectives; async pairs; and anything calling a computation that
 * holds one). Parameters always stay (they are the signature). Removing
 * one instruction may make its operands dead, so it works through a
 * worklist. Then removes every computation that is no longer reachable
 * from the entry through called computations (never the entry).
 * Requires: a verified module (use lists exact, roots set).
 * Invalidates: instruction positions, computation list, marks. */
#include <stdlib.h>

#include "passes.h"

static bool removable(const HloInstr *ins)
{
	return ins->parent && ins->nusers == 0 && ins->parent->root != ins &&
	       ins->op != HLO_PARAMETER && !pass_has_side_effect(ins);
}

/* Removes dead instructions of c; returns how many. */
static int dce_comp(HloComp *c)
{
	int cap = c->n + 1, sp = 0, removed = 0;
	HloInstr **work = malloc(sizeof *work * (size_t)cap);
	if (!work)
		return 0;
	for (int i = c->n - 1; i >= 0; i--)
		if (removable(c->instrs[i]))
			work[sp++] = c->instrs[i];
	while (sp > 0) {
		HloInstr *ins = work[--sp];
		if (!removable(ins))
			continue; /* pushed twice, or already gone */
		removed++;
		for (int i = 0; i < ins->nops; i++) {
			HloInstr *o = ins->ops[i];
			hlo_set_operand(ins, i, NULL);
			if (!o || !removable(o))
				continue;
			if (sp == cap) {
				void *v = realloc(work,
						  sizeof *work *
							  (size_t)(cap *= 2));
				if (!v)
					break;
				work = v;
			}
			work[sp++] = o;
		}
		pass_detach(ins);
	}
	free(work);
	pass_compact(c);
	return removed;
}

typedef struct {
	HloModule *m;
	unsigned char *live; /* per computation index */
	HloComp **stack;
	int sp;
} Reach;

static int comp_index(const HloModule *m, const HloComp *c)
{
	for (int i = 0; i < m->ncomps; i++)
		if (m->comps[i] == c)
			return i;
	return -1;
}

static void reach_visit(HloComp *c, void *ctx)
{
	Reach *r = ctx;
	int i = comp_index(r->m, c);
	if (i < 0 || r->live[i])
		return;
	r->live[i] = 1;
	r->stack[r->sp++] = c;
}

/* Removes computations not reachable from the entry; returns how many. */
static int dce_comps(HloModule *m)
{
	if (!m->entry)
		return 0;
	Reach r = {m, calloc((size_t)m->ncomps + 1, 1),
		   malloc(sizeof(HloComp *) * ((size_t)m->ncomps + 1)), 0};
	int removed = 0;
	if (!r.live || !r.stack)
		goto done;
	reach_visit(m->entry, &r);
	while (r.sp > 0) {
		HloComp *c = r.stack[--r.sp];
		for (int j = 0; j < c->n; j++)
			hlo_instr_called(c->instrs[j], reach_visit, &r);
	}
	for (int i = m->ncomps - 1; i >= 0; i--) {
		if (!r.live[i]) {
			hlo_module_remove_comp(m, m->comps[i]);
			removed++;
		}
	}
done:
	free(r.live);
	free(r.stack);
	return removed;
}

bool pass_dce(HloModule *m, PassCtx *cx)
{
	int n = 0;
	for (int i = 0; i < m->ncomps; i++) {
		int k = dce_comp(m->comps[i]);
		for (int j = 0; j < k; j++)
			pass_note_rule(cx, "dead-instruction");
		n += k;
	}
	int k = dce_comps(m);
	for (int j = 0; j < k; j++)
		pass_note_rule(cx, "dead-computation");
	return n + k > 0;
}
