/* failalloc.c - allocation failure injection for the tests.
 *
 * Linked into xr_oom_repl (tests/tests.cmake) with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup: every
 * allocation the program's own code asks for comes here first (the C
 * library's and the other libraries' own allocations do not). With
 *
 *   XR_FAIL_ALLOC=N    the N-th allocation (from 1) returns NULL, the
 *                      others succeed;
 *   XR_FAIL_ALLOC=N+   the N-th and every later one return NULL;
 *   XR_FAIL_ALLOC=0    none fails, and the count is printed to stderr at
 *                      exit ("failalloc: N allocations"), so that a
 *                      driver knows how many there are to fail.
 *
 * Unset: none fails, nothing is printed. A size-0 request counts like
 * any other. free is not wrapped: a NULL returned here is never freed. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static long fail_at = -1; /* -1: unread; 0: count only; else N */
static bool fail_on;      /* "N+": from N on */
static bool counting;     /* XR_FAIL_ALLOC set */
static long count;

static void read_env(void)
{
	const char *s = getenv("XR_FAIL_ALLOC");
	fail_at = 0;
	if (!s || !*s)
		return;
	counting = true;
	char *end;
	long n = strtol(s, &end, 10);
	if (n > 0) {
		fail_at = n;
		fail_on = *end == '+';
	}
}

/* Whether this allocation is to fail. */
static bool fail_now(void)
{
	if (fail_at < 0)
		read_env();
	if (!counting)
		return false;
	count++;
	return fail_at > 0 &&
	       (count == fail_at || (fail_on && count > fail_at));
}

__attribute__((destructor)) static void report(void)
{
	if (counting && fail_at == 0)
		fprintf(stderr, "failalloc: %ld allocations\n", count);
}

void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }

void *__wrap_calloc(size_t k, size_t n)
{
	return fail_now() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}
