/* fusion.c - producer/consumer and multi-output fusion (being written). */
#include "passes.h"

bool pass_fusion(HloModule *m, PassCtx *cx)
{
	(void)m, (void)cx;
	return false;
}

bool pass_multi_output_fusion(HloModule *m, PassCtx *cx)
{
	(void)m, (void)cx;
	return false;
}
