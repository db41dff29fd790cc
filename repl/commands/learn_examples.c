/* learn_examples.c - the modules `example` loads: small but realistic
 * graphs in XLA's HLO text format, written as JAX's jit would dump them
 * before optimisation (names like Arg_0.1, layouts, to_apply regions).
 * Every one parses, verifies and runs on the interpreter; the unit test
 * test_repl_learn checks a known property of each result. */
#include <string.h>

#include "learn.h"

/* clang-format off */
static const Example examples[] = {
	{"elementwise",
	 "GELU (tanh form) on f32[256,1024]: 9 elementwise ops and 4 broadcasts",
	 "HloModule jit_gelu, entry_computation_layout={(f32[256,1024]{1,0})->f32[256,1024]{1,0}}\n"
	 "\n"
	 "ENTRY main.19 {\n"
	 "  Arg_0.1 = f32[256,1024]{1,0} parameter(0)\n"
	 "  multiply.2 = f32[256,1024]{1,0} multiply(Arg_0.1, Arg_0.1)\n"
	 "  multiply.3 = f32[256,1024]{1,0} multiply(multiply.2, Arg_0.1)\n"
	 "  constant.4 = f32[] constant(0.044715)\n"
	 "  broadcast.5 = f32[256,1024]{1,0} broadcast(constant.4), dimensions={}\n"
	 "  multiply.6 = f32[256,1024]{1,0} multiply(multiply.3, broadcast.5)\n"
	 "  add.7 = f32[256,1024]{1,0} add(Arg_0.1, multiply.6)\n"
	 "  constant.8 = f32[] constant(0.797884583)\n"
	 "  broadcast.9 = f32[256,1024]{1,0} broadcast(constant.8), dimensions={}\n"
	 "  multiply.10 = f32[256,1024]{1,0} multiply(add.7, broadcast.9)\n"
	 "  tanh.11 = f32[256,1024]{1,0} tanh(multiply.10)\n"
	 "  constant.12 = f32[] constant(1)\n"
	 "  broadcast.13 = f32[256,1024]{1,0} broadcast(constant.12), dimensions={}\n"
	 "  add.14 = f32[256,1024]{1,0} add(tanh.11, broadcast.13)\n"
	 "  constant.15 = f32[] constant(0.5)\n"
	 "  broadcast.16 = f32[256,1024]{1,0} broadcast(constant.15), dimensions={}\n"
	 "  multiply.17 = f32[256,1024]{1,0} multiply(Arg_0.1, broadcast.16)\n"
	 "  ROOT multiply.18 = f32[256,1024]{1,0} multiply(multiply.17, add.14)\n"
	 "}\n"},
	{"softmax",
	 "softmax over the rows of f32[32,1024]: two reductions and broadcasts",
	 "HloModule jit_softmax, entry_computation_layout={(f32[32,1024]{1,0})->f32[32,1024]{1,0}}\n"
	 "\n"
	 "region_0.4 {\n"
	 "  Arg_0.5 = f32[] parameter(0)\n"
	 "  Arg_1.6 = f32[] parameter(1)\n"
	 "  ROOT maximum.7 = f32[] maximum(Arg_0.5, Arg_1.6)\n"
	 "}\n"
	 "\n"
	 "region_1.12 {\n"
	 "  Arg_0.13 = f32[] parameter(0)\n"
	 "  Arg_1.14 = f32[] parameter(1)\n"
	 "  ROOT add.15 = f32[] add(Arg_0.13, Arg_1.14)\n"
	 "}\n"
	 "\n"
	 "ENTRY main.20 {\n"
	 "  Arg_0.1 = f32[32,1024]{1,0} parameter(0)\n"
	 "  constant.3 = f32[] constant(-inf)\n"
	 "  reduce.8 = f32[32]{0} reduce(Arg_0.1, constant.3), dimensions={1}, to_apply=region_0.4\n"
	 "  broadcast.9 = f32[32,1024]{1,0} broadcast(reduce.8), dimensions={0}\n"
	 "  subtract.10 = f32[32,1024]{1,0} subtract(Arg_0.1, broadcast.9)\n"
	 "  exponential.11 = f32[32,1024]{1,0} exponential(subtract.10)\n"
	 "  constant.2 = f32[] constant(0)\n"
	 "  reduce.16 = f32[32]{0} reduce(exponential.11, constant.2), dimensions={1}, to_apply=region_1.12\n"
	 "  broadcast.17 = f32[32,1024]{1,0} broadcast(reduce.16), dimensions={0}\n"
	 "  ROOT divide.18 = f32[32,1024]{1,0} divide(exponential.11, broadcast.17)\n"
	 "}\n"},
	{"layer-norm",
	 "layer norm of f32[32,768] with scale and bias: sibling reductions",
	 "HloModule jit_layer_norm, entry_computation_layout={(f32[32,768]{1,0}, f32[768]{0}, f32[768]{0})->f32[32,768]{1,0}}\n"
	 "\n"
	 "region_0.5 {\n"
	 "  Arg_0.6 = f32[] parameter(0)\n"
	 "  Arg_1.7 = f32[] parameter(1)\n"
	 "  ROOT add.8 = f32[] add(Arg_0.6, Arg_1.7)\n"
	 "}\n"
	 "\n"
	 "ENTRY main.32 {\n"
	 "  Arg_0.1 = f32[32,768]{1,0} parameter(0)\n"
	 "  Arg_1.2 = f32[768]{0} parameter(1)\n"
	 "  Arg_2.3 = f32[768]{0} parameter(2)\n"
	 "  constant.4 = f32[] constant(0)\n"
	 "  reduce.9 = f32[32]{0} reduce(Arg_0.1, constant.4), dimensions={1}, to_apply=region_0.5\n"
	 "  constant.10 = f32[] constant(0.00130208337)\n"
	 "  broadcast.11 = f32[32]{0} broadcast(constant.10), dimensions={}\n"
	 "  multiply.12 = f32[32]{0} multiply(reduce.9, broadcast.11)\n"
	 "  multiply.13 = f32[32,768]{1,0} multiply(Arg_0.1, Arg_0.1)\n"
	 "  reduce.14 = f32[32]{0} reduce(multiply.13, constant.4), dimensions={1}, to_apply=region_0.5\n"
	 "  multiply.15 = f32[32]{0} multiply(reduce.14, broadcast.11)\n"
	 "  multiply.16 = f32[32]{0} multiply(multiply.12, multiply.12)\n"
	 "  subtract.17 = f32[32]{0} subtract(multiply.15, multiply.16)\n"
	 "  constant.18 = f32[] constant(1e-05)\n"
	 "  broadcast.19 = f32[32]{0} broadcast(constant.18), dimensions={}\n"
	 "  add.20 = f32[32]{0} add(subtract.17, broadcast.19)\n"
	 "  rsqrt.21 = f32[32]{0} rsqrt(add.20)\n"
	 "  broadcast.22 = f32[32,768]{1,0} broadcast(multiply.12), dimensions={0}\n"
	 "  subtract.23 = f32[32,768]{1,0} subtract(Arg_0.1, broadcast.22)\n"
	 "  broadcast.24 = f32[32,768]{1,0} broadcast(rsqrt.21), dimensions={0}\n"
	 "  multiply.25 = f32[32,768]{1,0} multiply(subtract.23, broadcast.24)\n"
	 "  broadcast.26 = f32[32,768]{1,0} broadcast(Arg_1.2), dimensions={1}\n"
	 "  multiply.27 = f32[32,768]{1,0} multiply(multiply.25, broadcast.26)\n"
	 "  broadcast.28 = f32[32,768]{1,0} broadcast(Arg_2.3), dimensions={1}\n"
	 "  ROOT add.29 = f32[32,768]{1,0} add(multiply.27, broadcast.28)\n"
	 "}\n"},
	{"mlp",
	 "two-layer MLP: dot + bias + relu + dot + bias, batch 32, 784-256-10",
	 "HloModule jit_mlp, entry_computation_layout={(f32[32,784]{1,0}, f32[784,256]{1,0}, f32[256]{0}, f32[256,10]{1,0}, f32[10]{0})->f32[32,10]{1,0}}\n"
	 "\n"
	 "ENTRY main.15 {\n"
	 "  Arg_0.1 = f32[32,784]{1,0} parameter(0)\n"
	 "  Arg_1.2 = f32[784,256]{1,0} parameter(1)\n"
	 "  Arg_2.3 = f32[256]{0} parameter(2)\n"
	 "  Arg_3.4 = f32[256,10]{1,0} parameter(3)\n"
	 "  Arg_4.5 = f32[10]{0} parameter(4)\n"
	 "  dot.6 = f32[32,256]{1,0} dot(Arg_0.1, Arg_1.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	 "  broadcast.7 = f32[32,256]{1,0} broadcast(Arg_2.3), dimensions={1}\n"
	 "  add.8 = f32[32,256]{1,0} add(dot.6, broadcast.7)\n"
	 "  constant.9 = f32[] constant(0)\n"
	 "  broadcast.10 = f32[32,256]{1,0} broadcast(constant.9), dimensions={}\n"
	 "  maximum.11 = f32[32,256]{1,0} maximum(add.8, broadcast.10)\n"
	 "  dot.12 = f32[32,10]{1,0} dot(maximum.11, Arg_3.4), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	 "  broadcast.13 = f32[32,10]{1,0} broadcast(Arg_4.5), dimensions={1}\n"
	 "  ROOT add.14 = f32[32,10]{1,0} add(dot.12, broadcast.13)\n"
	 "}\n"},
	{"attention",
	 "attention for 8 heads of f32[128,64]: dot, scaled softmax, dot",
	 "HloModule jit_attention, entry_computation_layout={(f32[8,128,64]{2,1,0}, f32[8,128,64]{2,1,0}, f32[8,128,64]{2,1,0})->f32[8,128,64]{2,1,0}}\n"
	 "\n"
	 "region_0.9 {\n"
	 "  Arg_0.10 = f32[] parameter(0)\n"
	 "  Arg_1.11 = f32[] parameter(1)\n"
	 "  ROOT maximum.12 = f32[] maximum(Arg_0.10, Arg_1.11)\n"
	 "}\n"
	 "\n"
	 "region_1.18 {\n"
	 "  Arg_0.19 = f32[] parameter(0)\n"
	 "  Arg_1.20 = f32[] parameter(1)\n"
	 "  ROOT add.21 = f32[] add(Arg_0.19, Arg_1.20)\n"
	 "}\n"
	 "\n"
	 "ENTRY main.27 {\n"
	 "  Arg_0.1 = f32[8,128,64]{2,1,0} parameter(0)\n"
	 "  Arg_1.2 = f32[8,128,64]{2,1,0} parameter(1)\n"
	 "  Arg_2.3 = f32[8,128,64]{2,1,0} parameter(2)\n"
	 "  dot.4 = f32[8,128,128]{2,1,0} dot(Arg_0.1, Arg_1.2), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}\n"
	 "  constant.5 = f32[] constant(0.125)\n"
	 "  broadcast.6 = f32[8,128,128]{2,1,0} broadcast(constant.5), dimensions={}\n"
	 "  multiply.7 = f32[8,128,128]{2,1,0} multiply(dot.4, broadcast.6)\n"
	 "  constant.8 = f32[] constant(-inf)\n"
	 "  reduce.13 = f32[8,128]{1,0} reduce(multiply.7, constant.8), dimensions={2}, to_apply=region_0.9\n"
	 "  broadcast.14 = f32[8,128,128]{2,1,0} broadcast(reduce.13), dimensions={0,1}\n"
	 "  subtract.15 = f32[8,128,128]{2,1,0} subtract(multiply.7, broadcast.14)\n"
	 "  exponential.16 = f32[8,128,128]{2,1,0} exponential(subtract.15)\n"
	 "  constant.17 = f32[] constant(0)\n"
	 "  reduce.22 = f32[8,128]{1,0} reduce(exponential.16, constant.17), dimensions={2}, to_apply=region_1.18\n"
	 "  broadcast.23 = f32[8,128,128]{2,1,0} broadcast(reduce.22), dimensions={0,1}\n"
	 "  divide.24 = f32[8,128,128]{2,1,0} divide(exponential.16, broadcast.23)\n"
	 "  ROOT dot.25 = f32[8,128,64]{2,1,0} dot(divide.24, Arg_2.3), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}\n"
	 "}\n"},
	{"conv-pool",
	 "3x3 convolution 16->32 channels + bias + relu + 2x2 max-pool (reduce-window)",
	 "HloModule jit_conv_relu_pool, entry_computation_layout={(f32[1,32,32,16]{3,2,1,0}, f32[3,3,16,32]{3,2,1,0}, f32[32]{0})->f32[1,16,16,32]{3,2,1,0}}\n"
	 "\n"
	 "region_0.10 {\n"
	 "  Arg_0.11 = f32[] parameter(0)\n"
	 "  Arg_1.12 = f32[] parameter(1)\n"
	 "  ROOT maximum.13 = f32[] maximum(Arg_0.11, Arg_1.12)\n"
	 "}\n"
	 "\n"
	 "ENTRY main.16 {\n"
	 "  Arg_0.1 = f32[1,32,32,16]{3,2,1,0} parameter(0)\n"
	 "  Arg_1.2 = f32[3,3,16,32]{3,2,1,0} parameter(1)\n"
	 "  Arg_2.3 = f32[32]{0} parameter(2)\n"
	 "  convolution.4 = f32[1,32,32,32]{3,2,1,0} convolution(Arg_0.1, Arg_1.2), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n"
	 "  broadcast.5 = f32[1,32,32,32]{3,2,1,0} broadcast(Arg_2.3), dimensions={3}\n"
	 "  add.6 = f32[1,32,32,32]{3,2,1,0} add(convolution.4, broadcast.5)\n"
	 "  constant.7 = f32[] constant(0)\n"
	 "  broadcast.8 = f32[1,32,32,32]{3,2,1,0} broadcast(constant.7), dimensions={}\n"
	 "  maximum.9 = f32[1,32,32,32]{3,2,1,0} maximum(add.6, broadcast.8)\n"
	 "  constant.14 = f32[] constant(-inf)\n"
	 "  ROOT reduce-window.15 = f32[1,16,16,32]{3,2,1,0} reduce-window(maximum.9, constant.14), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=region_0.10\n"
	 "}\n"},
	{"while-loop",
	 "a fori_loop of 100 steps: while with a tuple state, condition and body",
	 "HloModule jit_fori_loop, entry_computation_layout={(f32[1024]{0})->f32[1024]{0}}\n"
	 "\n"
	 "body.5 {\n"
	 "  arg_tuple.6 = (s32[], f32[1024]{0}, f32[1024]{0}) parameter(0)\n"
	 "  get-tuple-element.7 = s32[] get-tuple-element(arg_tuple.6), index=0\n"
	 "  constant.10 = s32[] constant(1)\n"
	 "  add.11 = s32[] add(get-tuple-element.7, constant.10)\n"
	 "  get-tuple-element.8 = f32[1024]{0} get-tuple-element(arg_tuple.6), index=1\n"
	 "  get-tuple-element.9 = f32[1024]{0} get-tuple-element(arg_tuple.6), index=2\n"
	 "  convert.12 = f32[] convert(get-tuple-element.7)\n"
	 "  broadcast.13 = f32[1024]{0} broadcast(convert.12), dimensions={}\n"
	 "  multiply.14 = f32[1024]{0} multiply(get-tuple-element.8, broadcast.13)\n"
	 "  add.15 = f32[1024]{0} add(get-tuple-element.9, multiply.14)\n"
	 "  ROOT tuple.16 = (s32[], f32[1024]{0}, f32[1024]{0}) tuple(add.11, get-tuple-element.8, add.15)\n"
	 "}\n"
	 "\n"
	 "cond.17 {\n"
	 "  arg_tuple.18 = (s32[], f32[1024]{0}, f32[1024]{0}) parameter(0)\n"
	 "  get-tuple-element.19 = s32[] get-tuple-element(arg_tuple.18), index=0\n"
	 "  constant.20 = s32[] constant(100)\n"
	 "  ROOT compare.21 = pred[] compare(get-tuple-element.19, constant.20), direction=LT\n"
	 "}\n"
	 "\n"
	 "ENTRY main.25 {\n"
	 "  Arg_0.1 = f32[1024]{0} parameter(0)\n"
	 "  constant.2 = s32[] constant(0)\n"
	 "  constant.3 = f32[] constant(0)\n"
	 "  broadcast.4 = f32[1024]{0} broadcast(constant.3), dimensions={}\n"
	 "  tuple.22 = (s32[], f32[1024]{0}, f32[1024]{0}) tuple(constant.2, Arg_0.1, broadcast.4)\n"
	 "  while.23 = (s32[], f32[1024]{0}, f32[1024]{0}) while(tuple.22), condition=cond.17, body=body.5\n"
	 "  ROOT get-tuple-element.24 = f32[1024]{0} get-tuple-element(while.23), index=2\n"
	 "}\n"},
	{"embedding",
	 "embedding lookup: gather rows of a f32[1000,64] table by s32[8,16] ids",
	 "HloModule jit_embedding, entry_computation_layout={(f32[1000,64]{1,0}, s32[8,16]{1,0})->f32[8,16,64]{2,1,0}}\n"
	 "\n"
	 "ENTRY main.13 {\n"
	 "  Arg_0.1 = f32[1000,64]{1,0} parameter(0)\n"
	 "  Arg_1.2 = s32[8,16]{1,0} parameter(1)\n"
	 "  constant.3 = s32[] constant(0)\n"
	 "  broadcast.4 = s32[8,16]{1,0} broadcast(constant.3), dimensions={}\n"
	 "  constant.5 = s32[] constant(999)\n"
	 "  broadcast.6 = s32[8,16]{1,0} broadcast(constant.5), dimensions={}\n"
	 "  clamp.7 = s32[8,16]{1,0} clamp(broadcast.4, Arg_1.2, broadcast.6)\n"
	 "  reshape.8 = s32[8,16,1]{2,1,0} reshape(clamp.7)\n"
	 "  gather.9 = f32[8,16,64]{2,1,0} gather(Arg_0.1, reshape.8), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,64}\n"
	 "  constant.10 = f32[] constant(8)\n"
	 "  broadcast.11 = f32[8,16,64]{2,1,0} broadcast(constant.10), dimensions={}\n"
	 "  ROOT multiply.12 = f32[8,16,64]{2,1,0} multiply(gather.9, broadcast.11)\n"
	 "}\n"},
};
/* clang-format on */

enum { NEXAMPLES = sizeof examples / sizeof examples[0] };

const Example *cmd_example_table(int *n)
{
	*n = NEXAMPLES;
	return examples;
}

const Example *cmd_example_find(const char *name)
{
	for (int i = 0; i < NEXAMPLES; i++)
		if (strcmp(examples[i].name, name) == 0)
			return &examples[i];
	return NULL;
}
