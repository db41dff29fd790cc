/* shape.h - XLA shapes: arrays (with optional dynamic dims and layout),
 * tuples, token and opaque. Shapes live in a module's arena. */
#ifndef XR_SHAPE_H
#define XR_SHAPE_H
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "dtype.h"
#include "strbuf.h"

enum { XR_MAX_RANK = 64 };
/* Upper bound on the elements of one array: anything bigger is refused
 * by the parser and shape inference as "absurd". */
#define XR_MAX_ELEMENTS ((int64_t)1 << 48)

typedef enum { DIM_STATIC, DIM_BOUNDED, DIM_UNBOUNDED } DimKind;

typedef struct Layout {
	int n;              /* == rank */
	int *minor_to_major;
	/* Text after ':' inside the braces, e.g. "T(8,128)(2,1)E(4)S(5)",
	 * kept verbatim (whitespace removed) and printed back. NULL if none. */
	const char *ext;
	int64_t element_size_bits; /* E(n), 0 if absent */
	int64_t memory_space;      /* S(n), 0 if absent */
	const char *tiles;         /* "(8,128)(2,1)" from T..., NULL if absent */
} Layout;

typedef struct Shape Shape;
struct Shape {
	Dtype type;       /* DT_TUPLE for tuples */
	int rank;
	int64_t *dims;    /* bounded dims hold their bound; '?' holds -1 */
	uint8_t *dyn;     /* NULL when all static, else a DimKind per dim */
	Layout *layout;   /* NULL: none written; printers use the default */
	int ntuple;
	Shape **tuple;
	bool buffer;      /* b(...) buffer type */
	/* shape_elements + 2 once asked (0: not yet). A shape is not
	 * changed once an instruction holds it, so the count stays true;
	 * shape_clone copies it with the dims. */
	int64_t elems_cache;
	uint64_t bytes_cache; /* shape_bytes + 2 the same way, unsigned */
	uint64_t hash_cache; /* shape_hash, 0 until asked */
};

Shape *shape_array(Arena *a, Dtype t, int rank, const int64_t *dims);
Shape *shape_scalar(Arena *a, Dtype t);
Shape *shape_tuple(Arena *a, int n, Shape *const *elems);
Shape *shape_clone(Arena *a, const Shape *s);
/* Same element type and dims (layout ignored). Tuples compare elementwise. */
bool shape_compatible(const Shape *a, const Shape *b);
/* As shape_compatible, but an unbounded '?' dim matches any size and
 * bounded/static marks are ignored: what inference and the verifier
 * compare a declared shape with. */
bool shape_matches(const Shape *a, const Shape *b);
/* Same dims, any element type. */
bool shape_same_dims(const Shape *a, const Shape *b);
/* Static arrays whose dims are the same once the size-1 ones are left
 * out (f32[1,4096,1] and f32[4096]), any element type: a reshape
 * between them moves no element. */
bool shape_same_dims_but_ones(const Shape *a, const Shape *b);
/* shape_same_dims_but_ones, and their layouts order those dims the
 * same way in memory (no tiling): a bitcast between them maps each
 * element to the one of the same index. */
bool shape_same_order_but_ones(const Shape *a, const Shape *b);
/* Exact equality including layouts (a NULL layout equals the default). */
bool shape_equal(const Shape *a, const Shape *b);
bool shape_is_tuple(const Shape *s);
bool shape_is_array(const Shape *s); /* not tuple, token or opaque */
bool shape_is_scalar(const Shape *s);
bool shape_is_dynamic(const Shape *s);
/* An array with no dynamic dimension: shape_is_array and not
 * shape_is_dynamic, asked in one call (passes ask it of every operand). */
bool shape_is_static_array(const Shape *s);
/* shape_print(b, x, with_layout) writes the same text for a and b
 * (false may also mean "not known": compare the text then). */
bool shape_print_same(const Shape *a, const Shape *b, bool with_layout);
/* Number of elements; -1 if it overflows. Tuples: 0. */
int64_t shape_count_elements(const Shape *s); /* fills elems_cache */
static inline int64_t shape_elements(const Shape *s)
{
	return s->elems_cache ? s->elems_cache - 2 : shape_count_elements(s);
}
/* Bytes of the buffer(s), tuples summed; -1 on overflow. */
int64_t shape_count_bytes(const Shape *s); /* fills bytes_cache */
static inline int64_t shape_bytes(const Shape *s)
{
	return s->bytes_cache ? (int64_t)(s->bytes_cache - 2)
			      : shape_count_bytes(s);
}
/* a + b for sums of byte counts (both >= 0): INT64_MAX when it would
 * pass it. */
static inline int64_t shape_bytes_add(int64_t a, int64_t b)
{
	return b > INT64_MAX - a ? INT64_MAX : a + b;
}
/* A hash of everything a shape says (type, dims and their kinds,
 * layout, tuple elements, buffer): equal shapes hash equal. Cached in
 * the shape like the counts above. Never 0. */
uint64_t shape_hash(const Shape *s);

/* Layout printing: with_layout prints "{1,0}" (default when none is set)
 * for arrays of rank >= 1. */
void shape_print(StrBuf *b, const Shape *s, bool with_layout);
/* Convenience: prints into a static-free arena string. */
const char *shape_str(Arena *a, const Shape *s);
/* Checks that a layout is a permutation of 0..rank-1. */
bool layout_valid(const Layout *l, int rank);

#endif
