/* npy.h - NumPy .npy files: versions 1.0-3.0, either byte order, C order.
 *
 * Types: bool, int8-64, uint8-64, float16/32/64, complex64/128 map to
 * pred, s8-s64, u8-u64, f16/f32/f64, c64/c128. bf16, the f8 and f4 types
 * have no NumPy dtype: they are written as float32 (and sub-byte ints as
 * int8/uint8) with a note, and a float32 file reads into them with
 * rounding (literal_convert). */
#ifndef XR_NPY_H
#define XR_NPY_H
#include <stdbool.h>

#include "diag.h"
#include "literal.h"

/* Reads path into a literal of the file's own type and shape. */
Literal *npy_read(Arena *a, const char *path, Diag *d);
/* Parses .npy bytes (name is used in messages). */
Literal *npy_parse(Arena *a, const char *name, const unsigned char *buf,
		   size_t len, Diag *d);
/* Writes an array literal. *note (may be NULL) receives a sentence when
 * the file's dtype differs from the literal's element type. */
bool npy_write(const char *path, const Literal *l, Diag *d, const char **note);
/* The NumPy spelling of a type as written to files ("float32"). */
const char *npy_dtype_name(Dtype t);
/* Element-wise conversion to another element type (same dims), rounding
 * as XLA's convert does. */
Literal *literal_convert(Arena *a, const Literal *l, Dtype to);

#endif
