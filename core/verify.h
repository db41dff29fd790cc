/* verify.h - the HLO verifier: declared vs inferred shapes, operand counts
 * and types, called computation signatures, parameter numbering, cycles,
 * one entry, roots. Every error points at the instruction's position. */
#ifndef XR_VERIFY_H
#define XR_VERIFY_H
#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "hlo.h"

/* f is the text the module was parsed from (for carets); may be NULL or
 * carry only a name. Returns true when the module is well formed. */
bool verify_module(HloModule *m, Diag *d, const SrcFile *f);
/* verify_module, with *oom set when it ran out of memory: then a false
 * is no verdict on the module. */
bool verify_module_oom(HloModule *m, Diag *d, const SrcFile *f, bool *oom);
/* verify_module for a module that passed it before and was changed
 * since (a pass): the instruction checks run again only for instructions
 * that are new or changed (their operands, shape, attributes, or the
 * signatures of what they call), the cycle check only in computations
 * that hold one. Same verdict as verify_module: sanitizer builds check
 * that by running both. *checked (may be NULL) gets how many
 * instructions were new or changed. */
bool verify_module_changed(HloModule *m, Diag *d, const SrcFile *f,
			   int *checked);
/* What verify_module_changed_each hands its caller: instructions of
 * the entry, n of them from xs on, as its signature walk passes them
 * (still in the cache: a walk of its own over a large entry reads each
 * from memory again). */
typedef void (*VerifyEach)(void *ctx, HloInstr *const *xs, int n);
/* verify_module_changed, handing each (may be NULL) the entry's
 * instructions on the way, in order, in runs: when it returns true,
 * each has had every one of them once, after its signature was taken
 * (vsig as it stands after the run). */
bool verify_module_changed_each(HloModule *m, Diag *d, const SrcFile *f,
				int *checked, VerifyEach each, void *ctx);
/* dst is a fresh clone of src (hlo_module_clone): what src's
 * instructions passed, dst's pass too, so verify_module_changed need not
 * check them again after a pass on dst. */
void verify_inherit(HloModule *dst, const HloModule *src);
/* One hash of everything the instruction checks read in m (each
 * instruction's signature, in order, computation by computation): two
 * equal digests mean the checks would say what they said before.
 * Sanitizer builds take it around a pass that reports no change. */
uint64_t verify_module_digest(const HloModule *m);
/* Checks one instruction (shape, operands, attributes). */
bool verify_instr(HloInstr *ins, Diag *d, const SrcFile *f);

#endif
