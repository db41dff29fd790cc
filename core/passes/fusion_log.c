/* fusion_log.c - the fusion passes' decision log: decisions and the
 * fusions made, merged across passes, looked up by `why` and
 * `fusions`. The log owns its strings (in its arena), so it outlives
 * the module it describes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusion_impl.h"

/* ---- the log -------------------------------------------------------- */

FusionLog *fusion_log_new(void)
{
	FusionLog *l = calloc(1, sizeof(FusionLog));
	if (l)
		arena_init(&l->a);
	return l;
}

/* For a decision made outside a log (fusion_judge, fusion_force). */
void fusion_decision_free(FusionDecision *d)
{
	free(d->producer);
	free(d->consumer);
	free(d->comp);
	free(d->into);
	free(d->where);
	free(d->reason);
	memset(d, 0, sizeof *d);
}

void fz_clear_groups(FusionLog *l) { l->ng = 0; }

const char *fusion_decision_reason(const FusionDecision *d, char *buf,
				   size_t cap)
{
	if (d->reason || !d->fmt)
		return d->reason ? d->reason : "";
	fz_text(d->fmt, d->args, d->nargs, buf, cap);
	return buf;
}

void fusion_log_free(FusionLog *l)
{
	if (!l)
		return;
	arena_free(&l->a);
	free(l->d);
	free(l->g);
	free(l->ren_from);
	free(l->ren_to);
	free(l);
}

/* Appends the rename key -> to (each copied into l). */
static bool ren_add(FusionLog *l, const char *key, const char *to)
{
	int cap = l->capren;
	if (!fz_grow((void **)&l->ren_from, &cap, l->nren + 1,
		     sizeof *l->ren_from) ||
	    !fz_grow((void **)&l->ren_to, &l->capren, l->nren + 1,
		     sizeof *l->ren_to))
		return false;
	char *f = fz_ldup(l, key), *t = fz_ldup(l, to);
	if (!f || !t)
		return false;
	l->ren_from[l->nren] = f;
	l->ren_to[l->nren++] = t;
	return true;
}

/* The key of fusion name in computation comp in renames (FusionLog's
 * ren_from): "comp name" (no HLO name holds a blank), in buf when it
 * fits, else malloc'd (the caller frees what is not buf); NULL on out
 * of memory. */
static char *ren_key(char *buf, size_t cap, const char *comp, const char *name)
{
	size_t nc = strlen(comp), nn = strlen(name);
	char *k = nc + nn + 2 <= cap ? buf : malloc(nc + nn + 2);
	if (!k)
		return NULL;
	memcpy(k, comp, nc);
	k[nc] = ' ';
	memcpy(k + nc + 1, name, nn + 1);
	return k;
}

bool fusion_log_renamed(FusionLog *l, const char *comp, const char *from,
			const char *to)
{
	char buf[256];
	char *k = ren_key(buf, sizeof buf, comp, from);
	bool ok = k && ren_add(l, k, to);
	if (k != buf)
		free(k);
	return ok;
}

char *fz_dup(const char *s) { return s ? strdup(s) : NULL; }

char *fz_ldup(FusionLog *l, const char *s)
{
	return s ? arena_strdup(&l->a, s) : NULL;
}

bool fz_grow(void **v, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return true;
	int nc = *cap ? *cap * 2 : 16;
	while (nc < need)
		nc *= 2;
	void *p = realloc(*v, elem * (size_t)nc);
	if (!p)
		return false;
	*v = p;
	*cap = nc;
	return true;
}

/* Copies made by fusion_log_copy, by the address of the original: the
 * decisions of a pass share their names (fusion.c stores each once),
 * and a copy of each is enough. Direct-mapped. */
enum { COPY_CACHE = 1024 };
typedef struct CopyCache {
	const char *src[COPY_CACHE];
	char *dup[COPY_CACHE];
} CopyCache;

/* s (NULL: NULL) copied into l, or the copy made for it before. */
static char *copy_shared(FusionLog *l, CopyCache *cc, const char *s)
{
	if (!s)
		return NULL;
	unsigned h = (unsigned)(((uintptr_t)s >> 3) % COPY_CACHE);
	if (cc->src[h] == s)
		return cc->dup[h];
	char *d = fz_ldup(l, s);
	cc->src[h] = d ? s : NULL;
	cc->dup[h] = d;
	return d;
}

FusionLog *fusion_log_copy(const FusionLog *l)
{
	FusionLog *c = fusion_log_new();
	CopyCache *cc = calloc(1, sizeof *cc);
	if (!c || !cc) {
		fusion_log_free(c);
		free(cc);
		return NULL;
	}
	bool ok = fz_grow((void **)&c->d, &c->cap, l->n, sizeof *c->d) &&
		  fz_grow((void **)&c->g, &c->capg, l->ng, sizeof *c->g);
	for (int i = 0; ok && i < l->n; i++) {
		const FusionDecision *s = &l->d[i];
		FusionDecision *d = &c->d[c->n++];
		*d = *s; /* pass, rule and fmt are static */
		d->producer = copy_shared(c, cc, s->producer);
		d->consumer = copy_shared(c, cc, s->consumer);
		d->comp = copy_shared(c, cc, s->comp);
		d->into = copy_shared(c, cc, s->into);
		d->where = copy_shared(c, cc, s->where);
		d->reason = fz_ldup(c, s->reason);
		d->args = s->nargs ? arena_dup(&c->a, s->args, (size_t)s->nargs)
				   : (const unsigned char *)"";
		ok = (d->producer || !s->producer) &&
		     (d->consumer || !s->consumer) && (d->comp || !s->comp) &&
		     (d->into || !s->into) && (d->where || !s->where) &&
		     (d->reason || !s->reason) &&
		     (d->args || !s->args);
	}
	for (int i = 0; ok && i < l->ng; i++) {
		const FusionGroup *s = &l->g[i];
		FusionGroup *g = &c->g[c->ng++];
		*g = *s; /* kind is static */
		g->name = fz_ldup(c, s->name);
		g->comp = fz_ldup(c, s->comp);
		g->members = arena_alloc(&c->a, sizeof *g->members *
							(size_t)(s->nmembers + 1));
		ok = g->name && g->comp && g->members;
		for (int k = 0; ok && k < s->nmembers; k++)
			ok = (g->members[k] = fz_ldup(c, s->members[k])) != NULL;
	}
	free(cc);
	c->off = l->off;
	for (int i = 0; ok && i < l->nren; i++)
		ok = ren_add(c, l->ren_from[i], l->ren_to[i]);
	if (!ok) {
		fusion_log_free(c);
		return NULL;
	}
	return c;
}

bool fusion_log_add(FusionLog *l, const FusionDecision *d)
{
	if (!fz_grow((void **)&l->d, &l->cap, l->n + 1, sizeof *l->d))
		return false;
	char buf[FUSION_REASON_MAX];
	FusionDecision *c = &l->d[l->n];
	*c = *d;
	c->producer = fz_ldup(l, d->producer);
	c->consumer = fz_ldup(l, d->consumer);
	c->comp = fz_ldup(l, d->comp);
	c->into = fz_ldup(l, d->into);
	c->where = fz_ldup(l, d->where);
	c->reason = fz_ldup(l, fusion_decision_reason(d, buf, sizeof buf));
	c->fmt = NULL;
	c->args = (const unsigned char *)"";
	c->nargs = 0;
	if (!c->producer || !c->consumer || !c->comp || !c->reason ||
	    (d->into && !c->into) || (d->where && !c->where))
		return false;
	l->n++;
	return true;
}

bool fusion_log_merge(FusionLog *dst, FusionLog *src)
{
	if (!fz_grow((void **)&dst->d, &dst->cap, dst->n + src->n,
		     sizeof *dst->d))
		return false;
	/* The strings stay where they are: src's arena becomes dst's. */
	if (src->n)
		memcpy(dst->d + dst->n, src->d,
		       sizeof *src->d * (size_t)src->n);
	dst->n += src->n;
	src->n = 0;
	free(dst->g);
	dst->g = src->g;
	dst->ng = src->ng;
	dst->capg = src->capg;
	src->g = NULL;
	src->ng = src->capg = 0;
	arena_adopt(&dst->a, &src->a);
	dst->off = src->off;
	/* src's strings are dst's now */
	for (int i = 0; i < src->nren; i++)
		if (!ren_add(dst, src->ren_from[i], src->ren_to[i]))
			return false;
	src->nren = 0;
	return fusion_log_refresh(dst);
}

/* ---- an index without keys ------------------------------------------ */

unsigned fz_hash_words(const char *const *s, int n)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < n; i++) {
		for (const unsigned char *p = (const unsigned char *)s[i]; *p;
		     p++) {
			h ^= *p;
			h *= 16777619u;
		}
		h ^= ' ';
		h *= 16777619u;
	}
	return h;
}

/* (fusion_impl.h) */
bool fz_index_resize(FzIndex *ix, int nc, int from)
{
	struct FzSlot *ns = calloc((size_t)nc, sizeof *ns);
	if (!ns)
		return false;
	for (int i = 0; i < ix->cap; i++) {
		if (ix->slot[i].v <= from)
			continue;
		int j = (int)(ix->slot[i].h & (unsigned)(nc - 1));
		while (ns[j].v)
			j = (j + 1) & (nc - 1);
		ns[j] = ix->slot[i];
	}
	free(ix->slot);
	ix->slot = ns;
	ix->cap = nc;
	return true;
}

bool fz_index_reserve(FzIndex *ix, int n)
{
	int nc = ix->cap ? ix->cap : 64;
	while (nc / 2 < n + 1)
		nc *= 2;
	return nc == ix->cap || fz_index_resize(ix, nc, 0);
}

bool fz_index_add_grow(FzIndex *ix, unsigned h, int v)
{
	return fz_index_resize(ix, ix->cap ? ix->cap * 2 : 64, 0) &&
	       fz_index_add(ix, h, v);
}

void fz_index_free(FzIndex *ix)
{
	free(ix->slot);
	memset(ix, 0, sizeof *ix);
}

/* Member k of group g, an entry of the index refresh builds. */
typedef struct MemberRef {
	int g, k;
} MemberRef;

typedef struct MemberQuery {
	const FusionLog *l;
	const MemberRef *refs;
	const char *comp, *name, *group; /* group: NULL for any */
} MemberQuery;

static bool same_member(const void *ctx, int v)
{
	const MemberQuery *q = ctx;
	const FusionGroup *g = &q->l->g[q->refs[v].g];
	return !strcmp(g->members[q->refs[v].k], q->name) &&
	       !strcmp(g->comp, q->comp) &&
	       (!q->group || !strcmp(g->name, q->group));
}

/* The key of member (comp, name) of group g: h2 the hash of the first
 * two, gh of g's name. */
static unsigned in_group(unsigned h2, unsigned gh)
{
	return h2 ^ (gh * 0x9e3779b9u);
}

/* A group of at most this many members is searched, not indexed. */
enum { SCAN_MEMBERS = 8 };

/* What fusion_log_refresh looks decisions' places up in. Each part is
 * made when first needed: after multi-output fusion only a few hundred
 * decisions need a place, and indexing every member of every group for
 * them cost more than the pass's own log. */
typedef struct Places {
	FusionLog *l;
	FzIndex named; /* group name -> group */
	/* (comp, member, group) -> ref: the members of the groups in
	 * indexed, groups too big to search (SCAN_MEMBERS) */
	FzIndex exact;
	MemberRef *refs;
	int nrefs, caprefs;
	bool *indexed;
	/* by: (comp, member) -> the last group holding it (its ref in
	 * last) */
	FzIndex by;
	MemberRef *last;
	bool by_made;
	NameMap ren; /* "comp fusion" -> the one it became part of */
	bool ren_made;
	/* the group name asked last and its hash: a fusion's decisions
	 * come one after another, naming it by the same string */
	const char *asked;
	unsigned asked_h;
} Places;

/* The decision being placed: its names and, once asked, their key. */
typedef struct PlaceQuery {
	const FusionDecision *d;
	unsigned h2;
	bool h2_made;
} PlaceQuery;

static unsigned place_h2(PlaceQuery *pq)
{
	if (!pq->h2_made) {
		const char *w[2] = {pq->d->comp, pq->d->consumer};
		pq->h2 = fz_hash_words(w, 2);
		pq->h2_made = true;
	}
	return pq->h2;
}

static bool places_named(Places *p)
{
	FusionLog *l = p->l;
	p->indexed = calloc((size_t)l->ng + 1, sizeof *p->indexed);
	if (!p->indexed || !fz_index_reserve(&p->named, l->ng))
		return false;
	for (int i = 0; i < l->ng; i++) {
		const char *name = l->g[i].name;
		if (!fz_index_add(&p->named, fz_hash_words(&name, 1), i))
			return false;
	}
	return true;
}

/* Puts group gi's members into p->exact. */
static bool index_members(Places *p, int gi, unsigned gh)
{
	const FusionGroup *g = &p->l->g[gi];
	if (!fz_grow((void **)&p->refs, &p->caprefs, p->nrefs + g->nmembers,
		     sizeof *p->refs))
		return false;
	for (int k = 0; k < g->nmembers; k++) {
		const char *w[2] = {g->comp, g->members[k]};
		p->refs[p->nrefs] = (MemberRef){gi, k};
		if (!fz_index_add(&p->exact, in_group(fz_hash_words(w, 2), gh),
				  p->nrefs++))
			return false;
	}
	p->indexed[gi] = true;
	return true;
}

/* Does group gi (of name hash gh) hold the consumer of pq? */
static bool group_has(Places *p, int gi, unsigned gh, PlaceQuery *pq,
		      bool *ok)
{
	const FusionGroup *g = &p->l->g[gi];
	const FusionDecision *d = pq->d;
	if (strcmp(g->comp, d->comp))
		return false;
	if (g->nmembers <= SCAN_MEMBERS) {
		for (int k = 0; k < g->nmembers; k++)
			if (!strcmp(g->members[k], d->consumer))
				return true;
		return false;
	}
	if (!p->indexed[gi] && !index_members(p, gi, gh)) {
		*ok = false;
		return false;
	}
	MemberQuery q = {p->l, p->refs, d->comp, d->consumer, g->name};
	return fz_index_find(&p->exact, in_group(place_h2(pq), gh),
			     same_member, &q) >= 0;
}

/* Does a group named g hold the consumer of pq as a member? */
static bool holds(Places *p, const char *g, PlaceQuery *pq, bool *ok)
{
	const FzIndex *ix = &p->named;
	if (g != p->asked) {
		p->asked = g;
		p->asked_h = fz_hash_words(&g, 1);
	}
	unsigned gh = p->asked_h;
	if (!ix->cap)
		return false;
	unsigned mask = (unsigned)ix->cap - 1;
	for (unsigned i = gh & mask; ix->slot[i].v; i = (i + 1) & mask) {
		int gi = ix->slot[i].v - 1;
		if (ix->slot[i].h == gh && !strcmp(p->l->g[gi].name, g) &&
		    group_has(p, gi, gh, pq, ok))
			return true;
	}
	return false;
}

static bool places_ren(Places *p)
{
	const FusionLog *l = p->l;
	p->ren_made = true;
	for (int i = 0; i < l->nren; i++)
		if (!namemap_put(&p->ren, l->ren_from[i], l->ren_to[i]))
			return false;
	return true;
}

/* (comp, member) -> the last group holding it. */
static bool places_by(Places *p)
{
	const FusionLog *l = p->l;
	int nrefs = 0;
	for (int i = 0; i < l->ng; i++)
		nrefs += l->g[i].nmembers;
	p->by_made = true;
	p->last = malloc(sizeof *p->last * (size_t)(nrefs + 1));
	if (!p->last || !fz_index_reserve(&p->by, nrefs))
		return false;
	MemberQuery qb = {.l = l, .refs = p->last};
	int nl = 0;
	for (int i = 0; i < l->ng; i++) {
		const FusionGroup *g = &l->g[i];
		for (int k = 0; k < g->nmembers; k++) {
			const char *w[2] = {g->comp, g->members[k]};
			unsigned h = fz_hash_words(w, 2);
			qb.comp = w[0];
			qb.name = w[1];
			/* a name in two groups: the last one counts */
			int at = fz_index_find(&p->by, h, same_member, &qb);
			if (at >= 0) {
				p->last[at] = (MemberRef){i, k};
			} else {
				p->last[nl] = (MemberRef){i, k};
				if (!fz_index_add(&p->by, h, nl++))
					return false;
			}
		}
	}
	return true;
}

/* Is there a group named g in computation comp? */
static bool is_group(const Places *p, const char *comp, const char *g)
{
	const FzIndex *ix = &p->named;
	unsigned gh = fz_hash_words(&g, 1);
	if (!ix->cap)
		return false;
	unsigned mask = (unsigned)ix->cap - 1;
	for (unsigned i = gh & mask; ix->slot[i].v; i = (i + 1) & mask) {
		const FusionGroup *gr = &p->l->g[ix->slot[i].v - 1];
		if (ix->slot[i].h == gh && !strcmp(gr->name, g) &&
		    !strcmp(gr->comp, comp))
			return true;
	}
	return false;
}

/* The fusion that holds decision d's consumer: the one it names (*f)
 * while that still holds a member of the name, or the one that fusion
 * became part of, else the last group that does; none: the one that
 * fusion became part of still (the consumer went, its value computed
 * there by another instruction), else *f cleared unless keep. */
static bool place(Places *p, FusionDecision *d, char **f, bool keep)
{
	PlaceQuery pq = {.d = d};
	bool ok = true;
	if (*f && holds(p, *f, &pq, &ok))
		return true;
	/* the fusion it was in became part of another */
	char *to = *f;
	if (to && !p->ren_made && !places_ren(p))
		return false;
	/* (renames are per computation: fusion.3 of one and of another
	 * are two) */
	for (int hops = 0; to && hops < 64; hops++) {
		char buf[256];
		char *k = ren_key(buf, sizeof buf, d->comp, to);
		if (!k)
			return false;
		char *t = namemap_get(&p->ren, k);
		if (k != buf)
			free(k);
		if (!t || t == to)
			break;
		to = t;
	}
	if (ok && to && to != *f && holds(p, to, &pq, &ok)) {
		*f = to; /* in l's arena */
		return true;
	}
	if (!ok || (!p->by_made && !places_by(p)))
		return false;
	MemberQuery qb = {p->l, p->last, d->comp, d->consumer, NULL};
	int at = fz_index_find(&p->by, place_h2(&pq), same_member, &qb);
	const FusionGroup *g = at >= 0 ? &p->l->g[p->last[at].g] : NULL;
	if (!g && to && to != *f && is_group(p, d->comp, to)) {
		/* the consumer is in no fusion by its name: the one its
		 * fusion became part of computes it (as an instruction that
		 * computed the same already: fz_move_comp_in) */
		*f = to;
		return true;
	}
	if (!g) {
		if (!keep) /* in no fusion now */
			*f = NULL;
		return true;
	}
	return (*f = fz_ldup(p->l, g->name)) != NULL;
}

bool fusion_log_refresh(FusionLog *l) { return fz_log_refresh_from(l, 0); }

/* (fusion_impl.h) */
bool fz_log_refresh_from(FusionLog *l, int first)
{
	/* only decisions not just settled by their pass need a place:
	 * those before the first are done once their flag is cleared */
	for (; first < l->n; first++) {
		FusionDecision *d = &l->d[first];
		if (!d->settled && (d->fused || d->where))
			break;
		d->settled = false;
	}
	if (first == l->n)
		return true;
	Places p = {.l = l};
	namemap_init(&p.ren);
	bool ok = places_named(&p);
	for (int i = first; i < l->n && ok; i++) {
		FusionDecision *d = &l->d[i];
		if (d->settled)
			d->settled = false;
		else if (d->fused)
			ok = place(&p, d, &d->into, true);
		else if (d->where)
			ok = place(&p, d, &d->where, false);
	}
	namemap_free(&p.ren);
	fz_index_free(&p.named);
	fz_index_free(&p.exact);
	fz_index_free(&p.by);
	free(p.refs);
	free(p.indexed);
	free(p.last);
	return ok;
}

const FusionGroup *fusion_log_group(const FusionLog *l, const char *name)
{
	for (int i = 0; l && i < l->ng; i++)
		if (!strcmp(l->g[i].name, name))
			return &l->g[i];
	return NULL;
}

/* Does name (of group g, or NULL) stand for n: n itself, or a member of
 * its group? */
static bool names(const char *name, const FusionGroup *g, const char *n)
{
	if (!strcmp(name, n))
		return true;
	for (int i = 0; g && i < g->nmembers; i++)
		if (!strcmp(g->members[i], n))
			return true;
	return false;
}

int fusion_log_find(const FusionLog *l, const char *a, const char *b,
		    const FusionDecision **out, int max)
{
	int k = 0;
	/* looked up once: a scan of the groups per decision made 'why'
	 * quadratic in a module of thousands of fusions */
	const FusionGroup *ga = fusion_log_group(l, a),
			  *gb = fusion_log_group(l, b);
	for (int i = 0; l && i < l->n; i++) {
		const FusionDecision *d = &l->d[i];
		/* b a fusion: a decision about a copy of its member in
		 * another fusion is not about b */
		const char *at = d->fused ? d->into : d->where;
		bool ab = names(a, ga, d->producer) &&
			  names(b, gb, d->consumer) &&
			  (!gb || !at || !strcmp(d->consumer, b) ||
			   !strcmp(at, b));
		/* Siblings are a pair either way round. */
		bool ba = d->siblings && names(b, gb, d->producer) &&
			  names(a, ga, d->consumer);
		if ((ab || ba) && k < max)
			out[k++] = d;
	}
	return k;
}
