/* cse.c - common subexpression elimination, hash based, linear time.
 *
 * Does: in each computation, walking operands before users, gives every
 * instruction a canonical key (opcode, shape with layout, operand ids -
 * sorted for commutative opcodes - and attribute values in name order,
 * metadata left out) plus, for constants, a hash of the literal's data.
 * An instruction whose key matches an earlier one (and, for constants,
 * whose literal is equal) is replaced by it and removed. Never merged:
 * parameters, instructions with side effects (pass_has_side_effect),
 * constants written as {...} (their values are unknown).
 * Requires: a verified module.
 * Invalidates: instruction positions and names (the later copy goes). */
#include <stdint.h>
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

static bool mergeable(const HloInstr *ins)
{
	if (ins->op == HLO_PARAMETER || pass_has_side_effect(ins))
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

static void put_key(StrBuf *b, const HloInstr *ins)
{
	sb_printf(b, "%s/%d ", hlo_opcode_name(ins->op),
		  (int)ins->async_wrapped);
	shape_print(b, ins->shape, true);
	int ids[2];
	bool swap = (hlo_opcode_flags(ins->op) & XF_COMM) && ins->nops == 2;
	if (swap) {
		ids[0] = ins->ops[0]->id;
		ids[1] = ins->ops[1]->id;
		if (ids[0] > ids[1])
			sb_printf(b, " (%d,%d)", ids[1], ids[0]);
		else
			sb_printf(b, " (%d,%d)", ids[0], ids[1]);
	} else {
		sb_puts(b, " (");
		for (int i = 0; i < ins->nops; i++)
			sb_printf(b, "%s%d", i ? "," : "",
				  ins->ops[i] ? ins->ops[i]->id : -1);
		sb_putc(b, ')');
	}
	const HloAttr *at[64];
	int na = 0;
	for (int i = 0; i < ins->nattrs && na < 64; i++)
		if (strcmp(ins->attrs[i].name, "metadata"))
			at[na++] = &ins->attrs[i];
	qsort(at, (size_t)na, sizeof *at, cmp_attr);
	for (int i = 0; i < na; i++) {
		sb_printf(b, " %s=", at[i]->name);
		print_attr_value(b, at[i]);
	}
}

static uint64_t literal_hash(const Literal *l, uint64_t h)
{
	if (!l)
		return h;
	if (l->data && l->n > 0)
		h = fnv(h, l->data,
			(size_t)l->n * (size_t)dtype_bytes(l->shape->type));
	for (int i = 0; i < l->ntuple; i++)
		h = literal_hash(l->tuple[i], h);
	return h;
}

static bool grow(Table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	Slot *s = calloc(cap, sizeof *s);
	if (!s)
		return false;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->s[i].key)
			continue;
		size_t j = t->s[i].h & (cap - 1);
		while (s[j].key)
			j = (j + 1) & (cap - 1);
		s[j] = t->s[i];
	}
	free(t->s);
	t->s = s;
	t->cap = cap;
	return true;
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

static int cse_comp(HloComp *c)
{
	HloInstr **po;
	int n = hlo_comp_post_order(c, &po);
	if (n < 0)
		return 0;
	Table t = {0};
	StrBuf b;
	sb_init(&b);
	int merged = 0;
	for (int i = 0; i < c->n; i++) /* program positions, for keep_first */
		c->instrs[i]->mark = (unsigned)i;
	for (int i = 0; i < n; i++) {
		HloInstr *ins = po[i];
		if (!mergeable(ins))
			continue;
		sb_clear(&b);
		put_key(&b, ins);
		if (b.oom)
			break;
		uint64_t h = fnv(1469598103934665603ull, b.s, b.len);
		if (ins->op == HLO_CONSTANT)
			h = literal_hash(ins->literal, h);
		char *key = sb_take(&b);
		sb_init(&b);
		HloInstr *same = key ? lookup_or_add(&t, key, h, ins) : NULL;
		if (!same)
			continue;
		keep_first(c, same, ins);
		hlo_replace_all_uses(ins, same);
		pass_detach(ins);
		merged++;
	}
	sb_free(&b);
	table_free(&t);
	free(po);
	pass_compact(c);
	return merged;
}

bool pass_cse(HloModule *m, PassCtx *cx)
{
	int n = 0;
	for (int i = 0; i < m->ncomps; i++) {
		int k = cse_comp(m->comps[i]);
		for (int j = 0; j < k; j++)
			pass_note_rule(cx, "common-subexpression");
		n += k;
	}
	return n > 0;
}
