/* namemap.h - string -> pointer hash map (open addressing, malloc'd).
 * Keys are not copied: they must outlive the map (arena strings do). */
#ifndef XR_NAMEMAP_H
#define XR_NAMEMAP_H
#include <stdbool.h>
#include <stddef.h>

typedef struct NameMapSlot {
	const char *key; /* NULL empty; NAMEMAP_TOMB deleted */
	void *val;
	unsigned hash; /* namemap.c's hash of the key (not namemap_hash) */
	unsigned len;  /* strlen(key): compared before the bytes */
} NameMapSlot;

typedef struct NameMap {
	NameMapSlot *slots;
	size_t cap, count, used; /* used counts tombstones too */
	void *hints; /* hlo.c's unique-name hints (from arena when there is
			one, else malloc'd), or NULL */
	/* Where small tables come from (never freed: a computation's names,
	 * with its module's arena), or NULL for malloc. namemap_free drops
	 * it; namemap_copy's dst keeps its own. */
	struct Arena *arena;
} NameMap;

/* n zeroed bytes from malloc and memset, for a small table: glibc's
 * calloc goes past its per-thread cache (about 310 instructions a call
 * here against 280, more when the cache holds the size). */
void *namemap_zalloc(size_t n);

void namemap_init(NameMap *m);
/* namemap_init, its small tables from arena (which must outlive m). */
void namemap_init_in(NameMap *m, struct Arena *arena);
void namemap_free(NameMap *m);
void *namemap_get(const NameMap *m, const char *key);
void *namemap_getn(const NameMap *m, const char *key, size_t n);
/* The tables' hash of the n bytes at key (not namemap_hash), and
 * namemap_getn given it: one hash for a name looked up in several maps. */
unsigned namemap_key_hash(const char *key, size_t n);
void *namemap_geth(const NameMap *m, const char *key, size_t n, unsigned h);
/* Inserts or replaces. false on out-of-memory. */
bool namemap_put(NameMap *m, const char *key, void *val);
/* Inserts key when it is absent: 1 inserted, 0 present already (val
 * not stored), -1 out of memory. One probe instead of a get and a put. */
int namemap_add(NameMap *m, const char *key, void *val);
/* namemap_add with strlen(key) known (n): a name just written. */
int namemap_addn(NameMap *m, const char *key, size_t n, void *val);
/* namemap_addn given namemap_key_hash(key, n) too: one hash for a name
 * that moves from one map to another, or that many maps take. */
int namemap_addh(NameMap *m, const char *key, size_t n, unsigned h,
		 void *val);
bool namemap_del(NameMap *m, const char *key);
/* Room for n keys in all (tombstones count) without growing, for a
 * caller that adds many: one table instead of a table and a rehash for
 * each fourfold growth. false on out-of-memory (m unchanged). */
bool namemap_reserve(NameMap *m, size_t n);
/* namemap_del given the length and namemap_key_hash of key. */
bool namemap_delh(NameMap *m, const char *key, size_t n, unsigned h);
/* dst (whose old contents are freed) as a copy of src's table, each
 * entry's key and value replaced by what remap gives: remap sees the old
 * key and sets *val; it returns the new key, which must be equal to the
 * old (the hashes are kept), or NULL to leave the entry out. Costs a
 * copy of the table instead of an insertion per key. false on
 * out-of-memory (dst then empty). */
bool namemap_copy(NameMap *dst, const NameMap *src,
		  const char *(*remap)(void *ctx, const char *key, void **val),
		  void *ctx);
/* namemap_copy with the remap done by the caller, for a large table
 * (a call per entry costs more than the remap): dst (whose old contents
 * are freed) gets a table of src's size and src's counts, its slots not
 * yet written, and returns them; NULL when src has no table (dst then
 * empty: src->cap is 0) or on out-of-memory (dst empty). The caller then
 * writes every slot i from src's slot i, as namemap_copy would: an empty
 * one (key NULL) with key and value NULL; a tombstone (key
 * namemap_tomb()) as it is; an entry either with an equal key (the hash
 * and length kept) and its new value, or, to leave it out, as a
 * tombstone with its hash and length and a NULL value, taking one off
 * dst->count. */
NameMapSlot *namemap_copy_slots(NameMap *dst, const NameMap *src);
/* The key of a deleted entry (a tombstone). */
const char *namemap_tomb(void);
/* FNV-1a of the n bytes at s (what name hints are keyed by; the table
 * itself uses a faster hash of its own). */
unsigned namemap_hash(const char *s, size_t n);

#endif
