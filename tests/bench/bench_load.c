/* bench_load.c - load benchmark: parse_module + verify_module on a
 * generated module of N instructions (make bench; not a test).
 *
 * The module looks like a real XLA dump: long form with % sigils, typed
 * operands, layouts and metadata; parameters, broadcasts, elementwise
 * chains, reduces calling a to_apply computation, dots, tuples and
 * get-tuple-elements. It also times the default pipeline over the loaded
 * module as `pipeline` runs it (one clone, counted, then pass_run pass by
 * pass). Timing
 * is the median of several runs on the monotonic clock. Targets (issues
 * 2 and 4): load and pipeline of 10k instructions each in <= 10 ms, and
 * per-instruction cost at 100k <= 3x that at 10k (the pipeline's, and
 * each pass's that takes 0.1 ms or more at 10k: PASS_FLOOR_NS).
 *
 *   xr_bench [--check] [--runs R] [--pipeline-only] [N...]
 *                               default N: 10000 100000
 *   xr_bench --print N          write the generated module to stdout
 *   --check: exit 3 when a target is missed; --runs: timed runs per size
 *   (default 21 up to 20k, 7 up to 200k, 3 above); --pipeline-only: skip
 *   the load figures (the pipeline targets are checked instead). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "diag.h"
#include "hlo.h"
#include "parse.h"
#include "passes/fusion.h"
#include "passes/pass.h"
#include "strbuf.h"
#include "verify.h"

enum { MAX_SIZES = 16, MAX_PASSES = 32, MAX_RUNS = 101 };

#define X      "f32[64,128]{1,0}"
#define W      "f32[128,64]{1,0}"
#define ACC    "f32[64,64]{1,0}"
#define ROW    "f32[64]{0}"
#define SCALAR "f32[]"

/* One block is ten instructions; x is the chain value, acc the dot sum. */
static void block(StrBuf *b, int i, int *x, int *acc)
{
	int xi = *x, ai = *acc;
	sb_printf(b,
		  "  %%bcast.%d = " X " broadcast(" SCALAR " %%p2), "
		  "dimensions={}\n",
		  i);
	sb_printf(b,
		  "  %%add.%d = " X " add(" X " %%x.%d, " X " %%bcast.%d), "
		  "metadata={op_type=\"Add\" op_name=\"jit(step)/add\" "
		  "source_file=\"model.py\" source_line=%d}\n",
		  i, xi, i, i);
	sb_printf(b,
		  "  %%mul.%d = " X " multiply(" X " %%add.%d, " X " %%x.%d)\n",
		  i, i, xi);
	sb_printf(b, "  %%exp.%d = " X " exponential(" X " %%mul.%d)\n", i, i);
	sb_printf(b,
		  "  %%x.%d = " X " maximum(" X " %%exp.%d, " X
		  " %%bcast.%d)\n",
		  i + 1, i, i);
	sb_printf(b,
		  "  %%red.%d = " ROW " reduce(" X " %%x.%d, " SCALAR
		  " %%zero), dimensions={1}, to_apply=%%add_f32\n",
		  i, i + 1);
	sb_printf(b,
		  "  %%dot.%d = " ACC " dot(" X " %%x.%d, " W " %%p1), "
		  "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
		  i, i + 1);
	sb_printf(b,
		  "  %%tup.%d = (" ROW ", " ACC ") tuple(" ROW " %%red.%d, " ACC
		  " %%dot.%d)\n",
		  i, i, i);
	sb_printf(b,
		  "  %%gte.%d = " ACC " get-tuple-element((" ROW ", " ACC
		  ") %%tup.%d), index=1\n",
		  i, i);
	sb_printf(b,
		  "  %%acc.%d = " ACC " add(" ACC " %%acc.%d, " ACC
		  " %%gte.%d)\n",
		  i + 1, ai, i);
	*x = i + 1;
	*acc = i + 1;
}

/* Generates a module with exactly n instructions (n >= 12). */
static void gen_module(StrBuf *b, int n)
{
	sb_printf(b, "HloModule bench_load, entry_computation_layout="
		     "{(" X ", " W ", " SCALAR ")->" ACC "}\n\n");
	sb_puts(b, "%add_f32 (a: f32[], b: f32[]) -> f32[] {\n"
		   "  %a = f32[] parameter(0)\n"
		   "  %b = f32[] parameter(1)\n"
		   "  ROOT %sum = f32[] add(f32[] %a, f32[] %b)\n"
		   "}\n\n");
	sb_puts(b, "ENTRY %main (p0: f32[64,128], p1: f32[128,64], p2: f32[]) "
		   "-> f32[64,64] {\n");
	sb_puts(b, "  %x.0 = " X " parameter(0)\n"
		   "  %p1 = " W " parameter(1)\n"
		   "  %p2 = " SCALAR " parameter(2)\n"
		   "  %zero = " SCALAR " constant(0)\n"
		   "  %acc.0 = " ACC " broadcast(" SCALAR " %zero), "
		   "dimensions={}\n");
	int fixed = 3 + 5 + 1; /* add_f32, entry prologue, root */
	int blocks = (n - fixed) / 10, pad = (n - fixed) % 10;
	int x = 0, acc = 0;
	for (int i = 0; i < blocks; i++)
		block(b, i, &x, &acc);
	for (int k = 0; k < pad; k++, acc++)
		sb_printf(b, "  %%acc.%d = " ACC " negate(" ACC " %%acc.%d)\n",
			  acc + 1, acc);
	sb_printf(b, "  ROOT %%out = " ACC " copy(" ACC " %%acc.%d)\n}\n", acc);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Loads text once; returns elapsed ns, or -1 with the diagnostics printed.
 * *count gets the module's instruction count. */
static double load_once(const char *text, size_t len, int *count)
{
	SrcFile src = {.name = "<bench>", .text = text, .len = len};
	Diag d;
	diag_init(&d);
	ParseStatus st = PARSE_OK;
	double t0 = now_ns();
	HloModule *m = parse_module(&src, &d, &st);
	bool ok = m && verify_module(m, &d, &src);
	double t1 = now_ns();
	if (!ok) {
		fprintf(stderr, "bench: load failed:\n%s", diag_text(&d));
		if (m)
			hlo_module_free(m);
		diag_free(&d);
		return -1;
	}
	*count = hlo_module_instr_count(m);
	hlo_module_free(m);
	diag_free(&d);
	return t1 - t0;
}

typedef struct Result {
	int n, count;
	double median_ns, min_ns;
	double pipe_median_ns, pipe_min_ns;
	double own_median_ns; /* sum of the passes' own times (PassResult.ms) */
	int np;
	double pass_ns[MAX_PASSES]; /* per pass: median of pass_run */
	double own_ns[MAX_PASSES];  /* per pass: median of PassResult.ms */
} Result;

typedef struct Opts {
	int runs; /* 0: by size */
	bool pipeline_only;
} Opts;

/* The default pipeline over m as `pipeline` runs it: one clone (with
 * its counts, the first pass's before), then pass by pass in place (pass_run: each verified and counted), each
 * fusion pass keeping its decision log. Returns elapsed ns, -1 on
 * failure. pass_ns[i] gets each pass_run's time, own_ns[i] the pass's
 * own (PassResult.ms); the clone is counted in the total only. */
static double pipeline_once(const HloModule *m, double *pass_ns, double *own_ns)
{
	int n;
	const char *const *steps = pipeline_find("default", &n);
	double t0 = now_ns();
	PassResult r;
	HloModule *cur = pass_clone_counted(m, &r);
	if (!cur) {
		fprintf(stderr, "bench: out of memory\n");
		return -1;
	}
	for (int i = 0; i < n && i < MAX_PASSES; i++) {
		Diag d;
		diag_init(&d);
		FusionLog *log = fusion_log_new();
		PassResult prev = r;
		PassCtx cx = {.d = &d, .fold_max_elems = 1 << 16,
			      .fusion_log = log,
			      .prev = &prev};
		double ts = now_ns();
		bool ok = log && pass_run(cur, pass_find(steps[i]), &cx, &r);
		pass_ns[i] = now_ns() - ts;
		own_ns[i] = r.ms * 1e6;
		fusion_log_free(log);
		if (!ok) {
			fprintf(stderr, "bench: %s failed:\n%s", steps[i],
				diag_text(&d));
			diag_free(&d);
			hlo_module_free(cur);
			return -1;
		}
		diag_free(&d);
	}
	double t1 = now_ns();
	hlo_module_free(cur);
	return t1 - t0;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

static void print_passes(const char *what, const char *const *steps, int np,
			 const double *ns)
{
	printf("bench:   %s:", what);
	for (int k = 0; k < np; k++)
		printf(" %s=%.2f", steps[k], ns[k] / 1e6);
	printf("\n");
}

static bool run_pipeline(const char *text, size_t len, int runs, Result *r)
{
	SrcFile src = {.name = "<bench>", .text = text, .len = len};
	Diag d;
	diag_init(&d);
	/* Verified, as `load` leaves it. */
	HloModule *m = parse_module(&src, &d, NULL);
	bool ok = m && verify_module(m, &d, &src);
	diag_free(&d);
	if (!ok) {
		hlo_module_free(m);
		return false;
	}
	r->count = hlo_module_instr_count(m);
	int np;
	const char *const *steps = pipeline_find("default", &np);
	if (np > MAX_PASSES)
		np = MAX_PASSES;
	static double t[MAX_RUNS], own[MAX_RUNS], pass_ns[MAX_PASSES][MAX_RUNS],
		own_ns[MAX_PASSES][MAX_RUNS];
	double one[MAX_PASSES], one_own[MAX_PASSES];
	if (pipeline_once(m, one, one_own) < 0) { /* warm-up */
		hlo_module_free(m);
		return false;
	}
	for (int i = 0; i < runs; i++) {
		t[i] = pipeline_once(m, one, one_own);
		own[i] = 0;
		for (int k = 0; k < np; k++) {
			pass_ns[k][i] = one[k];
			own_ns[k][i] = one_own[k];
			own[i] += one_own[k];
		}
	}
	hlo_module_free(m);
	r->np = np;
	for (int k = 0; k < np; k++) {
		r->pass_ns[k] = median(pass_ns[k], runs);
		r->own_ns[k] = median(own_ns[k], runs);
	}
	r->own_median_ns = median(own, runs);
	r->pipe_median_ns = median(t, runs);
	r->pipe_min_ns = t[0];
	printf("bench: pipeline n=%d runs=%d median_ms=%.3f min_ms=%.3f "
	       "per_instr_ns=%.1f passes_own_ms=%.3f\n",
	       r->n, runs, r->pipe_median_ns / 1e6, r->pipe_min_ns / 1e6,
	       r->pipe_median_ns / r->count, r->own_median_ns / 1e6);
	print_passes("per pass (median ms, pass + verify + counts)",
		     steps, np, r->pass_ns);
	print_passes("per pass (median ms, the pass alone)", steps, np,
		     r->own_ns);
	return true;
}

static bool run_size(int n, const Opts *o, Result *r)
{
	StrBuf b;
	sb_init(&b);
	gen_module(&b, n);
	if (b.oom) {
		fprintf(stderr, "bench: out of memory generating n=%d\n", n);
		sb_free(&b);
		return false;
	}
	int runs = o->runs ? o->runs : n <= 20000 ? 21 : n <= 200000 ? 7 : 3;
	static double t[MAX_RUNS];
	r->n = n;
	if (!o->pipeline_only) {
		/* warm-up first */
		if (load_once(sb_str(&b), b.len, &r->count) < 0) {
			sb_free(&b);
			return false;
		}
		for (int i = 0; i < runs; i++)
			t[i] = load_once(sb_str(&b), b.len, &r->count);
		r->median_ns = median(t, runs);
		r->min_ns = t[0];
		printf("bench: load n=%d instrs=%d bytes=%zu runs=%d "
		       "median_ms=%.3f min_ms=%.3f per_instr_ns=%.1f "
		       "mb_per_s=%.1f\n",
		       n, r->count, b.len, runs, r->median_ns / 1e6,
		       r->min_ns / 1e6, r->median_ns / r->count,
		       (double)b.len / r->median_ns * 1e3);
	}
	bool ok = run_pipeline(sb_str(&b), b.len, runs, r);
	sb_free(&b);
	return ok;
}

/* Target: 10k instructions in <= 10 ms. */
static bool check_time(const char *what, int n, double ns)
{
	if (n != 10000 || ns <= 10e6)
		return true;
	printf("bench: target missed: %s n=10000 %.3f ms > 10\n", what,
	       ns / 1e6);
	return false;
}

/* A pass whose time at the smallest size is under this is shown
 * scaled but not held to the target: it is 1% of the 10k budget, so
 * it cannot move the pipeline's ratio, and such a pass is a walk
 * timed in microseconds that reads one line of each instruction from
 * the cache at 10k and from memory at 100k (constant-folding: 1 ns an
 * instruction at 10k, 3-4 ns at 100k). */
#define PASS_FLOOR_NS 0.1e6

/* Target: per-instruction cost at the largest size <= 3x the smallest;
 * held only when floor_ns <= ns_lo. */
static bool check_ratio(const char *what, const Result *lo, const Result *hi,
			double ns_lo, double ns_hi, double floor_ns)
{
	double ratio = (ns_hi / hi->count) / (ns_lo / lo->count);
	printf("bench: scaling %s per_instr_ns n=%d/n=%d ratio=%.2f", what,
	       hi->n, lo->n, ratio);
	if (ns_lo < floor_ns) {
		printf(" (not a target: %.3f ms at n=%d, under %.1f)\n",
		       ns_lo / 1e6, lo->n, floor_ns / 1e6);
		return true;
	}
	printf("\n");
	if (ratio <= 3.0)
		return true;
	printf("bench: target missed: %s ratio %.2f > 3\n", what, ratio);
	return false;
}

static bool check_targets(const Result *res, int nsizes, const Opts *o)
{
	bool met = true;
	for (int i = 0; i < nsizes; i++) {
		if (!o->pipeline_only)
			met &= check_time("load", res[i].n, res[i].median_ns);
		met &= check_time("pipeline", res[i].n, res[i].pipe_median_ns);
	}
	if (nsizes < 2)
		return met;
	const Result *lo = &res[0], *hi = &res[nsizes - 1];
	if (!o->pipeline_only)
		met &= check_ratio("load", lo, hi, lo->median_ns,
				   hi->median_ns, 0);
	met &= check_ratio("pipeline", lo, hi, lo->pipe_median_ns,
			   hi->pipe_median_ns, 0);
	int np;
	const char *const *steps = pipeline_find("default", &np);
	for (int k = 0; k < lo->np && k < hi->np; k++) {
		char what[64];
		snprintf(what, sizeof what, "pass %s", steps[k]);
		met &= check_ratio(what, lo, hi, lo->pass_ns[k],
				   hi->pass_ns[k], PASS_FLOOR_NS);
	}
	return met;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: xr_bench [--check] [--runs R] "
		"[--pipeline-only] [N...] | --print N (N >= 12, "
		"1 <= R <= %d)\n",
		MAX_RUNS);
	return 2;
}

int main(int argc, char **argv)
{
	/* as xla-repl does (repl/main.c) */
	arena_keep_freed_memory();
	Opts o = {0};
	bool check = false;
	int sizes[MAX_SIZES], nsizes = 0;
	if (argc == 3 && !strcmp(argv[1], "--print") && atoi(argv[2]) >= 12) {
		StrBuf b;
		sb_init(&b);
		gen_module(&b, atoi(argv[2]));
		fputs(sb_str(&b), stdout);
		sb_free(&b);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check")) {
			check = true;
		} else if (!strcmp(argv[i], "--pipeline-only")) {
			o.pipeline_only = true;
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			o.runs = atoi(argv[++i]);
			if (o.runs < 1 || o.runs > MAX_RUNS)
				return usage();
		} else if (nsizes < MAX_SIZES && atoi(argv[i]) >= 12) {
			sizes[nsizes++] = atoi(argv[i]);
		} else {
			return usage();
		}
	}
	if (nsizes == 0) {
		sizes[nsizes++] = 10000;
		sizes[nsizes++] = 100000;
	}
	static Result res[MAX_SIZES];
	for (int i = 0; i < nsizes; i++)
		if (!run_size(sizes[i], &o, &res[i]))
			return 1;
	bool met = check_targets(res, nsizes, &o);
	printf("bench: targets %s\n", met ? "met" : "MISSED");
	return check && !met ? 3 : 0;
}
