/* interp_elementwise.c - the interpreter's elementwise opcodes.
 *
 * Every unary, binary and unary-pred opcode of opcodes.def, and compare,
 * select, clamp, convert, bitcast-convert, reduce-precision, real, imag,
 * complex, iota, rng and stochastic-convert, with the semantics of XLA's
 * HloEvaluator (hlo_evaluator_typed_visitor.h).
 *
 * Values go through in chunks: a chunk of each operand is loaded into a
 * buffer of doubles, 64-bit integers or complex parts (with fast paths for
 * f32, f64, s32 and s64 storage), one switch per chunk picks the loop for
 * the opcode, and the chunk is stored back through the element type.
 *
 * Numerics:
 * - Floats of every width are computed in double and rounded to the
 *   element type once per operation (literal_set_f64: nearest-even for
 *   f16, bf16 and the f8 types). XLA computes f16/bf16/f8 in f32 and
 *   rounds; for + - * / and sqrt both give the same bits, since double has
 *   more than 2p+2 bits of precision for every p <= 24. Transcendental
 *   functions use double libm for every float type and then round, so f32
 *   and narrower may differ from XLA's float libm calls in the last bit.
 * - Integers are computed in 64 bits with unsigned arithmetic (no signed
 *   overflow) and wrapped to the element width on store.
 * - Complex values are computed in double complex (C99 Annex G products
 *   and quotients, as libstdc++'s std::complex) and rounded per part.
 *
 * Edge cases, all as HloEvaluator unless noted:
 * - maximum/minimum return a NaN operand (lhs first); on ties (+0, -0)
 *   they return the lhs, as std::max/std::min do.
 * - integer x/0 is -1 (all ones, also for unsigned), INT_MIN/-1 is
 *   INT_MIN, x%0 is x, INT_MIN%-1 is 0; both round toward zero.
 * - shift amounts are read as unsigned at the element width; amounts >=
 *   the width give 0 (shift-left, shift-right-logical) or the sign fill
 *   (shift-right-arithmetic, which reads unsigned operands as signed).
 * - integer power: 1 when the base is 1 or the exponent 0, 0 for any
 *   other base with a negative exponent (-1 included, as HloEvaluator and
 *   the CPU/GPU emitters; StableHLO's reference gives +-1 there), else
 *   repeated squaring mod 2^64.
 * - pred arithmetic follows C++ bool: add and maximum are or, multiply
 *   and minimum are and.
 * - count-leading-zeros and popcnt work on the element's bits at its
 *   logical width (s4 has 4). HloEvaluator gives -56 for clz of a negative
 *   s8 and counts 8 bits for popcnt of s4; we follow the bit semantics
 *   that XLA's CPU and GPU backends compute.
 * - convert: float -> int saturates, truncates toward zero, NaN -> 0;
 *   int -> f32/f64 rounds to nearest once, int -> f16/bf16/f8 goes
 *   through f32 (as Eigen and ml_dtypes do); f64 -> f16/bf16 rounds once
 *   (XLA's CPU backend; HloEvaluator goes through f32, which can differ
 *   on a double-rounding tie); complex -> real takes the real part.
 * - reduce-precision works on f32 bits for f32 and narrower (as
 *   HloEvaluator, whose f16/bf16 visitors compute in float) and on f64
 *   bits for f64: mantissa rounded to nearest-even, exponent overflow ->
 *   inf, values below the smallest normal -> signed zero, NaN stays the
 *   same NaN (also when mantissa_bits is 0, which has no NaN: XLA:CPU
 *   keeps it, where HloEvaluator makes it +inf).
 * - compare TOTALORDER orders floats by sign-magnitude bits: -NaN < -inf
 *   < ... < -0 < +0 < ... < inf < NaN.
 * - rng is deterministic: a splitmix64 stream seeded from the
 *   instruction's name (see rng_seed), rng_uniform in [a, b) (values that
 *   round up to b are drawn again, as HloEvaluator does) and rng_normal
 *   with mean a and deviation b (Box-Muller). */
#include "interp_impl.h"

#include <complex.h>
#include <math.h>
#include <string.h>

static const double TWO_PI = 6.283185307179586476925286766559;

enum {
	CHUNK = 256,          /* elements per buffer */
	POLL_EVERY = 1 << 16, /* elements between interrupt checks */
};

static Dtype ty(const Literal *l) { return l->shape->type; }

static int64_t chunk_len(int64_t n, int64_t off)
{
	return n - off < CHUNK ? n - off : CHUNK;
}

static bool tick(Interp *it, const HloInstr *ins, int64_t off)
{
	return off % POLL_EVERY != 0 || it_poll(it, ins);
}

static Literal *unsupported(Interp *it, const HloInstr *ins, Dtype t)
{
	return it_fail(it, ins,
		       "not supported by the interpreter for element "
		       "type %s",
		       dtype_name(t));
}

/* Operands have the result's element count, or one element (the scalar
 * forms of select and clamp). */
static bool counts_ok(Interp *it, const HloInstr *ins, Literal *const *ops,
		      int n, const Literal *out)
{
	if (!out) {
		it_fail(it, ins, "needs an array result");
		return false;
	}
	for (int i = 0; i < n; i++) {
		if (!ops[i] || !dtype_is_array(ty(ops[i])) ||
		    (ops[i]->n != out->n && ops[i]->n != 1)) {
			it_fail(it, ins,
				"operand %d does not match the result "
				"shape",
				i);
			return false;
		}
	}
	return true;
}

/* ---- f16 and bf16 without the generic codec -------------------------- */

static double bf16_value(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* NaNs keep their payload, as dtype_f16_to_float. */
static double f16_value(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f;
	uint32_t m = h & 0x3ff, u;
	if (e == 0) /* zero or subnormal: m * 2^-24 */
		return sign ? -(double)m * 0x1p-24 : (double)m * 0x1p-24;
	if (e == 0x1f)
		u = sign | 0x7f800000u | m << 13;
	else
		u = sign | (e + 112) << 23 | m << 13;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* v rounded once, to nearest-even, to a format with ebits exponent and mb
 * mantissa bits (bias 2^(ebits-1) - 1), straight from the bits of the
 * double. Only zeros and results in the normal range take this path;
 * false sends subnormals, overflow, inf and NaN to the generic codec. */
static bool round_normal(double v, int ebits, int mb, uint32_t *code)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	uint32_t sign = (uint32_t)(u >> 63) << (ebits + mb);
	uint64_t mag = u & ~((uint64_t)1 << 63);
	if (mag == 0) {
		*code = sign;
		return true;
	}
	int bias = (1 << (ebits - 1)) - 1, drop = 52 - mb;
	if ((int)(mag >> 52) - 1023 + bias < 1)
		return false;
	mag += ((uint64_t)1 << (drop - 1)) - 1 + ((mag >> drop) & 1);
	int e = (int)(mag >> 52) - 1023 + bias; /* after a carry */
	if (e >= (1 << ebits) - 1)
		return false;
	*code = sign | (uint32_t)e << mb |
		((uint32_t)(mag >> drop) & ((1u << mb) - 1));
	return true;
}

static void store_half(Literal *l, int64_t off, int64_t n, const double *v)
{
	Dtype t = ty(l);
	int ebits = t == DT_F16 ? 5 : 8, mb = t == DT_F16 ? 10 : 7;
	unsigned char *p = l->data;
	for (int64_t i = 0; i < n; i++) {
		uint32_t c;
		if (!round_normal(v[i], ebits, mb, &c))
			c = dtype_double_to_small_float(t, v[i]);
		uint16_t h = (uint16_t)c;
		memcpy(p + 2 * (off + i), &h, 2);
	}
}

/* ---- chunk loads and stores ------------------------------------------- */

/* Fast paths of the loads and stores below: element off + i held in p as
 * the C type T (f32, s32), converted by assignment to or from v[i]. */
#define LOAD_AS(T)                                              \
	for (int64_t i = 0; i < n; i++) {                       \
		T x;                                            \
		memcpy(&x, p + sizeof x * (off + i), sizeof x); \
		v[i] = x;                                       \
	}
#define STORE_AS(T)                                             \
	for (int64_t i = 0; i < n; i++) {                       \
		T x = (T)v[i];                                  \
		memcpy(p + sizeof x * (off + i), &x, sizeof x); \
	}

/* A one-element operand is broadcast over the chunk. */
static void load_f(const Literal *l, int64_t off, int64_t n, double *v)
{
	const unsigned char *p = l->data;
	if (l->n == 1) {
		double x = it_getf(l, 0);
		for (int64_t i = 0; i < n; i++)
			v[i] = x;
		return;
	}
	switch (ty(l)) {
	case DT_F32:
		LOAD_AS(float);
		break;
	case DT_F64:
		memcpy(v, p + 8 * off, (size_t)n * 8);
		break;
	case DT_F16:
	case DT_BF16:
		for (int64_t i = 0; i < n; i++) {
			uint16_t h;
			memcpy(&h, p + 2 * (off + i), 2);
			v[i] = ty(l) == DT_F16 ? f16_value(h) : bf16_value(h);
		}
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			v[i] = it_getf(l, off + i);
	}
}

static void store_f(Literal *l, int64_t off, int64_t n, const double *v)
{
	unsigned char *p = l->data;
	switch (ty(l)) {
	case DT_F32:
		STORE_AS(float);
		break;
	case DT_F64:
		memcpy(p + 8 * off, v, (size_t)n * 8);
		break;
	case DT_F16:
	case DT_BF16:
		store_half(l, off, n, v);
		break;
	case DT_S32: /* convert's rule: NaN -> 0, saturate, truncate */
		for (int64_t i = 0; i < n; i++) {
			double x = v[i];
			int32_t y = isnan(x)             ? 0
				    : x >= 2147483647.0  ? INT32_MAX
				    : x <= -2147483648.0 ? INT32_MIN
							 : (int32_t)x;
			memcpy(p + 4 * (off + i), &y, 4);
		}
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			it_setf(l, off + i, v[i]);
	}
}

/* Signed types come sign-extended, unsigned zero-extended (u64 above
 * INT64_MAX keeps its bits), pred as 0/1. */
static void load_i(const Literal *l, int64_t off, int64_t n, int64_t *v)
{
	const unsigned char *p = l->data;
	if (l->n == 1) {
		int64_t x = it_geti(l, 0);
		for (int64_t i = 0; i < n; i++)
			v[i] = x;
		return;
	}
	switch (ty(l)) {
	case DT_S32:
		LOAD_AS(int32_t);
		break;
	case DT_S64:
		memcpy(v, p + 8 * off, (size_t)n * 8);
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			v[i] = it_geti(l, off + i);
	}
}

/* Wraps to the element width; pred stores v != 0. */
static void store_i(Literal *l, int64_t off, int64_t n, const int64_t *v)
{
	unsigned char *p = l->data;
	switch (ty(l)) {
	case DT_S32:
		STORE_AS(uint32_t);
		break;
	case DT_S64:
		memcpy(p + 8 * off, v, (size_t)n * 8);
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			it_seti(l, off + i, v[i]);
	}
}

static void load_c(const Literal *l, int64_t off, int64_t n, double *re,
		   double *im)
{
	for (int64_t i = 0; i < n; i++)
		literal_get_c(l, l->n == 1 ? 0 : off + i, &re[i], &im[i]);
}

static void store_c(Literal *l, int64_t off, int64_t n, const double *re,
		    const double *im)
{
	for (int64_t i = 0; i < n; i++)
		literal_set_c(l, off + i, re[i], im[i]);
}

/* Storage bits of element i (little-endian bytes; sub-byte integers keep
 * their sign extension, mask them with the logical width). */
static uint64_t raw_bits(const Literal *l, int64_t i)
{
	int b = dtype_bytes(ty(l));
	uint8_t bytes[8] = {0};
	memcpy(bytes, (const unsigned char *)l->data + i * b,
	       (size_t)(b < 8 ? b : 8));
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | bytes[k];
	return v;
}

static void put_raw_bits(Literal *l, int64_t i, uint64_t v)
{
	if (dtype_is_int(ty(l)) || ty(l) == DT_PRED) {
		it_seti(l, i, (int64_t)v); /* wraps and sign-extends */
		return;
	}
	int b = dtype_bytes(ty(l));
	uint8_t bytes[8];
	for (int k = 0; k < 8; k++)
		bytes[k] = (uint8_t)(v >> (8 * k));
	memcpy((unsigned char *)l->data + i * b, bytes,
	       (size_t)(b < 8 ? b : 8));
}

static uint64_t width_mask(int w)
{
	return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

/* The low w bits of v as a signed number. */
static int64_t sext(uint64_t v, int w)
{
	v &= width_mask(w);
	if (w < 64 && (v >> (w - 1)) & 1)
		v |= ~width_mask(w);
	return (int64_t)v;
}

/* An integer as the float type t rounds it: f64 (and c128) directly, the
 * narrower types through f32 as Eigen and ml_dtypes do. */
static double int_to_fp(Dtype t, int64_t v, bool is_unsigned)
{
	if (t == DT_F64 || t == DT_C128)
		return is_unsigned ? (double)(uint64_t)v : (double)v;
	return is_unsigned ? (double)(float)(uint64_t)v : (double)(float)v;
}

/* ---- per-chunk operations --------------------------------------------- */

#define MAP1(expr)                        \
	for (int64_t i = 0; i < n; i++) { \
		double x = v[i];          \
		v[i] = (expr);            \
	}
#define MAP2(expr)                         \
	for (int64_t i = 0; i < n; i++) {  \
		double x = a[i], y = b[i]; \
		a[i] = (expr);             \
	}
#define IMAP1(expr)                       \
	for (int64_t i = 0; i < n; i++) { \
		int64_t x = v[i];         \
		v[i] = (expr);            \
	}
#define IMAP2(expr)                         \
	for (int64_t i = 0; i < n; i++) {   \
		int64_t x = a[i], y = b[i]; \
		a[i] = (expr);              \
	}

/* clang-format off */
/* In place on v[0..n). false when op has no float form (call with n = 0
 * and NULL buffers to ask). */
static bool f_unary(HloOpcode op, double *v, int64_t n)
{
	switch (op) {
	case HLO_ABS: MAP1(fabs(x)); break;
	case HLO_NEGATE: MAP1(-x); break;
	case HLO_SIGN: MAP1(isnan(x) ? x : copysign(x != 0, x)); break;
	case HLO_EXP: MAP1(exp(x)); break;
	case HLO_EXPM1: MAP1(expm1(x)); break;
	case HLO_LOG: MAP1(log(x)); break;
	case HLO_LOG1P: MAP1(log1p(x)); break;
	case HLO_LOGISTIC: MAP1(1 / (1 + exp(-x))); break;
	case HLO_SQRT: MAP1(sqrt(x)); break;
	case HLO_RSQRT: MAP1(1 / sqrt(x)); break;
	case HLO_CBRT: MAP1(cbrt(x)); break;
	case HLO_SIN: MAP1(sin(x)); break;
	case HLO_COS: MAP1(cos(x)); break;
	case HLO_TAN: MAP1(tan(x)); break;
	case HLO_TANH: MAP1(tanh(x)); break;
	case HLO_SINH: MAP1(sinh(x)); break;
	case HLO_COSH: MAP1(cosh(x)); break;
	case HLO_ASIN: MAP1(asin(x)); break;
	case HLO_ACOS: MAP1(acos(x)); break;
	case HLO_ASINH: MAP1(asinh(x)); break;
	case HLO_ACOSH: MAP1(acosh(x)); break;
	case HLO_ATANH: MAP1(atanh(x)); break;
	case HLO_ERF: MAP1(erf(x)); break;
	case HLO_FLOOR: MAP1(floor(x)); break;
	case HLO_CEIL: MAP1(ceil(x)); break;
	case HLO_ROUND_AFZ: MAP1(round(x)); break;
	case HLO_ROUND_EVEN: MAP1(nearbyint(x)); break; /* to nearest mode */
	case HLO_COPY: break;
	default:
		return false;
	}
	return true;
}
/* clang-format on */

/* clang-format off */
static bool f_binary(HloOpcode op, double *a, const double *b, int64_t n)
{
	switch (op) {
	case HLO_ADD: MAP2(x + y); break;
	case HLO_SUBTRACT: MAP2(x - y); break;
	case HLO_MULTIPLY: MAP2(x * y); break;
	case HLO_DIVIDE: MAP2(x / y); break;
	case HLO_REMAINDER: MAP2(fmod(x, y)); break;
	case HLO_ATAN2: MAP2(atan2(x, y)); break;
	case HLO_POWER: MAP2(x == 1 || y == 0 ? 1 : pow(x, y)); break;
	case HLO_MAXIMUM: MAP2(it_fmax(x, y)); break;
	case HLO_MINIMUM: MAP2(it_fmin(x, y)); break;
	default:
		return false;
	}
	return true;
}
/* clang-format on */

static int clz_bits(uint64_t v, int w)
{
	int k = 0;
	for (int bit = w - 1; bit >= 0 && !((v >> bit) & 1); bit--)
		k++;
	return k;
}

static int popcount(uint64_t v)
{
	int k = 0;
	for (; v; v &= v - 1)
		k++;
	return k;
}

typedef struct {
	int w;    /* logical width */
	bool sgn; /* signed type */
	bool pred;
	uint64_t mask; /* the width's bits */
} IntType;

static IntType int_type(Dtype t)
{
	IntType k = {dtype_bits(t), dtype_kind(t) == DK_SINT, t == DT_PRED, 0};
	if (k.pred)
		k.w = 1;
	k.mask = width_mask(k.w);
	return k;
}

static int64_t neg_wrap(int64_t x) { return (int64_t)(0 - (uint64_t)x); }

/* clang-format off */
static bool i_unary(HloOpcode op, IntType k, int64_t *v, int64_t n)
{
	switch (op) {
	case HLO_ABS: IMAP1(k.sgn && x < 0 ? neg_wrap(x) : x); break;
	case HLO_NEGATE: IMAP1(neg_wrap(x)); break;
	case HLO_SIGN: IMAP1(k.sgn ? (x > 0) - (x < 0) : x != 0); break;
	case HLO_NOT: IMAP1(k.pred ? !x : ~x); break;
	case HLO_CLZ: IMAP1(clz_bits((uint64_t)x & k.mask, k.w)); break;
	case HLO_POPCNT: IMAP1(popcount((uint64_t)x & k.mask)); break;
	case HLO_COPY: break;
	default:
		return false;
	}
	return true;
}
/* clang-format on */

/* Division and remainder rounding toward zero, with HloEvaluator's
 * results where C has undefined behaviour. */
static int64_t idiv(int64_t x, int64_t y, IntType k)
{
	if (y == 0)
		return -1;
	if (!k.sgn)
		return (int64_t)((uint64_t)x / (uint64_t)y);
	if (y == -1)
		return neg_wrap(x); /* INT_MIN / -1 wraps to INT_MIN */
	return x / y;
}

static int64_t irem(int64_t x, int64_t y, IntType k)
{
	if (y == 0)
		return x;
	if (!k.sgn)
		return (int64_t)((uint64_t)x % (uint64_t)y);
	if (y == -1)
		return 0;
	return x % y;
}

static int64_t ishift(HloOpcode op, int64_t x, int64_t y, IntType k)
{
	uint64_t s = (uint64_t)y & k.mask;
	if (op == HLO_SHRA) {
		int64_t sx = sext((uint64_t)x, k.w);
		if (s >= (uint64_t)k.w)
			return sx < 0 ? -1 : 0;
		return sx < 0 ? ~(~sx >> s) : sx >> s;
	}
	if (s >= (uint64_t)k.w)
		return 0;
	if (op == HLO_SHL)
		return (int64_t)((uint64_t)x << s);
	return (int64_t)(((uint64_t)x & k.mask) >> s);
}

static int64_t ipow(int64_t x, int64_t y, IntType k)
{
	if (x == 1 || y == 0)
		return 1;
	if (k.pred)
		return x || !y;
	/* a negative exponent: 1/x^|y| truncated, which is 0 but for x = -1
	 * (+-1; XLA:CPU and StableHLO; XLA's evaluator gives 0) */
	if (k.sgn && y < 0)
		return x == -1 ? (y & 1 ? -1 : 1) : 0;
	uint64_t r = 1, base = (uint64_t)x, e = (uint64_t)y;
	for (; e; e >>= 1) {
		if (e & 1)
			r *= base;
		base *= base;
	}
	return (int64_t)r;
}

static bool ilt(int64_t x, int64_t y, IntType k)
{
	return k.sgn ? x < y : (uint64_t)x < (uint64_t)y;
}

/* clang-format off */
static bool i_binary(HloOpcode op, IntType k, int64_t *a, const int64_t *b,
		     int64_t n)
{
	switch (op) {
	case HLO_ADD: IMAP2((int64_t)((uint64_t)x + (uint64_t)y)); break;
	case HLO_SUBTRACT: IMAP2((int64_t)((uint64_t)x - (uint64_t)y)); break;
	case HLO_MULTIPLY: IMAP2((int64_t)((uint64_t)x * (uint64_t)y)); break;
	case HLO_DIVIDE: IMAP2(idiv(x, y, k)); break;
	case HLO_REMAINDER: IMAP2(irem(x, y, k)); break;
	case HLO_POWER: IMAP2(ipow(x, y, k)); break;
	case HLO_MAXIMUM: IMAP2(ilt(x, y, k) ? y : x); break;
	case HLO_MINIMUM: IMAP2(ilt(y, x, k) ? y : x); break;
	case HLO_AND: IMAP2(x & y); break;
	case HLO_OR: IMAP2(x | y); break;
	case HLO_XOR: IMAP2(x ^ y); break;
	case HLO_SHL:
	case HLO_SHRA:
	case HLO_SHRL:
		if (k.pred)
			return false;
		IMAP2(ishift(op, x, y, k));
		break;
	default:
		return false;
	}
	return true;
}
/* clang-format on */

/* re + i*im, also for infinite or NaN parts (re + im * I is not; CMPLX is
 * missing with some compiler and libc pairs). A complex has the layout of
 * double[2], real part first (C17 6.2.5). */
static double complex cplx(double re, double im)
{
	double parts[2] = {re, im};
	double complex z;
	memcpy(&z, parts, sizeof z);
	return z;
}

#define CMAP1(expr)                                    \
	for (int64_t i = 0; i < n; i++) {              \
		double complex z = cplx(re[i], im[i]); \
		double complex r = (expr);             \
		re[i] = creal(r);                      \
		im[i] = cimag(r);                      \
	}
#define CMAP2(expr)                                    \
	for (int64_t i = 0; i < n; i++) {              \
		double complex x = cplx(ar[i], ai[i]); \
		double complex y = cplx(br[i], bi[i]); \
		double complex r = (expr);             \
		ar[i] = creal(r);                      \
		ai[i] = cimag(r);                      \
	}

/* z / |z|, or z itself when it is zero (its zeros keep their signs, as
 * XLA:CPU gives them: sign(-0+0i) is -0+0i). */
static double complex csign(double complex z)
{
	double m = cabs(z);
	return m == 0 ? z : cplx(creal(z) / m, cimag(z) / m);
}

/* e^z - 1 without the cancellation of cexp(z) - 1 for small |z|:
 * e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y/2). */
static double complex cexpm1(double complex z)
{
	double x = creal(z), y = cimag(z), h = sin(y / 2);
	if (isinf(x) || isnan(x) || isinf(y) || isnan(y))
		return cexp(z) - 1;
	/* a real z stays real when e^x overflows (inf * sin 0 is NaN) */
	return cplx(expm1(x) * cos(y) - 2 * h * h,
		    y == 0 ? y : exp(x) * sin(y));
}

/* log(1 + z), exact to the last bits for small |z|: |1 + z|^2 =
 * 1 + (2x + x^2 + y^2), so log|1 + z| = log1p(x(2 + x) + y^2) / 2. */
static double complex clog1p(double complex z)
{
	double x = creal(z), y = cimag(z);
	if (!(hypot(x, y) < 0.5))
		return clog(1 + z);
	return cplx(log1p(x * (2 + x) + y * y) / 2, atan2(y, 1 + x));
}

/* clang-format off */
static bool c_unary(HloOpcode op, double *re, double *im, int64_t n)
{
	switch (op) {
	case HLO_NEGATE: CMAP1(-z); break;
	case HLO_SIGN: CMAP1(csign(z)); break;
	case HLO_EXP: CMAP1(cexp(z)); break;
	case HLO_EXPM1: CMAP1(cexpm1(z)); break;
	case HLO_LOG: CMAP1(clog(z)); break;
	case HLO_LOG1P: CMAP1(clog1p(z)); break;
	case HLO_LOGISTIC: CMAP1(1 / (1 + cexp(-z))); break;
	case HLO_SQRT: CMAP1(csqrt(z)); break;
	case HLO_RSQRT: CMAP1(1 / csqrt(z)); break;
	case HLO_CBRT: CMAP1(cpow(z, 1.0 / 3.0)); break;
	case HLO_SIN: CMAP1(csin(z)); break;
	case HLO_COS: CMAP1(ccos(z)); break;
	case HLO_TAN: CMAP1(ctan(z)); break;
	case HLO_TANH: CMAP1(ctanh(z)); break;
	case HLO_SINH: CMAP1(csinh(z)); break;
	case HLO_COSH: CMAP1(ccosh(z)); break;
	case HLO_ASIN: CMAP1(casin(z)); break;
	case HLO_ACOS: CMAP1(cacos(z)); break;
	case HLO_ASINH: CMAP1(casinh(z)); break;
	case HLO_ACOSH: CMAP1(cacosh(z)); break;
	case HLO_ATANH: CMAP1(catanh(z)); break;
	case HLO_COPY: break;
	default:
		return false;
	}
	return true;
}
/* clang-format on */

/* HloEvaluator's complex power: 1 for x == 1 or y == 0, +inf^y is +inf
 * or 0 for a positive or negative real y, else cpow. */
static double complex cpower(double complex x, double complex y)
{
	if (x == 1 || y == 0)
		return 1;
	bool x_inf = cimag(x) == 0 && creal(x) > 0 && isinf(creal(x));
	if (x_inf && cimag(y) == 0 && creal(y) > 0)
		return x;
	if (x_inf && cimag(y) == 0 && creal(y) < 0)
		return 0;
	return cpow(x, y);
}

/* atan2(y, x) = -i * log((x + i*y) / sqrt(x*x + y*y)), as HloEvaluator. */
static double complex catan2(double complex y, double complex x)
{
	double complex iy = cplx(-cimag(y), creal(y));
	double complex w = clog((x + iy) / csqrt(x * x + y * y));
	return cplx(cimag(w), -creal(w)); /* -i * w */
}

/* clang-format off */
static bool c_binary(HloOpcode op, double *ar, double *ai, const double *br,
		     const double *bi, int64_t n)
{
	switch (op) {
	case HLO_ADD: CMAP2(x + y); break;
	case HLO_SUBTRACT: CMAP2(x - y); break;
	case HLO_MULTIPLY: CMAP2(x * y); break;
	case HLO_DIVIDE: CMAP2(x / y); break;
	case HLO_POWER: CMAP2(cpower(x, y)); break;
	case HLO_ATAN2: CMAP2(catan2(x, y)); break;
	default:
		return false;
	}
	return true;
}
/* clang-format on */

/* ---- unary and binary opcodes ----------------------------------------- */

/* One chunk of an elementwise opcode: elements [off, off + n) of out from
 * the same elements of ops (or element 0 of a one-element operand). */
typedef void ChunkFn(const HloInstr *ins, Literal *const *ops, Literal *out,
		     int64_t off, int64_t n);

/* Runs fn over out chunk by chunk, checking for Ctrl-C between chunks. */
static Literal *each_chunk(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out, ChunkFn *fn)
{
	for (int64_t off = 0; off < out->n; off += CHUNK) {
		if (!tick(it, ins, off))
			return NULL;
		fn(ins, ops, out, off, chunk_len(out->n, off));
	}
	return out;
}

static void un_float(const HloInstr *ins, Literal *const *ops, Literal *out,
		     int64_t off, int64_t n)
{
	double v[CHUNK];
	load_f(ops[0], off, n, v);
	f_unary(ins->op, v, n);
	store_f(out, off, n, v);
}

static void un_int(const HloInstr *ins, Literal *const *ops, Literal *out,
		   int64_t off, int64_t n)
{
	int64_t v[CHUNK];
	load_i(ops[0], off, n, v);
	i_unary(ins->op, int_type(ty(ops[0])), v, n);
	store_i(out, off, n, v);
}

/* negate and abs of f64, f32, f16 and bf16 on the bits: IEEE 754 has
 * them change the sign bit alone, so a signalling NaN stays one with its
 * payload (through double it came out quiet; XLA:CPU keeps it). */
static void un_sign_bit(const HloInstr *ins, Literal *const *ops,
			Literal *out, int64_t off, int64_t n)
{
	int w = dtype_bytes(out->shape->type);
	bool one = ops[0]->n == 1, neg = ins->op == HLO_NEGATE;
	const unsigned char *src = ops[0]->data;
	unsigned char *dst = out->data;
	for (int64_t i = off; i < off + n; i++) {
		const unsigned char *s = src + (one ? 0 : i) * w;
		unsigned char *d = dst + i * w;
		if (w == 8) {
			uint64_t x;
			memcpy(&x, s, 8);
			x = neg ? x ^ (UINT64_C(1) << 63) : x & ~(UINT64_C(1) << 63);
			memcpy(d, &x, 8);
		} else if (w == 4) {
			uint32_t x;
			memcpy(&x, s, 4);
			x = neg ? x ^ (UINT32_C(1) << 31) : x & ~(UINT32_C(1) << 31);
			memcpy(d, &x, 4);
		} else {
			uint16_t x;
			memcpy(&x, s, 2);
			x = (uint16_t)(neg ? x ^ 0x8000u : x & 0x7fffu);
			memcpy(d, &x, 2);
		}
	}
}

/* abs of complex: the real magnitude. */
static void un_cabs(const HloInstr *ins, Literal *const *ops, Literal *out,
		    int64_t off, int64_t n)
{
	(void)ins;
	double re[CHUNK], im[CHUNK];
	load_c(ops[0], off, n, re, im);
	for (int64_t i = 0; i < n; i++)
		re[i] = hypot(re[i], im[i]);
	store_f(out, off, n, re);
}

static void un_complex(const HloInstr *ins, Literal *const *ops, Literal *out,
		       int64_t off, int64_t n)
{
	double re[CHUNK], im[CHUNK];
	load_c(ops[0], off, n, re, im);
	c_unary(ins->op, re, im, n);
	store_c(out, off, n, re, im);
}

/* The chunk function of op on element type t; NULL when it has none
 * (the per-chunk switches are asked with n = 0). */
static ChunkFn *un_chunk_fn(HloOpcode op, Dtype t)
{
	switch (dtype_kind(t)) {
	case DK_FLOAT:
		if ((op == HLO_NEGATE || op == HLO_ABS) &&
		    (t == DT_F64 || t == DT_F32 || t == DT_F16 || t == DT_BF16))
			return un_sign_bit;
		return f_unary(op, NULL, 0) ? un_float : NULL;
	case DK_COMPLEX:
		if (op == HLO_ABS)
			return un_cabs;
		return c_unary(op, NULL, NULL, 0) ? un_complex : NULL;
	case DK_SINT:
	case DK_UINT:
	case DK_PRED:
		return i_unary(op, int_type(t), NULL, 0) ? un_int : NULL;
	default:
		return NULL;
	}
}

static Literal *ev_unary(Interp *it, const HloInstr *ins, Literal *const *ops,
			 Literal *out)
{
	if (!counts_ok(it, ins, ops, 1, out))
		return NULL;
	ChunkFn *fn = un_chunk_fn(ins->op, ty(ops[0]));
	if (!fn)
		return unsupported(it, ins, ty(ops[0]));
	return each_chunk(it, ins, ops, out, fn);
}

/* copy: any value, tuples included. */
static Literal *ev_copy(Interp *it, const HloInstr *ins, Literal *const *ops,
			Literal *out)
{
	if (!out || !shape_compatible(out->shape, ops[0]->shape))
		return it_copy(it, ins, ops[0]);
	it_assign(out, ops[0]);
	return out;
}

static void is_finite_chunk(const HloInstr *ins, Literal *const *ops,
			    Literal *out, int64_t off, int64_t n)
{
	(void)ins;
	double v[CHUNK];
	unsigned char *p = out->data;
	load_f(ops[0], off, n, v);
	for (int64_t i = 0; i < n; i++)
		p[off + i] = isfinite(v[i]) != 0;
}

static Literal *ev_is_finite(Interp *it, const HloInstr *ins,
			     Literal *const *ops, Literal *out)
{
	if (!counts_ok(it, ins, ops, 1, out))
		return NULL;
	if (ins->op != HLO_IS_FINITE || !dtype_is_float(ty(ops[0])))
		return unsupported(it, ins, ty(ops[0]));
	return each_chunk(it, ins, ops, out, is_finite_chunk);
}

static void bin_float(const HloInstr *ins, Literal *const *ops, Literal *out,
		      int64_t off, int64_t n)
{
	double a[CHUNK], b[CHUNK];
	load_f(ops[0], off, n, a);
	load_f(ops[1], off, n, b);
	f_binary(ins->op, a, b, n);
	store_f(out, off, n, a);
}

static void bin_int(const HloInstr *ins, Literal *const *ops, Literal *out,
		    int64_t off, int64_t n)
{
	int64_t a[CHUNK], b[CHUNK];
	load_i(ops[0], off, n, a);
	load_i(ops[1], off, n, b);
	i_binary(ins->op, int_type(ty(ops[0])), a, b, n);
	store_i(out, off, n, a);
}

static void bin_complex(const HloInstr *ins, Literal *const *ops, Literal *out,
			int64_t off, int64_t n)
{
	/* zeroed: gcc -O2 cannot see that load_c fills the first n */
	double ar[CHUNK], ai[CHUNK], br[CHUNK] = {0}, bi[CHUNK] = {0};
	load_c(ops[0], off, n, ar, ai);
	load_c(ops[1], off, n, br, bi);
	c_binary(ins->op, ar, ai, br, bi, n);
	store_c(out, off, n, ar, ai);
}

/* As un_chunk_fn, for the binary opcodes. */
static ChunkFn *bin_chunk_fn(HloOpcode op, Dtype t)
{
	switch (dtype_kind(t)) {
	case DK_FLOAT:
		return f_binary(op, NULL, NULL, 0) ? bin_float : NULL;
	case DK_COMPLEX:
		return c_binary(op, NULL, NULL, NULL, NULL, 0) ? bin_complex
							       : NULL;
	case DK_SINT:
	case DK_UINT:
	case DK_PRED:
		return i_binary(op, int_type(t), NULL, NULL, 0) ? bin_int
								: NULL;
	default:
		return NULL;
	}
}

static Literal *ev_binary(Interp *it, const HloInstr *ins, Literal *const *ops,
			  Literal *out)
{
	if (!counts_ok(it, ins, ops, 2, out))
		return NULL;
	if (ty(ops[0]) != ty(ops[1]))
		return it_fail(it, ins, "operand types %s and %s differ",
			       dtype_name(ty(ops[0])), dtype_name(ty(ops[1])));
	ChunkFn *fn = bin_chunk_fn(ins->op, ty(ops[0]));
	if (!fn)
		return unsupported(it, ins, ty(ops[0]));
	return each_chunk(it, ins, ops, out, fn);
}

/* ---- compare ---------------------------------------------------------- */

typedef enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } CmpDir;

static bool cmp_dir(const HloInstr *ins, CmpDir *d)
{
	static const char *const names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
	const char *s = hlo_attr_enum(ins, A_DIRECTION);
	for (int i = 0; s && i < 6; i++)
		if (!strcmp(s, names[i])) {
			*d = (CmpDir)i;
			return true;
		}
	return false;
}

/* Partial order: every direction but NE is false with a NaN. */
static void cmp_float(CmpDir d, const double *a, const double *b, int64_t n,
		      unsigned char *r)
{
	for (int64_t i = 0; i < n; i++) {
		double x = a[i], y = b[i];
		switch (d) {
		case CMP_EQ:
			r[i] = x == y;
			break;
		case CMP_NE:
			r[i] = x != y;
			break;
		case CMP_LT:
			r[i] = x < y;
			break;
		case CMP_LE:
			r[i] = x <= y;
			break;
		case CMP_GT:
			r[i] = x > y;
			break;
		case CMP_GE:
			r[i] = x >= y;
			break;
		}
	}
}

static void cmp_int(CmpDir d, IntType k, const int64_t *a, const int64_t *b,
		    int64_t n, unsigned char *r)
{
	for (int64_t i = 0; i < n; i++) {
		int64_t x = a[i], y = b[i];
		switch (d) {
		case CMP_EQ:
			r[i] = x == y;
			break;
		case CMP_NE:
			r[i] = x != y;
			break;
		case CMP_LT:
			r[i] = ilt(x, y, k);
			break;
		case CMP_LE:
			r[i] = !ilt(y, x, k);
			break;
		case CMP_GT:
			r[i] = ilt(y, x, k);
			break;
		case CMP_GE:
			r[i] = !ilt(x, y, k);
			break;
		}
	}
}

/* A float's bits as a signed key that orders -NaN < -inf < ... < -0 <
 * +0 < ... < inf < NaN (XLA's sign-magnitude total order). */
static void load_total_order(const Literal *l, int64_t off, int64_t n,
			     int64_t *v)
{
	Dtype t = ty(l);
	int w = dtype_bits(t);
	for (int64_t i = 0; i < n; i++) {
		uint64_t bits =
			raw_bits(l, l->n == 1 ? 0 : off + i) & width_mask(w);
		if (t == DT_F8E8M0FNU) { /* no sign bit */
			v[i] = (int64_t)bits;
			continue;
		}
		int64_t mag = (int64_t)(bits & width_mask(w - 1));
		v[i] = (bits >> (w - 1)) & 1 ? -mag - 1 : mag;
	}
}

/* Which comparison the type attribute (or the element type) asks for. */
typedef enum {
	ORD_FLOAT,
	ORD_TOTAL,
	ORD_SIGNED,
	ORD_UNSIGNED,
	ORD_COMPLEX
} Order;

static Order cmp_order(const HloInstr *ins, Dtype t)
{
	const char *s = hlo_attr_enum(ins, A_TYPE);
	switch (dtype_kind(t)) {
	case DK_FLOAT:
		return s && !strcmp(s, "TOTALORDER") ? ORD_TOTAL : ORD_FLOAT;
	case DK_COMPLEX:
		return ORD_COMPLEX;
	case DK_SINT:
		return s && !strcmp(s, "UNSIGNED") ? ORD_UNSIGNED : ORD_SIGNED;
	default:
		return s && !strcmp(s, "SIGNED") ? ORD_SIGNED : ORD_UNSIGNED;
	}
}

static void cmp_chunk(CmpDir d, Order o, Literal *const *ops, int64_t off,
		      int64_t n, unsigned char *r)
{
	double a[CHUNK], b[CHUNK], ai[CHUNK], bi[CHUNK];
	int64_t x[CHUNK], y[CHUNK];
	IntType k = int_type(ty(ops[0]));
	switch (o) {
	case ORD_FLOAT:
		load_f(ops[0], off, n, a);
		load_f(ops[1], off, n, b);
		cmp_float(d, a, b, n, r);
		break;
	case ORD_COMPLEX: /* EQ or NE only (checked by the caller) */
		load_c(ops[0], off, n, a, ai);
		load_c(ops[1], off, n, b, bi);
		for (int64_t i = 0; i < n; i++)
			r[i] = (a[i] == b[i] && ai[i] == bi[i]) ==
			       (d == CMP_EQ);
		break;
	case ORD_TOTAL:
		load_total_order(ops[0], off, n, x);
		load_total_order(ops[1], off, n, y);
		cmp_int(d, (IntType){64, true, false, ~(uint64_t)0}, x, y, n,
			r);
		break;
	case ORD_SIGNED:
	case ORD_UNSIGNED:
		load_i(ops[0], off, n, x);
		load_i(ops[1], off, n, y);
		k.sgn = o == ORD_SIGNED;
		for (int64_t i = 0; i < n; i++) { /* reread at the width */
			x[i] = k.sgn ? sext((uint64_t)x[i], k.w)
				     : (int64_t)((uint64_t)x[i] & k.mask);
			y[i] = k.sgn ? sext((uint64_t)y[i], k.w)
				     : (int64_t)((uint64_t)y[i] & k.mask);
		}
		cmp_int(d, k, x, y, n, r);
		break;
	}
}

static Literal *ev_compare(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out)
{
	CmpDir d;
	if (!counts_ok(it, ins, ops, 2, out))
		return NULL;
	if (!cmp_dir(ins, &d))
		return it_fail(it, ins, "needs direction=EQ|NE|LT|LE|GT|GE");
	if (ty(ops[0]) != ty(ops[1]))
		return it_fail(it, ins, "operand types %s and %s differ",
			       dtype_name(ty(ops[0])), dtype_name(ty(ops[1])));
	Order o = cmp_order(ins, ty(ops[0]));
	if (o == ORD_COMPLEX && d != CMP_EQ && d != CMP_NE)
		return it_fail(it, ins,
			       "complex numbers have no order (only "
			       "EQ and NE)");
	unsigned char *r = out->data;
	for (int64_t off = 0; off < out->n; off += CHUNK) {
		int64_t k = chunk_len(out->n, off);
		if (!tick(it, ins, off))
			return NULL;
		cmp_chunk(d, o, ops, off, k, r + off);
	}
	return out;
}

/* ---- select and clamp ------------------------------------------------- */

static Literal *ev_select(Interp *it, const HloInstr *ins, Literal *const *ops,
			  Literal *out)
{
	const Literal *p = ops[0];
	if (!p || ty(p) != DT_PRED)
		return it_fail(it, ins, "needs a pred array as operand 0");
	if (p->shape->rank == 0) { /* scalar predicate, tuples too */
		const Literal *c = it_geti(p, 0) ? ops[1] : ops[2];
		if (!out || !shape_compatible(out->shape, c->shape))
			return it_copy(it, ins, c);
		it_assign(out, c);
		return out;
	}
	if (!counts_ok(it, ins, ops, 3, out))
		return NULL;
	const unsigned char *pp = p->data;
	for (int64_t i = 0; i < out->n; i++) {
		if (!tick(it, ins, i))
			return NULL;
		it_copy_elem(out, i, pp[i] ? ops[1] : ops[2], i);
	}
	return out;
}

/* NaN bounds or operand propagate (lo first); else min(hi, max(x, lo)). */
static void clamp_float(double *lo, const double *x, const double *hi,
			int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		double l = lo[i], v = x[i], h = hi[i];
		if (isnan(l))
			continue;
		if (isnan(v) || isnan(h)) {
			lo[i] = isnan(v) ? v : h;
			continue;
		}
		/* min(max(x, lo), hi), as XLA has it */
		lo[i] = it_fmin(it_fmax(v, l), h);
	}
}

static void clamp_int(IntType k, int64_t *lo, const int64_t *x,
		      const int64_t *hi, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		int64_t m = ilt(x[i], lo[i], k) ? lo[i] : x[i];
		lo[i] = ilt(m, hi[i], k) ? m : hi[i];
	}
}

static void clamp_f_chunk(const HloInstr *ins, Literal *const *ops,
			  Literal *out, int64_t off, int64_t n)
{
	(void)ins;
	double lo[CHUNK], x[CHUNK], hi[CHUNK];
	load_f(ops[0], off, n, lo);
	load_f(ops[1], off, n, x);
	load_f(ops[2], off, n, hi);
	clamp_float(lo, x, hi, n);
	store_f(out, off, n, lo);
}

static void clamp_i_chunk(const HloInstr *ins, Literal *const *ops,
			  Literal *out, int64_t off, int64_t n)
{
	(void)ins;
	int64_t lo[CHUNK], x[CHUNK], hi[CHUNK];
	load_i(ops[0], off, n, lo);
	load_i(ops[1], off, n, x);
	load_i(ops[2], off, n, hi);
	clamp_int(int_type(ty(out)), lo, x, hi, n);
	store_i(out, off, n, lo);
}

static Literal *ev_clamp(Interp *it, const HloInstr *ins, Literal *const *ops,
			 Literal *out)
{
	if (!counts_ok(it, ins, ops, 3, out))
		return NULL;
	Dtype t = ty(out);
	if (ty(ops[0]) != t || ty(ops[1]) != t || ty(ops[2]) != t)
		return it_fail(it, ins, "operand types differ");
	DtypeKind kind = dtype_kind(t);
	if (kind != DK_FLOAT && !dtype_is_int(t) && kind != DK_PRED)
		return unsupported(it, ins, t);
	return each_chunk(it, ins, ops, out,
			  kind == DK_FLOAT ? clamp_f_chunk : clamp_i_chunk);
}

/* ---- convert and bitcast-convert -------------------------------------- */

/* One chunk from any element type to any other. */
static void convert_chunk(const HloInstr *ins, Literal *const *ops,
			  Literal *out, int64_t off, int64_t n)
{
	(void)ins;
	const Literal *x = ops[0];
	double re[CHUNK], im[CHUNK];
	int64_t iv[CHUNK];
	Dtype from = ty(x), to = ty(out);
	DtypeKind fk = dtype_kind(from), tk = dtype_kind(to);
	if (fk == DK_SINT || fk == DK_UINT || fk == DK_PRED) {
		load_i(x, off, n, iv);
		if (dtype_is_int(to) || tk == DK_PRED) {
			store_i(out, off, n, iv);
			return;
		}
		for (int64_t i = 0; i < n; i++) {
			re[i] = int_to_fp(to, iv[i], fk != DK_SINT);
			im[i] = 0;
		}
	} else if (fk == DK_COMPLEX) {
		load_c(x, off, n, re, im);
	} else {
		load_f(x, off, n, re);
		memset(im, 0, sizeof im);
	}
	if (tk == DK_COMPLEX)
		store_c(out, off, n, re, im);
	else /* to ints: saturating, NaN -> 0; to pred: != 0 */
		store_f(out, off, n, re);
}

static Literal *ev_convert(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out)
{
	if (!counts_ok(it, ins, ops, 1, out))
		return NULL;
	if (ty(ops[0]) == ty(out)) {
		it_assign(out, ops[0]);
		return out;
	}
	return each_chunk(it, ins, ops, out, convert_chunk);
}

/* Widths that are not whole bytes (s4, u2, f4e2m1fn, ...) or pred: move
 * the element bits one by one, the first element in the low bits. */
static Literal *bitcast_bits(Interp *it, const HloInstr *ins, const Literal *x,
			     Literal *out)
{
	int wf = dtype_bits(ty(x)), wt = dtype_bits(ty(out));
	if (wf > 64 || wt > 64)
		return it_fail(it, ins,
			       "bitcast between %s and %s is not "
			       "supported by the interpreter",
			       dtype_name(ty(x)), dtype_name(ty(out)));
	if (wf >= wt) {
		int64_t k = wf / wt;
		for (int64_t i = 0; i < x->n; i++) {
			uint64_t bits = raw_bits(x, i) & width_mask(wf);
			for (int64_t j = 0; j < k; j++)
				put_raw_bits(out, i * k + j,
					     bits >> (j * wt) & width_mask(wt));
		}
		return out;
	}
	int64_t k = wt / wf;
	for (int64_t o = 0; o < out->n; o++) {
		uint64_t bits = 0;
		for (int64_t j = 0; j < k; j++)
			bits |= (raw_bits(x, o * k + j) & width_mask(wf))
				<< (j * wf);
		put_raw_bits(out, o, bits);
	}
	return out;
}

/* Same bits, other type: equal widths keep the shape; a narrower result
 * splits each element along a new minor dimension, a wider one joins
 * the operand's minor dimension (little-endian order, as XLA). */
static Literal *ev_bitcast_convert(Interp *it, const HloInstr *ins,
				   Literal *const *ops, Literal *out)
{
	const Literal *x = ops[0];
	if (!out || !x || !dtype_is_array(ty(x)))
		return it_fail(it, ins, "needs array operand and result");
	int wf = dtype_bits(ty(x)), wt = dtype_bits(ty(out));
	if (wf <= 0 || wt <= 0 || x->n * wf != out->n * wt ||
	    (wf > wt ? wf % wt : wt % wf))
		return it_fail(it, ins, "cannot bitcast %s to %s",
			       shape_str(it_arena(it), x->shape),
			       shape_str(it_arena(it), out->shape));
	if (wf % 8 || wt % 8 || ty(x) == DT_PRED || ty(out) == DT_PRED)
		return bitcast_bits(it, ins, x, out);
	memcpy(out->data, x->data, (size_t)(x->n * dtype_bytes(ty(x))));
	return out;
}

/* ---- reduce-precision ------------------------------------------------- */

/* bits of a float with sm mantissa and se exponent bits (w in all),
 * rounded to dm mantissa and de exponent bits (HloEvaluator's algorithm,
 * which follows the CPU/GPU emitters). */
static uint64_t reduce_bits(uint64_t bits, int w, int sm, int se, int dm,
			    int de)
{
	if (dm < sm) {
		uint64_t last = (uint64_t)1 << (sm - dm);
		uint64_t bias = (last >> 1) - 1 + ((bits & last) >> (sm - dm));
		bits = (bits + bias) & ~(last - 1) & width_mask(w);
	}
	if (de < se) {
		uint64_t sign = (uint64_t)1 << (w - 1);
		uint64_t emask = width_mask(se) << sm;
		uint64_t ebias = ((uint64_t)1 << (se - 1)) - 1;
		uint64_t rbias = ((uint64_t)1 << (de - 1)) - 1;
		uint64_t e = bits & emask;
		if (e > (ebias + rbias) << sm)
			bits = (bits & sign) | emask; /* overflow: inf */
		else if (e <= (ebias - rbias) << sm)
			bits &= sign; /* underflow: zero */
	}
	return bits;
}

static double reduce_value(double v, Dtype t, int de, int dm)
{
	double r;
	if (t == DT_F64) {
		uint64_t b;
		memcpy(&b, &v, 8);
		b = reduce_bits(b, 64, 52, 11, dm, de);
		memcpy(&r, &b, 8);
	} else {
		float f = (float)v;
		uint32_t b;
		memcpy(&b, &f, 4);
		b = (uint32_t)reduce_bits(b, 32, 23, 8, dm, de);
		memcpy(&f, &b, 4);
		r = f;
	}
	if (isnan(v))
		r = v; /* XLA:CPU keeps a NaN, even with no mantissa bits */
	return r;
}

static Literal *ev_reduce_precision(Interp *it, const HloInstr *ins,
				    Literal *const *ops, Literal *out)
{
	double v[CHUNK];
	int64_t eb = -1, mb = -1;
	if (!counts_ok(it, ins, ops, 1, out))
		return NULL;
	if (!dtype_is_float(ty(ops[0])))
		return unsupported(it, ins, ty(ops[0]));
	if (!hlo_attr_int(ins, A_EXPONENT_BITS, &eb) ||
	    !hlo_attr_int(ins, A_MANTISSA_BITS, &mb) || eb < 1 || mb < 0)
		return it_fail(it, ins,
			       "needs exponent_bits >= 1 and "
			       "mantissa_bits >= 0");
	int de = eb > 64 ? 64 : (int)eb, dm = mb > 64 ? 64 : (int)mb;
	for (int64_t off = 0; off < out->n; off += CHUNK) {
		int64_t k = chunk_len(out->n, off);
		if (!tick(it, ins, off))
			return NULL;
		load_f(ops[0], off, k, v);
		for (int64_t i = 0; i < k; i++)
			v[i] = reduce_value(v[i], ty(ops[0]), de, dm);
		store_f(out, off, k, v);
	}
	return out;
}

/* ---- real, imag, complex ---------------------------------------------- */

static void real_imag_chunk(const HloInstr *ins, Literal *const *ops,
			    Literal *out, int64_t off, int64_t n)
{
	double re[CHUNK], im[CHUNK];
	load_c(ops[0], off, n, re, im); /* real types: im = +0 */
	store_f(out, off, n, ins->op == HLO_REAL ? re : im);
}

static Literal *ev_real_imag(Interp *it, const HloInstr *ins,
			     Literal *const *ops, Literal *out)
{
	if (!counts_ok(it, ins, ops, 1, out))
		return NULL;
	DtypeKind k = dtype_kind(ty(ops[0]));
	if (k != DK_FLOAT && k != DK_COMPLEX)
		return unsupported(it, ins, ty(ops[0]));
	return each_chunk(it, ins, ops, out, real_imag_chunk);
}

static void complex_chunk(const HloInstr *ins, Literal *const *ops,
			  Literal *out, int64_t off, int64_t n)
{
	(void)ins;
	double re[CHUNK], im[CHUNK];
	load_f(ops[0], off, n, re);
	load_f(ops[1], off, n, im);
	store_c(out, off, n, re, im);
}

static Literal *ev_complex(Interp *it, const HloInstr *ins, Literal *const *ops,
			   Literal *out)
{
	if (!counts_ok(it, ins, ops, 2, out))
		return NULL;
	if (dtype_kind(ty(out)) != DK_COMPLEX || !dtype_is_float(ty(ops[0])) ||
	    !dtype_is_float(ty(ops[1])))
		return unsupported(it, ins, ty(ops[0]));
	return each_chunk(it, ins, ops, out, complex_chunk);
}

/* ---- iota ------------------------------------------------------------- */

static Literal *ev_iota(Interp *it, const HloInstr *ins, Literal *const *ops,
			Literal *out)
{
	(void)ops;
	int64_t d = 0, iv[CHUNK];
	double fv[CHUNK], zero[CHUNK] = {0};
	const Shape *s = ins->shape;
	if (!out)
		return it_fail(it, ins, "needs an array result");
	if (!hlo_attr_int(ins, A_IOTA_DIMENSION, &d) || d < 0 || d >= s->rank)
		return it_fail(it, ins,
			       "iota_dimension must name one of the %d "
			       "dimensions",
			       s->rank);
	int64_t stride = 1;
	for (int i = s->rank - 1; i > d; i--)
		stride *= s->dims[i];
	int64_t size = s->dims[d];
	DtypeKind k = dtype_kind(ty(out));
	for (int64_t off = 0; off < out->n; off += CHUNK) {
		int64_t len = chunk_len(out->n, off);
		if (!tick(it, ins, off))
			return NULL;
		for (int64_t i = 0; i < len; i++)
			iv[i] = (off + i) / stride % size;
		if (k == DK_FLOAT || k == DK_COMPLEX) {
			for (int64_t i = 0; i < len; i++)
				fv[i] = int_to_fp(ty(out), iv[i], false);
			if (k == DK_FLOAT)
				store_f(out, off, len, fv);
			else
				store_c(out, off, len, fv, zero);
		} else {
			store_i(out, off, len, iv);
		}
	}
	return out;
}

/* ---- rng and stochastic-convert --------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* The stream of an rng instruction: see it_rng_seed (reproducible per
 * run, different for each instruction and each evaluation). */
static uint64_t rng_seed(Interp *it, const HloInstr *ins)
{
	return it_rng_seed(it, ins);
}

/* Uniform in [0, 1) on a 2^-53 grid. */
static double unit(uint64_t *s)
{
	return (double)(splitmix(s) >> 11) * 0x1p-53;
}

/* [a, b): resample when rounding to the element type reaches b. */
static Literal *rng_uniform_float(Interp *it, const HloInstr *ins, double a,
				  double b, Literal *out, uint64_t *s)
{
	if (!(a < b))
		return it_fail(it, ins,
			       "rng_uniform needs a < b, got %g and %g", a, b);
	for (int64_t i = 0; i < out->n; i++) {
		if (!tick(it, ins, i))
			return NULL;
		double v = a;
		for (int tries = 0; tries < 64; tries++) {
			it_setf(out, i, a + (b - a) * unit(s));
			v = it_getf(out, i);
			if (v >= a && v < b)
				break;
			v = a;
		}
		it_setf(out, i, v);
	}
	return out;
}

static Literal *rng_uniform_int(Interp *it, const HloInstr *ins,
				Literal *const *ops, Literal *out, uint64_t *s)
{
	IntType k = int_type(ty(out));
	int64_t a = it_geti(ops[0], 0), b = it_geti(ops[1], 0);
	if (!ilt(a, b, k))
		return it_fail(it, ins,
			       "rng_uniform needs a < b, got %lld and "
			       "%lld",
			       (long long)a, (long long)b);
	uint64_t range = (uint64_t)b - (uint64_t)a;
	for (int64_t i = 0; i < out->n; i++) {
		if (!tick(it, ins, i))
			return NULL;
		it_seti(out, i, (int64_t)((uint64_t)a + splitmix(s) % range));
	}
	return out;
}

static Literal *rng_normal(Interp *it, const HloInstr *ins, double mu,
			   double sigma, Literal *out, uint64_t *s)
{
	for (int64_t i = 0; i < out->n; i++) {
		if (!tick(it, ins, i))
			return NULL;
		double u1 = 1 - unit(s), u2 = unit(s); /* u1 in (0, 1] */
		double z = sqrt(-2 * log(u1)) * cos(TWO_PI * u2);
		it_setf(out, i, mu + sigma * z);
	}
	return out;
}

static Literal *ev_rng(Interp *it, const HloInstr *ins, Literal *const *ops,
		       Literal *out)
{
	const char *dist = hlo_attr_enum(ins, A_DISTRIBUTION);
	bool normal = dist && !strcmp(dist, "rng_normal");
	if (!out || ins->nops < 2 || ops[0]->n < 1 || ops[1]->n < 1)
		return it_fail(it, ins, "needs two scalar operands");
	if (!dist || (!normal && strcmp(dist, "rng_uniform")))
		return it_fail(it, ins,
			       "distribution %s is not supported by "
			       "the interpreter",
			       dist ? dist : "(none)");
	uint64_t s = rng_seed(it, ins);
	Dtype t = ty(out);
	if (dtype_is_float(t)) {
		double a = it_getf(ops[0], 0), b = it_getf(ops[1], 0);
		return normal ? rng_normal(it, ins, a, b, out, &s)
			      : rng_uniform_float(it, ins, a, b, out, &s);
	}
	if (!normal && (dtype_is_int(t) || t == DT_PRED))
		return rng_uniform_int(it, ins, ops, out, &s);
	return it_fail(it, ins,
		       "%s is not supported by the interpreter for "
		       "element type %s",
		       dist, dtype_name(t));
}

/* Rounds |x| up when the random bits are below its fraction scaled to
 * their width, else down; NaN -> 0, out of range saturates. */
static int64_t stochastic_round(double x, uint64_t r, int rw, IntType k)
{
	int64_t hi = (int64_t)(width_mask(k.w - 1));
	int64_t lo = -hi - 1;
	if (isnan(x))
		return 0;
	if (x >= (double)hi)
		return hi;
	if (x <= (double)lo)
		return lo;
	double a = fabs(x);
	int64_t t = (int64_t)a;
	double frac = a - (double)t;
	if (frac != 0 && (r & width_mask(rw)) < (uint64_t)ldexp(frac, rw) &&
	    t != hi)
		t++;
	return signbit(x) ? -t : t;
}

static Literal *ev_stochastic_convert(Interp *it, const HloInstr *ins,
				      Literal *const *ops, Literal *out)
{
	double v[CHUNK];
	int64_t r[CHUNK];
	if (!counts_ok(it, ins, ops, 2, out))
		return NULL;
	Dtype from = ty(ops[0]), rt = ty(ops[1]), to = ty(out);
	if (!dtype_is_float(from) || dtype_kind(rt) != DK_UINT ||
	    dtype_kind(to) != DK_SINT)
		return it_fail(it, ins,
			       "%s to %s with %s random bits is not "
			       "supported by the interpreter (float to signed "
			       "int with unsigned bits only)",
			       dtype_name(from), dtype_name(to),
			       dtype_name(rt));
	IntType k = int_type(to);
	int rw = dtype_bits(rt);
	for (int64_t off = 0; off < out->n; off += CHUNK) {
		int64_t len = chunk_len(out->n, off);
		if (!tick(it, ins, off))
			return NULL;
		load_f(ops[0], off, len, v);
		load_i(ops[1], off, len, r);
		for (int64_t i = 0; i < len; i++)
			r[i] = stochastic_round(v[i], (uint64_t)r[i], rw, k);
		store_i(out, off, len, r);
	}
	return out;
}

/* ---- registration ----------------------------------------------------- */

void interp_register_elementwise(EvalFn *t)
{
	for (int op = HLO_INVALID + 1; op < HLO_OPCODE_COUNT; op++) {
		switch (hlo_opcode_class((HloOpcode)op)) {
		case OC_UNARY:
			t[op] = ev_unary;
			break;
		case OC_UNARY_PRED:
			t[op] = ev_is_finite;
			break;
		case OC_BINARY:
			t[op] = ev_binary;
			break;
		default:
			break;
		}
	}
	t[HLO_COPY] = ev_copy;
	t[HLO_REDUCE_PRECISION] = ev_reduce_precision;
	t[HLO_COMPARE] = ev_compare;
	t[HLO_SELECT] = ev_select;
	t[HLO_CLAMP] = ev_clamp;
	t[HLO_CONVERT] = ev_convert;
	t[HLO_BITCAST_CONVERT] = ev_bitcast_convert;
	t[HLO_REAL] = ev_real_imag;
	t[HLO_IMAG] = ev_real_imag;
	t[HLO_COMPLEX] = ev_complex;
	t[HLO_IOTA] = ev_iota;
	t[HLO_RNG] = ev_rng;
	t[HLO_STOCHASTIC_CONVERT] = ev_stochastic_convert;
}
