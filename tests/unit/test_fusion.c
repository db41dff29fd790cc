/* test_fusion.c - the fusion passes: kernel counts on the classic
 * patterns with the interpreter's numbers unchanged, the decision log
 * (vocabulary, names that lead to the fusions made, merging), judging a
 * pair on demand, forcing a fusion, and the passes over the corpus. */
#include "testutil.h"

#include <dirent.h>

#include "compare.h"
#include "passes/fusion.h"
#include "passes/fusion_impl.h"

/* Applies pass name to m (freed), with log l; returns the new module. */
static HloModule *apply(HloModule *m, const char *name, FusionLog *l)
{
	PassCtx cx = {.fusion_log = l};
	return apply_pass(m, name, &cx, NULL);
}

#define REDUCER                                                               \
	"add_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"    \
	"  ROOT s = f32[] add(a, b)\n}\n"                                      \
	"max_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"    \
	"  ROOT s = f32[] maximum(a, b)\n}\n"

/* Elementwise producers, a row reduction and an epilogue: one kernel. */
static const char row_reduce[] =
	"HloModule row\n" REDUCER
	"ENTRY main {\n"
	"  x = f32[16,256] parameter(0)\n"
	"  y = f32[16,256] parameter(1)\n"
	"  m = f32[16,256] multiply(x, y)\n"
	"  t = f32[16,256] tanh(m)\n"
	"  z = f32[] constant(0)\n"
	"  r = f32[16] reduce(t, z), dimensions={1}, to_apply=add_f32\n"
	"  ROOT o = f32[16] sqrt(r)\n"
	"}\n";

static const char softmax[] =
	"HloModule softmax\n" REDUCER
	"ENTRY main {\n"
	"  x = f32[8,128] parameter(0)\n"
	"  ninf = f32[] constant(-inf)\n"
	"  rmax = f32[8] reduce(x, ninf), dimensions={1}, to_apply=max_f32\n"
	"  bmax = f32[8,128] broadcast(rmax), dimensions={0}\n"
	"  sub = f32[8,128] subtract(x, bmax)\n"
	"  e = f32[8,128] exponential(sub)\n"
	"  zero = f32[] constant(0)\n"
	"  sum = f32[8] reduce(e, zero), dimensions={1}, to_apply=add_f32\n"
	"  bsum = f32[8,128] broadcast(sum), dimensions={0}\n"
	"  ROOT out = f32[8,128] divide(e, bsum)\n"
	"}\n";

/* dot + bias + relu + dot + bias: two kOutput kernels. */
static const char mlp[] =
	"HloModule mlp\n"
	"ENTRY main {\n"
	"  x = f32[4,32] parameter(0)\n"
	"  w1 = f32[32,16] parameter(1)\n"
	"  b1 = f32[16] parameter(2)\n"
	"  w2 = f32[16,8] parameter(3)\n"
	"  d1 = f32[4,16] dot(x, w1), lhs_contracting_dims={1}, "
	"rhs_contracting_dims={0}\n"
	"  bb1 = f32[4,16] broadcast(b1), dimensions={1}\n"
	"  a1 = f32[4,16] add(d1, bb1)\n"
	"  zero = f32[] constant(0)\n"
	"  bz = f32[4,16] broadcast(zero), dimensions={}\n"
	"  relu = f32[4,16] maximum(a1, bz)\n"
	"  ROOT d2 = f32[4,8] dot(relu, w2), lhs_contracting_dims={1}, "
	"rhs_contracting_dims={0}\n"
	"}\n";

/* Two reductions of one array: siblings, one kernel after MOF. */
static const char siblings[] =
	"HloModule sib\n" REDUCER
	"ENTRY main {\n"
	"  x = f32[32,64] parameter(0)\n"
	"  z = f32[] constant(0)\n"
	"  s = f32[32] reduce(x, z), dimensions={1}, to_apply=add_f32\n"
	"  sq = f32[32,64] multiply(x, x)\n"
	"  ss = f32[32] reduce(sq, z), dimensions={1}, to_apply=add_f32\n"
	"  ROOT t = (f32[32], f32[32]) tuple(s, ss)\n"
	"}\n";

/* m's result on inputs from seed is want (within the default tolerance);
 * then m, a and l are freed. */
static void check_numbers_and_free(HloModule *m, Arena *a, Literal *want,
				   unsigned seed, FusionLog *l)
{
	CompareResult cr;
	literal_compare(run_seeded(m, a, seed), want,
			compare_default_tol(want->shape), &cr);
	assert_true(cr.ok);
	fusion_log_free(l);
	arena_free(a);
	hlo_module_free(m);
}

static void check_kernels(const char *text, int after_fusion, int after_mof)
{
	HloModule *m = load_text(text);
	Arena a;
	arena_init(&a);
	Literal *want = run_seeded(m, &a, 77);
	FusionLog *l = fusion_log_new();
	m = apply(m, "fusion", l);
	assert_int_equal(hlo_module_kernels(m), after_fusion);
	m = apply(m, "multi-output-fusion", l);
	assert_int_equal(hlo_module_kernels(m), after_mof);
	check_numbers_and_free(m, &a, want, 77, l);
}

/* 100 pairs of siblings that also read one scalar parameter: multi-output
 * fusion takes one of each pair out while the scalar has about 200
 * readers (their removal from its list waits for the pass's end); the
 * lists are exact after, and the numbers as before. */
static void test_siblings_of_a_shared_scalar(void **state)
{
	(void)state;
	enum { PAIRS = 100 };
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "HloModule shared_scalar\nENTRY main {\n"
		    "  p = f32[64] parameter(0)\n  s = f32[] parameter(1)\n");
	for (int k = 0; k < PAIRS; k++)
		sb_printf(&b,
			  "  x%d = f32[64] exponential(p)\n"
			  "  c%d = f32[64] broadcast(s), dimensions={}\n"
			  "  d%d = f32[64] broadcast(s), dimensions={}\n"
			  "  a%d = f32[64] multiply(x%d, c%d)\n"
			  "  b%d = f32[64] add(x%d, d%d)\n",
			  k, k, k, k, k, k, k, k, k);
	sb_puts(&b, "  ROOT t = (");
	for (int k = 0; k < 2 * PAIRS; k++)
		sb_printf(&b, "%sf32[64]", k ? ", " : "");
	sb_puts(&b, ") tuple(");
	for (int k = 0; k < PAIRS; k++)
		sb_printf(&b, "%sa%d, b%d", k ? ", " : "", k, k);
	sb_puts(&b, ")\n}\n");
	HloModule *m = load_text(sb_str(&b));
	sb_free(&b);
	Arena a;
	arena_init(&a);
	Literal *want = run_seeded(m, &a, 5);
	FusionLog *l = fusion_log_new();
	m = apply(m, "fusion", l);
	const HloInstr *sp = hlo_comp_find(m->entry, "s");
	assert_int_equal(sp->nusers, 2 * PAIRS);
	int kernels = hlo_module_kernels(m);
	m = apply(m, "multi-output-fusion", l);
	assert_uses_exact(m);
	assert_true(hlo_module_kernels(m) <= kernels - PAIRS);
	sp = hlo_comp_find(m->entry, "s");
	int readers = 0;
	for (int i = 0; i < m->entry->n; i++)
		for (int k = 0; k < m->entry->instrs[i]->nops; k++)
			if (m->entry->instrs[i]->ops[k] == sp) {
				readers++;
				break;
			}
	assert_int_equal(sp->nusers, readers);
	assert_true(readers <= PAIRS);
	check_numbers_and_free(m, &a, want, 5, l);
}

static void test_kernel_counts(void **state)
{
	(void)state;
	check_kernels(row_reduce, 1, 1);
	check_kernels(softmax, 4, 3);
	check_kernels(mlp, 2, 2);
	check_kernels(siblings, 2, 1);
}

/* Every rule a decision names is in the vocabulary, named once. */
static bool known_rule(const char *r)
{
	int n;
	const FusionRule *v = fusion_rules(&n);
	for (int i = 0; i < n; i++)
		if (v[i].name == r)
			return true;
	return false;
}

static void test_vocabulary(void **state)
{
	(void)state;
	int n;
	const FusionRule *v = fusion_rules(&n);
	assert_true(n >= 20);
	for (int i = 0; i < n; i++) {
		assert_true(strlen(v[i].says) > 10);
		for (int j = i + 1; j < n; j++)
			assert_string_not_equal(v[i].name, v[j].name);
	}
}

/* The fusion instruction name of computation comp (NULL: any). */
/* Every rule has a golden transcript that shows it: some
 * .expected file of tests/fusion prints "rule=NAME". */
static void test_every_rule_has_a_golden_test(void **state)
{
	(void)state;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/fusion", XR_SOURCE_DIR);
	DIR *d = opendir(dir);
	assert_non_null(d);
	char *all = NULL;
	size_t total = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 9 || strcmp(e->d_name + len - 9, ".expected"))
			continue;
		size_t n = 0;
		char *t = slurp_in(dir, e->d_name, &n);
		assert_non_null(t);
		all = realloc(all, total + n + 1);
		memcpy(all + total, t, n + 1);
		total += n;
		free(t);
	}
	closedir(d);
	assert_non_null(all);
	int nr;
	const FusionRule *r = fusion_rules(&nr);
	for (int i = 0; i < nr; i++) {
		char want[128];
		snprintf(want, sizeof want, "rule=%s ", r[i].name);
		if (!strstr(all, want))
			print_error("no golden test shows rule %s\n", r[i].name);
		assert_non_null(strstr(all, want));
	}
	free(all);
}

static const HloInstr *fusion_in(const HloModule *m, const char *comp,
				 const char *name)
{
	for (int i = 0; i < m->ncomps; i++) {
		if (comp && strcmp(m->comps[i]->name, comp))
			continue;
		const HloInstr *x = hlo_comp_find(m->comps[i], name);
		if (x && x->op == HLO_FUSION)
			return x;
	}
	return NULL;
}

static const HloInstr *fusion_named(const HloModule *m, const char *name)
{
	return fusion_in(m, NULL, name);
}

/* The log of a pass describes the module it made: decisions' rules are
 * known, fused decisions point at fusions that exist, groups list what
 * their fused computations hold. */
static void check_log(const HloModule *m, const FusionLog *l)
{
	for (int i = 0; i < l->n; i++) {
		const FusionDecision *d = &l->d[i];
		assert_true(known_rule(d->rule));
		char why[FUSION_REASON_MAX];
		assert_true(fusion_decision_reason(d, why, sizeof why)[0]);
		if (d->fused) {
			assert_non_null(d->into);
			assert_non_null(fusion_in(m, d->comp, d->into));
		}
	}
	for (int i = 0; i < l->ng; i++) {
		const HloInstr *f = fusion_in(m, l->g[i].comp, l->g[i].name);
		assert_non_null(f);
		HloComp *fc = hlo_attr_comp(f, A_CALLS);
		for (int k = 0; k < l->g[i].nmembers; k++)
			assert_non_null(hlo_comp_find(fc, l->g[i].members[k]));
	}
}

/* Renames are per computation: fusion.1 of A merged into fusion.2 says
 * nothing of fusion.1 of B, merged into fusion.3 there (the consumer's
 * copy in it under another name). Each decision follows its own
 * computation's rename, whichever was noted last. */
static void test_renames_per_computation(void **state)
{
	(void)state;
	FusionLog *l = fusion_log_new();
	assert_non_null(l);
	const char *comps[3] = {"B", "A", "C"};
	for (int i = 0; i < 3; i++) {
		FusionDecision d = {0};
		d.producer = "p";
		d.consumer = "c";
		d.comp = (char *)comps[i];
		d.into = "fusion.1";
		d.pass = "fusion";
		d.rule = "fused-loop";
		d.reason = "producer fused into its consumer (kLoop)";
		d.fused = true;
		assert_true(fusion_log_add(l, &d));
	}
	/* the groups now: fusion.2 of A holds c; fusion.3 of B holds c.1 */
	const char *gname[2] = {"fusion.2", "fusion.3"};
	const char *gcomp[2] = {"A", "B"};
	const char *gmember[2] = {"c", "c.1"};
	l->g = calloc(2, sizeof *l->g);
	assert_non_null(l->g);
	l->ng = l->capg = 2;
	for (int i = 0; i < 2; i++) {
		FusionGroup *g = &l->g[i];
		g->name = arena_strdup(&l->a, gname[i]);
		g->comp = arena_strdup(&l->a, gcomp[i]);
		g->kind = "kLoop";
		g->members = arena_alloc(&l->a, sizeof *g->members);
		g->members[0] = arena_strdup(&l->a, gmember[i]);
		g->nmembers = 1;
	}
	assert_true(fusion_log_renamed(l, "B", "fusion.1", "fusion.3"));
	assert_true(fusion_log_renamed(l, "A", "fusion.1", "fusion.2"));
	/* C's fusion.1 became part of a fusion.2 of C's that no group
	 * holds now: A's fusion.2 is not it */
	assert_true(fusion_log_renamed(l, "C", "fusion.1", "fusion.2"));
	assert_true(fusion_log_refresh(l));
	assert_string_equal(l->d[2].comp, "C");
	assert_string_equal(l->d[2].into, "fusion.1");
	assert_string_equal(l->d[0].comp, "B");
	assert_string_equal(l->d[0].into, "fusion.3");
	assert_string_equal(l->d[1].comp, "A");
	assert_string_equal(l->d[1].into, "fusion.2");
	/* a copy and a merge keep them so */
	FusionLog *c = fusion_log_copy(l), *e = fusion_log_new();
	assert_non_null(c);
	assert_non_null(e);
	assert_true(fusion_log_merge(e, c));
	assert_int_equal(e->nren, 3);
	assert_string_equal(e->ren_from[0], "B fusion.1");
	assert_string_equal(e->ren_to[0], "fusion.3");
	fusion_log_free(c);
	fusion_log_free(e);
	fusion_log_free(l);
}

static void test_log(void **state)
{
	(void)state;
	HloModule *m = load_text(softmax);
	FusionLog *l = fusion_log_new(), *l2 = fusion_log_new();
	m = apply(m, "fusion", l);
	check_log(m, l);
	const FusionDecision *d[4];
	assert_int_equal(fusion_log_find(l, "e", "sum", d, 4), 1);
	assert_false(d[0]->fused);
	assert_string_equal(d[0]->rule, "expensive-duplicated");
	assert_int_equal(fusion_log_find(l, "sub", "e", d, 4), 1);
	assert_true(d[0]->fused);
	/* A group name stands for its members. */
	assert_int_equal(fusion_log_find(l, "sub", d[0]->into, d, 4), 1);
	m = apply(m, "multi-output-fusion", l2);
	assert_true(fusion_log_merge(l, l2));
	check_log(m, l);
	int k = fusion_log_find(l, "e", "sum", d, 4);
	assert_int_equal(k, 2); /* declined by fusion, joined by MOF */
	assert_false(d[0]->fused);
	assert_true(d[1]->fused);
	assert_string_equal(d[1]->rule, "producer-consumer-multi-output");
	fusion_log_free(l);
	fusion_log_free(l2);
	hlo_module_free(m);
}

/* Records about producer "p" and consumer "c" in kernel k the word
 * "said N" (rule too-large), as a pass does. */
static void say_in(Fz *z, const HloInstr *k, int n)
{
	Verdict v;
	fz_verdict_clear(&v);
	fz_say(&v, false, "too-large", "said %d", n);
	fz_record(z, "p", "c", "main", NULL, &v, k);
}

/* Kernel k becomes part of kernel to: taken out of its computation
 * first, as the passes do. */
static void forward(Fz *z, HloInstr *k, HloInstr *to)
{
	k->parent = NULL;
	fz_forward(z, k, to);
}

/* Decisions about one pair made in kernels that all end up in one
 * fusion are one decision, in the first one's place, with the last
 * word said: also when the decisions just made in a kernel move with
 * it as it is forwarded (fusion.c: rekey_tail) and take the words said
 * in their new kernel, and those kernels are forwarded again. */
static void test_log_moved_decisions_keep_the_last_word(void **state)
{
	(void)state;
	HloModule *m = hlo_module_new("m");
	HloComp c = {.name = "main", .module = m};
	HloInstr k[5];
	const char *names[] = {"a", "a2", "b", "b2", "g"};
	for (int i = 0; i < 5; i++)
		k[i] = (HloInstr){.op = HLO_FUSION, .parent = &c,
				  .name = names[i], .id = m->next_id++};
	HloInstr *a = &k[0], *a2 = &k[1], *b = &k[2], *b2 = &k[3], *g = &k[4];
	FusionLog *l = fusion_log_new();
	Fz z = {.m = m, .log = l, .pass = "fusion"};
	say_in(&z, a, 1);
	forward(&z, a, a2); /* the decision goes with a */
	say_in(&z, b, 2);
	forward(&z, b, b2);
	say_in(&z, b2, 3); /* said in b2 first ... */
	say_in(&z, a2, 4); /* ... the last word in a2 */
	forward(&z, a2, g);
	forward(&z, b2, g);
	PassCtx cx = {0};
	fz_finish(&z, &cx, NULL, 0);
	assert_int_equal(l->n, 1);
	char buf[FUSION_REASON_MAX];
	assert_string_equal(fusion_decision_reason(&l->d[0], buf, sizeof buf),
			    "said 4");
	assert_string_equal(l->d[0].where, "g");
	fusion_log_free(l);
	hlo_module_free(m);
}

static void test_judge(void **state)
{
	(void)state;
	HloModule *m = load_text(softmax);
	static const struct {
		const char *p, *c, *rule;
		bool fused;
	} cases[] = {
		{"sub", "e", "fused-loop", true},
		{"e", "out", "expensive-duplicated", false},
		{"rmax", "bmax", "not-an-epilogue", false},
		{"x", "sub", "producer-not-fusible", false},
		{"zero", "sum", "fused-into-reduce", true},
		{"x", "out", "not-producer-consumer", false},
		{"sum", "out", "not-producer-consumer", false},
		{"a", "s", "not-fused-here", false},
		{"x", "a", "different-computations", false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const HloInstr *p = NULL, *c = NULL;
		for (int k = 0; k < m->ncomps && (!p || !c); k++) {
			if (!p)
				p = hlo_comp_find(m->comps[k], cases[i].p);
			if (!c)
				c = hlo_comp_find(m->comps[k], cases[i].c);
		}
		if (!strcmp(cases[i].p, "x"))
			p = hlo_comp_find(m->entry, "x");
		assert_non_null(p);
		assert_non_null(c);
		FusionDecision d;
		fusion_judge(m, p, c, false, &d);
		if (strcmp(d.rule, cases[i].rule))
			print_error("%s -> %s: %s (%s)\n", cases[i].p,
				    cases[i].c, d.rule, d.reason);
		assert_string_equal(d.rule, cases[i].rule);
		assert_int_equal(d.fused, cases[i].fused);
		fusion_decision_free(&d);
		/* Switched off, a fusible pair is declined as such. */
		fusion_judge(m, p, c, true, &d);
		if (cases[i].fused)
			assert_string_equal(d.rule, "fusion-off");
		fusion_decision_free(&d);
	}
	hlo_module_free(m);
}

/* A decision counts each operand once by marking it with a fresh
 * generation. Marks other walks left behind (cse and algsimp keep
 * positions there, the verifier too) must never pass for that generation,
 * whatever the counter stood at: the same pair gets the same answer. */
static void test_judge_stale_marks(void **state)
{
	(void)state;
	HloModule *m = load_text("HloModule t\n"
				 "ENTRY e {\n"
				 "  a = f32[64] parameter(0)\n"
				 "  b = f32[64] parameter(1)\n"
				 "  p = f32[64] add(a, b)\n"
				 "  ROOT c = f32[64] multiply(p, a)\n"
				 "}\n");
	const HloInstr *p = hlo_comp_find(m->entry, "p"),
		       *c = hlo_comp_find(m->entry, "c");
	FusionDecision clean;
	fusion_judge(m, p, c, false, &clean);
	assert_true(clean.fused);
	for (unsigned v = 1; v < 40; v++)
		for (unsigned back = 1; back <= 4 && back <= v; back++) {
			for (int i = 0; i < m->entry->n; i++)
				m->entry->instrs[i]->mark = v;
			m->mark_gen = v - back;
			FusionDecision d;
			fusion_judge(m, p, c, false, &d);
			if (d.bytes_saved != clean.bytes_saved)
				print_error("marks %u, counter %u: saves %lld, "
					    "not %lld\n",
					    v, v - back,
					    (long long)d.bytes_saved,
					    (long long)clean.bytes_saved);
			assert_string_equal(d.rule, clean.rule);
			assert_int_equal(d.bytes_saved, clean.bytes_saved);
			fusion_decision_free(&d);
		}
	for (int i = 0; i < 4; i++)
		assert_true(hlo_new_mark(m) >= HLO_MARK_GEN0);
	fusion_decision_free(&clean);
	hlo_module_free(m);
}

static void test_force(void **state)
{
	(void)state;
	HloModule *m = load_text(softmax);
	Arena a;
	arena_init(&a);
	Literal *want = run_seeded(m, &a, 77);
	/* e is expensive with two users: forced, it is copied into out. */
	HloInstr *e = hlo_comp_find(m->entry, "e");
	HloInstr *out = hlo_comp_find(m->entry, "out");
	FusionDecision v;
	const char *made = NULL;
	assert_true(fusion_force(m, e, out, false, &v, &made));
	assert_false(v.fused);
	assert_string_equal(v.rule, "expensive-duplicated");
	fusion_decision_free(&v);
	assert_non_null(fusion_named(m, made));
	Diag d;
	diag_init(&d);
	assert_true(verify_module(m, &d, NULL));
	diag_free(&d);
	assert_non_null(hlo_comp_find(m->entry, "e")); /* still for sum */
	CompareResult cr;
	literal_compare(run_seeded(m, &a, 77), want,
			compare_default_tol(want->shape), &cr);
	assert_true(cr.ok);
	/* Not legal: a parameter, a pair that is not producer/consumer. */
	HloInstr *x = hlo_comp_find(m->entry, "x");
	HloInstr *rmax = hlo_comp_find(m->entry, "rmax");
	assert_false(fusion_force(m, x, rmax, false, &v, &made));
	assert_string_equal(v.rule, "producer-not-fusible");
	fusion_decision_free(&v);
	assert_false(fusion_force(m, rmax, hlo_comp_find(m->entry, "sum"), false,
				  &v, &made));
	assert_string_equal(v.rule, "not-producer-consumer");
	fusion_decision_free(&v);
	arena_free(&a);
	hlo_module_free(m);
}

/* .1, .3 and .5 taken: a counter from 0 meets them. */
static const char gte_names[] =
	"HloModule names\n"
	"ENTRY main {\n"
	"  get-tuple-element = f32[] parameter(0)\n"
	"  get-tuple-element.1 = f32[] negate(get-tuple-element)\n"
	"  get-tuple-element.3 = f32[] negate(get-tuple-element)\n"
	"  ROOT get-tuple-element.5 = f32[] negate(get-tuple-element)\n"
	"}\n";

/* A make that meets a taken name (hlo_instr_new, hlo_comp_new: NULL)
 * leaves the module as it was: no instruction, id, user or computation
 * (fz_new_fresh and the fused computations' names rely on it). */
static void test_make_taken_name(void **state)
{
	(void)state;
	HloModule *m = load_text(gte_names);
	HloComp *c = m->entry;
	HloInstr *p = hlo_comp_find(c, "get-tuple-element");
	int n = c->n, id = m->next_id, users = p->nusers;
	assert_null(hlo_instr_new(c, HLO_NEGATE, p->shape,
				  "get-tuple-element.1", 1, &p));
	assert_null(hlo_comp_new(m, "main"));
	assert_int_equal(c->n, n);
	assert_int_equal(m->next_id, id);
	assert_int_equal(p->nusers, users);
	assert_int_equal(m->ncomps, 1);
	assert_ptr_equal(hlo_module_find_comp(m, "main"), c);
	hlo_module_free(m);
}

/* New names from a counter (fz_new_fresh) are fz_fresh_name's: the
 * first free one from the counter on, whether made straight away (a
 * taken one fails and the next is tried) or looked up first. */
static void test_fresh_names(void **state)
{
	(void)state;
	const char *want[] = {"get-tuple-element.2", "get-tuple-element.4",
			      "get-tuple-element.6", "get-tuple-element.7"};
	for (int look = 0; look < 2; look++) {
		HloModule *m = load_text(gte_names);
		HloComp *c = m->entry;
		HloInstr *p = hlo_comp_find(c, "get-tuple-element");
		int n = c->n, id = m->next_id, users = p->nusers;
		Fz z = {.m = m};
		int next = 0;
		bool direct = !look;
		for (int i = 0; i < 4; i++) {
			HloInstr *x = fz_new_fresh(&z, c, HLO_NEGATE, p->shape,
						   "get-tuple-element", &next,
						   &direct, NULL, 1, &p);
			assert_non_null(x);
			assert_string_equal(x->name, want[i]);
			assert_ptr_equal(hlo_comp_find(c, want[i]), x);
			assert_int_equal(x->id, id + i);
		}
		assert_int_equal(c->n, n + 4);
		assert_int_equal(p->nusers, users + 4);
		assert_false(z.failed);
		/* the plain search from the start agrees */
		int from = 0;
		assert_string_equal(fz_fresh_name(&z, &c->names,
						  "get-tuple-element", &from),
				    "get-tuple-element.8");
		/* and past the names of another map too */
		NameMap also;
		namemap_init(&also);
		assert_int_equal(namemap_add(&also, "get-tuple-element.8", p),
				 1);
		HloInstr *x = fz_new_fresh(&z, c, HLO_NEGATE, p->shape,
					   "get-tuple-element", &next, &direct,
					   &also, 1, &p);
		assert_string_equal(x->name, "get-tuple-element.9");
		namemap_free(&also);
		hlo_module_free(m);
	}
}

/* Names from a counter past 9, 99, 999 (fresh_text carries its digits
 * in place): as hlo_numbered_name writes them, one base after another
 * and back, and pass_free_name's search carries the same way. */
static void test_fresh_names_carry(void **state)
{
	(void)state;
	HloModule *m = load_text(gte_names);
	HloComp *c = m->entry;
	HloInstr *p = hlo_comp_find(c, "get-tuple-element");
	Fz z = {.m = m};
	int next = 7, other = 0;
	bool direct = true;
	char want[64];
	for (int k = 7; k < 1003; k++) {
		HloInstr *x = fz_new_fresh(&z, c, HLO_NEGATE, p->shape, "a",
					   &next, &direct, NULL, 1, &p);
		hlo_numbered_name(want, sizeof want, "a.", 2, k);
		assert_non_null(x);
		assert_string_equal(x->name, want);
		if (k % 97 == 0) /* another base in between */
			assert_non_null(fz_fresh_name(&z, &c->names, "b",
						      &other));
	}
	assert_int_equal(other, 10);
	assert_string_equal(fz_fresh_name(&z, &c->names, "b", &other), "b.10");
	/* a.1 ... a.6 are free, a.7 ... a.1002 taken */
	char buf[256];
	assert_string_equal(pass_free_name(buf, sizeof buf, "a", &c->names,
					   NULL),
			    "a.1");
	NameMap taken;
	namemap_init(&taken);
	for (int k = 1; k < 7; k++) {
		hlo_numbered_name(want, sizeof want, "a.", 2, k);
		assert_int_equal(namemap_add(&taken,
					     arena_strdup(&m->arena, want), p),
				 1);
	}
	assert_string_equal(pass_free_name(buf, sizeof buf, "a", &c->names,
					   &taken),
			    "a.1003");
	size_t len;
	assert_string_equal(pass_free_namen(buf, sizeof buf, "a.b", 1,
					    &c->names, &taken, &len),
			    "a.1003");
	assert_int_equal(len, 6);
	/* a cap too small for the number cuts it as hlo_numbered_name */
	assert_string_equal(pass_free_name(buf, 3, "q", &c->names, &taken),
			    "q.");
	namemap_free(&taken);
	hlo_module_free(m);
}

/* Both passes over every corpus module: verified (pass_apply), never
 * more kernels, and a log that matches the module. */
typedef struct Kernels {
	int fused, before, after;
} Kernels;

static bool fuse_one(const char *name, HloModule *m, void *ctx)
{
	Kernels *k = ctx;
	int kb = hlo_module_kernels(m);
	FusionLog *l = fusion_log_new(), *l2 = fusion_log_new();
	m = apply(m, "fusion", l);
	check_log(m, l);
	m = apply(m, "multi-output-fusion", l2);
	assert_true(fusion_log_merge(l, l2));
	check_log(m, l);
	int ka = hlo_module_kernels(m);
	if (ka > kb)
		print_error("%s: kernels %d -> %d\n", name, kb, ka);
	assert_true(ka <= kb);
	k->before += kb;
	k->after += ka;
	k->fused += ka < kb;
	fusion_log_free(l);
	fusion_log_free(l2);
	hlo_module_free(m);
	return true;
}

static void test_corpus(void **state)
{
	(void)state;
	Kernels k = {0};
	CorpusCount n = corpus_each(fuse_one, &k);
	print_message("fusion over the corpus: %d modules, %d with fewer "
		      "kernels, kernels %d -> %d\n",
		      n.loaded, k.fused, k.before, k.after);
	assert_true(n.loaded > 300);
}

/* The sentences' byte figures are printf's "%.1f" of the scaled value,
 * made in integers: the same text for edge cases (ties round to even,
 * unit boundaries, negatives) and a spread of values. */
static void test_human_bytes_match_printf(void **state)
{
	(void)state;
	static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	int64_t v[4000];
	int n = 0;
	int64_t edge[] = {0,	1,    1023,	 1024,	    1075,      1076,
			  1126, 1127, 1048575,	 1048576,   (1 << 20) + 52428,
			  (1 << 20) + 52429, 16384, 131072, 1073741824LL,
			  ((int64_t)1 << 40) * 3 + 12345,
			  ((int64_t)1 << 53) - 1, ((int64_t)1 << 53) + 1,
			  25335551658609869LL, ((int64_t)1 << 59) + 1};
	for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
		v[n++] = edge[i];
		v[n++] = -edge[i];
	}
	uint64_t x = 88172645463325252ull;
	while (n < 4000) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[n++] = (int64_t)(x >> (x % 50 + 4)) * (x & 1 ? 1 : -1);
	}
	for (int k = 0; k < n; k++) {
		int64_t b = v[k];
		char want[64], got[64];
		double d = (double)(b < 0 ? -b : b);
		int i = 0;
		while (d >= 1024 && i < 4) {
			d /= 1024;
			i++;
		}
		if (i == 0) /* "1 byte", "-1 byte", "2 bytes" */
			snprintf(want, sizeof want, "%lld byte%s", (long long)b,
				 b == 1 || b == -1 ? "" : "s");
		else
			snprintf(want, sizeof want, "%s%.1f %s",
				 b < 0 ? "-" : "", d, unit[i]);
		fz_human(got, sizeof got, b);
		if (strcmp(want, got))
			fail_msg("%lld: printf says '%s', fz_human '%s'",
				 (long long)b, want, got);
	}
}

/* A sentence packed by fz_say and made by fz_text reads as snprintf
 * would print it into FUSION_REASON_MAX bytes: short and long names,
 * numbers at their limits, %%, and sentences cut at the end. */
static void check_sentence(const char *fmt, const char *a, int d, long long l)
{
	Verdict v;
	char want[FUSION_REASON_MAX], got[FUSION_REASON_MAX];
	if (strstr(fmt, "%lld")) {
		fz_say(&v, false, "fused-loop", fmt, a, d, l);
		snprintf(want, sizeof want, fmt, a, d, l);
	} else {
		fz_say(&v, false, "fused-loop", fmt, a, d);
		snprintf(want, sizeof want, fmt, a, d);
	}
	fz_text(v.fmt, v.args, v.nargs, got, sizeof got);
	if (strcmp(want, got))
		fail_msg("'%s': snprintf says '%s', fz_text '%s'", fmt, want,
			 got);
}

static void test_sentences_match_printf(void **state)
{
	(void)state;
	static char longname[2000];
	memset(longname, 'n', sizeof longname - 1);
	const char *names[] = {"", "x", "fusion.12", longname + 1999 - 300,
			       longname + 1999 - 330, longname};
	const int ints[] = {0, -1, 7, 2147483647, -2147483647 - 1};
	const long long longs[] = {0, -5, 9223372036854775807LL,
				   -9223372036854775807LL - 1};
	const char *fmts[] = {
		"the producer is %s and %d more",
		"%s%d%lld",
		"100%% of %s: %d users, %lld bytes",
		"no conversion at all",
		"%d then a long name %s and %lld",
	};
	for (size_t f = 0; f < sizeof fmts / sizeof *fmts; f++)
		for (size_t n = 0; n < sizeof names / sizeof *names; n++)
			for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
				for (size_t k = 0;
				     k < sizeof longs / sizeof *longs; k++) {
					if (f == 4) {
						/* %d first: packed in order */
						Verdict v;
						char want[FUSION_REASON_MAX],
							got[FUSION_REASON_MAX];
						fz_say(&v, true, "fused-loop",
						       fmts[f], ints[i], names[n],
						       longs[k]);
						snprintf(want, sizeof want, fmts[f],
							 ints[i], names[n],
							 longs[k]);
						fz_text(v.fmt, v.args, v.nargs,
							got, sizeof got);
						assert_string_equal(want, got);
						continue;
					}
					check_sentence(fmts[f], names[n],
						       ints[i], longs[k]);
				}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_counts),
		cmocka_unit_test(test_siblings_of_a_shared_scalar),
		cmocka_unit_test(test_sentences_match_printf),
		cmocka_unit_test(test_human_bytes_match_printf),
		cmocka_unit_test(test_vocabulary),
		cmocka_unit_test(test_every_rule_has_a_golden_test),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_renames_per_computation),
		cmocka_unit_test(test_log_moved_decisions_keep_the_last_word),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_judge_stale_marks),
		cmocka_unit_test(test_force),
		cmocka_unit_test(test_make_taken_name),
		cmocka_unit_test(test_fresh_names),
		cmocka_unit_test(test_fresh_names_carry),
		cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
