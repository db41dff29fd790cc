/* multi_output_fusion.c - multi-output fusion, after the fusion pass.
 *
 * Does: in every computation that runs as code, joins siblings that read
 * the same array (same loop shape, neither depending on the other) into
 * one kernel with a tuple root, so the array is read once; and fuses a
 * producer with several users into one kernel that reads it, keeping
 * it as an extra output for the other users (the exponential of a
 * softmax joins the sum). Reductions are offered producers first, in
 * sweeps until none takes one; then loop kernels and lone
 * elementwise ops too (XLA's IsFusibleAsMultiOutputFusionRoot: a
 * reduction, a loop fusion or an elementwise op): a loop kernel that
 * took a producer first would leave the reduction reading it, and over
 * the corpus the order was worth 114 kernels (loop kernels first:
 * 5,257; reductions alone: 5,201; reductions first: 5,143; with lone
 * elementwise ops: 5,138). Each pair tried is logged like the fusion
 * pass's, with the sibling, producer-consumer-multi-output, mof-cycle,
 * mof-shapes and mof-not-fusible rules.
 * Requires: a verified module (best after `fusion`). Invalidates:
 * instruction positions, the computation list. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusion_impl.h"

/* ---- multi-output fusion ------------------------------------------------- */

/* Levels: level(x) > level(y) for every operand y of x, so b can depend
 * on a only when level(b) > level(a). Merges only add dependencies:
 * they raise levels (raise_levels), never lower them, so the invariant
 * holds without re-sorting the computation after each merge. */
typedef struct Order {
	/* By instruction id, read only for instructions of the computation:
	 * set by order_build for those there, zeroed for ids made since
	 * (order_fit), garbage for the rest. */
	int *lv;
	int cap;
	int zeroed; /* lv and seen are zeroed from the first id made on to
		       here (order_fit) */
	/* What mof_unfit and scanned found of an instruction, by id
	 * (cleared like lv): asked of each instruction again for every
	 * value it reads and every one it is offered with, and found by
	 * walking its fused computation (memory scattered over the heap).
	 * It holds until something merges into the instruction (forget),
	 * or the computation is left. */
	/* F_* bits: what is kept, and of it what most asks need (a
	 * fusion's heroes, whether it fits), so that those read this
	 * byte alone and not why[] or scan[], whose entries for the
	 * instructions of the computation (ids spread among those of
	 * the fused computations) lie a cache line or more apart */
	unsigned char *seen;
	const char **why;    /* mof_unfit's answer, when F_UNFIT */
	struct Scan *scan;   /* scanned's answer, when F_SCANNED */
	HloInstr **stack;    /* scratch for walks */
	int cap_stack;
	bool stale; /* a raise ran out of stack: rebuild before trusting */
	/* "tuple" in the module's arena, the name of every new root
	 * (add_output) that has it free: one copy for all */
	const char *tuple;
	/* fz_human's text for saved bytes last_saved (siblings of one
	 * value, and a model's repeated layers, save the same) */
	int64_t last_saved;
	char last_human[64];
} Order;

enum {
	F_UNFIT = 1,    /* why[] holds mof_unfit's answer */
	F_SCANNED = 2,  /* scan[] holds scanned's answer */
	F_REDUCE = 4, /* a reduce, or a fusion holding one */
	F_DOT = 8,    /* a dot or convolution, or a fusion holding one */
	F_FITS = 16,  /* with F_UNFIT: the answer is NULL */
};

/* What the checks ask of an instruction's fused computation, found in
 * one walk over it (scan_of). */
typedef struct Scan {
	unsigned heroes;   /* F_REDUCE and F_DOT */
	int nparams;       /* hlo_comp_param_count */
	const Shape *loop; /* the shape its kernel iterates over */
} Scan;

/* order_fit's work, when there is some. */
static bool order_grow(Order *o, HloModule *m, int nstack)
{
	if (o->cap < m->next_id + 1) {
		/* room for the instructions the merges add (copies, new
		 * outputs: ten or so each) without growing again */
		int nc = m->next_id + 1 + (m->next_id + 1) / 2 + 256;
		int *p = realloc(o->lv, sizeof *p * (size_t)nc);
		if (!p)
			return false;
		o->lv = p;
		unsigned char *q = realloc(o->seen, (size_t)nc);
		if (!q)
			return false;
		o->seen = q;
		const char **w = realloc(o->why, sizeof *w * (size_t)nc);
		if (!w)
			return false;
		o->why = w;
		Scan *sc = realloc(o->scan, sizeof *sc * (size_t)nc);
		if (!sc)
			return false;
		o->scan = sc;
		/* the first time, ids from next_id on are those still to
		 * be made (below, order_build sets those of the
		 * computation) */
		if (!o->cap)
			o->zeroed = m->next_id;
		o->cap = nc;
	}
	/* The ids made since, and some ahead (those a merge makes before
	 * its raise_levels, and the next merges'): a few hundred at a
	 * time, not the whole room at once. */
	int to = m->next_id + 1 + 256 < o->cap ? m->next_id + 1 + 256 : o->cap;
	if (o->zeroed < m->next_id + 1) {
		memset(o->lv + o->zeroed, 0,
		       sizeof *o->lv * (size_t)(to - o->zeroed));
		memset(o->seen + o->zeroed, 0, (size_t)(to - o->zeroed));
		o->zeroed = to;
	}
	if (o->cap_stack < nstack + 1) {
		/* twice what is asked: a computation that grows by one
		 * instruction per merge would otherwise copy it each time */
		int nc = (nstack + 1) * 2;
		void *v = realloc(o->stack, sizeof *o->stack * (size_t)nc);
		if (!v)
			return false;
		o->stack = v;
		o->cap_stack = nc;
	}
	return true;
}

/* Room in o for ids up to m's next and a walk of nstack, the ids made
 * since the last call zeroed (see Order.lv). Inline: asked after every
 * merge, mostly with nothing to do. */
static inline bool order_fit(Order *o, HloModule *m, int nstack)
{
	if (o->zeroed > m->next_id && o->cap_stack > nstack)
		return true; /* (zeroed <= cap) */
	return order_grow(o, m, nstack);
}

/* Levels start LEVEL_GAP apart along every edge; a merge then raises a
 * level by one, which rarely has to travel further than a few users
 * (with consecutive levels every merge on a long chain would raise the
 * whole chain below it: quadratic). */
enum { LEVEL_GAP = 1024 };

/* Levels of c's instructions from its (topological) order. With
 * sorted, whether c is compact and in operands-first order is found on
 * the way (what hlo_comp_sort_operands_first would leave as it is): when
 * not, *sorted is false and the levels are not all there. */
static bool order_build(Order *o, HloModule *m, HloComp *c, bool *sorted)
{
	if (!order_fit(o, m, c->n))
		return false;
	unsigned mk = sorted ? hlo_new_mark(m) : 0;
	for (int i = 0; i < c->n; i++) {
		HloInstr *x = c->instrs[i];
		int l = 0;
		for (int k = 0; k < x->nops; k++) {
			const HloInstr *y = x->ops[k];
			if (y->parent != c)
				continue;
			if (sorted && y->mark != mk) {
				*sorted = false; /* y comes later */
				return true;
			}
			if (o->lv[y->id] + LEVEL_GAP > l)
				l = o->lv[y->id] + LEVEL_GAP;
		}
		if (l > INT_MAX / 4)
			return false; /* a chain of 500k: give up on MOF */
		o->lv[x->id] = l;
		o->seen[x->id] = 0;
		if (sorted && x->parent != c) {
			*sorted = false; /* a gap to compact */
			return true;
		}
		x->mark = mk;
	}
	return true;
}

/* After x got new operands: its level and its users' (transitively). */
static bool raise_levels(Order *o, HloModule *m, HloInstr *x)
{
	HloComp *c = x->parent;
	if (!order_fit(o, m, c->n + m->next_id))
		return false;
	int l = 0;
	for (int k = 0; k < x->nops; k++)
		if (x->ops[k]->parent == c && o->lv[x->ops[k]->id] >= l)
			l = o->lv[x->ops[k]->id] + 1;
	if (o->lv[x->id] < l)
		o->lv[x->id] = l;
	int sp = 0;
	o->stack[sp++] = x;
	while (sp) {
		HloInstr *y = o->stack[--sp];
		for (int i = 0; i < y->nusers; i++) {
			HloInstr *u = y->users[i];
			if (u->parent != c || o->lv[u->id] > o->lv[y->id])
				continue;
			o->lv[u->id] = o->lv[y->id] + 1;
			if (sp < o->cap_stack)
				o->stack[sp++] = u;
			else
				o->stale = true;
		}
	}
	return true;
}

/* Does b depend on a (a path a -> ... -> b through operands)? Only
 * instructions of a higher level than a can lie on such a path. */
static bool reaches(HloModule *m, Order *o, HloInstr *a, HloInstr *b)
{
	if (a == b)
		return true;
	int lo = o->lv[a->id];
	if (o->lv[b->id] <= lo)
		return false;
	unsigned mk = hlo_new_mark(m);
	int sp = 0;
	o->stack[sp++] = b;
	b->mark = mk;
	while (sp) {
		HloInstr *x = o->stack[--sp];
		for (int i = 0; i < x->nops; i++) {
			HloInstr *y = x->ops[i];
			if (y == a)
				return true;
			if (y->parent != x->parent || y->mark == mk ||
			    o->lv[y->id] <= lo)
				continue;
			if (sp >= o->cap_stack)
				return true; /* cannot tell: say yes (no merge) */
			y->mark = mk;
			o->stack[sp++] = y;
		}
	}
	return false;
}

/* x's heroes (F_REDUCE and F_DOT: its own opcode, or what its fused
 * computation holds, as fz_group_of's nreduce and ndot), its fused
 * computation's parameter count, and the shape its kernel iterates
 * over: a reduce's input, else its result (the first output of a
 * multi-output fusion; NULL for a fusion without a root). */
static Scan scan_of(const HloInstr *x)
{
	Scan r = {0, 0, NULL};
	const HloComp *fc = fz_fused_comp(x);
	const HloInstr *h = x;
	if (fc) {
		h = fc->root;
		for (int i = 0; i < fc->n; i++) {
			const HloInstr *q = fc->instrs[i];
			if (q->op == HLO_PARAMETER) {
				r.nparams++;
			} else if (q->op == HLO_DOT ||
				   q->op == HLO_CONVOLUTION) {
				r.heroes |= F_DOT;
			} else if (q->op == HLO_REDUCE) {
				r.heroes |= F_REDUCE;
				h = q; /* the last one */
			}
		}
		if (h && h->op == HLO_TUPLE && h->nops)
			h = h->ops[0];
	} else if (x->op == HLO_REDUCE) {
		r.heroes = F_REDUCE;
	} else if (x->op == HLO_DOT || x->op == HLO_CONVOLUTION) {
		r.heroes = F_DOT;
	}
	if (h)
		r.loop = h->op == HLO_REDUCE && h->nops ? h->ops[0]->shape
							: h->shape;
	return r;
}

/* scanned when x's scan is not kept yet. */
static const Scan *scan_first(Order *o, const HloInstr *x)
{
	Scan s = scan_of(x);
	o->scan[x->id] = s;
	o->seen[x->id] |= F_SCANNED | (unsigned char)s.heroes;
	return &o->scan[x->id];
}

/* scan_of(x), found once per instruction: it reads x's opcode and
 * fused computation, which only a merge into x changes (forget). */
static inline const Scan *scanned(Order *o, const HloInstr *x)
{
	if (!(o->seen[x->id] & F_SCANNED))
		return scan_first(o, x);
	const Scan *r = &o->scan[x->id];
#if XR_ASAN
	Scan now = scan_of(x);
	Group g = fz_group_of(x);
	if (now.heroes != r->heroes || now.nparams != r->nparams ||
	    (o->seen[x->id] & (F_REDUCE | F_DOT)) != r->heroes ||
	    now.loop != r->loop || !!(r->heroes & F_REDUCE) != !!g.nreduce ||
	    !!(r->heroes & F_DOT) != !!g.ndot) {
		fprintf(stderr, "scanned: %s changed unseen\n", x->name);
		abort();
	}
#endif
	return r;
}

/* s is x's scan, worked out without the walk (sanitizer builds check
 * it at the next look). */
static void scan_known(Order *o, const HloInstr *x, Scan s)
{
	o->scan[x->id] = s;
	o->seen[x->id] |= F_SCANNED | (unsigned char)s.heroes;
}

/* scanned(o, x)->heroes, read from seen[] once kept. Inline: asked of
 * every user of every value read twice or more, at each sweep. */
static inline unsigned heroes(Order *o, const HloInstr *x)
{
#if !XR_ASAN /* (there scanned checks what is kept) */
	if (o->seen[x->id] & F_SCANNED)
		return o->seen[x->id] & (F_REDUCE | F_DOT);
#endif
	return scanned(o, x)->heroes;
}

static const Shape *loop_shape(Order *o, const HloInstr *x)
{
	return scanned(o, x)->loop;
}

/* Can x be one side of a multi-output fusion? NULL when it can. sc:
 * scan_of(x). */
static const char *unfit_of(GroupCache *gc, const HloInstr *x,
			    const Scan *sc)
{
	/* (it writes its buffer in place: one output, its own) */
	if (fz_in_place_of(x))
		return "an in-place update";
	if (x->op == HLO_FUSION) {
		const char *k = hlo_attr_enum(x, A_KIND);
		HloComp *fc = fz_fused_comp(x);
		if (!k || !fc || !fc->root ||
		    (strcmp(k, "kLoop") && strcmp(k, "kInput")))
			return "not a loop or input fusion";
		if (sc->nparams != x->nops)
			return "a fusion passing operands its computation "
			       "does not read";
		/* (the usual answer, without a call) */
		return x->parent->module->control_preds
			       ? fz_control_edges(gc, x)
			       : NULL;
	}
	const char *why = fz_unfusible(gc, x);
	if (why)
		return why;
	if (x->op == HLO_DOT || x->op == HLO_CONVOLUTION)
		return "a dot/convolution";
	if (x->op == HLO_CONSTANT || !fz_is_kernel(x))
		return "not a kernel";
	return NULL;
}

/* mof_unfit when x's answer is not kept yet. */
static const char *unfit_first(GroupCache *gc, Order *o, const HloInstr *x)
{
	/* only a fusion's scan is asked for */
	const char *why = unfit_of(
		gc, x, x->op == HLO_FUSION ? scanned(o, x) : NULL);
	o->why[x->id] = why;
	o->seen[x->id] |= F_UNFIT | (why ? 0 : F_FITS);
	return why;
}

/* unfit_of(x), found once per instruction: what it reads is x's kind,
 * opcode, shape, control edges and fused computation, which only a
 * merge into x changes (forget). Inline: asked for every value and
 * user, mostly kept already. */
static inline const char *mof_unfit(GroupCache *gc, Order *o,
				    const HloInstr *x)
{
	unsigned f = o->seen[x->id];
	if (!(f & F_UNFIT))
		return unfit_first(gc, o, x);
#if XR_ASAN
	Scan now = scan_of(x);
	if (unfit_of(gc, x, &now) != o->why[x->id] ||
	    !(f & F_FITS) != !!o->why[x->id]) {
		fprintf(stderr, "mof_unfit: %s changed unseen\n", x->name);
		abort();
	}
#endif
	/* (most fit: why[] is not read) */
	return f & F_FITS ? NULL : o->why[x->id];
}

/* Something merged into x: what was found of it goes. */
static void forget(Order *o, const HloInstr *x) { o->seen[x->id] = 0; }

/* The outputs of fusion f: its root's operands when multi-output, else
 * the root itself. */
static int outputs(HloInstr *f, HloInstr ***out)
{
	HloComp *fc = fz_fused_comp(f);
	if (fc->root->op == HLO_TUPLE) {
		*out = fc->root->ops;
		return fc->root->nops;
	}
	*out = &fc->root;
	return 1;
}

/* A get-tuple-element of f (NULL: the caller sets its operand) for
 * element k, of shape sh, in outer, named as the pass names them. Its
 * index is its one attribute: made as hlo_attr_set would make it, but
 * without the look for one there first. NULL on out of memory. */
static HloInstr *new_gte(Fz *z, HloComp *outer, Shape *sh, HloInstr *f,
			 int64_t k)
{
	HloInstr *g = fz_new_fresh(z, outer, HLO_GET_TUPLE_ELEMENT, sh,
				   "get-tuple-element", &z->next_gte,
				   &z->gte_direct, NULL, f ? 1 : 0,
				   f ? &f : NULL);
	HloAttr *ix = g ? arena_raw(&z->m->arena, sizeof *ix) : NULL;
	if (!ix) {
		z->failed = true;
		return NULL;
	}
	memset(ix, 0, sizeof *ix);
	ix->key = A_INDEX;
	ix->name = hlo_attr_name(A_INDEX);
	ix->u.i = k;
	g->attrs = ix;
	g->nattrs = g->cap_attrs = 1;
	return g;
}

/* Makes every reader of multi-output fusion f a get-tuple-element, so
 * that f's outputs can grow or move one by one: one that reads the whole
 * tuple (another tuple, a call, the computation's root) reads a new
 * tuple of f's elements instead. False on out of memory. */
static bool elementwise_readers(Fz *z, HloInstr *f)
{
	HloComp *outer = f->parent;
	bool whole = outer->root == f;
	for (int i = 0; i < f->nusers && !whole; i++)
		whole = f->users[i]->op != HLO_GET_TUPLE_ELEMENT;
	if (!whole)
		return true;
	HloInstr **outs;
	int n = outputs(f, &outs);
	HloInstr **els = malloc(sizeof *els * (size_t)(n + 1));
	HloInstr **readers = malloc(sizeof *readers * (size_t)(f->nusers + 1));
	int nr = 0;
	bool ok = els && readers;
	for (int i = 0; ok && i < f->nusers; i++)
		if (f->users[i]->op != HLO_GET_TUPLE_ELEMENT &&
		    !fz_among(readers, nr, f->users[i]))
			readers[nr++] = f->users[i];
	fz_touch(z, outer);
	for (int k = 0; ok && k < n; k++)
		ok = (els[k] = new_gte(z, outer, outs[k]->shape, f, k)) != NULL;
	HloInstr *t = ok ? hlo_instr_new_unique(outer, HLO_TUPLE, f->shape,
						"tuple", n, els)
			 : NULL;
	for (int i = 0; t && i < nr; i++)
		for (int k = 0; k < readers[i]->nops; k++)
			if (readers[i]->ops[k] == f)
				hlo_set_operand(readers[i], k, t);
	if (t && outer->root == f)
		outer->root = t;
	free(els);
	free(readers);
	if (!t)
		z->failed = true;
	return t != NULL;
}

/* Are fc's parameters named param_<number> already, as tidy_params
 * names those of a fused computation it touches? */
static bool params_tidy(const HloComp *fc)
{
	for (int i = 0; i < fc->n; i++) {
		const HloInstr *q = fc->instrs[i];
		if (q->op != HLO_PARAMETER)
			continue;
		const char *s = q->name;
		if (strncmp(s, "param_", 6) || !s[6] || (s[6] == '0' && s[7]))
			return false;
		int64_t v = 0;
		for (s += 6; *s; s++) {
			if (*s < '0' || *s > '9' || v > INT64_MAX / 10 - 10)
				return false;
			v = v * 10 + (*s - '0');
		}
		if (v != q->param_no)
			return false;
	}
	return true;
}

#if XR_ASAN
/* Is fc compact and in operands-first order (what fz_finish's compaction
 * and sort would keep)? */
static bool in_order(HloModule *m, const HloComp *fc)
{
	unsigned mk = hlo_new_mark(m);
	for (int i = 0; i < fc->n; i++) {
		HloInstr *x = fc->instrs[i];
		if (x->parent != fc)
			return false;
		for (int k = 0; k < x->nops; k++)
			if (x->ops[k] && x->ops[k]->parent == fc &&
			    x->ops[k]->mark != mk)
				return false;
		x->mark = mk;
	}
	return true;
}
#endif

/* Makes f's root a tuple of (its outputs..., extra) and rewires f's
 * users: they read get-tuple-element 0.. of f. Returns the index extra
 * got, -1 on failure. */
static int add_output(Fz *z, Order *ord, HloInstr *f, HloInstr *extra)
{
	HloComp *fc = fz_fused_comp(f), *outer = f->parent;
	Arena *a = &z->m->arena;
	HloInstr **outs;
	/* fc: by the caller (merge_siblings: only when fz_finish has work
	 * there); outer: once per computation (mof_comp) */
	bool was_tuple = fc->root->op == HLO_TUPLE;
	if (was_tuple && !elementwise_readers(z, f))
		return -1;
	int n = outputs(f, &outs);
	enum { SMALL = 16 };
	HloInstr *small_ops[SMALL];
	Shape *small_shapes[SMALL];
	bool small = n + 2 <= SMALL;
	HloInstr **ops =
		small ? small_ops : malloc(sizeof *ops * (size_t)(n + 2));
	Shape **shapes =
		small ? small_shapes : malloc(sizeof *shapes * (size_t)(n + 2));
	if (!ops || !shapes) {
		if (!small) {
			free(ops);
			free(shapes);
		}
		z->failed = true;
		return -1;
	}
	for (int i = 0; i < n; i++) {
		ops[i] = outs[i];
		shapes[i] = outs[i]->shape;
	}
	ops[n] = extra;
	shapes[n] = extra->shape;
	Shape *ts = shape_tuple(a, n + 1, shapes);
	if (!ord->tuple)
		ord->tuple = arena_strdup(a, "tuple");
	/* (hlo_instr_new_unique with the name copied once) */
	HloInstr *root = ts && ord->tuple
				 ? hlo_instr_new_in_arena(fc, HLO_TUPLE, ts,
							  ord->tuple, n + 1,
							  ops)
				 : NULL;
	if (!small) {
		free(ops);
		free(shapes);
	}
	if (!root) {
		z->failed = true;
		return -1;
	}
	HloInstr *old_root = fc->root;
	fc->root = root;
	if (was_tuple && old_root->nusers == 0) {
		pass_detach(old_root);
		pass_compact(fc); /* the only gap: producer_mof closes its own */
	}
	Shape *old_shape = f->shape;
	f->shape = ts; /* shared with the root: shapes are immutable */
	if (was_tuple)
		return n; /* users already read get-tuple-elements */
	/* Single-output before: its users now read element 0. */
	HloInstr *g = new_gte(z, outer, old_shape /* f has a new one */, NULL,
			      0);
	if (!g)
		return -1;
	hlo_replace_all_uses(f, g);
	HloInstr *op = f;
	g->ops = arena_alloc(a, sizeof *g->ops);
	if (!g->ops) {
		z->failed = true;
		return -1;
	}
	g->ops[0] = NULL;
	g->nops = 1;
	hlo_set_operand(g, 0, op);
	return n;
}

/* A get-tuple-element of f for output k, replacing every use of old. */
static bool reroute(Fz *z, HloInstr *f, int k, HloInstr *old)
{
	HloInstr *g = new_gte(z, f->parent, old->shape, f, k);
	if (!g)
		return false;
	hlo_replace_all_uses(old, g);
	return true;
}

/* pass_detach for sibling b, merged away, except that b stays listed
 * among the users of a scalar parameter read by many kernels until its
 * computation is done (sweep_unswept). Taking b out of the middle of a
 * list of 20,000 at once moves half of it each time, and the merges walk
 * such a list from end to middle. Work on that computation never reads
 * those lists: a scalar has no siblings to offer and a parameter is no
 * producer. Work on another one can (a computation both called and the
 * body of a fusion there): it starts after the sweep. */
static void detach_sibling(Fz *z, HloInstr *b)
{
	for (int i = 0; i < b->nops; i++) {
		HloInstr *o = b->ops[i];
		if (!o || o->op != HLO_PARAMETER || o->nusers <= 64 ||
		    shape_elements(o->shape) != 1) {
			hlo_set_operand(b, i, NULL);
			continue;
		}
		b->ops[i] = NULL; /* b stays in o->users for now */
		if (!fz_among(z->unswept, z->nunswept, o)) {
			if (!fz_grow((void **)&z->unswept, &z->cap_unswept,
				     z->nunswept + 1, sizeof *z->unswept)) {
				/* out of memory: take b out now */
				b->ops[i] = o;
				hlo_set_operand(b, i, NULL);
				continue;
			}
			z->unswept[z->nunswept++] = o;
		}
	}
	pass_detach(b); /* its operands are all NULL: names and root */
}

/* Takes the siblings merged away out of the lists detach_sibling left
 * them in. */
static void sweep_unswept(Fz *z)
{
	for (int i = 0; i < z->nunswept; i++)
		hlo_instr_sweep_users(z->unswept[i]);
	z->nunswept = 0;
}

/* fz_kind_of_fusion(gc, f) without a scan for the whole group: the
 * kind goes by f's dots, convolutions and reductions only (scan_one's
 * ndot and nreduce; fz_kind_from). */
static FKind kind_of(Order *o, const HloInstr *f)
{
	unsigned h = heroes(o, f);
	FKind k = h & F_DOT ? FK_OUTPUT : h & F_REDUCE ? FK_INPUT : FK_LOOP;
#if XR_ASAN
	Group g = fz_group_of(f);
	if (fz_kind_from(&g) != k) {
		fprintf(stderr, "kind_of: %s is not what a scan finds\n",
			f->name);
		abort();
	}
#endif
	return k;
}

/* Sibling fusion: b's work moves into a (both read shared operand o);
 * b's users read a's new outputs. */
static HloInstr *merge_siblings(Fz *z, Order *ord, HloInstr *a, HloInstr *b)
{
	/* a computation made just now (fz_wrap) is left to fz_finish */
	bool wrapped = a->op != HLO_FUSION;
	/* Of two fusions, a's scan after follows from both scans before:
	 * its heroes are theirs, its parameters a's and those it gains,
	 * and its loop shape stays when b brings no reduce (a's last
	 * reduce, else its first output, is still the one). */
	bool fusions = !wrapped && b->op == HLO_FUSION;
	Scan sa = fusions ? *scanned(ord, a) : (Scan){0, 0, NULL};
	Scan sb = fusions ? *scanned(ord, b) : (Scan){0, 0, NULL};
	int nops = a->nops;
	if (wrapped && !(a = fz_wrap(z, a)))
		return NULL;
	if (b->op != HLO_FUSION && !(b = fz_wrap(z, b)))
		return NULL;
	/* a wrap's fusion has a new id, which forget and kind_of below
	 * read ord by: room for it (raise_levels makes room only once the
	 * merge is over) */
	if (!order_fit(ord, z->m, a->parent->n)) {
		z->failed = true;
		return NULL;
	}
	HloComp *bc = fz_fused_comp(b);
	bool b_tuple = bc->root->op == HLO_TUPLE;
	/* Move b's computation into a (b and it go after): b's parameters
	 * become a's. */
	HloComp *ac = fz_fused_comp(a);
	/* on the stack for the few operands and instructions most have */
	enum { SMALL = 32 };
	HloInstr *small_ops[SMALL], *small_po[SMALL], *small_map[SMALL];
	HloInstr **bops =
		b->nops < SMALL ? small_ops
				: malloc(sizeof *bops * (size_t)(b->nops + 1));
	bool small = bc->n < SMALL;
	HloInstr **po =
		small ? small_po : malloc(sizeof *po * (size_t)(bc->n + 1));
	HloInstr **map =
		small ? small_map : malloc(sizeof *map * (size_t)(bc->n + 1));
	for (int i = 0; bops && i < b->nops && !z->failed; i++)
		bops[i] = fz_param_for(z, a, b->ops[i]);
	int n = bops && po && map && !z->failed
			? fz_move_comp_in(z, bc, ac, a->parent, bops, b->nops,
					  po, map)
			: -1;
	if (bops != small_ops)
		free(bops);
	if (n < 0)
		z->failed = true;
	if (!z->failed) {
		HloInstr **bouts;
		int nb = b_tuple ? bc->root->nops : 1;
		bouts = b_tuple ? bc->root->ops : &bc->root;
		int first = -1;
		for (int k = 0; k < nb && !z->failed; k++) {
			int at = add_output(z, ord, a, map[bouts[k]->mark]);
			if (k == 0)
				first = at;
		}
		/* b's users: get-tuple-elements of b (multi-output) or b. */
		if (!z->failed && b_tuple && elementwise_readers(z, b)) {
			while (b->nusers && !z->failed) {
				HloInstr *u = b->users[0];
				int64_t k = 0;
				hlo_attr_int(u, A_INDEX, &k);
				HloAttr *ix = hlo_attr_find(u, A_INDEX);
				if (ix)
					ix->u.i = first + k;
				hlo_set_operand(u, 0, a);
			}
		} else if (!z->failed) {
			reroute(z, a, first, b);
		}
		/* The copy of b's root tuple: its elements are a's outputs
		 * now, and nothing reads it. */
		HloInstr *bt = b_tuple ? map[bc->root->mark] : NULL;
		if (!z->failed && bt && bt->nusers == 0 && bt != ac->root)
			hlo_instr_remove(bt); /* not detached: ac may be
						 inlined before it is compacted */
		/* fz_finish compacts, tidies and sorts what is touched: ac
		 * was compacted (add_output), grew in order (parameters,
		 * then b's copies in post order, then the root) and its
		 * parameters are named by number (temp_params is off) unless
		 * they came so from the text */
		if (wrapped || !params_tidy(ac))
			fz_touch(z, ac);
#if XR_ASAN
		else if (!in_order(z->m, ac)) {
			fprintf(stderr, "merge_siblings: %s out of order\n",
				ac->name);
			abort();
		}
#endif
		forget(ord, a);
		if (fusions && !(sb.heroes & F_REDUCE))
			scan_known(ord, a,
				   (Scan){sa.heroes | sb.heroes,
					  sa.nparams + a->nops - nops, sa.loop});
		fz_set_kind(a, kind_of(ord, a));
		if (!z->failed && b->nusers == 0) {
			if (z->log && !fusion_log_renamed(z->log, a->parent->name,
							  b->name, a->name))
				z->failed = true;
			detach_sibling(z, b);
			fz_forward(z, b, a);
			fz_drop_comp(z, bc);
		}
	}
	if (!small) {
		free(po);
		free(map);
	}
	return z->failed ? NULL : a;
}

/* fz_human(b), made once for a run of merges that save the same. */
static const char *human(Order *o, int64_t b)
{
	if (!o->last_human[0] || o->last_saved != b) {
		fz_human(o->last_human, sizeof o->last_human, b);
		o->last_saved = b;
	}
	return o->last_human;
}

static bool fusion_operand_budget(const HloInstr *a, const HloInstr *b)
{
	int n = a->nops;
	for (int i = 0; i < b->nops; i++)
		if (!fz_among(a->ops, a->nops, b->ops[i]) &&
		    !fz_among(b->ops, i, b->ops[i]))
			n++;
	return n <= FUSION_MAX_OPERANDS;
}

/* Tries sibling pairs among the users of o. */
static bool siblings_of(Fz *z, HloInstr *o, Order *ord)
{
	HloComp *c = o->parent;
	int nu = o->nusers < 8 ? o->nusers : 8;
	/* asked once per user, not once per pair: nothing changes until
	 * a merge, which ends the search */
	const char *unfit[8];
	for (int i = 0; i < nu; i++)
		unfit[i] = mof_unfit(z->groups, ord, o->users[i]);
	for (int i = 0; i < nu; i++) {
		HloInstr *a = o->users[i];
		if (unfit[i])
			continue;
		/* The names the log gives the pair, looked up before the
		 * checks: each is a probe of the computation's name map,
		 * mostly a miss in the cache, which then overlaps the
		 * checks instead of being waited for after them. a's holds
		 * for every b (nothing changes until a merge). Names live
		 * in the module's arena: still readable after a and b are
		 * replaced. */
		const char *an = i + 1 < nu ? fz_value_name(a) : NULL;
		for (int j = i + 1; j < nu; j++) {
			HloInstr *b = o->users[j];
			const char *bn = fz_value_name(b);
			Verdict v;
			fz_verdict_clear(&v);
			v.siblings = true;
			const char *why = unfit[j];
			char s1[64], s2[64];
			if (why) {
				fz_say(&v, false, "mof-not-fusible",
				       "%s cannot join a multi-output fusion: "
				       "it "
				       "is %s",
				       b->name, why);
			} else if (!shape_same_dims(loop_shape(ord, a),
						    loop_shape(ord, b))) {
				fz_shape_text(s1, sizeof s1,
					      loop_shape(ord, a));
				fz_shape_text(s2, sizeof s2,
					      loop_shape(ord, b));
				fz_say(&v, false, "mof-shapes",
				       "different loop shapes (%s vs %s)", s1,
				       s2);
			} else if (reaches(z->m, ord, a, b) ||
				   reaches(z->m, ord, b, a)) {
				fz_say(&v, false, "mof-cycle",
				       "multi-output fusion creates a cycle: "
				       "one "
				       "of the two depends on the other");
			} else if (!fusion_operand_budget(a, b)) {
				fz_say(&v, false, "too-many-operands",
				       "fusion would exceed %d operands",
				       FUSION_MAX_OPERANDS);
			} else {
				v.saved = fz_bytes_of(o);
				fz_say(&v, true, "sibling",
				       "siblings read %s: one kernel reads it "
				       "once (saves %s)",
				       o->name, human(ord, v.saved));
			}
			if (!v.fused) {
				fz_record(z, an, bn, c->name, NULL, &v, NULL);
				continue;
			}
			HloInstr *f = merge_siblings(z, ord, a, b);
			if (f) {
				/* made in f: settled with f's name when the pass
				 * ends (or the fusion f becomes part of), not
				 * looked up by fusion_log_refresh */
				fz_record(z, an, bn, c->name, f->name, &v, f);
				if (!raise_levels(ord, z->m, f))
					z->failed = true;
			}
			z->nfused++;
			return true;
		}
	}
	return false;
}

/* Producer-consumer multi-output fusion: p (several users, not fused by
 * the fusion pass) joins its consumer c, a reduction's kernel or, with
 * loops, a loop kernel or elementwise op too (never a dot's); its other
 * users read it as an extra output of c. */
static bool producer_mof(Fz *z, HloInstr *p, Order *ord, bool loops)
{
	if (p->nusers < 2)
		return false;
	/* p is asked about only once a consumer qualifies: most producers
	 * have none, and the look at p would be wasted. A consumer that
	 * does not qualify (without loops: one without a reduction) is
	 * passed over before the rest of its look. Not so
	 * for p other than a fusion, whose look reads p alone (no fused
	 * computation): mostly a parameter, dot or get-tuple-element that
	 * cannot join, and read by many (a model's weights by every layer),
	 * whose users would be looked at, and their fused computations
	 * walked, in vain (answered the same: false, nothing recorded). */
	if (p->op != HLO_FUSION && (mof_unfit(z->groups, ord, p) ||
				    heroes(ord, p)))
		return false;
	bool p_ok = false;
	for (int i = 0; i < p->nusers; i++) {
		HloInstr *cons = p->users[i];
		/* a fusion, or (with loops) an elementwise op the fusion
		 * pass left alone, wrapped once it is taken */
		bool wrap = cons->op != HLO_FUSION;
		unsigned hc = wrap ? 0 : heroes(ord, cons);
		if (wrap ? !loops || !(hlo_opcode_flags(cons->op) & XF_EW)
			 : (hc & F_DOT) || (!loops && !(hc & F_REDUCE)))
			continue;
		if (mof_unfit(z->groups, ord, cons))
			continue;
		if (!p_ok) {
			if (mof_unfit(z->groups, ord, p) || heroes(ord, p))
				return false;
			p_ok = true;
		}
		Verdict v;
		fz_verdict_clear(&v);
		char s1[64], s2[64];
		bool cycle = false;
		for (int k = 0; k < p->nusers && !cycle; k++)
			if (p->users[k] != cons)
				cycle = reaches(z->m, ord, p->users[k], cons);
		if (cycle) {
			fz_say(&v, false, "mof-cycle",
			       "multi-output fusion creates a cycle: another "
			       "user of %s feeds %s",
			       p->name, cons->name);
		} else if (!shape_same_dims(loop_shape(ord, p),
					    loop_shape(ord, cons))) {
			fz_shape_text(s1, sizeof s1, loop_shape(ord, p));
			fz_shape_text(s2, sizeof s2, loop_shape(ord, cons));
			fz_say(&v, false, "mof-shapes",
			       "different loop shapes (%s vs %s)", s1, s2);
		} else if (fz_merged_operands(p, cons) > FUSION_MAX_OPERANDS) {
			fz_say(&v, false, "too-many-operands",
			       "fusion would exceed %d operands",
			       FUSION_MAX_OPERANDS);
		} else {
			v.saved = fz_bytes_of(p);
			fz_say(&v, true, "producer-consumer-multi-output",
			       "%s joins the kernel of %s and stays an extra "
			       "output for its %d other user%s (saves reading "
			       "%s)",
			       fz_value_name(p), fz_value_name(cons),
			       p->nusers - 1, p->nusers == 2 ? "" : "s",
			       human(ord, v.saved));
		}
		if (!v.fused) {
			fz_record_pair(z, p, cons, NULL, &v);
			continue;
		}
		if (wrap) {
			/* named as it was: its copy in the wrap may be
			 * renamed (one named param_1 is, beside the
			 * wrap's parameters) */
			const char *cn = cons->name;
			/* (a new id: room for it in ord) */
			if (!(cons = fz_wrap(z, cons)) ||
			    !order_fit(ord, z->m, cons->parent->n)) {
				z->failed = true;
				return false;
			}
			fz_record(z, fz_value_name(p), cn, cons->parent->name,
				  cons->name, &v, cons);
		} else {
			fz_record_pair(z, p, cons, cons->name, &v);
		}
		forget(ord, cons);
		/* The copy of p inside cons becomes an output; p's other
		 * users read it from there. */
		HloInstr *pv = fz_copy_into(z, p, cons);
		if (!pv)
			return false;
		HloComp *fc = fz_fused_comp(cons);
		for (int k = cons->nops - 1; k >= 0; k--) {
			if (cons->ops[k] != p)
				continue;
			HloInstr *par = hlo_comp_param(fc, k);
			if (par)
				hlo_replace_all_uses(
					par, fz_as_layout(z, fc, pv, par->shape));
			fz_drop_operand(cons, k);
		}
		pass_compact(fc); /* the parameters dropped */
		int at = add_output(z, ord, cons, pv);
		if (at < 0 || !reroute(z, cons, at, p))
			return false;
		fz_set_kind(cons, kind_of(ord, cons));
		if (p->nusers == 0) {
			HloComp *pc = fz_fused_comp(p);
			if (z->log && pc &&
			    !fusion_log_renamed(z->log, cons->parent->name,
						p->name, cons->name))
				z->failed = true;
			pass_detach(p);
			fz_forward(z, p, cons);
			if (pc)
				fz_drop_comp(z, pc);
		}
		if (!raise_levels(ord, z->m, cons))
			z->failed = true;
		z->nfused++;
		return true;
	}
	return false;
}

static void order_free(Order *o)
{
	free(o->lv);
	free(o->seen);
	free(o->why);
	free(o->scan);
	free(o->stack);
}

static void mof_comp(Fz *z, HloComp *c)
{
	int nfused = z->nfused;
	Order ord = {0};
	/* sorted first unless its order is one already (mostly: the
	 * fusion pass sorted it), found by the levels' walk */
	bool sorted = true;
	if (!order_build(&ord, z->m, c, &sorted) ||
	    (!sorted && (!hlo_comp_sort_operands_first(c) ||
			 !order_build(&ord, z->m, c, NULL)))) {
		z->failed = true;
		order_free(&ord);
		return;
	}
	/* Sweeps over the instructions as they stood at the sweep's start;
	 * after a merge the same instruction is tried again. Two phases,
	 * each ended by a sweep that merges nothing: producers offered to
	 * reductions, then to loop kernels too (loops). The instructions
	 * are c's list up to its length then: merges append to it and
	 * take out in place (compacted between sweeps), so it is copied
	 * only before its order changes (a stale order: re-sorted). */
	bool loops = false;
	for (int sweep = 0; sweep < 32 && !z->failed; sweep++) {
		int n = c->n;
		HloInstr **snap = NULL;
#if XR_ASAN
		HloInstr **was = malloc(sizeof *was * (size_t)(n + 1));
		if (was)
			memcpy(was, c->instrs, sizeof *was * (size_t)n);
#endif
		bool any = false;
		for (int i = 0; i < n && !z->failed; i++) {
			HloInstr *x = snap ? snap[i] : c->instrs[i];
#if XR_ASAN
			if (was && x != was[i]) {
				fprintf(stderr, "mof_comp: %s moved in the list\n",
					c->name);
				abort();
			}
#endif
			if (x->parent != c)
				continue;
			if (ord.stale) {
				/* the rest of the sweep reads a copy */
				if (!snap && (snap = malloc(sizeof *snap *
							    (size_t)(n + 1))))
					memcpy(snap, c->instrs,
					       sizeof *snap * (size_t)n);
				if (!snap) {
					z->failed = true;
					break;
				}
				pass_compact(c);
				if (!hlo_comp_sort_operands_first(c) ||
				    !order_build(&ord, z->m, c, NULL)) {
					z->failed = true;
					break;
				}
				ord.stale = false;
			}
			bool changed = producer_mof(z, x, &ord, loops);
			if (!changed && x->parent == c && x->nusers >= 2 &&
			    shape_elements(x->shape) > 1)
				changed = siblings_of(z, x, &ord);
			if (changed && x->parent == c)
				i--; /* x may have more to give */
			any |= changed;
		}
		free(snap);
#if XR_ASAN
		free(was);
#endif
		/* (after a sweep that took nothing out, the last compaction
		 * holds) */
		if (any || sweep == 0)
			pass_compact(c);
		if (!any && loops)
			break;
		if (!any)
			loops = true;
	}
	/* Touched once here, not at each merge: fz_finish tidies each
	 * touched computation by itself, in whatever order. */
	if (z->nfused > nfused)
		fz_touch(z, c);
	sweep_unswept(z);
	order_free(&ord);
}

bool pass_multi_output_fusion(HloModule *m, PassCtx *cx)
{
	/* temp_params off: a new parameter takes its final name param_N
	 * at once (a sibling's parameters only ever come after a's), so
	 * that a computation merged into needs no tidy_params */
	Fz z = {.m = m, .log = cx->fusion_log, .pass = "multi-output-fusion",
		/* the groups' cache is only asked about control edges
		 * here (fz_wrap's entries are not read again): without
		 * them, the answer needs none */
		.groups = m->control_preds ? fz_groups_new() : NULL};
	HloComp **comps;
	int nc = fz_code_comps(m, &comps);
	if (nc < 0) {
		z.failed = true;
		nc = 0;
	}
	for (int i = 0; i < nc && !z.failed && !cx->fusion_off; i++)
		mof_comp(&z, comps[i]);
	sweep_unswept(&z);
	free(z.unswept);
	pass_note_rule_n(cx, "multi-output", z.nfused);
	return fz_finish(&z, cx, comps, nc);
}
