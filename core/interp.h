/* interp.h - the reference interpreter: exact HLO semantics on the CPU.
 *
 * It is the numeric ground truth every pass and backend is checked
 * against, so it is written to be right before it is fast: floats are
 * computed in double and rounded to the element type after every
 * operation, integers wrap at their width, and every opcode either
 * follows XLA's semantics or fails with a message naming it. */
#ifndef XR_INTERP_H
#define XR_INTERP_H
#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "hlo.h"

typedef struct InterpOpts {
	int64_t max_memory;              /* bytes; <= 0: no limit */
	volatile const int *interrupted; /* nonzero: stop soon (Ctrl-C) */
} InterpOpts;

typedef struct InterpStats {
	int64_t peak_bytes;      /* largest total of live buffers */
	int64_t estimate_bytes;  /* what interp_estimate_bytes said */
	int64_t instrs;          /* instructions evaluated, calls included */
	bool oom;                /* it failed for want of memory (not a
				    limit: InterpOpts.max_memory) */
} InterpStats;

/* Runs m's entry computation on args (one per parameter, in parameter
 * number order; shapes must be compatible). The result is a deep copy in
 * out. NULL on error, with the message in d: unsupported opcode, memory
 * limit, interrupted, bad arguments. stats may be NULL. */
Literal *interp_run(const HloModule *m, Literal *const *args, int nargs,
		    Arena *out, const InterpOpts *o, Diag *d, InterpStats *stats);

/* The same for any computation of a module (constant folding). */
Literal *interp_run_comp(const HloComp *c, Literal *const *args, int nargs,
			 Arena *out, const InterpOpts *o, Diag *d,
			 InterpStats *stats);

/* Peak bytes of live buffers the entry computation needs when values are
 * freed after their last use (called computations not included); -1
 * without an entry or on a cycle, INTERP_OOM when out of memory. */
enum { INTERP_OOM = -2 };
int64_t interp_estimate_bytes(const HloModule *m);

/* True when the interpreter has an evaluator for the opcode. */
bool interp_supports(HloOpcode op);

#endif
