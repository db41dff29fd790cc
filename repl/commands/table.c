/* table.c - the command table and everything derived from it: lookup by
 * unique prefix, argument splitting, usage errors and completion. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"

/* clang-format off */
static const Command commands[] = {
	{"load", "load PATH",
	 "Load an HLO module from a file (parse and verify).",
	 "Reads PATH as HLO text in XLA's own format (either printing style,\n"
	 "with or without the HloModule header), verifies it and makes it the\n"
	 "current module. On any error the diagnostics are printed and the\n"
	 "current module stays as it was.\n"
	 "A module can also be typed or pasted: a line starting with\n"
	 "'HloModule', 'ENTRY' or 'name {' starts a block that is read up to\n"
	 "its closing brace and loaded the same way.\n"
	 "\n"
	 "Example:\n"
	 "  load model.hlo\n",
	 "Modules", 1, 1, cmd_load, NULL},
	{"save", "save PATH",
	 "Write the current module to a file as HLO text.",
	 "Writes the whole module in XLA's long form (% sigils, operand\n"
	 "shapes, layouts) with every constant in full, so the file loads\n"
	 "back to the same module.\n"
	 "\n"
	 "Example:\n"
	 "  save /tmp/after.hlo\n",
	 "Modules", 1, 1, cmd_save, NULL},
	{"print", "print [NAME]",
	 "Print the module, a computation or an instruction.",
	 "With no argument prints the current module. NAME ('%' optional)\n"
	 "names a computation, or else an instruction, looked up in the entry\n"
	 "computation first and then in the others. Constants with more than\n"
	 "64 elements are shown as {...}; 'save' writes them in full.\n"
	 "\n"
	 "Example:\n"
	 "  print\n"
	 "  print %add.3\n",
	 "Modules", 0, 1, cmd_print, cmd_complete_names},
	{"new", "new [NAME]",
	 "Start an empty module (named 'module' by default).",
	 "Replaces the current module with an empty one called NAME, whose\n"
	 "ENTRY computation 'main' has no instructions yet. Type instructions\n"
	 "to fill it; shapes left out are inferred.\n"
	 "\n"
	 "Example:\n"
	 "  new demo\n"
	 "  p0 = f32[4] parameter(0)\n"
	 "  y = add(p0, p0)\n",
	 "Modules", 0, 1, cmd_new, cmd_complete_none},
	{"list", "list [PATTERN]",
	 "List the entry computation's instructions.",
	 "One line per instruction of the entry computation: name, opcode and\n"
	 "shape. PATTERN keeps the instructions whose name or opcode contains\n"
	 "it, or matches it as a glob when it has '*', '?' or '['.\n"
	 "'list computations' lists every computation and its instruction\n"
	 "count instead.\n"
	 "\n"
	 "Example:\n"
	 "  list\n"
	 "  list add*\n"
	 "  list computations\n",
	 "Inspecting", 0, 1, cmd_list, cmd_complete_list},
	{"info", "info NAME",
	 "Show one instruction in detail.",
	 "Prints the opcode, shape, operands with their shapes, users,\n"
	 "attributes, called computations and where the instruction was\n"
	 "written. NAME is looked up in the entry computation first, then in\n"
	 "the others.\n"
	 "\n"
	 "Example:\n"
	 "  info %fusion.2\n",
	 "Inspecting", 1, 1, cmd_info, cmd_complete_instrs},
	{"stats", "stats",
	 "Print one line of counts.",
	 "Prints 'stats: instructions=N computations=N fusions=N kernels=N\n"
	 "kernels_all=N'. instructions counts every instruction of every\n"
	 "computation, fusions the fusion instructions, and kernels what\n"
	 "would be launched: the top-level instructions of the entry\n"
	 "computation other than parameter, constant, tuple,\n"
	 "get-tuple-element and bitcast. kernels_all counts the same but\n"
	 "looks inside control flow: a call counts its callee's kernels, a\n"
	 "while its condition's and body's (once, not per trip), a\n"
	 "conditional every branch's; so a fusion inside a loop body shows\n"
	 "there. Scripts and tests rely on this exact line.\n"
	 "\n"
	 "Example:\n"
	 "  stats\n",
	 "Inspecting", 0, 0, cmd_stats, cmd_complete_none},
	{"passes", "passes",
	 "List the compiler passes.",
	 "One line per pass: its name and what it does. 'pass NAME' applies\n"
	 "one; 'pipeline' runs a named sequence of them.\n"
	 "\n"
	 "Example:\n"
	 "  passes\n",
	 "Passes", 0, 0, cmd_passes, cmd_complete_none},
	{"pass", "pass NAME...",
	 "Apply passes one at a time, each a history step.",
	 "Applies the named passes in order. Each one runs on a copy of the\n"
	 "module that is verified afterwards, and becomes a history step even\n"
	 "when it changes nothing. Prints one line per pass:\n"
	 "'pass: name=N changed=yes|no instructions=A->B kernels=C->D\n"
	 "bytes=E->F time_ms=T' (bytes: what the kernels read and write, by\n"
	 "the cost model), then the rewrite rules that fired and how often. An\n"
	 "unknown name or a failing pass applies none of them.\n"
	 "\n"
	 "Example:\n"
	 "  pass cse dce\n",
	 "Passes", 1, -1, cmd_pass, cmd_complete_passes},
	{"pipeline", "pipeline [NAME]",
	 "Run a named pipeline (default: 'default') step by step.",
	 "Runs the passes of pipeline NAME as 'pass' would, one history step\n"
	 "per pass, printing the same line for each.\n"
	 "\n"
	 "Example:\n"
	 "  pipeline\n"
	 "  undo\n",
	 "Passes", 0, 1, cmd_pipeline, cmd_complete_pipelines},
	{"undo", "undo",
	 "Go back one step in the history.",
	 "Makes the module what it was one step earlier (exactly: 'save'\n"
	 "writes the same bytes). 'redo' goes forward again until a new step\n"
	 "is made.\n"
	 "\n"
	 "Example:\n"
	 "  pass dce\n"
	 "  undo\n",
	 "Passes", 0, 0, cmd_undo, cmd_complete_none},
	{"redo", "redo",
	 "Go forward one step after 'undo'.",
	 "Undoes an 'undo'. A command that changes the module after an\n"
	 "'undo' drops the steps that 'redo' would have gone to.\n"
	 "\n"
	 "Example:\n"
	 "  undo\n"
	 "  redo\n",
	 "Passes", 0, 0, cmd_redo, cmd_complete_none},
	{"history", "history",
	 "List the module versions and what made each.",
	 "One line per step: its number, what made it ('load x.hlo', 'new m',\n"
	 "a typed instruction, 'pass cse'), its instruction and kernel counts;\n"
	 "'*' marks the current step. The last 200 steps are kept.\n"
	 "\n"
	 "Example:\n"
	 "  history\n",
	 "Passes", 0, 0, cmd_history, cmd_complete_none},
	{"diff", "diff [A [B]]",
	 "Unified diff of the module text between two steps.",
	 "Compares the printed module of step A with that of step B (numbers\n"
	 "from 'history') as 'diff -u' would. With no argument compares the\n"
	 "previous step with the current one; with A alone, A with the\n"
	 "current one.\n"
	 "\n"
	 "Example:\n"
	 "  pass cse\n"
	 "  diff\n"
	 "  diff 0 3\n",
	 "Passes", 0, 2, cmd_diff, cmd_complete_none},
	{"why", "why A B",
	 "Why producer A was or was not fused into consumer B.",
	 "Answers from the decision log of the last fusion passes (fusion,\n"
	 "then multi-output-fusion): whether producer A was fused into\n"
	 "consumer B, the rule that decided ('explain RULE' says what it\n"
	 "means) and the bytes the fusion saves or would save, as\n"
	 "'why: producer=A consumer=B fused=yes|no rule=R bytes_saved=N\n"
	 "considered=...'. A and B are names as they were before fusion or as\n"
	 "they are now (a fusion's name stands for the instructions in it;\n"
	 "'%' optional; an instruction inside a fusion stands for it). A pair\n"
	 "the log lacks, or asked about before any fusion pass, is answered\n"
	 "from a trial run of 'pass fusion' on a copy of the module as it is\n"
	 "now (considered=no): the answer the log gives after the pass. A\n"
	 "pair the pass never offers is judged on its own by the same rules,\n"
	 "including the rule that rules it out. After multi-output fusion,\n"
	 "two instructions of different kernels are answered by its decision\n"
	 "about the two kernels as siblings.\n"
	 "\n"
	 "Example:\n"
	 "  pass fusion\n"
	 "  why exponential.1 reduce.2\n",
	 "Passes", 2, 2, cmd_why, cmd_complete_instrs},
	{"fusions", "fusions [FILTER]",
	 "The last fusion passes' decisions.",
	 "Lists every producer/consumer pair the last fusion pass (and the\n"
	 "multi-output pass after it) considered, in order: fused or not, the\n"
	 "rule, the reason and the estimated bytes saved; then the count of\n"
	 "decisions by rule and the fusions made (kind and instructions).\n"
	 "FILTER keeps only the decisions that were 'fused', 'declined',\n"
	 "made by that rule, or name that instruction. The first line is\n"
	 "'fusions: step=N considered=C fused=F declined=D groups=G'.\n"
	 "\n"
	 "Example:\n"
	 "  pass fusion\n"
	 "  fusions\n"
	 "  fusions expensive-duplicated\n",
	 "Passes", 0, 1, cmd_fusions, cmd_complete_fusions},
	{"fuse", "fuse A B",
	 "Force producer A into consumer B (a what-if, one history step).",
	 "Fuses producer A into consumer B when that is legal (B uses A, both\n"
	 "can be fused, same computation), even where the fusion pass\n"
	 "declined: a producer with other users is copied. Prints\n"
	 "'fuse: producer=A consumer=B into=F kernels=X->Y bytes_saved=N\n"
	 "pass_would_fuse=yes|no rule=R', the pass's own verdict (from a\n"
	 "trial run of 'pass fusion' on a copy, as 'why' answers before the\n"
	 "pass; bytes_saved is this fusion's), and the bytes moved before\n"
	 "and after by the cost model. The result is a history step, so\n"
	 "'undo' takes it back.\n"
	 "\n"
	 "Example:\n"
	 "  fuse broadcast.3 add.4\n",
	 "Passes", 2, 2, cmd_fuse, cmd_complete_instrs},
	{"cost", "cost [NAME]",
	 "Flops, bytes and a roofline estimate per kernel.",
	 "For every kernel of the entry computation (or only NAME): flops,\n"
	 "bytes read and written, arithmetic intensity, and the time a\n"
	 "roofline model predicts on this machine's CPU and on an H200, with\n"
	 "whether it is bound by memory or compute; then the totals and\n"
	 "'cost: flops=X bytes_read=Y bytes_written=Z intensity=I cpu_us=A\n"
	 "gpu_us=B'. Past 20 kernels only the slowest 20 are listed (the\n"
	 "totals count all). A fusion is one kernel reading its operands\n"
	 "once ('cost FUSION' shows what each fused instruction adds). A\n"
	 "while loop counts its body as many times as it runs when the\n"
	 "trip count is known (known_trip_count in its backend_config, or\n"
	 "a counter from a constant, stepped by a constant, compared with\n"
	 "one: kind 'while xN'), else once ('while*', as XLA counts it).\n"
	 "The machine figures are options ('set' lists them).\n"
	 "\n"
	 "Example:\n"
	 "  cost\n"
	 "  cost fusion.2\n",
	 "Inspecting", 0, 1, cmd_cost, cmd_complete_instrs},
	{"memory", "memory [--svg PATH]",
	 "Buffers, live ranges and peak memory of the entry computation.",
	 "Assigns buffers to the entry computation's values in program order:\n"
	 "'memory: buffers=N temps=T peak_bytes=P arena_bytes=A\n"
	 "total_bytes=S', then the largest buffers with their size, live\n"
	 "range and which buffers share their memory. Compared with the\n"
	 "previous history step when there is one. '--svg PATH' also draws\n"
	 "the buffers' lifetimes as a chart.\n"
	 "\n"
	 "Example:\n"
	 "  memory\n"
	 "  memory --svg /tmp/buffers.svg\n",
	 "Inspecting", 0, 2, cmd_memory, NULL},
	{"render", "render PATH [NAME [DEPTH]]",
	 "Draw the graph (.svg, .png, .pdf or .dot by extension).",
	 "Draws the current module as XLA's graph dumper does (colours per\n"
	 "opcode kind, small constants written into their users, reducers\n"
	 "named, while bodies as boxes) into PATH; the extension picks the\n"
	 "format (.dot is the DOT text; the others are drawn in-process by\n"
	 "Graphviz). Fusions are boxes with their insides, or one node each\n"
	 "after 'set fusions collapsed'. With NAME, only the neighbourhood of\n"
	 "that instruction up to DEPTH edges (default 2), cut-off edges\n"
	 "dashed. Above 400 nodes the picture falls back to collapsed fusions,\n"
	 "then to the neighbourhood of what the last step changed, and a\n"
	 "'note:' line says so.\n"
	 "\n"
	 "Example:\n"
	 "  render /tmp/g.svg\n"
	 "  render /tmp/n.png add.3 1\n",
	 "Inspecting", 1, 3, cmd_render, NULL},
	{"compare", "compare PATH [A [B]]",
	 "Before/after picture of two history steps side by side.",
	 "Draws history steps A and B (numbers from 'history'; default: the\n"
	 "step before the current one and the current one) as two panels in\n"
	 "one picture, with added, removed and changed instructions coloured,\n"
	 "fusions boxed and a legend. The format follows the extension as for\n"
	 "'render'; each panel falls back on its own above 200 nodes.\n"
	 "\n"
	 "Example:\n"
	 "  pass fusion\n"
	 "  compare /tmp/fusion.svg\n",
	 "Inspecting", 1, 3, cmd_compare, NULL},
	{"report", "report PATH.html",
	 "One self-contained HTML page of the whole session history.",
	 "Writes every history step (what made it, its stats line, the text\n"
	 "diff and the before/after picture as 'compare' draws it) into one\n"
	 "HTML file that needs no network: pictures are inline SVG, with pan\n"
	 "(drag), zoom (wheel, + and -) and fit by an inline script.\n"
	 "\n"
	 "Example:\n"
	 "  report /tmp/session.html\n",
	 "Inspecting", 1, 1, cmd_report, NULL},
	{"example", "example [NAME]",
	 "Load a built-in example module (list them with no argument).",
	 "Loads one of the built-in example modules as a new history step,\n"
	 "as 'load' would load the same text from a file ('undo' goes back).\n"
	 "They are realistic graphs in XLA's text format, as jax.jit dumps\n"
	 "them: elementwise (GELU), softmax, layer-norm, mlp, attention,\n"
	 "conv-pool (convolution + relu + max-pool), while-loop and embedding\n"
	 "(gather). With no argument, lists them with a line each.\n"
	 "\n"
	 "Example:\n"
	 "  example\n"
	 "  example softmax\n"
	 "  run interp\n",
	 "Modules", 0, 1, cmd_example, cmd_complete_examples},
	{"explain", "explain OP|PASS|CONCEPT",
	 "Explain an opcode, a pass or a compiler concept.",
	 "Prints a short explanation of an HLO opcode's semantics (operands,\n"
	 "attributes, result shape), of a pass, or of a concept of the XLA\n"
	 "pipeline (hlo, layout, fusion-kinds, buffer-assignment, jit-vs-aot,\n"
	 "ptx, ...). A name that is several of these (fusion) prints each.\n"
	 "With no argument, lists the topics by group; an unknown topic is\n"
	 "answered with the close ones.\n"
	 "\n"
	 "Example:\n"
	 "  explain reduce\n"
	 "  explain fusion\n",
	 "Session", 0, 1, cmd_explain, cmd_complete_explain},
	{"input", "input [N SOURCE]",
	 "Set parameter N: random, zeros, ones, iota, .npy or a literal.",
	 "Gives entry parameter N the values the next 'run' uses. SOURCE is\n"
	 "'random [SEED]' (uniform in [-1, 1) for floats, small integers for\n"
	 "integers; the same seed gives the same values), 'zeros', 'ones',\n"
	 "'iota' (0, 1, 2, ... in row-major order), a .npy file, or an HLO\n"
	 "literal such as {1, 2, 3} or { {1, 2}, {3, 4} }. The shape and\n"
	 "element type must match the parameter (a float32 .npy file may feed\n"
	 "a narrower float parameter and is rounded; an int8 or uint8 one an\n"
	 "s4/u4, s2/u2 or s1/u1 parameter when the values fit). A parameter\n"
	 "with no input gets random values, seed N, at the first run. With no\n"
	 "arguments, lists the inputs.\n"
	 "\n"
	 "Example:\n"
	 "  input 0 {1, 2, 3, 4}\n"
	 "  input 1 random 7\n"
	 "  input 2 weights.npy\n",
	 "Running", 0, -1, cmd_input, cmd_complete_none},
	{"run", "run interp|cpu|gpu [-n N]",
	 "Execute the module; print the result and a timing line.",
	 "Runs the entry computation on the inputs (see 'input') with the\n"
	 "given backend, N times (default 1), and prints the result as XLA\n"
	 "prints literals (large arrays summarised: first and last elements,\n"
	 "min, max, mean; tuples element by element) and then\n"
	 "'timing: backend=B compile_ms=X median_us=Y min_us=Z iters=N'.\n"
	 "'interp' is the reference interpreter. A run that would need more\n"
	 "memory than 'set max-memory' is refused; Ctrl-C stops a run and\n"
	 "keeps the session as it was.\n"
	 "\n"
	 "Example:\n"
	 "  run interp\n"
	 "  run interp -n 10\n",
	 "Running", 1, 3, cmd_run, cmd_complete_none},
	{"save-result", "save-result PATH.npy",
	 "Write the last result as a .npy file.",
	 "Writes the last result to PATH.npy: that of the last 'run' or\n"
	 "'check' (its backend's), kept when another module is loaded. A\n"
	 "tuple result is written as PATH.0.npy, PATH.1.npy, ... Types NumPy\n"
	 "lacks (bf16, f8, s4) are written as float32 or int8, with a note.\n"
	 "\n"
	 "Example:\n"
	 "  save-result /tmp/out.npy\n",
	 "Running", 1, 1, cmd_save_result, NULL},
	{"check", "check interp|cpu|gpu [TOL]",
	 "Compare a backend's result with the interpreter's.",
	 "Runs the interpreter and the backend on the same inputs and prints\n"
	 "'check: backend=B max_abs_err=X max_rel_err=Y ok|FAIL'. An element\n"
	 "passes when |got - want| <= TOL * (1 + |want|); the default TOL\n"
	 "depends on the element type (0 for integers, 1e-5 for f32, 2e-2 for\n"
	 "bf16). FAIL makes the command fail, so a script stops there. The\n"
	 "backend's result becomes the last result ('save-result').\n"
	 "\n"
	 "Example:\n"
	 "  check interp\n"
	 "  check cpu 1e-4\n",
	 "Running", 1, 2, cmd_check, cmd_complete_none},
	{"set", "set [OPTION [VALUE]]",
	 "Show or change a session option.",
	 "With no arguments lists the options and their values; with OPTION\n"
	 "alone shows that one:\n"
	 "  max-memory SIZE      buffers one run may use (K, M, G suffixes)\n"
	 "  fusion on|off        off: the fusion pass fuses nothing\n"
	 "  pass-log on|off      on: 'pass' prints every rewrite it made\n"
	 "  fusions expanded|collapsed\n"
	 "                       pictures draw fusions' insides or one node\n"
	 "  bodies clusters|summary\n"
	 "                       pictures draw loop bodies as boxes or one line\n"
	 "  node-cap N           nodes a picture draws before it falls back\n"
	 "                       (10 to 5000; default 400)\n"
	 "  cpu-gbps, cpu-gflops, gpu-gbps, gpu-gflops X\n"
	 "                       the machines of the 'cost' roofline\n"
	 "                       (GB/s and GFLOP/s, 1e-6 to 1e9)\n"
	 "\n"
	 "Example:\n"
	 "  set max-memory 512M\n"
	 "  set fusion off\n"
	 "  set node-cap\n",
	 "Session", 0, 2, cmd_set, cmd_complete_options},
	{"help", "help [CMD]",
	 "List the commands, or explain one.",
	 "With no argument lists every command. With CMD (a unique prefix is\n"
	 "enough) prints its usage and a longer explanation with an example.\n"
	 "\n"
	 "Example:\n"
	 "  help load\n",
	 "Session", 0, 1, cmd_help, cmd_complete_commands},
	{"quit", "quit",
	 "End the session.",
	 "Ends the session. A script then exits with status 0, or 1 when an\n"
	 "earlier command failed (under --keep-going). At the prompt, end of\n"
	 "input (Ctrl-D) does the same.\n"
	 "\n"
	 "Example:\n"
	 "  quit\n",
	 "Session", 0, 0, cmd_quit, cmd_complete_none},
	{"exit", "exit",
	 "End the session (same as quit).",
	 "The same as 'quit'.\n"
	 "\n"
	 "Example:\n"
	 "  exit\n",
	 "Session", 0, 0, cmd_quit, cmd_complete_none},
	{"echo", "echo [TEXT]",
	 "Print TEXT as written.",
	 "Prints the rest of the line verbatim; handy for labelling the output\n"
	 "of a script.\n"
	 "\n"
	 "Example:\n"
	 "  echo --- before fusion ---\n",
	 "Scripts", 0, -1, cmd_echo, cmd_complete_none},
	{"source", "source PATH",
	 "Run a script inside this session.",
	 "Runs the commands of the script PATH (relative to the working\n"
	 "directory) as if they were typed here, in the current session:\n"
	 "the module, inputs and result it leaves are kept. Errors inside it\n"
	 "carry its own file name and line numbers. A failing command stops\n"
	 "the sourced script (unless --keep-going) and makes 'source' fail.\n"
	 "Scripts may source scripts, up to 16 deep.\n"
	 "\n"
	 "Example:\n"
	 "  source setup.xr\n",
	 "Scripts", 1, 1, cmd_source, NULL},
	{"expect", "expect WHAT [ARGS]",
	 "Fail the script unless a fact holds (script tests).",
	 "Checks a fact and fails with 'FILE:LINE: expectation failed: ...'\n"
	 "when it does not hold, so a script stops there (batch mode) and\n"
	 "exits 1; when it holds, nothing is printed. WHAT is one of:\n"
	 "  kernels N, kernels_all N, instructions N, fusions N,\n"
	 "  computations N\n"
	 "                  that count on the 'stats' line is N\n"
	 "  error           the next command must fail; its error is printed\n"
	 "                  but does not count as a failure of the script\n"
	 "  output TEXT     the previous command printed TEXT (the rest of\n"
	 "                  the line, as written) on its standard output\n"
	 "  close PATH.npy [TOL]\n"
	 "                  the last result is within TOL of the file (as\n"
	 "                  'check' compares; default TOL by element type);\n"
	 "                  a tuple result against PATH.0.npy, PATH.1.npy, ...\n"
	 "                  as 'save-result' writes them\n"
	 "'expect' lines are not commands for 'expect error' and 'expect\n"
	 "output': those look past them to the next or previous command.\n"
	 "\n"
	 "Example:\n"
	 "  expect kernels 3\n"
	 "  run interp\n"
	 "  expect output backend=interp\n"
	 "  expect close want.npy 1e-4\n"
	 "  expect error\n"
	 "  load missing.hlo\n",
	 "Scripts", 1, -1, cmd_expect, cmd_complete_expect},
};
/* clang-format on */

enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

const Command *cmd_table(int *n)
{
	*n = NCOMMANDS;
	return commands;
}

const Command *cmd_find_exact(const char *name, size_t n)
{
	for (int i = 0; i < NCOMMANDS; i++)
		if (strlen(commands[i].name) == n &&
		    memcmp(commands[i].name, name, n) == 0)
			return &commands[i];
	return NULL;
}

/* Commands whose name starts with name[0..n); *first gets one of them. */
static int count_prefixed(const char *name, size_t n, const Command **first)
{
	int count = 0;
	for (int i = 0; i < NCOMMANDS; i++) {
		if (strncmp(commands[i].name, name, n) != 0 ||
		    strlen(commands[i].name) < n)
			continue;
		if (!count++)
			*first = &commands[i];
	}
	return count;
}

static bool ambiguous(Session *s, const char *name, size_t n)
{
	StrBuf b;
	sb_init(&b);
	for (int i = 0; i < NCOMMANDS; i++)
		if (strncmp(commands[i].name, name, n) == 0)
			sb_printf(&b, "%s%s", b.len ? ", " : "",
				  commands[i].name);
	char q[80];
	repl_error(s, "ambiguous command '%s': %s",
		   repl_quote(q, sizeof q, name, n), sb_str(&b));
	sb_free(&b);
	return false;
}

const Command *cmd_find(const char *name, size_t n)
{
	const Command *c = cmd_find_exact(name, n);
	if (!c && n && count_prefixed(name, n, &c) != 1)
		c = NULL;
	return c;
}

/* Exact name, else unique prefix; reports unknown and ambiguous names. */
static const Command *lookup(Session *s, const char *name, size_t n)
{
	const Command *c = cmd_find(name, n);
	if (c)
		return c;
	if (n && count_prefixed(name, n, &c) > 1) {
		ambiguous(s, name, n);
		return NULL;
	}
	char q[80];
	repl_error(s, "unknown command '%s' (try 'help')",
		   repl_quote(q, sizeof q, name, n));
	return NULL;
}

const Command *cmd_lookup(Session *s, const char *name)
{
	return lookup(s, name, strlen(name));
}

/* --- splitting arguments --- */

typedef struct Words {
	char *buf; /* the words, NUL-separated */
	char **v;
	int n;
} Words;

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

/* One word at *p into *o (o NULL: passed over): blanks end it, "..."
 * groups (with \" and \\) when quotes count. */
static bool copy_word(const char **p, char **o, bool quotes)
{
	const char *s = *p;
	bool quoted = false;
	for (; *s && (quoted || !is_blank(*s)); s++) {
		if (*s == '"' && quotes) {
			quoted = !quoted;
			continue;
		}
		if (quoted && *s == '\\' && (s[1] == '"' || s[1] == '\\'))
			s++;
		if (o)
			*(*o)++ = *s;
	}
	if (o)
		*(*o)++ = 0;
	*p = s;
	return !quoted;
}

/* The words of s; with quotes, "..." groups; with comments, a word
 * that starts with '#' starts a comment that ends the line. */
static bool split_words(const char *s, Words *w, bool quotes, bool comments)
{
	size_t len = strlen(s);
	w->n = 0;
	w->buf = malloc(len + 1);
	w->v = malloc((len / 2 + 2) * sizeof *w->v);
	if (!w->buf || !w->v)
		return false;
	char *o = w->buf;
	for (;;) {
		while (is_blank(*s))
			s++;
		if (!*s || (comments && *s == '#'))
			return true;
		w->v[w->n++] = o;
		if (!copy_word(&s, &o, quotes))
			return false;
	}
}

static void free_words(Words *w)
{
	free(w->buf);
	free(w->v);
}

/* The column (from 1) of the word after the first k words of rest, a
 * part of the line being run (s->unit_text); 0 when rest is not. */
static int word_col(const Session *s, const char *rest, int k)
{
	const char *t = s->unit_text;
	if (!t || rest < t || rest > t + s->unit_len)
		return 0;
	const char *p = rest;
	for (int i = 0;; i++) { /* the words as split_words reads them */
		while (is_blank(*p))
			p++;
		if (i == k || !*p)
			break;
		copy_word(&p, NULL, true);
	}
	return p <= t + s->unit_len ? (int)(p - t) + 1 : 0;
}

/* Too many arguments: the error points at the first one too many. */
static bool usage_error(Session *s, const Command *c, const char *rest,
			int argc)
{
	if (c->max_args >= 0 && argc > c->max_args)
		s->err_col = word_col(s, rest, c->max_args);
	repl_error(s, "wrong number of arguments for '%s'", c->name);
	fprintf(s->err, "Usage: %s\n", c->synopsis);
	return false;
}

static bool run_with_args(Session *s, const Command *c, const char *rest)
{
	Words w;
	/* echo and expect take the line as written: a lone '"' or '#' is
	 * text */
	bool as_written = c->run == cmd_echo || c->run == cmd_expect;
	bool ok = split_words(rest, &w, true, !as_written);
	if (!ok && w.buf && w.v && as_written) {
		free_words(&w);
		ok = split_words(rest, &w, false, false);
	}
	if (!ok) {
		const char *why =
			w.buf && w.v ? "unterminated quote" : "out of memory";
		free_words(&w);
		return repl_error(s, "%s", why);
	}
	if (w.n < c->min_args || (c->max_args >= 0 && w.n > c->max_args))
		ok = usage_error(s, c, rest, w.n);
	else
		ok = c->run(s, &(CmdArgs){w.n, w.v, rest, c});
	free_words(&w);
	return ok;
}

/* The command word of line: its start, and its length in *n. */
static const char *first_word(const char *line, size_t *n)
{
	while (is_blank(*line))
		line++;
	*n = 0;
	while (line[*n] && !is_blank(line[*n]))
		++*n;
	return line;
}

bool cmd_execute(Session *s, const char *line)
{
	size_t n;
	line = first_word(line, &n);
	const Command *c = lookup(s, line, n);
	if (!c)
		return false;
	const char *rest = line + n;
	while (is_blank(*rest))
		rest++;
	return run_with_args(s, c, rest);
}

bool cmd_is_expect(const char *line)
{
	size_t n;
	line = first_word(line, &n);
	const Command *c = cmd_find(line, n);
	return c && c->run == cmd_expect;
}

/* --- completion --- */

void cmd_matches_add(CmdMatches *m, const char *s)
{
	if (m->n == m->cap) {
		int cap = m->cap ? m->cap * 2 : 16;
		char **v = realloc(m->v, (size_t)cap * sizeof *v);
		if (!v)
			return;
		m->v = v;
		m->cap = cap;
	}
	char *d = strdup(s);
	if (d)
		m->v[m->n++] = d;
}

void cmd_matches_free(CmdMatches *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->v[i]);
	free(m->v);
	memset(m, 0, sizeof *m);
}

void cmd_complete_none(const Session *s, const char *prefix, CmdMatches *out)
{
	(void)s, (void)prefix, (void)out;
}

void cmd_complete_commands(const Session *s, const char *prefix,
			   CmdMatches *out)
{
	(void)s;
	size_t n = strlen(prefix);
	for (int i = 0; i < NCOMMANDS; i++)
		if (strncmp(commands[i].name, prefix, n) == 0)
			cmd_matches_add(out, commands[i].name);
}

/* Instruction names of c starting with prefix, '%'-prefixed if asked. */
static void add_instr_names(const HloComp *c, const char *prefix, bool sigil,
			    CmdMatches *out)
{
	size_t n = strlen(prefix);
	StrBuf b;
	sb_init(&b);
	for (int i = 0; i < c->n; i++) {
		const char *name = c->instrs[i]->name;
		if (strncmp(name, prefix, n) != 0)
			continue;
		sb_clear(&b);
		sb_printf(&b, "%s%s", sigil ? "%" : "", name);
		cmd_matches_add(out, sb_str(&b));
	}
	sb_free(&b);
}

void cmd_complete_instrs(const Session *s, const char *prefix, CmdMatches *out)
{
	if (!s || !s->mod)
		return;
	const HloModule *m = s->mod;
	bool sigil = prefix[0] == '%';
	for (int i = 0; i < m->ncomps; i++)
		add_instr_names(m->comps[i], repl_bare_name(prefix), sigil,
				out);
}

void cmd_complete_names(const Session *s, const char *prefix, CmdMatches *out)
{
	if (!s || !s->mod)
		return;
	const char *bare = repl_bare_name(prefix);
	const HloModule *m = s->mod;
	for (int i = 0; i < m->ncomps; i++)
		if (strncmp(m->comps[i]->name, bare, strlen(bare)) == 0)
			cmd_matches_add(out, m->comps[i]->name);
	cmd_complete_instrs(s, prefix, out);
}

void cmd_complete_list(const Session *s, const char *prefix, CmdMatches *out)
{
	if (strncmp("computations", prefix, strlen(prefix)) == 0)
		cmd_matches_add(out, "computations");
	if (s && s->mod && s->mod->entry)
		add_instr_names(s->mod->entry, prefix, false, out);
}

bool cmd_complete_line(const Session *s, const char *line, int start,
		       const char *prefix, CmdMatches *out)
{
	size_t i = 0;
	while (is_blank(line[i]))
		i++;
	if ((size_t)start <= i) {
		cmd_complete_commands(s, prefix, out);
		return true;
	}
	size_t n = 0;
	while (line[i + n] && !is_blank(line[i + n]))
		n++;
	const Command *c = cmd_find_exact(line + i, n);
	if (!c && count_prefixed(line + i, n, &c) != 1)
		return true;
	if (!c->complete)
		return false;
	c->complete(s, prefix, out);
	return true;
}
