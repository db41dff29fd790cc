/* shape.c - shape construction, comparison, size and printing. */
#include "shape.h"

#include <string.h>

Shape *shape_array(Arena *a, Dtype t, int rank, const int64_t *dims)
{
	Shape *s = arena_alloc(a, sizeof *s);
	if (!s)
		return NULL;
	s->type = t;
	s->rank = rank;
	if (rank > 0) {
		s->dims = arena_dup(a, dims, sizeof *dims * (size_t)rank);
		if (!s->dims)
			return NULL;
	}
	return s;
}

Shape *shape_scalar(Arena *a, Dtype t) { return shape_array(a, t, 0, NULL); }

Shape *shape_tuple(Arena *a, int n, Shape *const *elems)
{
	Shape *s = arena_alloc(a, sizeof *s);
	if (!s)
		return NULL;
	s->type = DT_TUPLE;
	s->ntuple = n;
	if (n > 0) {
		s->tuple = arena_dup(a, elems, sizeof *elems * (size_t)n);
		if (!s->tuple)
			return NULL;
	}
	return s;
}

static Layout *layout_clone(Arena *a, const Layout *l)
{
	Layout *c = arena_dup(a, l, sizeof *l);
	if (!c)
		return NULL;
	if (l->n)
		c->minor_to_major = arena_dup(a, l->minor_to_major,
					      sizeof(int) * (size_t)l->n);
	if (l->ext)
		c->ext = arena_strdup(a, l->ext);
	if (l->tiles)
		c->tiles = arena_strdup(a, l->tiles);
	return c;
}

Shape *shape_clone(Arena *a, const Shape *s)
{
	if (!s)
		return NULL;
	Shape *c = arena_dup(a, s, sizeof *s);
	if (!c)
		return NULL;
	if (s->rank) {
		c->dims = arena_dup(a, s->dims, sizeof *s->dims * (size_t)s->rank);
		if (s->dyn)
			c->dyn = arena_dup(a, s->dyn, (size_t)s->rank);
	}
	if (s->layout)
		c->layout = layout_clone(a, s->layout);
	if (s->ntuple) {
		c->tuple = arena_alloc(a, sizeof *c->tuple * (size_t)s->ntuple);
		if (!c->tuple)
			return NULL;
		for (int i = 0; i < s->ntuple; i++)
			c->tuple[i] = shape_clone(a, s->tuple[i]);
	}
	return c;
}

static DimKind dim_kind(const Shape *s, int i)
{
	return s->dyn ? (DimKind)s->dyn[i] : DIM_STATIC;
}

bool shape_same_dims(const Shape *a, const Shape *b)
{
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i] || dim_kind(a, i) != dim_kind(b, i))
			return false;
	return true;
}

bool shape_same_dims_but_ones(const Shape *a, const Shape *b)
{
	if (!shape_is_static_array(a) || !shape_is_static_array(b))
		return false;
	int i = 0, k = 0;
	for (;;) {
		while (i < a->rank && a->dims[i] == 1)
			i++;
		while (k < b->rank && b->dims[k] == 1)
			k++;
		if (i == a->rank || k == b->rank)
			return i == a->rank && k == b->rank;
		if (a->dims[i++] != b->dims[k++])
			return false;
	}
}

/* The next dim of s other than size 1 from the major end in memory,
 * after place *at (start *at at the shape's rank), as its place among
 * those dims in logical order; -1 past the last. */
static int next_major(const Shape *s, int *at)
{
	const Layout *l = s->layout;
	while (*at > 0) {
		--*at;
		int d = l && l->n == s->rank ? l->minor_to_major[*at]
					     : s->rank - 1 - *at;
		if (d < 0 || d >= s->rank || s->dims[d] == 1)
			continue;
		int k = 0;
		for (int j = 0; j < d; j++)
			k += s->dims[j] != 1;
		return k;
	}
	return -1;
}

bool shape_same_order_but_ones(const Shape *a, const Shape *b)
{
	if (!shape_same_dims_but_ones(a, b) || (a->layout && a->layout->ext) ||
	    (b->layout && b->layout->ext))
		return false;
	int i = a->rank, k = b->rank;
	for (;;) {
		int x = next_major(a, &i), y = next_major(b, &k);
		if (x != y)
			return false;
		if (x < 0)
			return true;
	}
}

static bool unbounded(const Shape *s, int i)
{
	return s->dims[i] < 0 || (s->dyn && s->dyn[i] == DIM_UNBOUNDED);
}

bool shape_matches(const Shape *a, const Shape *b)
{
	if (a->type != b->type)
		return false;
	if (a->type == DT_TUPLE) {
		if (a->ntuple != b->ntuple)
			return false;
		for (int i = 0; i < a->ntuple; i++)
			if (!shape_matches(a->tuple[i], b->tuple[i]))
				return false;
		return true;
	}
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (!unbounded(a, i) && !unbounded(b, i) &&
		    a->dims[i] != b->dims[i])
			return false;
	return true;
}

bool shape_compatible(const Shape *a, const Shape *b)
{
	if (a->type != b->type || a->buffer != b->buffer)
		return false;
	if (a->type == DT_TUPLE) {
		if (a->ntuple != b->ntuple)
			return false;
		for (int i = 0; i < a->ntuple; i++)
			if (!shape_compatible(a->tuple[i], b->tuple[i]))
				return false;
		return true;
	}
	return shape_same_dims(a, b);
}

static bool layout_is_default(const Layout *l)
{
	if (!l)
		return true;
	if (l->ext)
		return false;
	for (int i = 0; i < l->n; i++)
		if (l->minor_to_major[i] != l->n - 1 - i)
			return false;
	return true;
}

static bool layout_equal(const Layout *a, const Layout *b)
{
	if (!a || !b)
		return layout_is_default(a) && layout_is_default(b);
	if (a->n != b->n)
		return false;
	if (memcmp(a->minor_to_major, b->minor_to_major,
		   sizeof(int) * (size_t)a->n))
		return false;
	if (!a->ext || !b->ext)
		return a->ext == b->ext;
	return strcmp(a->ext, b->ext) == 0;
}

bool shape_equal(const Shape *a, const Shape *b)
{
	if (!shape_compatible(a, b))
		return false;
	if (a->type == DT_TUPLE) {
		for (int i = 0; i < a->ntuple; i++)
			if (!shape_equal(a->tuple[i], b->tuple[i]))
				return false;
		return true;
	}
	/* a scalar's layout has no dimensions, but may say more (S(1):
	 * another memory space) */
	return layout_equal(a->layout, b->layout);
}

bool shape_is_tuple(const Shape *s) { return s->type == DT_TUPLE; }

bool shape_is_array(const Shape *s) { return dtype_is_array(s->type); }

bool shape_is_scalar(const Shape *s)
{
	return shape_is_array(s) && s->rank == 0;
}

bool shape_is_dynamic(const Shape *s)
{
	if (s->type == DT_TUPLE) {
		for (int i = 0; i < s->ntuple; i++)
			if (shape_is_dynamic(s->tuple[i]))
				return true;
		return false;
	}
	if (!s->dyn)
		return false;
	for (int i = 0; i < s->rank; i++)
		if (s->dyn[i] != DIM_STATIC)
			return true;
	return false;
}

bool shape_is_static_array(const Shape *s)
{
	if (!dtype_is_array(s->type))
		return false;
	for (int i = 0; s->dyn && i < s->rank; i++)
		if (s->dyn[i] != DIM_STATIC)
			return false;
	return true;
}

static int64_t count_elements(const Shape *s)
{
	if (!shape_is_array(s))
		return 0;
	int64_t n = 1;
	for (int i = 0; i < s->rank; i++)
		if (s->dims[i] <= 0) /* zero, or '?' (no storage we know of) */
			return 0;
	/* n * d > XR_MAX_ELEMENTS exactly when n > XR_MAX_ELEMENTS / d, but
	 * without a division per dimension. */
	for (int i = 0; i < s->rank; i++)
		if (__builtin_mul_overflow(n, s->dims[i], &n) ||
		    n > XR_MAX_ELEMENTS)
			return -1;
	return n;
}

/* Counted once per shape: this runs in every cost and fusion estimate
 * (tens of times per instruction in a pipeline). */
int64_t shape_count_elements(const Shape *s)
{
	((Shape *)s)->elems_cache = count_elements(s) + 2;
	return s->elems_cache - 2;
}

static int64_t count_bytes(const Shape *s)
{
	if (s->type == DT_TUPLE) {
		int64_t total = 0; /* saturates */
		for (int i = 0; i < s->ntuple; i++) {
			int64_t b = shape_bytes(s->tuple[i]);
			if (b < 0)
				return -1;
			total = shape_bytes_add(total, b);
		}
		return total;
	}
	int64_t n = shape_elements(s);
	if (n < 0)
		return -1;
	return n * dtype_bytes(s->type);
}

static uint64_t hmix(uint64_t h, uint64_t x) { return (h ^ x) * 0x100000001b3u; }

static uint64_t hstr(uint64_t h, const char *s)
{
	if (!s)
		return hmix(h, 0x5a);
	for (; *s; s++)
		h = hmix(h, (unsigned char)*s);
	return hmix(h, 0xa5);
}

uint64_t shape_hash(const Shape *s)
{
	if (!s)
		return 1;
	if (s->hash_cache)
		return s->hash_cache;
	uint64_t h = hmix(hmix(0xcbf29ce484222325u, (uint64_t)s->type),
			  (uint64_t)s->rank);
	h = hmix(h, (uint64_t)s->buffer);
	for (int i = 0; i < s->rank; i++)
		h = hmix(hmix(h, (uint64_t)s->dims[i]),
			 s->dyn ? s->dyn[i] : DIM_STATIC);
	if (s->layout) {
		const Layout *l = s->layout;
		h = hmix(h, (uint64_t)l->n + 0x100);
		for (int i = 0; i < l->n; i++)
			h = hmix(h, (uint64_t)l->minor_to_major[i]);
		h = hstr(hstr(h, l->ext), l->tiles);
		h = hmix(hmix(h, (uint64_t)l->element_size_bits),
			 (uint64_t)l->memory_space);
	}
	h = hmix(h, (uint64_t)s->ntuple);
	for (int i = 0; i < s->ntuple; i++)
		h = hmix(h, shape_hash(s->tuple[i]));
	((Shape *)s)->hash_cache = h ? h : 1;
	return s->hash_cache;
}

int64_t shape_count_bytes(const Shape *s)
{
	((Shape *)s)->bytes_cache = (uint64_t)count_bytes(s) + 2;
	return (int64_t)(s->bytes_cache - 2);
}

bool layout_valid(const Layout *l, int rank)
{
	if (l->n != rank || rank > XR_MAX_RANK)
		return false;
	unsigned char seen[XR_MAX_RANK] = {0};
	for (int i = 0; i < rank; i++) {
		int d = l->minor_to_major[i];
		if (d < 0 || d >= rank || seen[d])
			return false;
		seen[d] = 1;
	}
	return true;
}

static void print_layout(StrBuf *b, const Shape *s)
{
	const Layout *l = s->layout;
	sb_putc(b, '{');
	for (int i = 0; i < s->rank; i++) {
		if (i)
			sb_putc(b, ',');
		sb_putint(b, l ? l->minor_to_major[i] : s->rank - 1 - i);
	}
	if (l && l->ext) {
		sb_putc(b, ':');
		sb_puts(b, l->ext);
	}
	sb_putc(b, '}');
}

static void print_array(StrBuf *b, const Shape *s, bool with_layout)
{
	sb_puts(b, dtype_name(s->type));
	sb_putc(b, '[');
	for (int i = 0; i < s->rank; i++) {
		if (i)
			sb_putc(b, ',');
		switch (dim_kind(s, i)) {
		case DIM_STATIC:
			sb_putint(b, s->dims[i]);
			break;
		case DIM_BOUNDED:
			sb_puts(b, "<=");
			sb_putint(b, s->dims[i]);
			break;
		case DIM_UNBOUNDED:
			sb_putc(b, '?');
			break;
		}
	}
	sb_putc(b, ']');
	if (with_layout && (s->rank > 0 || (s->layout && s->layout->ext)))
		print_layout(b, s);
}

void shape_print(StrBuf *b, const Shape *s, bool with_layout)
{
	if (s->buffer)
		sb_puts(b, "b(");
	if (s->type == DT_TUPLE) {
		sb_putc(b, '(');
		for (int i = 0; i < s->ntuple; i++) {
			if (i)
				sb_puts(b, ", ");
			if (i && i % 5 == 0) /* as XLA prints long tuples */
				sb_printf(b, "/*index=%d*/", i);
			shape_print(b, s->tuple[i], with_layout);
		}
		sb_putc(b, ')');
	} else {
		print_array(b, s, with_layout);
	}
	if (s->buffer)
		sb_putc(b, ')');
}

/* What print_layout writes for dimension i. */
static int printed_minor(const Shape *s, int i)
{
	return s->layout ? s->layout->minor_to_major[i] : s->rank - 1 - i;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Read field by field as shape_print reads them (keep the two alike). */
bool shape_print_same(const Shape *a, const Shape *b, bool with_layout)
{
	if (a == b)
		return true;
	if (a->buffer != b->buffer || a->type != b->type)
		return false;
	if (a->type == DT_TUPLE) {
		if (a->ntuple != b->ntuple)
			return false;
		for (int i = 0; i < a->ntuple; i++)
			if (!shape_print_same(a->tuple[i], b->tuple[i],
					      with_layout))
				return false;
		return true;
	}
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++) {
		DimKind k = dim_kind(a, i);
		if (k != dim_kind(b, i) ||
		    (k != DIM_UNBOUNDED && a->dims[i] != b->dims[i]))
			return false;
	}
	if (!with_layout)
		return true;
	const char *ea = a->layout ? a->layout->ext : NULL;
	const char *eb = b->layout ? b->layout->ext : NULL;
	if (a->rank == 0 && !ea && !eb)
		return true; /* neither prints a layout */
	for (int i = 0; i < a->rank; i++)
		if (printed_minor(a, i) != printed_minor(b, i))
			return false;
	return same_text(ea, eb);
}

const char *shape_str(Arena *a, const Shape *s)
{
	StrBuf b;
	sb_init(&b);
	shape_print(&b, s, false);
	char *r = arena_strdup(a, sb_str(&b));
	sb_free(&b);
	return r;
}
