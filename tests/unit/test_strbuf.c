/* test_strbuf.c - the growable string of core/strbuf.c, with the
 * caller's storage first (sb_init_on) and the text shown when memory ran
 * out (sb_text). */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* Text that fits stays in the caller's buffer. */
static void on_buffer_fits(void **state)
{
	(void)state;
	char buf[16];
	StrBuf b;
	sb_init_on(&b, buf, sizeof buf);
	assert_string_equal(sb_str(&b), "");
	sb_puts(&b, "f32[2,3]");
	sb_putint(&b, -42);
	assert_ptr_equal(b.s, buf);
	assert_string_equal(sb_str(&b), "f32[2,3]-42");
	assert_int_equal(b.len, 11);
	sb_clear(&b);
	sb_puts(&b, "x");
	assert_string_equal(buf, "x");
	sb_free(&b); /* frees nothing of buf's */
	assert_null(b.s);
}

/* Longer text moves to the heap with what was there, and grows on. */
static void on_buffer_moves(void **state)
{
	(void)state;
	char buf[8];
	StrBuf b;
	sb_init_on(&b, buf, sizeof buf);
	sb_puts(&b, "abcdef");
	sb_puts(&b, "ghijkl");
	assert_ptr_not_equal(b.s, buf);
	assert_string_equal(sb_str(&b), "abcdefghijkl");
	for (int i = 0; i < 1000; i++)
		sb_putc(&b, (char)('a' + i % 26));
	assert_int_equal(b.len, 1012);
	assert_int_equal(b.s[12], 'a');
	assert_int_equal(b.s[1011], (char)('a' + 999 % 26));
	assert_false(b.oom);
	sb_free(&b);
}

/* sb_take of text still in the caller's buffer gives a copy to free. */
static void take_from_buffer(void **state)
{
	(void)state;
	char buf[32];
	StrBuf b;
	sb_init_on(&b, buf, sizeof buf);
	sb_printf(&b, "%s=%d", "n", 7);
	char *s = sb_take(&b);
	assert_non_null(s);
	assert_ptr_not_equal(s, buf);
	assert_string_equal(s, "n=7");
	assert_null(b.s);
	free(s);
}

/* sb_text says so when the text was cut short, else is sb_str. */
static void text_when_cut(void **state)
{
	(void)state;
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "f32[]");
	assert_string_equal(sb_text(&b), "f32[]");
	b.oom = 1; /* as reserve leaves it when realloc fails */
	sb_puts(&b, " more");
	assert_string_equal(sb_str(&b), "f32[]");
	assert_string_equal(sb_text(&b), "(out of memory)");
	sb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(on_buffer_fits),
		cmocka_unit_test(on_buffer_moves),
		cmocka_unit_test(take_from_buffer),
		cmocka_unit_test(text_when_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
