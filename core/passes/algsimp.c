/* algsimp.c - algebraic simplification: small local rewrites, each one a
 * named rule that `pass algsimp` counts and cx->log records.
 *
 * Does: walks every computation except fusion bodies, operands before
 * users, and replaces an instruction by a simpler one that computes the
 * same values, until nothing changes (at most MAX_ROUNDS sweeps of
 * O(instructions) each). The rules, by family:
 *   identities   add-zero sub-zero mul-one div-one pow-one shift-by-zero
 *                and-true or-false xor-zero and-self or-self max-self
 *                min-self
 *   integers     mul-zero-int sub-self-int xor-self-int compare-self-int
 *                and-false or-true (integer and pred types only)
 *   unary pairs  negate-negate not-not abs-abs abs-negate abs-unsigned
 *                (negate-negate and abs-negate not for f8e8m0fnu, which
 *                has no sign: its negation is NaN)
 *                sign-sign round-round copy-copy bitcast-bitcast
 *                convert-convert-same (only when the inner type holds
 *                every value of the outer one)
 *   no-ops       noop-reshape noop-transpose noop-slice noop-pad
 *                noop-broadcast noop-convert noop-copy noop-bitcast
 *                noop-reverse noop-dynamic-slice noop-reduce-precision
 *                concatenate-single dynamic-update-slice-full
 *   shape chains reshape-reshape transpose-transpose broadcast-broadcast
 *                slice-slice reverse-reverse slice-of-concatenate
 *                concatenate-drop-empty reshape-of-broadcast-scalar
 *                transpose-of-broadcast-scalar slice-of-broadcast-scalar
 *                reverse-of-broadcast-scalar
 *   select       select-same-operands select-constant-pred select-not-pred
 *   others       pow-two-to-multiply dot-to-multiply
 *                reduce-size1-to-reshape
 * A constant operand counts when it is a constant (or broadcasts of one)
 * whose elements all have the same bits.
 *
 * Exactness: every rule gives bit-identical numbers (the interpreter
 * computes in double and rounds once per operation, as the rules
 * assume); a NaN stays a NaN, though not always with the same bits: an
 * operation a rule removes (x*1, pow(x, 1), a convert there and back)
 * would have made it the canonical quiet NaN, and XLA promises nothing
 * about NaN signs and payloads either. The other exception is the sign
 * of a zero in four rules that XLA's
 * AlgebraicSimplifier applies the same way: add-zero (-0.0 + +0.0 is
 * +0.0, the rule keeps -0.0), sub-zero with a -0.0 operand,
 * dot-to-multiply (a one-term sum starts from +0.0) and
 * reduce-size1-to-reshape with +0.0 as the init of an add. Rules that
 * are not exact for floats are limited to integers: x*0 is NaN for
 * x = inf, x-x is NaN for x = inf, x==x is false for NaN.
 * pow-two-to-multiply is limited to types whose square is exact in double
 * (f32 and narrower), where pow and x*x round the same value.
 *
 * Shapes: a replacement must equal the instruction's shape, element type
 * and layout included (shape_equal); when layouts differ the rule does
 * not fire. Instructions with side effects, dynamic shapes or no users
 * (dce's business) are left alone. Instructions a rewrite leaves without
 * users are removed (a worklist, as dce does, limited to what the
 * rewrite orphaned), except in a computation where control-predecessors
 * name instructions in raw text: there dce decides.
 * Requires: a verified module.
 * Invalidates: instruction positions and names (new instructions are
 * named opcode.N and placed just before the one they replace); roots may
 * move; marks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

enum {
	MAX_ROUNDS = 16,     /* sweeps per computation */
	MAX_IN_PLACE = 4,    /* in-place rewrites of one instruction */
	SPLAT_MAX = 1 << 16, /* constants scanned for "all equal" */
	FEW_USERS = 32,      /* user lists cheap to edit one at a time */
};

/* An instruction made by a rewrite, to be placed before `anchor`. */
typedef struct Added {
	HloInstr *ins, *anchor;
	int seq;
} Added;

typedef struct S {
	PassCtx *cx;
	HloModule *m;
	HloComp *c;
	HloInstr *anchor; /* the instruction being rewritten */
	Added *added;
	int nadded, cap_added;
	HloInstr **dead; /* unused after a rewrite (see drop, cleanup) */
	int ndead, cap_dead;
	HloInstr **stack;
	int cap_stack;
	/* Which instructions a sweep after the first looks at (see
	 * simplify_comp), by id: due, the sweep that must look at one again
	 * (made, or changed in place, in the sweep before); touched, the
	 * sweep in which what its rules read changed (an operand replaced,
	 * or something further up that changed). */
	int *due, *touched;
	int cap_ids;
	int sweep; /* counts the sweeps of the whole pass */
	int ndue;  /* instructions due in the next sweep */
	bool every; /* every sweep looks at every instruction */
	bool keep_dead; /* c names instructions in control-predecessors */
	bool oom;
	PassSideCache side; /* see disposable, skip */
} S;

/* What a rule decided: its name and the replacement (the instruction
 * itself when the rule changed it in place); rule NULL: no rewrite. */
typedef struct Rw {
	const char *rule;
	HloInstr *with;
} Rw;

static const Rw none = {NULL, NULL};

static Rw rw(const char *rule, HloInstr *with)
{
	return with ? (Rw){rule, with} : none;
}

/* ---- types and values ------------------------------------------------ */

static Dtype ty(const HloInstr *x) { return x->shape->type; }

static bool same_shape(const HloInstr *a, const HloInstr *b)
{
	return shape_equal(a->shape, b->shape);
}

static bool is_int(Dtype t) { return dtype_is_int(t); }

static bool is_bits(Dtype t) { return dtype_is_int(t) || t == DT_PRED; }

/* Signed, unsigned or floating point: what arithmetic rules cover
 * (complex numbers are left out: (a+bi)*1 is NaN for b = inf). */
static bool is_real(Dtype t) { return dtype_is_int(t) || dtype_is_float(t); }

typedef struct Splat {
	double f;  /* floats */
	int64_t i; /* integers and pred */
} Splat;

/* True when x is a constant, or broadcasts of one, whose elements all
 * have the same bits; the value in *v. */
static bool splat(const HloInstr *x, Splat *v)
{
	while (x->op == HLO_BROADCAST && x->nops == 1 && x->ops[0])
		x = x->ops[0];
	const Literal *l = x->op == HLO_CONSTANT ? x->literal : NULL;
	if (!l || l->elided || l->ntuple || !l->data || l->n < 1 ||
	    l->n > SPLAT_MAX)
		return false;
	Dtype t = l->shape->type;
	if (!is_real(t) && t != DT_PRED)
		return false;
	size_t w = (size_t)dtype_bytes(t);
	const unsigned char *p = l->data;
	for (int64_t k = 1; k < l->n; k++)
		if (memcmp(p, p + (size_t)k * w, w))
			return false;
	v->f = dtype_is_float(t) ? literal_get_f64(l, 0) : 0;
	v->i = dtype_is_float(t) ? 0 : literal_get_i64(l, 0);
	return true;
}

/* x is a splat equal to n (floats: either zero for n = 0). */
static bool is_val(const HloInstr *x, int64_t n)
{
	Splat v;
	if (!splat(x, &v))
		return false;
	return dtype_is_float(ty(x)) ? v.f == (double)n : v.i == n;
}

static uint64_t umax(Dtype t)
{
	int b = dtype_bits(t);
	return b >= 64 ? UINT64_MAX : ((uint64_t)1 << b) - 1;
}

static int64_t smin(Dtype t) { return -(int64_t)(umax(t) >> 1) - 1; }

static int64_t smax(Dtype t) { return (int64_t)(umax(t) >> 1); }

/* Every bit set: true for pred, -1 for signed, the maximum unsigned. */
static bool all_ones(const HloInstr *x)
{
	Splat v;
	Dtype t = ty(x);
	if (!is_bits(t) || !splat(x, &v))
		return false;
	if (t == DT_PRED)
		return v.i == 1;
	if (dtype_kind(t) == DK_SINT)
		return v.i == -1;
	return (uint64_t)v.i == umax(t);
}

/* The float is +inf (sign > 0) or -inf. */
static bool is_inf(const HloInstr *x, int sign)
{
	Splat v;
	return dtype_is_float(ty(x)) && splat(x, &v) && isinf(v.f) &&
	       (v.f > 0) == (sign > 0);
}

/* ---- building and removing ------------------------------------------ */

static bool grow(S *s, void **p, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return true;
	int n = *cap ? *cap * 2 : 64;
	while (n < need)
		n *= 2;
	void *v = realloc(*p, elem * (size_t)n);
	if (!v) {
		s->oom = true;
		return false;
	}
	*p = v;
	*cap = n;
	return true;
}

/* The by-id arrays of S cover ids below n (new entries 0: never due,
 * never touched). False on out-of-memory, and then every later sweep
 * looks at everything, as if nothing were known. */
static bool cover_ids(S *s, int n)
{
	if (n <= s->cap_ids)
		return true;
	int cap = s->cap_ids ? s->cap_ids : 64;
	while (cap < n)
		cap *= 2;
	int *due = realloc(s->due, sizeof *due * (size_t)cap);
	if (due)
		s->due = due;
	int *touched = due ? realloc(s->touched, sizeof *touched * (size_t)cap)
			   : NULL;
	if (!touched) {
		s->every = true;
		return false;
	}
	s->touched = touched;
	memset(due + s->cap_ids, 0, sizeof *due * (size_t)(cap - s->cap_ids));
	memset(touched + s->cap_ids, 0,
	       sizeof *touched * (size_t)(cap - s->cap_ids));
	s->cap_ids = cap;
	return true;
}

static bool known_id(const S *s, const HloInstr *x)
{
	return x->id >= 0 && x->id < s->cap_ids;
}

/* x, new or changed in place, is looked at in the next sweep. */
static void set_due(S *s, const HloInstr *x)
{
	if (x->id >= 0 && cover_ids(s, x->id + 1)) {
		s->due[x->id] = s->sweep + 1;
		s->ndue++;
	}
}

/* What x's rules read changed in this sweep. */
static void set_touched(S *s, const HloInstr *x)
{
	if (x->id >= 0 && cover_ids(s, x->id + 1))
		s->touched[x->id] = s->sweep;
}

/* A new instruction of shape (copied) placed before the anchor, named
 * opcode.<id> (the id is fresh, so the name nearly always is). */
static HloInstr *add_instr(S *s, HloOpcode op, const Shape *shape, int nops,
			   HloInstr *const *ops)
{
	HloComp *c = s->c;
	char buf[64];
	snprintf(buf, sizeof buf, "%s.%d", hlo_opcode_name(op), s->m->next_id);
	Shape *sh = shape_clone(&s->m->arena, shape);
	if (!grow(s, (void **)&s->added, &s->cap_added, s->nadded + 1,
		  sizeof *s->added))
		return NULL;
	HloInstr *x = sh ? hlo_instr_new_unique(c, op, sh, buf, nops, ops)
			 : NULL;
	if (!x) {
		s->oom = true;
		return NULL;
	}
	x->shape_given = true;
	s->added[s->nadded] = (Added){x, s->anchor, s->nadded};
	s->nadded++;
	set_due(s, x);
	return x;
}

static bool set_ints(S *s, HloInstr *ins, AttrKey k, int n, const int64_t *v)
{
	int64_t *copy = NULL;
	if (n > 0) {
		copy = arena_dup(&s->m->arena, v, sizeof *v * (size_t)n);
		if (!copy)
			return false;
	}
	HloAttr *at = hlo_attr_set(ins, k, NULL);
	if (!at)
		return false;
	at->u.ints.n = n;
	at->u.ints.v = copy;
	return true;
}

/* scalar broadcast to shape: dimensions={} */
static HloInstr *broadcast_scalar(S *s, HloInstr *k, const Shape *shape)
{
	HloInstr *b = add_instr(s, HLO_BROADCAST, shape, 1, &k);
	return b && set_ints(s, b, A_DIMENSIONS, 0, NULL) ? b : NULL;
}

/* A value of `shape` with every element v (integers and pred): a scalar
 * constant, broadcast unless the shape is a scalar. */
static HloInstr *make_splat(S *s, const Shape *shape, int64_t v)
{
	Arena *a = &s->m->arena;
	Shape *ks = shape->rank == 0 ? shape_clone(a, shape)
				     : shape_scalar(a, shape->type);
	HloInstr *k = ks ? add_instr(s, HLO_CONSTANT, ks, 0, NULL) : NULL;
	Literal *l = k ? literal_new(a, k->shape) : NULL;
	if (!l)
		return NULL;
	literal_set_i64(l, 0, v);
	k->literal = l;
	return shape->rank == 0 ? k : broadcast_scalar(s, k, shape);
}

/* x may go once nothing uses it. */
static bool disposable(S *s, const HloInstr *x)
{
	return x && !s->keep_dead && x->parent == s->c && s->c->root != x &&
	       x->op != HLO_PARAMETER &&
	       !pass_has_side_effect_cached(x, &s->side);
}

/* Removes x, unused after a rewrite, and what only it used, as dce
 * would. Links to operands with few users are cut now (cheap); x leaves
 * c, and the links to widely used operands are cut, in cleanup at the
 * end of the sweep: one hlo_set_operand costs O(the operand's users),
 * quadratic for a constant that thousands of rewritten instructions
 * read. */
static void drop(S *s, HloInstr *x)
{
	int sp = 0;
	if (!grow(s, (void **)&s->stack, &s->cap_stack, 1, sizeof *s->stack))
		return;
	s->stack[sp++] = x;
	while (sp > 0) {
		HloInstr *y = s->stack[--sp];
		if (!disposable(s, y) || y->nusers != 0 ||
		    !grow(s, (void **)&s->dead, &s->cap_dead, s->ndead + 1,
			  sizeof *s->dead) ||
		    !grow(s, (void **)&s->stack, &s->cap_stack, sp + y->nops,
			  sizeof *s->stack))
			continue;
		s->dead[s->ndead++] = y;
		for (int j = 0; j < y->nops; j++) {
			HloInstr *o = y->ops[j];
			if (!o || o->nusers > FEW_USERS)
				continue;
			hlo_set_operand(y, j, NULL);
			if (o->nusers == 0)
				s->stack[sp++] = o;
		}
	}
}

/* Finishes what drop() began, in a few linear passes over c: the dead
 * set is closed under "every user is dead" (counting dead users per
 * instruction), each surviving operand's user list is filtered once,
 * and the dead leave c. Until here dead instructions may keep links to
 * widely used operands; nothing in a sweep looks at them (they have no
 * users, and their operands come earlier in post order). */
static void cleanup(S *s)
{
	HloComp *c = s->c;
	int n = c->n, sp = 0;
	int *cnt = s->ndead ? calloc((size_t)n + 1, sizeof *cnt) : NULL;
	int *stamp = cnt ? malloc(sizeof *stamp * ((size_t)n + 1)) : NULL;
	bool *dead = stamp ? calloc((size_t)n + 1, sizeof *dead) : NULL;
	if (!dead) {
		/* some dead instructions may have lost operands already */
		s->oom |= s->ndead > 0;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		c->instrs[i]->mark = (unsigned)i;
		stamp[i] = -1;
	}
	for (int i = 0; i < s->ndead; i++) /* still unused? */
		if (s->dead[i]->nusers == 0 && disposable(s, s->dead[i]))
			s->dead[sp++] = s->dead[i];
	while (sp > 0) {
		HloInstr *y = s->dead[--sp];
		int iy = (int)y->mark;
		if (dead[iy])
			continue;
		dead[iy] = true;
		if (!grow(s, (void **)&s->dead, &s->cap_dead, sp + y->nops,
			  sizeof *s->dead))
			break;
		for (int j = 0; j < y->nops; j++) {
			HloInstr *o = y->ops[j];
			if (!o || o->parent != c)
				continue;
			int io = (int)o->mark;
			if (stamp[io] == iy) /* y counted once per operand */
				continue;
			stamp[io] = iy;
			if (++cnt[io] == o->nusers && !dead[io] &&
			    disposable(s, o))
				s->dead[sp++] = o;
		}
	}
	if (s->oom) /* the pass fails and its module is dropped */
		goto out;
	for (int i = 0; i < n; i++) {
		HloInstr *y = c->instrs[i];
		if (dead[i]) {
			hlo_names_del(c, y);
			y->parent = NULL; /* pass_compact drops it */
		}
	}
	for (int i = 0; i < n; i++) {
		HloInstr *o = c->instrs[i];
		if (dead[i] || !cnt[i])
			continue;
		int w = 0;
		for (int u = 0; u < o->nusers; u++)
			if (o->users[u]->parent == c)
				o->users[w++] = o->users[u];
		o->nusers = w;
	}
	for (int i = 0; i < n; i++)
		if (dead[i])
			for (int j = 0; j < c->instrs[i]->nops; j++)
				c->instrs[i]->ops[j] = NULL;
out:
	s->ndead = 0;
	free(cnt);
	free(stamp);
	free(dead);
}

/* ins->ops[i] = v; the old operand goes when that was its last use. */
static void set_op(S *s, HloInstr *ins, int i, HloInstr *v)
{
	HloInstr *old = ins->ops[i];
	hlo_set_operand(ins, i, v);
	drop(s, old);
}

/* ---- elementwise binary ---------------------------------------------- */

/* A test of an operand's value (a splat of 0, 1, all ones...). */
typedef bool (*ValPred)(const HloInstr *x);

static bool is_zero(const HloInstr *x) { return is_val(x, 0); }

static bool is_one(const HloInstr *x) { return is_val(x, 1); }

/* Index of the operand that satisfies p (the right one first), or -1. */
static int find_side(const HloInstr *ins, ValPred p)
{
	for (int k = 1; k >= 0; k--)
		if (p(ins->ops[k]))
			return k;
	return -1;
}

/* x op c -> x when c satisfies p (either side when commutative). */
static Rw identity(HloInstr *ins, ValPred p, bool comm, const char *rule)
{
	int k = comm ? find_side(ins, p) : p(ins->ops[1]) ? 1 : -1;
	if (k < 0)
		return none;
	HloInstr *x = ins->ops[1 - k];
	return same_shape(x, ins) ? rw(rule, x) : none;
}

/* x op c -> c when c satisfies p: the constant itself when its shape is
 * the result's, else a new splat of value v. */
static Rw absorb(S *s, HloInstr *ins, ValPred p, int64_t v, const char *rule)
{
	int k = find_side(ins, p);
	if (k < 0)
		return none;
	HloInstr *z = ins->ops[k];
	return rw(rule, same_shape(z, ins) ? z : make_splat(s, ins->shape, v));
}

static Rw self(HloInstr *ins, const char *rule)
{
	HloInstr *x = ins->ops[0];
	return x == ins->ops[1] && same_shape(x, ins) ? rw(rule, x) : none;
}

static Rw simp_add(S *s, HloInstr *ins)
{
	(void)s;
	if (!is_real(ty(ins)))
		return none;
	/* Exact up to the sign of zero for floats: -0.0 + 0.0 is +0.0. */
	return identity(ins, is_zero, true, "add-zero");
}

static Rw simp_subtract(S *s, HloInstr *ins)
{
	Dtype t = ty(ins);
	if (!is_real(t))
		return none;
	/* x - (+0.0) is x exactly; x - (-0.0) is x up to the sign of zero. */
	Rw r = identity(ins, is_zero, false, "sub-zero");
	if (r.rule)
		return r;
	if (is_int(t) && ins->ops[0] == ins->ops[1])
		return rw("sub-self-int", make_splat(s, ins->shape, 0));
	return none;
}

static Rw simp_multiply(S *s, HloInstr *ins)
{
	Dtype t = ty(ins);
	if (!is_real(t) && t != DT_PRED)
		return none;
	Rw r = identity(ins, is_one, true, "mul-one");
	if (r.rule || !is_int(t))
		return r;
	return absorb(s, ins, is_zero, 0, "mul-zero-int");
}

static Rw simp_divide(S *s, HloInstr *ins)
{
	(void)s;
	if (!is_real(ty(ins)))
		return none;
	return identity(ins, is_one, false, "div-one");
}

static Rw simp_and(S *s, HloInstr *ins)
{
	if (!is_bits(ty(ins)))
		return none;
	Rw r = self(ins, "and-self");
	if (!r.rule)
		r = identity(ins, all_ones, true, "and-true");
	if (!r.rule)
		r = absorb(s, ins, is_zero, 0, "and-false");
	return r;
}

static Rw simp_or(S *s, HloInstr *ins)
{
	if (!is_bits(ty(ins)))
		return none;
	Rw r = self(ins, "or-self");
	if (!r.rule)
		r = identity(ins, is_zero, true, "or-false");
	if (!r.rule)
		r = absorb(s, ins, all_ones, ty(ins) == DT_PRED ? 1 : -1,
			   "or-true");
	return r;
}

static Rw simp_xor(S *s, HloInstr *ins)
{
	if (!is_bits(ty(ins)))
		return none;
	Rw r = identity(ins, is_zero, true, "xor-zero");
	if (!r.rule && ins->ops[0] == ins->ops[1])
		r = rw("xor-self-int", make_splat(s, ins->shape, 0));
	return r;
}

static Rw simp_minmax(S *s, HloInstr *ins)
{
	(void)s;
	return self(ins, ins->op == HLO_MAXIMUM ? "max-self" : "min-self");
}

static bool is_two(const HloInstr *x) { return is_val(x, 2); }

static Rw simp_power(S *s, HloInstr *ins)
{
	Dtype t = ty(ins);
	if (!dtype_is_float(t))
		return none;
	Rw r = identity(ins, is_one, false, "pow-one");
	if (r.rule)
		return r;
	/* x*x is exact in double for 24-bit significands, so pow(x, 2) and
	 * x*x round the same value; f64 is left alone. */
	HloInstr *x = ins->ops[0];
	if (dtype_mant_bits(t) > 23 || !is_two(ins->ops[1]) ||
	    !shape_compatible(x->shape, ins->shape))
		return none;
	HloInstr *ops[2] = {x, x};
	return rw("pow-two-to-multiply",
		  add_instr(s, HLO_MULTIPLY, ins->shape, 2, ops));
}

static Rw simp_shift(S *s, HloInstr *ins)
{
	(void)s;
	if (!is_int(ty(ins)))
		return none;
	return identity(ins, is_zero, false, "shift-by-zero");
}

static Rw simp_compare(S *s, HloInstr *ins)
{
	HloInstr *x = ins->ops[0];
	const char *dir = hlo_attr_enum(ins, A_DIRECTION);
	/* Integers only: NaN == NaN is false. */
	if (x != ins->ops[1] || !is_bits(ty(x)) || !dir)
		return none;
	int v;
	if (!strcmp(dir, "EQ") || !strcmp(dir, "LE") || !strcmp(dir, "GE"))
		v = 1;
	else if (!strcmp(dir, "NE") || !strcmp(dir, "LT") || !strcmp(dir, "GT"))
		v = 0;
	else
		return none;
	return rw("compare-self-int", make_splat(s, ins->shape, v));
}

/* ---- elementwise unary ----------------------------------------------- */

/* f(f(x)) -> x for involutions. */
static Rw involution(HloInstr *ins, const char *rule)
{
	HloInstr *x = ins->ops[0];
	if (x->op != ins->op || !same_shape(x->ops[0], ins))
		return none;
	return rw(rule, x->ops[0]);
}

/* f(f(x)) -> f(x) for idempotent f. */
static Rw idempotent(HloInstr *ins, const char *rule)
{
	HloInstr *x = ins->ops[0];
	return x->op == ins->op && same_shape(x, ins) ? rw(rule, x) : none;
}

/* f8e8m0fnu has no sign: a negated value is NaN, and stays NaN. */
static bool has_sign(Dtype t) { return t != DT_F8E8M0FNU; }

static Rw simp_negate(S *s, HloInstr *ins)
{
	(void)s;
	return has_sign(ty(ins)) ? involution(ins, "negate-negate") : none;
}

static Rw simp_not(S *s, HloInstr *ins)
{
	(void)s;
	return involution(ins, "not-not");
}

static Rw simp_abs(S *s, HloInstr *ins)
{
	HloInstr *x = ins->ops[0];
	if (!is_real(ty(ins)))
		return none;
	if (dtype_kind(ty(ins)) == DK_UINT && same_shape(x, ins))
		return rw("abs-unsigned", x);
	Rw r = idempotent(ins, "abs-abs");
	if (r.rule)
		return r;
	/* |-x| = |x| for signed types only: an unsigned -x is 2^n - x */
	if (x->op == HLO_NEGATE && dtype_kind(ty(ins)) != DK_UINT &&
	    has_sign(ty(ins)) && same_shape(x->ops[0], x)) {
		set_op(s, ins, 0, x->ops[0]);
		return rw("abs-negate", ins);
	}
	return none;
}

static Rw simp_sign(S *s, HloInstr *ins)
{
	(void)s;
	return is_real(ty(ins)) ? idempotent(ins, "sign-sign") : none;
}

static bool is_rounding(HloOpcode op)
{
	return op == HLO_FLOOR || op == HLO_CEIL || op == HLO_ROUND_AFZ ||
	       op == HLO_ROUND_EVEN;
}

/* A rounding of a rounded value changes nothing: floor(ceil(x)). */
static Rw simp_round(S *s, HloInstr *ins)
{
	(void)s;
	HloInstr *x = ins->ops[0];
	return is_rounding(x->op) && same_shape(x, ins) ? rw("round-round", x)
							: none;
}

static Rw simp_copy(S *s, HloInstr *ins)
{
	HloInstr *x = ins->ops[0];
	if (same_shape(x, ins))
		return rw("noop-copy", x);
	if (x->op == HLO_COPY) {
		set_op(s, ins, 0, x->ops[0]);
		return rw("copy-copy", ins);
	}
	return none;
}

static Rw simp_bitcast(S *s, HloInstr *ins)
{
	HloInstr *x = ins->ops[0];
	if (same_shape(x, ins))
		return rw("noop-bitcast", x);
	/* Both reinterpret the same bytes in memory order. */
	if (x->op == HLO_BITCAST) {
		set_op(s, ins, 0, x->ops[0]);
		return rw("bitcast-bitcast", ins);
	}
	return none;
}

/* Every value of `from` survives a trip through `to` and back. */
static bool lossless(Dtype from, Dtype to)
{
	DtypeKind kf = dtype_kind(from), kt = dtype_kind(to);
	int bf = dtype_bits(from), bt = dtype_bits(to);
	if (from == to)
		return true;
	if (kt == DK_FLOAT) {
		if (to != DT_F16 && to != DT_BF16 && to != DT_F32 &&
		    to != DT_F64)
			return false;
		if (kf == DK_FLOAT) /* every narrower float fits f32 */
			return to == DT_F64 || (to == DT_F32 && from != DT_F64);
		/* integers: the magnitude within the significand */
		int mag = kf == DK_PRED ? 1 : kf == DK_SINT ? bf - 1 : bf;
		return (kf == DK_PRED || kf == DK_SINT || kf == DK_UINT) &&
		       mag <= dtype_mant_bits(to) + 1;
	}
	if (kt == DK_SINT)
		return kf == DK_PRED || (kf == DK_SINT && bt >= bf) ||
		       (kf == DK_UINT && bt > bf);
	if (kt == DK_UINT)
		return kf == DK_PRED || (kf == DK_UINT && bt >= bf);
	return false;
}

static Rw simp_convert(S *s, HloInstr *ins)
{
	(void)s;
	HloInstr *x = ins->ops[0];
	if (same_shape(x, ins))
		return rw("noop-convert", x);
	if (x->op != HLO_CONVERT)
		return none;
	HloInstr *y = x->ops[0];
	if (same_shape(y, ins) && lossless(ty(y), ty(x)))
		return rw("convert-convert-same", y);
	return none;
}

/* reduce-precision to at least the type's own exponent and mantissa
 * changes nothing. The interpreter (as XLA's evaluator) works on f32
 * bits for narrower types, so their exponent must reach f32's 8 bits or
 * f16 denormals would be flushed. */
static Rw simp_reduce_precision(S *s, HloInstr *ins)
{
	(void)s;
	HloInstr *x = ins->ops[0];
	Dtype t = ty(ins);
	int64_t eb, mb;
	if (!hlo_attr_int(ins, A_EXPONENT_BITS, &eb) ||
	    !hlo_attr_int(ins, A_MANTISSA_BITS, &mb) || !same_shape(x, ins))
		return none;
	if (t != DT_F16 && t != DT_BF16 && t != DT_F32 && t != DT_F64)
		return none;
	int we = t == DT_F64 ? 11 : 8;
	if (eb < we || mb < dtype_mant_bits(t))
		return none;
	return rw("noop-reduce-precision", x);
}

/* ---- shape operations ------------------------------------------------ */

/* op(broadcast(scalar)) -> broadcast(scalar) of op's shape, for ops that
 * only move elements around. */
static Rw of_scalar_broadcast(S *s, HloInstr *ins, const char *rule)
{
	HloInstr *x = ins->ops[0];
	if (x->op != HLO_BROADCAST || x->nops != 1 ||
	    x->ops[0]->shape->rank != 0 || !shape_is_array(x->ops[0]->shape))
		return none;
	return rw(rule, broadcast_scalar(s, x->ops[0], ins->shape));
}

static Rw simp_reshape(S *s, HloInstr *ins)
{
	HloInstr *x = ins->ops[0];
	if (same_shape(x, ins))
		return rw("noop-reshape", x);
	if (x->op == HLO_RESHAPE) {
		set_op(s, ins, 0, x->ops[0]);
		return rw("reshape-reshape", ins);
	}
	return of_scalar_broadcast(s, ins, "reshape-of-broadcast-scalar");
}

static const int64_t *dims_of(const HloInstr *ins, int want)
{
	int n;
	const int64_t *d = hlo_attr_ints(ins, A_DIMENSIONS, &n);
	return n == want && (d || n == 0) ? d : NULL;
}

static bool is_identity_perm(const int64_t *p, int n)
{
	for (int i = 0; i < n; i++)
		if (p[i] != i)
			return false;
	return true;
}

static Rw simp_transpose(S *s, HloInstr *ins)
{
	HloInstr *x = ins->ops[0];
	int r = ins->shape->rank;
	const int64_t *p = dims_of(ins, r);
	if (!p && r > 0)
		return none;
	if (is_identity_perm(p, r) && same_shape(x, ins))
		return rw("noop-transpose", x);
	const int64_t *q = x->op == HLO_TRANSPOSE ? dims_of(x, r) : NULL;
	if (q) {
		/* out dim i = mid dim p[i] = x dim q[p[i]] */
		int64_t v[XR_MAX_RANK];
		for (int i = 0; i < r; i++) {
			if (p[i] < 0 || p[i] >= r)
				return none;
			v[i] = q[p[i]];
		}
		if (!set_ints(s, ins, A_DIMENSIONS, r, v))
			return none;
		set_op(s, ins, 0, x->ops[0]);
		return rw("transpose-transpose", ins);
	}
	return of_scalar_broadcast(s, ins, "transpose-of-broadcast-scalar");
}

static const SliceDim *slice_of(const HloInstr *ins)
{
	const HloAttr *at = hlo_attr_find(ins, A_SLICE);
	return at && at->u.slice.n == ins->shape->rank ? at->u.slice.v : NULL;
}

/* slice(concatenate(a, b, c)) that takes exactly one operand whole. */
static Rw slice_of_concat(HloInstr *ins, const SliceDim *sd)
{
	HloInstr *x = ins->ops[0];
	int r = ins->shape->rank;
	const int64_t *d = dims_of(x, 1);
	if (!d || d[0] < 0 || d[0] >= r)
		return none;
	for (int i = 0; i < r; i++)
		if (sd[i].stride != 1 ||
		    (i != d[0] &&
		     (sd[i].start != 0 || sd[i].limit != x->shape->dims[i])))
			return none;
	int64_t off = 0;
	for (int k = 0; k < x->nops; k++) {
		HloInstr *o = x->ops[k];
		int64_t n = o->shape->dims[d[0]];
		if (sd[d[0]].start == off && sd[d[0]].limit == off + n &&
		    same_shape(o, ins))
			return rw("slice-of-concatenate", o);
		off += n;
	}
	return none;
}

static Rw simp_slice(S *s, HloInstr *ins)
{
	HloInstr *x = ins->ops[0];
	int r = ins->shape->rank;
	const SliceDim *sd = slice_of(ins);
	if (!sd || x->shape->rank != r)
		return none;
	bool whole = true;
	for (int i = 0; i < r; i++)
		whole &= sd[i].start == 0 &&
			 ins->shape->dims[i] == x->shape->dims[i];
	if (whole && same_shape(x, ins))
		return rw("noop-slice", x);
	const SliceDim *in = x->op == HLO_SLICE ? slice_of(x) : NULL;
	if (in) {
		SliceDim *v = arena_alloc(&s->m->arena,
					  sizeof *v * (size_t)(r ? r : 1));
		if (!v)
			return none;
		for (int i = 0; i < r; i++) {
			int64_t n = ins->shape->dims[i];
			v[i].start = in[i].start + sd[i].start * in[i].stride;
			v[i].stride = in[i].stride * sd[i].stride;
			v[i].limit = v[i].start + (n - 1) * v[i].stride + 1;
			if (n == 0) /* empty: where the inner slice starts
				       (its start may lie past the operand) */
				v[i].start = v[i].limit = in[i].start;
		}
		HloAttr *at = hlo_attr_set(ins, A_SLICE, NULL);
		if (!at)
			return none;
		at->u.slice.n = r;
		at->u.slice.v = v;
		set_op(s, ins, 0, x->ops[0]);
		return rw("slice-slice", ins);
	}
	if (x->op == HLO_CONCATENATE) {
		Rw c = slice_of_concat(ins, sd);
		if (c.rule)
			return c;
	}
	return of_scalar_broadcast(s, ins, "slice-of-broadcast-scalar");
}

static Rw simp_pad(S *s, HloInstr *ins)
{
	(void)s;
	HloInstr *x = ins->ops[0];
	const HloAttr *at = hlo_attr_find(ins, A_PADDING);
	if (!at || at->u.pad.n != x->shape->rank || !same_shape(x, ins))
		return none;
	for (int i = 0; i < at->u.pad.n; i++) {
		const PadDim *p = &at->u.pad.v[i];
		if (p->lo || p->hi || p->interior)
			return none;
	}
	return rw("noop-pad", x);
}

static Rw simp_concatenate(S *s, HloInstr *ins)
{
	const int64_t *d = dims_of(ins, 1);
	int r = ins->shape->rank;
	if (!d || d[0] < 0 || d[0] >= r)
		return none;
	if (ins->nops == 1)
		return same_shape(ins->ops[0], ins)
			       ? rw("concatenate-single", ins->ops[0])
			       : none;
	int empty = 0;
	for (int k = 0; k < ins->nops; k++)
		empty += ins->ops[k]->shape->dims[d[0]] == 0;
	if (!empty || empty == ins->nops)
		return none;
	/* Drop the empty operands in place: unlink each (its user list
	 * stays exact), then close the gaps. */
	for (int i = 0; i < ins->nops; i++) {
		HloInstr *o = ins->ops[i];
		if (!o || o->shape->dims[d[0]] != 0)
			continue;
		hlo_set_operand(ins, i, NULL);
		drop(s, o);
	}
	int k = 0;
	for (int i = 0; i < ins->nops; i++)
		if (ins->ops[i])
			ins->ops[k++] = ins->ops[i];
	ins->nops = k;
	return rw("concatenate-drop-empty", ins);
}

static Rw simp_broadcast(S *s, HloInstr *ins)
{
	HloInstr *x = ins->ops[0];
	int r = x->shape->rank;
	const int64_t *d = dims_of(ins, r);
	if (!d && r > 0)
		return none;
	if (r == ins->shape->rank && is_identity_perm(d, r) &&
	    same_shape(x, ins))
		return rw("noop-broadcast", x);
	if (x->op != HLO_BROADCAST)
		return none;
	HloInstr *y = x->ops[0];
	int ry = y->shape->rank;
	const int64_t *e = dims_of(x, ry);
	if (!e && ry > 0)
		return none;
	/* y dim i -> mid dim e[i] -> out dim d[e[i]] */
	int64_t v[XR_MAX_RANK];
	for (int i = 0; i < ry; i++) {
		if (e[i] < 0 || e[i] >= r)
			return none;
		v[i] = d[e[i]];
	}
	if (!set_ints(s, ins, A_DIMENSIONS, ry, v))
		return none;
	set_op(s, ins, 0, y);
	return rw("broadcast-broadcast", ins);
}

static bool same_dim_set(const int64_t *a, int na, const int64_t *b, int nb)
{
	uint64_t ma = 0, mb = 0;
	for (int i = 0; i < na; i++)
		if (a[i] >= 0 && a[i] < 64)
			ma |= (uint64_t)1 << a[i];
	for (int i = 0; i < nb; i++)
		if (b[i] >= 0 && b[i] < 64)
			mb |= (uint64_t)1 << b[i];
	return ma == mb;
}

static Rw simp_reverse(S *s, HloInstr *ins)
{
	HloInstr *x = ins->ops[0];
	int n;
	const int64_t *d = hlo_attr_ints(ins, A_DIMENSIONS, &n);
	bool trivial = true;
	for (int i = 0; i < n; i++)
		trivial &= d[i] >= 0 && d[i] < x->shape->rank &&
			   x->shape->dims[d[i]] <= 1;
	if (trivial && same_shape(x, ins))
		return rw("noop-reverse", x);
	if (x->op == HLO_REVERSE) {
		int nx;
		const int64_t *dx = hlo_attr_ints(x, A_DIMENSIONS, &nx);
		if (same_dim_set(d, n, dx, nx) && same_shape(x->ops[0], ins))
			return rw("reverse-reverse", x->ops[0]);
	}
	return of_scalar_broadcast(s, ins, "reverse-of-broadcast-scalar");
}

/* Start indices are clamped so the slice fits: a slice as big as the
 * operand always starts at 0. */
static Rw simp_dynamic_slice(S *s, HloInstr *ins)
{
	(void)s;
	HloInstr *x = ins->ops[0];
	int n, r = x->shape->rank;
	const int64_t *sz = hlo_attr_ints(ins, A_DYNAMIC_SLICE_SIZES, &n);
	if (n != r || !same_shape(x, ins))
		return none;
	for (int i = 0; i < r; i++)
		if (sz[i] != x->shape->dims[i])
			return none;
	return rw("noop-dynamic-slice", x);
}

static Rw simp_dynamic_update_slice(S *s, HloInstr *ins)
{
	(void)s;
	HloInstr *u = ins->nops >= 2 ? ins->ops[1] : NULL;
	if (!u || !shape_same_dims(u->shape, ins->ops[0]->shape) ||
	    !same_shape(u, ins))
		return none;
	return rw("dynamic-update-slice-full", u);
}

/* ---- select ---------------------------------------------------------- */

static Rw simp_select(S *s, HloInstr *ins)
{
	HloInstr *p = ins->ops[0], *a = ins->ops[1], *b = ins->ops[2];
	if (a == b)
		return same_shape(a, ins) ? rw("select-same-operands", a)
					  : none;
	Splat v;
	if (ty(p) == DT_PRED && splat(p, &v)) {
		HloInstr *x = v.i ? a : b;
		return same_shape(x, ins) ? rw("select-constant-pred", x)
					  : none;
	}
	if (p->op == HLO_NOT && same_shape(p->ops[0], p)) {
		hlo_set_operand(ins, 1, b);
		hlo_set_operand(ins, 2, a);
		set_op(s, ins, 0, p->ops[0]);
		return rw("select-not-pred", ins);
	}
	return none;
}

/* ---- dot ------------------------------------------------------------- */

/* Attributes a dot may carry for dot-to-multiply: the dimension numbers
 * and annotations that do not change the values (an `algorithm` does). */
static bool plain_dot(const HloInstr *ins)
{
	static const char *const ok[] = {"metadata", "precision_config",
					 "frontend_attributes",
					 "backend_config", "sharding"};
	for (int i = 0; i < ins->nattrs; i++) {
		const HloAttr *at = &ins->attrs[i];
		switch (at->key) {
		case A_LHS_BATCH_DIMS:
		case A_RHS_BATCH_DIMS:
		case A_LHS_CONTRACTING_DIMS:
		case A_RHS_CONTRACTING_DIMS:
			continue;
		case A_RAW: {
			bool known = false;
			for (size_t k = 0; k < sizeof ok / sizeof *ok; k++)
				known |= !strcmp(at->name, ok[k]);
			if (known)
				continue;
			return false;
		}
		default:
			return false;
		}
	}
	return true;
}

static bool has(const int64_t *v, int n, int64_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* One dot operand as a value of the dot's dims: batch dims go to the
 * front (in order), free dims after `free_at`, size-1 contracting dims
 * are dropped (reshape), the rest is ordered (transpose) and broadcast. */
static HloInstr *expand(S *s, HloInstr *x, const int64_t *batch, int nb,
			const int64_t *contr, int nc, int free_at,
			const Shape *out)
{
	Arena *a = &s->m->arena;
	int r = x->shape->rank, nk = 0, nfree = 0;
	int64_t kdims[XR_MAX_RANK] = {0}, kpos[XR_MAX_RANK] = {0};
	for (int d = 0; d < r; d++) {
		if (has(contr, nc, d))
			continue;
		int64_t pos = -1;
		for (int k = 0; k < nb; k++)
			if (batch[k] == d)
				pos = k;
		if (pos < 0)
			pos = free_at + nfree++;
		kdims[nk] = x->shape->dims[d];
		kpos[nk++] = pos;
	}
	HloInstr *v = x;
	if (nc > 0) {
		Shape *sh = shape_array(a, x->shape->type, nk, kdims);
		v = sh ? add_instr(s, HLO_RESHAPE, sh, 1, &v) : NULL;
	}
	int64_t perm[XR_MAX_RANK];
	bool sorted = true;
	for (int i = 0; i < nk; i++) {
		perm[i] = i;
		sorted &= i == 0 || kpos[i] > kpos[i - 1];
	}
	if (v && !sorted) {
		/* insertion sort of the kept dims by output position */
		for (int i = 1; i < nk; i++)
			for (int j = i;
			     j > 0 && kpos[perm[j]] < kpos[perm[j - 1]]; j--) {
				int64_t t = perm[j];
				perm[j] = perm[j - 1];
				perm[j - 1] = t;
			}
		int64_t td[XR_MAX_RANK], tp[XR_MAX_RANK];
		for (int i = 0; i < nk; i++) {
			td[i] = kdims[perm[i]];
			tp[i] = kpos[perm[i]];
		}
		Shape *sh = shape_array(a, x->shape->type, nk, td);
		v = sh ? add_instr(s, HLO_TRANSPOSE, sh, 1, &v) : NULL;
		if (!v || !set_ints(s, v, A_DIMENSIONS, nk, perm))
			return NULL;
		memcpy(kpos, tp, sizeof *kpos * (size_t)nk);
	}
	if (!v || (nk == out->rank && is_identity_perm(kpos, nk)))
		return v;
	Shape *sh = shape_array(a, x->shape->type, out->rank, out->dims);
	v = sh ? add_instr(s, HLO_BROADCAST, sh, 1, &v) : NULL;
	return v && set_ints(s, v, A_DIMENSIONS, nk, kpos) ? v : NULL;
}

static bool dims_ok(const int64_t *d, int n, const Shape *x, bool size1)
{
	for (int i = 0; i < n; i++)
		if (d[i] < 0 || d[i] >= x->rank ||
		    (size1 && x->dims[d[i]] != 1))
			return false;
	return true;
}

/* A dot whose contracting dims all have size 1 sums one product: a
 * multiply of the operands laid out as the result. Exact up to the sign
 * of zero (the sum starts from +0.0). */
static Rw simp_dot(S *s, HloInstr *ins)
{
	HloInstr *l = ins->ops[0], *r = ins->ops[1];
	Dtype t = ty(ins);
	if (ty(l) != t || ty(r) != t || !is_real(t) || !plain_dot(ins))
		return none;
	int nlb, nrb, nlc, nrc;
	const int64_t *lb = hlo_attr_ints(ins, A_LHS_BATCH_DIMS, &nlb);
	const int64_t *rb = hlo_attr_ints(ins, A_RHS_BATCH_DIMS, &nrb);
	const int64_t *lc = hlo_attr_ints(ins, A_LHS_CONTRACTING_DIMS, &nlc);
	const int64_t *rc = hlo_attr_ints(ins, A_RHS_CONTRACTING_DIMS, &nrc);
	if (nlb != nrb || nlc != nrc || !dims_ok(lb, nlb, l->shape, false) ||
	    !dims_ok(rb, nrb, r->shape, false) ||
	    !dims_ok(lc, nlc, l->shape, true) ||
	    !dims_ok(rc, nrc, r->shape, true))
		return none;
	int lfree = l->shape->rank - nlb - nlc;
	if (nlb + lfree + (r->shape->rank - nrb - nrc) != ins->shape->rank)
		return none;
	HloInstr *ops[2];
	ops[0] = expand(s, l, lb, nlb, lc, nlc, nlb, ins->shape);
	ops[1] =
		ops[0] ? expand(s, r, rb, nrb, rc, nrc, nlb + lfree, ins->shape)
		       : NULL;
	if (!ops[1])
		return none;
	return rw("dot-to-multiply",
		  add_instr(s, HLO_MULTIPLY, ins->shape, 2, ops));
}

/* ---- reduce ---------------------------------------------------------- */

/* The opcode when c is exactly op(p0, p1) or op(p1, p0) over scalars of
 * type t; else HLO_INVALID. */
static HloOpcode reducer_op(const HloComp *c, Dtype t)
{
	const HloInstr *r = c ? c->root : NULL;
	if (!r || c->n != 3 || r->nops != 2 || hlo_comp_param_count(c) != 2)
		return HLO_INVALID;
	const HloInstr *a = r->ops[0], *b = r->ops[1];
	if (a->op != HLO_PARAMETER || b->op != HLO_PARAMETER ||
	    a->param_no == b->param_no)
		return HLO_INVALID;
	if (r->shape->rank != 0 || ty(r) != t || ty(a) != t || ty(b) != t)
		return HLO_INVALID;
	return r->op;
}

/* init is the identity of op over type t. */
static bool is_identity(HloOpcode op, const HloInstr *init, Dtype t)
{
	bool fl = dtype_is_float(t), sg = dtype_kind(t) == DK_SINT;
	Splat v;
	if (!splat(init, &v))
		return false;
	switch (op) {
	case HLO_ADD: /* +0.0: exact up to the sign of zero */
		return is_val(init, 0);
	case HLO_MULTIPLY:
		return is_val(init, 1);
	case HLO_MAXIMUM:
		return fl ? is_inf(init, -1) : sg ? v.i == smin(t) : v.i == 0;
	case HLO_MINIMUM:
		return fl             ? is_inf(init, 1)
		       : sg           ? v.i == smax(t)
		       : t == DT_PRED ? v.i == 1
				      : (uint64_t)v.i == umax(t);
	case HLO_AND:
		return !fl && all_ones(init);
	case HLO_OR:
		return !fl && is_val(init, 0);
	default:
		return false;
	}
}

/* A reduce over dims of size 1 (or none) with the reducer's identity as
 * init computes f(init, x) = x for every element: a reshape. */
static Rw simp_reduce(S *s, HloInstr *ins)
{
	if (ins->nops != 2 || !shape_is_array(ins->shape))
		return none;
	HloInstr *x = ins->ops[0], *init = ins->ops[1];
	Dtype t = ty(x);
	if (ty(ins) != t || ty(init) != t || (!is_real(t) && t != DT_PRED))
		return none;
	/* the dimensions first: they rule out nearly every reduce, and
	 * more cheaply than the init's value does */
	int n;
	const int64_t *d = hlo_attr_ints(ins, A_DIMENSIONS, &n);
	if (!dims_ok(d, n, x->shape, true))
		return none;
	HloOpcode op = reducer_op(hlo_attr_comp(ins, A_TO_APPLY), t);
	if (op == HLO_INVALID || !is_identity(op, init, t))
		return none;
	if (same_shape(x, ins))
		return rw("reduce-size1-to-reshape", x);
	if (shape_elements(x->shape) != shape_elements(ins->shape))
		return none;
	return rw("reduce-size1-to-reshape",
		  add_instr(s, HLO_RESHAPE, ins->shape, 1, &x));
}

/* ---- driver ---------------------------------------------------------- */

typedef Rw (*Rules)(S *s, HloInstr *ins);

/* The rules of each opcode; NULL: none (rewrite looks no further). */
static const Rules rules[HLO_OPCODE_COUNT] = {
	[HLO_ADD] = simp_add,
	[HLO_SUBTRACT] = simp_subtract,
	[HLO_MULTIPLY] = simp_multiply,
	[HLO_DIVIDE] = simp_divide,
	[HLO_AND] = simp_and,
	[HLO_OR] = simp_or,
	[HLO_XOR] = simp_xor,
	[HLO_MAXIMUM] = simp_minmax,
	[HLO_MINIMUM] = simp_minmax,
	[HLO_POWER] = simp_power,
	[HLO_SHL] = simp_shift,
	[HLO_SHRA] = simp_shift,
	[HLO_SHRL] = simp_shift,
	[HLO_COMPARE] = simp_compare,
	[HLO_NEGATE] = simp_negate,
	[HLO_NOT] = simp_not,
	[HLO_ABS] = simp_abs,
	[HLO_SIGN] = simp_sign,
	[HLO_FLOOR] = simp_round,
	[HLO_CEIL] = simp_round,
	[HLO_ROUND_AFZ] = simp_round,
	[HLO_ROUND_EVEN] = simp_round,
	[HLO_COPY] = simp_copy,
	[HLO_BITCAST] = simp_bitcast,
	[HLO_CONVERT] = simp_convert,
	[HLO_REDUCE_PRECISION] = simp_reduce_precision,
	[HLO_RESHAPE] = simp_reshape,
	[HLO_TRANSPOSE] = simp_transpose,
	[HLO_SLICE] = simp_slice,
	[HLO_PAD] = simp_pad,
	[HLO_CONCATENATE] = simp_concatenate,
	[HLO_BROADCAST] = simp_broadcast,
	[HLO_REVERSE] = simp_reverse,
	[HLO_DYNAMIC_SLICE] = simp_dynamic_slice,
	[HLO_DYNAMIC_UPDATE_SLICE] = simp_dynamic_update_slice,
	[HLO_SELECT] = simp_select,
	[HLO_DOT] = simp_dot,
	[HLO_REDUCE] = simp_reduce,
};

static Rules rules_of(HloOpcode op)
{
	return (unsigned)op < HLO_OPCODE_COUNT ? rules[op] : NULL;
}

static Rw simplify(S *s, HloInstr *ins)
{
	Rules r = rules_of(ins->op);
	return r ? r(s, ins) : none;
}

/* Instructions no rule looks at: leaves, dead ones, side effects,
 * dynamic or non-array shapes, operand counts the opcode does not
 * have. */
static bool skip(S *s, const HloInstr *ins)
{
	if (ins->parent != s->c || !ins->shape || ins->nops == 0 ||
	    (ins->nusers == 0 && s->c->root != ins) || /* dead: dce's */
	    !shape_is_static_array(ins->shape))
		return true;
	int ar = hlo_opcode_arity(ins->op);
	if (ar >= 0 && ins->nops != ar)
		return true;
	for (int i = 0; i < ins->nops; i++) {
		const HloInstr *o = ins->ops[i];
		if (!o || !o->shape || !shape_is_static_array(o->shape))
			return true;
	}
	return pass_has_side_effect_cached(ins, &s->side);
}

static void note(S *s, const char *rule, const HloInstr *ins,
		 const HloInstr *with)
{
	pass_note_rule(s->cx, rule);
	if (!s->cx->log)
		return;
	if (with == ins)
		sb_printf(s->cx->log, "%s: %%%s rewritten in place\n", rule,
			  ins->name);
	else
		sb_printf(s->cx->log, "%s: %%%s -> %%%s\n", rule, ins->name,
			  with->name);
}

/* Applies the rules to ins; true when something changed. */
static bool rewrite(S *s, HloInstr *ins)
{
	bool any = false;
	if (!rules_of(ins->op)) /* no rule to apply (a rule keeps the opcode) */
		return false;
	for (int k = 0; k < MAX_IN_PLACE && !skip(s, ins); k++) {
		s->anchor = ins;
		Rw r = simplify(s, ins);
		if (!r.rule)
			return any;
		if (r.with != ins && !shape_equal(r.with->shape, ins->shape)) {
			drop(s, r.with); /* a rule's mistake */
			/* it may come back each sweep (and take an id each
			 * time): from now on every sweep looks everywhere */
			s->every = true;
			return any;
		}
		note(s, r.rule, ins, r.with);
		any = true;
		if (r.with != ins) {
			for (int u = 0; u < ins->nusers; u++)
				set_touched(s, ins->users[u]);
			hlo_replace_all_uses(ins, r.with);
			drop(s, ins);
			return true;
		}
		set_due(s, ins);
		set_touched(s, ins);
	}
	return any;
}

/* Must a sweep after the first look at x? Only when x was made or
 * changed in place in the sweep before, or something x's rules read
 * changed in this one: an instruction that a sweep looked at and left
 * as it was would be left again (see simplify_comp). What changed
 * reaches users further down through touched, as the walk goes
 * operands first. */
static bool must_look(S *s, const HloInstr *x)
{
	if (!known_id(s, x))
		return true;
	if (s->due[x->id] == s->sweep || s->touched[x->id] == s->sweep)
		return true;
	for (int i = 0; i < x->nops; i++) {
		const HloInstr *o = x->ops[i];
		if (o && (!known_id(s, o) || s->touched[o->id] == s->sweep)) {
			s->touched[x->id] = s->sweep;
			return true;
		}
	}
	return false;
}

#if XR_ASAN
/* Sanitizer builds check what must_look skips: no rule fires there. */
static void check_settled(S *s, HloInstr *x)
{
	s->anchor = x;
	if (skip(s, x))
		return;
	Rw r = simplify(s, x);
	if (r.rule) {
		fprintf(stderr, "algsimp: rule %s fires on %%%s, which the "
				"sweep skipped\n", r.rule, x->name);
		abort();
	}
}

static void check_comp_settled(S *s, HloComp *c)
{
	HloInstr **po;
	int n = hlo_comp_post_order(c, &po);
	for (int i = 0; i < n; i++)
		check_settled(s, po[i]);
	free(po);
}
#endif

static int cmp_added(const void *pa, const void *pb)
{
	const Added *a = pa, *b = pb;
	if (a->anchor->mark != b->anchor->mark)
		return a->anchor->mark < b->anchor->mark ? -1 : 1;
	return a->seq - b->seq;
}

/* Moves the instructions made this sweep (appended after nold) to just
 * before the instruction each replaced, in one pass over c. */
static void place_added(S *s, int nold)
{
	HloComp *c = s->c;
	if (!s->nadded || c->n != nold + s->nadded)
		return;
	HloInstr **out = malloc(sizeof *out * (size_t)c->n);
	if (!out)
		return; /* order is cosmetic */
	for (int i = 0; i < nold; i++)
		c->instrs[i]->mark = (unsigned)i;
	qsort(s->added, (size_t)s->nadded, sizeof *s->added, cmp_added);
	int j = 0, o = 0;
	for (int i = 0; i < nold; i++) {
		while (j < s->nadded && s->added[j].anchor->mark == (unsigned)i)
			out[o++] = s->added[j++].ins;
		out[o++] = c->instrs[i];
	}
	while (j < s->nadded)
		out[o++] = s->added[j++].ins;
	memcpy(c->instrs, out, sizeof *out * (size_t)c->n);
	free(out);
}

/* control-predecessors={...} names instructions in raw text: a
 * computation with one keeps what it orphans (dce's call), so that no
 * name goes missing. */
static bool has_control_deps(const HloComp *c)
{
	for (int i = 0; i < c->n; i++)
		if (hlo_attr_find_raw(c->instrs[i], "control-predecessors"))
			return true;
	return false;
}

/* Sweeps c until one changes nothing. The first looks at every
 * instruction; a later one only at what must_look names, and none at
 * all when the sweep before made nothing and changed nothing in place:
 * it would find what a full sweep finds, in the same order. Why: a
 * sweep goes operands first, so when it looks at x everything x's rules
 * read (its operands, theirs, ..., and instructions made in this sweep)
 * has been looked at already in this sweep and is not changed again in
 * it (a rewrite changes the instruction it looks at, or the operands of
 * that one's users, which come after it). Rules read nothing else that
 * a rewrite changes: not user lists nor positions nor names, and an
 * instruction with no users stays without. So x, looked at and left as
 * it was, is left again unless a later sweep changes what it reads
 * before it gets there; rules that find nothing change nothing. */
static int simplify_comp(S *s, HloComp *c)
{
	int total = 0;
	s->c = c;
	s->keep_dead = s->m->control_preds && has_control_deps(c);
#if XR_ASAN
	if (!s->m->control_preds && has_control_deps(c)) {
		fprintf(stderr, "algsimp: control-predecessors in a module "
				"not marked control_preds\n");
		abort();
	}
#endif
	for (int round = 0; round < MAX_ROUNDS && !s->oom; round++) {
		s->sweep++;
		if (round > 0 && !s->every && !s->ndue) {
#if XR_ASAN
			check_comp_settled(s, c);
#endif
			break;
		}
		s->ndue = 0;
		HloInstr **po;
		int n = hlo_comp_post_order(c, &po);
		if (n < 0)
			break;
		int nold = c->n, k = 0;
		s->nadded = 0;
		for (int i = 0; i < n && !s->oom; i++) {
			if (round > 0 && !s->every && !must_look(s, po[i])) {
#if XR_ASAN
				check_settled(s, po[i]);
#endif
				continue;
			}
			k += rewrite(s, po[i]);
		}
		free(po);
		cleanup(s);
		place_added(s, nold);
		pass_compact(c);
		total += k;
		if (!k)
			break;
	}
	return total;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (HloComp *const *)a;
	uintptr_t y = (uintptr_t) * (HloComp *const *)b;
	return x < y ? -1 : x > y;
}

/* The computations fusion instructions call, sorted for bsearch. */
static int fusion_bodies(const HloModule *m, HloComp ***out)
{
	int n = 0;
	for (int i = 0; i < m->ncomps; i++)
		for (int j = 0; j < m->comps[i]->n; j++)
			if (m->comps[i]->instrs[j]->op == HLO_FUSION)
				n += hlo_instr_ncalled(m->comps[i]->instrs[j]);
	HloComp **v = malloc(sizeof *v * (size_t)(n + 1));
	if (!v)
		return -1;
	*out = v;
	if (!n)
		return 0; /* no fusion (before the fusion pass): no second look */
	n = 0;
	for (int i = 0; i < m->ncomps; i++)
		for (int j = 0; j < m->comps[i]->n; j++) {
			const HloInstr *f = m->comps[i]->instrs[j];
			if (f->op != HLO_FUSION)
				continue;
			for (int k = 0; k < hlo_instr_ncalled(f); k++)
				v[n++] = hlo_instr_called_at(f, k);
		}
	qsort(v, (size_t)n, sizeof *v, cmp_ptr);
	*out = v;
	return n;
}

bool pass_algsimp(HloModule *m, PassCtx *cx)
{
	HloComp **fused;
	int nf = fusion_bodies(m, &fused);
	if (nf < 0) {
		pass_out_of_memory(cx);
		return false;
	}
	S s = {.cx = cx, .m = m};
	cover_ids(&s, m->next_id + 1);
	int total = 0;
	for (int i = 0; i < m->ncomps; i++) {
		HloComp *c = m->comps[i];
		if (!bsearch(&c, fused, (size_t)nf, sizeof *fused, cmp_ptr))
			total += simplify_comp(&s, c);
	}
	free(fused);
	free(s.added);
	free(s.dead);
	free(s.stack);
	free(s.due);
	free(s.touched);
	if (s.oom)
		pass_out_of_memory(cx);
	return total > 0;
}
