/* test_arena.c - the bump allocator: zeroed, aligned, distinct memory
 * from the inline path and from new chunks; absurd sizes refused; an
 * adopted arena's chunks stay with their new owner. */
#include "testutil.h"

#include <stdint.h>
#include <string.h>

#include "arena.h"

static void test_alloc_zeroed_aligned_distinct(void **state)
{
	(void)state;
	Arena a;
	arena_init(&a);
	unsigned char *prev = NULL;
	size_t total = 0;
	for (size_t n = 0; n < 3000; n++) {
		unsigned char *p = arena_alloc(&a, n % 97);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (size_t i = 0; i < n % 97; i++)
			assert_int_equal(p[i], 0);
		memset(p, 0xab, n % 97); /* must not reach the next one */
		if (prev)
			assert_true(p != prev);
		prev = p;
		total += n % 97 ? (n % 97 + 15) / 16 * 16 : 16;
	}
	assert_int_equal(a.used_total, total);
	arena_free(&a);
	assert_int_equal(a.used_total, 0);
	/* usable again after a free */
	unsigned char *p = arena_alloc(&a, 40);
	assert_non_null(p);
	assert_int_equal(p[39], 0);
	arena_free(&a);
}

/* Writes a pattern over n bytes at p, and checks it is still there. */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 7);
}

static void check(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(p[i], (unsigned char)(seed + i * 7));
}

static void test_big_and_absurd(void **state)
{
	(void)state;
	Arena a;
	arena_init(&a);
	unsigned char *small = arena_alloc(&a, 100);
	fill(small, 100, 1);
	/* bigger than a chunk: a chunk of its own, then small ones go on */
	size_t big = (size_t)3 << 20;
	unsigned char *b = arena_alloc(&a, big);
	assert_non_null(b);
	assert_int_equal(b[big - 1], 0);
	fill(b, big, 2);
	unsigned char *after = arena_alloc(&a, 64);
	assert_non_null(after);
	assert_true(after >= b + big || after + 64 <= b);
	fill(after, 64, 3);
	assert_null(arena_alloc(&a, (size_t)1 << 41));
	assert_null(arena_raw(&a, SIZE_MAX - 3));
	unsigned char *still = arena_alloc(&a, 32);
	assert_non_null(still);
	check(small, 100, 1);
	check(b, big, 2);
	check(after, 64, 3);
	arena_free(&a);
}

/* A block bigger than a chunk gets a chunk of a standard size, which
 * freeing the arena keeps for the next one: the same memory again, not
 * fresh pages from the system (whose faults cost a pipeline about 5 ms
 * when a clone put each computation's instructions in one block).
 * Sanitizer builds keep no chunks. */
static void test_big_block_reused(void **state)
{
	(void)state;
#if XR_ASAN
	skip();
#else
	size_t big = (size_t)3 << 19; /* 1.5 MiB: not a standard size */
	Arena a, b;
	arena_init(&a);
	unsigned char *p = arena_raw(&a, big);
	assert_non_null(p);
	/* in a chunk of the next standard size (2 MiB), whose rest takes
	 * what comes next */
	assert_int_equal((size_t)((unsigned char *)a.end - p), (size_t)2 << 20);
	fill(p, big, 9);
	arena_free(&a);
	arena_init(&b);
	unsigned char *q = arena_raw(&b, big); /* not cleared: the bytes
						  show where it came from */
	assert_ptr_equal(p, q);
	check(q, big, 9); /* fresh pages from the system would be zero */
	arena_free(&b);
#endif
}

static void test_dup_and_strings(void **state)
{
	(void)state;
	Arena a;
	arena_init(&a);
	const char src[] = "fused_computation.17";
	char *d = arena_dup(&a, src, sizeof src);
	assert_string_equal(d, src);
	assert_true(d != src);
	assert_string_equal(arena_strdup(&a, "param_3"), "param_3");
	assert_string_equal(arena_strndup(&a, "exp.12345", 5), "exp.1");
	assert_string_equal(arena_printf(&a, "%s.%d", "add", 42), "add.42");
	assert_non_null(arena_dup(&a, NULL, 0));
	arena_free(&a);
}

static void test_grow(void **state)
{
	(void)state;
	Arena a;
	arena_init(&a);
	int cap = 0, *v = NULL;
	for (int n = 1; n <= 1000; n++) {
		v = arena_grow(&a, v, sizeof *v, &cap, n);
		assert_non_null(v);
		assert_true(cap >= n);
		assert_int_equal(v[n - 1], 0); /* new slots read as zero */
		v[n - 1] = n;
	}
	for (int n = 1; n <= 1000; n++)
		assert_int_equal(v[n - 1], n);
	arena_free(&a);
}

/* After arena_adopt, what src had belongs to dst: src starts afresh
 * (its next allocation may not land in a chunk dst now owns), and
 * freeing both frees each chunk once (ASan would see a double free). */
static void test_adopt(void **state)
{
	(void)state;
	Arena dst, src;
	arena_init(&dst);
	arena_init(&src);
	unsigned char *d1 = arena_alloc(&dst, 200);
	fill(d1, 200, 4);
	unsigned char *s1 = arena_alloc(&src, 300);
	fill(s1, 300, 5);
	size_t both = dst.used_total + src.used_total;
	arena_adopt(&dst, &src);
	assert_int_equal(dst.used_total, both);
	assert_int_equal(src.used_total, 0);
	assert_null(src.head);
	/* both go on allocating; nothing written earlier is touched */
	for (int i = 0; i < 2000; i++) {
		unsigned char *x = arena_alloc(&src, 48);
		unsigned char *y = arena_alloc(&dst, 48);
		assert_non_null(x);
		assert_non_null(y);
		assert_true(x + 48 <= s1 || x >= s1 + 300);
		assert_true(x + 48 <= d1 || x >= d1 + 200);
		memset(x, 0xee, 48);
		memset(y, 0xdd, 48);
	}
	check(d1, 200, 4);
	check(s1, 300, 5);
	/* adopting an empty arena changes nothing */
	Arena empty;
	arena_init(&empty);
	size_t before = dst.used_total;
	arena_adopt(&dst, &empty);
	assert_int_equal(dst.used_total, before);
	/* into an empty arena */
	Arena fresh;
	arena_init(&fresh);
	arena_adopt(&fresh, &src);
	unsigned char *z = arena_alloc(&fresh, 16);
	assert_non_null(z);
	arena_free(&src);
	arena_free(&fresh);
	arena_free(&dst);
	/* src's memory after the adoption is its own: it outlives dst
	 * (under ASan a write into a chunk dst freed is caught) */
	arena_init(&dst);
	arena_init(&src);
	fill(arena_alloc(&src, 100), 100, 6);
	arena_adopt(&dst, &src);
	unsigned char *mine = arena_alloc(&src, 100);
	arena_free(&dst);
	fill(mine, 100, 7);
	check(mine, 100, 7);
	arena_free(&src);
}

/* arena_hold: what src has handed out stays readable until both are
 * freed, in either order (under ASan a read of a freed chunk is caught);
 * an arena that holds another is not held itself; what dst held goes
 * with its chunks to the arena that adopts them. */
static void test_hold(void **state)
{
	(void)state;
	for (int order = 0; order < 2; order++) {
		Arena src, dst;
		arena_init(&src);
		arena_init(&dst);
		unsigned char *s1 = arena_alloc(&src, 300);
		fill(s1, 300, 8);
		unsigned char *big = arena_alloc(&src, 200000); /* a chunk more */
		fill(big, 200000, 9);
		assert_true(arena_hold(&dst, &src));
		assert_true(arena_holds(&dst));
		assert_false(arena_holds(&src));
		/* src goes on allocating, apart from what it handed out */
		unsigned char *s2 = arena_alloc(&src, 64);
		assert_true(s2 + 64 <= s1 || s2 >= s1 + 300);
		fill(s2, 64, 10);
		Arena third;
		arena_init(&third);
		assert_false(arena_hold(&third, &dst)); /* no chains */
		assert_false(arena_holds(&third));
		arena_free(&third);
		if (order == 0) {
			arena_free(&src);
			check(s1, 300, 8);
			check(big, 200000, 9);
			check(s2, 64, 10); /* in a held chunk too */
			arena_free(&dst);
		} else {
			arena_free(&dst);
			check(s1, 300, 8);
			arena_free(&src);
		}
	}
	/* held chunks move with an adoption */
	Arena src, dst, into;
	arena_init(&src);
	arena_init(&dst);
	arena_init(&into);
	unsigned char *s1 = arena_alloc(&src, 100);
	fill(s1, 100, 11);
	assert_true(arena_hold(&dst, &src));
	arena_alloc(&dst, 10);
	arena_adopt(&into, &dst);
	assert_false(arena_holds(&dst));
	assert_true(arena_holds(&into));
	arena_free(&dst);
	arena_free(&src);
	check(s1, 100, 11);
	arena_free(&into);
	/* an empty src: nothing to hold */
	arena_init(&src);
	arena_init(&dst);
	assert_true(arena_hold(&dst, &src));
	assert_false(arena_holds(&dst));
	arena_free(&dst);
	arena_free(&src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_zeroed_aligned_distinct),
		cmocka_unit_test(test_big_and_absurd),
		cmocka_unit_test(test_big_block_reused),
		cmocka_unit_test(test_dup_and_strings),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_adopt),
		cmocka_unit_test(test_hold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
