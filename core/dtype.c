/* dtype.c - element type table and narrow float conversions.
 *
 * Everything about a type comes from the XR_DTYPES table. The narrow float
 * formats (f16, bf16, the f8 family, f4e2m1fn) share one encoder and one
 * decoder driven by a small format record; the encoder follows ml_dtypes'
 * ConvertImpl (the code XLA itself uses for these types) from an exact
 * double, so a value is rounded once, to nearest, ties to even.
 *
 * Edge rules, as in ml_dtypes unless noted:
 * - IEEE-like (f16, bf16, f8e5m2, f8e4m3, f8e3m4): overflow -> inf,
 *   NaN -> the quiet NaN with the input's sign.
 * - f8e4m3fn: no inf; overflow and +-inf -> NaN (0x7f / 0xff by sign).
 * - *fnuz: no inf, no -0; overflow, inf and NaN -> 0x80; -0 and negative
 *   underflow -> +0.
 * - f8e8m0fnu: 2^(c-127), 0xff is NaN, no zero, no sign. NaN, inf, zero,
 *   negative values and overflow -> NaN. Other values round to the nearest
 *   power of two in linear terms, a tie (1.5 * 2^k) going up, which is what
 *   ml_dtypes' round-to-nearest-even gives with no mantissa bits. Below
 *   2^-126 we also pick the nearest code (x < 1.5 * 2^-127 -> 0x00);
 *   ml_dtypes sends all of (2^-127, 2^-126) to 0x01, which would make the
 *   printed 2^-127 ("5.9e-39") read back as 2^-126.
 * - f4e2m1fn: no inf or NaN; overflow and +-inf saturate to +-6; NaN ->
 *   0x8 (-0) and -NaN -> 0x0, the "quiet NaN" ml_dtypes defines for it. */
#include "dtype.h"

#include <math.h>
#include <string.h>

typedef struct {
	const char *name;
	int bits; /* storage bits */
	DtypeKind kind;
	int ebits, mbits;
} DtypeInfo;

/* clang-format off */
static const DtypeInfo infos[DT_COUNT] = {
	[DT_INVALID] = {"invalid", 0, DK_INVALID, 0, 0},
#define X(e, s, b, k, eb, mb) [e] = {s, b, k, eb, mb},
	XR_DTYPES(X)
#undef X
	[DT_TUPLE] = {"tuple", 0, DK_TUPLE, 0, 0},
};
/* clang-format on */

static const DtypeInfo *info(Dtype t)
{
	if ((int)t < 0 || t >= DT_COUNT)
		t = DT_INVALID;
	return &infos[t];
}

const char *dtype_name(Dtype t) { return info(t)->name; }

Dtype dtype_parse(const char *s, int n)
{
	if (!s || n <= 0)
		return DT_INVALID;
#define X(e, sp, b, k, eb, mb)                                            \
	if (sizeof(sp) - 1 == (size_t)n && memcmp(s, sp, (size_t)n) == 0) \
		return e;
	XR_DTYPES(X)
#undef X
	return DT_INVALID;
}

DtypeKind dtype_kind(Dtype t) { return info(t)->kind; }

int dtype_bytes(Dtype t) { return info(t)->bits / 8; }

int dtype_bits(Dtype t)
{
	const DtypeInfo *d = info(t);
	if (d->kind == DK_SINT || d->kind == DK_UINT)
		return d->mbits;
	if (t == DT_F4E2M1FN)
		return 4;
	return d->bits;
}

int dtype_exp_bits(Dtype t) { return info(t)->ebits; }

int dtype_mant_bits(Dtype t) { return info(t)->mbits; }

bool dtype_is_float(Dtype t) { return dtype_kind(t) == DK_FLOAT; }

bool dtype_is_int(Dtype t)
{
	DtypeKind k = dtype_kind(t);
	return k == DK_SINT || k == DK_UINT;
}

bool dtype_is_array(Dtype t)
{
	switch (dtype_kind(t)) {
	case DK_PRED:
	case DK_SINT:
	case DK_UINT:
	case DK_FLOAT:
	case DK_COMPLEX:
		return true;
	default:
		return false;
	}
}

/* --- narrow float formats ------------------------------------------------ */

typedef enum {
	FS_IEEE, /* inf at exponent all ones, NaN above it */
	FS_FN,   /* no inf; NaN is S.1...1 */
	FS_FNUZ, /* no inf, no -0; NaN is 1.0...0 */
	FS_E8M0, /* unsigned exponent only; 0xff is NaN */
	FS_MX,   /* no inf, no NaN */
} FloatStyle;

typedef struct {
	int ebits, mbits, bias;
	FloatStyle style;
} FloatFmt;

static FloatStyle style_of(Dtype t)
{
	switch (t) {
	case DT_F8E4M3FN:
		return FS_FN;
	case DT_F8E4M3FNUZ:
	case DT_F8E5M2FNUZ:
	case DT_F8E4M3B11FNUZ:
		return FS_FNUZ;
	case DT_F8E8M0FNU:
		return FS_E8M0;
	case DT_F4E2M1FN:
		return FS_MX;
	default:
		return FS_IEEE;
	}
}

/* Formats handled here: every float narrower than f64. */
static bool float_fmt(Dtype t, FloatFmt *f)
{
	if (!dtype_is_float(t) || t == DT_F64)
		return false;
	f->ebits = dtype_exp_bits(t);
	f->mbits = dtype_mant_bits(t);
	f->style = style_of(t);
	f->bias = (1 << (f->ebits - 1)) - 1;
	if (t == DT_F8E4M3B11FNUZ)
		f->bias = 11;
	else if (f->style == FS_FNUZ)
		f->bias += 1;
	return true;
}

static uint32_t sign_bit(const FloatFmt *f)
{
	return f->style == FS_E8M0 ? 0 : 1u << (f->ebits + f->mbits);
}

static uint32_t exp_ones(const FloatFmt *f)
{
	return ((1u << f->ebits) - 1) << f->mbits;
}

/* Largest finite magnitude code. */
static uint32_t max_code(const FloatFmt *f)
{
	uint32_t all = (1u << (f->ebits + f->mbits)) - 1;
	switch (f->style) {
	case FS_IEEE:
		return exp_ones(f) - 1;
	case FS_FN:
	case FS_E8M0:
		return all - 1;
	default:
		return all;
	}
}

static uint32_t enc_nan(const FloatFmt *f, bool neg)
{
	uint32_t s = neg ? sign_bit(f) : 0;
	switch (f->style) {
	case FS_IEEE:
		return s | exp_ones(f) | (1u << (f->mbits - 1));
	case FS_FN:
		return s | (max_code(f) + 1);
	case FS_FNUZ:
		return sign_bit(f);
	case FS_E8M0:
		return 0xff;
	default:
		return neg ? 0 : sign_bit(f);
	}
}

static uint32_t enc_overflow(const FloatFmt *f, bool neg)
{
	if (f->style == FS_IEEE)
		return (neg ? sign_bit(f) : 0) | exp_ones(f);
	if (f->style == FS_MX)
		return (neg ? sign_bit(f) : 0) | max_code(f);
	return enc_nan(f, neg);
}

static uint32_t apply_sign(const FloatFmt *f, uint32_t mag, bool neg)
{
	if (!neg)
		return mag;
	if (f->style == FS_FNUZ && mag == 0)
		return 0;
	return mag | sign_bit(f);
}

/* Round half to even; x >= 0 and small enough that x - floor(x) is exact. */
static double rne(double x)
{
	double fl = floor(x);
	double d = x - fl;
	if (d > 0.5 || (d == 0.5 && fmod(fl, 2.0) != 0.0))
		fl += 1.0;
	return fl;
}

/* Magnitude code of a finite a > 0; false on overflow. */
static bool round_mag(const FloatFmt *f, double a, uint32_t *out)
{
	int e;
	frexp(a, &e);
	int ue = e - 1; /* a in [2^ue, 2^(ue+1)) */
	int be = ue + f->bias;
	if (be > (1 << f->ebits) + 1)
		return false;
	if (be < 1 && f->style == FS_E8M0) {
		*out = a >= ldexp(1.5, -f->bias) ? 1 : 0;
		return true;
	}
	int q = (be >= 1 ? ue : 1 - f->bias) - f->mbits; /* log2 of one ulp */
	uint64_t n = (uint64_t)rne(ldexp(a, -q));
	/* A normal's n carries the implicit bit, so a carry out of the
	 * mantissa lands in the exponent. */
	uint64_t code = be >= 1 ? ((uint64_t)(be - 1) << f->mbits) + n : n;
	if (code > max_code(f))
		return false;
	*out = (uint32_t)code;
	return true;
}

uint32_t dtype_double_to_small_float(Dtype t, double v)
{
	FloatFmt f;
	if (t == DT_F32) {
		float x = (float)v;
		uint32_t u;
		memcpy(&u, &x, sizeof u);
		return u;
	}
	if (!float_fmt(t, &f))
		return 0;
	bool neg = signbit(v);
	if (isnan(v))
		return enc_nan(&f, neg);
	if (f.style == FS_E8M0 && (neg || v == 0))
		return enc_nan(&f, neg);
	double a = fabs(v);
	if (a == 0)
		return apply_sign(&f, 0, neg);
	uint32_t mag;
	if (isinf(a) || !round_mag(&f, a, &mag))
		return enc_overflow(&f, neg);
	return apply_sign(&f, mag, neg);
}

static bool is_nan_code(const FloatFmt *f, uint32_t bits)
{
	uint32_t mag = bits & (sign_bit(f) - 1);
	switch (f->style) {
	case FS_IEEE:
		return mag > exp_ones(f);
	case FS_FN:
		return mag == max_code(f) + 1;
	case FS_FNUZ:
		return bits == sign_bit(f);
	case FS_E8M0:
		return bits == 0xff;
	default:
		return false;
	}
}

static double decode_e8m0(uint32_t bits)
{
	return bits == 0xff ? NAN : ldexp(1.0, (int)bits - 127);
}

double dtype_small_float_to_double(Dtype t, uint32_t bits)
{
	FloatFmt f;
	if (t == DT_F32) {
		float x;
		memcpy(&x, &bits, sizeof x);
		return x;
	}
	if (!float_fmt(t, &f))
		return NAN;
	if (f.style == FS_E8M0)
		return decode_e8m0(bits & 0xff);
	bits &= (sign_bit(&f) << 1) - 1;
	bool neg = (bits & sign_bit(&f)) != 0;
	uint32_t mag = bits & (sign_bit(&f) - 1);
	double v;
	if (is_nan_code(&f, bits))
		v = NAN;
	else if (f.style == FS_IEEE && mag == exp_ones(&f))
		v = INFINITY;
	else if ((mag >> f.mbits) == 0)
		v = ldexp(mag, 1 - f.bias - f.mbits);
	else
		v = ldexp((mag & ((1u << f.mbits) - 1)) | (1u << f.mbits),
			  (int)(mag >> f.mbits) - f.bias - f.mbits);
	return neg ? -v : v;
}

/* --- f16 and bf16 ---------------------------------------------------------- */

static float float_from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

float dtype_f16_to_float(uint16_t h)
{
	/* NaNs keep their payload, as a plain shift does in hardware. */
	if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
		return float_from_bits((uint32_t)(h & 0x8000) << 16 |
				       0x7f800000u |
				       (uint32_t)(h & 0x3ff) << 13);
	return (float)dtype_small_float_to_double(DT_F16, h);
}

/* Round to nearest, ties to even, on the bits (the generic conversion
 * through double is ~20x slower; tests check the two agree). */
uint16_t dtype_float_to_f16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	uint16_t sign = (uint16_t)(u >> 16 & 0x8000);
	uint32_t a = u & 0x7fffffffu;
	if (a >= 0x7f800000u) /* inf, or NaN: the quiet one, signed */
		return sign | (a > 0x7f800000u ? 0x7e00 : 0x7c00);
	if (a >= 0x477ff000u) /* rounds to 65520 or more: inf */
		return sign | 0x7c00;
	if (a < 0x38800000u) { /* below 2^-14: a subnormal or zero */
		if (a < 0x33000000u) /* at most 2^-25: rounds to zero */
			return sign;
		int e = (int)(a >> 23);
		uint32_t m = (a & 0x7fffff) | 0x800000;
		int shift = 126 - e; /* 14..24: to units of 2^-24 */
		uint32_t q = m >> shift, rem = m & ((1u << shift) - 1);
		uint32_t half = 1u << (shift - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++;
		return sign | (uint16_t)q;
	}
	uint32_t r = a + 0xfff + (a >> 13 & 1) - 0x38000000u; /* rebias */
	return sign | (uint16_t)(r >> 13);
}

float dtype_bf16_to_float(uint16_t h)
{
	return float_from_bits((uint32_t)h << 16);
}

uint16_t dtype_float_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: the quiet one, signed */
		return (uint16_t)((u >> 16 & 0x8000) | 0x7fc0);
	return (uint16_t)((u + 0x7fff + (u >> 16 & 1)) >> 16);
}
