/* algsimp.c - algebraic simplification (being written). */
#include "passes.h"

bool pass_algsimp(HloModule *m, PassCtx *cx)
{
	(void)m, (void)cx;
	return false;
}
