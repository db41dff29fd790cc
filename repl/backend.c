/* backend.c - the backend table. */
#include "backend.h"

#include <string.h>

static Literal *run_interp(const HloModule *m, Literal *const *args, int nargs,
			   Arena *out, const InterpOpts *o, Diag *d)
{
	return interp_run(m, args, nargs, out, o, d, NULL);
}

static const char *interp_unavailable(void) { return NULL; }

static const char *cpu_unavailable(void)
{
	return "the LLVM CPU backend is not built yet (issue: LLVM code "
	       "generation); use 'interp'";
}

static const char *gpu_unavailable(void)
{
	return "the GPU backend is not built yet (issue: NVPTX and the CUDA "
	       "driver); use 'interp'";
}

static const Backend backends[] = {
	{"interp", interp_unavailable, run_interp},
	{"cpu", cpu_unavailable, NULL},
	{"gpu", gpu_unavailable, NULL},
};

const Backend *backend_table(int *n)
{
	*n = (int)(sizeof backends / sizeof *backends);
	return backends;
}

const Backend *backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof backends / sizeof *backends; i++)
		if (!strcmp(backends[i].name, name))
			return &backends[i];
	return NULL;
}
