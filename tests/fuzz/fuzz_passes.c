/* fuzz_passes.c - libFuzzer harness for the passes.
 *
 * Each input that parses and verifies (and is small: at most 256
 * instructions, 1 MiB of arrays) goes through every registered pass on
 * its own (pass_apply) and then through the default pipeline as
 * `pipeline` runs it (one clone, pass_run pass after pass), each
 * verified: a pass that fails or breaks the module aborts ("internal
 * error"), as do crashes, sanitizer reports (the incremental verifier is
 * checked against the whole one there) and leaks. The pipeline run again
 * a pass at a time on fresh clones must print the same module (what the
 * history's replay relies on). When the module is tiny and free of loops
 * and opaque ops, the interpreter's result before and after the pipeline
 * must also agree (default tolerance per element type).
 *
 * Build and run: `make fuzz-passes` (clang, -fsanitize=fuzzer,address,
 * undefined). Seeds: tests/fuzz/seeds, shared with fuzz_parser. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "diag.h"
#include "hlo.h"
#include "interp.h"
#include "parse.h"
#include "passes/pass.h"
#include "print.h"
#include "verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_INSTRS = 256, NUMERIC_MAX_ELEMS = 4096 };

static void fail(const char *what, const char *text, const char *diag)
{
	fprintf(stderr, "fuzz_passes: %s\n--- text ---\n%s\n--- diag ---\n%s\n",
		what, text, diag ? diag : "");
	abort();
}

/* Small enough to run every pass quickly, with no array over 1 MiB. */
static bool small(const HloModule *m, int64_t *elems, bool *plain)
{
	*elems = 0;
	*plain = true;
	if (hlo_module_instr_count(m) > MAX_INSTRS)
		return false;
	for (int i = 0; i < m->ncomps; i++)
		for (int j = 0; j < m->comps[i]->n; j++) {
			const HloInstr *x = m->comps[i]->instrs[j];
			int64_t b = shape_bytes(x->shape);
			if (b < 0 || b > (1 << 20))
				return false;
			*elems += shape_elements(x->shape) > 0
					  ? shape_elements(x->shape)
					  : 0;
			switch (x->op) {
			case HLO_WHILE: case HLO_CONDITIONAL: case HLO_CALL:
			case HLO_CUSTOM_CALL: case HLO_RNG:
			case HLO_RNG_BIT_GENERATOR: case HLO_SORT:
				*plain = false;
				break;
			default:
				if (hlo_opcode_flags(x->op) &
				    (XF_SIDE | XF_COLL | XF_ASYNC))
					*plain = false;
				break;
			}
		}
	return true;
}

/* Applies p to *cur, replacing it on success; aborts when the pass
 * fails (its error says "internal error: pass ..."). */
static void apply(HloModule **cur, const Pass *p, const char *text)
{
	Diag d;
	diag_init(&d);
	PassCtx cx = {.d = &d, .fold_max_elems = 1 << 12};
	PassResult r;
	if (!pass_apply(*cur, p, &cx, &r))
		fail(p->name, text, diag_text(&d));
	diag_free(&d);
	hlo_module_free(*cur);
	*cur = r.m;
}

/* Runs p on cur in place; aborts when the pass fails. */
static void run_in_place(HloModule *cur, const Pass *p, const char *text)
{
	Diag d;
	diag_init(&d);
	PassCtx cx = {.d = &d, .fold_max_elems = 1 << 12};
	PassResult r;
	if (!pass_run(cur, p, &cx, &r))
		fail(p->name, text, diag_text(&d));
	diag_free(&d);
}

static char *printed(const HloModule *m)
{
	StrBuf b;
	sb_init(&b);
	print_module(&b, m, &print_opts_default);
	return sb_take(&b);
}

static Literal *run(const HloModule *m, Arena *a)
{
	int np = hlo_comp_param_count(m->entry);
	Literal **args = arena_alloc(a, sizeof *args * (size_t)(np + 1));
	for (int i = 0; args && i < np; i++) {
		const HloInstr *p = hlo_comp_param(m->entry, i);
		if (!p || !(args[i] = literal_new(a, p->shape)))
			return NULL;
		literal_fill_pseudo_random(args[i], 1 + (uint64_t)i);
	}
	Diag d;
	diag_init(&d);
	InterpOpts o = {(int64_t)64 << 20, NULL};
	Literal *r = args ? interp_run(m, args, np, a, &o, &d, NULL) : NULL;
	diag_free(&d);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	Diag d;
	diag_init(&d);
	d.max_warnings = 0;
	SrcFile src = {.name = "<fuzz>", .text = text, .len = size};
	HloModule *m = parse_module(&src, &d, NULL);
	int64_t elems;
	bool plain;
	if (!m || !verify_module(m, &d, &src) || !m->entry ||
	    !small(m, &elems, &plain)) {
		hlo_module_free(m);
		diag_free(&d);
		free(text);
		return 0;
	}
	diag_free(&d);
	int n;
	const Pass *t = pass_table(&n);
	for (int i = 0; i < n; i++) {
		HloModule *c = hlo_module_clone(m);
		if (!c)
			break;
		apply(&c, &t[i], text);
		hlo_module_free(c);
	}
	Arena a;
	arena_init(&a);
	bool numeric = plain && elems <= NUMERIC_MAX_ELEMS;
	Literal *want = numeric ? run(m, &a) : NULL;
	int ns;
	const char *const *steps = pipeline_find("default", &ns);
	HloModule *cur = pass_clone(m), *each = hlo_module_clone(m);
	for (int i = 0; cur && i < ns; i++)
		run_in_place(cur, pass_find(steps[i]), text);
	for (int i = 0; each && i < ns; i++)
		apply(&each, pass_find(steps[i]), text);
	if (cur && each) {
		char *a1 = printed(cur), *a2 = printed(each);
		if (a1 && a2 && strcmp(a1, a2))
			fail("the pipeline in place and a pass at a time on "
			     "clones differ",
			     text, a1);
		free(a1);
		free(a2);
	}
	hlo_module_free(each);
	if (want && cur) {
		Literal *got = run(cur, &a);
		CompareResult cr;
		if (!got)
			fail("the pipeline's result does not run", text, "");
		literal_compare(got, want, compare_default_tol(want->shape),
				&cr);
		if (!cr.ok)
			fail("the default pipeline changed the result", text,
			     "");
	}
	hlo_module_free(cur);
	arena_free(&a);
	hlo_module_free(m);
	free(text);
	return 0;
}
