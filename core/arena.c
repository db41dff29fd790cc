/* arena.c - bump allocator with a chunk list. */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE, sbrk (heap_huge_pages) */
#include "arena.h"

#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

struct ArenaChunk {
	ArenaChunk *next;
	size_t size;
	int holds;   /* arenas holding it besides its own (arena_hold) */
	bool orphan; /* its own arena was freed while it was held */
	_Alignas(16) unsigned char data[];
};

enum { CHUNK_MIN = 64 * 1024, CHUNK_CLASSES = 11 /* 64 KiB .. 64 MiB */ };

/* Freed chunks of the standard sizes (CHUNK_MIN << k) are kept for the
 * next arena instead of going back to malloc: a pass pipeline frees and
 * makes modules of the same size over and over, and fresh large blocks
 * come from mmap, whose pages fault in one by one. At most CACHE_MAX bytes
 * are kept, per thread. Sanitizer builds keep none, so that a use after
 * free stays visible to them. */
#define ARENA_CACHE (!XR_ASAN)

#define CACHE_MAX ((size_t)96 << 20)

static _Thread_local struct {
	ArenaChunk *free[CHUNK_CLASSES];
	size_t bytes;
} cache;

/* The class of a chunk of sz bytes, or -1 when it is not a standard size. */
static int chunk_class(size_t sz)
{
	for (int k = 0; k < CHUNK_CLASSES; k++)
		if (sz == (size_t)CHUNK_MIN << k)
			return k;
	return -1;
}

static ArenaChunk *chunk_get(size_t sz)
{
	int k = ARENA_CACHE ? chunk_class(sz) : -1;
	ArenaChunk *c = k >= 0 ? cache.free[k] : NULL;
	if (c) {
		cache.free[k] = c->next;
		cache.bytes -= sz;
		c->holds = 0;
		c->orphan = false;
		return c;
	}
	c = malloc(sizeof *c + sz);
	if (c) {
		c->size = sz;
		c->holds = 0;
		c->orphan = false;
	}
	return c;
}

/* A chunk its arena is done with: freed, or left to its holders. */
static void chunk_put(ArenaChunk *c);

static void chunk_release(ArenaChunk *c)
{
	if (c->holds > 0)
		c->orphan = true; /* the last holder puts it */
	else
		chunk_put(c);
}

static void chunk_put(ArenaChunk *c)
{
	int k = ARENA_CACHE ? chunk_class(c->size) : -1;
	if (k < 0 || cache.bytes + c->size > CACHE_MAX) {
		free(c);
		return;
	}
	c->next = cache.free[k];
	cache.free[k] = c;
	cache.bytes += c->size;
}

/* The first 64 MiB of the heap on transparent huge pages where
 * the system gives them on request (MADV_HUGEPAGE; glibc's own
 * glibc.malloc.hugetlb=1 tunable does the same as the heap grows, but
 * only when set before the process starts). A module's instructions,
 * their operand and user lists and the name tables lie spread over
 * megabytes that every pass walks, and with 4 KiB pages most of those
 * walks miss in the TLB too. The heap is grown to that size once, in
 * blocks under the mmap threshold, and given back to malloc, which
 * keeps it (trim threshold); then the range is advised. Pages still
 * come only when touched. Sanitizer builds leave the heap alone. */
static void heap_huge_pages(void)
{
#if defined(MADV_HUGEPAGE) && !XR_ASAN
	enum { HUGE = 2 << 20, BLOCK = 8 << 20, NBLOCKS = 8 };
	char *lo = sbrk(0);
	void *b[NBLOCKS];
	for (int i = 0; i < NBLOCKS; i++)
		b[i] = malloc(BLOCK);
	char *hi = sbrk(0);
	for (int i = NBLOCKS - 1; i >= 0; i--)
		free(b[i]);
	if (lo == (char *)-1 || hi == (char *)-1 || hi <= lo)
		return;
	uintptr_t from = ((uintptr_t)lo + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
	uintptr_t to = (uintptr_t)hi & ~(uintptr_t)(HUGE - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_HUGEPAGE);
#endif
}

/* glibc gives the top of its heap back to the system above
 * trim_threshold and serves blocks over mmap_threshold by mmap, unmapped
 * when freed; both adapt upwards only to a point. At 100k instructions
 * the fusion log's decision table, large name-map tables and big arena
 * chunks so came as fresh pages with every pipeline: 12,000 page faults
 * (50 MB cleared by the kernel) a pipeline, a fifth of its time, where
 * the 10k one had none. Fixing the thresholds (which ends glibc's
 * adapting): mmap for blocks of 32 MiB and more only (the largest value
 * glibc takes on 64-bit), and up to 128 MiB of freed heap kept for the
 * next module; then a 100k pipeline faults in no page after the first. */
void arena_keep_freed_memory(void)
{
#if defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	heap_huge_pages();
#endif
}

void arena_init(Arena *a) { memset(a, 0, sizeof *a); }

void arena_free(Arena *a)
{
	ArenaChunk *c = a->head;
	while (c) {
		ArenaChunk *n = c->next;
		chunk_release(c);
		c = n;
	}
	for (int i = 0; i < a->nheld; i++) {
		ArenaChunk *h = a->held[i];
		if (--h->holds == 0 && h->orphan)
			chunk_put(h);
	}
	free(a->held);
	a->held = NULL;
	a->nheld = 0;
	a->head = NULL;
	a->cur = a->end = NULL;
	a->used_total = 0;
}

bool arena_hold(Arena *dst, const Arena *src)
{
	if (src->nheld || src == dst)
		return false;
	int n = 0;
	for (ArenaChunk *c = src->head; c; c = c->next)
		n++;
	if (!n)
		return true;
	ArenaChunk **v = realloc(dst->held, sizeof *v * (size_t)(dst->nheld + n));
	if (!v)
		return false;
	dst->held = v;
	for (ArenaChunk *c = src->head; c; c = c->next) {
		c->holds++;
		v[dst->nheld++] = c;
	}
	return true;
}

void arena_reset(Arena *a) { arena_free(a); }

void arena_adopt(Arena *dst, Arena *src)
{
	if (src->nheld) {
		/* what src held, dst holds (out of memory: held for good) */
		ArenaChunk **v = realloc(dst->held, sizeof *v *
					 (size_t)(dst->nheld + src->nheld));
		if (v) {
			memcpy(v + dst->nheld, src->held,
			       sizeof *v * (size_t)src->nheld);
			dst->held = v;
			dst->nheld += src->nheld;
		}
		free(src->held);
		src->held = NULL;
		src->nheld = 0;
	}
	ArenaChunk *first = src->head, *last = first;
	if (!first)
		return;
	while (last->next)
		last = last->next;
	/* after dst's current chunk, which keeps taking allocations */
	if (dst->head) {
		last->next = dst->head->next;
		dst->head->next = first;
	} else {
		dst->head = first;
	}
	dst->used_total += src->used_total;
	src->head = NULL;
	src->cur = src->end = NULL; /* its chunk is dst's now */
	src->used_total = 0;
}

void *arena_raw_slow(Arena *a, size_t n)
{
	if (n > ((size_t)1 << 40))
		return NULL;
	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	ArenaChunk *c = a->head;
	/* A standard size, so that the chunk is kept for reuse when the
	 * arena is freed (chunk_put): a block of n bytes in a chunk of its
	 * own went back to the system and its pages faulted in afresh with
	 * every module (a clone puts a computation's instructions in one
	 * block: 74,000 page faults where 7,000 had been, for 22 pipelines
	 * of the bench). The rest of the chunk takes later allocations. */
	size_t sz = CHUNK_MIN, top = (size_t)CHUNK_MIN << (CHUNK_CLASSES - 1);
	while (sz < n && sz < top)
		sz <<= 1;
	if (sz < n)
		sz = n;
	if (c && c->size * 2 > sz && c->size < top)
		sz = c->size * 2;
	c = chunk_get(sz);
	if (!c)
		return NULL;
	c->next = a->head;
	a->head = c;
	a->cur = c->data + n;
	a->end = c->data + c->size;
	a->used_total += n;
	return c->data;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *q = arena_raw(a, n + 1);
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

void *arena_grow_slow(Arena *a, void *p, size_t elem, int *cap, int need)
{
	if (need <= *cap)
		return p;
	int nc = *cap ? *cap * 2 : 4;
	while (nc < need)
		nc *= 2;
	size_t old = p ? elem * (size_t)*cap : 0, size = elem * (size_t)nc;
	unsigned char *q = arena_raw(a, size);
	if (!q)
		return NULL;
	if (old)
		memcpy(q, p, old);
	memset(q + old, 0, size - old); /* the new part reads as zero */
	*cap = nc;
	return q;
}
