/* backend.h - the backends a module can run on: a small table of
 * {name, available, run}. The interpreter is the reference; the LLVM CPU
 * JIT and the CUDA GPU backend plug in here as they land. */
#ifndef XR_BACKEND_H
#define XR_BACKEND_H
#include <stdbool.h>

#include "diag.h"
#include "interp.h"

typedef struct Backend {
	const char *name;
	/* NULL when usable, else why not (a sentence for the error). */
	const char *(*unavailable)(void);
	/* Runs m on args; the result goes to out. */
	Literal *(*run)(const HloModule *m, Literal *const *args, int nargs,
			Arena *out, const InterpOpts *o, Diag *d);
} Backend;

const Backend *backend_find(const char *name);
/* Names of all backends, for usage text and completion. */
const Backend *backend_table(int *n);

#endif
