/* literal.c - constant values: creation, element access, printing.
 *
 * Printing follows XLA's LiteralBase::PrintWithoutShapeOneline, the text
 * inside constant(...), so that our output matches XLA's dumps:
 *   scalars      1.5  -inf  nan  true  (1, -2)
 *   rank 1       {1, 2, 3}
 *   rank >= 2    { { 1, 2 }, { 3, 4 } }  (an innermost list of one element
 *                is {1}: { {1} })
 *   rank >= 4    inner lists open with XLA's index comments, written
 *                here as <i0=0>: { { <i0=0> { <i1=0> { 1, 2 } } } }
 *   pred arrays  elements as 1/0 (scalars as true/false)
 *   tuples       ( 1, {2, 3} )
 *   zero-size    {} for rank 1, {  } for f32[0,3], { {}, {} } for f32[2,0]
 * Floats use XLA's RoundTripFpToString: f32 tries %.6g and falls back to
 * %.9g when that does not read back (f64: %.15g, then %.17g); f16, bf16,
 * f8 and f4 print %.*g with their max_digits10 (5, 4, 2 or 3). NaNs print
 * as nan or -nan, with "(0x...)" after them when an f16, bf16, f32, f64 or
 * f8e5m2 NaN carries a payload other than the quiet bit. */
#include "literal.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LITERAL_BYTES ((int64_t)1 << 34)

/* --- creation ---------------------------------------------------------- */

static bool count_elements(const Shape *s, int64_t *n)
{
	int64_t c = 1;
	for (int i = 0; i < s->rank; i++) {
		int64_t d = s->dims[i];
		if (d < 0 || (d && c > XR_MAX_ELEMENTS / d))
			return false;
		c *= d;
	}
	*n = c;
	return true;
}

static Literal *new_rec(Arena *a, const Shape *s, int64_t *budget);

static Literal *new_tuple(Arena *a, Literal *l, int64_t *budget)
{
	const Shape *s = l->shape;
	l->ntuple = s->ntuple;
	l->tuple = arena_alloc(a, sizeof *l->tuple * (size_t)(s->ntuple + 1));
	if (!l->tuple)
		return NULL;
	for (int i = 0; i < s->ntuple; i++) {
		l->tuple[i] = new_rec(a, s->tuple[i], budget);
		if (!l->tuple[i])
			return NULL;
	}
	return l;
}

/* budget: bytes the whole literal may still take. */
static Literal *new_rec(Arena *a, const Shape *s, int64_t *budget)
{
	if (!s)
		return NULL;
	Literal *l = arena_alloc(a, sizeof *l);
	if (!l)
		return NULL;
	l->shape = s;
	if (s->type == DT_TUPLE)
		return new_tuple(a, l, budget);
	if (!dtype_is_array(s->type))
		return l; /* token, opaque: no values */
	int64_t n;
	if (!count_elements(s, &n))
		return NULL;
	int64_t bytes = n * dtype_bytes(s->type);
	if (bytes > *budget)
		return NULL;
	*budget -= bytes;
	l->n = n;
	l->data = arena_alloc(a, (size_t)bytes);
	return l->data ? l : NULL;
}

Literal *literal_new(Arena *a, const Shape *s)
{
	int64_t budget = MAX_LITERAL_BYTES;
	return new_rec(a, s, &budget);
}

static Literal *clone_rec(Arena *a, const Literal *l, const Shape *s)
{
	Literal *c = arena_dup(a, l, sizeof *l);
	if (!c || !s)
		return NULL;
	c->shape = s;
	if (l->data) {
		size_t bytes = (size_t)l->n * (size_t)dtype_bytes(s->type);
		c->data = arena_dup(a, l->data, bytes);
		if (!c->data)
			return NULL;
	}
	if (l->ntuple == 0)
		return c;
	assert(s->ntuple == l->ntuple);
	c->tuple = arena_alloc(a, sizeof *c->tuple * (size_t)l->ntuple);
	if (!c->tuple)
		return NULL;
	for (int i = 0; i < l->ntuple; i++) {
		c->tuple[i] = clone_rec(a, l->tuple[i], s->tuple[i]);
		if (!c->tuple[i])
			return NULL;
	}
	return c;
}

/* The clone gets its own copy of the shape, so it lives wholly in a. */
Literal *literal_clone(Arena *a, const Literal *l)
{
	if (!l)
		return NULL;
	return clone_rec(a, l, shape_clone(a, l->shape));
}

/* --- raw element access -------------------------------------------------- */

static Dtype type_of(const Literal *l) { return l->shape->type; }

static unsigned char *elem(const Literal *l, int64_t i)
{
	assert(i >= 0 && i < l->n);
	return (unsigned char *)l->data + i * dtype_bytes(type_of(l));
}

static uint64_t rd_uint(const void *p, int bytes)
{
	uint64_t v = 0;
	uint8_t b;
	uint16_t h;
	uint32_t w;
	switch (bytes) {
	case 1:
		memcpy(&b, p, 1);
		return b;
	case 2:
		memcpy(&h, p, 2);
		return h;
	case 4:
		memcpy(&w, p, 4);
		return w;
	default:
		memcpy(&v, p, 8);
		return v;
	}
}

/* As rd_uint, sign-extended from the top bit read: (u ^ s) - s moves the
 * sign bit s into every higher bit without a signed shift. */
static int64_t rd_sint(const void *p, int bytes)
{
	int bits = bytes < 8 ? 8 * bytes : 64; /* integers are 1, 2, 4 or 8 */
	uint64_t s = (uint64_t)1 << (bits - 1);
	return (int64_t)((rd_uint(p, bytes) ^ s) - s);
}

/* Stores the low bytes of v (little-endian hosts; memcpy of a narrowed
 * copy keeps it endian-clean). */
static void wr_uint(void *p, int bytes, uint64_t v)
{
	uint8_t b = (uint8_t)v;
	uint16_t h = (uint16_t)v;
	uint32_t w = (uint32_t)v;
	switch (bytes) {
	case 1:
		memcpy(p, &b, 1);
		break;
	case 2:
		memcpy(p, &h, 2);
		break;
	case 4:
		memcpy(p, &w, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

static double rd_float(Dtype t, const void *p)
{
	float f;
	double d;
	switch (t) {
	case DT_F32:
		memcpy(&f, p, 4);
		return f;
	case DT_F64:
		memcpy(&d, p, 8);
		return d;
	case DT_F16:
		return dtype_f16_to_float((uint16_t)rd_uint(p, 2));
	case DT_BF16:
		return dtype_bf16_to_float((uint16_t)rd_uint(p, 2));
	default:
		return dtype_small_float_to_double(t, (uint32_t)rd_uint(p, 1));
	}
}

static void wr_float(Dtype t, void *p, double v)
{
	float f;
	switch (t) {
	case DT_F32:
		f = (float)v;
		memcpy(p, &f, 4);
		break;
	case DT_F64:
		memcpy(p, &v, 8);
		break;
	default:
		wr_uint(p, dtype_bytes(t), dtype_double_to_small_float(t, v));
		break;
	}
}

/* Complex parts: c64 holds floats, c128 doubles. */
static void rd_complex(Dtype t, const unsigned char *p, double *re, double *im)
{
	Dtype part = t == DT_C64 ? DT_F32 : DT_F64;
	int w = dtype_bytes(part);
	*re = rd_float(part, p);
	*im = rd_float(part, p + w);
}

static void wr_complex(Dtype t, unsigned char *p, double re, double im)
{
	Dtype part = t == DT_C64 ? DT_F32 : DT_F64;
	wr_float(part, p, re);
	wr_float(part, p + dtype_bytes(part), im);
}

/* --- integer ranges -------------------------------------------------------- */

static int64_t sint_min(Dtype t)
{
	return -(int64_t)(((uint64_t)1 << (dtype_bits(t) - 1)) - 1) - 1;
}

static int64_t sint_max(Dtype t)
{
	return (int64_t)(((uint64_t)1 << (dtype_bits(t) - 1)) - 1);
}

static uint64_t uint_max(Dtype t)
{
	int w = dtype_bits(t);
	return w == 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1;
}

/* Wraps v to the type's width: sign-extends for s types, masks for u. */
static uint64_t wrap_int(Dtype t, uint64_t v)
{
	int w = dtype_bits(t);
	if (w == 64)
		return v;
	v &= ((uint64_t)1 << w) - 1;
	if (dtype_kind(t) == DK_SINT && (v >> (w - 1)) & 1)
		v |= ~(uint64_t)0 << w;
	return v;
}

/* XLA's float-to-int convert: NaN -> 0, saturate, else truncate. */
static uint64_t sat_int(Dtype t, double v)
{
	if (isnan(v))
		return 0;
	if (dtype_kind(t) == DK_UINT) {
		uint64_t hi = uint_max(t);
		if (v >= (double)hi)
			return hi;
		return v <= 0 ? 0 : (uint64_t)v;
	}
	int64_t lo = sint_min(t), hi = sint_max(t);
	if (v >= (double)hi)
		return (uint64_t)hi;
	if (v <= (double)lo)
		return (uint64_t)lo;
	return (uint64_t)(int64_t)v;
}

/* --- public element access ------------------------------------------------- */

double literal_get_f64(const Literal *l, int64_t i)
{
	Dtype t = type_of(l);
	const unsigned char *p = elem(l, i);
	double re, im;
	switch (dtype_kind(t)) {
	case DK_PRED:
		return *p != 0;
	case DK_SINT:
		return (double)rd_sint(p, dtype_bytes(t));
	case DK_UINT:
		return (double)rd_uint(p, dtype_bytes(t));
	case DK_FLOAT:
		return rd_float(t, p);
	case DK_COMPLEX:
		rd_complex(t, p, &re, &im);
		return re;
	default:
		return 0;
	}
}

/* u64 values above INT64_MAX come back wrapped (same bits). Floats
 * convert as XLA's convert does. */
int64_t literal_get_i64(const Literal *l, int64_t i)
{
	Dtype t = type_of(l);
	const unsigned char *p = elem(l, i);
	switch (dtype_kind(t)) {
	case DK_PRED:
		return *p != 0;
	case DK_SINT:
		return rd_sint(p, dtype_bytes(t));
	case DK_UINT:
		return (int64_t)rd_uint(p, dtype_bytes(t));
	case DK_FLOAT:
	case DK_COMPLEX:
		return (int64_t)sat_int(DT_S64, literal_get_f64(l, i));
	default:
		return 0;
	}
}

void literal_set_f64(Literal *l, int64_t i, double v)
{
	Dtype t = type_of(l);
	unsigned char *p = elem(l, i);
	switch (dtype_kind(t)) {
	case DK_PRED:
		*p = v != 0; /* NaN is true, as in C++ */
		break;
	case DK_SINT:
	case DK_UINT:
		wr_uint(p, dtype_bytes(t), sat_int(t, v));
		break;
	case DK_FLOAT:
		wr_float(t, p, v);
		break;
	case DK_COMPLEX:
		wr_complex(t, p, v, 0);
		break;
	default:
		break;
	}
}

/* Narrow floats go through float first, as XLA's int-to-half/f8 casts do. */
void literal_set_i64(Literal *l, int64_t i, int64_t v)
{
	Dtype t = type_of(l);
	unsigned char *p = elem(l, i);
	switch (dtype_kind(t)) {
	case DK_PRED:
		*p = v != 0;
		break;
	case DK_SINT:
	case DK_UINT:
		wr_uint(p, dtype_bytes(t), wrap_int(t, (uint64_t)v));
		break;
	case DK_FLOAT:
		wr_float(t, p, t == DT_F64 ? (double)v : (double)(float)v);
		break;
	case DK_COMPLEX:
		wr_complex(t, p, t == DT_C128 ? (double)v : (double)(float)v,
			   0);
		break;
	default:
		break;
	}
}

void literal_get_c(const Literal *l, int64_t i, double *re, double *im)
{
	if (dtype_kind(type_of(l)) == DK_COMPLEX) {
		rd_complex(type_of(l), elem(l, i), re, im);
		return;
	}
	*re = literal_get_f64(l, i);
	*im = 0;
}

void literal_set_c(Literal *l, int64_t i, double re, double im)
{
	if (dtype_kind(type_of(l)) == DK_COMPLEX)
		wr_complex(type_of(l), elem(l, i), re, im);
	else
		literal_set_f64(l, i, re);
}

/* --- pseudo-random fill ---------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform in [-1, 1) on a 2^-23 grid, exact in f32 and f64. */
/* k / 2^23 - 1 for a 24-bit k: exact in float, so converting it to a
 * narrower float rounds once whichever way it goes. */
static double rand_unit(uint64_t *st)
{
	return (double)(splitmix64(st) >> 40) * 0x1p-23 - 1.0;
}

static int64_t rand_int(Dtype t, uint64_t *st)
{
	int64_t lo = 0, hi = 9;
	if (dtype_kind(t) == DK_SINT) {
		lo = sint_min(t) > -5 ? sint_min(t) : -5;
		hi = sint_max(t) < 4 ? sint_max(t) : 4;
	} else if (uint_max(t) < 9) {
		hi = (int64_t)uint_max(t);
	}
	return lo + (int64_t)(splitmix64(st) % (uint64_t)(hi - lo + 1));
}

static void fill_elem(Literal *l, int64_t i, uint64_t *st)
{
	Dtype t = type_of(l);
	switch (dtype_kind(t)) {
	case DK_PRED:
		literal_set_i64(l, i, (int64_t)(splitmix64(st) & 1));
		break;
	case DK_SINT:
	case DK_UINT:
		literal_set_i64(l, i, rand_int(t, st));
		break;
	case DK_FLOAT:
		if (t == DT_F8E8M0FNU) /* positive only: 2^-8 .. 2^-1 */
			wr_uint(elem(l, i), 1, 119 + splitmix64(st) % 8);
		else
			literal_set_f64(l, i, rand_unit(st));
		break;
	case DK_COMPLEX:
		literal_set_c(l, i, rand_unit(st), rand_unit(st));
		break;
	default:
		break;
	}
}

/* Narrow float types round the [-1, 1) values, so they may reach 1.
 * The common float types are written directly (an elided constant of
 * 45M f16 took 2.5 s through the generic conversion); the values are
 * the same (rand_unit's are exact floats, so float -> f16/bf16 rounds
 * them as double -> f16/bf16 does). */
void literal_fill_pseudo_random(Literal *l, uint64_t seed)
{
	uint64_t st = seed;
	for (int i = 0; i < l->ntuple; i++)
		literal_fill_pseudo_random(l->tuple[i], splitmix64(&st));
	Dtype t = l->ntuple ? DT_INVALID : type_of(l);
	unsigned char *d = l->data;
	switch (t) {
	case DT_F32:
		for (int64_t i = 0; i < l->n; i++) {
			float f = (float)rand_unit(&st);
			memcpy(d + 4 * i, &f, 4);
		}
		return;
	case DT_F64:
		for (int64_t i = 0; i < l->n; i++) {
			double v = rand_unit(&st);
			memcpy(d + 8 * i, &v, 8);
		}
		return;
	case DT_F16:
	case DT_BF16:
		for (int64_t i = 0; i < l->n; i++) {
			float f = (float)rand_unit(&st);
			uint16_t h = t == DT_F16 ? dtype_float_to_f16(f)
						 : dtype_float_to_bf16(f);
			memcpy(d + 2 * i, &h, 2);
		}
		return;
	default:
		for (int64_t i = 0; i < l->n; i++)
			fill_elem(l, i, &st);
	}
}

static int payload_bits(Dtype t);

bool literal_set_nan_payload(Literal *l, int64_t i, uint64_t payload)
{
	Dtype t = type_of(l);
	int pb = payload_bits(t);
	if (!pb || payload == 0 || payload >> pb)
		return false;
	unsigned char *p = elem(l, i);
	int bytes = dtype_bytes(t);
	uint64_t mask = ((uint64_t)1 << pb) - 1;
	wr_uint(p, bytes, (rd_uint(p, bytes) & ~mask) | payload);
	return true;
}

bool literal_set_c_nan_payload(Literal *l, int64_t i, int part,
			       uint64_t payload)
{
	Dtype t = type_of(l);
	if (t != DT_C64 && t != DT_C128)
		return false;
	int pb = payload_bits(t == DT_C64 ? DT_F32 : DT_F64);
	if (payload == 0 || payload >> pb)
		return false;
	int bytes = t == DT_C64 ? 4 : 8;
	unsigned char *p = elem(l, i) + part * bytes;
	uint64_t mask = ((uint64_t)1 << pb) - 1;
	wr_uint(p, bytes, (rd_uint(p, bytes) & ~mask) | payload);
	return true;
}

/* --- printing: scalars ----------------------------------------------------- */

typedef struct {
	int digits10;     /* first try, 0 for none */
	int max_digits10; /* always reads back */
	int payload_bits; /* NaN payload field printed as (0x...), 0: none */
} FloatText;

/* ceil(1 + digits * log10(2)), digits counting the implicit bit. */
static int max_digits10(Dtype t)
{
	return (int)ceil(1.0 + (dtype_mant_bits(t) + 1) * 0.3010299956639812);
}

static FloatText float_text(Dtype t)
{
	FloatText ft = {0, max_digits10(t), 0};
	if (t == DT_F32)
		ft.digits10 = 6;
	else if (t == DT_F64)
		ft.digits10 = 15;
	ft.payload_bits = payload_bits(t);
	return ft;
}

/* The types whose NaNs print their payload: those with IEEE-style NaNs
 * (an all-ones exponent and any mantissa). */
static int payload_bits(Dtype t)
{
	return t == DT_F16 || t == DT_BF16 || t == DT_F32 || t == DT_F64 ||
			       t == DT_F8E5M2
		       ? dtype_mant_bits(t)
		       : 0;
}

static bool reads_back(Dtype t, const char *s, double v)
{
	if (t == DT_F32)
		return strtof(s, NULL) == (float)v;
	return strtod(s, NULL) == v;
}

static void put_nan(StrBuf *b, Dtype t, const void *p, double v)
{
	sb_puts(b, signbit(v) ? "-nan" : "nan");
	int pb = float_text(t).payload_bits;
	if (!pb)
		return;
	uint64_t bits = rd_uint(p, dtype_bytes(t));
	uint64_t payload = bits & (((uint64_t)1 << pb) - 1);
	if (payload != (uint64_t)1 << (pb - 1))
		sb_printf(b, "(0x%" PRIx64 ")", payload);
}

static void put_float(StrBuf *b, Dtype t, const void *p)
{
	double v = rd_float(t, p);
	if (isnan(v)) {
		put_nan(b, t, p, v);
		return;
	}
	FloatText ft = float_text(t);
	char s[64];
	if (ft.digits10) {
		snprintf(s, sizeof s, "%.*g", ft.digits10, v);
		if (reads_back(t, s, v)) {
			sb_puts(b, s);
			return;
		}
	}
	snprintf(s, sizeof s, "%.*g", ft.max_digits10, v);
	sb_puts(b, s);
}

static void put_complex(StrBuf *b, Dtype t, const unsigned char *p)
{
	Dtype part = t == DT_C64 ? DT_F32 : DT_F64;
	sb_putc(b, '(');
	put_float(b, part, p);
	sb_puts(b, ", ");
	put_float(b, part, p + dtype_bytes(part));
	sb_putc(b, ')');
}

static void put_elem(StrBuf *b, const Literal *l, int64_t i, bool in_array)
{
	Dtype t = type_of(l);
	const unsigned char *p = elem(l, i);
	switch (dtype_kind(t)) {
	case DK_PRED:
		if (in_array)
			sb_putc(b, *p ? '1' : '0');
		else
			sb_puts(b, *p ? "true" : "false");
		break;
	case DK_SINT:
		sb_printf(b, "%" PRId64, rd_sint(p, dtype_bytes(t)));
		break;
	case DK_UINT:
		sb_printf(b, "%" PRIu64, rd_uint(p, dtype_bytes(t)));
		break;
	case DK_FLOAT:
		put_float(b, t, p);
		break;
	case DK_COMPLEX:
		put_complex(b, t, p);
		break;
	default:
		break;
	}
}

void literal_print_scalar(StrBuf *b, const Literal *l, int64_t i)
{
	put_elem(b, l, i, false);
}

/* --- printing: arrays and tuples ------------------------------------------- */

typedef struct {
	StrBuf *b;
	const Literal *l;
	int rank;
	int64_t next; /* row-major index of the next element */
} ArrayPrinter;

static void open_brace(ArrayPrinter *ap, int d, int64_t parent_i)
{
	int64_t n = ap->l->shape->dims[d];
	int left = ap->rank - d;
	if (ap->rank == 1) {
		sb_putc(ap->b, '{');
	} else if (left == 1) {
		sb_puts(ap->b, n <= 1 ? "{" : "{ ");
	} else if (ap->rank > 3 && d > 0) {
		sb_printf(ap->b, "{ /*i%d=%" PRId64 "*/", d - 1, parent_i);
		if (n > 0)
			sb_putc(ap->b, ' ');
	} else {
		sb_puts(ap->b, "{ ");
	}
}

static void close_brace(ArrayPrinter *ap, int d)
{
	int64_t n = ap->l->shape->dims[d];
	if (ap->rank == 1 || (ap->rank - d == 1 && n <= 1))
		sb_putc(ap->b, '}');
	else
		sb_puts(ap->b, " }");
}

static void print_level(ArrayPrinter *ap, int d, int64_t parent_i)
{
	int64_t n = ap->l->shape->dims[d];
	open_brace(ap, d, parent_i);
	for (int64_t i = 0; i < n; i++) {
		if (d == ap->rank - 1)
			put_elem(ap->b, ap->l, ap->next++, true);
		else
			print_level(ap, d + 1, i);
		if (i < n - 1)
			sb_puts(ap->b, ", ");
	}
	close_brace(ap, d);
}

static void print_tuple(StrBuf *b, const Literal *l, int64_t max_elems)
{
	sb_puts(b, "( ");
	for (int i = 0; i < l->ntuple; i++) {
		if (i > 0)
			sb_puts(b, ", ");
		literal_print(b, l->tuple[i], max_elems);
	}
	sb_puts(b, " )");
}

void literal_print(StrBuf *b, const Literal *l, int64_t max_elems)
{
	const Shape *s = l->shape;
	if (l->elided) {
		sb_puts(b, "{...}");
	} else if (s->type == DT_TUPLE) {
		print_tuple(b, l, max_elems);
	} else if (!dtype_is_array(s->type)) {
		sb_puts(b, dtype_name(s->type));
	} else if (max_elems > 0 && l->n > max_elems) {
		sb_puts(b, "{...}");
	} else if (s->rank == 0) {
		put_elem(b, l, 0, false);
	} else {
		ArrayPrinter ap = {b, l, s->rank, 0};
		print_level(&ap, 0, 0);
	}
}

/* --- equality -------------------------------------------------------------- */

static bool same_dims(const Shape *a, const Shape *b)
{
	if (a->type != b->type || a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return true;
}

/* Bitwise: NaNs with the same bits are equal, -0 and 0 are not. An elided
 * literal only equals another elided one. */
bool literal_equal(const Literal *a, const Literal *b)
{
	if (!a || !b)
		return a == b;
	if (!same_dims(a->shape, b->shape) || a->elided != b->elided ||
	    a->n != b->n || a->ntuple != b->ntuple)
		return false;
	for (int i = 0; i < a->ntuple; i++)
		if (!literal_equal(a->tuple[i], b->tuple[i]))
			return false;
	size_t bytes = (size_t)a->n * (size_t)dtype_bytes(a->shape->type);
	return bytes == 0 || memcmp(a->data, b->data, bytes) == 0;
}
