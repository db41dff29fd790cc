/* tuple_simplifier.c - removes tuples that are built only to be taken
 * apart, and taken apart only to be built again.
 *
 * Does: get-tuple-element(tuple(a0, ..., an), i) -> ai, and
 * tuple(get-tuple-element(x, 0), ..., get-tuple-element(x, n-1)) -> x
 * when x has exactly n elements and the tuple's shape is x's shape
 * (layouts included). Shapes must be equal with layouts, so a root keeps
 * its layout. The replaced instruction is removed; the tuple or x it
 * used may be left dead for dce.
 * Requires: a verified module.
 * Invalidates: instruction positions; roots may move. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

/* What ins can be replaced by, or NULL. */
static HloInstr *simpler(const HloInstr *ins)
{
	if (ins->op == HLO_GET_TUPLE_ELEMENT) {
		HloInstr *t = ins->ops[0];
		int64_t i;
		if (t->op != HLO_TUPLE || !hlo_attr_int(ins, A_INDEX, &i) ||
		    i < 0 || i >= t->nops)
			return NULL;
		HloInstr *e = t->ops[i];
		return shape_equal(e->shape, ins->shape) ? e : NULL;
	}
	if (ins->op != HLO_TUPLE || ins->nops == 0)
		return NULL;
	HloInstr *x = NULL;
	for (int k = 0; k < ins->nops; k++) {
		const HloInstr *g = ins->ops[k];
		int64_t i;
		if (g->op != HLO_GET_TUPLE_ELEMENT ||
		    !hlo_attr_int(g, A_INDEX, &i) || i != k)
			return NULL;
		if (x && g->ops[0] != x)
			return NULL;
		x = g->ops[0];
	}
	if (!shape_is_tuple(x->shape) || x->shape->ntuple != ins->nops ||
	    !shape_equal(x->shape, ins->shape))
		return NULL;
	return x;
}

static bool tuple_or_gte(const HloInstr *x)
{
	return x->op == HLO_TUPLE || x->op == HLO_GET_TUPLE_ELEMENT;
}

/* The rewrites of c when none can change another (-1: when one might,
 * for simplify_comp's walk in post order). simpler(x) reads x's
 * operands and theirs; replacing y rewrites only the operand lists of
 * y's users. So when no user of a rewritten instruction, nor any user
 * of one, is a tuple or get-tuple-element (the only opcodes simpler
 * rewrites), each instruction's answer is the same before and after
 * the others' rewrites, in any order. The order then still shows in two
 * things: the user list of an instruction that replaces two (the later
 * one's users go after), and which rule is noted first; so both must
 * not happen either. Then program order does what post order does,
 * without the walk. */
static int simplify_independent(HloComp *c, PassCtx *cx)
{
	/* the rewrites found, in program order: (ins, with) pairs */
	HloInstr *small[64], **found = small;
	int nfound = 0, cap = 32, kinds = 0;
	unsigned gen = hlo_new_mark(c->module);
	long budget = 4L * c->n + 64; /* users of users: bounded work */
	for (int i = 0; i < c->n; i++) {
		HloInstr *ins = c->instrs[i];
		if (!tuple_or_gte(ins))
			continue;
		HloInstr *with = simpler(ins);
		if (!with)
			continue;
		kinds |= ins->op == HLO_TUPLE ? 1 : 2;
		if (kinds == 3 || with->mark == gen)
			goto walk;
		with->mark = gen;
		for (int j = 0; j < ins->nusers; j++) {
			const HloInstr *u = ins->users[j];
			budget -= 1 + u->nusers;
			if (budget < 0 || tuple_or_gte(u))
				goto walk;
			for (int l = 0; l < u->nusers; l++)
				if (tuple_or_gte(u->users[l]))
					goto walk;
		}
		if (nfound == cap) {
			HloInstr **v = malloc(sizeof *v * 4 * (size_t)cap);
			if (!v)
				goto walk;
			memcpy(v, found, sizeof *v * 2 * (size_t)nfound);
			if (found != small)
				free(found);
			found = v;
			cap *= 2;
		}
		found[2 * nfound] = ins;
		found[2 * nfound++ + 1] = with;
	}
	for (int i = 0; i < nfound; i++) {
		HloInstr *ins = found[2 * i];
		pass_note_rule(cx, ins->op == HLO_TUPLE ? "tuple-of-gte"
							: "gte-of-tuple");
		hlo_replace_all_uses(ins, found[2 * i + 1]);
		hlo_instr_unlink(ins); /* its operands' user lists: below */
	}
	if (found != small)
		free(found);
	hlo_comp_sweep_ops(c);
#if XR_ASAN
	/* As after the walk: no rewrite was missed or made possible. */
	for (int i = 0; i < c->n; i++)
		if (tuple_or_gte(c->instrs[i]) && simpler(c->instrs[i])) {
			fprintf(stderr, "tuple-simplifier: %%%s is left "
					"simplifiable\n",
				c->instrs[i]->name);
			abort();
		}
#endif
	return nfound;
walk:
	if (found != small)
		free(found);
	return -1;
}

static int simplify_comp(HloComp *c, PassCtx *cx)
{
	int done = simplify_independent(c, cx);
	if (done >= 0)
		return done;
	HloInstr **po;
	int n = hlo_comp_post_order(c, &po);
	if (n == HLO_ORDER_OOM) /* (the pass fails: its module is dropped) */
		pass_out_of_memory(cx);
	if (n < 0)
		return 0;
	int k = 0;
	for (int i = 0; i < n; i++) {
		HloInstr *ins = po[i];
		HloInstr *with = simpler(ins);
		if (!with)
			continue;
		pass_note_rule(cx, ins->op == HLO_TUPLE ? "tuple-of-gte"
							: "gte-of-tuple");
		hlo_replace_all_uses(ins, with);
		hlo_instr_unlink(ins); /* its operands' user lists: below */
		k++;
	}
	free(po);
	hlo_comp_sweep_ops(c);
	return k;
}

bool pass_tuple_simplifier(HloModule *m, PassCtx *cx)
{
	int k = 0;
	for (int i = 0; i < m->ncomps; i++)
		k += simplify_comp(m->comps[i], cx);
	return k > 0;
}
