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
#include <stdlib.h>

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

static int simplify_comp(HloComp *c, PassCtx *cx)
{
	HloInstr **po;
	int n = hlo_comp_post_order(c, &po);
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
