/* namemap.c - open-addressing hash map from strings to pointers. */
#include "namemap.h"

#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char tomb_key[] = "";
#define TOMB tomb_key

/* Tables up to SMALL_TABLE bytes are malloc'd and cleared (namemap_zalloc),
 * larger ones calloc'd (fresh pages come zeroed). Up to ARENA_TABLE they
 * come from the map's arena when it has one: a fused computation's names
 * cost a bump of the pointer; what a growing map leaves behind there is
 * under twice its last arena table. */
enum { SMALL_TABLE = 16 * 1024, ARENA_TABLE = 4 * 1024 };

/* Slots of a map's first table: room for 23 keys before it grows, so
 * that a fused computation's names (a dozen or two, from an arena) cost
 * one table, not a table and a rehash into one twice its size. */
enum { FIRST_TABLE = 32 };

void *namemap_zalloc(size_t n)
{
	void *p = malloc(n);
	/* keeps the compiler from making the two one calloc again */
	__asm__ volatile("" : : "r"(p) : "memory");
	if (p)
		memset(p, 0, n);
	return p;
}

void namemap_init(NameMap *m) { memset(m, 0, sizeof *m); }

void namemap_init_in(NameMap *m, Arena *arena)
{
	memset(m, 0, sizeof *m);
	m->arena = arena;
}

/* Whether m's tables of cap slots come from its arena. */
static bool in_arena(const NameMap *m, size_t cap)
{
	return m->arena && cap * sizeof(NameMapSlot) <= ARENA_TABLE;
}

/* A zeroed table of cap slots for m. */
static NameMapSlot *table_new(NameMap *m, size_t cap)
{
	size_t bytes = cap * sizeof(NameMapSlot);
	if (in_arena(m, cap))
		return arena_alloc(m->arena, bytes);
	return bytes <= SMALL_TABLE ? namemap_zalloc(bytes)
				    : calloc(cap, sizeof(NameMapSlot));
}

static void table_free(const NameMap *m, NameMapSlot *t, size_t cap)
{
	if (!in_arena(m, cap))
		free(t);
}

void namemap_free(NameMap *m)
{
	table_free(m, m->slots, m->cap);
	if (!m->arena)
		free(m->hints);
	memset(m, 0, sizeof *m);
}

/* FNV-1a: names are short, this is fast and good enough. */
unsigned namemap_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static inline uint64_t rd64(const char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline uint64_t rd32(const char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* The table's hash: eight bytes a step where FNV-1a takes one (it was a
 * tenth of all the work of a pipeline's instruction making, renaming
 * and removal). The last word is read overlapping the one before, the
 * way wyhash does, so no byte loop is left; the final mix spreads the
 * last bytes ("add.17", "add.18") over the bits the mask keeps. Only
 * the table's layout depends on it: nothing walks a table in slot order
 * to make output (verify's note_named builds a set). */
static inline unsigned key_hash(const char *s, size_t n)
{
	uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15u, t;
	if (n > 8) {
		const char *end = s + n - 8;
		for (; s < end; s += 8) {
			h = (h ^ rd64(s)) * 0xff51afd7ed558ccdu;
			h ^= h >> 29;
		}
		t = rd64(end);
	} else if (n >= 4) {
		t = rd32(s) << 32 | rd32(s + n - 4);
	} else if (n) {
		t = (uint64_t)(unsigned char)s[0] << 16 |
		    (uint64_t)(unsigned char)s[n >> 1] << 8 |
		    (unsigned char)s[n - 1];
	} else {
		t = 0;
	}
	h = (h ^ t) * 0xc4ceb9fe1a85ec53u;
	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdu;
	return (unsigned)(h ^ h >> 29);
}

/* A key is mostly looked up through the very string stored (an
 * instruction's own name, when it is taken out or found again): the
 * same address is the same key, without a call to memcmp. A tombstone
 * keeps its old hash and length, never a caller's address. */
static inline bool same_key(const NameMapSlot *s, const char *key, size_t n,
			    unsigned h)
{
	return s->hash == h && s->len == n &&
	       (s->key == key || (s->key != TOMB && memcmp(s->key, key, n) == 0));
}

/* lookup's probe past the key's first slot (out of line: see lookup). */
static __attribute__((noinline)) NameMapSlot *
lookup_on(const NameMap *m, const char *key, size_t n, unsigned h)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		NameMapSlot *s = &m->slots[i];
		if (!s->key)
			return NULL;
		if (same_key(s, key, n, h))
			return s;
	}
}

/* The key's first slot answers most lookups (the tables are sparse):
 * empty (absent), or holding the very string asked about (an
 * instruction's own name, taken out). Those two are answered here
 * without a call, so that the callers need no saved registers for the
 * rest (lookup_on: the probe and memcmp). */
static inline NameMapSlot *lookup(const NameMap *m, const char *key, size_t n,
				  unsigned h)
{
	if (!m->cap)
		return NULL;
	NameMapSlot *s = &m->slots[h & (m->cap - 1)];
	if (!s->key)
		return NULL;
	/* the same string (its hash too; never TOMB, which no caller
	 * asks for), unless the caller asks for a prefix of it */
	if (s->key == key && s->len == n)
		return s;
	return lookup_on(m, key, n, h);
}

void *namemap_getn(const NameMap *m, const char *key, size_t n)
{
	if (!m->count)
		return NULL;
	NameMapSlot *s = lookup(m, key, n, key_hash(key, n));
	return s ? s->val : NULL;
}

unsigned namemap_key_hash(const char *key, size_t n)
{
	return key_hash(key, n);
}

void *namemap_geth(const NameMap *m, const char *key, size_t n, unsigned h)
{
	NameMapSlot *s = m->count ? lookup(m, key, n, h) : NULL;
	return s ? s->val : NULL;
}

void *namemap_get(const NameMap *m, const char *key)
{
	if (!m->count)
		return NULL;
	return namemap_getn(m, key, strlen(key));
}

static bool rehash(NameMap *m, size_t ncap)
{
	NameMapSlot *ns = table_new(m, ncap);
	if (!ns)
		return false;
	for (size_t i = 0; i < m->cap; i++) {
		NameMapSlot *s = &m->slots[i];
		if (!s->key || s->key == TOMB)
			continue;
		size_t j = s->hash & (ncap - 1);
		while (ns[j].key)
			j = (j + 1) & (ncap - 1);
		ns[j] = *s;
	}
	table_free(m, m->slots, m->cap);
	m->slots = ns;
	m->cap = ncap;
	m->used = m->count;
	return true;
}

/* reserve's slow path: a table with room for the keys four times over
 * (growth at three quarters full, tombstones counted, so a table that
 * grew stays short of probes for a while). */
static bool grow(NameMap *m)
{
	size_t nc = m->cap ? m->cap : FIRST_TABLE;
	while ((m->count + 1) * 4 >= nc)
		nc *= 2;
	return rehash(m, nc);
}

/* Room for one more key (tombstones count). */
static inline bool reserve(NameMap *m)
{
	return (m->used + 1) * 4 < m->cap * 3 || grow(m);
}

bool namemap_reserve(NameMap *m, size_t n)
{
	if ((n + 1) * 4 < m->cap * 3)
		return true;
	size_t nc = m->cap ? m->cap : FIRST_TABLE;
	while ((n + 1) * 4 >= nc * 3)
		nc *= 2;
	return rehash(m, nc);
}

int namemap_add(NameMap *m, const char *key, void *val)
{
	return namemap_addn(m, key, strlen(key), val);
}

int namemap_addn(NameMap *m, const char *key, size_t n, void *val)
{
	return namemap_addh(m, key, n, key_hash(key, n), val);
}

/* namemap_addh past its fast case (out of line: see namemap_addh). */
static __attribute__((noinline)) int
addh_on(NameMap *m, const char *key, size_t n, unsigned h, void *val)
{
	if (!reserve(m))
		return -1;
	size_t mask = m->cap - 1;
	NameMapSlot *tomb = NULL;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		NameMapSlot *s = &m->slots[i];
		if (!s->key) {
			if (!tomb) {
				tomb = s;
				m->used++;
			}
			*tomb = (NameMapSlot){key, val, h, (unsigned)n};
			m->count++;
			return 1;
		}
		if (s->key == TOMB) {
			if (!tomb)
				tomb = s;
		} else if (same_key(s, key, n, h)) {
			return 0;
		}
	}
}

int namemap_addh(NameMap *m, const char *key, size_t n, unsigned h,
		 void *val)
{
	/* the usual insert (tables are sparse): room without growing and
	 * the key's first slot empty, as addh_on would fill it, without
	 * the saved registers its probe and memcmp cost */
	if ((m->used + 1) * 4 < m->cap * 3) {
		NameMapSlot *s = &m->slots[h & (m->cap - 1)];
		if (!s->key) {
			*s = (NameMapSlot){key, val, h, (unsigned)n};
			m->used++;
			m->count++;
			return 1;
		}
	}
	return addh_on(m, key, n, h, val);
}

bool namemap_put(NameMap *m, const char *key, void *val)
{
	size_t n = strlen(key);
	unsigned h = key_hash(key, n);
	NameMapSlot *s = lookup(m, key, n, h);
	if (s) {
		s->val = val;
		return true;
	}
	if (!reserve(m))
		return false;
	size_t mask = m->cap - 1, i = h & mask;
	while (m->slots[i].key && m->slots[i].key != TOMB)
		i = (i + 1) & mask;
	if (!m->slots[i].key)
		m->used++;
	m->slots[i] = (NameMapSlot){key, val, h, (unsigned)n};
	m->count++;
	return true;
}

bool namemap_del(NameMap *m, const char *key)
{
	size_t n = strlen(key);
	return namemap_delh(m, key, n, key_hash(key, n));
}

bool namemap_delh(NameMap *m, const char *key, size_t n, unsigned h)
{
	NameMapSlot *s = lookup(m, key, n, h);
	if (!s)
		return false;
	s->key = TOMB;
	s->val = NULL;
	m->count--;
	return true;
}

bool namemap_copy(NameMap *dst, const NameMap *src,
		  const char *(*remap)(void *ctx, const char *key, void **val),
		  void *ctx)
{
	/* Each entry goes to the slot it has in src (same hashes, same
	 * probe chains, tombstones kept), every slot written once: where
	 * the table was copied whole and its entries then rewritten, or
	 * where a zeroed one would be filled, a large table (mostly empty)
	 * is gone over twice. An empty slot gets a NULL key and value (what
	 * verify's note_named reads), the rest of it is never read. */
	NameMapSlot *v = namemap_copy_slots(dst, src);
	if (!v)
		return !src->cap;
	for (size_t i = 0; i < src->cap; i++) {
		const NameMapSlot *s = &src->slots[i];
		NameMapSlot *d = &v[i];
		if (!s->key) {
			d->key = NULL;
			d->val = NULL;
			continue;
		}
		void *val = s->val;
		const char *k = s->key == TOMB ? NULL : remap(ctx, s->key, &val);
		if (!k) { /* hash and length kept: same_key reads them */
			*d = (NameMapSlot){TOMB, NULL, s->hash, s->len};
			dst->count -= s->key != TOMB;
			continue;
		}
		*d = (NameMapSlot){k, val, s->hash, s->len};
	}
	return true;
}

/* ---- copies remapped by the caller (see namemap.h) ---------------------- */

NameMapSlot *namemap_copy_slots(NameMap *dst, const NameMap *src)
{
	Arena *arena = dst->arena;
	namemap_free(dst);
	dst->arena = arena;
	if (!src->cap)
		return NULL;
	/* for the caller to fill slot by slot (namemap_copy is one) */
	NameMapSlot *v = in_arena(dst, src->cap)
				 ? arena_raw(arena, src->cap * sizeof *v)
				 : malloc(src->cap * sizeof *v);
	if (!v)
		return NULL;
	*dst = (NameMap){v, src->cap, src->count, src->used, NULL, arena};
	return v;
}

const char *namemap_tomb(void) { return TOMB; }
