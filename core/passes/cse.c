/* cse.c - common subexpression elimination, hash based, linear time.
 *
 * Does: in each computation, walking operands before users, gives every
 * instruction a canonical key (opcode, shape with layout, operand ids -
 * in a fixed order for commutative opcodes - and attribute values in
 * name order, metadata left out) plus, for constants, a hash of the
 * literal's data.
 * An instruction whose key matches an earlier one (and, for constants,
 * whose literal is equal) is replaced by it and removed. Keys are printed
 * only for instructions that share opcode and operands with another (see
 * "signatures"), which keeps the pass cheap on real modules. Never merged:
 * parameters, instructions with side effects (pass_has_side_effect),
 * constants written as {...} (their values are unknown).
 * Requires: a verified module.
 * Invalidates: instruction positions and names (the later copy goes). */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "print.h"

typedef struct {
	uint64_t h;
	char *key; /* NULL: empty slot */
	HloInstr *ins;
} Slot;

typedef struct {
	Slot *s;
	size_t cap, n;
} Table;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* sc NULL: no cache */
static bool mergeable(const HloInstr *ins, PassSideCache *sc)
{
	if (ins->op == HLO_PARAMETER ||
	    (sc ? pass_has_side_effect_cached(ins, sc)
		: pass_has_side_effect(ins)))
		return false;
	if (ins->op == HLO_CONSTANT)
		return ins->literal && !ins->literal->elided;
	return true;
}

static int cmp_attr(const void *a, const void *b)
{
	const HloAttr *x = *(const HloAttr *const *)a;
	const HloAttr *y = *(const HloAttr *const *)b;
	return strcmp(x->name, y->name);
}

/* May ins's two operands be swapped? For a commutative opcode the two
 * orders give equal numbers, except a maximum or minimum of floats in
 * XLA's evaluator: on a tie of -0 and +0 it returns its lhs, so there
 * max(a, b) and max(b, a) differ in the sign of a zero, which 1/x shows
 * (the interpreter, like XLA:CPU, orders -0 below +0; the pass keeps
 * the two apart so that the module means the same on either).
 * (With two NaN operands a float add or multiply keeps the lhs NaN's
 * payload: the orders differ in payload bits only, which IEEE leaves
 * open, and XLA's CSE swaps them too.) */
static const bool comm_op[HLO_OPCODE_COUNT] = {
#define OP(e, s, ar, cls, fl) [e] = ((fl) & XF_COMM) != 0,
#include "opcodes.def"
#undef OP
};

/* Inline: asked of every instruction, two or three times (a call cost
 * about what the tests do). */
static inline __attribute__((always_inline)) bool
commutes(const HloInstr *ins)
{
	if (ins->nops != 2 || (unsigned)ins->op >= HLO_OPCODE_COUNT ||
	    !comm_op[ins->op])
		return false;
	return !((ins->op == HLO_MAXIMUM || ins->op == HLO_MINIMUM) &&
		 ins->shape && dtype_kind(ins->shape->type) == DK_FLOAT);
}

/* Are ins's operands in key order the other way round? Key order goes
 * by address, not id: any fixed order of the two makes keys canonical,
 * and the address is in ins's operand list, while an id is a load from
 * each operand (outside the block of fields the walks read: a miss in
 * the cache per operand, on a module larger than it). */
static inline __attribute__((always_inline)) bool
swapped(const HloInstr *ins)
{
	return commutes(ins) &&
	       (uintptr_t)ins->ops[0] > (uintptr_t)ins->ops[1];
}

/* Operand i of ins in key order (swap: swapped(ins)). */
static const HloInstr *op_as(const HloInstr *ins, int i, bool swap)
{
	return ins->ops[swap ? 1 - i : i];
}

static int op_id(const HloInstr *ins, int i)
{
	const HloInstr *o = op_as(ins, i, swapped(ins));
	return o ? o->id : -1;
}

/* "op/async shape (ids) attrs": operand ids in key order (op_id). */
static void put_key(StrBuf *b, const HloInstr *ins)
{
	sb_puts(b, hlo_opcode_name(ins->op));
	sb_putc(b, '/');
	sb_putint(b, (int)ins->async_wrapped);
	sb_putc(b, ' ');
	shape_print(b, ins->shape, true);
	sb_puts(b, " (");
	for (int i = 0; i < ins->nops; i++) {
		if (i)
			sb_putc(b, ',');
		sb_putint(b, op_id(ins, i));
	}
	sb_putc(b, ')');
	const HloAttr *at[64];
	int na = 0;
	for (int i = 0; i < ins->nattrs && na < 64; i++)
		if (strcmp(ins->attrs[i].name, "metadata"))
			at[na++] = &ins->attrs[i];
	qsort(at, (size_t)na, sizeof *at, cmp_attr);
	for (int i = 0; i < na; i++) {
		sb_putc(b, ' ');
		sb_puts(b, at[i]->name);
		sb_putc(b, '=');
		print_attr_value(b, at[i]);
	}
}

/* Bytes of a constant's data the hash reads in full; above that, both
 * ends and 64 words spread between them. Equal hashes are confirmed by
 * literal_equal, so a sample only risks a wasted comparison, and real
 * dumps carry megabytes of weights that hashing in full made most of
 * the pass's time (mobilenet_v2: 23 ms). */
enum { HASH_WHOLE = 4096 };

static uint64_t data_hash(const unsigned char *p, size_t n, uint64_t h)
{
	if (n <= HASH_WHOLE)
		return fnv(h, p, n);
	h = fnv(h, p, HASH_WHOLE / 2);
	h = fnv(h, p + n - HASH_WHOLE / 2, HASH_WHOLE / 2);
	size_t step = (n - HASH_WHOLE) / 65;
	for (int i = 1; i <= 64; i++)
		h = fnv(h, p + HASH_WHOLE / 2 + (size_t)i * step - 8, 8);
	return fnv(h, &n, sizeof n);
}

static uint64_t literal_hash(const Literal *l, uint64_t h)
{
	if (!l)
		return h;
	if (l->data && l->n > 0)
		h = data_hash(l->data,
			      (size_t)l->n *
				      (size_t)dtype_bytes(l->shape->type),
			      h);
	for (int i = 0; i < l->ntuple; i++)
		h = literal_hash(l->tuple[i], h);
	return h;
}

/* Doubles an open-addressing table of elem-byte slots that start with
 * their hash (uint64_t) and hold, at offset live, a pointer that is NULL
 * in an empty slot (the key table below is one). */
static bool rehash(void **slots, size_t *cap, size_t elem, size_t live)
{
	size_t nc = *cap ? *cap * 2 : 64;
	char *s = calloc(nc, elem), *old = *slots;
	if (!s)
		return false;
	for (size_t i = 0; i < *cap; i++) {
		const char *o = old + i * elem;
		void *p;
		uint64_t h;
		memcpy(&p, o + live, sizeof p);
		if (!p)
			continue;
		memcpy(&h, o, sizeof h);
		size_t j = h & (nc - 1);
		for (;; j = (j + 1) & (nc - 1)) {
			memcpy(&p, s + j * elem + live, sizeof p);
			if (!p)
				break;
		}
		memcpy(s + j * elem, o, elem);
	}
	free(old);
	*slots = s;
	*cap = nc;
	return true;
}

static bool grow(Table *t)
{
	return rehash((void **)&t->s, &t->cap, sizeof *t->s,
		      offsetof(Slot, key));
}

static void table_free(Table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->s[i].key);
	free(t->s);
}

/* The instruction already in t with key/hash (and literal), or NULL after
 * adding ins under that key. Takes ownership of key. */
static HloInstr *lookup_or_add(Table *t, char *key, uint64_t h, HloInstr *ins)
{
	if ((t->n + 1) * 2 > t->cap && !grow(t)) {
		free(key);
		return NULL;
	}
	size_t j = h & (t->cap - 1);
	for (; t->s[j].key; j = (j + 1) & (t->cap - 1)) {
		Slot *s = &t->s[j];
		if (s->h == h && !strcmp(s->key, key) &&
		    (ins->op != HLO_CONSTANT ||
		     literal_equal(s->ins->literal, ins->literal))) {
			free(key);
			return s->ins;
		}
	}
	t->s[j] = (Slot){h, key, ins};
	t->n++;
	return NULL;
}

/* Post order can meet the later of two equal instructions first. The one
 * kept then takes the program position of the one dropped when that is
 * earlier, so every use still follows its definition in the printed text.
 * Safe: both have the same operands, all defined before either. */
static void keep_first(HloComp *c, HloInstr *kept, HloInstr *dropped)
{
	unsigned pk = kept->mark, pd = dropped->mark;
	if (pd >= pk)
		return;
	c->instrs[pd] = kept;
	c->instrs[pk] = dropped;
	kept->mark = pd;
	dropped->mark = pk;
}

/* ---- signatures ---------------------------------------------------------
 * Printing a key costs far more than the rest of the pass, and most
 * instructions have a key no other instruction has. Two instructions with
 * equal keys have equal signatures: opcode and operands (in key order),
 * both of which the key spells out. (The wrapped opcode, which the key
 * spells out too, is left to key_same: it lies outside the fields the
 * walk reads, and only async opcodes, never merged, have one.)
 * So an instruction's key is printed only once a second instruction with
 * its signature turns up; until then it waits in the signature table. */

/* An entry: the low half of the signature's hash, and where its first
 * instruction is in the walk's order, plus one (0: an empty slot), with
 * SIG_KEYED set once that instruction's key is in the key table. Eight
 * bytes: the table is sized for every instruction of the computation
 * and zeroed whole, which at three words an entry was much of the
 * pass. */
typedef struct {
	uint32_t h;
	uint32_t at;
} Sig;

static const uint32_t SIG_KEYED = (uint32_t)1 << 31;

typedef struct {
	Sig *s;
	size_t cap, n;
	HloInstr *const *po; /* the walk's order: what at indexes */
} SigTable;

static HloInstr *sig_ins(const SigTable *t, const Sig *sg)
{
	return t->po[(sg->at & ~SIG_KEYED) - 1];
}

/* One word into a signature's hash (a word at a time: the hash only
 * places entries, sig_equal decides). */
static uint64_t sig_mix(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x9e3779b97f4a7c15u;
	return h ^ h >> 29;
}

static uint64_t sig_hash(const HloInstr *ins)
{
	uint64_t h = sig_mix((uint64_t)(uint32_t)ins->op << 32,
			     (uint64_t)(uint32_t)ins->nops);
	bool swap = swapped(ins);
	for (int i = 0; i < ins->nops; i++)
		h = sig_mix(h, (uint64_t)(uintptr_t)op_as(ins, i, swap));
	return h;
}

static bool sig_equal(const HloInstr *a, const HloInstr *b)
{
	if (a->op != b->op || a->nops != b->nops)
		return false;
	bool sa = swapped(a), sb = swapped(b);
	for (int i = 0; i < a->nops; i++)
		if (op_as(a, i, sa) != op_as(b, i, sb))
			return false;
	return true;
}

/* Doubles t (only when it could not be made its full size at first). */
static bool sig_grow(SigTable *t)
{
	size_t nc = t->cap ? t->cap * 2 : 64;
	Sig *s = calloc(nc, sizeof *s);
	if (!s)
		return false;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->s[i].at)
			continue;
		size_t j = t->s[i].h & (nc - 1);
		while (s[j].at)
			j = (j + 1) & (nc - 1);
		s[j] = t->s[i];
	}
	free(t->s);
	t->s = s;
	t->cap = nc;
	return true;
}

/* The entry of ins's signature, or NULL after adding ins (po[i]) under
 * it (and on out-of-memory). */
static Sig *sig_lookup_or_add(SigTable *t, HloInstr *ins, int i)
{
	if ((t->n + 1) * 2 > t->cap && !sig_grow(t))
		return NULL;
	uint32_t h = (uint32_t)sig_hash(ins);
	size_t j = h & (t->cap - 1);
	for (; t->s[j].at; j = (j + 1) & (t->cap - 1))
		if (t->s[j].h == h && sig_equal(sig_ins(t, &t->s[j]), ins))
			return &t->s[j];
	t->s[j] = (Sig){h, (uint32_t)i + 1};
	t->n++;
	return NULL;
}

/* ---- the pass ---------------------------------------------------------- */

/* Puts ins's key into t: the instruction already there under the same key
 * (and literal), or NULL after adding ins. */
static HloInstr *key_lookup_or_add(Table *t, StrBuf *b, HloInstr *ins)
{
	sb_clear(b);
	put_key(b, ins);
	if (b->oom)
		return NULL;
	uint64_t h = fnv(1469598103934665603ull, b->s, b->len);
	if (ins->op == HLO_CONSTANT)
		h = literal_hash(ins->literal, h);
	char *key = sb_take(b);
	sb_init(b);
	return key ? lookup_or_add(t, key, h, ins) : NULL;
}

/* ---- keys compared without printing --------------------------------
 * Two instructions of one signature have equal keys when their shapes
 * print alike and so do their attributes other than metadata: the rest
 * of a key is the signature's. Those are compared field by field first
 * (the common case is a copy that differs in name and position only);
 * the test is sufficient, not necessary: when it says no, the printed
 * keys decide as before. */

/* print_attr_value writes the same for a and b, and the names are the
 * same (keep this alike with print.c's attr_value). */
static bool attr_prints_same(const HloAttr *a, const HloAttr *b)
{
	if (a->key != b->key || strcmp(a->name, b->name))
		return false;
	switch (hlo_attr_kind(a->key)) {
	case AV_INT:
		return a->u.i == b->u.i;
	case AV_BOOL:
		return a->u.b == b->u.b;
	case AV_FLOAT:
		return !memcmp(&a->u.f, &b->u.f, sizeof a->u.f);
	case AV_INTS:
		return a->u.ints.n == b->u.ints.n &&
		       (a->u.ints.n <= 0 ||
			(a->u.ints.v && b->u.ints.v &&
			 !memcmp(a->u.ints.v, b->u.ints.v,
				 sizeof *a->u.ints.v * (size_t)a->u.ints.n)));
	case AV_COMP:
	case AV_COMPS:
		if (a->u.comps.n != b->u.comps.n)
			return false;
		for (int i = 0; i < a->u.comps.n; i++)
			if (a->u.comps.v[i] != b->u.comps.v[i])
				return false;
		return true;
	case AV_RAW:
	case AV_ENUM:
	case AV_STRING:
		return a->u.s && b->u.s && !strcmp(a->u.s, b->u.s);
	default:
		return false; /* not known: the printed keys decide */
	}
}

static bool is_metadata(const HloAttr *a)
{
	return !strcmp(a->name, "metadata");
}

/* put_key writes the same key for a and b, of one signature (false:
 * not known). The attributes other than metadata are alike in the
 * same order, so put_key's sort puts them in the same order too. */
static bool key_same(const HloInstr *a, const HloInstr *b)
{
	if (a->async_wrapped != b->async_wrapped || !a->shape || !b->shape ||
	    !shape_print_same(a->shape, b->shape, true))
		return false;
	int i = 0, j = 0, n = 0;
	for (;; i++, j++, n++) {
		while (i < a->nattrs && is_metadata(&a->attrs[i]))
			i++;
		while (j < b->nattrs && is_metadata(&b->attrs[j]))
			j++;
		if (i == a->nattrs || j == b->nattrs)
			return i == a->nattrs && j == b->nattrs;
		/* put_key keeps the first 64 */
		if (n == 64 || !attr_prints_same(&a->attrs[i], &b->attrs[j]))
			return false;
	}
}

#if XR_ASAN
/* Sanitizer builds print the two keys key_same found equal. */
static void check_key_same(const HloInstr *a, const HloInstr *b)
{
	StrBuf x, y;
	sb_init(&x);
	sb_init(&y);
	put_key(&x, a);
	put_key(&y, b);
	if (!x.oom && !y.oom && strcmp(sb_str(&x), sb_str(&y))) {
		fprintf(stderr, "cse: key_same, but the keys differ:\n%s\n%s\n",
			sb_str(&x), sb_str(&y));
		abort();
	}
	sb_free(&x);
	sb_free(&y);
}
#endif

/* See passes.h. */
bool pass_same_value(const HloInstr *d, const HloInstr *s,
		     HloInstr *const *sops)
{
	if (d->op != s->op || d->nops != s->nops || d == s ||
	    d->op == HLO_TUPLE || !mergeable(s, NULL))
		return false;
	for (int k = 0; k < s->nops; k++)
		if (d->ops[k] != sops[k])
			return false;
	return key_same(d, s) &&
	       (s->op != HLO_CONSTANT || literal_equal(d->literal, s->literal));
}

/* The earlier instruction ins (po[i]) is merged into, or NULL. */
static HloInstr *find_same(SigTable *sigs, Table *t, StrBuf *b, HloInstr *ins,
			   int i)
{
	Sig *sg = sig_lookup_or_add(sigs, ins, i);
	if (!sg)
		return NULL; /* a new signature: no earlier key can match */
	HloInstr *first = sig_ins(sigs, sg);
	/* A copy of the first of its signature: the lookup below would
	 * find that one (the first of its key), keyed or not; then its key
	 * can wait, as nothing else has yet been looked up against it. */
	if (key_same(first, ins) &&
	    (ins->op != HLO_CONSTANT ||
	     literal_equal(first->literal, ins->literal))) {
#if XR_ASAN
		check_key_same(first, ins);
#endif
		return first;
	}
	if (!(sg->at & SIG_KEYED)) {
		/* The first of its signature: its key matches nothing yet. */
		key_lookup_or_add(t, b, first);
		sg->at |= SIG_KEYED;
	}
	return key_lookup_or_add(t, b, ins);
}

static int cse_comp(HloComp *c, PassSideCache *sc, bool *oom)
{
	HloInstr **po;
	int n = hlo_comp_post_order(c, &po);
	if (n < 0) {
		*oom |= n == HLO_ORDER_OOM;
		return 0;
	}
	Table t = {0};
	SigTable sigs = {.po = po};
	while (sigs.cap < 64 || sigs.cap < (size_t)n * 2 + 2)
		sigs.cap = sigs.cap ? sigs.cap * 2 : 64; /* never grows */
	sigs.s = calloc(sigs.cap, sizeof *sigs.s);
	if (!sigs.s)
		sigs.cap = 0;
	StrBuf b;
	sb_init(&b);
	int merged = 0;
	for (int i = 0; i < c->n; i++) /* program positions, for keep_first */
		c->instrs[i]->mark = (unsigned)i;
	for (int i = 0; i < n && !b.oom; i++) {
		HloInstr *ins = po[i];
		if (!mergeable(ins, sc))
			continue;
		HloInstr *same = find_same(&sigs, &t, &b, ins, i);
		if (!same)
			continue;
		keep_first(c, same, ins);
		hlo_replace_all_uses(ins, same);
		hlo_instr_unlink(ins); /* its operands' user lists: below */
		merged++;
	}
	*oom |= b.oom != 0;
	sb_free(&b);
	table_free(&t);
	free(sigs.s);
	free(po);
	hlo_comp_sweep_ops(c);
	return merged;
}

bool pass_cse(HloModule *m, PassCtx *cx)
{
	int n = 0;
	PassSideCache sc = {0};
	bool oom = false;
	for (int i = 0; i < m->ncomps && !oom; i++) {
		int k = cse_comp(m->comps[i], &sc, &oom);
		pass_note_rule_n(cx, "common-subexpression", k);
		n += k;
	}
	if (oom) /* (the pass fails: its module is dropped) */
		pass_out_of_memory(cx);
	return n > 0;
}
