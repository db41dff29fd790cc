/* fusion.c - producer/consumer fusion and multi-output fusion, each
 * decision logged with the rule that made it.
 *
 * Does (pass `fusion`, after XLA's classic InstructionFusion): in every
 * computation that runs as code (the entry, while bodies and conditions,
 * conditional branches, called computations; not reducers or
 * comparators), visits consumers before producers and offers each
 * consumer its operands one by one. A fusion joins a producer into its
 * consumer's fusion instruction (`fusion(...), kind=kLoop,
 * calls=%fused_computation`): kLoop for elementwise and data-movement
 * ops, kInput when a reduce is the hero (its producers fused into its
 * input, an elementwise epilogue of the same shape into its output),
 * kOutput when a dot or convolution is the hero (only an elementwise
 * epilogue). A cheap producer with other users is duplicated when that
 * costs no extra reads of large arrays; an expensive one never is.
 * Pass `multi-output-fusion` then joins siblings that read the same
 * array (one kernel reads it once) and fuses a producer with several
 * users into one consumer, keeping it as an extra output for the others.
 * Requires: a verified module. Invalidates: instruction positions,
 * computation list (new fused computations), ids of removed instructions.
 *
 * Every pair considered is recorded in cx->fusion_log with a rule from
 * fusion_rules and the estimated bytes moved it saves. */
#include "fusion.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

/* Caps on one fusion, as XLA's: operands (its GPU budget is 96 operands
 * and outputs) and fused instructions (code size). */
enum { FUSION_MAX_OPERANDS = 96, FUSION_MAX_INSTRS = 200 };

/* clang-format off */
static const FusionRule rules[] = {
	{"fused-loop", "an elementwise or data-movement producer joins its consumer's loop (kLoop)"},
	{"fused-into-reduce", "a producer joins the input of a reduction (kInput)"},
	{"reduce-epilogue", "an elementwise op of the reduction's result shape joins it as an epilogue (kInput)"},
	{"dot-epilogue", "an elementwise op of the dot/convolution's result shape joins it as an epilogue (kOutput)"},
	{"fused-duplicated", "a cheap producer is copied into this consumer; its other users keep it"},
	{"sibling", "two kernels that read the same array become one multi-output kernel that reads it once"},
	{"producer-consumer-multi-output", "a producer with several users joins one consumer and stays an extra output for the others"},
	{"fusion-off", "fusion is switched off ('set fusion off')"},
	{"consumer-not-fusible", "the consumer cannot be part of a fusion (parameter, tuple, control flow, custom-call, side effects, ...)"},
	{"producer-not-fusible", "the producer cannot be part of a fusion"},
	{"consumer-is-bitcast", "not fusing into a single bitcast as consumer (a bitcast launches nothing)"},
	{"into-library-call", "a dot/convolution's operands are not fused: it runs as a library call that reads its operands from memory"},
	{"both-reduce", "both the producer and the consumer contain a reduce"},
	{"both-hero", "both the producer and the consumer contain a dot, convolution or reduce"},
	{"not-an-epilogue", "fusing into the output of a reduce/dot needs an elementwise consumer of the same shape; otherwise it would create a loop fusion that recomputes the hero"},
	{"expensive-duplicated", "the producer is expensive and would be duplicated into several kernels"},
	{"duplication-costs-bytes", "the producer has users outside the fusion and duplicating it reads more bytes than it saves"},
	{"too-many-operands", "the fusion would exceed the operand budget"},
	{"too-large", "the fusion would exceed the instruction budget"},
	{"mof-cycle", "multi-output fusion creates a cycle"},
	{"mof-shapes", "different loop shapes: one kernel cannot iterate over both"},
	{"mof-not-fusible", "one of the two cannot be part of a multi-output fusion"},
	{"not-producer-consumer", "fusion only joins a producer with an instruction that uses it"},
	{"different-computations", "the two are in different computations"},
	{"not-fused-here", "fusion does not run in this computation (a reducer, comparator or fused computation)"},
	{"same-fusion", "both are already in the same fusion"},
};
/* clang-format on */

const FusionRule *fusion_rules(int *n)
{
	*n = sizeof rules / sizeof *rules;
	return rules;
}

/* The rule's static name (so decisions can compare pointers). */
static const char *rule(const char *name)
{
	for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
		if (!strcmp(rules[i].name, name))
			return rules[i].name;
	return "unknown";
}

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

static void clear_groups(FusionLog *l)
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
	clear_groups(l);
	free(l->g);
	free(l);
}

static char *dup(const char *s) { return s ? strdup(s) : NULL; }

static bool copy_decision(FusionDecision *d, const FusionDecision *s)
{
	*d = *s;
	d->producer = dup(s->producer);
	d->consumer = dup(s->consumer);
	d->comp = dup(s->comp);
	d->into = dup(s->into);
	d->reason = dup(s->reason);
	return d->producer && d->consumer && d->comp && d->reason &&
	       (d->into || !s->into);
}

static bool grow(void **v, int *cap, int need, size_t elem)
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
	d->name = dup(s->name);
	d->comp = dup(s->comp);
	d->kind = s->kind;
	d->multi_output = s->multi_output;
	d->members = calloc((size_t)s->nmembers + 1, sizeof *d->members);
	if (!d->name || !d->comp || !d->members)
		return false;
	for (int i = 0; i < s->nmembers; i++) {
		if (!(d->members[i] = dup(s->members[i])))
			return false;
		d->nmembers++;
	}
	return true;
}

bool fusion_log_merge(FusionLog *dst, const FusionLog *src)
{
	if (!grow((void **)&dst->d, &dst->cap, dst->n + src->n, sizeof *dst->d))
		return false;
	for (int i = 0; i < src->n; i++) {
		if (!copy_decision(&dst->d[dst->n], &src->d[i])) {
			fusion_decision_free(&dst->d[dst->n]);
			return false;
		}
		dst->n++;
	}
	clear_groups(dst);
	if (!grow((void **)&dst->g, &dst->capg, src->ng, sizeof *dst->g))
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
			ok = key && grow((void **)&keys, &capk, nk + 1,
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
			ok = (d->into = dup(g->name)) != NULL;
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

/* ---- what an instruction is to fusion --------------------------------- */

typedef enum { FK_NONE, FK_LOOP, FK_INPUT, FK_OUTPUT } FKind;

static const char *const kind_names[] = {"none", "kLoop", "kInput",
					 "kOutput"};

static HloComp *fused_comp(const HloInstr *f)
{
	return f->op == HLO_FUSION ? hlo_attr_comp(f, A_CALLS) : NULL;
}

/* Why x cannot be part of a fusion ("a parameter"), or NULL. */
static const char *unfusible(const HloInstr *x)
{
	unsigned fl = hlo_opcode_flags(x->op);
	if (fl & (XF_SIDE | XF_ASYNC))
		return "an instruction with side effects";
	if (fl & XF_COLL)
		return "a collective";
	if (shape_is_dynamic(x->shape))
		return "an instruction of dynamic shape";
	switch (x->op) {
	case HLO_PARAMETER:
		return "a parameter";
	case HLO_TUPLE:
		return "a tuple";
	case HLO_GET_TUPLE_ELEMENT:
		return "a get-tuple-element";
	case HLO_CONSTANT:
		return shape_elements(x->shape) == 1
			       ? NULL
			       : "a non-scalar constant (it stays a buffer)";
	case HLO_FUSION: {
		const char *k = hlo_attr_enum(x, A_KIND);
		HloComp *fc = fused_comp(x);
		if (!fc || !fc->root)
			return "a fusion without a computation";
		if (!k || (strcmp(k, "kLoop") && strcmp(k, "kInput") &&
			   strcmp(k, "kOutput")))
			return "a custom fusion";
		if (fc->root->op == HLO_TUPLE)
			return "a multi-output fusion";
		if (hlo_comp_param_count(fc) != x->nops)
			return "a fusion passing operands its computation "
			       "does not read";
		return NULL;
	}
	case HLO_BROADCAST: case HLO_RESHAPE: case HLO_BITCAST:
	case HLO_TRANSPOSE: case HLO_SLICE: case HLO_CONCATENATE:
	case HLO_PAD: case HLO_IOTA: case HLO_REVERSE:
	case HLO_DYNAMIC_SLICE: case HLO_GATHER: case HLO_REDUCE_WINDOW:
	case HLO_DOT: case HLO_CONVOLUTION:
		break;
	case HLO_REDUCE:
		if (shape_is_tuple(x->shape))
			return "a variadic reduce";
		break;
	case HLO_DYNAMIC_UPDATE_SLICE:
	case HLO_SCATTER:
		return "an in-place update";
	case HLO_WHILE:
		return "a while loop";
	case HLO_CONDITIONAL:
		return "a conditional";
	case HLO_CALL:
		return "a call";
	case HLO_CUSTOM_CALL:
		return "a custom-call (opaque to the compiler)";
	case HLO_SORT: case HLO_TOPK:
		return "a sort";
	case HLO_FFT: case HLO_CHOLESKY: case HLO_TRIANGULAR_SOLVE:
		return "a library call";
	case HLO_BATCH_NORM_GRAD: case HLO_BATCH_NORM_INFERENCE:
	case HLO_BATCH_NORM_TRAINING:
		return "a batch-norm op (XLA expands those before fusion)";
	case HLO_SELECT_AND_SCATTER:
		return "a select-and-scatter";
	case HLO_OPT_BARRIER: case HLO_DOMAIN: case HLO_ADD_DEPENDENCY:
	case HLO_AFTER_ALL:
		return "a scheduling or dependency marker";
	default:
		if (!(fl & XF_EW))
			return "an op that fusion does not handle";
		break;
	}
	if (shape_is_tuple(x->shape))
		return "an instruction with a tuple result";
	return NULL;
}

/* What a would-be fusion holds: the instruction alone, or the insides of
 * a fusion instruction. */
typedef struct Group {
	int ninstrs;        /* fused instructions, parameters not counted */
	int nreduce, ndot;  /* reduce; dot or convolution */
	const char *costly; /* the first expensive opcode, or NULL */
	bool elementwise;   /* only elementwise ops, scalar constants and
			       broadcasts: a possible epilogue */
} Group;

static bool expensive(const HloInstr *x)
{
	switch (x->op) {
	case HLO_DOT: case HLO_CONVOLUTION: case HLO_REDUCE:
	case HLO_REDUCE_WINDOW: case HLO_GATHER: case HLO_MAP:
		return true;
	case HLO_DIVIDE: case HLO_REMAINDER:
		/* Integer division by a constant is a multiply and shift. */
		return !(dtype_is_int(x->shape->type) && x->nops == 2 &&
			 x->ops[1]->op == HLO_CONSTANT);
	default:
		return (hlo_opcode_flags(x->op) & XF_EXP) != 0;
	}
}

static void scan_one(const HloInstr *x, Group *g)
{
	if (x->op == HLO_PARAMETER)
		return;
	g->ninstrs++;
	if (x->op == HLO_REDUCE)
		g->nreduce++;
	if (x->op == HLO_DOT || x->op == HLO_CONVOLUTION)
		g->ndot++;
	if (!g->costly && expensive(x))
		g->costly = hlo_opcode_name(x->op);
	if (!(hlo_opcode_flags(x->op) & XF_EW) && x->op != HLO_BROADCAST &&
	    !(x->op == HLO_CONSTANT && shape_elements(x->shape) == 1))
		g->elementwise = false;
}

static Group group_of(const HloInstr *x)
{
	Group g = {.elementwise = true};
	HloComp *fc = fused_comp(x);
	if (!fc) {
		scan_one(x, &g);
		return g;
	}
	for (int i = 0; i < fc->n; i++)
		scan_one(fc->instrs[i], &g);
	return g;
}

static FKind kind_from(const Group *g)
{
	return g->ndot ? FK_OUTPUT : g->nreduce ? FK_INPUT : FK_LOOP;
}

static int64_t bytes_of(const HloInstr *x)
{
	int64_t b = shape_bytes(x->shape);
	return b > 0 ? b : 0;
}

/* Is v among the first n of list? */
static bool among(HloInstr *const *list, int n, const HloInstr *v)
{
	for (int i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

/* Bytes a kernel moves: each distinct operand read once, result written. */
/* A fresh mark for telling operands apart: a list of up to 96 operands
 * is de-duplicated in one pass instead of pairwise. Marks are scratch
 * (hlo.h), so a const instruction may have its operands marked. */
static unsigned fresh_mark(const HloInstr *x)
{
	return hlo_new_mark(x->parent->module);
}

/* Marks o with mk; false when it already was. */
static bool first_time(const HloInstr *o, unsigned mk)
{
	if (o->mark == mk)
		return false;
	((HloInstr *)o)->mark = mk;
	return true;
}

static int64_t io_bytes(const HloInstr *x)
{
	int64_t b = bytes_of(x);
	unsigned mk = fresh_mark(x);
	for (int i = 0; i < x->nops; i++)
		if (x->ops[i] && first_time(x->ops[i], mk))
			b += bytes_of(x->ops[i]);
	return b;
}

/* A kernel on its own: not parameter, constant, tuple, gte or bitcast. */
static bool is_kernel(const HloInstr *x)
{
	switch (x->op) {
	case HLO_PARAMETER: case HLO_CONSTANT: case HLO_TUPLE:
	case HLO_GET_TUPLE_ELEMENT: case HLO_BITCAST:
		return false;
	default:
		return true;
	}
}

/* The instructions inside consumer c that read producer p: c itself, or
 * the users of c's fused parameters fed by p. */
static int inner_users(const HloInstr *p, const HloInstr *c,
		       const HloInstr **out, int max)
{
	HloComp *fc = fused_comp(c);
	if (!fc) {
		out[0] = c;
		return 1;
	}
	int k = 0;
	for (int i = 0; i < c->nops; i++) {
		if (c->ops[i] != p)
			continue;
		HloInstr *par = hlo_comp_param(fc, i);
		for (int u = 0; par && u < par->nusers && k < max; u++)
			if (!among((HloInstr *const *)out, k, par->users[u]))
				out[k++] = par->users[u];
	}
	return k;
}

/* ---- deciding one pair -------------------------------------------------- */

typedef struct Verdict {
	bool fused;
	const char *rule;
	char reason[320];
	int64_t saved;
	FKind kind; /* of the fusion it makes */
} Verdict;

static bool say(Verdict *v, bool fused, const char *r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool say(Verdict *v, bool fused, const char *r, const char *fmt, ...)
{
	v->fused = fused;
	v->rule = rule(r);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof v->reason, fmt, ap);
	va_end(ap);
	return fused;
}

static const char *human(char *buf, size_t cap, int64_t b)
{
	static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB",
					   "TiB"};
	double x = (double)(b < 0 ? -b : b);
	int i = 0;
	while (x >= 1024 && i < 4) {
		x /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, cap, "%lld bytes", (long long)b);
	else
		snprintf(buf, cap, "%s%.1f %s", b < 0 ? "-" : "", x, unit[i]);
	return buf;
}

/* Distinct operands of the fusion that fusing p into c makes, and the
 * bytes of the kernel it makes (those operands read, c's result
 * written). */
static int merged(const HloInstr *p, const HloInstr *c, int64_t *io)
{
	unsigned mk = fresh_mark(c);
	((HloInstr *)p)->mark = mk; /* p's value is inside now */
	int n = 0;
	int64_t b = bytes_of(c);
	for (int i = 0; i < c->nops; i++)
		if (first_time(c->ops[i], mk)) {
			n++;
			b += bytes_of(c->ops[i]);
		}
	for (int i = 0; i < p->nops; i++)
		if (first_time(p->ops[i], mk)) {
			n++;
			b += bytes_of(p->ops[i]);
		}
	if (io)
		*io = b;
	return n;
}

static int merged_operands(const HloInstr *p, const HloInstr *c)
{
	return merged(p, c, NULL);
}

static int64_t merged_io(const HloInstr *p, const HloInstr *c)
{
	int64_t b;
	merged(p, c, &b);
	return b;
}

/* Reads of large arrays that a copy of p inside c adds: p's operands
 * with at least p's element count that c does not read already
 * (broadcasts, iotas and constants are recomputed, not read). */
static int64_t duplication_reads(const HloInstr *p, const HloInstr *c)
{
	int64_t extra = 0, n = shape_elements(p->shape);
	unsigned mk = fresh_mark(c);
	for (int i = 0; i < c->nops; i++)
		c->ops[i]->mark = mk;
	for (int i = 0; i < p->nops; i++) {
		const HloInstr *o = p->ops[i];
		if (!first_time(o, mk) || o->op == HLO_BROADCAST ||
		    o->op == HLO_IOTA || o->op == HLO_CONSTANT ||
		    shape_elements(o->shape) < n)
			continue;
		extra += bytes_of(o);
	}
	return extra;
}

static void shape_text(char *buf, size_t cap, const Shape *s)
{
	StrBuf b;
	sb_init(&b);
	shape_print(&b, s, false);
	snprintf(buf, cap, "%s", sb_str(&b));
	sb_free(&b);
}

/* The fusion pass's rule for producer p into consumer c (c uses p). */
/* Bytes moved before: p's kernel (if it is one) and c's; after: the
 * fused kernel, and p's own when its other users keep it. */
static int64_t bytes_saved(const HloInstr *p, const HloInstr *c)
{
	bool kept = p->nusers > 1 && is_kernel(p);
	int64_t before = io_bytes(c) + (is_kernel(p) ? io_bytes(p) : 0);
	int64_t after = merged_io(p, c) + (kept ? io_bytes(p) : 0);
	return before - after;
}

static bool decide(const HloInstr *p, const HloInstr *c, bool off, Verdict *v)
{
	memset(v, 0, sizeof *v);
	char b1[64], b2[64];
	const char *why;
	if ((why = unfusible(c)))
		return say(v, false, "consumer-not-fusible",
			   "the consumer is not fusible: it is %s", why);
	if ((why = unfusible(p)))
		return say(v, false, "producer-not-fusible",
			   "the producer is not fusible: it is %s", why);
	/* From here on fusing is possible: what it would save counts. */
	v->saved = bytes_saved(p, c);
	if (off)
		return say(v, false, "fusion-off",
			   "fusion is off ('set fusion on' turns it back on)");
	if (c->op == HLO_BITCAST)
		return say(v, false, "consumer-is-bitcast",
			   "not fusing into a single bitcast as consumer");
	Group gp = group_of(p), gc = group_of(c);
	const HloInstr *in[16];
	int nin = inner_users(p, c, in, 16);
	for (int i = 0; i < nin; i++)
		if (in[i]->op == HLO_DOT || in[i]->op == HLO_CONVOLUTION)
			return say(v, false, "into-library-call",
				   "the consumer %s is a %s: its operands are "
				   "not fused (it runs as a library call)",
				   in[i]->name, hlo_opcode_name(in[i]->op));
	if (gp.nreduce && gc.nreduce)
		return say(v, false, "both-reduce",
			   "both the producer and the consumer contain a "
			   "reduce");
	if ((gp.nreduce || gp.ndot) && (gc.nreduce || gc.ndot))
		return say(v, false, "both-hero",
			   "both the producer and the consumer contain a dot, "
			   "convolution or reduce");
	int others = p->nusers - 1;
	if (gp.nreduce || gp.ndot) {
		if (!gc.elementwise ||
		    !shape_same_dims(p->shape, c->shape)) {
			shape_text(b1, sizeof b1, c->shape);
			shape_text(b2, sizeof b2, p->shape);
			return say(v, false, "not-an-epilogue",
				   "fusion into the output of a %s would "
				   "create a loop fusion: the consumer (%s) "
				   "is not an elementwise op of the result "
				   "shape %s",
				   gp.ndot ? "dot/convolution" : "reduce", b1,
				   b2);
		}
	}
	if (others > 0 && gp.costly)
		return say(v, false, "expensive-duplicated",
			   "the producer is expensive (%s) and would be "
			   "duplicated: it has %d other user%s",
			   gp.costly, others, others == 1 ? "" : "s");
	int64_t dup_reads = others > 0 ? duplication_reads(p, c) : 0;
	if (others > 0 && dup_reads > bytes_of(p)) {
		human(b1, sizeof b1, dup_reads - bytes_of(p));
		return say(v, false, "duplication-costs-bytes",
			   "the producer has %d user%s outside the fusion and "
			   "duplication costs %s more than it saves (the copy "
			   "reads %lld bytes of operands to save reading "
			   "%lld)",
			   others, others == 1 ? "" : "s", b1,
			   (long long)dup_reads, (long long)bytes_of(p));
	}
	int nops = merged_operands(p, c);
	if (nops > FUSION_MAX_OPERANDS)
		return say(v, false, "too-many-operands",
			   "fusion would exceed %d operands (%d)",
			   FUSION_MAX_OPERANDS, nops);
	if (gp.ninstrs + gc.ninstrs > FUSION_MAX_INSTRS)
		return say(v, false, "too-large",
			   "the fusion would exceed %d instructions (%d)",
			   FUSION_MAX_INSTRS, gp.ninstrs + gc.ninstrs);
	Group both = gc;
	both.nreduce += gp.nreduce;
	both.ndot += gp.ndot;
	v->kind = kind_from(&both);
	if (others > 0)
		return say(v, true, "fused-duplicated",
			   "cheap producer copied into the consumer; its %d "
			   "other user%s keep%s it",
			   others, others == 1 ? "" : "s",
			   others == 1 ? "s" : "");
	if (gp.nreduce)
		return say(v, true, "reduce-epilogue",
			   "elementwise epilogue fused into the reduction "
			   "(kInput)");
	if (gp.ndot)
		return say(v, true, "dot-epilogue",
			   "elementwise epilogue fused into the %s (kOutput)",
			   "dot/convolution");
	if (gc.nreduce)
		return say(v, true, "fused-into-reduce",
			   "producer fused into the reduction's input "
			   "(kInput)");
	return say(v, true, "fused-loop",
		   "producer fused into its consumer (%s)",
		   kind_names[v->kind]);
}

/* ---- changing the graph ------------------------------------------------- */

typedef struct Fz {
	HloModule *m;
	FusionLog *log;
	NameMap seen; /* "producer consumer" -> decision index + 1 */
	const char *pass;
	bool failed; /* out of memory */
	int nfused;
	HloComp **touched; /* computations changed: re-sorted at the end */
	int ntouched, cap_touched;
	NameMap touched_names; /* computation name -> touched */
	HloComp **dropped; /* computations to take out at the end */
	int ndropped, cap_dropped;
	/* Suffixes for new names (see fresh_name). */
	int next_fusion, next_comp, next_gte;
} Fz;

static void touch(Fz *z, HloComp *c)
{
	if ((z->ntouched && z->touched[z->ntouched - 1] == c) ||
	    namemap_get(&z->touched_names, c->name))
		return;
	if (!grow((void **)&z->touched, &z->cap_touched, z->ntouched + 1,
		  sizeof *z->touched) ||
	    !namemap_put(&z->touched_names, c->name, c)) {
		z->failed = true;
		return;
	}
	z->touched[z->ntouched++] = c;
}

/* base, base.1, base.2, ...: the first name not in names at or after
 * suffix *next. The counter only moves forward, so naming n fusions
 * costs O(n), not the O(n^2) of searching from base.1 every time. */
static const char *fresh_name(Fz *z, const NameMap *names, const char *base,
			      int *next)
{
	char buf[128];
	for (;; (*next)++) {
		if (*next == 0)
			snprintf(buf, sizeof buf, "%s", base);
		else
			snprintf(buf, sizeof buf, "%s.%d", base, *next);
		if (!namemap_get(names, buf)) {
			(*next)++;
			return arena_strdup(&z->m->arena, buf);
		}
	}
}

/* A fused computation nobody calls any more: taken out of the module
 * when the pass ends (all at once: one at a time is quadratic). */
static void drop_comp(Fz *z, HloComp *c)
{
	namemap_del(&z->touched_names, c->name);
	if (!grow((void **)&z->dropped, &z->cap_dropped, z->ndropped + 1,
		  sizeof *z->dropped)) {
		z->failed = true;
		return;
	}
	z->dropped[z->ndropped++] = c;
}

static void set_kind(HloInstr *f, FKind k)
{
	HloAttr *a = hlo_attr_set(f, A_KIND, NULL);
	if (a)
		a->u.s = kind_names[k];
}

static FKind kind_of_fusion(const HloInstr *f)
{
	Group g = group_of(f);
	return kind_from(&g);
}

/* Turns c into a fusion instruction of its own, in c's place: a fused
 * computation holding a copy of c whose operands are parameters. */
static HloInstr *wrap(Fz *z, HloInstr *c)
{
	HloModule *m = z->m;
	HloComp *outer = c->parent;
	HloComp *fc = hlo_comp_new(
		m, fresh_name(z, &m->comp_names, "fused_computation",
			      &z->next_comp));
	HloInstr **ops = malloc(sizeof *ops * (size_t)(c->nops + 1));
	HloInstr **pars = malloc(sizeof *pars * (size_t)(c->nops + 1));
	if (!fc || !ops || !pars) {
		free(ops);
		free(pars);
		z->failed = true;
		return NULL;
	}
	int n = 0;
	for (int i = 0; i < c->nops; i++) {
		int j = 0;
		while (j < n && ops[j] != c->ops[i])
			j++;
		if (j == n) {
			char name[32];
			snprintf(name, sizeof name, "param_%d", n);
			ops[n] = c->ops[i];
			pars[n] = hlo_instr_new(
				fc, HLO_PARAMETER,
				shape_clone(&m->arena, c->ops[i]->shape),
				hlo_comp_unique_name(fc, name), 0, NULL);
			if (!pars[n]) {
				z->failed = true;
				break;
			}
			pars[n]->param_no = n;
			n++;
		}
	}
	HloInstr **mapped = malloc(sizeof *mapped * (size_t)(c->nops + 1));
	HloInstr *copy = NULL, *f = NULL;
	if (mapped && !z->failed) {
		for (int i = 0; i < c->nops; i++)
			for (int j = 0; j < n; j++)
				if (ops[j] == c->ops[i])
					mapped[i] = pars[j];
		copy = pass_copy_instr(fc, c, mapped,
				       hlo_comp_unique_name(fc, c->name));
	}
	if (copy) {
		fc->root = copy;
		fc->root_explicit = true;
		f = hlo_instr_new(outer, HLO_FUSION,
				  shape_clone(&m->arena, c->shape),
				  fresh_name(z, &outer->names, "fusion",
					     &z->next_fusion),
				  n, ops);
	}
	if (f)
		set_kind(f, FK_LOOP); /* printed first, as XLA does */
	HloAttr *calls = f ? hlo_attr_set(f, A_CALLS, NULL) : NULL;
	HloComp **v = calls ? arena_alloc(&m->arena, sizeof *v) : NULL;
	free(ops);
	free(pars);
	free(mapped);
	if (!v) {
		z->failed = true;
		return NULL;
	}
	v[0] = fc;
	touch(z, fc);
	touch(z, outer);
	calls->u.comps.n = 1;
	calls->u.comps.v = v;
	set_kind(f, kind_of_fusion(f));
	/* f is appended; the computation is re-sorted when the pass ends
	 * (topo_sort puts it just before its first user). */
	hlo_replace_all_uses(c, f);
	pass_detach(c);
	return f;
}

/* Removes f's operand i and the fused parameter it feeds (which must have
 * no users left), renumbering the parameters after it. */
static void drop_operand(HloInstr *f, int i)
{
	HloComp *fc = fused_comp(f);
	HloInstr *par = hlo_comp_param(fc, i);
	if (par)
		pass_detach(par);
	for (int k = 0; k < fc->n; k++) {
		HloInstr *q = fc->instrs[k];
		if (q->parent == fc && q->op == HLO_PARAMETER &&
		    q->param_no > i)
			q->param_no--;
	}
	hlo_set_operand(f, i, NULL);
	for (int k = i; k + 1 < f->nops; k++) {
		HloInstr *o = f->ops[k + 1];
		f->ops[k] = o; /* user lists are sets: o stays a user of f */
	}
	f->nops--;
	pass_compact(fc);
}

/* The fused parameter of f for outer value o, made when f lacks one. */
static HloInstr *param_for(Fz *z, HloInstr *f, HloInstr *o)
{
	HloComp *fc = fused_comp(f);
	for (int i = 0; i < f->nops; i++)
		if (f->ops[i] == o)
			return hlo_comp_param(fc, i);
	Arena *a = &z->m->arena;
	HloInstr **ops = arena_alloc(a, sizeof *ops * (size_t)(f->nops + 1));
	if (!ops) {
		z->failed = true;
		return NULL;
	}
	memcpy(ops, f->ops, sizeof *ops * (size_t)f->nops);
	ops[f->nops] = NULL;
	f->ops = ops;
	f->nops++;
	hlo_set_operand(f, f->nops - 1, o);
	char name[32];
	snprintf(name, sizeof name, "param_%d", f->nops - 1);
	HloInstr *par = hlo_instr_new(fc, HLO_PARAMETER,
				      shape_clone(a, o->shape),
				      hlo_comp_unique_name(fc, name), 0, NULL);
	if (!par) {
		z->failed = true;
		return NULL;
	}
	par->param_no = f->nops - 1;
	return par;
}

/* Copies the instructions of src other than its parameters into dst,
 * parameter k standing for ops[k]. *po gets src's post order and *map
 * the copy of po[i] at map[i]; each instruction of src gets its index
 * in po as its mark (so map[x->mark] is x's copy). Returns the count,
 * -1 on failure (z->failed set). The caller frees *po and *map. */
static int inline_comp(Fz *z, HloComp *src, HloComp *dst, HloInstr *const *ops,
		       int nops, HloInstr ***po, HloInstr ***map)
{
	int n = hlo_comp_post_order(src, po);
	*map = n >= 0 ? calloc((size_t)n + 1, sizeof **map) : NULL;
	if (!*map) {
		z->failed = true;
		return -1;
	}
	for (int i = 0; i < n; i++)
		(*po)[i]->mark = (unsigned)i;
	HloInstr **sops = NULL;
	int cap = 0;
	for (int i = 0; i < n && !z->failed; i++) {
		HloInstr *s = (*po)[i];
		if (s->op == HLO_PARAMETER) {
			(*map)[i] = s->param_no >= 0 && s->param_no < nops
					    ? ops[s->param_no]
					    : NULL;
			z->failed |= !(*map)[i];
			continue;
		}
		if (!grow((void **)&sops, &cap, s->nops + 1, sizeof *sops)) {
			z->failed = true;
			break;
		}
		for (int k = 0; k < s->nops; k++)
			sops[k] = (*map)[s->ops[k]->mark];
		(*map)[i] = pass_copy_instr(dst, s, sops,
					    hlo_comp_unique_name(dst, s->name));
		z->failed |= !(*map)[i];
	}
	free(sops);
	return z->failed ? -1 : n;
}

/* A copy of p inside f's computation with p's operands read through f's
 * parameters (a fusion p is inlined). NULL on out of memory. */
static HloInstr *copy_into(Fz *z, HloInstr *p, HloInstr *f)
{
	HloComp *fc = fused_comp(f);
	touch(z, fc);
	touch(z, f->parent);
	HloInstr **ops = malloc(sizeof *ops * (size_t)(p->nops + 1));
	if (!ops) {
		z->failed = true;
		return NULL;
	}
	for (int i = 0; i < p->nops && !z->failed; i++)
		ops[i] = param_for(z, f, p->ops[i]);
	HloInstr *r = NULL;
	HloComp *pc = fused_comp(p);
	if (z->failed) {
		/* nothing */
	} else if (!pc) {
		r = pass_copy_instr(fc, p, ops, hlo_comp_unique_name(fc, p->name));
	} else {
		/* Inline p's fused computation: its parameters map to ops. */
		HloInstr **po = NULL, **map = NULL;
		int n = inline_comp(z, pc, fc, ops, p->nops, &po, &map);
		if (n >= 0 && !z->failed)
			r = map[pc->root->mark];
		else
			z->failed = true;
		free(po);
		free(map);
	}
	free(ops);
	if (!r)
		z->failed = true;
	return r;
}

/* Fuses producer p into fusion f (f uses p): a copy of p inside, f's
 * parameters fed by p replaced by it; p goes when nothing else uses it. */
static void fuse_into(Fz *z, HloInstr *p, HloInstr *f)
{
	HloInstr *pv = copy_into(z, p, f);
	if (!pv)
		return;
	HloComp *fc = fused_comp(f);
	touch(z, fc);
	touch(z, f->parent);
	for (int i = f->nops - 1; i >= 0; i--) {
		if (f->ops[i] != p)
			continue;
		HloInstr *par = hlo_comp_param(fc, i);
		if (par)
			hlo_replace_all_uses(par, pv);
		drop_operand(f, i);
	}
	set_kind(f, kind_of_fusion(f));
	if (p->nusers == 0)
		pass_detach(p);
}

/* ---- program order -------------------------------------------------------- */

/* Reorders c's instructions so that every operand comes before its users,
 * keeping the existing order where it already is one (a depth-first post
 * order over operands, started from each instruction in turn). */
static bool topo_sort(HloModule *m, HloComp *c)
{
	HloInstr **out = malloc(sizeof *out * (size_t)(c->n + 1));
	HloInstr **stack = malloc(sizeof *stack * (size_t)(c->n + 1));
	int *next = malloc(sizeof *next * (size_t)(c->n + 1));
	if (!out || !stack || !next) {
		free(out);
		free(stack);
		free(next);
		return false;
	}
	unsigned done = hlo_new_mark(m), open = hlo_new_mark(m);
	for (int i = 0; i < c->n; i++)
		c->instrs[i]->mark = 0;
	int k = 0;
	for (int i = 0; i < c->n; i++) {
		if (c->instrs[i]->mark)
			continue;
		int sp = 0;
		stack[sp] = c->instrs[i];
		next[sp++] = 0;
		c->instrs[i]->mark = open;
		while (sp) {
			HloInstr *x = stack[sp - 1];
			if (next[sp - 1] < x->nops) {
				HloInstr *o = x->ops[next[sp - 1]++];
				if (o && o->parent == c && !o->mark) {
					o->mark = open;
					stack[sp] = o;
					next[sp++] = 0;
				}
				continue;
			}
			x->mark = done;
			out[k++] = x;
			sp--;
		}
	}
	if (k == c->n)
		memcpy(c->instrs, out, sizeof *out * (size_t)k);
	free(out);
	free(stack);
	free(next);
	return true;
}

/* Names the fused parameters param_0, param_1, ... by number (two rounds,
 * so a rename never meets a name still in use). */
static void tidy_params(HloComp *fc)
{
	char name[48];
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < fc->n; i++) {
			HloInstr *q = fc->instrs[i];
			if (q->op != HLO_PARAMETER)
				continue;
			snprintf(name, sizeof name, pass ? "param_%lld"
							 : "param.tmp.%lld",
				 (long long)q->param_no);
			if (strcmp(q->name, name) && !hlo_comp_find(fc, name))
				hlo_instr_rename(q, name);
		}
}

/* ---- recording ------------------------------------------------------------ */

static void record(Fz *z, const char *prod, const char *cons, const char *comp,
		   const char *into, const Verdict *v)
{
	if (!z->log || z->failed)
		return;
	size_t lc = strlen(comp), lp = strlen(prod), ln = strlen(cons);
	char *key = malloc(lc + lp + ln + 3);
	if (!key) {
		z->failed = true;
		return;
	}
	/* "comp prod cons" (names have no blanks) */
	memcpy(key, comp, lc);
	key[lc] = ' ';
	memcpy(key + lc + 1, prod, lp);
	key[lc + 1 + lp] = ' ';
	memcpy(key + lc + 2 + lp, cons, ln + 1);
	FusionLog *l = z->log;
	void *at = namemap_get(&z->seen, key);
	FusionDecision *d;
	if (at) {
		/* Considered again (the consumer grew): the last word counts. */
		free(key);
		d = &l->d[(intptr_t)at - 1];
		fusion_decision_free(d);
	} else {
		if (!grow((void **)&l->d, &l->cap, l->n + 1, sizeof *l->d) ||
		    !namemap_put(&z->seen, key, (void *)(intptr_t)(l->n + 1))) {
			free(key);
			z->failed = true;
			return;
		}
		/* The key is freed with the map (see free_seen). */
		d = &l->d[l->n++];
	}
	memset(d, 0, sizeof *d);
	d->producer = dup(prod);
	d->consumer = dup(cons);
	d->comp = dup(comp);
	d->into = dup(into);
	d->reason = dup(v->reason);
	d->pass = z->pass;
	d->rule = v->rule;
	d->fused = v->fused;
	d->bytes_saved = v->saved;
	if (!d->producer || !d->consumer || !d->comp || !d->reason)
		z->failed = true;
}

static void free_seen(NameMap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key && m->slots[i].val)
			free((char *)m->slots[i].key);
	namemap_free(m);
}

static const char *value_name(const HloInstr *x);

/* Records v for p and each instruction inside c that reads it. */
static void record_pair(Fz *z, const HloInstr *p, const HloInstr *c,
			const char *into, const Verdict *v)
{
	const HloInstr *in[16];
	int n = inner_users(p, c, in, 16);
	for (int i = 0; i < n; i++)
		record(z, value_name(p), in[i]->name, c->parent->name, into, v);
}

/* Rebuilds the log's groups from the fusions in m. */
static void collect_groups(Fz *z, HloComp *const *comps, int nc)
{
	FusionLog *l = z->log;
	if (!l)
		return;
	clear_groups(l);
	for (int ci = 0; ci < nc; ci++) {
		HloComp *c = comps[ci];
		for (int i = 0; i < c->n; i++) {
			HloInstr *f = c->instrs[i];
			HloComp *fc = fused_comp(f);
			if (!fc)
				continue;
			if (!grow((void **)&l->g, &l->capg, l->ng + 1,
				  sizeof *l->g)) {
				z->failed = true;
				return;
			}
			FusionGroup *g = &l->g[l->ng++];
			memset(g, 0, sizeof *g);
			g->name = dup(f->name);
			g->comp = dup(c->name);
			const char *k = hlo_attr_enum(f, A_KIND);
			g->kind = k && !strcmp(k, "kInput")    ? "kInput"
				  : k && !strcmp(k, "kOutput") ? "kOutput"
				  : k && !strcmp(k, "kLoop")   ? "kLoop"
							       : "kCustom";
			g->multi_output = fc->root && fc->root->op == HLO_TUPLE;
			g->members = calloc((size_t)fc->n + 1, sizeof *g->members);
			if (!g->name || !g->comp || !g->members) {
				z->failed = true;
				return;
			}
			for (int k2 = 0; k2 < fc->n; k2++) {
				HloInstr *q = fc->instrs[k2];
				if (q->op == HLO_PARAMETER ||
				    (g->multi_output && q == fc->root))
					continue;
				g->members[g->nmembers++] = dup(q->name);
			}
		}
	}
}

/* ---- where fusion runs ---------------------------------------------------- */

/* The computations that run as code: the entry and, through control flow
 * (while, conditional, call), what it runs; not reducers, comparators or
 * fused computations. */
static int code_comps(HloModule *m, HloComp ***out)
{
	HloComp **v = malloc(sizeof *v * (size_t)(m->ncomps + 1));
	if (!v || !m->entry) {
		free(v);
		*out = NULL;
		return v ? 0 : -1;
	}
	int n = 0;
	v[n++] = m->entry;
	for (int k = 0; k < n; k++) {
		HloComp *c = v[k];
		for (int i = 0; i < c->n; i++) {
			HloInstr *x = c->instrs[i];
			if (x->op != HLO_WHILE && x->op != HLO_CONDITIONAL &&
			    x->op != HLO_CALL)
				continue;
			for (int j = 0; j < hlo_instr_ncalled(x); j++) {
				HloComp *cc = hlo_instr_called_at(x, j);
				bool have = false;
				for (int q = 0; q < n; q++)
					have |= v[q] == cc;
				if (cc && !have && n < m->ncomps)
					v[n++] = cc;
			}
		}
	}
	*out = v;
	return n;
}

/* ---- the fusion pass ------------------------------------------------------- */

/* Offers consumer c its operands until none fuses; returns what c became. */
static HloInstr *fuse_consumer(Fz *z, HloInstr *c, bool off)
{
	/* Sweeps over the operands until one fuses nothing. Within a sweep
	 * a fused operand's slot is taken by the next one, and the
	 * producer's own operands join at the end, so the sweep goes on
	 * from the same index instead of starting over (which made a
	 * consumer of k operands cost O(k^2) decisions per fusion). */
	bool again = true;
	while (again && !z->failed) {
		again = false;
		for (int i = 0; i < c->nops && !z->failed; i++) {
			HloInstr *p = c->ops[i];
			if (among(c->ops, i, p))
				continue;
			Verdict v;
			if (!decide(p, c, off, &v)) {
				record_pair(z, p, c, NULL, &v);
				continue;
			}
			if (c->op != HLO_FUSION && !(c = wrap(z, c)))
				return NULL;
			record_pair(z, p, c, c->name, &v);
			int at = 0;
			while (at < c->nops && c->ops[at] != p)
				at++;
			fuse_into(z, p, c);
			z->nfused++;
			again = true;
			i = at - 1; /* the slot p left */
		}
	}
	return c;
}

static void fuse_comp(Fz *z, HloComp *c, bool off)
{
	HloInstr **po;
	int n = hlo_comp_post_order(c, &po);
	if (n < 0) {
		z->failed = true;
		return;
	}
	/* Consumers before producers. An instruction fused away (detached)
	 * is skipped when its turn comes. */
	for (int i = n - 1; i >= 0 && !z->failed; i--) {
		HloInstr *x = po[i];
		if (x->parent != c || x->nops == 0)
			continue;
		fuse_consumer(z, x, off);
	}
	free(po);
	pass_compact(c);
}

static bool finish(Fz *z, PassCtx *cx, HloComp **comps, int nc)
{
	for (int i = 0; i < z->ntouched && !z->failed; i++) {
		HloComp *c = z->touched[i];
		if (namemap_get(&z->touched_names, c->name) != c)
			continue; /* dropped */
		pass_compact(c);
		if (!c->is_entry && strncmp(c->name, "fused_computation", 17) == 0)
			tidy_params(c);
		if (!topo_sort(z->m, c))
			z->failed = true;
	}
	hlo_module_remove_comps(z->m, z->dropped, z->ndropped);
	free(z->dropped);
	collect_groups(z, comps, nc);
	if (z->log && !z->failed && !fusion_log_refresh(z->log))
		z->failed = true;
	free_seen(&z->seen);
	free(z->touched);
	namemap_free(&z->touched_names);
	free(comps);
	if (z->failed)
		diag_error(cx->d, NULL, (SrcLoc){0, 0}, "%s: out of memory",
			   z->pass);
	return z->nfused > 0;
}

bool pass_fusion(HloModule *m, PassCtx *cx)
{
	Fz z = {.m = m, .log = cx->fusion_log, .pass = "fusion"};
	namemap_init(&z.seen);
	namemap_init(&z.touched_names);
	if (z.log)
		z.log->off = cx->fusion_off;
	HloComp **comps;
	int nc = code_comps(m, &comps);
	if (nc < 0) {
		z.failed = true;
		nc = 0;
	}
	for (int i = 0; i < nc && !z.failed; i++)
		fuse_comp(&z, comps[i], cx->fusion_off);
	for (int i = 0; i < z.nfused; i++)
		pass_note_rule(cx, "producer-consumer");
	return finish(&z, cx, comps, nc);
}

/* ---- multi-output fusion ------------------------------------------------- */

/* Levels: level(x) > level(y) for every operand y of x, so b can depend
 * on a only when level(b) > level(a). Merges only add dependencies:
 * they raise levels (raise_levels), never lower them, so the invariant
 * holds without re-sorting the computation after each merge. */
typedef struct Order {
	int *lv; /* by instruction id */
	int cap;
	HloInstr **stack; /* scratch for walks */
	int cap_stack;
	bool stale; /* a raise ran out of stack: rebuild before trusting */
} Order;

static bool order_fit(Order *o, HloModule *m, int nstack)
{
	if (o->cap < m->next_id + 1) {
		int nc = (m->next_id + 1) * 2;
		int *p = realloc(o->lv, sizeof *p * (size_t)nc);
		if (!p)
			return false;
		memset(p + o->cap, 0, sizeof *p * (size_t)(nc - o->cap));
		o->lv = p;
		o->cap = nc;
	}
	if (o->cap_stack < nstack + 1) {
		void *v = realloc(o->stack, sizeof *o->stack * (size_t)(nstack + 1));
		if (!v)
			return false;
		o->stack = v;
		o->cap_stack = nstack + 1;
	}
	return true;
}

/* Levels start LEVEL_GAP apart along every edge; a merge then raises a
 * level by one, which rarely has to travel further than a few users
 * (with consecutive levels every merge on a long chain would raise the
 * whole chain below it: quadratic). */
enum { LEVEL_GAP = 1024 };

/* Levels of c's instructions from its (topological) order. */
static bool order_build(Order *o, HloModule *m, HloComp *c)
{
	if (!order_fit(o, m, c->n))
		return false;
	for (int i = 0; i < c->n; i++) {
		HloInstr *x = c->instrs[i];
		int l = 0;
		for (int k = 0; k < x->nops; k++)
			if (x->ops[k]->parent == c &&
			    o->lv[x->ops[k]->id] + LEVEL_GAP > l)
				l = o->lv[x->ops[k]->id] + LEVEL_GAP;
		if (l > INT_MAX / 4)
			return false; /* a chain of 500k: give up on MOF */
		o->lv[x->id] = l;
	}
	return true;
}

/* After x got new operands: its level and its users' (transitively). */
static bool raise_levels(Order *o, HloModule *m, HloInstr *x)
{
	HloComp *c = x->parent;
	if (!order_fit(o, m, c->n + m->next_id))
		return false;
	int l = 0;
	for (int k = 0; k < x->nops; k++)
		if (x->ops[k]->parent == c && o->lv[x->ops[k]->id] >= l)
			l = o->lv[x->ops[k]->id] + 1;
	if (o->lv[x->id] < l)
		o->lv[x->id] = l;
	int sp = 0;
	o->stack[sp++] = x;
	while (sp) {
		HloInstr *y = o->stack[--sp];
		for (int i = 0; i < y->nusers; i++) {
			HloInstr *u = y->users[i];
			if (u->parent != c || o->lv[u->id] > o->lv[y->id])
				continue;
			o->lv[u->id] = o->lv[y->id] + 1;
			if (sp < o->cap_stack)
				o->stack[sp++] = u;
			else
				o->stale = true;
		}
	}
	return true;
}

/* Does b depend on a (a path a -> ... -> b through operands)? Only
 * instructions of a higher level than a can lie on such a path. */
static bool reaches(HloModule *m, Order *o, HloInstr *a, HloInstr *b)
{
	if (a == b)
		return true;
	int lo = o->lv[a->id];
	if (o->lv[b->id] <= lo)
		return false;
	unsigned mk = hlo_new_mark(m);
	int sp = 0;
	o->stack[sp++] = b;
	b->mark = mk;
	while (sp) {
		HloInstr *x = o->stack[--sp];
		for (int i = 0; i < x->nops; i++) {
			HloInstr *y = x->ops[i];
			if (y == a)
				return true;
			if (y->parent != x->parent || y->mark == mk ||
			    o->lv[y->id] <= lo)
				continue;
			if (sp >= o->cap_stack)
				return true; /* cannot tell: say yes (no merge) */
			y->mark = mk;
			o->stack[sp++] = y;
		}
	}
	return false;
}

/* The shape a kernel iterates over: a reduce's input, else its result
 * (the first output of a multi-output fusion). */
static const Shape *loop_shape(const HloInstr *x)
{
	HloComp *fc = fused_comp(x);
	const HloInstr *h = x;
	if (fc) {
		h = fc->root;
		for (int i = 0; i < fc->n; i++)
			if (fc->instrs[i]->op == HLO_REDUCE)
				h = fc->instrs[i];
		if (h->op == HLO_TUPLE && h->nops)
			h = h->ops[0];
	}
	if (h->op == HLO_REDUCE && h->nops)
		return h->ops[0]->shape;
	return h->shape;
}

/* Can x be one side of a multi-output fusion? NULL when it can. */
static const char *mof_unfit(const HloInstr *x)
{
	if (x->op == HLO_FUSION) {
		const char *k = hlo_attr_enum(x, A_KIND);
		HloComp *fc = fused_comp(x);
		if (!k || !fc || !fc->root ||
		    (strcmp(k, "kLoop") && strcmp(k, "kInput")))
			return "not a loop or input fusion";
		if (hlo_comp_param_count(fc) != x->nops)
			return "a fusion passing operands its computation "
			       "does not read";
		return NULL;
	}
	const char *why = unfusible(x);
	if (why)
		return why;
	if (x->op == HLO_DOT || x->op == HLO_CONVOLUTION)
		return "a dot/convolution";
	if (x->op == HLO_CONSTANT || !is_kernel(x))
		return "not a kernel";
	return NULL;
}

/* The outputs of fusion f: its root's operands when multi-output, else
 * the root itself. */
static int outputs(HloInstr *f, HloInstr ***out)
{
	HloComp *fc = fused_comp(f);
	if (fc->root->op == HLO_TUPLE) {
		*out = fc->root->ops;
		return fc->root->nops;
	}
	*out = &fc->root;
	return 1;
}

/* Makes f's root a tuple of (its outputs..., extra) and rewires f's
 * users: they read get-tuple-element 0.. of f. Returns the index extra
 * got, -1 on failure. */
static int add_output(Fz *z, HloInstr *f, HloInstr *extra)
{
	HloComp *fc = fused_comp(f), *outer = f->parent;
	Arena *a = &z->m->arena;
	HloInstr **outs;
	touch(z, fc);
	touch(z, outer);
	int n = outputs(f, &outs);
	bool was_tuple = fc->root->op == HLO_TUPLE;
	HloInstr **ops = malloc(sizeof *ops * (size_t)(n + 2));
	Shape **shapes = malloc(sizeof *shapes * (size_t)(n + 2));
	if (!ops || !shapes) {
		free(ops);
		free(shapes);
		z->failed = true;
		return -1;
	}
	for (int i = 0; i < n; i++) {
		ops[i] = outs[i];
		shapes[i] = outs[i]->shape;
	}
	ops[n] = extra;
	shapes[n] = extra->shape;
	Shape *ts = shape_tuple(a, n + 1, shapes);
	HloInstr *root = ts ? hlo_instr_new(fc, HLO_TUPLE, ts,
					    hlo_comp_unique_name(fc, "tuple"),
					    n + 1, ops)
			    : NULL;
	free(ops);
	free(shapes);
	if (!root) {
		z->failed = true;
		return -1;
	}
	HloInstr *old_root = fc->root;
	fc->root = root;
	if (was_tuple && old_root->nusers == 0)
		pass_detach(old_root);
	pass_compact(fc);
	Shape *old_shape = f->shape;
	f->shape = shape_clone(a, ts);
	if (was_tuple)
		return n; /* users already read get-tuple-elements */
	/* Single-output before: its users now read element 0. */
	HloInstr *g = hlo_instr_new(outer, HLO_GET_TUPLE_ELEMENT,
				    shape_clone(a, old_shape),
				    fresh_name(z, &outer->names, "get-tuple-element",
					       &z->next_gte),
				    0, NULL);
	HloAttr *ix = g ? hlo_attr_set(g, A_INDEX, NULL) : NULL;
	if (!ix) {
		z->failed = true;
		return -1;
	}
	ix->u.i = 0;
	hlo_replace_all_uses(f, g);
	HloInstr *op = f;
	g->ops = arena_alloc(a, sizeof *g->ops);
	if (!g->ops) {
		z->failed = true;
		return -1;
	}
	g->ops[0] = NULL;
	g->nops = 1;
	hlo_set_operand(g, 0, op);
	return n;
}

/* A get-tuple-element of f for output k, replacing every use of old. */
static bool reroute(Fz *z, HloInstr *f, int k, HloInstr *old)
{
	HloComp *outer = f->parent;
	Arena *a = &z->m->arena;
	HloInstr *g = hlo_instr_new(outer, HLO_GET_TUPLE_ELEMENT,
				    shape_clone(a, old->shape),
				    fresh_name(z, &outer->names, "get-tuple-element",
					       &z->next_gte),
				    1, &f);
	HloAttr *ix = g ? hlo_attr_set(g, A_INDEX, NULL) : NULL;
	if (!ix) {
		z->failed = true;
		return false;
	}
	ix->u.i = k;
	hlo_replace_all_uses(old, g);
	return true;
}

/* Sibling fusion: b's work moves into a (both read shared operand o);
 * b's users read a's new outputs. */
static HloInstr *merge_siblings(Fz *z, HloInstr *a, HloInstr *b)
{
	if (a->op != HLO_FUSION && !(a = wrap(z, a)))
		return NULL;
	if (b->op != HLO_FUSION && !(b = wrap(z, b)))
		return NULL;
	HloComp *bc = fused_comp(b);
	bool b_tuple = bc->root->op == HLO_TUPLE;
	/* Copy b's computation into a: b's parameters become a's. */
	HloComp *ac = fused_comp(a);
	HloInstr **bops = malloc(sizeof *bops * (size_t)(b->nops + 1));
	for (int i = 0; bops && i < b->nops && !z->failed; i++)
		bops[i] = param_for(z, a, b->ops[i]);
	HloInstr **po = NULL, **map = NULL;
	int n = bops && !z->failed
			? inline_comp(z, bc, ac, bops, b->nops, &po, &map)
			: -1;
	free(bops);
	if (n < 0)
		z->failed = true;
	if (!z->failed) {
		HloInstr **bouts;
		int nb = b_tuple ? bc->root->nops : 1;
		bouts = b_tuple ? bc->root->ops : &bc->root;
		int first = -1;
		for (int k = 0; k < nb && !z->failed; k++) {
			int at = add_output(z, a, map[bouts[k]->mark]);
			if (k == 0)
				first = at;
		}
		/* b's users: get-tuple-elements of b (multi-output) or b. */
		if (!z->failed && b_tuple) {
			while (b->nusers && !z->failed) {
				HloInstr *u = b->users[0];
				int64_t k = 0;
				hlo_attr_int(u, A_INDEX, &k);
				HloAttr *ix = hlo_attr_find(u, A_INDEX);
				if (ix)
					ix->u.i = first + k;
				hlo_set_operand(u, 0, a);
			}
		} else if (!z->failed) {
			reroute(z, a, first, b);
		}
		set_kind(a, kind_of_fusion(a));
		if (!z->failed && b->nusers == 0) {
			pass_detach(b);
			drop_comp(z, bc);
		}
	}
	free(po);
	free(map);
	return z->failed ? NULL : a;
}

static bool fusion_operand_budget(const HloInstr *a, const HloInstr *b)
{
	int n = a->nops;
	for (int i = 0; i < b->nops; i++)
		if (!among(a->ops, a->nops, b->ops[i]) &&
		    !among(b->ops, i, b->ops[i]))
			n++;
	return n <= FUSION_MAX_OPERANDS;
}

/* The name a kernel's value goes by in the log: its own, or for a
 * fusion the instruction computing its (first) output, which keeps its
 * name whatever the fusion is called later. */
static const char *value_name(const HloInstr *x)
{
	HloComp *fc = fused_comp(x);
	if (!fc || !fc->root)
		return x->name;
	const HloInstr *r = fc->root;
	if (r->op == HLO_TUPLE && r->nops)
		r = r->ops[0];
	return r->op == HLO_PARAMETER ? x->name : r->name;
}

/* Tries sibling pairs among the users of o. */
static bool siblings_of(Fz *z, HloInstr *o, Order *ord)
{
	HloComp *c = o->parent;
	int nu = o->nusers < 8 ? o->nusers : 8;
	for (int i = 0; i < nu; i++) {
		HloInstr *a = o->users[i];
		if (mof_unfit(a))
			continue;
		for (int j = i + 1; j < nu; j++) {
			HloInstr *b = o->users[j];
			Verdict v = {0};
			const char *why = mof_unfit(b);
			char s1[64], s2[64];
			if (why) {
				say(&v, false, "mof-not-fusible",
				    "%s cannot join a multi-output fusion: it "
				    "is %s", b->name, why);
			} else if (!shape_same_dims(loop_shape(a),
						    loop_shape(b))) {
				shape_text(s1, sizeof s1, loop_shape(a));
				shape_text(s2, sizeof s2, loop_shape(b));
				say(&v, false, "mof-shapes",
				    "different loop shapes (%s vs %s)", s1, s2);
			} else if (reaches(z->m, ord, a, b) ||
				   reaches(z->m, ord, b, a)) {
				say(&v, false, "mof-cycle",
				    "multi-output fusion creates a cycle: one "
				    "of the two depends on the other");
			} else if (!fusion_operand_budget(a, b)) {
				say(&v, false, "too-many-operands",
				    "fusion would exceed %d operands",
				    FUSION_MAX_OPERANDS);
			} else {
				v.saved = bytes_of(o);
				human(s1, sizeof s1, v.saved);
				say(&v, true, "sibling",
				    "siblings read %s: one kernel reads it "
				    "once (saves %s)", o->name, s1);
			}
			/* Names live in the module's arena: still readable
			 * after a and b are replaced. */
			const char *an = value_name(a), *bn = value_name(b);
			if (!v.fused) {
				record(z, an, bn, c->name, NULL, &v);
				continue;
			}
			HloInstr *f = merge_siblings(z, a, b);
			if (f) {
				record(z, an, bn, c->name, f->name, &v);
				if (!raise_levels(ord, z->m, f))
					z->failed = true;
			}
			z->nfused++;
			return true;
		}
	}
	return false;
}

/* Producer-consumer multi-output fusion: p (several users, not fused by
 * the fusion pass) joins its consumer c; its other users read it as an
 * extra output of c. */
static bool producer_mof(Fz *z, HloInstr *p, Order *ord)
{
	if (p->nusers < 2 || mof_unfit(p) || group_of(p).nreduce ||
	    group_of(p).ndot)
		return false;
	for (int i = 0; i < p->nusers; i++) {
		HloInstr *cons = p->users[i];
		if (mof_unfit(cons) || cons->op != HLO_FUSION)
			continue;
		Group gc = group_of(cons);
		if (!gc.nreduce)
			continue; /* the case that pays: a reduction's input */
		Verdict v = {0};
		char s1[64], s2[64];
		bool cycle = false;
		for (int k = 0; k < p->nusers && !cycle; k++)
			if (p->users[k] != cons)
				cycle = reaches(z->m, ord, p->users[k], cons);
		if (cycle) {
			say(&v, false, "mof-cycle",
			    "multi-output fusion creates a cycle: another "
			    "user of %s feeds %s", p->name, cons->name);
		} else if (!shape_same_dims(loop_shape(p), loop_shape(cons))) {
			shape_text(s1, sizeof s1, loop_shape(p));
			shape_text(s2, sizeof s2, loop_shape(cons));
			say(&v, false, "mof-shapes",
			    "different loop shapes (%s vs %s)", s1, s2);
		} else if (merged_operands(p, cons) > FUSION_MAX_OPERANDS) {
			say(&v, false, "too-many-operands",
			    "fusion would exceed %d operands",
			    FUSION_MAX_OPERANDS);
		} else {
			v.saved = bytes_of(p);
			human(s1, sizeof s1, v.saved);
			say(&v, true, "producer-consumer-multi-output",
			    "%s joins the kernel of %s and stays an extra "
			    "output for its %d other user%s (saves reading %s)",
			    value_name(p), value_name(cons), p->nusers - 1,
			    p->nusers == 2 ? "" : "s", s1);
		}
		if (!v.fused) {
			record_pair(z, p, cons, NULL, &v);
			continue;
		}
		record_pair(z, p, cons, cons->name, &v);
		/* The copy of p inside cons becomes an output; p's other
		 * users read it from there. */
		HloInstr *pv = copy_into(z, p, cons);
		if (!pv)
			return false;
		HloComp *fc = fused_comp(cons);
		for (int k = cons->nops - 1; k >= 0; k--) {
			if (cons->ops[k] != p)
				continue;
			HloInstr *par = hlo_comp_param(fc, k);
			if (par)
				hlo_replace_all_uses(par, pv);
			drop_operand(cons, k);
		}
		int at = add_output(z, cons, pv);
		if (at < 0 || !reroute(z, cons, at, p))
			return false;
		set_kind(cons, kind_of_fusion(cons));
		if (p->nusers == 0) {
			HloComp *pc = fused_comp(p);
			pass_detach(p);
			if (pc)
				drop_comp(z, pc);
		}
		if (!raise_levels(ord, z->m, cons))
			z->failed = true;
		z->nfused++;
		return true;
	}
	return false;
}

static void mof_comp(Fz *z, HloComp *c)
{
	Order ord = {0};
	if (!topo_sort(z->m, c) || !order_build(&ord, z->m, c)) {
		z->failed = true;
		return;
	}
	/* Sweeps over the instructions as they stood at the sweep's start;
	 * after a merge the same instruction is tried again. A sweep that
	 * merges nothing ends it. */
	for (int sweep = 0; sweep < 16 && !z->failed; sweep++) {
		int n = c->n;
		HloInstr **snap = malloc(sizeof *snap * (size_t)(n + 1));
		if (!snap) {
			z->failed = true;
			break;
		}
		memcpy(snap, c->instrs, sizeof *snap * (size_t)n);
		bool any = false;
		for (int i = 0; i < n && !z->failed; i++) {
			HloInstr *x = snap[i];
			if (x->parent != c)
				continue;
			if (ord.stale) {
				pass_compact(c);
				if (!topo_sort(z->m, c) ||
				    !order_build(&ord, z->m, c)) {
					z->failed = true;
					break;
				}
				ord.stale = false;
			}
			bool changed = producer_mof(z, x, &ord);
			if (!changed && x->parent == c && x->nusers >= 2 &&
			    shape_elements(x->shape) > 1)
				changed = siblings_of(z, x, &ord);
			if (changed && x->parent == c)
				i--; /* x may have more to give */
			any |= changed;
		}
		free(snap);
		pass_compact(c);
		if (!any)
			break;
	}
	free(ord.lv);
	free(ord.stack);
}

bool pass_multi_output_fusion(HloModule *m, PassCtx *cx)
{
	Fz z = {.m = m, .log = cx->fusion_log, .pass = "multi-output-fusion"};
	namemap_init(&z.seen);
	namemap_init(&z.touched_names);
	HloComp **comps;
	int nc = code_comps(m, &comps);
	if (nc < 0) {
		z.failed = true;
		nc = 0;
	}
	for (int i = 0; i < nc && !z.failed && !cx->fusion_off; i++)
		mof_comp(&z, comps[i]);
	for (int i = 0; i < z.nfused; i++)
		pass_note_rule(cx, "multi-output");
	return finish(&z, cx, comps, nc);
}

/* ---- questions from the REPL ---------------------------------------------- */

static void to_decision(FusionDecision *out, const HloInstr *p,
			const HloInstr *c, const Verdict *v)
{
	memset(out, 0, sizeof *out);
	out->producer = dup(p->name);
	out->consumer = dup(c->name);
	out->comp = dup(c->parent ? c->parent->name : "");
	out->reason = dup(v->reason);
	out->pass = "fusion";
	out->rule = v->rule;
	out->fused = v->fused;
	out->bytes_saved = v->saved;
}

/* The outer instruction of c's computation that holds x: x, or the
 * fusion whose computation contains it. */
static bool runs_as_code(const HloModule *m, const HloComp *c)
{
	HloComp **comps;
	int n = code_comps((HloModule *)m, &comps);
	bool yes = false;
	for (int i = 0; i < n; i++)
		yes |= comps[i] == c;
	free(comps);
	return yes;
}

void fusion_judge(const HloModule *m, const HloInstr *p, const HloInstr *c,
		  bool fusion_off, FusionDecision *out)
{
	Verdict v = {0};
	if (p->parent != c->parent) {
		say(&v, false, "different-computations",
		    "%s is in %s and %s in %s: fusion only joins "
		    "instructions of one computation",
		    p->name, p->parent->name, c->name, c->parent->name);
	} else if (!runs_as_code(m, c->parent)) {
		say(&v, false, "not-fused-here",
		    "fusion does not run in %s: it is a reducer, comparator "
		    "or fused computation, not code of its own",
		    c->parent->name);
	} else if (!among(c->ops, c->nops, p)) {
		const HloInstr *shared = NULL;
		for (int i = 0; i < c->nops && !shared; i++)
			if (among(p->ops, p->nops, c->ops[i]))
				shared = c->ops[i];
		if (among(p->ops, p->nops, c))
			say(&v, false, "not-producer-consumer",
			    "%s does not use %s (it is the other way round: "
			    "ask 'why %s %s')",
			    c->name, p->name, c->name, p->name);
		else if (shared)
			say(&v, false, "not-producer-consumer",
			    "%s does not use %s; they are siblings (both "
			    "read %s), which multi-output fusion considers",
			    c->name, p->name, shared->name);
		else
			say(&v, false, "not-producer-consumer",
			    "%s does not use %s: fusion only joins a "
			    "producer with an instruction that reads it",
			    c->name, p->name);
	} else {
		decide(p, c, fusion_off, &v);
	}
	to_decision(out, p, c, &v);
}

bool fusion_force(HloModule *m, HloInstr *p, HloInstr *c,
		  FusionDecision *verdict, const char **made)
{
	fusion_judge(m, p, c, false, verdict);
	if (p->parent != c->parent || !runs_as_code(m, c->parent) ||
	    !among(c->ops, c->nops, p) ||
	    !strcmp(verdict->rule, "consumer-not-fusible") ||
	    !strcmp(verdict->rule, "producer-not-fusible"))
		return false;
	Fz z = {.m = m, .pass = "fuse"};
	namemap_init(&z.seen);
	namemap_init(&z.touched_names);
	HloInstr *f = c->op == HLO_FUSION ? c : wrap(&z, c);
	if (f)
		fuse_into(&z, p, f);
	if (f && !z.failed) {
		pass_compact(f->parent);
		tidy_params(fused_comp(f));
		if (!topo_sort(m, f->parent) || !topo_sort(m, fused_comp(f)))
			z.failed = true;
	}
	free_seen(&z.seen);
	free(z.touched);
	free(z.dropped);
	namemap_free(&z.touched_names);
	if (z.failed || !f) {
		free(verdict->reason);
		verdict->reason = dup("out of memory");
		return false;
	}
	*made = f->name;
	return true;
}
