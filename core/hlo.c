/* hlo.c - the HLO IR: opcode and attribute tables, modules, computations,
 * instructions, use lists, deep copy and graph walks. */
#include "hlo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- opcode table ------------------------------------------------------ */

static const struct {
	const char *name;
	unsigned char len;
	signed char arity;
	unsigned char cls;
	unsigned flags;
} op_info[HLO_OPCODE_COUNT] = {
	[HLO_INVALID] = {"<invalid>", 9, 0, OC_OTHER, 0},
#define OP(e, s, ar, cl, fl) [e] = {s, sizeof(s) - 1, ar, cl, fl},
#include "opcodes.def"
#undef OP
};

const char *hlo_opcode_name(HloOpcode op)
{
	return (unsigned)op < HLO_OPCODE_COUNT ? op_info[op].name : "<invalid>";
}

/* strcmp order of a counted string against a NUL-terminated one. */
static int cmp_counted(const char *s, int n, const char *name, int len)
{
	int k = memcmp(s, name, (size_t)(n < len ? n : len));
	return k ? k : n - len;
}

/* opcodes.def is sorted by spelling, so the enum is too: binary search. */
HloOpcode hlo_opcode_parse(const char *s, int n)
{
	int lo = 1, hi = HLO_OPCODE_COUNT - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int c = cmp_counted(s, n, op_info[mid].name, op_info[mid].len);
		if (c == 0)
			return (HloOpcode)mid;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return HLO_INVALID;
}

int hlo_opcode_arity(HloOpcode op) { return op_info[op].arity; }
OpClass hlo_opcode_class(HloOpcode op) { return (OpClass)op_info[op].cls; }
unsigned hlo_opcode_flags(HloOpcode op) { return op_info[op].flags; }

static const char *const op_attrs[HLO_OPCODE_COUNT] = {
#define OPATTRS(e, keys) [e] = keys,
#include "opattrs.def"
#undef OPATTRS
};

const char *hlo_opcode_attrs(HloOpcode op) { return op_attrs[op]; }

/* ---- attribute table --------------------------------------------------- */

static const struct {
	const char *name;
	int len;
	AttrValKind kind;
} attr_info[A_COUNT] = {
	[A_RAW] = {"<raw>", 5, AV_RAW},
#define ATTR(e, s, k) [e] = {s, sizeof(s) - 1, k},
#include "attrs.def"
#undef ATTR
};

const char *hlo_attr_name(AttrKey k) { return attr_info[k].name; }
AttrValKind hlo_attr_kind(AttrKey k) { return attr_info[k].kind; }

AttrKey hlo_attr_parse(const char *s, int n)
{
	for (int k = 1; k < A_COUNT; k++) {
		const char *nm = attr_info[k].name;
		if (attr_info[k].len == n && nm[0] == s[0] &&
		    !memcmp(nm, s, (size_t)n))
			return (AttrKey)k;
	}
	return A_RAW;
}

/* ---- modules and computations ----------------------------------------- */

HloModule *hlo_module_new(const char *name)
{
	HloModule *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	arena_init(&m->arena);
	namemap_init(&m->comp_names);
	m->name = arena_strdup(&m->arena, name ? name : "module");
	if (!m->name) {
		free(m);
		return NULL;
	}
	return m;
}

void hlo_module_free(HloModule *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->ncomps; i++)
		namemap_free(&m->comps[i]->names);
	namemap_free(&m->comp_names);
	arena_free(&m->arena);
	free(m);
}

HloComp *hlo_comp_new(HloModule *m, const char *name)
{
	return hlo_comp_new_n(m, name, strlen(name));
}

HloComp *hlo_comp_new_n(HloModule *m, const char *name, size_t n)
{
	HloComp *c = arena_alloc(&m->arena, sizeof *c);
	if (!c)
		return NULL;
	void *v = arena_grow(&m->arena, m->comps, sizeof *m->comps,
			     &m->cap_comps, m->ncomps + 1);
	if (!v)
		return NULL;
	m->comps = v;
	/* (name's NUL copied with it) */
	c->name = arena_dup(&m->arena, name, n + 1);
	c->module = m;
	namemap_init_in(&c->names, &m->arena);
	/* one probe, which fails when the name is taken (what was
	 * allocated stays unused in the arena) */
	if (!c->name || namemap_addn(&m->comp_names, c->name, n, c) != 1)
		return NULL;
	m->comps[m->ncomps++] = c;
	return c;
}

HloComp *hlo_module_find_comp(const HloModule *m, const char *name)
{
	return namemap_get(&m->comp_names, name);
}

/* base, base.1, base.2... A trailing ".N" on base is kept as the stem. */
/* Where unique_name's search for a stem resumes: "constant" asked for
 * the 500th time in one computation starts at constant.500 instead of
 * trying 499 taken names first. A few per map, by stem hash; a hint is
 * only a place to start (a name freed below it is not reused). */
typedef struct NameHint {
	unsigned h;
	unsigned len; /* strlen(stem): compared before the bytes */
	long next;
	char stem[48];
} NameHint;
enum { NAME_HINTS = 16 };
/* A map's hints: only the slots whose bit is set in live hold one (the
 * rest is never read), so a new table costs no clearing: a fused
 * computation whose first name hint is made gets its table for a bump
 * of the arena, and forgetting the hints clears one word. */
typedef struct NameHints {
	unsigned live;
	NameHint t[NAME_HINTS];
} NameHints;

static NameHint *name_hint(NameMap *map, const char *stem, size_t n)
{
	if (n >= sizeof ((NameHint *)0)->stem)
		return NULL;
	NameHints *hs = map->hints;
	if (!hs) {
		hs = map->arena ? arena_raw(map->arena, sizeof *hs)
				: malloc(sizeof *hs);
		if (!hs)
			return NULL;
		hs->live = 0;
		map->hints = hs;
	}
	unsigned h = namemap_hash(stem, n);
	unsigned i = h % NAME_HINTS;
	NameHint *t = &hs->t[i];
	if (!(hs->live >> i & 1) || t->h != h || t->len != n ||
	    memcmp(t->stem, stem, n)) {
		hs->live |= 1u << i;
		t->h = h;
		t->len = (unsigned)n;
		memcpy(t->stem, stem, n);
		t->stem[n] = 0;
		t->next = 1;
	}
	return t;
}

char *hlo_numbered_name(char *buf, size_t cap, const char *stem, size_t n,
			long long k)
{
	char digits[24];
	int nd = 0;
	unsigned long long u = k < 0 ? 0ull - (unsigned long long)k
				     : (unsigned long long)k;
	do
		digits[nd++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (k < 0)
		digits[nd++] = '-';
	if (cap == 0)
		return buf;
	size_t o = n < cap - 1 ? n : cap - 1;
	memcpy(buf, stem, o);
	while (nd > 0 && o < cap - 1)
		buf[o++] = digits[--nd];
	buf[o] = 0;
	return buf;
}

/* k (>= 0) in decimal at p, NUL-terminated; returns the digits' count. */
static size_t put_decimal(char *p, unsigned long k)
{
	if (k < 10) { /* a hint's first number, mostly */
		p[0] = (char)('0' + k);
		p[1] = 0;
		return 1;
	}
	char digits[24];
	size_t nd = 0;
	do
		digits[nd++] = (char)('0' + k % 10);
	while ((k /= 10) != 0);
	for (size_t j = 0; j < nd; j++)
		p[j] = digits[nd - 1 - j];
	p[nd] = 0;
	return nd;
}

/* The name unique_name gives base (n bytes) when base is taken, into
 * buf (256 bytes), and its length; the stem's hint moves on past it.
 * Each candidate is the stem and its dot, written once, then the number
 * written after them (what hlo_numbered_name gives: the stem is at most
 * 200 bytes), looked up with its length known. */
static size_t unique_number(NameMap *map, const char *base, size_t n,
			    char *buf)
{
	/* a trailing ".N": back over the digits, then the dot before them
	 * (the last dot, when only digits follow it) */
	size_t d = n;
	while (d > 0 && base[d - 1] >= '0' && base[d - 1] <= '9')
		d--;
	if (d < n && d > 0 && base[d - 1] == '.')
		n = d - 1;
	if (n > 200)
		n = 200;
	memcpy(buf, base, n);
	buf[n] = '.';
	NameHint *t = name_hint(map, base, n);
	for (long i = t ? t->next : 1;; i++) {
		size_t len = n + 1 + put_decimal(buf + n + 1, (unsigned long)i);
		if (!namemap_getn(map, buf, len)) {
			if (t)
				t->next = i + 1;
			return len;
		}
	}
}

static const char *unique_name(Arena *a, NameMap *map, const char *base)
{
	size_t n = strlen(base);
	if (!namemap_getn(map, base, n))
		return arena_strndup(a, base, n);
	char buf[256];
	return arena_strndup(a, buf, unique_number(map, base, n, buf));
}

void hlo_module_reset_name_hints(HloModule *m)
{
	free(m->comp_names.hints);
	m->comp_names.hints = NULL;
	for (int i = 0; i < m->ncomps; i++) {
		NameMap *nm = &m->comps[i]->names;
		if (!nm->hints)
			continue;
		if (nm->arena) { /* kept, emptied: as a fresh one reads */
			((NameHints *)nm->hints)->live = 0;
		} else {
			free(nm->hints);
			nm->hints = NULL;
		}
	}
}

const char *hlo_module_unique_comp_name(HloModule *m, const char *base)
{
	return unique_name(&m->arena, &m->comp_names, base);
}

const char *hlo_comp_unique_name(HloComp *c, const char *base)
{
	return unique_name(&c->module->arena, &c->names, base);
}

void hlo_comp_skip_unique_name(HloComp *c, const char *base, size_t n)
{
	char buf[256];
	unique_number(&c->names, base, n, buf);
}

void hlo_module_remove_comp(HloModule *m, HloComp *c)
{
	for (int i = 0; i < m->ncomps; i++) {
		if (m->comps[i] != c)
			continue;
		memmove(&m->comps[i], &m->comps[i + 1],
			sizeof *m->comps * (size_t)(m->ncomps - i - 1));
		m->ncomps--;
		namemap_del(&m->comp_names, c->name);
		namemap_free(&c->names);
		if (m->entry == c)
			m->entry = NULL;
		return;
	}
}

void hlo_module_remove_comps(HloModule *m, HloComp *const *v, int n)
{
	if (n <= 0)
		return;
	/* One sweep: those that go are marked (a fresh generation), not
	 * looked up by name. */
	unsigned gen = hlo_new_mark(m);
	for (int i = 0; i < n; i++) {
		namemap_del(&m->comp_names, v[i]->name);
		namemap_free(&v[i]->names);
		v[i]->mark = gen;
		if (m->entry == v[i])
			m->entry = NULL;
	}
	int k = 0;
	for (int i = 0; i < m->ncomps; i++)
		if (m->comps[i]->mark != gen)
			m->comps[k++] = m->comps[i];
	m->ncomps = k;
}

void hlo_module_set_entry(HloModule *m, HloComp *c)
{
	for (int i = 0; i < m->ncomps; i++)
		m->comps[i]->is_entry = false;
	m->entry = c;
	if (c)
		c->is_entry = true;
}

int hlo_module_instr_count(const HloModule *m)
{
	int n = 0;
	for (int i = 0; i < m->ncomps; i++)
		n += m->comps[i]->n;
	return n;
}

bool hlo_launches_kernel(HloOpcode op)
{
	switch (op) {
	case HLO_PARAMETER:
	case HLO_CONSTANT:
	case HLO_TUPLE:
	case HLO_GET_TUPLE_ELEMENT:
	case HLO_BITCAST:
		return false;
	default:
		return true;
	}
}

/* Calls nested deeper than this count one kernel each (HLO has no
 * recursion; a deeper nest is a made-up module). */
enum { KERNEL_DEPTH = 64 };

static int instr_kernels(const HloInstr *ins, int **memo, int depth);

/* a + b, held at INT_MAX / 2 (a nest of calls multiplies) */
static int kernels_add(int a, int b)
{
	return a > INT_MAX / 2 - b ? INT_MAX / 2 : a + b;
}

static int comp_kernels(const HloComp *c, int **memo, int depth)
{
	/* the memo: its size, then a count or -1 for each computation */
	const HloModule *m = c->module;
	int at = m ? hlo_module_comp_index(m, c) : -1;
	if (at >= 0 && !*memo &&
	    (*memo = malloc(sizeof **memo * ((size_t)m->ncomps + 1)))) {
		(*memo)[0] = m->ncomps;
		for (int i = 1; i <= m->ncomps; i++)
			(*memo)[i] = -1;
	}
	int *slot =
		at >= 0 && *memo && at < (*memo)[0] ? &(*memo)[at + 1] : NULL;
	if (slot && *slot >= 0)
		return *slot;
	int k = 0;
	for (int i = 0; i < c->n; i++)
		k = kernels_add(k, instr_kernels(c->instrs[i], memo, depth));
	if (slot)
		*slot = k;
	return k;
}

static int instr_kernels(const HloInstr *ins, int **memo, int depth)
{
	if (!hlo_launches_kernel(ins->op))
		return 0;
	int n = ins->op == HLO_CALL || ins->op == HLO_WHILE ||
				ins->op == HLO_CONDITIONAL
			? hlo_instr_ncalled(ins)
			: 0;
	if (!n || depth >= KERNEL_DEPTH)
		return 1;
	int k = 0;
	for (int i = 0; i < n; i++) {
		const HloComp *c = hlo_instr_called_at(ins, i);
		if (c)
			k = kernels_add(k, comp_kernels(c, memo, depth + 1));
	}
	return k;
}

int hlo_module_kernels(const HloModule *m)
{
	const HloComp *c = m->entry;
	int k = 0;
	for (int i = 0; c && i < c->n; i++)
		k += hlo_launches_kernel(c->instrs[i]->op);
	return k;
}

int hlo_module_kernels_all(const HloModule *m)
{
	const HloComp *c = m->entry;
	int k = 0, *memo = NULL;
	for (int i = 0; c && i < c->n; i++)
		k = kernels_add(k, instr_kernels(c->instrs[i], &memo, 0));
	free(memo);
	return k;
}

/* ---- instructions ------------------------------------------------------ */

static inline bool add_user(HloInstr *op, HloInstr *user)
{
	Arena *a = &op->parent->module->arena;
	void *v = arena_grow(a, op->users, sizeof *op->users, &op->cap_users,
			     op->nusers + 1);
	if (!v)
		return false;
	op->users = v;
	op->users[op->nusers++] = user;
	return true;
}

/* Removes user from op's users (a set: it is there once), keeping the
 * order of the others. The search goes out from where the last removal
 * from this list was and in from both ends at once; the shorter side of
 * the list moves: a user near the end shifts the tail left, one near the
 * front shifts the head right and the list starts one slot later (the
 * slot stays in the arena). Removals that walk a list (from the end as
 * hlo_replace_all_uses does, from the front, or backwards from the
 * middle as fusion does, consumer by consumer, for a value read by
 * thousands) so stay linear. */
static inline __attribute__((always_inline)) void
remove_user(HloInstr *op, HloInstr *user)
{
	HloInstr **u = op->users;
	int n = op->nusers;
	if (n <= 0)
		return;
	int h = op->user_hint >= 0 && op->user_hint < n ? op->user_hint
							 : n - 1;
	int at = -1;
	/* outwards from the hint and inwards from both ends at once */
	for (int d = 0; h >= d || h + d < n; d++) {
		if (h + d < n && u[h + d] == user) {
			at = h + d;
			break;
		}
		if (h >= d && u[h - d] == user) {
			at = h - d;
			break;
		}
		if (u[n - 1 - d] == user) {
			at = n - 1 - d;
			break;
		}
		if (u[d] == user) {
			at = d;
			break;
		}
	}
	if (at < 0)
		return;
	/* a few slots moved one by one (the usual case: a user at or
	 * near an end), more by memmove */
	if (n - 1 - at <= at) {
		if (n - 1 - at > 8)
			memmove(&u[at], &u[at + 1],
				sizeof *u * (size_t)(n - at - 1));
		else
			for (int j = at; j < n - 1; j++)
				u[j] = u[j + 1];
	} else {
		if (at > 8)
			memmove(&u[1], &u[0], sizeof *u * (size_t)at);
		else
			for (int j = at; j > 0; j--)
				u[j] = u[j - 1];
		op->users = u + 1;
		op->cap_users--;
	}
	op->nusers--;
	op->user_hint = at;
}

/* A set of pointers for one walk (open addressing, never full). */
typedef struct PtrSet {
	const void **v;
	size_t mask;
} PtrSet;

static bool ptrset_init(PtrSet *s, int n)
{
	size_t cap = 64;
	while (cap < (size_t)n * 2)
		cap *= 2;
	s->v = calloc(cap, sizeof *s->v);
	s->mask = cap - 1;
	return s->v != NULL;
}

/* Adds p; false when it was there already. */
static bool ptrset_add(PtrSet *s, const void *p)
{
	size_t i = (size_t)(((uintptr_t)p * 0x9e3779b97f4a7c15u) >> 32) &
		   s->mask;
	for (; s->v[i]; i = (i + 1) & s->mask)
		if (s->v[i] == p)
			return false;
	s->v[i] = p;
	return true;
}

/* A zeroed instruction in one block with room for its first users (most
 * get one or two: no arena_grow for them) and, after those, for nops
 * operands (ops is left for the caller to point there). The block starts
 * a cache line when the arena's chunk has room for that: the fields the
 * walks read (HloInstr's first 64 bytes) then lie in one line, where at
 * the arena's 16-byte steps three blocks in four had them across two,
 * and each walk over the module read both. */
static inline HloInstr *instr_block(Arena *a, int nops)
{
	enum { FIRST_USERS = 4 };
	size_t n = sizeof(HloInstr) + sizeof(HloInstr *) * FIRST_USERS +
		   sizeof(HloInstr *) * (size_t)nops;
	size_t pad = (size_t)(-(uintptr_t)a->cur & 63);
	if ((size_t)(a->end - a->cur) > pad + n)
		a->cur += pad; /* (not handed out: not in used_total) */
	HloInstr *ins = arena_raw(a, n);
	if (!ins)
		return NULL;
	memset(ins, 0, sizeof *ins);
	ins->users = (HloInstr **)(ins + 1);
	ins->cap_users = FIRST_USERS;
	return ins;
}

/* hlo_instr_new_unlisted's body (inline in hlo_param_new_unlisted) */
static inline __attribute__((always_inline)) HloInstr *
new_unlisted(HloComp *c, HloOpcode op, Shape *shape, const char *name)
{
	HloModule *m = c->module;
	HloInstr *ins = instr_block(&m->arena, 0);
	void *v = ins ? arena_grow(&m->arena, c->instrs, sizeof *c->instrs,
				   &c->cap, c->n + 1)
		      : NULL;
	if (!v)
		return NULL;
	c->instrs = v;
	ins->id = m->next_id++;
	ins->name = name; /* not in c's names: nothing kept of it */
	ins->op = op;
	ins->shape = shape;
	ins->parent = c;
	c->instrs[c->n++] = ins;
	return ins;
}

HloInstr *hlo_instr_new_unlisted(HloComp *c, HloOpcode op, Shape *shape,
				 const char *name)
{
	return new_unlisted(c, op, shape, name);
}

/* hlo_comp_param_added's body (inline in hlo_param_new_unlisted) */
static inline void param_added(HloComp *c, HloInstr *p)
{
	if (p->param_no != c->npidx) {
		c->npidx = 0;
		return;
	}
	HloInstr **v = arena_grow(&c->module->arena, c->pidx, sizeof *v,
				  &c->cap_pidx, c->npidx + 1);
	if (!v) {
		c->npidx = 0;
		return;
	}
	c->pidx = v;
	c->pidx[c->npidx++] = p;
}

HloInstr *hlo_param_new_unlisted(HloComp *c, Shape *shape, const char *name,
				 int64_t no)
{
	HloInstr *par = new_unlisted(c, HLO_PARAMETER, shape, name);
	if (par) {
		par->param_no = no;
		param_added(c, par);
	}
	return par;
}

/* hlo_instr_new with its name already in the module's arena; when that
 * name is taken, fails, or with uniquify takes the name
 * hlo_comp_unique_name gives. */
static HloInstr *instr_new(HloComp *c, HloOpcode op, Shape *shape,
			   const char *name, size_t len, bool uniquify,
			   int nops, HloInstr *const *ops)
{
	HloModule *m = c->module;
	Arena *a = &m->arena;
	HloInstr *ins = instr_block(a, nops);
	if (!ins || !name)
		return NULL;
	ins->name = name;
	unsigned h = namemap_key_hash(name, len);
	int added = namemap_addh(&c->names, ins->name, len, h, ins);
	if (added == 0 && uniquify) {
		ins->name = hlo_comp_unique_name(c, name);
		len = ins->name ? strlen(ins->name) : 0;
		h = ins->name ? namemap_key_hash(ins->name, len) : 0;
		added = ins->name ? namemap_addh(&c->names, ins->name, len, h,
						 ins)
				  : -1;
	}
	if (added != 1)
		return NULL; /* taken (or out of memory) */
	hlo_name_keep(ins, len, h);
	void *v = arena_grow(a, c->instrs, sizeof *c->instrs, &c->cap, c->n + 1);
	if (!v) {
		hlo_names_del(c, ins);
		return NULL;
	}
	c->instrs = v;
	ins->id = m->next_id++;
	ins->op = op;
	ins->shape = shape;
	ins->parent = c;
	ins->nops = nops;
	if (nops) {
		ins->ops = ins->users + ins->cap_users;
		/* ins is new: it is a user of ops[i] already only if an
		 * earlier operand is the same instruction, and then it is
		 * the last user there (appended in this loop, after every
		 * other): one look, however many operands (a concatenate or
		 * tuple of thousands). */
		for (int i = 0; i < nops; i++) {
			HloInstr *o = ins->ops[i] = ops[i];
			if (!o || (o->nusers && o->users[o->nusers - 1] == ins))
				continue;
			if (!add_user(o, ins)) {
				hlo_names_del(c, ins);
				return NULL;
			}
		}
	}
	c->instrs[c->n++] = ins;
	return ins;
}

HloInstr *hlo_instr_new(HloComp *c, HloOpcode op, Shape *shape,
			const char *name, int nops, HloInstr *const *ops)
{
	if (!name) {
		const char *nm = hlo_comp_unique_name(c, hlo_opcode_name(op));
		return instr_new(c, op, shape, nm, nm ? strlen(nm) : 0, false,
				 nops, ops);
	}
	return hlo_instr_new_n(c, op, shape, name, strlen(name), nops, ops);
}

HloInstr *hlo_instr_new_n(HloComp *c, HloOpcode op, Shape *shape,
			  const char *name, size_t n, int nops,
			  HloInstr *const *ops)
{
	/* name's NUL copied with it */
	return instr_new(c, op, shape, arena_dup(&c->module->arena, name, n + 1),
			 n, false, nops, ops);
}

HloInstr *hlo_instr_new_unique(HloComp *c, HloOpcode op, Shape *shape,
			       const char *base, int nops,
			       HloInstr *const *ops)
{
	/* base itself first: one probe when it is free (the usual case) */
	size_t n = strlen(base);
	return instr_new(c, op, shape,
			 arena_strndup(&c->module->arena, base, n), n, true,
			 nops, ops);
}

HloInstr *hlo_instr_new_in_arena(HloComp *c, HloOpcode op, Shape *shape,
				 const char *name, int nops,
				 HloInstr *const *ops)
{
	return instr_new(c, op, shape, name, name ? strlen(name) : 0, true,
			 nops, ops);
}

HloInstr *hlo_comp_find(const HloComp *c, const char *name)
{
	return namemap_get(&c->names, name);
}

/* Whether v is an operand of ins in a slot other than skip. */
static bool uses_elsewhere(const HloInstr *ins, const HloInstr *v, int skip)
{
	HloInstr *const *o = ins->ops;
	for (int i = 0; i < skip; i++)
		if (o[i] == v)
			return true;
	for (int i = skip + 1; i < ins->nops; i++)
		if (o[i] == v)
			return true;
	return false;
}

/* Whether v is an operand of ins in a slot before end. */
static bool uses_before(const HloInstr *ins, const HloInstr *v, int end)
{
	for (int i = 0; i < end; i++)
		if (ins->ops[i] == v)
			return true;
	return false;
}

/* Use lists are exact (ins is a user of v exactly when v is one of its
 * operands), so both checks look at ins's operands, not at the users of
 * old or v: a value with thousands of users costs no more. */
void hlo_set_operand(HloInstr *ins, int i, HloInstr *v)
{
	HloInstr *old = ins->ops[i];
	if (old == v)
		return;
	ins->ops[i] = v;
	if (old && !uses_elsewhere(ins, old, i))
		remove_user(old, ins);
	if (v && !uses_elsewhere(ins, v, i))
		add_user(v, ins);
}

void hlo_set_operand_known(HloInstr *ins, int i, HloInstr *v,
			   bool old_elsewhere, bool v_elsewhere)
{
	HloInstr *old = ins->ops[i];
	if (old == v)
		return;
	ins->ops[i] = v;
	if (old && !old_elsewhere)
		remove_user(old, ins);
	if (v && !v_elsewhere)
		add_user(v, ins);
}

/* Takes ins out of the user lists of its operands, once from each
 * distinct one (as hlo_set_operand would leave them), its slots left as
 * they are: for hlo_instr_drop_operands, which clears them, and
 * hlo_instr_move, which fills them again at once. */
static void leave_operands(HloInstr *ins)
{
	int n = ins->nops;
	if (n <= 32) { /* (most: one or two) */
		for (int i = 0; i < n; i++) {
			HloInstr *o = ins->ops[i];
			if (o && !uses_before(ins, o, i))
				remove_user(o, ins);
		}
		return;
	}
	PtrSet seen_set = {0};
	bool big = ptrset_init(&seen_set, n);
	for (int i = 0; i < n; i++) {
		HloInstr *o = ins->ops[i];
		if (!o)
			continue;
		if (big ? ptrset_add(&seen_set, o) : !uses_before(ins, o, i))
			remove_user(o, ins);
	}
	if (big)
		free(seen_set.v);
}

void hlo_instr_drop_operands(HloInstr *ins)
{
	int n = ins->nops;
	leave_operands(ins);
	if (n <= 32) {
		for (int i = 0; i < n; i++)
			ins->ops[i] = NULL;
	} else {
		memset(ins->ops, 0, sizeof *ins->ops * (size_t)n);
	}
}

void hlo_replace_all_uses(HloInstr *old, HloInstr *with)
{
	if (old == with)
		return;
	/* One walk over each user's operands: a concatenate of thousands
	 * whose operands are merged one by one stays linear per merge.
	 * old's users are taken from the end and appended to with's (as
	 * hlo_set_operand would, unless with is an operand already): room
	 * for all of them is made at once, and old's list is emptied at the
	 * end instead of one removal each. */
	int n = old->nusers;
	if (with && n > 0) {
		void *v = arena_grow(&with->parent->module->arena, with->users,
				     sizeof *with->users, &with->cap_users,
				     with->nusers + n);
		if (!v)
			return; /* out of memory: nothing changed */
		with->users = v;
	}
	/* with read by nothing yet (mostly: a copy just made, read where a
	 * parameter was): no user of old reads it already */
	bool fresh = with && with->nusers == 0;
	for (int k = n - 1; k >= 0; k--) {
		HloInstr *u = old->users[k];
		bool had = false;
		if (fresh) {
			for (int i = 0; i < u->nops; i++)
				if (u->ops[i] == old)
					u->ops[i] = with;
		} else {
			for (int i = 0; i < u->nops; i++) {
				had |= u->ops[i] == with;
				if (u->ops[i] == old)
					u->ops[i] = with;
			}
		}
		if (with && !had)
			with->users[with->nusers++] = u;
	}
	if (n > 0) {
		old->nusers = 0;
		old->user_hint = 0; /* where the last removal was */
	}
	HloComp *c = old->parent;
	if (c->root == old)
		c->root = with;
}

void hlo_instr_remove(HloInstr *ins)
{
	HloComp *c = ins->parent;
	for (int i = 0; i < ins->nops; i++) /* once per distinct operand */
		if (ins->ops[i] && !uses_before(ins, ins->ops[i], i))
			remove_user(ins->ops[i], ins);
	for (int i = 0; i < c->n; i++) {
		if (c->instrs[i] == ins) {
			memmove(&c->instrs[i], &c->instrs[i + 1],
				sizeof *c->instrs * (size_t)(c->n - i - 1));
			c->n--;
			break;
		}
	}
	hlo_names_del(c, ins);
	if (c->root == ins)
		c->root = NULL;
	ins->parent = NULL;
}

unsigned hlo_name_hash_slow(const HloInstr *ins, size_t *len)
{
	size_t n = strlen(ins->name);
	unsigned h = namemap_key_hash(ins->name, n);
	if (XR_ASAN && ins->name_len &&
	    (ins->name_len != n + 1 || ins->name_hash != h)) {
		fprintf(stderr, "hlo: what '%s' keeps of its name is stale\n",
			ins->name);
		abort();
	}
	*len = n;
	return h;
}

bool hlo_names_del(HloComp *c, const HloInstr *ins)
{
	size_t n;
	unsigned h = hlo_name_hash(ins, &n);
	return namemap_delh(&c->names, ins->name, n, h);
}

void hlo_instr_unlink(HloInstr *ins)
{
	HloComp *c = ins->parent;
	hlo_names_del(c, ins);
	if (c->root == ins)
		c->root = NULL;
	ins->parent = NULL;
}

/* Drops unlinked users from ins's user list, keeping the order. */
static void sweep_users(HloInstr *ins)
{
	int k = 0;
	for (int i = 0; i < ins->nusers; i++)
		if (ins->users[i]->parent)
			ins->users[k++] = ins->users[i];
	ins->nusers = k;
}

void hlo_instr_sweep_users(HloInstr *ins) { sweep_users(ins); }

void hlo_comp_sweep(HloComp *c)
{
	/* up to the first that left, nothing moves: only read */
	int k = 0;
	while (k < c->n && c->instrs[k]->parent == c)
		k++;
	for (int i = k; i < c->n; i++) {
		HloInstr *ins = c->instrs[i];
		if (ins->parent == c) {
			c->instrs[k++] = ins;
			continue;
		}
		if (!ins->parent) /* unlinked: its users are swept below */
			for (int j = 0; j < ins->nops; j++)
				ins->ops[j] = NULL;
	}
	if (k == c->n)
		return; /* nothing went: every user list is exact already */
	c->n = k;
	for (int i = 0; i < k; i++)
		sweep_users(c->instrs[i]);
}

bool hlo_instr_rename(HloInstr *ins, const char *name)
{
	HloComp *c = ins->parent;
	/* The copy goes in first, in one probe that fails when the name
	 * is taken (the copy then stays unused in the arena). */
	size_t len = strlen(name);
	const char *nm = arena_strndup(&c->module->arena, name, len);
	unsigned h = nm ? namemap_key_hash(nm, len) : 0;
	if (!nm || namemap_addh(&c->names, nm, len, h, ins) != 1)
		return false;
	hlo_names_del(c, ins);
	ins->name = nm;
	hlo_name_keep(ins, len, h);
	return true;
}

static bool live_param(const HloComp *c, const HloInstr *p)
{
	return p->op == HLO_PARAMETER && p->parent == c;
}

/* Rebuilds c's parameter index, then answers as hlo_comp_param. */
static HloInstr *index_params(HloComp *c, int64_t number)
{
	int n = 0;
	for (int i = 0; i < c->n; i++) {
		const HloInstr *p = c->instrs[i];
		if (live_param(c, p) && p->param_no >= n && p->param_no < c->n)
			n = (int)p->param_no + 1;
	}
	HloInstr **v = arena_grow(&c->module->arena, c->pidx, sizeof *v,
				  &c->cap_pidx, n);
	if (v) {
		c->pidx = v;
		c->npidx = n;
		memset(v, 0, sizeof *v * (size_t)n);
		for (int i = 0; i < c->n; i++) { /* the first of a number wins */
			HloInstr *p = c->instrs[i];
			if (live_param(c, p) && p->param_no >= 0 &&
			    p->param_no < n && !v[p->param_no])
				v[p->param_no] = p;
		}
		if (number >= 0 && number < n && v[number])
			return v[number];
	}
	/* Out of the index's range, or only an unlinked one is left. */
	for (int i = 0; i < c->n; i++)
		if (c->instrs[i]->op == HLO_PARAMETER &&
		    c->instrs[i]->param_no == number)
			return c->instrs[i];
	return NULL;
}

void hlo_comp_param_dropped(HloComp *c, int64_t number)
{
	if (number < 0 || number >= c->npidx) {
		c->npidx = 0; /* rebuilt when next asked */
		return;
	}
	memmove(&c->pidx[number], &c->pidx[number + 1],
		sizeof *c->pidx * (size_t)(c->npidx - number - 1));
	c->npidx--;
}

void hlo_comp_param_added(HloComp *c, HloInstr *p) { param_added(c, p); }

HloInstr *hlo_comp_param_reindex(const HloComp *c, int64_t number)
{
	return index_params((HloComp *)c, number);
}

int hlo_comp_param_count(const HloComp *c)
{
	int k = 0;
	for (int i = 0; i < c->n; i++)
		k += c->instrs[i]->op == HLO_PARAMETER;
	return k;
}

/* ---- attributes -------------------------------------------------------- */

HloAttr *hlo_attr_find(const HloInstr *ins, AttrKey k)
{
	for (int i = 0; i < ins->nattrs; i++)
		if (ins->attrs[i].key == k)
			return &ins->attrs[i];
	return NULL;
}

HloAttr *hlo_attr_find_raw(const HloInstr *ins, const char *name)
{
	for (int i = 0; i < ins->nattrs; i++)
		if (!strcmp(ins->attrs[i].name, name))
			return &ins->attrs[i];
	return NULL;
}

HloAttr *hlo_attr_set(HloInstr *ins, AttrKey k, const char *name)
{
	HloAttr *at = k == A_RAW ? hlo_attr_find_raw(ins, name)
				 : hlo_attr_find(ins, k);
	Arena *a = &ins->parent->module->arena;
	if (!at) {
		void *v = arena_grow(a, ins->attrs, sizeof *ins->attrs,
				     &ins->cap_attrs, ins->nattrs + 1);
		if (!v)
			return NULL;
		ins->attrs = v;
		at = &ins->attrs[ins->nattrs++];
	}
	memset(at, 0, sizeof *at);
	at->key = k;
	at->name = k == A_RAW ? arena_strdup(a, name) : hlo_attr_name(k);
	if (k == A_RAW && !strcmp(name, "control-predecessors"))
		ins->parent->module->control_preds = true;
	return at;
}

bool hlo_attr_remove(HloInstr *ins, AttrKey k)
{
	HloAttr *at = hlo_attr_find(ins, k);
	if (!at)
		return false;
	int i = (int)(at - ins->attrs);
	memmove(at, at + 1, sizeof *at * (size_t)(ins->nattrs - i - 1));
	ins->nattrs--;
	return true;
}

bool hlo_attr_int(const HloInstr *ins, AttrKey k, int64_t *out)
{
	HloAttr *at = hlo_attr_find(ins, k);
	if (!at)
		return false;
	*out = hlo_attr_kind(k) == AV_BOOL ? at->u.b : at->u.i;
	return true;
}

const int64_t *hlo_attr_ints(const HloInstr *ins, AttrKey k, int *n)
{
	HloAttr *at = hlo_attr_find(ins, k);
	*n = at ? at->u.ints.n : 0;
	return at ? at->u.ints.v : NULL;
}

HloComp *hlo_attr_comp(const HloInstr *ins, AttrKey k)
{
	HloAttr *at = hlo_attr_find(ins, k);
	return at && at->u.comps.n > 0 ? at->u.comps.v[0] : NULL;
}

const char *hlo_attr_enum(const HloInstr *ins, AttrKey k)
{
	HloAttr *at = hlo_attr_find(ins, k);
	return at ? at->u.s : NULL;
}

static bool is_comp_attr(const HloAttr *at)
{
	AttrValKind k = hlo_attr_kind(at->key);
	return k == AV_COMP || k == AV_COMPS;
}

void hlo_instr_called(const HloInstr *ins, HloCompVisit fn, void *ctx)
{
	for (int i = 0; i < ins->nattrs; i++) {
		const HloAttr *at = &ins->attrs[i];
		if (!is_comp_attr(at))
			continue;
		for (int j = 0; j < at->u.comps.n; j++)
			fn(at->u.comps.v[j], ctx);
	}
}

int hlo_instr_ncalled(const HloInstr *ins)
{
	int n = 0;
	for (int i = 0; i < ins->nattrs; i++)
		if (is_comp_attr(&ins->attrs[i]))
			n += ins->attrs[i].u.comps.n;
	return n;
}

HloComp *hlo_instr_called_at(const HloInstr *ins, int k)
{
	for (int i = 0; i < ins->nattrs; i++) {
		const HloAttr *at = &ins->attrs[i];
		if (!is_comp_attr(at))
			continue;
		if (k < at->u.comps.n)
			return at->u.comps.v[k];
		k -= at->u.comps.n;
	}
	return NULL;
}

/* ---- walks ------------------------------------------------------------- */

unsigned hlo_new_mark(HloModule *m)
{
	/* Generations have the top bit set: walks that keep positions or
	 * counts in marks (cse, algsimp, the verifier, the interpreter)
	 * store values below it, and older generations are smaller, so no
	 * mark left behind equals a fresh one. */
	if (m->mark_gen < HLO_MARK_GEN0)
		m->mark_gen = HLO_MARK_GEN0;
	if (++m->mark_gen == 0) { /* wrapped: clear every mark */
		for (int i = 0; i < m->ncomps; i++) {
			m->comps[i]->mark = 0;
			for (int j = 0; j < m->comps[i]->n; j++)
				m->comps[i]->instrs[j]->mark = 0;
		}
		m->mark_gen = HLO_MARK_GEN0 + 1;
	}
	return m->mark_gen;
}

/* What the walks below rely on instead of clearing the marks of c first
 * (see hlo_new_mark): no instruction of c holds a mark as new as a fresh
 * generation. Sanitizer builds check it. */
static void check_marks_older(const HloComp *c, unsigned fresh)
{
#if XR_ASAN
	for (int i = 0; i < c->n; i++) {
		if (c->instrs[i]->mark >= fresh && fresh > HLO_MARK_GEN0 + 1) {
			fprintf(stderr, "hlo: '%s' holds mark %u, not older than "
					"the fresh %u\n",
				c->instrs[i]->name, c->instrs[i]->mark, fresh);
			abort();
		}
	}
#else
	(void)c;
	(void)fresh;
#endif
}

/* Iterative DFS over operands from x (not done yet): a node on the path
 * is marked open, a finished one done (two fresh generations); a cycle
 * is reported as -1. The node being visited and how far it is through
 * its operands stay in locals; the stack holds the nodes below it only.
 * An operand without operands (a parameter or constant: many) is
 * finished at once instead of going on the stack. The post order is the
 * one pushing every node would give. When in is not NULL, operands
 * outside computation in are not followed. */
typedef struct {
	HloInstr *ins;
	HloInstr *const *next; /* its next operand */
} Frame;

/* always inline: made once without the in test, once with it. The
 * operands are walked by pointer (one compare per operand, no index to
 * widen). */
static inline __attribute__((always_inline)) int
dfs_from(HloInstr *x, unsigned open, unsigned done, const HloComp *in,
	 Frame *stack, HloInstr **out, int k)
{
	int sp = 0;
	HloInstr *const *p = x->ops;
	HloInstr *const *end = x->nops ? p + x->nops : p;
	x->mark = open;
	for (;;) {
		if (p != end) {
			HloInstr *o = *p++;
			if (!o || o->mark == done || (in && o->parent != in))
				continue;
			if (o->mark == open)
				return -1;
			if (!o->nops) {
				o->mark = done;
				out[k++] = o;
				continue;
			}
			stack[sp++] = (Frame){x, p};
			x = o;
			x->mark = open;
			p = x->ops;
			end = p + x->nops;
			continue;
		}
		x->mark = done;
		out[k++] = x;
		if (!sp)
			return k;
		sp--;
		/* one with operands: it was part way through them */
		x = stack[sp].ins;
		p = stack[sp].next;
		end = x->ops + x->nops;
	}
}

int hlo_comp_post_order_into(HloComp *c, HloInstr **out)
{
	HloModule *m = c->module;
	/* the walk's stack on the C stack for a small computation (most
	 * fused ones): it is never deeper than c->n */
	Frame small[64];
	Frame *stack = c->n < 64 ? small
				 : malloc(sizeof *stack * (size_t)(c->n + 1));
	if (!stack)
		return HLO_ORDER_OOM;
	unsigned open = hlo_new_mark(m), done = hlo_new_mark(m);
	check_marks_older(c, open);
	int k = 0;
	if (c->root)
		k = dfs_from(c->root, open, done, NULL, stack, out, k);
	for (int i = 0; i < c->n && k >= 0; i++)
		if (c->instrs[i]->mark != done)
			k = dfs_from(c->instrs[i], open, done, NULL, stack, out,
				     k);
	if (stack != small)
		free(stack);
	return k;
}

int hlo_comp_post_order(HloComp *c, HloInstr ***out)
{
	*out = NULL;
	HloInstr **res = malloc(sizeof *res * (size_t)(c->n + 1));
	int k = res ? hlo_comp_post_order_into(c, res) : HLO_ORDER_OOM;
	if (k < 0) {
		free(res);
		return k;
	}
	*out = res;
	return k;
}

bool hlo_comp_sort_operands_first(HloComp *c)
{
	/* The walk itself, without a check first whether the order is one
	 * already: on such an order it finishes each instruction as it
	 * comes to it (all its operands done) and so costs what the check
	 * did. On the stack for a small computation (most fused ones). */
	enum { SMALL = 64 };
	HloInstr *small_out[SMALL];
	Frame small_stack[SMALL];
	bool small = c->n + 1 <= SMALL;
	HloInstr **out = small ? small_out
			       : malloc(sizeof *out * (size_t)(c->n + 1));
	Frame *stack = small ? small_stack
			     : malloc(sizeof *stack * (size_t)(c->n + 1));
	if (!out || !stack) {
		if (!small) {
			free(out);
			free(stack);
		}
		return false;
	}
	unsigned open = hlo_new_mark(c->module), done = hlo_new_mark(c->module);
	check_marks_older(c, open);
	int k = 0;
	for (int i = 0; i < c->n && k >= 0; i++)
		if (c->instrs[i]->mark != done)
			k = dfs_from(c->instrs[i], open, done, c, stack, out,
				     k);
	/* a cycle (k < 0) leaves the order as it is */
	if (k >= 0 && k == c->n)
		memcpy(c->instrs, out, sizeof *out * (size_t)k);
	if (!small) {
		free(out);
		free(stack);
	}
	return true;
}

typedef struct {
	HloComp **out;
	int k;
	unsigned char *state; /* per computation index: 0 new, 1 open, 2 done */
	HloModule *m;
	int depth;
} CompWalk;

int hlo_module_comp_index(const HloModule *m, const HloComp *c)
{
	if (c->at >= 0 && c->at < m->ncomps && m->comps[c->at] == c)
		return c->at;
	for (int i = 0; i < m->ncomps; i++)
		m->comps[i]->at = i;
	return c->at >= 0 && c->at < m->ncomps && m->comps[c->at] == c
		       ? c->at
		       : -1;
}

static void comp_visit(HloComp *c, void *ctx);

static void comp_dfs(CompWalk *w, HloComp *c)
{
	int i = hlo_module_comp_index(w->m, c);
	if (i < 0 || w->state[i] || w->depth > 10000)
		return;
	w->state[i] = 1;
	w->depth++;
	for (int j = 0; j < c->n; j++)
		hlo_instr_called(c->instrs[j], comp_visit, w);
	w->depth--;
	w->state[i] = 2;
	w->out[w->k++] = c;
}

static void comp_visit(HloComp *c, void *ctx) { comp_dfs(ctx, c); }

int hlo_module_comp_post_order(HloModule *m, HloComp ***out)
{
	CompWalk w = {0};
	w.m = m;
	w.out = malloc(sizeof *w.out * (size_t)(m->ncomps + 1));
	w.state = calloc((size_t)m->ncomps + 1, 1);
	if (!w.out || !w.state) {
		free(w.out);
		free(w.state);
		*out = NULL;
		return -1;
	}
	for (int i = 0; i < m->ncomps; i++)
		if (m->comps[i] != m->entry)
			comp_dfs(&w, m->comps[i]);
	if (m->entry)
		comp_dfs(&w, m->entry);
	free(w.state);
	*out = w.out;
	return w.k;
}

HloInstr *hlo_instr_move(HloInstr *ins, HloComp *c, HloInstr *const *ops)
{
	HloComp *from = ins->parent;
	HloModule *m = c->module;
	if (!from || from == c || from->module != m)
		return NULL;
	/* the name leaves one map for the other: hashed once, if not
	 * before */
	size_t len;
	unsigned h = hlo_name_hash(ins, &len);
	if (namemap_addh(&c->names, ins->name, len, h, ins) != 1)
		return NULL; /* taken (or out of memory) */
	/* room first (instruction list, each operand's users), so that
	 * nothing fails once ins is on its way */
	void *v = arena_grow(&m->arena, c->instrs, sizeof *c->instrs, &c->cap,
			     c->n + 1);
	if (v)
		c->instrs = v;
	for (int i = 0; v && i < ins->nops; i++) {
		HloInstr *o = ops[i];
		if (o && (v = arena_grow(&m->arena, o->users, sizeof *o->users,
					 &o->cap_users, o->nusers + 1)))
			o->users = v;
	}
	if (!v) {
		namemap_delh(&c->names, ins->name, len, h);
		return NULL;
	}
	/* taken out as pass_detach takes it (its users stay), its slots
	 * filled below */
	leave_operands(ins);
	namemap_delh(&from->names, ins->name, len, h);
	if (from->root == ins)
		from->root = NULL;
	hlo_instr_renew(ins, c);
	/* its operands as instr_new sets them: a user once of each (room
	 * made above) */
	for (int i = 0; i < ins->nops; i++) {
		HloInstr *o = ins->ops[i] = ops[i];
		if (o && !(o->nusers && o->users[o->nusers - 1] == ins))
			o->users[o->nusers++] = ins;
	}
	c->instrs[c->n++] = ins;
	return ins;
}

void hlo_comp_sweep_ops(HloComp *c)
{
	unsigned gen = hlo_new_mark(c->module);
	/* up to the first that left, nothing moves: only read */
	int k = 0;
	while (k < c->n && c->instrs[k]->parent == c)
		k++;
	for (int i = k; i < c->n; i++) {
		HloInstr *ins = c->instrs[i];
		if (ins->parent == c) {
			c->instrs[k++] = ins;
			continue;
		}
		if (ins->parent)
			continue;
		/* unlinked: only its operands' user lists hold it */
		for (int j = 0; j < ins->nops; j++) {
			HloInstr *o = ins->ops[j];
			if (o && o->mark != gen) {
				o->mark = gen;
				sweep_users(o);
			}
		}
		for (int j = 0; j < ins->nops; j++)
			ins->ops[j] = NULL;
	}
	c->n = k;
#if XR_ASAN
	for (int i = 0; i < k; i++)
		for (int j = 0; j < c->instrs[i]->nusers; j++)
			if (!c->instrs[i]->users[j]->parent) {
				fprintf(stderr, "hlo_comp_sweep_ops: %s keeps an "
						"unlinked user\n",
					c->instrs[i]->name);
				abort();
			}
#endif
}
