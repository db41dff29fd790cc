/* interp_reduce.c - the interpreter's opcodes that call a computation per
 * element or reorder along a dimension: reduce, reduce-window,
 * select-and-scatter, map, sort, topk.
 *
 * Called computations get scalar arguments that live in a Callee (shape,
 * literal and storage of each parameter together), set up once per
 * instruction and refilled per element, so a reduction allocates nothing
 * per element. A callee's result is valid only until its next call: it is
 * copied out at once.
 *
 * Order of reduction: XLA leaves it unspecified. Here every output element
 * is a sequential left fold from the init value, in row-major order of the
 * reduced indices (window order for reduce-window). That is exact for
 * integer add and for max/min; float sums are the plain in-order sum.
 *
 * A reducer that is one add, multiply, maximum, minimum, and, or of its
 * two parameters (the common case) is folded without calling it, with the
 * same per-operation rounding. */
#include "interp_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { POLL_EVERY = 1 << 16 };

/* ---- values -------------------------------------------------------------- */

/* The result value: the engine's buffer when it gave one (arrays, or the
 * tuple kept from an earlier evaluation), else a new one. Either way every
 * element is written by the evaluator: a reused buffer is not zeroed. */
static Literal *result_of(Interp *it, const HloInstr *ins, Literal *out)
{
	return out ? out : it_new(it, ins, ins->shape);
}

/* Returns res on success; on failure frees it unless it is out. */
static Literal *finish(Interp *it, Literal *res, Literal *out, bool ok)
{
	if (ok)
		return res;
	if (res != out)
		it_free(it, res);
	return NULL;
}

/* Part i of a tuple value, or the value itself. */
static Literal *part(const Literal *v, int i)
{
	return v->shape->type == DT_TUPLE ? v->tuple[i] : (Literal *)v;
}

/* dst[di] = src[si], converting when the element types differ. */
static void put(Literal *dst, int64_t di, const Literal *src, int64_t si)
{
	Dtype a = dst->shape->type, b = src->shape->type;
	if (a == b) {
		it_copy_elem(dst, di, src, si);
	} else if (dtype_kind(a) == DK_COMPLEX) {
		double re, im;
		literal_get_c(src, si, &re, &im);
		literal_set_c(dst, di, re, im);
	} else if (dtype_is_float(a) || dtype_is_float(b) ||
		   dtype_kind(b) == DK_COMPLEX) {
		it_setf(dst, di, it_getf(src, si));
	} else {
		it_seti(dst, di, it_geti(src, si));
	}
}

/* ---- called computations ------------------------------------------------- */

/* A scalar argument: its shape, literal and storage in one block (16
 * bytes hold the widest element, c128), so refilling it allocates
 * nothing. */
typedef struct Scalar {
	Shape shape;
	Literal lit;
	_Alignas(16) unsigned char buf[16];
} Scalar;

/* A called computation with its scalar arguments, set up once per
 * instruction. */
typedef struct Callee {
	const HloComp *c;
	int n, nres;    /* parameters, scalar results */
	Scalar *s;      /* one per parameter */
	Literal **args; /* &s[i].lit */
} Callee;

static void callee_free(Callee *ce)
{
	free(ce->s);
	free(ce->args);
	ce->s = NULL;
	ce->args = NULL;
}

static bool is_scalar(const Shape *s) { return shape_is_array(s) && !s->rank; }

/* True when c's root gives nres scalars: a scalar (nres == 1) or a tuple
 * of nres scalars. */
static bool root_gives(const HloComp *c, int nres)
{
	const Shape *r = c->root ? c->root->shape : NULL;
	if (!r)
		return false;
	if (r->type != DT_TUPLE)
		return nres == 1 && is_scalar(r);
	if (r->ntuple != nres)
		return false;
	for (int i = 0; i < nres; i++)
		if (!is_scalar(r->tuple[i]))
			return false;
	return true;
}

/* Sets up the computation attribute k of ins, taking n scalar parameters
 * and giving nres scalars. false after it_fail. */
static bool callee_init(Interp *it, const HloInstr *ins, AttrKey k, int n,
			int nres, Callee *ce)
{
	memset(ce, 0, sizeof *ce);
	const HloComp *c = hlo_attr_comp(ins, k);
	if (!c)
		return it_fail(it, ins, "no %s computation", hlo_attr_name(k)),
		       false;
	if (hlo_comp_param_count(c) != n)
		return it_fail(it, ins,
			       "%s '%s' takes %d parameters, expected "
			       "%d",
			       hlo_attr_name(k), c->name,
			       hlo_comp_param_count(c), n),
		       false;
	if (!root_gives(c, nres))
		return it_fail(it, ins, "%s '%s' must return %d scalar%s",
			       hlo_attr_name(k), c->name, nres,
			       nres == 1 ? "" : "s"),
		       false;
	ce->c = c;
	ce->n = n;
	ce->nres = nres;
	ce->s = calloc((size_t)n + 1, sizeof *ce->s);
	ce->args = calloc((size_t)n + 1, sizeof *ce->args);
	if (!ce->s || !ce->args) {
		callee_free(ce);
		return it_fail(it, ins, "out of memory"), false;
	}
	for (int i = 0; i < n; i++) {
		const HloInstr *p = hlo_comp_param(c, i);
		if (!p || !is_scalar(p->shape)) {
			callee_free(ce);
			return it_fail(it, ins,
				       "parameter %d of %s '%s' must be "
				       "a scalar",
				       i, hlo_attr_name(k), c->name),
			       false;
		}
		Scalar *s = &ce->s[i];
		s->shape.type = p->shape->type;
		s->lit.shape = &s->shape;
		s->lit.n = 1;
		s->lit.data = s->buf;
		ce->args[i] = &s->lit;
	}
	return true;
}

static const Literal *call(Interp *it, Callee *ce)
{
	return it_call(it, ce->c, ce->args, ce->n);
}

/* ---- folds without calls ------------------------------------------------- */

/* The binary opcode when c is exactly op(p0, p1) or op(p1, p0) (then
 * *swap is set) over scalars of type t, for the ops fast_step knows; else
 * HLO_INVALID. */
static HloOpcode simple_reducer(const HloComp *c, Dtype t, bool *swap)
{
	const HloInstr *r = c->root;
	if (!r || c->n != 3 || r->nops != 2 || hlo_comp_param_count(c) != 2)
		return HLO_INVALID;
	if (dtype_kind(t) == DK_COMPLEX || !dtype_is_array(t))
		return HLO_INVALID;
	const HloInstr *a = r->ops[0], *b = r->ops[1];
	if (a->op != HLO_PARAMETER || b->op != HLO_PARAMETER ||
	    a->param_no == b->param_no)
		return HLO_INVALID;
	if (!is_scalar(r->shape) || r->shape->type != t ||
	    a->shape->type != t || b->shape->type != t)
		return HLO_INVALID;
	*swap = a->param_no == 1;
	switch (r->op) {
	case HLO_ADD:
	case HLO_MULTIPLY:
	case HLO_MAXIMUM:
	case HLO_MINIMUM:
		return r->op;
	case HLO_AND:
	case HLO_OR:
		return dtype_is_float(t) ? HLO_INVALID : r->op;
	default:
		return HLO_INVALID;
	}
}

/* The accumulator of a fold whose reducer simple_reducer recognised: a
 * double (floats) or a 64-bit pattern (integers), rounded to the element
 * type after every step exactly as the opcode's result would be. */
typedef struct Fast {
	HloOpcode op; /* HLO_INVALID: call the reducer instead */
	bool swap, isf, un;
	Dtype t;
	Scalar s; /* rounds through the element type */
	double f;
	uint64_t i;
} Fast;

static double round_f(Fast *q, double v)
{
	if (q->t == DT_F64)
		return v;
	if (q->t == DT_F32)
		return (double)(float)v;
	it_setf(&q->s.lit, 0, v);
	return it_getf(&q->s.lit, 0);
}

static uint64_t round_i(Fast *q, uint64_t v)
{
	switch (q->t) {
	case DT_S64:
	case DT_U64:
		return v;
	case DT_S32:
		return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	case DT_U32:
		return (uint32_t)v;
	default:
		it_seti(&q->s.lit, 0, (int64_t)v);
		return (uint64_t)it_geti(&q->s.lit, 0);
	}
}

static void fast_init(Fast *q, HloOpcode op, bool swap, Dtype t)
{
	memset(q, 0, sizeof *q);
	q->op = op;
	q->swap = swap;
	q->t = t;
	q->isf = dtype_is_float(t);
	q->un = dtype_kind(t) != DK_SINT;
	q->s.shape.type = t;
	q->s.lit.shape = &q->s.shape;
	q->s.lit.n = 1;
	q->s.lit.data = q->s.buf;
}

static void fast_load(Fast *q, const Literal *l, int64_t i)
{
	if (q->isf)
		q->f = it_getf(l, i);
	else
		q->i = (uint64_t)it_geti(l, i);
}

static void fast_save(const Fast *q, Literal *l, int64_t i)
{
	if (q->isf)
		it_setf(l, i, q->f);
	else
		it_seti(l, i, (int64_t)q->i);
}

/* a op b for the float reducers. */
static double fast_f(HloOpcode op, double a, double b)
{
	switch (op) {
	case HLO_ADD:
		return a + b;
	case HLO_MULTIPLY:
		return a * b;
	case HLO_MAXIMUM:
		return it_fmax(a, b); /* as the opcode */
	default:
		return it_fmin(a, b);
	}
}

/* a op b for the integer and pred reducers, on 64-bit patterns. */
static uint64_t fast_i(const Fast *q, uint64_t a, uint64_t b)
{
	bool lt = q->un ? a < b : (int64_t)a < (int64_t)b;
	switch (q->op) {
	case HLO_ADD:
		return a + b;
	case HLO_MULTIPLY:
		return a * b;
	case HLO_MAXIMUM:
		return lt ? b : a;
	case HLO_MINIMUM:
		return lt ? a : b;
	case HLO_AND:
		return a & b;
	default:
		return a | b;
	}
}

/* acc = acc op x[xi] (x op acc when swap: the reducer's operand order
 * decides which NaN or which of -0 and +0 comes out). */
static void fast_step(Fast *q, const Literal *x, int64_t xi)
{
	if (q->isf) {
		double a = q->f, b = it_getf(x, xi);
		q->f = round_f(q, q->swap ? fast_f(q->op, b, a)
					  : fast_f(q->op, a, b));
		return;
	}
	uint64_t a = q->i, b = (uint64_t)it_geti(x, xi);
	q->i = round_i(q, q->swap ? fast_i(q, b, a) : fast_i(q, a, b));
}

/* ---- folds --------------------------------------------------------------- */

/* A running reduction of n inputs (ops[0..n)) with n init values
 * (ops[n..2n)) into res. The accumulators are the reducer's first n
 * arguments (or q when the reducer is simple). */
typedef struct Fold {
	Interp *it;
	const HloInstr *ins;
	Literal *const *ops;
	Literal *res;
	Callee ce;
	Fast q;
	int n;
} Fold;

static bool fold_init(Fold *f, Interp *it, const HloInstr *ins,
		      Literal *const *ops, Literal *out)
{
	memset(f, 0, sizeof *f);
	f->it = it;
	f->ins = ins;
	f->ops = ops;
	f->n = ins->nops / 2;
	if (f->n < 1 || ins->nops % 2)
		return it_fail(it, ins,
			       "expects inputs and as many init values"),
		       false;
	if (!callee_init(it, ins, A_TO_APPLY, 2 * f->n, f->n, &f->ce))
		return false;
	bool swap = false;
	Dtype t = ops[1]->shape->type;
	HloOpcode op = f->n == 1 && ops[0]->shape->type == t
			       ? simple_reducer(f->ce.c, t, &swap)
			       : HLO_INVALID;
	fast_init(&f->q, op, swap, t);
	if (!(f->res = result_of(it, ins, out))) {
		callee_free(&f->ce);
		return false;
	}
	return true;
}

/* Accumulators = the init values. */
static void fold_start(Fold *f)
{
	if (f->q.op != HLO_INVALID) {
		fast_load(&f->q, f->ops[1], 0);
		return;
	}
	for (int i = 0; i < f->n; i++)
		put(f->ce.args[i], 0, f->ops[f->n + i], 0);
}

/* Accumulators = the results at o, and back. */
static void fold_load(Fold *f, int64_t o)
{
	if (f->q.op != HLO_INVALID) {
		fast_load(&f->q, f->res, o);
		return;
	}
	for (int i = 0; i < f->n; i++)
		put(f->ce.args[i], 0, part(f->res, i), o);
}

static void fold_store(Fold *f, int64_t o)
{
	if (f->q.op != HLO_INVALID) {
		fast_save(&f->q, f->res, o);
		return;
	}
	for (int i = 0; i < f->n; i++)
		put(part(f->res, i), o, f->ce.args[i], 0);
}

/* Folds in element lin of the inputs, or the init values when lin < 0. */
static bool fold_elem(Fold *f, int64_t lin)
{
	int n = f->n;
	if (f->q.op != HLO_INVALID) {
		fast_step(&f->q, lin >= 0 ? f->ops[0] : f->ops[1],
			  lin >= 0 ? lin : 0);
		return true;
	}
	for (int i = 0; i < n; i++)
		if (lin >= 0)
			put(f->ce.args[n + i], 0, f->ops[i], lin);
		else
			put(f->ce.args[n + i], 0, f->ops[n + i], 0);
	const Literal *r = call(f->it, &f->ce);
	if (!r)
		return false;
	for (int i = 0; i < n; i++)
		put(f->ce.args[i], 0, part(r, i), 0);
	return true;
}

static Literal *fold_end(Fold *f, Literal *out, bool ok)
{
	callee_free(&f->ce);
	return finish(f->it, f->res, out, ok);
}

/* ---- reduce -------------------------------------------------------------- */

/* reduce streams through the inputs in row-major order, the results
 * holding the accumulators: each output element still folds its inputs
 * in row-major order of the reduced indices, and reductions over major
 * dimensions read memory in order. */
static Literal *ev_reduce(Interp *it, const HloInstr *ins, Literal *const *ops,
			  Literal *out)
{
	Fold f;
	if (!fold_init(&f, it, ins, ops, out))
		return NULL;
	const Shape *x = ops[0]->shape;
	int nd;
	const int64_t *dims = hlo_attr_ints(ins, A_DIMENSIONS, &nd);
	bool red[XR_MAX_RANK] = {false};
	int64_t ost[XR_MAX_RANK], idx[XR_MAX_RANK] = {0}, st = 1;
	for (int i = 0; i < nd; i++)
		if (dims[i] >= 0 && dims[i] < x->rank)
			red[dims[i]] = true;
	for (int d = x->rank - 1; d >= 0; d--) { /* output strides */
		ost[d] = red[d] ? 0 : st;
		st *= red[d] ? 1 : x->dims[d];
	}
	int64_t nout = part(f.res, 0)->n, o = 0, cur = -1;
	for (int64_t i = 0; i < nout; i++) {
		fold_start(&f);
		fold_store(&f, i);
	}
	bool ok = true;
	for (int64_t lin = 0; ok && lin < ops[0]->n; lin++) {
		if (o != cur) {
			if (cur >= 0)
				fold_store(&f, cur);
			fold_load(&f, o);
			cur = o;
		}
		ok = fold_elem(&f, lin);
		for (int d = x->rank - 1; d >= 0; d--) {
			o += ost[d];
			if (++idx[d] < x->dims[d])
				break;
			o -= x->dims[d] * ost[d];
			idx[d] = 0;
		}
		if ((lin & (POLL_EVERY - 1)) == POLL_EVERY - 1)
			ok = ok && it_poll(it, ins);
	}
	if (ok && cur >= 0)
		fold_store(&f, cur);
	return fold_end(&f, out, ok);
}

/* ---- windows ------------------------------------------------------------- */

/* The operand element under window position w of output position o, as a
 * linear index; -1 for padding and base-dilation holes. */
static int64_t window_elem(const Shape *x, const WindowDim *wd,
			   const int64_t *st, const int64_t *o,
			   const int64_t *w)
{
	int64_t lin = 0;
	for (int d = 0; d < x->rank; d++) {
		const WindowDim *k = &wd[d];
		int64_t p = o[d] * k->stride - k->pad_lo + w[d] * k->rhs_dilate;
		int64_t ld = k->lhs_dilate > 0 ? k->lhs_dilate : 1;
		if (p < 0 || p % ld)
			return -1;
		p /= ld;
		if (p >= x->dims[d])
			return -1;
		lin += p * st[d];
	}
	return lin;
}

/* The window attribute, checked against rank. NULL after it_fail. */
static const WindowDim *window_of(Interp *it, const HloInstr *ins, int rank,
				  int64_t *size, int64_t *count)
{
	const HloAttr *a = hlo_attr_find(ins, A_WINDOW);
	static const WindowDim none;
	int n = a ? a->u.window.n : 0;
	if (n != rank)
		return it_fail(it, ins, "window has %d dimensions, expected %d",
			       n, rank),
		       NULL;
	*count = 1;
	for (int d = 0; d < rank; d++) {
		size[d] = a->u.window.v[d].size;
		if (size[d] < 1 || a->u.window.v[d].stride < 1)
			return it_fail(it, ins,
				       "window dimension %d has size "
				       "or stride < 1",
				       d),
			       NULL;
		*count *= size[d];
	}
	return rank ? a->u.window.v : &none;
}

static bool next_window(int rank, const int64_t *size, int64_t *w)
{
	for (int d = rank - 1; d >= 0; d--) {
		if (++w[d] < size[d])
			return true;
		w[d] = 0;
	}
	return false;
}

/* reduce-window: padding and base-dilation holes hold the init value, as
 * XLA's operation semantics say (XLA's evaluator skips them instead; the
 * two agree whenever the init value is the reducer's identity). */
static Literal *ev_reduce_window(Interp *it, const HloInstr *ins,
				 Literal *const *ops, Literal *out)
{
	Fold f;
	const Shape *x = ops[0]->shape;
	int64_t size[XR_MAX_RANK], count, st[XR_MAX_RANK];
	int64_t o[XR_MAX_RANK] = {0}, w[XR_MAX_RANK];
	const WindowDim *wd = window_of(it, ins, x->rank, size, &count);
	if (!wd || !fold_init(&f, it, ins, ops, out))
		return NULL;
	it_strides(x, st);
	const Shape *rs = part(f.res, 0)->shape;
	int64_t nout = part(f.res, 0)->n, steps = 0;
	bool ok = true;
	for (int64_t oi = 0; ok && oi < nout; oi++) {
		it_unflatten(rs, oi, o);
		fold_start(&f);
		memset(w, 0, sizeof(int64_t) * (size_t)x->rank);
		for (int64_t c = 0; ok && c < count; c++) {
			ok = fold_elem(&f, window_elem(x, wd, st, o, w));
			next_window(x->rank, size, w);
			if ((++steps & (POLL_EVERY - 1)) == 0)
				ok = ok && it_poll(it, ins);
		}
		fold_store(&f, oi);
	}
	return fold_end(&f, out, ok);
}

/* select-and-scatter(operand, source, init): for each window (one per
 * source element) select picks an operand element: the first in window
 * order, replaced by a later one whenever select(current, later) is false.
 * scatter(output, source) then updates the output there. Padding and
 * holes are never selected; a window of only padding scatters nothing. */
static Literal *ev_select_and_scatter(Interp *it, const HloInstr *ins,
				      Literal *const *ops, Literal *out)
{
	const Literal *x = ops[0], *src = ops[1], *init = ops[2];
	int64_t size[XR_MAX_RANK], count, st[XR_MAX_RANK];
	int64_t o[XR_MAX_RANK], w[XR_MAX_RANK];
	const WindowDim *wd = window_of(it, ins, x->shape->rank, size, &count);
	Callee sel, sc;
	if (!wd || !callee_init(it, ins, A_SELECT, 2, 1, &sel))
		return NULL;
	if (!callee_init(it, ins, A_SCATTER, 2, 1, &sc)) {
		callee_free(&sel);
		return NULL;
	}
	Literal *res = result_of(it, ins, out);
	bool ok = res != NULL;
	for (int64_t i = 0; ok && i < res->n; i++)
		put(res, i, init, 0);
	it_strides(x->shape, st);
	for (int64_t si = 0; ok && si < src->n; si++) {
		it_unflatten(src->shape, si, o);
		memset(w, 0, sizeof(int64_t) * (size_t)x->shape->rank);
		int64_t best = -1;
		for (int64_t c = 0; ok && c < count; c++) {
			int64_t lin = window_elem(x->shape, wd, st, o, w);
			next_window(x->shape->rank, size, w);
			if (lin < 0)
				continue;
			if (best < 0) {
				best = lin;
				continue;
			}
			put(sel.args[0], 0, x, best);
			put(sel.args[1], 0, x, lin);
			const Literal *r = call(it, &sel);
			if (!(ok = r != NULL))
				break;
			if (!it_geti(part(r, 0), 0))
				best = lin;
		}
		if (!ok || best < 0)
			continue;
		put(sc.args[0], 0, res, best);
		put(sc.args[1], 0, src, si);
		const Literal *r = call(it, &sc);
		if ((ok = r != NULL))
			put(res, best, part(r, 0), 0);
	}
	callee_free(&sel);
	callee_free(&sc);
	return finish(it, res, out, ok);
}

/* ---- map ----------------------------------------------------------------- */

static Literal *ev_map(Interp *it, const HloInstr *ins, Literal *const *ops,
		       Literal *out)
{
	Callee ce;
	int n = ins->nops;
	if (!callee_init(it, ins, A_TO_APPLY, n, 1, &ce))
		return NULL;
	Literal *res = result_of(it, ins, out);
	bool ok = res != NULL;
	for (int64_t e = 0; ok && e < res->n; e++) {
		for (int i = 0; i < n; i++)
			put(ce.args[i], 0, ops[i], e);
		const Literal *r = call(it, &ce);
		if ((ok = r != NULL))
			put(res, e, part(r, 0), 0);
	}
	callee_free(&ce);
	return finish(it, res, out, ok);
}

/* ---- sort ---------------------------------------------------------------- */

typedef struct Sorter {
	Interp *it;
	Callee ce;
	Literal *const *ops;
	int n;
	int64_t base, stride;
	bool failed;
} Sorter;

/* comparator(operands at a, operands at b): "a goes before b". */
static bool less(Sorter *s, int64_t a, int64_t b)
{
	if (s->failed)
		return false;
	for (int i = 0; i < s->n; i++) {
		put(s->ce.args[2 * i], 0, s->ops[i], s->base + a * s->stride);
		put(s->ce.args[2 * i + 1], 0, s->ops[i],
		    s->base + b * s->stride);
	}
	const Literal *r = call(s->it, &s->ce);
	if (!r) {
		s->failed = true;
		return false;
	}
	return it_geti(part(r, 0), 0) != 0;
}

/* Stable bottom-up merge sort of idx[0..n) (tmp: scratch of n): an element
 * of the right run goes first only when it is strictly less. */
static void merge_sort(Sorter *s, int64_t *idx, int64_t *tmp, int64_t n)
{
	for (int64_t width = 1; width < n && !s->failed; width *= 2) {
		for (int64_t lo = 0; lo < n; lo += 2 * width) {
			int64_t mid = lo + width < n ? lo + width : n;
			int64_t hi = mid + width < n ? mid + width : n;
			int64_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = less(s, idx[j], idx[i]) ? idx[j++]
								   : idx[i++];
			while (i < mid)
				tmp[k++] = idx[i++];
			while (j < hi)
				tmp[k++] = idx[j++];
		}
		memcpy(idx, tmp, sizeof *idx * (size_t)n);
	}
}

/* sort: always stable (an unstable sort may return any order that the
 * stable one could, so this is valid for is_stable=false too). */
static Literal *ev_sort(Interp *it, const HloInstr *ins, Literal *const *ops,
			Literal *out)
{
	int nd, n = ins->nops;
	const int64_t *dims = hlo_attr_ints(ins, A_DIMENSIONS, &nd);
	const Shape *x = ops[0]->shape;
	if (nd != 1 || dims[0] < 0 || dims[0] >= x->rank)
		return it_fail(it, ins, "needs one sort dimension");
	Sorter s = {.it = it, .ops = ops, .n = n};
	if (!callee_init(it, ins, A_TO_APPLY, 2 * n, 1, &s.ce))
		return NULL;
	int64_t st[XR_MAX_RANK], len = x->dims[dims[0]];
	it_strides(x, st);
	s.stride = st[dims[0]];
	int64_t *idx = malloc(sizeof *idx * (size_t)(len + 1));
	int64_t *tmp = malloc(sizeof *tmp * (size_t)(len + 1));
	Literal *res = idx && tmp ? result_of(it, ins, out) : NULL;
	if (!idx || !tmp)
		it_fail(it, ins, "out of memory");
	bool ok = res != NULL;
	int64_t total = ops[0]->n,
		outer = len && s.stride ? total / (len * s.stride) : 0;
	for (int64_t a = 0; ok && a < outer; a++)
		for (int64_t b = 0; ok && b < s.stride; b++) {
			s.base = a * len * s.stride + b;
			for (int64_t k = 0; k < len; k++)
				idx[k] = k;
			merge_sort(&s, idx, tmp, len);
			ok = !s.failed && it_poll(it, ins);
			for (int i = 0; ok && i < n; i++)
				for (int64_t k = 0; k < len; k++)
					put(part(res, i), s.base + k * s.stride,
					    ops[i], s.base + idx[k] * s.stride);
		}
	free(idx);
	free(tmp);
	callee_free(&s.ce);
	return finish(it, res, out, ok);
}

/* ---- topk ---------------------------------------------------------------- */

typedef struct Keyed {
	int64_t key; /* order-preserving: total order for floats */
	int64_t idx;
} Keyed;

/* IEEE total order as a signed integer: -NaN < -inf < ... < -0 < +0 <
 * ... < +inf < +NaN. */
static int64_t float_key(double v)
{
	int64_t b;
	memcpy(&b, &v, sizeof b);
	return b < 0 ? b ^ INT64_MAX : b;
}

static int64_t elem_key(const Literal *x, int64_t i)
{
	Dtype t = x->shape->type;
	if (dtype_is_float(t))
		return float_key(it_getf(x, i));
	int64_t v = it_geti(x, i);
	return t == DT_U64 ? (int64_t)((uint64_t)v ^ ((uint64_t)1 << 63)) : v;
}

/* Larger keys first; equal keys by lower index. */
static int by_key_desc(const void *pa, const void *pb)
{
	const Keyed *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static int by_key_asc(const void *pa, const void *pb)
{
	const Keyed *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* topk(x), k, largest: the k largest (smallest) elements of each row of
 * the last dimension, in order, with their s32 indices. Floats compare in
 * IEEE total order (so NaN is the largest); ties go to the lower index. */
static Literal *ev_topk(Interp *it, const HloInstr *ins, Literal *const *ops,
			Literal *out)
{
	const Literal *x = ops[0];
	int64_t k = 0;
	bool largest = true;
	HloAttr *la = hlo_attr_find(ins, A_LARGEST);
	if (la)
		largest = la->u.b;
	hlo_attr_int(ins, A_K, &k);
	int rank = x->shape->rank;
	if (dtype_kind(x->shape->type) == DK_COMPLEX || !rank)
		return it_fail(it, ins, "needs a real array of rank >= 1");
	int64_t len = x->shape->dims[rank - 1];
	if (k < 0 || k > len)
		return it_fail(it, ins, "k = %lld is out of range",
			       (long long)k);
	Keyed *row = malloc(sizeof *row * (size_t)(len + 1));
	if (!row)
		return it_fail(it, ins, "out of memory");
	Literal *res = result_of(it, ins, out);
	bool ok = res != NULL && res->ntuple == 2;
	int64_t rows = len ? x->n / len : 0;
	for (int64_t r = 0; ok && r < rows; r++) {
		for (int64_t i = 0; i < len; i++)
			row[i] = (Keyed){elem_key(x, r * len + i), i};
		qsort(row, (size_t)len, sizeof *row,
		      largest ? by_key_desc : by_key_asc);
		for (int64_t j = 0; j < k; j++) {
			put(res->tuple[0], r * k + j, x, r * len + row[j].idx);
			it_seti(res->tuple[1], r * k + j, row[j].idx);
		}
		if ((r & 255) == 255)
			ok = it_poll(it, ins);
	}
	free(row);
	return finish(it, res, out, ok);
}

void interp_register_reduce(EvalFn *t)
{
	t[HLO_REDUCE] = ev_reduce;
	t[HLO_REDUCE_WINDOW] = ev_reduce_window;
	t[HLO_SELECT_AND_SCATTER] = ev_select_and_scatter;
	t[HLO_MAP] = ev_map;
	t[HLO_SORT] = ev_sort;
	t[HLO_TOPK] = ev_topk;
}
