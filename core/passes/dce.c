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
#include <stdio.h>
#include <stdlib.h>

#include "passes.h"

/* live[id]: users of the instruction not yet removed. Removed
 * instructions are unlinked and stay in their operands' user lists until
 * hlo_comp_sweep_ops, so nusers would overcount and the lists would cost
 * O(users) per removal. */
static bool removable(const HloInstr *ins, const int *live,
		      PassSideCache *sc)
{
	return ins->parent && live[ins->id] == 0 && ins->parent->root != ins &&
	       ins->op != HLO_PARAMETER &&
	       !pass_has_side_effect_cached(ins, sc);
}

/* Unlinks ins and counts one use less of each distinct operand (marks
 * tell repeats apart), pushing operands that became dead. */
static void drop(HloInstr *ins, int *live, HloInstr **work, int *sp,
		 PassSideCache *sc)
{
	unsigned gen = hlo_new_mark(ins->parent->module);
	hlo_instr_unlink(ins);
	for (int i = 0; i < ins->nops; i++) {
		HloInstr *o = ins->ops[i];
		if (!o || o->mark == gen)
			continue;
		o->mark = gen;
		/* removable's first test here, where it fails most */
		if (--live[o->id] == 0 && removable(o, live, sc))
			work[(*sp)++] = o; /* once: its count reaches 0 once */
	}
}

/* Removes dead instructions of c; returns how many, -1 when out of
 * memory. */
static int dce_comp(HloComp *c, PassSideCache *sc)
{
	int sp = 0, removed = 0;
	HloInstr **work = malloc(sizeof *work * (size_t)(c->n + 1));
	int *live = malloc(sizeof *live * (size_t)(c->module->next_id + 1));
	if (!work || !live) {
		free(work);
		free(live);
		return -1;
	}
	/* removable reads only the instruction's own count: one walk sets
	 * it and asks (last first, so that the first is taken first) */
	for (int i = c->n - 1; i >= 0; i--) {
		HloInstr *ins = c->instrs[i];
		ins->mark = 0; /* other walks' values could look like gen */
		live[ins->id] = ins->nusers;
		if (!ins->nusers && removable(ins, live, sc))
			work[sp++] = ins;
	}
	while (sp > 0) {
		/* Pushed once each, when removable; nothing a removal
		 * changes can make it less so (counts only fall, the root
		 * stays). Sanitizer builds check. */
		HloInstr *ins = work[--sp];
#if XR_ASAN
		if (!removable(ins, live, sc)) {
			fprintf(stderr, "dce: %%%s pushed, not removable\n",
				ins->name);
			abort();
		}
#endif
		removed++;
		drop(ins, live, work, &sp, sc);
	}
	free(work);
	free(live);
	hlo_comp_sweep_ops(c);
	return removed;
}

typedef struct {
	HloModule *m;
	unsigned char *live; /* per computation index */
	HloComp **stack;
	int sp;
} Reach;

static void reach_visit(HloComp *c, void *ctx)
{
	Reach *r = ctx;
	int i = hlo_module_comp_index(r->m, c);
	if (i < 0 || r->live[i])
		return;
	r->live[i] = 1;
	r->stack[r->sp++] = c;
}

/* Removes computations not reachable from the entry; returns how many,
 * -1 when out of memory. */
static int dce_comps(HloModule *m)
{
	if (!m->entry)
		return 0;
	Reach r = {m, calloc((size_t)m->ncomps + 1, 1),
		   malloc(sizeof(HloComp *) * ((size_t)m->ncomps + 1)), 0};
	int removed = 0;
	if (!r.live || !r.stack) {
		removed = -1;
		goto done;
	}
	reach_visit(m->entry, &r);
	while (r.sp > 0) {
		HloComp *c = r.stack[--r.sp];
		for (int j = 0; j < c->n; j++)
			if (c->instrs[j]->nattrs) /* calls nothing without */
				hlo_instr_called(c->instrs[j], reach_visit,
						 &r);
	}
	/* the dead ones, taken out in one sweep */
	for (int i = 0; i < m->ncomps; i++)
		if (!r.live[i])
			r.stack[removed++] = m->comps[i];
	hlo_module_remove_comps(m, r.stack, removed);
done:
	free(r.live);
	free(r.stack);
	return removed;
}

bool pass_dce(HloModule *m, PassCtx *cx)
{
	int n = 0;
	PassSideCache sc = {0};
	int k = 0;
	for (int i = 0; i < m->ncomps && k >= 0; i++) {
		k = dce_comp(m->comps[i], &sc);
		pass_note_rule_n(cx, "dead-instruction", k);
		n += k > 0 ? k : 0;
	}
	if (k >= 0)
		k = dce_comps(m);
	if (k < 0) { /* (the pass fails: its module is dropped) */
		pass_out_of_memory(cx);
		return n > 0;
	}
	pass_note_rule_n(cx, "dead-computation", k);
	return n + k > 0;
}
