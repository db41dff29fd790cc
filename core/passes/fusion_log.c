/* fusion_log.c - the fusion passes' decision log: decisions and the
 * fusions made, merged across passes, looked up by `why` and
 * `fusions`. The log owns its strings (malloc), so it outlives the
 * module it describes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusion_impl.h"

/* ---- the log -------------------------------------------------------- */

FusionLog *fusion_log_new(void) { return calloc(1, sizeof(FusionLog)); }

void fusion_decision_free(FusionDecision *d)
{
	free(d->producer);
	free(d->consumer);
	free(d->comp);
	free(d->into);
	free(d->reason);
	memset(d, 0, sizeof *d);
}

static void group_free(FusionGroup *g)
{
	free(g->name);
	free(g->comp);
	for (int i = 0; i < g->nmembers; i++)
		free(g->members[i]);
	free(g->members);
}

void fz_clear_groups(FusionLog *l)
{
	for (int i = 0; i < l->ng; i++)
		group_free(&l->g[i]);
	l->ng = 0;
}

void fusion_log_free(FusionLog *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n; i++)
		fusion_decision_free(&l->d[i]);
	free(l->d);
	fz_clear_groups(l);
	free(l->g);
	free(l);
}

char *fz_dup(const char *s) { return s ? strdup(s) : NULL; }

static bool copy_decision(FusionDecision *d, const FusionDecision *s)
{
	*d = *s;
	d->producer = fz_dup(s->producer);
	d->consumer = fz_dup(s->consumer);
	d->comp = fz_dup(s->comp);
	d->into = fz_dup(s->into);
	d->reason = fz_dup(s->reason);
	return d->producer && d->consumer && d->comp && d->reason &&
	       (d->into || !s->into);
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

static bool copy_group(FusionGroup *d, const FusionGroup *s)
{
	memset(d, 0, sizeof *d);
	d->name = fz_dup(s->name);
	d->comp = fz_dup(s->comp);
	d->kind = s->kind;
	d->multi_output = s->multi_output;
	d->members = calloc((size_t)s->nmembers + 1, sizeof *d->members);
	if (!d->name || !d->comp || !d->members)
		return false;
	for (int i = 0; i < s->nmembers; i++) {
		if (!(d->members[i] = fz_dup(s->members[i])))
			return false;
		d->nmembers++;
	}
	return true;
}

bool fusion_log_merge(FusionLog *dst, const FusionLog *src)
{
	if (!fz_grow((void **)&dst->d, &dst->cap, dst->n + src->n,
		     sizeof *dst->d))
		return false;
	for (int i = 0; i < src->n; i++) {
		if (!copy_decision(&dst->d[dst->n], &src->d[i])) {
			fusion_decision_free(&dst->d[dst->n]);
			return false;
		}
		dst->n++;
	}
	fz_clear_groups(dst);
	if (!fz_grow((void **)&dst->g, &dst->capg, src->ng, sizeof *dst->g))
		return false;
	for (int i = 0; i < src->ng; i++) {
		bool ok = copy_group(&dst->g[dst->ng], &src->g[i]);
		dst->ng++;
		if (!ok)
			return false;
	}
	dst->off = src->off;
	return fusion_log_refresh(dst);
}

bool fusion_log_refresh(FusionLog *l)
{
	/* "comp member" -> group, then each fused decision's consumer. */
	NameMap by;
	namemap_init(&by);
	char **keys = NULL;
	int nk = 0, capk = 0;
	bool ok = true;
	for (int i = 0; i < l->ng && ok; i++) {
		const FusionGroup *g = &l->g[i];
		for (int k = 0; k < g->nmembers && ok; k++) {
			size_t n = strlen(g->comp) + strlen(g->members[k]) + 2;
			char *key = malloc(n);
			ok = key && fz_grow((void **)&keys, &capk, nk + 1,
					    sizeof *keys);
			if (!ok) {
				free(key);
				break;
			}
			snprintf(key, n, "%s %s", g->comp, g->members[k]);
			keys[nk++] = key;
			ok = namemap_put(&by, key, (void *)g);
		}
	}
	for (int i = 0; i < l->n && ok; i++) {
		FusionDecision *d = &l->d[i];
		if (!d->fused)
			continue;
		size_t n = strlen(d->comp) + strlen(d->consumer) + 2;
		char *key = malloc(n);
		if (!key) {
			ok = false;
			break;
		}
		snprintf(key, n, "%s %s", d->comp, d->consumer);
		const FusionGroup *g = namemap_get(&by, key);
		free(key);
		if (g && (!d->into || strcmp(d->into, g->name))) {
			free(d->into);
			ok = (d->into = fz_dup(g->name)) != NULL;
		}
	}
	namemap_free(&by);
	for (int i = 0; i < nk; i++)
		free(keys[i]);
	free(keys);
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
