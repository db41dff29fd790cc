/* registry.c - the pass table, named pipelines, kernel counting,
 * pass_run (a pass in place, then verify what changed and count) and
 * pass_apply (the same on a clone: hand back or roll back). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost.h"
#include "passes.h"
#include "verify.h"

static const Pass passes[] = {
	{"algsimp", "algebraic simplification: named rewrite rules (x+0, "
		    "reshape of reshape, ...)", pass_algsimp},
	{"call-inliner", "inline call instructions into their callers",
	 pass_call_inliner},
	{"constant-folding",
	 "evaluate instructions whose operands are all constants",
	 pass_constant_folding},
	{"cse", "merge identical instructions (common subexpressions)",
	 pass_cse},
	{"dce", "remove dead instructions and uncalled computations", pass_dce},
	{"defuser", "take every fusion apart into the instructions it fused "
		    "(XLA's Defuser)", pass_defuser},
	{"fusion", "producer/consumer fusion into kLoop, kInput and kOutput "
		   "kernels, with a decision log", pass_fusion},
	{"multi-output-fusion", "fuse siblings that read the same operands "
				"into one multi-output kernel",
	 pass_multi_output_fusion},
	{"tuple-simplifier",
	 "fold get-tuple-element of tuple and tuple of get-tuple-elements",
	 pass_tuple_simplifier},
};

enum { NPASSES = sizeof passes / sizeof *passes };

const Pass *pass_table(int *n)
{
	*n = NPASSES;
	return passes;
}

const Pass *pass_find(const char *name)
{
	for (int i = 0; i < NPASSES; i++)
		if (!strcmp(passes[i].name, name))
			return &passes[i];
	return NULL;
}

void pass_note_rule(PassCtx *cx, const char *rule)
{
	pass_note_rule_n(cx, rule, 1);
}

void pass_out_of_memory(PassCtx *cx)
{
	diag_error(cx->d, NULL, (SrcLoc){0, 0}, "out of memory");
	cx->oom = true;
}

void pass_note_rule_n(PassCtx *cx, const char *rule, int n)
{
	if (n <= 0)
		return;
	for (int i = 0; i < cx->nrules; i++) {
		if (cx->rules[i].rule == rule ||
		    !strcmp(cx->rules[i].rule, rule)) {
			cx->rules[i].count += n;
			return;
		}
	}
	if (cx->nrules == PASS_MAX_RULES)
		return;
	cx->rules[cx->nrules].rule = rule;
	cx->rules[cx->nrules++].count = n;
}

/* ---- pipelines ---------------------------------------------------------- */

/* The simplification passes every pipeline starts with. */
#define SIMPLIFY "call-inliner", "tuple-simplifier", "algsimp", \
	"constant-folding", "cse", "dce"

static const char *const default_pipeline[] = {
	SIMPLIFY, "fusion", "multi-output-fusion",
};
static const char *const simplify_pipeline[] = {SIMPLIFY};
/* XLA:CPU fuses producers into consumers but makes few multi-output
 * fusions; XLA:GPU makes both (a kernel launch costs more there). */
static const char *const cpu_pipeline[] = {SIMPLIFY, "fusion"};
static const char *const gpu_pipeline[] = {
	SIMPLIFY, "fusion", "multi-output-fusion",
};
#undef SIMPLIFY

#define PIPELINE(name, v) {name, v, sizeof v / sizeof *v}
static const struct {
	const char *name;
	const char *const *steps;
	int n;
} pipelines[] = {
	PIPELINE("default", default_pipeline),
	PIPELINE("simplify", simplify_pipeline),
	PIPELINE("cpu", cpu_pipeline),
	PIPELINE("gpu", gpu_pipeline),
};
#undef PIPELINE

enum { NPIPELINES = sizeof pipelines / sizeof *pipelines };

const char *const *pipeline_find(const char *name, int *n)
{
	for (int i = 0; i < NPIPELINES; i++) {
		if (!strcmp(pipelines[i].name, name)) {
			*n = pipelines[i].n;
			return pipelines[i].steps;
		}
	}
	*n = 0;
	return NULL;
}

const char *const *pipeline_names(int *n)
{
	static const char *const names[NPIPELINES] = {"default", "simplify",
						      "cpu", "gpu"};
	*n = NPIPELINES;
	return names;
}

/* ---- helpers shared by the passes ---------------------------------------- */

static unsigned place_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15u;
	return (unsigned)(x >> 32);
}

/* Block b of pass_place_blocks into out at o; returns the new end. */
static int put_block(const HloComp *c, const int *start, int nb, int b,
		     HloInstr **out, int o, bool *placed)
{
	int end = b + 1 < nb ? start[b + 1] : c->n;
	for (int j = start[b]; j < end; j++)
		out[o++] = c->instrs[j];
	placed[b] = true;
	return o;
}

bool pass_place_blocks(HloComp *c, int base, HloInstr *const *anchor,
		       const int *start, int nb)
{
	if (nb <= 0)
		return true;
	for (int k = 0; k < nb; k++)
		if (start[k] < (k ? start[k - 1] : base) || start[k] > c->n) {
#if XR_ASAN
			fprintf(stderr,
				"pass_place_blocks: block %d of '%s' "
				"is not as described\n",
				k, c->name);
			abort();
#endif
			return true; /* (a caller's error: left as it is) */
		}
	int cap = 16;
	while (cap < 2 * nb)
		cap *= 2;
	int *head = malloc(sizeof *head * (size_t)cap);
	int *next = malloc(sizeof *next * (size_t)nb);
	bool *placed = calloc((size_t)nb, sizeof *placed);
	HloInstr **out = malloc(sizeof *out * (size_t)(c->n + 1));
	bool ok = head && next && placed && out;
	for (int h = 0; ok && h < cap; h++)
		head[h] = -1;
	/* anchor -> its blocks, a list in block order */
	for (int k = nb - 1; ok && k >= 0; k--) {
		unsigned h = place_hash(anchor[k]) & (unsigned)(cap - 1);
		while (head[h] >= 0 && anchor[head[h]] != anchor[k])
			h = (h + 1) & (unsigned)(cap - 1);
		next[k] = head[h];
		head[h] = k;
	}
	int o = 0;
	for (int i = 0; ok && i < base; i++) {
		HloInstr *x = c->instrs[i];
		unsigned h = place_hash(x) & (unsigned)(cap - 1);
		while (head[h] >= 0 && anchor[head[h]] != x)
			h = (h + 1) & (unsigned)(cap - 1);
		for (int b = head[h]; b >= 0; b = next[b])
			o = put_block(c, start, nb, b, out, o, placed);
		out[o++] = x;
	}
	/* at the end: what no block holds, then the blocks no anchor took */
	for (int j = base; ok && j < start[0]; j++)
		out[o++] = c->instrs[j];
	for (int b = 0; ok && b < nb; b++)
		if (!placed[b])
			o = put_block(c, start, nb, b, out, o, placed);
	if (ok && o == c->n)
		memcpy(c->instrs, out, sizeof *out * (size_t)o);
	free(head);
	free(next);
	free(placed);
	free(out);
	return ok && o == c->n;
}

Shape *pass_shape_of(HloModule *m, const HloInstr *x)
{
	if (x->parent && x->parent->module == m)
		return x->shape;
	return shape_clone(&m->arena, x->shape);
}

HloInstr *pass_copy_instr(HloComp *c, const HloInstr *s, HloInstr *const *ops)
{
	return pass_copy_instr_as(c, s, ops, s->name);
}

HloInstr *pass_copy_instr_as(HloComp *c, const HloInstr *s,
			     HloInstr *const *ops, const char *name)
{
	Arena *a = &c->module->arena;
	/* In the same module s's name string is shared, like its shape. */
	bool same = s->parent && s->parent->module == c->module;
	Shape *sh = pass_shape_of(c->module, s);
	HloInstr *d = same ? hlo_instr_new_in_arena(c, s->op, sh, name,
						    s->nops, ops)
			   : hlo_instr_new_unique(c, s->op, sh, s->name,
						  s->nops, ops);
	if (!d)
		return NULL;
	d->async_wrapped = s->async_wrapped;
	d->param_no = s->param_no;
	d->loc = s->loc;
	d->shape_given = s->shape_given;
	if (s->literal && !(d->literal = literal_clone(a, s->literal)))
		return NULL;
	if (!same && s->parent && s->parent->module->control_preds)
		c->module->control_preds = true;
	if (s->nattrs) {
		/* Attribute values are immutable arena data of the same
		 * module: the array is copied, the values shared. */
		d->attrs = arena_dup(a, s->attrs,
				     sizeof *s->attrs * (size_t)s->nattrs);
		if (!d->attrs)
			return NULL;
		d->nattrs = d->cap_attrs = s->nattrs;
	}
	return d;
}

/* A copy of computation src of module m, in m under a fresh name made
 * from src's; fusions inside get computations of their own. */
static HloComp *copy_comp(HloModule *m, HloComp *src)
{
	const char *name = hlo_module_unique_comp_name(m, src->name);
	HloComp *d = name ? hlo_comp_new(m, name) : NULL;
	HloInstr **po = NULL, **map = NULL, **ops = NULL;
	int n = d ? hlo_comp_post_order(src, &po) : -1;
	int maxops = 0;
	for (int i = 0; i < n; i++)
		if (po[i]->nops > maxops)
			maxops = po[i]->nops;
	if (n >= 0) {
		map = calloc((size_t)n + 1, sizeof *map);
		ops = malloc(sizeof *ops * (size_t)(maxops + 1));
	}
	bool ok = map && ops;
	for (int i = 0; ok && i < n; i++)
		po[i]->mark = (unsigned)i;
	for (int i = 0; ok && i < n; i++) {
		const HloInstr *s = po[i];
		for (int k = 0; k < s->nops; k++)
			ops[k] = s->ops[k] ? map[s->ops[k]->mark] : NULL;
		ok = (map[i] = pass_copy_instr(d, s, ops)) != NULL;
		if (ok && s->op == HLO_PARAMETER)
			hlo_comp_param_added(d, map[i]);
	}
	if (ok && src->root) {
		d->root = map[src->root->mark];
		d->root_explicit = src->root_explicit;
	}
	if (ok) {
		d->exec_thread = src->exec_thread;
		d->loc = src->loc;
	}
	free(po);
	free(map);
	free(ops);
	return ok ? d : NULL;
}

bool pass_unshare_fused(HloModule *m)
{
	unsigned gen = hlo_new_mark(m);
	/* Copies are appended to m->comps, so their own fusions are seen
	 * by this same walk. */
	for (int i = 0; i < m->ncomps; i++) {
		HloComp *c = m->comps[i];
		for (int j = 0; j < c->n; j++) {
			HloInstr *f = c->instrs[j];
			HloAttr *a = f->op == HLO_FUSION && f->nattrs
					     ? hlo_attr_find(f, A_CALLS)
					     : NULL;
			if (!a || a->u.comps.n != 1 || !a->u.comps.v[0])
				continue;
			HloComp *fc = a->u.comps.v[0];
			if (fc->mark != gen) {
				fc->mark = gen;
				continue;
			}
			/* Attribute values are shared, never changed in
			 * place: f's slot gets a new one. */
			HloComp **v = arena_alloc(&m->arena, sizeof *v);
			HloComp *copy = v ? copy_comp(m, fc) : NULL;
			if (!copy)
				return false;
			v[0] = copy;
			a->u.comps.v = v;
			if (m->mark_gen < gen) {
				/* the marks wrapped (and were cleared) while
				 * copying: walk again from the start */
				gen = hlo_new_mark(m);
				i = -1;
				break;
			}
			copy->mark = gen;
		}
	}
	return true;
}

void pass_detach(HloInstr *ins)
{
	HloComp *c = ins->parent;
	assert(c && ins->nusers == 0);
	hlo_instr_drop_operands(ins);
	hlo_names_del(c, ins);
	if (c->root == ins)
		c->root = NULL;
	ins->parent = NULL;
}

void pass_compact(HloComp *c)
{
	/* up to the first that left, nothing moves: only read */
	int i = 0, n = c->n;
	HloInstr **v = c->instrs;
	while (i < n && v[i]->parent == c)
		i++;
	int k = i;
	for (; i < n; i++)
		if (v[i]->parent == c)
			v[k++] = v[i];
	c->n = k;
}

/* Opcodes with side effects, and attribute keys whose values are
 * computations, from the one opcode and attribute tables: the check
 * below runs for nearly every instruction of several passes. */
static const bool side_op[HLO_OPCODE_COUNT] = {
#define OP(e, s, ar, cls, fl) [e] = ((fl) & (XF_SIDE | XF_COLL | XF_ASYNC)) != 0,
#include "opcodes.def"
#undef OP
};

static const bool comp_key[A_COUNT] = {
#define ATTR(e, s, k) [e] = (k) == AV_COMP || (k) == AV_COMPS,
#include "attrs.def"
#undef ATTR
};

static bool op_has_side_effect(HloOpcode op)
{
	return (unsigned)op < HLO_OPCODE_COUNT && side_op[op];
}

static bool comp_has_side_effect(const HloComp *c, int depth);

/* Some computation ins calls has a side effect (looking depth levels
 * down at most); the computations in hlo_instr_called_at's order. */
static bool calls_side_effect(const HloInstr *ins, int depth)
{
	for (int i = 0; i < ins->nattrs; i++) {
		const HloAttr *at = &ins->attrs[i];
		if ((unsigned)at->key >= A_COUNT || !comp_key[at->key])
			continue;
		for (int j = 0; j < at->u.comps.n; j++)
			if (comp_has_side_effect(at->u.comps.v[j], depth))
				return true;
	}
	return false;
}

static bool comp_has_side_effect(const HloComp *c, int depth)
{
	for (int i = 0; i < c->n; i++) {
		const HloInstr *ins = c->instrs[i];
		if (op_has_side_effect(ins->op))
			return true;
		if (depth < 64 && ins->nattrs &&
		    calls_side_effect(ins, depth + 1))
			return true;
	}
	return false;
}

bool pass_has_side_effect(const HloInstr *ins)
{
	if (op_has_side_effect(ins->op))
		return true;
	return ins->nattrs && calls_side_effect(ins, 0);
}

/* comp_has_side_effect(c, 0), from sc when it is there. Only answers at
 * depth 0 are kept: deeper ones depend on the depth (the limit). */
static bool comp_side_cached(const HloComp *c, PassSideCache *sc)
{
	for (int i = 0; i < sc->n; i++)
		if (sc->comp[i] == c) {
#if XR_ASAN
			if (sc->side[i] != comp_has_side_effect(c, 0)) {
				fprintf(stderr, "pass_has_side_effect_cached: "
						"the answer for %s changed\n",
					c->name);
				abort();
			}
#endif
			return sc->side[i];
		}
	bool side = comp_has_side_effect(c, 0);
	if (sc->n < PASS_SIDE_CACHE) {
		sc->comp[sc->n] = c;
		sc->side[sc->n++] = side;
	}
	return side;
}

/* calls_side_effect(ins, 0) with comp_side_cached, from attribute i
 * (the first that holds computations) on. Out of line: the check
 * below, run for nearly every instruction, stays a leaf with nothing to
 * save on the stack. */
static __attribute__((noinline)) bool
calls_side_cached(const HloInstr *ins, int i, PassSideCache *sc)
{
	for (; i < ins->nattrs; i++) {
		const HloAttr *at = &ins->attrs[i];
		if ((unsigned)at->key >= A_COUNT || !comp_key[at->key])
			continue;
		for (int j = 0; j < at->u.comps.n; j++)
			if (comp_side_cached(at->u.comps.v[j], sc))
				return true;
	}
	return false;
}

bool pass_has_side_effect_cached(const HloInstr *ins, PassSideCache *sc)
{
	if (op_has_side_effect(ins->op))
		return true;
	for (int i = 0; i < ins->nattrs; i++) {
		unsigned key = (unsigned)ins->attrs[i].key;
		if (key < A_COUNT && comp_key[key])
			return calls_side_cached(ins, i, sc);
	}
	return false;
}

/* ---- kernels and pass_apply --------------------------------------------- */

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The first message of d without its "error: " prefix, one line. */
static void first_message(Diag *d, char *buf, size_t cap)
{
	const char *s = diag_text(d);
	const char *e = strstr(s, "error: ");
	if (e)
		s = e + 7;
	size_t n = strcspn(s, "\n");
	snprintf(buf, cap, "%.*s", (int)n, s);
}

static void report(PassCtx *cx, const char *fmt, const char *name,
		   const char *msg)
{
	if (cx->d)
		diag_error(cx->d, NULL, (SrcLoc){0, 0}, fmt, name, msg);
}

/* The module's computations and their roots, as one hash. */
static uint64_t module_outline(const HloModule *m)
{
	uint64_t h = (uint64_t)m->ncomps * 0x9e3779b97f4a7c15u;
	h ^= (uint64_t)(uintptr_t)m->entry;
	for (int i = 0; i < m->ncomps; i++) {
		h = (h ^ (uint64_t)(uintptr_t)m->comps[i]) * 0x100000001b3u;
		h = (h ^ (uint64_t)(uintptr_t)m->comps[i]->root) *
		    0x100000001b3u;
	}
	return h;
}

/* hlo_module_clone_each, the copy taking m's signatures. */
static HloModule *clone_each(const HloModule *m, HloCloneEach *each, void *ctx)
{
	HloModule *c = hlo_module_clone_each(m, each, ctx);
	if (c)
		verify_inherit(c, m);
	return c;
}

HloModule *pass_clone(const HloModule *m) { return clone_each(m, NULL, NULL); }

HloModule *pass_clone_counted(const HloModule *m, PassResult *r)
{
	memset(r, 0, sizeof *r);
	/* A source that holds no other's arena is shared by its clone,
	 * which takes each vsig (and what the cost model remembers by it:
	 * cost_sig, cost_read) as it is: both count the same, as m's
	 * signatures stand. Counted on m as the clone copies it (each
	 * instruction of the entry just before its copy, while it is in
	 * cache: one walk over m, not two), what the walk remembers stays
	 * on m (a memo only: not what m computes) and goes to the copy, so
	 * the next clone of m (a pipeline run again from the same module:
	 * replay, the bench) finds every kernel's bytes. A source that
	 * holds one is copied whole (verify_inherit gives the signatures):
	 * counted on the clone, as before. */
	bool on_m = !arena_holds(&m->arena);
	CostWalk *w = on_m ? cost_walk_new() : NULL;
	if (on_m && !w)
		return NULL;
	HloModule *c = clone_each(m, w ? cost_walk_instr : NULL, w);
	if (!c) { /* out of memory: the walk stopped short */
		cost_walk_drop(w);
		return NULL;
	}
	int kernels = 0;
	int64_t bytes = w ? cost_walk_end(w, (HloModule *)m, &kernels) : 0;
	/* The signatures verify_inherit gave are current (nothing has
	 * changed the clone yet): the verified walk keeps the bytes by
	 * them, and the first pass's walk reuses what it did not change
	 * (pass_run counted the clone unverified, then again in full). */
	if (!on_m)
		bytes = cost_bytes_moved_verified_kernels(c, &kernels);
	r->m = c;
	r->instrs_before = r->instrs_after = hlo_module_instr_count(c);
	r->bytes_before = r->bytes_after = bytes;
	r->kernels_before = r->kernels_after = kernels;
	return c;
}

/* The next name of a raw list at *s: skips the separators, sets *tok and
 * *n to the name as written ('%' kept; *n is 0 at the end) and moves *s
 * past it. Returns c's instruction of that name, or NULL. */
static const HloInstr *next_listed(const HloComp *c, const char **s,
				   const char **tok, size_t *n)
{
	*s += strspn(*s, "{}, \t\n");
	*tok = *s;
	*n = strcspn(*s, "{}, \t\n");
	*s += *n;
	size_t pct = **tok == '%';
	return *n > pct ? namemap_getn(&c->names, *tok + pct, *n - pct)
			: NULL;
}

/* See passes.h. */
int pass_relist(const HloComp *c, const char *list, ListedName name,
		void *ctx, StrBuf *b, bool *changed)
{
	int kept = 0;
	const char *tok;
	size_t n;
	*changed = false;
	sb_clear(b);
	sb_putc(b, '{');
	for (const char *s = list; *s;) {
		const HloInstr *y = next_listed(c, &s, &tok, &n);
		if (!n)
			continue;
		const char *w = name(ctx, y, tok, n);
		*changed |= w != tok;
		if (!w)
			continue;
		if (kept++)
			sb_puts(b, ", ");
		if (w == tok)
			sb_putn(b, tok, n);
		else
			sb_puts(b, w);
	}
	sb_putc(b, '}');
	return kept;
}

/* A name that is still one of the computation's, other than the
 * instruction's own (ctx), stays as written. */
static const char *still_there(void *ctx, const HloInstr *y, const char *tok,
			       size_t n)
{
	(void)n;
	return y && y != ctx ? tok : NULL;
}

/* x's attribute i, control-predecessors: names not in x's computation
 * any more go. False when the attribute went with its last name. */
static bool tidy_preds(HloModule *m, HloInstr *x, int i, StrBuf *b)
{
	HloAttr *a = &x->attrs[i];
	bool changed;
	int kept = pass_relist(x->parent, a->u.s, still_there, x, b, &changed);
	if (!changed)
		return true;
	const char *v = kept ? arena_strdup(&m->arena, sb_str(b)) : NULL;
	if (v) {
		a->u.s = v;
		return true;
	}
	/* none left (or out of memory): the attribute goes */
	memmove(a, a + 1, sizeof *a * (size_t)(x->nattrs - i - 1));
	x->nattrs--;
	return false;
}

/* See passes.h. */
void pass_tidy_control_preds(HloModule *m)
{
	if (!m->control_preds)
		return;
	StrBuf b;
	sb_init(&b);
	for (int ci = 0; ci < m->ncomps; ci++) {
		HloComp *c = m->comps[ci];
		for (int j = 0; j < c->n; j++) {
			HloInstr *x = c->instrs[j];
			for (int i = 0; i < x->nattrs; i++) {
				const HloAttr *a = &x->attrs[i];
				if (a->key == A_RAW && a->u.s &&
				    !strcmp(a->name, "control-predecessors") &&
				    !tidy_preds(m, x, i, &b))
					i--;
			}
		}
	}
	sb_free(&b);
}

typedef struct Rename {
	const HloInstr *f;
	const char *to;
	bool seen; /* the list being rewritten names to already */
} Rename;

/* f's name becomes to, and to is listed once: a list that also names
 * the instruction called to keeps the first of the two. */
static const char *renamed(void *ctx, const HloInstr *y, const char *tok,
			   size_t n)
{
	Rename *r = ctx;
	(void)n;
	if (!y || (y != r->f && strcmp(y->name, r->to)))
		return tok;
	if (r->seen)
		return NULL;
	r->seen = true;
	return y == r->f ? r->to : tok;
}

/* See passes.h. */
bool pass_relist_renamed(HloModule *m, HloInstr *f, const char *nn, StrBuf *b)
{
	HloComp *c = f->parent;
	Rename r = {f, nn, false};
	for (int j = 0; j < c->n; j++) {
		HloInstr *x = c->instrs[j];
		for (int i = 0; i < x->nattrs; i++) {
			HloAttr *a = &x->attrs[i];
			bool changed;
			if (a->key != A_RAW || !a->u.s ||
			    strcmp(a->name, "control-predecessors"))
				continue;
			r.seen = false;
			pass_relist(c, a->u.s, renamed, &r, b, &changed);
			const char *v = changed ? arena_strdup(&m->arena,
							       sb_str(b))
						: a->u.s;
			if (!v)
				return false;
			a->u.s = v;
		}
	}
	return true;
}

const char *pass_free_name(char *buf, size_t cap, const char *base,
			   const NameMap *a, const NameMap *b)
{
	size_t len;
	return pass_free_namen(buf, cap, base, strlen(base), a, b, &len);
}

/* The stem and its dot are written once; each next candidate's number
 * is the last one's, incremented in place (base.9 -> base.10 moves the
 * zeros right). Names past cap are cut as hlo_numbered_name cuts them. */
const char *pass_free_namen(char *buf, size_t cap, const char *base,
			    size_t n, const NameMap *a, const NameMap *b,
			    size_t *len)
{
	if (n > 198)
		n = 198;
	if (cap < n + 2 + 24) { /* the number may not fit: cut */
		char stem[200];
		memcpy(stem, base, n);
		stem[n] = '.';
		for (long long k = 1;; k++) {
			hlo_numbered_name(buf, cap, stem, n + 1, k);
			size_t l = strlen(buf);
			unsigned h = namemap_key_hash(buf, l);
			if (!namemap_geth(a, buf, l, h) &&
			    (!b || !namemap_geth(b, buf, l, h))) {
				*len = l;
				return buf;
			}
		}
	}
	memcpy(buf, base, n);
	buf[n] = '.';
	char *d = buf + n + 1;
	size_t nd = 1;
	d[0] = '1';
	for (;;) {
		size_t l = n + 1 + nd;
		buf[l] = 0;
		/* one hash for both maps */
		unsigned h = namemap_key_hash(buf, l);
		if (!namemap_geth(a, buf, l, h) &&
		    (!b || !namemap_geth(b, buf, l, h))) {
			*len = l;
			return buf;
		}
		size_t i = nd;
		while (i > 0 && d[i - 1] == '9')
			d[--i] = '0';
		if (i > 0) {
			d[i - 1]++;
		} else {
			memmove(d + 1, d, nd++);
			d[0] = '1';
		}
	}
}

/* f's name with the first suffix .N that no instruction of the module
 * has (all holds their names), taken into all. */
static const char *fresh_module_name(HloModule *m, NameMap *all,
				     const HloInstr *f)
{
	char buf[256];
	const char *nm = arena_strdup(
		&m->arena, pass_free_name(buf, sizeof buf, f->name, all, NULL));
	return nm && namemap_add(all, nm, (void *)f) == 1 ? nm : NULL;
}

/* See passes.h. */
bool pass_unique_fusion_names(HloModule *m)
{
	NameMap seen, all;
	namemap_init(&seen);
	namemap_init(&all);
	HloInstr **dup = NULL;
	int ndup = 0, cap = 0;
	bool ok = true;
	/* the entry first: its fusions keep their names */
	for (int ci = -1; ci < m->ncomps && ok; ci++) {
		HloComp *c = ci < 0 ? m->entry : m->comps[ci];
		if (!c || (ci >= 0 && c == m->entry))
			continue;
		for (int j = 0; j < c->n && ok; j++) {
			HloInstr *f = c->instrs[j];
			if (f->op != HLO_FUSION)
				continue;
			int r = namemap_add(&seen, f->name, f);
			if (r == 1)
				continue;
			if (r == 0 && ndup == cap) {
				int nc = cap ? 2 * cap : 8;
				void *v = realloc(dup, sizeof *dup * (size_t)nc);
				if (v) {
					dup = v;
					cap = nc;
				}
			}
			ok = r == 0 && ndup < cap;
			if (ok)
				dup[ndup++] = f;
		}
	}
	for (int ci = 0; ci < m->ncomps && ok && ndup; ci++) {
		HloComp *c = m->comps[ci];
		for (int j = 0; j < c->n && ok; j++)
			ok = namemap_add(&all, c->instrs[j]->name,
					 c->instrs[j]) >= 0;
	}
	StrBuf b;
	sb_init(&b);
	for (int i = 0; i < ndup && ok; i++) {
		HloInstr *f = dup[i];
		const char *nn = fresh_module_name(m, &all, f);
		ok = nn &&
		     (!m->control_preds || pass_relist_renamed(m, f, nn, &b)) &&
		     hlo_instr_rename(f, nn);
	}
	sb_free(&b);
	free(dup);
	namemap_free(&seen);
	namemap_free(&all);
	return ok;
}

bool pass_run(HloModule *m, const Pass *p, PassCtx *cx, PassResult *r)
{
	memset(r, 0, sizeof *r);
	/* A module being typed may have no root yet: no pass to blame. */
	if (!m->entry || !m->entry->root) {
		report(cx, "pass '%s': %s", p->name,
		       "the module has no instructions yet (no root)");
		return false;
	}
	if (cx->prev && cx->prev->m == m) {
		r->instrs_before = cx->prev->instrs_after;
		r->kernels_before = cx->prev->kernels_after;
		r->bytes_before = cx->prev->bytes_after;
	} else {
		r->instrs_before = hlo_module_instr_count(m);
		r->bytes_before =
			cost_bytes_moved_kernels(m, &r->kernels_before);
	}
	/* Each pass names what it makes from the same start, whether it
	 * runs on a fresh clone or after other passes on the same module:
	 * replaying a pipeline step then gives the same names. */
	hlo_module_reset_name_hints(m);
	uint64_t outline_before = module_outline(m);
#if XR_ASAN
	uint64_t digest_before = verify_module_digest(m);
#endif
	/* The pass reports into a Diag of its own so that its errors can be
	 * wrapped in one "internal error" line. */
	Diag pd, *saved = cx->d;
	diag_init(&pd);
	cx->d = &pd;
	cx->oom = false;
	double t0 = now_ms();
	bool changed = p->run(m, cx);
	r->ms = now_ms() - t0;
	cx->d = saved;
	char msg[1024];
	bool ok = true;
	int checked = -1;
	if (!pd.errors)
		pass_tidy_control_preds(m);
	int instrs_after = hlo_module_instr_count(m);
	bool same_outline = instrs_after == r->instrs_before &&
			    module_outline(m) == outline_before;
	/* As in XLA's pass pipeline, the verifier checks what a pass
	 * changed: a pass that reports no change, with the same number of
	 * instructions and the same computations and roots, is believed.
	 * Sanitizer builds (the tests, the fuzzers) verify it all the same
	 * and stop when the walk finds an instruction it changed. */
	bool verify = changed || !same_outline || XR_ASAN;
	/* the counts after, taken as the verifier walks the entry (out of
	 * memory: afterwards) */
	CostWalk *walk = verify && !pd.errors ? cost_walk_new() : NULL;
	if (pd.errors && cx->oom) {
		report(cx, "pass '%s' %s", p->name, "ran out of memory");
		ok = false;
	} else if (pd.errors) {
		first_message(&pd, msg, sizeof msg);
		report(cx, "internal error: pass '%s' failed: %s", p->name,
		       msg);
		ok = false;
	} else if (verify && !verify_module_changed_each(
				     m, &pd, NULL, &checked,
				     walk ? cost_walk_instrs : NULL, walk)) {
		first_message(&pd, msg, sizeof msg);
		report(cx, "internal error: pass '%s' broke the module: %s",
		       p->name, msg);
		ok = false;
	}
	diag_free(&pd);
#if XR_ASAN
	if (ok && !changed && same_outline &&
	    verify_module_digest(m) != digest_before) {
		fprintf(stderr,
			"pass_run: pass '%s' reported no change but changed "
			"what the verifier reads\n",
			p->name);
		abort();
	}
#endif
	if (!ok) {
		cost_walk_drop(walk);
		return false;
	}
	r->m = m;
	r->changed = changed;
	r->instrs_after = instrs_after;
	if ((checked == 0 || !verify) && same_outline) {
		/* No instruction new or changed, none gone, the same
		 * computations and roots: the counts stand. */
		cost_walk_drop(walk);
		r->kernels_after = r->kernels_before;
		r->bytes_after = r->bytes_before;
		return true;
	}
	if (walk && cost_walk_whole(walk, m)) {
		r->bytes_after = cost_walk_end(walk, m, &r->kernels_after);
		return true;
	}
	cost_walk_drop(walk);
	r->bytes_after =
		cost_bytes_moved_verified_kernels(m, &r->kernels_after);
	return true;
}

bool pass_apply(const HloModule *m, const Pass *p, PassCtx *cx, PassResult *r)
{
	memset(r, 0, sizeof *r);
	HloModule *c = pass_clone(m);
	if (!c) {
		report(cx, "pass '%s': %s", p->name, "out of memory");
		return false;
	}
	/* The counts before are m's: prev describes m, not the clone. */
	const PassResult *prev = cx->prev;
	PassResult keep;
	if (prev && prev->m == m) {
		keep = *prev;
		keep.m = c;
		cx->prev = &keep;
	}
	bool ok = pass_run(c, p, cx, r);
	cx->prev = prev;
	if (!ok)
		hlo_module_free(c);
	return ok;
}
