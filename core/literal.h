/* literal.h - constant values: a shape and packed element data.
 *
 * Elements are stored in logical row-major order (last dimension fastest),
 * dtype_bytes() each: pred as one byte 0/1, sub-byte ints sign- or
 * zero-extended in one byte, f16/bf16/f8 as their bit patterns, c64 as two
 * floats. Layouts never change the storage order. */
#ifndef XR_LITERAL_H
#define XR_LITERAL_H
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "shape.h"
#include "strbuf.h"

typedef struct Literal Literal;
struct Literal {
	const Shape *shape;
	int64_t n;      /* elements (arrays) */
	void *data;     /* n * dtype_bytes(shape->type) bytes */
	int ntuple;
	Literal **tuple;
	bool elided;    /* written as {...}: values are filler */
};

/* Zero-filled literal of a shape. NULL if too big or out of memory. */
Literal *literal_new(Arena *a, const Shape *s);
Literal *literal_clone(Arena *a, const Literal *l);
/* Element i as double / int64 (complex: real part). */
double literal_get_f64(const Literal *l, int64_t i);
int64_t literal_get_i64(const Literal *l, int64_t i);
void literal_set_f64(Literal *l, int64_t i, double v);
void literal_set_i64(Literal *l, int64_t i, int64_t v);
/* Element i, a NaN already, gets payload as its mantissa bits (what the
 * printer writes as nan(0x...)). False, nothing changed, when the type
 * prints no payload or payload is 0 or does not fit its mantissa. */
bool literal_set_nan_payload(Literal *l, int64_t i, uint64_t payload);
/* The same for part (0 real, 1 imaginary) of complex element i. */
bool literal_set_c_nan_payload(Literal *l, int64_t i, int part,
			       uint64_t payload);
/* Complex element parts (imag 0 for real types). */
void literal_get_c(const Literal *l, int64_t i, double *re, double *im);
void literal_set_c(Literal *l, int64_t i, double re, double im);
/* Fills with deterministic pseudo-random values for elided constants. */
void literal_fill_pseudo_random(Literal *l, uint64_t seed);
/* Prints the value as XLA does: 1.5, {1, 2}, { {1, 2}, {3, 4} }, (a, b).
 * max_elems > 0 elides arrays with more elements as {...}. */
void literal_print(StrBuf *b, const Literal *l, int64_t max_elems);
/* Prints one scalar of type t with the shortest round-tripping text. */
void literal_print_scalar(StrBuf *b, const Literal *l, int64_t i);
bool literal_equal(const Literal *a, const Literal *b);

#endif
