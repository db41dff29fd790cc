/* test_namemap.c - the string map: insertions, replacements and removals
 * (tombstones reused, tables grown) checked against a plain array, with
 * keys that are prefixes of one another and of every length the hash
 * reads in its own way; tables from an arena and from malloc; copies. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "namemap.h"

enum { NKEYS = 600 };

/* Keys of 0 to 40 bytes, many a prefix of another ("a", "a.", "a.1",
 * "a.12", ...) and many alike but for their last bytes. */
static char *make_key(int i)
{
	char buf[64];
	switch (i % 4) {
	case 0:
		snprintf(buf, sizeof buf, "add.%d", i);
		break;
	case 1: /* i % 41 differs for each of these i below 164 */
		if (i < 164)
			snprintf(buf, sizeof buf, "%.*s", i % 41,
				 "fused_computation.parameter.abcdefghijkl");
		else
			snprintf(buf, sizeof buf, "fused_computation.%d", i);
		break;
	case 2:
		snprintf(buf, sizeof buf, "get-tuple-element.%d.%d", i, i % 7);
		break;
	default:
		snprintf(buf, sizeof buf, "%c%d", 'a' + i % 26, i / 26);
		break;
	}
	return strdup(buf);
}

/* Runs add/put/del/get at random over the keys and checks every key
 * against want[] after each step. */
static void churn(NameMap *m, char **keys, int nkeys)
{
	void *want[NKEYS] = {0};
	unsigned r = 12345;
	for (int step = 0; step < 6000; step++) {
		r = r * 1103515245u + 12345u;
		int k = (int)(r >> 8) % nkeys;
		void *v = (void *)(size_t)(step + 1);
		switch ((r >> 4) % 4) {
		case 0: {
			int added = namemap_add(m, keys[k], v);
			assert_int_equal(added, want[k] ? 0 : 1);
			if (!want[k])
				want[k] = v;
			break;
		}
		case 1:
			assert_true(namemap_put(m, keys[k], v));
			want[k] = v;
			break;
		default:
			assert_int_equal(namemap_del(m, keys[k]), want[k] != NULL);
			want[k] = NULL;
			break;
		}
		if (step % 97 == 0 || step > 5900) {
			size_t count = 0;
			for (int i = 0; i < nkeys; i++) {
				/* a copy of the key: compared by its text */
				char *dup = strdup(keys[i]);
				assert_ptr_equal(namemap_get(m, dup), want[i]);
				assert_ptr_equal(namemap_getn(m, dup, strlen(dup)),
						 want[i]);
				free(dup);
				count += want[i] != NULL;
			}
			assert_int_equal(m->count, count);
		}
	}
	/* a key's prefix is not the key */
	assert_true(namemap_put(m, "zz_prefix_test", (void *)1));
	assert_null(namemap_getn(m, "zz_prefix_test", 9));
	assert_null(namemap_get(m, "zz_prefix_tes"));
	assert_null(namemap_get(m, "zz_prefix_test_"));
	assert_ptr_equal(namemap_getn(m, "zz_prefix_testing", 14), (void *)1);
}

static void malloc_map_matches_array(void **state)
{
	(void)state;
	char *keys[NKEYS];
	for (int i = 0; i < NKEYS; i++)
		keys[i] = make_key(i);
	NameMap m;
	namemap_init(&m);
	churn(&m, keys, NKEYS);
	namemap_free(&m);
	assert_null(m.slots);
	for (int i = 0; i < NKEYS; i++)
		free(keys[i]);
}

/* Small tables come from the arena, large ones from malloc; freeing the
 * map frees only the latter (the sanitizer build would see a bad free or
 * a leak). */
static void arena_map_matches_array(void **state)
{
	(void)state;
	char *keys[NKEYS];
	for (int i = 0; i < NKEYS; i++)
		keys[i] = make_key(i);
	Arena a;
	arena_init(&a);
	for (int n = 1; n <= NKEYS; n *= 5) {
		NameMap m;
		namemap_init_in(&m, &a);
		churn(&m, keys, n);
		namemap_free(&m);
		assert_null(m.arena);
	}
	arena_free(&a);
	for (int i = 0; i < NKEYS; i++)
		free(keys[i]);
}

static const char *same_key(void *ctx, const char *key, void **val)
{
	(void)ctx;
	*val = (char *)*val + 1;
	return strcmp(key, "drop") ? key : NULL;
}

/* A copy keeps its destination's arena and finds what the source held. */
static void copy_keeps_dst_arena(void **state)
{
	(void)state;
	Arena a;
	arena_init(&a);
	NameMap src, dst;
	namemap_init(&src);
	namemap_init_in(&dst, &a);
	assert_int_equal(namemap_add(&dst, "old", (void *)1), 1);
	assert_int_equal(namemap_add(&src, "x", (void *)10), 1);
	assert_int_equal(namemap_add(&src, "drop", (void *)20), 1);
	assert_int_equal(namemap_add(&src, "yy", (void *)30), 1);
	assert_true(namemap_copy(&dst, &src, same_key, NULL));
	assert_ptr_equal(dst.arena, &a);
	assert_int_equal(dst.count, 2);
	assert_null(namemap_get(&dst, "old"));
	assert_null(namemap_get(&dst, "drop"));
	assert_ptr_equal(namemap_get(&dst, "x"), (void *)11);
	assert_ptr_equal(namemap_get(&dst, "yy"), (void *)31);
	assert_int_equal(namemap_add(&dst, "z", (void *)40), 1);
	assert_ptr_equal(namemap_get(&dst, "z"), (void *)40);
	namemap_free(&dst);
	namemap_free(&src);
	arena_free(&a);
}

/* A copy filled slot by slot (namemap_copy_slots): an entry written as
 * a tombstone is gone, the others are found with their new values,
 * tombstones of the source stay tombstones, and the table takes more
 * keys afterwards. */
static void copy_slots_by_caller(void **state)
{
	(void)state;
	Arena a;
	arena_init(&a);
	NameMap src, dst;
	namemap_init(&src);
	namemap_init_in(&dst, &a);
	assert_int_equal(namemap_add(&dst, "old", (void *)1), 1);
	assert_int_equal(namemap_add(&src, "x", (void *)10), 1);
	assert_int_equal(namemap_add(&src, "drop", (void *)20), 1);
	assert_int_equal(namemap_add(&src, "gone", (void *)25), 1);
	assert_int_equal(namemap_add(&src, "yy", (void *)30), 1);
	assert_true(namemap_del(&src, "gone"));
	NameMapSlot *v = namemap_copy_slots(&dst, &src);
	assert_non_null(v);
	assert_ptr_equal(dst.arena, &a);
	const char *tomb = namemap_tomb();
	for (size_t i = 0; i < src.cap; i++) {
		const NameMapSlot *s = &src.slots[i];
		if (!s->key) {
			v[i].key = NULL;
			v[i].val = NULL;
		} else if (s->key == tomb || !strcmp(s->key, "drop")) {
			dst.count -= s->key != tomb;
			v[i] = (NameMapSlot){tomb, NULL, s->hash, s->len};
		} else {
			v[i] = (NameMapSlot){s->key, (char *)s->val + 1,
					     s->hash, s->len};
		}
	}
	assert_int_equal(dst.count, 2);
	assert_null(namemap_get(&dst, "old"));
	assert_null(namemap_get(&dst, "drop"));
	assert_null(namemap_get(&dst, "gone"));
	assert_ptr_equal(namemap_get(&dst, "x"), (void *)11);
	assert_ptr_equal(namemap_get(&dst, "yy"), (void *)31);
	assert_int_equal(namemap_add(&dst, "drop", (void *)40), 1);
	assert_ptr_equal(namemap_get(&dst, "drop"), (void *)40);
	assert_int_equal(dst.count, 3);
	namemap_free(&dst);
	/* no table to copy: NULL, the copy empty */
	NameMap none;
	namemap_init(&none);
	namemap_init_in(&dst, &a);
	assert_null(namemap_copy_slots(&dst, &none));
	assert_int_equal(dst.count, 0);
	assert_null(namemap_get(&dst, "x"));
	namemap_free(&dst);
	namemap_free(&src);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(malloc_map_matches_array),
		cmocka_unit_test(arena_map_matches_array),
		cmocka_unit_test(copy_keeps_dst_arena),
		cmocka_unit_test(copy_slots_by_caller),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
