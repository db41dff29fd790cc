/* infer.h - shape inference for HLO instructions, following XLA's
 * ShapeInference rules. */
#ifndef XR_INFER_H
#define XR_INFER_H
#include <stdbool.h>

#include "diag.h"
#include "hlo.h"

/* Infers the result shape of ins from its operands, attributes and called
 * computations; the result carries the default layout (layout NULL).
 * Returns NULL when the operands are inconsistent, reporting an error at
 * ins->loc in file f (f may be NULL), or when the opcode has no inference
 * rule (then no error is reported and *no_rule is set if non-NULL). */
Shape *infer_shape(Arena *a, const HloInstr *ins, Diag *d, const SrcFile *f,
		   bool *no_rule);

#endif
