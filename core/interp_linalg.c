/* interp_linalg.c - the interpreter's linear algebra: dot, convolution,
 * fft, cholesky, triangular-solve and the batch-norm family.
 *
 * Arithmetic happens in one of three modes chosen by the result's element
 * type: real (double), complex (double complex) or integer (int64,
 * wrapping). Operands are converted once into arrays of that mode, every
 * result element is accumulated there and rounded once to the result type
 * at the end. For floats that is more accurate than XLA:CPU, which
 * accumulates in f32 (or in the element type); compare with a tolerance.
 * Integer products and sums wrap at 64 bits and then at the result width,
 * as XLA's evaluator does for dot (its convolution saturates instead; the
 * compiled backends wrap, and so does this).
 *
 * Precision and algorithm attributes are ignored. ragged-dot and
 * scaled-dot have no evaluator ("not supported by the interpreter"). */
#include "interp_impl.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef double complex cplx;

/* re + im i without arithmetic (so inf and NaN parts stay as they are):
 * a complex has the layout of double[2]. Not CMPLX, which older clang
 * with glibc lacks. */
static cplx mkc(double re, double im)
{
	cplx z;
	double *p = (double *)&z;
	p[0] = re;
	p[1] = im;
	return z;
}

enum { POLL_MACS = 1 << 16 };

static const double TWO_PI = 6.283185307179586476925286766559;

typedef enum { M_REAL, M_CPLX, M_INT } Mode;

static Mode mode_of(Dtype t)
{
	if (dtype_kind(t) == DK_COMPLEX)
		return M_CPLX;
	return dtype_is_float(t) ? M_REAL : M_INT;
}

/* An operand's elements in the arithmetic of a mode (one array set). */
typedef struct Vals {
	double *f;
	cplx *c;
	int64_t *i;
} Vals;

static void vals_free(Vals *v)
{
	free(v->f);
	free(v->c);
	free(v->i);
	*v = (Vals){0};
}

static bool load(Interp *it, const HloInstr *ins, const Literal *l, Mode m,
		 Vals *v)
{
	*v = (Vals){0};
	size_t n = (size_t)l->n + 1;
	switch (m) {
	case M_REAL:
		if (!(v->f = malloc(n * sizeof *v->f)))
			break;
		for (int64_t i = 0; i < l->n; i++)
			v->f[i] = it_getf(l, i);
		return true;
	case M_CPLX:
		if (!(v->c = malloc(n * sizeof *v->c)))
			break;
		for (int64_t i = 0; i < l->n; i++) {
			double re, im;
			literal_get_c(l, i, &re, &im);
			v->c[i] = mkc(re, im);
		}
		return true;
	case M_INT:
		if (!(v->i = malloc(n * sizeof *v->i)))
			break;
		for (int64_t i = 0; i < l->n; i++)
			v->i[i] = it_geti(l, i);
		return true;
	}
	it_fail(it, ins, "out of memory");
	return false;
}

/* Accumulators for a run of n result elements, in the mode's type. */
typedef struct Accs {
	Mode m;
	int64_t n;
	double *f;
	cplx *c;
	uint64_t *i; /* wraps */
} Accs;

static void accs_free(Accs *a)
{
	free(a->f);
	free(a->c);
	free(a->i);
	a->f = NULL;
	a->c = NULL;
	a->i = NULL;
}

static bool accs_init(Interp *it, const HloInstr *ins, Accs *a, Mode m,
		      int64_t n)
{
	*a = (Accs){.m = m, .n = n};
	size_t k = (size_t)n + 1;
	bool ok = m == M_REAL   ? (a->f = malloc(k * sizeof *a->f)) != NULL
		  : m == M_CPLX ? (a->c = malloc(k * sizeof *a->c)) != NULL
				: (a->i = malloc(k * sizeof *a->i)) != NULL;
	if (!ok)
		it_fail(it, ins, "out of memory");
	return ok;
}

static void accs_zero(Accs *a)
{
	for (int64_t j = 0; j < a->n; j++)
		if (a->m == M_REAL)
			a->f[j] = 0;
		else if (a->m == M_CPLX)
			a->c[j] = 0;
		else
			a->i[j] = 0;
}

/* res[o] = accumulator j, rounded once to the result type. */
static void accs_store(const Accs *a, int64_t j, Literal *res, int64_t o)
{
	if (a->m == M_REAL)
		it_setf(res, o, a->f[j]);
	else if (a->m == M_CPLX)
		literal_set_c(res, o, creal(a->c[j]), cimag(a->c[j]));
	else
		it_seti(res, o, (int64_t)a->i[j]);
}

/* acc[a0 + j] += x[xi] * y[yi + j * ys] for j < n: one value of one
 * operand times a run of the other. Every accumulator gets its terms in
 * the order of the calls, so loop orders that only reorder calls across
 * different accumulators keep each sum's order. */
static void axpy(Accs *acc, int64_t a0, int64_t n, const Vals *x, int64_t xi,
		 const Vals *y, int64_t yi, int64_t ys)
{
	switch (acc->m) {
	case M_REAL: {
		double v = x->f[xi], *restrict s = acc->f + a0;
		const double *restrict p = y->f + yi;
		if (ys == 1)
			for (int64_t j = 0; j < n; j++)
				s[j] += v * p[j];
		else
			for (int64_t j = 0; j < n; j++)
				s[j] += v * p[j * ys];
		break;
	}
	case M_CPLX: {
		cplx v = x->c[xi], *s = acc->c + a0;
		for (int64_t j = 0; j < n; j++)
			s[j] += v * y->c[yi + j * ys];
		break;
	}
	case M_INT: {
		uint64_t v = (uint64_t)x->i[xi], *s = acc->i + a0;
		for (int64_t j = 0; j < n; j++)
			s[j] += v * (uint64_t)y->i[yi + j * ys];
		break;
	}
	}
}

/* acc[j] += x[xi] * y[yi + yoff[j]] for j < acc->n (rhs on the right:
 * x * y, which matters for nothing but keeps the operand order). */
static void axpy_gather(Accs *acc, const Vals *x, int64_t xi, const Vals *y,
			int64_t yi, const int64_t *yoff)
{
	int64_t n = acc->n;
	switch (acc->m) {
	case M_REAL: {
		double v = x->f[xi];
		const double *p = y->f + yi;
		for (int64_t j = 0; j < n; j++)
			acc->f[j] += v * p[yoff[j]];
		break;
	}
	case M_CPLX: {
		cplx v = x->c[xi];
		for (int64_t j = 0; j < n; j++)
			acc->c[j] += v * y->c[yi + yoff[j]];
		break;
	}
	case M_INT: {
		uint64_t v = (uint64_t)x->i[xi];
		for (int64_t j = 0; j < n; j++)
			acc->i[j] += v * (uint64_t)y->i[yi + yoff[j]];
		break;
	}
	}
}

/* Polls after about POLL_MACS multiply-adds; false when interrupted. */
static bool tick(Interp *it, const HloInstr *ins, int64_t *macs, int64_t n)
{
	*macs += n;
	if (*macs < POLL_MACS)
		return true;
	*macs = 0;
	return it_poll(it, ins);
}

static bool contains(const int64_t *v, int n, int64_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Offsets, in row-major order over dims d[0..n) of s (the last fastest),
 * of every index: off[k] = sum idx[j] * st[d[j]]. malloc'd, count in
 * *cnt. */
static int64_t *offsets(const Shape *s, const int64_t *st, const int64_t *d,
			int n, int64_t *cnt)
{
	int64_t total = 1, idx[XR_MAX_RANK] = {0};
	for (int j = 0; j < n; j++)
		total *= s->dims[d[j]];
	int64_t *off = malloc(sizeof *off * (size_t)(total + 1));
	if (!off)
		return NULL;
	for (int64_t k = 0; k < total; k++) {
		int64_t o = 0;
		for (int j = 0; j < n; j++)
			o += idx[j] * st[d[j]];
		off[k] = o;
		for (int j = n - 1; j >= 0; j--) {
			if (++idx[j] < s->dims[d[j]])
				break;
			idx[j] = 0;
		}
	}
	*cnt = total;
	return off;
}

/* ---- dot ----------------------------------------------------------------- */

/* Result element (row r, column j): r runs over the batch and lhs free
 * indices, j over the rhs free ones, so the result is rows x cols in
 * row-major order. */
typedef struct DotPlan {
	int nb, nc, nlf, nrf;
	const int64_t *lb, *rb, *lc, *rc;
	int64_t lf[XR_MAX_RANK], rf[XR_MAX_RANK];
	int64_t lst[XR_MAX_RANK], rst[XR_MAX_RANK];
	int64_t k, cols;      /* contraction size, rhs free size */
	int64_t *loff, *roff; /* per contraction index */
	int64_t *coff;        /* rhs offset of each column */
} DotPlan;

static void dot_plan_free(DotPlan *p)
{
	free(p->loff);
	free(p->roff);
	free(p->coff);
}

static bool dot_plan(Interp *it, const HloInstr *ins, const Shape *l,
		     const Shape *r, DotPlan *p)
{
	int n2, c2;
	memset(p, 0, sizeof *p);
	p->lb = hlo_attr_ints(ins, A_LHS_BATCH_DIMS, &p->nb);
	p->rb = hlo_attr_ints(ins, A_RHS_BATCH_DIMS, &n2);
	p->lc = hlo_attr_ints(ins, A_LHS_CONTRACTING_DIMS, &p->nc);
	p->rc = hlo_attr_ints(ins, A_RHS_CONTRACTING_DIMS, &c2);
	if (p->nb != n2 || p->nc != c2)
		return it_fail(it, ins,
			       "batch or contracting dimensions of "
			       "lhs and rhs differ in number"),
		       false;
	for (int d = 0; d < l->rank; d++)
		if (!contains(p->lb, p->nb, d) && !contains(p->lc, p->nc, d))
			p->lf[p->nlf++] = d;
	for (int d = 0; d < r->rank; d++)
		if (!contains(p->rb, p->nb, d) && !contains(p->rc, p->nc, d))
			p->rf[p->nrf++] = d;
	it_strides(l, p->lst);
	it_strides(r, p->rst);
	int64_t k2;
	/* contraction indices in order, the last contracting dim fastest */
	p->loff = offsets(l, p->lst, p->lc, p->nc, &p->k);
	p->roff = offsets(r, p->rst, p->rc, p->nc, &k2);
	p->coff = offsets(r, p->rst, p->rf, p->nrf, &p->cols);
	if (!p->loff || !p->roff || !p->coff)
		return it_fail(it, ins, "out of memory"), false;
	return true;
}

/* The lhs and rhs offsets of row r (batch and lhs free indices). */
static void dot_row(const DotPlan *p, const Shape *l, int64_t r, int64_t *lbase,
		    int64_t *rbase)
{
	*lbase = *rbase = 0;
	for (int j = p->nlf - 1; j >= 0; j--) {
		int64_t d = l->dims[p->lf[j]];
		*lbase += r % d * p->lst[p->lf[j]];
		r /= d;
	}
	for (int j = p->nb - 1; j >= 0; j--) {
		int64_t d = l->dims[p->lb[j]];
		*lbase += r % d * p->lst[p->lb[j]];
		*rbase += r % d * p->rst[p->rb[j]];
		r /= d;
	}
}

/* dot: result dims are the batch dims, then lhs free, then rhs free. Each
 * result element sums over the contraction indices in row-major order. */
static Literal *ev_dot(Interp *it, const HloInstr *ins, Literal *const *ops,
		       Literal *out)
{
	const Literal *l = ops[0], *r = ops[1];
	Mode m = mode_of(ins->shape->type);
	DotPlan p = {0};
	Vals a = {0}, b = {0};
	Accs acc = {0};
	Literal *res = out;
	bool ok = res && dot_plan(it, ins, l->shape, r->shape, &p) &&
		  load(it, ins, l, m, &a) && load(it, ins, r, m, &b) &&
		  accs_init(it, ins, &acc, m, p.cols);
	int64_t rows = ok && p.cols ? res->n / p.cols : 0, macs = 0;
	for (int64_t row = 0; ok && row < rows; row++) {
		int64_t lbase, rbase;
		dot_row(&p, l->shape, row, &lbase, &rbase);
		accs_zero(&acc);
		for (int64_t k = 0; k < p.k; k++)
			axpy_gather(&acc, &a, lbase + p.loff[k], &b,
				    rbase + p.roff[k], p.coff);
		for (int64_t j = 0; j < p.cols; j++)
			accs_store(&acc, j, res, row * p.cols + j);
		ok = tick(it, ins, &macs, (p.k + 1) * p.cols);
	}
	dot_plan_free(&p);
	accs_free(&acc);
	vals_free(&a);
	vals_free(&b);
	return ok ? res : NULL;
}

/* ---- convolution --------------------------------------------------------- */

typedef struct Conv {
	const ConvDims *cd;
	const WindowDim *w; /* nspatial, or NULL when there are none */
	int ns;
	int64_t fgc, bgc;
	int64_t in_b, in_f, k_in, k_out;
	int64_t lst[XR_MAX_RANK], kst[XR_MAX_RANK], ost[XR_MAX_RANK];
} Conv;

static bool conv_plan(Interp *it, const HloInstr *ins, const Shape *l,
		      const Shape *k, const Shape *o, Conv *c)
{
	memset(c, 0, sizeof *c);
	const HloAttr *dl = hlo_attr_find(ins, A_DIM_LABELS);
	const HloAttr *wa = hlo_attr_find(ins, A_WINDOW);
	if (!dl || !dl->u.conv)
		return it_fail(it, ins, "missing dim_labels"), false;
	c->cd = dl->u.conv;
	c->ns = c->cd->nspatial;
	if (l->rank != c->ns + 2 || k->rank != c->ns + 2 ||
	    o->rank != c->ns + 2)
		return it_fail(it, ins,
			       "operand ranks do not match dim_labels"),
		       false;
	if ((wa ? wa->u.window.n : 0) != c->ns)
		return it_fail(it, ins, "window has %d dimensions, expected %d",
			       wa ? wa->u.window.n : 0, c->ns),
		       false;
	c->w = wa ? wa->u.window.v : NULL;
	c->fgc = c->bgc = 1;
	hlo_attr_int(ins, A_FEATURE_GROUP_COUNT, &c->fgc);
	hlo_attr_int(ins, A_BATCH_GROUP_COUNT, &c->bgc);
	c->in_b = l->dims[c->cd->in_batch];
	c->in_f = l->dims[c->cd->in_feature];
	c->k_in = k->dims[c->cd->k_in_feature];
	c->k_out = k->dims[c->cd->k_out_feature];
	if (c->fgc < 1 || c->bgc < 1 || c->in_f % c->fgc ||
	    c->in_f / c->fgc != c->k_in || c->k_out % c->fgc ||
	    c->k_out % c->bgc || c->in_b % c->bgc)
		return it_fail(it, ins,
			       "feature_group_count or "
			       "batch_group_count does not fit the operands"),
		       false;
	for (int i = 0; i < c->ns; i++)
		if (c->w[i].stride < 1 || c->w[i].lhs_dilate < 1 ||
		    c->w[i].rhs_dilate < 1 ||
		    c->w[i].size != k->dims[c->cd->k_spatial[i]])
			return it_fail(it, ins, "bad window dimension %d", i),
			       false;
	it_strides(l, c->lst);
	it_strides(k, c->kst);
	it_strides(o, c->ost);
	return true;
}

/* Offsets of kernel position ks in the input and the kernel for output
 * spatial position os; false when it falls on padding or a hole. */
static bool conv_tap(const Conv *c, const Shape *l, const int64_t *os,
		     const int64_t *ks, int64_t *loff, int64_t *koff)
{
	*loff = *koff = 0;
	for (int i = 0; i < c->ns; i++) {
		const WindowDim *w = &c->w[i];
		int64_t p =
			os[i] * w->stride - w->pad_lo + ks[i] * w->rhs_dilate;
		if (p < 0 || p % w->lhs_dilate)
			return false;
		p /= w->lhs_dilate;
		if (p >= l->dims[c->cd->in_spatial[i]])
			return false;
		*loff += p * c->lst[c->cd->in_spatial[i]];
		int64_t kk = w->reversal ? w->size - 1 - ks[i] : ks[i];
		*koff += kk * c->kst[c->cd->k_spatial[i]];
	}
	return true;
}

/* All output features of one output pixel (batch ob, spatial os) into
 * acc: kernel positions outer, input features of the group inner, as
 * XLA's evaluator orders each sum. Output feature o belongs to feature
 * group o / (k_out / fgc) and to batch group o / (k_out / bgc); the
 * latter reads input batch ob + group * (in_b / bgc). Features with the
 * same two groups form a block that shares its input values. */
static void conv_pixel(const Conv *c, const Shape *l, const Vals *a,
		       const Vals *b, int64_t ob, const int64_t *os, Accs *acc)
{
	const ConvDims *cd = c->cd;
	int64_t ks[XR_MAX_RANK] = {0}, ntaps = 1;
	int64_t ofg = c->k_out / c->fgc, obg = c->k_out / c->bgc;
	int64_t bgs = c->in_b / c->bgc;
	int64_t lsf = c->lst[cd->in_feature], ksi = c->kst[cd->k_in_feature];
	int64_t kso = c->kst[cd->k_out_feature];
	for (int i = 0; i < c->ns; i++)
		ntaps *= c->w[i].size;
	accs_zero(acc);
	for (int64_t t = 0; t < ntaps; t++) {
		int64_t loff, koff;
		bool in = conv_tap(c, l, os, ks, &loff, &koff);
		for (int i = c->ns - 1; i >= 0; i--) {
			if (++ks[i] < c->w[i].size)
				break;
			ks[i] = 0;
		}
		if (!in)
			continue;
		for (int64_t o0 = 0, o1; o0 < c->k_out; o0 = o1) {
			int64_t g = o0 / ofg, bg = o0 / obg;
			o1 = (g + 1) * ofg < (bg + 1) * obg ? (g + 1) * ofg
							    : (bg + 1) * obg;
			int64_t lb = loff +
				     (ob + bg * bgs) * c->lst[cd->in_batch] +
				     g * c->k_in * lsf;
			int64_t kb = koff + o0 * kso;
			for (int64_t iz = 0; iz < c->k_in; iz++)
				axpy(acc, o0, o1 - o0, a, lb + iz * lsf, b,
				     kb + iz * ksi, kso);
		}
	}
}

static Literal *ev_convolution(Interp *it, const HloInstr *ins,
			       Literal *const *ops, Literal *out)
{
	const Literal *l = ops[0], *k = ops[1];
	Literal *res = out;
	Mode m = mode_of(ins->shape->type);
	Conv c = {0};
	Vals a = {0}, b = {0};
	Accs acc = {0};
	bool ok = res &&
		  conv_plan(it, ins, l->shape, k->shape, res->shape, &c) &&
		  load(it, ins, l, m, &a) && load(it, ins, k, m, &b) &&
		  accs_init(it, ins, &acc, m, c.k_out);
	/* output pixels: every index with the feature dimension at 0 */
	const Shape *os = res ? res->shape : NULL;
	int64_t idx[XR_MAX_RANK] = {0}, sp[XR_MAX_RANK], macs = 0;
	int64_t npix = ok && c.k_out ? res->n / c.k_out : 0;
	int64_t per = c.k_out * c.k_in;
	for (int i = 0; ok && i < c.ns; i++)
		per *= c.w[i].size;
	for (int64_t px = 0; ok && px < npix; px++) {
		for (int i = 0; i < c.ns; i++)
			sp[i] = idx[c.cd->out_spatial[i]];
		conv_pixel(&c, l->shape, &a, &b, idx[c.cd->out_batch], sp,
			   &acc);
		int64_t base = 0;
		for (int d = 0; d < os->rank; d++)
			base += idx[d] * c.ost[d];
		for (int64_t o = 0; o < c.k_out; o++)
			accs_store(&acc, o, res,
				   base + o * c.ost[c.cd->out_feature]);
		for (int d = os->rank - 1; d >= 0; d--) {
			if (d == c.cd->out_feature)
				continue;
			if (++idx[d] < os->dims[d])
				break;
			idx[d] = 0;
		}
		ok = tick(it, ins, &macs, per + 1);
	}
	accs_free(&acc);
	vals_free(&a);
	vals_free(&b);
	return ok ? res : NULL;
}

/* Element i as a complex number, and back (rounded to the type). */
static cplx cget(const Literal *l, int64_t i)
{
	double re, im;
	literal_get_c(l, i, &re, &im);
	return mkc(re, im);
}

static void cset(Literal *l, int64_t i, cplx v)
{
	literal_set_c(l, i, creal(v), cimag(v));
}

/* ---- fft ----------------------------------------------------------------- */

/* In place DFT of every line of w (shape dims, rank) along axis, with
 * sign -1 (forward) or +1 (inverse, scaled by 1/n). O(n^2) per line. */
static bool dft_axis(Interp *it, const HloInstr *ins, cplx *w,
		     const int64_t *dims, int rank, int axis, int sign)
{
	int64_t n = dims[axis], stride = 1, total = 1, macs = 0;
	for (int d = axis + 1; d < rank; d++)
		stride *= dims[d];
	for (int d = 0; d < rank; d++)
		total *= dims[d];
	if (!n || !total)
		return true;
	cplx *tw = malloc(sizeof *tw * (size_t)n);
	cplx *in = malloc(sizeof *in * (size_t)n);
	bool ok = tw && in;
	if (!ok)
		it_fail(it, ins, "out of memory");
	for (int64_t j = 0; ok && j < n; j++) {
		double ang = sign * TWO_PI * (double)j / (double)n;
		tw[j] = mkc(cos(ang), sin(ang));
		if (j * 4 % n == 0) { /* exact quarter turns: 1, i, -1, -i */
			static const double q[4][2] = {
				{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
			int64_t k = j * 4 / n;
			tw[j] = mkc(q[k][0], sign * q[k][1]);
		}
	}
	double scale = sign > 0 ? 1.0 / (double)n : 1.0;
	int64_t outer = total / (n * stride);
	for (int64_t a = 0; ok && a < outer; a++)
		for (int64_t b = 0; ok && b < stride; b++) {
			cplx *line = w + a * n * stride + b;
			for (int64_t t = 0; t < n; t++)
				in[t] = line[t * stride];
			for (int64_t k = 0; k < n; k++) {
				cplx s = 0;
				for (int64_t t = 0; t < n; t++)
					s += in[t] * tw[k * t % n];
				line[k * stride] = s * scale;
			}
			ok = tick(it, ins, &macs, n * n);
		}
	free(tw);
	free(in);
	return ok;
}

/* fft over the last len(fft_length) dimensions: FFT and IFFT complex to
 * complex (IFFT scaled by 1/n), RFFT real to the n/2+1 non-negative
 * frequencies of the last dimension, IRFFT back (the rest of the spectrum
 * is its Hermitian mirror; imaginary parts that a real signal cannot have
 * are ignored). Direct DFTs in double. */
static Literal *ev_fft(Interp *it, const HloInstr *ins, Literal *const *ops,
		       Literal *out)
{
	const Literal *x = ops[0];
	Literal *res = out;
	const char *ty = hlo_attr_enum(ins, A_FFT_TYPE);
	int nl;
	const int64_t *len = hlo_attr_ints(ins, A_FFT_LENGTH, &nl);
	int kind = !ty                    ? -1
		   : !strcmp(ty, "FFT")   ? 0
		   : !strcmp(ty, "IFFT")  ? 1
		   : !strcmp(ty, "RFFT")  ? 2
		   : !strcmp(ty, "IRFFT") ? 3
					  : -1;
	if (kind < 0)
		return it_fail(it, ins, "unknown fft_type %s", ty ? ty : "");
	if (!res || res->shape->rank != x->shape->rank)
		return it_fail(it, ins, "unexpected result shape");
	/* w has the full (time-domain sized) shape */
	const Shape *full = kind == 3 ? res->shape : x->shape;
	int rank = full->rank;
	if (nl < 1 || nl > 3 || nl > rank)
		return it_fail(it, ins, "fft_length does not fit the operand");
	for (int i = 0; i < nl; i++)
		if (full->dims[rank - nl + i] != len[i])
			return it_fail(it, ins,
				       "fft_length does not match the "
				       "operand's dimensions");
	int64_t total = shape_elements(full);
	int64_t n = full->dims[rank - 1], h = x->shape->dims[rank - 1];
	int64_t hr = res->shape->dims[rank - 1], rows = n ? total / n : 0;
	if (h != (kind == 3 ? n / 2 + 1 : n) ||
	    hr != (kind == 2 ? n / 2 + 1 : n) || x->n != rows * h ||
	    res->n != rows * hr)
		return it_fail(it, ins,
			       "operand and result shapes do not fit "
			       "fft_type %s",
			       ty);
	cplx *w = calloc((size_t)total + 1, sizeof *w);
	if (!w)
		return it_fail(it, ins, "out of memory");
	for (int64_t r = 0; r < rows; r++) /* x into w, row by row */
		for (int64_t j = 0; j < h && j < n; j++)
			w[r * n + j] = cget(x, r * h + j);
	bool ok = true;
	int sign = kind == 1 || kind == 3 ? 1 : -1;
	int last = kind == 3 ? rank - 1 : rank; /* IRFFT: last axis later */
	for (int ax = rank - nl; ok && ax < last; ax++)
		ok = dft_axis(it, ins, w, full->dims, rank, ax, sign);
	if (ok && kind == 3) {
		for (int64_t r = 0; r < rows; r++)
			for (int64_t k = h; k < n; k++)
				w[r * n + k] = conj(w[r * n + (n - k) % n]);
		ok = dft_axis(it, ins, w, full->dims, rank, rank - 1, 1);
	}
	for (int64_t r = 0; ok && r < rows; r++)
		for (int64_t j = 0; j < hr; j++) {
			cplx v = w[r * n + j];
			literal_set_c(res, r * hr + j, creal(v),
				      kind == 3 ? 0 : cimag(v));
		}
	free(w);
	return ok ? res : NULL;
}

/* ---- matrices ------------------------------------------------------------ */

/* Element (i, j), i >= j, of the lower triangle that defines a Hermitian
 * matrix: a's own (lower), or the conjugate transpose of a's upper. */
static cplx tri_lower(const Literal *a, int64_t base, int64_t n, bool lower,
		      int64_t i, int64_t j)
{
	return lower ? cget(a, base + i * n + j)
		     : conj(cget(a, base + j * n + i));
}

/* The lower Cholesky factor of one matrix into l (n x n, zero above the
 * diagonal); false when a pivot's square root is NaN (not positive
 * definite). */
static bool cholesky1(Interp *it, const HloInstr *ins, const Literal *a,
		      int64_t base, int64_t n, bool lower, cplx *l,
		      int64_t *macs)
{
	bool good = true;
	for (int64_t j = 0; j < n; j++) {
		cplx d = tri_lower(a, base, n, lower, j, j);
		for (int64_t k = 0; k < j; k++)
			d -= l[j * n + k] * conj(l[j * n + k]);
		double s = sqrt(creal(d)); /* a Hermitian diagonal is real */
		good = good && !isnan(s);
		l[j * n + j] = s;
		for (int64_t i = j + 1; i < n; i++) {
			cplx v = tri_lower(a, base, n, lower, i, j);
			for (int64_t k = 0; k < j; k++)
				v -= l[i * n + k] * conj(l[j * n + k]);
			l[i * n + j] = v / s;
		}
		for (int64_t i = 0; i < j; i++)
			l[i * n + j] = 0;
		if (!tick(it, ins, macs, (n - j) * (j + 1)))
			return true; /* the caller sees the failure */
	}
	return good;
}

/* cholesky(a), lower: the lower-triangular l with a = l l^H, reading only
 * a's lower triangle; otherwise the upper u with a = u^H u from the upper
 * triangle. The other triangle is zero. As XLA's expansion does, a matrix
 * whose factorization meets a negative (or NaN) pivot is all NaN. */
static Literal *ev_cholesky(Interp *it, const HloInstr *ins,
			    Literal *const *ops, Literal *out)
{
	const Literal *a = ops[0];
	Literal *res = out;
	int rank = a->shape->rank;
	if (!res || rank < 2)
		return it_fail(it, ins, "needs square matrices");
	int64_t n = a->shape->dims[rank - 1], nn = n * n, macs = 0;
	bool lower = false;
	HloAttr *la = hlo_attr_find(ins, A_LOWER);
	if (la)
		lower = la->u.b;
	cplx *l = malloc(sizeof *l * (size_t)(nn + 1));
	if (!l)
		return it_fail(it, ins, "out of memory");
	int64_t mats = nn ? a->n / nn : 0;
	bool ok = true;
	for (int64_t b = 0; ok && b < mats; b++) {
		bool good = cholesky1(it, ins, a, b * nn, n, lower, l, &macs);
		for (int64_t i = 0; i < n; i++)
			for (int64_t j = 0; j < n; j++)
				cset(res, b * nn + i * n + j,
				     !good   ? NAN
				     : lower ? l[i * n + j]
					     : conj(l[j * n + i]));
		ok = it_poll(it, ins);
	}
	free(l);
	return ok ? res : NULL;
}

/* triangular-solve(a, b): solves op(a) x = b (left_side) or x op(a) = b,
 * op being none, transpose or adjoint (transpose_a), a being triangular:
 * only its lower (or upper) triangle is read, and with unit_diagonal not
 * its diagonal either (taken as 1). Substitution in double. */
typedef struct Trsm {
	bool left, lower, unit;
	int op;    /* 0 none, 1 transpose, 2 adjoint */
	int64_t m; /* a is m x m */
	bool flip; /* s is a's triangle transposed */
	bool s_lower;
} Trsm;

/* s = the system matrix of one solve: s x = rhs with x a column of the
 * result (left side) or a row of it (x op(a) = b <=> op(a)^T x^T = b^T). */
static void trsm_matrix(const Trsm *t, const Literal *a, int64_t ab, cplx *s)
{
	int64_t m = t->m;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < m; j++) {
			int64_t si = t->flip ? j : i, sj = t->flip ? i : j;
			bool keep = t->lower ? si > sj : si < sj;
			cplx v = si == sj
					 ? (t->unit ? 1
						    : cget(a, ab + si * m + si))
				 : keep ? cget(a, ab + si * m + sj)
					: 0;
			s[i * m + j] = t->op == 2 ? conj(v) : v;
		}
}

/* Solves s x = b[at + i * step] (i < m) into res at the same places. */
static void trsm_solve(const Trsm *t, const cplx *s, const Literal *b,
		       Literal *res, int64_t at, int64_t step, cplx *x)
{
	int64_t m = t->m;
	for (int64_t k = 0; k < m; k++) {
		int64_t i = t->s_lower ? k : m - 1 - k;
		int64_t j0 = t->s_lower ? 0 : i + 1, j1 = t->s_lower ? i : m;
		cplx v = cget(b, at + i * step);
		for (int64_t j = j0; j < j1; j++)
			v -= s[i * m + j] * x[j];
		x[i] = v / s[i * m + i];
	}
	for (int64_t i = 0; i < m; i++)
		cset(res, at + i * step, x[i]);
}

static Literal *ev_triangular_solve(Interp *it, const HloInstr *ins,
				    Literal *const *ops, Literal *out)
{
	const Literal *a = ops[0], *b = ops[1];
	Literal *res = out;
	int rank = b->shape->rank;
	Trsm t = {0};
	HloAttr *f;
	if ((f = hlo_attr_find(ins, A_LEFT_SIDE)))
		t.left = f->u.b;
	if ((f = hlo_attr_find(ins, A_LOWER)))
		t.lower = f->u.b;
	if ((f = hlo_attr_find(ins, A_UNIT_DIAGONAL)))
		t.unit = f->u.b;
	const char *tr = hlo_attr_enum(ins, A_TRANSPOSE_A);
	t.op = !tr || !strcmp(tr, "NO_TRANSPOSE") ? 0
	       : !strcmp(tr, "TRANSPOSE")         ? 1
	       : !strcmp(tr, "ADJOINT")           ? 2
						  : -1;
	if (t.op < 0)
		return it_fail(it, ins, "unknown transpose_a %s", tr);
	if (!res || rank < 2 || a->shape->rank != rank)
		return it_fail(it, ins, "operands do not match");
	int64_t rows = b->shape->dims[rank - 2],
		cols = b->shape->dims[rank - 1];
	t.m = t.left ? rows : cols;
	if (a->shape->dims[rank - 1] != t.m || a->shape->dims[rank - 2] != t.m)
		return it_fail(it, ins, "a is not %lld x %lld", (long long)t.m,
			       (long long)t.m);
	t.flip = (t.op != 0) != !t.left;
	t.s_lower = t.lower != t.flip;
	cplx *s = malloc(sizeof *s * (size_t)(t.m * t.m + 1));
	cplx *x = malloc(sizeof *x * (size_t)(t.m + 1));
	bool ok = s && x;
	if (!ok)
		it_fail(it, ins, "out of memory");
	int64_t mats = t.m ? a->n / (t.m * t.m) : 0, macs = 0;
	int64_t nrhs = t.left ? cols : rows, step = t.left ? cols : 1;
	for (int64_t k = 0; ok && k < mats; k++) {
		trsm_matrix(&t, a, k * t.m * t.m, s);
		for (int64_t r = 0; ok && r < nrhs; r++) {
			int64_t at = k * rows * cols + (t.left ? r : r * cols);
			trsm_solve(&t, s, b, res, at, step, x);
			ok = tick(it, ins, &macs, t.m * t.m);
		}
	}
	free(s);
	free(x);
	return ok ? res : NULL;
}

/* ---- batch norm ---------------------------------------------------------- */

/* Per-feature sums over every element of x (feature dimension fi). */
typedef struct Bn {
	int64_t nf, stride, count; /* features, stride of fi, per feature */
	double eps;
	double *mean, *var, *s1, *s2;
} Bn;

static bool bn_init(Interp *it, const HloInstr *ins, const Literal *x, Bn *bn)
{
	int64_t fi = -1, st[XR_MAX_RANK];
	memset(bn, 0, sizeof *bn);
	hlo_attr_int(ins, A_FEATURE_INDEX, &fi);
	if (fi < 0 || fi >= x->shape->rank)
		return it_fail(it, ins, "feature_index out of range"), false;
	HloAttr *e = hlo_attr_find(ins, A_EPSILON);
	bn->eps = e ? (double)(float)e->u.f : 0; /* XLA keeps it as f32 */
	it_strides(x->shape, st);
	bn->nf = x->shape->dims[fi];
	bn->stride = st[fi];
	bn->count = bn->nf ? x->n / bn->nf : 0;
	size_t n = (size_t)bn->nf + 1;
	bn->mean = calloc(n, sizeof(double));
	bn->var = calloc(n, sizeof(double));
	bn->s1 = calloc(n, sizeof(double));
	bn->s2 = calloc(n, sizeof(double));
	if (!bn->mean || !bn->var || !bn->s1 || !bn->s2)
		return it_fail(it, ins, "out of memory"), false;
	return true;
}

static void bn_free(Bn *bn)
{
	free(bn->mean);
	free(bn->var);
	free(bn->s1);
	free(bn->s2);
}

static int64_t bn_feature(const Bn *bn, int64_t i)
{
	return i / bn->stride % bn->nf;
}

/* mean and biased variance per feature, two passes in double. */
static void bn_stats(Bn *bn, const Literal *x)
{
	for (int64_t i = 0; i < x->n; i++)
		bn->mean[bn_feature(bn, i)] += it_getf(x, i);
	for (int64_t c = 0; c < bn->nf; c++)
		bn->mean[c] = bn->count ? bn->mean[c] / (double)bn->count : NAN;
	for (int64_t i = 0; i < x->n; i++) {
		double d = it_getf(x, i) - bn->mean[bn_feature(bn, i)];
		bn->var[bn_feature(bn, i)] += d * d;
	}
	for (int64_t c = 0; c < bn->nf; c++)
		bn->var[c] = bn->count ? bn->var[c] / (double)bn->count : NAN;
}

/* y = (x - mean) / sqrt(var + eps) * scale + offset */
static void bn_normalize(const Bn *bn, const Literal *x, const Literal *scale,
			 const Literal *offset, Literal *y)
{
	for (int64_t i = 0; i < x->n; i++) {
		int64_t c = bn_feature(bn, i);
		double v = (it_getf(x, i) - bn->mean[c]) /
			   sqrt(bn->var[c] + bn->eps);
		it_setf(y, i, v * it_getf(scale, c) + it_getf(offset, c));
	}
}

static bool bn_shapes(Interp *it, const HloInstr *ins, Literal *res, int n)
{
	if (res && res->shape->type == DT_TUPLE && res->ntuple == n)
		return true;
	if (res && n == 1 && res->shape->type != DT_TUPLE)
		return true;
	it_fail(it, ins, "unexpected result shape");
	return false;
}

/* batch-norm-training(x, scale, offset): (y, mean, biased variance). */
static Literal *ev_bn_training(Interp *it, const HloInstr *ins,
			       Literal *const *ops, Literal *out)
{
	Bn bn = {0};
	Literal *res = out ? out : it_new(it, ins, ins->shape);
	bool ok = bn_shapes(it, ins, res, 3) && bn_init(it, ins, ops[0], &bn);
	if (ok) {
		bn_stats(&bn, ops[0]);
		bn_normalize(&bn, ops[0], ops[1], ops[2], res->tuple[0]);
		for (int64_t c = 0; c < bn.nf; c++) {
			it_setf(res->tuple[1], c, bn.mean[c]);
			it_setf(res->tuple[2], c, bn.var[c]);
		}
	}
	bn_free(&bn);
	if (!ok && res != out)
		it_free(it, res);
	return ok ? res : NULL;
}

/* batch-norm-inference(x, scale, offset, mean, variance) */
static Literal *ev_bn_inference(Interp *it, const HloInstr *ins,
				Literal *const *ops, Literal *out)
{
	Bn bn = {0};
	bool ok = bn_shapes(it, ins, out, 1) && bn_init(it, ins, ops[0], &bn);
	if (ok) {
		for (int64_t c = 0; c < bn.nf; c++) {
			bn.mean[c] = it_getf(ops[3], c);
			bn.var[c] = it_getf(ops[4], c);
		}
		bn_normalize(&bn, ops[0], ops[1], ops[2], out);
	}
	bn_free(&bn);
	return ok ? out : NULL;
}

/* batch-norm-grad(x, scale, mean, variance, dy): (dx, dscale, doffset)
 *   doffset = sum(dy), dscale = sum(dy (x - mean)) / sqrt(var + eps),
 *   dx = scale / sqrt(var + eps) *
 *        (dy - mean(dy) - (x - mean) mean(dy (x - mean)) / (var + eps)) */
static Literal *ev_bn_grad(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out)
{
	Bn bn = {0};
	const Literal *x = ops[0], *scale = ops[1], *dy = ops[4];
	Literal *res = out ? out : it_new(it, ins, ins->shape);
	bool ok = bn_shapes(it, ins, res, 3) && bn_init(it, ins, x, &bn);
	for (int64_t c = 0; ok && c < bn.nf; c++) {
		bn.mean[c] = it_getf(ops[2], c);
		bn.var[c] = it_getf(ops[3], c) + bn.eps;
	}
	for (int64_t i = 0; ok && i < x->n; i++) {
		int64_t c = bn_feature(&bn, i);
		double g = it_getf(dy, i);
		bn.s1[c] += g;
		bn.s2[c] += g * (it_getf(x, i) - bn.mean[c]);
	}
	for (int64_t i = 0; ok && i < x->n; i++) {
		int64_t c = bn_feature(&bn, i);
		double cnt = (double)bn.count, rs = 1 / sqrt(bn.var[c]);
		double v = it_getf(dy, i) - bn.s1[c] / cnt -
			   (it_getf(x, i) - bn.mean[c]) * bn.s2[c] / cnt /
				   bn.var[c];
		it_setf(res->tuple[0], i, it_getf(scale, c) * rs * v);
	}
	for (int64_t c = 0; ok && c < bn.nf; c++) {
		it_setf(res->tuple[1], c, bn.s2[c] / sqrt(bn.var[c]));
		it_setf(res->tuple[2], c, bn.s1[c]);
	}
	bn_free(&bn);
	if (!ok && res != out)
		it_free(it, res);
	return ok ? res : NULL;
}

void interp_register_linalg(EvalFn *t)
{
	t[HLO_DOT] = ev_dot;
	t[HLO_CONVOLUTION] = ev_convolution;
	t[HLO_FFT] = ev_fft;
	t[HLO_CHOLESKY] = ev_cholesky;
	t[HLO_TRIANGULAR_SOLVE] = ev_triangular_solve;
	t[HLO_BATCH_NORM_TRAINING] = ev_bn_training;
	t[HLO_BATCH_NORM_INFERENCE] = ev_bn_inference;
	t[HLO_BATCH_NORM_GRAD] = ev_bn_grad;
}
