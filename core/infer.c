/* infer.c - shape inference: one small rule per opcode or family.
 *
 * The rules follow XLA's ShapeInference (xla/service/shape_inference.cc),
 * made as strict as XLA's HLO verifier where HLO is stricter than the
 * builder: no implicit broadcasting, and a broadcast maps operand dims to
 * equal result dims. A rule returns the inferred shape (default layout),
 * or NULL after reporting one located error. Opcodes without a rule, and
 * the opaque ones (custom-call, bitcast, collectives), set no_rule: the
 * caller then trusts the declared shape.
 *
 * Rules that cannot know everything from the operands (convert, reshape,
 * broadcast, iota, ...) read the declared shape (ins->shape); when there
 * is none they have no rule. Dynamic dimensions: a '?' dimension matches
 * any size, a bounded one compares by its bound, and results keep the
 * dynamic marks of the operand dimensions they come from. */
#include "infer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Cx {
	Arena *a;
	const HloInstr *ins;
	Diag *d;
	const SrcFile *f;
	bool no_rule;
} Cx;

/* The dimensions of a result being built. */
typedef struct Dims {
	int rank;
	bool over; /* more than XR_MAX_RANK dims were pushed */
	int64_t v[XR_MAX_RANK];
	uint8_t k[XR_MAX_RANK]; /* DimKind */
} Dims;

typedef Shape *(*Rule)(Cx *cx);

/* --- errors and small helpers ------------------------------------------ */

static void report(Cx *cx, const char *fmt, va_list ap)
{
	char msg[768];
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (cx->d)
		diag_error(cx->d, cx->f, cx->ins->loc, "%s '%s': %s",
			   hlo_opcode_name(cx->ins->op), cx->ins->name, msg);
}

/* Reports an error; fail() for rules, no() for checks. */
static Shape *fail(Cx *cx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static Shape *fail(Cx *cx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(cx, fmt, ap);
	va_end(ap);
	return NULL;
}

static bool no(Cx *cx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static bool no(Cx *cx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(cx, fmt, ap);
	va_end(ap);
	return false;
}

static Shape *none(Cx *cx)
{
	cx->no_rule = true;
	return NULL;
}

/* Shape text without layout, for messages. */
static const char *str(Cx *cx, const Shape *s)
{
	StrBuf b;
	sb_init(&b);
	shape_print(&b, s, false);
	const char *r = arena_strdup(cx->a, sb_str(&b));
	sb_free(&b);
	return r ? r : "?";
}

static const Shape *opnd(const Cx *cx, int i) { return cx->ins->ops[i]->shape; }
static const char *oname(const Cx *cx, int i) { return cx->ins->ops[i]->name; }

static bool unbounded(const Shape *s, int i)
{
	return s->dims[i] < 0 || (s->dyn && s->dyn[i] == DIM_UNBOUNDED);
}

static uint8_t dkind(const Shape *s, int i)
{
	return s->dyn ? s->dyn[i] : (uint8_t)DIM_STATIC;
}

static bool dim_eq(const Shape *a, int i, const Shape *b, int j)
{
	return unbounded(a, i) || unbounded(b, j) || a->dims[i] == b->dims[j];
}

static bool same_dims(const Shape *a, const Shape *b)
{
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (!dim_eq(a, i, b, i))
			return false;
	return true;
}

/* Same element types and dims, tuples elementwise, layouts ignored. */
static bool compat(const Shape *a, const Shape *b)
{
	return shape_matches(a, b);
}

static Dtype component(Dtype t)
{
	return t == DT_C64 ? DT_F32 : t == DT_C128 ? DT_F64 : t;
}

static int64_t sat_add(int64_t x, int64_t y)
{
	int64_t r;
	if (__builtin_add_overflow(x, y, &r))
		return y > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t sat_mul(int64_t x, int64_t y)
{
	int64_t r;
	if (__builtin_mul_overflow(x, y, &r))
		return (x < 0) != (y < 0) ? INT64_MIN : INT64_MAX;
	return r;
}

/* --- building results ---------------------------------------------------- */

static void push(Dims *r, int64_t v, uint8_t k)
{
	if (r->rank >= XR_MAX_RANK) {
		r->over = true;
		return;
	}
	r->v[r->rank] = v;
	r->k[r->rank++] = k;
}

static void push_dim(Dims *r, const Shape *s, int i)
{
	push(r, s->dims[i], dkind(s, i));
}

static void dims_of(Dims *r, const Shape *s)
{
	r->rank = 0;
	r->over = false;
	for (int i = 0; i < s->rank; i++)
		push_dim(r, s, i);
}

/* An array shape from r, refusing negative or absurd sizes. */
static Shape *mk(Cx *cx, Dtype t, const Dims *r)
{
	if (r->over)
		return fail(cx, "shape too large (rank over %d)", XR_MAX_RANK);
	int64_t n = 1;
	bool dyn = false;
	for (int i = 0; i < r->rank; i++) {
		if (r->k[i] != DIM_STATIC)
			dyn = true;
		if (r->k[i] == DIM_UNBOUNDED)
			continue;
		if (r->v[i] < 0)
			return fail(cx,
				    "shape too large (dimension %d is %lld)", i,
				    (long long)r->v[i]);
		n = sat_mul(n, r->v[i]);
	}
	if (n > XR_MAX_ELEMENTS)
		return fail(cx, "shape too large (over 2^48 elements)");
	Shape *s = shape_array(cx->a, t, r->rank, r->v);
	if (s && dyn) {
		s->dyn = arena_dup(cx->a, r->k, (size_t)r->rank);
		for (int i = 0; s->dyn && i < r->rank; i++)
			if (r->k[i] == DIM_UNBOUNDED)
				s->dims[i] = -1;
	}
	return s;
}

/* An array of element type t with the dims (and dynamic marks) of s. */
static Shape *like(Cx *cx, Dtype t, const Shape *s)
{
	Dims r;
	dims_of(&r, s);
	return mk(cx, t, &r);
}

/* A copy of s with default layouts. */
static Shape *plain(Arena *a, const Shape *s)
{
	if (s->type == DT_TUPLE) {
		int n = s->ntuple;
		Shape **e = arena_alloc(a, sizeof *e * (size_t)(n ? n : 1));
		if (!e)
			return NULL;
		for (int i = 0; i < n; i++)
			if (!(e[i] = plain(a, s->tuple[i])))
				return NULL;
		return shape_tuple(a, n, e);
	}
	Shape *r = shape_array(a, s->type, s->rank, s->dims);
	if (r && s->dyn)
		r->dyn = arena_dup(a, s->dyn, (size_t)s->rank);
	return r;
}

static Shape *tuple_of(Cx *cx, int n, Shape **e)
{
	for (int i = 0; i < n; i++)
		if (!e[i])
			return NULL;
	return shape_tuple(cx->a, n, e);
}

/* --- operand and attribute access ------------------------------------- */

static bool nops(Cx *cx, int n)
{
	if (cx->ins->nops == n)
		return true;
	return no(cx, "expects %d operand%s, got %d", n, n == 1 ? "" : "s",
		  cx->ins->nops);
}

/* Operand i as an array (not a tuple, token or opaque). */
static const Shape *arr(Cx *cx, int i)
{
	const Shape *s = opnd(cx, i);
	if (shape_is_array(s))
		return s;
	fail(cx, "operand %d '%s' must be an array, got %s", i, oname(cx, i),
	     str(cx, s));
	return NULL;
}

static const Shape *scalar(Cx *cx, int i, const char *what)
{
	const Shape *s = arr(cx, i);
	if (s && s->rank != 0) {
		fail(cx, "%s '%s' must be a scalar, got %s", what, oname(cx, i),
		     str(cx, s));
		return NULL;
	}
	return s;
}

static bool ints(Cx *cx, AttrKey k, const int64_t **v, int *n)
{
	const HloAttr *at = hlo_attr_find(cx->ins, k);
	*v = NULL;
	*n = 0;
	if (!at)
		return no(cx, "missing %s attribute", hlo_attr_name(k));
	*v = at->u.ints.v;
	*n = at->u.ints.n;
	return true;
}

static bool int1(Cx *cx, AttrKey k, int64_t *v)
{
	if (hlo_attr_int(cx->ins, k, v))
		return true;
	return no(cx, "missing %s attribute", hlo_attr_name(k));
}

static const HloComp *comp(Cx *cx, AttrKey k)
{
	const HloComp *c = hlo_attr_comp(cx->ins, k);
	if (!c)
		fail(cx, "missing %s attribute", hlo_attr_name(k));
	return c;
}

/* Root shape of a called computation; NULL (no rule) if it has none. */
static const Shape *root_of(const HloComp *c)
{
	return c && c->root ? c->root->shape : NULL;
}

static bool contains(const int64_t *v, int n, int64_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Checks a list of dimension numbers: each in [0, rank), no repeats, and
 * ascending when sorted is set. */
/* What dim_list checks, without a message. */
static bool dim_list_ok(const int64_t *v, int n, int rank, bool sorted)
{
	for (int i = 0; i < n; i++)
		if (v[i] < 0 || v[i] >= rank || contains(v, i, v[i]) ||
		    (sorted && i > 0 && v[i] < v[i - 1]))
			return false;
	return true;
}

static bool dim_list(Cx *cx, const char *what, const int64_t *v, int n,
		     int rank, bool sorted)
{
	for (int i = 0; i < n; i++) {
		if (v[i] < 0 || v[i] >= rank)
			return no(cx,
				  "%s: dimension %lld out of range for rank %d",
				  what, (long long)v[i], rank);
		if (contains(v, i, v[i]))
			return no(cx, "%s: dimension %lld repeated", what,
				  (long long)v[i]);
		if (sorted && i > 0 && v[i] < v[i - 1])
			return no(cx, "%s must be sorted", what);
	}
	return true;
}

/* Operands [first, last) are arrays with the dims of x. */
static bool dims_like(Cx *cx, const Shape *x, int first, int last)
{
	for (int i = first; i < last; i++) {
		const Shape *y = arr(cx, i);
		if (!y)
			return false;
		if (!same_dims(x, y))
			return no(cx, "operand %d %s differs in dims from %s",
				  i, str(cx, y), str(cx, x));
	}
	return true;
}

/* The one dimension of x that the dimensions attribute must name
 * (concatenate, sort); -1 after an error. */
static int one_dim(Cx *cx, const Shape *x)
{
	const int64_t *dv;
	int n;
	if (!ints(cx, A_DIMENSIONS, &dv, &n))
		return -1;
	if (n != 1) {
		no(cx, "dimensions must hold one dimension, has %d", n);
		return -1;
	}
	if (!dim_list(cx, "dimensions", dv, 1, x->rank, false))
		return -1;
	return (int)dv[0];
}

/* The one operand, an array, and its dimensions attribute (transpose,
 * reverse). */
static const Shape *operand_and_dims(Cx *cx, const int64_t **p, int *n)
{
	if (!nops(cx, 1))
		return NULL;
	const Shape *x = arr(cx, 0);
	if (!x || !ints(cx, A_DIMENSIONS, p, n))
		return NULL;
	return x;
}

/* The declared shape, for rules that need it (NULL: no rule). */
static const Shape *declared(Cx *cx) { return cx->ins->shape; }

/* For rules that read the declared array shape: sets *dec and returns
 * operand 0 of n as an array. NULL when there is no declared array (then
 * no rule) or after an error. */
static const Shape *declared_and_operand(Cx *cx, int n, const Shape **dec)
{
	*dec = declared(cx);
	if (!*dec || !shape_is_array(*dec)) {
		none(cx);
		return NULL;
	}
	if (!nops(cx, n))
		return NULL;
	return arr(cx, 0);
}

/* --- elementwise -------------------------------------------------------- */

static Shape *r_unary(Cx *cx)
{
	if (!nops(cx, 1))
		return NULL;
	HloOpcode op = cx->ins->op;
	if (op == HLO_COPY)
		return plain(cx->a, opnd(cx, 0));
	const Shape *x = arr(cx, 0);
	if (!x)
		return NULL;
	Dtype t = x->type;
	if (hlo_opcode_class(op) == OC_UNARY_PRED)
		t = DT_PRED;
	else if (op == HLO_ABS || op == HLO_REAL || op == HLO_IMAG)
		t = component(t);
	return like(cx, t, x);
}

/* Two operands of equal dims and element type. */
static const Shape *pair(Cx *cx)
{
	if (!nops(cx, 2))
		return NULL;
	const Shape *x = arr(cx, 0), *y = x ? arr(cx, 1) : NULL;
	if (!y)
		return NULL;
	if (!same_dims(x, y)) {
		fail(cx, "operand shapes %s and %s differ", str(cx, x),
		     str(cx, y));
		return NULL;
	}
	if (x->type != y->type) {
		fail(cx, "operand element types %s and %s differ",
		     dtype_name(x->type), dtype_name(y->type));
		return NULL;
	}
	return x;
}

static Shape *r_binary(Cx *cx)
{
	const Shape *x = pair(cx);
	if (!x)
		return NULL;
	return like(cx, x->type, x);
}

static Shape *r_complex(Cx *cx)
{
	const Shape *x = pair(cx);
	if (!x)
		return NULL;
	if (x->type != DT_F32 && x->type != DT_F64)
		return fail(cx, "operands must be f32 or f64, got %s",
			    dtype_name(x->type));
	return like(cx, x->type == DT_F32 ? DT_C64 : DT_C128, x);
}

static const char *const directions[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

static Shape *r_compare(Cx *cx)
{
	const Shape *x = pair(cx);
	if (!x)
		return NULL;
	const char *dir = hlo_attr_enum(cx->ins, A_DIRECTION);
	if (!dir)
		return fail(cx, "missing direction attribute");
	bool ok = false;
	for (size_t i = 0; i < sizeof directions / sizeof *directions; i++)
		ok |= strcmp(dir, directions[i]) == 0;
	if (!ok)
		return fail(cx, "unknown comparison direction %s", dir);
	/* type= must suit the element type, as XLA's verifier has it */
	const char *type = hlo_attr_enum(cx->ins, A_TYPE);
	DtypeKind k = dtype_kind(x->type);
	bool fl = k == DK_FLOAT || k == DK_COMPLEX;
	const char *want = fl ? "FLOAT" : k == DK_SINT ? "SIGNED" : "UNSIGNED";
	if (type && strcmp(type, want) && !(fl && !strcmp(type, "TOTALORDER")))
		return fail(cx, "comparison type %s does not suit %s operands "
			    "(expected %s%s)", type, dtype_name(x->type), want,
			    fl ? " or TOTALORDER" : "");
	return like(cx, DT_PRED, x);
}

static Shape *r_select(Cx *cx)
{
	if (!nops(cx, 3))
		return NULL;
	const Shape *p = arr(cx, 0), *t = opnd(cx, 1), *f = opnd(cx, 2);
	if (!p)
		return NULL;
	if (!compat(t, f))
		return fail(cx, "on_true %s and on_false %s differ", str(cx, t),
			    str(cx, f));
	if (!shape_is_array(t)) { /* the old tuple-select */
		if (p->rank != 0)
			return fail(cx,
				    "predicate of a tuple select must be a "
				    "scalar, got %s",
				    str(cx, p));
		return plain(cx->a, t);
	}
	if (p->rank != 0 && !same_dims(p, t))
		return fail(cx,
			    "predicate %s must be a scalar or have the "
			    "dims of %s",
			    str(cx, p), str(cx, t));
	return plain(cx->a, t);
}

static Shape *r_clamp(Cx *cx)
{
	if (!nops(cx, 3))
		return NULL;
	const Shape *lo = arr(cx, 0), *x = lo ? arr(cx, 1) : NULL;
	const Shape *hi = x ? arr(cx, 2) : NULL;
	if (!hi)
		return NULL;
	const Shape *b[2] = {lo, hi};
	for (int i = 0; i < 2; i++) {
		if (b[i]->rank != 0 && !same_dims(b[i], x))
			return fail(cx,
				    "bound %s must be a scalar or match "
				    "operand %s",
				    str(cx, b[i]), str(cx, x));
		if (b[i]->type != x->type)
			return fail(cx,
				    "bound element type %s differs from "
				    "operand %s",
				    dtype_name(b[i]->type),
				    dtype_name(x->type));
	}
	return plain(cx->a, x);
}

/* convert, stochastic-convert: operand dims, declared element type. */
static Shape *r_convert(Cx *cx)
{
	int n = cx->ins->op == HLO_STOCHASTIC_CONVERT ? 2 : 1;
	const Shape *dec, *x = declared_and_operand(cx, n, &dec);
	if (!x)
		return NULL;
	return like(cx, dec->type, x);
}

/* bitcast-convert: equal widths keep dims; a narrower result adds a minor
 * dim of the width ratio; a wider one consumes it. */
static Shape *r_bitcast_convert(Cx *cx)
{
	const Shape *dec, *x = declared_and_operand(cx, 1, &dec);
	if (!x)
		return NULL;
	int from = dtype_bits(x->type), to = dtype_bits(dec->type);
	Dims r;
	dims_of(&r, x);
	if (from <= 0 || to <= 0)
		return none(cx);
	if (from > to) {
		if (from % to)
			return fail(cx, "cannot bitcast %s to %s",
				    dtype_name(x->type), dtype_name(dec->type));
		push(&r, from / to, DIM_STATIC);
	} else if (from < to) {
		if (to % from || x->rank == 0 ||
		    x->dims[x->rank - 1] != to / from)
			return fail(cx,
				    "bitcast from %s to %s needs a minor "
				    "dimension of %d, operand is %s",
				    dtype_name(x->type), dtype_name(dec->type),
				    to / from, str(cx, x));
		r.rank--;
	}
	return mk(cx, dec->type, &r);
}

/* --- shape and data movement ------------------------------------------- */

static Shape *r_broadcast(Cx *cx)
{
	if (!nops(cx, 1))
		return NULL;
	const Shape *x = arr(cx, 0), *dec = declared(cx);
	if (!x)
		return NULL;
	const int64_t *dv = NULL;
	int n = 0;
	if (hlo_attr_find(cx->ins, A_DIMENSIONS) || x->rank != 0)
		if (!ints(cx, A_DIMENSIONS, &dv, &n))
			return NULL;
	if (n != x->rank)
		return fail(cx,
			    "dimensions has %d entries but operand %s has "
			    "rank %d",
			    n, str(cx, x), x->rank);
	if (!dec || !shape_is_array(dec))
		return none(cx);
	if (!dim_list(cx, "dimensions", dv, n, dec->rank, false))
		return NULL;
	for (int i = 0; i < n; i++)
		if (!dim_eq(x, i, dec, (int)dv[i]))
			return fail(cx,
				    "operand dimension %d (size %lld) maps to "
				    "result dimension %lld of size %lld",
				    i, (long long)x->dims[i], (long long)dv[i],
				    (long long)dec->dims[dv[i]]);
	return like(cx, x->type, dec);
}

static Shape *r_reshape(Cx *cx)
{
	const Shape *dec, *x = declared_and_operand(cx, 1, &dec);
	if (!x)
		return NULL;
	Shape *s = like(cx, x->type, dec);
	if (!s || shape_is_dynamic(x) || shape_is_dynamic(dec))
		return s;
	int64_t a = shape_elements(x), b = shape_elements(s);
	if (a != b)
		return fail(cx,
			    "operand %s has %lld elements, result %s has "
			    "%lld",
			    str(cx, x), (long long)a, str(cx, dec),
			    (long long)b);
	return s;
}

static Shape *r_transpose(Cx *cx)
{
	const int64_t *p;
	int n;
	const Shape *x = operand_and_dims(cx, &p, &n);
	if (!x)
		return NULL;
	if (n != x->rank)
		return fail(cx,
			    "dimensions has %d entries, operand %s has rank "
			    "%d",
			    n, str(cx, x), x->rank);
	if (!dim_list(cx, "dimensions (a permutation)", p, n, x->rank, false))
		return NULL;
	Dims r = {0};
	for (int i = 0; i < n; i++)
		push_dim(&r, x, (int)p[i]);
	return mk(cx, x->type, &r);
}

static Shape *r_reverse(Cx *cx)
{
	const int64_t *p;
	int n;
	const Shape *x = operand_and_dims(cx, &p, &n);
	if (!x || !dim_list(cx, "dimensions", p, n, x->rank, false))
		return NULL;
	return plain(cx->a, x);
}

static Shape *r_slice(Cx *cx)
{
	if (!nops(cx, 1))
		return NULL;
	const Shape *x = arr(cx, 0);
	const HloAttr *at = hlo_attr_find(cx->ins, A_SLICE);
	if (!x)
		return NULL;
	if (!at)
		return fail(cx, "missing slice attribute");
	if (at->u.slice.n != x->rank)
		return fail(cx,
			    "slice has %d dimensions, operand %s has rank %d",
			    at->u.slice.n, str(cx, x), x->rank);
	Dims r = {0};
	for (int i = 0; i < x->rank; i++) {
		const SliceDim *s = &at->u.slice.v[i];
		bool inb = unbounded(x, i) || s->limit <= x->dims[i];
		if (s->start < 0 || s->start > s->limit || !inb ||
		    s->stride < 1)
			return fail(cx,
				    "slice [%lld:%lld:%lld] is invalid for "
				    "dimension %d of %s",
				    (long long)s->start, (long long)s->limit,
				    (long long)s->stride, i, str(cx, x));
		int64_t len = s->limit - s->start;
		push(&r, len / s->stride + (len % s->stride != 0), DIM_STATIC);
	}
	return mk(cx, x->type, &r);
}

/* Start indices of dynamic-(update-)slice from operand `first` on: one
 * integer scalar per dim, or (the old form) one vector. */
static bool start_indices(Cx *cx, int first, int rank)
{
	int n = cx->ins->nops - first;
	if (n == 1 && opnd(cx, first)->rank == 1) {
		const Shape *v = arr(cx, first);
		if (!v || v->dims[0] == rank || unbounded(v, 0))
			return v != NULL;
		return no(cx, "start index vector %s needs %d elements",
			  str(cx, v), rank);
	}
	if (n != rank)
		return no(cx, "expects %d start indices for rank %d, got %d",
			  rank, rank, n);
	for (int i = first; i < cx->ins->nops; i++)
		if (!scalar(cx, i, "start index"))
			return false;
	return true;
}

static Shape *r_dynamic_slice(Cx *cx)
{
	if (cx->ins->nops < 1)
		return fail(cx, "expects an operand and start indices");
	const Shape *x = arr(cx, 0);
	const int64_t *sz;
	int n;
	if (!x || !start_indices(cx, 1, x->rank) ||
	    !ints(cx, A_DYNAMIC_SLICE_SIZES, &sz, &n))
		return NULL;
	if (n != x->rank)
		return fail(cx,
			    "dynamic_slice_sizes has %d entries, operand %s "
			    "has rank %d",
			    n, str(cx, x), x->rank);
	Dims r = {0};
	for (int i = 0; i < n; i++) {
		if (sz[i] < 0 || (!unbounded(x, i) && sz[i] > x->dims[i]))
			return fail(cx,
				    "slice size %lld is out of range for "
				    "dimension %d of %s",
				    (long long)sz[i], i, str(cx, x));
		push(&r, sz[i], DIM_STATIC);
	}
	return mk(cx, x->type, &r);
}

static Shape *r_dynamic_update_slice(Cx *cx)
{
	if (cx->ins->nops < 2)
		return fail(cx, "expects an operand, an update and start "
				"indices");
	const Shape *x = arr(cx, 0), *u = x ? arr(cx, 1) : NULL;
	if (!u || !start_indices(cx, 2, x->rank))
		return NULL;
	if (u->rank != x->rank)
		return fail(cx, "update %s and operand %s differ in rank",
			    str(cx, u), str(cx, x));
	if (u->type != x->type)
		return fail(cx,
			    "update element type %s differs from operand "
			    "%s",
			    dtype_name(u->type), dtype_name(x->type));
	for (int i = 0; i < x->rank; i++)
		if (!unbounded(x, i) && !unbounded(u, i) &&
		    u->dims[i] > x->dims[i])
			return fail(cx,
				    "update %s is larger than operand %s in "
				    "dimension %d",
				    str(cx, u), str(cx, x), i);
	return plain(cx->a, x);
}

static Shape *r_concatenate(Cx *cx)
{
	if (cx->ins->nops < 1)
		return fail(cx, "expects at least one operand");
	const Shape *x = arr(cx, 0);
	int d = x ? one_dim(cx, x) : -1;
	if (d < 0)
		return NULL;
	Dims r;
	dims_of(&r, x);
	for (int i = 1; i < cx->ins->nops; i++) {
		const Shape *y = arr(cx, i);
		if (!y)
			return NULL;
		bool ok = y->rank == x->rank && y->type == x->type;
		for (int j = 0; ok && j < x->rank; j++)
			ok = j == d || dim_eq(x, j, y, j);
		if (!ok)
			return fail(cx,
				    "operand %d %s does not match %s outside "
				    "dimension %d",
				    i, str(cx, y), str(cx, x), d);
		if (unbounded(y, d))
			r.k[d] = DIM_UNBOUNDED;
		else
			r.v[d] = sat_add(r.v[d], y->dims[d]);
		if (dkind(y, d) == DIM_BOUNDED && r.k[d] == DIM_STATIC)
			r.k[d] = DIM_BOUNDED;
	}
	return mk(cx, x->type, &r);
}

static Shape *r_pad(Cx *cx)
{
	if (!nops(cx, 2))
		return NULL;
	const Shape *x = arr(cx, 0),
		    *v = x ? scalar(cx, 1, "padding value") : NULL;
	const HloAttr *at = hlo_attr_find(cx->ins, A_PADDING);
	if (!v)
		return NULL;
	if (v->type != x->type)
		return fail(cx, "padding value type %s differs from operand %s",
			    dtype_name(v->type), dtype_name(x->type));
	if (!at)
		return fail(cx, "missing padding attribute");
	if (at->u.pad.n != x->rank)
		return fail(cx,
			    "padding has %d dimensions, operand %s has rank "
			    "%d",
			    at->u.pad.n, str(cx, x), x->rank);
	Dims r;
	dims_of(&r, x);
	for (int i = 0; i < x->rank; i++) {
		const PadDim *p = &at->u.pad.v[i];
		if (p->interior < 0)
			return fail(cx,
				    "negative interior padding %lld in "
				    "dimension %d",
				    (long long)p->interior, i);
		if (r.k[i] == DIM_UNBOUNDED)
			continue;
		int64_t d = x->dims[i];
		int64_t in = sat_mul(d > 0 ? d - 1 : 0, p->interior);
		int64_t s = sat_add(sat_add(d, in), sat_add(p->lo, p->hi));
		if (s < 0)
			return fail(cx,
				    "padding %lld_%lld_%lld makes dimension "
				    "%d of %s negative",
				    (long long)p->lo, (long long)p->hi,
				    (long long)p->interior, i, str(cx, x));
		r.v[i] = s;
	}
	return mk(cx, x->type, &r);
}

static Shape *r_iota(Cx *cx)
{
	const Shape *dec = declared(cx);
	int64_t d;
	if (!dec)
		return none(cx);
	if (!nops(cx, 0) || !int1(cx, A_IOTA_DIMENSION, &d))
		return NULL;
	if (!shape_is_array(dec) || d < 0 || d >= dec->rank)
		return fail(cx, "iota_dimension %lld is out of range for %s",
			    (long long)d, str(cx, dec));
	return plain(cx->a, dec);
}

static Shape *r_declared(Cx *cx)
{
	const Shape *dec = declared(cx);
	return dec ? plain(cx->a, dec) : none(cx);
}

/* --- windows ------------------------------------------------------------ */

static int64_t dilated(int64_t bound, int64_t dilation)
{
	return bound <= 0 ? 0 : sat_add(sat_mul(bound - 1, dilation), 1);
}

/* Output size of one window dimension over a base of size `base`, as in
 * XLA's InferWindowOutputShape; -1 after an error. */
static int64_t window_out(Cx *cx, int i, int64_t base, const WindowDim *w)
{
	if (w->size < 1 || w->stride < 1 || w->lhs_dilate < 1 ||
	    w->rhs_dilate < 1) {
		fail(cx,
		     "window dimension %d needs size, stride and dilations "
		     ">= 1 (size %lld, stride %lld, lhs_dilate %lld, "
		     "rhs_dilate "
		     "%lld)",
		     i, (long long)w->size, (long long)w->stride,
		     (long long)w->lhs_dilate, (long long)w->rhs_dilate);
		return -1;
	}
	int64_t padded = sat_add(dilated(base, w->lhs_dilate),
				 sat_add(w->pad_lo, w->pad_hi));
	int64_t win = dilated(w->size, w->rhs_dilate);
	if (padded < 0) {
		fail(cx, "padding makes window dimension %d negative", i);
		return -1;
	}
	return win > padded ? 0 : (padded - win) / w->stride + 1;
}

static const HloAttr *window(Cx *cx, int rank)
{
	static const HloAttr empty;
	const HloAttr *w = hlo_attr_find(cx->ins, A_WINDOW);
	int n = w ? w->u.window.n : 0;
	if (n != rank) {
		fail(cx, "window has %d dimensions, expected %d", n, rank);
		return NULL;
	}
	return w ? w : &empty;
}

/* --- reductions ---------------------------------------------------------- */

/* Checks N inputs of equal dims followed by N scalar init values. */
static int inputs_inits(Cx *cx)
{
	int n2 = cx->ins->nops;
	if (n2 < 2 || n2 % 2) {
		fail(cx,
		     "expects inputs and as many init values, got %d "
		     "operands",
		     n2);
		return 0;
	}
	int n = n2 / 2;
	const Shape *x = arr(cx, 0);
	for (int i = 0; x && i < n; i++) {
		const Shape *y = arr(cx, i);
		if (!y)
			return 0;
		if (!same_dims(x, y)) {
			fail(cx, "input %d %s differs in dims from input 0 %s",
			     i, str(cx, y), str(cx, x));
			return 0;
		}
	}
	for (int i = n; x && i < n2; i++)
		if (!scalar(cx, i, "init value"))
			return 0;
	return x ? n : 0;
}

/* One result per input: dims r, element type of the init values. */
static Shape *per_input(Cx *cx, int n, const Dims *r)
{
	Shape **v = arena_alloc(cx->a, sizeof *v * (size_t)n);
	if (!v)
		return NULL;
	for (int i = 0; i < n; i++)
		if (!(v[i] = mk(cx, opnd(cx, n + i)->type, r)))
			return NULL;
	return n == 1 ? v[0] : tuple_of(cx, n, v);
}

static Shape *r_reduce(Cx *cx)
{
	int n = inputs_inits(cx);
	const int64_t *dv;
	int nd;
	if (!n || !ints(cx, A_DIMENSIONS, &dv, &nd))
		return NULL;
	const Shape *x = opnd(cx, 0);
	if (!dim_list(cx, "dimensions", dv, nd, x->rank, false))
		return NULL;
	Dims r = {0};
	for (int i = 0; i < x->rank; i++)
		if (!contains(dv, nd, i))
			push_dim(&r, x, i);
	return per_input(cx, n, &r);
}

static Shape *r_reduce_window(Cx *cx)
{
	int n = inputs_inits(cx);
	if (!n)
		return NULL;
	const Shape *x = opnd(cx, 0);
	const HloAttr *w = window(cx, x->rank);
	if (!w)
		return NULL;
	Dims r;
	dims_of(&r, x);
	for (int i = 0; i < x->rank; i++) {
		if (r.k[i] == DIM_UNBOUNDED)
			continue;
		if ((r.v[i] = window_out(cx, i, x->dims[i],
					 &w->u.window.v[i])) < 0)
			return NULL;
	}
	return per_input(cx, n, &r);
}

/* The source holds one value per window position: the window's output
 * dims over the operand, and the operand's element type. */
static Shape *r_select_and_scatter(Cx *cx)
{
	if (!nops(cx, 3))
		return NULL;
	const Shape *x = arr(cx, 0), *src = arr(cx, 1);
	if (!x || !src || !scalar(cx, 2, "init value"))
		return NULL;
	const HloAttr *w = window(cx, x->rank);
	if (!w)
		return NULL;
	if (src->type != x->type || src->rank != x->rank)
		return fail(cx, "source %s must have the operand's element "
			    "type and rank (%s)", str(cx, src), str(cx, x));
	for (int i = 0; i < x->rank; i++) {
		if ((x->dyn && x->dyn[i] != DIM_STATIC) ||
		    (src->dyn && src->dyn[i] != DIM_STATIC))
			continue;
		int64_t o = window_out(cx, i, x->dims[i], &w->u.window.v[i]);
		if (o < 0)
			return NULL;
		if (src->dims[i] != o)
			return fail(cx, "source %s must have the window's "
				    "positions: %lld in dimension %d, not %lld",
				    str(cx, src), (long long)o, i,
				    (long long)src->dims[i]);
	}
	return plain(cx->a, x);
}

static Shape *r_sort(Cx *cx)
{
	int n = cx->ins->nops;
	if (n < 1)
		return fail(cx, "expects at least one operand");
	const Shape *x = arr(cx, 0);
	if (!x || one_dim(cx, x) < 0 || !dims_like(cx, x, 1, n))
		return NULL;
	Shape **e = arena_alloc(cx->a, sizeof *e * (size_t)n);
	for (int i = 0; e && i < n; i++)
		e[i] = plain(cx->a, opnd(cx, i));
	return !e ? NULL : n == 1 ? e[0] : tuple_of(cx, n, e);
}

static Shape *r_map(Cx *cx)
{
	int n = cx->ins->nops;
	if (n < 1)
		return fail(cx, "expects at least one operand");
	const HloComp *c = comp(cx, A_TO_APPLY);
	const Shape *x = arr(cx, 0), *rs = root_of(c);
	if (!x || !c || !dims_like(cx, x, 1, n))
		return NULL;
	if (!rs)
		return none(cx);
	if (!shape_is_array(rs) || rs->rank != 0)
		return fail(cx,
			    "to_apply '%s' must return a scalar, returns %s",
			    c->name, str(cx, rs));
	return like(cx, rs->type, x);
}

/* --- dot and convolution ------------------------------------------------ */

typedef struct DotDims {
	const int64_t *lb, *rb, *lc, *rc;
	int nb, nc;
} DotDims;

static bool dot_side(Cx *cx, const char *side, const Shape *s, const int64_t *b,
		     int nb, const int64_t *c, int nc)
{
	int64_t all[2 * XR_MAX_RANK + 2];
	if (nb + nc > s->rank)
		return no(cx,
			  "%s has rank %d but %d batch and contracting "
			  "dimensions",
			  side, s->rank, nb + nc);
	for (int i = 0; i < nb; i++)
		all[i] = b[i];
	for (int i = 0; i < nc; i++)
		all[nb + i] = c[i];
	if (dim_list_ok(all, nb + nc, s->rank, false))
		return true; /* the label is made only for the message */
	char what[64];
	snprintf(what, sizeof what, "%s batch and contracting dims", side);
	return dim_list(cx, what, all, nb + nc, s->rank, false);
}

static bool dot_dims(Cx *cx, const Shape *l, const Shape *r, DotDims *dd)
{
	int nlb, nrb, nlc, nrc;
	*dd = (DotDims){0};
	dd->lb = hlo_attr_ints(cx->ins, A_LHS_BATCH_DIMS, &nlb);
	dd->rb = hlo_attr_ints(cx->ins, A_RHS_BATCH_DIMS, &nrb);
	dd->lc = hlo_attr_ints(cx->ins, A_LHS_CONTRACTING_DIMS, &nlc);
	dd->rc = hlo_attr_ints(cx->ins, A_RHS_CONTRACTING_DIMS, &nrc);
	if (nlb != nrb || nlc != nrc)
		return no(cx,
			  "lhs and rhs have %d and %d batch, %d and %d "
			  "contracting dimensions",
			  nlb, nrb, nlc, nrc);
	dd->nb = nlb;
	dd->nc = nlc;
	if (!dot_side(cx, "lhs", l, dd->lb, nlb, dd->lc, nlc) ||
	    !dot_side(cx, "rhs", r, dd->rb, nlb, dd->rc, nlc))
		return false;
	for (int i = 0; i < nlb; i++)
		if (!dim_eq(l, (int)dd->lb[i], r, (int)dd->rb[i]))
			return no(cx,
				  "batch dimension sizes %lld and %lld differ",
				  (long long)l->dims[dd->lb[i]],
				  (long long)r->dims[dd->rb[i]]);
	for (int i = 0; i < nlc; i++)
		if (!dim_eq(l, (int)dd->lc[i], r, (int)dd->rc[i]))
			return no(cx,
				  "contracting dimension sizes %lld and %lld "
				  "differ",
				  (long long)l->dims[dd->lc[i]],
				  (long long)r->dims[dd->rc[i]]);
	return true;
}

static Dtype result_type(Cx *cx, Dtype dflt)
{
	const Shape *dec = declared(cx);
	return dec && shape_is_array(dec) ? dec->type : dflt;
}

static Shape *r_dot(Cx *cx)
{
	if (!nops(cx, 2))
		return NULL;
	const Shape *l = arr(cx, 0), *r = l ? arr(cx, 1) : NULL;
	DotDims dd;
	if (!r || !dot_dims(cx, l, r, &dd))
		return NULL;
	Dims o = {0};
	for (int i = 0; i < dd.nb; i++)
		push_dim(&o, l, (int)dd.lb[i]);
	for (int i = 0; i < l->rank; i++)
		if (!contains(dd.lb, dd.nb, i) && !contains(dd.lc, dd.nc, i))
			push_dim(&o, l, i);
	for (int i = 0; i < r->rank; i++)
		if (!contains(dd.rb, dd.nb, i) && !contains(dd.rc, dd.nc, i))
			push_dim(&o, r, i);
	return mk(cx, result_type(cx, l->type), &o);
}

static bool conv_index(Cx *cx, int64_t d, int rank)
{
	if (d >= 0 && d < rank)
		return true;
	return no(cx, "dim_labels dimension %lld out of range for rank %d",
		  (long long)d, rank);
}

/* Feature and batch group checks of XLA's InferConvolveShape. */
static bool conv_groups(Cx *cx, int64_t in_b, int64_t in_f, int64_t k_in,
			int64_t k_out, int64_t fgc, int64_t bgc)
{
	if (fgc < 1 || bgc < 1)
		return fail(cx,
			    "feature_group_count %lld and batch_group_count "
			    "%lld must be >= 1",
			    (long long)fgc, (long long)bgc);
	if (in_f >= 0 && (in_f % fgc || in_f / fgc != k_in))
		return no(cx,
			  "input feature dimension %lld / "
			  "feature_group_count %lld does not match kernel "
			  "input feature dimension %lld",
			  (long long)in_f, (long long)fgc, (long long)k_in);
	if (k_out % fgc || k_out % bgc)
		return no(cx,
			  "kernel output feature dimension %lld is not a "
			  "multiple of the group counts %lld, %lld",
			  (long long)k_out, (long long)fgc, (long long)bgc);
	if (in_b >= 0 && in_b % bgc)
		return no(cx,
			  "input batch dimension %lld is not a multiple "
			  "of batch_group_count %lld",
			  (long long)in_b, (long long)bgc);
	return true;
}

static Shape *r_convolution(Cx *cx)
{
	if (!nops(cx, 2))
		return NULL;
	const Shape *l = arr(cx, 0), *k = l ? arr(cx, 1) : NULL;
	const HloAttr *dl = hlo_attr_find(cx->ins, A_DIM_LABELS);
	if (!k)
		return NULL;
	if (!dl || !dl->u.conv)
		return fail(cx, "missing dim_labels attribute");
	const ConvDims *cd = dl->u.conv;
	int ns = cd->nspatial, rank = ns + 2;
	if (l->rank != rank || k->rank != rank)
		return fail(cx,
			    "dim_labels %s need rank %d operands, got %s and "
			    "%s",
			    cd->text ? cd->text : "", rank, str(cx, l),
			    str(cx, k));
	int64_t idx[] = {cd->in_batch,      cd->in_feature, cd->k_in_feature,
			 cd->k_out_feature, cd->out_batch,  cd->out_feature};
	for (size_t i = 0; i < sizeof idx / sizeof *idx; i++)
		if (!conv_index(cx, idx[i], rank))
			return NULL;
	for (int i = 0; i < ns; i++)
		if (!conv_index(cx, cd->in_spatial[i], rank) ||
		    !conv_index(cx, cd->k_spatial[i], rank) ||
		    !conv_index(cx, cd->out_spatial[i], rank))
			return NULL;
	const HloAttr *w = window(cx, ns);
	int64_t fgc = 1, bgc = 1;
	hlo_attr_int(cx->ins, A_FEATURE_GROUP_COUNT, &fgc);
	hlo_attr_int(cx->ins, A_BATCH_GROUP_COUNT, &bgc);
	int64_t in_b = l->dims[cd->in_batch],
		k_out = k->dims[cd->k_out_feature];
	if (!w || !conv_groups(cx, unbounded(l, (int)cd->in_batch) ? -1 : in_b,
			       unbounded(l, (int)cd->in_feature)
				       ? -1
				       : l->dims[cd->in_feature],
			       k->dims[cd->k_in_feature], k_out, fgc, bgc))
		return NULL;
	Dims r = {.rank = rank};
	r.v[cd->out_batch] = in_b < 0 ? in_b : in_b / bgc;
	r.k[cd->out_batch] = dkind(l, (int)cd->in_batch);
	r.v[cd->out_feature] = k_out;
	for (int i = 0; i < ns; i++) {
		const WindowDim *wd = &w->u.window.v[i];
		int64_t ks = k->dims[cd->k_spatial[i]];
		if (wd->size != ks)
			return fail(cx,
				    "window size %lld of spatial dimension %d "
				    "differs from kernel size %lld",
				    (long long)wd->size, i, (long long)ks);
		int o = (int)cd->out_spatial[i], in = (int)cd->in_spatial[i];
		r.k[o] = dkind(l, in);
		if (unbounded(l, in))
			r.v[o] = -1;
		else if ((r.v[o] = window_out(cx, i, l->dims[in], wd)) < 0)
			return NULL;
	}
	return mk(cx, result_type(cx, l->type), &r);
}

/* --- gather and scatter ------------------------------------------------ */

/* The start indices with index_vector_dim == rank made explicit. */
static bool expanded_indices(Cx *cx, int i, int64_t ivd, Dims *e)
{
	const Shape *s = arr(cx, i);
	if (!s)
		return false;
	if (ivd < 0 || ivd > s->rank)
		return no(
			cx,
			"index_vector_dim %lld is out of range for indices %s",
			(long long)ivd, str(cx, s));
	dims_of(e, s);
	if (ivd == s->rank)
		push(e, 1, DIM_STATIC);
	if (e->over)
		return no(cx, "shape too large (rank over %d)", XR_MAX_RANK);
	return true;
}

static bool disjoint(Cx *cx, const char *a, const int64_t *x, int nx,
		     const char *b, const int64_t *y, int ny)
{
	for (int i = 0; i < nx; i++)
		if (contains(y, ny, x[i]))
			return no(cx, "dimension %lld is in both %s and %s",
				  (long long)x[i], a, b);
	return true;
}

/* Batching dims of the indices: matched with the operand's, in range and
 * not the index vector dim. */
static bool index_batching(Cx *cx, const Shape *x, const int64_t *ob, int nob,
			   const Shape *ix, AttrKey k, int64_t ivd)
{
	const int64_t *sb = NULL;
	int nsb = 0;
	sb = hlo_attr_ints(cx->ins, k, &nsb);
	if (nsb != nob)
		return fail(cx,
			    "%s has %d entries, the operand has %d "
			    "batching dims",
			    hlo_attr_name(k), nsb, nob);
	if (!dim_list(cx, hlo_attr_name(k), sb, nsb, ix->rank, false))
		return false;
	for (int i = 0; i < nsb; i++) {
		if (sb[i] == ivd)
			return no(cx, "%s contains index_vector_dim %lld",
				  hlo_attr_name(k), (long long)ivd);
		if (!dim_eq(x, (int)ob[i], ix, (int)sb[i]))
			return no(cx,
				  "batching dimension sizes %lld and %lld "
				  "differ",
				  (long long)x->dims[ob[i]],
				  (long long)ix->dims[sb[i]]);
	}
	return true;
}

typedef struct GatherDims {
	const int64_t *off, *col, *sim, *ob, *ss;
	int noff, ncol, nsim, nob, nss;
	int64_t ivd;
} GatherDims;

static bool gather_attrs(Cx *cx, GatherDims *g)
{
	g->col = hlo_attr_ints(cx->ins, A_COLLAPSED_SLICE_DIMS, &g->ncol);
	g->ob = hlo_attr_ints(cx->ins, A_OPERAND_BATCHING_DIMS, &g->nob);
	return ints(cx, A_OFFSET_DIMS, &g->off, &g->noff) &&
	       ints(cx, A_START_INDEX_MAP, &g->sim, &g->nsim) &&
	       int1(cx, A_INDEX_VECTOR_DIM, &g->ivd) &&
	       ints(cx, A_SLICE_SIZES, &g->ss, &g->nss);
}

static bool gather_slice_sizes(Cx *cx, const Shape *x, const GatherDims *g)
{
	if (g->nss != x->rank)
		return no(cx,
			  "slice_sizes has %d entries, operand %s has "
			  "rank %d",
			  g->nss, str(cx, x), x->rank);
	for (int i = 0; i < g->nss; i++) {
		if (g->ss[i] < 0 || (!unbounded(x, i) && g->ss[i] > x->dims[i]))
			return no(cx,
				  "slice size %lld is out of range for "
				  "dimension %d of %s",
				  (long long)g->ss[i], i, str(cx, x));
		if (g->ss[i] > 1 && (contains(g->col, g->ncol, i) ||
				     contains(g->ob, g->nob, i)))
			return no(cx,
				  "collapsed or batching dimension %d "
				  "has slice size %lld",
				  i, (long long)g->ss[i]);
	}
	return true;
}

static Shape *r_gather(Cx *cx)
{
	GatherDims g;
	Dims e;
	if (!nops(cx, 2))
		return NULL;
	const Shape *x = arr(cx, 0), *ix = x ? arr(cx, 1) : NULL;
	if (!ix || !gather_attrs(cx, &g) || !expanded_indices(cx, 1, g.ivd, &e))
		return NULL;
	int out_rank = g.noff + e.rank - 1;
	if (g.nsim != e.v[g.ivd])
		return fail(cx,
			    "start_index_map has %d entries, the index "
			    "vector has %lld",
			    g.nsim, (long long)e.v[g.ivd]);
	if (!dim_list(cx, "offset_dims", g.off, g.noff, out_rank, true) ||
	    !dim_list(cx, "collapsed_slice_dims", g.col, g.ncol, x->rank,
		      true) ||
	    !dim_list(cx, "operand_batching_dims", g.ob, g.nob, x->rank,
		      true) ||
	    !dim_list(cx, "start_index_map", g.sim, g.nsim, x->rank, false) ||
	    !disjoint(cx, "collapsed_slice_dims", g.col, g.ncol,
		      "operand_batching_dims", g.ob, g.nob) ||
	    !gather_slice_sizes(cx, x, &g) ||
	    !index_batching(cx, x, g.ob, g.nob, ix,
			    A_START_INDICES_BATCHING_DIMS, g.ivd))
		return NULL;
	if (g.noff + g.ncol + g.nob != x->rank)
		return fail(cx,
			    "offset_dims (%d), collapsed_slice_dims (%d) and "
			    "operand_batching_dims (%d) must add up to the "
			    "operand rank %d",
			    g.noff, g.ncol, g.nob, x->rank);
	Dims r = {0};
	int offs = 0, batch = 0;
	for (int i = 0; i < out_rank; i++) {
		if (contains(g.off, g.noff, i)) {
			while (contains(g.col, g.ncol, offs) ||
			       contains(g.ob, g.nob, offs))
				offs++;
			push(&r, g.ss[offs++], DIM_STATIC);
		} else {
			if (batch == g.ivd)
				batch++;
			push(&r, e.v[batch], e.k[batch]);
			batch++;
		}
	}
	return mk(cx, x->type, &r);
}

typedef struct ScatterDims {
	const int64_t *uwd, *iwd, *sdod, *ibd;
	int nuwd, niwd, nsdod, nibd;
	int64_t ivd;
} ScatterDims;

static bool scatter_attrs(Cx *cx, ScatterDims *s)
{
	s->iwd = hlo_attr_ints(cx->ins, A_INSERTED_WINDOW_DIMS, &s->niwd);
	s->ibd = hlo_attr_ints(cx->ins, A_INPUT_BATCHING_DIMS, &s->nibd);
	return ints(cx, A_UPDATE_WINDOW_DIMS, &s->uwd, &s->nuwd) &&
	       ints(cx, A_SCATTER_DIMS_TO_OPERAND_DIMS, &s->sdod, &s->nsdod) &&
	       int1(cx, A_INDEX_VECTOR_DIM, &s->ivd);
}

/* N operands of equal dims, then indices, then N updates of equal dims. */
static int scatter_operands(Cx *cx)
{
	int n2 = cx->ins->nops;
	if (n2 < 3 || n2 % 2 == 0) {
		no(cx,
		   "expects operands, indices and as many updates, got %d "
		   "operands",
		   n2);
		return 0;
	}
	int n = (n2 - 1) / 2;
	for (int i = 0; i < n2; i++) {
		const Shape *y = i == n ? opnd(cx, i) : arr(cx, i);
		const Shape *x = opnd(cx, i < n ? 0 : n + 1);
		if (!y)
			return 0;
		if (i != n && !same_dims(x, y)) {
			no(cx, "operand %d %s differs in dims from %s", i,
			   str(cx, y), str(cx, x));
			return 0;
		}
	}
	return n;
}

/* Update dims: window dims bounded by the operand, scatter dims equal to
 * the (expanded) indices dims. */
static bool scatter_updates(Cx *cx, const Shape *x, const Shape *u,
			    const Dims *e, const ScatterDims *s)
{
	int64_t maxs[XR_MAX_RANK];
	int nmax = 0;
	for (int i = 0; i < x->rank; i++)
		if (!contains(s->iwd, s->niwd, i) &&
		    !contains(s->ibd, s->nibd, i))
			maxs[nmax++] = unbounded(x, i) ? INT64_MAX : x->dims[i];
	for (int i = 0; i < s->nuwd && i < nmax; i++)
		if (!unbounded(u, (int)s->uwd[i]) &&
		    u->dims[s->uwd[i]] > maxs[i])
			return fail(cx,
				    "update window dimension %lld of %s "
				    "exceeds the operand %s",
				    (long long)s->uwd[i], str(cx, u),
				    str(cx, x));
	int seen = 0;
	for (int i = 0; i < u->rank; i++) {
		if (contains(s->uwd, s->nuwd, i))
			continue;
		if (seen == s->ivd)
			seen++;
		if (!unbounded(u, i) && e->k[seen] != DIM_UNBOUNDED &&
		    u->dims[i] != e->v[seen])
			return no(cx,
				  "update scatter dimension %d of %s "
				  "differs from the indices (%lld)",
				  i, str(cx, u), (long long)e->v[seen]);
		seen++;
	}
	return true;
}

static Shape *r_scatter(Cx *cx)
{
	ScatterDims s;
	Dims e;
	int n = scatter_operands(cx);
	if (!n || !scatter_attrs(cx, &s) || !expanded_indices(cx, n, s.ivd, &e))
		return NULL;
	const Shape *x = opnd(cx, 0), *u = opnd(cx, n + 1), *ix = opnd(cx, n);
	if (!dim_list(cx, "update_window_dims", s.uwd, s.nuwd, u->rank, true) ||
	    !dim_list(cx, "inserted_window_dims", s.iwd, s.niwd, x->rank,
		      true) ||
	    !dim_list(cx, "input_batching_dims", s.ibd, s.nibd, x->rank,
		      true) ||
	    !dim_list(cx, "scatter_dims_to_operand_dims", s.sdod, s.nsdod,
		      x->rank, false) ||
	    !disjoint(cx, "inserted_window_dims", s.iwd, s.niwd,
		      "input_batching_dims", s.ibd, s.nibd) ||
	    !index_batching(cx, x, s.ibd, s.nibd, ix,
			    A_SCATTER_INDICES_BATCHING_DIMS, s.ivd))
		return NULL;
	if (s.nuwd + s.niwd + s.nibd != x->rank)
		return fail(cx,
			    "update_window_dims (%d), inserted_window_dims "
			    "(%d) and input_batching_dims (%d) must add up to "
			    "the operand rank %d",
			    s.nuwd, s.niwd, s.nibd, x->rank);
	if (s.nsdod != e.v[s.ivd])
		return fail(cx,
			    "scatter_dims_to_operand_dims has %d entries, "
			    "the index vector has %lld",
			    s.nsdod, (long long)e.v[s.ivd]);
	if (u->rank != s.nuwd + e.rank - 1)
		return fail(cx, "updates %s should have rank %d", str(cx, u),
			    s.nuwd + e.rank - 1);
	if (!scatter_updates(cx, x, u, &e, &s))
		return NULL;
	Shape **v = arena_alloc(cx->a, sizeof *v * (size_t)n);
	for (int i = 0; v && i < n; i++)
		v[i] = plain(cx->a, opnd(cx, i));
	return !v ? NULL : n == 1 ? v[0] : tuple_of(cx, n, v);
}

/* --- tuples, calls, control flow ---------------------------------------- */

static Shape *r_tuple(Cx *cx)
{
	int n = cx->ins->nops;
	Shape **e = arena_alloc(cx->a, sizeof *e * (size_t)(n ? n : 1));
	for (int i = 0; e && i < n; i++)
		e[i] = plain(cx->a, opnd(cx, i));
	return e ? tuple_of(cx, n, e) : NULL;
}

static Shape *r_get_tuple_element(Cx *cx)
{
	int64_t k;
	if (!nops(cx, 1) || !int1(cx, A_INDEX, &k))
		return NULL;
	const Shape *t = opnd(cx, 0);
	if (!shape_is_tuple(t))
		return fail(cx, "operand '%s' must be a tuple, got %s",
			    oname(cx, 0), str(cx, t));
	if (k < 0 || k >= t->ntuple)
		return fail(cx, "index %lld is out of range for %s",
			    (long long)k, str(cx, t));
	return plain(cx->a, t->tuple[k]);
}

static Shape *r_call(Cx *cx)
{
	const HloComp *c = comp(cx, A_TO_APPLY);
	const Shape *rs = root_of(c);
	return !c ? NULL : rs ? plain(cx->a, rs) : none(cx);
}

static Shape *r_fusion(Cx *cx)
{
	const HloComp *c = comp(cx, A_CALLS);
	const Shape *rs = root_of(c);
	return !c ? NULL : rs ? plain(cx->a, rs) : none(cx);
}

static Shape *r_while(Cx *cx)
{
	if (!nops(cx, 1))
		return NULL;
	const HloComp *body = comp(cx, A_BODY);
	const Shape *x = opnd(cx, 0), *rs = root_of(body);
	if (!body)
		return NULL;
	if (rs && !compat(rs, x))
		return fail(cx, "body '%s' returns %s but the init value is %s",
			    body->name, str(cx, rs), str(cx, x));
	return plain(cx->a, x);
}

static Shape *r_conditional(Cx *cx)
{
	const HloAttr *bc = hlo_attr_find(cx->ins, A_BRANCH_COMPUTATIONS);
	const HloComp *br[2] = {hlo_attr_comp(cx->ins, A_TRUE_COMPUTATION),
				hlo_attr_comp(cx->ins, A_FALSE_COMPUTATION)};
	HloComp *const *v = bc ? bc->u.comps.v : (HloComp *const *)br;
	int n = bc ? bc->u.comps.n : 2;
	if (!bc && (!br[0] || !br[1]))
		return fail(cx, "missing branch_computations or "
				"true_computation/false_computation");
	if (n < 1)
		return fail(cx, "needs at least one branch");
	if (cx->ins->nops != n + 1)
		return fail(cx,
			    "has %d branches and so expects %d operands, "
			    "got %d",
			    n, n + 1, cx->ins->nops);
	const Shape *r0 = root_of(v[0]);
	for (int i = 1; r0 && i < n; i++) {
		const Shape *ri = root_of(v[i]);
		if (ri && !compat(ri, r0))
			return fail(cx,
				    "branch %d '%s' returns %s but branch 0 "
				    "'%s' returns %s",
				    i, v[i]->name, str(cx, ri), v[0]->name,
				    str(cx, r0));
	}
	return r0 ? plain(cx->a, r0) : none(cx);
}

/* --- a few more with obvious shapes ------------------------------------ */

static Shape *r_token(Cx *cx) { return shape_scalar(cx->a, DT_TOKEN); }

static Shape *r_u32(Cx *cx)
{
	return nops(cx, 0) ? shape_scalar(cx->a, DT_U32) : NULL;
}

static Shape *r_get_dimension_size(Cx *cx)
{
	const int64_t *dv;
	int n;
	if (!nops(cx, 1) || !ints(cx, A_DIMENSIONS, &dv, &n))
		return NULL;
	if (n != 1 || !arr(cx, 0))
		return n != 1 ? fail(cx, "dimensions must hold one dimension")
			      : NULL;
	if (!dim_list(cx, "dimensions", dv, 1, opnd(cx, 0)->rank, false))
		return NULL;
	return shape_scalar(cx->a, DT_S32);
}

/* opt-barrier, add-dependency, domain: the first operand's shape. */
static Shape *r_first(Cx *cx)
{
	return cx->ins->nops >= 1 ? plain(cx->a, opnd(cx, 0)) : none(cx);
}

/* all-reduce: the operand shapes, a tuple when there are several. */
static Shape *r_all_reduce(Cx *cx)
{
	int n = cx->ins->nops;
	if (n == 1)
		return plain(cx->a, opnd(cx, 0));
	return r_tuple(cx);
}

static Shape *r_cholesky(Cx *cx)
{
	if (!nops(cx, 1))
		return NULL;
	const Shape *x = arr(cx, 0);
	if (x && (x->rank < 2 || !dim_eq(x, x->rank - 2, x, x->rank - 1)))
		return fail(cx, "operand %s must be square matrices",
			    str(cx, x));
	return x ? plain(cx->a, x) : NULL;
}

/* triangular-solve(a, b): the result has b's shape. */
static Shape *r_triangular_solve(Cx *cx)
{
	if (!nops(cx, 2))
		return NULL;
	const Shape *a = arr(cx, 0), *b = a ? arr(cx, 1) : NULL;
	if (!b)
		return NULL;
	if (a->rank < 2 || a->rank != b->rank || a->type != b->type)
		return fail(cx, "operands %s and %s do not match", str(cx, a),
			    str(cx, b));
	return plain(cx->a, b);
}

/* Operand i of a batch-norm must be a vector of the feature size. */
static bool feature_vector(Cx *cx, int i, const Shape *x, int64_t fi)
{
	const Shape *v = arr(cx, i);
	if (!v)
		return false;
	if (v->rank != 1 || !dim_eq(v, 0, x, (int)fi) || v->type != x->type)
		return no(cx, "operand %d %s must be %s[%lld]", i, str(cx, v),
			  dtype_name(x->type), (long long)x->dims[fi]);
	return true;
}

/* batch-norm-*: the operand's shape; training and grad add two vectors
 * of the feature size. */
static Shape *r_batch_norm(Cx *cx)
{
	HloOpcode op = cx->ins->op;
	int n = op == HLO_BATCH_NORM_TRAINING ? 3 : 5;
	int64_t fi;
	if (!nops(cx, n) || !int1(cx, A_FEATURE_INDEX, &fi))
		return NULL;
	const Shape *x = arr(cx, 0);
	if (!x)
		return NULL;
	if (fi < 0 || fi >= x->rank)
		return fail(cx, "feature_index %lld is out of range for %s",
			    (long long)fi, str(cx, x));
	/* batch-norm-grad's last operand is the gradient, shaped like x */
	int vecs = op == HLO_BATCH_NORM_GRAD ? n - 1 : n;
	for (int i = 1; i < vecs; i++)
		if (!feature_vector(cx, i, x, fi))
			return NULL;
	if (vecs < n && !compat(opnd(cx, n - 1), x))
		return fail(cx, "grad_output %s differs from operand %s",
			    str(cx, opnd(cx, n - 1)), str(cx, x));
	if (op == HLO_BATCH_NORM_INFERENCE)
		return plain(cx->a, x);
	Shape *e[3] = {plain(cx->a, x), plain(cx->a, opnd(cx, 1)),
		       plain(cx->a, opnd(cx, 1))};
	return tuple_of(cx, 3, e);
}

static Shape *r_topk(Cx *cx)
{
	int64_t k;
	if (!nops(cx, 1) || !int1(cx, A_K, &k))
		return NULL;
	const Shape *x = arr(cx, 0);
	if (!x)
		return NULL;
	int last = x->rank - 1;
	if (last < 0 || k < 0 || (!unbounded(x, last) && k > x->dims[last]))
		return fail(cx,
			    "k = %lld does not fit the last dimension of %s",
			    (long long)k, str(cx, x));
	Dims r;
	dims_of(&r, x);
	r.v[last] = k;
	r.k[last] = DIM_STATIC;
	Shape *e[2] = {mk(cx, x->type, &r), mk(cx, DT_S32, &r)};
	return tuple_of(cx, 2, e);
}

/* copy-start: (destination, source, context); copy-done: the
 * destination. */
static Shape *r_copy_start(Cx *cx)
{
	if (!nops(cx, 1))
		return NULL;
	Shape *e[3] = {plain(cx->a, opnd(cx, 0)), plain(cx->a, opnd(cx, 0)),
		       shape_scalar(cx->a, DT_U32)};
	return tuple_of(cx, 3, e);
}

static Shape *r_copy_done(Cx *cx)
{
	if (!nops(cx, 1))
		return NULL;
	const Shape *t = opnd(cx, 0);
	if (!shape_is_tuple(t) || t->ntuple < 1)
		return fail(cx,
			    "operand '%s' must be a copy-start tuple, got %s",
			    oname(cx, 0), str(cx, t));
	return plain(cx->a, t->tuple[0]);
}

static const Rule rules[HLO_OPCODE_COUNT] = {
	[HLO_REAL] = r_unary,
	[HLO_IMAG] = r_unary,
	[HLO_COMPLEX] = r_complex,
	[HLO_CONVERT] = r_convert,
	[HLO_STOCHASTIC_CONVERT] = r_convert,
	[HLO_BITCAST_CONVERT] = r_bitcast_convert,
	[HLO_COMPARE] = r_compare,
	[HLO_SELECT] = r_select,
	[HLO_CLAMP] = r_clamp,
	[HLO_PARAMETER] = r_declared,
	[HLO_CONSTANT] = r_declared,
	[HLO_IOTA] = r_iota,
	[HLO_BROADCAST] = r_broadcast,
	[HLO_RESHAPE] = r_reshape,
	[HLO_TRANSPOSE] = r_transpose,
	[HLO_SLICE] = r_slice,
	[HLO_DYNAMIC_SLICE] = r_dynamic_slice,
	[HLO_DYNAMIC_UPDATE_SLICE] = r_dynamic_update_slice,
	[HLO_CONCATENATE] = r_concatenate,
	[HLO_PAD] = r_pad,
	[HLO_REVERSE] = r_reverse,
	[HLO_GATHER] = r_gather,
	[HLO_SCATTER] = r_scatter,
	[HLO_REDUCE] = r_reduce,
	[HLO_REDUCE_WINDOW] = r_reduce_window,
	[HLO_SELECT_AND_SCATTER] = r_select_and_scatter,
	[HLO_MAP] = r_map,
	[HLO_SORT] = r_sort,
	[HLO_DOT] = r_dot,
	[HLO_CONVOLUTION] = r_convolution,
	[HLO_TUPLE] = r_tuple,
	[HLO_GET_TUPLE_ELEMENT] = r_get_tuple_element,
	[HLO_CALL] = r_call,
	[HLO_FUSION] = r_fusion,
	[HLO_WHILE] = r_while,
	[HLO_CONDITIONAL] = r_conditional,
	[HLO_AFTER_ALL] = r_token,
	[HLO_REPLICA_ID] = r_u32,
	[HLO_PARTITION_ID] = r_u32,
	[HLO_GET_DIMENSION_SIZE] = r_get_dimension_size,
	[HLO_OPT_BARRIER] = r_first,
	[HLO_ADD_DEPENDENCY] = r_first,
	[HLO_DOMAIN] = r_first,
	[HLO_ALL_REDUCE] = r_all_reduce,
	[HLO_CHOLESKY] = r_cholesky,
	[HLO_TRIANGULAR_SOLVE] = r_triangular_solve,
	[HLO_BATCH_NORM_TRAINING] = r_batch_norm,
	[HLO_BATCH_NORM_INFERENCE] = r_batch_norm,
	[HLO_BATCH_NORM_GRAD] = r_batch_norm,
	[HLO_TOPK] = r_topk,
	[HLO_COPY_START] = r_copy_start,
	[HLO_COPY_DONE] = r_copy_done,
};

static Rule rule_for(HloOpcode op)
{
	if (op <= HLO_INVALID || op >= HLO_OPCODE_COUNT)
		return NULL;
	if (rules[op])
		return rules[op];
	switch (hlo_opcode_class(op)) {
	case OC_UNARY:
	case OC_UNARY_PRED:
		return r_unary;
	case OC_BINARY:
		return r_binary;
	default:
		return NULL;
	}
}

/* Operands with shapes the rules can take (ranks within XR_MAX_RANK, as
 * the parser guarantees; a pass could break that). */
static bool operands_ready(const HloInstr *ins)
{
	for (int i = 0; i < ins->nops; i++)
		if (!ins->ops[i] || !ins->ops[i]->shape ||
		    ins->ops[i]->shape->rank > XR_MAX_RANK)
			return false;
	return true;
}

Shape *infer_shape(Arena *a, const HloInstr *ins, Diag *d, const SrcFile *f,
		   bool *no_rule)
{
	Cx cx = {a, ins, d, f, false};
	Rule r = rule_for(ins->op);
	Shape *s = NULL;
	if (!r || !operands_ready(ins))
		cx.no_rule = true;
	else
		s = r(&cx);
	if (no_rule)
		*no_rule = cx.no_rule;
	return s;
}
