/* compare.h - numeric comparison of two results (a backend's against the
 * interpreter's), the figures behind the `check:` line. */
#ifndef XR_COMPARE_H
#define XR_COMPARE_H
#include <stdbool.h>
#include <stdint.h>

#include "literal.h"

typedef struct CompareResult {
	double max_abs_err, max_rel_err;
	int64_t elements, mismatches;
	int64_t worst;     /* element index of the largest error, -1 none */
	bool shape_differs;
	bool ok;
} CompareResult;

/* The default tolerance for an element type: 0 for integers and pred,
 * about 4 ulps of the type for floats (f32 1e-5, bf16 2e-2, ...). For a
 * tuple, the loosest of its elements. */
double compare_default_tol(const Shape *s);
/* got is within tol of want when, element by element, |got - want| <=
 * tol * (1 + |want|) (NaN matches NaN, inf matches the same inf). Tuples
 * compare element by element. */
void literal_compare(const Literal *got, const Literal *want, double tol,
		     CompareResult *r);

#endif
