/* cost.c - the cost model: flops, transcendentals and bytes per kernel
 * (see cost.h for what a kernel is), as XLA's HloCostAnalysis counts
 * them, and a roofline time per machine.
 *
 * Flops, per instruction (elements are the result's unless said):
 *   elementwise ops (add, compare, select, convert, clamp, ...): 1 per
 *     element; copy moves data and costs none;
 *   transcendental ops (exp, log, tanh, logistic, sin, cos, sqrt, rsqrt,
 *     cbrt, power, atan2, erf, ...: elementwise ops the opcode table marks
 *     expensive, except divide and remainder): 1 flop and 1
 *     transcendental per element;
 *   dot: 2 * M * N * K with the batch dims, i.e. 2 * result elements *
 *     product of the lhs contracting dims;
 *   convolution: 2 * input features / feature_group_count * output
 *     features * batch / batch_group_count * the kernel taps that land
 *     on an input element (not on padding or a dilation hole), as XLA
 *     counts them;
 *   reduce: (input elements - result elements) * the reducer's flops
 *     (k values combine in k - 1 steps); reduce-window: result elements
 *     * (window size - 1) * the reducer's; scatter: update elements *
 *     the combiner's; select-and-scatter: source elements * ((window
 *     size - 1) * the select's + the scatter's); map: elements * the
 *     mapped computation's;
 *   fft: 8 * operand elements * the product of floor(log2 length) over
 *     the fft lengths; cholesky: elements * n / 3; triangular-solve:
 *     2 * b's elements * a's n;
 * and where this model differs from XLA's on purpose (checked against
 * jaxlib's hlo_module_cost_analysis): a transcendental op counts 1 flop
 * an element besides its transcendental (XLA counts it as no flop, which
 * leaves an exp-heavy kernel with no compute in a roofline); sort:
 * elements * log2(sorted dim) * the comparator's (XLA: elements *
 * log2(all elements), comparator ignored); all-reduce / reduce-scatter:
 * elements * the reducer's (XLA assumes two replicas); batch-norm: 4
 * (inference), 7 (training), 12 (grad) per element (XLA: none); a tuple
 * moves no bytes (XLA counts its pointer table); a custom-call reads its
 * operands and writes its result (XLA: unknown);
 *   data movement (broadcast, reshape, transpose, slice, concatenate,
 *     pad, gather, dynamic-(update-)slice, iota, ...), collectives other
 *     than the reducing ones, custom-calls, rng: 0.
 * A computation's flops are the sum over its instructions; a fusion's are
 * its fused computation's.
 *
 * Bytes, per kernel: every operand is read whole and the result written
 * whole (tuples: the sum of their leaves), except that slice, gather and
 * dynamic-slice read only what they return of their operand, and
 * dynamic-update-slice and scatter update in place (read the update and
 * of the operand what it covers, write that), a fusion whose root is a
 * dynamic-update-slice of its parameter too, as XLA counts them.
 * A fusion reads its operands once and writes its result once; an
 * operand that the fused computation reaches only through slices,
 * dynamic-slices or gathers (as their operand) counts only the bytes
 * those read, one never used inside counts nothing.
 *
 * Control flow: call is the sum of its computation's kernels; while is
 * its body's kernels times its trip count and its condition's one time
 * more, when the trip count is known (cost_trip_count), else each once
 * (as XLA's HloCostAnalysis always counts them); conditional takes,
 * figure by figure, the most expensive branch (only one runs);
 * async-start its wrapped computation (async-update/-done cost nothing).
 *
 * Computations reached several times are costed once (a memo), so
 * shared reducers and nested calls stay linear. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"

enum {
	MAX_DEPTH = 64, /* calls nested deeper than this cost nothing */
};

/* --- small arithmetic ------------------------------------------------ */

static void cost_add(Cost *into, const Cost *c)
{
	into->flops += c->flops;
	into->transcendentals += c->transcendentals;
	into->bytes_read = shape_bytes_add(into->bytes_read, c->bytes_read);
	into->bytes_written = shape_bytes_add(into->bytes_written, c->bytes_written);
}

static void cost_max(Cost *into, const Cost *c)
{
	into->flops = fmax(into->flops, c->flops);
	into->transcendentals = fmax(into->transcendentals, c->transcendentals);
	if (c->bytes_read > into->bytes_read)
		into->bytes_read = c->bytes_read;
	if (c->bytes_written > into->bytes_written)
		into->bytes_written = c->bytes_written;
}

static int64_t nbytes(const Shape *s)
{
	int64_t b = s ? shape_bytes(s) : 0;
	return b > 0 ? b : 0;
}

static double nelems(const Shape *s)
{
	int64_t n = s ? shape_elements(s) : 0;
	return n > 0 ? (double)n : 0;
}

/* Elements of the first array leaf (variadic reduces and sorts return
 * tuples of equally shaped arrays). */
static double first_elems(const Shape *s)
{
	while (s && s->type == DT_TUPLE)
		s = s->ntuple ? s->tuple[0] : NULL;
	return nelems(s);
}

static double dim(const Shape *s, int64_t d)
{
	if (!s || s->type == DT_TUPLE || d < 0 || d >= s->rank)
		return 0;
	return s->dims[d] > 0 ? (double)s->dims[d] : 0;
}

static const Shape *op_shape(const HloInstr *ins, int i)
{
	return i < ins->nops ? ins->ops[i]->shape : NULL;
}

/* --- the memo: one entry per (computation, what) ------------------- */

typedef enum { M_FLOPS, M_KERNELS } MemoKind;

typedef struct {
	const HloComp *c; /* NULL: empty */
	int kind; /* a MemoKind; or for a sum cut short at MAX_DEPTH, one
		     that holds only at its depth (comp_sum's cut_kind) */
	Cost v;
} MemoEnt;

typedef struct {
	MemoEnt *e;
	size_t cap, n; /* cap: a power of two, or 0 */
	int depth;
	unsigned cuts; /* sums cut short at MAX_DEPTH so far */
	bool bytes_only; /* flops not wanted (cost_bytes_moved) */
	bool verified;   /* cost_bytes_moved_verified: vsig is current */
	/* module_bytes: each opcode's WalkKind */
	unsigned char kinds[HLO_OPCODE_COUNT];
} Memo;

static size_t memo_hash(const HloComp *c, int k)
{
	uintptr_t p = (uintptr_t)c;
	return (size_t)((p >> 4) * 2654435761u) ^ (size_t)k;
}

static MemoEnt *memo_find(Memo *mo, const HloComp *c, int k)
{
	if (!mo->cap)
		return NULL;
	for (size_t i = memo_hash(c, k) & (mo->cap - 1);;
	     i = (i + 1) & (mo->cap - 1)) {
		MemoEnt *e = &mo->e[i];
		if (!e->c || (e->c == c && e->kind == k))
			return e;
	}
}

static bool memo_grow(Memo *mo)
{
	size_t cap = mo->cap ? mo->cap * 2 : 64;
	MemoEnt *e = calloc(cap, sizeof *e), *old = mo->e;
	if (!e)
		return false;
	size_t oldcap = mo->cap;
	mo->e = e;
	mo->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].c)
			*memo_find(mo, old[i].c, old[i].kind) = old[i];
	free(old);
	return true;
}

/* Remembers v (without a memo, out of memory: nothing is remembered). */
static void memo_put(Memo *mo, const HloComp *c, int k, Cost v)
{
	if ((mo->n + 1) * 2 > mo->cap && !memo_grow(mo))
		return;
	MemoEnt *e = memo_find(mo, c, k);
	if (!e->c)
		mo->n++;
	*e = (MemoEnt){c, k, v};
}

static void memo_free(Memo *mo) { free(mo->e); }

/* --- flops of one instruction --------------------------------------- */

static Cost comp_flops(Memo *mo, const HloComp *c);
static Cost flops_of(Memo *mo, const HloInstr *ins);

static bool is_transcendental(const HloInstr *ins)
{
	unsigned f = hlo_opcode_flags(ins->op);
	return (f & XF_EW) && (f & XF_EXP) && ins->op != HLO_DIVIDE &&
	       ins->op != HLO_REMAINDER;
}

/* Flops of one application of the computation attribute k. */
static Cost applied(Memo *mo, const HloInstr *ins, AttrKey k)
{
	HloComp *c = hlo_attr_comp(ins, k);
	return c ? comp_flops(mo, c) : (Cost){0};
}

static Cost times(Cost c, double n)
{
	return (Cost){c.flops * n, c.transcendentals * n, 0, 0};
}

/* Product of the lhs contracting dims: K of 2*M*N*K. */
static double dot_k(const HloInstr *ins)
{
	int n;
	const int64_t *d = hlo_attr_ints(ins, A_LHS_CONTRACTING_DIMS, &n);
	double k = 1;
	for (int i = 0; i < n; i++)
		k *= dim(op_shape(ins, 0), d[i]);
	return k;
}

static double dot_flops(const HloInstr *ins)
{
	return 2 * first_elems(ins->shape) * dot_k(ins);
}

static double conv_flops(const HloInstr *ins)
{
	const HloAttr *at = hlo_attr_find(ins, A_DIM_LABELS);
	const Shape *in = op_shape(ins, 0), *k = op_shape(ins, 1);
	const Shape *out = ins->shape;
	if (!at || !at->u.conv || !in || !k || !out || out->type == DT_TUPLE)
		return 0;
	const ConvDims *cd = at->u.conv;
	const HloAttr *wa = hlo_attr_find(ins, A_WINDOW);
	/* As XLA counts them: an FMA for each kernel tap that lands on an
	 * input element, not on padding or between dilated elements, per
	 * spatial dimension the (output, kernel) position pairs that do. */
	double taps = 1;
	for (int i = 0; i < cd->nspatial; i++) {
		const WindowDim *w = wa && i < wa->u.window.n
					     ? &wa->u.window.v[i]
					     : NULL;
		int64_t stride = w && w->stride > 0 ? w->stride : 1;
		int64_t lo = w ? w->pad_lo : 0;
		int64_t base = w && w->lhs_dilate > 0 ? w->lhs_dilate : 1;
		int64_t wdil = w && w->rhs_dilate > 0 ? w->rhs_dilate : 1;
		int64_t nout = (int64_t)dim(out, cd->out_spatial[i]);
		int64_t nk = (int64_t)dim(k, cd->k_spatial[i]);
		int64_t nin = (int64_t)dim(in, cd->in_spatial[i]);
		double valid = 0;
		for (int64_t o = 0; o < nout; o++)
			for (int64_t q = 0; q < nk; q++) {
				int64_t u = o * stride - lo + q * wdil;
				int64_t x = u / base;
				if (x * base == u && x >= 0 && x < nin)
					valid++;
			}
		taps *= valid;
	}
	int64_t groups = 1, bgroups = 1;
	hlo_attr_int(ins, A_FEATURE_GROUP_COUNT, &groups);
	hlo_attr_int(ins, A_BATCH_GROUP_COUNT, &bgroups);
	double features =
		dim(in, cd->in_feature) / (double)(groups > 0 ? groups : 1);
	double batch = dim(in, cd->in_batch) / (double)(bgroups > 0 ? bgroups : 1);
	return 2 * features * dim(out, cd->out_feature) * batch * taps;
}

static double window_size(const HloInstr *ins)
{
	const HloAttr *at = hlo_attr_find(ins, A_WINDOW);
	double w = 1;
	for (int i = 0; at && i < at->u.window.n; i++)
		w *= (double)(at->u.window.v[i].size > 0
				      ? at->u.window.v[i].size
				      : 0);
	return w;
}

static Cost scatter_flops(Memo *mo, const HloInstr *ins)
{
	/* operands: N inputs, the indices, N updates */
	int n = (ins->nops - 1) / 2;
	return times(applied(mo, ins, A_TO_APPLY),
		     nelems(op_shape(ins, n + 1)));
}

static Cost select_scatter_flops(Memo *mo, const HloInstr *ins)
{
	double src = nelems(op_shape(ins, 1));
	/* choosing among w values takes w - 1 selects, as XLA counts */
	double w = window_size(ins);
	Cost c = times(applied(mo, ins, A_SELECT), src * (w > 1 ? w - 1 : 0));
	Cost s = times(applied(mo, ins, A_SCATTER), src);
	cost_add(&c, &s);
	return c;
}

static Cost sort_flops(Memo *mo, const HloInstr *ins)
{
	int n;
	const int64_t *d = hlo_attr_ints(ins, A_DIMENSIONS, &n);
	double len = n ? dim(op_shape(ins, 0), d[0]) : 0;
	double steps = len > 1 ? ceil(log2(len)) : 0;
	return times(applied(mo, ins, A_TO_APPLY),
		     nelems(op_shape(ins, 0)) * steps);
}

static double fft_flops(const HloInstr *ins)
{
	int n;
	const int64_t *len = hlo_attr_ints(ins, A_FFT_LENGTH, &n);
	/* XLA's: 2 flops an FMA, 4 FMAs a complex multiply, times the
	 * product of floor(log2 n) over the lengths, times the operand's
	 * elements */
	double factors = 1;
	for (int i = 0; i < n; i++)
		factors *= len[i] > 1 ? floor(log2((double)len[i])) : 0;
	return n ? 8 * factors * first_elems(op_shape(ins, 0)) : 0;
}

static double last_dim(const Shape *s)
{
	return s && s->type != DT_TUPLE && s->rank ? dim(s, s->rank - 1) : 0;
}

/* Sum (or, for a conditional, the maximum) of what the called
 * computations cost, per kind. */
static Cost called_sum(Memo *mo, const HloInstr *ins, MemoKind k);

static Cost flops_of(Memo *mo, const HloInstr *ins)
{
	double out = first_elems(ins->shape);
	switch (ins->op) {
	case HLO_COPY:
		return (Cost){0};
	case HLO_MAP:
		return times(applied(mo, ins, A_TO_APPLY), out);
	case HLO_DOT:
	case HLO_RAGGED_DOT:
	case HLO_SCALED_DOT:
		return (Cost){dot_flops(ins), 0, 0, 0};
	case HLO_CONVOLUTION:
		return (Cost){conv_flops(ins), 0, 0, 0};
	case HLO_REDUCE: {
		/* combining k values takes k - 1 applications, as XLA
		 * counts: the inputs less the results */
		double in = nelems(op_shape(ins, 0));
		return times(applied(mo, ins, A_TO_APPLY),
			     in > out ? in - out : 0);
	}
	case HLO_REDUCE_WINDOW: {
		double w = window_size(ins);
		return times(applied(mo, ins, A_TO_APPLY),
			     out * (w > 1 ? w - 1 : 0));
	}
	case HLO_ALL_REDUCE:
	case HLO_ALL_REDUCE_START:
	case HLO_REDUCE_SCATTER:
		return times(applied(mo, ins, A_TO_APPLY),
			     first_elems(op_shape(ins, 0)));
	case HLO_SCATTER:
		return scatter_flops(mo, ins);
	case HLO_SELECT_AND_SCATTER:
		return select_scatter_flops(mo, ins);
	case HLO_SORT:
		return sort_flops(mo, ins);
	case HLO_FFT:
		return (Cost){fft_flops(ins), 0, 0, 0};
	case HLO_CHOLESKY:
		return (Cost){out * last_dim(ins->shape) / 3, 0, 0, 0};
	case HLO_TRIANGULAR_SOLVE: /* an FMA, 2 flops, per b element and n */
		return (Cost){2 * nelems(op_shape(ins, 1)) *
				      last_dim(op_shape(ins, 0)),
			      0, 0, 0};
	case HLO_BATCH_NORM_INFERENCE:
		return (Cost){4 * out, 0, 0, 0};
	case HLO_BATCH_NORM_TRAINING:
		return (Cost){7 * out, 0, 0, 0};
	case HLO_BATCH_NORM_GRAD:
		return (Cost){12 * out, 0, 0, 0};
	case HLO_FUSION:
	case HLO_CALL:
	case HLO_WHILE:
	case HLO_CONDITIONAL:
	case HLO_ASYNC_START:
		return called_sum(mo, ins, M_FLOPS);
	default:
		break;
	}
	if (!(hlo_opcode_flags(ins->op) & XF_EW))
		return (Cost){0};
	return (Cost){out, is_transcendental(ins) ? out : 0, 0, 0};
}

/* --- while loops: the trip count ----------------------------------------- */

/* A value looked at through fusions: a fused computation's root stands
 * for its fusion (a tuple root's elements for the fusion's
 * get-tuple-elements), a fused parameter for the fusion's operand. So
 * a loop whose counter fusion took into a kernel is still seen. */
typedef struct {
	const HloInstr *x;
	const HloInstr *fus[8]; /* the fusions entered, innermost last */
	int n;
} Val;

static Val resolve(Val v)
{
	for (int steps = 0; v.x && steps < 64; steps++) {
		const HloInstr *x = v.x, *in = x->nops ? x->ops[0] : NULL;
		const HloComp *fc = NULL;
		if (x->op == HLO_FUSION && v.n < 8 &&
		    (fc = hlo_attr_comp(x, A_CALLS)) && fc->root) {
			v.fus[v.n++] = x;
			v.x = fc->root;
		} else if (x->op == HLO_GET_TUPLE_ELEMENT && in &&
			   (in->op == HLO_TUPLE || in->op == HLO_FUSION)) {
			int64_t i;
			const HloInstr *t = in;
			if (in->op == HLO_FUSION) {
				fc = v.n < 8 ? hlo_attr_comp(in, A_CALLS) : NULL;
				t = fc ? fc->root : NULL;
			}
			if (!t || t->op != HLO_TUPLE ||
			    !hlo_attr_int(x, A_INDEX, &i) || i < 0 ||
			    i >= t->nops)
				break;
			if (in->op == HLO_FUSION)
				v.fus[v.n++] = in;
			v.x = t->ops[i];
		} else if (x->op == HLO_PARAMETER && v.n &&
			   x->parent == hlo_attr_comp(v.fus[v.n - 1], A_CALLS) &&
			   x->param_no >= 0 &&
			   x->param_no < v.fus[v.n - 1]->nops) {
			v.x = v.fus[--v.n]->ops[x->param_no];
		} else {
			break;
		}
	}
	return v;
}

static Val val_of(const HloInstr *x)
{
	return resolve((Val){.x = x});
}

/* Operand i of v's instruction, resolved in v's fusions. */
static Val operand(Val v, int i)
{
	if (!v.x || i >= v.x->nops) {
		v.x = NULL;
		return v;
	}
	v.x = v.x->ops[i];
	return resolve(v);
}

/* The scalar integer constant v holds, when it is one of type t. */
static bool int_const(Val v, Dtype t, int64_t *out)
{
	const HloInstr *x = v.x;
	if (!x || x->op != HLO_CONSTANT || !x->literal || !x->shape ||
	    x->shape->type != t || x->shape->rank != 0)
		return false;
	*out = literal_get_i64(x->literal, 0);
	/* a u64 past 2^63 reads negative: beyond what is worked out here */
	return dtype_kind(t) != DK_UINT || *out >= 0;
}

/* Element k of the loop state that v is (a get-tuple-element of loop
 * computation c's parameter; the parameter itself when the state is
 * not a tuple, k = -1). */
static bool state_elem(Val v, const HloComp *c, int64_t *k)
{
	const HloInstr *x = v.x;
	if (!x || v.n || x->parent != c)
		return false;
	if (x->op == HLO_PARAMETER && x->param_no == 0 &&
	    x->shape->type != DT_TUPLE) {
		*k = -1;
		return true;
	}
	return x->op == HLO_GET_TUPLE_ELEMENT && x->nops == 1 &&
	       x->ops[0]->op == HLO_PARAMETER && x->ops[0]->param_no == 0 &&
	       hlo_attr_int(x, A_INDEX, k);
}

/* The value element k of the state has when the loop starts (init is
 * the while's operand): a constant, as such or in a tuple. */
static bool start_value(const HloInstr *init, int64_t k, Dtype t, int64_t *v)
{
	Val s = val_of(init);
	if (k < 0)
		return int_const(s, t, v);
	return s.x && s.x->op == HLO_TUPLE && k < s.x->nops &&
	       int_const(operand(s, (int)k), t, v);
}

/* What the body makes of element k of the state. */
static Val body_elem(const HloComp *body, int64_t k)
{
	Val r = val_of(body->root);
	if (k < 0)
		return r;
	if (!r.x || r.x->op != HLO_TUPLE || k >= r.x->nops) {
		r.x = NULL;
		return r;
	}
	return operand(r, (int)k);
}

/* Does the body leave element k as it is? */
static bool invariant(const HloComp *body, int64_t k)
{
	int64_t j;
	return state_elem(body_elem(body, k), body, &j) && j == k;
}

/* Does the body add a constant (*step) to element k? */
static bool stepped(const HloComp *body, int64_t k, Dtype t, int64_t *step)
{
	Val e = body_elem(body, k);
	const HloInstr *x = e.x;
	if (!x || x->nops != 2 ||
	    (x->op != HLO_ADD && x->op != HLO_SUBTRACT))
		return false;
	int64_t j;
	for (int i = 0; i < 2; i++) {
		if (!state_elem(operand(e, i), body, &j) || j != k ||
		    !int_const(operand(e, 1 - i), t, step))
			continue;
		if (x->op == HLO_ADD)
			return true;
		/* i - s; s - i steps nothing steadily */
		return i == 0 && !__builtin_sub_overflow(0, *step, step);
	}
	return false;
}

/* The bound the condition compares the counter with: a constant, or an
 * element of the state the body leaves alone that starts as one. */
static bool bound_value(Val x, const HloComp *cond, const HloInstr *w,
			int64_t ck, Dtype t, int64_t *v)
{
	if (int_const(x, t, v))
		return true;
	int64_t j;
	return state_elem(x, cond, &j) && j >= 0 && j != ck &&
	       invariant(hlo_attr_comp(w, A_BODY), j) &&
	       start_value(w->ops[0], j, t, v);
}

/* Body runs of `for (i = c0; i DIR n; i += step)`, or -1 (endless, the
 * counter would leave its type on the way, or past 2^63 runs).
 * Distances are taken unsigned: n - c0 may not fit an int64_t. */
static int64_t loop_runs(const char *dir, int64_t c0, int64_t n, int64_t step,
			 Dtype t)
{
	bool up = step > 0;
	uint64_t s = up ? (uint64_t)step : 0 - (uint64_t)step;
	uint64_t d = n >= c0 ? (uint64_t)n - (uint64_t)c0
			     : (uint64_t)c0 - (uint64_t)n;
	uint64_t runs;
	bool eq = dir[1] == 'E' || !strcmp(dir, "EQ");
	if (!strcmp(dir, "LT") || !strcmp(dir, "LE")) {
		if (c0 > n || (c0 == n && !eq))
			return 0;
		if (!up)
			return -1;
		if (d / s == UINT64_MAX) /* 2^64 runs (from the minimum) */
			return -1;
		runs = d / s + (eq || d % s != 0);
	} else if (!strcmp(dir, "GT") || !strcmp(dir, "GE")) {
		if (c0 < n || (c0 == n && !eq))
			return 0;
		if (step >= 0)
			return -1;
		if (d / s == UINT64_MAX) /* 2^64 runs (from the minimum) */
			return -1;
		runs = d / s + (eq || d % s != 0);
	} else if (!strcmp(dir, "NE")) {
		if (c0 == n)
			return 0;
		if (step == 0 || (n > c0) != up || d % s != 0)
			return -1;
		runs = d / s;
	} else if (!strcmp(dir, "EQ")) {
		if (c0 != n)
			return 0;
		if (step == 0)
			return -1;
		runs = 1;
	} else {
		return -1;
	}
	/* The counter's last value, c0 + runs * step, must fit its type:
	 * the room between c0 and the type's end in the step's direction. */
	int bits = dtype_bits(t);
	bool sgn = dtype_kind(t) == DK_SINT;
	int64_t hi = bits >= 64 ? INT64_MAX
		     : sgn      ? ((int64_t)1 << (bits - 1)) - 1
				: ((int64_t)1 << bits) - 1;
	int64_t lo = !sgn ? 0 : bits >= 64 ? INT64_MIN : -hi - 1;
	uint64_t room = up ? (uint64_t)hi - (uint64_t)c0
			   : (uint64_t)c0 - (uint64_t)lo;
	/* the condition runs once more: runs + 1 must fit too */
	if (runs >= (uint64_t)INT64_MAX || (s && runs > room / s))
		return -1;
	return (int64_t)runs;
}

/* n of "known_trip_count":{"n":"10"} in a backend_config, written as
 * JSON or as a string of it (quotes escaped). */
static int64_t known_trip_count(const HloInstr *w)
{
	const HloAttr *a = hlo_attr_find_raw(w, "backend_config");
	const char *p = a && a->u.s ? strstr(a->u.s, "known_trip_count") : NULL;
	if (!p || !(p = strchr(p, '{')) || !(p = strstr(p, "n")))
		return -1;
	p++;
	while (*p == '"' || *p == '\\' || *p == ':' || *p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	int64_t n = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(n, 10, &n) ||
		    __builtin_add_overflow(n, *p - '0', &n))
			return -1;
	return n;
}

static const char *relation(const char *dir)
{
	static const char *const rel[][2] = {{"LT", "<"},  {"LE", "<="},
					     {"GT", ">"},  {"GE", ">="},
					     {"EQ", "=="}, {"NE", "!="}};
	for (size_t i = 0; i < sizeof rel / sizeof *rel; i++)
		if (!strcmp(dir, rel[i][0]))
			return rel[i][1];
	return dir;
}

int64_t cost_trip_count(const HloInstr *w, char *how, size_t cap)
{
	if (how && cap)
		how[0] = 0;
	if (!w || w->op != HLO_WHILE || w->nops != 1)
		return -1;
	int64_t n = known_trip_count(w);
	if (n == INT64_MAX) /* the condition's n + 1 runs would not fit */
		return -1;
	if (n >= 0) {
		if (how)
			snprintf(how, cap, "known_trip_count in its backend_config");
		return n;
	}
	const HloComp *cond = hlo_attr_comp(w, A_CONDITION);
	const HloComp *body = hlo_attr_comp(w, A_BODY);
	Val cv = val_of(cond ? cond->root : NULL);
	const HloInstr *cmp = cv.x;
	if (!body || !cmp || cmp->op != HLO_COMPARE || cmp->nops != 2)
		return -1;
	const char *dir = hlo_attr_enum(cmp, A_DIRECTION);
	Dtype t = cmp->ops[0]->shape->type;
	if (!dir || !dtype_is_int(t) || cmp->ops[0]->shape->rank != 0)
		return -1;
	static const char *const flip[][2] = {
		{"LT", "GT"}, {"LE", "GE"}, {"GT", "LT"},
		{"GE", "LE"}, {"EQ", "EQ"}, {"NE", "NE"}};
	for (int side = 0; side < 2; side++) {
		int64_t k, c0, bound, step;
		if (!state_elem(operand(cv, side), cond, &k) ||
		    !stepped(body, k, t, &step) ||
		    !start_value(w->ops[0], k, t, &c0) ||
		    !bound_value(operand(cv, 1 - side), cond, w, k, t, &bound))
			continue;
		const char *d = dir;
		for (size_t f = 0; side && f < sizeof flip / sizeof *flip; f++)
			if (!strcmp(dir, flip[f][0])) {
				d = flip[f][1];
				break;
			}
		n = loop_runs(d, c0, bound, step, t);
		if (n >= 0 && how)
			snprintf(how, cap,
				 "its counter goes from %lld while %s %lld, "
				 "by %lld",
				 (long long)c0, relation(d), (long long)bound,
				 (long long)step);
		return n;
	}
	return -1;
}

/* --- bytes and kernels ------------------------------------------------ */

static Cost kernel_cost(Memo *mo, const HloInstr *ins);

static Cost comp_sum(Memo *mo, const HloComp *c, MemoKind k)
{
	MemoEnt *e = memo_find(mo, c, k);
	if (e && e->c)
		return e->v;
	/* A sum that met the depth limit holds only when c is reached at
	 * the same depth: kept under a kind of that depth's own, so that a
	 * shallower call costs c in full (and the memo still bounds the
	 * work: once per computation and depth). */
	int cut_kind = (int)k + 2 * (mo->depth + 1);
	e = memo_find(mo, c, cut_kind);
	if (e && e->c) {
		mo->cuts++; /* what uses it is cut short too */
		return e->v;
	}
	Cost sum = {0};
	if (mo->depth >= MAX_DEPTH) {
		mo->cuts++;
		return sum;
	}
	unsigned cuts = mo->cuts;
	mo->depth++;
	for (int i = 0; i < c->n; i++) {
		Cost one = k == M_FLOPS ? flops_of(mo, c->instrs[i])
					: kernel_cost(mo, c->instrs[i]);
		cost_add(&sum, &one);
	}
	mo->depth--;
	memo_put(mo, c, mo->cuts == cuts ? (int)k : cut_kind, sum);
	return sum;
}

static Cost comp_flops(Memo *mo, const HloComp *c)
{
	return comp_sum(mo, c, M_FLOPS);
}

/* c run n times over (bytes saturate, as every byte sum here). */
static Cost cost_times(Cost c, int64_t n)
{
	c.flops *= (double)n;
	c.transcendentals *= (double)n;
	int64_t *b[2] = {&c.bytes_read, &c.bytes_written};
	for (int i = 0; i < 2; i++)
		if (__builtin_mul_overflow(*b[i], n, b[i]))
			*b[i] = INT64_MAX;
	return c;
}

static Cost called_sum(Memo *mo, const HloInstr *ins, MemoKind k)
{
	Cost sum = {0};
	int n = hlo_instr_ncalled(ins);
	/* a while with a known trip count: the body that many times, the
	 * condition once more; else each once, as XLA counts them */
	int64_t trips = ins->op == HLO_WHILE ? cost_trip_count(ins, NULL, 0)
					     : -1;
	const HloComp *body = trips >= 0 ? hlo_attr_comp(ins, A_BODY) : NULL;
	for (int i = 0; i < n; i++) {
		const HloComp *c = hlo_instr_called_at(ins, i);
		Cost one = comp_sum(mo, c, k);
		if (trips >= 0)
			one = cost_times(one, c == body ? trips : trips + 1);
		if (ins->op == HLO_CONDITIONAL)
			cost_max(&sum, &one);
		else
			cost_add(&sum, &one);
	}
	return sum;
}

/* Users through which a fused parameter may be read in part (see
 * sliced_bytes): one of any other opcode settles it. */
static bool reads_part(HloOpcode op)
{
	return op == HLO_SLICE || op == HLO_DYNAMIC_SLICE || op == HLO_GATHER ||
	       op == HLO_DYNAMIC_UPDATE_SLICE || op == HLO_SCATTER;
}

/* sliced_bytes' answer when it is not -1 at once. */
static __attribute__((noinline)) int64_t sliced_bytes_slow(const HloInstr *p)
{
	if (p == p->parent->root)
		return -1;
	/* updated in place by the root: not read (as XLA counts it); of a
	 * scatter's, the region its updates cover (cost_operand_bytes) */
	const HloInstr *r = p->parent->root;
	if (p->nusers == 1 && p->users[0] == r &&
	    r->op == HLO_DYNAMIC_UPDATE_SLICE && r->ops[0] == p)
		return 0;
	if (p->nusers == 1 && p->users[0] == r && r->op == HLO_SCATTER) {
		int n = (r->nops - 1) / 2;
		for (int i = 0; i < n; i++)
			if (r->ops[i] == p)
				return nbytes(r->ops[n + 1 + i]->shape);
	}
	int64_t sum = 0;
	for (int i = 0; i < p->nusers; i++) {
		const HloInstr *u = p->users[i];
		bool slice = u->op == HLO_SLICE || u->op == HLO_DYNAMIC_SLICE ||
			     u->op == HLO_GATHER;
		if (!slice || u->ops[0] != p)
			return -1;
		for (int j = 1; j < u->nops; j++) /* p as a start index */
			if (u->ops[j] == p)
				return -1;
		sum = shape_bytes_add(sum, nbytes(u->shape));
	}
	return sum;
}

/* Does the fused parameter p reach the fusion only through slices (and
 * gathers, which read what they return, as unfused)? Returns the bytes
 * those read (or -1: p is read some other way, so the whole operand
 * counts). Most parameters' first user is elementwise: then it is -1
 * whatever else holds (the root itself, or a dynamic-update-slice of
 * p in place, would be that user), and the rest is not looked at. */
static inline int64_t sliced_bytes(const HloInstr *p)
{
	if (p->nusers && !reads_part(p->users[0]->op))
		return -1;
	return sliced_bytes_slow(p);
}

/* Bytes fusion f reads of operand i; c is f's fused computation. */
static inline int64_t fusion_operand_bytes(const HloInstr *f,
					   const HloComp *c, int i)
{
	int64_t whole = nbytes(f->ops[i]->shape);
	const HloInstr *p = c ? hlo_comp_param(c, i) : NULL;
	if (!p)
		return whole;
	int64_t s = sliced_bytes(p);
	return s >= 0 && s < whole ? s : whole;
}

int64_t cost_operand_bytes(const HloInstr *ins, int i)
{
	if (i < 0 || i >= ins->nops)
		return 0;
	if (ins->op == HLO_FUSION)
		return fusion_operand_bytes(ins, hlo_attr_comp(ins, A_CALLS),
					    i);
	int64_t whole = nbytes(ins->ops[i]->shape);
	switch (ins->op) {
	case HLO_SLICE:
	case HLO_DYNAMIC_SLICE:
	case HLO_GATHER: {
		int64_t out = nbytes(ins->shape);
		return i == 0 && out < whole ? out : whole;
	}
	case HLO_DYNAMIC_UPDATE_SLICE:
		return i == 0 ? 0 : whole; /* in place */
	case HLO_SCATTER: {
		/* in place, as XLA counts it: of each operand the region its
		 * updates cover */
		int n = (ins->nops - 1) / 2;
		return i < n ? nbytes(ins->ops[n + 1 + i]->shape) : whole;
	}
	default:
		return whole;
	}
}

/* Is p a parameter of fc read nowhere else but by its root? */
static inline bool root_only(const HloComp *fc, const HloInstr *p)
{
	return p && p->op == HLO_PARAMETER && p->parent == fc && p->nusers == 1;
}

/* A fusion (fc its fused computation, or NULL) whose root updates its
 * parameters in place (a dynamic-update-slice of a parameter read
 * nowhere else, or a scatter of such ones): that root. */
static inline const HloInstr *in_place_root(const HloComp *fc)
{
	const HloInstr *r = fc ? fc->root : NULL;
	if (r && r->op == HLO_DYNAMIC_UPDATE_SLICE && r->nops >= 2)
		return root_only(fc, r->ops[0]) ? r : NULL;
	if (!r || r->op != HLO_SCATTER || r->nops < 3 || !(r->nops & 1))
		return NULL;
	for (int i = 0; i < (r->nops - 1) / 2; i++)
		if (!root_only(fc, r->ops[i]))
			return NULL;
	return r;
}

static int64_t written_bytes(const HloInstr *ins)
{
	const HloInstr *r = ins->op == HLO_FUSION
				    ? in_place_root(hlo_attr_comp(ins, A_CALLS))
				    : NULL;
	if (r)
		ins = r; /* what its root writes */
	if (ins->op == HLO_DYNAMIC_UPDATE_SLICE && ins->nops > 1)
		return nbytes(ins->ops[1]->shape);
	if (ins->op == HLO_SCATTER) {
		int64_t sum = 0;
		int n = (ins->nops - 1) / 2;
		for (int i = 0; i < n; i++)
			sum = shape_bytes_add(sum, nbytes(ins->ops[n + 1 + i]->shape));
		return sum;
	}
	return nbytes(ins->shape);
}

static bool launches_nothing(HloOpcode op)
{
	/* The halves of an async pair after the start do no work of their
	 * own either. */
	return !hlo_launches_kernel(op) || op == HLO_ASYNC_UPDATE ||
	       op == HLO_ASYNC_DONE;
}

static Cost kernel_cost(Memo *mo, const HloInstr *ins)
{
	if (launches_nothing(ins->op))
		return (Cost){0};
	switch (ins->op) {
	case HLO_CALL:
	case HLO_WHILE:
	case HLO_CONDITIONAL:
	case HLO_ASYNC_START:
		if (hlo_instr_ncalled(ins))
			return called_sum(mo, ins, M_KERNELS);
		break;
	default:
		break;
	}
	/* Bytes read hang on the opcode and the shapes of the kernel and
	 * its operands, which its verifier signature covers; a fusion's
	 * also on how its computation reads each parameter. */
	bool reuse = mo->verified && mo->bytes_only && ins->vsig &&
		     ins->op != HLO_FUSION;
	if (reuse && ins->cost_sig == ins->vsig)
		return (Cost){.bytes_read = ins->cost_read,
			      .bytes_written = written_bytes(ins)};
	Cost c = mo->bytes_only ? (Cost){0} : flops_of(mo, ins);
	const HloComp *fc =
		ins->op == HLO_FUSION ? hlo_attr_comp(ins, A_CALLS) : NULL;
	for (int i = 0; i < ins->nops; i++)
		c.bytes_read = shape_bytes_add(c.bytes_read,
				       fc ? fusion_operand_bytes(ins, fc, i)
					  : cost_operand_bytes(ins, i));
	c.bytes_written = written_bytes(ins);
	if (reuse) {
		/* the memo only: what the module computes is unchanged */
		HloInstr *w = (HloInstr *)ins;
		w->cost_sig = ins->vsig;
		w->cost_read = c.bytes_read;
	}
	return c;
}

/* How module_bytes counts an opcode's kernels. */
typedef enum {
	BK_NONE = 1, /* launches nothing */
	BK_PLAIN,    /* reads its operands whole, writes its result whole */
	BK_FUSION,
	BK_OTHER,    /* anything else: kernel_cost */
} ByteKind;

static ByteKind byte_kind(HloOpcode op)
{
	if (launches_nothing(op))
		return BK_NONE;
	switch (op) {
	case HLO_CALL:
	case HLO_WHILE:
	case HLO_CONDITIONAL:
	case HLO_ASYNC_START:
	case HLO_SLICE:
	case HLO_DYNAMIC_SLICE:
	case HLO_GATHER:
	case HLO_DYNAMIC_UPDATE_SLICE:
	case HLO_SCATTER:
		return BK_OTHER;
	case HLO_FUSION:
		return BK_FUSION;
	default:
		return BK_PLAIN;
	}
}

/* kernel_cost's bytes of fusion f, read and written, with its fused
 * computation looked up once. */
static int64_t fusion_bytes(const HloInstr *f)
{
	const HloComp *fc = hlo_attr_comp(f, A_CALLS);
	const HloInstr *r = in_place_root(fc);
	int64_t b = r ? written_bytes(r) : nbytes(f->shape);
	for (int i = 0; i < f->nops; i++)
		b = shape_bytes_add(b, fusion_operand_bytes(f, fc, i));
	return b;
}

/* What module_bytes' walk does with an opcode: its ByteKind, and
 * whether it launches a kernel as hlo_module_kernels counts them (all
 * but WK_SKIP), in one small number (the walk's first test is the
 * commonest kind's). */
typedef enum {
	WK_SKIP,   /* no kernel */
	WK_EMPTY,  /* a kernel that moves nothing (BK_NONE) */
	WK_PLAIN,  /* BK_PLAIN */
	WK_FUSION, /* BK_FUSION */
	WK_OTHER,  /* BK_OTHER */
} WalkKind;

/* kinds[op] for every opcode, filled whole once per walk (a hundred
 * or so entries, where filling it as opcodes are met costs a branch for
 * each instruction walked). */
static void fill_kinds(unsigned char *kinds)
{
	for (int op = 0; op < HLO_OPCODE_COUNT; op++) {
		ByteKind k = byte_kind((HloOpcode)op);
		WalkKind w = !hlo_launches_kernel((HloOpcode)op) ? WK_SKIP
			     : k == BK_NONE			  ? WK_EMPTY
			     : k == BK_PLAIN			  ? WK_PLAIN
			     : k == BK_FUSION			  ? WK_FUSION
								  : WK_OTHER;
		kinds[op] = (unsigned char)w;
	}
}

/* The bytes of a kernel module_bytes does not work out in line: a
 * fusion, or one kernel_cost dispatches (k is its WalkKind). */
static __attribute__((noinline)) int64_t other_bytes(Memo *mo,
						     const HloInstr *ins,
						     unsigned k)
{
	if (k == WK_FUSION)
		return fusion_bytes(ins);
	Cost c = kernel_cost(mo, ins);
	return shape_bytes_add(c.bytes_read, c.bytes_written);
}

/* One kernel of module_bytes' walk: ins's bytes (0 for no kernel),
 * *nk counting the kernels. verified is a constant where this is
 * inlined: a walk each way, the test out of the loop.
 *
 * Bytes kernel by kernel are the sum of kernel_cost's two (every byte
 * figure is >= 0 and saturates, so the total comes out the same in any
 * order). Most kernels read their operands whole and write their
 * result whole (BK_PLAIN): worked out here without kernel_cost's
 * dispatch, and kept in the same memo as kernel_cost's, but whole (read
 * and written: a BK_PLAIN opcode's memo is only ever written here, and
 * vsig covers the opcode). Each figure is in [0, INT64_MAX]. */
static inline __attribute__((always_inline)) uint64_t
walk_one(Memo *mo, HloInstr *ins, bool verified, int *nk)
{
	const uint64_t max = INT64_MAX;
	unsigned k = mo->kinds[ins->op];
	uint64_t b;
	if (k != WK_PLAIN) {
		if (k == WK_SKIP)
			return 0;
		++*nk;
		if (k == WK_EMPTY)
			return 0;
		return (uint64_t)other_bytes(mo, ins, k);
	}
	++*nk;
	if (verified && ins->cost_sig == ins->vsig && ins->vsig)
		return (uint64_t)ins->cost_read;
	b = nbytes(ins->shape);
	for (int j = 0; j < ins->nops; j++) {
		b += nbytes(ins->ops[j]->shape);
		b = b > max ? max : b;
	}
	if (verified && ins->vsig) {
		/* the memo only: what the module computes is unchanged */
		ins->cost_sig = ins->vsig;
		ins->cost_read = (int64_t)b;
	}
	return b;
}

/* module_bytes' walk over the entry's instructions xs (n of them);
 * *nk gets the kernels. The sum is kept unsigned and clamped at
 * INT64_MAX after each kernel, as shape_bytes_add does: both terms are
 * in [0, INT64_MAX], so it cannot wrap. */
static inline __attribute__((always_inline)) int64_t
walk_bytes(Memo *mo, HloInstr *const *xs, int n, bool verified, int *nk)
{
	const uint64_t max = INT64_MAX;
	uint64_t sum = 0;
	int kernels = 0;
	for (int i = 0; i < n; i++) {
		sum += walk_one(mo, xs[i], verified, &kernels);
		sum = sum > max ? max : sum;
	}
	*nk = kernels;
	return (int64_t)sum;
}

/* cost_module's bytes_read + bytes_written, without the flops; with
 * kernels, hlo_module_kernels from the same walk there. It runs after
 * every pass: a kernel whose memo holds (most, once a module has been
 * counted) costs a few loads. */
static int64_t module_bytes(const HloModule *m, bool verified, int *kernels)
{
	if (kernels)
		*kernels = 0;
	if (!m->entry)
		return 0;
	Memo mo = {.bytes_only = true, .verified = verified};
	fill_kinds(mo.kinds);
	int nk;
	HloInstr *const *xs = m->entry->instrs;
	int64_t sum = verified ? walk_bytes(&mo, xs, m->entry->n, true, &nk)
			       : walk_bytes(&mo, xs, m->entry->n, false, &nk);
	memo_free(&mo);
	if (kernels)
		*kernels = nk;
	return sum;
}

/* cost_bytes_moved_verified_kernels's walk, one instruction at a time
 * (cost_walk_new). */
struct CostWalk {
	Memo mo;
	uint64_t sum;
	int kernels;
	int n; /* instructions walked */
};

CostWalk *cost_walk_new(void)
{
	CostWalk *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->mo = (Memo){.bytes_only = true, .verified = true};
	fill_kinds(w->mo.kinds);
	return w;
}

void cost_walk_instr(void *walk, HloInstr *ins)
{
	CostWalk *w = walk;
	const uint64_t max = INT64_MAX;
	w->sum += walk_one(&w->mo, ins, true, &w->kernels);
	w->sum = w->sum > max ? max : w->sum;
	w->n++;
}

void cost_walk_instrs(void *walk, HloInstr *const *xs, int n)
{
	CostWalk *w = walk;
	int nk = 0;
	uint64_t sum = walk_bytes(&w->mo, xs, n, true, &nk) + w->sum;
	const uint64_t max = INT64_MAX;
	w->sum = sum > max ? max : sum;
	w->kernels += nk;
	w->n += n;
}

bool cost_walk_whole(const CostWalk *w, const HloModule *m)
{
	return m->entry && w->n == m->entry->n;
}

/* --- public ------------------------------------------------------------ */

Cost cost_instr(const HloInstr *ins)
{
	Memo mo = {0};
	Cost c = kernel_cost(&mo, ins);
	memo_free(&mo);
	return c;
}

Cost cost_flops(const HloInstr *ins)
{
	Memo mo = {0};
	Cost c = flops_of(&mo, ins);
	memo_free(&mo);
	return c;
}

Cost cost_module(const HloModule *m)
{
	Cost sum = {0};
	if (!m->entry)
		return sum;
	Memo mo = {0};
	for (int i = 0; i < m->entry->n; i++) {
		Cost one = kernel_cost(&mo, m->entry->instrs[i]);
		cost_add(&sum, &one);
	}
	memo_free(&mo);
	return sum;
}

/* Runs after every pass (the `pass:` line): no flops counted. */
int64_t cost_bytes_moved(const HloModule *m)
{
	return module_bytes(m, false, NULL);
}

int64_t cost_bytes_moved_kernels(const HloModule *m, int *kernels)
{
	return module_bytes(m, false, kernels);
}

/* Sanitizer builds (the tests under ASan, the fuzzers) work every
 * kernel out again and stop at once on a difference: a reused figure
 * that its signature did not cover. */
int64_t cost_bytes_moved_verified(HloModule *m)
{
	return cost_bytes_moved_verified_kernels(m, NULL);
}

/* Sanitizer builds: b and kernels (may be NULL) as a verified walk
 * over m left them, worked out again afresh; stops at once on a
 * difference. */
static void check_verified(HloModule *m, int64_t b, const int *kernels)
{
#if XR_ASAN
	/* afresh, and through kernel_cost for every kernel: module_bytes's
	 * short cuts must agree with the model they shorten */
	Cost c = cost_module(m);
	int64_t full = shape_bytes_add(c.bytes_read, c.bytes_written);
	if (b != full || b != cost_bytes_moved(m)) {
		fprintf(stderr, "cost_bytes_moved_verified: %lld bytes, but "
				"%lld worked out afresh through kernel_cost\n",
			(long long)b, (long long)full);
		abort();
	}
	if (kernels && *kernels != hlo_module_kernels(m)) {
		fprintf(stderr, "cost_bytes_moved_verified: %d kernels, but "
				"hlo_module_kernels counts %d\n",
			*kernels, hlo_module_kernels(m));
		abort();
	}
#else
	(void)m, (void)b, (void)kernels;
#endif
}

int64_t cost_bytes_moved_verified_kernels(HloModule *m, int *kernels)
{
	int64_t b = module_bytes(m, true, kernels);
	check_verified(m, b, kernels);
	return b;
}

void cost_walk_drop(CostWalk *w)
{
	if (w)
		memo_free(&w->mo);
	free(w);
}

int64_t cost_walk_end(CostWalk *w, HloModule *m, int *kernels)
{
	int64_t b = (int64_t)w->sum;
	if (kernels)
		*kernels = w->kernels;
	cost_walk_drop(w);
	check_verified(m, b, kernels);
	return b;
}

double cost_roofline_s(const Cost *c, const CostMachine *mc, bool *memory_bound)
{
	double bytes = (double)c->bytes_read + (double)c->bytes_written;
	double tm = mc->gbps > 0 ? bytes / (mc->gbps * 1e9) : 0;
	double tc = mc->gflops > 0 ? c->flops / (mc->gflops * 1e9) : 0;
	if (memory_bound)
		*memory_bound = tm >= tc;
	return tm >= tc ? tm : tc;
}

double cost_intensity(const Cost *c)
{
	double bytes = (double)c->bytes_read + (double)c->bytes_written;
	return bytes > 0 ? c->flops / bytes : 0;
}
