/* interp.c - the interpreter's engine: frames, buffers, the memory limit,
 * interruption, and the control-flow opcodes (parameter, constant, tuple,
 * get-tuple-element, call, fusion, while, conditional, and the ones that
 * are the identity on one replica).
 *
 * A computation runs in a frame: one slot per instruction, evaluated in
 * post order. Frames are kept per (computation, call depth) and reused,
 * so a reducer called once per element allocates nothing after its first
 * call. Big buffers are freed after their last use, small ones are kept
 * for the next call. */
#include "interp_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	KEEP_BYTES = 4096,   /* buffers up to this size stay in their frame */
	MAX_DEPTH = 256,     /* call nesting */
	POLL_MASK = 0xffff,
};

typedef struct Frame {
	const HloComp *comp;
	int depth;
	int n;
	HloInstr **order;  /* post order */
	int **opos;        /* opos[k][j]: position of operand j of order[k] */
	int *last_use;     /* position of the last user (n: none / root) */
	int root;          /* position of the root, -1 if none */
	Literal **vals;    /* by position */
	struct Frame *next;
} Frame;

struct Interp {
	const HloModule *m;
	Arena arena;       /* frames' bookkeeping; freed at the end */
	Diag *d;
	const InterpOpts *o;
	EvalFn fns[HLO_OPCODE_COUNT];
	int64_t bytes, peak, limit, instrs;
	uint64_t rng_calls;
	int depth;
	unsigned long polls;
	bool failed;
	bool oom; /* the failure: out of memory (InterpStats.oom) */
	Frame *frames;
	Frame *cache[MAX_DEPTH]; /* last frame used at each depth */
};

/* ---- errors and polling ----------------------------------------------- */

static const SrcFile *src_of(const HloInstr *ins, SrcFile *buf)
{
	const HloModule *m = ins && ins->parent ? ins->parent->module : NULL;
	if (!m || !m->source_name)
		return NULL;
	*buf = (SrcFile){m->source_name, NULL, 0, 0};
	return buf;
}

Literal *it_fail(Interp *it, const HloInstr *ins, const char *fmt, ...)
{
	if (it->failed)
		return NULL;
	it->failed = true;
	/* every such report starts with these words */
	it->oom = !strncmp(fmt, "out of memory", 13);
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	SrcFile f;
	if (ins)
		diag_error(it->d, src_of(ins, &f), ins->loc, "%s '%s': %s",
			   hlo_opcode_name(ins->op), ins->name, msg);
	else
		diag_error(it->d, NULL, (SrcLoc){0, 0}, "%s", msg);
	return NULL;
}

bool it_poll(Interp *it, const HloInstr *ins)
{
	if (it->failed)
		return false;
	if (it->o && it->o->interrupted && *it->o->interrupted) {
		it_fail(it, ins, "interrupted");
		return false;
	}
	return true;
}

Arena *it_arena(Interp *it) { return &it->arena; }

uint64_t it_rng_seed(Interp *it, const HloInstr *ins)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
	for (const char *p = ins->name ? ins->name : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3u;
	return h ^ (0x9e3779b97f4a7c15u * ++it->rng_calls);
}

/* ---- buffers ---------------------------------------------------------- */

static void human_bytes(char *buf, size_t n, int64_t b)
{
	if (b >= (int64_t)1 << 30)
		snprintf(buf, n, "%.1f GiB", (double)b / (1 << 30));
	else if (b >= 1 << 20)
		snprintf(buf, n, "%.1f MiB", (double)b / (1 << 20));
	else
		snprintf(buf, n, "%lld bytes", (long long)b);
}

static bool charge(Interp *it, const HloInstr *ins, int64_t bytes)
{
	if (it->limit > 0 && it->bytes + bytes > it->limit) {
		char need[32], lim[32];
		human_bytes(need, sizeof need, it->bytes + bytes);
		human_bytes(lim, sizeof lim, it->limit);
		it_fail(it, ins, "the run needs at least %s, more than the limit "
			"of %s (set max-memory BYTES)", need, lim);
		return false;
	}
	it->bytes += bytes;
	if (it->bytes > it->peak)
		it->peak = it->bytes;
	return true;
}

static int64_t value_bytes(const Literal *l)
{
	if (!l)
		return 0;
	if (l->shape->type == DT_TUPLE) {
		int64_t b = 0;
		for (int i = 0; i < l->ntuple; i++)
			b += value_bytes(l->tuple[i]);
		return b;
	}
	return l->n * dtype_bytes(l->shape->type);
}

static void value_free(Interp *it, Literal *l)
{
	if (!l)
		return;
	if (l->shape->type == DT_TUPLE) {
		for (int i = 0; i < l->ntuple; i++)
			value_free(it, l->tuple[i]);
		free(l->tuple);
	} else {
		it->bytes -= l->n * dtype_bytes(l->shape->type);
		free(l->data);
	}
	free(l);
}

static Literal *value_new(Interp *it, const HloInstr *ins, const Shape *s)
{
	Literal *l = calloc(1, sizeof *l);
	if (!l)
		return it_fail(it, ins, "out of memory");
	l->shape = s;
	if (s->type == DT_TUPLE) {
		/* (value_free walks ntuple elements: none until they are) */
		l->tuple = calloc((size_t)s->ntuple + 1, sizeof *l->tuple);
		if (!l->tuple)
			goto oom;
		l->ntuple = s->ntuple;
		for (int i = 0; i < s->ntuple; i++)
			if (!(l->tuple[i] = value_new(it, ins, s->tuple[i])))
				goto fail;
		return l;
	}
	if (!dtype_is_array(s->type))
		return l;
	int64_t n = shape_elements(s);
	if (n < 0)
		goto oom;
	int64_t bytes = n * dtype_bytes(s->type);
	if (!charge(it, ins, bytes))
		goto fail;
	l->data = calloc((size_t)(bytes ? bytes : 1), 1);
	if (!l->data) {
		it->bytes -= bytes; /* (value_free uncharges n elements: 0) */
		goto oom;
	}
	l->n = n;
	return l;
oom:
	it_fail(it, ins, "out of memory");
fail:
	value_free(it, l);
	return NULL;
}

Literal *it_new(Interp *it, const HloInstr *ins, const Shape *s)
{
	return value_new(it, ins, s);
}

void it_free(Interp *it, Literal *v) { value_free(it, v); }

void it_assign(Literal *dst, const Literal *src)
{
	if (dst->shape->type == DT_TUPLE) {
		for (int i = 0; i < dst->ntuple && i < src->ntuple; i++)
			it_assign(dst->tuple[i], src->tuple[i]);
		return;
	}
	if (dst->data && src->data && dst->n == src->n &&
	    dst->shape->type == src->shape->type)
		memcpy(dst->data, src->data,
		       (size_t)(dst->n * dtype_bytes(dst->shape->type)));
}

Literal *it_copy(Interp *it, const HloInstr *ins, const Literal *v)
{
	Literal *c = value_new(it, ins, v->shape);
	if (c)
		it_assign(c, v);
	return c;
}

void it_copy_elem(Literal *dst, int64_t di, const Literal *src, int64_t si)
{
	int b = dtype_bytes(dst->shape->type);
	memcpy((char *)dst->data + di * b, (const char *)src->data + si * b,
	       (size_t)b);
}

/* ---- indexing --------------------------------------------------------- */

void it_strides(const Shape *s, int64_t *strides)
{
	int64_t st = 1;
	for (int i = s->rank - 1; i >= 0; i--) {
		strides[i] = st;
		st *= s->dims[i];
	}
}

void it_unflatten(const Shape *s, int64_t lin, int64_t *idx)
{
	for (int i = s->rank - 1; i >= 0; i--) {
		int64_t d = s->dims[i];
		idx[i] = d ? lin % d : 0;
		lin = d ? lin / d : 0;
	}
}

int64_t it_flatten(const Shape *s, const int64_t *idx)
{
	int64_t lin = 0;
	for (int i = 0; i < s->rank; i++)
		lin = lin * s->dims[i] + idx[i];
	return lin;
}

bool it_next_index(const Shape *s, int64_t *idx)
{
	for (int i = s->rank - 1; i >= 0; i--) {
		if (++idx[i] < s->dims[i])
			return true;
		idx[i] = 0;
	}
	return false;
}

/* ---- frames ----------------------------------------------------------- */

static Frame *frame_new(Interp *it, const HloComp *c, int depth)
{
	Arena *a = &it->arena;
	Frame *f = arena_alloc(a, sizeof *f);
	HloInstr **order;
	int n = f ? hlo_comp_post_order((HloComp *)c, &order) : HLO_ORDER_OOM;
	if (n == HLO_ORDER_OOM)
		return it_fail(it, NULL, "out of memory"), NULL;
	if (n < 0)
		return it_fail(it, NULL, "computation '%s' has a cycle", c->name), NULL;
	f->comp = c;
	f->depth = depth;
	f->n = n;
	f->order = arena_dup(a, order, sizeof *order * (size_t)(n ? n : 1));
	free(order);
	f->opos = arena_alloc(a, sizeof(int *) * (size_t)(n + 1));
	f->last_use = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
	f->vals = arena_alloc(a, sizeof(Literal *) * (size_t)(n + 1));
	if (!f->order || !f->opos || !f->last_use || !f->vals)
		return it_fail(it, NULL, "out of memory"), NULL;
	/* Positions are found once through the marks, then kept in opos:
	 * evaluation never reads marks (nested walks may change them). */
	for (int k = 0; k < n; k++)
		f->order[k]->mark = (unsigned)k;
	f->root = c->root ? (int)c->root->mark : -1;
	for (int k = 0; k < n; k++) {
		const HloInstr *ins = f->order[k];
		f->opos[k] = arena_alloc(a, sizeof(int) * (size_t)(ins->nops + 1));
		if (!f->opos[k])
			return it_fail(it, NULL, "out of memory"), NULL;
		for (int j = 0; j < ins->nops; j++)
			f->opos[k][j] = (int)ins->ops[j]->mark;
	}
	for (int k = 0; k < n; k++) {
		f->last_use[k] = -1;
		const HloInstr *ins = f->order[k];
		for (int u = 0; u < ins->nusers; u++) {
			int p = (int)ins->users[u]->mark;
			if (ins->users[u]->parent == c && p > f->last_use[k])
				f->last_use[k] = p;
		}
		if (ins == c->root)
			f->last_use[k] = n; /* the result outlives the frame run */
	}
	f->next = it->frames;
	it->frames = f;
	return f;
}

static Frame *frame_get(Interp *it, const HloComp *c, int depth)
{
	Frame *f = it->cache[depth];
	if (f && f->comp == c) /* a reducer called per element hits this */
		return f;
	for (f = it->frames; f; f = f->next)
		if (f->comp == c && f->depth == depth)
			break;
	if (!f)
		f = frame_new(it, c, depth);
	it->cache[depth] = f;
	return f;
}

static void frame_release(Interp *it, Frame *f, int k, bool keep_small)
{
	Literal *v = f->vals[k];
	if (!v)
		return;
	if (keep_small && value_bytes(v) <= KEEP_BYTES)
		return;
	value_free(it, v);
	f->vals[k] = NULL;
}

static void frames_free(Interp *it)
{
	for (Frame *f = it->frames; f; f = f->next)
		for (int k = 0; k < f->n; k++)
			frame_release(it, f, k, false);
	it->frames = NULL;
}

/* ---- evaluation ------------------------------------------------------- */

static bool shapes_match(const Literal *v, const Shape *s)
{
	return v && shape_compatible(v->shape, s);
}

/* The value slot for instruction k: reuse a kept buffer of the same shape,
 * else allocate. Tuple, token and control results get no buffer. */
static Literal *out_buffer(Interp *it, Frame *f, int k)
{
	const HloInstr *ins = f->order[k];
	Literal *v = f->vals[k];
	if (v && v->shape == ins->shape)
		return v;
	frame_release(it, f, k, false);
	if (!dtype_is_array(ins->shape->type))
		return NULL;
	f->vals[k] = value_new(it, ins, ins->shape);
	return f->vals[k];
}

static Literal *eval_param(Interp *it, const HloInstr *ins, Literal *const *args,
			   int nargs, Literal *out)
{
	if (ins->param_no >= nargs)
		return it_fail(it, ins, "no argument for parameter %lld",
			       (long long)ins->param_no);
	const Literal *a = args[ins->param_no];
	if (!shapes_match(a, ins->shape))
		return it_fail(it, ins, "argument has the wrong shape");
	if (out) {
		it_assign(out, a);
		return out;
	}
	return it_copy(it, ins, a);
}

static bool eval_one(Interp *it, Frame *f, int k, Literal *const *args,
		     int nargs)
{
	const HloInstr *ins = f->order[k];
	if ((++it->polls & 0xff) == 0 && !it_poll(it, ins))
		return false;
	it->instrs++;
	Literal *ops_small[8], **ops = ops_small;
	if (ins->nops > 8 && !(ops = malloc(sizeof *ops * (size_t)ins->nops)))
		return it_fail(it, ins, "out of memory"), false;
	for (int i = 0; i < ins->nops; i++)
		ops[i] = f->vals[f->opos[k][i]];
	Literal *out = out_buffer(it, f, k), *v = NULL;
	if (it->failed)
		goto done;
	if (ins->op == HLO_PARAMETER)
		v = eval_param(it, ins, args, nargs, out);
	else if (!it->fns[ins->op])
		v = it_fail(it, ins, "%s is not supported by the interpreter",
			    hlo_opcode_name(ins->op));
	else
		v = it->fns[ins->op](it, ins, ops, out);
	if (v && v != out) { /* the evaluator made its own value */
		if (out && f->vals[k] == out) {
			value_free(it, out);
		}
		f->vals[k] = v;
	}
done:
	if (ops != ops_small)
		free(ops);
	return v != NULL;
}

Literal *it_call(Interp *it, const HloComp *c, Literal *const *args, int n)
{
	if (it->failed)
		return NULL;
	if (it->depth >= MAX_DEPTH)
		return it_fail(it, NULL, "calls nested deeper than %d", MAX_DEPTH);
	Frame *f = frame_get(it, c, it->depth);
	if (!f)
		return NULL;
	it->depth++;
	Literal *res = NULL;
	for (int k = 0; k < f->n; k++) {
		if (!eval_one(it, f, k, args, n))
			goto out;
		/* free what is no longer needed in this call */
		for (int j = 0; j < f->order[k]->nops; j++) {
			int p = f->opos[k][j];
			if (f->last_use[p] == k)
				frame_release(it, f, p, true);
		}
	}
	res = f->root >= 0 ? f->vals[f->root] : NULL;
out:
	it->depth--;
	return res;
}

/* ---- control-flow and identity opcodes -------------------------------- */

static Literal *ev_constant(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out)
{
	(void)ops;
	if (!ins->literal)
		return it_fail(it, ins, "constant without a value");
	if (!out)
		return it_copy(it, ins, ins->literal);
	it_assign(out, ins->literal);
	return out;
}

static Literal *ev_tuple(Interp *it, const HloInstr *ins, Literal *const *ops,
			 Literal *out)
{
	/* a kept tuple of this shape is refilled: no allocation per call */
	Literal *t = out && out->shape == ins->shape ? out
						     : value_new(it, ins, ins->shape);
	if (!t)
		return NULL;
	for (int i = 0; i < ins->nops && i < t->ntuple; i++)
		it_assign(t->tuple[i], ops[i]);
	return t;
}

static Literal *ev_gte(Interp *it, const HloInstr *ins, Literal *const *ops,
		       Literal *out)
{
	int64_t k = 0;
	hlo_attr_int(ins, A_INDEX, &k);
	if (ops[0]->shape->type != DT_TUPLE || k < 0 || k >= ops[0]->ntuple)
		return it_fail(it, ins, "index %lld out of range", (long long)k);
	if (out) {
		it_assign(out, ops[0]->tuple[k]);
		return out;
	}
	return it_copy(it, ins, ops[0]->tuple[k]);
}

/* The value of a call-like instruction: the callee's root, copied out of
 * the callee's frame. */
static Literal *call_into(Interp *it, const HloInstr *ins, const HloComp *c,
			  Literal *const *args, int n, Literal *out)
{
	if (!c)
		return it_fail(it, ins, "no computation to call");
	Literal *r = it_call(it, c, args, n);
	if (!r)
		return NULL;
	if (out && shapes_match(r, out->shape)) {
		it_assign(out, r);
		return out;
	}
	return it_copy(it, ins, r);
}

static Literal *ev_call(Interp *it, const HloInstr *ins, Literal *const *ops,
			Literal *out)
{
	HloComp *c = hlo_attr_comp(ins, A_TO_APPLY);
	if (!c)
		c = hlo_attr_comp(ins, A_CALLS);
	return call_into(it, ins, c, ops, ins->nops, out);
}

static bool pred_value(const Literal *v) { return v && it_geti(v, 0) != 0; }

static Literal *ev_while(Interp *it, const HloInstr *ins, Literal *const *ops,
			 Literal *out)
{
	(void)out;
	HloComp *cond = hlo_attr_comp(ins, A_CONDITION);
	HloComp *body = hlo_attr_comp(ins, A_BODY);
	if (!cond || !body)
		return it_fail(it, ins, "needs condition and body");
	Literal *state = it_copy(it, ins, ops[0]);
	for (int64_t iter = 0; state; iter++) {
		Literal *c = it_call(it, cond, &state, 1);
		if (!c)
			goto fail;
		if (!pred_value(c))
			return state;
		Literal *next = it_call(it, body, &state, 1);
		if (!next || !it_poll(it, ins))
			goto fail;
		it_assign(state, next);
	}
fail:
	value_free(it, state);
	return NULL;
}

static Literal *ev_conditional(Interp *it, const HloInstr *ins,
			       Literal *const *ops, Literal *out)
{
	HloAttr *br = hlo_attr_find(ins, A_BRANCH_COMPUTATIONS);
	const HloComp *c;
	if (br) { /* indexed: out of range picks the last branch */
		int64_t k = it_geti(ops[0], 0);
		int nb = br->u.comps.n;
		if (nb == 0)
			return it_fail(it, ins, "no branches");
		c = br->u.comps.v[k < 0 || k >= nb ? nb - 1 : k];
		return call_into(it, ins, c, ops + 1 + (k < 0 || k >= nb ? nb - 1 : k),
				 1, out);
	}
	bool p = pred_value(ops[0]);
	c = hlo_attr_comp(ins, p ? A_TRUE_COMPUTATION : A_FALSE_COMPUTATION);
	return call_into(it, ins, c, ops + (p ? 1 : 2), 1, out);
}

/* opt-barrier, add-dependency, domain, and collectives on one replica. */
static Literal *ev_identity(Interp *it, const HloInstr *ins,
			    Literal *const *ops, Literal *out)
{
	if (ins->nops < 1)
		return it_fail(it, ins, "needs an operand");
	const Literal *src = ops[0];
	if (ins->op == HLO_ALL_REDUCE && ins->nops > 1) { /* variadic: a tuple */
		Literal *t = value_new(it, ins, ins->shape);
		for (int i = 0; t && i < ins->nops && i < t->ntuple; i++)
			it_assign(t->tuple[i], ops[i]);
		return t;
	}
	if (!shapes_match(src, ins->shape))
		return it_fail(it, ins, "with more than one participant: not "
			       "supported by the interpreter (single replica only)");
	if (out) {
		it_assign(out, src);
		return out;
	}
	return it_copy(it, ins, src);
}

/* Is replica 0 (the one the interpreter runs) a target of ins's
 * source_target_pairs={{s,t},...}? */
static bool permutes_to_replica0(const HloInstr *ins)
{
	const HloAttr *a = hlo_attr_find_raw(ins, "source_target_pairs");
	const char *p = a && a->key == A_RAW ? a->u.s : NULL;
	for (int k = 0; p && *p;) {
		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		char *e;
		long v = strtol(p, &e, 10);
		if (k++ % 2 == 1 && v == 0)
			return true; /* a pair's second number: its target */
		p = e;
	}
	return false;
}

/* collective-permute on one replica: its own value when replica 0 is a
 * target (the source replica runs the same program on the same inputs),
 * zeros when it is none ("a replica that is not a target gets zeros",
 * as XLA has it). */
static Literal *ev_collective_permute(Interp *it, const HloInstr *ins,
				      Literal *const *ops, Literal *out)
{
	if (ins->nops != 1 || permutes_to_replica0(ins))
		return ev_identity(it, ins, ops, out);
	if (!out || out->shape->type == DT_TUPLE)
		return value_new(it, ins, ins->shape);
	memset(out->data, 0, (size_t)out->n * dtype_bytes(out->shape->type));
	return out;
}

static Literal *ev_zero_id(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out)
{
	(void)it, (void)ins, (void)ops;
	return out; /* replica-id, partition-id: 0 on one replica */
}

static Literal *ev_token(Interp *it, const HloInstr *ins, Literal *const *ops,
			 Literal *out)
{
	(void)ops, (void)out;
	return value_new(it, ins, ins->shape); /* after-all: a token */
}

static Literal *ev_custom_call(Interp *it, const HloInstr *ins,
			       Literal *const *ops, Literal *out)
{
	HloAttr *t = hlo_attr_find(ins, A_CUSTOM_CALL_TARGET);
	const char *name = t ? t->u.s : "?";
	/* Annotations that JAX and PyTorch/XLA wrap around values. */
	static const char *identity[] = {"Sharding", "SPMDFullToShardShape",
					 "SPMDShardToFullShape", "MoveToHost",
					 "MoveToDevice", "annotate_device_placement",
					 "Pin", "Unpin"};
	for (size_t i = 0; i < sizeof identity / sizeof *identity; i++)
		if (!strcmp(name, identity[i]) && ins->nops == 1 &&
		    shapes_match(ops[0], ins->shape))
			return ev_identity(it, ins, ops, out);
	return it_fail(it, ins, "custom-call target \"%s\" is not supported "
		       "by the interpreter", name);
}

void interp_register_control(EvalFn *t)
{
	t[HLO_CONSTANT] = ev_constant;
	t[HLO_TUPLE] = ev_tuple;
	t[HLO_GET_TUPLE_ELEMENT] = ev_gte;
	t[HLO_CALL] = ev_call;
	t[HLO_FUSION] = ev_call;
	t[HLO_WHILE] = ev_while;
	t[HLO_CONDITIONAL] = ev_conditional;
	t[HLO_OPT_BARRIER] = ev_identity;
	t[HLO_ADD_DEPENDENCY] = ev_identity;
	t[HLO_DOMAIN] = ev_identity;
	t[HLO_ALL_REDUCE] = ev_identity;
	t[HLO_ALL_GATHER] = ev_identity;
	t[HLO_REDUCE_SCATTER] = ev_identity;
	t[HLO_ALL_TO_ALL] = ev_identity;
	t[HLO_COLLECTIVE_BROADCAST] = ev_identity;
	t[HLO_COLLECTIVE_PERMUTE] = ev_collective_permute;
	t[HLO_ALL_REDUCE_START] = ev_identity;
	t[HLO_ALL_REDUCE_DONE] = ev_identity;
	t[HLO_REPLICA_ID] = ev_zero_id;
	t[HLO_PARTITION_ID] = ev_zero_id;
	t[HLO_AFTER_ALL] = ev_token;
	t[HLO_CUSTOM_CALL] = ev_custom_call;
}

/* The evaluators by opcode, filled on first use (constant folding asks
 * for each instruction and runs the interpreter per fold). */
static const EvalFn *table(void)
{
	static EvalFn t[HLO_OPCODE_COUNT];
	static bool filled;
	if (!filled) {
		interp_register_control(t);
		interp_register_elementwise(t);
		interp_register_data(t);
		interp_register_reduce(t);
		interp_register_linalg(t);
		filled = true;
	}
	return t;
}

bool interp_supports(HloOpcode op)
{
	return op == HLO_PARAMETER ||
	       (op > HLO_INVALID && op < HLO_OPCODE_COUNT && table()[op]);
}

/* ---- estimate and entry points ---------------------------------------- */

int64_t interp_estimate_bytes(const HloModule *m)
{
	HloComp *c = m->entry;
	HloInstr **order;
	int n = c ? hlo_comp_post_order(c, &order) : -1;
	if (n < 0)
		return n == HLO_ORDER_OOM ? INTERP_OOM : -1;
	/* freed[k]: bytes whose last use is at position k */
	int64_t *freed = calloc((size_t)n + 1, sizeof *freed);
	int64_t live = 0, peak = 0;
	for (int k = 0; k < n; k++)
		order[k]->mark = (unsigned)k;
	for (int k = 0; freed && k < n; k++) {
		int last = order[k] == c->root ? n : k;
		for (int u = 0; u < order[k]->nusers; u++)
			if ((int)order[k]->users[u]->mark > last)
				last = (int)order[k]->users[u]->mark;
		int64_t b = shape_bytes(order[k]->shape);
		freed[last] = shape_bytes_add(freed[last], b > 0 ? b : 0);
	}
	/* exact until a sum saturates: then the peak is INT64_MAX (what is
	 * freed was live, so freed[k] <= live while nothing saturated) */
	for (int k = 0; freed && k < n; k++) {
		int64_t b = shape_bytes(order[k]->shape);
		live = shape_bytes_add(live, b > 0 ? b : 0);
		if (live > peak)
			peak = live;
		if (live == INT64_MAX)
			break;
		live -= freed[k];
	}
	bool oom = !freed;
	free(freed);
	free(order);
	return oom ? INTERP_OOM : peak;
}

static Literal *deep_copy_out(Arena *out, const Literal *v)
{
	return v ? literal_clone(out, v) : NULL;
}

Literal *interp_run_comp(const HloComp *c, Literal *const *args, int nargs,
			 Arena *out, const InterpOpts *o, Diag *d,
			 InterpStats *stats)
{
	Interp it = {0};
	it.m = c->module;
	it.d = d;
	it.o = o;
	it.limit = o ? o->max_memory : 0;
	arena_init(&it.arena);
	memcpy(it.fns, table(), sizeof it.fns);
	int want = hlo_comp_param_count(c);
	Literal *res = NULL;
	if (nargs != want)
		it_fail(&it, NULL, "'%s' takes %d arguments, got %d", c->name, want,
			nargs);
	else if (!c->root)
		it_fail(&it, NULL, "'%s' has no instructions yet (no root)",
			c->name);
	else
		res = deep_copy_out(out, it_call(&it, c, args, nargs));
	if (!res && !it.failed)
		it_fail(&it, NULL, "out of memory copying the result");
	if (stats) {
		stats->peak_bytes = it.peak;
		stats->instrs = it.instrs;
		stats->oom = it.oom;
	}
	frames_free(&it);
	arena_free(&it.arena);
	return it.failed ? NULL : res;
}

Literal *interp_run(const HloModule *m, Literal *const *args, int nargs,
		    Arena *out, const InterpOpts *o, Diag *d, InterpStats *stats)
{
	if (!m->entry) {
		diag_error(d, NULL, (SrcLoc){0, 0}, "the module has no entry computation");
		return NULL;
	}
	int64_t est = interp_estimate_bytes(m);
	if (o && o->max_memory > 0 && est > o->max_memory) {
		char need[32], lim[32];
		human_bytes(need, sizeof need, est);
		human_bytes(lim, sizeof lim, o->max_memory);
		diag_error(d, NULL, (SrcLoc){0, 0},
			   "the run needs about %s of buffers, more than the limit "
			   "of %s (set max-memory BYTES)", need, lim);
		return NULL;
	}
	Literal *r = interp_run_comp(m->entry, args, nargs, out, o, d, stats);
	if (stats)
		stats->estimate_bytes = est;
	return r;
}
