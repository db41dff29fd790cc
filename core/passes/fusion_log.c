/* fusion_log.c - the fusion passes' decision log: decisions and the
 * fusions made, merged across passes, looked up by `why` and
 * `fusions`. The log owns its strings (in its arena), so it outlives
 * the module it describes. */
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
	free(d->reason);
	memset(d, 0, sizeof *d);
}

void fz_clear_groups(FusionLog *l) { l->ng = 0; }

void fusion_log_free(FusionLog *l)
{
	if (!l)
		return;
	arena_free(&l->a);
	free(l->d);
	free(l->g);
	free(l);
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
	return fusion_log_refresh(dst);
}

/* "comp name" in a (a key for the maps below). */
static const char *pair_key(Arena *a, const char *comp, const char *name)
{
	size_t lc = strlen(comp), ln = strlen(name);
	char *k = arena_alloc(a, lc + ln + 2);
	if (k) {
		memcpy(k, comp, lc);
		k[lc] = ' ';
		memcpy(k + lc + 1, name, ln + 1);
	}
	return k;
}

bool fusion_log_refresh(FusionLog *l)
{
	/* "comp member" -> group, then each fused decision's consumer. */
	NameMap by;
	namemap_init(&by);
	Arena keys;
	arena_init(&keys);
	bool ok = true;
	for (int i = 0; i < l->ng && ok; i++) {
		const FusionGroup *g = &l->g[i];
		for (int k = 0; k < g->nmembers && ok; k++) {
			const char *key = pair_key(&keys, g->comp,
						   g->members[k]);
			ok = key && namemap_put(&by, key, (void *)g);
		}
	}
	for (int i = 0; i < l->n && ok; i++) {
		FusionDecision *d = &l->d[i];
		if (!d->fused)
			continue;
		const char *key = pair_key(&keys, d->comp, d->consumer);
		const FusionGroup *g = key ? namemap_get(&by, key) : NULL;
		ok = key != NULL;
		if (g && (!d->into || strcmp(d->into, g->name)))
			ok = (d->into = fz_ldup(l, g->name)) != NULL;
	}
	namemap_free(&by);
	arena_free(&keys);
	return ok;
}

const FusionGroup *fusion_log_group(const FusionLog *l, const char *name)
{
	for (int i = 0; l && i < l->ng; i++)
		if (!strcmp(l->g[i].name, name))
			return &l->g[i];
	return NULL;
}

/* Does name stand for n: n itself, or a group whose members include n? */
static bool names(const FusionLog *l, const char *name, const char *n)
{
	if (!strcmp(name, n))
		return true;
	const FusionGroup *g = fusion_log_group(l, name);
	for (int i = 0; g && i < g->nmembers; i++)
		if (!strcmp(g->members[i], n))
			return true;
	return false;
}

int fusion_log_find(const FusionLog *l, const char *a, const char *b,
		    const FusionDecision **out, int max)
{
	int k = 0;
	for (int i = 0; l && i < l->n; i++) {
		const FusionDecision *d = &l->d[i];
		bool ab = names(l, a, d->producer) && names(l, b, d->consumer);
		/* Siblings are a pair either way round. */
		bool ba = !strcmp(d->pass, "multi-output-fusion") &&
			  names(l, b, d->producer) && names(l, a, d->consumer);
		if ((ab || ba) && k < max)
			out[k++] = d;
	}
	return k;
}
