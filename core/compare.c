/* compare.c - result comparison with per-type tolerances. */
#include "compare.h"

#include <math.h>
#include <string.h>

static double type_tol(Dtype t)
{
	switch (t) {
	case DT_F64: case DT_C128: return 1e-9;
	case DT_F32: case DT_C64: return 1e-5;
	case DT_F16: return 4e-3;
	case DT_BF16: return 2e-2;
	case DT_F8E4M3: case DT_F8E4M3FN: case DT_F8E4M3FNUZ:
	case DT_F8E4M3B11FNUZ: case DT_F8E3M4: return 0.13;
	case DT_F8E5M2: case DT_F8E5M2FNUZ: return 0.25;
	case DT_F8E8M0FNU: case DT_F4E2M1FN: return 0.5;
	default: return 0; /* integers and pred: exact */
	}
}

double compare_default_tol(const Shape *s)
{
	if (s->type != DT_TUPLE)
		return type_tol(s->type);
	double t = 0;
	for (int i = 0; i < s->ntuple; i++) {
		double e = compare_default_tol(s->tuple[i]);
		t = e > t ? e : t;
	}
	return t;
}

static void one(double g, double w, double tol, int64_t i, CompareResult *r)
{
	r->elements++;
	if ((isnan(g) && isnan(w)) || g == w)
		return;
	double abs = fabs(g - w);
	double rel = w != 0 ? abs / fabs(w) : (abs > 0 ? INFINITY : 0);
	if (isnan(abs))
		abs = rel = INFINITY; /* NaN against a number, or inf - inf */
	if (abs > r->max_abs_err || (isinf(abs) && r->worst < 0)) {
		r->max_abs_err = abs;
		r->worst = i;
	}
	if (rel > r->max_rel_err)
		r->max_rel_err = rel;
	if (!(abs <= tol * (1 + fabs(w))))
		r->mismatches++;
}

/* The same dims as values hold them: a bounded dynamic dim holds its
 * bound (a .npy file, which has no such dims, holds the same). */
static bool same_extent(const Shape *a, const Shape *b)
{
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return true;
}

static void cmp_rec(const Literal *g, const Literal *w, double tol,
		    CompareResult *r)
{
	if (g->shape->type == DT_TUPLE || w->shape->type == DT_TUPLE) {
		if (g->ntuple != w->ntuple || g->shape->type != w->shape->type) {
			r->shape_differs = true;
			return;
		}
		for (int i = 0; i < g->ntuple; i++)
			cmp_rec(g->tuple[i], w->tuple[i], tol, r);
		return;
	}
	if (!same_extent(g->shape, w->shape) ||
	    dtype_kind(g->shape->type) != dtype_kind(w->shape->type)) {
		r->shape_differs = true;
		return;
	}
	bool cplx = dtype_kind(g->shape->type) == DK_COMPLEX;
	bool exact_int = !dtype_is_float(g->shape->type) && !cplx;
	for (int64_t i = 0; i < g->n; i++) {
		if (cplx) {
			double gr, gi, wr, wi;
			literal_get_c(g, i, &gr, &gi);
			literal_get_c(w, i, &wr, &wi);
			one(gr, wr, tol, i, r);
			one(gi, wi, tol, i, r);
			r->elements--;
		} else if (exact_int) {
			int64_t a = literal_get_i64(g, i), b = literal_get_i64(w, i);
			one(a == b ? 0 : (double)a, a == b ? 0 : (double)b, tol, i, r);
		} else {
			one(literal_get_f64(g, i), literal_get_f64(w, i), tol, i, r);
		}
	}
}

void literal_compare(const Literal *got, const Literal *want, double tol,
		     CompareResult *r)
{
	memset(r, 0, sizeof *r);
	r->worst = -1;
	cmp_rec(got, want, tol, r);
	r->ok = !r->shape_differs && r->mismatches == 0;
}
