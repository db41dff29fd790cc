/* test_textdiff.c - the unified diff of core/textdiff.c.
 *
 * Exact output on the cases where diff -u has one answer (each expected
 * text below is what GNU `diff -U N --label a --label b` prints), and on
 * random texts: the diff applied to a gives b, and its size is a shortest
 * edit script's (n + m - 2 * LCS, the LCS by dynamic programming). */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textdiff.h"

/* Diffs a and b (as "a" and "b") with context ctx; returns the text. */
static char *udiff(const char *a, const char *b, int ctx, int *changed)
{
	StrBuf o;
	sb_init(&o);
	int n = textdiff_unified(&o, "a", a, strlen(a), "b", b, strlen(b), ctx);
	if (changed)
		*changed = n;
	assert_false(o.oom);
	char *s = strdup(sb_str(&o));
	sb_free(&o);
	return s;
}

static void check(const char *a, const char *b, int ctx, const char *want,
		  int want_changed)
{
	int n;
	char *got = udiff(a, b, ctx, &n);
	assert_string_equal(got, want);
	assert_int_equal(n, want_changed);
	free(got);
}

static void equal_texts_print_nothing(void **state)
{
	(void)state;
	check("", "", 3, "", 0);
	check("a\nb\n", "a\nb\n", 3, "", 0);
	check("a\nb", "a\nb", 3, "", 0);
}

static void empty_old_text(void **state)
{
	(void)state;
	check("", "x\ny\n", 3, "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n", 2);
}

static void empty_new_text(void **state)
{
	(void)state;
	check("x\ny\n", "", 3, "--- a\n+++ b\n@@ -1,2 +0,0 @@\n-x\n-y\n", 2);
}

static void missing_newline_old(void **state)
{
	(void)state;
	check("a\nb", "a\nb\n", 3,
	      "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n"
	      "\\ No newline at end of file\n+b\n",
	      2);
}

static void missing_newline_new(void **state)
{
	(void)state;
	check("a\nb\n", "a\nc", 3,
	      "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
	      "\\ No newline at end of file\n",
	      2);
}

static void all_lines_different(void **state)
{
	(void)state;
	check("a\nb\nc\n", "x\ny\n", 3,
	      "--- a\n+++ b\n@@ -1,3 +1,2 @@\n-a\n-b\n-c\n+x\n+y\n", 5);
}

static void insertion_at_start(void **state)
{
	(void)state;
	check("1\n2\n3\n4\n5\n", "0\n1\n2\n3\n4\n5\n", 3,
	      "--- a\n+++ b\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n", 1);
}

static void insertion_at_end(void **state)
{
	(void)state;
	check("1\n2\n3\n4\n5\n", "1\n2\n3\n4\n5\n6\n", 3,
	      "--- a\n+++ b\n@@ -3,3 +3,4 @@\n 3\n 4\n 5\n+6\n", 1);
}

static const char twenty[] = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n"
			     "14\n15\n16\n17\n18\n19\n20\n";

static void far_changes_make_two_hunks(void **state)
{
	(void)state;
	check(twenty,
	      "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n"
	      "Y\n19\n20\n",
	      3,
	      "--- a\n+++ b\n"
	      "@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+X\n 4\n 5\n 6\n"
	      "@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+Y\n 19\n 20\n",
	      4);
}

/* Six unchanged lines between two changes: one hunk at context 3. */
static void near_changes_merge(void **state)
{
	(void)state;
	check("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
	      "1\nX\n3\n4\n5\n6\n7\n8\nY\n10\n", 3,
	      "--- a\n+++ b\n@@ -1,10 +1,10 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n"
	      " 7\n 8\n-9\n+Y\n 10\n",
	      4);
}

static void repeated_lines(void **state)
{
	(void)state;
	check("a\na\na\nb\n", "a\na\nb\n", 3,
	      "--- a\n+++ b\n@@ -1,4 +1,3 @@\n a\n a\n-a\n b\n", 1);
}

static void zero_context_ranges(void **state)
{
	(void)state;
	check("a\n", "b\n", 0, "--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n", 2);
	check("1\n2\n3\n", "1\n3\n", 0, "--- a\n+++ b\n@@ -2 +1,0 @@\n-2\n", 1);
}

/* --- random texts --- */

typedef struct Text {
	char *s;
	char **line; /* line starts, each ending at '\n' or the end */
	int n;
} Text;

static unsigned rnd(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0x7fff;
}

/* n lines from an alphabet of k letters (repeats are likely), the last
 * one sometimes without its newline. */
static char *random_text(unsigned *seed, int n, int k)
{
	char *s = malloc((size_t)n * 2 + 1), *o = s;
	for (int i = 0; i < n; i++) {
		*o++ = (char)('a' + rnd(seed) % (unsigned)k);
		*o++ = '\n';
	}
	if (n && rnd(seed) % 5 == 0)
		o--;
	*o = 0;
	return s;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (const char *p = s; *p; p++)
		n += *p == '\n';
	return n + (*s && s[strlen(s) - 1] != '\n');
}

/* Line i of s with its newline, as a comparable string. */
static char **split(const char *s, int *n)
{
	*n = count_lines(s);
	char **v = calloc((size_t)*n + 1, sizeof *v);
	for (int i = 0; i < *n; i++) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) + 1 : strlen(s);
		v[i] = strndup(s, len);
		s += len;
	}
	return v;
}

static void free_lines(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int lcs(char **a, int n, char **b, int m)
{
	int *dp = calloc((size_t)(n + 1) * (size_t)(m + 1), sizeof *dp);
	for (int i = n - 1; i >= 0; i--)
		for (int j = m - 1; j >= 0; j--) {
			int *c = &dp[i * (m + 1) + j];
			if (strcmp(a[i], b[j]) == 0)
				*c = 1 + dp[(i + 1) * (m + 1) + j + 1];
			else {
				int x = dp[(i + 1) * (m + 1) + j];
				int y = dp[i * (m + 1) + j + 1];
				*c = x > y ? x : y;
			}
		}
	int r = dp[0];
	free(dp);
	return r;
}

/* Applies the unified diff d to a; the result in a StrBuf. Checks every
 * context and removed line against a on the way. */
static void apply(const char *a, const char *d, StrBuf *out)
{
	int na;
	char **al = split(a, &na);
	int dn;
	char **dl = split(d, &dn);
	int pos = 0, i = 2; /* past the two header lines */
	assert_true(dn == 0 || strncmp(dl[0], "--- ", 4) == 0);
	while (i < dn) {
		int as, ac = 1;
		char *h = dl[i++];
		assert_true(strncmp(h, "@@ -", 4) == 0);
		if (sscanf(h, "@@ -%d,%d", &as, &ac) < 1)
			fail();
		int start = ac ? as - 1 : as;
		for (; pos < start; pos++)
			sb_puts(out, al[pos]);
		while (i < dn && dl[i][0] != '@') {
			const char *l = dl[i++];
			bool nonl = i < dn && dl[i][0] == '\\';
			size_t len = strlen(l + 1) - (nonl ? 1 : 0);
			if (nonl)
				i++;
			if (l[0] == '+') {
				sb_putn(out, l + 1, len);
				continue;
			}
			assert_true(pos < na);
			assert_int_equal(strlen(al[pos]), len);
			assert_memory_equal(al[pos], l + 1, len);
			if (l[0] == ' ')
				sb_puts(out, al[pos]);
			else
				assert_int_equal(l[0], '-');
			pos++;
		}
	}
	for (; pos < na; pos++)
		sb_puts(out, al[pos]);
	free_lines(al, na);
	free_lines(dl, dn);
}

static void random_texts_apply_and_are_minimal(void **state)
{
	(void)state;
	unsigned seed = 12345;
	for (int t = 0; t < 2000; t++) {
		int k = (int)(2 + rnd(&seed) % 6);
		char *a = random_text(&seed, (int)(rnd(&seed) % 40), k);
		char *b = random_text(&seed, (int)(rnd(&seed) % 40), k);
		int ctx = (int)(rnd(&seed) % 4), changed;
		char *d = udiff(a, b, ctx, &changed);
		StrBuf got;
		sb_init(&got);
		apply(a, d, &got);
		assert_string_equal(sb_str(&got), b);
		int na, nb;
		char **al = split(a, &na), **bl = split(b, &nb);
		assert_int_equal(changed, na + nb - 2 * lcs(al, na, bl, nb));
		assert_true((changed == 0) == (*d == 0));
		free_lines(al, na);
		free_lines(bl, nb);
		sb_free(&got);
		free(a);
		free(b);
		free(d);
	}
}

/* Two long texts that differ in a few places: Myers' O((N+M)D) keeps this
 * instant, where an O(NM) table would need 10^10 cells. */
static void long_texts_few_changes(void **state)
{
	(void)state;
	enum { N = 100000 };
	StrBuf a, b;
	sb_init(&a);
	sb_init(&b);
	for (int i = 0; i < N; i++) {
		sb_printf(&a, "line %d\n", i);
		if (i % 25000 == 7)
			sb_printf(&b, "changed %d\n", i);
		else
			sb_printf(&b, "line %d\n", i);
	}
	StrBuf o;
	sb_init(&o);
	int n = textdiff_unified(&o, "a", sb_str(&a), a.len, "b", sb_str(&b),
				 b.len, 3);
	assert_int_equal(n, 8);
	assert_non_null(strstr(sb_str(&o), "@@ -75005,7 +75005,7 @@\n"));
	sb_free(&a);
	sb_free(&b);
	sb_free(&o);
}

/* Two long texts with every line in both but in another order: the
 * shortest script is a search of N^2 steps; past its cost limit the
 * search settles for a split that is not shortest, and the diff still
 * turns a into b. Also lines that only one side has (discarded before the
 * search) mixed in. */
static void long_texts_reordered(void **state)
{
	(void)state;
	enum { N = 20000 };
	StrBuf a, b;
	sb_init(&a);
	sb_init(&b);
	for (int i = 0; i < N; i++) {
		sb_printf(&a, "line %d\n", i);
		sb_printf(&b, "line %d\n", (int)((i * 7919L) % N));
		if (i % 3 == 0)
			sb_printf(&b, "only b %d\n", i);
		if (i % 5 == 0)
			sb_printf(&a, "only a %d\n", i);
	}
	StrBuf o, got;
	sb_init(&o);
	sb_init(&got);
	int n = textdiff_unified(&o, "a", sb_str(&a), a.len, "b", sb_str(&b),
				 b.len, 2);
	apply(sb_str(&a), sb_str(&o), &got);
	assert_string_equal(sb_str(&got), sb_str(&b));
	/* the lines only one side has are all changed, and some of the
	 * common ones are kept */
	int only = N / 3 + (N % 3 != 0) + N / 5 + (N % 5 != 0);
	assert_true(n > only);
	assert_true(n < only + 2 * N);
	sb_free(&a);
	sb_free(&b);
	sb_free(&o);
	sb_free(&got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_texts_print_nothing),
		cmocka_unit_test(empty_old_text),
		cmocka_unit_test(empty_new_text),
		cmocka_unit_test(missing_newline_old),
		cmocka_unit_test(missing_newline_new),
		cmocka_unit_test(all_lines_different),
		cmocka_unit_test(insertion_at_start),
		cmocka_unit_test(insertion_at_end),
		cmocka_unit_test(far_changes_make_two_hunks),
		cmocka_unit_test(near_changes_merge),
		cmocka_unit_test(repeated_lines),
		cmocka_unit_test(zero_context_ranges),
		cmocka_unit_test(random_texts_apply_and_are_minimal),
		cmocka_unit_test(long_texts_few_changes),
		cmocka_unit_test(long_texts_reordered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
