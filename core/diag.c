/* diag.c - diagnostics formatting. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void diag_init(Diag *d)
{
	memset(d, 0, sizeof *d);
	sb_init(&d->out);
	d->max_warnings = 20;
}

void diag_free(Diag *d) { sb_free(&d->out); }

void diag_clear(Diag *d)
{
	sb_clear(&d->out);
	d->errors = d->warnings = 0;
}

static const char *level_name[] = {"error", "warning", "note"};

void diag_show_line(StrBuf *b, const char *p, size_t n, int column)
{
	size_t col = column > 0 ? (size_t)column - 1 : 0;
	if (col > n)
		col = n;
	size_t from = 0;
	if (n > 120 && col > 60)
		from = col - 60;
	/* (the window starts and ends on a character's first byte) */
	while (from > 0 && ((unsigned char)p[from] & 0xc0) == 0x80)
		from--;
	size_t to = from + 120 < n ? from + 120 : n;
	while (to < n && ((unsigned char)p[to] & 0xc0) == 0x80)
		to++;
	sb_puts(b, "  ");
	if (from)
		sb_puts(b, "...");
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)p[i];
		sb_putc(b, c == '\t' ? ' ' : (c < 32 || c == 127) ? '?' : (char)c);
	}
	if (to < n)
		sb_puts(b, "...");
	sb_puts(b, "\n  ");
	if (from)
		sb_puts(b, "   ");
	/* a blank per character: none for a UTF-8 continuation byte */
	for (size_t i = from; i < col; i++)
		if (((unsigned char)p[i] & 0xc0) != 0x80)
			sb_putc(b, ' ');
	sb_puts(b, "^\n");
}

/* Appends the source line of loc and a caret under its column. */
static void show_line(StrBuf *b, const SrcFile *f, SrcLoc loc)
{
	if (!f || !f->text || loc.line <= 0)
		return;
	const char *p = f->text, *end = f->text + f->len;
	for (int l = 1; l < loc.line && p < end; p++)
		if (*p == '\n')
			l++;
	if (p >= end && loc.line > 1)
		return;
	const char *e = memchr(p, '\n', (size_t)(end - p));
	if (!e)
		e = end;
	diag_show_line(b, p, (size_t)(e - p), loc.col);
}

void diag_report(Diag *d, DiagLevel lv, const SrcFile *f, SrcLoc loc,
		 const char *fmt, ...)
{
	if (lv == DIAG_ERROR)
		d->errors++;
	if (lv == DIAG_WARNING && ++d->warnings > d->max_warnings)
		return;
	StrBuf *b = &d->out;
	if (f && f->name) {
		sb_puts(b, f->name);
		if (loc.line > 0) {
			sb_printf(b, ":%d", loc.line + f->line_offset);
			if (loc.col > 0)
				sb_printf(b, ":%d", loc.col);
		}
		sb_puts(b, ": ");
	}
	sb_printf(b, "%s: ", level_name[lv]);
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	sb_puts(b, tmp);
	sb_putc(b, '\n');
	show_line(b, f, loc);
}

const char *diag_text(Diag *d) { return sb_str(&d->out); }
