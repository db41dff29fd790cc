/* strbuf.c - growable string. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(StrBuf *b) { memset(b, 0, sizeof *b); }

void sb_init_on(StrBuf *b, char *buf, size_t cap)
{
	memset(b, 0, sizeof *b);
	b->s = buf;
	b->cap = cap;
	b->borrowed = 1;
	buf[0] = 0;
}

void sb_free(StrBuf *b)
{
	if (!b->borrowed)
		free(b->s);
	memset(b, 0, sizeof *b);
}

void sb_clear(StrBuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
}

static int reserve(StrBuf *b, size_t extra)
{
	if (b->oom)
		return 0;
	if (b->len + extra + 1 <= b->cap)
		return 1;
	size_t nc = b->cap ? b->cap * 2 : 256;
	while (nc < b->len + extra + 1)
		nc *= 2;
	char *p = b->borrowed ? malloc(nc) : realloc(b->s, nc);
	if (!p) {
		b->oom = 1;
		return 0;
	}
	if (b->borrowed)
		memcpy(p, b->s, b->len + 1);
	b->borrowed = 0;
	b->s = p;
	b->cap = nc;
	return 1;
}

void sb_putn(StrBuf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sb_putc(StrBuf *b, char c) { sb_putn(b, &c, 1); }

void sb_puts(StrBuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

void sb_putint(StrBuf *b, long long v)
{
	char buf[24], *e = buf + sizeof buf, *q = e;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v
				     : (unsigned long long)v;
	do
		*--q = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--q = '-';
	sb_putn(b, q, (size_t)(e - q));
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		sb_putn(b, tmp, (size_t)n);
		return;
	}
	if (!reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *sb_str(StrBuf *b) { return b->s ? b->s : ""; }

const char *sb_text(StrBuf *b)
{
	return b->oom ? "(out of memory)" : sb_str(b);
}

char *sb_take(StrBuf *b)
{
	char *s = b->s;
	if (b->borrowed) {
		s = malloc(b->len + 1);
		if (s)
			memcpy(s, b->s, b->len + 1);
	} else if (!s) {
		s = malloc(1);
		if (s)
			s[0] = 0;
	}
	memset(b, 0, sizeof *b);
	return s;
}

/* The length of the valid UTF-8 sequence at s[0..n) (1 to 4), or 0
 * when it is not one (a stray or cut-off byte, an overlong form, a
 * surrogate, past U+10FFFF). */
size_t utf8_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = u[0] < 0x80 ? 1
		     : u[0] >= 0xc2 && u[0] <= 0xdf ? 2
		     : u[0] >= 0xe0 && u[0] <= 0xef ? 3
		     : u[0] >= 0xf0 && u[0] <= 0xf4 ? 4
						     : 0;
	if (!len || len > n)
		return 0;
	for (size_t k = 1; k < len; k++)
		if ((u[k] & 0xc0) != 0x80)
			return 0;
	if ((u[0] == 0xe0 && u[1] < 0xa0) || (u[0] == 0xed && u[1] >= 0xa0) ||
	    (u[0] == 0xf0 && u[1] < 0x90) || (u[0] == 0xf4 && u[1] >= 0x90))
		return 0;
	return len;
}

size_t sb_put_char(StrBuf *b, const char *s, size_t n)
{
	size_t k = utf8_len(s, n);
	if (k)
		sb_putn(b, s, k);
	else
		sb_puts(b, "\xef\xbf\xbd");
	return k ? k : 1;
}
