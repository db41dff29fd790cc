/* constant_folding.c - evaluates instructions whose operands are all
 * constants, through the reference interpreter.
 *
 * Does: walking each computation operands-first (so chains fold in one
 * run), an instruction qualifies when all its operands are constants
 * with known values (not written as {...}), it is not a parameter,
 * constant, rng, custom-call, while, or anything with side effects
 * (pass_has_side_effect), its result is one static array of at most
 * cx->fold_max_elems elements (1 << 16 when 0), and the interpreter
 * supports it. As in XLA, broadcasts and iotas are never folded: a
 * folded broadcast is a constant as large as its result (in the text,
 * in memory, and read back from memory by its users), where the
 * broadcast itself costs nothing once fused. The instruction is copied into a
 * temporary computation of the module (parameters for its operands), run
 * there with interp_run_comp, and replaced by a new constant holding
 * the result; the temporary computation is removed again. An evaluation
 * that fails leaves the instruction as it was; one that runs out of
 * memory fails the pass (pass_out_of_memory), as any allocation in it
 * does.
 * Requires: a verified module.
 * Invalidates: instruction positions; computation list (temporarily). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"
#include "passes.h"

enum { DEFAULT_CAP = 1 << 16 };

static bool operands_known(const HloInstr *ins)
{
	for (int i = 0; i < ins->nops; i++) {
		const HloInstr *o = ins->ops[i];
		if (!o || o->op != HLO_CONSTANT || !o->literal ||
		    o->literal->elided)
			return false;
	}
	return ins->nops > 0;
}

static bool foldable(const HloInstr *ins, int64_t cap)
{
	switch (ins->op) {
	case HLO_PARAMETER:
	case HLO_CONSTANT:
	case HLO_RNG:
	case HLO_RNG_BIT_GENERATOR:
	case HLO_RNG_GET_AND_UPDATE_STATE:
	case HLO_CUSTOM_CALL:
	case HLO_WHILE:
	case HLO_BITCAST: /* layout-dependent */
	case HLO_AFTER_ALL:
	case HLO_ADD_DEPENDENCY:
	case HLO_OPT_BARRIER:
	case HLO_BROADCAST: /* see the top: as XLA's HloConstantFolding */
	case HLO_IOTA:
		return false;
	default:
		break;
	}
	/* operands_known first: it rules out nearly everything (and
	 * reads the operands, where the shape would be one more line) */
	if (!operands_known(ins))
		return false;
	const Shape *s = ins->shape;
	if (!shape_is_array(s) || shape_is_dynamic(s) || s->type == DT_TOKEN)
		return false;
	int64_t n = shape_elements(s);
	return n >= 0 && n <= cap && interp_supports(ins->op) &&
	       !pass_has_side_effect(ins);
}

/* A computation "p0..pk -> copy of ins" in m, for the interpreter. */
static HloComp *fold_comp(HloModule *m, const HloInstr *ins)
{
	Arena *a = &m->arena;
	HloComp *t = hlo_comp_new(m, hlo_module_unique_comp_name(m, "fold"));
	if (!t)
		return NULL;
	HloInstr **ps = malloc(sizeof *ps * (size_t)(ins->nops + 1));
	if (!ps)
		return t;
	bool ok = true;
	for (int i = 0; i < ins->nops && ok; i++) {
		ps[i] = hlo_instr_new(t, HLO_PARAMETER, ins->ops[i]->shape,
				      NULL, 0, NULL);
		ok = ps[i] != NULL;
		if (ok)
			ps[i]->param_no = i;
	}
	HloInstr *r = ok ? hlo_instr_new(t, ins->op, ins->shape, ins->name,
					 ins->nops, ps)
			 : NULL;
	free(ps);
	if (!r)
		return t;
	r->async_wrapped = ins->async_wrapped;
	if (ins->nattrs) {
		r->attrs = arena_dup(a, ins->attrs,
				     sizeof *ins->attrs * (size_t)ins->nattrs);
		r->nattrs = r->cap_attrs = r->attrs ? ins->nattrs : 0;
	}
	t->root = r;
	return t;
}

/* The value of ins, in m's arena, or NULL when it cannot be evaluated
 * (the interpreter's limits, an error in it) or memory ran out (*oom:
 * then the pass fails, instead of leaving ins as if it could not be
 * folded). */
static Literal *evaluate(HloModule *m, const HloInstr *ins, bool *oom)
{
	HloComp *t = fold_comp(m, ins);
	*oom = !t || !t->root; /* (fold_comp fails only so) */
	if (!t)
		return NULL;
	Literal *res = NULL;
	Literal **args = NULL;
	if (t->root) {
		args = malloc(sizeof *args * (size_t)(ins->nops + 1));
		*oom = !args;
	}
	if (args) {
		for (int i = 0; i < ins->nops; i++)
			args[i] = ins->ops[i]->literal;
		InterpOpts o = {(int64_t)1 << 30, NULL};
		InterpStats st = {0};
		Diag d;
		diag_init(&d);
		res = interp_run_comp(t, args, ins->nops, &m->arena, &o, &d,
				      &st);
		*oom = !res && st.oom;
		diag_free(&d);
		free(args);
	}
	hlo_module_remove_comp(m, t);
	return res;
}

/* Folds ins into a constant. False when it cannot be folded; *oom then
 * says whether memory ran out. */
static bool fold(HloInstr *ins, bool *oom)
{
	HloComp *c = ins->parent;
	HloModule *m = c->module;
	Literal *v = evaluate(m, ins, oom);
	if (!v || v->ntuple || v->n != shape_elements(ins->shape))
		return false;
	Shape *s = shape_clone(&m->arena, ins->shape);
	HloInstr *k =
		s ? hlo_instr_new_unique(c, HLO_CONSTANT, s, "constant", 0, NULL)
		  : NULL;
	if (!k) {
		*oom = true;
		return false;
	}
	v->shape = s;
	k->literal = v;
	k->shape_given = true;
	hlo_replace_all_uses(ins, k);
	hlo_instr_unlink(ins); /* its operands' user lists: hlo_comp_sweep */
	return true;
}

/* Could the walk below fold anything in c? Until its first fold
 * nothing changes, so the first one is of an instruction foldable now:
 * when c has none (most computations: operands_known rules out nearly
 * everything), there is no walk to make, in any order. Such an
 * instruction reads constants only, so it is among the users of c's
 * constants: those are asked, not every instruction (whose operands,
 * looked at each, lie all over a large module: half the pass's time at
 * 100k instructions). */
static bool any_foldable(const HloComp *c, int64_t cap)
{
	for (int i = 0; i < c->n; i++) {
		const HloInstr *k = c->instrs[i];
		if (k->op != HLO_CONSTANT || !k->literal || k->literal->elided)
			continue;
		for (int j = 0; j < k->nusers; j++) {
			const HloInstr *u = k->users[j];
			if (u->parent == c && foldable(u, cap))
				return true;
		}
	}
	return false;
}

static int fold_comp_instrs(HloComp *c, int64_t cap, PassCtx *cx)
{
	if (!any_foldable(c, cap)) {
#if XR_ASAN
		/* the post order's instructions are c's: none foldable */
		HloInstr **v;
		int nv = hlo_comp_post_order(c, &v);
		for (int i = 0; i < nv; i++)
			if (v[i]->parent == c && foldable(v[i], cap)) {
				fprintf(stderr, "constant-folding: '%s' is "
						"foldable, but any_foldable "
						"found none\n",
					v[i]->name);
				abort();
			}
		free(v);
		/* nothing unlinked here, and a pass leaves none behind:
		 * no sweep to make (a walk over all of c) */
		for (int i = 0; i < c->n; i++)
			if (c->instrs[i]->parent != c) {
				fprintf(stderr,
					"constant-folding: '%s' was "
					"left unswept in '%s'\n",
					c->instrs[i]->name, c->name);
				abort();
			}
#endif
		return 0;
	}
	HloInstr **po;
	int n = hlo_comp_post_order(c, &po);
	if (n == HLO_ORDER_OOM) /* (the pass fails: its module is dropped) */
		pass_out_of_memory(cx);
	if (n < 0)
		return 0;
	/* each fold's constant goes where the folded instruction was, all
	 * at once when the walk is over */
	int k = 0, base = c->n;
	HloInstr **at = malloc(sizeof *at * (size_t)(n + 1));
	int *start = malloc(sizeof *start * (size_t)(n + 1));
	if (!at || !start)
		pass_out_of_memory(cx);
	bool oom = false;
	for (int i = 0; at && start && !oom && i < n; i++) {
		if (po[i]->parent != c || !foldable(po[i], cap))
			continue;
		int first = c->n;
		if (!fold(po[i], &oom))
			continue;
		at[k] = po[i];
		start[k] = first;
		pass_note_rule(cx, "fold");
		k++;
	}
	if (k && !oom)
		oom = !pass_place_blocks(c, base, at, start, k);
	if (oom) /* (the pass fails: its module is dropped) */
		pass_out_of_memory(cx);
	free(at);
	free(start);
	free(po);
	hlo_comp_sweep(c);
	return k;
}

bool pass_constant_folding(HloModule *m, PassCtx *cx)
{
	int64_t cap = cx->fold_max_elems > 0 ? cx->fold_max_elems : DEFAULT_CAP;
	int nc = m->ncomps, k = 0;
	HloComp **comps = malloc(sizeof *comps * (size_t)(nc + 1));
	if (!comps) {
		pass_out_of_memory(cx);
		return false;
	}
	memcpy(comps, m->comps, sizeof *comps * (size_t)nc);
	for (int i = 0; i < nc; i++)
		k += fold_comp_instrs(comps[i], cap, cx);
	free(comps);
	return k > 0;
}
