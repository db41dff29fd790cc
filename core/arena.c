/* arena.c - bump allocator with a chunk list. */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
	ArenaChunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

enum { CHUNK_MIN = 64 * 1024 };

void arena_init(Arena *a) { memset(a, 0, sizeof *a); }

void arena_free(Arena *a)
{
	ArenaChunk *c = a->head;
	while (c) {
		ArenaChunk *n = c->next;
		free(c);
		c = n;
	}
	a->head = NULL;
	a->used_total = 0;
}

void arena_reset(Arena *a) { arena_free(a); }

/* n bytes (rounded up to 16), not zeroed: for copies that fill them. */
static void *alloc_raw(Arena *a, size_t n)
{
	if (n > ((size_t)1 << 40))
		return NULL;
	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	ArenaChunk *c = a->head;
	if (!c || c->size - c->used < n) {
		size_t sz = n > CHUNK_MIN ? n : CHUNK_MIN;
		if (c && c->size * 2 > sz && c->size < (64u << 20))
			sz = c->size * 2;
		c = malloc(sizeof *c + sz);
		if (!c)
			return NULL;
		c->size = sz;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += n;
	a->used_total += n;
	return p;
}

void *arena_alloc(Arena *a, size_t n)
{
	void *p = alloc_raw(a, n);
	if (p)
		memset(p, 0, n); /* zero only what is handed out: chunks
				    grow big */
	return p;
}

void *arena_dup(Arena *a, const void *p, size_t n)
{
	void *q = alloc_raw(a, n);
	if (q && n)
		memcpy(q, p, n);
	return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *q = alloc_raw(a, n + 1);
	if (q) {
		memcpy(q, s, n);
		q[n] = 0;
	}
	return q;
}

char *arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *q = arena_alloc(a, (size_t)n + 1);
	if (!q)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(q, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return q;
}

void *arena_grow(Arena *a, void *p, size_t elem, int *cap, int need)
{
	if (need <= *cap)
		return p;
	int nc = *cap ? *cap * 2 : 4;
	while (nc < need)
		nc *= 2;
	size_t old = p ? elem * (size_t)*cap : 0, size = elem * (size_t)nc;
	unsigned char *q = alloc_raw(a, size);
	if (!q)
		return NULL;
	if (old)
		memcpy(q, p, old);
	memset(q + old, 0, size - old); /* the new part reads as zero */
	*cap = nc;
	return q;
}
