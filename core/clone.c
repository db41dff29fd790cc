/* clone.c - copy of a module into a fresh arena (used for history and
 * for "a failed command changes nothing"). The copy's graph is its own
 * (instructions, operand and user lists, name tables, computations);
 * its immutable data (shapes, names, attribute values) is shared with
 * the source, whose arena the copy's holds (arena_hold), unless the
 * source holds one itself: then everything is copied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo.h"

/* By old id: the copy of an instruction, the index of the computation
 * it was copied with (what copy_table asks of it: the copy itself is
 * not read there) and, while the copy is being made, how many of its
 * users lead its user list already resolved (where link looks for the
 * next: claim). */
typedef struct {
	HloInstr *to;
	int comp;
	int next;
} Mapped;

typedef struct {
	HloModule *dst;
	Mapped *imap;    /* old id -> new instruction */
	size_t *lens;    /* clone_instrs's scratch: name lengths by position */
	/* link's state: the user slots copied and those resolved so far;
	 * whether some operand came before its copy (a forward reference) */
	size_t nslots, nresolved;
	bool forward;
	const HloModule *src;
	/* The copy holds the source's arena (arena_hold): its immutable
	 * data (shapes, names, attribute values) is shared, not copied. */
	bool share;
	HloCloneEach *each; /* see hlo_module_clone_each */
	void *each_ctx;
	bool each_done; /* each has seen the entry */
	int at;         /* the index of the computation being copied */
} CloneCtx;

/* The copy of c: the copies are made in the source's order, so one
 * of the module's is at its index; another (not in the module) is
 * looked up by name. */
static HloComp *map_comp(CloneCtx *cx, const HloComp *c)
{
	if (!c)
		return NULL;
	int i = hlo_module_comp_index(cx->src, c);
	return i >= 0 ? cx->dst->comps[i] : hlo_module_find_comp(cx->dst, c->name);
}

static inline void *dup_arr(Arena *a, const void *p, size_t elem, int n)
{
	return n > 0 && p ? arena_dup(a, p, elem * (size_t)n) : NULL;
}

static ConvDims *clone_conv(Arena *a, const ConvDims *c)
{
	ConvDims *r = arena_dup(a, c, sizeof *c);
	if (!r)
		return NULL;
	r->in_spatial = dup_arr(a, c->in_spatial, sizeof(int64_t), c->nspatial);
	r->k_spatial = dup_arr(a, c->k_spatial, sizeof(int64_t), c->nspatial);
	r->out_spatial = dup_arr(a, c->out_spatial, sizeof(int64_t), c->nspatial);
	r->text = c->text ? arena_strdup(a, c->text) : NULL;
	return r;
}

/* The keys whose values are computations, from the one attribute
 * table. */
static const bool comp_key[A_COUNT] = {
#define ATTR(e, s, k) [e] = (k) == AV_COMP || (k) == AV_COMPS,
#include "attrs.def"
#undef ATTR
};

/* ins's attributes (n of them, at s) copied into d with the values
 * shared: values are never changed in place (a new one replaces the old
 * in its slot). Only a list of computations is the copy's own, naming
 * the copy's computations. One attribute at a time, checked as it is
 * copied: most instructions have one or two. */
static bool share_attrs(CloneCtx *cx, HloAttr *d, const HloAttr *s, int n)
{
	Arena *a = &cx->dst->arena;
	for (int k = 0; k < n; k++) {
		HloAttr *at = &d[k];
		*at = s[k];
		if ((unsigned)at->key >= A_COUNT || !comp_key[at->key])
			continue;
		HloComp *const *v = at->u.comps.v;
		if (at->u.comps.n <= 0 || !v) {
			at->u.comps.v = NULL; /* as clone_attr leaves it */
			continue;
		}
		at->u.comps.v = dup_arr(a, v, sizeof *v, at->u.comps.n);
		if (!at->u.comps.v)
			return false;
		for (int i = 0; i < at->u.comps.n; i++)
			at->u.comps.v[i] = map_comp(cx, v[i]);
	}
	return true;
}

static void clone_attr(CloneCtx *cx, HloAttr *d, const HloAttr *s)
{
	Arena *a = &cx->dst->arena;
	*d = *s;
	d->name = s->key == A_RAW ? arena_strdup(a, s->name) : s->name;
	switch (hlo_attr_kind(s->key)) {
	case AV_RAW:
	case AV_ENUM:
	case AV_STRING:
		d->u.s = s->u.s ? arena_strdup(a, s->u.s) : NULL;
		break;
	case AV_INTS:
		d->u.ints.v = dup_arr(a, s->u.ints.v, sizeof(int64_t), s->u.ints.n);
		break;
	case AV_COMP:
	case AV_COMPS:
		d->u.comps.v = dup_arr(a, s->u.comps.v, sizeof(HloComp *),
				       s->u.comps.n);
		for (int i = 0; i < s->u.comps.n && d->u.comps.v; i++)
			d->u.comps.v[i] = map_comp(cx, s->u.comps.v[i]);
		break;
	case AV_SLICE:
		d->u.slice.v = dup_arr(a, s->u.slice.v, sizeof(SliceDim), s->u.slice.n);
		break;
	case AV_PADDING:
		d->u.pad.v = dup_arr(a, s->u.pad.v, sizeof(PadDim), s->u.pad.n);
		break;
	case AV_WINDOW:
		d->u.window.v = dup_arr(a, s->u.window.v, sizeof(WindowDim),
					s->u.window.n);
		break;
	case AV_DIMLABELS:
		d->u.conv = s->u.conv ? clone_conv(a, s->u.conv) : NULL;
		break;
	default:
		break;
	}
}

/* Gives the copy t->to of an operand of the source's s its user d, the copy of s, in the slot where its user list (copied from
 * the source's) still holds s: users in the source order, so that walks
 * visit them in the same order on the copy. Users come in that order
 * mostly (a user list grows as users are made), so the slot is looked
 * for from the first unresolved one on, and not far: one not found
 * (a long list in another order) is left to rewire. */
static inline void claim(CloneCtx *cx, Mapped *t, const HloInstr *s,
			 HloInstr *d)
{
	HloInstr **u = t->to->users;
	int n = t->to->nusers, at = t->next;
	if (at < n && u[at] == s) { /* the usual case */
		u[at] = d;
		t->next = at + 1;
		cx->nresolved++;
		return;
	}
	for (int k = 1; k < n && k < 64; k++) {
		int j = at + k < n ? at + k : at + k - n;
		if (u[j] == s) {
			u[j] = d;
			cx->nresolved++;
			return;
		}
	}
}

/* d's operand and user lists, the copy of s's, at v (room for both and
 * a spare user slot: a value that gains one user, a pass's new
 * instruction reading it before the old reader goes, needs no
 * arena_grow). An operand made before s (the usual order) is mapped at
 * once, and d takes its place in that operand's user list (claim); the
 * user list holds s's users, the source's, until each is copied in turn
 * and claims its slot. A forward reference (legal in the text), or a
 * user list not resolved whole, is wired again once every instruction
 * exists (rewire). */
static void link(CloneCtx *cx, HloInstr *d, const HloInstr *s, HloInstr **v)
{
	Mapped *imap = cx->imap;
	if (s->nops) {
		d->ops = v;
		d->nops = s->nops;
	}
	for (int j = 0; j < s->nops; j++) {
		const HloInstr *o = s->ops[j];
		Mapped *t = o ? &imap[o->id] : NULL;
		if (!t || !(v[j] = t->to)) {
			v[j] = NULL;
			cx->forward |= t != NULL;
			continue;
		}
		/* a user list names each user once */
		bool again = false;
		for (int k = 0; k < j && !again; k++)
			again = s->ops[k] == o;
		if (!again)
			claim(cx, t, s, d);
	}
	v += s->nops;
	d->users = v;
	d->nusers = s->nusers;
	d->cap_users = s->nusers + 1;
	for (int j = 0; j < s->nusers; j++)
		v[j] = s->users[j];
	cx->nslots += (size_t)s->nusers;
}

/* dc's operand and user lists, from sc's through the map, in the lists
 * link made: for what link could not resolve. */
static void rewire(CloneCtx *cx, HloComp *dc, const HloComp *sc)
{
	const Mapped *imap = cx->imap;
	for (int i = 0; i < sc->n; i++) {
		const HloInstr *s = sc->instrs[i];
		HloInstr *d = dc->instrs[i];
		for (int j = 0; j < s->nops; j++)
			d->ops[j] = s->ops[j] ? imap[s->ops[j]->id].to : NULL;
		for (int j = 0; j < s->nusers; j++)
			d->users[j] = imap[s->users[j]->id].to;
	}
}

/* The instructions of sc, copied into dc in one block, their names in
 * another (names are never changed in place: a rename gives an
 * instruction a new string), in one walk over sc: each instruction's
 * attribute array and operand and user lists (link) are made as it is
 * copied, one after another from the arena, so that the copy is
 * written in two streams (the block, the rest) and the source read
 * once (an array that grows moves to a new one: arena_grow). Not
 * hlo_instr_new: the names are known to be unique, and the name table
 * is copied whole afterwards (copy_names). */
static bool clone_instrs(CloneCtx *cx, HloComp *dc, const HloComp *sc)
{
	Arena *a = &cx->dst->arena;
	size_t total = 0, *lens = cx->lens;
	for (int i = 0; !cx->share && i < sc->n; i++)
		total += lens[i] = strlen(sc->instrs[i]->name) + 1;
	HloInstr *block = arena_raw(a, sizeof *block * (size_t)sc->n);
	char *names = cx->share ? NULL : arena_raw(a, total);
	if (!block || (!cx->share && !names))
		return false;
	HloCloneEach *each = sc == cx->src->entry ? cx->each : NULL;
	cx->each_done |= each != NULL;
	for (int i = 0; i < sc->n; i++) {
		const HloInstr *s = sc->instrs[i];
		HloInstr *d = &block[i];
		if (each) /* before the copy: what it remembers is copied */
			each(cx->each_ctx, (HloInstr *)s);
		/* The source's fields, less what ties it to its graph
		 * (parent; attributes, literal, operands and users:
		 * below) and what a walk or a hint left there. What the
		 * verifier's signature reads of s is shared when the clone
		 * shares shapes and attribute values (verify.c's
		 * instr_sig), so vsig holds for d too; a copying clone
		 * leaves it to verify_inherit. What the cost model
		 * remembers (cost_sig, cost_read) is kept: it is keyed by
		 * vsig, so it holds on the copy just where the copy's vsig
		 * is the source's. */
		*d = *s;
		d->ops = NULL;
		d->nops = 0;
		d->parent = dc;
		d->mark = 0;
		d->literal = NULL;
		d->vsig = cx->share ? s->vsig : 0;
		d->user_hint = 0;
		if (!cx->share) {
			size_t len = lens[i];
			d->name = memcpy(names, s->name, len);
			names += len;
			if (s->shape && !(d->shape = shape_clone(a, s->shape)))
				return false;
		}
		if (s->literal && !(d->literal = literal_clone(a, s->literal)))
			return false;
		/* its attributes, then its operand and user lists (each
		 * user list with a slot to spare: see link), in one piece */
		size_t na = (size_t)s->nattrs;
		size_t nl = (size_t)s->nops + (size_t)s->nusers + 1;
		HloAttr *at =
			arena_raw(a, sizeof *at * na + sizeof(HloInstr *) * nl);
		if (!at)
			return false;
		d->attrs = na ? at : NULL;
		d->nattrs = d->cap_attrs = s->nattrs;
		if (na && cx->share) {
			if (!share_attrs(cx, at, s->attrs, s->nattrs))
				return false;
		} else {
			for (int k = 0; k < s->nattrs; k++)
				clone_attr(cx, &at[k], &s->attrs[k]);
		}
		link(cx, d, s, (HloInstr **)(at + na));
		dc->instrs[i] = d;
		cx->imap[s->id].to = d;
		cx->imap[s->id].comp = cx->at;
	}
	dc->n = sc->n;
	return true;
}

/* Sanitizer builds: the lists link made, checked against the map
 * (rewire's), stopping at once on a difference. */
static void check_links(const CloneCtx *cx, const HloComp *dc,
			const HloComp *sc)
{
#if XR_ASAN
	const Mapped *imap = cx->imap;
	for (int i = 0; i < sc->n; i++) {
		const HloInstr *s = sc->instrs[i], *d = dc->instrs[i];
		bool same = d->nops == s->nops && d->nusers == s->nusers;
		for (int j = 0; same && j < s->nops; j++)
			same = d->ops[j] ==
			       (s->ops[j] ? imap[s->ops[j]->id].to : NULL);
		for (int j = 0; same && j < s->nusers; j++)
			same = d->users[j] == imap[s->users[j]->id].to;
		if (!same) {
			fprintf(stderr,
				"hlo_module_clone: the copy of %s is "
				"not wired as its source\n",
				s->name);
			abort();
		}
	}
#else
	(void)cx, (void)dc, (void)sc;
#endif
}

static bool copy_header(CloneCtx *cx)
{
	const HloModule *s = cx->src;
	HloModule *d = cx->dst;
	d->next_id = s->next_id;
	d->control_preds = s->control_preds;
	d->frame_index = s->frame_index ? arena_strdup(&d->arena, s->frame_index)
					: NULL;
	d->source_name = s->source_name ? arena_strdup(&d->arena, s->source_name)
					: NULL;
	if (s->entry_layout) {
		d->entry_layout = arena_alloc(&d->arena, sizeof *d->entry_layout *
							 (size_t)s->entry_layout_n);
		if (!d->entry_layout)
			return false;
		for (int i = 0; i < s->entry_layout_n; i++)
			if (!(d->entry_layout[i] =
				      shape_clone(&d->arena, s->entry_layout[i])))
				return false;
		d->entry_layout_n = s->entry_layout_n;
	}
	if (!s->nattrs)
		return true;
	d->attrs = arena_alloc(&d->arena, sizeof *d->attrs * (size_t)s->nattrs);
	if (!d->attrs)
		return false;
	d->nattrs = d->cap_attrs = s->nattrs;
	for (int i = 0; i < s->nattrs; i++)
		clone_attr(cx, &d->attrs[i], &s->attrs[i]);
	return true;
}

/* The copy of o, the instruction an entry of sc's table names under
 * key, when it is one of dc's under that name; else NULL. Asked of the
 * map and of o (the copy has o's name, or a copy of it), not of the
 * copy: the entries come in hash order, and each copy read would be
 * one more scattered load. */
static inline HloInstr *named_copy(const CloneCtx *cx, const HloComp *dc,
				   const char *key, const HloInstr *o)
{
	const Mapped *t = (unsigned)o->id <= (unsigned)cx->src->next_id
				  ? &cx->imap[o->id]
				  : NULL;
	/* the table's keys are its instructions' own name strings: the
	 * text is compared only when another string is the key */
	bool ok = t && t->to && t->comp == cx->at &&
		  (key == o->name || !strcmp(o->name, key));
#if XR_ASAN
	HloInstr *d = t ? t->to : NULL;
	if (ok != (d && d->parent == dc && !strcmp(d->name, key))) {
		fprintf(stderr,
			"hlo_module_clone: the map and the copy "
			"disagree on %s\n",
			key);
		abort();
	}
#else
	(void)dc;
#endif
	return ok ? t->to : NULL;
}

/* dc's names as a copy of sc's table, slot for slot (the names are the
 * same, and so are their hashes), each entry naming the copy of its
 * instruction (namemap_copy_slots: a large table is mostly empty slots,
 * each of which a call per entry would cost more). */
static bool copy_table(CloneCtx *cx, HloComp *dc, const HloComp *sc)
{
	const NameMapSlot *src = sc->names.slots;
	size_t cap = sc->names.cap;
	NameMapSlot *v = namemap_copy_slots(&dc->names, &sc->names);
	if (!v)
		return !cap;
	const char *tomb = namemap_tomb();
	size_t dropped = 0;
	for (size_t i = 0; i < cap; i++) {
		const NameMapSlot *s = &src[i];
		if (!s->key) {
			v[i].key = NULL;
			v[i].val = NULL;
			continue;
		}
		const HloInstr *o = s->val;
		HloInstr *d =
			s->key == tomb ? NULL : named_copy(cx, dc, s->key, o);
		if (d) {
			/* a sharing copy's name is o's string */
			const char *k = cx->share ? o->name : d->name;
			v[i] = (NameMapSlot){k, d, s->hash, s->len};
		} else {
			dropped += s->key != tomb;
			v[i] = (NameMapSlot){tomb, NULL, s->hash, s->len};
		}
	}
	dc->names.count -= dropped;
	return true;
}

/* dc's name table: a copy of sc's, or, when sc's does not name exactly
 * its instructions, one built afresh. */
static bool copy_names(CloneCtx *cx, HloComp *dc, const HloComp *sc)
{
	if (!copy_table(cx, dc, sc))
		return false;
	if (dc->names.count == (size_t)dc->n)
		return true;
	namemap_free(&dc->names);
	namemap_init_in(&dc->names, &cx->dst->arena);
	for (int i = 0; i < dc->n; i++)
		if (!namemap_put(&dc->names, dc->instrs[i]->name,
				 dc->instrs[i]))
			return false;
	return true;
}

static bool clone_comp_body(CloneCtx *cx, const HloComp *sc)
{
	HloComp *dc = hlo_module_find_comp(cx->dst, sc->name);
	dc->cap = sc->n;
	/* every slot is written (clone_instrs), the one past the end too */
	dc->instrs = arena_raw(&cx->dst->arena,
			       sizeof *dc->instrs * (size_t)(sc->n + 1));
	if (!dc->instrs)
		return false;
	dc->instrs[sc->n] = NULL;
	if (!clone_instrs(cx, dc, sc))
		return false;
	if (!copy_names(cx, dc, sc))
		return false;
	dc->root = sc->root ? cx->imap[sc->root->id].to : NULL;
	dc->root_explicit = sc->root_explicit;
	dc->inlined = sc->inlined;
	dc->loc = sc->loc;
	if (sc->exec_thread)
		dc->exec_thread = arena_strdup(&cx->dst->arena, sc->exec_thread);
	return true;
}

HloModule *hlo_module_clone(const HloModule *m)
{
	return hlo_module_clone_each(m, NULL, NULL);
}

HloModule *hlo_module_clone_each(const HloModule *m, HloCloneEach *each,
				 void *ctx)
{
	CloneCtx cx = {.each = each, .each_ctx = ctx};
	cx.src = m;
	cx.dst = hlo_module_new(m->name);
	cx.imap = calloc((size_t)m->next_id + 1, sizeof *cx.imap);
	int most = 1; /* the most instructions of one computation */
	for (int i = 0; i < m->ncomps; i++)
		most = m->comps[i]->n > most ? m->comps[i]->n : most;
	cx.lens = malloc(sizeof *cx.lens * (size_t)most);
	if (!cx.dst || !cx.imap || !cx.lens)
		goto fail;
	/* A source that holds another's arena is copied whole: a clone of
	 * a clone of ... would keep every one of them alive. */
	cx.share = arena_hold(&cx.dst->arena, &m->arena);
	for (int i = 0; i < m->ncomps; i++)
		if (!hlo_comp_new(cx.dst, m->comps[i]->name))
			goto fail;
	for (int i = 0; i < m->ncomps; i++) {
		cx.at = i;
		if (!clone_comp_body(&cx, m->comps[i]))
			goto fail;
	}
	for (int i = 0;
	     (cx.forward || cx.nresolved != cx.nslots) && i < m->ncomps; i++)
		rewire(&cx, cx.dst->comps[i], m->comps[i]);
	for (int i = 0; XR_ASAN && i < m->ncomps; i++)
		check_links(&cx, cx.dst->comps[i], m->comps[i]);
	if (!copy_header(&cx))
		goto fail;
	hlo_module_set_entry(cx.dst, map_comp(&cx, m->entry));
	/* an entry that is not one of m's computations was not copied
	 * (nor seen) in the walk above */
	for (int i = 0; each && !cx.each_done && m->entry && i < m->entry->n;
	     i++)
		each(ctx, m->entry->instrs[i]);
	free(cx.imap);
	free(cx.lens);
	return cx.dst;
fail:
	free(cx.imap);
	free(cx.lens);
	hlo_module_free(cx.dst);
	return NULL;
}
