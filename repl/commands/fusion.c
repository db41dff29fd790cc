/* fusion.c - asking about fusion: `why A B` (why a producer was or was
 * not fused into a consumer), `fusions` (the last fusion pass's
 * decisions) and `fuse A B` (force one fusion, as a history step).
 *
 * Answers come from the decision log the fusion passes leave in the
 * session (core/passes/fusion.h); a pair the log lacks, from a trial
 * run of the fusion pass on a copy of the module (kept per history
 * step), so that the answer before the pass is the one after it; a
 * pair the pass never offers is judged on its own by the same rules. */
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

/* Prints decision d. l: the log it is in (NULL: none, judged on the
 * spot); trial: l is a trial run's, whose fusions the module does not
 * have yet (where d went is said as the trial's). */
static void print_decision(Session *s, const FusionLog *l,
			   const FusionDecision *d, const char *considered,
			   bool trial)
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
	/* (the trial's fusions are named as the pass will name them) */
	if (d->fused && d->into)
		fprintf(s->out,
			trial ? "  (in the trial run: into %s)\n"
			      : "  now in %s\n",
			d->into);
	else if (d->where && ambiguous(l, d))
		fprintf(s->out, "  (about the copy of %s in %s%s)\n",
			d->consumer, d->where,
			trial ? ", in the trial run" : "");
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

/* The kernel x is part of: x, or the fusion whose fused computation
 * holds it (through fusions inside fusions). */
static HloInstr *kernel_of(const HloModule *m, HloInstr *x)
{
	for (int depth = 0; depth < 64; depth++) {
		const HloInstr *f = caller_of(m, x->parent);
		if (!f)
			break;
		x = (HloInstr *)f;
	}
	return x;
}

enum { SAME_NAME_MAX = 16 };

/* The instructions named name in m's computations, the entry's first
 * (HLO text may use a name in several computations); at most max. */
static int named(const HloModule *m, const char *name, HloInstr **out, int max)
{
	int n = 0;
	HloInstr *x = m->entry ? hlo_comp_find(m->entry, name) : NULL;
	if (x)
		out[n++] = x;
	for (int i = 0; i < m->ncomps && n < max; i++)
		if (m->comps[i] != m->entry &&
		    (x = hlo_comp_find(m->comps[i], name)))
			out[n++] = x;
	return n;
}

/* How close two instructions are: in one computation, or in kernels
 * of one (an instruction inside a fusion stands for it), or apart. */
enum { APART, KERNELS_TOGETHER, TOGETHER };

/* Finds both names in module m (false when either is missing): where a
 * name is in several computations, a pair as close as can be (the
 * entry's first); *close says how close. */
static bool find_pair(const HloModule *m, const char *a, const char *b,
		      HloInstr **pa, HloInstr **pb, int *close)
{
	HloInstr *xa[SAME_NAME_MAX], *xb[SAME_NAME_MAX];
	int na = m ? named(m, a, xa, SAME_NAME_MAX) : 0;
	int nb = m ? named(m, b, xb, SAME_NAME_MAX) : 0;
	*close = APART;
	if (!na || !nb)
		return false;
	*pa = xa[0];
	*pb = xb[0];
	for (int i = 0; i < na; i++)
		for (int k = 0; k < nb; k++) {
			HloInstr *x = xa[i], *y = xb[k];
			int c = x->parent == y->parent ? TOGETHER
				: kernel_of(m, x)->parent ==
						kernel_of(m, y)->parent
					? KERNELS_TOGETHER
					: APART;
			if (c > *close) {
				*pa = x;
				*pb = y;
				*close = c;
			}
		}
	return true;
}

/* What 'pass fusion' decides on the current module, from a trial run on
 * a copy: kept in the session for the step and the fusion switch it
 * was made for. NULL when out of memory. */
static const FusionLog *trial_log(Session *s)
{
	const HistStep *h = repl_history_step(s, cmd_current_step(s));
	unsigned long serial = h ? h->serial : 0;
	if (s->trial_log && serial && s->trial_serial == serial &&
	    s->trial_off == s->fusion_off)
		return s->trial_log;
	fusion_log_free(s->trial_log);
	s->trial_log = NULL;
	HloModule *m = hlo_module_clone(s->mod);
	FusionLog *l = fusion_log_new();
	Diag d;
	diag_init(&d);
	PassCtx cx = {.d = &d, .fusion_log = l, .fusion_off = s->fusion_off};
	const Pass *fusion = pass_find("fusion");
	if (m && l && fusion) {
		fusion->run(m, &cx);
		if (cx.oom || d.errors) {
			fusion_log_free(l);
			l = NULL;
		}
	} else {
		fusion_log_free(l);
		l = NULL;
	}
	diag_free(&d);
	hlo_module_free(m);
	s->trial_log = l;
	s->trial_serial = serial;
	s->trial_off = s->fusion_off;
	return l;
}

/* trial_log, or NULL with the error printed. */
static const FusionLog *trial_or_error(Session *s)
{
	const FusionLog *l = trial_log(s);
	if (!l)
		repl_error(s, "out of memory in a trial run of 'pass fusion'");
	return l;
}

/* The trial run's decisions about the edge from p to c of the current
 * module (named as the pass names an edge); how many, at most max, or
 * -1 (the error printed) when memory ran out. */
static int trial_find(Session *s, const HloInstr *p, const HloInstr *c,
		      const FusionDecision **out, int max)
{
	const FusionLog *l = trial_or_error(s);
	if (!l)
		return -1;
	const char *pn, *cn;
	fusion_edge_names(p, c, &pn, &cn);
	return fusion_log_find(l, pn, cn, out, max);
}

/* Says where an answer from the trial run comes from. */
static void trial_note(Session *s)
{
	fprintf(s->out,
		"  (%s: a trial run of 'pass fusion' on a copy of "
		"the module as it is now decides this)\n",
		repl_fusion_log(s) ? "not in the last fusion pass's log"
				   : "no fusion pass has run");
}

/* Prints the trial run's decisions about names a and b, asked as the
 * log is asked (so that the answer is the one the log gives after the
 * pass); how many, or -1 (the error printed) when memory ran out. */
static int trial_by_name(Session *s, const char *a, const char *b)
{
	const FusionLog *tl = trial_or_error(s);
	if (!tl)
		return -1;
	/* names of the module as it is (not those the trial makes) */
	if (!repl_find_instr(s->mod, a) || !repl_find_instr(s->mod, b))
		return 0;
	const FusionDecision *found[WHY_MAX];
	int n = fusion_log_find(tl, a, b, found, WHY_MAX);
	for (int i = 0; i < n; i++)
		print_decision(s, tl, found[i], "no", true);
	if (n)
		trial_note(s);
	return n;
}

/* Prints decision d of the session's log, considered by its pass. */
static void print_logged(Session *s, const FusionDecision *d)
{
	char tag[64];
	snprintf(tag, sizeof tag, "yes (pass %s)", d->pass);
	print_decision(s, repl_fusion_log(s), d, tag, false);
}

/* Says which of x and y were asked about as the kernels kx and ky they
 * are part of (one of them is). */
static void inside_note(Session *s, const HloInstr *x, const HloInstr *kx,
			const HloInstr *y, const HloInstr *ky)
{
	fprintf(s->out, "  (");
	if (x != kx)
		fprintf(s->out, "%s is part of %s%s", x->name, kx->name,
			y != ky ? ", " : "");
	if (y != ky)
		fprintf(s->out, "%s is part of %s", y->name, ky->name);
	fprintf(s->out, ": answered for the kernel%s)\n",
		x != kx && y != ky ? "s" : "");
}

/* Judges a pair the log does not have: in the current module, or in the
 * module the last fusion pass started from (where the original names
 * are), preferring the one that has both in one computation. In the
 * current module, what the pass itself decides comes from a trial run
 * (a producer is offered to its consumer's kernel as it has grown,
 * which judging the pair on its own does not see). */
static bool judge(Session *s, const char *a, const char *b)
{
	int nb = trial_by_name(s, a, b);
	if (nb)
		return nb > 0;
	const HloModule *cand[2] = {s->mod, NULL};
	int base;
	if (repl_fusion_log_at(s, cmd_current_step(s), NULL, &base)) {
		/* NULL (the error printed) only when out of memory. */
		if (repl_history_step(s, base) &&
		    !(cand[1] = repl_history_module(s, base)))
			return false;
	}
	/* the closest pair, the current module's first */
	const HloModule *m = NULL;
	HloInstr *pa = NULL, *pb = NULL;
	for (int want = TOGETHER; want >= APART && !m; want--)
		for (int i = 0; i < 2 && !m; i++) {
			HloInstr *x, *y;
			int close;
			if (!find_pair(cand[i], a, b, &x, &y, &close) ||
			    close < want)
				continue;
			m = cand[i];
			pa = x;
			pb = y;
		}
	if (!m) {
		const char *miss = !repl_find_instr(s->mod, a) ? a : b;
		return repl_error(s, "no instruction named '%s'",
				  repl_bare_name(miss));
	}
	HloInstr *ka = kernel_of(m, pa), *kb = kernel_of(m, pb);
	if (ka == kb && (ka != pa || kb != pb)) {
		const char *kind = hlo_attr_enum(ka, A_KIND);
		fprintf(s->out,
			"why: producer=%s consumer=%s fused=yes "
			"rule=same-fusion bytes_saved=0 considered=no\n",
			pa->name, pb->name);
		fprintf(s->out, "  both are already inside %s (kind=%s)\n",
			ka->name, kind ? kind : "?");
		return true;
	}
	/* an instruction inside a fusion stands for it */
	bool inside = ka->parent == kb->parent && (ka != pa || kb != pb);
	HloInstr *p = inside ? ka : pa, *c = inside ? kb : pb;
	FusionDecision d;
	fusion_judge(m, p, c, s->fusion_off, &d);
	if (!d.producer || !d.reason) {
		fusion_decision_free(&d);
		return repl_error(s, "out of memory");
	}
	bool never = !strcmp(d.rule, "not-producer-consumer") ||
		     !strcmp(d.rule, "different-computations") ||
		     !strcmp(d.rule, "not-fused-here");
	const FusionDecision *found[WHY_MAX];
	int n = !never && m == s->mod ? trial_find(s, p, c, found, WHY_MAX) : 0;
	if (n < 0) {
		fusion_decision_free(&d);
		return false;
	}
	for (int i = 0; i < n; i++)
		print_decision(s, s->trial_log, found[i], "no", true);
	if (!n)
		print_decision(s, NULL, &d, "no", false);
	if (inside)
		inside_note(s, pa, p, pb, c);
	if (!strcmp(d.rule, "not-producer-consumer"))
		fprintf(s->out, "  (the fusion pass never considers such a "
				"pair)\n");
	else if (never)
		fprintf(s->out, "  (the fusion passes never consider such a "
				"pair)\n");
	else if (n)
		trial_note(s);
	else if (m == s->mod)
		fprintf(s->out,
			"  (judged on its own: a trial run of 'pass "
			"fusion' on a copy of the module as it is now "
			"records no decision about %s and %s)\n",
			p->name, c->name);
	else
		fprintf(s->out,
			"  (not in the last fusion pass's log: judged "
			"on its own, in the module before that pass)\n");
	fusion_decision_free(&d);
	return true;
}

/* A pair the log names by the kernels the two are part of now: the
 * multi-output pass decides about two kernels (siblings), each named
 * by its value. Prints those decisions; how many. */
static int kernel_siblings(Session *s, const char *a, const char *b)
{
	const FusionLog *l = repl_fusion_log(s);
	HloInstr *x, *y;
	int close;
	if (!l || !find_pair(s->mod, a, b, &x, &y, &close))
		return 0;
	HloInstr *kx = kernel_of(s->mod, x), *ky = kernel_of(s->mod, y);
	if (kx == ky || (kx == x && ky == y))
		return 0;
	const FusionDecision *found[WHY_MAX];
	int n = fusion_log_find(l, kx->name, ky->name, found, WHY_MAX), k = 0;
	for (int i = 0; i < n; i++) {
		if (!found[i]->siblings)
			continue;
		print_logged(s, found[i]);
		k++;
	}
	if (k)
		inside_note(s, x, kx, y, ky);
	return k;
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
	/* (a name may be used in two computations: the trial run may
	 * have it at both ends, as the log would after the pass) */
	int nt = 0;
	if (!strcmp(pa, pb) && n == 0 && (nt = trial_by_name(s, pa, pb)) != 0)
		return nt > 0;
	if (!strcmp(pa, pb) &&
	    (n == 0 || fusion_log_group(repl_fusion_log(s), pa)))
		return repl_error(s, "'%s' twice: 'why' asks about a producer "
				     "and a consumer", pa);
	if (n == 0 && kernel_siblings(s, pa, pb))
		return true;
	if (n == 0)
		return judge(s, pa, pb);
	if (repl_fusion_log(s)->off)
		fprintf(s->out, "(the fusion pass ran with 'set fusion off')\n");
	for (int i = 0; i < n; i++)
		print_logged(s, found[i]);
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
	     !fusion_log_renamed(l, v->comp, v->producer, into)) ||
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
	/* what the pass itself decides: a trial run's answer, where the
	 * pair is judged with the kernel the consumer is part of by then */
	const FusionDecision *td[WHY_MAX];
	int tried = trial_find(s, p, c, td, WHY_MAX);
	if (tried < 0) {
		hlo_module_free(m);
		return false;
	}
	/* the decision about c itself, not a copy of it in another kernel:
	 * the newest of its computation (c is offered its operands after
	 * its readers, which may have taken copies of it) */
	const FusionDecision *mine = NULL;
	for (int i = 0; i < tried; i++)
		if (!strcmp(td[i]->comp, c->parent->name))
			mine = td[i];
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
	if (mine) {
		char reason[FUSION_REASON_MAX];
		char *r = strdup(
			fusion_decision_reason(mine, reason, sizeof reason));
		if (!r) {
			fusion_decision_free(&v);
			hlo_module_free(m);
			return repl_error(s, "out of memory");
		}
		free(v.reason);
		v.reason = r;
		v.fused = mine->fused;
		v.rule = mine->rule;
	}
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
