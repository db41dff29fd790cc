/* namemap.c - open-addressing hash map from strings to pointers. */
#include "namemap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char tomb_key[] = "";
#define TOMB tomb_key

void namemap_init(NameMap *m) { memset(m, 0, sizeof *m); }

void namemap_free(NameMap *m)
{
	free(m->slots);
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

static NameMapSlot *lookup(const NameMap *m, const char *key, size_t n,
			   unsigned h)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		NameMapSlot *s = &m->slots[i];
		if (!s->key)
			return NULL;
		if (s->key != TOMB && s->hash == h &&
		    strncmp(s->key, key, n) == 0 && s->key[n] == 0)
			return s;
	}
}

void *namemap_getn(const NameMap *m, const char *key, size_t n)
{
	NameMapSlot *s = lookup(m, key, n, namemap_hash(key, n));
	return s ? s->val : NULL;
}

void *namemap_get(const NameMap *m, const char *key)
{
	return namemap_getn(m, key, strlen(key));
}

static bool rehash(NameMap *m, size_t ncap)
{
	NameMapSlot *ns = calloc(ncap, sizeof *ns);
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
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	m->used = m->count;
	return true;
}

/* Room for one more key (tombstones count). */
static bool reserve(NameMap *m)
{
	if ((m->used + 1) * 4 < m->cap * 3)
		return true;
	size_t nc = m->cap ? m->cap : 16;
	while ((m->count + 1) * 2 >= nc)
		nc *= 2;
	return rehash(m, nc);
}

int namemap_add(NameMap *m, const char *key, void *val)
{
	size_t n = strlen(key);
	unsigned h = namemap_hash(key, n);
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
			*tomb = (NameMapSlot){key, val, h};
			m->count++;
			return 1;
		}
		if (s->key == TOMB) {
			if (!tomb)
				tomb = s;
		} else if (s->hash == h && strncmp(s->key, key, n) == 0 &&
			   s->key[n] == 0) {
			return 0;
		}
	}
}

bool namemap_put(NameMap *m, const char *key, void *val)
{
	size_t n = strlen(key);
	unsigned h = namemap_hash(key, n);
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
	m->slots[i] = (NameMapSlot){key, val, h};
	m->count++;
	return true;
}

bool namemap_del(NameMap *m, const char *key)
{
	size_t n = strlen(key);
	NameMapSlot *s = lookup(m, key, n, namemap_hash(key, n));
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
	namemap_free(dst);
	if (!src->cap)
		return true;
	NameMapSlot *v = malloc(src->cap * sizeof *v);
	if (!v)
		return false;
	memcpy(v, src->slots, src->cap * sizeof *v);
	size_t count = src->count;
	for (size_t i = 0; i < src->cap; i++) {
		NameMapSlot *s = &v[i];
		if (!s->key || s->key == TOMB)
			continue;
		const char *k = remap(ctx, s->key, &s->val);
		if (!k) {
			s->key = TOMB;
			s->val = NULL;
			count--;
			continue;
		}
		s->key = k;
	}
	*dst = (NameMap){v, src->cap, count, src->used, NULL};
	return true;
}
