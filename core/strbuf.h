/* strbuf.h - growable string used by printers and diagnostics. */
#ifndef XR_STRBUF_H
#define XR_STRBUF_H
#include <stddef.h>

typedef struct StrBuf {
	char *s;     /* always NUL-terminated when len > 0 or after sb_init */
	size_t len, cap;
	int oom;     /* set when an allocation failed; contents truncated */
	int borrowed; /* s is the caller's (sb_init_on): not freed */
} StrBuf;

void sb_init(StrBuf *b);
/* sb_init with buf[0..cap) (cap > 0) as the first storage: text that
 * fits needs no allocation (and cannot fail for want of memory); longer
 * text moves to the heap. sb_free as ever. */
void sb_init_on(StrBuf *b, char *buf, size_t cap);
void sb_free(StrBuf *b);
void sb_clear(StrBuf *b);
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
/* v in decimal, as printf's %lld writes it (printers write many
 * thousands of numbers; this is a tenth of sb_printf's cost). */
void sb_putint(StrBuf *b, long long v);
void sb_printf(StrBuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Returns the string (never NULL). */
const char *sb_str(StrBuf *b);
/* sb_str for text shown to a person: "(out of memory)" when the text
 * was cut short. */
const char *sb_text(StrBuf *b);
/* Transfers ownership of the malloc'd string to the caller. */
char *sb_take(StrBuf *b);

/* The length of the valid UTF-8 sequence at s[0..n) (1 to 4), or 0
 * when it is not one (a stray or cut-off byte, an overlong form, a
 * surrogate, past U+10FFFF). */
size_t utf8_len(const char *s, size_t n);
/* Puts the character at s[0..n) (n > 0): its UTF-8 sequence whole, or
 * U+FFFD for a byte that starts no valid one. Returns the bytes used. */
size_t sb_put_char(StrBuf *b, const char *s, size_t n);

#endif
