/* arena.h - bump allocator; one per module, freed whole. */
#ifndef XR_ARENA_H
#define XR_ARENA_H
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
	size_t used_total; /* bytes handed out, for stats */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
void arena_reset(Arena *a);
/* Zeroed memory; returns NULL only if malloc fails or n is absurd. */
void *arena_alloc(Arena *a, size_t n);
void *arena_dup(Arena *a, const void *p, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Moves src's memory into dst (freed with dst); src is left empty.
 * What was allocated from src stays where it is. */
void arena_adopt(Arena *dst, Arena *src);
/* Grow an arena array of elem-size items from *cap to at least need. */
void *arena_grow(Arena *a, void *p, size_t elem, int *cap, int need);

#endif
