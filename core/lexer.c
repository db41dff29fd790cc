/* lexer.c - the HLO character cursor. */
#include "lexer.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void lex_init(Lexer *lx, const char *text, size_t len)
{
	memset(lx, 0, sizeof *lx);
	lx->start = lx->p = lx->line_start = text;
	lx->end = text + len;
	lx->line = 1;
}

SrcLoc lex_loc(const Lexer *lx)
{
	return (SrcLoc){lx->line, (int)(lx->p - lx->line_start) + 1};
}

SrcLoc lex_loc_at(const Lexer *lx, const char *p)
{
	int line = lx->line;
	const char *ls = lx->line_start;
	if (p < ls) { /* rare: recount from the start */
		line = 1;
		ls = lx->start;
		for (const char *q = lx->start; q < p; q++)
			if (*q == '\n') {
				line++;
				ls = q + 1;
			}
		return (SrcLoc){line, (int)(p - ls) + 1};
	}
	for (const char *q = ls; q < p && q < lx->end; q++)
		if (*q == '\n') {
			line++;
			ls = q + 1;
		}
	return (SrcLoc){line, (int)(p - ls) + 1};
}

void lex_advance(Lexer *lx)
{
	if (lx->p >= lx->end)
		return;
	if (*lx->p == '\n') {
		lx->line++;
		lx->line_start = lx->p + 1;
	}
	lx->p++;
}

void lex_skip(Lexer *lx)
{
	if (lx->p < lx->end && (unsigned char)*lx->p > ' ' && *lx->p != '/')
		return; /* the common case: already at a token */
	while (lx->p < lx->end) {
		char c = *lx->p;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		    c == '\f' || c == '\v') {
			lex_advance(lx);
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
			const char *open = lx->p;
			lx->p += 2;
			while (lx->p < lx->end &&
			       !(*lx->p == '*' && lx->p + 1 < lx->end &&
				 lx->p[1] == '/'))
				lex_advance(lx);
			if (lx->p >= lx->end) {
				lx->open_comment = open;
				return;
			}
			lx->p += 2;
		} else {
			return;
		}
	}
}

bool lex_eof(Lexer *lx)
{
	lex_skip(lx);
	return lx->p >= lx->end;
}

int lex_peek(Lexer *lx)
{
	lex_skip(lx);
	return lx->p < lx->end ? (unsigned char)*lx->p : -1;
}

bool lex_accept(Lexer *lx, char c)
{
	if (lex_peek(lx) != (unsigned char)c)
		return false;
	lex_advance(lx);
	return true;
}

bool lex_accept_str(Lexer *lx, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(lx->end - lx->p) < n || memcmp(lx->p, s, n))
		return false;
	for (size_t i = 0; i < n; i++)
		lex_advance(lx);
	return true;
}

/* ASCII only and locale-free: HLO names are ASCII, and the <ctype.h>
 * calls showed up in profiles of large modules. */
static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static bool is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool lex_is_ident_char(int c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '-';
}

int lex_peek_ident(Lexer *lx, bool allow_digit)
{
	lex_skip(lx);
	const char *p = lx->p;
	if (p >= lx->end)
		return 0;
	unsigned char c = (unsigned char)*p;
	if (!(is_alpha(c) || c == '_' || (allow_digit && is_digit(c))))
		return 0;
	while (p < lx->end && lex_is_ident_char((unsigned char)*p))
		p++;
	return (int)(p - lx->p);
}

bool lex_ident(Lexer *lx, const char **s, int *n)
{
	int k = lex_peek_ident(lx, false);
	if (!k)
		return false;
	*s = lx->p;
	*n = k;
	lx->p += k;
	return true;
}

bool lex_name(Lexer *lx, const char **s, int *n)
{
	lex_skip(lx);
	const char *start = lx->p;
	bool pct = lx->p < lx->end && *lx->p == '%';
	if (pct) {
		lx->p++;
		/* the sigil is glued to the name: "% x" is not a name */
		if (lx->p >= lx->end || !lex_is_ident_char((unsigned char)*lx->p)) {
			lx->p = start;
			return false;
		}
	}
	int k = lex_peek_ident(lx, false);
	if (!k) {
		lx->p = start;
		return false;
	}
	*s = lx->p;
	*n = k;
	lx->p += k;
	return true;
}

bool lex_int(Lexer *lx, int64_t *v)
{
	lex_skip(lx);
	const char *p = lx->p;
	if (p < lx->end && (*p == '-' || *p == '+'))
		p++;
	if (p >= lx->end || !isdigit((unsigned char)*p))
		return false;
	if (!(p + 1 < lx->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
		/* the common case, decimal: no copy, no strtoll */
		bool neg = *lx->p == '-';
		uint64_t r = 0;
		while (p < lx->end && isdigit((unsigned char)*p)) {
			unsigned d = (unsigned)(*p++ - '0');
			if (r > (UINT64_C(1) << 63) / 10)
				return false;
			r = r * 10 + d;
			if (r > (UINT64_C(1) << 63) - !neg)
				return false;
		}
		if (p < lx->end && isalnum((unsigned char)*p))
			return false;
		*v = neg ? (int64_t)(0 - r) : (int64_t)r;
		lx->p = p;
		return true;
	}
	char buf[40];
	const char *q = lx->p;
	size_t n = 0;
	while (q < lx->end && n < sizeof buf - 1 &&
	       (isalnum((unsigned char)*q) || (n == 0 && (*q == '-' || *q == '+'))))
		buf[n++] = *q++;
	buf[n] = 0;
	errno = 0;
	char *e;
	long long r = strtoll(buf, &e, 0);
	if (errno || *e)
		return false;
	*v = r;
	lx->p = q;
	return true;
}

bool lex_string(Lexer *lx, const char **s, int *n)
{
	lex_skip(lx);
	if (lx->p >= lx->end || *lx->p != '"')
		return false;
	const char *q = lx->p + 1;
	while (q < lx->end && *q != '"') {
		if (*q == '\\' && q + 1 < lx->end)
			q++;
		if (*q == '\n')
			return false;
		q++;
	}
	if (q >= lx->end)
		return false;
	*s = lx->p + 1;
	*n = (int)(q - lx->p - 1);
	lx->p = q + 1;
	return true;
}

static const char *skip_string(const char *q, const char *end)
{
	for (q++; q < end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < end)
			q++;
	return q < end ? q + 1 : NULL;
}

const char *lex_comment_end(const char *q, const char *end)
{
	for (; q + 1 < end; q++) /* bounded: strstr would scan the whole text */
		if (q[0] == '*' && q[1] == '/')
			return q;
	return NULL;
}

const char *lex_scan_value(const Lexer *lx)
{
	const char *q = lx->p, *end = lx->end;
	char stack[256];
	int depth = 0;
	while (q < end) {
		char c = *q;
		if (c == '"') {
			q = skip_string(q, end);
			if (!q)
				return NULL;
			continue;
		}
		if (c == '/' && q + 1 < end && (q[1] == '*' || q[1] == '/')) {
			if (depth == 0)
				return q;
			if (q[1] == '/') {
				while (q < end && *q != '\n')
					q++;
			} else {
				const char *e = lex_comment_end(q + 2, end);
				if (!e)
					return NULL;
				q = e + 2;
			}
			continue;
		}
		if (c == '{' || c == '[' || c == '(') {
			if (depth == (int)sizeof stack)
				return NULL;
			stack[depth++] = c == '{' ? '}' : c == '[' ? ']' : ')';
		} else if (c == '}' || c == ']' || c == ')') {
			if (depth == 0)
				return q;
			if (stack[depth - 1] != c)
				return q; /* mismatched: let the caller complain */
			depth--;
		} else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' ||
					  c == '\t' || c == '\r' || c == '\f' ||
					  c == '\v')) {
			return q;
		}
		q++;
	}
	return depth == 0 ? q : NULL;
}
