/* fusion.c - producer/consumer fusion, each decision logged with the
 * rule that made it; the rules, graph surgery and questions the REPL
 * asks (why, fuse) that the multi-output pass shares.
 *
 * Does (pass `fusion`, after XLA's classic InstructionFusion): in every
 * computation that runs as code (the entry, while bodies and conditions,
 * conditional branches, called computations; not reducers or
 * comparators), visits consumers before producers and offers each
 * consumer its operands one by one. A fusion joins a producer into its
 * consumer's fusion instruction (`fusion(...), kind=kLoop,
 * calls=%fused_computation`): kLoop for elementwise and data-movement
 * ops, kInput when a reduce is the hero (its producers fused into its
 * input, an elementwise epilogue of the same shape into its output;
 * a reshape that only adds or drops size-1 dimensions counts as part of
 * an epilogue),
 * kOutput when a dot or convolution is the hero (only an elementwise
 * epilogue). A cheap producer with other users is duplicated when that
 * costs no extra reads of large arrays; an expensive one never is.
 * Instructions with control edges (control-predecessors) keep their
 * place: they are not fused, here or by multi-output fusion.
 * (Pass `multi-output-fusion`, multi_output_fusion.c, comes after.)
 * Requires: a verified module. Invalidates: instruction positions,
 * computation list (new fused computations), ids of removed instructions.
 *
 * Every pair considered is recorded in cx->fusion_log with a rule from
 * fusion_rules and the estimated bytes moved it saves. */
#include "fusion_impl.h"

#include "cost.h"

#include <assert.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rules by place in the table: decide names them so, which costs
 * less than finding a name (fz_rule). */
enum {
	R_FUSED_LOOP,
	R_FUSED_INTO_REDUCE,
	R_REDUCE_EPILOGUE,
	R_DOT_EPILOGUE,
	R_FUSED_DUPLICATED,
	R_SIBLING,
	R_PRODUCER_CONSUMER_MULTI_OUTPUT,
	R_FUSION_OFF,
	R_CONSUMER_NOT_FUSIBLE,
	R_PRODUCER_NOT_FUSIBLE,
	R_CONSUMER_IS_BITCAST,
	R_INTO_LIBRARY_CALL,
	R_INTO_IN_PLACE_OPERAND,
	R_IN_PLACE_CONFLICT,
	R_BOTH_REDUCE,
	R_BOTH_HERO,
	R_NOT_AN_EPILOGUE,
	R_EXPENSIVE_DUPLICATED,
	R_DUPLICATION_COSTS_BYTES,
	R_TOO_MANY_OPERANDS,
	R_TOO_LARGE,
	R_MOF_CYCLE,
	R_MOF_SHAPES,
	R_MOF_NOT_FUSIBLE,
	R_NOT_PRODUCER_CONSUMER,
	R_DIFFERENT_COMPUTATIONS,
	R_NOT_FUSED_HERE,
	R_SAME_FUSION,
};

/* clang-format off */
static const FusionRule rules[] = {
	[R_FUSED_LOOP] = {"fused-loop", "an elementwise or data-movement producer joins its consumer's loop (kLoop)"},
	[R_FUSED_INTO_REDUCE] = {"fused-into-reduce", "a producer joins the input of a reduction (kInput)"},
	[R_REDUCE_EPILOGUE] = {"reduce-epilogue", "an elementwise op of the reduction's result shape (or a reshape adding or dropping size-1 dimensions) joins it as an epilogue (kInput)"},
	[R_DOT_EPILOGUE] = {"dot-epilogue", "an elementwise op of the dot/convolution's result shape (or a reshape adding or dropping size-1 dimensions) joins it as an epilogue (kOutput)"},
	[R_FUSED_DUPLICATED] = {"fused-duplicated", "a cheap producer is copied into this consumer; its other users keep it"},
	[R_SIBLING] = {"sibling", "two kernels that read the same array become one multi-output kernel that reads it once"},
	[R_PRODUCER_CONSUMER_MULTI_OUTPUT] = {"producer-consumer-multi-output", "a producer with several users joins one consumer and stays an extra output for the others"},
	[R_FUSION_OFF] = {"fusion-off", "fusion is switched off ('set fusion off')"},
	[R_CONSUMER_NOT_FUSIBLE] = {"consumer-not-fusible", "the consumer cannot be part of a fusion (parameter, tuple, control flow, custom-call, side effects, ...)"},
	[R_PRODUCER_NOT_FUSIBLE] = {"producer-not-fusible", "the producer cannot be part of a fusion"},
	[R_CONSUMER_IS_BITCAST] = {"consumer-is-bitcast", "not fusing into a single bitcast as consumer (a bitcast launches nothing)"},
	[R_INTO_LIBRARY_CALL] = {"into-library-call", "a dot/convolution's operands are not fused: it runs as a library call that reads its operands from memory"},
	[R_BOTH_REDUCE] = {"both-reduce", "both the producer and the consumer contain a reduce"},
	[R_INTO_IN_PLACE_OPERAND] = {"into-in-place-operand", "a dynamic-update-slice or scatter updates its first operand in place: that operand's producer is not fused (its update and indices may be)"},
	[R_IN_PLACE_CONFLICT] = {"in-place-conflict", "the producer reads the buffer its consumer updates in place: fused, it would read elements the update has already written"},
	[R_BOTH_HERO] = {"both-hero", "both the producer and the consumer contain a dot, convolution or reduce"},
	[R_NOT_AN_EPILOGUE] = {"not-an-epilogue", "fusing into the output of a reduce/dot needs an elementwise consumer of the same shape (size-1 dimensions aside); otherwise it would create a loop fusion that recomputes the hero"},
	[R_EXPENSIVE_DUPLICATED] = {"expensive-duplicated", "the producer is expensive and would be duplicated into several kernels"},
	[R_DUPLICATION_COSTS_BYTES] = {"duplication-costs-bytes", "the producer has users outside the fusion and duplicating it reads more bytes than it saves"},
	[R_TOO_MANY_OPERANDS] = {"too-many-operands", "the fusion would exceed the operand budget"},
	[R_TOO_LARGE] = {"too-large", "the fusion would exceed the instruction budget"},
	[R_MOF_CYCLE] = {"mof-cycle", "multi-output fusion creates a cycle"},
	[R_MOF_SHAPES] = {"mof-shapes", "different loop shapes: one kernel cannot iterate over both"},
	[R_MOF_NOT_FUSIBLE] = {"mof-not-fusible", "one of the two cannot be part of a multi-output fusion"},
	[R_NOT_PRODUCER_CONSUMER] = {"not-producer-consumer", "fusion only joins a producer with an instruction that uses it"},
	[R_DIFFERENT_COMPUTATIONS] = {"different-computations", "the two are in different computations"},
	[R_NOT_FUSED_HERE] = {"not-fused-here", "fusion does not run in this computation (a reducer, comparator or fused computation)"},
	[R_SAME_FUSION] = {"same-fusion", "both are already in the same fusion"},
};
/* clang-format on */

const FusionRule *fusion_rules(int *n)
{
	*n = sizeof rules / sizeof *rules;
	return rules;
}

/* The rule's static name (so decisions can compare pointers). */
const char *fz_rule(const char *name)
{
	/* Callers name rules by literals, which the linker usually merges
	 * with the table's: try the pointers first. */
	for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
		if (rules[i].name == name)
			return name;
	for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
		if (!strcmp(rules[i].name, name))
			return rules[i].name;
	return "unknown";
}

/* The name (and its prefix) of the copies fz_as_layout makes. */
#define LAYOUT_COPY "layout_copy"

/* ---- what an instruction is to fusion --------------------------------- */

static const char *const kind_names[] = {"none", "kLoop", "kInput", "kOutput"};

/* Why x cannot be part of a fusion ("a parameter"), or NULL. */
typedef struct CtrlQuery {
	const HloInstr *x;   /* is x named? */
	bool found;
	GroupCache *gc;      /* or: add each one named to gc->ctrl */
} CtrlQuery;

static bool ctrl_add(GroupCache *gc, const HloInstr *y)
{
	if (!fz_grow((void **)&gc->ctrl, &gc->cap_ctrl, gc->nctrl + 1,
		     sizeof *gc->ctrl))
		return false;
	gc->ctrl[gc->nctrl++] = y;
	return true;
}

static const char *ctrl_named(void *ctx, const HloInstr *y, const char *tok,
			      size_t n)
{
	CtrlQuery *q = ctx;
	(void)n;
	if (y && q->gc)
		q->found |= !ctrl_add(q->gc, y); /* found: out of memory */
	else if (y && y == q->x)
		q->found = true;
	return tok;
}

/* x's control-predecessors list, or NULL. */
static const char *ctrl_list(const HloInstr *x)
{
	for (int i = 0; i < x->nattrs; i++) {
		const HloAttr *a = &x->attrs[i];
		if (a->key == A_RAW && a->u.s &&
		    !strcmp(a->name, "control-predecessors"))
			return a->u.s;
	}
	return NULL;
}

/* Does c name x in a control-predecessors list (q->x), or (q->gc) add
 * every instruction that has control edges to q->gc? */
static void ctrl_scan(const HloComp *c, CtrlQuery *q)
{
	StrBuf b;
	sb_init(&b);
	bool changed;
	for (int j = 0; j < c->n && !q->found; j++) {
		const char *list = ctrl_list(c->instrs[j]);
		if (!list)
			continue;
		if (q->gc && !ctrl_add(q->gc, c->instrs[j]))
			q->found = true;
		sb_clear(&b);
		pass_relist(c, list, ctrl_named, q, &b, &changed);
	}
	sb_free(&b);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const HloInstr *const *)a;
	uintptr_t y = (uintptr_t)*(const HloInstr *const *)b;
	return (x > y) - (x < y);
}

/* Has x control edges: a control-predecessors list, or a place in
 * another's? Such an instruction keeps its place in the schedule: it is
 * not fused (the edge would be lost with it). */
static bool control_edges_of(GroupCache *gc, const HloInstr *x)
{
	if (gc && gc->ctrl_made) /* the set holds those with lists too */
		return gc->nctrl && bsearch(&x, gc->ctrl, (size_t)gc->nctrl,
					    sizeof *gc->ctrl, cmp_ptr);
	const HloComp *c = x->parent;
	if (!c || !c->module->control_preds) {
		if (gc && c)
			gc->ctrl_made = true; /* none in the module */
		return false;
	}
	if (ctrl_list(x))
		return true;
	if (!gc) {
		CtrlQuery q = {x, false, NULL};
		ctrl_scan(c, &q);
		return q.found;
	}
	if (!gc->ctrl_made) {
		gc->ctrl_made = true;
		const HloModule *m = c->module;
		CtrlQuery q = {NULL, false, gc};
		for (int i = 0; i < m->ncomps && !q.found; i++)
			ctrl_scan(m->comps[i], &q);
		if (q.found) { /* out of memory: ask each time */
			free(gc->ctrl);
			gc->ctrl = NULL;
			gc->nctrl = gc->cap_ctrl = 0;
			gc->ctrl_made = false;
			return control_edges_of(NULL, x);
		}
		if (gc->nctrl)
			qsort(gc->ctrl, (size_t)gc->nctrl, sizeof *gc->ctrl,
			      cmp_ptr);
	}
	return gc->nctrl && bsearch(&x, gc->ctrl, (size_t)gc->nctrl,
				    sizeof *gc->ctrl, cmp_ptr);
}

/* The usual answer (a module without control edges) without a call. */
static inline bool control_edges(GroupCache *gc, const HloInstr *x)
{
	return gc && gc->ctrl_made && !gc->nctrl ? false
						 : control_edges_of(gc, x);
}

const char *fz_control_edges(GroupCache *gc, const HloInstr *x)
{
	return control_edges(gc, x) ? "an instruction with control "
				      "dependencies (it keeps its place in "
				      "the schedule)"
				    : NULL;
}

GroupCache *fz_groups_new(void)
{
	/* Only the keys cleared: calloc cleared the whole (some 200 KB,
	 * most of it never read), which cost more than a pass's lookups
	 * in it. An entry's other fields are read only once its key
	 * matches (group_cached, producer). */
	GroupCache *gc = malloc(sizeof *gc);
	if (!gc)
		return NULL;
	for (int i = 0; i < GROUP_CACHE; i++)
		gc->e[i].fc = NULL;
	for (int i = 0; i < PRODUCER_CACHE; i++)
		gc->prod[i].x = NULL;
	gc->ctrl = NULL;
	gc->nctrl = gc->cap_ctrl = 0;
	gc->ctrl_made = false;
	return gc;
}

void fz_groups_free(GroupCache *gc)
{
	if (gc)
		free(gc->ctrl);
	free(gc);
}

const char *fz_unfusible(GroupCache *gc, const HloInstr *x)
{
	unsigned fl = hlo_opcode_flags(x->op);
	if (fl & (XF_SIDE | XF_ASYNC))
		return "an instruction with side effects";
	if (fl & XF_COLL)
		return "a collective";
	const char *ctrl = fz_control_edges(gc, x);
	if (ctrl)
		return ctrl;
	/* (an array without dynamic dimensions, the usual shape, without
	 * the call) */
	if ((x->shape->type == DT_TUPLE || x->shape->dyn) &&
	    shape_is_dynamic(x->shape))
		return "an instruction of dynamic shape";
	switch (x->op) {
	case HLO_PARAMETER:
		return "a parameter";
	case HLO_TUPLE:
		return "a tuple";
	case HLO_GET_TUPLE_ELEMENT:
		return "a get-tuple-element";
	case HLO_CONSTANT:
		return shape_elements(x->shape) == 1
			       ? NULL
			       : "a non-scalar constant (it stays a buffer)";
	case HLO_FUSION: {
		const char *k = hlo_attr_enum(x, A_KIND);
		HloComp *fc = fz_fused_comp(x);
		if (!fc || !fc->root)
			return "a fusion without a computation";
		if (!k || (strcmp(k, "kLoop") && strcmp(k, "kInput") &&
			   strcmp(k, "kOutput")))
			return "a custom fusion";
		if (fc->root->op == HLO_TUPLE)
			return "a multi-output fusion";
		if (fz_group(gc, x).nparams != x->nops)
			return "a fusion passing operands its computation "
			       "does not read";
		return NULL;
	}
	case HLO_BROADCAST:
	case HLO_RESHAPE:
	case HLO_BITCAST:
	case HLO_TRANSPOSE:
	case HLO_SLICE:
	case HLO_CONCATENATE:
	case HLO_PAD:
	case HLO_IOTA:
	case HLO_REVERSE:
	case HLO_DYNAMIC_SLICE:
	case HLO_GATHER:
	case HLO_REDUCE_WINDOW:
	case HLO_DOT:
	case HLO_CONVOLUTION:
		break;
	case HLO_REDUCE:
		if (shape_is_tuple(x->shape))
			return "a variadic reduce";
		break;
	case HLO_DYNAMIC_UPDATE_SLICE:
	case HLO_SCATTER:
		/* a consumer only, at a fusion's root (decide: in_place_of;
		 * a variadic scatter's tuple result stops it below) */
		break;
	case HLO_WHILE:
		return "a while loop";
	case HLO_CONDITIONAL:
		return "a conditional";
	case HLO_CALL:
		return "a call";
	case HLO_CUSTOM_CALL:
		return "a custom-call (opaque to the compiler)";
	case HLO_SORT:
	case HLO_TOPK:
		return "a sort";
	case HLO_FFT:
	case HLO_CHOLESKY:
	case HLO_TRIANGULAR_SOLVE:
		return "a library call";
	case HLO_BATCH_NORM_GRAD:
	case HLO_BATCH_NORM_INFERENCE:
	case HLO_BATCH_NORM_TRAINING:
		return "a batch-norm op (XLA expands those before fusion)";
	case HLO_SELECT_AND_SCATTER:
		return "a select-and-scatter";
	case HLO_OPT_BARRIER:
	case HLO_DOMAIN:
	case HLO_ADD_DEPENDENCY:
	case HLO_AFTER_ALL:
		return "a scheduling or dependency marker";
	default:
		if (!(fl & XF_EW))
			return "an op that fusion does not handle";
		break;
	}
	if (x->shape->type == DT_TUPLE)
		return "an instruction with a tuple result";
	return NULL;
}

/* (fl: x's opcode's flags) */
static bool expensive(const HloInstr *x, unsigned fl)
{
	switch (x->op) {
	case HLO_DOT:
	case HLO_CONVOLUTION:
	case HLO_REDUCE:
	case HLO_REDUCE_WINDOW:
	case HLO_GATHER:
	case HLO_MAP:
		return true;
	case HLO_DIVIDE:
	case HLO_REMAINDER:
		/* Integer division by a constant is a multiply and shift. */
		return !(dtype_is_int(x->shape->type) && x->nops == 2 &&
			 x->ops[1]->op == HLO_CONSTANT);
	default:
		return (fl & XF_EXP) != 0;
	}
}

/* Does slot i of in-place update u hold a buffer it updates in place
 * (a dynamic-update-slice's operand 0, a scatter's first (n - 1) / 2)? */
static bool in_place_slot(const HloInstr *u, int i)
{
	return u->op == HLO_SCATTER ? i < (u->nops - 1) / 2 : i == 0;
}

/* What consumer c's operand o is to its in-place update u (u is c, or
 * the root of c's fused computation): 2 when u updates it in place
 * (through bitcasts and reshapes inside c), 1 when u reads it
 * otherwise, 0 when u does not read it. */
static int in_place_use(const HloInstr *c, const HloInstr *u, const HloInstr *o)
{
	int use = 0;
	for (int i = 0; i < u->nops; i++) {
		const HloInstr *q = u->ops[i];
		while (q && u != c && q->nops == 1 &&
		       (q->op == HLO_BITCAST || q->op == HLO_RESHAPE))
			q = q->ops[0];
		bool is_o = u == c ? q == o
				   : q && q->op == HLO_PARAMETER &&
					     q->param_no >= 0 &&
					     q->param_no < c->nops &&
					     c->ops[q->param_no] == o;
		if (is_o && in_place_slot(u, i))
			return 2;
		use |= is_o;
	}
	return use;
}

/* A reshape or bitcast that only adds or drops size-1 dimensions of
 * its operand (same element type; a bitcast's layouts order the others
 * alike, or it would move elements). */
static bool degenerate_reshape(const HloInstr *x)
{
	if ((x->op != HLO_RESHAPE && x->op != HLO_BITCAST) || x->nops != 1 ||
	    !x->ops[0] || !x->ops[0]->shape ||
	    x->ops[0]->shape->type != x->shape->type)
		return false;
	const Shape *in = x->ops[0]->shape;
	return x->op == HLO_RESHAPE ? shape_same_dims_but_ones(in, x->shape)
				    : shape_same_order_but_ones(in, x->shape);
}

static void scan_one(const HloInstr *x, Group *g)
{
	if (x->op == HLO_PARAMETER) {
		/* one that nothing reads does not count: its fusion passes
		 * an operand its computation does not read (nor one
		 * dropped, detached, drop_operand_late) */
		if (x->nusers || (x->parent && x->parent->root == x))
			g->nparams++;
		return;
	}
	g->ninstrs++;
	if (x->op == HLO_REDUCE)
		g->nreduce++;
	if (x->op == HLO_DOT || x->op == HLO_CONVOLUTION)
		g->ndot++;
	if (x->op == HLO_SCATTER)
		g->nscatter++;
	unsigned fl = hlo_opcode_flags(x->op);
	if (!g->costly && expensive(x, fl))
		g->costly = hlo_opcode_name(x->op);
	/* an iota or a broadcast reads no array of the loop's shape: part
	 * of an elementwise epilogue as much as a scalar constant; so is a
	 * reshape or bitcast that only adds or drops size-1 dimensions
	 * (JAX's keepdims: f32[1,4096] -> f32[1,4096,1]), which moves no
	 * element */
	if (g->elementwise && !(fl & XF_EW) && x->op != HLO_BROADCAST &&
	    x->op != HLO_IOTA &&
	    !(x->op == HLO_CONSTANT && shape_elements(x->shape) == 1) &&
	    !degenerate_reshape(x)) {
		g->elementwise = false;
		g->not_ew = hlo_opcode_name(x->op);
	}
}

Group fz_group_of(const HloInstr *x)
{
	Group g = {.elementwise = true};
	HloComp *fc = fz_fused_comp(x);
	if (!fc) {
		scan_one(x, &g);
		return g;
	}
	for (int i = 0; i < fc->n; i++)
		scan_one(fc->instrs[i], &g);
	return g;
}

/* The key holds while a pass only appends to fused computations or
 * drops from them (each changes the count or the last instruction); none
 * is re-sorted or edited in place until fz_finish, after the last
 * lookup. A pass that did either mid-way would have to clear the cache. */
/* The group of the fusion that calls fc as gc holds it, or NULL. */
static inline const Group *group_cached(const GroupCache *gc,
					const HloComp *fc)
{
	if (!gc || !fc || !fc->n)
		return NULL;
	size_t h = ((uintptr_t)fc >> 4) % GROUP_CACHE;
	const HloInstr *last = fc->instrs[fc->n - 1];
	return gc->e[h].fc == fc && gc->e[h].n == fc->n &&
		       gc->e[h].last == last
		       ? &gc->e[h].g
		       : NULL;
}

Group fz_group(GroupCache *gc, const HloInstr *x)
{
	HloComp *fc = fz_fused_comp(x);
	if (!gc || !fc || !fc->n)
		return fz_group_of(x);
	const Group *known = group_cached(gc, fc);
	if (known)
		return *known;
	Group g = fz_group_of(x);
	fz_group_put(gc, x, g);
	return g;
}

void fz_group_put(GroupCache *gc, const HloInstr *x, Group g)
{
	HloComp *fc = fz_fused_comp(x);
	if (!gc || !fc || !fc->n)
		return;
#if XR_ASAN
	Group f = fz_group_of(x);
	if (f.ninstrs != g.ninstrs || f.nparams != g.nparams ||
	    f.nreduce != g.nreduce || f.ndot != g.ndot ||
	    f.nscatter != g.nscatter || f.elementwise != g.elementwise ||
	    f.not_ew != g.not_ew ||
	    (f.costly ? !g.costly || strcmp(f.costly, g.costly) : !!g.costly)) {
		fprintf(stderr, "fz_group_put: the group of %s is not what a "
				"scan finds\n", x->name);
		abort();
	}
#endif
	size_t h = ((uintptr_t)fc >> 4) % GROUP_CACHE;
	gc->e[h].fc = fc;
	gc->e[h].n = fc->n;
	gc->e[h].last = fc->instrs[fc->n - 1];
	gc->e[h].g = g;
}

FKind fz_kind_from(const Group *g)
{
	return g->ndot                     ? FK_OUTPUT
	       : g->nreduce || g->nscatter ? FK_INPUT
					   : FK_LOOP;
}

int64_t fz_bytes_of(const HloInstr *x)
{
	int64_t b = shape_bytes(x->shape);
	return b > 0 ? b : 0;
}

/* Is v among the first n of list? */
bool fz_among(HloInstr *const *list, int n, const HloInstr *v)
{
	for (int i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

/* A fresh mark for telling operands apart: a list of up to 96 operands
 * is de-duplicated in one pass instead of pairwise. Marks are scratch
 * (hlo.h), so a const instruction may have its operands marked. */
unsigned fz_fresh_mark(const HloInstr *x)
{
	return hlo_new_mark(x->parent->module);
}

/* Marks o with mk; false when it already was. */
bool fz_first_time(const HloInstr *o, unsigned mk)
{
	if (o->mark == mk)
		return false;
	((HloInstr *)o)->mark = mk;
	return true;
}

/* A kernel on its own: not parameter, constant, tuple, gte or bitcast. */
bool fz_is_kernel(const HloInstr *x) { return hlo_launches_kernel(x->op); }

/* The instructions inside fusion c (fc its fused computation) that
 * read producer p, c's operand at none of [0, from) or [end, c->nops):
 * the users of c's fused parameters fed by p. */
static int inner_users_scan(const HloInstr *p, const HloInstr *c,
			    const HloComp *fc, int from, int end,
			    const HloInstr **out, int max)
{
	int k = 0;
	for (int i = from; i < end; i++) {
		if (c->ops[i] != p)
			continue;
		HloInstr *par = hlo_comp_param(fc, i);
		for (int u = 0; par && u < par->nusers && k < max; u++) {
			HloInstr *x = par->users[u];
			/* through a copy into the parameter's layout that
			 * fusion made (fz_as_layout): its readers read p */
			bool via = x->op == HLO_COPY &&
				   !strncmp(x->name, LAYOUT_COPY, sizeof LAYOUT_COPY - 1);
			for (int v = 0; v < (via ? x->nusers : 1) && k < max; v++) {
				HloInstr *y = via ? x->users[v] : x;
				if (!fz_among((HloInstr *const *)out, k, y))
					out[k++] = y;
			}
		}
	}
	return k;
}

/* The instructions inside consumer c (fc its fused computation, or
 * NULL) that read producer p: c itself, or the users of c's fused
 * parameters fed by p. p is c's operand at from and at none before it;
 * once: at none after it either (so only one parameter is looked at).
 * Inline: each decision asks. */
static inline int inner_users_at(const HloInstr *p, const HloInstr *c,
				 const HloComp *fc, int from, bool once,
				 const HloInstr **out, int max)
{
	if (!fc) {
		out[0] = c;
		return 1;
	}
	int end = once && from < c->nops ? from + 1 : c->nops;
	if (end == from + 1 && c->ops[from] == p) {
		/* the usual case: one parameter, whose users (a set) are
		 * the readers unless a copy is among them */
		HloInstr *par = hlo_comp_param(fc, from);
		int k = 0, n = !par ? 0 : par->nusers < max ? par->nusers : max;
		for (; k < n && par->users[k]->op != HLO_COPY; k++)
			out[k] = par->users[k];
		if (k == n)
			return k;
	}
	return inner_users_scan(p, c, fc, from, end, out, max);
}

static int inner_users(const HloInstr *p, const HloInstr *c,
		       const HloInstr **out, int max)
{
	const HloComp *fc = fz_fused_comp(c);
	if (!fc) {
		out[0] = c;
		return 1;
	}
	/* the scan without inner_users_at's short cut (sanitizer builds
	 * compare the two, decide) */
	return inner_users_scan(p, c, fc, 0, c->nops, out, max);
}

/* ---- deciding one pair -------------------------------------------------- */

/* The byte before a string packed by its address (pack_kept): no
 * packed string starts with it (names and numbers are printable). */
enum { KEPT_STR = 1 };

/* Packs string a into v's args at o; returns where the next one goes. */
static size_t pack_str(Verdict *v, size_t o, const char *a)
{
	size_t cap = sizeof v->args;
	if (o < cap) {
		size_t n = strlen(a);
#if XR_ASAN
		if (*a == KEPT_STR) {
			fprintf(stderr, "pack_str: \"%s\" starts with the "
					"mark of a kept string\n", a);
			abort();
		}
#endif
		if (n > cap - 1 - o)
			n = cap - 1 - o; /* past what is shown */
		memcpy(v->args + o, a, n);
		v->args[o + n] = 0;
		o += n + 1;
	}
	return o;
}

/* Packs string a, which lives as long as the program (a literal, an
 * opcode's name), by its address: most of decide's sentences name only
 * such strings, and copying them cost more than the rest of the
 * decision. Only where no string copied before it can have cut the
 * args short (say's layouts): the sentence reads the same. */
static size_t pack_kept(Verdict *v, size_t o, const char *a)
{
	if (o + 1 + sizeof a <= sizeof v->args) {
		v->args[o] = KEPT_STR;
		memcpy(v->args + o + 1, &a, sizeof a);
		o += 1 + sizeof a;
	}
	return o;
}

/* Packs number x (%d and %lld alike) into v's args at o. */
static size_t pack_num(Verdict *v, size_t o, long long x)
{
	if (o + sizeof x <= sizeof v->args) {
		memcpy(v->args + o, &x, sizeof x);
		o += sizeof x;
	}
	return o;
}

/* The sentences are packed, not printed: a pass says tens of thousands
 * of them and few are read (`fusions`, `why`). */
bool fz_say(Verdict *v, bool fused, const char *r, const char *fmt, ...)
{
	v->fused = fused;
	v->rule = fz_rule(r);
	v->fmt = fmt;
	size_t o = 0;
	va_list ap;
	va_start(ap, fmt);
	for (const char *p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
		if (p[1] == 's') {
			o = pack_str(v, o, va_arg(ap, const char *));
			p += 2;
		} else if (p[1] == 'd' || !strncmp(p + 1, "lld", 3)) {
			long long x = p[1] == 'd' ? va_arg(ap, int)
						  : va_arg(ap, long long);
			o = pack_num(v, o, x);
			p += p[1] == 'd' ? 2 : 4;
		} else {
			p += p[1] == '%' ? 2 : 1;
		}
	}
	va_end(ap);
	v->nargs = (int)o;
	return fused;
}

#if XR_ASAN
/* Does layout spell fmt's conversions (say)? */
static void check_layout(const char *fmt, const char *layout)
{
	const char *l = layout;
	bool ok = true;
	for (const char *p = strchr(fmt, '%'); p && ok; p = strchr(p, '%')) {
		char t = p[1] == 's'   ? 's'
			 : p[1] == 'd' ? 'd'
			 : !strncmp(p + 1, "lld", 3) ? 'l'
						      : 0;
		p += t == 'l' ? 4 : t || p[1] == '%' ? 2 : 1;
		if (t) {
			char got = *l == 'k' ? 's' : *l;
			ok = *l && got == t;
			/* a kept string after a copied one: the copy may
			 * have cut the args short where the kept one is
			 * not (pack_kept) */
			ok = ok && !(*l == 'k' && strchr(layout, 's') &&
				     strchr(layout, 's') < l);
			l++;
		}
	}
	if (!ok || *l) {
		fprintf(stderr, "say: layout \"%s\" is not that of \"%s\"\n",
			layout, fmt);
		abort();
	}
}
#endif

/* One value a sentence of decide names: its conversion ('s' %s, 'k' %s
 * of a string that lives as long as the program, packed by its address
 * (pack_kept; never after an 's'), 'd' %d, 'l' %lld) and the value. */
typedef struct Said {
	char t;
	const char *s;
	long long n;
} Said;

static inline Said copied(const char *s) { return (Said){'s', s, 0}; }
static inline Said kept(const char *s) { return (Said){'k', s, 0}; }
static inline Said num(int n) { return (Said){'d', NULL, n}; }
static inline Said lnum(long long n) { return (Said){'l', NULL, n}; }

/* fz_say for decide, which says a sentence for every decision: the rule
 * by its place in the table, and fmt's n values in a, each packed as its
 * letter says, so that no format is searched. Inline, and not
 * variadic: a call and a va_list cost more than packing a value or two
 * (sanitizer builds check the letters against the format). */
static inline __attribute__((always_inline)) bool
say(Verdict *v, bool fused, int rule, const char *fmt, int n, const Said *a)
{
#if XR_ASAN
	char layout[8] = {0};
	for (int i = 0; i < n && i < 7; i++)
		layout[i] = a[i].t;
	check_layout(fmt, layout);
#endif
	v->fused = fused;
	v->rule = rules[rule].name;
	v->fmt = fmt;
	size_t o = 0;
	for (int i = 0; i < n; i++)
		if (a[i].t == 's')
			o = pack_str(v, o, a[i].s);
		else if (a[i].t == 'k')
			o = pack_kept(v, o, a[i].s);
		else
			o = pack_num(v, o, a[i].n);
	v->nargs = (int)o;
	return fused;
}

void fz_text(const char *fmt, const unsigned char *args, int nargs,
	     char *out, size_t cap)
{
	size_t o = 0, a = 0, na = nargs > 0 ? (size_t)nargs : 0;
	if (!cap)
		return;
	for (const char *p = fmt; *p && o + 1 < cap; p++) {
		if (*p != '%') {
			/* the literal run up to the next conversion */
			size_t n = strcspn(p, "%");
			if (n > cap - 1 - o)
				n = cap - 1 - o;
			memcpy(out + o, p, n);
			o += n;
			p += n - 1;
			continue;
		}
		char num[32];
		const char *s = "";
		size_t n = 0;
		if (p[1] == 's' && a < na && args[a] == KEPT_STR &&
		    a + 1 + sizeof s <= na) {
			memcpy(&s, args + a + 1, sizeof s);
			n = strlen(s);
			a += 1 + sizeof s;
			p++;
		} else if (p[1] == 's') {
			if (a < na) {
				s = (const char *)args + a;
				n = strnlen(s, na - a);
			}
			a += n + 1;
			p++;
		} else if (p[1] == 'd' || !strncmp(p + 1, "lld", 3)) {
			long long x = 0;
			if (a + sizeof x <= na)
				memcpy(&x, args + a, sizeof x);
			a += sizeof x;
			s = hlo_numbered_name(num, sizeof num, "", 0, x);
			n = strlen(s);
			p += p[1] == 'd' ? 1 : 3;
		} else {
			s = "%";
			n = 1;
			p += p[1] == '%';
		}
		if (n > cap - 1 - o)
			n = cap - 1 - o;
		memcpy(out + o, s, n);
		o += n;
	}
	out[o] = 0;
}

/* "512 bytes", "16.0 KiB", "-1.5 MiB": what printf's "%.1f" makes of
 * |b| / 1024^i, computed in integers (printf of a double costs more than
 * the decision it describes; this runs for most of them). */
const char *fz_human(char *buf, size_t cap, int64_t b)
{
	static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	uint64_t u = b < 0 ? 0ull - (uint64_t)b : (uint64_t)b;
	int i = 0;
	while (i < 4 && u >> (10 * (i + 1)))
		i++;
	/* Above 2^53 printf sees (double)|b|, which has lost low bits:
	 * round what it rounds. */
	if (i == 0 || u > ((uint64_t)1 << 53)) {
		if (i == 0) {
			snprintf(buf, cap, "%lld byte%s", (long long)b,
				 u == 1 ? "" : "s");
			return buf;
		}
		double x = (double)u;
		for (int k = 0; k < i; k++)
			x /= 1024;
		snprintf(buf, cap, "%s%.1f %s", b < 0 ? "-" : "", x, unit[i]);
		return buf;
	}
	/* tenths = |b| * 10 / 2^(10 i), to nearest, ties to even (the
	 * quotient is exact in binary, so this is printf's rounding) */
	int sh = 10 * i;
	uint64_t t = u * 10, q = t >> sh, r = t & (((uint64_t)1 << sh) - 1),
		 half = (uint64_t)1 << (sh - 1);
	if (r > half || (r == half && (q & 1)))
		q++;
	char num[48];
	hlo_numbered_name(num, sizeof num, b < 0 ? "-" : "", b < 0,
			  (long long)(q / 10));
	size_t n = strlen(num);
	num[n++] = '.';
	num[n++] = (char)('0' + q % 10);
	num[n++] = ' ';
	size_t lu = strlen(unit[i]);
	memcpy(num + n, unit[i], lu + 1);
	if (cap) {
		size_t k = n + lu < cap - 1 ? n + lu : cap - 1;
		memcpy(buf, num, k);
		buf[k] = 0;
	}
	return buf;
}

/* Distinct operands of the fusion that fusing p into c makes, and the
 * bytes of the kernel it makes (those operands read, c's result
 * written). */
static int merged(const HloInstr *p, const HloInstr *c, int64_t *io)
{
	unsigned mk = fz_fresh_mark(c);
	((HloInstr *)p)->mark = mk; /* p's value is inside now */
	int n = 0;
	int64_t b = fz_bytes_of(c);
	for (int i = 0; i < c->nops; i++)
		if (fz_first_time(c->ops[i], mk)) {
			n++;
			b += fz_bytes_of(c->ops[i]);
		}
	for (int i = 0; i < p->nops; i++)
		if (fz_first_time(p->ops[i], mk)) {
			n++;
			b += fz_bytes_of(p->ops[i]);
		}
	if (io)
		*io = b;
	return n;
}

int fz_merged_operands(const HloInstr *p, const HloInstr *c)
{
	return merged(p, c, NULL);
}

void fz_shape_text(char *buf, size_t cap, const Shape *s)
{
	char own[256]; /* (most shapes: no allocation) */
	StrBuf b;
	sb_init_on(&b, own, sizeof own);
	shape_print(&b, s, false);
	snprintf(buf, cap, "%s", sb_text(&b));
	sb_free(&b);
}

/* What decide asks of consumer c, worked out once while c stays as it is:
 * a sweep offers c its operands one after another (fuse_consumer), and
 * each decision walked all of c's operands again. */
typedef struct Consumer {
	const HloInstr *c;
	HloComp *fc;     /* c's fused computation, or NULL */
	const char *why; /* fz_unfusible(c) */
	bool grouped;    /* g is fz_group(c) */
	Group g;
	/* c's operands, walked once (consumer_walk): each has mark, as
	 * long as the module's mark generation is still mark (nothing has
	 * marked an instruction since); nd are distinct; io counts their
	 * bytes and c's result's; repeats: one is there twice. */
	unsigned mark; /* 0: not walked */
	int nd;
	int nops; /* c->nops then */
	int64_t io;
	bool repeats;
} Consumer;

/* What producer() keeps of c, an instruction other than a fusion, or
 * NULL when its slot holds another. */
static inline const struct ProducerSeen *producer_kept(const GroupCache *gc,
							const HloInstr *c)
{
	const struct ProducerSeen *e =
		&gc->prod[((uintptr_t)c >> 4) % PRODUCER_CACHE];
	return e->x == c && e->id == c->id ? e : NULL;
}

/* k for consumer c as it is now. A consumer that is no fusion was
 * mostly offered to its own consumers as a producer a moment ago (they
 * come first, fuse_comp): what producer() kept of it then holds. */
static void consumer_init(Consumer *k, GroupCache *gc, const HloInstr *c)
{
	const struct ProducerSeen *e =
		gc && c->op != HLO_FUSION ? producer_kept(gc, c) : NULL;
	if (!e) {
		*k = (Consumer){.c = c, .fc = fz_fused_comp(c),
				.why = fz_unfusible(gc, c)};
		return;
	}
	*k = (Consumer){.c = c, .why = e->why};
	if (!e->why) {
		k->g = e->g;
		k->grouped = true;
	}
#if XR_ASAN
	Group g = fz_group_of(c);
	if (fz_unfusible(gc, c) != e->why ||
	    (!e->why &&
	     (g.ninstrs != e->g.ninstrs || g.nparams != e->g.nparams ||
	      g.nreduce != e->g.nreduce || g.ndot != e->g.ndot ||
	      g.nscatter != e->g.nscatter || g.costly != e->g.costly ||
	      g.elementwise != e->g.elementwise || g.not_ew != e->g.not_ew))) {
		fprintf(stderr, "consumer_init: %s is not what it was\n",
			c->name);
		abort();
	}
#endif
}

static void consumer_walk_all(Consumer *k)
{
	const HloInstr *c = k->c;
	unsigned mk = fz_fresh_mark(c);
	int nd = 0;
	int64_t io = fz_bytes_of(c);
	bool repeats = false;
	for (int i = 0; i < c->nops; i++) {
		const HloInstr *o = c->ops[i];
		if (!o)
			continue;
		if (fz_first_time(o, mk)) {
			nd++;
			io += fz_bytes_of(o);
		} else {
			repeats = true;
		}
	}
	k->mark = mk;
	k->nd = nd;
	k->nops = c->nops;
	k->io = io;
	k->repeats = repeats;
}

/* k's walk, again only when an instruction was marked since (each
 * decision asks). */
static inline void consumer_walk(Consumer *k)
{
	if (!k->mark || k->mark != k->c->parent->module->mark_gen)
		consumer_walk_all(k);
}

/* Does c read p at an index before i (fuse_consumer offers each operand
 * once)? No, when the walk still holds and found no operand twice: a
 * look at each earlier operand, for each operand, cost more than the
 * decisions' walks. */
static inline bool consumer_read_before(const Consumer *k, int i,
					const HloInstr *p)
{
	const HloInstr *c = k->c;
	bool none = k->mark && k->mark == c->parent->module->mark_gen &&
		    !k->repeats;
#if XR_ASAN
	if (none && (k->nops != c->nops || fz_among(c->ops, i, p))) {
		fprintf(stderr, "consumer_read_before: %s reads %s twice\n",
			c->name, p->name);
		abort();
	}
#endif
	return !none && fz_among(c->ops, i, p);
}

#if XR_ASAN
/* k's walk as a walk without marks would find it, and c's marks. */
static void check_walk(const Consumer *k)
{
	const HloInstr *c = k->c;
	int nd = 0;
	int64_t io = fz_bytes_of(c);
	bool ok = k->nops == c->nops && !k->repeats;
	for (int i = 0; i < c->nops && ok; i++) {
		const HloInstr *o = c->ops[i];
		ok = o && o->mark == k->mark && !fz_among(c->ops, i, o);
		nd++;
		io += ok ? fz_bytes_of(o) : 0;
	}
	if (!ok || nd != k->nd || io != k->io) {
		fprintf(stderr, "consumer_grew: the walk of %s is not what a "
				"walk finds\n", c->name);
		abort();
	}
}
#endif

/* k once p (which c read at one index only) is fused into consumer c:
 * the fusion k->c became (fz_wrap), or k->c grown. A consumer that
 * fused stays fusible, and its group is in the cache (fuse_into). The
 * walk goes on from what it found while nothing has marked an
 * instruction since: a wrap reads c's operands once each, in order; a
 * fusion takes p's slot out and appends the operands of p that c did not
 * read (fz_copy_into, fz_param_for). Each fusion walked all of c's
 * operands again. */
static void consumer_grew(Consumer *k, GroupCache *gc, const HloInstr *c,
			  const HloInstr *p)
{
	bool walked = k->mark && k->mark == c->parent->module->mark_gen &&
		      (!k->repeats || k->c != c) && p->mark == k->mark;
	Consumer was = *k;
	*k = (Consumer){.c = c, .fc = fz_fused_comp(c)};
#if XR_ASAN
	if (fz_unfusible(gc, c)) {
		fprintf(stderr, "consumer_grew: %s is not fusible\n", c->name);
		abort();
	}
#else
	(void)gc;
#endif
	/* those of c's operands the walk saw, p's slot gone */
	int kept = (was.c == c ? was.nops : was.nd) - 1;
	if (!walked || kept > c->nops)
		return; /* k->mark 0: walked when asked */
	unsigned mk = was.mark;
	((HloInstr *)p)->mark = 0; /* not c's operand any more */
	int nd = was.nd - 1;
	int64_t io = was.io - fz_bytes_of(p);
	for (int i = kept; i < c->nops; i++) {
		const HloInstr *o = c->ops[i];
		if (!o || !fz_first_time(o, mk))
			return; /* not as fz_param_for appends: walk again */
		nd++;
		io += fz_bytes_of(o);
	}
	k->mark = mk;
	k->nd = nd;
	k->nops = c->nops;
	k->io = io;
#if XR_ASAN
	check_walk(k);
#endif
}

static const Group *consumer_group(GroupCache *gc, Consumer *k)
{
	if (!k->grouped) {
		/* (a consumer that is not a fusion yet: itself, no cache) */
		const Group *g = group_cached(gc, k->fc);
		k->g = g ? *g : k->fc ? fz_group(gc, k->c) : fz_group_of(k->c);
		k->grouped = true;
	}
	return &k->g;
}

/* What fusing p into c (c uses p) does to the bytes moved. */
typedef struct PairBytes {
	int nops;          /* distinct operands of the fusion it makes */
	int64_t merged;    /* that kernel's bytes: those read, c's written */
	int64_t saved;     /* bytes moved before less after: p's kernel (if
			      it is one) and c's before; the fused kernel,
			      and p's own when its other users keep it */
	/* Reads of large arrays that a copy of p inside c adds: p's
	 * operands with at least p's element count that c does not read
	 * already (broadcasts, iotas and constants are recomputed, not
	 * read). */
	int64_t dup_reads;
} PairBytes;

/* cost_operand_bytes(p, i) without the call where p reads its operands
 * whole (most opcodes; a producer's every operand is asked about).
 * Sanitizer builds check it against the cost model. */
static inline int64_t operand_read(const HloInstr *p, int i)
{
	switch (p->op) {
	case HLO_FUSION:
	case HLO_SLICE:
	case HLO_DYNAMIC_SLICE:
	case HLO_GATHER:
	case HLO_DYNAMIC_UPDATE_SLICE:
	case HLO_SCATTER:
		return cost_operand_bytes(p, i);
	default:
		break;
	}
	int64_t read = fz_bytes_of(p->ops[i]);
#if XR_ASAN
	if (read != cost_operand_bytes(p, i)) {
		fprintf(stderr, "operand_read: %s reads %lld bytes of operand "
				"%d, the cost model says %lld\n",
			p->name, (long long)read, i,
			(long long)cost_operand_bytes(p, i));
		abort();
	}
#endif
	return read;
}

/* The producer's half of PairBytes, r.nops and r.merged holding c's:
 * p's reads, counted as the cost model counts them (cost_operand_bytes:
 * a slice, dynamic-slice or gather reads what it returns of its
 * operand, a fusion what its computation reads), but not those c reads
 * already (marked mk), p itself or p's own repeats; then the saving,
 * io_c being c's operands (p's value among them when c reads it) and
 * result. */
static inline void producer_half(PairBytes *r, const HloInstr *p,
				 unsigned mk, int64_t io_c)
{
	int64_t io_p = fz_bytes_of(p), n = shape_elements(p->shape);
	for (int i = 0; i < p->nops; i++) {
		const HloInstr *o = p->ops[i];
		if (!o)
			continue;
		int64_t read = operand_read(p, i);
		bool again = fz_among(p->ops, i, o);
		if (!again)
			io_p += read;
		if (again || o == p || o->mark == mk)
			continue; /* read by c already, or p's own repeat */
		r->nops++;
		r->merged += read;
		if (o->op != HLO_BROADCAST && o->op != HLO_IOTA &&
		    o->op != HLO_CONSTANT && shape_elements(o->shape) >= n)
			r->dup_reads += read;
	}
	bool kernel = fz_is_kernel(p),
	     kept = (p->nusers > 1 || p->parent->root == p) && kernel;
	int64_t own = kernel ? io_p : 0;
	r->saved = io_c + own - (r->merged + (kept ? own : 0));
}

/* Fills e's half (producer_half's figures of p that no consumer
 * changes). */
static void producer_keep_half(struct ProducerSeen *e, const HloInstr *p)
{
	int64_t io_p = fz_bytes_of(p), n = shape_elements(p->shape);
	int k = 0;
	for (int i = 0; i < p->nops; i++) {
		const HloInstr *o = p->ops[i];
		if (!o || fz_among(p->ops, i, o))
			continue;
		int64_t read = operand_read(p, i);
		io_p += read;
		if (o == p)
			continue;
		if (k == PRODUCER_OPS) {
			e->nhalf = -1;
			return;
		}
		e->half[k].o = o;
		e->half[k].read = read;
		e->half[k].large = o->op != HLO_BROADCAST &&
				   o->op != HLO_IOTA &&
				   o->op != HLO_CONSTANT &&
				   shape_elements(o->shape) >= n;
		k++;
	}
	e->nhalf = k;
	e->kernel = fz_is_kernel(p);
	e->io = io_p;
}

/* producer_half from e's half, kept by producer (its sums in locals, not
 * through r: each decision adds them up). */
static inline void producer_half_kept(PairBytes *r, const HloInstr *p,
				      const struct ProducerSeen *e,
				      unsigned mk, int64_t io_c)
{
	int nops = r->nops;
	int64_t merged = r->merged, dup = r->dup_reads;
	for (int i = 0; i < e->nhalf; i++) {
		if (e->half[i].o->mark == mk)
			continue; /* read by c already */
		nops++;
		merged += e->half[i].read;
		if (e->half[i].large)
			dup += e->half[i].read;
	}
	bool kept = (p->nusers > 1 || p->parent->root == p) && e->kernel;
	int64_t own = e->kernel ? e->io : 0;
	*r = (PairBytes){nops, merged,
			 io_c + own - (merged + (kept ? own : 0)), dup};
}

/* c's half comes from the walk of its operands (consumer_walk), which
 * marked them. */
static PairBytes pair_bytes(const HloInstr *p, Consumer *k,
			    const struct ProducerSeen *ps)
{
	PairBytes r = {0};
	consumer_walk(k);
	unsigned mk = k->mark;
	int64_t pb = fz_bytes_of(p);
	/* c's reads of its other operands are the same before and after:
	 * they cancel out of saved (the whole operand will do) */
	bool p_in_c = p->mark == mk;
	r.nops = k->nd - p_in_c;
	r.merged = k->io - (p_in_c ? pb : 0); /* p's value is inside now */
	if (ps->nhalf >= 0)
		producer_half_kept(&r, p, ps, mk, k->io);
	else
		producer_half(&r, p, mk, k->io);
	return r;
}

/* pair_bytes without a Consumer, from a walk over c's operands with a
 * mark of its own (fusion_judge, for `why`). */
static PairBytes pair_bytes_once(const HloInstr *p, const HloInstr *c)
{
	PairBytes r = {0};
	unsigned mk = fz_fresh_mark(c);
	((HloInstr *)p)->mark = mk; /* p's value is inside now */
	int64_t io_c = fz_bytes_of(c);
	bool p_in_c = false;
	for (int i = 0; i < c->nops; i++) {
		const HloInstr *o = c->ops[i];
		if (!o)
			continue;
		p_in_c |= o == p;
		if (fz_first_time(o, mk)) {
			r.nops++;
			io_c += fz_bytes_of(o);
		}
	}
	r.merged = io_c; /* c's operands but p, and c's result */
	producer_half(&r, p, mk, p_in_c ? io_c + fz_bytes_of(p) : io_c);
	return r;
}

#if XR_ASAN
/* pair_bytes the slow way, without marks: in the pass (whose walks
 * leave marks that are generations, fuse_comp) the consumer's marks must
 * still be there. */
static void check_pair_bytes(const HloInstr *p, const HloInstr *c,
			     PairBytes got)
{
	PairBytes r = {0};
	int64_t io_c = fz_bytes_of(c), pb = fz_bytes_of(p);
	bool p_in_c = false;
	for (int i = 0; i < c->nops; i++) {
		const HloInstr *o = c->ops[i];
		if (!o)
			continue;
		p_in_c |= o == p;
		if (o != p && !fz_among(c->ops, i, o)) {
			r.nops++;
			io_c += fz_bytes_of(o);
		}
	}
	r.merged = io_c;
	if (p_in_c)
		io_c += pb;
	int64_t io_p = pb, n = shape_elements(p->shape);
	for (int i = 0; i < p->nops; i++) {
		const HloInstr *o = p->ops[i];
		if (!o)
			continue;
		int64_t read = cost_operand_bytes(p, i);
		if (fz_among(p->ops, i, o))
			continue;
		io_p += read;
		if (o == p || fz_among(c->ops, c->nops, o))
			continue;
		r.nops++;
		r.merged += read;
		if (o->op != HLO_BROADCAST && o->op != HLO_IOTA &&
		    o->op != HLO_CONSTANT && shape_elements(o->shape) >= n)
			r.dup_reads += read;
	}
	bool kernel = fz_is_kernel(p),
	     kept = (p->nusers > 1 || p->parent->root == p) && kernel;
	int64_t own = kernel ? io_p : 0;
	r.saved = io_c + own - (r.merged + (kept ? own : 0));
	if (r.nops != got.nops || r.merged != got.merged ||
	    r.saved != got.saved || r.dup_reads != got.dup_reads) {
		fprintf(stderr, "pair_bytes: %s into %s is not what a walk "
				"finds\n", p->name, c->name);
		abort();
	}
}
#endif

/* Does every one of in[0..n) (instructions of one fused computation)
 * read the result of a reduce there, directly or through others: is
 * what reads the producer the epilogue, not the reduction's input? */
/* Whether a reduce in fc is reached from x through operands in fc,
 * without a stack: sweeps over fc's list (in no particular order while
 * the pass edits it) until one marks nothing new. For when there is no
 * memory for reads_a_reduce's stack (the answer is the same). */
static bool reaches_reduce_slowly(const HloInstr *x, const HloComp *fc,
				  unsigned mk)
{
	fz_first_time(x, mk);
	for (bool grew = true; grew;) {
		grew = false;
		for (int j = 0; j < fc->n; j++) {
			const HloInstr *y = fc->instrs[j];
			if (!y || y->parent != fc || y->mark != mk)
				continue;
			for (int k = 0; k < y->nops; k++) {
				const HloInstr *o = y->ops[k];
				if (!o || o->parent != fc)
					continue;
				if (o->op == HLO_REDUCE)
					return true;
				grew |= fz_first_time(o, mk);
			}
		}
	}
	return false;
}

static bool reads_a_reduce(const HloInstr *const *in, int n)
{
	if (n <= 0)
		return false;
	HloComp *fc = in[0]->parent;
	enum { SMALL = 64 };
	HloInstr *small[SMALL];
	HloInstr **stack =
		fc->n < SMALL ? small
			      : malloc(sizeof *stack * (size_t)(fc->n + 1));
	bool all = true;
	for (int i = 0; i < n && all && !stack; i++)
		all = reaches_reduce_slowly(in[i], fc, fz_fresh_mark(in[i]));
	for (int i = 0; i < n && all && stack; i++) {
		unsigned mk = fz_fresh_mark(in[i]);
		int top = 0;
		bool found = false;
		stack[top++] = (HloInstr *)in[i];
		while (top > 0 && !found) {
			HloInstr *x = stack[--top];
			for (int k = 0; k < x->nops && !found; k++) {
				HloInstr *o = x->ops[k];
				if (!o || o->parent != fc || !fz_first_time(o, mk))
					continue;
				found = o->op == HLO_REDUCE;
				stack[top++] = o;
			}
		}
		all = found;
	}
	if (stack != small)
		free(stack);
#if XR_ASAN
	/* the walk without a stack must agree (it runs only when memory
	 * is out: checked here on small computations) */
	bool slow = true;
	for (int i = 0; i < n && slow && fc->n < SMALL; i++)
		slow = reaches_reduce_slowly(in[i], fc, fz_fresh_mark(in[i]));
	if (fc->n < SMALL && slow != all) {
		fprintf(stderr,
			"reads_a_reduce: the walk without a stack "
			"disagrees in %s\n",
			fc->name);
		abort();
	}
#endif
	return all;
}

/* fz_unfusible(p), and fz_group(p) when that is NULL, through gc's
 * producer cache (own when there is none to use). */
static const struct ProducerSeen *producer(GroupCache *gc, const HloInstr *p,
					   struct ProducerSeen *own)
{
	if (!gc || p->op == HLO_FUSION) {
		own->why = fz_unfusible(gc, p);
		if (!own->why)
			own->g = fz_group(gc, p);
		own->nhalf = -1;
		return own;
	}
	struct ProducerSeen *e =
		&gc->prod[((uintptr_t)p >> 4) % PRODUCER_CACHE];
	if (e->x != p || e->id != p->id) {
		e->x = p;
		e->id = p->id;
		e->why = fz_unfusible(gc, p);
		if (!e->why) {
			e->g = fz_group_of(p);
			producer_keep_half(e, p);
		}
	}
#if XR_ASAN
	const char *why = fz_unfusible(gc, p);
	Group g = why ? e->g : fz_group_of(p);
	if (why != e->why || g.ninstrs != e->g.ninstrs ||
	    g.nparams != e->g.nparams || g.nreduce != e->g.nreduce ||
	    g.ndot != e->g.ndot || g.nscatter != e->g.nscatter ||
	    g.costly != e->g.costly || g.elementwise != e->g.elementwise ||
	    g.not_ew != e->g.not_ew) {
		fprintf(stderr, "producer: %s is not what it was\n", p->name);
		abort();
	}
#endif
	return e;
}

/* decide's part for consumer c ending in in-place update u (c itself,
 * or its fused root): true, with v said, when p may not join it. Its
 * buffer's producer stays out (the update writes where it is), so
 * does one that reads the buffer too (fused, it would read elements
 * the update wrote), and one with a hero of its own (the update's loop
 * is the kernel's). */
static bool in_place_refused(Verdict *v, const HloInstr *p, const HloInstr *c,
			     const HloInstr *u, const Group *gp)
{
	if (in_place_use(c, u, p) == 2)
		return !say(v, false, R_INTO_IN_PLACE_OPERAND,
			    "the consumer %s updates it in place: its "
			    "producer is not fused (the update writes into "
			    "that buffer)",
			    1, (Said[]){copied(u->name)});
	for (int i = 0; i < p->nops; i++)
		if (p->ops[i] && in_place_use(c, u, p->ops[i]) == 2)
			return !say(v, false, R_IN_PLACE_CONFLICT,
				    "the producer reads %s, which the consumer "
				    "%s updates in place: fused, it would read "
				    "elements the update has written",
				    2,
				    (Said[]){copied(p->ops[i]->name),
					     copied(u->name)});
	if (gp->nreduce || gp->ndot || gp->nscatter)
		return !say(v, false, R_BOTH_HERO,
			    "the producer contains a %s and the consumer %s "
			    "updates a buffer in place",
			    2,
			    (Said[]){kept(gp->ndot	    ? "dot or convolution"
					  : gp->nreduce ? "reduce"
							: "scatter"),
				     copied(u->name)});
	return false;
}

/* Decides producer p (c's operand at index at, and at none before) into
 * consumer k->c. Without gcache (fusion_judge) nothing is kept: no walk
 * of k->c's operands (see pair_bytes_once). Inline always: called for
 * every decision, and left to itself the compiler kept it out of line
 * or not as the pass around it grew (a call, with its saves of the
 * caller's registers, per decision). */
static inline __attribute__((always_inline)) bool
decide(GroupCache *gcache, const HloInstr *p, Consumer *k, int at,
       bool off, Verdict *v)
{
	fz_verdict_clear(v);
	const HloInstr *c = k->c;
	char b1[64], b2[64];
	/* the readers inside c, for fz_record_pair whatever the verdict
	 * (the walk tells whether p is at one index only) */
	const HloInstr **in = v->in;
	if (k->fc && gcache)
		consumer_walk(k);
	int nin = v->nin =
		inner_users_at(p, c, k->fc, at, gcache && !k->repeats, in, 16);
#if XR_ASAN
	const HloInstr *all[16];
	if (inner_users(p, c, all, 16) != nin ||
	    memcmp(all, in, sizeof *in * (size_t)nin)) {
		fprintf(stderr,
			"decide: the readers of %s in %s are not what "
			"a scan finds\n",
			p->name, c->name);
		abort();
	}
#endif
	if (k->why)
		return say(v, false, R_CONSUMER_NOT_FUSIBLE,
			   "the consumer is not fusible: it is %s", 1,
			   (Said[]){kept(k->why)});
	struct ProducerSeen own;
	const struct ProducerSeen *ps = producer(gcache, p, &own);
	if (ps->why)
		return say(v, false, R_PRODUCER_NOT_FUSIBLE,
			   "the producer is not fusible: it is %s", 1,
			   (Said[]){kept(ps->why)});
	/* an update in place writes its buffer: the end of a kernel */
	if (fz_in_place_of(p))
		return say(v, false, R_PRODUCER_NOT_FUSIBLE,
			   "the producer is not fusible: it is %s", 1,
			   (Said[]){kept(p->op == HLO_FUSION
						 ? "a fusion that updates a "
						   "buffer in place"
						 : "an in-place update")});
	/* From here on fusing is possible: what it would save counts. */
	PairBytes pb = gcache ? pair_bytes(p, k, ps) : pair_bytes_once(p, c);
#if XR_ASAN
	if (gcache)
		check_pair_bytes(p, c, pb);
#endif
	int nops = pb.nops;
	v->saved = pb.saved;
	if (off)
		return say(v, false, R_FUSION_OFF,
			   "fusion is off ('set fusion on' turns it back on)",
			   0, NULL);
	if (c->op == HLO_BITCAST)
		return say(v, false, R_CONSUMER_IS_BITCAST,
			   "not fusing into a single bitcast as consumer", 0,
			   NULL);
	const Group *gp = &ps->g, *gc = consumer_group(gcache, k);
	const HloInstr *u = fz_in_place_of(c);
	if (u && in_place_refused(v, p, c, u, gp))
		return false;
	for (int i = 0; i < nin; i++)
		if (in[i]->op == HLO_DOT || in[i]->op == HLO_CONVOLUTION)
			return say(
				v, false, R_INTO_LIBRARY_CALL,
				"the consumer %s is a %s: its operands are "
				"not fused (it runs as a library call)",
				2,
				(Said[]){copied(in[i]->name),
					 copied(hlo_opcode_name(in[i]->op))});
	if (gp->nreduce && gc->nreduce)
		return say(v, false, R_BOTH_REDUCE,
			   "both the producer and the consumer contain a "
			   "reduce",
			   0, NULL);
	if ((gp->nreduce || gp->ndot) && (gc->nreduce || gc->ndot))
		return say(v, false, R_BOTH_HERO,
			   "both the producer and the consumer contain a dot, "
			   "convolution or reduce",
			   0, NULL);
	/* a computation's result stays where it is, fused or not: one
	 * more reader outside */
	bool root = p->parent && p->parent->root == p;
	int others = p->nusers - 1 + root;
	if ((gp->nreduce || gp->ndot) &&
	    !shape_same_dims_but_ones(p->shape, c->shape)) {
		fz_shape_text(b1, sizeof b1, c->shape);
		fz_shape_text(b2, sizeof b2, p->shape);
		/* a fused consumer: its kernel's shape, not its own */
		return say(
			v, false, R_NOT_AN_EPILOGUE,
			c->op == HLO_FUSION
				? "fusion into the output of a %s would create "
				  "a loop fusion: the consumer is part of a "
				  "kernel of shape %s, not the result shape %s"
				: "fusion into the output of a %s would create "
				  "a loop fusion: the consumer's shape %s is "
				  "not the result shape %s",
			3,
			(Said[]){kept(gp->ndot ? "dot/convolution" : "reduce"),
				 copied(b1), copied(b2)});
	}
	if ((gp->nreduce || gp->ndot) && !gc->elementwise)
		return say(
			v, false, R_NOT_AN_EPILOGUE,
			"fusion into the output of a %s would create a "
			"loop fusion: the consumer %s a %s, not an "
			"elementwise op",
			3,
			(Said[]){kept(gp->ndot ? "dot/convolution" : "reduce"),
				 kept(c->op == HLO_FUSION ? "holds" : "is"),
				 kept(gc->not_ew ? gc->not_ew
						 : hlo_opcode_name(c->op))});
	if (others > 0 && gp->costly && root)
		return say(v, false, R_EXPENSIVE_DUPLICATED,
			   "the producer is expensive (%s) and would be "
			   "duplicated: it has %d other user%s (the "
			   "computation's result is one)",
			   3,
			   (Said[]){kept(gp->costly), num(others),
				    kept(others == 1 ? "" : "s")});
	if (others > 0 && gp->costly)
		return say(v, false, R_EXPENSIVE_DUPLICATED,
			   "the producer is expensive (%s) and would be "
			   "duplicated: it has %d other user%s",
			   3,
			   (Said[]){kept(gp->costly), num(others),
				    kept(others == 1 ? "" : "s")});
	int64_t dup_reads = others > 0 ? pb.dup_reads : 0;
	/* (the rule's own figures, not bytes_saved's: that one counts
	 * the graph as it stands, broadcast operands read whole) */
	if (others > 0 && dup_reads > fz_bytes_of(p))
		return say(v, false, R_DUPLICATION_COSTS_BYTES,
			   "the producer has %d user%s outside the fusion: "
			   "a copy of it would read %lld bytes of operands to "
			   "save reading its %lld (broadcasts, iotas and "
			   "constants not counted: they would be fused too)",
			   4,
			   (Said[]){num(others), kept(others == 1 ? "" : "s"),
				    lnum((long long)dup_reads),
				    lnum((long long)fz_bytes_of(p))});
	if (nops > FUSION_MAX_OPERANDS)
		return say(v, false, R_TOO_MANY_OPERANDS,
			   "fusion would exceed %d operands (%d)", 2,
			   (Said[]){num(FUSION_MAX_OPERANDS), num(nops)});
	if (gp->ninstrs + gc->ninstrs > FUSION_MAX_INSTRS)
		return say(v, false, R_TOO_LARGE,
			   "the fusion would exceed %d instructions (%d)", 2,
			   (Said[]){num(FUSION_MAX_INSTRS),
				    num(gp->ninstrs + gc->ninstrs)});
	Group both = *gc;
	both.nreduce += gp->nreduce;
	both.ndot += gp->ndot;
	v->kind = fz_kind_from(&both);
	if (others > 0 && root)
		return say(v, true, R_FUSED_DUPLICATED,
			   "cheap producer copied into the consumer; its %d "
			   "other user%s keep%s it (the computation's "
			   "result is one)",
			   3,
			   (Said[]){num(others), kept(others == 1 ? "" : "s"),
				    kept(others == 1 ? "s" : "")});
	if (others > 0)
		return say(v, true, R_FUSED_DUPLICATED,
			   "cheap producer copied into the consumer; its %d "
			   "other user%s keep%s it",
			   3,
			   (Said[]){num(others), kept(others == 1 ? "" : "s"),
				    kept(others == 1 ? "s" : "")});
	if (gp->nreduce)
		return say(v, true, R_REDUCE_EPILOGUE,
			   "elementwise epilogue fused into the reduction "
			   "(kInput)",
			   0, NULL);
	if (gp->ndot)
		return say(v, true, R_DOT_EPILOGUE,
			   "elementwise epilogue fused into the %s (kOutput)",
			   1, (Said[]){kept("dot/convolution")});
	if (gc->nreduce && c->op == HLO_FUSION && reads_a_reduce(v->in, nin))
		return say(v, true, R_REDUCE_EPILOGUE,
			   "producer fused into the epilogue of the "
			   "reduction (kInput)",
			   0, NULL);
	if (gc->nreduce)
		return say(v, true, R_FUSED_INTO_REDUCE,
			   "producer fused into the reduction's input "
			   "(kInput)",
			   0, NULL);
	return say(v, true, R_FUSED_LOOP,
		   "producer fused into its consumer (%s)", 1,
		   (Said[]){kept(kind_names[v->kind])});
}

/* ---- changing the graph ------------------------------------------------- */

static unsigned ptr_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15u;
	return (unsigned)(x >> 32);
}

/* What the pointer-keyed index probes (touched_at, fwd_at) look for. */
typedef struct PtrQuery {
	const Fz *z;
	const void *p;
} PtrQuery;

static bool same_touched(const void *ctx, int v)
{
	const PtrQuery *q = ctx;
	return q->z->touched[v] == q->p;
}

/* c's place in z->touched, or -1. */
static int touched_at(const Fz *z, const HloComp *c)
{
	PtrQuery q = {z, c};
	return fz_index_find(&z->touched_ix, ptr_hash(c), same_touched, &q);
}

/* fz_touch for c not touched yet (one just made). */
static void touch_new(Fz *z, HloComp *c)
{
	if (!fz_grow((void **)&z->touched, &z->cap_touched, z->ntouched + 1,
		     sizeof *z->touched) ||
	    !fz_index_add(&z->touched_ix, ptr_hash(c), z->ntouched)) {
		z->failed = true;
		return;
	}
	z->touched[z->ntouched++] = c;
}

/* fz_touch's quick answers, inline: the building steps below touch a
 * fused computation and the one it is in again and again. */
static inline bool touched_lately(const Fz *z, const HloComp *c)
{
	/* the last two: a fusion touches its computation and the one it
	 * is in by turns */
	int n = z->ntouched;
	return (n > 0 && z->touched[n - 1] == c) ||
	       (n > 1 && z->touched[n - 2] == c) || z->touched_known == c;
}

static inline void touch(Fz *z, HloComp *c)
{
	if (!touched_lately(z, c))
		fz_touch(z, c);
}

void fz_touch(Fz *z, HloComp *c)
{
	if (touched_lately(z, c))
		return;
	if (touched_at(z, c) < 0)
		touch_new(z, c);
	z->touched_known = c;
}

/* Candidate k of fz_fresh_name's search for base (n bytes, short):
 * base itself at 0, else base.k. buf: 128 bytes. Returns its length. */
static size_t fresh_candidate(char *buf, const char *base, size_t n, int k)
{
	assert(n < 100 && k >= 0);
	memcpy(buf, base, n);
	if (k) { /* as hlo_numbered_name writes it */
		char d[12];
		int nd = 0;
		unsigned u = (unsigned)k;
		do
			d[nd++] = (char)('0' + u % 10);
		while ((u /= 10) != 0);
		buf[n++] = '.';
		while (nd)
			buf[n++] = d[--nd];
	}
	buf[n] = 0;
	return n;
}

/* Candidate k for base, its length into *len: from z->fresh, where the
 * names from a counter are made one after another, the last one's
 * number incremented in place (base.9 -> base.10 moves the zeros
 * right) instead of base and every digit written again. The entry is
 * found by base's address (the callers' literals: base must not change
 * while z lives); buf (128 bytes) holds a name too long for it. */
static const char *fresh_text(Fz *z, const char *base, int k, size_t *len,
			      char *buf)
{
	struct FzFresh *f = z->fresh;
	enum { NF = sizeof z->fresh / sizeof z->fresh[0] };
	while (f < z->fresh + NF - 1 && f->base && f->base != base)
		f++;
	if (f->base != base) {
		size_t n = strlen(base);
		if (n + 12 > FZ_FRESH_TEXT) {
			*len = fresh_candidate(buf, base, n, k);
			return buf;
		}
		f->base = base;
		f->n = (int)n;
		f->k = -1;
	}
	if (k == f->k + 1 && f->k > 0) {
		char *d = f->text + f->n + 1;
		int i = f->len - f->n - 1;
		while (i > 0 && d[i - 1] == '9')
			d[--i] = '0';
		if (i > 0) {
			d[i - 1]++;
		} else {
			memmove(d + 1, d, (size_t)(f->len - f->n - 1));
			d[0] = '1';
			f->text[++f->len] = 0;
		}
		f->k = k;
	} else if (k != f->k) {
		f->len = (int)fresh_candidate(f->text, base, (size_t)f->n, k);
		f->k = k;
	}
#if XR_ASAN
	{
		char want[128];
		fresh_candidate(want, base, (size_t)f->n, k);
		assert(!strcmp(want, f->text) && strlen(want) == (size_t)f->len);
	}
#endif
	*len = (size_t)f->len;
	return f->text;
}

/* fz_fresh_name's search, unless *direct without the look into names
 * (the caller's make fails on a taken name instead), and past the names
 * also holds (NULL: none): the name (valid until the next name from
 * base; buf, 128 bytes, may hold it) and its length into *len, *next
 * moved past it. *direct then says whether the first name tried was
 * free. */
static const char *fresh_next(Fz *z, char *buf, const NameMap *names,
			      const NameMap *also, const char *base,
			      int *next, bool *direct, size_t *len)
{
	bool first = true;
	const char *t;
	for (;; (*next)++) {
		t = fresh_text(z, base, *next, len, buf);
		if (also && namemap_getn(also, t, *len))
			continue;
		if (!*direct && namemap_getn(names, t, *len)) {
			first = false;
			continue;
		}
		break;
	}
	(*next)++;
	*direct = *direct || first;
	return t;
}

/* base, base.1, base.2, ...: the first name not in names at or after
 * suffix *next (base: under 100 bytes). The counter only moves forward,
 * so naming n fusions costs O(n), not the O(n^2) of searching from
 * base.1 every time. */
const char *fz_fresh_name(Fz *z, const NameMap *names, const char *base,
			  int *next)
{
	char buf[128];
	bool direct = false;
	size_t len;
	const char *t =
		fresh_next(z, buf, names, NULL, base, next, &direct, &len);
	return arena_strndup(&z->m->arena, t, len);
}

/* Names from a counter are mostly free one after another: each is made
 * straight away (one hash of the name, in the map it joins) while the
 * last was free at the first try; a taken one (hlo_instr_new fails, and
 * wastes a little arena) switches back to looking first, which costs
 * a second hash but nothing in the arena, until a name is free at the
 * first try again. A module loaded with thousands of base.N names
 * wastes nothing on them. */
HloInstr *fz_new_fresh(Fz *z, HloComp *c, HloOpcode op, Shape *shape,
		       const char *base, int *next, bool *direct,
		       const NameMap *also, int nops, HloInstr *const *ops)
{
	char buf[128];
	for (;;) {
		size_t len;
		const char *t = fresh_next(z, buf, &c->names, also, base, next,
					   direct, &len);
		HloInstr *x = hlo_instr_new_n(c, op, shape, t, len, nops, ops);
		if (x)
			return x;
		if (!namemap_getn(&c->names, t, len)) {
			z->failed = true; /* out of memory */
			return NULL;
		}
		*direct = false;
	}
}

/* Room in new fused computation fc for what fusions mostly put there
 * (a consumer, its producers, their parameters, those dropped until
 * fz_finish: about a dozen), made at once instead of grown from four
 * slots by doubling. False on out of memory. */
static bool room_for_fusions(HloModule *m, HloComp *fc)
{
	enum { INSTRS = 16, PARAMS = 4 };
	HloInstr **v = arena_grow(&m->arena, fc->instrs, sizeof *v, &fc->cap,
				  INSTRS);
	HloInstr **p = v ? arena_grow(&m->arena, fc->pidx, sizeof *p,
				      &fc->cap_pidx, PARAMS)
			 : NULL;
	if (!p)
		return false;
	fc->instrs = v;
	fc->pidx = p;
	return true;
}

/* A new computation named as fz_fresh_name(z, &m->comp_names,
 * "fused_computation", &z->next_comp) would name it, made as
 * fz_new_fresh makes an instruction (hlo_comp_new fails on a taken
 * name). */
static HloComp *new_fused_comp(Fz *z)
{
	HloModule *m = z->m;
	char buf[128];
	for (;;) {
		size_t len;
		const char *t = fresh_next(z, buf, &m->comp_names, NULL,
					   "fused_computation", &z->next_comp,
					   &z->comp_direct, &len);
		HloComp *fc = hlo_comp_new_n(m, t, len);
		if (fc)
			return room_for_fusions(m, fc) ? fc : NULL;
		if (!namemap_getn(&m->comp_names, t, len))
			return NULL; /* out of memory */
		z->comp_direct = false;
	}
}

/* A fused computation nobody calls any more: taken out of the module
 * when the pass ends (all at once: one at a time is quadratic). */
void fz_drop_comp(Fz *z, HloComp *c)
{
	int at = touched_at(z, c);
	if (at >= 0)
		z->touched[at] = NULL; /* not re-sorted at the end */
	if (z->touched_known == c)
		z->touched_known = NULL;
	if (!fz_grow((void **)&z->dropped, &z->cap_dropped, z->ndropped + 1,
		     sizeof *z->dropped)) {
		z->failed = true;
		return;
	}
	z->dropped[z->ndropped++] = c;
}

void fz_set_kind(HloInstr *f, FKind k)
{
	/* the slot hlo_attr_set would fill, found at once: a fusion's kind
	 * is mostly its first attribute, set again after each fusion */
	HloAttr *a = NULL;
	for (int i = 0; i < f->nattrs && !a; i++)
		if (f->attrs[i].key == A_KIND)
			a = &f->attrs[i];
	if (a) { /* as hlo_attr_set leaves a slot it finds */
		memset(a, 0, sizeof *a);
		a->key = A_KIND;
		a->name = hlo_attr_name(A_KIND);
	} else {
		a = hlo_attr_set(f, A_KIND, NULL);
	}
	if (a)
		a->u.s = kind_names[k];
}

FKind fz_kind_of_fusion(GroupCache *gc, const HloInstr *f)
{
	Group g = fz_group(gc, f);
	return fz_kind_from(&g);
}

/* A new fusion instruction in outer, named by a name that no
 * instruction of the module has: HLO text may repeat a name in two
 * computations, but 'why', 'cost' and 'fuse' find a fusion by its name.
 * NULL on out of memory. */
static HloInstr *new_fusion(Fz *z, HloComp *outer, Shape *shape, int nops,
			    HloInstr *const *ops)
{
	NameMap *taken = &z->fusion_names;
	if (!z->fusion_names_made) {
		namemap_init(taken);
		z->fusion_names_made = true;
		for (int i = 0; i < z->m->ncomps; i++) {
			HloComp *c = z->m->comps[i];
			for (int j = 0; j < c->n; j++) {
				const char *s = c->instrs[j]->name;
				if (s[0] == 'f' && !strncmp(s, "fusion", 6) &&
				    namemap_add(taken, s, c->instrs[j]) < 0)
					return NULL;
			}
		}
	}
	/* the pass's own names differ by their suffix, which only grows;
	 * an empty map is not asked (a module not fused yet) */
	return fz_new_fresh(z, outer, HLO_FUSION, shape, "fusion",
			    &z->next_fusion, &z->fusion_direct,
			    taken->count ? taken : NULL, nops, ops);
}

const char FZ_UNNAMED[] = "(unnamed parameter)";

/* fz_tidied(fc), remembered for the computation last asked about (the
 * names of computations do not change within a pass) */
static bool tidied_cached(Fz *z, const HloComp *fc)
{
	if (z->tidied_of != fc) {
		z->tidied_of = fc;
		z->tidied_is = fz_tidied(fc);
	}
	return z->tidied_is;
}

/* May the parameters made in fc go unnamed until the pass ends
 * (Fz.lazy_params)? Where tidy_params names them and temporary names
 * would do (fz_param_for). */
static bool unnamed_in(Fz *z, const HloComp *fc)
{
	return z->lazy_params && z->temp_params && tidied_cached(z, fc);
}

/* Parameter number no of fc, named name (name.N where that is taken),
 * or when name is NULL unnamed (FZ_UNNAMED, not in fc's names): then
 * made and appended as hlo_instr_new would, its id taken at the same
 * point. NULL on out of memory. */
static HloInstr *new_param(HloComp *fc, Shape *shape, const char *name,
			   int64_t no)
{
	if (!name) /* with room for its first users, as any instruction */
		return hlo_param_new_unlisted(fc, shape, FZ_UNNAMED, no);
	HloInstr *par = hlo_instr_new_unique(fc, HLO_PARAMETER, shape, name, 0,
					     NULL);
	if (par) {
		par->param_no = no;
		hlo_comp_param_added(fc, par);
	}
	return par;
}

/* Turns c into a fusion instruction of its own, in c's place: a fused
 * computation holding a copy of c whose operands are parameters. With
 * producer p (an operand of c), for p no parameter and no operand of
 * the fusion: the fusion of p that follows (fuse_first) would drop them
 * at once. p's parameter's id is taken all the same (ids show in
 * names), the others are numbered and named as they would be once it
 * was dropped, and the copy (*copy) reads stand in p's slots until then:
 * a parameter of no computation, which no user list holds, to whatever
 * looks at the copy's operands meanwhile (scan_one) what p's parameter
 * would have been. *at: p's place among c's distinct operands (where it
 * would have been among the fusion's). */
static HloInstr *wrap(Fz *z, HloInstr *c, const HloInstr *p, HloInstr *stand,
		      HloInstr **copy, int *at)
{
	HloModule *m = z->m;
	HloComp *outer = c->parent;
	bool was_root = outer->root == c;
	HloComp *fc = new_fused_comp(z);
	/* ops, pars and mapped, nops + 1 each: on the stack when small */
	size_t k = (size_t)c->nops + 1;
	HloInstr *small[3 * 16];
	HloInstr **ops = k <= 16 ? small : malloc(sizeof *ops * 3 * k);
	HloInstr **pars = ops ? ops + k : NULL;
	if (!fc || !ops) {
		if (ops != small)
			free(ops);
		z->failed = true;
		return NULL;
	}
	int n = 0, np = 0; /* distinct operands; parameters made */
	/* fc is named fused_computation...: tidied, without a look at its
	 * name (here, and in fz_param_for) */
	assert(fz_tidied(fc));
	z->tidied_of = fc;
	z->tidied_is = true;
	bool unnamed = unnamed_in(z, fc);
	for (int i = 0; i < c->nops; i++) {
		int j = 0;
		while (j < n && ops[j] != c->ops[i])
			j++;
		if (j < n)
			continue;
		ops[n] = c->ops[i];
		pars[n] = NULL;
		if (ops[n] == p) {
			*at = n;
			m->next_id++; /* its parameter's */
			n++;
			continue;
		}
		char name[32];
		if (!unnamed) /* by its place among all, p's too */
			hlo_numbered_name(name, sizeof name, "param_", 6, n);
		pars[n] = new_param(fc, pass_shape_of(m, c->ops[i]),
				    unnamed ? NULL : name, np);
		if (!pars[n]) {
			z->failed = true;
			break;
		}
		n++;
		np++;
	}
	HloInstr **mapped = pars + k;
	HloInstr *f = NULL;
	*copy = NULL;
	if (!z->failed) {
		for (int i = 0; i < c->nops; i++)
			for (int j = 0; j < n; j++)
				if (ops[j] == c->ops[i])
					mapped[i] = pars[j];
		/* with p, c itself moves in (hlo_instr_move: its own block
		 * and name, its operands dropped as pass_detach would drop
		 * them below; its users are f's from below on) */
		*copy = p ? hlo_instr_move(c, fc, mapped) : NULL;
		if (!*copy)
			*copy = pass_copy_instr(fc, c, mapped);
		for (int i = 0; *copy && i < c->nops; i++)
			if (!mapped[i])
				(*copy)->ops[i] = stand;
		/* the fusion's operands: the parameters' */
		int w = 0;
		for (int j = 0; j < n; j++)
			if (ops[j] != p)
				ops[w++] = ops[j];
	}
	/* What a scan of fc finds: the copy, and its np parameters, each
	 * read by it. */
	Group g = {.elementwise = true, .nparams = np};
	if (*copy) {
		scan_one(*copy, &g);
		f = new_fusion(z, outer, pass_shape_of(m, c), np, ops);
	}
	/* f's attributes, made at once as fz_set_kind and hlo_attr_set
	 * would leave them: the kind first, as XLA prints it, and calls
	 * (its one computation after them) */
	HloAttr *a = f ? arena_alloc(&m->arena, sizeof *a * 2 +
						     sizeof(HloComp *))
			: NULL;
	if (ops != small)
		free(ops);
	if (!a) {
		/* (the pass fails and its module goes: no slot may keep
		 * stand, which is on the caller's stack) */
		for (int i = 0; *copy && i < (*copy)->nops; i++)
			if ((*copy)->ops[i] == stand)
				(*copy)->ops[i] = NULL;
		z->failed = true;
		return NULL;
	}
	HloComp **v = (HloComp **)(a + 2);
	v[0] = fc;
	a[0].key = A_KIND;
	a[0].name = hlo_attr_name(A_KIND);
	a[0].u.s = kind_names[fz_kind_from(&g)];
	a[1].key = A_CALLS;
	a[1].name = hlo_attr_name(A_CALLS);
	a[1].u.comps.n = 1;
	a[1].u.comps.v = v;
	f->attrs = a;
	f->nattrs = f->cap_attrs = 2;
	touch_new(z, fc);
	touch(z, outer);
	fz_group_put(z->groups, f, g);
	/* f is appended; the computation is re-sorted when the pass ends
	 * (topo_sort puts it just before its first user). fc's root is
	 * set after: a c moved in is in fc, the root hlo_replace_all_uses
	 * would move to f. */
	bool moved = *copy == c;
	hlo_replace_all_uses(c, f);
	if (moved && was_root)
		outer->root = f; /* (hlo_instr_move took it) */
	else if (!moved)
		pass_detach(c);
	fc->root = *copy;
	fc->root_explicit = true;
	fz_forward(z, c, f);
	return f;
}

HloInstr *fz_wrap(Fz *z, HloInstr *c)
{
	HloInstr *copy;
	int at;
	return wrap(z, c, NULL, NULL, &copy, &at);
}

/* fz_temp_params_ok(m), and into *no_fusions whether m has no fusion
 * instruction: one walk for both. */
static bool module_names_params(const HloModule *m, bool *no_fusions)
{
	bool ok = true, none = true;
	for (int i = 0; i < m->ncomps; i++) {
		const HloComp *c = m->comps[i];
		for (int k = 0; k < c->n; k++) {
			const HloInstr *x = c->instrs[k];
			none &= x->op != HLO_FUSION;
			if (x->name[0] == 'p' && x->op != HLO_PARAMETER &&
			    strncmp(x->name, "param", 5) == 0)
				ok = false;
		}
	}
	*no_fusions = none;
	return ok;
}

/* May new fused parameters take temporary names (fz_param_for)? Only
 * when no instruction other than a parameter has a name that starts
 * with "param": then no copy fused in can meet one. */
bool fz_temp_params_ok(const HloModule *m)
{
	bool none;
	return module_names_params(m, &none);
}

/* Are c's parameters named by number when the pass ends (tidy_params)?
 * Those of the fused computations the passes make, by their name. */
bool fz_tidied(const HloComp *c)
{
	return !c->is_entry && strncmp(c->name, "fused_computation", 17) == 0;
}

/* Takes fused parameter par out of its computation (pass_detach, where
 * one made unnamed is not in the names map). */
static void detach_param(HloInstr *par)
{
	if (par->name != FZ_UNNAMED) {
		pass_detach(par);
		return;
	}
	assert(par->nusers == 0);
	if (par->parent->root == par)
		par->parent->root = NULL;
	par->parent = NULL;
}

/* f's operand i goes (the parameter for it is gone already).
 * elsewhere: whether the operand is also in another slot of f (as
 * hlo_set_operand_known takes it). */
static void drop_op_known(HloInstr *f, int i, bool elsewhere)
{
	hlo_set_operand_known(f, i, NULL, elsewhere, false);
	for (int k = i; k + 1 < f->nops; k++) {
		HloInstr *o = f->ops[k + 1];
		f->ops[k] = o; /* user lists are sets: o stays a user of f */
	}
	f->nops--;
}

static void drop_op(HloInstr *f, int i)
{
	HloInstr *o = f->ops[i];
	bool elsewhere = false;
	for (int k = 0; k < f->nops && !elsewhere; k++)
		elsewhere = k != i && f->ops[k] == o;
	drop_op_known(f, i, elsewhere);
}

/* Removes f's operand i and the fused parameter it feeds (which must have
 * no users left), renumbering the parameters after it. */
void fz_drop_operand(HloInstr *f, int i)
{
	HloComp *fc = fz_fused_comp(f);
	HloInstr *par = hlo_comp_param(fc, i);
	if (par)
		detach_param(par);
	/* renumbered and compacted (pass_compact) in one walk */
	int w = 0;
	for (int k = 0; k < fc->n; k++) {
		HloInstr *q = fc->instrs[k];
		if (q->parent != fc)
			continue;
		if (q->op == HLO_PARAMETER && q->param_no > i)
			q->param_no--;
		fc->instrs[w++] = q;
	}
	fc->n = w;
	hlo_comp_param_dropped(fc, i);
	drop_op(f, i);
}

/* fz_drop_operand for pass fusion (par: the parameter for operand i)
 * without a walk over the computation: the parameters after it are
 * renumbered through its parameter index, when that holds f's parameters
 * exactly (else fz_drop_operand), and par stays in the list, detached,
 * until fz_finish compacts it. Walks of fused computations meanwhile
 * skip detached parameters (scan_one; fz_copy_into compacts a
 * computation it inlines). */
static void drop_operand_late(HloInstr *f, int i, HloInstr *par,
			      bool elsewhere)
{
	HloComp *fc = fz_fused_comp(f);
	bool exact = par && fc->npidx == f->nops && fc->pidx[i] == par;
	for (int k = i + 1; k < fc->npidx && exact; k++) {
		const HloInstr *q = fc->pidx[k];
		exact = q && q->parent == fc && q->param_no == k;
	}
	if (!exact) {
		fz_drop_operand(f, i);
		return;
	}
	detach_param(par);
	/* renumbered and moved down a slot in one walk (as
	 * hlo_comp_param_dropped moves them: i < npidx, par at i) */
	for (int k = i + 1; k < fc->npidx; k++) {
		HloInstr *q = fc->pidx[k];
		q->param_no--;
		fc->pidx[k - 1] = q;
	}
	fc->npidx--;
	drop_op_known(f, i, elsewhere);
}

/* param_for's parameter for o, the last operand of f, where it is named
 * at once: param_N by its number, the name tidy_params gives it at the
 * end. In a computation tidy_params renames (temp), where param_N is
 * often still held by a parameter renumbered since, a name from the
 * module's instruction count instead (no search for a free one): when
 * no other instruction is named param..., which a parameter holding
 * param_N would have pushed to another name. (Out of line: while
 * lazy_params, the parameters made there go unnamed, unnamed_in.) */
static __attribute__((noinline)) HloInstr *
named_param(Fz *z, HloInstr *f, HloInstr *o, int held, bool temp)
{
	char name[40];
	if (temp)
		hlo_numbered_name(name, sizeof name, "param.new.", 10,
				  z->m->next_id);
	else
		hlo_numbered_name(name, sizeof name, "param_", 6,
				  f->nops - 1 + held);
	return new_param(fz_fused_comp(f), pass_shape_of(z->m, o), name,
			 f->nops - 1);
}

/* The fused parameter of f for outer value o, made when f lacks one.
 * held: operands f would have besides (a producer that wrap left out,
 * whose parameter would still be there), which names count. */
static HloInstr *param_for(Fz *z, HloInstr *f, HloInstr *o, int held,
			   bool touched)
{
	HloComp *fc = fz_fused_comp(f);
	/* Use lists are exact: o is an operand of f exactly when f is one
	 * of its users, the shorter list to look at (a fusion of many
	 * operands mostly gains values read once or twice). */
	bool known = false;
	if (o->nusers < f->nops) {
		for (int k = 0; k < o->nusers && !known; k++)
			known = o->users[k] == f;
	} else {
		known = true;
	}
	for (int i = 0; known && i < f->nops; i++)
		if (f->ops[i] == o)
			return hlo_comp_param(fc, i);
#if XR_ASAN
	for (int i = 0; i < f->nops; i++)
		if (f->ops[i] == o) {
			fprintf(stderr, "fz_param_for: %s reads %s, not among "
					"its users\n",
				f->name, o->name);
			abort();
		}
#endif
	if (f != z->grown_of || f->ops != z->grown_ops ||
	    f->nops >= z->grown_cap) {
		/* room to grow: copied once per doubling, not per operand */
		int cap = f->nops < 4 ? 8 : 2 * f->nops;
		HloInstr **ops = arena_raw(&z->m->arena, sizeof *ops *
							  (size_t)cap);
		if (!ops) {
			z->failed = true;
			return NULL;
		}
		if (f->nops) /* (none: a wrap that left out its producer) */
			memcpy(ops, f->ops, sizeof *ops * (size_t)f->nops);
		f->ops = ops;
		z->grown_of = f;
		z->grown_ops = ops;
		z->grown_cap = cap;
	}
	f->ops[f->nops] = NULL;
	f->nops++;
	/* o is in no other slot (looked for above): f joins its users
	 * without hlo_set_operand's look over f's operands */
	hlo_set_operand_known(f, f->nops - 1, o, false, false);
	bool temp = z->temp_params && tidied_cached(z, fc);
	if (temp && !touched) /* (copy_into touched it) */
		touch(z, fc); /* so that tidy_params runs on it */
	HloInstr *par = temp && z->lazy_params /* unnamed_in */
				? new_param(fc, pass_shape_of(z->m, o), NULL,
					    f->nops - 1)
				: named_param(z, f, o, held, temp);
	if (!par)
		z->failed = true;
	return par;
}

HloInstr *fz_param_for(Fz *z, HloInstr *f, HloInstr *o)
{
	return param_for(z, f, o, 0, false);
}

/* v as an instruction of fused computation fc must be read: v itself,
 * or when a parameter that v stands for is laid out otherwise (it reads
 * its operand in its own layout, as a call does), a copy of v into that
 * layout. NULL on out of memory (z->failed set). */
HloInstr *fz_as_layout(Fz *z, HloComp *fc, HloInstr *v, const Shape *want)
{
	/* shapes are mostly shared (pass_shape_of): the same one first */
	if (!v || v->shape == want || shape_equal(v->shape, want))
		return v;
	/* shapes are shared, never changed, within the module */
	HloInstr *c = hlo_instr_new_unique(fc, HLO_COPY, (Shape *)want,
					   LAYOUT_COPY, 1, &v);
	if (!c)
		z->failed = true;
	fz_touch(z, fc);
	z->layout_copies++;
	return c;
}

/* fz_as_layout, without a call where the shape is v's own (shapes
 * are mostly shared: nearly always). */
static inline HloInstr *as_layout(Fz *z, HloComp *fc, HloInstr *v,
				  const Shape *want)
{
	return !v || v->shape == want ? v : fz_as_layout(z, fc, v, want);
}

/* A copy of s in a fused computation whose name was taken there (two
 * copies of one instruction meet when fusions merge) is renamed s.N, N
 * the first suffix free both there and in outer, the computation the
 * fusion is in: the copy keeps s's name in front and does not take the
 * name of another instruction (add.1 for a copy of add.57) that 'why'
 * and the log would confuse it with. False on out of memory. */
static bool unclash_from(HloInstr *copy, const char *was,
			 const HloComp *outer)
{
	if (!copy || copy->name == was || !strcmp(copy->name, was))
		return true;
	size_t k = strlen(was);
	if (!strncmp(copy->name, was, k) && copy->name[k] == '.' &&
	    !namemap_get(&outer->names, copy->name))
		return true; /* s.N already, and not another's name */
	char buf[256];
	return hlo_instr_rename(copy, pass_free_name(buf, sizeof buf, was,
						     &outer->names,
						     &copy->parent->names));
}

/* unclash_from for s's name (copy: s's copy). */
static bool unclash(HloInstr *copy, const HloInstr *s, const HloComp *outer)
{
	return unclash_from(copy, s->name, outer);
}

/* Does s's name (n bytes) end in .N (digits), as unique_name's stems
 * do? */
static bool numbered(const char *s, size_t n)
{
	size_t k = n;
	while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
		k--;
	return k < n && k > 0 && s[k - 1] == '.';
}

/* clash_name's s.N for a name (n bytes) ending in .N and taken in dst,
 * dst's name hints moved as the first naming would have; its length
 * in *len. */
static const char *clash_rename(Fz *z, HloComp *dst, const char *name,
				size_t n, const HloComp *outer, size_t *len)
{
	hlo_comp_skip_unique_name(dst, name, n);
	char buf[256];
	pass_free_namen(buf, sizeof buf, name, n, &outer->names, &dst->names,
			len);
	return arena_dup(&z->m->arena, buf, *len + 1);
}

/* The name unclash gives the copy of s made in dst, found at once: s's
 * own name when free in dst, else, when s's name ends in .N (then the
 * name hlo_comp_unique_name would give first, stem.M, is never of the
 * form s.N and unclash always renames), the free s.N (clash_rename).
 * Otherwise s's name, and the copy goes through unclash. NULL on out of
 * memory. The name's length is found once and handed on (no strlen
 * after). */
static const char *clash_name(Fz *z, HloComp *dst, const HloInstr *s,
			      const HloComp *outer)
{
	size_t n = strlen(s->name);
	if (!s->parent || s->parent->module != dst->module || n > 180 ||
	    !numbered(s->name, n) || !namemap_getn(&dst->names, s->name, n))
		return s->name;
	return clash_rename(z, dst, s->name, n, outer, &n);
}

/* What inline_comp's copy of s makes (clash_name, pass_copy_instr_as,
 * unclash), made of s itself, which moves into dst (its computation is
 * about to be dropped): the name, id, operands and place in each
 * operand's user list that the copy would get. The name is tried in dst
 * first: clash_name's look there is the same probe. s's users start
 * over: those moved after it (in post order, as the copies are made)
 * join again as the copies would. What s leaves behind (its old
 * computation's name map, the user lists of that computation's
 * parameters) is not kept up to date. NULL on out of memory. */
static HloInstr *move_as(Fz *z, HloComp *dst, HloInstr *s,
			 HloInstr *const *ops, const HloComp *outer)
{
	Arena *a = &dst->module->arena;
	const char *was = s->name, *name = was;
	bool plain = true; /* clash_name keeps s's name: unclash after */
	/* (each name's length and hash found once, mostly kept by s) */
	size_t n;
	unsigned h = hlo_name_hash(s, &n);
	int added = namemap_addh(&dst->names, name, n, h, s);
	if (added == 0) {
		if (n <= 180 && numbered(name, n)) {
			plain = false;
			name = clash_rename(z, dst, name, n, outer, &n);
			h = name ? namemap_key_hash(name, n) : 0;
			added = name ? namemap_addh(&dst->names, name, n, h, s)
				     : -1;
		}
		if (added == 0) { /* as instr_new's uniquify */
			name = hlo_comp_unique_name(dst, name);
			n = name ? strlen(name) : 0;
			h = name ? namemap_key_hash(name, n) : 0;
			added = name ? namemap_addh(&dst->names, name, n, h, s)
				     : -1;
		}
	}
	if (added != 1)
		return NULL;
	void *v = arena_grow(a, dst->instrs, sizeof *dst->instrs, &dst->cap,
			     dst->n + 1);
	if (!v)
		return NULL;
	dst->instrs = v;
	s->name = name;
	hlo_name_keep(s, n, h);
	hlo_instr_renew(s, dst);
	s->nusers = 0;
	s->user_hint = 0;
	for (int i = 0; i < s->nops; i++) {
		HloInstr *o = s->ops[i] = ops[i];
		if (!o || (o->nusers && o->users[o->nusers - 1] == s))
			continue; /* an earlier operand already */
		v = arena_grow(a, o->users, sizeof *o->users, &o->cap_users,
			       o->nusers + 1);
		if (!v)
			return NULL;
		o->users = v;
		o->users[o->nusers++] = s;
	}
	dst->instrs[dst->n++] = s;
	return !plain || unclash_from(s, was, outer) ? s : NULL;
}

/* An instruction of dst that computes what s would with operands sops
 * (pass_same_value), or NULL: among the users of sops[0], or for s
 * without operands (a constant, an iota) among dst's instructions. */
static HloInstr *same_in(const HloComp *dst, const HloInstr *s,
			 HloInstr *const *sops)
{
	if (s->nops == 0) {
		for (int i = 0; i < dst->n; i++) {
			HloInstr *d = dst->instrs[i];
			/* (one detached or moved out has another parent) */
			if (d->op == s->op && d->nops == 0 &&
			    d->parent == dst && pass_same_value(d, s, sops))
				return d;
		}
		return NULL;
	}
	const HloInstr *o = sops[0];
	for (int u = 0; o && u < o->nusers; u++) {
		HloInstr *d = o->users[u];
		if (d->op == s->op && d->parent == dst &&
		    pass_same_value(d, s, sops))
			return d;
	}
	return NULL;
}

/* fz_inline_comp_in, or with move fz_move_comp_in. */
static int inline_comp(Fz *z, HloComp *src, HloComp *dst, const HloComp *outer,
		       HloInstr *const *ops, int nops, HloInstr **po,
		       HloInstr **map, bool move)
{
	int n = hlo_comp_post_order_into(src, po);
	if (n < 0) {
		z->failed = true;
		return -1;
	}
	for (int i = 0; i < n; i++)
		po[i]->mark = (unsigned)i;
	HloInstr *small[16], **sops = small;
	int cap = 16;
	for (int i = 0; i < n && !z->failed; i++) {
		HloInstr *s = po[i];
		if (s->op == HLO_PARAMETER) {
			map[i] =
				s->param_no >= 0 && s->param_no < nops
					? fz_as_layout(z, dst, ops[s->param_no],
						       s->shape)
					: NULL;
			z->failed |= !map[i];
			continue;
		}
		if (s->nops >= cap) {
			HloInstr **v = sops == small ? NULL : sops;
			cap = 0;
			if (!fz_grow((void **)&v, &cap, s->nops + 1,
				     sizeof *v)) {
				z->failed = true;
				break;
			}
			sops = v;
		}
		for (int k = 0; k < s->nops; k++)
			sops[k] = map[s->ops[k]->mark];
		/* What dst computes already stays one instruction (two
		 * fusions that merge both had a copy of a producer they
		 * share): it is read instead, as XLA's HloCSE over fused
		 * computations after its fusion passes leaves it. */
		HloInstr *same = same_in(dst, s, sops);
		if (same) {
			map[i] = same;
			z->reused++;
			continue;
		}
		/* a tuple root is copied: the caller reads its operands */
		if (move && !(s == src->root && s->op == HLO_TUPLE)) {
			z->failed |= !(map[i] = move_as(z, dst, s, sops, outer));
			continue;
		}
		const char *nm = clash_name(z, dst, s, outer);
		map[i] = nm ? pass_copy_instr_as(dst, s, sops, nm) : NULL;
		z->failed |= !map[i] ||
			     (nm == s->name && !unclash(map[i], s, outer));
	}
	if (sops != small)
		free(sops);
	return z->failed ? -1 : n;
}

int fz_inline_comp_in(Fz *z, HloComp *src, HloComp *dst, const HloComp *outer,
		      HloInstr *const *ops, int nops, HloInstr **po,
		      HloInstr **map)
{
	return inline_comp(z, src, dst, outer, ops, nops, po, map, false);
}

int fz_move_comp_in(Fz *z, HloComp *src, HloComp *dst, const HloComp *outer,
		    HloInstr *const *ops, int nops, HloInstr **po,
		    HloInstr **map)
{
	return inline_comp(z, src, dst, outer, ops, nops, po, map, true);
}

int fz_inline_comp(Fz *z, HloComp *src, HloComp *dst, const HloComp *outer,
		   HloInstr *const *ops, int nops, HloInstr ***po,
		   HloInstr ***map)
{
	*po = malloc(sizeof **po * (size_t)(src->n + 1));
	*map = calloc((size_t)src->n + 1, sizeof **map);
	if (!*po || !*map) {
		free(*po);
		free(*map);
		*po = *map = NULL;
		z->failed = true;
		return -1;
	}
	return fz_inline_comp_in(z, src, dst, outer, ops, nops, *po, *map);
}

/* A copy of p inside f's computation with p's operands read through f's
 * parameters (a fusion p is inlined). held: as param_for's. move: p
 * itself instead, moved in (hlo_instr_move), when nothing but f reads
 * it and it is not its computation's root: the copy and p's detaching
 * after (fused) in one, p's own block and name reused. NULL on out of
 * memory. */
static HloInstr *copy_into(Fz *z, HloInstr *p, HloInstr *f, int held,
			   bool move)
{
	HloComp *fc = fz_fused_comp(f);
	touch(z, fc);
	touch(z, f->parent);
	HloInstr *small[16];
	HloInstr **ops = p->nops < 16 ? small
				      : malloc(sizeof *ops * (size_t)(p->nops + 1));
	if (!ops) {
		z->failed = true;
		return NULL;
	}
	HloComp *pc = fz_fused_comp(p);
	/* a parameter of f already there may be laid out otherwise than
	 * the operand a plain p reads (p's fused computation: inlining
	 * compares with its own parameters) */
	for (int i = 0; i < p->nops && !z->failed; i++) {
		ops[i] = param_for(z, f, p->ops[i], held, true);
		if (!pc)
			ops[i] = as_layout(z, fc, ops[i], p->ops[i]->shape);
	}
	HloInstr *r = NULL;
	if (z->failed) {
		/* nothing */
	} else if (!pc && (r = same_in(fc, p, ops))) {
		/* fc computes p's value already (another copy of p that
		 * came with a consumer fused before): read there */
		z->reused++;
	} else if (!pc) {
		/* (moved: its name was free in fc, as unclash wants it) */
		if (move && p->parent->root != p &&
		    (p->nusers == 0 || (p->nusers == 1 && p->users[0] == f)))
			r = hlo_instr_move(p, fc, ops);
		if (!r) {
			r = pass_copy_instr(fc, p, ops);
			if (!unclash(r, p, f->parent))
				r = NULL;
		}
	} else {
		/* Inline p's fused computation: its parameters map to ops
		 * (those dropped, drop_operand_late, taken out first). */
		HloInstr **po = NULL, **map = NULL;
		if (z->lazy_params)
			pass_compact(pc);
		int n = fz_inline_comp(z, pc, fc, f->parent, ops, p->nops, &po,
				       &map);
		if (n >= 0 && !z->failed)
			r = map[pc->root->mark];
		else
			z->failed = true;
		free(po);
		free(map);
	}
	if (ops != small)
		free(ops);
	if (!r)
		z->failed = true;
	return r;
}

HloInstr *fz_copy_into(Fz *z, HloInstr *p, HloInstr *f)
{
	return copy_into(z, p, f, 0, false);
}

/* What fusing p into f ends with, its copy pv made and read where p
 * was (g: f's group before, nops: its operand count then, copies and
 * reused: z->layout_copies and z->reused then): f's group and kind, and
 * p gone when nothing else uses it. */
static void fused(Fz *z, HloInstr *p, HloInstr *f, HloInstr *pv, Group g,
		  int nops, int copies, int reused)
{
	/* Scanned again: when p brings many instructions, or when the
	 * costly op is a division, which stops being costly once its
	 * constant divisor is fused in. */
	/* (costly is the opcode's name from the table: scan_one) */
	bool division = g.costly && (g.costly[0] == 'd' ||
				     g.costly[0] == 'r') &&
			(g.costly == hlo_opcode_name(HLO_DIVIDE) ||
			 g.costly == hlo_opcode_name(HLO_REMAINDER));
	if (z->reused != reused) {
		/* an instruction reused instead of copied: the computation
		 * may have gained nothing (its dropped parameters still in
		 * the list: drop_operand_late), which the cache takes for
		 * no change */
		g = fz_group_of(f);
		fz_group_put(z->groups, f, g);
	} else if (p->op == HLO_FUSION || division ||
		   z->layout_copies != copies) {
		g = fz_group(z->groups, f);
	} else {
		/* What a scan would find: the copy of p went to the end,
		 * and each operand came or went with its parameter. */
		scan_one(pv, &g);
		g.nparams += f->nops - nops;
		fz_group_put(z->groups, f, g);
	}
	/* (mostly the kind it had, in its first attribute: nothing to
	 * set) */
	FKind kind = fz_kind_from(&g);
	if (!f->nattrs || f->attrs[0].key != A_KIND ||
	    f->attrs[0].u.s != kind_names[kind])
		fz_set_kind(f, kind);
	if (pv == p) { /* moved in, not copied (copy_into) */
#if XR_ASAN
		for (int i = 0; i < p->nusers; i++)
			if (p->users[i]->parent != p->parent) {
				fprintf(stderr, "fused: %s moved into %s, "
						"still read by %s\n",
					p->name, f->name, p->users[i]->name);
				abort();
			}
#endif
		fz_forward(z, p, f);
		return;
	}
	/* a root stays (its only user was f, which nothing reads) */
	if (p->nusers == 0 && p->parent->root != p) {
		HloComp *pc = fz_fused_comp(p);
		pass_detach(p);
		fz_forward(z, p, f);
		if (pc)
			fz_drop_comp(z, pc);
	}
}

/* Fuses producer p into fusion f (f uses p): a copy of p inside, f's
 * parameters fed by p replaced by it; p goes when nothing else uses it.
 * at: p's first slot in f's operands. */
static void fuse_into(Fz *z, HloInstr *p, HloInstr *f, int at)
{
	Group g = fz_group(z->groups, f);
	int nops = f->nops, copies = z->layout_copies, reused = z->reused;
	HloInstr *pv = copy_into(z, p, f, 0, z->lazy_params);
	if (!pv)
		return;
	/* fc and f's computation are touched (fz_copy_into) */
	HloComp *fc = fz_fused_comp(f);
	/* p's slots, counted first: each drop then knows whether p stays
	 * in another slot without a look over f's operands */
	int left = 0;
#if XR_ASAN
	for (int i = 0; i < at && i < f->nops; i++)
		if (f->ops[i] == p) {
			fprintf(stderr, "fuse_into: %s is in slot %d of %s, "
					"before slot %d\n",
				p->name, i, f->name, at);
			abort();
		}
#endif
	for (int i = at; i < f->nops; i++)
		left += f->ops[i] == p;
	/* mostly p is in slot at alone: no walk down to it */
	for (int i = left > 1 ? f->nops - 1 : at; i >= at && left > 0; i--) {
		if (f->ops[i] != p)
			continue;
		left--;
		HloInstr *par = hlo_comp_param(fc, i);
		if (par)
			hlo_replace_all_uses(par,
					     as_layout(z, fc, pv, par->shape));
		if (z->lazy_params)
			drop_operand_late(f, i, par, left > 0);
		else
			fz_drop_operand(f, i);
	}
	fused(z, p, f, pv, g, nops, copies, reused);
}

/* fuse_into for the producer p that wrap left out of fusion f (copy:
 * the copy of the consumer in there, which reads stand in p's slots):
 * what fuse_into does once the parameter for p is there, less its
 * making and dropping. */
static void fuse_first(Fz *z, HloInstr *p, HloInstr *f, HloInstr *copy,
		       const HloInstr *stand)
{
	Group g = fz_group(z->groups, f);
	int nops = f->nops, copies = z->layout_copies, reused = z->reused;
	HloInstr *pv = copy_into(z, p, f, 1, z->lazy_params);
	HloComp *fc = fz_fused_comp(f);
	/* read as the parameter for p would have been, in p's shape */
	HloInstr *x = pv ? as_layout(z, fc, pv, pass_shape_of(z->m, p))
			 : NULL;
	if (!x) /* out of memory: p read through a parameter after all */
		x = fz_param_for(z, f, p);
	if (!x) {
		/* out of memory again (z->failed: the pass fails and its
		 * module goes): no slot may keep stand, which is on the
		 * caller's stack */
		for (int i = 0; i < copy->nops; i++)
			if (copy->ops[i] == stand)
				copy->ops[i] = NULL;
		return;
	}
	/* copy joins x's users once (x may be a parameter it reads
	 * already: the root of a fused p that passes an operand on) */
	bool had = false;
	for (int i = 0; x && i < copy->nops; i++)
		had |= copy->ops[i] == x;
	for (int i = 0; x && i < copy->nops; i++)
		if (copy->ops[i] == stand) {
			/* (stand's user list holds nothing to drop) */
			hlo_set_operand_known(copy, i, x, true, had);
			had = true;
		}
#if XR_ASAN
	/* as fuse_into leaves it: f's parameters numbered as its
	 * operands, the copy reading p's copy (or a parameter for p) */
	bool ok = !z->failed;
	for (int i = 0; ok && i < f->nops; i++) {
		const HloInstr *q = hlo_comp_param(fc, i);
		ok = q && q->param_no == i && q->parent == fc;
	}
	for (int i = 0; ok && i < copy->nops; i++)
		ok = copy->ops[i] != stand;
	if (!z->failed && !ok) {
		fprintf(stderr, "fuse_first: %s is not as fuse_into leaves "
				"it\n", f->name);
		abort();
	}
#endif
	if (pv)
		fused(z, p, f, pv, g, nops, copies, reused);
}

/* ---- program order -------------------------------------------------------- */


/* "param_<no>" in the module's arena, one string for all the
 * computations a pass tidies (names are never changed in place). NULL on
 * out of memory. */
static const char *param_name(Fz *z, int64_t no)
{
	bool keep = no >= 0 && no < FZ_PARAM_NAMES;
	if (keep && z->param_names[no])
		return z->param_names[no];
	char buf[48];
	hlo_numbered_name(buf, sizeof buf, "param_", 6, no);
	size_t n = strlen(buf);
	const char *s = arena_strndup(&z->m->arena, buf, n);
	if (keep && s) {
		z->param_names[no] = s;
		z->param_len[no] = (unsigned char)n;
		z->param_hash[no] = namemap_key_hash(s, n);
	}
	return s;
}

/* Enters nm, param_name(z, no), into fc's names for q (namemap_add),
 * with the length and hash found when nm was made. */
static int add_param_name(Fz *z, HloComp *fc, const char *nm, int64_t no,
			  HloInstr *q)
{
	if (no >= 0 && no < FZ_PARAM_NAMES && z->param_names[no] == nm)
		return namemap_addh(&fc->names, nm, z->param_len[no],
				    z->param_hash[no], q);
	return namemap_add(&fc->names, nm, q);
}

/* Names the fused parameters param_0, param_1, ... by number: each in one
 * step where its name is free (the usual case: most are right already),
 * else in two rounds, so a rename never meets a name still in use. */
static void tidy_params(Fz *z, HloComp *fc)
{
	char name[48];
	bool clash = false;
	/* compacted on the way (pass_compact): the parameters dropped late
	 * (drop_operand_late) go in the same walk */
	int w = 0;
	for (int i = 0; i < fc->n; i++) {
		HloInstr *q = fc->instrs[i];
		if (q->parent != fc)
			continue;
		fc->instrs[w++] = q;
		if (q->op != HLO_PARAMETER)
			continue;
		const char *nm = param_name(z, q->param_no);
		if (!nm || q->name == nm) {
			clash |= !nm;
			continue;
		}
		if (q->name == FZ_UNNAMED) {
			/* a rename without an old name to take out */
			if (add_param_name(z, fc, nm, q->param_no, q) == 1) {
				int64_t no = q->param_no;
				q->name = nm;
				if (no >= 0 && no < FZ_PARAM_NAMES &&
				    z->param_names[no] == nm)
					hlo_name_keep(q, z->param_len[no],
						      z->param_hash[no]);
				else
					hlo_name_forget(q);
			} else
				clash = true;
			continue;
		}
		if (!strcmp(q->name, nm))
			continue;
		if (!hlo_instr_rename(q, nm)) /* taken */
			clash = true;
	}
	fc->n = w;
	if (!clash)
		return;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < fc->n; i++) {
			HloInstr *q = fc->instrs[i];
			if (q->op != HLO_PARAMETER)
				continue;
			snprintf(name, sizeof name,
				 pass ? "param_%lld" : "param.tmp.%lld",
				 (long long)q->param_no);
			if (strcmp(q->name, name) && !hlo_comp_find(fc, name))
				hlo_instr_rename(q, name);
		}
}

/* fz_finish's work on touched computation c: compacted, its parameters
 * named by number where tidied (fz_tidied(c): tidy_params), sorted
 * operands first. Done twice, the second time changes nothing. */
static void finish_comp(Fz *z, HloComp *c, bool tidied)
{
	if (tidied)
		tidy_params(z, c); /* compacts c too */
	else
		pass_compact(c);
	if (!z->failed && !hlo_comp_sort_operands_first(c))
		z->failed = true;
}

/* Is c one of comps[0..nc-1]? */
static bool among_comps(HloComp *const *comps, int nc, const HloComp *c)
{
	for (int i = 0; i < nc; i++)
		if (comps[i] == c)
			return true;
	return false;
}

/* collect_groups is about to read fused computation fc: when fz_finish
 * left the fused computations to it (Fz.nlate), fc is finished now,
 * while its instructions are in the cache for collect_groups, instead of
 * in a walk of its own before. */
static void finish_late(Fz *z, HloComp *fc)
{
	if (!z->nlate)
		return;
#if XR_ASAN
	int at = touched_at(z, fc);
	if (at < 0 || !fz_tidied(fc)) {
		fprintf(stderr, "finish_late: %s was not left for later\n",
			fc->name);
		abort();
	}
	z->touched[at] = NULL;
#endif
	finish_comp(z, fc, true); /* (one the pass made: tidied) */
	z->nlate--;
}

/* ---- recording ------------------------------------------------------------ */

/* Copies the n bytes (n > 0) at s to t in words, the last one
 * overlapping the one before (a call to memcpy for a name of a dozen
 * bytes cost more than the copy). */
static inline void copy_short(char *t, const char *s, size_t n)
{
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8)
			memcpy(t + i, s + i, 8);
		memcpy(t + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(t, s, 4);
		memcpy(t + n - 4, s + n - 4, 4);
	} else {
		t[0] = s[0];
		t[n / 2] = s[n / 2];
		t[n - 1] = s[n - 1];
	}
}

/* A hash of the n bytes of s (n: its strlen), eight at a time: each
 * name the log stores is hashed once, and most are short. */
static unsigned text_hash(const char *s, size_t n)
{
	const uint64_t k = 0xbf58476d1ce4e5b9u;
	uint64_t h = 0x9e3779b97f4a7c15u ^ n, w;
	for (; n > 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * k;
	}
	/* the last 1 to 8 bytes (or none): the first four and the last
	 * four, which overlap when fewer than 8; below 4, three bytes
	 * that cover them */
	uint32_t a = 0, b = 0;
	if (n >= 4) {
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
	} else if (n) {
		a = (uint32_t)(unsigned char)s[0] << 16 |
		    (uint32_t)(unsigned char)s[n / 2] << 8 |
		    (unsigned char)s[n - 1];
	}
	w = (uint64_t)a << 32 | b;
	h = (h ^ w) * k;
	return (unsigned)(h >> 32) ^ (unsigned)h;
}

/* Slot h of the name cache now holds s, copied into the log and
 * hashed; -1 (the slot left empty) when out of memory. */
static __attribute__((noinline)) int rec_fill(Fz *z, int h, const char *s)
{
	size_t n = strlen(s);
	char *dup = arena_raw(&z->log->a, n + 1);
	z->rec_src[h] = dup ? s : NULL;
	if (!dup)
		return -1;
	copy_short(dup, s, n + 1);
	z->rec_dup[h] = dup;
	z->rec_hash[h] = text_hash(s, n);
	return h;
}

/* The cache slot of name s, with s's copy in the log and its hash (a
 * small cache by address: the module's names do not change during a
 * pass, and a producer, consumer or computation is named again and
 * again); -1 when out of memory. By the address over 16: names come
 * from arenas, which hand out multiples of 16 bytes (over 8, every
 * other slot stood empty and a name was copied again twice as often). */
static inline int rec_slot(Fz *z, const char *s)
{
	int h = (int)(((uintptr_t)s >> 4) % FZ_REC_CACHE);
	return z->rec_src[h] == s ? h : rec_fill(z, h, s);
}

/* s copied into the log: the cache's copy, else a new one (the cache
 * left as it is: for names looked up once, when no decision is
 * recorded any more). NULL when out of memory. */
static char *rec_copy(Fz *z, const char *s)
{
	int h = (int)(((uintptr_t)s >> 4) % FZ_REC_CACHE);
	if (z->rec_src[h] == s)
		return z->rec_dup[h];
	size_t n = strlen(s) + 1;
	char *dup = arena_raw(&z->log->a, n);
	if (dup)
		copy_short(dup, s, n);
	return dup;
}

/* s copied into the log, or the copy made earlier for the same pointer. */
static inline char *rec_dup(Fz *z, const char *s)
{
	int h = rec_slot(z, s);
	return h >= 0 ? z->rec_dup[h] : NULL;
}

static bool same_from(const void *ctx, int v)
{
	const PtrQuery *q = ctx;
	return q->z->fwd[v].from == q->p;
}

/* fwd_ix made from fwd when first asked: forwards are many (one per
 * fusion made or consumer wrapped) and lookups few (mostly when the
 * pass settles its decisions), and an index kept up at each forward
 * cost more than the lookups saved. False on out of memory (z->failed
 * set). */
static bool fwd_index(Fz *z)
{
	if (!fz_index_reserve(&z->fwd_ix, z->nfwd)) {
		z->failed = true;
		return false;
	}
	/* in the order of the forwards, as adding them one by one would
	 * place them */
	for (int i = 0; i < z->nfwd; i++)
		if (!fz_index_add(&z->fwd_ix, ptr_hash(z->fwd[i].from), i)) {
			z->failed = true;
			return false;
		}
	z->fwd_indexed = true;
	return true;
}

/* Where kernel k was forwarded (its entry in fwd), or -1. */
static int fwd_at(Fz *z, const HloInstr *k)
{
	if (!z->fwd_indexed && !fwd_index(z))
		return -1;
	PtrQuery q = {z, k};
	return fz_index_find(&z->fwd_ix, ptr_hash(k), same_from, &q);
}

/* kernel_now when it has to look. */
static const HloInstr *kernel_find(Fz *z, const HloInstr *k)
{
	const HloInstr *r = k;
	for (int hops = 0; r; hops++) {
		int at = fwd_at(z, r);
		if (at < 0)
			break;
		r = z->fwd[at].to;
		if (hops > 0) /* shortcut for the next lookup of k */
			z->fwd[fwd_at(z, k)].to = r;
	}
	z->now_from = k;
	z->now_to = r;
	z->now_nfwd = z->nfwd;
	return r;
}

/* The kernel k is part of now (k itself when it was not forwarded). The
 * answer is kept until the next forward: a consumer's decisions come one
 * after another, and settle_decisions goes through them in that order. */
static inline const HloInstr *kernel_now(Fz *z, const HloInstr *k)
{
	if (!k || !z->nfwd)
		return k;
	if (k == z->now_from && z->nfwd == z->now_nfwd)
		return z->now_to;
	return kernel_find(z, k);
}

/* kernel_now(k) without a look when k is still in its computation:
 * every kernel forwarded was taken out of its computation first, or
 * moved into a fused one with a new id (hlo_instr_move: the caller
 * tells those by the id it kept), and the passes record their
 * decisions in the kernel they are working on, which is in place
 * (sanitizer builds check that such a kernel was not forwarded). */
static inline const HloInstr *kernel_current(Fz *z, const HloInstr *k)
{
	if (!k || !k->parent)
		return kernel_now(z, k);
#if XR_ASAN
	if (z->nfwd && fwd_at(z, k) >= 0) {
		fprintf(stderr, "kernel_current: %s was forwarded but is "
				"still in place\n",
			k->name);
		abort();
	}
#endif
	return k;
}

/* The kernel decision v of the log was made in, NULL when unknown. */
static const HloInstr *kernel_of(const Fz *z, int v)
{
	int i = v - z->log_first;
	return z->kern_started && i >= 0 && i < z->nkern ? z->kern[i].k : NULL;
}

typedef struct DecisionQuery {
	const Fz *z;
	const char *comp, *prod, *cons; /* the module's or the log's */
	/* their copies in the log (NULL: not known) */
	const char *dcomp, *dprod, *dcons;
	bool siblings;
	const HloInstr *kernel; /* as it was when recorded (kernel_now) */
} DecisionQuery;

/* Is the log's name a the name s (the module's, or the log's own)? The
 * same pointer, or dup, the copy rec_dup made of s, is the same name
 * without comparing the text. */
static inline bool same_name(const char *a, const char *s, const char *dup)
{
	return a == s || a == dup || !strcmp(a, s);
}

static bool same_decision(const void *ctx, int v)
{
	const DecisionQuery *q = ctx;
	const FusionDecision *d = &q->z->log->d[v];
	return kernel_of(q->z, v) == q->kernel && d->siblings == q->siblings &&
	       same_name(d->consumer, q->cons, q->dcons) &&
	       same_name(d->producer, q->prod, q->dprod) &&
	       same_name(d->comp, q->comp, q->dcomp);
}

/* The key of a decision's names: the three words' hashes combined. */
static unsigned decision_names(unsigned comp, unsigned prod, unsigned cons)
{
	unsigned h = comp;
	h = (h ^ prod) * 0x01000193u;
	h = (h ^ (h >> 15)) * 0x2c1b3c6du;
	return (h ^ cons) * 0x01000193u;
}

/* The key of a decision: its names and the kernel it was made in. */
static unsigned decision_hash(unsigned names, const HloInstr *kernel)
{
	return names ^ (kernel ? ptr_hash(kernel) : 0);
}

/* Does slot s of seen hold a decision it may find (seen_from on)? */
static inline bool seen_live(const Fz *z, const struct FzSlot *s)
{
	return s->v > z->seen_from; /* v: the decision + 1 */
}

/* Decision v, of key h, into seen (and seen_all in sanitizer builds). */
static inline __attribute__((always_inline)) bool
seen_add(Fz *z, unsigned h, int v)
{
	FzIndex *ix = &z->seen;
	/* (twice the room, only the live entries placed again: a stale
	 * one met before a live one on its probe would end the probe) */
	if ((ix->n + 1) * 2 > ix->cap &&
	    !fz_index_resize(ix, ix->cap ? ix->cap * 2 : 64, z->seen_from))
		return false;
#if XR_ASAN
	if (!fz_index_add(&z->seen_all, h, v))
		return false;
#endif
	unsigned mask = (unsigned)ix->cap - 1, i = h & mask;
	while (seen_live(z, &ix->slot[i]))
		i = (i + 1) & mask;
	ix->slot[i].h = h;
	ix->slot[i].v = v + 1;
	ix->n++;
	return true;
}

/* A consumer's decisions from here on: the fusion pass's seen forgets
 * the ones before, no longer looked for (its live entries were half its
 * slots at most: the table stays as it is). */
static void seen_restart(Fz *z)
{
	if (z->seen_calls && z->log) {
		z->seen_from = z->log->n;
		z->seen.n = 0;
	}
}

/* Could decision j (of kern) move to kernel to without meeting one of
 * the same names there? */
static bool rekey_free(const Fz *z, int j, const HloInstr *to)
{
	const FusionLog *l = z->log;
	const FusionDecision *d = &l->d[z->log_first + j];
	unsigned h = decision_hash(z->kern[j].names, to);
	const FzIndex *ix = &z->seen;
	unsigned mask = (unsigned)ix->cap - 1;
	for (unsigned i = h & mask; seen_live(z, &ix->slot[i]);
	     i = (i + 1) & mask) {
		int v = ix->slot[i].v - 1;
		const FusionDecision *e = &l->d[v];
		if (ix->slot[i].h == h && kernel_of(z, v) == to &&
		    e->siblings == d->siblings &&
		    same_name(e->consumer, d->consumer, NULL) &&
		    same_name(e->producer, d->producer, NULL) &&
		    same_name(e->comp, d->comp, NULL))
			return false;
	}
	return true;
}

/* Kernel from became part of kernel to: the decisions last recorded,
 * those made in from (a consumer wrapped into a fusion), are to's now,
 * each unless to has one of the same names; a later one about the same
 * names then takes its place, as settle_decisions would have merged
 * the two (a wrap's are the only ones moved in the fusion pass, which
 * leaves settle_decisions nothing to merge). The first word such a
 * decision takes would have made a decision of its own: when that
 * would have been made is kept (said), and settle_decisions orders the
 * words of decisions it merges by it. */
static void rekey_tail(Fz *z, const HloInstr *from, const HloInstr *to)
{
	int j = z->nkern;
	while (j > 0 && z->kern[j - 1].k == from)
		j--;
	for (; j < z->nkern && !z->failed; j++) {
		struct FzKern *k = &z->kern[j];
		if (!rekey_free(z, j, to))
			continue;
		/* found by its new key (the old one's slot stays, met by
		 * no lookup: from is to now for every caller) */
		if (!seen_add(z, decision_hash(k->names, to),
			      z->log_first + j))
			z->failed = true;
		k->k = to;
		k->id = to->id;
		k->wait = true;
	}
}

void fz_forward(Fz *z, const HloInstr *from, const HloInstr *to)
{
	if (!z->log || from == to || z->failed)
		return;
	if (from && to && z->nkern && z->kern[z->nkern - 1].k == from)
		rekey_tail(z, from, to);
	/* about one forward per three decisions (fusions made, consumers
	 * wrapped): room for them at the first */
	int want = z->nfwd ? z->nfwd + 1 : z->expect / 3 + 1;
	if ((z->nfwd >= z->cap_fwd &&
	     !fz_grow((void **)&z->fwd, &z->cap_fwd, want, sizeof *z->fwd)) ||
	    (z->fwd_indexed &&
	     !fz_index_add(&z->fwd_ix, ptr_hash(from), z->nfwd))) {
		z->failed = true;
		return;
	}
	z->fwd[z->nfwd++] = (struct FzFwd){from, to};
}

/* Does decision d (of the same pair) say what v says? */
static inline __attribute__((always_inline)) bool
same_verdict(const FusionDecision *d, const char *pass, const char *into,
	     const Verdict *v)
{
	return d->pass == pass && d->rule == v->rule &&
	       d->fused == v->fused && d->bytes_saved == v->saved &&
	       d->fmt == v->fmt && !d->reason && d->nargs == v->nargs &&
	       !memcmp(d->args, v->args, (size_t)v->nargs) &&
	       (into ? d->into && (d->into == into || !strcmp(d->into, into))
		     : !d->into);
}

/* Room for the decisions the pass expects (z->expect), taken when it
 * records its first: growing the log, kern and seen step by step copied
 * them over and over. */
static bool reserve_decisions(Fz *z)
{
	FusionLog *l = z->log;
	int n = z->expect;
	/* (the fusion pass's seen: one consumer's at a time) */
	return n <= 0 ||
	       (fz_grow((void **)&l->d, &l->cap, l->n + n, sizeof *l->d) &&
		fz_grow((void **)&z->kern, &z->cap_kern, n, sizeof *z->kern) &&
		(z->seen_calls || fz_index_reserve(&z->seen, n)));
}

/* v's packed arguments copied into the log, 16 bytes at a time (a
 * call to memcpy cost more than the copy): the arena hands out
 * multiples of 16 bytes, and v->args has room up to one. NULL when out
 * of memory. */
static inline const unsigned char *rec_args(Fz *z, const Verdict *v)
{
	_Static_assert(VERDICT_ARGS % 16 == 0, "args copied by 16 bytes");
	if (!v->nargs)
		return (const unsigned char *)"";
	size_t n = ((size_t)v->nargs + 15) & ~(size_t)15;
	unsigned char *q = arena_raw(&z->log->a, n);
	for (size_t i = 0; q && i < n; i += 16)
		memcpy(q + i, v->args + i, 16);
	return q;
}

/* The names of a decision being recorded: the module's (or the
 * caller's) and their copies in the log. */
typedef struct RecNames {
	const char *comp, *prod, *cons;
	char *dcomp, *dprod, *dcons;
} RecNames;

/* The decision of key h made in kernel about the names n in index ix
 * (an entry of a decision before from counts as empty), or -1: seen_at's
 * probe with the test written out (fz_record asks for every decision,
 * and most find none). */
static inline int seen_in(const Fz *z, const FzIndex *ix, int from,
			  unsigned h, const HloInstr *kernel, bool siblings,
			  const RecNames *n)
{
	if (!ix->cap)
		return -1;
	unsigned mask = (unsigned)ix->cap - 1;
	for (unsigned i = h & mask;; i = (i + 1) & mask) {
		const struct FzSlot *s = &ix->slot[i];
		if (s->v <= from) /* v: the decision + 1 */
			return -1;
		int v = s->v - 1;
		/* (every decision in seen is this pass's: in kern) */
		if (s->h != h || z->kern[v - z->log_first].k != kernel)
			continue;
		const FusionDecision *d = &z->log->d[v];
		if (d->siblings == siblings &&
		    same_name(d->consumer, n->cons, n->dcons) &&
		    same_name(d->producer, n->prod, n->dprod) &&
		    same_name(d->comp, n->comp, n->dcomp))
			return v;
	}
}

/* A new decision at the end of the log, made in kernel, of key h (names:
 * decision_names); NULL when out of memory (z->failed set). */
static inline __attribute__((always_inline)) FusionDecision *
new_decision(Fz *z, unsigned h, unsigned names, const HloInstr *kernel)
{
	FusionLog *l = z->log;
	if (!z->kern_started) {
		z->log_first = l->n;
		z->kern_started = true;
		if (!reserve_decisions(z)) {
			z->failed = true;
			return NULL;
		}
	}
	int i = l->n - z->log_first;
	/* (room is usually there: reserve_decisions) */
	if ((l->n >= l->cap &&
	     !fz_grow((void **)&l->d, &l->cap, l->n + 1, sizeof *l->d)) ||
	    (i >= z->cap_kern &&
	     !fz_grow((void **)&z->kern, &z->cap_kern, i + 1,
		      sizeof *z->kern)) ||
	    !seen_add(z, h, l->n)) {
		z->failed = true;
		return NULL;
	}
	z->kern[i] = (struct FzKern){kernel, names, kernel ? kernel->id : 0,
				     ++z->nmade, false};
	z->nkern = i + 1;
	return &l->d[l->n++];
}

/* The copy of name s in the log and its hash, into *dup and *hash;
 * false when out of memory (z->failed set). */
static inline __attribute__((always_inline)) bool
rec_name(Fz *z, const char *s, char **dup, unsigned *hash)
{
	int e = rec_slot(z, s);
	if (e < 0) {
		z->failed = true;
		return false;
	}
	*dup = z->rec_dup[e];
	*hash = z->rec_hash[e];
	return true;
}

/* fz_record once the names are looked up (n, their hashes hm, hp and
 * hc) and kernel is kernel_current's: fz_record_pair looks up its
 * producer and computation once for all the readers it records. */
static inline __attribute__((always_inline)) void
record(Fz *z, const RecNames *n, unsigned hm, unsigned hp, unsigned hc,
       const char *into, const Verdict *v, const HloInstr *kernel)
{
	/* the fusion as the caller names it, until settle_decisions names
	 * the kernel (the caller's fusion, or the one it became part of)
	 * or copies it into the log; compared by text till then */
	char *di = (char *)into;
	unsigned names = decision_names(hm, hp, hc);
	unsigned h = decision_hash(names, kernel);
	int at = seen_in(z, &z->seen, z->seen_from, h, kernel, v->siblings, n);
#if XR_ASAN
	if (at != seen_in(z, &z->seen_all, 0, h, kernel, v->siblings, n)) {
		fprintf(stderr, "fz_record: %s -> %s in %s was decided "
				"before this consumer\n",
			n->prod, n->cons, n->comp);
		abort();
	}
#endif
	FusionDecision *d;
	if (at >= 0) {
		/* Considered again (the consumer grew): the last word counts
		 * (the old strings stay in the log's arena). Often it is the
		 * same word: a producer that cannot fuse stays so. */
		struct FzKern *k = &z->kern[at - z->log_first];
		if (k->wait) { /* a decision of its own before */
			k->wait = false;
			k->said = ++z->nmade;
		}
		d = &z->log->d[at];
		if (same_verdict(d, z->pass, di, v))
			return;
	} else if (!(d = new_decision(z, h, names, kernel))) {
		return;
	}
	const unsigned char *args = rec_args(z, v);
	/* field by field: a compound literal cleared the whole first */
	d->producer = n->dprod;
	d->consumer = n->dcons;
	d->comp = n->dcomp;
	d->into = di;
	d->where = NULL;
	d->pass = z->pass;
	d->rule = v->rule;
	d->reason = NULL;
	d->fmt = v->fmt;
	d->args = args;
	d->nargs = v->nargs;
	d->fused = v->fused;
	d->settled = false;
	d->siblings = v->siblings;
	d->bytes_saved = v->saved;
	if (!args)
		z->failed = true;
}

void fz_record(Fz *z, const char *prod, const char *cons, const char *comp,
	       const char *into, const Verdict *v, const HloInstr *kernel)
{
	if (!z->log || z->failed)
		return;
	/* A kernel forwarded since a decision was recorded in it makes a
	 * second one: settle_decisions keeps the last word of the two. */
	kernel = kernel_current(z, kernel);
	/* each name looked up once, its copy made with its hash */
	RecNames n = {comp, prod, cons, NULL, NULL, NULL};
	unsigned hm, hp, hc;
	if (rec_name(z, comp, &n.dcomp, &hm) &&
	    rec_name(z, prod, &n.dprod, &hp) &&
	    rec_name(z, cons, &n.dcons, &hc))
		record(z, &n, hm, hp, hc, into, v, kernel);
}

void fz_free_seen(Fz *z)
{
	fz_index_free(&z->seen);
	fz_index_free(&z->seen_all);
	z->seen_from = 0;
	fz_index_free(&z->fwd_ix);
	z->fwd_indexed = false;
	free(z->fwd);
	free(z->kern);
	z->fwd = NULL;
	z->kern = NULL;
	z->nfwd = z->cap_fwd = z->nkern = z->cap_kern = 0;
	z->now_from = z->now_to = NULL;
	z->kern_started = false;
	z->nmade = 0;
	if (z->fusion_names_made)
		namemap_free(&z->fusion_names);
	z->fusion_names_made = false;
}

/* The name a kernel's value goes by in the log: its own, or for a
 * fusion the instruction computing its (first) output, which keeps its
 * name whatever the fusion is called later; not when another
 * instruction beside the fusion has that name (HLO text may repeat a
 * name in two computations), which the log would take it for. */
const char *fz_value_name(const HloInstr *x)
{
	HloComp *fc = fz_fused_comp(x);
	if (!fc || !fc->root)
		return x->name;
	const HloInstr *r = fc->root;
	if (r->op == HLO_TUPLE && r->nops)
		r = r->ops[0];
	if (r->op == HLO_PARAMETER)
		return x->name;
	size_t n;
	unsigned h = x->parent ? hlo_name_hash(r, &n) : 0;
	const HloInstr *other =
		x->parent ? namemap_geth(&x->parent->names, r->name, n, h)
			  : NULL;
	return other && other != x ? x->name : r->name;
}

/* fz_value_name without the call where x is no fusion (its name then:
 * each pair recorded asks, and few producers are fusions). */
static inline const char *value_name(const HloInstr *x)
{
	return x->op == HLO_FUSION ? fz_value_name(x) : x->name;
}

/* Records v for p and each instruction inside c that reads it. */
void fz_record_pair(Fz *z, const HloInstr *p, const HloInstr *c,
		    const char *into, const Verdict *v)
{
	/* Those decide found inside c, when c has not changed since. */
	if (!z->log || z->failed)
		return;
	const HloInstr *own[16], *const *in = v->nin ? v->in : own;
	int k = v->nin ? v->nin : inner_users(p, c, own, 16);
	/* fz_record's look-ups of the producer, the computation and the
	 * kernel, once for all the readers */
	RecNames n = {c->parent->name, value_name(p), NULL, NULL, NULL, NULL};
	unsigned hm, hp, hc;
	const HloInstr *kernel = kernel_current(z, c);
	if (!rec_name(z, n.comp, &n.dcomp, &hm) ||
	    !rec_name(z, n.prod, &n.dprod, &hp))
		return;
	for (int i = 0; i < k && !z->failed; i++) {
		n.cons = in[i]->name;
		if (rec_name(z, n.cons, &n.dcons, &hc))
			record(z, &n, hm, hp, hc, into, v, kernel);
	}
}

/* A set of pointers (open addressing, NULL an empty slot). */
typedef struct PtrSet {
	const void **slot;
	unsigned mask;
} PtrSet;

/* Adds p to s, which is made for n pointers when first used (and never
 * asked to hold more). */
static bool ptrset_add(PtrSet *s, const void *p, int n)
{
	if (!s->slot) {
		unsigned cap = 16;
		while (cap < 2u * (unsigned)n)
			cap *= 2;
		if (!(s->slot = calloc(cap, sizeof *s->slot)))
			return false;
		s->mask = cap - 1;
	}
	unsigned i = ptr_hash(p) & s->mask;
	while (s->slot[i] && s->slot[i] != p)
		i = (i + 1) & s->mask;
	s->slot[i] = p;
	return true;
}

static bool ptrset_has(const PtrSet *s, const void *p)
{
	if (!s->slot)
		return false;
	for (unsigned i = ptr_hash(p) & s->mask; s->slot[i];
	     i = (i + 1) & s->mask)
		if (s->slot[i] == p)
			return true;
	return false;
}

/* Is kn (a decision's kernel now) a fusion still there? */
static inline bool settles(const HloInstr *kn)
{
	return kn && kn->parent && kn->op == HLO_FUSION;
}

/* Decision d, made in kernel kn, names it when kn is a fusion still
 * there (settles; name: its name in the log), and is settled:
 * fusion_log_refresh leaves it. */
static inline void name_kernel(Fz *z, FusionDecision *d, const HloInstr *kn,
			       char *name)
{
	if (!settles(kn))
		return;
	if (!name)
		z->failed = true;
	else if (d->fused)
		d->into = name;
	else
		d->where = name;
	d->settled = true;
}

/* Does decision d, as settle_decisions left it, need a place from
 * fusion_log_refresh? */
static inline bool needs_place(const FusionDecision *d)
{
	return !d->settled && (d->fused || d->where);
}

/* dedup wrote the i-th of the pass's decisions at place at (below k,
 * the places written so far). Keeps true that the first *done places
 * hold decisions that need no place, their settled flags cleared, as
 * settle_decisions left the first `was` before dedup: one that needs
 * no place stays done (its flag cleared), one that does ends them (the
 * written ones after it get back the flags name_kernel gave them), and
 * one of the first `was` written past them gets its flag back. */
static void done_at(Fz *z, int *done, int was, int i, int at, int k)
{
	FusionDecision *d = &z->log->d[z->log_first];
	if (at >= *done) {
		if (i < was)
			d[at].settled = settles(z->kern[at].k);
	} else if (i >= was && !needs_place(&d[at])) {
		d[at].settled = false;
	} else if (i >= was) {
		for (int j = at + 1; j < k && j < *done; j++)
			d[j].settled = settles(z->kern[j].k);
		*done = at;
	}
}

/* One decision per pair and kernel now (kern[].k, where the kernels
 * are now), in one walk over the pass's decisions: of those about the
 * same copy (a kernel forwarded in between), the first one's place
 * holds the last word said (kern[].said: a decision rekey_tail moved
 * took the words a decision of its own would have had, and they count
 * as said when that one would have been made). Only decisions in a
 * kernel of targets can meet another; nin of them moved there. *done
 * (see settle_decisions) is kept true of the log as compacted. */
static void dedup(Fz *z, const PtrSet *targets, int nin, int *done)
{
	FusionLog *l = z->log;
	FzIndex ix = {0};
	/* room made once: nin decisions moved into the targets, and about
	 * as many made there after (a wrap's kernel: the decisions before
	 * the first fusion moved, those after made in the fusion) */
	if (!fz_index_reserve(&ix, 2 * nin))
		z->failed = true;
	int k = 0, was = *done;
	const HloInstr *last = NULL;
	bool in = false;
	for (int i = 0; i < z->nkern && !z->failed; i++) {
		FusionDecision *d = &l->d[z->log_first + i];
		struct FzKern e = z->kern[i];
		if (e.k != last) { /* a kernel's decisions come in runs */
			last = e.k;
			in = e.k && ptrset_has(targets, e.k);
		}
		if (in) {
			DecisionQuery q = {z,	 d->comp, d->producer,
					   d->consumer, NULL,	 NULL,
					   NULL,	d->siblings, e.k};
			unsigned h = decision_hash(e.names, e.k);
			/* same_decision reads kern[] and the log up to k:
			 * the ones kept so far */
			int at = fz_index_find(&ix, h, same_decision, &q);
			if (at >= 0) {
				struct FzKern *kept = &z->kern[at - z->log_first];
				if (e.said > kept->said) {
					l->d[at] = *d;
					kept->said = e.said;
					if (at < *done || i < was)
						done_at(z, done, was, i,
							at - z->log_first, k);
				}
				continue;
			}
			if (!fz_index_add(&ix, h, z->log_first + k))
				z->failed = true;
		}
		if (k != i) {
			l->d[z->log_first + k] = *d;
			z->kern[k] = e;
			if (k < *done || i < was)
				done_at(z, done, was, i, k, k);
		}
		k++;
	}
	if (*done > k)
		*done = k;
	fz_index_free(&ix);
	l->n = z->log_first + k;
	z->nkern = k;
}

/* When the pass failed (and its log is not read): no decision from
 * the from-th on names a fusion by the module's string (fz_record),
 * which goes with the module. */
static void intos_dropped(Fz *z, int from)
{
	for (int i = from < 0 ? 0 : from; i < z->nkern; i++) {
		FusionDecision *d = &z->log->d[z->log_first + i];
		if (!(d->settled && d->fused))
			d->into = NULL;
	}
}

/* Each decision of this pass names the fusion its consumer's copy is in
 * now: where it was fused (into), or where it stays declined (where). A
 * kernel that is gone leaves the decision to fusion_log_refresh, which
 * goes by the consumer's name. Returns how many of the log's first
 * decisions need no place from it (fz_log_refresh_from), their settled
 * flags cleared on the way, as it would: it then need not walk the
 * log again (which it did all of, most decisions being settled). */
static int settle_decisions(Fz *z)
{
	FusionLog *l = z->log;
	if (!l || !z->nkern)
		return 0;
	if (z->failed) {
		intos_dropped(z, 0);
		return 0;
	}
	/* Where each decision's kernel is now. A decision is the only one
	 * of its pair and kernel unless its kernel is one that some other
	 * decision's moved into: fz_record found any other made in the
	 * same kernel. Those kernels, in targets, are the ones to look at;
	 * each is the end of a chain of forwards: there are at most nfwd.
	 * (A decision merged into another is named as the other.) */
	PtrSet targets = {0};
	int nmoved = 0; /* decisions whose kernel moved */
	/* while the decisions so far need no place (none of an earlier
	 * pass in the log: it walks those) */
	bool open = !z->log_first;
	int done = 0;
	const HloInstr *last = NULL, *named = NULL;
	char *name = NULL;
	int i = 0;
	for (; i < z->nkern && !z->failed; i++) {
		/* a kernel moved into a fused computation is in one, but
		 * not in place: its id tells */
		const HloInstr *k = z->kern[i].k,
			       *kn = k && k->parent && k->id != z->kern[i].id
					     ? kernel_now(z, k)
					     : kernel_current(z, k);
		if (kn != k) {
			nmoved++;
			if (kn != last && !ptrset_add(&targets, kn, z->nfwd))
				z->failed = true;
			last = kn;
		}
		z->kern[i].k = kn;
		z->kern[i].id = kn ? kn->id : 0;
		if (kn != named) { /* a kernel's decisions come in runs */
			named = kn;
			name = settles(kn) ? rec_copy(z, kn->name) : NULL;
		}
		FusionDecision *d = &l->d[z->log_first + i];
		name_kernel(z, d, kn, name);
		if (d->into && !(d->settled && d->fused) &&
		    !(d->into = rec_copy(z, d->into)))
			z->failed = true;
		if (open && (z->failed || needs_place(d))) {
			open = false;
		} else if (open) {
			d->settled = false;
			done = i + 1;
		}
	}
	if (z->failed)
		intos_dropped(z, i - 1);
	else if (nmoved)
		dedup(z, &targets, nmoved, &done);
	free(targets.slot);
	return done;
}

/* The kind fusion f says it is, as a static string. */
static const char *group_kind(const HloInstr *f)
{
	const char *k = hlo_attr_enum(f, A_KIND);
	/* as fz_set_kind left it: a static name, no comparison */
	if (k == kind_names[FK_LOOP] || k == kind_names[FK_INPUT] ||
	    k == kind_names[FK_OUTPUT])
		return k;
	/* one comparison: the second letter tells the candidates apart */
	const char *c = !k || k[0] != 'k' ? NULL
			: k[1] == 'I'	  ? "kInput"
			: k[1] == 'O'	  ? "kOutput"
			: k[1] == 'L'	  ? "kLoop"
					  : NULL;
	return c && !strcmp(k, c) ? c : "kCustom";
}

/* Is q (of g's computation fc) one of g's members? */
static bool is_member(const FusionGroup *g, const HloComp *fc,
		      const HloInstr *q)
{
	return q->op != HLO_PARAMETER && !(g->multi_output && q == fc->root);
}

/* Fills g's name with a copy of name and its members with copies of
 * the names of fc's fused instructions, all in one block of the log's
 * arena with the list (a fusion of a few instructions made a copy
 * each). lens and names: room for fc->n each. */
static bool copy_members(FusionLog *l, FusionGroup *g, const char *name,
			 const HloComp *fc, size_t *lens, const char **names)
{
	size_t len = strlen(name) + 1, bytes = len;
	int n = 0;
	for (int k = 0; k < fc->n; k++) {
		const HloInstr *q = fc->instrs[k];
		if (!is_member(g, fc, q))
			continue;
		names[n] = q->name;
		lens[n] = strlen(q->name) + 1;
		bytes += lens[n++];
	}
	/* NULL after the last, as the zeroed list used to have */
	char **m = arena_raw(&l->a, sizeof *m * (size_t)(n + 1) + bytes);
	if (!m)
		return false;
	char *t = (char *)(m + n + 1);
	g->name = memcpy(t, name, len);
	t += len;
	for (int k = 0; k < n; k++) {
		copy_short(t, names[k], lens[k]);
		m[k] = t;
		t += lens[k];
	}
	m[n] = NULL;
	g->members = m;
	g->nmembers = n;
	return true;
}

/* Rebuilds the log's groups from the fusions in m. */
static void collect_groups(Fz *z, HloComp *const *comps, int nc)
{
	FusionLog *l = z->log;
	if (!l)
		return;
	fz_clear_groups(l);
	size_t *lens = NULL;
	const char **names = NULL;
	int cap_lens = 0, cap_names = 0;
	/* room checked here: mostly there is some, and a call to fz_grow
	 * per group cost more than the group's kind */
	for (int ci = 0; ci < nc && !z->failed; ci++) {
		HloComp *c = comps[ci];
		char *comp = NULL; /* c's name in the log, one copy for all */
		for (int i = 0; i < c->n; i++) {
			HloInstr *f = c->instrs[i];
			HloComp *fc = fz_fused_comp(f);
			if (!fc)
				continue;
			if (z->group_mark) { /* (fz_finish: shared?) */
				z->group_shared |= fc->mark == z->group_mark;
				fc->mark = z->group_mark;
			}
			if (!comp)
				comp = fz_ldup(l, c->name);
			if ((l->ng >= l->capg &&
			     !fz_grow((void **)&l->g, &l->capg, l->ng + 1,
				      sizeof *l->g)) ||
			    (fc->n >= cap_lens &&
			     (!fz_grow((void **)&lens, &cap_lens, fc->n + 1,
				       sizeof *lens) ||
			      !fz_grow((void **)&names, &cap_names, fc->n + 1,
				       sizeof *names)))) {
				z->failed = true;
				break;
			}
			finish_late(z, fc);
			FusionGroup *g = &l->g[l->ng++];
			*g = (FusionGroup){
				.comp = comp,
				.kind = group_kind(f),
				.multi_output =
					fc->root && fc->root->op == HLO_TUPLE,
			};
			if (!g->comp ||
			    !copy_members(l, g, f->name, fc, lens, names)) {
				l->ng--; /* no group without a name */
				z->failed = true;
				break;
			}
		}
	}
	free(lens);
	free(names);
}

bool fusion_log_regroup(FusionLog *l, HloModule *m)
{
	Fz z = {.m = m, .log = l};
	HloComp **comps;
	int nc = fz_code_comps(m, &comps);
	if (nc < 0)
		return false;
	collect_groups(&z, comps, nc);
	free(comps);
	return !z.failed && fusion_log_refresh(l);
}

/* ---- where fusion runs ---------------------------------------------------- */

/* The computations that run as code: the entry and, through control flow
 * (while, conditional, call), what it runs; not reducers, comparators or
 * fused computations. */
int fz_code_comps(HloModule *m, HloComp ***out)
{
	HloComp **v = malloc(sizeof *v * (size_t)(m->ncomps + 1));
	if (!v || !m->entry) {
		free(v);
		*out = NULL;
		return v ? 0 : -1;
	}
	int n = 0;
	v[n++] = m->entry;
	for (int k = 0; k < n; k++) {
		HloComp *c = v[k];
		for (int i = 0; i < c->n; i++) {
			HloInstr *x = c->instrs[i];
			if (x->op != HLO_WHILE && x->op != HLO_CONDITIONAL &&
			    x->op != HLO_CALL)
				continue;
			for (int j = 0; j < hlo_instr_ncalled(x); j++) {
				HloComp *cc = hlo_instr_called_at(x, j);
				bool have = false;
				for (int q = 0; q < n; q++)
					have |= v[q] == cc;
				if (cc && !have && n < m->ncomps)
					v[n++] = cc;
			}
		}
	}
	*out = v;
	return n;
}

/* ---- the fusion pass ------------------------------------------------------- */

/* The first slot of f's operands that holds p (f->nops: none). */
static int first_slot(const HloInstr *f, const HloInstr *p)
{
	int at = 0;
	while (at < f->nops && f->ops[at] != p)
		at++;
	return at;
}

/* Offers consumer c its operands until none fuses; returns what c became. */
static HloInstr *fuse_consumer(Fz *z, HloInstr *c, bool off)
{
	/* Sweeps over the operands until one fuses nothing. Within a sweep
	 * a fused operand's slot is taken by the next one, and the
	 * producer's own operands join at the end, so the sweep goes on
	 * from the same index instead of starting over (which made a
	 * consumer of k operands cost O(k^2) decisions per fusion). */
	bool again = true;
	HloInstr stand; /* wrap's */
	Consumer k; /* c as it is now */
	consumer_init(&k, z->groups, c);
	seen_restart(z);
	while (again && !z->failed) {
		again = false;
		for (int i = 0; i < c->nops && !z->failed; i++) {
			HloInstr *p = c->ops[i];
			if (consumer_read_before(&k, i, p))
				continue;
			Verdict v;
			if (!decide(z->groups, p, &k, i, off, &v)) {
				fz_record_pair(z, p, c, NULL, &v);
				continue;
			}
			/* p's first slot: i (no slot before it holds p),
			 * or in a wrap's operands, where it may move up */
			int at = i;
			HloInstr *copy = NULL;
			if (c->op != HLO_FUSION) {
				/* (a copy named as fusion's layout copies
				 * would be looked through: the plain way) */
				bool plain = c->op == HLO_COPY &&
					     !strncmp(c->name, LAYOUT_COPY,
						      sizeof LAYOUT_COPY - 1);
				/* (made once: c wraps once) */
				/* (p's shape: what reads it, a reshape
				 * say, is scanned with it: scan_one) */
				stand = (HloInstr){.op = HLO_PARAMETER,
						   .shape = p->shape,
						   .name = FZ_UNNAMED};
				c = plain ? fz_wrap(z, c)
					  : wrap(z, c, p, &stand, &copy, &at);
				if (!c)
					return NULL;
				if (plain)
					at = first_slot(c, p);
				/* the reader inside now is c's copy, whose
				 * name may differ (a clash in there): the
				 * only one (p's parameter's, in the plain
				 * way) */
				v.nin = 0;
				if (copy) {
					v.in[0] = copy;
					v.nin = 1;
				}
			}
			fz_record_pair(z, p, c, c->name, &v);
			if (copy)
				fuse_first(z, p, c, copy, &stand);
			else
				fuse_into(z, p, c, at);
			if (z->failed) /* (out of memory: the pass fails) */
				break;
			consumer_grew(&k, z->groups, c, p);
			z->nfused++;
			again = true;
			i = at - 1; /* the slot p left */
		}
	}
	return c;
}

static void fuse_comp(Fz *z, HloComp *c, bool off)
{
	HloInstr **po;
	int n = hlo_comp_post_order(c, &po);
	if (n < 0) {
		z->failed = true;
		return;
	}
	/* Consumers before producers. An instruction fused away (detached)
	 * is skipped when its turn comes. */
	for (int i = n - 1; i >= 0 && !z->failed; i--) {
		HloInstr *x = po[i];
		if (x->parent != c || x->nops == 0)
			continue;
		fuse_consumer(z, x, off);
	}
	free(po);
	pass_compact(c);
}

bool fz_finish(Fz *z, PassCtx *cx, HloComp **comps, int nc)
{
	/* compacted and named also after a failure: no parameter is left
	 * detached in the list (drop_operand_late) or unnamed. Where every
	 * fusion is the pass's own, each computation touched other than
	 * those it fuses in (comps, a few: each touched one is looked for
	 * there) is a fused computation it made (fz_tidied by its name),
	 * which collect_groups reads, once: those are left to it
	 * (finish_late), and the walk after it finishes any it did not
	 * meet. */
	bool late = z->log && z->own_fusions_only && !z->failed && nc <= 64;
	z->nlate = 0;
	for (int i = 0; i < z->ntouched; i++) {
		HloComp *c = z->touched[i];
		if (!c)
			continue; /* dropped */
		if (late && !among_comps(comps, nc, c))
			z->nlate++;
		else
			finish_comp(z, c, fz_tidied(c));
	}
	hlo_module_remove_comps(z->m, z->dropped, z->ndropped);
	free(z->dropped);
	/* a duplicated fusion that holds a fusion copied it (none can
	 * where every fusion is the pass's own: each wrap makes its own
	 * computation, and nothing in one is a fusion): unshared after
	 * collect_groups, which has just read most of what that walks (the
	 * code's fusions and their computations), so that it finds them in
	 * the cache instead of walking the module cold. A fusion's group is
	 * the same read from a copy but for the order of the members (the
	 * copy's, in post order): collect_groups marks what it reads, and
	 * reads again where a computation was read twice (copied since). */
	bool unshare = !z->failed && z->nfused && !z->own_fusions_only;
#if XR_ASAN
	if (!z->failed && z->nfused && z->own_fusions_only) {
		int n = z->m->ncomps; /* a copy would be appended */
		if (!pass_unshare_fused(z->m) || z->m->ncomps != n) {
			fprintf(stderr, "fz_finish: %s shares a fused "
					"computation\n", z->pass);
			abort();
		}
	}
#endif
	int done = settle_decisions(z);
	/* a group for each computation left to collect_groups: room made
	 * at once, before the memory finish_late takes (the names maps'
	 * tables, names) is placed after the groups and they move */
	if (z->nlate && !fz_grow((void **)&z->log->g, &z->log->capg, z->nlate,
				 sizeof *z->log->g))
		z->failed = true;
	z->group_mark = unshare && z->log ? hlo_new_mark(z->m) : 0;
	collect_groups(z, comps, nc);
	z->group_mark = 0;
	if (unshare && !pass_unshare_fused(z->m))
		z->failed = true;
	else if (unshare && z->group_shared && !z->failed)
		collect_groups(z, comps, nc);
#if XR_ASAN
	for (int i = 0; late && !z->failed && i < z->ntouched; i++)
		if (z->touched[i] && !among_comps(comps, nc, z->touched[i])) {
			fprintf(stderr, "fz_finish: collect_groups did not "
					"meet %s\n",
				z->touched[i]->name);
			abort();
		}
#endif
	if (z->nlate) { /* not all met (out of memory) */
		z->nlate = 0;
		for (int i = 0; i < z->ntouched; i++) {
			HloComp *c = z->touched[i];
			if (c && !among_comps(comps, nc, c))
				finish_comp(z, c, fz_tidied(c));
		}
	}
	if (z->log && !z->failed && !fz_log_refresh_from(z->log, done))
		z->failed = true;
	fz_free_seen(z);
	fz_groups_free(z->groups);
	free(z->touched);
	fz_index_free(&z->touched_ix);
	free(comps);
	if (z->failed) /* (each failure is for want of memory) */
		pass_out_of_memory(cx);
	return z->nfused > 0;
}

bool pass_fusion(HloModule *m, PassCtx *cx)
{
	bool no_fusions;
	Fz z = {.m = m, .log = cx->fusion_log, .pass = "fusion",
		.seen_calls = true,
		.temp_params = module_names_params(m, &no_fusions),
		.lazy_params = true, .groups = fz_groups_new()};
	z.own_fusions_only = no_fusions;
	if (z.log)
		z.log->off = cx->fusion_off;
	HloComp **comps;
	int nc = fz_code_comps(m, &comps);
	if (nc < 0) {
		z.failed = true;
		nc = 0;
	}
	/* Decisions: one per operand of what runs as code, and half as
	 * many again for operands offered again to a consumer that grew
	 * (about 1.45 per operand in the bench's module). Computations
	 * touched: at most those, and one fused computation per consumer
	 * (a wrap), made room for at once. */
	int64_t ops = 0;
	int consumers = nc;
	for (int i = 0; i < nc; i++)
		for (int k = 0; k < comps[i]->n; k++) {
			ops += comps[i]->instrs[k]->nops;
			consumers += comps[i]->instrs[k]->nops > 0;
		}
	if (z.log)
		z.expect = ops * 3 / 2 < INT32_MAX / 4 ? (int)(ops * 3 / 2)
						       : 0;
	if (!fz_index_reserve(&z.touched_ix, consumers))
		z.failed = true;
	/* and a name for a fused computation each, at most */
	if (!namemap_reserve(&m->comp_names,
			     m->comp_names.used + (size_t)consumers))
		z.failed = true;
	for (int i = 0; i < nc && !z.failed; i++)
		fuse_comp(&z, comps[i], cx->fusion_off);
	pass_note_rule_n(cx, "producer-consumer", z.nfused);
	return fz_finish(&z, cx, comps, nc);
}

/* ---- questions from the REPL ---------------------------------------------- */

static void to_decision(FusionDecision *out, const HloInstr *p,
			const HloInstr *c, const Verdict *v)
{
	memset(out, 0, sizeof *out);
	out->producer = fz_dup(p->name);
	out->consumer = fz_dup(c->name);
	out->comp = fz_dup(c->parent ? c->parent->name : "");
	char text[FUSION_REASON_MAX];
	fz_text(v->fmt, v->args, v->nargs, text, sizeof text);
	out->reason = fz_dup(text);
	if (!out->producer || !out->consumer || !out->comp || !out->reason) {
		/* out of memory: no string, not some */
		fusion_decision_free(out);
	}
	out->pass = "fusion";
	out->rule = v->rule;
	out->fused = v->fused;
	out->bytes_saved = v->saved;
}

/* The outer instruction of c's computation that holds x: x, or the
 * fusion whose computation contains it. */
static int runs_as_code(const HloModule *m, const HloComp *c)
{
	HloComp **comps;
	int n = fz_code_comps((HloModule *)m, &comps);
	if (n < 0)
		return -1; /* out of memory */
	bool yes = false;
	for (int i = 0; i < n; i++)
		yes |= comps[i] == c;
	free(comps);
	return yes;
}

void fusion_judge(const HloModule *m, const HloInstr *p, const HloInstr *c,
		  bool fusion_off, FusionDecision *out)
{
	Verdict v;
	fz_verdict_clear(&v);
	int code = p->parent == c->parent ? runs_as_code(m, c->parent) : 1;
	if (code < 0) { /* out of memory: no strings */
		memset(out, 0, sizeof *out);
		return;
	}
	if (p->parent != c->parent) {
		fz_say(&v, false, "different-computations",
		       "%s is in %s and %s in %s: fusion only joins "
		       "instructions of one computation",
		       p->name, p->parent->name, c->name, c->parent->name);
	} else if (!code) {
		fz_say(&v, false, "not-fused-here",
		       "fusion does not run in %s: it is a reducer, comparator "
		       "or fused computation, not code of its own",
		       c->parent->name);
	} else if (!fz_among(c->ops, c->nops, p)) {
		const HloInstr *shared = NULL, *gte = NULL;
		for (int i = 0; i < c->nops && !shared; i++)
			if (fz_among(p->ops, p->nops, c->ops[i]))
				shared = c->ops[i];
		for (int i = 0; i < c->nops && !gte; i++)
			if (c->ops[i]->op == HLO_GET_TUPLE_ELEMENT &&
			    c->ops[i]->nops == 1 && c->ops[i]->ops[0] == p)
				gte = c->ops[i];
		if (gte)
			fz_say(&v, false, "not-producer-consumer",
			       "%s does not use %s directly: it reads %s, an "
			       "element of its tuple (ask 'why %s %s')",
			       c->name, p->name, gte->name, gte->name, c->name);
		else if (fz_among(p->ops, p->nops, c))
			fz_say(&v, false, "not-producer-consumer",
			       "%s does not use %s (it is the other way round: "
			       "ask 'why %s %s')",
			       c->name, p->name, c->name, p->name);
		else if (shared)
			fz_say(&v, false, "not-producer-consumer",
			       "%s does not use %s; they are siblings (both "
			       "read %s), which multi-output fusion considers",
			       c->name, p->name, shared->name);
		else
			fz_say(&v, false, "not-producer-consumer",
			       "%s does not use %s: fusion only joins a "
			       "producer with an instruction that reads it",
			       c->name, p->name);
	} else {
		Consumer k;
		consumer_init(&k, NULL, c);
		int at = 0;
		while (c->ops[at] != p)
			at++;
		decide(NULL, p, &k, at, fusion_off, &v);
	}
	to_decision(out, p, c, &v);
}

void fusion_edge_names(const HloInstr *p, const HloInstr *c,
		       const char **prod, const char **cons)
{
	const HloInstr *in[1];
	*prod = fz_value_name(p);
	*cons = inner_users(p, c, in, 1) ? in[0]->name : c->name;
}

bool fusion_force(HloModule *m, HloInstr *p, HloInstr *c, bool fusion_off,
		  FusionDecision *verdict, const char **made)
{
	fusion_judge(m, p, c, fusion_off, verdict);
	if (!verdict->producer) /* out of memory */
		return false;
	/* not legal: what the judge found (also why not) */
	static const char *const illegal[] = {
		"different-computations", "not-fused-here",
		"not-producer-consumer",  "consumer-not-fusible",
		"producer-not-fusible",   "into-in-place-operand",
		"in-place-conflict"};
	for (size_t i = 0; i < sizeof illegal / sizeof *illegal; i++)
		if (!strcmp(verdict->rule, illegal[i]))
			return false;
	Fz z = {.m = m, .pass = "fuse"};
	HloInstr *f = c->op == HLO_FUSION ? c : fz_wrap(&z, c);
	int at = 0;
	while (f && at < f->nops && f->ops[at] != p)
		at++;
	if (f)
		fuse_into(&z, p, f, at);
	if (f && !z.failed) {
		pass_compact(f->parent);
		tidy_params(&z, fz_fused_comp(f));
		if (!hlo_comp_sort_operands_first(f->parent) ||
		    !hlo_comp_sort_operands_first(fz_fused_comp(f)))
			z.failed = true;
	}
	if (f && !z.failed) {
		hlo_module_remove_comps(m, z.dropped, z.ndropped);
		z.failed = !pass_unshare_fused(m);
		pass_tidy_control_preds(m);
	}
	fz_free_seen(&z);
	free(z.touched);
	free(z.dropped);
	fz_index_free(&z.touched_ix);
	if (z.failed || !f) {
		free(verdict->reason);
		verdict->reason = fz_dup("out of memory");
		return false;
	}
	*made = f->name;
	return true;
}
