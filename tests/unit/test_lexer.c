/* test_lexer.c - the HLO character cursor (core/lexer.c): whitespace and
 * comments, names, integers, strings, balanced attribute values, and
 * line/column tracking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "lexer.h"

static Lexer lx_of(const char *text)
{
	Lexer lx;
	lex_init(&lx, text, strlen(text));
	return lx;
}

/* Text from the cursor to e as a NUL-terminated copy (static buffer). */
static const char *span(const char *s, const char *e)
{
	static char buf[256];
	size_t n = (size_t)(e - s);
	assert_true(n < sizeof buf);
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

static const char *rest(const Lexer *lx) { return span(lx->p, lx->end); }

/* --- lex_skip ------------------------------------------------------------ */

static void skip_spaces_and_line_comments(void **st)
{
	(void)st;
	Lexer lx = lx_of("  \t// a comment\n  // another\r\n\f\vx");
	lex_skip(&lx);
	assert_string_equal(rest(&lx), "x");
	assert_int_equal(lx.line, 3);
	assert_int_equal(lex_loc(&lx).col, 3);
	assert_null(lx.open_comment);
}

static void skip_block_comments(void **st)
{
	(void)st;
	Lexer lx = lx_of("/* one */ /* two\nlines */ /**/ y");
	lex_skip(&lx);
	assert_string_equal(rest(&lx), "y");
	assert_int_equal(lx.line, 2);
	assert_int_equal(lex_loc(&lx).col, 15);
}

/* Block comments do not nest: the first close ends it. */
static void skip_nested_looking_comment(void **st)
{
	(void)st;
	Lexer lx = lx_of("/* a /* b */ c */");
	lex_skip(&lx);
	assert_string_equal(rest(&lx), "c */");
	lx = lx_of("/* // not a line comment */z");
	lex_skip(&lx);
	assert_string_equal(rest(&lx), "z");
	lx = lx_of("// /* not a block comment\nw");
	lex_skip(&lx);
	assert_string_equal(rest(&lx), "w");
	assert_null(lx.open_comment);
}

static void skip_open_comment(void **st)
{
	(void)st;
	const char *text = "a /* never\nclosed";
	Lexer lx = lx_of(text);
	lx.p++;
	lex_skip(&lx);
	assert_true(lex_eof(&lx));
	assert_ptr_equal(lx.open_comment, text + 2);
	assert_int_equal(lex_peek(&lx), -1);
}

static void skip_stops_at_lone_slash(void **st)
{
	(void)st;
	Lexer lx = lx_of("  / x");
	assert_int_equal(lex_peek(&lx), '/');
	assert_true(lex_accept(&lx, '/'));
	assert_false(lex_accept(&lx, '/'));
	assert_int_equal(lex_peek(&lx), 'x');
	/* "/" as the last character is not the start of a comment */
	lx = lx_of(" /");
	assert_int_equal(lex_peek(&lx), '/');
}

/* --- names and identifiers ---------------------------------------------- */

static void name_with_and_without_percent(void **st)
{
	(void)st;
	const char *s;
	int n;
	Lexer lx = lx_of("  %add.1 = x");
	assert_true(lex_name(&lx, &s, &n));
	assert_int_equal(n, 5);
	assert_memory_equal(s, "add.1", 5);
	assert_string_equal(rest(&lx), " = x");

	lx = lx_of("add.1=");
	assert_true(lex_name(&lx, &s, &n));
	assert_int_equal(n, 5);
	assert_memory_equal(s, "add.1", 5);
	assert_int_equal(lex_peek(&lx), '=');
}

static void name_with_dots_and_dashes(void **st)
{
	(void)st;
	const char *s;
	int n;
	Lexer lx = lx_of("%fused-computation.12.clone_2(");
	assert_true(lex_name(&lx, &s, &n));
	assert_int_equal(n, (int)strlen("fused-computation.12.clone_2"));
	assert_memory_equal(s, "fused-computation.12.clone_2", (size_t)n);
	assert_int_equal(lex_peek(&lx), '(');
	lx = lx_of("_x-1.y ");
	assert_true(lex_name(&lx, &s, &n));
	assert_int_equal(n, 6);
}

/* A name does not start with a digit, after '%' either (XLA refuses
 * "%1.2x"; accepted, it was saved in a signature that did not load
 * back); the cursor stays. */
static void name_leading_digit(void **st)
{
	(void)st;
	const char *s = NULL;
	int n = 0;
	Lexer lx = lx_of("%1.2x");
	assert_false(lex_name(&lx, &s, &n));
	assert_string_equal(rest(&lx), "%1.2x");
	lx = lx_of("12x");
	assert_false(lex_name(&lx, &s, &n));
	assert_string_equal(rest(&lx), "12x");
}

/* A '%' with no name after it is not a name, and the cursor does not
 * move (it used to step back one byte from wherever lex_skip had got). */
static void name_bare_percent(void **st)
{
	(void)st;
	const char *s;
	int n;
	Lexer lx = lx_of("%  )");
	assert_false(lex_name(&lx, &s, &n));
	assert_ptr_equal(lx.p, lx.start);
	assert_int_equal(lex_peek(&lx), '%');
	lx = lx_of("%\n\n)");
	assert_false(lex_name(&lx, &s, &n));
	assert_ptr_equal(lx.p, lx.start);
	assert_int_equal(lx.line, 1);
	lx = lx_of("%");
	assert_false(lex_name(&lx, &s, &n));
	assert_int_equal(lex_peek(&lx), '%');
}

/* The sigil is glued to the name, as in XLA's lexer: "% x" is not the
 * name "x". */
static void name_percent_is_glued(void **st)
{
	(void)st;
	const char *s;
	int n;
	Lexer lx = lx_of("% x");
	assert_false(lex_name(&lx, &s, &n));
	assert_ptr_equal(lx.p, lx.start);
	lx = lx_of("%/**/x");
	assert_false(lex_name(&lx, &s, &n));
}

static void ident_rules(void **st)
{
	(void)st;
	const char *s;
	int n;
	Lexer lx = lx_of("  f32[2]");
	assert_int_equal(lex_peek_ident(&lx, false), 3);
	assert_true(lex_ident(&lx, &s, &n));
	assert_memory_equal(s, "f32", 3);
	assert_int_equal(lex_peek(&lx), '[');
	lx = lx_of("9abc");
	assert_int_equal(lex_peek_ident(&lx, false), 0);
	assert_int_equal(lex_peek_ident(&lx, true), 4);
	assert_false(lex_ident(&lx, &s, &n));
	lx = lx_of("%x");
	assert_false(lex_ident(&lx, &s, &n));
	assert_true(lex_is_ident_char('.'));
	assert_true(lex_is_ident_char('-'));
	assert_true(lex_is_ident_char('_'));
	assert_false(lex_is_ident_char('%'));
	assert_false(lex_is_ident_char('='));
	assert_false(lex_is_ident_char(':'));
}

static void accept_str_exact(void **st)
{
	(void)st;
	Lexer lx = lx_of("->f32");
	assert_false(lex_accept_str(&lx, "->>"));
	assert_true(lex_accept_str(&lx, "->"));
	assert_string_equal(rest(&lx), "f32");
	lx = lx_of(" ->");
	assert_false(lex_accept_str(&lx, "->")); /* no skip before */
	lx = lx_of("ab");
	assert_false(lex_accept_str(&lx, "abc")); /* runs past the end */
}

/* --- integers -------------------------------------------------------------- */

static void int_decimal_and_negative(void **st)
{
	(void)st;
	int64_t v = 0;
	Lexer lx = lx_of("  42, -7]");
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, 42);
	assert_true(lex_accept(&lx, ','));
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, -7);
	assert_int_equal(lex_peek(&lx), ']');
	lx = lx_of("+3");
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, 3);
	lx = lx_of("0");
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, 0);
}

static void int_limits_and_overflow(void **st)
{
	(void)st;
	int64_t v = 5;
	Lexer lx = lx_of("9223372036854775807");
	assert_true(lex_int(&lx, &v));
	assert_true(v == INT64_MAX);
	lx = lx_of("-9223372036854775808");
	assert_true(lex_int(&lx, &v));
	assert_true(v == INT64_MIN);
	v = 5;
	lx = lx_of("9223372036854775808");
	assert_false(lex_int(&lx, &v));
	assert_int_equal(v, 5);
	assert_string_equal(rest(&lx),
			    "9223372036854775808"); /* not consumed */
	lx = lx_of("-9223372036854775809");
	assert_false(lex_int(&lx, &v));
	lx = lx_of("99999999999999999999999999999999999999999999999999");
	assert_false(lex_int(&lx, &v));
}

static void int_hex(void **st)
{
	(void)st;
	int64_t v = 0;
	Lexer lx = lx_of("0x1F)");
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, 31);
	assert_int_equal(lex_peek(&lx), ')');
	lx = lx_of("0x7fffffffffffffff");
	assert_true(lex_int(&lx, &v));
	assert_true(v == INT64_MAX);
	lx = lx_of("0x8000000000000000");
	assert_false(lex_int(&lx, &v));
	lx = lx_of("0xg");
	assert_false(lex_int(&lx, &v));
}

/* XLA reads integers as decimal (-?\d+): a leading zero is not octal. */
static void int_leading_zero_is_decimal(void **st)
{
	(void)st;
	int64_t v = 0;
	Lexer lx = lx_of("010");
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, 10);
	lx = lx_of("08");
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, 8);
}

static void int_rejects_junk(void **st)
{
	(void)st;
	int64_t v = 77;
	const char *bad[] = {"", "-", "+", "x1", "12abc", "- 1", "--1", "1e5"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		Lexer lx = lx_of(bad[i]);
		if (lex_int(&lx, &v))
			fail_msg("lex_int accepted '%s'", bad[i]);
		assert_ptr_equal(lx.p, lx.start + strspn(bad[i], " "));
	}
	assert_int_equal(v, 77);
	/* stops before a separator that is not alphanumeric */
	Lexer lx = lx_of("3_4");
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, 3);
	assert_string_equal(rest(&lx), "_4");
	lx = lx_of("1.5");
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, 1);
	assert_string_equal(rest(&lx), ".5");
}

/* --- strings ---------------------------------------------------------------- */

static void string_plain_and_escapes(void **st)
{
	(void)st;
	const char *s;
	int n;
	Lexer lx = lx_of(" \"abc\" x");
	assert_true(lex_string(&lx, &s, &n));
	assert_int_equal(n, 3);
	assert_memory_equal(s, "abc", 3);
	assert_string_equal(rest(&lx), " x");

	const char *esc = "\"a\\\"b\\\\\\n{,}\"!";
	lx = lx_of(esc);
	assert_true(lex_string(&lx, &s, &n));
	/* the body is kept with its escapes */
	assert_string_equal(span(s, s + n), "a\\\"b\\\\\\n{,}");
	assert_int_equal(lex_peek(&lx), '!');

	lx = lx_of("\"\"");
	assert_true(lex_string(&lx, &s, &n));
	assert_int_equal(n, 0);
}

static void string_unterminated(void **st)
{
	(void)st;
	const char *s;
	int n;
	const char *bad[] = {"\"abc", "\"abc\\\"", "\"line\nbreak\"", "abc",
			     "\"\\"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		Lexer lx = lx_of(bad[i]);
		if (lex_string(&lx, &s, &n))
			fail_msg("lex_string accepted '%s'", bad[i]);
		assert_ptr_equal(lx.p, lx.start);
	}
}

/* --- balanced values ------------------------------------------------------- */

/* The value starting at text (after skipping nothing), as a string; NULL
 * when lex_scan_value says a bracket is left open. */
static const char *scan(const char *text)
{
	Lexer lx = lx_of(text);
	const char *e = lex_scan_value(&lx);
	return e ? span(lx.p, e) : NULL;
}

static void scan_nested_braces(void **st)
{
	(void)st;
	assert_string_equal(scan("{a,{b}}, next=1"), "{a,{b}}");
	assert_string_equal(scan("{a, {b, c}} x"), "{a, {b, c}}");
	assert_string_equal(scan("kLoop, calls=f"), "kLoop");
	assert_string_equal(scan("3x3 stride=2"), "3x3");
	assert_string_equal(scan("b01f_01io->b01f}"), "b01f_01io->b01f");
	assert_string_equal(scan(""), "");
	assert_string_equal(scan(",x"), "");
}

static void scan_iota_replica_groups(void **st)
{
	(void)st;
	assert_string_equal(scan("[2,64]<=[128], channel_id=1"),
			    "[2,64]<=[128]");
	assert_string_equal(scan("[4,2]<=[2,4]T(1,0)\n"), "[4,2]<=[2,4]T(1,0)");
	assert_string_equal(scan("{{0,1},{2,3}})"), "{{0,1},{2,3}}");
}

static void scan_strings_with_brackets(void **st)
{
	(void)st;
	assert_string_equal(scan("{op_name=\"a,b}{[(\" source_line=3}, x"),
			    "{op_name=\"a,b}{[(\" source_line=3}");
	assert_string_equal(scan("\"x, }\",y"), "\"x, }\"");
	assert_string_equal(scan("{s=\"q\\\"}\"}|"), "{s=\"q\\\"}\"}|");
	assert_null(scan("{s=\"open}"));
	assert_null(scan("\"open"));
}

static void scan_mismatched_and_open(void **st)
{
	(void)st;
	/* an unmatched closer stops the value: the caller reports it */
	assert_string_equal(scan("{a]b}"), "{a");
	assert_string_equal(scan("(a}"), "(a");
	assert_string_equal(scan("a)b"), "a");
	/* open at end of input */
	assert_null(scan("{a, {b}"));
	assert_null(scan("[1,2"));
	assert_string_equal(scan("({)"), "({");
}

static void scan_comments(void **st)
{
	(void)st;
	/* at depth 0 a comment ends the value; inside brackets it is skipped */
	assert_string_equal(scan("abc/* c */"), "abc");
	assert_string_equal(scan("{a /* } */ b}, x"), "{a /* } */ b}");
	assert_string_equal(scan("{a // }\n b} y"), "{a // }\n b}");
	assert_null(scan("{a /* never closed"));
}

static void scan_deep(void **st)
{
	(void)st;
	enum { N = 200 };
	char text[2 * N + 1];
	memset(text, '{', N);
	memset(text + N, '}', N);
	text[2 * N] = 0;
	Lexer lx = lx_of(text);
	assert_ptr_equal(lex_scan_value(&lx), text + 2 * N);
	/* much deeper than any real value: refused, not overflowed */
	size_t big = 100000;
	char *deep = malloc(2 * big + 1);
	assert_non_null(deep);
	memset(deep, '[', big);
	memset(deep + big, ']', big);
	deep[2 * big] = 0;
	lx = lx_of(deep);
	assert_null(lex_scan_value(&lx));
	free(deep);
}

/* --- positions ----------------------------------------------------------- */

static void line_col_tracking(void **st)
{
	(void)st;
	const char *text = "ab\n  cd\n\n   /* x\n y */ ef";
	Lexer lx = lx_of(text);
	SrcLoc l = lex_loc(&lx);
	assert_int_equal(l.line, 1);
	assert_int_equal(l.col, 1);
	const char *s;
	int n;
	assert_true(lex_ident(&lx, &s, &n));
	assert_int_equal(lex_loc(&lx).col, 3);
	assert_true(lex_ident(&lx, &s, &n));
	assert_memory_equal(s, "cd", 2);
	l = lex_loc(&lx);
	assert_int_equal(l.line, 2);
	assert_int_equal(l.col, 5);
	assert_true(lex_ident(&lx, &s, &n));
	assert_memory_equal(s, "ef", 2);
	l = lex_loc_at(&lx, s);
	assert_int_equal(l.line, 5);
	assert_int_equal(l.col, 7);
	assert_true(lex_eof(&lx));
	/* positions looked up after the cursor, and before its line */
	lx = lx_of(text);
	l = lex_loc_at(&lx, text + 5);
	assert_int_equal(l.line, 2);
	assert_int_equal(l.col, 3);
	lex_skip(&lx);
	assert_true(lex_ident(&lx, &s, &n));
	assert_true(lex_ident(&lx, &s, &n));
	l = lex_loc_at(&lx, text + 1);
	assert_int_equal(l.line, 1);
	assert_int_equal(l.col, 2);
}

static void advance_counts_newlines(void **st)
{
	(void)st;
	Lexer lx = lx_of("a\nb\r\nc");
	for (int i = 0; i < 5; i++)
		lex_advance(&lx);
	assert_int_equal(lx.line, 3);
	assert_int_equal(lex_loc(&lx).col, 1);
	assert_int_equal(*lx.p, 'c');
	lex_advance(&lx);
	lex_advance(&lx); /* at the end: no-op */
	assert_ptr_equal(lx.p, lx.end);
	assert_int_equal(lx.line, 3);
}

/* The cursor never reads past len, even without a NUL terminator. */
static void respects_length(void **st)
{
	(void)st;
	char *buf = malloc(6);
	assert_non_null(buf);
	memcpy(buf, "12 abc", 6); /* no NUL */
	Lexer lx;
	lex_init(&lx, buf, 6);
	int64_t v;
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, 12);
	const char *s;
	int n;
	assert_true(lex_ident(&lx, &s, &n));
	assert_int_equal(n, 3);
	assert_true(lex_eof(&lx));
	lex_init(&lx, buf, 2); /* "12" */
	assert_true(lex_int(&lx, &v));
	assert_int_equal(v, 12);
	lex_init(&lx, buf + 3, 2); /* "ab" */
	assert_true(lex_ident(&lx, &s, &n));
	assert_int_equal(n, 2);
	lex_init(&lx, buf + 3, 2);
	assert_string_equal(span(lx.p, lex_scan_value(&lx)), "ab");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(skip_spaces_and_line_comments),
		cmocka_unit_test(skip_block_comments),
		cmocka_unit_test(skip_nested_looking_comment),
		cmocka_unit_test(skip_open_comment),
		cmocka_unit_test(skip_stops_at_lone_slash),
		cmocka_unit_test(name_with_and_without_percent),
		cmocka_unit_test(name_with_dots_and_dashes),
		cmocka_unit_test(name_leading_digit),
		cmocka_unit_test(name_bare_percent),
		cmocka_unit_test(name_percent_is_glued),
		cmocka_unit_test(ident_rules),
		cmocka_unit_test(accept_str_exact),
		cmocka_unit_test(int_decimal_and_negative),
		cmocka_unit_test(int_limits_and_overflow),
		cmocka_unit_test(int_hex),
		cmocka_unit_test(int_leading_zero_is_decimal),
		cmocka_unit_test(int_rejects_junk),
		cmocka_unit_test(string_plain_and_escapes),
		cmocka_unit_test(string_unterminated),
		cmocka_unit_test(scan_nested_braces),
		cmocka_unit_test(scan_iota_replica_groups),
		cmocka_unit_test(scan_strings_with_brackets),
		cmocka_unit_test(scan_mismatched_and_open),
		cmocka_unit_test(scan_comments),
		cmocka_unit_test(scan_deep),
		cmocka_unit_test(line_col_tracking),
		cmocka_unit_test(advance_counts_newlines),
		cmocka_unit_test(respects_length),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
