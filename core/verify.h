/* verify.h - the HLO verifier: declared vs inferred shapes, operand counts
 * and types, called computation signatures, parameter numbering, cycles,
 * one entry, roots. Every error points at the instruction's position. */
#ifndef XR_VERIFY_H
#define XR_VERIFY_H
#include <stdbool.h>

#include "diag.h"
#include "hlo.h"

/* f is the text the module was parsed from (for carets); may be NULL or
 * carry only a name. Returns true when the module is well formed. */
bool verify_module(HloModule *m, Diag *d, const SrcFile *f);
/* Checks one instruction (shape, operands, attributes). */
bool verify_instr(HloInstr *ins, Diag *d, const SrcFile *f);

#endif
