/* test_hlo.c - the IR core: opcode and attribute tables, use lists,
 * names, deep copy, walks. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "print.h"
#include "testutil.h"

static HloModule *load(const char *text)
{
	Diag d;
	diag_init(&d);
	SrcFile f = {"t.hlo", text, strlen(text), 0};
	HloModule *m = parse_module(&f, &d, NULL);
	if (!m)
		print_message("%s", diag_text(&d));
	diag_free(&d);
	assert_non_null(m);
	return m;
}

static char *print_str(const HloModule *m)
{
	StrBuf b;
	sb_init(&b);
	print_module(&b, m, &print_opts_default);
	return sb_take(&b);
}

static const char *chain =
	"HloModule chain\n"
	"ENTRY main {\n"
	"  p = f32[4] parameter(0)\n"
	"  a = f32[4] add(p, p)\n"
	"  b = f32[4] multiply(a, p)\n"
	"  ROOT c = f32[4] negate(b)\n"
	"}\n";

static void opcode_table_round_trips(void **st)
{
	(void)st;
	for (int op = 1; op < HLO_OPCODE_COUNT; op++) {
		const char *s = hlo_opcode_name((HloOpcode)op);
		assert_int_equal(hlo_opcode_parse(s, (int)strlen(s)), op);
		if (op > 1) /* sorted: the parser binary-searches */
			assert_true(strcmp(hlo_opcode_name((HloOpcode)(op - 1)), s) < 0);
	}
	assert_int_equal(hlo_opcode_parse("addd", 4), HLO_INVALID);
	assert_int_equal(hlo_opcode_parse("ad", 2), HLO_INVALID);
	assert_int_equal(hlo_opcode_parse("add", 3), HLO_ADD);
	assert_true(hlo_opcode_flags(HLO_ADD) & XF_COMM);
	assert_true(hlo_opcode_flags(HLO_EXP) & XF_EXP);
	assert_int_equal(hlo_opcode_class(HLO_IS_FINITE), OC_UNARY_PRED);
	assert_int_equal(HLO_OPCODE_COUNT - 1, 132);
}

static void attr_table_round_trips(void **st)
{
	(void)st;
	for (int k = 1; k < A_COUNT; k++) {
		const char *s = hlo_attr_name((AttrKey)k);
		assert_int_equal(hlo_attr_parse(s, (int)strlen(s)), k);
	}
	assert_int_equal(hlo_attr_parse("metadata", 8), A_RAW);
	assert_int_equal(hlo_attr_kind(A_DIMENSIONS), AV_INTS);
	assert_int_equal(hlo_attr_kind(A_TO_APPLY), AV_COMP);
}

/* Does the space-separated list have the word? */
static bool has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *q = list; (q = strstr(q, w)); q += n)
		if ((q == list || q[-1] == ' ') && (q[n] == ' ' || !q[n]))
			return true;
	return false;
}

/* opattrs.def has a line for every opcode, and every key the IR types
 * (attrs.def) is taken by some opcode: otherwise the parser would refuse
 * it everywhere. */
static void opcode_attr_table_is_complete(void **st)
{
	(void)st;
	assert_true(has_word(hlo_opcode_attrs(HLO_INVALID), "metadata"));
	for (int op = 1; op < HLO_OPCODE_COUNT; op++)
		assert_non_null(hlo_opcode_attrs((HloOpcode)op));
	for (int k = 1; k < A_COUNT; k++) {
		bool found = false;
		for (int op = 1; op < HLO_OPCODE_COUNT && !found; op++)
			found = has_word(hlo_opcode_attrs((HloOpcode)op),
					 hlo_attr_name((AttrKey)k));
		if (!found)
			fail_msg("no opcode takes attribute '%s'",
				 hlo_attr_name((AttrKey)k));
	}
	assert_true(has_word(hlo_opcode_attrs(HLO_SLICE), "slice"));
	assert_false(has_word(hlo_opcode_attrs(HLO_ADD), "direction"));
	assert_false(has_word(hlo_opcode_attrs(HLO_ADD),
			      "parameter_replication"));
}

static void users_follow_operands(void **st)
{
	(void)st;
	HloModule *m = load(chain);
	HloComp *c = m->entry;
	HloInstr *p = hlo_comp_find(c, "p"), *a = hlo_comp_find(c, "a"),
		 *b = hlo_comp_find(c, "b");
	assert_int_equal(p->nusers, 2); /* a (once, though used twice) and b */
	assert_ptr_equal(p->users[0], a);
	assert_ptr_equal(p->users[1], b);
	hlo_set_operand(b, 0, p); /* b = multiply(p, p) */
	assert_int_equal(a->nusers, 0);
	assert_int_equal(p->nusers, 2);
	hlo_instr_remove(a);
	assert_null(hlo_comp_find(c, "a"));
	assert_int_equal(c->n, 3);
	assert_int_equal(p->nusers, 1);
	hlo_module_free(m);
}

/* A new instruction is its operands' user once each, however often and
 * wherever in its operands each comes (instr_new tells a repeat by the
 * operand's last user being the new instruction). */
static void new_instr_users_once_per_operand(void **st)
{
	(void)st;
	HloModule *m = load(chain);
	HloComp *c = m->entry;
	HloInstr *p = hlo_comp_find(c, "p"), *a = hlo_comp_find(c, "a");
	int pu = p->nusers, au = a->nusers;
	enum { N = 70 };
	HloInstr *ops[N];
	for (int i = 0; i < N; i++)
		ops[i] = i % 3 == 0 ? p : i % 3 == 1 ? a : NULL;
	HloInstr *t = hlo_instr_new(c, HLO_TUPLE, p->shape, "t", N, ops);
	assert_non_null(t);
	HloInstr *two[] = {a, p, a};
	HloInstr *u = hlo_instr_new(c, HLO_TUPLE, p->shape, "u", 3, two);
	assert_non_null(u);
	assert_int_equal(p->nusers, pu + 2);
	assert_int_equal(a->nusers, au + 2);
	assert_ptr_equal(p->users[pu], t);
	assert_ptr_equal(p->users[pu + 1], u);
	assert_ptr_equal(a->users[au], t);
	assert_ptr_equal(a->users[au + 1], u);
	hlo_instr_remove(u);
	hlo_instr_remove(t);
	assert_int_equal(p->nusers, pu);
	assert_int_equal(a->nusers, au);
	hlo_module_free(m);
}

static void replace_all_uses_moves_root(void **st)
{
	(void)st;
	HloModule *m = load(chain);
	HloComp *c = m->entry;
	HloInstr *b = hlo_comp_find(c, "b"), *cc = hlo_comp_find(c, "c"),
		 *p = hlo_comp_find(c, "p");
	hlo_replace_all_uses(cc, b);
	assert_ptr_equal(c->root, b);
	hlo_replace_all_uses(b, p);
	assert_int_equal(b->nusers, 0);
	assert_ptr_equal(cc->ops[0], p);
	assert_ptr_equal(c->root, p);
	hlo_module_free(m);
}

static void names_are_unique_per_computation(void **st)
{
	(void)st;
	HloModule *m = load(chain);
	HloComp *c = m->entry;
	assert_string_equal(hlo_comp_unique_name(c, "a"), "a.1");
	assert_string_equal(hlo_comp_unique_name(c, "fresh"), "fresh");
	HloInstr *a = hlo_comp_find(c, "a");
	assert_false(hlo_instr_rename(a, "b"));
	assert_true(hlo_instr_rename(a, "a2"));
	assert_ptr_equal(hlo_comp_find(c, "a2"), a);
	assert_null(hlo_comp_find(c, "a"));
	assert_null(hlo_instr_new(c, HLO_NEGATE, a->shape, "b", 1, &a));
	HloInstr *n = hlo_instr_new(c, HLO_NEGATE, a->shape, NULL, 1, &a);
	assert_non_null(n);
	assert_string_equal(n->name, "negate");
	assert_string_equal(hlo_module_unique_comp_name(m, "main"), "main.1");
	/* a rename to its own name or a taken one changes nothing */
	assert_false(hlo_instr_rename(a, "a2"));
	assert_false(hlo_instr_rename(a, "negate"));
	assert_string_equal(a->name, "a2");
	assert_ptr_equal(hlo_comp_find(c, "negate"), n);
	/* a computation name is taken once */
	int ncomps = m->ncomps;
	assert_null(hlo_comp_new(m, "main"));
	assert_int_equal(m->ncomps, ncomps);
	HloComp *k = hlo_comp_new(m, "k");
	assert_non_null(k);
	assert_ptr_equal(hlo_module_find_comp(m, "k"), k);
	assert_int_equal(m->ncomps, ncomps + 1);
	/* a name string of the module's taken as is, or made unique */
	HloInstr *x = hlo_instr_new_in_arena(c, HLO_NEGATE, a->shape, a->name,
					     1, &a);
	assert_non_null(x);
	assert_string_equal(x->name, "a2.1");
	HloInstr *y = hlo_instr_new_in_arena(c, HLO_NEGATE, a->shape, k->name,
					     1, &a);
	assert_non_null(y);
	assert_ptr_equal(y->name, k->name);
	assert_ptr_equal(hlo_comp_find(c, "k"), y);
	hlo_module_free(m);
}

static void clone_is_deep_and_prints_the_same(void **st)
{
	(void)st;
	const char *text =
		"HloModule m, is_scheduled=true\n"
		"add { x = f32[] parameter(0)  y = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(x, y) }\n"
		"ENTRY main {\n"
		"  p = f32[4,8]{0,1} parameter(0)\n"
		"  z = f32[] constant(0)\n"
		"  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add,"
		" metadata={op_name=\"r\"}\n"
		"  k = f32[2,2] constant({ { 1, 2 }, { 3, 4 } })\n"
		"  ROOT t = (f32[4], f32[2,2]) tuple(r, k)\n"
		"}\n";
	HloModule *m = load(text), *c = hlo_module_clone(m);
	assert_non_null(c);
	char *a = print_str(m), *b = print_str(c);
	assert_string_equal(a, b);
	HloInstr *r = hlo_comp_find(c->entry, "r");
	assert_ptr_equal(hlo_attr_comp(r, A_TO_APPLY), hlo_module_find_comp(c, "add"));
	assert_ptr_not_equal(hlo_attr_comp(r, A_TO_APPLY),
			     hlo_module_find_comp(m, "add"));
	assert_ptr_equal(r->ops[0], hlo_comp_find(c->entry, "p"));
	/* the copy shares m's immutable data (it holds m's arena): it
	 * outlives m (under ASan a read of freed memory is caught) */
	assert_true(arena_holds(&c->arena));
	hlo_module_free(m);
	char *b2 = print_str(c);
	assert_string_equal(b, b2);
	/* a copy of a copy is made whole (no chain of held arenas), and
	 * outlives both */
	HloModule *c2 = hlo_module_clone(c);
	assert_non_null(c2);
	assert_false(arena_holds(&c2->arena));
	hlo_module_free(c);
	char *b3 = print_str(c2);
	assert_string_equal(b, b3);
	free(a);
	free(b);
	free(b2);
	free(b3);
	hlo_module_free(c2);
}

/* Use lists stay exact (ins is a user of v once, exactly when v is one
 * of its operands) through repeated operands and values with many
 * users; replace_all_uses appends to the new value's users in order. */
static void use_lists_stay_exact(void **st)
{
	(void)st;
	HloModule *m =
		load("ENTRY main {\n"
		     "  p = f32[4] parameter(0)\n"
		     "  q = f32[4] parameter(1)\n"
		     "  a = f32[4] add(p, p)\n"
		     "  b = f32[4] negate(p)\n"
		     "  c = f32[4] add(q, a)\n"
		     "  ROOT t = (f32[4], f32[4], f32[4]) tuple(a, b, c)\n"
		     "}\n");
	HloComp *c = m->entry;
	HloInstr *p = hlo_comp_find(c, "p"), *q = hlo_comp_find(c, "q"),
		 *a = hlo_comp_find(c, "a"), *b = hlo_comp_find(c, "b"),
		 *cc = hlo_comp_find(c, "c");
	hlo_set_operand(a, 0, q); /* a = add(q, p): still a user of p */
	assert_int_equal(p->nusers, 2);
	assert_ptr_equal(p->users[0], a);
	assert_int_equal(q->nusers, 2);
	assert_ptr_equal(q->users[1], a);
	hlo_set_operand(a, 1, q); /* a = add(q, q): not a user of p */
	assert_int_equal(p->nusers, 1);
	assert_ptr_equal(p->users[0], b);
	assert_int_equal(q->nusers, 2); /* c, a: once */
	hlo_set_operand(a, 0, NULL);
	assert_int_equal(q->nusers, 2); /* a still uses q in slot 1 */
	hlo_set_operand(a, 0, q);
	/* q's users c and a move to p, after b, in q's order reversed
	 * (taken from the end) - and c, using a too, stays a's user. */
	hlo_replace_all_uses(q, p);
	assert_int_equal(q->nusers, 0);
	assert_int_equal(p->nusers, 3);
	assert_ptr_equal(p->users[0], b);
	assert_ptr_equal(p->users[1], a);
	assert_ptr_equal(p->users[2], cc);
	assert_ptr_equal(a->ops[0], p);
	assert_ptr_equal(a->ops[1], p);
	assert_int_equal(a->nusers, 2);
	hlo_instr_remove(q);
	hlo_module_free(m);
}

/* hlo_replace_all_uses moves old's users over in one go: a user that
 * reads with already stays on with's list once, the others go after
 * with's own users in old's order reversed (as one hlo_set_operand
 * each would leave them), past with's first block of user slots. */
static void replace_all_uses_appends_in_one_go(void **st)
{
	(void)st;
	HloModule *m = load("ENTRY main {\n"
			    "  p = f32[4] parameter(0)\n"
			    "  q = f32[4] parameter(1)\n"
			    "  w = f32[4] negate(q)\n"
			    "  u1 = f32[4] abs(p)\n"
			    "  u2 = f32[4] add(p, w)\n"
			    "  u3 = f32[4] add(p, p)\n"
			    "  u4 = f32[4] exponential(p)\n"
			    "  u5 = f32[4] sine(p)\n"
			    "  u6 = f32[4] add(w, w)\n"
			    "  ROOT t = (f32[4], f32[4], f32[4], f32[4], f32[4],"
			    " f32[4]) tuple(u1, u2, u3, u4, u5, u6)\n"
			    "}\n");
	HloComp *c = m->entry;
	HloInstr *p = hlo_comp_find(c, "p"), *w = hlo_comp_find(c, "w");
	const char *want[] = {"u2", "u6", "u5", "u4", "u3", "u1"};
	assert_int_equal(w->nusers, 2);
	hlo_replace_all_uses(p, w);
	assert_int_equal(p->nusers, 0);
	assert_int_equal(w->nusers, 6);
	for (int i = 0; i < 6; i++)
		assert_string_equal(w->users[i]->name, want[i]);
	HloInstr *u3 = hlo_comp_find(c, "u3");
	assert_ptr_equal(u3->ops[0], w);
	assert_ptr_equal(u3->ops[1], w);
	assert_uses_exact(m);
	/* and back: p takes them all, in w's order reversed */
	hlo_replace_all_uses(w, p);
	assert_int_equal(w->nusers, 0);
	assert_int_equal(p->nusers, 6);
	assert_string_equal(p->users[0]->name, "u1");
	assert_string_equal(p->users[5]->name, "u2");
	assert_uses_exact(m);
	hlo_module_free(m);
}

/* An instruction's first users share its block with its operands: users
 * beyond that block move out and leave the operands as they were;
 * hlo_instr_drop_operands then takes it out of each distinct operand's
 * list once, also among many operands. */
static void users_past_first_block_and_dropped_operands(void **st)
{
	(void)st;
	HloModule *m = load(chain);
	HloComp *c = m->entry;
	HloInstr *x = c->root;
	HloInstr *ops[3] = {x, x, x};
	HloInstr *a = hlo_instr_new(c, HLO_ADD, x->shape, "a2", 2, ops);
	HloInstr *b = hlo_instr_new(c, HLO_NEGATE, x->shape, "b2", 1, &a);
	assert_non_null(a);
	assert_non_null(b);
	HloInstr *us[9];
	for (int i = 0; i < 9; i++) {
		HloInstr *two[2] = {a, b};
		char nm[16];
		snprintf(nm, sizeof nm, "u%d", i);
		us[i] = hlo_instr_new(c, HLO_ADD, x->shape, nm, 2, two);
		assert_non_null(us[i]);
		assert_ptr_equal(a->ops[0], x);
		assert_ptr_equal(a->ops[1], x);
		assert_ptr_equal(b->ops[0], a);
	}
	assert_int_equal(a->nusers, 10);
	assert_int_equal(b->nusers, 9);
	/* many operands, some twice: the set path */
	HloInstr *wide[80];
	for (int i = 0; i < 80; i++)
		wide[i] = us[i % 9];
	HloInstr *t = hlo_instr_new(c, HLO_TUPLE, x->shape, "wide", 80, wide);
	assert_non_null(t);
	for (int i = 0; i < 9; i++)
		assert_int_equal(us[i]->nusers, 1);
	hlo_instr_drop_operands(t);
	for (int i = 0; i < 80; i++)
		assert_null(t->ops[i]);
	for (int i = 0; i < 9; i++)
		assert_int_equal(us[i]->nusers, 0);
	hlo_instr_drop_operands(us[3]);
	assert_int_equal(a->nusers, 9);
	assert_int_equal(b->nusers, 8);
	hlo_instr_drop_operands(a); /* x was read twice: taken out once */
	assert_null(a->ops[0]);
	for (int i = 0; i < x->nusers; i++)
		assert_ptr_not_equal(x->users[i], a);
	hlo_module_free(m);
}

/* hlo_set_operand_known does what hlo_set_operand works out, when told
 * right; an unlisted instruction is in the order but not in the names. */
static void set_operand_known_and_unlisted(void **st)
{
	(void)st;
	HloModule *m = load("ENTRY main {\n"
			    "  p = f32[4] parameter(0)\n"
			    "  q = f32[4] parameter(1)\n"
			    "  ROOT a = f32[4] add(p, p)\n"
			    "}\n");
	HloComp *c = m->entry;
	HloInstr *p = hlo_comp_find(c, "p"), *q = hlo_comp_find(c, "q"),
		 *a = hlo_comp_find(c, "a");
	hlo_set_operand_known(a, 1, q, true, false); /* add(p, q) */
	assert_int_equal(p->nusers, 1);
	assert_int_equal(q->nusers, 1);
	hlo_set_operand_known(a, 0, q, false, true); /* add(q, q) */
	assert_int_equal(p->nusers, 0);
	assert_int_equal(q->nusers, 1);
	assert_uses_exact(m);
	int id = m->next_id, n = c->n;
	HloInstr *u = hlo_instr_new_unlisted(c, HLO_PARAMETER, p->shape,
					     "(unlisted)");
	assert_non_null(u);
	assert_int_equal(u->id, id);
	assert_int_equal(c->n, n + 1);
	assert_ptr_equal(c->instrs[n], u);
	assert_null(hlo_comp_find(c, "(unlisted)"));
	hlo_set_operand(a, 1, u);
	assert_int_equal(u->nusers, 1);
	assert_true(hlo_instr_rename(u, "r"));
	assert_ptr_equal(hlo_comp_find(c, "r"), u);
	assert_uses_exact(m);
	hlo_module_free(m);
}

/* Removing users of a value read by hundreds, in the orders the passes
 * do (from the end, from the front, backwards from the middle, hopping)
 * and at random: after each removal the list is the others in their
 * order, checked against a plain array. */
static void users_removed_in_any_order_keep_order(void **st)
{
	(void)st;
	enum { N = 300 };
	HloModule *m = load("ENTRY main {\n  ROOT p = f32[4] parameter(0)\n}\n");
	HloComp *c = m->entry;
	HloInstr *p = hlo_comp_find(c, "p");
	unsigned seed = 12345;
	for (int order = 0; order < 5; order++) {
		HloInstr *u[N], *want[N];
		for (int i = 0; i < N; i++) {
			u[i] = hlo_instr_new(c, HLO_NEGATE, p->shape, NULL, 1,
					     &p);
			assert_non_null(u[i]);
			want[i] = u[i];
		}
		assert_int_equal(p->nusers, N);
		int n = N;
		for (int k = 0; k < N; k++) {
			int at = order == 0   ? n - 1
				 : order == 1 ? 0
				 : order == 2 ? (n - 1) / 2
				 : order == 3 ? (k * 7) % n
					      : (int)((seed = seed * 1103515245u +
							      12345u) >>
						      16) % n;
			HloInstr *x = want[at];
			memmove(&want[at], &want[at + 1],
				sizeof *want * (size_t)(n - at - 1));
			n--;
			hlo_set_operand(x, 0, NULL);
			assert_int_equal(p->nusers, n);
			for (int i = 0; i < n; i++)
				assert_ptr_equal(p->users[i], want[i]);
		}
		/* the list again after the last removal's place is gone */
		hlo_set_operand(u[0], 0, p);
		hlo_set_operand(u[1], 0, p);
		hlo_set_operand(u[1], 0, NULL);
		assert_int_equal(p->nusers, 1);
		assert_ptr_equal(p->users[0], u[0]);
		hlo_set_operand(u[0], 0, NULL);
		assert_int_equal(p->nusers, 0);
	}
	hlo_module_free(m);
}

/* unlink + sweep leave what removing one at a time would: the
 * instructions gone from the order, the names and every user list (the
 * others in their order), their operands cleared. */
static void unlink_then_sweep(void **st)
{
	(void)st;
	HloModule *m = load("ENTRY main {\n"
			    "  p = f32[4] parameter(0)\n"
			    "  a = f32[4] negate(p)\n"
			    "  b = f32[4] add(p, p)\n"
			    "  c = f32[4] abs(p)\n"
			    "  d = f32[4] add(b, c)\n"
			    "  ROOT e = f32[4] exponential(p)\n"
			    "}\n");
	HloComp *c = m->entry;
	HloInstr *p = hlo_comp_find(c, "p"), *a = hlo_comp_find(c, "a"),
		 *b = hlo_comp_find(c, "b"), *cc = hlo_comp_find(c, "c"),
		 *d = hlo_comp_find(c, "d"), *e = hlo_comp_find(c, "e");
	assert_int_equal(p->nusers, 4);
	hlo_instr_unlink(d);
	hlo_instr_unlink(b);
	hlo_instr_unlink(a);
	assert_null(hlo_comp_find(c, "b"));
	assert_null(b->parent);
	assert_int_equal(c->n, 6); /* still in the order until the sweep */
	assert_int_equal(p->nusers, 4);
	hlo_comp_sweep(c);
	assert_int_equal(c->n, 3);
	assert_ptr_equal(c->instrs[0], p);
	assert_ptr_equal(c->instrs[1], cc);
	assert_ptr_equal(c->instrs[2], e);
	assert_int_equal(p->nusers, 2);
	assert_ptr_equal(p->users[0], cc);
	assert_ptr_equal(p->users[1], e);
	assert_int_equal(cc->nusers, 0);
	assert_null(b->ops[0]);
	assert_null(b->ops[1]);
	assert_null(d->ops[0]);
	assert_ptr_equal(c->root, e);
	hlo_instr_unlink(e); /* the root goes too */
	assert_null(c->root);
	hlo_comp_sweep(c);
	assert_int_equal(c->n, 2);
	assert_int_equal(p->nusers, 1);
	hlo_module_free(m);
}

/* A clone has the same ids, names (found by name), user order, and
 * grows like any computation when a pass adds instructions. */
static void clone_keeps_ids_users_and_grows(void **st)
{
	(void)st;
	HloModule *m = load(chain), *c = hlo_module_clone(m);
	assert_non_null(c);
	HloComp *sc = m->entry, *dc = c->entry;
	assert_int_equal(dc->n, sc->n);
	assert_int_equal(c->next_id, m->next_id);
	for (int i = 0; i < sc->n; i++) {
		HloInstr *s = sc->instrs[i], *d = dc->instrs[i];
		assert_ptr_equal(hlo_comp_find(dc, s->name), d);
		assert_int_equal(d->id, s->id);
		assert_ptr_equal(d->parent, dc);
		assert_int_equal(d->nusers, s->nusers);
		for (int k = 0; k < s->nusers; k++)
			assert_string_equal(d->users[k]->name,
					    s->users[k]->name);
	}
	HloInstr *x = dc->root;
	for (int i = 0; i < 20; i++)
		x = hlo_instr_new(dc, HLO_NEGATE, x->shape, NULL, 1, &x);
	assert_non_null(x);
	assert_int_equal(dc->n, sc->n + 20);
	assert_ptr_equal(dc->instrs[sc->n + 19], x);
	assert_ptr_equal(dc->instrs[0], hlo_comp_find(dc, "p"));
	assert_true(x->id >= m->next_id);
	/* Each copied list has a slot to spare in the shared block: users
	 * gained there (one, then more) leave the neighbours' lists alone. */
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < sc->n; i++) {
			HloInstr *o = dc->instrs[i];
			assert_non_null(hlo_instr_new(dc, HLO_NEGATE, o->shape,
						      NULL, 1, &o));
			assert_uses_exact(c);
		}
	for (int i = 0; i < sc->n; i++) {
		HloInstr *s = sc->instrs[i], *d = dc->instrs[i];
		assert_int_equal(d->nops, s->nops);
		for (int k = 0; k < s->nops; k++)
			assert_string_equal(d->ops[k]->name, s->ops[k]->name);
		for (int k = 0; k < s->nusers; k++)
			assert_string_equal(d->users[k]->name,
					    s->users[k]->name);
	}
	hlo_module_free(m);
	hlo_module_free(c);
}

/* hlo_comp_param answers from an index it checks on every hit: after
 * parameters are unlinked, renumbered and added, it still agrees with a
 * plain scan of the live ones. */
static HloInstr *scan_param(const HloComp *c, int64_t k)
{
	for (int i = 0; i < c->n; i++)
		if (c->instrs[i]->parent == c &&
		    c->instrs[i]->op == HLO_PARAMETER &&
		    c->instrs[i]->param_no == k)
			return c->instrs[i];
	return NULL;
}

static void assert_params_agree(const HloComp *c, int upto)
{
	for (int k = -1; k <= upto; k++)
		assert_ptr_equal(hlo_comp_param(c, k), scan_param(c, k));
}

static void param_index_follows_changes(void **st)
{
	(void)st;
	HloModule *m = load("ENTRY main {\n"
			    "  a = f32[4] parameter(0)\n"
			    "  b = f32[4] parameter(1)\n"
			    "  c = f32[4] parameter(2)\n"
			    "  x = f32[4] add(a, c)\n"
			    "  ROOT y = f32[4] add(x, b)\n"
			    "}\n");
	HloComp *c = m->entry;
	assert_params_agree(c, 4);
	assert_string_equal(hlo_comp_param(c, 1)->name, "b");
	/* b goes; c becomes parameter 1, as a pass renumbering would. */
	HloInstr *b = hlo_comp_find(c, "b"), *x = hlo_comp_find(c, "x");
	hlo_set_operand(c->root, 1, x);
	hlo_instr_unlink(b);
	hlo_comp_sweep(c);
	hlo_comp_find(c, "c")->param_no = 1;
	assert_params_agree(c, 4);
	assert_string_equal(hlo_comp_param(c, 1)->name, "c");
	assert_null(hlo_comp_param(c, 2));
	/* A new parameter 2, appended after the others. */
	HloInstr *d = hlo_instr_new(c, HLO_PARAMETER, x->shape, "d", 0, NULL);
	assert_non_null(d);
	d->param_no = 2;
	assert_params_agree(c, 4);
	assert_ptr_equal(hlo_comp_param(c, 2), d);
	assert_int_equal(hlo_comp_param_count(c), 3);
	hlo_module_free(m);
}

/* A stem asked for again and again resumes after the last suffix handed
 * out; names stay unique when other names with suffixes appear, and the
 * hints do not travel into a clone (which starts its own). */
static void unique_names_resume_and_stay_unique(void **st)
{
	(void)st;
	HloModule *m = load(chain);
	HloComp *c = m->entry;
	HloInstr *x = c->root;
	const char *names[40];
	for (int i = 0; i < 40; i++) {
		names[i] = hlo_comp_unique_name(c, "a");
		x = hlo_instr_new(c, HLO_NEGATE, x->shape, names[i], 1, &x);
		assert_non_null(x);
	}
	assert_string_equal(names[0], "a.1");
	assert_string_equal(names[39], "a.40");
	/* Someone else takes a.41 and a.42: the next one skips them. */
	HloInstr *y = hlo_instr_new(c, HLO_NEGATE, x->shape, "a.41", 1, &x);
	assert_non_null(y);
	assert_non_null(hlo_instr_new(c, HLO_NEGATE, x->shape, "a.42", 1, &y));
	const char *n = hlo_comp_unique_name(c, "a");
	assert_string_equal(n, "a.43");
	assert_non_null(hlo_instr_new(c, HLO_NEGATE, x->shape, n, 1, &x));
	/* "a.7" is taken; its stem is "a". */
	assert_string_equal(hlo_comp_unique_name(c, "a.7"), "a.44");
	HloModule *k = hlo_module_clone(m);
	assert_non_null(k);
	assert_null(k->entry->names.hints);
	assert_string_equal(hlo_comp_unique_name(k->entry, "a"), "a.44");
	assert_ptr_equal(hlo_comp_find(k->entry, "a.40"),
			 k->entry->instrs[c->n - 4]);
	hlo_module_free(k);
	hlo_module_free(m);
}

/* A hint is where a stem's search resumes, one per slot (by the stem's
 * namemap_hash): a second stem in the slot, or forgetting the hints (as
 * each pass does), starts the search from .1 again, in a computation's
 * map (hints from its arena) as in the module's. */
static void unique_name_hints_forgotten(void **st)
{
	(void)st;
	HloModule *m = load(chain);
	HloComp *c = m->entry;
	assert_string_equal(hlo_comp_unique_name(c, "a"), "a.1");
	assert_string_equal(hlo_comp_unique_name(c, "a"), "a.2");
	assert_string_equal(hlo_module_unique_comp_name(m, "main"), "main.1");
	assert_string_equal(hlo_module_unique_comp_name(m, "main"), "main.2");
	hlo_module_reset_name_hints(m);
	assert_string_equal(hlo_comp_unique_name(c, "a"), "a.1");
	assert_string_equal(hlo_module_unique_comp_name(m, "main"), "main.1");
	hlo_comp_skip_unique_name(c, "a.9", 3);
	assert_string_equal(hlo_comp_unique_name(c, "a"), "a.3");
	/* two stems of one slot */
	char y[8] = "b0";
	for (int i = 1; namemap_hash(y, 2) % 16 != namemap_hash("a", 1) % 16;
	     i++) {
		y[0] = (char)('b' + i / 10);
		y[1] = (char)('0' + i % 10);
	}
	assert_string_equal(hlo_comp_unique_name(c, "a"), "a.4");
	hlo_comp_skip_unique_name(c, y, 2);
	assert_string_equal(hlo_comp_unique_name(c, "a"), "a.1");
	hlo_module_free(m);
}

/* The clone copies each name table whole: names unlinked before the
 * clone are gone from the copy's table, every live one is found. */
static void clone_name_table_drops_removed(void **st)
{
	(void)st;
	HloModule *m = load("ENTRY main {\n"
			    "  a = f32[4] parameter(0)\n"
			    "  dead = f32[4] abs(a)\n"
			    "  dead2 = f32[4] negate(dead)\n"
			    "  ROOT y = f32[4] add(a, a)\n"
			    "}\n");
	HloComp *c = m->entry;
	hlo_instr_unlink(hlo_comp_find(c, "dead2"));
	hlo_instr_unlink(hlo_comp_find(c, "dead"));
	hlo_comp_sweep(c);
	HloModule *k = hlo_module_clone(m);
	assert_non_null(k);
	assert_int_equal(k->entry->n, 2);
	assert_int_equal((int)k->entry->names.count, 2);
	assert_null(hlo_comp_find(k->entry, "dead"));
	assert_null(hlo_comp_find(k->entry, "dead2"));
	for (int i = 0; i < k->entry->n; i++)
		assert_ptr_equal(hlo_comp_find(k->entry,
					       k->entry->instrs[i]->name),
				 k->entry->instrs[i]);
	/* The names are free again in the copy. */
	assert_string_equal(hlo_comp_unique_name(k->entry, "dead"), "dead");
	hlo_module_free(k);
	hlo_module_free(m);
}

static void post_order_puts_operands_first(void **st)
{
	(void)st;
	const char *text = "ENTRY main {\n"
			   "  ROOT c = f32[4] negate(b)\n"
			   "  b = f32[4] add(a, a)\n"
			   "  a = f32[4] parameter(0)\n"
			   "  dead = f32[4] abs(a)\n"
			   "}\n";
	HloModule *m = load(text);
	HloInstr **order;
	int n = hlo_comp_post_order(m->entry, &order);
	assert_int_equal(n, 4);
	assert_string_equal(order[0]->name, "a");
	assert_string_equal(order[1]->name, "b");
	assert_string_equal(order[2]->name, "c");
	assert_string_equal(order[3]->name, "dead");
	free(order);
	hlo_module_free(m);
}

static void post_order_reports_cycles(void **st)
{
	(void)st;
	const char *text = "ENTRY main {\n"
			   "  p = f32[4] parameter(0)\n"
			   "  a = f32[4] add(p, b)\n"
			   "  ROOT b = f32[4] add(p, a)\n"
			   "}\n";
	HloModule *m = load(text);
	HloInstr **order;
	assert_int_equal(hlo_comp_post_order(m->entry, &order), -1);
	assert_null(order);
	hlo_module_free(m);
}

/* The walks take fresh mark generations instead of clearing the marks
 * first: what other walks leave there (positions, counts, older
 * generations) changes nothing. */
static void post_order_ignores_stale_marks(void **st)
{
	(void)st;
	const char *text = "ENTRY main {\n"
			   "  p = f32[4] parameter(0)\n"
			   "  q = f32[4] parameter(1)\n"
			   "  x = f32[4] add(q, p)\n"
			   "  y = f32[4] multiply(x, p)\n"
			   "  ROOT z = f32[4] subtract(y, x)\n"
			   "  w = f32[4] negate(q)\n"
			   "}\n";
	const char *want[] = {"q", "p", "x", "y", "z", "w"};
	HloModule *m = load(text);
	HloComp *c = m->entry;
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < c->n; i++)
			c->instrs[i]->mark = round == 0   ? (unsigned)i
					     : round == 1 ? hlo_new_mark(m)
					     : round == 2 ? HLO_MARK_GEN0 - 1
							  : 0;
		HloInstr **order;
		int n = hlo_comp_post_order(c, &order);
		assert_int_equal(n, 6);
		for (int i = 0; i < n; i++)
			assert_string_equal(order[i]->name, want[i]);
		free(order);
	}
	hlo_module_free(m);
}

static void sort_operands_first_keeps_or_repairs(void **st)
{
	(void)st;
	/* an order that is one already stays as it is */
	HloModule *m = load("ENTRY main {\n"
			    "  q = f32[4] parameter(1)\n"
			    "  p = f32[4] parameter(0)\n"
			    "  w = f32[4] negate(q)\n"
			    "  x = f32[4] add(p, q)\n"
			    "  ROOT y = f32[4] multiply(x, w)\n"
			    "}\n");
	const char *same[] = {"q", "p", "w", "x", "y"};
	assert_true(hlo_comp_sort_operands_first(m->entry));
	assert_int_equal(m->entry->n, 5);
	for (int i = 0; i < 5; i++)
		assert_string_equal(m->entry->instrs[i]->name, same[i]);
	hlo_module_free(m);
	/* one that is not: a post order over operands from each
	 * instruction in turn */
	m = load("ENTRY main {\n"
		 "  ROOT c = f32[4] negate(b)\n"
		 "  b = f32[4] add(q, a)\n"
		 "  a = f32[4] parameter(0)\n"
		 "  dead = f32[4] abs(a)\n"
		 "  q = f32[4] parameter(1)\n"
		 "}\n");
	const char *sorted[] = {"q", "a", "b", "c", "dead"};
	assert_true(hlo_comp_sort_operands_first(m->entry));
	assert_int_equal(m->entry->n, 5);
	for (int i = 0; i < 5; i++)
		assert_string_equal(m->entry->instrs[i]->name, sorted[i]);
	hlo_module_free(m);
	/* a cycle leaves the order as it is */
	m = load("ENTRY main {\n"
		 "  p = f32[4] parameter(0)\n"
		 "  a = f32[4] add(p, b)\n"
		 "  ROOT b = f32[4] add(p, a)\n"
		 "}\n");
	const char *cyc[] = {"p", "a", "b"};
	assert_true(hlo_comp_sort_operands_first(m->entry));
	for (int i = 0; i < 3; i++)
		assert_string_equal(m->entry->instrs[i]->name, cyc[i]);
	hlo_module_free(m);
}

static void comp_post_order_puts_callees_first(void **st)
{
	(void)st;
	const char *text =
		"ENTRY main { p = f32[] parameter(0)\n"
		"  ROOT c = f32[] call(p), to_apply=f }\n"
		"f { x = f32[] parameter(0) ROOT y = f32[] call(x), to_apply=g }\n"
		"g { x = f32[] parameter(0) ROOT y = f32[] negate(x) }\n";
	HloModule *m = load(text);
	HloComp **order;
	int n = hlo_module_comp_post_order(m, &order);
	assert_int_equal(n, 3);
	assert_string_equal(order[0]->name, "g");
	assert_string_equal(order[1]->name, "f");
	assert_string_equal(order[2]->name, "main");
	assert_ptr_equal(m->entry, hlo_module_find_comp(m, "main"));
	free(order);
	hlo_module_free(m);
}

/* hlo_module_comp_index follows the list through additions and
 * removals, and answers -1 for a computation the module does not hold. */
static void comp_index_follows_the_list(void **st)
{
	(void)st;
	HloModule *m = hlo_module_new("m");
	HloModule *o = hlo_module_new("o");
	assert_non_null(m);
	assert_non_null(o);
	HloComp *c[8];
	char name[8];
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof name, "c%d", i);
		c[i] = hlo_comp_new(m, name);
		assert_non_null(c[i]);
	}
	for (int i = 0; i < 8; i++)
		assert_int_equal(hlo_module_comp_index(m, c[i]), i);
	hlo_module_remove_comp(m, c[2]);
	HloComp *gone[2] = {c[0], c[5]};
	hlo_module_remove_comps(m, gone, 2);
	HloComp *late = hlo_comp_new(m, "late");
	HloComp *foreign = hlo_comp_new(o, "c1");
	assert_int_equal(hlo_module_comp_index(m, c[2]), -1);
	assert_int_equal(hlo_module_comp_index(m, c[0]), -1);
	assert_int_equal(hlo_module_comp_index(m, foreign), -1);
	for (int i = 0; i < m->ncomps; i++)
		assert_int_equal(hlo_module_comp_index(m, m->comps[i]), i);
	assert_int_equal(hlo_module_comp_index(m, late), m->ncomps - 1);
	assert_int_equal(hlo_module_comp_index(m, c[7]), m->ncomps - 2);
	hlo_module_free(o);
	hlo_module_free(m);
}

/* hlo_instr_move: an instruction moved into another computation is what
 * a copy made there and the original taken out would leave, under its
 * own name, with the next id; a name taken there moves nothing. */
static void move_is_a_copy_and_a_detach(void **st)
{
	(void)st;
	HloModule *m = load(chain);
	HloComp *c = m->entry;
	HloInstr *p = hlo_comp_find(c, "p"), *a = hlo_comp_find(c, "a");
	HloInstr *b = hlo_comp_find(c, "b");
	HloComp *k = hlo_comp_new(m, "k");
	HloInstr *q = hlo_instr_new(k, HLO_PARAMETER, p->shape, "q", 0, NULL);
	/* taken: nothing changes */
	HloInstr *t = hlo_instr_new(k, HLO_PARAMETER, p->shape, "a", 0, NULL);
	HloInstr *two[2] = {q, q};
	int next = m->next_id, pusers = p->nusers;
	assert_null(hlo_instr_move(a, k, two));
	assert_ptr_equal(a->parent, c);
	assert_int_equal(m->next_id, next);
	assert_int_equal(p->nusers, pusers);
	assert_int_equal(q->nusers, 0);
	assert_true(hlo_instr_rename(t, "t"));
	/* b, read by nothing but c, moves, reading q twice */
	HloInstr *ops[2] = {q, q};
	b->vsig = 7;
	assert_ptr_equal(hlo_instr_move(b, k, ops), b);
	assert_ptr_equal(b->parent, k);
	assert_int_equal(b->id, next);
	assert_int_equal(m->next_id, next + 1);
	assert_int_equal(b->vsig, 0);
	assert_ptr_equal(hlo_comp_find(k, "b"), b);
	assert_null(hlo_comp_find(c, "b"));
	assert_ptr_equal(k->instrs[k->n - 1], b);
	assert_ptr_equal(b->ops[0], q);
	assert_ptr_equal(b->ops[1], q);
	assert_int_equal(q->nusers, 1); /* once, as instr_new */
	assert_ptr_equal(q->users[0], b);
	for (int i = 0; i < a->nusers; i++)
		assert_ptr_not_equal(a->users[i], b);
	for (int i = 0; i < p->nusers; i++)
		assert_ptr_not_equal(p->users[i], b);
	/* its users stay (the caller's to drop) */
	assert_int_equal(b->nusers, 1);
	hlo_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(opcode_table_round_trips),
		cmocka_unit_test(attr_table_round_trips),
		cmocka_unit_test(opcode_attr_table_is_complete),
		cmocka_unit_test(users_follow_operands),
		cmocka_unit_test(new_instr_users_once_per_operand),
		cmocka_unit_test(replace_all_uses_moves_root),
		cmocka_unit_test(names_are_unique_per_computation),
		cmocka_unit_test(clone_is_deep_and_prints_the_same),
		cmocka_unit_test(use_lists_stay_exact),
		cmocka_unit_test(users_removed_in_any_order_keep_order),
		cmocka_unit_test(replace_all_uses_appends_in_one_go),
		cmocka_unit_test(users_past_first_block_and_dropped_operands),
		cmocka_unit_test(set_operand_known_and_unlisted),
		cmocka_unit_test(unlink_then_sweep),
		cmocka_unit_test(clone_keeps_ids_users_and_grows),
		cmocka_unit_test(param_index_follows_changes),
		cmocka_unit_test(unique_names_resume_and_stay_unique),
		cmocka_unit_test(unique_name_hints_forgotten),
		cmocka_unit_test(clone_name_table_drops_removed),
		cmocka_unit_test(post_order_puts_operands_first),
		cmocka_unit_test(post_order_reports_cycles),
		cmocka_unit_test(post_order_ignores_stale_marks),
		cmocka_unit_test(sort_operands_first_keeps_or_repairs),
		cmocka_unit_test(comp_post_order_puts_callees_first),
		cmocka_unit_test(comp_index_follows_the_list),
		cmocka_unit_test(move_is_a_copy_and_a_detach),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
