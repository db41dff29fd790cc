/* cost.h - the cost model: flops and bytes per kernel, a roofline
 * estimate per machine.
 *
 * A kernel is what hlo_module_kernels counts: a top-level instruction of
 * the entry computation other than parameter, constant, tuple,
 * get-tuple-element and bitcast. A fusion is one kernel: it reads its
 * operands and writes its result once; what happens inside stays in
 * registers. An unfused instruction reads every operand and writes its
 * result. Bytes follow the STREAM convention (what the kernel must read
 * and write, no write-allocate traffic). */
#ifndef XR_COST_H
#define XR_COST_H
#include <stdbool.h>
#include <stdint.h>

#include "hlo.h"

typedef struct Cost {
	double flops;           /* arithmetic operations (a fma is 2) */
	double transcendentals; /* exp, log, tanh, ... (also in flops) */
	int64_t bytes_read;
	int64_t bytes_written;
} Cost;

/* A machine for the roofline: peak memory bandwidth and compute. */
typedef struct CostMachine {
	const char *name; /* "cpu", "h200" */
	double gbps;      /* GB/s (1e9 bytes per second) */
	double gflops;    /* GFLOP/s (f32, non-tensor) */
} CostMachine;

/* This machine kind's CPU (one core: STREAM triad 27 GB/s, AVX-512 f32
 * FMA peak 211 GFLOP/s) and an H200 (HBM3e 4.8 TB/s, f32 67 TFLOP/s):
 * ../shared/reference/performance-anchors.md. */
#define COST_CPU_GBPS 27.0
#define COST_CPU_GFLOPS 211.0
#define COST_GPU_GBPS 4800.0
#define COST_GPU_GFLOPS 67000.0

/* The cost of one instruction run as a kernel (a fusion: the whole
 * fused computation as one kernel). Instructions that launch nothing
 * (parameter, constant, tuple, get-tuple-element, bitcast) cost zero. */
Cost cost_instr(const HloInstr *ins);
/* Sum over the kernels of the entry computation. */
Cost cost_module(const HloModule *m);
/* bytes_read + bytes_written of cost_module: what `pass` reports as
 * bytes moved. */
int64_t cost_bytes_moved(const HloModule *m);
/* The same for a module that has just passed verify_module_changed (so
 * that each instruction's vsig is what it looks like now): a kernel
 * whose vsig is what it was when its bytes were last worked out here
 * reuses them. Fusions and control flow, whose bytes hang on the
 * computations they call, are worked out each time. */
int64_t cost_bytes_moved_verified(HloModule *m);
/* cost_bytes_moved and cost_bytes_moved_verified, with *kernels (may be
 * NULL) set to hlo_module_kernels(m) from the same walk over the entry
 * (sanitizer builds check the verified one's count against it). */
int64_t cost_bytes_moved_kernels(const HloModule *m, int *kernels);
int64_t cost_bytes_moved_verified_kernels(HloModule *m, int *kernels);
/* cost_bytes_moved_verified_kernels one instruction at a time, for a
 * walk that visits the entry's instructions anyway (a clone:
 * hlo_module_clone_each): cost_walk_new (NULL: out of memory), then
 * cost_walk_instr for each instruction of the entry of m, in order,
 * then cost_walk_end, which gives the bytes, sets *kernels (may be
 * NULL) and frees the walk; or cost_walk_drop, which frees a walk that
 * stopped short (the clone ran out of memory). */
typedef struct CostWalk CostWalk;
CostWalk *cost_walk_new(void);
void cost_walk_instr(void *walk, HloInstr *ins);
/* cost_walk_instr for each of xs[0..n-1] (a VerifyEach: the walk fed by
 * verify_module_changed_each). */
void cost_walk_instrs(void *walk, HloInstr *const *xs, int n);
/* Has w been given as many instructions as m's entry holds? (A walk
 * fed by a verifier that stopped short has not.) */
bool cost_walk_whole(const CostWalk *w, const HloModule *m);
int64_t cost_walk_end(CostWalk *w, HloModule *m, int *kernels);
void cost_walk_drop(CostWalk *w);
/* Roofline time in seconds of c on machine mc: max(bytes / bandwidth,
 * flops / compute). *memory_bound (may be NULL) says which term won. */
double cost_roofline_s(const Cost *c, const CostMachine *mc,
		       bool *memory_bound);

/* The arithmetic of ins alone (flops and transcendentals; bytes zero):
 * what one fused instruction contributes to its fusion. */
Cost cost_flops(const HloInstr *ins);
/* Bytes the kernel ins reads of its operand i (a slice reads only what
 * it returns; a fusion only what its fused computation reads). */
int64_t cost_operand_bytes(const HloInstr *ins, int i);
/* How many times while loop w runs its body: n of known_trip_count in
 * its backend_config, or, as XLA's while-loop analysis finds simple
 * loops, from a counter: an integer element of the loop state that
 * starts as a constant, that the body adds a constant to, and that the
 * condition's root compares with a constant (or with an element the
 * body leaves alone that starts as one). -1 when not known (also for a
 * loop that would not end, whose counter would wrap, or that runs
 * INT64_MAX times: its condition's count would not fit). how (cap
 * bytes, may be NULL) gets where the figure comes from, in words. */
int64_t cost_trip_count(const HloInstr *w, char *how, size_t cap);
/* Arithmetic intensity: flops per byte moved (0 when no bytes move). */
double cost_intensity(const Cost *c);

#endif
