/* learn_text.c - what `explain` says: one short explanation for every
 * opcode of core/opcodes.def (semantics as XLA's operation semantics
 * define them: operands, attributes, result shape), for every pass of
 * the registry, and for the concepts of the XLA pipeline.
 *
 * The unit test test_repl_learn fails when an opcode or a registered
 * pass has no entry here, so adding one means adding its text too. */
#include <stddef.h>
#include <strings.h>

#include "learn.h"

const char *const cmd_topic_kind_names[NTOPIC_KINDS] = {
	[TOPIC_OPCODE] = "opcode",
	[TOPIC_PASS] = "pass",
	[TOPIC_CONCEPT] = "concept",
};

/* clang-format off */
static const Topic topics[] = {
	{"abs", TOPIC_OPCODE,
	 "Elementwise absolute value: abs(x) = |x|. One operand; the result has the\n"
	 "operand's shape and type. For complex operands the result is the real\n"
	 "modulus sqrt(re^2 + im^2) with the matching real type (c64 -> f32).\n"
	 "Example: y = f32[4] abs(x)\n"},
	{"acos", TOPIC_OPCODE,
	 "Elementwise inverse cosine (radians). One floating-point or complex\n"
	 "operand; the result has the same shape and type. acos(x) is NaN for real\n"
	 "|x| > 1. Expensive: fusion does not duplicate it.\n"},
	{"acosh", TOPIC_OPCODE,
	 "Elementwise inverse hyperbolic cosine, acosh(x) = log(x + sqrt(x^2 - 1)).\n"
	 "One floating-point or complex operand; same shape and type. NaN for real\n"
	 "x < 1.\n"},
	{"add", TOPIC_OPCODE,
	 "Elementwise sum of two operands of the same shape and element type:\n"
	 "z[i] = x[i] + y[i]. Integers wrap around; pred is not allowed. Shapes\n"
	 "must match exactly: HLO has no implicit broadcasting, so a scalar is\n"
	 "first expanded with an explicit `broadcast`.\n"
	 "Example: z = f32[32,1024] add(x, broadcast.3)\n"},
	{"add-dependency", TOPIC_OPCODE,
	 "add-dependency(x, token) returns x unchanged, but makes the instruction\n"
	 "depend on the token operand: it orders x after whatever produced the\n"
	 "token (an ordering edge for side-effecting operations). The result has\n"
	 "x's shape.\n"},
	{"after-all", TOPIC_OPCODE,
	 "Joins any number of tokens into one new token: token[] after-all(t1,\n"
	 "t2, ...). Side-effecting operations (infeed, outfeed, send, recv) take\n"
	 "and return tokens, and after-all orders an operation after several of\n"
	 "them. With no operands it creates a fresh token.\n"},
	{"all-gather", TOPIC_OPCODE,
	 "Collective: each participant contributes its operand and receives the\n"
	 "concatenation of all contributions along `dimensions={d}`. With N\n"
	 "replicas in the group, dimension d of the result is N times the\n"
	 "operand's. Attributes: replica_groups, channel_id, use_global_device_ids.\n"},
	{"all-gather-done", TOPIC_OPCODE,
	 "Second half of an asynchronous all-gather: waits for the matching\n"
	 "all-gather-start and yields the gathered array. Splitting a collective\n"
	 "into start/done lets the scheduler overlap communication with compute.\n"},
	{"all-gather-start", TOPIC_OPCODE,
	 "First half of an asynchronous all-gather: starts the transfer and\n"
	 "returns a handle (a tuple of the operand and the future result) that\n"
	 "all-gather-done consumes. Same attributes as all-gather.\n"},
	{"all-reduce", TOPIC_OPCODE,
	 "Collective: combines the operand across the participants of each\n"
	 "replica group with the reduction computation `to_apply` (usually add)\n"
	 "and gives every participant the combined result, with the operand's\n"
	 "shape. Data-parallel training uses it to sum gradients.\n"
	 "Example: s = f32[1024] all-reduce(g), replica_groups={}, to_apply=add\n"},
	{"all-reduce-done", TOPIC_OPCODE,
	 "Second half of an asynchronous all-reduce: waits for the all-reduce-start\n"
	 "it names and yields the reduced value (same shape as the operand).\n"
	 "Nothing else may read the operand's buffer until the done completes.\n"},
	{"all-reduce-start", TOPIC_OPCODE,
	 "First half of an asynchronous all-reduce: starts the reduction across\n"
	 "replicas (same attributes as all-reduce); all-reduce-done waits for it.\n"
	 "Independent work scheduled in between hides the communication.\n"},
	{"all-to-all", TOPIC_OPCODE,
	 "Collective: each participant splits its operand into N blocks along\n"
	 "dimension d (`dimensions={d}`), sends block i to participant i, and\n"
	 "concatenates what it receives along d. The result has the operand's\n"
	 "shape. Used to reshard a tensor (for example, expert parallelism).\n"},
	{"and", TOPIC_OPCODE,
	 "Elementwise logical AND of two pred operands, or bitwise AND of two\n"
	 "integer operands of the same shape. The result has the operands' shape\n"
	 "and type.\n"},
	{"asin", TOPIC_OPCODE,
	 "Elementwise inverse sine (radians). One floating-point or complex\n"
	 "operand; same shape and type. NaN for real |x| > 1.\n"
	 "Example: y = f32[8] asin(x)\n"},
	{"asinh", TOPIC_OPCODE,
	 "Elementwise inverse hyperbolic sine, asinh(x) = log(x + sqrt(x^2 + 1)).\n"
	 "One floating-point or complex operand; same shape and type.\n"
	 "Example: y = f32[8] asinh(x)\n"},
	{"async-done", TOPIC_OPCODE,
	 "Ends an asynchronous computation started by async-start and yields its\n"
	 "result. The start/update/done triple wraps any instruction (a collective,\n"
	 "a custom-call) so that it runs concurrently with the instructions the\n"
	 "scheduler places between start and done.\n"},
	{"async-start", TOPIC_OPCODE,
	 "Starts running a computation (`calls=`) asynchronously. Returns a tuple\n"
	 "of its operands, its future result and a context value; async-update\n"
	 "and async-done take that tuple. Printed as `xyz-start` for known\n"
	 "wrapped opcodes.\n"},
	{"async-update", TOPIC_OPCODE,
	 "An intermediate step of an asynchronous computation between async-start\n"
	 "and async-done: passes the in-flight state on without waiting for the\n"
	 "result, so a scheduler can place it among other work.\n"},
	{"atan2", TOPIC_OPCODE,
	 "Elementwise two-argument arctangent: atan2(y, x) is the angle of the\n"
	 "point (x, y) in radians, in (-pi, pi], using the signs of both operands\n"
	 "to pick the quadrant. Two floating-point operands of the same shape.\n"},
	{"atanh", TOPIC_OPCODE,
	 "Elementwise inverse hyperbolic tangent, atanh(x) = 0.5 log((1+x)/(1-x)).\n"
	 "One floating-point or complex operand; same shape and type. NaN for real\n"
	 "|x| > 1, +-inf at +-1.\n"},
	{"batch-norm-grad", TOPIC_OPCODE,
	 "Gradient of batch normalisation. Operands: operand, scale, mean,\n"
	 "variance, grad_output; attributes epsilon and feature_index. Returns a\n"
	 "tuple (grad_operand, grad_scale, grad_offset). Usually expanded into\n"
	 "reductions and elementwise ops before code generation.\n"},
	{"batch-norm-inference", TOPIC_OPCODE,
	 "Batch normalisation with given statistics: for each feature f (dimension\n"
	 "`feature_index`), y = (x - mean[f]) * scale[f] / sqrt(variance[f] +\n"
	 "epsilon) + offset[f]. Operands: operand, scale, offset, mean, variance.\n"
	 "The result has the operand's shape.\n"},
	{"batch-norm-training", TOPIC_OPCODE,
	 "Batch normalisation that computes its statistics: mean and variance of\n"
	 "each feature over all other dimensions, then normalises as\n"
	 "batch-norm-inference does. Operands: operand, scale, offset. Returns a\n"
	 "tuple (normalised, batch_mean, batch_var).\n"},
	{"bitcast", TOPIC_OPCODE,
	 "Reinterprets the operand's buffer as another shape with the same size in\n"
	 "bytes, without moving data: a reshape or transpose that the layouts make\n"
	 "free. It only exists after layout assignment and costs nothing at run\n"
	 "time (it is not a kernel).\n"},
	{"bitcast-convert", TOPIC_OPCODE,
	 "Reinterprets the bits of each element as another type:\n"
	 "f32 -> s32 gives the IEEE bit pattern. When the widths differ, a\n"
	 "dimension is added or removed (f32[4] -> u8[4,4]). No value conversion\n"
	 "happens; compare `convert`.\n"},
	{"broadcast", TOPIC_OPCODE,
	 "Expands an operand to a larger shape by copying it along new dimensions.\n"
	 "`dimensions={...}` says which result dimension each operand dimension\n"
	 "becomes (in increasing order); the other result dimensions are new.\n"
	 "Example: b = f32[32,1024] broadcast(f32[32] r), dimensions={0}\n"
	 "copies r[i] into every b[i, j]. A scalar uses dimensions={}.\n"},
	{"call", TOPIC_OPCODE,
	 "Calls a computation (`to_apply=`) with the operands as its parameters\n"
	 "and returns its root's value. Nothing is shared with the caller; the\n"
	 "call-inliner pass replaces calls by the callee's instructions.\n"},
	{"cbrt", TOPIC_OPCODE,
	 "Elementwise cube root. One floating-point operand; same shape and type.\n"
	 "Defined for negative inputs: cbrt(-8) = -2.\n"
	 "Example: y = f32[8] cbrt(x)\n"},
	{"ceil", TOPIC_OPCODE,
	 "Elementwise rounding up to the nearest integer (as a float): ceil(1.2) =\n"
	 "2, ceil(-1.2) = -1. One floating-point operand; same shape and type.\n"
	 "Example: y = f32[8] ceil(x)\n"},
	{"cholesky", TOPIC_OPCODE,
	 "Cholesky factorisation of symmetric positive-definite matrices (the\n"
	 "last two dimensions; leading ones are batch). `lower=true` gives L with\n"
	 "a = L L^T, otherwise U with a = U^T U. The other triangle of the result\n"
	 "is implementation-defined.\n"},
	{"clamp", TOPIC_OPCODE,
	 "clamp(min, x, max) = min(max(x, min), max), elementwise. x is the middle\n"
	 "operand; min and max may be scalars or have x's shape. The result has\n"
	 "x's shape and type.\n"
	 "Example: c = s32[8,16] clamp(zero, ids, limit)\n"},
	{"collective-broadcast", TOPIC_OPCODE,
	 "Collective: one participant of each replica group sends its operand to\n"
	 "all the others; every participant receives that value (the operand's\n"
	 "shape).\n"},
	{"collective-permute", TOPIC_OPCODE,
	 "Collective: sends the operand along `source_target_pairs={{0,1},{1,2}}`:\n"
	 "each target receives the operand of its source; a participant that is no\n"
	 "target gets zeros. Used for pipelining and ring algorithms.\n"},
	{"collective-permute-done", TOPIC_OPCODE,
	 "Second half of an asynchronous collective-permute: waits for the\n"
	 "transfer begun by collective-permute-start and yields the received\n"
	 "array.\n"},
	{"collective-permute-start", TOPIC_OPCODE,
	 "First half of an asynchronous collective-permute: begins sending along\n"
	 "source_target_pairs; collective-permute-done waits for it.\n"
	 "Work scheduled between start and done overlaps with the transfer.\n"},
	{"compare", TOPIC_OPCODE,
	 "Elementwise comparison producing pred: compare(x, y),\n"
	 "direction=EQ|NE|LT|LE|GT|GE. Operands have the same shape and type;\n"
	 "the result is pred with that shape. Optional `type=` (FLOAT, TOTALORDER,\n"
	 "SIGNED, UNSIGNED) chooses how floats and integers are ordered.\n"
	 "Example: p = pred[] compare(i, n), direction=LT\n"},
	{"complex", TOPIC_OPCODE,
	 "Elementwise: builds complex numbers from a real part and an imaginary\n"
	 "part of the same shape: f32 operands give c64, f64 give c128.\n"
	 "Example: z = c64[8] complex(f32[8] re, f32[8] im)\n"},
	{"concatenate", TOPIC_OPCODE,
	 "Joins operands along `dimensions={d}`: all operands agree on every\n"
	 "other dimension; dimension d of the result is the sum of theirs.\n"
	 "Example: c = f32[6,4] concatenate(f32[2,4] a, f32[4,4] b), dimensions={0}\n"},
	{"conditional", TOPIC_OPCODE,
	 "Runs one of several computations. With a pred selector:\n"
	 "conditional(p, t_arg, f_arg), true_computation=, false_computation=.\n"
	 "With an s32 index: branch_computations={b0, b1, ...}; an index out of\n"
	 "range picks the last branch. Each branch gets its own operand; all\n"
	 "branches return the same shape.\n"},
	{"constant", TOPIC_OPCODE,
	 "A literal value known at compile time: f32[] constant(0.5), s32[3]\n"
	 "constant({1, 2, 3}), f32[] constant(-inf). No operands. Constants are\n"
	 "folded into their users by passes and fused into kernels when small.\n"},
	{"convert", TOPIC_OPCODE,
	 "Elementwise conversion to another element type with the same dimensions,\n"
	 "converting each value: float to int rounds toward zero (XLA's CPU and\n"
	 "GPU backends saturate out-of-range values and map NaN to 0), int to\n"
	 "float rounds to nearest. Compare `bitcast-convert`, which keeps bits.\n"
	 "Example: f = f32[] convert(s32[] i)\n"},
	{"convolution", TOPIC_OPCODE,
	 "N-dimensional convolution of an input with a kernel (lhs, rhs).\n"
	 "`dim_labels=b01f_01io->b01f` says which dimensions are batch (b),\n"
	 "features (f), spatial (0, 1, ...) and kernel input/output features (i,\n"
	 "o). `window={size=3x3 stride=1x1 pad=1_1x1_1 lhs_dilate= rhs_dilate=}`\n"
	 "describes the sliding window; feature_group_count gives grouped and\n"
	 "depthwise convolutions. Expensive; on GPU it usually becomes a library\n"
	 "call.\n"},
	{"copy", TOPIC_OPCODE,
	 "Copies its operand into a new buffer, possibly with a different layout.\n"
	 "Values are unchanged. Layout assignment inserts copies to change\n"
	 "layouts; copy insertion adds them where buffers must not be shared.\n"},
	{"copy-done", TOPIC_OPCODE,
	 "Second half of an asynchronous copy: waits for the copy begun by\n"
	 "copy-start (for example a transfer between memory spaces, host and\n"
	 "device) and yields the copied array.\n"},
	{"copy-start", TOPIC_OPCODE,
	 "First half of an asynchronous copy, used for prefetching between memory\n"
	 "spaces: returns a tuple (destination, source, context) that copy-done\n"
	 "consumes.\n"},
	{"cosh", TOPIC_OPCODE,
	 "Elementwise hyperbolic cosine, (e^x + e^-x) / 2. One floating-point or\n"
	 "complex operand; same shape and type.\n"
	 "Example: y = f32[8] cosh(x)\n"},
	{"cosine", TOPIC_OPCODE,
	 "Elementwise cosine (radians). One floating-point or complex operand;\n"
	 "same shape and type. Expensive: fusion does not duplicate it.\n"
	 "Example: y = f32[8] cosine(x)\n"},
	{"count-leading-zeros", TOPIC_OPCODE,
	 "Elementwise: the number of leading zero bits of each integer (clz(1) in\n"
	 "s32 is 31, clz(0) is the bit width). Integer operand; same shape and\n"
	 "type.\n"},
	{"custom-call", TOPIC_OPCODE,
	 "Calls code the compiler does not see into: `custom_call_target=\"name\"`\n"
	 "names a registered function (a cuBLAS GEMM, a cuDNN convolution, a\n"
	 "hand-written kernel). The result shape must be written out. Passes\n"
	 "cannot look inside it, so they leave it alone (this tool treats it as\n"
	 "having side effects), and nothing fuses into it.\n"},
	{"divide", TOPIC_OPCODE,
	 "Elementwise division of two operands of the same shape and type.\n"
	 "Integer division rounds toward zero; integer division by zero and\n"
	 "INT_MIN / -1 give implementation-defined values (no trap). Expensive:\n"
	 "fusion does not duplicate it.\n"},
	{"domain", TOPIC_OPCODE,
	 "Marks a boundary between sharding (or other metadata) domains in the\n"
	 "graph; returns its operand unchanged. Inserted and removed by the\n"
	 "sharding passes.\n"},
	{"dot", TOPIC_OPCODE,
	 "Generalised matrix product. `lhs_contracting_dims` and\n"
	 "`rhs_contracting_dims` are summed over; `lhs_batch_dims` and\n"
	 "`rhs_batch_dims` are paired batch dimensions. The result is batch dims,\n"
	 "then the lhs's free dims, then the rhs's free dims.\n"
	 "Example: f32[32,256] dot(f32[32,784] x, f32[784,256] w),\n"
	 "  lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	 "Expensive; fusion makes it the hero of a kOutput fusion.\n"},
	{"dynamic-reshape", TOPIC_OPCODE,
	 "A reshape whose result dimension sizes are given at run time by scalar\n"
	 "s32 operands after the data operand (dynamic shapes). The element count\n"
	 "must match.\n"},
	{"dynamic-slice", TOPIC_OPCODE,
	 "Slices a fixed-size window at a start position known only at run time:\n"
	 "dynamic-slice(a, i0, i1, ...), dynamic_slice_sizes={...}. Each start\n"
	 "index is a scalar operand; starts are clamped so the window stays in\n"
	 "bounds. The result has the slice sizes as its dimensions.\n"},
	{"dynamic-update-slice", TOPIC_OPCODE,
	 "Writes `update` into a copy of the operand at run-time start indices:\n"
	 "dynamic-update-slice(a, update, i0, i1, ...). Starts are clamped so the\n"
	 "update fits. The result has the operand's shape; XLA does it in place\n"
	 "when the operand's buffer can be reused (common in loops).\n"},
	{"erf", TOPIC_OPCODE,
	 "Elementwise Gauss error function, erf(x) = 2/sqrt(pi) * integral from\n"
	 "0 to x of e^(-t^2) dt. One floating-point operand; same shape and type.\n"
	 "Exact GELU uses it.\n"},
	{"exponential", TOPIC_OPCODE,
	 "Elementwise e^x. One floating-point or complex operand; same shape and\n"
	 "type. Expensive: fusion does not duplicate it into several consumers.\n"
	 "Softmax subtracts the row maximum first so it cannot overflow.\n"},
	{"exponential-minus-one", TOPIC_OPCODE,
	 "Elementwise e^x - 1, accurate for x near 0 (where exp(x) - 1 would lose\n"
	 "digits). One floating-point or complex operand; same shape and type.\n"
	 "Example: y = f32[8] exponential-minus-one(x)\n"},
	{"fft", TOPIC_OPCODE,
	 "Fast Fourier transform over the innermost `fft_length` dimensions:\n"
	 "fft_type=FFT (complex to complex), IFFT (inverse), RFFT (real to\n"
	 "complex; the last dimension becomes n/2+1) or IRFFT (complex to real).\n"},
	{"floor", TOPIC_OPCODE,
	 "Elementwise rounding down to the nearest integer (as a float):\n"
	 "floor(-1.2) = -2. One floating-point operand; same shape and type.\n"
	 "Example: y = f32[8] floor(x)\n"},
	{"fusion", TOPIC_OPCODE,
	 "A kernel: a group of instructions fused into one computation\n"
	 "(`calls=%fused_computation`), run as one loop so intermediate values\n"
	 "stay in registers instead of memory. `kind=kLoop|kInput|kOutput|kCustom`\n"
	 "says how it is emitted (see 'explain fusion-kinds'). Its operands are\n"
	 "the fused computation's parameters; its result is that root's value.\n"},
	{"gather", TOPIC_OPCODE,
	 "Collects slices of an operand at positions read from an index array.\n"
	 "Attributes: offset_dims (result dimensions that come from the slice),\n"
	 "collapsed_slice_dims (slice dimensions of size 1 that are dropped),\n"
	 "start_index_map (which operand dimension each index component\n"
	 "addresses), index_vector_dim, slice_sizes. Embedding lookups are\n"
	 "gathers of rows: slice_sizes={1,D}, collapsed_slice_dims={0}. Starts\n"
	 "are clamped into bounds.\n"},
	{"get-dimension-size", TOPIC_OPCODE,
	 "Returns the current (run-time) size of dimension `dimensions={d}` of its\n"
	 "operand as an s32 scalar: the static size, or the dynamic size for a\n"
	 "dynamic (<=N) dimension.\n"},
	{"get-tuple-element", TOPIC_OPCODE,
	 "Extracts element `index=i` of a tuple operand. The result has that\n"
	 "element's shape. Free at run time (it selects a buffer); tuple-simplifier\n"
	 "folds get-tuple-element(tuple(a, b)), index=1 to b.\n"},
	{"imag", TOPIC_OPCODE,
	 "Elementwise imaginary part of a complex operand: c64 -> f32, c128 ->\n"
	 "f64, same dimensions. For a real operand it is 0.\n"
	 "Example: y = f32[8] imag(c64[8] z)\n"},
	{"infeed", TOPIC_OPCODE,
	 "Reads a value from the host's infeed queue: infeed(token) returns a\n"
	 "tuple (data, token). The data shape must be written out. Has side\n"
	 "effects and is ordered by its token.\n"},
	{"iota", TOPIC_OPCODE,
	 "Fills an array with 0, 1, 2, ... along `iota_dimension`, constant along\n"
	 "the other dimensions: s32[2,3] iota(), iota_dimension=1 is {{0,1,2},\n"
	 "{0,1,2}}. No operands; the shape must be written.\n"},
	{"is-finite", TOPIC_OPCODE,
	 "Elementwise test that a float is neither infinite nor NaN. Floating-point\n"
	 "operand; the result is pred with the same dimensions.\n"
	 "Example: ok = pred[8] is-finite(f32[8] x)\n"},
	{"log", TOPIC_OPCODE,
	 "Elementwise natural logarithm. One floating-point or complex operand;\n"
	 "same shape and type. log(0) = -inf, log of a negative real is NaN.\n"
	 "Example: y = f32[8] log(x)\n"},
	{"log-plus-one", TOPIC_OPCODE,
	 "Elementwise log(1 + x), accurate for x near 0. One floating-point or\n"
	 "complex operand; same shape and type.\n"
	 "Example: y = f32[8] log-plus-one(x)\n"},
	{"logistic", TOPIC_OPCODE,
	 "Elementwise logistic sigmoid, 1 / (1 + e^-x). One floating-point or\n"
	 "complex operand; same shape and type. Frameworks lower\n"
	 "jax.nn.sigmoid to it.\n"},
	{"map", TOPIC_OPCODE,
	 "Applies a scalar computation (`to_apply=`) elementwise across its\n"
	 "operands: map(a, b), dimensions={0,1}, to_apply=f gives f(a[i], b[i]) for\n"
	 "every index. All operands have the same dimensions; the result has the\n"
	 "computation's element type.\n"},
	{"maximum", TOPIC_OPCODE,
	 "Elementwise maximum of two operands of the same shape and type. For\n"
	 "floats, NaN propagates: max(NaN, x) = NaN. relu is maximum(x, 0) with\n"
	 "the 0 broadcast.\n"},
	{"minimum", TOPIC_OPCODE,
	 "Elementwise minimum of two operands of the same shape and type. For\n"
	 "floats, NaN propagates: min(NaN, x) = NaN.\n"
	 "Example: z = f32[8] minimum(x, y)\n"},
	{"multiply", TOPIC_OPCODE,
	 "Elementwise product of two operands of the same shape and type;\n"
	 "integers wrap around. Commutative: cse treats multiply(a, b) and\n"
	 "multiply(b, a) as equal.\n"},
	{"negate", TOPIC_OPCODE,
	 "Elementwise -x. One numeric operand; same shape and type. Signed\n"
	 "integers wrap (negate(INT_MIN) = INT_MIN); algsimp folds\n"
	 "negate(negate(x)) to x.\n"},
	{"not", TOPIC_OPCODE,
	 "Elementwise logical NOT of a pred operand, or bitwise NOT of an integer\n"
	 "operand. Same shape and type.\n"
	 "Example: q = pred[8] not(p)\n"},
	{"opt-barrier", TOPIC_OPCODE,
	 "Returns its operand (usually a tuple) unchanged, but no optimisation may\n"
	 "move computations across it: values computed before it stay before it.\n"
	 "Used to control rematerialisation and scheduling.\n"},
	{"or", TOPIC_OPCODE,
	 "Elementwise logical OR of two pred operands, or bitwise OR of two\n"
	 "integer operands of the same shape and type.\n"
	 "Example: r = pred[8] or(p, q)\n"},
	{"outfeed", TOPIC_OPCODE,
	 "Sends a value to the host's outfeed queue: outfeed(data, token),\n"
	 "outfeed_shape=... Returns a token. Has side effects.\n"
	 "The token orders it with respect to other side-effecting operations.\n"},
	{"pad", TOPIC_OPCODE,
	 "Pads an operand with a scalar value: pad(x, v), padding=lo_hi_interior\n"
	 "per dimension, e.g. padding=1_1x0_2 adds one element before and after\n"
	 "dimension 0 and two after dimension 1. Negative low/high padding\n"
	 "removes elements; interior padding inserts elements between neighbours.\n"},
	{"parameter", TOPIC_OPCODE,
	 "An input of a computation: f32[32,1024] parameter(0). Numbers start at\n"
	 "0 and are dense. For the ENTRY computation these are the module's\n"
	 "arguments (set them with `input N ...`); for other computations they\n"
	 "are what the caller passes.\n"},
	{"partition-id", TOPIC_OPCODE,
	 "Returns the id of the partition (SPMD shard) running the program, as a\n"
	 "u32 scalar. No operands.\n"
	 "Together with replica-id it identifies the device in SPMD programs.\n"},
	{"popcnt", TOPIC_OPCODE,
	 "Elementwise population count: the number of one bits of each integer.\n"
	 "Integer operand; same shape and type.\n"
	 "Example: n = u32[8] popcnt(u32[8] x)\n"},
	{"power", TOPIC_OPCODE,
	 "Elementwise x^y for two operands of the same shape and type. For\n"
	 "integers, a negative exponent gives 1/x^|y| truncated: 0, except 1 for\n"
	 "base 1 and +-1 for base -1 (as XLA:CPU; XLA's constant folder gives 0).\n"
	 "Expensive; algsimp rewrites x^2 into x*x.\n"},
	{"ragged-all-to-all", TOPIC_OPCODE,
	 "Collective all-to-all on ragged data: the operands give, per peer, the\n"
	 "offsets and sizes of the rows to send and where they land in the output\n"
	 "buffer, so each participant may exchange a different amount. Used by\n"
	 "mixture-of-experts layers.\n"},
	{"ragged-dot", TOPIC_OPCODE,
	 "A dot in which one dimension of the lhs is split into groups of\n"
	 "different sizes (group_sizes operand), each group multiplied by its own\n"
	 "rhs matrix. Used for mixture-of-experts: tokens grouped by expert.\n"},
	{"real", TOPIC_OPCODE,
	 "Elementwise real part of a complex operand: c64 -> f32, c128 -> f64,\n"
	 "same dimensions. For a real operand it is the operand itself.\n"
	 "Example: x = f32[8] real(c64[8] z)\n"},
	{"recv", TOPIC_OPCODE,
	 "Receives data from another program over a channel (channel_id=); has\n"
	 "side effects. Takes a token and returns a tuple (buffer, context,\n"
	 "token) that recv-done completes.\n"},
	{"recv-done", TOPIC_OPCODE,
	 "Waits for a recv to finish and returns a tuple (data, token).\n"
	 "It completes the recv with the same channel_id; the token orders\n"
	 "later side-effecting operations after the data has arrived.\n"},
	{"reduce", TOPIC_OPCODE,
	 "Reduces dimensions `dimensions={...}` of an operand with a scalar\n"
	 "computation (`to_apply=`, e.g. add or maximum) starting from an init\n"
	 "value: reduce(x, init). The result drops the reduced dimensions:\n"
	 "f32[32] reduce(f32[32,1024] x, f32[] 0), dimensions={1}, to_apply=add\n"
	 "sums each row. The order of combination is unspecified, so to_apply\n"
	 "should be associative and commutative. Variadic: N operands and N inits\n"
	 "give a tuple (argmax).\n"},
	{"reduce-precision", TOPIC_OPCODE,
	 "Rounds each float to a narrower format given by exponent_bits and\n"
	 "mantissa_bits, keeping the element type: it simulates bf16 or fp8\n"
	 "arithmetic inside f32. Same shape and type.\n"},
	{"reduce-scatter", TOPIC_OPCODE,
	 "Collective: an all-reduce whose result is split along `dimensions={d}`,\n"
	 "each participant keeping only its own block. Dimension d of the result\n"
	 "is the operand's divided by the group size.\n"},
	{"reduce-window", TOPIC_OPCODE,
	 "Reduces every window of a sliding window (`window={size=2x2\n"
	 "stride=2x2 pad=...}`) with a scalar computation and an init value:\n"
	 "max-pooling is reduce-window with maximum and -inf, average pooling\n"
	 "uses add and a divide. The result dimensions follow from sizes, strides\n"
	 "and padding as for convolution.\n"},
	{"remainder", TOPIC_OPCODE,
	 "Elementwise remainder of division, with the sign of the dividend (like C\n"
	 "fmod and %): remainder(-7, 3) = -1. Two operands of the same shape and\n"
	 "type.\n"},
	{"replica-id", TOPIC_OPCODE,
	 "Returns the id of the replica running the program as a u32 scalar. No\n"
	 "operands. Data-parallel programs use it to pick their shard.\n"
	 "Example: r = u32[] replica-id()\n"},
	{"reshape", TOPIC_OPCODE,
	 "Changes the dimensions while keeping the elements in row-major order\n"
	 "(logical order, whatever the layout): f32[2,3] -> f32[3,2] or f32[6].\n"
	 "The element counts must be equal. Free when the layout allows it (it\n"
	 "becomes a bitcast); algsimp removes reshapes that change nothing.\n"},
	{"reverse", TOPIC_OPCODE,
	 "Reverses the order of elements along `dimensions={...}`. Same shape and\n"
	 "type. Used, for example, to flip a convolution kernel in a gradient.\n"
	 "Example: r = f32[3,3,16,32] reverse(k), dimensions={0,1}\n"},
	{"rng", TOPIC_OPCODE,
	 "Random numbers with a distribution: rng(a, b),\n"
	 "distribution=rng_uniform (in [a, b)) or rng_normal (mean a, standard\n"
	 "deviation b). The shape must be written. Has side effects (its state\n"
	 "changes); rng-bit-generator is the deterministic replacement.\n"},
	{"rng-bit-generator", TOPIC_OPCODE,
	 "Deterministic random bits: rng-bit-generator(state),\n"
	 "algorithm=rng_three_fry|rng_philox|rng_default. Returns a tuple (new\n"
	 "state, random bits of the written shape); same state, same bits.\n"},
	{"rng-get-and-update-state", TOPIC_OPCODE,
	 "Returns the current state of the global random number generator (an\n"
	 "u64[2]) and advances it by `delta=`. Used when rng is expanded into\n"
	 "rng-bit-generator.\n"},
	{"round-nearest-afz", TOPIC_OPCODE,
	 "Elementwise rounding to the nearest integer, halfway cases away from\n"
	 "zero: 2.5 -> 3, -2.5 -> -3. Floating-point operand; same shape and type.\n"
	 "Example: y = f32[8] round-nearest-afz(x)\n"},
	{"round-nearest-even", TOPIC_OPCODE,
	 "Elementwise rounding to the nearest integer, halfway cases to the even\n"
	 "neighbour (banker's rounding): 2.5 -> 2, 3.5 -> 4. Floating-point\n"
	 "operand; same shape and type.\n"},
	{"rsqrt", TOPIC_OPCODE,
	 "Elementwise reciprocal square root, 1/sqrt(x). One floating-point or\n"
	 "complex operand; same shape and type. Layer norm uses it:\n"
	 "rsqrt(variance + epsilon).\n"},
	{"scaled-dot", TOPIC_OPCODE,
	 "A dot whose operands come with scale factors (per-block scales of\n"
	 "low-precision formats such as fp8 or fp4 with microscaling): the\n"
	 "operands are dequantised by their scales and multiplied as `dot` does,\n"
	 "with the same dimension attributes.\n"},
	{"scan", TOPIC_OPCODE,
	 "Runs a computation over one dimension of its inputs, carrying a value\n"
	 "from step to step, and collects the per-step outputs (a prefix scan,\n"
	 "like jax.lax.scan). Its result shapes must be written out.\n"},
	{"scatter", TOPIC_OPCODE,
	 "The inverse of gather: writes (combines) slices of `updates` into a\n"
	 "copy of the operand at positions read from an index array, with a\n"
	 "combiner computation (`to_apply=`, e.g. add to accumulate or one that\n"
	 "returns its second argument to overwrite). Attributes:\n"
	 "update_window_dims, inserted_window_dims,\n"
	 "scatter_dims_to_operand_dims, index_vector_dim. Out-of-bounds updates\n"
	 "are skipped.\n"},
	{"select", TOPIC_OPCODE,
	 "Elementwise choice: select(p, a, b)[i] = p[i] ? a[i] : b[i]. p is pred\n"
	 "with the shape of a and b (or a scalar pred to pick a whole array). The\n"
	 "result has a's shape and type.\n"},
	{"select-and-scatter", TOPIC_OPCODE,
	 "The gradient of max-pooling: for each window of the operand (`window=`)\n"
	 "a `select` computation picks one element (e.g. the maximum), and the\n"
	 "matching value of `source` is combined (`scatter` computation, e.g.\n"
	 "add) into the output at that element's position, starting from an init\n"
	 "value. Operands: operand, source, init.\n"},
	{"send", TOPIC_OPCODE,
	 "Sends data to another program over a channel (channel_id=); has side\n"
	 "effects. Takes the data and a token; returns a tuple (data, context,\n"
	 "token) that send-done completes.\n"},
	{"send-done", TOPIC_OPCODE,
	 "Waits for a send to finish; returns a token.\n"
	 "It completes the send with the same channel_id; the token orders\n"
	 "later side-effecting operations after the data has gone.\n"},
	{"set-dimension-size", TOPIC_OPCODE,
	 "Sets the run-time size of dimension `dimensions={d}` of its operand to\n"
	 "an s32 scalar operand, making it a dynamic dimension (<=N). The data is\n"
	 "not moved.\n"},
	{"shift-left", TOPIC_OPCODE,
	 "Elementwise x << y for two integer operands of the same shape. Shifting\n"
	 "by the bit width or more gives 0.\n"
	 "Example: y = u32[8] shift-left(x, n)\n"},
	{"shift-right-arithmetic", TOPIC_OPCODE,
	 "Elementwise x >> y with sign extension (the sign bit fills in). Shifting\n"
	 "by the bit width or more gives 0 or -1 (the sign).\n"
	 "Example: y = s32[8] shift-right-arithmetic(x, n)\n"},
	{"shift-right-logical", TOPIC_OPCODE,
	 "Elementwise x >> y filling in zeros (as for unsigned numbers). Shifting\n"
	 "by the bit width or more gives 0.\n"
	 "Example: y = u32[8] shift-right-logical(x, n)\n"},
	{"sign", TOPIC_OPCODE,
	 "Elementwise sign: -1, 0 or 1 (for floats -0 stays -0 and NaN stays\n"
	 "NaN; for complex x it is x/|x|). Same shape and type.\n"
	 "Example: s = f32[8] sign(x)\n"},
	{"sine", TOPIC_OPCODE,
	 "Elementwise sine (radians). One floating-point or complex operand; same\n"
	 "shape and type. Expensive: fusion does not duplicate it.\n"
	 "Example: y = f32[8] sine(x)\n"},
	{"sinh", TOPIC_OPCODE,
	 "Elementwise hyperbolic sine, (e^x - e^-x) / 2. One floating-point or\n"
	 "complex operand; same shape and type.\n"
	 "Example: y = f32[8] sinh(x)\n"},
	{"slice", TOPIC_OPCODE,
	 "A static slice: slice={[start:limit:stride], ...} per dimension.\n"
	 "Example: f32[2,2] slice(f32[4,4] x), slice={[0:4:2], [1:3]}\n"
	 "The result dimension is ceil((limit - start) / stride). Limits must be\n"
	 "within the operand.\n"},
	{"sort", TOPIC_OPCODE,
	 "Sorts along `dimensions={d}` with a comparator computation (`to_apply=`)\n"
	 "of 2N scalar parameters (two per operand) returning pred: \"does the\n"
	 "first come before the second\". Several operands are permuted together\n"
	 "(sort keys and values; argsort sorts an iota alongside).\n"
	 "`is_stable=true` keeps equal keys in order.\n"},
	{"sqrt", TOPIC_OPCODE,
	 "Elementwise square root. One floating-point or complex operand; same\n"
	 "shape and type. sqrt of a negative real is NaN.\n"
	 "Example: y = f32[8] sqrt(x)\n"},
	{"stochastic-convert", TOPIC_OPCODE,
	 "Converts floats to a narrower type with stochastic rounding: the second\n"
	 "operand holds random bits that decide whether each value rounds up or\n"
	 "down, so rounding errors average out. The result shape must be written.\n"},
	{"subtract", TOPIC_OPCODE,
	 "Elementwise difference x - y of two operands of the same shape and\n"
	 "type; integers wrap around.\n"
	 "Example: d = f32[32,1024] subtract(x, broadcast.9)\n"},
	{"tan", TOPIC_OPCODE,
	 "Elementwise tangent (radians). One floating-point or complex operand;\n"
	 "same shape and type.\n"
	 "Example: y = f32[8] tan(x)\n"},
	{"tanh", TOPIC_OPCODE,
	 "Elementwise hyperbolic tangent, in (-1, 1). One floating-point or\n"
	 "complex operand; same shape and type. Expensive: fusion does not\n"
	 "duplicate it.\n"},
	{"topk", TOPIC_OPCODE,
	 "The k largest elements of each row (the last dimension) and their\n"
	 "indices: topk(x), k=5, largest=true returns a tuple (values, s32\n"
	 "indices) whose last dimension is k, sorted in descending order.\n"},
	{"transpose", TOPIC_OPCODE,
	 "Permutes dimensions: transpose(x), dimensions={1,0} swaps rows and\n"
	 "columns. Result dimension i is operand dimension dimensions[i]. A\n"
	 "transpose that only changes the layout can become a free bitcast;\n"
	 "otherwise it moves memory (a kInput \"hero\" on GPU).\n"},
	{"triangular-solve", TOPIC_OPCODE,
	 "Solves a x = b (left_side=true) or x a = b for x, where a is\n"
	 "triangular (lower=true or false; transpose_a=NO_TRANSPOSE|TRANSPOSE|\n"
	 "ADJOINT; unit_diagonal). Leading dimensions are batch.\n"},
	{"tuple", TOPIC_OPCODE,
	 "Groups values into a tuple: (f32[4], s32[]) tuple(a, i). No data is\n"
	 "copied; a tuple is a list of buffers. While loops carry their state in a\n"
	 "tuple, and a computation returns several values as a tuple.\n"},
	{"while", TOPIC_OPCODE,
	 "Loops: while(init), condition=%cond, body=%body. The state (often a\n"
	 "tuple) starts as init; while cond(state) is true, state = body(state).\n"
	 "The result is the final state, with init's shape. The body is compiled\n"
	 "once and run as a sequence of kernels per iteration. How many: XLA's\n"
	 "known_trip_count in the backend_config, or a counter that starts at a\n"
	 "constant, steps by a constant and is compared with one ('info' of the\n"
	 "loop says; 'cost' counts the body that many times).\n"
	 "Example: see 'example while-loop'.\n"},
	{"xor", TOPIC_OPCODE,
	 "Elementwise exclusive OR: logical for pred operands, bitwise for\n"
	 "integers. Two operands of the same shape and type.\n"
	 "Example: z = pred[8] xor(p, q)\n"},
	{"algsimp", TOPIC_PASS,
	 "Algebraic simplification: local rewrites that keep the value and make\n"
	 "the graph smaller or cheaper, each under a rule name that `pass algsimp`\n"
	 "counts: x+0 -> x, x*1 -> x, negate(negate(x)) -> x, reshape of reshape\n"
	 "-> one reshape, transpose of transpose -> one transpose (or none),\n"
	 "reshapes, transposes, slices, pads, broadcasts and converts that change\n"
	 "nothing -> their operand, slice of slice, select with a constant\n"
	 "predicate, a dot with size-1 dimensions -> multiply, a reduce over\n"
	 "size-1 dimensions -> reshape. Some rules hold for integers only (x*0\n"
	 "is NaN for x = inf). What a rewrite leaves unused goes with it (as in\n"
	 "XLA); code that was dead before is dce's.\n"},
	{"call-inliner", TOPIC_PASS,
	 "Replaces every `call` instruction by a copy of the called computation's\n"
	 "instructions, with the callee's parameters wired to the call's operands,\n"
	 "and removes computations nobody calls any more. Afterwards the caller\n"
	 "sees the whole graph, so fusion and cse can work across the former call\n"
	 "boundary. Nested calls are flattened completely.\n"},
	{"constant-folding", TOPIC_PASS,
	 "Evaluates at compile time every instruction whose operands are all\n"
	 "constants (running it through the reference interpreter) and replaces\n"
	 "it by a constant holding the result, up to a size cap (65536\n"
	 "elements). Chains fold in one run. As in XLA, broadcasts and iotas are\n"
	 "left alone: folded, they would be constants as large as their results,\n"
	 "read from memory, where fused they cost nothing. Side-effecting\n"
	 "instructions (rng, custom-call, infeed) are never folded.\n"},
	{"cse", TOPIC_PASS,
	 "Common subexpression elimination: two instructions with the same opcode,\n"
	 "the same operands (in either order for commutative ops such as add),\n"
	 "the same shape and the same attributes compute the same value, so the\n"
	 "later one is replaced by the earlier. Equal constants merge too.\n"
	 "Parameters and side-effecting instructions never merge. Hash based,\n"
	 "linear in the size of the module.\n"},
	{"dce", TOPIC_PASS,
	 "Dead code elimination: removes instructions whose value nobody uses\n"
	 "(not the root, no users, no side effects), repeatedly, since removing\n"
	 "one can make its operands dead; then removes computations no longer\n"
	 "called from the entry. The other passes remove what their own\n"
	 "rewrites leave unused; what was dead before they ran stays for dce.\n"},
	{"defuser", TOPIC_PASS,
	 "Takes every fusion apart, as XLA's Defuser does: each fusion\n"
	 "instruction is replaced by a copy of its fused computation's\n"
	 "instructions, wired to the fusion's operands, and the fused\n"
	 "computations go. A multi-output fusion leaves a tuple that\n"
	 "tuple-simplifier folds. Use it on a dump XLA already optimised: `pass\n"
	 "defuser` shows the graph before XLA's fusion, `pipeline` fuses it again,\n"
	 "and `stats` before and after compare XLA's kernel count with this\n"
	 "tool's; `why A B` then explains any pair.\n"},
	{"fusion", TOPIC_PASS,
	 "Producer/consumer fusion, XLA style: walking consumers before producers,\n"
	 "it merges a producer into its consumer when that is legal and saves\n"
	 "memory traffic, building `fusion` instructions of kind kLoop\n"
	 "(elementwise, broadcast, reshape, transpose, slice, ...), kInput (a\n"
	 "reduction with its producers, or with an elementwise epilogue) or\n"
	 "kOutput (a dot or convolution with a bias/activation epilogue). Cheap\n"
	 "producers may be duplicated into several consumers; expensive ones\n"
	 "(exp, tanh, divide, dot, ...) never. Every decision is logged with its\n"
	 "reason: see `fusions`, `why A B`, and 'explain fusion-kinds'.\n"},
	{"multi-output-fusion", TOPIC_PASS,
	 "Sibling fusion: consumers that read the same large operand (the two\n"
	 "reductions of a layer norm, say) are merged into one kernel whose root\n"
	 "is a tuple, so the shared input is read from memory once instead of\n"
	 "twice. It can also fuse a producer into a consumer and expose the\n"
	 "producer's value as an extra output instead of duplicating it (the\n"
	 "exponential of a softmax joins the sum that reads it). The two must\n"
	 "iterate over the same shape (a reduction: its input's), neither may\n"
	 "depend on the other (a cycle), and dots stay on their own.\n"},
	{"tuple-simplifier", TOPIC_PASS,
	 "Removes tuples built only to be taken apart: get-tuple-element(tuple(a,\n"
	 "b), index=1) becomes b, and tuple(get-tuple-element(x, 0), ...,\n"
	 "get-tuple-element(x, n-1)) becomes x itself. Common after call inlining\n"
	 "and in while-loop bodies. Leaves the old tuple for dce.\n"},
	{"hlo", TOPIC_CONCEPT,
	 "HLO (High Level Operations) is XLA's intermediate representation: a\n"
	 "module of computations, each a graph of instructions in SSA form\n"
	 "(`name = shape opcode(operands), attributes`). Frameworks (JAX,\n"
	 "TensorFlow, PyTorch/XLA) produce it, usually through StableHLO; XLA\n"
	 "optimises it with passes, then emits kernels. Shapes are static and\n"
	 "every operation's semantics is exact, which is what makes whole-graph\n"
	 "optimisation such as fusion possible. Try: example softmax, print.\n"},
	{"computation", TOPIC_CONCEPT,
	 "A computation is a function in HLO: parameters, a body of instructions\n"
	 "and one ROOT instruction whose value it returns. A module has one ENTRY\n"
	 "computation (the program) and others that instructions call: the\n"
	 "to_apply of reduce (a scalar add or max), while's condition and body,\n"
	 "fusion's fused computation. `list computations` shows them.\n"},
	{"shape", TOPIC_CONCEPT,
	 "A shape is an element type and dimensions: f32[32,1024] is 32 x 1024\n"
	 "floats, f32[] a scalar, pred[] a boolean; (f32[4], s32[]) is a tuple.\n"
	 "Dimensions are static; a dynamic one is written f32[<=128] (a bound).\n"
	 "Types: pred, s8-s64, u8-u64, f16, bf16, f32, f64, fp8 variants, c64,\n"
	 "c128. Shape inference computes each result shape from the operands and\n"
	 "attributes, so typed instructions may leave it out.\n"},
	{"layout", TOPIC_CONCEPT,
	 "A layout is the order of dimensions in memory, written after the shape\n"
	 "from most-minor to most-major: f32[32,1024]{1,0} is row-major (dimension\n"
	 "1 varies fastest), {0,1} column-major. Values are the same whatever the\n"
	 "layout; only performance changes. Layout assignment picks layouts late\n"
	 "in the pipeline and inserts `copy` where they disagree; a transpose or\n"
	 "reshape that matches the layouts becomes a free `bitcast`.\n"},
	{"clusters", TOPIC_CONCEPT,
	 "Auto-clustering (TensorFlow's XLA JIT, tf.function(jit_compile) or\n"
	 "--tf_xla_auto_jit): the framework marks the parts of its graph that\n"
	 "XLA can compile, groups them into clusters, compiles each cluster into\n"
	 "one HLO module and runs the rest of the graph normally. Bigger clusters\n"
	 "give fusion more to work with; an unsupported op splits a cluster. JAX\n"
	 "needs none of this: jit traces the whole function into one module.\n"},
	{"fusion", TOPIC_CONCEPT,
	 "Fusion merges several HLO instructions into one kernel (a `fusion`\n"
	 "instruction) so intermediate values stay in registers instead of\n"
	 "being written to memory and read back. Most ML ops are memory bound,\n"
	 "so fewer bytes moved means faster: softmax has 7 unfused kernels, 3\n"
	 "after `pipeline` (fusion makes 4, multi-output fusion 3). The `kernels`\n"
	 "count of `stats` shows the effect.\n"
	 "See 'explain fusion-kinds', 'explain multi-output-fusion', and\n"
	 "`pass fusion` then `fusions` and `why A B`.\n"},
	{"fusion-kinds", TOPIC_CONCEPT,
	 "How a fusion is emitted (`kind=` on the fusion instruction):\n"
	 "kLoop  - one loop over the output elements; each computes its value from\n"
	 "         the fused elementwise ops, broadcasts, reshapes, slices, ...\n"
	 "kInput - the \"hero\" is a reduction (or transpose, concatenate, scatter)\n"
	 "         at the root, with its producers fused into how it reads input.\n"
	 "kOutput - a dot or convolution whose elementwise epilogue (bias add,\n"
	 "         activation) is fused into how it writes its output.\n"
	 "kCustom - backend-specific (Triton, cuDNN, custom kernels).\n"},
	{"multi-output-fusion", TOPIC_CONCEPT,
	 "A multi-output fusion returns a tuple: several values computed in one\n"
	 "kernel. Sibling multi-output fusion merges consumers of the same\n"
	 "operand (mean and variance reductions of a layer norm) so the operand is\n"
	 "read once; producer-consumer multi-output fusion keeps a fused\n"
	 "producer's value as an extra output for its other users instead of\n"
	 "computing it twice. Users take the values with get-tuple-element.\n"},
	{"buffer-assignment", TOPIC_CONCEPT,
	 "Buffer assignment decides where every value lives in memory. It walks\n"
	 "the schedule, computes each value's live range (definition to last use),\n"
	 "and lets values whose ranges do not overlap share a buffer; tuples and\n"
	 "bitcasts alias their operands, and a dynamic-update-slice writes into\n"
	 "the array it updates when it is that array's only reader (in place,\n"
	 "as XLA assigns it). The result is the peak memory of the program, and\n"
	 "one allocation for all temporaries. Fusion shrinks it: fused\n"
	 "intermediates need no buffer at all. Try `memory`.\n"},
	{"scheduling", TOPIC_CONCEPT,
	 "Scheduling picks the order in which a computation's instructions run\n"
	 "(any topological order is correct). The order decides which values are\n"
	 "alive together, hence peak memory (XLA's memory-minimising list\n"
	 "scheduler), and on GPU how asynchronous collectives and copies overlap\n"
	 "with compute (latency-hiding scheduler). Buffer assignment works on\n"
	 "the scheduled order.\n"},
	{"jit-vs-aot", TOPIC_CONCEPT,
	 "JIT (just in time): the program is compiled when first called, with the\n"
	 "real shapes, on the machine that runs it, and the code goes straight\n"
	 "into memory (XLA's CPU backend uses LLVM's ORC JIT; jax.jit caches per\n"
	 "input shape). AOT (ahead of time): compiled beforehand into an object\n"
	 "file and a header (XLA's tfcompile), linked into an application\n"
	 "with no compiler at run time; shapes must be known in advance.\n"},
	{"llvm-ir", TOPIC_CONCEPT,
	 "LLVM IR is the typed, SSA-form assembly language of the LLVM compiler.\n"
	 "XLA's CPU and GPU backends turn each kernel (fusion or unfused\n"
	 "instruction) into an LLVM function: loops over the output index, with\n"
	 "the fused computation emitted elementwise inside (the elemental IR\n"
	 "emitter). LLVM then optimises it (vectorisation, unrolling) and produces\n"
	 "machine code for the CPU, or PTX for NVIDIA GPUs. (This build has no\n"
	 "code generator yet: `run interp` executes modules.)\n"},
	{"ptx", TOPIC_CONCEPT,
	 "PTX is NVIDIA's virtual GPU assembly language. LLVM's NVPTX backend\n"
	 "turns XLA's LLVM IR for a kernel into PTX; the CUDA driver (or ptxas)\n"
	 "compiles PTX to machine code (SASS) for the actual GPU at load time. A\n"
	 "kernel is launched over a grid of thread blocks; each thread computes\n"
	 "some output elements. (This build makes no PTX yet.)\n"},
	{"lazy-tensors", TOPIC_CONCEPT,
	 "Lazy tensors (PyTorch/XLA, LazyTensor): eager-looking code does not run\n"
	 "operations at once but records them in a graph; when a value is needed\n"
	 "(printed, copied to the CPU, or at mark_step) the recorded graph is\n"
	 "lowered to HLO, compiled (cached by graph shape) and run. This gives XLA\n"
	 "whole graphs to fuse, at the cost of tracing overhead and recompilation\n"
	 "when the graph changes.\n"},
	{"roofline", TOPIC_CONCEPT,
	 "The roofline model bounds a kernel's time by the slower of memory and\n"
	 "compute: time >= max(bytes / bandwidth, flops / peak_flops). Arithmetic\n"
	 "intensity = flops / bytes; below the machine balance (peak_flops /\n"
	 "bandwidth, hundreds of flops per byte on a modern GPU) a kernel is\n"
	 "memory bound, above it compute bound. Elementwise ops and reductions are\n"
	 "memory bound, large dots compute bound. See `cost`.\n"},
	{"interpreter", TOPIC_CONCEPT,
	 "The reference interpreter (`run interp`) evaluates HLO directly,\n"
	 "instruction by instruction, with exact XLA semantics: floats computed in\n"
	 "double and rounded to the element type after every operation, integers\n"
	 "wrapping at their width. It is slow but simple, and it is the ground\n"
	 "truth: `check cpu|gpu` compares a backend's result with it, and tests\n"
	 "check every pass by running before and after.\n"},
};
/* clang-format on */

enum { NTOPICS = sizeof topics / sizeof topics[0] };

const Topic *cmd_topic_table(int *n)
{
	*n = NTOPICS;
	return topics;
}

const Topic *cmd_topic_find(const char *name, TopicKind kind)
{
	for (int i = 0; i < NTOPICS; i++)
		if (topics[i].kind == kind &&
		    strcasecmp(topics[i].name, name) == 0)
			return &topics[i];
	return NULL;
}
