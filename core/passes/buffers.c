/* buffers.c - buffer assignment for the entry computation (see buffers.h)
 * and its lifetime chart as SVG text.
 *
 * Schedule: the computation's program order when every operand comes
 * before its user (always so after the verifier), else a post order.
 * Position p is the p-th instruction of the schedule.
 *
 * Values and buffers: every instruction defines one buffer per array leaf
 * of its shape (a tuple-shaped result such as a while's or a multi-output
 * fusion's: one per leaf, in leaf order; the tuple's index table, a few
 * pointers, is not counted). Tokens have no buffer. bitcast,
 * get-tuple-element and tuple define nothing: they name their operands'
 * buffers. A dynamic-update-slice that is the only reader of the array
 * it updates, a temporary of that array's own, writes into it in place
 * (as XLA's buffer assignment shares it); so does a while on the leaves
 * of its initial value that only it reads, temporaries of their own
 * (while_leaves). A buffer lives from its defining position to its last use by
 * an instruction that reads it (a use through an alias counts at the
 * position of the alias's reader); parameters and constants live over
 * the whole schedule and the root's buffers to its end.
 *
 * Reuse (as XLA's heap simulator with a best-fit policy, no alignment
 * padding): walking the schedule, the buffers whose last use was the
 * previous position give their slot back; each new buffer takes the
 * smallest free slot that is large enough (the lowest-numbered among
 * equals), else a new slot of its own size. Parameters and constants get
 * slots of their own that are never reused. Slots are laid out one after
 * another in one arena. Sizes saturate rather than overflow on absurd
 * shapes. */
#include <stdlib.h>
#include <string.h>

#include "buffers.h"

/* --- building: the schedule and the buffers of each value -------------- */

typedef struct {
	const HloComp *c;
	HloInstr **order; /* the schedule */
	int n;
	int *pos;           /* instruction id -> position, -1: not in c */
	int *lfirst, *lnum; /* per position: its leaves in leaves[] */
	int *leaves;        /* buffer index of each leaf */
	int nleaves, capleaves;
	Buffer *bufs;
	BufferInfo *info;
	int nbufs, capbufs, capinfo;
	bool oom;
} Asg;

static bool grow(void **p, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return true;
	int cap2 = *cap ? *cap : 16;
	while (cap2 < need)
		cap2 *= 2;
	void *q = realloc(*p, (size_t)cap2 * elem);
	if (!q)
		return false;
	*p = q;
	*cap = cap2;
	return true;
}

static int array_leaves(const Shape *s)
{
	if (!s)
		return 0;
	if (s->type != DT_TUPLE)
		return dtype_is_array(s->type) ? 1 : 0;
	int n = 0;
	for (int i = 0; i < s->ntuple; i++)
		n += array_leaves(s->tuple[i]);
	return n;
}

static void put_leaf(Asg *a, int b)
{
	if (!grow((void **)&a->leaves, &a->capleaves, a->nleaves + 1,
		  sizeof *a->leaves)) {
		a->oom = true;
		return;
	}
	a->leaves[a->nleaves++] = b;
}

static void new_buffer(Asg *a, const HloInstr *ins, const Shape *s, int p)
{
	if (!grow((void **)&a->bufs, &a->capbufs, a->nbufs + 1,
		  sizeof *a->bufs) ||
	    !grow((void **)&a->info, &a->capinfo, a->nbufs + 1,
		  sizeof *a->info)) {
		a->oom = true;
		return;
	}
	int64_t bytes = shape_bytes(s);
	a->bufs[a->nbufs] = (Buffer){ins, bytes > 0 ? bytes : 0, p, p, -1, 0};
	put_leaf(a, a->nbufs++);
}

/* One buffer per array leaf of s, in leaf order. */
static void define_leaves(Asg *a, const HloInstr *ins, const Shape *s, int p)
{
	if (!s || a->oom)
		return;
	if (s->type != DT_TUPLE) {
		if (dtype_is_array(s->type))
			new_buffer(a, ins, s, p);
		return;
	}
	for (int i = 0; i < s->ntuple; i++)
		define_leaves(a, ins, s->tuple[i], p);
}

static int pos_of(const Asg *a, const HloInstr *ins)
{
	return ins->parent == a->c ? a->pos[ins->id] : -1;
}

/* Copies leaves [from, from + n) of the value at position q. */
static void copy_leaves(Asg *a, int q, int from, int n)
{
	for (int i = 0; i < n && !a->oom; i++)
		put_leaf(a, a->leaves[a->lfirst[q] + from + i]);
}

static bool is_alias(const Asg *a, int p);

/* Makes the value at p name its operands' buffers when it is an alias
 * (bitcast, get-tuple-element, tuple) whose shapes agree, or updates its
 * operand in place (dynamic-update-slice); false when it must define
 * buffers of its own. */
static bool alias_leaves(Asg *a, const HloInstr *ins, int want)
{
	int q = ins->nops ? pos_of(a, ins->ops[0]) : -1;
	switch (ins->op) {
	case HLO_BITCAST:
		if (q < 0 || a->lnum[q] != want)
			return false;
		copy_leaves(a, q, 0, want);
		return true;
	case HLO_GET_TUPLE_ELEMENT: {
		const Shape *t = q >= 0 ? ins->ops[0]->shape : NULL;
		int64_t k;
		if (!t || t->type != DT_TUPLE ||
		    !hlo_attr_int(ins, A_INDEX, &k) || k < 0 ||
		    k >= t->ntuple || array_leaves(t->tuple[k]) != want ||
		    a->lnum[q] != array_leaves(t))
			return false;
		int from = 0;
		for (int64_t i = 0; i < k; i++)
			from += array_leaves(t->tuple[i]);
		copy_leaves(a, q, from, want);
		return true;
	}
	case HLO_TUPLE: {
		int sum = 0;
		for (int i = 0; i < ins->nops; i++) {
			int qi = pos_of(a, ins->ops[i]);
			if (qi < 0)
				return false;
			sum += a->lnum[qi];
		}
		if (sum != want)
			return false;
		for (int i = 0; i < ins->nops; i++) {
			int qi = pos_of(a, ins->ops[i]);
			copy_leaves(a, qi, 0, a->lnum[qi]);
		}
		return true;
	}
	case HLO_DYNAMIC_UPDATE_SLICE: {
		/* In place, as XLA assigns it: the updated array's buffer,
		 * when this is its only reader and it is a temporary of its
		 * own (not a parameter's, a constant's or another value's). */
		const HloInstr *o = ins->ops[0];
		if (q < 0 || want != 1 || a->lnum[q] != 1 || o->nusers != 1 ||
		    o == a->c->root || is_alias(a, q) ||
		    a->info[a->leaves[a->lfirst[q]]].kind != BUF_TEMP ||
		    !shape_same_dims(o->shape, ins->shape))
			return false;
		copy_leaves(a, q, 0, 1);
		return true;
	}
	default:
		return false;
	}
}

/* The buffer of leaf i of a while's initial value init (at q) that the
 * loop may run on in place, or -1: a temporary that nothing but the
 * loop reads (defined by init, whose only reader is the loop, or by an
 * operand of init, a tuple, that only init reads), not passed in two
 * leaves at once. */
static int loop_takes(const Asg *a, const HloInstr *init, int q, int i)
{
	int b = a->leaves[a->lfirst[q] + i];
	if (a->info[b].kind != BUF_TEMP)
		return -1;
	for (int k = 0; k < a->lnum[q]; k++)
		if (k != i && a->leaves[a->lfirst[q] + k] == b)
			return -1;
	const HloInstr *x = a->bufs[b].def;
	if (x == a->c->root)
		return -1;
	if (x != init &&
	    !(init->op == HLO_TUPLE && x->nusers == 1 && x->users[0] == init))
		return -1;
	return b;
}

/* One buffer per array leaf of s, in leaf order, for while w: leaf *i
 * of its initial value's where the loop takes it (loop_takes), else
 * one of its own; *shared counts the first kind. */
static void while_leaf(Asg *a, const HloInstr *w, const Shape *s, int q, int *i,
		       int p, int *shared)
{
	if (!s || a->oom)
		return;
	if (s->type == DT_TUPLE) {
		for (int k = 0; k < s->ntuple; k++)
			while_leaf(a, w, s->tuple[k], q, i, p, shared);
		return;
	}
	if (!dtype_is_array(s->type))
		return;
	int b = loop_takes(a, w->ops[0], q, (*i)++);
	if (b >= 0) {
		put_leaf(a, b);
		++*shared;
	} else {
		new_buffer(a, w, s, p);
	}
}

/* The buffers of while w at p: a loop runs in place on its state, as
 * XLA assigns it (its copy insertion copies only a parameter, a
 * constant or a value read again later): leaf i of its value is leaf i
 * of its initial value's where loop_takes says so. False when no leaf
 * is (the caller defines them all). */
static bool while_leaves(Asg *a, const HloInstr *w, int want, int p)
{
	const HloInstr *init = w->nops == 1 ? w->ops[0] : NULL;
	int q = init ? pos_of(a, init) : -1;
	if (q < 0 || a->lnum[q] != want || init->nusers != 1 ||
	    init == a->c->root)
		return false;
	int i = 0, shared = 0;
	while_leaf(a, w, w->shape, q, &i, p, &shared);
	return shared > 0;
}

static void value_leaves(Asg *a, int p)
{
	const HloInstr *ins = a->order[p];
	int want = array_leaves(ins->shape);
	a->lfirst[p] = a->nleaves;
	int first_buf = a->nbufs;
	if (ins->op == HLO_WHILE ? !while_leaves(a, ins, want, p)
				 : !alias_leaves(a, ins, want)) {
		a->nleaves = a->lfirst[p]; /* a partial copy, if any */
		a->nbufs = first_buf;
		define_leaves(a, ins, ins->shape, p);
	}
	a->lnum[p] = a->nleaves - a->lfirst[p];
	/* the buffers it defines (a while may define some leaves only) */
	for (int i = 0; i < a->lnum[p]; i++) {
		int b = a->leaves[a->lfirst[p] + i];
		if (b < first_buf)
			continue;
		BufferKind k = BUF_TEMP;
		if (ins->op == HLO_PARAMETER)
			k = BUF_PARAMETER;
		else if (ins->op == HLO_CONSTANT)
			k = BUF_CONSTANT;
		a->info[b] = (BufferInfo){k, i};
	}
}

/* --- the schedule --------------------------------------------------------- */

static bool program_order_valid(const Asg *a)
{
	for (int p = 0; p < a->n; p++) {
		const HloInstr *ins = a->order[p];
		for (int i = 0; i < ins->nops; i++) {
			int q = pos_of(a, ins->ops[i]);
			if (q >= p)
				return false;
		}
	}
	return true;
}

static bool schedule(Asg *a, const HloModule *m)
{
	const HloComp *c = a->c;
	a->n = c->n;
	a->order = malloc(sizeof *a->order * (size_t)(c->n + 1));
	a->pos = malloc(sizeof *a->pos * (size_t)(m->next_id + 1));
	if (!a->order || !a->pos)
		return false;
	for (int i = 0; i <= m->next_id; i++)
		a->pos[i] = -1;
	memcpy(a->order, c->instrs, sizeof *a->order * (size_t)c->n);
	for (int p = 0; p < a->n; p++)
		a->pos[a->order[p]->id] = p;
	if (program_order_valid(a))
		return true;
	HloInstr **po;
	/* hlo_comp_post_order only uses the marks. */
	int k = hlo_comp_post_order((HloComp *)c, &po);
	if (k != c->n) {
		free(po);
		return false;
	}
	free(a->order);
	a->order = po;
	for (int p = 0; p < a->n; p++)
		a->pos[a->order[p]->id] = p;
	return true;
}

/* --- liveness ------------------------------------------------------------- */

static bool is_alias(const Asg *a, int p)
{
	/* An alias defined nothing: its leaves belong to earlier values (a
	 * while that runs in place on some of its state's is no alias) */
	int n = a->lnum[p];
	return n > 0 && a->order[p]->op != HLO_WHILE &&
	       a->bufs[a->leaves[a->lfirst[p]]].def != a->order[p];
}

static void extend(Asg *a, int q, int p)
{
	for (int i = 0; i < a->lnum[q]; i++) {
		Buffer *b = &a->bufs[a->leaves[a->lfirst[q] + i]];
		if (b->end < p)
			b->end = p;
	}
}

static void live_ranges(Asg *a)
{
	int last = a->n - 1;
	for (int p = 0; p < a->n; p++) {
		const HloInstr *ins = a->order[p];
		/* an alias reads nothing; an update in place reads its
		 * operands (the array it updates included) */
		if (is_alias(a, p) && ins->op != HLO_DYNAMIC_UPDATE_SLICE)
			continue;
		for (int i = 0; i < ins->nops; i++) {
			int q = pos_of(a, ins->ops[i]);
			if (q >= 0)
				extend(a, q, p);
		}
	}
	for (int b = 0; b < a->nbufs; b++) {
		if (a->info[b].kind != BUF_TEMP) {
			a->bufs[b].start = 0;
			a->bufs[b].end = last;
		}
	}
	int r = a->c->root ? pos_of(a, a->c->root) : -1;
	for (int i = 0; r >= 0 && i < a->lnum[r]; i++) {
		int b = a->leaves[a->lfirst[r] + i];
		a->bufs[b].end = last;
		if (a->info[b].kind == BUF_TEMP)
			a->info[b].kind = BUF_OUTPUT;
	}
}

/* --- reuse ------------------------------------------------------------- */

typedef struct {
	int64_t *size; /* per slot */
	int nslots, capslots;
	int *free; /* free slots sorted by (size, slot) */
	int nfree, capfree;
} Slots;

static int new_slot(Slots *s, int64_t size)
{
	if (!grow((void **)&s->size, &s->capslots, s->nslots + 1,
		  sizeof *s->size))
		return -1;
	s->size[s->nslots] = size;
	return s->nslots++;
}

static bool slot_less(const Slots *s, int x, int y)
{
	return s->size[x] < s->size[y] || (s->size[x] == s->size[y] && x < y);
}

static bool free_slot(Slots *s, int k)
{
	if (!grow((void **)&s->free, &s->capfree, s->nfree + 1,
		  sizeof *s->free))
		return false;
	int lo = 0, hi = s->nfree;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (slot_less(s, s->free[mid], k))
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(s->free + lo + 1, s->free + lo,
		sizeof *s->free * (size_t)(s->nfree - lo));
	s->free[lo] = k;
	s->nfree++;
	return true;
}

/* The smallest free slot of at least size bytes (taken off the free
 * list), or -1. */
static int best_fit(Slots *s, int64_t size)
{
	int lo = 0, hi = s->nfree;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (s->size[s->free[mid]] < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->nfree)
		return -1;
	int k = s->free[lo];
	memmove(s->free + lo, s->free + lo + 1,
		sizeof *s->free * (size_t)(s->nfree - lo - 1));
	s->nfree--;
	return k;
}

/* Buffers whose last use is position p, chained through next[]. */
static bool by_end(const Asg *a, int **head, int **next)
{
	*head = malloc(sizeof **head * (size_t)(a->n + 1));
	*next = malloc(sizeof **next * (size_t)(a->nbufs + 1));
	if (!*head || !*next)
		return false;
	for (int p = 0; p < a->n; p++)
		(*head)[p] = -1;
	for (int b = a->nbufs - 1; b >= 0; b--) {
		int e = a->bufs[b].end;
		(*next)[b] = (*head)[e];
		(*head)[e] = b;
	}
	return true;
}

static bool assign_slots(Asg *a, BufferAssignment *ba)
{
	Slots s = {0};
	int *head = NULL, *next = NULL;
	bool ok = by_end(a, &head, &next);
	for (int b = 0; ok && b < a->nbufs; b++) /* never reused */
		if (a->info[b].kind == BUF_PARAMETER ||
		    a->info[b].kind == BUF_CONSTANT)
			ok = (a->bufs[b].slot =
				      new_slot(&s, a->bufs[b].bytes)) >= 0;
	int b = 0;
	for (int p = 0; ok && p < a->n; p++) {
		for (int d = p ? head[p - 1] : -1; ok && d >= 0; d = next[d])
			if (a->info[d].kind == BUF_TEMP)
				ok = free_slot(&s, a->bufs[d].slot);
		for (; ok && b < a->nbufs && a->bufs[b].start <= p; b++) {
			Buffer *bf = &a->bufs[b];
			if (bf->slot >= 0)
				continue;
			bf->slot = best_fit(&s, bf->bytes);
			if (bf->slot < 0)
				ok = (bf->slot = new_slot(&s, bf->bytes)) >= 0;
		}
	}
	int64_t *offset =
		ok ? malloc(sizeof *offset * (size_t)(s.nslots + 1)) : NULL;
	ok = ok && offset;
	int64_t at = 0;
	for (int k = 0; ok && k < s.nslots; k++) {
		offset[k] = at;
		at = shape_bytes_add(at, s.size[k]);
	}
	for (int i = 0; ok && i < a->nbufs; i++)
		a->bufs[i].offset = offset[a->bufs[i].slot];
	ba->nslots = s.nslots;
	ba->arena_bytes = at;
	free(offset);
	free(s.size);
	free(s.free);
	free(head);
	free(next);
	return ok;
}

/* --- totals --------------------------------------------------------------- */

/* Sizes stay exact; a sum past INT64_MAX saturates. */
static bool totals(Asg *a, BufferAssignment *ba)
{
	/* what starts at p, and what ended just before p (both
	 * saturating: a sum of sizes live at once) */
	int64_t *add = calloc((size_t)a->n + 1, sizeof *add);
	int64_t *sub = calloc((size_t)a->n + 1, sizeof *sub);
	if (!add || !sub) {
		free(add);
		free(sub);
		return false;
	}
	for (int b = 0; b < a->nbufs; b++) {
		const Buffer *bf = &a->bufs[b];
		add[bf->start] = shape_bytes_add(add[bf->start], bf->bytes);
		sub[bf->end + 1] = shape_bytes_add(sub[bf->end + 1], bf->bytes);
		ba->total_bytes = shape_bytes_add(ba->total_bytes, bf->bytes);
		ba->ntemps += a->info[b].kind == BUF_TEMP;
	}
	/* live stays exact until a sum saturates, and then the peak is
	 * INT64_MAX whatever follows (what ends before p was live before
	 * it, so sub[p] <= live) */
	int64_t live = 0;
	for (int p = 0; p < a->n; p++) {
		live -= sub[p];
		if (add[p] == INT64_MAX || add[p] > INT64_MAX - live) {
			ba->peak_bytes = INT64_MAX;
			ba->peak_at = p;
			break;
		}
		live += add[p];
		if (live > ba->peak_bytes) {
			ba->peak_bytes = live;
			ba->peak_at = p;
		}
	}
	free(add);
	free(sub);
	return true;
}

static void asg_free(Asg *a)
{
	free(a->order);
	free(a->pos);
	free(a->lfirst);
	free(a->lnum);
	free(a->leaves);
	free(a->bufs);
	free(a->info);
}

bool buffers_assign_info(const HloModule *m, BufferAssignment *ba,
			 BufferInfo **info)
{
	memset(ba, 0, sizeof *ba);
	if (info)
		*info = NULL;
	if (!m->entry || m->entry->n == 0)
		return true;
	Asg a = {.c = m->entry};
	bool ok = schedule(&a, m);
	if (ok) {
		a.lfirst = malloc(sizeof *a.lfirst * (size_t)a.n);
		a.lnum = malloc(sizeof *a.lnum * (size_t)a.n);
		ok = a.lfirst && a.lnum;
	}
	for (int p = 0; ok && p < a.n; p++) {
		value_leaves(&a, p);
		ok = !a.oom;
	}
	if (ok) {
		live_ranges(&a);
		ba->npositions = a.n;
		ok = assign_slots(&a, ba) && totals(&a, ba);
	}
	if (!ok) {
		asg_free(&a);
		memset(ba, 0, sizeof *ba);
		return false;
	}
	ba->bufs = a.bufs;
	ba->n = a.nbufs;
	a.bufs = NULL;
	if (info) {
		*info = a.info;
		a.info = NULL;
	}
	asg_free(&a);
	return true;
}

bool buffers_assign(const HloModule *m, BufferAssignment *ba)
{
	return buffers_assign_info(m, ba, NULL);
}

void buffers_free(BufferAssignment *ba)
{
	free(ba->bufs);
	memset(ba, 0, sizeof *ba);
}

const char *buffers_kind_name(BufferKind k)
{
	static const char *const names[] = {"temporary", "parameter",
					    "constant", "output"};
	return (unsigned)k < 4 ? names[k] : "?";
}

/* --- the lifetime chart ------------------------------------------------- */

enum {
	SVG_LEFT = 100,  /* room for the offset labels */
	SVG_TOP = 50,    /* room for the title */
	SVG_BOTTOM = 60, /* room for the position labels */
	SVG_LEGEND = 200,
	SVG_HEIGHT = 420, /* of the plot */
	SVG_TICKS = 4,
};

static const char *const svg_fill[] = {"#f28e2b", "#4e79a7", "#9c755f",
				       "#59a14f"};

/* Text for XML: markup characters as entities, control bytes as '?',
 * characters copied whole and a byte that starts no valid UTF-8
 * sequence as U+FFFD, so that the file is always well-formed. */
static void svg_text(StrBuf *b, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80)
			i += sb_put_char(b, s + i, n - i) - 1;
		else if (c == '&')
			sb_puts(b, "&amp;");
		else if (c == '<')
			sb_puts(b, "&lt;");
		else if (c == '>')
			sb_puts(b, "&gt;");
		else if (c == '"')
			sb_puts(b, "&quot;");
		else if (c < 0x20 || c == 0x7f)
			sb_putc(b, '?');
		else
			sb_putc(b, (char)c);
	}
}

static void svg_bytes(StrBuf *b, int64_t n)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
	if (n < 1024) {
		sb_printf(b, "%lld B", (long long)n);
		return;
	}
	double v = (double)n / 1024;
	int u = 0;
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	sb_printf(b, "%.1f %s", v, unit[u]);
}

typedef struct {
	double w;      /* plot width */
	double xs, ys; /* pixels per position, per byte */
	int64_t arena;
} SvgScale;

static double sx(const SvgScale *k, double p) { return SVG_LEFT + p * k->xs; }
static double sy(const SvgScale *k, double off)
{
	return SVG_TOP + off * k->ys;
}

static void svg_buffer(StrBuf *b, const SvgScale *k, const Buffer *bf,
		       const BufferInfo *in)
{
	double h = (double)bf->bytes * k->ys;
	BufferKind kind = in ? in->kind : BUF_TEMP;
	sb_printf(b,
		  "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
		  "fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\">",
		  sx(k, bf->start), sy(k, (double)bf->offset),
		  (bf->end - bf->start + 1) * k->xs, h < 0.5 ? 0.5 : h,
		  svg_fill[kind]);
	sb_puts(b, "<title>");
	svg_text(b, bf->def->name);
	if (in && in->leaf)
		sb_printf(b, "{%d}", in->leaf);
	sb_puts(b, ": ");
	svg_bytes(b, bf->bytes);
	sb_printf(b, " (%s), live %d-%d, slot %d, offset %lld</title></rect>\n",
		  buffers_kind_name(kind), bf->start, bf->end, bf->slot,
		  (long long)bf->offset);
}

static void svg_axes(StrBuf *b, const SvgScale *k, int npos)
{
	double x0 = SVG_LEFT, y0 = SVG_TOP + SVG_HEIGHT;
	sb_printf(b,
		  "<path d=\"M%.2f %d V%.2f H%.2f\" fill=\"none\" "
		  "stroke=\"#333\"/>\n",
		  x0, SVG_TOP, y0, x0 + k->w);
	for (int i = 0; i <= SVG_TICKS; i++) {
		int p = (int)((double)(npos - 1) * i / SVG_TICKS + 0.5);
		double x = sx(k, p + 0.5);
		sb_printf(b,
			  "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
			  "y2=\"%.2f\" stroke=\"#333\"/>"
			  "<text x=\"%.2f\" y=\"%.2f\" "
			  "text-anchor=\"middle\">%d</text>\n",
			  x, y0, x, y0 + 5, x, y0 + 18, p);
		int64_t off = (int64_t)((double)k->arena * i / SVG_TICKS);
		double y = sy(k, (double)off);
		sb_printf(b,
			  "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
			  "y2=\"%.2f\" stroke=\"#333\"/>"
			  "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">",
			  x0 - 5, y, x0, y, x0 - 8, y + 4);
		svg_bytes(b, off);
		sb_puts(b, "</text>\n");
	}
	sb_printf(b,
		  "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">"
		  "schedule position</text>\n",
		  x0 + k->w / 2, y0 + 40);
	sb_printf(b,
		  "<text transform=\"translate(20 %.2f) rotate(-90)\" "
		  "text-anchor=\"middle\">arena offset</text>\n",
		  SVG_TOP + SVG_HEIGHT / 2.0);
}

static void svg_legend(StrBuf *b, const SvgScale *k, const BufferAssignment *ba)
{
	double x = SVG_LEFT + k->w + 30;
	int y = SVG_TOP;
	for (int i = 0; i < 4; i++, y += 22)
		sb_printf(b,
			  "<rect x=\"%.2f\" y=\"%d\" width=\"14\" "
			  "height=\"14\" fill=\"%s\"/>"
			  "<text x=\"%.2f\" y=\"%d\">%s</text>\n",
			  x, y, svg_fill[i], x + 20, y + 12,
			  buffers_kind_name((BufferKind)i));
	static const char *const what[] = {"peak", "arena", "no reuse"};
	int64_t v[] = {ba->peak_bytes, ba->arena_bytes, ba->total_bytes};
	for (int i = 0; i < 3; i++, y += 18) {
		sb_printf(b, "<text x=\"%.2f\" y=\"%d\">%s ", x, y + 18,
			  what[i]);
		svg_bytes(b, v[i]);
		sb_puts(b, "</text>\n");
	}
	sb_printf(b, "<text x=\"%.2f\" y=\"%d\">%d buffers, %d slots</text>\n",
		  x, y + 18, ba->n, ba->nslots);
}

void buffers_svg(StrBuf *b, const BufferAssignment *ba, const BufferInfo *info,
		 const char *title)
{
	int npos = ba->npositions > 0 ? ba->npositions : 1;
	double w = npos * 10.0;
	w = w < 360 ? 360 : w > 1400 ? 1400 : w;
	SvgScale k = {w, w / npos, 0, ba->arena_bytes};
	k.ys = SVG_HEIGHT / (double)(ba->arena_bytes > 0 ? ba->arena_bytes : 1);
	sb_printf(b,
		  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		  "height=\"%d\" font-family=\"sans-serif\" "
		  "font-size=\"12\">\n"
		  "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		  SVG_LEFT + w + SVG_LEGEND, SVG_TOP + SVG_HEIGHT + SVG_BOTTOM);
	if (title) {
		sb_printf(b, "<text x=\"%d\" y=\"28\" font-size=\"15\">",
			  SVG_LEFT);
		svg_text(b, title);
		sb_puts(b, "</text>\n");
	}
	sb_puts(b, "<g>\n");
	for (int i = 0; i < ba->n; i++)
		svg_buffer(b, &k, &ba->bufs[i], info ? &info[i] : NULL);
	sb_puts(b, "</g>\n");
	svg_axes(b, &k, npos);
	svg_legend(b, &k, ba);
	sb_puts(b, "</svg>\n");
}
