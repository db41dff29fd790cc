/* defuser.c - takes every fusion apart (XLA's Defuser).
 *
 * Does: replaces each fusion instruction by a copy of its fused
 * computation's instructions, the fused parameters wired to the
 * fusion's operands, nested fusions first; the fused computations go.
 * A multi-output fusion's tuple root is copied as a tuple, which the
 * get-tuple-elements that read it keep reading (tuple-simplifier folds
 * them). Layouts stand as call-inliner keeps them: a root or an operand
 * laid out otherwise than the fusion says gets a copy, and a fusion of
 * a tuple laid out otherwise stays. Copies keep their names from the
 * fused computation, suffixed where the name is taken.
 * What it is for: an optimised XLA dump (after XLA's fusion) taken back
 * to its unfused graph, so that `pipeline` fuses it again and the two
 * kernel counts, XLA's and this tool's, can be compared, and `why`
 * asked about any pair.
 * Requires: a verified module.
 * Invalidates: computation list, instruction positions and ids. No
 * fusion is left for the last fusion pass's decisions to name: the
 * REPL starts an empty fusion log at its step (commands/history.c). */
#include "passes.h"

bool pass_defuser(HloModule *m, PassCtx *cx)
{
	return pass_inline_all(m, cx, HLO_FUSION);
}
