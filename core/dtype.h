/* dtype.h - XLA element types and scalar conversions.
 *
 * One X-macro table: enum constant, spelling, storage bits, kind, and for
 * floats the exponent and mantissa widths. */
#ifndef XR_DTYPE_H
#define XR_DTYPE_H
#include <stdbool.h>
#include <stdint.h>

typedef enum {
	DK_INVALID,
	DK_PRED,
	DK_SINT,
	DK_UINT,
	DK_FLOAT,
	DK_COMPLEX,
	DK_TOKEN,
	DK_OPAQUE,
	DK_TUPLE,
} DtypeKind;

/* X(ENUM, "spelling", storage_bits, kind, exp_bits, mant_bits) */
#define XR_DTYPES(X)                                    \
	X(DT_PRED, "pred", 8, DK_PRED, 0, 0)             \
	X(DT_S1, "s1", 8, DK_SINT, 0, 1)                 \
	X(DT_S2, "s2", 8, DK_SINT, 0, 2)                 \
	X(DT_S4, "s4", 8, DK_SINT, 0, 4)                 \
	X(DT_S8, "s8", 8, DK_SINT, 0, 8)                 \
	X(DT_S16, "s16", 16, DK_SINT, 0, 16)             \
	X(DT_S32, "s32", 32, DK_SINT, 0, 32)             \
	X(DT_S64, "s64", 64, DK_SINT, 0, 64)             \
	X(DT_U1, "u1", 8, DK_UINT, 0, 1)                 \
	X(DT_U2, "u2", 8, DK_UINT, 0, 2)                 \
	X(DT_U4, "u4", 8, DK_UINT, 0, 4)                 \
	X(DT_U8, "u8", 8, DK_UINT, 0, 8)                 \
	X(DT_U16, "u16", 16, DK_UINT, 0, 16)             \
	X(DT_U32, "u32", 32, DK_UINT, 0, 32)             \
	X(DT_U64, "u64", 64, DK_UINT, 0, 64)             \
	X(DT_F16, "f16", 16, DK_FLOAT, 5, 10)            \
	X(DT_BF16, "bf16", 16, DK_FLOAT, 8, 7)           \
	X(DT_F32, "f32", 32, DK_FLOAT, 8, 23)            \
	X(DT_F64, "f64", 64, DK_FLOAT, 11, 52)           \
	X(DT_F8E5M2, "f8e5m2", 8, DK_FLOAT, 5, 2)        \
	X(DT_F8E4M3, "f8e4m3", 8, DK_FLOAT, 4, 3)        \
	X(DT_F8E4M3FN, "f8e4m3fn", 8, DK_FLOAT, 4, 3)    \
	X(DT_F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, DK_FLOAT, 4, 3) \
	X(DT_F8E3M4, "f8e3m4", 8, DK_FLOAT, 3, 4)        \
	X(DT_F8E5M2FNUZ, "f8e5m2fnuz", 8, DK_FLOAT, 5, 2) \
	X(DT_F8E4M3FNUZ, "f8e4m3fnuz", 8, DK_FLOAT, 4, 3) \
	X(DT_F8E8M0FNU, "f8e8m0fnu", 8, DK_FLOAT, 8, 0)  \
	X(DT_F4E2M1FN, "f4e2m1fn", 8, DK_FLOAT, 2, 1)    \
	X(DT_C64, "c64", 64, DK_COMPLEX, 8, 23)          \
	X(DT_C128, "c128", 128, DK_COMPLEX, 11, 52)      \
	X(DT_TOKEN, "token", 0, DK_TOKEN, 0, 0)          \
	X(DT_OPAQUE, "opaque", 0, DK_OPAQUE, 0, 0)

typedef enum {
	DT_INVALID,
#define X(e, s, b, k, eb, mb) e,
	XR_DTYPES(X)
#undef X
	DT_TUPLE, /* not an element type: marks a tuple Shape */
	DT_COUNT
} Dtype;

const char *dtype_name(Dtype t);
/* Returns DT_INVALID when the spelling is not an element type. */
Dtype dtype_parse(const char *s, int n);
DtypeKind dtype_kind(Dtype t);
/* Storage bytes of one element in our buffers (sub-byte types take one
 * byte; token/opaque/tuple: 0). */
int dtype_bytes(Dtype t);
/* Logical bit width (s4 -> 4, f8* -> 8, c64 -> 64). */
int dtype_bits(Dtype t);
int dtype_exp_bits(Dtype t);
int dtype_mant_bits(Dtype t);
bool dtype_is_float(Dtype t);   /* real floating point, any width */
bool dtype_is_int(Dtype t);     /* signed or unsigned integer */
bool dtype_is_array(Dtype t);   /* has values: not token/opaque/tuple */

/* Scalar conversions for the narrow float types. Values are rounded to
 * nearest, ties to even; out-of-range values become inf, or NaN (or the
 * largest finite value where the type has neither, per XLA/ml_dtypes). */
double dtype_small_float_to_double(Dtype t, uint32_t bits);
uint32_t dtype_double_to_small_float(Dtype t, double v);
float dtype_f16_to_float(uint16_t h);
uint16_t dtype_float_to_f16(float f);
float dtype_bf16_to_float(uint16_t h);
uint16_t dtype_float_to_bf16(float f);

#endif
