/* interp_data.c - the interpreter's data-movement opcodes: broadcast,
 * reshape, bitcast, dynamic-reshape, transpose, slice, dynamic-slice,
 * dynamic-update-slice, concatenate, pad, reverse, gather, scatter,
 * get-dimension-size and set-dimension-size.
 *
 * Almost all of them copy a box of elements whose source and destination
 * positions are affine in the box index: a Walk says, per box dimension,
 * how far one step moves in the source and in the destination. walk()
 * checks once that the whole box lies inside both buffers, so a shape the
 * verifier let through by mistake becomes an error, never a stray read.
 * Gather and scatter are a loop of such walks, one per index vector.
 *
 * Semantics follow XLA's operation semantics and HloEvaluator: start
 * indices of dynamic-slice, dynamic-update-slice and gather are clamped so
 * the slice fits; a scatter window that does not fit entirely is skipped. */
#include "interp_impl.h"

#include <stdlib.h>
#include <string.h>

enum { POLL_EVERY = 1 << 16 };

/* ---- walks ------------------------------------------------------------ */

typedef struct Walk {
	int rank;
	int64_t dims[XR_MAX_RANK];
	int64_t sc[XR_MAX_RANK], dc[XR_MAX_RANK]; /* steps per dimension */
	int64_t s0, d0;                           /* start positions */
} Walk;

/* Counts elements across the walks of one instruction for it_poll. */
typedef struct Poll {
	Interp *it;
	const HloInstr *ins;
	int64_t count;
} Poll;

/* Called once per innermost row: n elements from s and d on, stepping
 * ss and ds. */
typedef bool (*RowFn)(void *ctx, int64_t s, int64_t d, int64_t n, int64_t ss,
		      int64_t ds);

static bool poll_add(Poll *p, int64_t n)
{
	p->count += n;
	if (p->count < POLL_EVERY)
		return true;
	p->count = 0;
	return it_poll(p->it, p->ins);
}

/* True when every position of the box lies in [0, n) for one side. */
static bool box_fits(const Walk *w, const int64_t *c, int64_t base, int64_t n)
{
	int64_t lo = base, hi = base;
	for (int i = 0; i < w->rank; i++) {
		if (w->dims[i] == 0)
			return true; /* empty box */
		int64_t span = c[i] * (w->dims[i] - 1);
		if (span < 0)
			lo += span;
		else
			hi += span;
	}
	return lo >= 0 && hi < n;
}

static bool walk(Poll *p, const Walk *w, int64_t src_n, int64_t dst_n, RowFn fn,
		 void *ctx)
{
	for (int i = 0; i < w->rank; i++)
		if (w->dims[i] == 0)
			return true;
	if (!box_fits(w, w->sc, w->s0, src_n) ||
	    !box_fits(w, w->dc, w->d0, dst_n)) {
		it_fail(p->it, p->ins,
			"internal error: an index falls outside "
			"a buffer (shapes inconsistent with the attributes?)");
		return false;
	}
	int r = w->rank;
	if (r == 0)
		return fn(ctx, w->s0, w->d0, 1, 0, 0) && poll_add(p, 1);
	int64_t idx[XR_MAX_RANK] = {0}, s = w->s0, d = w->d0;
	int64_t n = w->dims[r - 1];
	for (;;) {
		if (!fn(ctx, s, d, n, w->sc[r - 1], w->dc[r - 1]) ||
		    !poll_add(p, n))
			return false;
		int i = r - 2;
		for (; i >= 0; i--) {
			if (++idx[i] < w->dims[i]) {
				s += w->sc[i];
				d += w->dc[i];
				break;
			}
			s -= w->sc[i] * (w->dims[i] - 1);
			d -= w->dc[i] * (w->dims[i] - 1);
			idx[i] = 0;
		}
		if (i < 0)
			return true;
	}
}

typedef struct CopyCx {
	Literal *dst;
	const Literal *src;
	int b;
} CopyCx;

static bool copy_row(void *ctx, int64_t s, int64_t d, int64_t n, int64_t ss,
		     int64_t ds)
{
	CopyCx *c = ctx;
	if (ss == 1 && ds == 1) {
		memcpy((char *)c->dst->data + d * c->b,
		       (const char *)c->src->data + s * c->b,
		       (size_t)(n * c->b));
		return true;
	}
	for (int64_t j = 0; j < n; j++)
		it_copy_elem(c->dst, d + j * ds, c->src, s + j * ss);
	return true;
}

static bool walk_copy(Poll *p, Literal *dst, const Literal *src, const Walk *w)
{
	if (dst->shape->type != src->shape->type) {
		it_fail(p->it, p->ins, "element types %s and %s differ",
			dtype_name(src->shape->type),
			dtype_name(dst->shape->type));
		return false;
	}
	CopyCx c = {dst, src, dtype_bytes(dst->shape->type)};
	return walk(p, w, src->n, dst->n, copy_row, &c);
}

/* A walk over all of dst's elements in order (destination row-major). */
static void walk_dst(Walk *w, const Shape *dst)
{
	memset(w, 0, sizeof *w);
	/* shapes are at most XR_MAX_RANK deep (the parser and shape
	 * inference refuse more); saying so here also keeps GCC's
	 * link-time -Wstringop-overflow from seeing a longer copy */
	w->rank = dst->rank < XR_MAX_RANK ? dst->rank : XR_MAX_RANK;
	if (w->rank) /* a scalar's dims may be NULL */
		memcpy(w->dims, dst->dims, sizeof(int64_t) * (size_t)w->rank);
	it_strides(dst, w->dc);
}

/* ---- small helpers ---------------------------------------------------- */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v > hi ? (hi > lo ? hi : lo) : v < lo ? lo : v;
}

/* An index value; an unsigned one beyond int64 counts as huge. */
static int64_t index_at(const Literal *l, int64_t i)
{
	int64_t v = it_geti(l, i);
	if (v < 0 && dtype_kind(l->shape->type) == DK_UINT)
		return INT64_MAX;
	return v;
}

static bool contains(const int64_t *v, int n, int64_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Every entry in [0, bound). */
static bool in_range(const int64_t *v, int n, int64_t bound)
{
	for (int i = 0; i < n; i++)
		if (v[i] < 0 || v[i] >= bound)
			return false;
	return true;
}

static bool same_elements(const Literal *a, const Literal *b)
{
	return a->n == b->n && a->shape->type == b->shape->type;
}

static void copy_all(Literal *dst, const Literal *src)
{
	memcpy(dst->data, src->data,
	       (size_t)(dst->n * dtype_bytes(dst->shape->type)));
}

/* Fills dst with element 0 of v, doubling the filled prefix. */
static void fill(Literal *dst, const Literal *v)
{
	if (dst->n == 0)
		return;
	size_t b = (size_t)dtype_bytes(dst->shape->type), done = 1;
	size_t total = (size_t)dst->n;
	char *p = dst->data;
	memcpy(p, v->data, b);
	while (done < total) {
		size_t k = done < total - done ? done : total - done;
		memcpy(p + done * b, p, k * b);
		done += k;
	}
}

/* Start indices of dynamic-(update-)slice from operand `first` on: one
 * scalar per dimension, or (the old form) one vector. */
static bool read_starts(Interp *it, const HloInstr *ins, Literal *const *ops,
			int first, int rank, int64_t *starts)
{
	int n = ins->nops - first;
	if (n == 1 && ops[first]->shape->rank == 1 && ops[first]->n == rank) {
		for (int i = 0; i < rank; i++)
			starts[i] = index_at(ops[first], i);
		return true;
	}
	if (n != rank) {
		it_fail(it, ins, "expects %d start indices, got %d", rank, n);
		return false;
	}
	for (int i = 0; i < rank; i++) {
		if (ops[first + i]->n != 1) {
			it_fail(it, ins, "start index %d is not a scalar", i);
			return false;
		}
		starts[i] = index_at(ops[first + i], 0);
	}
	return true;
}

/* ---- broadcast, reshape, bitcast, transpose, reverse ------------------ */

static Literal *ev_broadcast(Interp *it, const HloInstr *ins,
			     Literal *const *ops, Literal *out)
{
	int n;
	const int64_t *dims = hlo_attr_ints(ins, A_DIMENSIONS, &n);
	const Literal *x = ops[0];
	if (n != x->shape->rank || !in_range(dims, n, out->shape->rank))
		return it_fail(it, ins, "dimensions do not map the operand");
	Walk w;
	int64_t st[XR_MAX_RANK];
	walk_dst(&w, out->shape);
	it_strides(x->shape, st);
	for (int i = 0; i < n; i++)
		if (x->shape->dims[i] != 1) /* size-1 dims: step 0 either way */
			w.sc[dims[i]] = st[i];
	Poll p = {it, ins, 0};
	return walk_copy(&p, out, x, &w) ? out : NULL;
}

static Literal *ev_reshape(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out)
{
	if (!same_elements(out, ops[0]))
		return it_fail(it, ins,
			       "operand %s does not have the result's "
			       "element count and type",
			       shape_str(it_arena(it), ops[0]->shape));
	copy_all(out, ops[0]);
	return out;
}

/* dynamic-reshape: the declared shape; sizes are at their bounds here,
 * so the data is copied in order and any remainder left zero. */
static Literal *ev_dynamic_reshape(Interp *it, const HloInstr *ins,
				   Literal *const *ops, Literal *out)
{
	if (out->shape->type != ops[0]->shape->type)
		return it_fail(it, ins, "element types differ");
	int b = dtype_bytes(out->shape->type);
	int64_t n = out->n < ops[0]->n ? out->n : ops[0]->n;
	memcpy(out->data, ops[0]->data, (size_t)(n * b));
	memset((char *)out->data + n * b, 0, (size_t)((out->n - n) * b));
	return out;
}

/* Memory-order step of each logical dimension under s's layout. */
static void layout_strides(const Shape *s, int64_t *ps)
{
	const Layout *l = s->layout;
	if (!l || !layout_valid(l, s->rank)) {
		it_strides(s, ps);
		return;
	}
	int64_t st = 1;
	for (int k = 0; k < l->n; k++) {
		int d = l->minor_to_major[k];
		ps[d] = st;
		st *= s->dims[d];
	}
}

static bool strides_are_row_major(const Shape *s, const int64_t *ps)
{
	int64_t rm[XR_MAX_RANK];
	it_strides(s, rm);
	for (int i = 0; i < s->rank; i++)
		if (s->dims[i] > 1 && ps[i] != rm[i])
			return false;
	return true;
}

/* bitcast reinterprets the buffer in memory order: a result element at
 * memory position p is the operand element at memory position p, each
 * under its own layout (tiling ignored). With default layouts this is a
 * reshape. */
static Literal *ev_bitcast(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out)
{
	const Literal *x = ops[0];
	if (x->n != out->n ||
	    dtype_bytes(x->shape->type) != dtype_bytes(out->shape->type) ||
	    dtype_bits(x->shape->type) != dtype_bits(out->shape->type))
		return it_fail(it, ins,
			       "bitcast from %s changes the element "
			       "count or width: not supported by the "
			       "interpreter",
			       shape_str(it_arena(it), x->shape));
	int64_t pi[XR_MAX_RANK], po[XR_MAX_RANK], ri[XR_MAX_RANK];
	layout_strides(x->shape, pi);
	layout_strides(out->shape, po);
	if (strides_are_row_major(x->shape, pi) &&
	    strides_are_row_major(out->shape, po)) {
		copy_all(out, x);
		return out;
	}
	const Shape *xs = x->shape;
	const Layout *xl = xs->layout;
	bool lay = xl && layout_valid(xl, xs->rank);
	int major[XR_MAX_RANK]; /* operand dims, major to minor */
	for (int j = 0; j < xs->rank; j++)
		major[j] = lay ? xl->minor_to_major[xs->rank - 1 - j] : j;
	it_strides(xs, ri);
	int64_t idx[XR_MAX_RANK] = {0};
	for (int64_t k = 0; k < out->n; k++) {
		int64_t m = 0, src = 0;
		for (int d = 0; d < out->shape->rank; d++)
			m += idx[d] * po[d];
		for (int j = 0; j < xs->rank; j++) {
			int d = major[j];
			src += m / pi[d] * ri[d];
			m %= pi[d];
		}
		it_copy_elem(out, k, x, src);
		it_next_index(out->shape, idx);
		if ((k & (POLL_EVERY - 1)) == POLL_EVERY - 1 &&
		    !it_poll(it, ins))
			return NULL;
	}
	return out;
}

static Literal *ev_transpose(Interp *it, const HloInstr *ins,
			     Literal *const *ops, Literal *out)
{
	int n;
	const int64_t *perm = hlo_attr_ints(ins, A_DIMENSIONS, &n);
	const Literal *x = ops[0];
	if (n != x->shape->rank || n != out->shape->rank ||
	    !in_range(perm, n, n))
		return it_fail(it, ins,
			       "dimensions is not a permutation of "
			       "the operand's");
	Walk w;
	int64_t st[XR_MAX_RANK];
	walk_dst(&w, out->shape);
	it_strides(x->shape, st);
	for (int i = 0; i < n; i++)
		w.sc[i] = st[perm[i]];
	Poll p = {it, ins, 0};
	return walk_copy(&p, out, x, &w) ? out : NULL;
}

static Literal *ev_reverse(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out)
{
	int n;
	const int64_t *dims = hlo_attr_ints(ins, A_DIMENSIONS, &n);
	const Literal *x = ops[0];
	if (!in_range(dims, n, x->shape->rank))
		return it_fail(it, ins, "dimensions out of range");
	Walk w;
	walk_dst(&w, out->shape);
	it_strides(x->shape, w.sc);
	for (int i = 0; i < x->shape->rank; i++) {
		if (!contains(dims, n, i))
			continue;
		w.s0 += (x->shape->dims[i] - 1) * w.sc[i];
		w.sc[i] = -w.sc[i];
	}
	Poll p = {it, ins, 0};
	return walk_copy(&p, out, x, &w) ? out : NULL;
}

/* ---- slices ----------------------------------------------------------- */

static Literal *ev_slice(Interp *it, const HloInstr *ins, Literal *const *ops,
			 Literal *out)
{
	const HloAttr *a = hlo_attr_find(ins, A_SLICE);
	const Literal *x = ops[0];
	if (!a || a->u.slice.n != x->shape->rank)
		return it_fail(it, ins,
			       "slice does not match the operand rank");
	Walk w;
	int64_t st[XR_MAX_RANK];
	walk_dst(&w, out->shape);
	it_strides(x->shape, st);
	for (int i = 0; i < x->shape->rank; i++) {
		const SliceDim *s = &a->u.slice.v[i];
		w.sc[i] = st[i] * s->stride;
		w.s0 += st[i] * s->start;
	}
	Poll p = {it, ins, 0};
	return walk_copy(&p, out, x, &w) ? out : NULL;
}

/* The flat offset, by stride, of a window of dims win in x: each start is
 * clamped to [0, dims(x) - dims(win)] so that the window stays inside x,
 * as XLA clamps out-of-range starts rather than failing. */
static int64_t window_offset(const Shape *x, const Shape *win,
			     const int64_t *start, const int64_t *stride)
{
	int64_t off = 0;
	for (int i = 0; i < x->rank; i++)
		off += clamp64(start[i], 0, x->dims[i] - win->dims[i]) *
		       stride[i];
	return off;
}

static Literal *ev_dynamic_slice(Interp *it, const HloInstr *ins,
				 Literal *const *ops, Literal *out)
{
	const Literal *x = ops[0];
	int r = x->shape->rank;
	int64_t start[XR_MAX_RANK];
	if (out->shape->rank != r)
		return it_fail(it, ins, "result rank differs from the operand");
	if (!read_starts(it, ins, ops, 1, r, start))
		return NULL;
	Walk w;
	walk_dst(&w, out->shape);
	it_strides(x->shape, w.sc);
	w.s0 += window_offset(x->shape, out->shape, start, w.sc);
	Poll p = {it, ins, 0};
	return walk_copy(&p, out, x, &w) ? out : NULL;
}

static Literal *ev_dynamic_update_slice(Interp *it, const HloInstr *ins,
					Literal *const *ops, Literal *out)
{
	const Literal *x = ops[0], *u = ops[1];
	int r = x->shape->rank;
	int64_t start[XR_MAX_RANK];
	if (u->shape->rank != r || !same_elements(out, x))
		return it_fail(it, ins,
			       "update or result does not match the "
			       "operand");
	if (!read_starts(it, ins, ops, 2, r, start))
		return NULL;
	copy_all(out, x);
	Walk w;
	walk_dst(&w, u->shape); /* over the update: its steps are dc */
	memcpy(w.sc, w.dc, sizeof(int64_t) * (size_t)r);
	it_strides(out->shape, w.dc);
	w.d0 += window_offset(x->shape, u->shape, start, w.dc);
	Poll p = {it, ins, 0};
	return walk_copy(&p, out, u, &w) ? out : NULL;
}

/* ---- concatenate, pad ------------------------------------------------- */

static Literal *ev_concatenate(Interp *it, const HloInstr *ins,
			       Literal *const *ops, Literal *out)
{
	int n;
	const int64_t *dv = hlo_attr_ints(ins, A_DIMENSIONS, &n);
	int r = out->shape->rank;
	if (n != 1 || !in_range(dv, 1, r))
		return it_fail(it, ins, "needs one dimension in range");
	int d = (int)dv[0];
	int64_t ost[XR_MAX_RANK], off = 0;
	it_strides(out->shape, ost);
	Poll p = {it, ins, 0};
	for (int k = 0; k < ins->nops; k++) {
		const Literal *x = ops[k];
		if (x->shape->rank != r)
			return it_fail(it, ins, "operand %d has another rank",
				       k);
		Walk w;
		walk_dst(&w, x->shape);
		memcpy(w.sc, w.dc, sizeof(int64_t) * (size_t)r);
		memcpy(w.dc, ost, sizeof(int64_t) * (size_t)r);
		w.d0 = off * ost[d];
		if (!walk_copy(&p, out, x, &w))
			return NULL;
		off += x->shape->dims[d];
	}
	return out;
}

/* pad: the result is the padding value, then operand element o of each
 * dimension lands at lo + o * (interior + 1) when that is in range
 * (negative lo/hi crop). */
static Literal *ev_pad(Interp *it, const HloInstr *ins, Literal *const *ops,
		       Literal *out)
{
	const HloAttr *a = hlo_attr_find(ins, A_PADDING);
	const Literal *x = ops[0], *v = ops[1];
	int r = x->shape->rank;
	if (!a || a->u.pad.n != r || out->shape->rank != r || v->n != 1 ||
	    v->shape->type != out->shape->type)
		return it_fail(it, ins, "padding does not match the operand");
	fill(out, v);
	Walk w;
	int64_t ost[XR_MAX_RANK];
	walk_dst(&w, x->shape);
	memcpy(w.sc, w.dc, sizeof(int64_t) * (size_t)r);
	it_strides(out->shape, ost);
	for (int i = 0; i < r; i++) {
		const PadDim *pd = &a->u.pad.v[i];
		int64_t step = pd->interior + 1, od = out->shape->dims[i];
		if (step < 1)
			return it_fail(it, ins, "negative interior padding");
		int64_t first = pd->lo >= 0 ? 0 : (-pd->lo + step - 1) / step;
		int64_t last =
			od - 1 - pd->lo < 0 ? -1 : (od - 1 - pd->lo) / step;
		if (last > x->shape->dims[i] - 1)
			last = x->shape->dims[i] - 1;
		w.dims[i] = last >= first ? last - first + 1 : 0;
		w.s0 += first * w.sc[i];
		w.dc[i] = ost[i] * step;
		w.d0 += (pd->lo + first * step) * ost[i];
	}
	Poll p = {it, ins, 0};
	return walk_copy(&p, out, x, &w) ? out : NULL;
}

/* ---- gather ----------------------------------------------------------- */

/* What gather and scatter share: the index array, and the batch
 * dimensions (the index array's dimensions other than index_vector_dim),
 * matched in order with dimensions of the result (gather) or the updates
 * (scatter). */
typedef struct Batch {
	int n;                      /* batch dimensions */
	int64_t dims[XR_MAX_RANK];  /* their sizes */
	int64_t istep[XR_MAX_RANK]; /* step in the index array */
	int64_t vstep;              /* step along index_vector_dim */
	int64_t nvec;               /* index vector length */
	int idim[XR_MAX_RANK];      /* index array dimension of each */
} Batch;

static bool batch_init(Batch *b, const Literal *ix, int64_t ivd)
{
	const Shape *s = ix->shape;
	if (ivd < 0 || ivd > s->rank)
		return false;
	int64_t st[XR_MAX_RANK];
	it_strides(s, st);
	b->n = 0;
	b->nvec = ivd < s->rank ? s->dims[ivd] : 1;
	b->vstep = ivd < s->rank ? st[ivd] : 0;
	for (int i = 0; i < s->rank; i++) {
		if (i == ivd)
			continue;
		b->idim[b->n] = i;
		b->dims[b->n] = s->dims[i];
		b->istep[b->n++] = st[i];
	}
	return true;
}

static bool batch_next(const Batch *b, int64_t *g)
{
	for (int i = b->n - 1; i >= 0; i--) {
		if (++g[i] < b->dims[i])
			return true;
		g[i] = 0;
	}
	return false;
}

static bool batch_empty(const Batch *b)
{
	for (int i = 0; i < b->n; i++)
		if (b->dims[i] == 0)
			return true;
	return false;
}

/* For each of n operand batching dims (ob), the batch position k whose
 * index array dimension is ib[i]; false if there is none. */
static bool batch_map(const Batch *b, const int64_t *ib, int n, int *k)
{
	for (int i = 0; i < n; i++) {
		k[i] = -1;
		for (int j = 0; j < b->n; j++)
			if (b->idim[j] == ib[i])
				k[i] = j;
		if (k[i] < 0)
			return false;
	}
	return true;
}

/* The start of the window for batch position g: index vector entries
 * through the map, batching dims from g, others 0. */
static void window_start(const Batch *b, const Literal *ix, const int64_t *g,
			 const int64_t *map, int nmap, const int64_t *ob,
			 const int *bk, int nob, int rank, int64_t *start)
{
	int64_t base = 0;
	for (int k = 0; k < b->n; k++)
		base += g[k] * b->istep[k];
	memset(start, 0, sizeof(int64_t) * (size_t)rank);
	for (int j = 0; j < nmap; j++)
		start[map[j]] = index_at(ix, base + j * b->vstep);
	for (int i = 0; i < nob; i++)
		start[ob[i]] = g[bk[i]];
}

typedef struct GatherDims {
	const int64_t *off, *col, *sim, *ob, *sb, *ss;
	int noff, ncol, nsim, nob, nsb, nss;
	int64_t ivd;
} GatherDims;

static bool gather_dims(const HloInstr *ins, GatherDims *g)
{
	g->off = hlo_attr_ints(ins, A_OFFSET_DIMS, &g->noff);
	g->col = hlo_attr_ints(ins, A_COLLAPSED_SLICE_DIMS, &g->ncol);
	g->sim = hlo_attr_ints(ins, A_START_INDEX_MAP, &g->nsim);
	g->ob = hlo_attr_ints(ins, A_OPERAND_BATCHING_DIMS, &g->nob);
	g->sb = hlo_attr_ints(ins, A_START_INDICES_BATCHING_DIMS, &g->nsb);
	g->ss = hlo_attr_ints(ins, A_SLICE_SIZES, &g->nss);
	return hlo_attr_int(ins, A_INDEX_VECTOR_DIM, &g->ivd);
}

/* Output dims = batch dims (not in offset_dims, in order) + offset dims
 * (offset_dims[j] is the j-th operand dim neither collapsed nor a batching
 * dim). Each window is one walk from its clamped start. */
static Literal *ev_gather(Interp *it, const HloInstr *ins, Literal *const *ops,
			  Literal *out)
{
	const Literal *x = ops[0], *ix = ops[1];
	const Shape *xs = x->shape, *os = out->shape;
	GatherDims g;
	Batch b;
	int bk[XR_MAX_RANK];
	if (!gather_dims(ins, &g) || !batch_init(&b, ix, g.ivd) ||
	    g.nss != xs->rank || g.nsim != b.nvec || g.nob != g.nsb ||
	    g.noff + b.n != os->rank || !in_range(g.off, g.noff, os->rank) ||
	    !in_range(g.sim, g.nsim, xs->rank) ||
	    !in_range(g.ob, g.nob, xs->rank) || !batch_map(&b, g.sb, g.nsb, bk))
		return it_fail(it, ins,
			       "inconsistent gather dimension numbers");
	int64_t xst[XR_MAX_RANK], ost[XR_MAX_RANK], obst[XR_MAX_RANK];
	it_strides(xs, xst);
	it_strides(os, ost);
	Walk w = {.rank = g.noff};
	for (int d = 0, k = 0; d < os->rank; d++)
		if (!contains(g.off, g.noff, d))
			obst[k++] = ost[d];
	for (int d = 0, j = 0; d < xs->rank; d++) {
		if (contains(g.col, g.ncol, d) || contains(g.ob, g.nob, d))
			continue;
		if (j == g.noff)
			return it_fail(it, ins, "offset_dims is too short");
		w.dims[j] = g.ss[d];
		w.sc[j] = xst[d];
		w.dc[j] = ost[g.off[j]];
		j++;
	}
	if (batch_empty(&b))
		return out;
	int64_t gi[XR_MAX_RANK] = {0}, start[XR_MAX_RANK];
	Poll p = {it, ins, 0};
	do {
		window_start(&b, ix, gi, g.sim, g.nsim, g.ob, bk, g.nob,
			     xs->rank, start);
		w.s0 = w.d0 = 0;
		for (int d = 0; d < xs->rank; d++)
			w.s0 += clamp64(start[d], 0, xs->dims[d] - g.ss[d]) *
				xst[d];
		for (int k = 0; k < b.n; k++)
			w.d0 += gi[k] * obst[k];
		if (!walk_copy(&p, out, x, &w))
			return NULL;
	} while (batch_next(&b, gi));
	return out;
}

/* ---- scatter ---------------------------------------------------------- */

typedef struct ScatterDims {
	const int64_t *uwd, *iwd, *sdod, *ib, *sib;
	int nuwd, niwd, nsdod, nib, nsib;
	int64_t ivd;
} ScatterDims;

static bool scatter_dims(const HloInstr *ins, ScatterDims *s)
{
	s->uwd = hlo_attr_ints(ins, A_UPDATE_WINDOW_DIMS, &s->nuwd);
	s->iwd = hlo_attr_ints(ins, A_INSERTED_WINDOW_DIMS, &s->niwd);
	s->sdod = hlo_attr_ints(ins, A_SCATTER_DIMS_TO_OPERAND_DIMS, &s->nsdod);
	s->ib = hlo_attr_ints(ins, A_INPUT_BATCHING_DIMS, &s->nib);
	s->sib = hlo_attr_ints(ins, A_SCATTER_INDICES_BATCHING_DIMS, &s->nsib);
	return hlo_attr_int(ins, A_INDEX_VECTOR_DIM, &s->ivd);
}

/* The combiner's arguments: 2N scalars made once per instruction, so the
 * per-element loop allocates nothing. */
typedef struct Combine {
	Interp *it;
	const HloInstr *ins;
	const HloComp *comp;
	int n;
	Literal **res;       /* N results, updated in place */
	Literal *const *upd; /* N updates */
	Literal **args;      /* 2N scalars */
} Combine;

typedef struct ScalarArg {
	Literal lit;
	Shape shape;
	uint64_t data[2]; /* the widest element: c128 */
} ScalarArg;

static bool combine_one(Combine *c, int64_t oi, int64_t ui)
{
	int n = c->n;
	for (int i = 0; i < n; i++) {
		it_copy_elem(c->args[i], 0, c->res[i], oi);
		it_copy_elem(c->args[n + i], 0, c->upd[i], ui);
	}
	Literal *r = it_call(c->it, c->comp, c->args, 2 * n);
	if (!r)
		return false;
	for (int i = 0; i < n; i++) {
		const Literal *v = n == 1          ? r
				   : i < r->ntuple ? r->tuple[i]
						   : NULL;
		if (!v || v->n != 1 ||
		    v->shape->type != c->res[i]->shape->type) {
			it_fail(c->it, c->ins,
				"the combiner '%s' does not "
				"return %d scalar(s) of the operand types",
				c->comp->name, n);
			return false;
		}
		it_copy_elem(c->res[i], oi, v, 0);
	}
	return true;
}

static bool combine_row(void *ctx, int64_t s, int64_t d, int64_t n, int64_t ss,
			int64_t ds)
{
	for (int64_t j = 0; j < n; j++)
		if (!combine_one(ctx, d + j * ds, s + j * ss))
			return false;
	return true;
}

static bool combine_init(Combine *c, ScalarArg *sa)
{
	for (int i = 0; i < 2 * c->n; i++) {
		const Literal *like = i < c->n ? c->res[i] : c->upd[i - c->n];
		sa[i].shape.type = like->shape->type;
		sa[i].lit.shape = &sa[i].shape;
		sa[i].lit.n = 1;
		sa[i].lit.data = sa[i].data;
		c->args[i] = &sa[i].lit;
		if (dtype_bytes(like->shape->type) > (int)sizeof sa[i].data) {
			it_fail(c->it, c->ins, "element type too wide");
			return false;
		}
	}
	return true;
}

/* Fills res[0..n) with the operands and returns the result value (out,
 * or a tuple for n > 1), or NULL. */
static Literal *scatter_results(Interp *it, const HloInstr *ins,
				Literal *const *ops, int n, Literal *out,
				Literal **res)
{
	Literal *v = out;
	if (n > 1 && !(out && out->shape->type == DT_TUPLE && out->ntuple == n))
		v = it_new(it, ins, ins->shape);
	if (!v)
		return n > 1 ? NULL : it_fail(it, ins, "no result buffer");
	for (int i = 0; i < n; i++) {
		res[i] = n == 1 ? v : v->tuple[i];
		if (!same_elements(res[i], ops[i]))
			return it_fail(it, ins,
				       "operand %d does not match the "
				       "result",
				       i);
		copy_all(res[i], ops[i]);
	}
	return v;
}

typedef struct ScatterPlan {
	Batch b;
	int bk[XR_MAX_RANK];
	int64_t wsize[XR_MAX_RANK]; /* window extent per operand dim */
	int64_t xst[XR_MAX_RANK], ubst[XR_MAX_RANK];
	Walk w; /* window: update -> operand */
} ScatterPlan;

/* Update dims = scatter dims (not in update_window_dims, in order, one
 * per batch dim of the indices) + window dims (update_window_dims[j] is
 * the j-th operand dim neither inserted nor a batching dim). */
static bool scatter_plan(const ScatterDims *s, const Literal *x,
			 const Literal *ix, const Literal *u, ScatterPlan *p)
{
	const Shape *xs = x->shape, *us = u->shape;
	if (!batch_init(&p->b, ix, s->ivd) || s->nsdod != p->b.nvec ||
	    s->nib != s->nsib || s->nuwd + p->b.n != us->rank ||
	    !in_range(s->uwd, s->nuwd, us->rank) ||
	    !in_range(s->sdod, s->nsdod, xs->rank) ||
	    !in_range(s->ib, s->nib, xs->rank) ||
	    !batch_map(&p->b, s->sib, s->nsib, p->bk))
		return false;
	int64_t ust[XR_MAX_RANK];
	it_strides(xs, p->xst);
	it_strides(us, ust);
	for (int d = 0, k = 0; d < us->rank; d++)
		if (!contains(s->uwd, s->nuwd, d)) {
			if (us->dims[d] != p->b.dims[k])
				return false;
			p->ubst[k++] = ust[d];
		}
	memset(&p->w, 0, sizeof p->w);
	p->w.rank = s->nuwd;
	for (int d = 0, j = 0; d < xs->rank; d++) {
		p->wsize[d] = 1;
		if (contains(s->iwd, s->niwd, d) || contains(s->ib, s->nib, d))
			continue;
		if (j == s->nuwd)
			return false;
		p->wsize[d] = p->w.dims[j] = us->dims[s->uwd[j]];
		p->w.sc[j] = ust[s->uwd[j]];
		p->w.dc[j++] = p->xst[d];
	}
	return true;
}

/* Applies the updates of batch position g; a window that does not fit
 * the operand entirely is skipped (as HloEvaluator does). */
static bool scatter_window(Poll *pl, ScatterPlan *p, const ScatterDims *s,
			   const Literal *ix, const int64_t *g, Combine *c)
{
	const Shape *xs = c->res[0]->shape;
	int64_t start[XR_MAX_RANK];
	window_start(&p->b, ix, g, s->sdod, s->nsdod, s->ib, p->bk, s->nib,
		     xs->rank, start);
	p->w.s0 = p->w.d0 = 0;
	for (int d = 0; d < xs->rank; d++) {
		if (start[d] < 0 || start[d] > xs->dims[d] - p->wsize[d])
			return true;
		p->w.d0 += start[d] * p->xst[d];
	}
	for (int k = 0; k < p->b.n; k++)
		p->w.s0 += g[k] * p->ubst[k];
	return walk(pl, &p->w, c->upd[0]->n, c->res[0]->n, combine_row, c);
}

static Literal *ev_scatter(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out)
{
	int n = (ins->nops - 1) / 2;
	ScatterDims s;
	ScatterPlan *p = NULL;
	const HloComp *comp = hlo_attr_comp(ins, A_TO_APPLY);
	if (ins->nops < 3 || ins->nops % 2 == 0 || !comp)
		return it_fail(it, ins,
			       "needs operands, indices, updates and "
			       "to_apply");
	for (int i = 1; i < n; i++)
		if (!shape_same_dims(ops[i]->shape, ops[0]->shape) ||
		    !shape_same_dims(ops[n + 1 + i]->shape, ops[n + 1]->shape))
			return it_fail(it, ins,
				       "operands or updates differ in "
				       "dimensions");
	size_t bytes =
		sizeof(ScatterPlan) +
		(size_t)(2 * n) * (sizeof(ScalarArg) + sizeof(Literal *)) +
		(size_t)n * sizeof(Literal *);
	char *mem = calloc(1, bytes);
	if (!mem)
		return it_fail(it, ins, "out of memory");
	p = (ScatterPlan *)mem;
	ScalarArg *sa = (ScalarArg *)(p + 1);
	Literal **args = (Literal **)(sa + 2 * n), **res = args + 2 * n;
	Literal *v = NULL;
	bool ok = false;
	if (!scatter_dims(ins, &s) ||
	    !scatter_plan(&s, ops[0], ops[n], ops[n + 1], p)) {
		it_fail(it, ins, "inconsistent scatter dimension numbers");
		goto done;
	}
	Combine c = {it, ins, comp, n, res, ops + n + 1, args};
	if (!(v = scatter_results(it, ins, ops, n, out, res)) ||
	    !combine_init(&c, sa))
		goto done;
	ok = true;
	int64_t g[XR_MAX_RANK] = {0};
	Poll pl = {it, ins, 0};
	if (!batch_empty(&p->b))
		do
			ok = scatter_window(&pl, p, &s, ops[n], g, &c);
		while (ok && batch_next(&p->b, g));
done:
	free(mem);
	if (!ok && v && v != out)
		it_free(it, v); /* a fresh tuple (n > 1) made for this call */
	return ok ? v : NULL;
}

static Literal *ev_get_dimension_size(Interp *it, const HloInstr *ins,
				      Literal *const *ops, Literal *out)
{
	int n;
	const int64_t *d = hlo_attr_ints(ins, A_DIMENSIONS, &n);
	if (n != 1 || !in_range(d, 1, ops[0]->shape->rank) || out->n != 1)
		return it_fail(it, ins, "needs one dimension of the operand");
	it_seti(out, 0, ops[0]->shape->dims[d[0]]);
	return out;
}

/* set-dimension-size: sizes are at their bounds here; the data is kept. */
static Literal *ev_set_dimension_size(Interp *it, const HloInstr *ins,
				      Literal *const *ops, Literal *out)
{
	if (!same_elements(out, ops[0]))
		return it_fail(it, ins, "result does not match the operand");
	copy_all(out, ops[0]);
	return out;
}

void interp_register_data(EvalFn *t)
{
	t[HLO_BROADCAST] = ev_broadcast;
	t[HLO_RESHAPE] = ev_reshape;
	t[HLO_BITCAST] = ev_bitcast;
	t[HLO_DYNAMIC_RESHAPE] = ev_dynamic_reshape;
	t[HLO_TRANSPOSE] = ev_transpose;
	t[HLO_SLICE] = ev_slice;
	t[HLO_DYNAMIC_SLICE] = ev_dynamic_slice;
	t[HLO_DYNAMIC_UPDATE_SLICE] = ev_dynamic_update_slice;
	t[HLO_CONCATENATE] = ev_concatenate;
	t[HLO_PAD] = ev_pad;
	t[HLO_REVERSE] = ev_reverse;
	t[HLO_GATHER] = ev_gather;
	t[HLO_SCATTER] = ev_scatter;
	t[HLO_GET_DIMENSION_SIZE] = ev_get_dimension_size;
	t[HLO_SET_DIMENSION_SIZE] = ev_set_dimension_size;
}
