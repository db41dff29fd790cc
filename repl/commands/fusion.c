/* fusion.c - asking about fusion: `why A B` (why a producer was or was
 * not fused into a consumer), `fusions` (the last fusion pass's
 * decisions) and `fuse A B` (force one fusion, as a history step).
 *
 * Answers come from the decision log the fusion passes leave in the
 * session (core/passes/fusion.h); a pair the passes never considered is
 * judged on the spot by the same rules. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "passes/cost.h"
#include "passes/fusion.h"
#include "verify.h"

enum { WHY_MAX = 16, FUSIONS_MAX_LINES = 200 };

static const char *yes_no(bool b) { return b ? "yes" : "no"; }

/* Are d and e decisions of one pass about the same two names? */
static bool same_pair(const FusionDecision *d, const FusionDecision *e)
{
	return e->siblings == d->siblings && !strcmp(e->pass, d->pass) &&
	       !strcmp(e->consumer, d->consumer) &&
	       !strcmp(e->producer, d->producer) && !strcmp(e->comp, d->comp);
}

/* Does the log hold another decision of the same pass about the same
 * two names (a consumer copied into several fusions has one per copy)? */
static bool ambiguous(const FusionLog *l, const FusionDecision *d)
{
	for (int i = 0; l && i < l->n; i++)
		if (&l->d[i] != d && same_pair(d, &l->d[i]))
			return true;
	return false;
}

/* ambiguous for every decision of a log at once, for `fusions`, which
 * asks of up to FUSIONS_MAX_LINES of them: a scan of the log each was
 * 99M instructions at 10k instructions and 0.4 s at 100k. The log's
 * decisions sorted by their pair (a hash, then the names), so that
 * equal pairs are neighbours; made when first asked. */
typedef struct PairKey {
	uint64_t h;
	int i; /* the decision's index */
	const FusionDecision *d;
} PairKey;

typedef struct PairOrder {
	const FusionLog *l;
	bool made;
	PairKey *by_pair; /* NULL: out of memory, ambiguous scans */
	int *place;       /* a decision's place in by_pair */
} PairOrder;

static uint64_t pair_hash(const FusionDecision *d)
{
	const char *parts[] = {d->pass, d->consumer, d->producer, d->comp};
	uint64_t h = 1469598103934665603u ^ (uint64_t)d->siblings;
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
		for (const char *c = parts[i]; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211u;
		h = (h ^ 0xff) * 1099511628211u; /* "ab","c" vs "a","bc" */
	}
	return h;
}

static int by_pair(const void *pa, const void *pb)
{
	const PairKey *a = pa, *b = pb;
	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	const FusionDecision *d = a->d, *e = b->d;
	int c = strcmp(d->pass, e->pass);
	c = c ? c : strcmp(d->consumer, e->consumer);
	c = c ? c : strcmp(d->producer, e->producer);
	c = c ? c : strcmp(d->comp, e->comp);
	c = c ? c : (int)d->siblings - (int)e->siblings;
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

static void pair_order_make(PairOrder *o)
{
	const FusionLog *l = o->l;
	size_t n = (size_t)l->n;
	o->made = true;
	o->by_pair = malloc(n * sizeof *o->by_pair + 1);
	o->place = malloc(n * sizeof *o->place + 1);
	if (!o->by_pair || !o->place) {
		free(o->by_pair);
		free(o->place);
		o->by_pair = NULL;
		o->place = NULL;
		return;
	}
	for (int i = 0; i < l->n; i++)
		o->by_pair[i] = (PairKey){pair_hash(&l->d[i]), i, &l->d[i]};
	qsort(o->by_pair, n, sizeof *o->by_pair, by_pair);
	for (int k = 0; k < l->n; k++)
		o->place[o->by_pair[k].i] = k;
}

static void pair_order_free(PairOrder *o)
{
	free(o->by_pair);
	free(o->place);
}

/* ambiguous(o->l, &o->l->d[i]): a neighbour in pair order with the same
 * pair */
static bool ambiguous_at(PairOrder *o, int i)
{
	const FusionLog *l = o->l;
	if (!o->made)
		pair_order_make(o);
	if (!o->by_pair)
		return ambiguous(l, &l->d[i]);
	int k = o->place[i];
	return (k > 0 && same_pair(&l->d[i], o->by_pair[k - 1].d)) ||
	       (k + 1 < l->n && same_pair(&l->d[i], o->by_pair[k + 1].d));
}

static void print_decision(Session *s, const FusionDecision *d,
			   const char *considered)
{
	char h[32];
	fprintf(s->out,
		"why: producer=%s consumer=%s fused=%s rule=%s "
		"bytes_saved=%lld considered=%s\n",
		d->producer, d->consumer, yes_no(d->fused), d->rule,
		(long long)d->bytes_saved, considered);
	char why[FUSION_REASON_MAX];
	fprintf(s->out, "  %s\n", fusion_decision_reason(d, why, sizeof why));
	if (d->siblings)
		fprintf(s->out, "  (as siblings: %s and %s are two kernels "
				"that read the same value)\n",
			d->producer, d->consumer);
	if (d->fused && d->into)
		fprintf(s->out, "  now in %s\n", d->into);
	else if (d->where && ambiguous(repl_fusion_log(s), d))
		fprintf(s->out, "  (about the copy of %s in %s)\n", d->consumer,
			d->where);
	if (d->bytes_saved > 0 && !d->fused)
		fprintf(s->out, "  fusing would have saved %s of memory "
				"traffic\n",
			repl_bytes(h, sizeof h, d->bytes_saved));
	else if (d->bytes_saved > 0)
		fprintf(s->out, "  saves %s of memory traffic\n",
			repl_bytes(h, sizeof h, d->bytes_saved));
}

/* The fusion instruction whose computation is fc, in m. */
static const HloInstr *caller_of(const HloModule *m, const HloComp *fc)
{
	for (int i = 0; i < m->ncomps; i++)
		for (int j = 0; j < m->comps[i]->n; j++) {
			const HloInstr *x = m->comps[i]->instrs[j];
			if (x->op == HLO_FUSION && hlo_attr_comp(x, A_CALLS) == fc)
				return x;
		}
	return NULL;
}

/* Finds both names in module m (NULL when either is missing). */
static bool find_pair(const HloModule *m, const char *a, const char *b,
		      HloInstr **pa, HloInstr **pb)
{
	if (!m)
		return false;
	*pa = repl_find_instr(m, a);
	*pb = repl_find_instr(m, b);
	return *pa && *pb;
}

/* Judges a pair the log does not have: in the current module, or in the
 * module the last fusion pass started from (where the original names
 * are), preferring the one that has both in one computation. */
static bool judge(Session *s, const char *a, const char *b)
{
	const HloModule *cand[2] = {s->mod, NULL};
	const char *when[2] = {"now", "before the fusion pass"};
	int base;
	if (repl_fusion_log_at(s, cmd_current_step(s), NULL, &base)) {
		/* NULL (the error printed) only when out of memory. */
		if (repl_history_step(s, base) &&
		    !(cand[1] = repl_history_module(s, base)))
			return false;
	}
	const HloModule *m = NULL;
	const char *where = NULL;
	HloInstr *pa = NULL, *pb = NULL;
	for (int pass = 0; pass < 2 && !m; pass++)
		for (int i = 0; i < 2 && !m; i++) {
			HloInstr *x, *y;
			if (!find_pair(cand[i], a, b, &x, &y) ||
			    (pass == 0 && x->parent != y->parent))
				continue;
			m = cand[i];
			where = when[i];
			pa = x;
			pb = y;
		}
	if (!m) {
		const char *miss = !repl_find_instr(s->mod, a) ? a : b;
		return repl_error(s, "no instruction named '%s'",
				  repl_bare_name(miss));
	}
	FusionDecision d;
	const HloInstr *fa = caller_of(m, pa->parent);
	const HloInstr *fb = caller_of(m, pb->parent);
	if (fa && fa == fb) {
		fprintf(s->out,
			"why: producer=%s consumer=%s fused=yes "
			"rule=same-fusion bytes_saved=0 considered=no\n",
			pa->name, pb->name);
		fprintf(s->out, "  both are already inside %s (kind=%s)\n",
			fa->name, hlo_attr_enum(fa, A_KIND) ? hlo_attr_enum(fa, A_KIND) : "?");
		return true;
	}
	fusion_judge(m, pa, pb, s->fusion_off, &d);
	if (!d.producer || !d.reason) {
		fusion_decision_free(&d);
		return repl_error(s, "out of memory");
	}
	print_decision(s, &d, "no");
	if (!strcmp(d.rule, "not-producer-consumer") ||
	    !strcmp(d.rule, "different-computations") ||
	    !strcmp(d.rule, "not-fused-here"))
		fprintf(s->out, "  (the fusion passes never consider such a "
				"pair)\n");
	else if (!repl_fusion_log(s))
		fprintf(s->out, "  (no fusion pass has run: this is what "
				"'pass fusion' would decide %s)\n",
			where);
	else
		fprintf(s->out, "  (not in the last fusion pass's log: this "
				"is what the pass would decide %s)\n",
			where);
	fusion_decision_free(&d);
	return true;
}

bool cmd_why(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	const char *pa = repl_bare_name(a->argv[0]);
	const char *pb = repl_bare_name(a->argv[1]);
	/* Two computations may each have an instruction of that name: a
	 * pair the log holds is answered. */
	const FusionDecision *found[WHY_MAX];
	int n = fusion_log_find(repl_fusion_log(s), pa, pb, found, WHY_MAX);
	if (!strcmp(pa, pb) &&
	    (n == 0 || fusion_log_group(repl_fusion_log(s), pa)))
		return repl_error(s, "'%s' twice: 'why' asks about a producer "
				     "and a consumer", pa);
	if (n == 0)
		return judge(s, pa, pb);
	if (repl_fusion_log(s)->off)
		fprintf(s->out, "(the fusion pass ran with 'set fusion off')\n");
	for (int i = 0; i < n; i++) {
		char tag[64];
		snprintf(tag, sizeof tag, "yes (pass %s)", found[i]->pass);
		print_decision(s, found[i], tag);
	}
	return true;
}

/* Counts decisions by rule, for the summary. */
static void summary(Session *s, const FusionLog *l)
{
	int nr;
	const FusionRule *r = fusion_rules(&nr);
	for (int k = 0; k < nr; k++) {
		int fused = 0, no = 0;
		for (int i = 0; i < l->n; i++) {
			if (l->d[i].rule != r[k].name)
				continue;
			if (l->d[i].fused)
				fused++;
			else
				no++;
		}
		if (fused + no)
			fprintf(s->out, "  %-32s %5d\n", r[k].name, fused + no);
	}
}

/* Does the filter word of `fusions` select d? */
static bool wanted(const FusionDecision *d, const char *w)
{
	if (!strcmp(w, "fused"))
		return d->fused;
	if (!strcmp(w, "declined"))
		return !d->fused;
	return !strcmp(d->rule, w) || !strcmp(d->producer, w) ||
	       !strcmp(d->consumer, w) || (d->into && !strcmp(d->into, w));
}

/* Is w a word `fusions` understands (a rule, fused, declined)? */
static bool known_filter(const char *w)
{
	int n;
	const FusionRule *r = fusion_rules(&n);
	for (int i = 0; i < n; i++)
		if (!strcmp(r[i].name, w))
			return true;
	return !strcmp(w, "fused") || !strcmp(w, "declined");
}

bool cmd_fusions(Session *s, const CmdArgs *a)
{
	int at;
	const FusionLog *l =
		repl_fusion_log_at(s, cmd_current_step(s), &at, NULL);
	if (!l && repl_fusion_log_undone(s))
		return repl_error(s, "the last fusion pass's step was undone "
				     "(try 'redo' or 'pass fusion')");
	if (!l)
		return repl_error(s, "no fusion pass in the history up to "
				     "this step (try 'pass fusion')");
	int fused = 0;
	for (int i = 0; i < l->n; i++)
		fused += l->d[i].fused;
	if (a->argc) {
		const char *w = repl_bare_name(a->argv[0]);
		bool any = known_filter(w);
		for (int i = 0; i < l->n && !any; i++)
			any = wanted(&l->d[i], w);
		if (!any)
			return repl_error(s, "'%s' is not fused, declined, a "
					     "rule, or an instruction in the "
					     "log", w);
	}
	fprintf(s->out,
		"fusions: step=%d considered=%d fused=%d declined=%d "
		"groups=%d\n",
		at, l->n, fused, l->n - fused, l->ng);
	if (l->off)
		fprintf(s->out, "(the pass ran with 'set fusion off')\n");
	const char *only = a->argc ? repl_bare_name(a->argv[0]) : NULL;
	int shown = 0;
	char h[32], why[FUSION_REASON_MAX];
	PairOrder ord = {.l = l};
	for (int i = 0; i < l->n; i++) {
		const FusionDecision *d = &l->d[i];
		if (only && !wanted(d, only))
			continue;
		if (shown == FUSIONS_MAX_LINES) {
			int more = 0;
			for (int k = i; k < l->n; k++)
				more += !only || wanted(&l->d[k], only);
			fprintf(s->out, "  ... %d more decisions ('why A B' "
					"asks about one pair)\n",
				more);
			break;
		}
		shown++;
		/* siblings are a pair, not an arrow */
		const char *rel = d->siblings ? "+" : "->";
		if (d->fused)
			fprintf(s->out, "  fused    %s %s %s  [%s] into %s%s, "
					"saves %s\n",
				d->producer, rel, d->consumer, d->rule,
				d->into ? d->into : "?",
				strcmp(d->pass, "fuse") ? "" : " by 'fuse'",
				repl_bytes(h, sizeof h, d->bytes_saved));
		else if (d->where && ambiguous_at(&ord, i))
			fprintf(s->out, "  declined %s %s %s (in %s)  [%s] %s\n",
				d->producer, rel, d->consumer, d->where, d->rule,
				fusion_decision_reason(d, why, sizeof why));
		else
			fprintf(s->out, "  declined %s %s %s  [%s] %s\n",
				d->producer, rel, d->consumer, d->rule,
				fusion_decision_reason(d, why, sizeof why));
	}
	pair_order_free(&ord);
	if (only && !shown)
		fprintf(s->out, "  (no decision matches '%s')\n", only);
	fprintf(s->out, "decisions by rule:\n");
	summary(s, l);
	if (l->ng)
		fprintf(s->out, "fusion groups:\n");
	for (int i = 0; i < l->ng && i < FUSIONS_MAX_LINES; i++) {
		const FusionGroup *g = &l->g[i];
		fprintf(s->out, "  %-20s %-7s%s", g->name, g->kind,
			g->multi_output ? " multi-output:" : ":");
		for (int k = 0; k < g->nmembers; k++)
			fprintf(s->out, " %s", g->members[k]);
		fputc('\n', s->out);
	}
	if (l->ng > FUSIONS_MAX_LINES)
		fprintf(s->out, "  ... %d more groups\n",
			l->ng - FUSIONS_MAX_LINES);
	return true;
}

/* The `fuse` step (current) keeps the log it answers from: the one
 * before it with the forced fusion added, its groups those of the module
 * now (a fusion `fuse` merged away is no longer named as where a
 * consumer is). */
static void keep_fuse_log(Session *s, const FusionDecision *v,
			  const char *prod, const char *cons, const char *into)
{
	int step = cmd_current_step(s), base = step - 1;
	const FusionLog *prev = repl_fusion_log_at(s, step - 1, NULL, &base);
	FusionLog *l = prev ? fusion_log_copy(prev) : fusion_log_new();
	char why[FUSION_REASON_MAX], text[FUSION_REASON_MAX + 64];
	snprintf(text, sizeof text, "forced with 'fuse' (the fusion pass %s: %s)",
		 v->fused ? "would fuse them too" : "would not",
		 fusion_decision_reason(v, why, sizeof why));
	/* named as the passes name an edge (the producer's value, the
	 * instruction inside that reads it): a later pass that renames or
	 * merges the fusions still finds where the consumer is */
	FusionDecision d = *v;
	d.producer = (char *)prod;
	d.consumer = (char *)cons;
	d.pass = "fuse";
	d.fused = true;
	d.into = (char *)into;
	d.reason = text;
	/* a fusion fused into another: decisions placed in it follow */
	if (!l || !fusion_log_add(l, &d) ||
	    (strcmp(v->producer, into) &&
	     !fusion_log_renamed(l, v->producer, into)) ||
	    !fusion_log_regroup(l, s->mod)) {
		fusion_log_free(l);
		repl_error(s, "out of memory keeping the fusion log");
		return;
	}
	if (!prev)
		l->off = false;
	repl_keep_fusion_log(s, step, l, prev ? base : step - 1);
}

bool cmd_fuse(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	HloModule *m = hlo_module_clone(s->mod);
	if (!m)
		return repl_error(s, "out of memory");
	const char *na = repl_bare_name(a->argv[0]);
	const char *nb = repl_bare_name(a->argv[1]);
	HloInstr *p = repl_find_instr(m, na), *c = repl_find_instr(m, nb);
	if (!p || !c) {
		hlo_module_free(m);
		return repl_error(s, "no instruction named '%s'", !p ? na : nb);
	}
	if (p == c) {
		hlo_module_free(m);
		return repl_error(s, "'%s' twice: 'fuse' takes a producer and "
				     "a consumer", na);
	}
	/* the machine line names them as found, not as typed ('%%x') */
	char pname[128], cname[128];
	snprintf(pname, sizeof pname, "%s", p->name);
	snprintf(cname, sizeof cname, "%s", c->name);
	int kernels = hlo_module_kernels(m);
	int64_t bytes = cost_bytes_moved(m);
	FusionDecision v;
	const char *made = NULL, *pn, *cn;
	char prod[128], cons[128];
	fusion_edge_names(p, c, &pn, &cn);
	snprintf(prod, sizeof prod, "%s", pn);
	snprintf(cons, sizeof cons, "%s", cn);
	if (!fusion_force(m, p, c, s->fusion_off, &v, &made)) {
		bool ok = repl_error(s, "cannot fuse %s into %s: %s", na, nb,
				     v.reason ? v.reason : "out of memory");
		fusion_decision_free(&v);
		hlo_module_free(m);
		return ok;
	}
	Diag d;
	diag_init(&d);
	bool oom = false;
	if (!verify_module_oom(m, &d, NULL, &oom)) {
		/* A forced fusion that breaks the module is our bug. */
		if (oom)
			repl_error(s, "out of memory verifying the fusion");
		else
			repl_error(s,
				   "internal error: 'fuse %s %s' broke "
				   "the module",
				   na, nb);
		repl_print_diag(s, &d);
		diag_free(&d);
		fusion_decision_free(&v);
		hlo_module_free(m);
		return false;
	}
	diag_free(&d);
	char label[80], into[64];
	snprintf(into, sizeof into, "%s", made);
	snprintf(label, sizeof label, "fuse %s %s", na, nb);
	int kernels_after = hlo_module_kernels(m);
	int64_t bytes_after = cost_bytes_moved(m);
	if (!repl_commit_module(s, m, label)) {
		fusion_decision_free(&v);
		return false;
	}
	keep_fuse_log(s, &v, prod, cons, into);
	char h[32];
	fprintf(s->out,
		"fuse: producer=%s consumer=%s into=%s kernels=%d->%d "
		"bytes_saved=%lld pass_would_fuse=%s rule=%s\n",
		pname, cname, into, kernels, kernels_after,
		(long long)v.bytes_saved, yes_no(v.fused), v.rule);
	fprintf(s->out, "  the fusion pass %s: %s\n",
		v.fused ? "would fuse them too" : "would not", v.reason);
	char h2[32];
	fprintf(s->out, "  cost model: bytes moved %s -> %s\n",
		repl_bytes(h, sizeof h, bytes),
		repl_bytes(h2, sizeof h2, bytes_after));
	fusion_decision_free(&v);
	return true;
}

void cmd_complete_fusions(const Session *s, const char *prefix,
			  CmdMatches *out)
{
	size_t k = strlen(prefix);
	int n;
	const FusionRule *r = fusion_rules(&n);
	static const char *const words[] = {"fused", "declined"};
	for (int i = 0; i < 2; i++)
		if (!strncmp(words[i], prefix, k))
			cmd_matches_add(out, words[i]);
	for (int i = 0; i < n; i++)
		if (!strncmp(r[i].name, prefix, k))
			cmd_matches_add(out, r[i].name);
	cmd_complete_instrs(s, prefix, out);
}
