/* textdiff.c - unified diff of two texts, line by line.
 *
 * Myers' O((N+M)D) algorithm in its linear-space form: find the middle
 * snake of an optimal edit path, recurse on both halves (as GNU diff's
 * diffseq.h does). Two things keep it fast when most lines change (a
 * fusion pass rewrites most of a module's text):
 *  - a line that the other text does not have at all cannot be part of a
 *    common subsequence: such lines are marked changed up front and the
 *    search runs on the others only (exact, as GNU diff does);
 *  - a middle-snake search that goes past too_expensive edits stops and
 *    splits at the furthest point it reached (GNU diff's heuristic): the
 *    script is then no longer shortest, only valid. Below that many edits
 *    per region it is always a shortest edit script.
 * Lines are compared by class: equal texts get the same number, once.
 * The result is one "changed" flag per line of each side; hunks are then
 * cut from runs of changes with `context` unchanged lines around them,
 * merged when they are at most 2*context lines apart, and printed as
 * `diff -u` prints them. A line is its text plus its newline: a last line
 * without one differs from the same text with one, and is followed by
 * "\ No newline at end of file". */
#include "textdiff.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct Line {
	const char *p;
	size_t len; /* including the '\n' when there is one */
	uint32_t h;
} Line;

typedef struct Lines {
	Line *v;
	int n;
} Lines;

typedef struct Ctx {
	const int *a, *b; /* line classes of the lines searched */
	int *fd, *bd;     /* furthest x per diagonal, forward and backward */
	char *del, *ins;  /* changed flags of the lines searched */
	int too_expensive; /* edits after which a search settles */
} Ctx;

static uint32_t hash(const char *p, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	return h;
}

static bool split_lines(const char *t, size_t len, Lines *l)
{
	int n = 0;
	for (size_t i = 0; i < len; i++)
		n += t[i] == '\n';
	n += len && t[len - 1] != '\n';
	l->n = n;
	l->v = malloc(((size_t)n + 1) * sizeof *l->v);
	if (!l->v)
		return false;
	size_t start = 0;
	for (int k = 0; k < n; k++) {
		const char *nl = memchr(t + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - t) + 1 : len;
		l->v[k] = (Line){t + start, end - start, 0};
		l->v[k].h = hash(t + start, end - start);
		start = end;
	}
	return true;
}

static bool eq(const Ctx *c, int x, int y) { return c->a[x] == c->b[y]; }

/* Forward step of the middle-snake search: one more edit from the top
 * left. Returns true (and the midpoint) when it overlaps the backward
 * search. */
typedef struct Search {
	int xoff, xlim, yoff, ylim;
	int dmin, dmax, fmin, fmax, bmin, bmax;
	bool odd;
} Search;

static bool forward(Ctx *c, Search *s, int *mx, int *my)
{
	int *fd = c->fd;
	if (s->fmin > s->dmin)
		fd[--s->fmin - 1] = -1;
	else
		++s->fmin;
	if (s->fmax < s->dmax)
		fd[++s->fmax + 1] = -1;
	else
		--s->fmax;
	for (int d = s->fmax; d >= s->fmin; d -= 2) {
		int lo = fd[d - 1], hi = fd[d + 1];
		int x = lo >= hi ? lo + 1 : hi, y = x - d;
		while (x < s->xlim && y < s->ylim && eq(c, x, y))
			x++, y++;
		fd[d] = x;
		if (s->odd && s->bmin <= d && d <= s->bmax && c->bd[d] <= x) {
			*mx = x;
			*my = y;
			return true;
		}
	}
	return false;
}

/* The same from the bottom right. */
static bool backward(Ctx *c, Search *s, int *mx, int *my)
{
	int *bd = c->bd;
	if (s->bmin > s->dmin)
		bd[--s->bmin - 1] = INT_MAX;
	else
		++s->bmin;
	if (s->bmax < s->dmax)
		bd[++s->bmax + 1] = INT_MAX;
	else
		--s->bmax;
	for (int d = s->bmax; d >= s->bmin; d -= 2) {
		int lo = bd[d - 1], hi = bd[d + 1];
		int x = lo < hi ? lo : hi - 1, y = x - d;
		while (x > s->xoff && y > s->yoff && eq(c, x - 1, y - 1))
			x--, y--;
		bd[d] = x;
		if (!s->odd && s->fmin <= d && d <= s->fmax && x <= c->fd[d]) {
			*mx = x;
			*my = y;
			return true;
		}
	}
	return false;
}

/* After too many edits: the furthest point the forward search reached
 * (largest x + y) or the backward one (smallest), whichever got further
 * from its corner; false when that is a corner (no progress). */
static bool settle(const Ctx *c, const Search *s, int *mx, int *my)
{
	int fbest = -1, fx = 0, bbest = INT_MAX, bx = 0;
	for (int d = s->fmax; d >= s->fmin; d -= 2) {
		int x = c->fd[d] < s->xlim ? c->fd[d] : s->xlim, y = x - d;
		if (y > s->ylim)
			x = s->ylim + d, y = s->ylim;
		if (x + y > fbest)
			fbest = x + y, fx = x;
	}
	for (int d = s->bmax; d >= s->bmin; d -= 2) {
		int x = c->bd[d] > s->xoff ? c->bd[d] : s->xoff, y = x - d;
		if (y < s->yoff)
			x = s->yoff + d, y = s->yoff;
		if (x + y < bbest)
			bbest = x + y, bx = x;
	}
	int lo = s->xoff + s->yoff, hi = s->xlim + s->ylim;
	bool fwd = fbest - lo >= hi - bbest;
	int x = fwd ? fx : bx, sum = fwd ? fbest : bbest;
	if (sum <= lo || sum >= hi) {
		fwd = !fwd; /* the other one, if it moved */
		x = fwd ? fx : bx;
		sum = fwd ? fbest : bbest;
		if (sum <= lo || sum >= hi)
			return false;
	}
	*mx = x;
	*my = sum - x;
	return true;
}

/* A point (mx, my) on a shortest edit path from (xoff, yoff) to
 * (xlim, ylim), about half way along it; past c->too_expensive edits, a
 * point on some edit path (settle). */
static void midsnake(Ctx *c, int xoff, int xlim, int yoff, int ylim, int *mx,
		     int *my)
{
	int fmid = xoff - yoff, bmid = xlim - ylim;
	Search s = {xoff, xlim, yoff, ylim, xoff - ylim,      xlim - yoff,
		    fmid, fmid, bmid, bmid, (fmid - bmid) & 1};
	c->fd[fmid] = xoff;
	c->bd[bmid] = xlim;
	for (int cost = 1;; cost++) {
		if (forward(c, &s, mx, my) || backward(c, &s, mx, my))
			return;
		if (cost >= c->too_expensive && settle(c, &s, mx, my))
			return;
	}
}

static void compareseq(Ctx *c, int xoff, int xlim, int yoff, int ylim)
{
	while (xoff < xlim && yoff < ylim && eq(c, xoff, yoff))
		xoff++, yoff++;
	while (xlim > xoff && ylim > yoff && eq(c, xlim - 1, ylim - 1))
		xlim--, ylim--;
	if (xoff == xlim) {
		while (yoff < ylim)
			c->ins[yoff++] = 1;
	} else if (yoff == ylim) {
		while (xoff < xlim)
			c->del[xoff++] = 1;
	} else {
		int x, y;
		midsnake(c, xoff, xlim, yoff, ylim, &x, &y);
		compareseq(c, xoff, x, yoff, y);
		compareseq(c, x, xlim, y, ylim);
	}
}

/* --- printing hunks --- */

/* A run of changes: a[i0, i1) removed, b[j0, j1) added. */
typedef struct Group {
	int i0, i1, j0, j1;
} Group;

/* Cuts the changed flags into groups; returns how many. */
static int groups(const char *del, const char *ins, int n, int m, Group *g)
{
	int i = 0, j = 0, k = 0;
	while (i < n || j < m) {
		if (i < n && j < m && !del[i] && !ins[j]) {
			i++, j++;
			continue;
		}
		Group *r = &g[k++];
		r->i0 = i, r->j0 = j;
		while (i < n && del[i])
			i++;
		while (j < m && ins[j])
			j++;
		r->i1 = i, r->j1 = j;
	}
	return k;
}

/* "-a,b" as diff -u writes it: the count left out when it is 1, and an
 * empty range numbered by the line before it. */
static void range(StrBuf *out, char sign, int start, int count)
{
	if (count == 1)
		sb_printf(out, "%c%d", sign, start + 1);
	else
		sb_printf(out, "%c%d,%d", sign, count ? start + 1 : start,
			  count);
}

static void put_line(StrBuf *out, char sign, const Line *l)
{
	sb_putc(out, sign);
	sb_putn(out, l->p, l->len);
	if (!l->len || l->p[l->len - 1] != '\n')
		sb_puts(out, "\n\\ No newline at end of file\n");
}

static void put_lines(StrBuf *out, char sign, const Line *v, int from, int to)
{
	for (int i = from; i < to; i++)
		put_line(out, sign, &v[i]);
}

/* Prints groups g[0..k) as one hunk. */
static void hunk(StrBuf *out, const Lines *a, const Lines *b, const Group *g,
		 int k, int context)
{
	int as = g[0].i0 - context < 0 ? 0 : g[0].i0 - context;
	int bs = g[0].j0 - (g[0].i0 - as);
	int ae = g[k - 1].i1 + context > a->n ? a->n : g[k - 1].i1 + context;
	int be = g[k - 1].j1 + (ae - g[k - 1].i1);
	sb_puts(out, "@@ ");
	range(out, '-', as, ae - as);
	sb_putc(out, ' ');
	range(out, '+', bs, be - bs);
	sb_puts(out, " @@\n");
	int pos = as;
	for (int i = 0; i < k; i++) {
		put_lines(out, ' ', a->v, pos, g[i].i0);
		put_lines(out, '-', a->v, g[i].i0, g[i].i1);
		put_lines(out, '+', b->v, g[i].j0, g[i].j1);
		pos = g[i].i1;
	}
	put_lines(out, ' ', a->v, pos, ae);
}

static void print_diff(StrBuf *out, const char *name_a, const char *name_b,
		       const Lines *a, const Lines *b, const Group *g, int k,
		       int context)
{
	sb_printf(out, "--- %s\n+++ %s\n", name_a, name_b);
	for (int i = 0; i < k;) {
		int j = i + 1;
		while (j < k && g[j].i0 - g[j - 1].i1 <= 2 * context)
			j++;
		hunk(out, a, b, g + i, j - i, context);
		i = j;
	}
}

/* Line classes: cls[i] for line i of a then b (n + m of them), equal
 * lines (text and newline) numbered alike. NULL on out of memory. */
static int *classify(const Lines *a, const Lines *b)
{
	size_t n = (size_t)a->n + (size_t)b->n, cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	int *cls = malloc((n + 1) * sizeof *cls);
	int *slot = malloc(cap * sizeof *slot); /* a line with the class */
	if (!cls || !slot) {
		free(cls);
		free(slot);
		return NULL;
	}
	for (size_t i = 0; i < cap; i++)
		slot[i] = -1;
	int next = 0;
	for (size_t i = 0; i < n; i++) {
		const Line *l = i < (size_t)a->n ? &a->v[i] : &b->v[i - a->n];
		size_t h = l->h & (cap - 1);
		for (;; h = (h + 1) & (cap - 1)) {
			int k = slot[h];
			if (k < 0) {
				slot[h] = (int)i;
				cls[i] = next++;
				break;
			}
			const Line *o =
				k < a->n ? &a->v[k] : &b->v[k - a->n];
			if (o->h == l->h && o->len == l->len &&
			    !memcmp(o->p, l->p, l->len)) {
				cls[i] = cls[k];
				break;
			}
		}
	}
	free(slot);
	return cls;
}

/* The lines of one side whose class the other side has (the rest are
 * changed, flagged in chg): their classes in kc, their indices in kx.
 * Returns how many. */
static int keep(const int *cls, int n, const char *other, int *kc, int *kx,
		char *chg)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (!other[cls[i]]) {
			chg[i] = 1;
			continue;
		}
		kc[k] = cls[i];
		kx[k++] = i;
	}
	return k;
}

int textdiff_unified(StrBuf *out, const char *name_a, const char *a,
		     size_t alen, const char *name_b, const char *b,
		     size_t blen, int context)
{
	if (context < 0)
		context = 0;
	Lines la = {0}, lb = {0};
	Ctx c = {0};
	Group *g = NULL;
	int *cls = NULL, *kc = NULL, *kx = NULL;
	char *del = NULL, *ins = NULL, *ina = NULL, *inb = NULL;
	int changed = -1;
	if (!split_lines(a, alen, &la) || !split_lines(b, blen, &lb))
		goto done;
	int n = la.n, m = lb.n;
	size_t nm = (size_t)n + (size_t)m, diags = nm + 3;
	cls = classify(&la, &lb);
	kc = malloc((nm + 1) * sizeof *kc);
	kx = malloc((nm + 1) * sizeof *kx);
	del = calloc((size_t)n + 1, 1);
	ins = calloc((size_t)m + 1, 1);
	ina = calloc(nm + 1, 1);
	inb = calloc(nm + 1, 1);
	c.fd = malloc(diags * sizeof *c.fd);
	c.bd = malloc(diags * sizeof *c.bd);
	c.del = calloc(nm + 1, 1);
	c.ins = c.del ? c.del + n : NULL;
	g = malloc((nm + 1) * sizeof *g);
	if (!cls || !kc || !kx || !del || !ins || !ina || !inb || !c.fd ||
	    !c.bd || !c.del || !g)
		goto done;
	for (int i = 0; i < n; i++)
		ina[cls[i]] = 1;
	for (int j = 0; j < m; j++)
		inb[cls[n + j]] = 1;
	/* the search runs over the lines both sides have: a's in kc[0..ka),
	 * b's in kc[n..n + kb), their own line numbers in kx */
	int ka = keep(cls, n, inb, kc, kx, del);
	int kb = keep(cls + n, m, ina, kc + n, kx + n, ins);
	c.a = kc;
	c.b = kc + n;
	/* GNU diff's bound: about the square root of the diagonals, at
	 * least 4096 */
	c.too_expensive = 1;
	for (size_t d = diags; d; d >>= 2)
		c.too_expensive <<= 1;
	if (c.too_expensive < 4096)
		c.too_expensive = 4096;
	/* Diagonals run from -(kb + 1) to ka + 1. */
	c.fd += kb + 1;
	c.bd += kb + 1;
	compareseq(&c, 0, ka, 0, kb);
	c.fd -= kb + 1;
	c.bd -= kb + 1;
	for (int i = 0; i < ka; i++)
		del[kx[i]] = c.del[i];
	for (int j = 0; j < kb; j++)
		ins[kx[n + j]] = c.ins[j];
	int k = groups(del, ins, n, m, g);
	changed = 0;
	for (int i = 0; i < k; i++)
		changed += g[i].i1 - g[i].i0 + g[i].j1 - g[i].j0;
	if (k)
		print_diff(out, name_a, name_b, &la, &lb, g, k, context);
done:
	if (changed < 0)
		out->oom = 1;
	free(c.fd);
	free(c.bd);
	free(c.del);
	free(cls);
	free(kc);
	free(kx);
	free(del);
	free(ins);
	free(ina);
	free(inb);
	free(g);
	free(la.v);
	free(lb.v);
	return changed < 0 ? 0 : changed;
}
