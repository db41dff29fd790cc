/* interp_impl.h - what the interpreter's opcode families share.
 *
 * interp.c runs computations; the families (interp_elementwise.c,
 * interp_data.c, interp_reduce.c, interp_linalg.c) each register one
 * evaluator per opcode. An evaluator gets the operand values and, for an
 * array result, a buffer of the instruction's shape to fill (it may hold
 * the values of an earlier call: write every element); it returns that
 * buffer (or a value from it_new) or NULL after it_fail.
 * Values are never aliased: each instruction owns its buffers. */
#ifndef XR_INTERP_IMPL_H
#define XR_INTERP_IMPL_H
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "interp.h"

/* IEEE 754-2019 maximum and minimum of floats, as StableHLO specifies
 * them and XLA:CPU computes them: a NaN operand gives NaN (the first
 * one's), and -0 is below +0. (XLA's evaluator returns its left operand
 * on that tie instead.) */
static inline double it_fmax(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) ? x : y;
	if (x == y)
		return signbit(x) ? y : x;
	return x < y ? y : x;
}

static inline double it_fmin(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) ? x : y;
	if (x == y)
		return signbit(x) ? x : y;
	return y < x ? y : x;
}

typedef struct Interp Interp;

typedef Literal *(*EvalFn)(Interp *it, const HloInstr *ins,
			   Literal *const *ops, Literal *out);

/* Registration: each family fills its opcodes' slots of the table. */
void interp_register_elementwise(EvalFn *t);
void interp_register_data(EvalFn *t);
void interp_register_reduce(EvalFn *t);
void interp_register_linalg(EvalFn *t);
void interp_register_control(EvalFn *t);

/* Reports an error at ins and returns NULL (for "return it_fail(...)"). */
Literal *it_fail(Interp *it, const HloInstr *ins, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Call every ~64k elements in long loops: false when interrupted (an
 * error has then been reported). */
bool it_poll(Interp *it, const HloInstr *ins);
/* A fresh zero-filled value of shape s (tuples included), counted against
 * the memory limit. NULL after reporting at ins when over the limit. */
Literal *it_new(Interp *it, const HloInstr *ins, const Shape *s);
/* Frees a value from it_new or it_copy that will not be returned. */
void it_free(Interp *it, Literal *v);
/* Deep copy of v (for results that outlive a call). */
Literal *it_copy(Interp *it, const HloInstr *ins, const Literal *v);
/* Copies src's values into dst of the same shape. */
void it_assign(Literal *dst, const Literal *src);
/* Evaluates computation c on args. The result belongs to the callee's
 * frame and is valid until c is called again at the same depth: copy or
 * consume it before that. NULL on error (already reported). */
Literal *it_call(Interp *it, const HloComp *c, Literal *const *args, int n);
/* Scratch arena for the current run (freed when the run ends). */
Arena *it_arena(Interp *it);
/* A seed for an rng evaluation: a hash of the instruction's name mixed
 * with a per-run count of rng evaluations, so runs are reproducible and an
 * rng in a loop body gives new values each iteration. */
uint64_t it_rng_seed(Interp *it, const HloInstr *ins);

/* ---- indexing helpers (row-major, last dimension fastest) ---- */
/* strides[i] = product of dims after i. */
void it_strides(const Shape *s, int64_t *strides);
/* Linear index <-> multi-index. */
void it_unflatten(const Shape *s, int64_t lin, int64_t *idx);
int64_t it_flatten(const Shape *s, const int64_t *idx);
/* Advances idx like an odometer over dims; false after the last. */
bool it_next_index(const Shape *s, int64_t *idx);

/* ---- element access (through the element type, see literal.h) ---- */
static inline double it_getf(const Literal *l, int64_t i)
{
	return literal_get_f64(l, i);
}
static inline void it_setf(Literal *l, int64_t i, double v)
{
	literal_set_f64(l, i, v);
}
static inline int64_t it_geti(const Literal *l, int64_t i)
{
	return literal_get_i64(l, i);
}
static inline void it_seti(Literal *l, int64_t i, int64_t v)
{
	literal_set_i64(l, i, v);
}
/* Copies element si of src to element di of dst (same element type). */
void it_copy_elem(Literal *dst, int64_t di, const Literal *src, int64_t si);

#endif
