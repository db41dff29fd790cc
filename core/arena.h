/* arena.h - bump allocator; one per module, freed whole. */
#ifndef XR_ARENA_H
#define XR_ARENA_H
#include <stdbool.h>
#include <stddef.h>

/* XR_ASAN: 1 in AddressSanitizer builds (gcc or clang), where memory is
 * not recycled and costly self-checks run. */
#if defined(__SANITIZE_ADDRESS__)
#define XR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XR_ASAN 1
#endif
#endif
#ifndef XR_ASAN
#define XR_ASAN 0
#endif

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
	ArenaChunk *head;
	/* the free part of head's chunk: allocations bump cur (inline,
	 * below); arena.c starts a new chunk when it is too small */
	unsigned char *cur, *end;
	size_t used_total; /* bytes handed out, for stats */
	/* Chunks of other arenas that this one's data points into
	 * (arena_hold): they outlive their own arena until this one is
	 * freed too. */
	ArenaChunk **held;
	int nheld;
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
void arena_reset(Arena *a);
/* n bytes from a new chunk (arena_raw's slow path: call arena_raw). */
void *arena_raw_slow(Arena *a, size_t n);

/* n bytes (rounded up to 16), not zeroed; NULL only if malloc fails or
 * n is absurd. */
static inline void *arena_raw(Arena *a, size_t n)
{
	size_t r = n ? (n + 15) & ~(size_t)15 : 16;
	if (r >= n && (size_t)(a->end - a->cur) >= r) {
		void *p = a->cur;
		a->cur += r;
		a->used_total += r;
		return p;
	}
	return arena_raw_slow(a, n);
}

/* Zeroed memory; returns NULL only if malloc fails or n is absurd. */
static inline void *arena_alloc(Arena *a, size_t n)
{
	void *p = arena_raw(a, n);
	if (p)
		__builtin_memset(p, 0, n);
	return p;
}

static inline void *arena_dup(Arena *a, const void *p, size_t n)
{
	void *q = arena_raw(a, n);
	if (q && n)
		__builtin_memcpy(q, p, n);
	return q;
}

char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Moves src's memory into dst (freed with dst); src is left empty.
 * What was allocated from src stays where it is. */
void arena_adopt(Arena *dst, Arena *src);
/* dst keeps every chunk of src alive until dst is freed (whichever of
 * the two goes first), so that dst's data may point at what src holds
 * now (immutable data shared by a clone). Only for a src that holds
 * nothing itself (arena_holds): a chain of holds would keep every
 * arena of a long history alive. False (nothing held) when out of
 * memory or when src holds something. */
bool arena_hold(Arena *dst, const Arena *src);
static inline bool arena_holds(const Arena *a) { return a->nheld > 0; }
/* For programs that make and free modules of one size over and over
 * (the REPL, the bench): freed memory stays with the process for the
 * next module instead of going back to the system, whose fresh pages
 * fault in one by one. Call once, at start; a no-op where the C library
 * has no such settings. */
void arena_keep_freed_memory(void);
/* arena_grow's slow path, when need > *cap (call arena_grow). */
void *arena_grow_slow(Arena *a, void *p, size_t elem, int *cap, int need);

/* Grow an arena array of elem-size items from *cap to at least need
 * (doubling); the new part reads as zero. Inline: most calls (a user
 * or an instruction appended) find room already. */
static inline void *arena_grow(Arena *a, void *p, size_t elem, int *cap,
			       int need)
{
	if (need <= *cap)
		return p;
	return arena_grow_slow(a, p, elem, cap, need);
}

#endif
