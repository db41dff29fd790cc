/* fuzz_parser.c - libFuzzer harness for the HLO text parser.
 *
 * Each input is parsed as a module; if it parses it is verified, printed,
 * and the printed text is parsed again. Crashes, sanitizer reports, leaks
 * and timeouts are the findings. With XR_FUZZ_STRICT=1 in the environment
 * a verified module must also print to text that parses back and prints
 * the same (the round-trip contract of print.h); a mismatch aborts.
 *
 * Build and run: `make fuzz` (clang, -fsanitize=fuzzer,address,undefined).
 * Seeds in tests/fuzz/seeds/ are small modules copied unchanged from
 * ../shared/corpus/hlo (openxla/xla and xla-rs, Apache-2.0). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "hlo.h"
#include "parse.h"
#include "print.h"
#include "strbuf.h"
#include "verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static bool strict;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *s = getenv("XR_FUZZ_STRICT");
	strict = s && *s && strcmp(s, "0") != 0;
	/* a constant at the full cap takes seconds to fill here */
	parse_set_max_constant_bytes((int64_t)1 << 20);
	return 0;
}

static HloModule *parse_text(const char *name, const char *text, size_t len,
			     Diag *d)
{
	SrcFile src = {.name = name, .text = text, .len = len};
	ParseStatus st = PARSE_OK;
	return parse_module(&src, d, &st);
}

static void fail(const char *what, const char *text, const char *diag)
{
	fprintf(stderr, "fuzz_parser: %s\n--- text ---\n%s\n--- diag ---\n%s\n",
		what, text, diag ? diag : "");
	abort();
}

/* Prints m, parses the printing again, and in strict mode checks that the
 * second printing equals the first. */
static void reprint(HloModule *m, bool verified)
{
	StrBuf b1, b2;
	Diag d;
	sb_init(&b1);
	sb_init(&b2);
	diag_init(&d);
	/* Big constants print as {...}: a mutated "s32[33333333] constant(1)"
	 * would otherwise spend the time budget printing ones. */
	const PrintOpts po = {.max_const_elems = 4096};
	print_module(&b1, m, &po);
	const char *t1 = sb_str(&b1);
	HloModule *m2 = parse_text("<reprint>", t1, b1.len, &d);
	if (m2) {
		print_module(&b2, m2, &po);
		if (strict && verified && strcmp(t1, sb_str(&b2)) != 0)
			fail("printing is not a fixed point", t1, sb_str(&b2));
		hlo_module_free(m2);
	} else if (strict && verified && !b1.oom) {
		fail("printed module does not parse back", t1, diag_text(&d));
	}
	diag_free(&d);
	sb_free(&b2);
	sb_free(&b1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The parser wants NUL-terminated text; the input has no terminator. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;

	Diag d;
	diag_init(&d);
	SrcFile src = {.name = "<fuzz>", .text = text, .len = size};
	ParseStatus st = PARSE_OK;
	HloModule *m = parse_module(&src, &d, &st);
	if (m) {
		bool ok = verify_module(m, &d, &src);
		reprint(m, ok);
		hlo_module_free(m);
	}
	(void)diag_text(&d);
	diag_free(&d);
	free(text);
	return 0;
}
