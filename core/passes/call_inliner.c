/* call_inliner.c - inlines `call` instructions.
 *
 * Does: for every call (in callee-before-caller order, so nested calls
 * are flattened completely), copies the callee's instructions other than
 * its parameters into the caller just before the call, with each
 * parameter mapped to the call's operand of the same number, replaces
 * the call by the copy of the callee's root and removes the call.
 * Copies get names unique in the caller (the callee's names, suffixed
 * when taken). The call's layout stands: a root array laid out otherwise
 * is copied into it, and so is an operand into a parameter laid out
 * otherwise; a call of a tuple laid out otherwise (result or parameter)
 * is kept. The call's control edges pass on, as XLA's CallInliner
 * passes them: every instruction made comes after the call's control
 * predecessors, and what came after the call comes after the new root.
 * Callees that nobody calls any more are removed. A
 * fusion inlined at several sites gets a copy of its fused computation
 * at each site after the first, and a name no other fusion has.
 * The same walk takes fusions apart for defuser.c (pass_inline_all:
 * the instructions of one opcode, each replaced by what it runs).
 * Requires: a verified module (no recursion: HLO has none).
 * Invalidates: computation list, instruction positions and ids. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static HloInstr *copy_instr(HloComp *c, const HloInstr *s, HloInstr **map)
{
	HloInstr **ops = malloc(sizeof *ops * (size_t)(s->nops + 1));
	if (!ops)
		return NULL;
	for (int i = 0; i < s->nops; i++)
		ops[i] = s->ops[i] ? map[s->ops[i]->id] : NULL;
	HloInstr *d = pass_copy_instr(c, s, ops);
	free(ops);
	return d;
}

/* A callee's instruction in a list: its copy's name (NULL: dropped, as
 * pass_tidy_control_preds would). */
static const char *copy_name(void *ctx, const HloInstr *x, const char *tok,
			     size_t n)
{
	HloInstr *const *map = ctx;
	(void)tok;
	(void)n;
	const HloInstr *y = x ? map[x->id] : NULL;
	return y ? y->name : NULL;
}

/* control-predecessors={...} of copy d (of s) names instructions of
 * the callee: they are renamed to their copies' names in the caller (a
 * copy is renamed when its name is taken there, and the old name would
 * then mean another instruction). False on out of memory. */
static bool rename_control_preds(HloInstr *d, const HloComp *callee,
				 HloInstr *const *map)
{
	HloAttr *a = hlo_attr_find_raw(d, "control-predecessors");
	if (!a || !a->u.s)
		return true;
	StrBuf b;
	sb_init(&b);
	bool changed;
	pass_relist(callee, a->u.s, copy_name, (void *)map, &b, &changed);
	const char *v = arena_strdup(&d->parent->module->arena, sb_str(&b));
	sb_free(&b);
	if (!v)
		return false;
	a->u.s = v;
	return true;
}

/* Whether y is among the names of list (read through c's names). */
static const char *spot(void *ctx, const HloInstr *y, const char *tok, size_t n)
{
	const HloInstr **want = ctx;
	(void)n;
	if (y && y == *want)
		*want = NULL; /* found */
	return tok;
}

static bool lists(const HloComp *c, const char *list, const HloInstr *y,
		  StrBuf *b)
{
	bool changed;
	const HloInstr *want = y;
	pass_relist(c, list, spot, &want, b, &changed);
	return !want;
}

/* A name of the call's list, kept where d (ctx) does not list it
 * already. */
static const char *unlisted(void *ctx, const HloInstr *y, const char *tok,
			    size_t n)
{
	const HloInstr *d = ctx;
	const HloAttr *a = hlo_attr_find_raw(d, "control-predecessors");
	StrBuf b;
	sb_init(&b);
	bool dup = y && a && a->u.s && lists(d->parent, a->u.s, y, &b);
	sb_free(&b);
	(void)n;
	return y && !dup ? tok : NULL;
}

/* d, made by inlining call, comes after the call's control
 * predecessors too (preds: its list), as XLA's CallInliner has each
 * inlined instruction honour them. False on out of memory. */
static bool add_call_preds(HloInstr *d, const char *preds)
{
	StrBuf b;
	sb_init(&b);
	bool changed;
	int k = pass_relist(d->parent, preds, unlisted, d, &b, &changed);
	HloAttr *a = hlo_attr_find_raw(d, "control-predecessors");
	const char *own = a ? a->u.s : NULL;
	bool ok = true;
	if (k > 0) {
		/* own "{x, y}" and the new "{p, q}" as "{x, y, p, q}" */
		StrBuf t;
		sb_init(&t);
		if (own && strchr(own, '}') && own[strspn(own, "{}, \t\n")]) {
			sb_putn(&t, own, (size_t)(strrchr(own, '}') - own));
			sb_puts(&t, ", ");
			sb_puts(&t, sb_str(&b) + 1);
		} else {
			sb_puts(&t, sb_str(&b));
		}
		const char *v =
			arena_strdup(&d->parent->module->arena, sb_str(&t));
		sb_free(&t);
		a = v ? hlo_attr_set(d, A_RAW, "control-predecessors") : NULL;
		ok = a != NULL;
		if (ok)
			a->u.s = v;
	}
	sb_free(&b);
	return ok;
}

/* Inlines one call; false on out-of-memory. */
static bool inline_call(HloInstr *call, HloComp *callee, HloInstr **map)
{
	HloComp *c = call->parent;
	HloInstr **po;
	int n = hlo_comp_post_order(callee, &po);
	if (n < 0)
		return false;
	bool ok = true;
	for (int i = 0; i < n && ok; i++) {
		HloInstr *s = po[i];
		if (s->op == HLO_PARAMETER) {
			ok = s->param_no >= 0 && s->param_no < call->nops;
			HloInstr *o = ok ? call->ops[s->param_no] : NULL;
			/* A parameter laid out otherwise than its operand
			 * reads it in its own layout (a bitcast behind it
			 * sees that): the operand is copied into it. Tuple
			 * parameters laid out otherwise: collect_calls keeps
			 * the call. */
			if (ok && !shape_equal(o->shape, s->shape))
				ok = (o = hlo_instr_new_unique(c, HLO_COPY,
							       s->shape, "copy",
							       1, &o)) != NULL;
			if (ok)
				map[s->id] = o;
			continue;
		}
		ok = (map[s->id] = copy_instr(c, s, map)) != NULL;
	}
	/* once every copy is made (a predecessor may come later) */
	for (int i = 0; i < n && ok && c->module->control_preds; i++)
		if (po[i]->op != HLO_PARAMETER)
			ok = rename_control_preds(map[po[i]->id], callee, map);
	/* The call's layout stands (what reads it, a bitcast say, sees
	 * it): a root laid out otherwise is copied into it. */
	HloInstr *r = ok ? map[callee->root->id] : NULL;
	bool layout = ok && !shape_equal(r->shape, call->shape);
	if (layout && !(r = hlo_instr_new_unique(c, HLO_COPY, call->shape,
						 "copy", 1, &r)))
		ok = false;
	/* The call's control edges pass to what replaces it: each
	 * instruction made here comes after its predecessors, and its
	 * successors come after the new root. */
	const HloAttr *cp =
		ok && c->module->control_preds
			? hlo_attr_find_raw(call, "control-predecessors")
			: NULL;
	for (int i = 0; i < n && ok && cp && cp->u.s; i++)
		if (po[i]->op != HLO_PARAMETER)
			ok = add_call_preds(map[po[i]->id], cp->u.s);
	if (ok && layout && cp && cp->u.s)
		ok = add_call_preds(r, cp->u.s);
	if (ok && c->module->control_preds) {
		/* XLA relays a call's control successors to the new root */
		StrBuf b;
		sb_init(&b);
		ok = pass_relist_renamed(c->module, call, r->name, &b);
		sb_free(&b);
	}
	free(po);
	if (!ok)
		return false;
	hlo_replace_all_uses(call, r);
	pass_detach(call); /* its slot goes in pass_compact */
	return true;
}

/* Marks (HloComp.mark = the mark returned) every computation that an
 * instruction of m calls: one walk for all the callees (one per callee
 * made inlining n computations quadratic). */
static unsigned mark_called(HloModule *m)
{
	unsigned mk = hlo_new_mark(m);
	for (int i = 0; i < m->ncomps; i++)
		for (int j = 0; j < m->comps[i]->n; j++) {
			const HloInstr *ins = m->comps[i]->instrs[j];
			int nc = ins->nattrs ? hlo_instr_ncalled(ins) : 0;
			for (int k = 0; k < nc; k++) {
				HloComp *c = hlo_instr_called_at(ins, k);
				if (c)
					c->mark = mk;
			}
		}
	return mk;
}

/* Does each tuple parameter of callee have its operand's layout? (An
 * array parameter laid out otherwise gets a copy; a tuple one would need
 * a copy of each element: such a call is kept.) */
static bool tuple_params_match(const HloInstr *call, const HloComp *callee)
{
	for (int i = 0; i < callee->n; i++) {
		const HloInstr *p = callee->instrs[i];
		if (p->op != HLO_PARAMETER || shape_is_array(p->shape))
			continue;
		if (p->param_no < 0 || p->param_no >= call->nops ||
		    !shape_equal(call->ops[p->param_no]->shape, p->shape))
			return false;
	}
	return true;
}

/* The computation an instruction of opcode op runs in its place: a
 * call's to_apply, a fusion's calls. */
static AttrKey callee_key(HloOpcode op)
{
	return op == HLO_FUSION ? A_CALLS : A_TO_APPLY;
}

/* The instructions of opcode op in c (calls or fusions), collected
 * before any is inlined. */
static int collect_calls(HloComp *c, HloInstr ***out, HloOpcode op)
{
	int k = 0;
	*out = malloc(sizeof **out * (size_t)(c->n + 1));
	for (int j = 0; *out && j < c->n; j++) {
		HloInstr *ins = c->instrs[j];
		if (ins->op != op)
			continue;
		HloComp *callee = hlo_attr_comp(ins, callee_key(op));
		/* a tuple laid out otherwise than its call: kept (a copy
		 * would only change the outer tuple) */
		if (callee && callee->root &&
		    (shape_is_array(ins->shape) ||
		     shape_equal(callee->root->shape, ins->shape)) &&
		    tuple_params_match(ins, callee))
			(*out)[k++] = ins;
	}
	return *out ? k : -1;
}

/* map is indexed by instruction id; ids grow as copies are made. */
static bool grow_map(HloInstr ***map, int *cap, int need)
{
	if (need <= *cap)
		return true;
	void *v = realloc(*map, sizeof **map * (size_t)need);
	if (!v)
		return false;
	*map = v;
	*cap = need;
	return true;
}

static void remember(HloComp **list, int *n, HloComp *c)
{
	for (int q = 0; q < *n; q++)
		if (list[q] == c)
			return;
	list[(*n)++] = c;
}

/* Does some computation of m hold an instruction of opcode op? Without
 * one the pass inlines nothing (collect_calls takes only those): then
 * it needs no order of the computations, whose walk looks at every
 * instruction's attributes. */
static bool has_op(const HloModule *m, HloOpcode op)
{
	for (int i = 0; i < m->ncomps; i++) {
		const HloComp *c = m->comps[i];
		for (int j = 0; j < c->n; j++)
			if (c->instrs[j]->op == op)
				return true;
	}
	return false;
}

bool pass_inline_all(HloModule *m, PassCtx *cx, HloOpcode op)
{
	if (!has_op(m, op)) {
		/* what the walk below leaves when there is nothing to inline */
		for (int i = 0; i < m->ncomps; i++)
			pass_compact(m->comps[i]);
		return false;
	}
	HloComp **order;
	int nc = hlo_module_comp_post_order(m, &order);
	if (nc < 0) { /* (a verified module's calls make no cycle) */
		pass_out_of_memory(cx);
		return false;
	}
	HloComp **inlined = malloc(sizeof *inlined * (size_t)(m->ncomps + 1));
	HloInstr **map = NULL;
	int ninl = 0, k = 0, cap = 0;
	bool failed = !inlined;
	for (int ci = 0; ci < nc && !failed; ci++) {
		HloComp *c = order[ci];
		HloInstr **calls;
		int ncalls = collect_calls(c, &calls, op), base = c->n;
		int *start = ncalls > 0 ? malloc(sizeof *start * (size_t)ncalls)
					: NULL;
		failed = ncalls < 0 || (ncalls > 0 && !start);
		int j = 0;
		for (; j < ncalls && !failed; j++) {
			HloComp *callee =
				hlo_attr_comp(calls[j], callee_key(op));
			start[j] = c->n;
			failed = !grow_map(&map, &cap, m->next_id + 1) ||
				 !inline_call(calls[j], callee, map);
			if (failed)
				break;
			pass_note_rule(cx, op == HLO_FUSION ? "defuse"
							    : "inline-call");
			remember(inlined, &ninl, callee);
			k++;
		}
		/* each call's copies where the call was, all at once */
		if (j > 0 && !pass_place_blocks(c, base, calls, start, j))
			failed = true;
		pass_compact(c);
		free(start);
		free(calls);
	}
	/* Callees nobody calls any more go (a callee only called from
	 * another such callee stays, as before). */
	unsigned mk = failed || !ninl ? 0 : mark_called(m);
	int ngone = 0;
	for (int q = 0; q < ninl && !failed; q++)
		if (inlined[q]->mark != mk && inlined[q] != m->entry)
			inlined[ngone++] = inlined[q];
	if (!failed)
		hlo_module_remove_comps(m, inlined, ngone);
	/* A callee's fusions were copied to each of its call sites: every
	 * copy after the first gets a fused computation of its own. */
	if (k > 0 && !failed)
		failed = !pass_unshare_fused(m);
	/* ... and a name of its own (two callers may both have had the
	 * callee's name free) */
	if (k > 0 && !failed)
		failed = !pass_unique_fusion_names(m);
	free(order);
	free(inlined);
	free(map);
	if (failed)
		pass_out_of_memory(cx);
	return k > 0;
}

bool pass_call_inliner(HloModule *m, PassCtx *cx)
{
	return pass_inline_all(m, cx, HLO_CALL);
}
