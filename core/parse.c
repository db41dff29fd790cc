/* parse.c - XLA HLO text parser.
 *
 * Accepts XLA's long form (% sigils, typed operands, layouts, metadata) and
 * the short hand-written form (no %, no layouts, untyped operands, missing
 * shapes, missing ROOT, missing HloModule header, no ENTRY marker).
 * Instructions may refer to later instructions of the same computation and
 * computations may refer to later computations: references are resolved
 * when the computation (or module) ends. Missing shapes are then inferred
 * callee-first. The result is not verified (see verify.h). */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "lexer.h"
#include "print.h"

typedef struct {
	HloInstr *ins;
	int index;
	const char *name;
	int len;
	SrcLoc loc;
	const char *decl, *decl_end; /* "f32[4]{0}" written before the name */
} OpRef;

/* An operand as written: resolved (ins) or a name to resolve later. */
typedef struct {
	HloInstr *ins;
	const char *name;
	int len;
	SrcLoc loc;
	const char *decl, *decl_end;
} Operand;

typedef struct {
	HloInstr *ins;
	int attr;  /* index into ins->attrs */
	int slot;
	const char *name;
	int len;
	SrcLoc loc;
} CompRef;

/* Open addressing in the module's arena, at most half full. */
typedef struct {
	Shape **v;
	int n, cap;
} SharedShapes;

typedef struct {
	Lexer lx;
	const SrcFile *src;
	Diag *d;
	HloModule *m;
	bool failed, incomplete, err_at_end;
	OpRef *oprefs;
	int noprefs, cap_oprefs;
	CompRef *comprefs;
	int ncomprefs, cap_comprefs;
	int depth;     /* nesting of inline computations / operands */
	const char *layout_text; /* entry_computation_layout value as written */
	SrcLoc layout_loc;
	int inline_no; /* counter for generated computation names */
	bool single;   /* parse_instr_line: no forward references */
	/* array shapes written the short way, one Shape each (shapes do not
	 * change once an instruction holds one): shapes, set when first
	 * asked, points at own; a sub-parser (a copy of P) shares it */
	SharedShapes own, *shapes;
} P;

enum { MAX_NESTING = 64 };

/* ---- errors ------------------------------------------------------------ */

__attribute__((format(printf, 3, 4))) static bool
err_at(P *p, SrcLoc loc, const char *fmt, ...)
{
	if (p->failed)
		return false;
	p->failed = true;
	Lexer rest = p->lx;
	p->err_at_end = lex_eof(&rest); /* the text ran out: maybe unfinished */
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_error(p->d, p->src, loc, "%s", msg);
	return false;
}

#define err(p, ...) err_at(p, lex_loc(&(p)->lx), __VA_ARGS__)

/* Errors at end of input mark the parse incomplete: the REPL then asks for
 * continuation lines. */
static bool err_eof(P *p, const char *what)
{
	p->incomplete = true;
	if (p->lx.open_comment)
		return err_at(p, lex_loc_at(&p->lx, p->lx.open_comment),
			      "unterminated /* comment");
	return err(p, "unexpected end of input: expected %s", what);
}

static bool expect(P *p, char c)
{
	if (lex_accept(&p->lx, c))
		return true;
	if (lex_eof(&p->lx)) {
		char what[8] = {'\'', c, '\'', 0};
		return err_eof(p, what);
	}
	return err(p, "expected '%c'", c);
}

static const char *dupn(P *p, const char *s, int n)
{
	return arena_strndup(&p->m->arena, s, (size_t)n);
}

/* A short quote of the text at the cursor for messages. */
static const char *near(P *p, char *buf, size_t cap)
{
	lex_skip(&p->lx);
	size_t n = 0;
	const char *q = p->lx.p;
	while (q < p->lx.end && n + 1 < cap && *q != '\n' && n < 24) {
		unsigned char c = (unsigned char)*q++;
		buf[n++] = (c < 32 || c >= 127) ? '?' : (char)c;
	}
	buf[n] = 0;
	return buf;
}

/* ---- shapes ------------------------------------------------------------ */

static bool at_shape(P *p)
{
	int c = lex_peek(&p->lx);
	if (c == '(')
		return true;
	int n = lex_peek_ident(&p->lx, false);
	if (!n)
		return false;
	const char *s = p->lx.p;
	if (n == 1 && s[0] == 'b' && s + 1 < p->lx.end && s[1] == '(')
		return true;
	return dtype_parse(s, n) != DT_INVALID && s + n < p->lx.end &&
	       s[n] == '[';
}

static Shape *parse_shape(P *p);

static bool parse_dims(P *p, int64_t *dims, uint8_t *dyn, int *rank)
{
	*rank = 0;
	if (lex_accept(&p->lx, ']'))
		return true;
	for (;;) {
		if (*rank >= XR_MAX_RANK)
			return err(p, "too many dimensions (limit %d)", XR_MAX_RANK);
		DimKind k = DIM_STATIC;
		int64_t v = -1;
		if (lex_accept(&p->lx, '?')) {
			k = DIM_UNBOUNDED;
		} else {
			lex_skip(&p->lx);
			if (lex_accept_str(&p->lx, "<="))
				k = DIM_BOUNDED;
			if (!lex_int(&p->lx, &v))
				return err(p, "expected a dimension size");
			if (v < 0)
				return err(p, "negative dimension size %lld",
					   (long long)v);
		}
		dims[*rank] = v;
		dyn[(*rank)++] = (uint8_t)k;
		if (lex_accept(&p->lx, ']'))
			return true;
		if (!expect(p, ','))
			return false;
	}
}

static void extract_ext(Layout *l, Arena *a)
{
	const char *e = strstr(l->ext, "E(");
	if (e)
		l->element_size_bits = strtoll(e + 2, NULL, 10);
	const char *s = strstr(l->ext, "S(");
	if (s && (s == l->ext || s[-1] != 'C')) /* not SC( */
		l->memory_space = strtoll(s + 2, NULL, 10);
	const char *t = strstr(l->ext, "T(");
	if (t) {
		const char *q = t + 1;
		while (*q == '(') {
			const char *c = strchr(q, ')');
			if (!c)
				break;
			q = c + 1;
		}
		l->tiles = arena_strndup(a, t + 1, (size_t)(q - t - 1));
	}
}

/* Is the text after ':' in a layout what XLA's parser reads there: items
 * D(..), T(..)(..)..., L(n), #(type), *(type), E(n), S(n), SC(..)...,
 * P(shape), M(n), each at most once and in that order? Returns NULL, or
 * what is wrong. (The text is kept as written; only E, S and T are read
 * for what they mean.) */
static const char *ext_problem(const char *e)
{
	static const char *const keys[] = {"D", "T", "L",  "#", "*",
					   "E", "S", "SC", "P", "M"};
	int next = 0;
	while (*e) {
		int k = -1;
		for (int i = 0; i < 10; i++) {
			size_t n = strlen(keys[i]);
			if (!strncmp(e, keys[i], n) && e[n] == '(' &&
			    (k < 0 || n > strlen(keys[k])))
				k = i;
		}
		if (k < 0)
			return "an item XLA does not know (D, T, L, #, *, E, S, "
			       "SC, P, M)";
		if (k < next)
			return "items out of XLA's order (D, T, L, #, *, E, S, "
			       "SC, P, M) or given twice";
		e += strlen(keys[k]);
		/* T has one group per tile, SC one or more; the rest one */
		int groups = 0;
		while (*e == '(' && (groups == 0 || k == 1 || k == 7)) {
			const char *q = ++e;
			int depth = 1;
			while (*e && depth) {
				depth += (*e == '(') - (*e == ')');
				e++;
			}
			if (depth)
				return "an unclosed '('";
			size_t n = (size_t)(e - 1 - q);
			const char *ok = k == 1	 ? "0123456789,*"
					 : k == 7 ? "0123456789,:"
					 : k == 3 || k == 4
						 ? "abcdefghijklmnopqrstuvwxyz0123456789"
					 : k == 0 ? "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
						    "abcdefghijklmnopqrstuvwxyz,+~"
						  : "0123456789";
			if (k != 8 && (strspn(q, ok) < n || (!n && k != 0)))
				return "a value that is not what the item takes";
			groups++;
		}
		next = k == 7 ? k : k + 1;
	}
	return NULL;
}

static bool parse_layout(P *p, Shape *s)
{
	Arena *a = &p->m->arena;
	Layout *l = arena_alloc(a, sizeof *l);
	int m2m[XR_MAX_RANK];
	int n = 0;
	if (!l)
		return err(p, "out of memory");
	while (lex_peek(&p->lx) != '}' && lex_peek(&p->lx) != ':') {
		int64_t v;
		if (n >= XR_MAX_RANK || !lex_int(&p->lx, &v) || v < 0 ||
		    v >= XR_MAX_RANK)
			return err(p, "bad layout");
		m2m[n++] = (int)v;
		if (!lex_accept(&p->lx, ','))
			break;
	}
	if (lex_accept(&p->lx, ':')) {
		const char *st = p->lx.p;
		int depth = 0;
		while (p->lx.p < p->lx.end &&
		       (depth > 0 || *p->lx.p != '}')) {
			char c = *p->lx.p;
			depth += (c == '(' || c == '{') - (c == ')' || c == '}');
			if (depth < 0 || c == '\n')
				return err(p, "bad layout extras (unbalanced or "
					   "spanning lines)");
			lex_advance(&p->lx);
		}
		StrBuf b;
		sb_init(&b);
		for (const char *q = st; q < p->lx.p; q++)
			if (!isspace((unsigned char)*q))
				sb_putc(&b, *q);
		l->ext = b.oom ? NULL : arena_strdup(a, sb_str(&b));
		sb_free(&b);
		if (!l->ext)
			return err(p, "out of memory");
		const char *bad = ext_problem(l->ext);
		if (bad)
			return err_at(p, lex_loc_at(&p->lx, st),
				      "bad layout extras '%s': %s", l->ext, bad);
		extract_ext(l, a);
	}
	if (!expect(p, '}'))
		return false;
	l->n = n;
	l->minor_to_major = arena_dup(a, m2m, sizeof(int) * (size_t)(n ? n : 1));
	if (n != s->rank && !(n == 0 && s->rank > 0 && l->ext) && n != 0)
		return err(p, "layout {...} has %d entries for a rank-%d shape", n,
			   s->rank);
	if (n == 0 && s->rank > 0) {
		/* "{}" or "{:T(..)}" on an array: keep the default order. */
		l->minor_to_major = arena_alloc(a, sizeof(int) * (size_t)s->rank);
		for (int i = 0; i < s->rank; i++)
			l->minor_to_major[i] = s->rank - 1 - i;
		l->n = s->rank;
	}
	if (!layout_valid(l, s->rank))
		return err(p, "layout is not a permutation of the dimensions");
	bool dflt = !l->ext;
	for (int i = 0; i < l->n && dflt; i++)
		dflt = l->minor_to_major[i] == l->n - 1 - i;
	s->layout = dflt ? NULL : l; /* NULL means the default: prints the same */
	return true;
}

/* A layout follows "]" directly and holds digits, ':' or nothing:
 * "f32[] {" before a computation body is not a layout. */
static bool at_layout(P *p)
{
	const char *q = p->lx.p;
	if (q >= p->lx.end || *q != '{')
		return false;
	for (q++; q < p->lx.end && (*q == ' ' || *q == '\t'); q++)
		;
	return q < p->lx.end && (isdigit((unsigned char)*q) || *q == ':' ||
				 *q == '}');
}

enum { MAX_SHARED_SHAPES = 4096 }; /* slots: 2048 distinct shapes */

static uint64_t dims_hash(Dtype t, int rank, const int64_t *dims)
{
	uint64_t h = (uint64_t)t * 0x9e3779b97f4a7c15u ^ (uint64_t)rank;
	for (int i = 0; i < rank; i++)
		h = (h ^ (uint64_t)dims[i]) * 0x100000001b3u;
	return h ^ h >> 29;
}

static bool dims_same(const Shape *s, Dtype t, int rank, const int64_t *dims)
{
	return s->type == t && s->rank == rank &&
	       (!rank || !memcmp(s->dims, dims, sizeof *dims * (size_t)rank));
}

/* This parse's table of shared shapes, grown to have room while it may
 * grow. NULL on out of memory. */
static SharedShapes *shared_table(P *p)
{
	SharedShapes *h = p->shapes ? p->shapes : (p->shapes = &p->own);
	if (h->n * 2 >= h->cap && h->cap < MAX_SHARED_SHAPES) {
		int cap = h->cap ? h->cap * 2 : 64;
		Shape **n = arena_alloc(&p->m->arena, sizeof *n * (size_t)cap);
		if (!n)
			return NULL;
		for (int i = 0; i < h->cap; i++) {
			Shape *s = h->v[i];
			if (!s)
				continue;
			uint64_t j = dims_hash(s->type, s->rank, s->dims);
			while (n[j & (uint64_t)(cap - 1)])
				j++;
			n[j & (uint64_t)(cap - 1)] = s;
		}
		h->v = n;
		h->cap = cap;
	}
	return h;
}

/* The array shape t[dims] with no layout, dynamic dims or buffer mark:
 * the one this parse made already where there is one, so that a module's
 * instructions of one shape hold one Shape (its caches and dims stay in
 * the cache across the walks of passes and the verifier). Shapes past
 * the first MAX_SHARED_SHAPES / 2 distinct ones are not shared. NULL on
 * out of memory. */
static Shape *shared_shape(P *p, Dtype t, int rank, const int64_t *dims)
{
	SharedShapes *h = shared_table(p);
	if (!h)
		return NULL;
	uint64_t mask = (uint64_t)h->cap - 1;
	uint64_t j = dims_hash(t, rank, dims);
	for (Shape *s; (s = h->v[j & mask]); j++)
		if (dims_same(s, t, rank, dims))
			return s;
	Shape *s = shape_array(&p->m->arena, t, rank, dims);
	if (s && h->n * 2 < h->cap) { /* full: the shape is not shared */
		h->v[j & mask] = s;
		h->n++;
	}
	return s;
}

/* Fast path for the common "f32[64,128]{1,0}": static dims and no layout
 * or the default one, no spaces. NULL (cursor unmoved) means "use the
 * general path", which also produces every error message. */
static Shape *fast_array_shape(P *p)
{
	const char *q = p->lx.p, *end = p->lx.end, *t = q;
	while (q < end && q - t < 16 && *q != '[')
		q++;
	Dtype dt = dtype_parse(t, (int)(q - t));
	if (dt == DT_INVALID || q >= end)
		return NULL;
	int64_t dims[XR_MAX_RANK];
	int rank = 0;
	q++;
	while (q < end && *q != ']') {
		int64_t v = 0;
		const char *d0 = q;
		while (q < end && *q >= '0' && *q <= '9' && q - d0 < 15)
			v = v * 10 + (*q++ - '0');
		if (q == d0 || rank == XR_MAX_RANK || q >= end ||
		    (*q != ',' && *q != ']'))
			return NULL;
		dims[rank++] = v;
		q += *q == ',';
	}
	if (q >= end)
		return NULL;
	q++;
	if (q < end && *q == '{') { /* only the default layout */
		q++;
		for (int i = rank - 1; i >= 0; i--) {
			if (q >= end || *q != '0' + i || i > 9)
				return NULL;
			q++;
			if (i > 0 && (q >= end || *q++ != ','))
				return NULL;
		}
		if (q >= end || *q != '}')
			return NULL;
		q++;
	}
	Shape *s = shared_shape(p, dt, rank, dims);
	if (!s || shape_elements(s) < 0)
		return NULL;
	p->lx.p = q;
	return s;
}

static Shape *parse_array_shape(P *p)
{
	Shape *fast = fast_array_shape(p);
	if (fast)
		return fast;
	const char *t;
	int tn;
	SrcLoc loc = lex_loc(&p->lx);
	if (!lex_ident(&p->lx, &t, &tn))
		return err(p, "expected a shape"), NULL;
	Dtype dt = dtype_parse(t, tn);
	if (dt == DT_INVALID)
		return err_at(p, loc, "unknown element type '%.*s'", tn, t), NULL;
	if (!expect(p, '['))
		return NULL;
	int64_t dims[XR_MAX_RANK];
	uint8_t dyn[XR_MAX_RANK];
	int rank;
	if (!parse_dims(p, dims, dyn, &rank))
		return NULL;
	Shape *s = shape_array(&p->m->arena, dt, rank, dims);
	if (!s)
		return err(p, "out of memory"), NULL;
	for (int i = 0; i < rank; i++)
		if (dyn[i] != DIM_STATIC) {
			s->dyn = arena_dup(&p->m->arena, dyn, (size_t)rank);
			break;
		}
	if (shape_elements(s) < 0)
		return err_at(p, loc, "shape has more than 2^48 elements"), NULL;
	if (at_layout(p)) {
		lex_accept(&p->lx, '{');
		if (!parse_layout(p, s))
			return NULL;
	}
	return s;
}

static Shape *parse_shape(P *p)
{
	if (++p->depth > MAX_NESTING) {
		p->depth--;
		return err(p, "shape nested too deeply"), NULL;
	}
	Shape *s = NULL;
	int n = lex_peek_ident(&p->lx, false);
	if (n == 1 && *p->lx.p == 'b' && p->lx.p + 1 < p->lx.end &&
	    p->lx.p[1] == '(') {
		p->lx.p++;
		lex_accept(&p->lx, '(');
		s = parse_shape(p);
		/* a copy: the shape parsed may be one others hold */
		s = s && expect(p, ')') ? shape_clone(&p->m->arena, s) : NULL;
		if (s) {
			s->buffer = true;
			s->hash_cache = s->bytes_cache = 0;
		} else if (!p->failed) {
			err(p, "out of memory");
		}
	} else if (lex_accept(&p->lx, '(')) {
		/* as many elements as written (JAX's parameter and result
		 * tuples pass 1024) */
		Shape *few[64], **el = few;
		int k = 0, cap = 64;
		while (!p->failed && lex_peek(&p->lx) != ')') {
			if (k == cap) {
				Shape **more = cap < (1 << 24)
					? malloc(sizeof *more * (size_t)cap * 2)
					: NULL;
				if (!more) {
					err(p, "tuple has too many elements");
					break;
				}
				memcpy(more, el, sizeof *el * (size_t)k);
				if (el != few)
					free(el);
				el = more;
				cap *= 2;
			}
			el[k] = parse_shape(p);
			if (!el[k++])
				break;
			if (!lex_accept(&p->lx, ','))
				break;
		}
		if (!p->failed && expect(p, ')'))
			s = shape_tuple(&p->m->arena, k, el);
		if (el != few)
			free(el);
	} else {
		s = parse_array_shape(p);
	}
	p->depth--;
	return p->failed ? NULL : s;
}

/* ---- literals ---------------------------------------------------------- */

/* Reads one scalar token: number, inf, nan, true, false. */
static bool scalar_token(P *p, double *f, int64_t *i, uint64_t *u, bool *is_int,
			 uint64_t *payload)
{
	*payload = 0;
	lex_skip(&p->lx);
	const char *q = p->lx.p, *end = p->lx.end;
	char buf[80];
	size_t n = 0;
	while (q < end && n < sizeof buf - 1 &&
	       (isalnum((unsigned char)*q) || strchr("+-._", *q)))
		buf[n++] = *q++;
	buf[n] = 0;
	if (!n)
		return err(p, "expected a number");
	*is_int = false;
	if (!strcmp(buf, "true") || !strcmp(buf, "false")) {
		*i = buf[0] == 't';
		*u = (uint64_t)*i;
		*f = (double)*i;
		*is_int = true;
	} else if (!strcmp(buf, "inf") || !strcmp(buf, "+inf")) {
		*f = INFINITY;
	} else if (!strcmp(buf, "-inf")) {
		*f = -INFINITY;
	} else if (!strncmp(buf, "nan", 3) || !strncmp(buf, "-nan", 4)) {
		*f = buf[0] == '-' ? -NAN : NAN;
		if (q < end && *q == '(') { /* nan(0x...): the payload */
			char *e;
			errno = 0;
			*payload = strtoull(q + 1, &e, 16);
			if (e == q + 1 || e >= end || *e != ')' || errno ||
			    *payload == 0)
				return err(p, "bad NaN payload: expected "
					      "nan(0x followed by hex digits, "
					      "not all zero)");
			q = e + 1;
		}
	} else {
		char *e;
		errno = 0;
		bool neg = buf[0] == '-';
		if (!strpbrk(buf, ".eEn") || (strstr(buf, "0x") && !strchr(buf, '.'))) {
			*is_int = true;
			if (neg) {
				*i = strtoll(buf, &e, 0);
				*u = (uint64_t)*i;
			} else {
				*u = strtoull(buf, &e, 0);
				*i = (int64_t)*u;
			}
			*f = neg ? (double)*i : (double)*u;
		} else {
			*f = strtod(buf, &e);
		}
		if (*e || (errno && (errno != ERANGE || *is_int)))
			return err(p, errno == ERANGE ? "number '%s' is out of range"
						      : "bad number '%s'", buf);
		if (neg && *f == 0)
			*f = -0.0; /* "-0" keeps its sign for floats */
	}
	p->lx.p = q;
	return true;
}

static bool set_scalar(P *p, Literal *l, int64_t idx)
{
	Dtype t = l->shape->type;
	double f = 0, im = 0;
	int64_t i = 0;
	uint64_t u = 0;
	bool is_int;
	if (dtype_kind(t) == DK_COMPLEX) {
		if (!expect(p, '('))
			return false;
		uint64_t pl[2];
		lex_skip(&p->lx);
		SrcLoc cloc = lex_loc(&p->lx);
		if (!scalar_token(p, &f, &i, &u, &is_int, &pl[0]) ||
		    !expect(p, ',') ||
		    !scalar_token(p, &im, &i, &u, &is_int, &pl[1]) ||
		    !expect(p, ')'))
			return false;
		literal_set_c(l, idx, f, im);
		for (int k = 0; k < 2; k++)
			if (pl[k] && !literal_set_c_nan_payload(l, idx, k, pl[k]))
				return err_at(p, cloc,
					      "NaN payload does not fit %s",
					      dtype_name(t));
		return true;
	}
	lex_skip(&p->lx);
	SrcLoc loc = lex_loc(&p->lx);
	const char *start = p->lx.p;
	uint64_t payload;
	if (!scalar_token(p, &f, &i, &u, &is_int, &payload))
		return false;
	char num_text[48];
	snprintf(num_text, sizeof num_text, "%.*s",
		 (int)(p->lx.p - start < 40 ? p->lx.p - start : 40), start);
	switch (dtype_kind(t)) {
	case DK_PRED:
		literal_set_i64(l, idx, f != 0);
		break;
	case DK_SINT: {
		int bits = dtype_bits(t);
		int64_t lo = bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
		int64_t hi = bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
		if (!is_int)
			return err_at(p, loc, "expected an integer for %s",
				      dtype_name(t));
		if (i < lo || i > hi || (f > 0 && u > (uint64_t)INT64_MAX))
			return err_at(p, loc, "%s is out of range for %s", num_text,
				      dtype_name(t));
		literal_set_i64(l, idx, i);
		break;
	}
	case DK_UINT: {
		int bits = dtype_bits(t);
		uint64_t hi = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
		if (!is_int)
			return err_at(p, loc, "expected an integer for %s",
				      dtype_name(t));
		if (f < 0 || u > hi)
			return err_at(p, loc, "%s is out of range for %s", num_text,
				      dtype_name(t));
		literal_set_i64(l, idx, (int64_t)u);
		break;
	}
	default:
		literal_set_f64(l, idx, f);
		if (payload && !literal_set_nan_payload(l, idx, payload))
			return err_at(p, loc, "NaN payload of %s does not fit %s",
				      num_text, dtype_name(t));
	}
	return true;
}

typedef struct {
	Literal *l;
	int64_t next; /* elements written so far */
} LitFill;

/* Elements of dimension d: '{' e, e, ... '}' nested to the rank. */
static bool lit_dim(P *p, LitFill *lf, int d)
{
	const Shape *s = lf->l->shape;
	if (!expect(p, '{'))
		return false;
	int64_t count = 0;
	while (!p->failed && lex_peek(&p->lx) != '}') {
		if (d + 1 < s->rank && lex_peek(&p->lx) == '{') {
			if (!lit_dim(p, lf, d + 1))
				return false;
		} else {
			if (lf->next >= lf->l->n)
				return err(p, "too many elements in literal of shape %s",
					   shape_str(&p->m->arena, s));
			if (!set_scalar(p, lf->l, lf->next++))
				return false;
		}
		count++;
		if (!lex_accept(&p->lx, ','))
			break;
	}
	if (p->failed || !expect(p, '}'))
		return false;
	(void)count;
	return true;
}

static int64_t max_constant_bytes = XR_MAX_CONSTANT_BYTES;

void parse_set_max_constant_bytes(int64_t n)
{
	max_constant_bytes =
		n > 0 && n < XR_MAX_CONSTANT_BYTES ? n : XR_MAX_CONSTANT_BYTES;
}

static Literal *parse_literal(P *p, const Shape *s, const char *who);

static Literal *parse_tuple_literal(P *p, const Shape *s, const char *who)
{
	Literal *l = literal_new(&p->m->arena, s);
	if (!l)
		return err(p, "literal too large"), NULL;
	if (!expect(p, '('))
		return NULL;
	for (int i = 0; i < s->ntuple; i++) {
		Literal *e = parse_literal(p, s->tuple[i], who);
		if (!e)
			return NULL;
		l->tuple[i] = e;
		if (i + 1 < s->ntuple && !expect(p, ','))
			return NULL;
	}
	if (!expect(p, ')'))
		return NULL;
	return l;
}

static uint64_t seed_of(const char *who, const Shape *s)
{
	uint64_t h = namemap_hash(who, strlen(who));
	return h * 1000003u + (uint64_t)shape_elements(s);
}

static Literal *parse_literal(P *p, const Shape *s, const char *who)
{
	if (s->type == DT_TUPLE)
		return parse_tuple_literal(p, s, who);
	if (!dtype_is_array(s->type))
		return err(p, "constant of type %s", dtype_name(s->type)), NULL;
	SrcLoc loc = lex_loc(&p->lx);
	/* A few bytes of text ("constant(1)", "{...}") would otherwise make
	 * gigabytes of values: constants have a size cap of their own. */
	int64_t bytes = shape_bytes(s);
	if (bytes < 0 || bytes > max_constant_bytes)
		return err(p,
			   "constant '%s' of shape %s is larger than the %d "
			   "MiB "
			   "allowed for a constant in HLO text",
			   who, shape_str(&p->m->arena, s),
			   (int)(max_constant_bytes >> 20)),
		       NULL;
	Literal *l = literal_new(&p->m->arena, s);
	if (!l)
		return err(p, "constant of shape %s is too large to hold",
			   shape_str(&p->m->arena, s)), NULL;
	lex_skip(&p->lx);
	if (lex_accept_str(&p->lx, "{...}")) {
		l->elided = true;
		literal_fill_pseudo_random(l, seed_of(who, s));
		diag_warning(p->d, p->src, loc,
			     "constant '%s' was elided as {...}; filled with "
			     "deterministic pseudo-random values", who);
		return l;
	}
	if (s->rank == 0) {
		if (lex_peek(&p->lx) == '{') { /* {5} for a scalar: tolerated */
			lex_accept(&p->lx, '{');
			if (!set_scalar(p, l, 0) || !expect(p, '}'))
				return NULL;
			return l;
		}
		return set_scalar(p, l, 0) ? l : NULL;
	}
	if (lex_peek(&p->lx) != '{') {
		/* One value for an array: XLA's parser sets the first
		 * element and leaves the others 0 (s8[4] constant(1) is
		 * {1, 0, 0, 0}), and so does this one, saying so. */
		if (l->n == 0) { /* f32[0,3] constant(1): parse, keep nothing */
			Shape *one = shape_scalar(&p->m->arena, s->type);
			Literal *tmp = one ? literal_new(&p->m->arena, one) : NULL;
			return tmp && set_scalar(p, tmp, 0) ? l : NULL;
		}
		if (!set_scalar(p, l, 0))
			return NULL;
		if (l->n > 1)
			diag_warning(p->d, p->src, loc,
				     "constant '%s' of shape %s has one value: "
				     "as in XLA, it is the first element and "
				     "the others are 0 (give every value in "
				     "braces)",
				     who, shape_str(&p->m->arena, s));
		return l;
	}
	LitFill lf = {l, 0};
	if (!lit_dim(p, &lf, 0))
		return NULL;
	if (lf.next != l->n)
		return err_at(p, loc, "literal has %lld elements, shape %s needs %lld",
			      (long long)lf.next, shape_str(&p->m->arena, s),
			      (long long)l->n), NULL;
	return l;
}

/* ---- attribute values -------------------------------------------------- */

static bool parse_int_list(P *p, int64_t **v, int *n, char open, char close)
{
	int64_t buf[XR_MAX_RANK * 4];
	int k = 0;
	if (!expect(p, open))
		return false;
	while (lex_peek(&p->lx) != close) {
		if (k == (int)(sizeof buf / sizeof *buf))
			return err(p, "list too long");
		if (!lex_int(&p->lx, &buf[k++]))
			return err(p, "expected an integer");
		if (!lex_accept(&p->lx, ','))
			break;
	}
	if (!expect(p, close))
		return false;
	*n = k;
	*v = k ? arena_dup(&p->m->arena, buf, sizeof *buf * (size_t)k) : NULL;
	return true;
}

static bool parse_bool(P *p, bool *b)
{
	const char *s;
	int n;
	if (!lex_ident(&p->lx, &s, &n))
		return err(p, "expected true or false");
	if (n == 4 && !memcmp(s, "true", 4))
		*b = true;
	else if (n == 5 && !memcmp(s, "false", 5))
		*b = false;
	else
		return err(p, "expected true or false, got '%.*s'", n, s);
	return true;
}

static bool parse_slice(P *p, HloAttr *at)
{
	SliceDim v[XR_MAX_RANK];
	int k = 0;
	if (!expect(p, '{'))
		return false;
	while (lex_peek(&p->lx) == '[') {
		lex_accept(&p->lx, '[');
		if (k == XR_MAX_RANK)
			return err(p, "too many slice dimensions");
		SliceDim *s = &v[k++];
		s->stride = 1;
		if (!lex_int(&p->lx, &s->start) || !expect(p, ':') ||
		    !lex_int(&p->lx, &s->limit))
			return err(p, "expected [start:limit] or [start:limit:stride]");
		if (lex_accept(&p->lx, ':') && !lex_int(&p->lx, &s->stride))
			return err(p, "expected a slice stride");
		if (!expect(p, ']'))
			return false;
		if (!lex_accept(&p->lx, ','))
			break;
	}
	if (!expect(p, '}'))
		return false;
	at->u.slice.n = k;
	at->u.slice.v = arena_dup(&p->m->arena, v, sizeof *v * (size_t)(k ? k : 1));
	return true;
}

/* Reads an integer from a raw string; advances *q. */
static bool raw_int(const char **q, const char *end, int64_t *v)
{
	const char *s = *q;
	char buf[32];
	size_t n = 0;
	if (s < end && (*s == '-' || *s == '+'))
		buf[n++] = *s++;
	while (s < end && isdigit((unsigned char)*s) && n < sizeof buf - 1)
		buf[n++] = *s++;
	buf[n] = 0;
	if (n == 0 || !isdigit((unsigned char)buf[n - 1]))
		return false;
	errno = 0;
	*v = strtoll(buf, NULL, 10);
	*q = s;
	return errno == 0;
}

/* "a_b[_c]x..." groups of up to max ints joined by '_'; groups by 'x'. */
static int raw_groups(const char *s, const char *end, int64_t (*g)[3],
		      int *glen, int max)
{
	int k = 0;
	while (s < end) {
		if (k == XR_MAX_RANK)
			return -1;
		int j = 0;
		for (;;) {
			if (j == max || !raw_int(&s, end, &g[k][j]))
				return -1;
			j++;
			if (s < end && *s == '_') {
				s++;
				continue;
			}
			break;
		}
		glen[k++] = j;
		if (s < end && *s == 'x') {
			if (++s == end)
				return -1; /* "2x" */
		} else if (s < end) {
			return -1;
		}
	}
	return k;
}

static bool parse_padding(P *p, HloAttr *at, const char *s, const char *end)
{
	int64_t g[XR_MAX_RANK][3];
	int glen[XR_MAX_RANK];
	int k = raw_groups(s, end, g, glen, 3);
	if (k < 0)
		return err(p, "bad padding: expected lo_hi[_interior]x...");
	PadDim *v = arena_alloc(&p->m->arena, sizeof *v * (size_t)(k ? k : 1));
	for (int i = 0; i < k; i++) {
		if (glen[i] < 2)
			return err(p, "bad padding: expected lo_hi[_interior]");
		v[i] = (PadDim){g[i][0], g[i][1], glen[i] == 3 ? g[i][2] : 0};
		if (v[i].interior < 0)
			return err(p, "negative interior padding");
	}
	at->u.pad.n = k;
	at->u.pad.v = v;
	return true;
}

typedef enum { WF_SIZE, WF_STRIDE, WF_PAD, WF_LHS, WF_RHS, WF_REV } WinField;

static bool window_field(P *p, WindowDim *w, int *nw, WinField f,
			 const char *s, const char *end)
{
	int64_t g[XR_MAX_RANK][3];
	int glen[XR_MAX_RANK];
	int k = raw_groups(s, end, g, glen, f == WF_PAD ? 2 : 1);
	if (k < 0 || (*nw && k != *nw))
		return err(p, "bad window field '%.*s'", (int)(end - s), s);
	for (int i = 0; i < k; i++) {
		if ((f == WF_PAD) != (glen[i] == 2))
			return err(p, "bad window field '%.*s'", (int)(end - s), s);
		switch (f) {
		case WF_SIZE: w[i].size = g[i][0]; break;
		case WF_STRIDE: w[i].stride = g[i][0]; break;
		case WF_PAD: w[i].pad_lo = g[i][0]; w[i].pad_hi = g[i][1]; break;
		case WF_LHS: w[i].lhs_dilate = g[i][0]; break;
		case WF_RHS: w[i].rhs_dilate = g[i][0]; break;
		case WF_REV: w[i].reversal = g[i][0] != 0; break;
		}
	}
	*nw = k;
	return true;
}

static bool parse_window(P *p, HloAttr *at, const char *s, const char *end)
{
	static const char *keys[] = {"size", "stride", "pad", "lhs_dilate",
				     "rhs_dilate", "rhs_reversal"};
	WindowDim w[XR_MAX_RANK];
	for (int i = 0; i < XR_MAX_RANK; i++)
		w[i] = (WindowDim){1, 1, 0, 0, 1, 1, false};
	int nw = 0;
	if (s >= end || *s != '{' || end[-1] != '}')
		return err(p, "window must be {...}");
	s++;
	end--;
	while (s < end) {
		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s >= end)
			break;
		const char *eq = memchr(s, '=', (size_t)(end - s));
		if (!eq)
			return err(p, "bad window: expected key=value");
		const char *ve = eq + 1;
		while (ve < end && !isspace((unsigned char)*ve))
			ve++;
		int f = -1;
		for (int i = 0; i < 6; i++)
			if ((size_t)(eq - s) == strlen(keys[i]) &&
			    !memcmp(s, keys[i], (size_t)(eq - s)))
				f = i;
		if (f < 0)
			return err(p, "unknown window field '%.*s'", (int)(eq - s), s);
		if (!window_field(p, w, &nw, (WinField)f, eq + 1, ve))
			return false;
		s = ve;
	}
	at->u.window.n = nw;
	at->u.window.v = arena_dup(&p->m->arena, w, sizeof *w * (size_t)(nw ? nw : 1));
	return true;
}

/* One part of dim_labels: letters a/b name the two special dims, digits
 * the spatial dims in order. */
static bool labels_part(const char *s, int n, char c1, char c2, int64_t *d1,
			int64_t *d2, int64_t *sp, int *nsp)
{
	*d1 = *d2 = -1;
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] == c1)
			*d1 = i;
		else if (s[i] == c2)
			*d2 = i;
		else if (isdigit((unsigned char)s[i]) && s[i] - '0' < n)
			sp[s[i] - '0'] = i, k++;
		else if (s[i] != '?')
			return false;
	}
	if (*d1 < 0 || *d2 < 0)
		return false;
	if (*nsp >= 0 && *nsp != k)
		return false;
	*nsp = k;
	for (int i = 0; i < k; i++)
		if (sp[i] < 0)
			return false;
	return true;
}

static bool parse_dim_labels(P *p, HloAttr *at, const char *s, const char *end)
{
	Arena *a = &p->m->arena;
	const char *u = memchr(s, '_', (size_t)(end - s));
	const char *ar = u ? strstr(u, "->") : NULL;
	if (!u || !ar || ar >= end)
		return err(p, "bad dim_labels: expected like b01f_01io->b01f");
	ConvDims *c = arena_alloc(a, sizeof *c);
	int64_t in_sp[16], k_sp[16], o_sp[16];
	for (int i = 0; i < 16; i++)
		in_sp[i] = k_sp[i] = o_sp[i] = -1;
	int ns = -1;
	int n1 = (int)(u - s), n2 = (int)(ar - u - 1), n3 = (int)(end - ar - 2);
	if (n1 > 12 || n2 > 12 || n3 > 12 ||
	    !labels_part(s, n1, 'b', 'f', &c->in_batch, &c->in_feature, in_sp, &ns) ||
	    !labels_part(u + 1, n2, 'i', 'o', &c->k_in_feature, &c->k_out_feature,
			 k_sp, &ns) ||
	    !labels_part(ar + 2, n3, 'b', 'f', &c->out_batch, &c->out_feature,
			 o_sp, &ns))
		return err(p, "bad dim_labels '%.*s'", (int)(end - s), s);
	c->nspatial = ns;
	c->in_spatial = arena_dup(a, in_sp, sizeof in_sp);
	c->k_spatial = arena_dup(a, k_sp, sizeof k_sp);
	c->out_spatial = arena_dup(a, o_sp, sizeof o_sp);
	c->text = arena_strndup(a, s, (size_t)(end - s));
	at->u.conv = c;
	return true;
}

/* Raw values are kept with comments dropped and whitespace runs (outside
 * strings) folded to one space, so multi-line values print on one line. */
static const char *normalise_raw(P *p, const char *s, const char *end)
{
	StrBuf b;
	sb_init(&b);
	bool space = false;
	for (const char *q = s; q < end;) {
		if (*q == '"') {
			const char *e = q + 1;
			while (e < end && *e != '"')
				e += (*e == '\\' && e + 1 < end) ? 2 : 1;
			e += e < end;
			if (space && b.len)
				sb_putc(&b, ' ');
			space = false;
			sb_putn(&b, q, (size_t)(e - q));
			q = e;
		} else if (q + 1 < end && q[0] == '/' && q[1] == '*') {
			const char *e = lex_comment_end(q + 2, end);
			q = e ? e + 2 : end;
			space = true;
		} else if (q + 1 < end && q[0] == '/' && q[1] == '/') {
			while (q < end && *q != '\n')
				q++;
			space = true;
		} else if (isspace((unsigned char)*q)) {
			space = true;
			q++;
		} else {
			if (space && b.len && !strchr("}])", *q) &&
			    !strchr("{[(", b.s[b.len - 1]))
				sb_putc(&b, ' ');
			else if (space && b.len && (*q == '}' || b.s[b.len - 1] == '{'))
				sb_putc(&b, ' ');
			space = false;
			sb_putc(&b, *q++);
		}
	}
	/* (NULL when out of memory: not the text cut short) */
	const char *r = b.oom ? NULL : arena_strdup(&p->m->arena, sb_str(&b));
	sb_free(&b);
	return r;
}

static bool parse_comp_body(P *p, HloComp *c);

/* to_apply={ ... } : an inline computation, hoisted with a made-up name. */
static HloComp *parse_inline_comp(P *p, const HloInstr *user)
{
	char base[300];
	snprintf(base, sizeof base, "%.200s.inline", user->name);
	const char *name = hlo_module_unique_comp_name(p->m, base);
	HloComp *c = hlo_comp_new(p->m, name);
	if (!c)
		return err(p, "out of memory"), NULL;
	c->inlined = true;
	c->loc = lex_loc(&p->lx);
	if (!expect(p, '{'))
		return NULL;
	if (++p->depth > MAX_NESTING)
		return err(p, "computations nested too deeply"), NULL;
	bool ok = parse_comp_body(p, c);
	p->depth--;
	return ok ? c : NULL;
}

static bool add_compref(P *p, HloInstr *ins, HloAttr *at, int slot)
{
	const char *s;
	int n;
	SrcLoc loc = lex_loc(&p->lx);
	if (lex_peek(&p->lx) == '{' && hlo_attr_kind(at->key) == AV_COMP) {
		HloComp *c = parse_inline_comp(p, ins);
		at->u.comps.v[slot] = c;
		return c != NULL;
	}
	if (!lex_name(&p->lx, &s, &n))
		return err(p, "expected a computation name");
	void *v = arena_grow(&p->m->arena, p->comprefs, sizeof *p->comprefs,
			     &p->cap_comprefs, p->ncomprefs + 1);
	if (!v)
		return err(p, "out of memory");
	p->comprefs = v;
	p->comprefs[p->ncomprefs++] =
		(CompRef){ins, (int)(at - ins->attrs), slot, s, n, loc};
	return true;
}

/* Counts the names in a {%a, %b, ...} list ahead of the cursor. */
static int count_list(P *p)
{
	const char *e = lex_scan_value(&p->lx); /* the whole {...} */
	int n = 1;
	for (const char *q = p->lx.p; e && q < e; q++)
		n += *q == ',';
	return n;
}

static bool parse_comps(P *p, HloInstr *ins, HloAttr *at)
{
	bool list = hlo_attr_kind(at->key) == AV_COMPS;
	int k = 0, cap = list && lex_peek(&p->lx) == '{' ? count_list(p) : 1;
	at->u.comps.v = arena_alloc(&p->m->arena, sizeof(HloComp *) * (size_t)cap);
	if (!at->u.comps.v)
		return err(p, "out of memory");
	if (!list) {
		at->u.comps.n = 1;
		return add_compref(p, ins, at, 0);
	}
	if (!expect(p, '{'))
		return false;
	while (lex_peek(&p->lx) != '}') {
		if (k == cap)
			return err(p, "expected '}' after the computations");
		at->u.comps.n = k + 1;
		if (!add_compref(p, ins, at, k++))
			return false;
		if (!lex_accept(&p->lx, ','))
			break;
	}
	at->u.comps.n = k;
	return expect(p, '}');
}

/* A raw value may go on after a space with a bracketed part, as in
 * replica_groups=mesh['a'=2] {'a'}: a '{' or '[' never starts an
 * instruction, so taking it is safe. */
static const char *raw_value_end(P *p, const HloAttr *at, const char *e)
{
	/* literal=s32[] 1 (custom-call SetBound): a shape, a space, a value */
	bool two_part = !strcmp(at->name, "literal");
	for (;;) {
		const char *q = e;
		while (q < p->lx.end && (*q == ' ' || *q == '\t'))
			q++;
		if (q >= p->lx.end || (*q != '{' && *q != '[' && !two_part) ||
		    *q == ',' || *q == '\n')
			return e;
		two_part = false;
		Lexer tmp = p->lx;
		tmp.p = q;
		const char *e2 = lex_scan_value(&tmp);
		if (!e2 || e2 == q)
			return e;
		e = e2;
	}
}

/* Parses the value of attribute at, which starts at the cursor. */
static bool parse_attr_value(P *p, HloInstr *ins, HloAttr *at)
{
	lex_skip(&p->lx);
	AttrValKind kind = hlo_attr_kind(at->key);
	if (kind == AV_COMP || kind == AV_COMPS)
		return parse_comps(p, ins, at);
	if (kind == AV_INTS)
		return parse_int_list(p, &at->u.ints.v, &at->u.ints.n, '{', '}');
	if (kind == AV_SLICE)
		return parse_slice(p, at);
	const char *s = p->lx.p, *e = lex_scan_value(&p->lx);
	if (!e) {
		p->incomplete = true;
		return err(p, "unterminated value of attribute '%s'", at->name);
	}
	if (e == s)
		return err(p, "missing value for attribute '%s'", at->name);
	int n = (int)(e - s);
	bool ok = true;
	switch (kind) {
	case AV_INT:
		ok = lex_int(&p->lx, &at->u.i) && p->lx.p == e;
		if (!ok)
			return err_at(p, lex_loc_at(&p->lx, s),
				      "attribute '%s' needs an integer", at->name);
		break;
	case AV_BOOL:
		return parse_bool(p, &at->u.b);
	case AV_FLOAT: {
		char buf[64];
		char *x;
		snprintf(buf, sizeof buf, "%.*s", n, s);
		at->u.f = strtod(buf, &x);
		if (*x)
			return err(p, "attribute '%s' needs a number", at->name);
		break;
	}
	case AV_ENUM:
		for (int i = 0; i < n; i++)
			if (!lex_is_ident_char((unsigned char)s[i]))
				return err(p, "attribute '%s' needs a word", at->name);
		at->u.s = dupn(p, s, n);
		break;
	case AV_STRING:
		if (n < 2 || s[0] != '"' || s[n - 1] != '"')
			return err(p, "attribute '%s' needs a \"string\"", at->name);
		at->u.s = dupn(p, s + 1, n - 2);
		break;
	case AV_PADDING:
		ok = parse_padding(p, at, s, e);
		break;
	case AV_WINDOW:
		ok = parse_window(p, at, s, e);
		break;
	case AV_DIMLABELS:
		ok = parse_dim_labels(p, at, s, e);
		break;
	default:
		e = raw_value_end(p, at, e);
		at->u.s = normalise_raw(p, s, e);
		if (!at->u.s)
			ok = err(p, "out of memory");
		break;
	}
	while (p->lx.p < e)
		lex_advance(&p->lx);
	return ok && !p->failed;
}

/* Is s[0..n) a word of the space-separated list? Each word's first
 * letter is found by memchr and the rest compared only there: this runs
 * for every attribute a module has, and a word-by-word walk cost more
 * than the rest of reading the attribute. */
static bool in_list(const char *list, const char *s, int n)
{
	if (n <= 0)
		return false;
	const char *end = list + strlen(list);
	for (const char *q = list;
	     (q = memchr(q, s[0], (size_t)(end - q))) != NULL; q++)
		if ((q == list || q[-1] == ' ') && end - q >= n &&
		    !memcmp(q, s, (size_t)n) && (q[n] == ' ' || q[n] == 0))
			return true;
	return false;
}

/* Does ins take the key (opattrs.def)? "xyz-start" sugar takes xyz's keys
 * and async-start's but calls; "xyz-update", "xyz-done" theirs but calls.
 * The opcode's own (short, often empty) list first: most keys are there
 * or among the few every instruction takes. */
static bool takes_attr(const HloInstr *ins, const char *s, int n)
{
	if (ins->async_wrapped != HLO_INVALID) {
		if (ins->op == HLO_ASYNC_START &&
		    in_list(hlo_opcode_attrs(ins->async_wrapped), s, n))
			return true;
		if (n == 5 && !memcmp(s, "calls", 5))
			return in_list(hlo_opcode_attrs(HLO_INVALID), s, n);
	}
	return in_list(hlo_opcode_attrs(ins->op), s, n) ||
	       in_list(hlo_opcode_attrs(HLO_INVALID), s, n);
}

/* A key some opcode takes, or one the IR types (attrs.def). */
static bool known_attr(AttrKey k, const char *s, int n)
{
	if (k != A_RAW)
		return true;
	for (int op = 0; op < HLO_OPCODE_COUNT; op++)
		if (in_list(hlo_opcode_attrs((HloOpcode)op), s, n))
			return true;
	return false;
}

/* "slice", or "negate-start" for async sugar. */
static void op_spelling(const HloInstr *ins, char *buf, size_t cap)
{
	const char *name = hlo_opcode_name(ins->op);
	if (ins->async_wrapped != HLO_INVALID)
		snprintf(buf, cap, "%s%s", hlo_opcode_name(ins->async_wrapped),
			 strchr(name, '-'));
	else
		snprintf(buf, cap, "%s", name);
}

/* ", "-separated keys ins takes of its own, as takes_attr has them. */
static void own_attrs(const HloInstr *ins, char *buf, size_t cap)
{
	const char *lists[2] = {hlo_opcode_attrs(ins->op), ""};
	if (ins->async_wrapped != HLO_INVALID && ins->op == HLO_ASYNC_START)
		lists[1] = hlo_opcode_attrs(ins->async_wrapped);
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < 2; i++)
		for (const char *q = lists[i]; *q; q += *q == ' ') {
			int n = (int)strcspn(q, " ");
			bool dup = i == 1 && in_list(lists[0], q, n);
			if (!dup && takes_attr(ins, q, n) && len < cap)
				len += (size_t)snprintf(buf + len, cap - len,
							"%s%.*s",
							len ? ", " : "", n, q);
			q += n;
		}
}

/* XLA refuses a key its opcode does not take, and one it does not know.
 * The first is refused here too; the second is kept as written, with a
 * warning: newer XLA dumps carry keys this table has not met yet. */
static bool check_attr(P *p, HloInstr *ins, AttrKey k, const char *s, int n,
		       SrcLoc loc)
{
	if (takes_attr(ins, s, n))
		return true;
	if (!known_attr(k, s, n)) {
		diag_warning(
			p->d, p->src, loc,
			"attribute '%.*s' is unknown to this parser (XLA's "
			"parser refuses unknown attributes); kept as written",
			n, s);
		return true;
	}
	char op[64], own[512];
	op_spelling(ins, op, sizeof op);
	own_attrs(ins, own, sizeof own);
	if (!own[0])
		return err_at(
			p, loc,
			"attribute '%.*s' does not apply to %s (%s has no "
			"attributes of its own)",
			n, s, op, op);
	return err_at(p, loc,
		      "attribute '%.*s' does not apply to %s (%s takes: %s)", n,
		      s, op, op, own);
}

static bool parse_attrs(P *p, HloInstr *ins)
{
	while (lex_accept(&p->lx, ',')) {
		const char *s;
		int n;
		lex_skip(&p->lx);
		SrcLoc loc = lex_loc(&p->lx); /* at the name, as XLA has it */
		if (!lex_ident(&p->lx, &s, &n))
			return lex_eof(&p->lx) ? err_eof(p, "an attribute")
					       : err(p, "expected an attribute name");
		if (!expect(p, '='))
			return false;
		AttrKey k = hlo_attr_parse(s, n);
		if (!check_attr(p, ins, k, s, n, loc))
			return false;
		const char *key = k == A_RAW ? dupn(p, s, n) : hlo_attr_name(k);
		if (k == A_RAW ? hlo_attr_find_raw(ins, key) != NULL
			       : hlo_attr_find(ins, k) != NULL)
			return err_at(p, loc, "attribute '%s' given twice", key);
		HloAttr *at = hlo_attr_set(ins, k, key);
		if (!at)
			return err(p, "out of memory");
		if (!parse_attr_value(p, ins, at))
			return false;
	}
	return true;
}

/* ---- instructions ------------------------------------------------------ */

static HloInstr *parse_instr_rest(P *p, HloComp *c, const char *name,
				  SrcLoc loc, Shape *shape, bool nested);

static bool add_opref(P *p, HloInstr *ins, int i, const Operand *o)
{
	void *v = arena_grow(&p->m->arena, p->oprefs, sizeof *p->oprefs,
			     &p->cap_oprefs, p->noprefs + 1);
	if (!v)
		return err(p, "out of memory");
	p->oprefs = v;
	p->oprefs[p->noprefs++] =
		(OpRef){ins, i, o->name, o->len, o->loc, o->decl, o->decl_end};
	return true;
}

/* Skips the shape written before an operand name ("f32[4]{0} %a"): the
 * operand's own shape is what counts, so this one is not built. Nested
 * operands ("f32[] constant(0)") need theirs: returns false to say "parse
 * it" when no '%' name follows. */
static bool skip_operand_shape(P *p)
{
	const char *save = p->lx.p, *q = lex_scan_value(&p->lx);
	if (!q)
		return false;
	while (q < p->lx.end && (*q == ' ' || *q == '\t'))
		q++;
	if (q >= p->lx.end || *q != '%' || memchr(save, '\n', (size_t)(q - save)) ||
	    memchr(save, '/', (size_t)(q - save))) {
		p->lx.p = save;
		return false;
	}
	p->lx.p = q;
	return true;
}

/* At "%1abc": a name XLA refuses (its names start with a letter or
 * '_'), said as such rather than as a missing name. */
static bool digit_name(P *p)
{
	const char *q = p->lx.p;
	return q + 1 < p->lx.end && q[0] == '%' && q[1] >= '0' && q[1] <= '9';
}

/* An operand: [shape] name, or [shape] opcode(...) nested. */
static bool parse_operand(P *p, HloComp *c, HloInstr **out, const char **nm,
			  int *nn, SrcLoc *loc, const char **decl,
			  const char **decl_end)
{
	Shape *sh = NULL;
	*out = NULL;
	*decl = *decl_end = NULL;
	if (at_shape(p)) {
		*decl = p->lx.p;
		if (!skip_operand_shape(p) && !(sh = parse_shape(p)))
			return false;
		*decl_end = p->lx.p;
	}
	*loc = lex_loc(&p->lx);
	if (!lex_name(&p->lx, nm, nn))
		return lex_eof(&p->lx) ? err_eof(p, "an operand")
		       : digit_name(p) ? err(p, "a name starts with a letter "
					       "or '_', not a digit")
				       : err(p, "expected an operand name");
	if (lex_peek(&p->lx) == '(' && hlo_opcode_parse(*nm, *nn) != HLO_INVALID &&
	    (*nm)[-1] != '%') {
		*decl = NULL; /* the nested instruction's own shape */
		p->lx.p = *nm; /* a nested instruction without a name */
		if (++p->depth > MAX_NESTING)
			return err(p, "operands nested too deeply");
		*out = parse_instr_rest(p, c, NULL, *loc, sh, true);
		if (*out)
			(*out)->nested = true;
		p->depth--;
		return *out != NULL;
	}
	return true;
}

/* Operands as parsed; most instructions have a few, kept on the stack. */

typedef struct {
	Operand *v;
	int n, cap;
	Operand small[8];
	HloInstr **ops; /* filled by oplist_ops */
	HloInstr *small_ops[8];
} OpList;

static void oplist_init(OpList *l)
{
	l->v = l->small;
	l->n = 0;
	l->cap = 8;
	l->ops = l->small_ops;
}

static bool oplist_push(P *p, OpList *l, HloInstr *ins, const char *s, int n,
			SrcLoc loc, const char *decl, const char *decl_end)
{
	if (l->n == l->cap) {
		Operand *nv = arena_alloc(&p->m->arena, sizeof *nv * (size_t)l->cap * 2);
		HloInstr **no = arena_alloc(&p->m->arena, sizeof *no * (size_t)l->cap * 2);
		if (!nv || !no)
			return err(p, "out of memory");
		memcpy(nv, l->v, sizeof *nv * (size_t)l->n);
		l->v = nv;
		l->ops = no;
		l->cap *= 2;
	}
	l->v[l->n++] = (Operand){ins, s, n, loc, decl, decl_end};
	return true;
}

static HloInstr **oplist_ops(OpList *l)
{
	for (int i = 0; i < l->n; i++)
		l->ops[i] = l->v[i].ins;
	return l->ops;
}

/* 1: the text "f32[4,8]{1,0}" has the type and static dims of sh; 0: it
 * has not; -1: not that simple (tuples, dynamic dims): parse it. */
static int fast_same_shape(const char *s, const char *e, const Shape *sh)
{
	const char *q = s, *tn = dtype_name(sh->type);
	size_t tl = strlen(tn);
	if (sh->type == DT_TUPLE || sh->dyn || (size_t)(e - s) <= tl ||
	    memcmp(s, tn, tl) || s[tl] != '[')
		return -1;
	q = s + tl;
	q++;
	for (int i = 0; i < sh->rank; i++) {
		int64_t v = 0;
		const char *d0 = q;
		while (q < e && *q >= '0' && *q <= '9' && q - d0 < 15)
			v = v * 10 + (*q++ - '0');
		if (q == d0 || v != sh->dims[i])
			return -1;
		if (q < e && *q == ',')
			q++;
	}
	return q < e && *q == ']' ? 1 : -1;
}

/* The shape written before an operand must agree with the operand's own
 * (element type and dims; layouts may differ), as XLA's parser checks. */
static bool check_declared(P *p, int opno, const char *s, const char *e,
			   const HloInstr *op, SrcLoc loc)
{
	if (!s || !op->shape)
		return true;
	int fast = fast_same_shape(s, e, op->shape);
	if (fast == 1)
		return true;
	P q = *p; /* a sub-parser over the declared text, same module */
	q.lx.p = s;
	q.lx.end = e;
	Shape *d = parse_shape(&q);
	if (!d) {
		p->failed = true;
		return false;
	}
	if (shape_compatible(d, op->shape))
		return true;
	Arena *a = &p->m->arena;
	return err_at(p, loc, "operand %d is declared %s but '%s' is %s", opno,
		      shape_str(a, d), op->name, shape_str(a, op->shape));
}

static bool parse_operands(P *p, HloComp *c, OpList *l)
{
	if (!expect(p, '('))
		return false;
	while (lex_peek(&p->lx) != ')') {
		HloInstr *nested;
		const char *s, *ds, *de;
		int n;
		SrcLoc loc;
		if (!parse_operand(p, c, &nested, &s, &n, &loc, &ds, &de))
			return false;
		HloInstr *ins = nested ? nested : namemap_getn(&c->names, s, (size_t)n);
		if (!ins && p->single)
			return err_at(p, loc, "undefined instruction '%.*s'", n, s);
		if (ins && !check_declared(p, l->n, ds, de, ins, loc))
			return false;
		if (!oplist_push(p, l, ins, s, n, loc, ds, de))
			return false;
		if (!lex_accept(&p->lx, ','))
			break;
	}
	if (lex_eof(&p->lx))
		return err_eof(p, "')'");
	return expect(p, ')');
}

static HloInstr *make_instr(P *p, HloComp *c, HloOpcode op, Shape *sh,
			    const char *name, SrcLoc loc, OpList *l)
{
	const char *nm = name;
	if (!nm)
		nm = hlo_comp_unique_name(c, hlo_opcode_name(op));
	/* hlo_instr_new refuses a name in use; ask why only when it fails
	 * (one hash lookup per instruction instead of two) */
	HloInstr *ins = hlo_instr_new(c, op, sh, nm, l->n, oplist_ops(l));
	if (!ins && hlo_comp_find(c, nm))
		return err_at(p, loc, "instruction '%s' is defined twice in '%s'",
			      nm, c->name), NULL;
	if (!ins)
		return err_at(p, loc, "out of memory"), NULL;
	ins->loc = loc;
	ins->shape_given = sh != NULL;
	for (int i = 0; i < l->n; i++)
		if (!l->v[i].ins && !add_opref(p, ins, i, &l->v[i]))
			return NULL;
	return ins;
}

/* "all-gather-start" etc. are opcodes of their own; any other "X-start",
 * "X-update", "X-done" wraps opcode X in an async op (XLA's sugar). */
static HloOpcode parse_opcode(P *p, const char *s, int n, HloOpcode *wrapped)
{
	*wrapped = HLO_INVALID;
	HloOpcode op = hlo_opcode_parse(s, n);
	if (op != HLO_INVALID)
		return op;
	static const struct {
		const char *suf;
		HloOpcode op;
	} sfx[] = {{"-start", HLO_ASYNC_START},
		   {"-update", HLO_ASYNC_UPDATE},
		   {"-done", HLO_ASYNC_DONE}};
	for (size_t i = 0; i < 3; i++) {
		int k = (int)strlen(sfx[i].suf);
		if (n > k && !memcmp(s + n - k, sfx[i].suf, (size_t)k)) {
			*wrapped = hlo_opcode_parse(s, n - k);
			if (*wrapped != HLO_INVALID)
				return sfx[i].op;
		}
	}
	(void)p;
	return HLO_INVALID;
}

static bool parse_param_operand(P *p, HloInstr *ins)
{
	if (!expect(p, '('))
		return false;
	if (!lex_int(&p->lx, &ins->param_no) || ins->param_no < 0)
		return err(p, "parameter needs a non-negative number");
	return expect(p, ')');
}

static bool parse_constant_operand(P *p, HloInstr *ins)
{
	if (!expect(p, '('))
		return false;
	if (!ins->shape)
		return err_at(p, ins->loc, "constant '%s' needs a shape", ins->name);
	ins->literal = parse_literal(p, ins->shape, ins->name);
	if (!ins->literal)
		return false;
	if (lex_eof(&p->lx))
		return err_eof(p, "')'");
	return expect(p, ')');
}

/* nested: an unnamed operand, "add(negate(p), q)": XLA gives those no
 * attributes, so a ',' after it separates operands. */
static HloInstr *parse_instr_rest(P *p, HloComp *c, const char *name,
				  SrcLoc loc, Shape *shape, bool nested)
{
	const char *s;
	int n;
	lex_skip(&p->lx);
	SrcLoc oploc = lex_loc(&p->lx);
	if (!lex_ident(&p->lx, &s, &n)) {
		char buf[32];
		if (lex_eof(&p->lx))
			return err_eof(p, "an opcode"), NULL;
		return err(p, "expected an opcode, got '%s'", near(p, buf, sizeof buf)),
		       NULL;
	}
	HloOpcode wrapped, op = parse_opcode(p, s, n, &wrapped);
	if (op == HLO_INVALID)
		return err_at(p, oploc, "unknown opcode '%.*s'", n, s), NULL;
	OpList l;
	oplist_init(&l);
	HloInstr *ins;
	if (op == HLO_PARAMETER || op == HLO_CONSTANT) {
		ins = make_instr(p, c, op, shape, name, loc, &l);
		if (!ins)
			return NULL;
		bool ok = op == HLO_PARAMETER ? parse_param_operand(p, ins)
					      : parse_constant_operand(p, ins);
		if (!ok)
			return NULL;
	} else {
		if (!parse_operands(p, c, &l))
			return NULL;
		ins = make_instr(p, c, op, shape, name, loc, &l);
		if (!ins)
			return NULL;
	}
	ins->async_wrapped = wrapped;
	if (!nested && !parse_attrs(p, ins))
		return NULL;
	return ins;
}

/* [ROOT] name = [shape] opcode(operands), attrs */
static HloInstr *parse_instr(P *p, HloComp *c, bool *is_root)
{
	const char *s;
	int n;
	lex_skip(&p->lx);
	*is_root = false;
	if (lex_peek_ident(&p->lx, false) == 4 && !memcmp(p->lx.p, "ROOT", 4)) {
		p->lx.p += 4;
		*is_root = true;
		lex_skip(&p->lx);
	}
	SrcLoc loc = lex_loc(&p->lx);
	if (!lex_name(&p->lx, &s, &n)) {
		char buf[32];
		if (digit_name(p))
			return err(p, "a name starts with a letter or '_', "
				      "not a digit"), NULL;
		return err(p, "expected an instruction, got '%s'",
			   near(p, buf, sizeof buf)), NULL;
	}
	const char *name = dupn(p, s, n);
	if (!lex_accept(&p->lx, '=')) {
		if (lex_eof(&p->lx))
			return err_eof(p, "'='"), NULL;
		return err(p, "expected '=' after instruction name '%s'", name), NULL;
	}
	Shape *sh = NULL;
	if (at_shape(p) && !(sh = parse_shape(p)))
		return NULL;
	return parse_instr_rest(p, c, name, loc, sh, false);
}

/* ---- computations and modules ----------------------------------------- */

static bool resolve_oprefs(P *p, HloComp *c, int from)
{
	for (int i = from; i < p->noprefs; i++) {
		OpRef *r = &p->oprefs[i];
		HloInstr *v = namemap_getn(&c->names, r->name, (size_t)r->len);
		if (!v)
			return err_at(p, r->loc, "undefined instruction '%.*s' in '%s'",
				      r->len, r->name, c->name);
		hlo_set_operand(r->ins, r->index, v);
		if (!check_declared(p, r->index, r->decl, r->decl_end, v, r->loc))
			return false;
	}
	p->noprefs = from;
	return true;
}

static bool parse_comp_body(P *p, HloComp *c)
{
	int from = p->noprefs;
	HloInstr *root = NULL;
	while (!p->failed) {
		int ch = lex_peek(&p->lx);
		if (ch == '}')
			break;
		if (ch < 0)
			return err_eof(p, "'}' to close the computation");
		bool is_root;
		HloInstr *ins = parse_instr(p, c, &is_root);
		if (!ins)
			return false;
		if (is_root) {
			if (root)
				return err_at(p, ins->loc,
					      "computation '%s' has two ROOTs ('%s' and '%s')",
					      c->name, root->name, ins->name), false;
			root = ins;
		}
	}
	if (p->failed || !expect(p, '}'))
		return false;
	if (c->n == 0)
		return err_at(p, c->loc, "computation '%s' has no instructions",
			      c->name);
	c->root = root ? root : c->instrs[c->n - 1];
	c->root_explicit = root != NULL;
	return resolve_oprefs(p, c, from);
}

/* Signature "(a: f32[], b: (s32[], f32[2])) -> f32[]": checked for syntax,
 * the parameters themselves define the computation's interface. */
static bool parse_signature(P *p)
{
	if (!expect(p, '('))
		return false;
	while (lex_peek(&p->lx) != ')') {
		const char *s;
		int n;
		if (!lex_name(&p->lx, &s, &n) || !expect(p, ':'))
			return err(p, "expected 'name: shape' in the signature");
		if (!parse_shape(p))
			return false;
		if (!lex_accept(&p->lx, ','))
			break;
	}
	if (!expect(p, ')'))
		return false;
	lex_skip(&p->lx);
	if (!lex_accept_str(&p->lx, "->"))
		return err(p, "expected '->' in the signature");
	return parse_shape(p) != NULL;
}

static bool parse_computation(P *p, HloComp **entry_out)
{
	bool is_entry = false;
	lex_skip(&p->lx);
	SrcLoc loc = lex_loc(&p->lx);
	if (lex_peek_ident(&p->lx, false) == 5 && !memcmp(p->lx.p, "ENTRY", 5)) {
		p->lx.p += 5;
		is_entry = true;
	}
	const char *s;
	int n;
	if (!lex_name(&p->lx, &s, &n)) {
		char buf[32];
		return err(p, "expected a computation, got '%s'",
			   near(p, buf, sizeof buf));
	}
	char name[512];
	snprintf(name, sizeof name, "%.*s", n, s);
	if (hlo_module_find_comp(p->m, name))
		return err_at(p, loc, "computation '%s' is defined twice", name);
	if (lex_peek(&p->lx) == '(' && !parse_signature(p))
		return false;
	HloComp *c = hlo_comp_new(p->m, name);
	if (!c)
		return err(p, "out of memory");
	c->loc = loc;
	if (!expect(p, '{') || !parse_comp_body(p, c))
		return false;
	if (lex_peek(&p->lx) == ',') { /* , execution_thread="..." */
		Lexer save = p->lx; /* its line too: the error is at ',' */
		lex_accept(&p->lx, ',');
		const char *k;
		int kn;
		if (lex_ident(&p->lx, &k, &kn) && kn == 16 &&
		    !memcmp(k, "execution_thread", 16) && lex_accept(&p->lx, '=')) {
			const char *v;
			int vn;
			if (!lex_string(&p->lx, &v, &vn))
				return err(p, "execution_thread needs a string");
			c->exec_thread = dupn(p, v, vn);
		} else {
			p->lx = save;
			return err(p, "unexpected ',' after computation '%s'", name);
		}
	}
	if (is_entry) {
		if (*entry_out)
			return err_at(p, loc, "second ENTRY computation '%s' (first: '%s')",
				      name, (*entry_out)->name);
		*entry_out = c;
	}
	return true;
}

static bool parse_header_attr(P *p)
{
	const char *s;
	int n;
	if (!lex_ident(&p->lx, &s, &n) || !expect(p, '='))
		return err(p, "expected a module attribute");
	lex_skip(&p->lx);
	const char *v = p->lx.p, *e = lex_scan_value(&p->lx);
	if (!e) {
		p->incomplete = true;
		return err(p, "unterminated value of module attribute '%.*s'", n, s);
	}
	if (e == v)
		return err(p, "missing value for module attribute '%.*s'", n, s);
	HloModule *m = p->m;
	void *arr = arena_grow(&m->arena, m->attrs, sizeof *m->attrs,
			       &m->cap_attrs, m->nattrs + 1);
	if (!arr)
		return err(p, "out of memory");
	m->attrs = arr;
	HloAttr *at = &m->attrs[m->nattrs++];
	memset(at, 0, sizeof *at);
	at->key = A_RAW;
	at->name = dupn(p, s, n);
	at->u.s = normalise_raw(p, v, e);
	if (!at->name || !at->u.s)
		return err(p, "out of memory");
	if (!strcmp(at->name, "entry_computation_layout")) {
		p->layout_text = at->u.s;
		p->layout_loc = lex_loc_at(&p->lx, v);
	}
	while (p->lx.p < e)
		lex_advance(&p->lx);
	return true;
}

static bool is_section(P *p)
{
	static const char *names[] = {"FileNames", "FunctionNames",
				      "FileLocations", "StackFrames"};
	int n = lex_peek_ident(&p->lx, false);
	for (size_t i = 0; i < 4; i++)
		if ((size_t)n == strlen(names[i]) && !memcmp(p->lx.p, names[i], (size_t)n))
			return true;
	return false;
}

/* "FileNames\n1 \"a.py\"\n..." sections: kept verbatim, one entry a line. */
static bool parse_frame_index(P *p)
{
	StrBuf b;
	sb_init(&b);
	while (is_section(p)) {
		const char *s;
		int n;
		lex_ident(&p->lx, &s, &n);
		sb_putn(&b, s, (size_t)n);
		sb_putc(&b, '\n');
		int64_t id;
		while (lex_int(&p->lx, &id)) {
			lex_skip(&p->lx);
			const char *v = p->lx.p, *e = lex_scan_value(&p->lx);
			if (!e || e == v) {
				sb_free(&b);
				return err(p, "bad entry in the stack frame index");
			}
			sb_printf(&b, "%lld %.*s\n", (long long)id, (int)(e - v), v);
			while (p->lx.p < e)
				lex_advance(&p->lx);
		}
		sb_putc(&b, '\n');
	}
	if (b.oom) {
		sb_free(&b);
		return err(p, "out of memory");
	}
	if (b.len) {
		b.s[--b.len] = 0; /* one blank line between sections */
		p->m->frame_index = arena_strdup(&p->m->arena, sb_str(&b));
	}
	sb_free(&b);
	return true;
}

static bool parse_header(P *p)
{
	const char *s;
	int n;
	p->lx.p += 9; /* HloModule */
	if (!lex_name(&p->lx, &s, &n))
		return err(p, "expected a module name after HloModule");
	p->m->name = dupn(p, s, n);
	lex_accept(&p->lx, ':'); /* old style "HloModule name:" */
	while (lex_peek(&p->lx) == ',') {
		lex_accept(&p->lx, ',');
		if (!parse_header_attr(p))
			return false;
	}
	return parse_frame_index(p);
}

static bool resolve_comprefs(P *p)
{
	for (int i = 0; i < p->ncomprefs; i++) {
		CompRef *r = &p->comprefs[i];
		HloComp *c = namemap_getn(&p->m->comp_names, r->name, (size_t)r->len);
		if (!c)
			return err_at(p, r->loc, "undefined computation '%.*s'",
				      r->len, r->name);
		if (c == r->ins->parent)
			return err_at(p, r->loc, "computation '%s' calls itself",
				      c->name);
		r->ins->attrs[r->attr].u.comps.v[r->slot] = c;
	}
	p->ncomprefs = 0;
	return true;
}

/* An instruction whose shape was left out gets its layout as XLA's
 * parser gives it: an elementwise op, copy or reverse the layout of its
 * operand (select's and clamp's middle one), memory space and tiles
 * included; a transpose the layout that makes it a bitcast of its
 * operand; a tuple its operands' shapes; anything else the default.
 * False on out of memory. */
static bool take_layout(P *p, HloInstr *ins)
{
	Shape *s = ins->shape;
	if (s && ins->op == HLO_TUPLE && s->type == DT_TUPLE &&
	    s->ntuple == ins->nops) {
		/* a tuple: its operands' shapes as they are */
		Shape **el = arena_alloc(&p->m->arena,
					 sizeof *el * ((size_t)ins->nops + 1));
		for (int i = 0; el && i < ins->nops; i++)
			el[i] = ins->ops[i]->shape;
		Shape *t = el ? shape_tuple(&p->m->arena, ins->nops, el) : NULL;
		if (!t)
			return err(p, "out of memory");
		ins->shape = t;
		return true;
	}
	if (!s || s->type == DT_TUPLE || s->rank == 0 || s->layout ||
	    !ins->nops)
		return true;
	bool ew = hlo_opcode_flags(ins->op) & XF_EW;
	if (!ew && ins->op != HLO_COPY && ins->op != HLO_REVERSE &&
	    ins->op != HLO_TRANSPOSE)
		return true;
	int at = (ins->op == HLO_SELECT || ins->op == HLO_CLAMP) &&
			 ins->nops > 1
		       ? 1
		       : 0;
	const HloInstr *o = ins->ops[at];
	const Shape *os = o ? o->shape : NULL;
	if (!os || os->type == DT_TUPLE || os->rank != s->rank ||
	    !os->layout || !os->layout->minor_to_major ||
	    (os->type != s->type && os->layout->element_size_bits))
		return true;
	Shape *n = shape_clone(&p->m->arena, s);
	Shape *from = shape_clone(&p->m->arena, os);
	if (!n || !from)
		return err(p, "out of memory");
	n->layout = from->layout;
	n->bytes_cache = n->hash_cache = 0;
	if (ins->op == HLO_TRANSPOSE) {
		int np;
		const int64_t *perm = hlo_attr_ints(ins, A_DIMENSIONS, &np);
		if (!perm || np != s->rank)
			return true;
		/* result dim j is operand dim perm[j]: the operand's order of
		 * dims, minor first, said in result dims */
		int *m2m = n->layout->minor_to_major;
		for (int k = 0; k < np; k++)
			for (int j = 0; j < np; j++)
				if (perm[j] == from->layout->minor_to_major[k]) {
					m2m[k] = j;
					break;
				}
	}
	ins->shape = n;
	return true;
}

/* The shape XLA's parser gives send, send-done, recv-done and outfeed
 * whatever is declared: built from the operands (send: the data's,
 * u32[] and a token; recv-done: the recv's data and a token; the others
 * a token). NULL for other ops, or when an operand has no shape yet. */
static Shape *transfer_shape(P *p, const HloInstr *x)
{
	Arena *a = &p->m->arena;
	const Shape *o = x->nops && x->ops[0] ? x->ops[0]->shape : NULL;
	switch (x->op) {
	case HLO_SEND_DONE:
	case HLO_OUTFEED:
		return shape_scalar(a, DT_TOKEN);
	case HLO_SEND:
		if (!o)
			return NULL;
		return shape_tuple(a, 3,
				   (Shape *[]){(Shape *)o, shape_scalar(a, DT_U32),
					       shape_scalar(a, DT_TOKEN)});
	case HLO_RECV_DONE:
		if (!o || o->type != DT_TUPLE || o->ntuple < 1)
			return NULL;
		return shape_tuple(a, 2,
				   (Shape *[]){o->tuple[0],
					       shape_scalar(a, DT_TOKEN)});
	default:
		return NULL;
	}
}

/* A declared shape of those four that is not what XLA builds gives way
 * to it, with a warning (XLA ignores the declaration: a recv-done
 * declared f32[3] of an f32[4] recv is f32[4] there, and so are the
 * shapes inferred from it). */
static void transfer_declared(P *p, HloInstr *x)
{
	if (!x->shape)
		return;
	Shape *s = transfer_shape(p, x);
	if (!s || shape_equal(s, x->shape))
		return;
	StrBuf a, b;
	sb_init(&a);
	sb_init(&b);
	shape_print(&a, x->shape, false);
	shape_print(&b, s, false);
	diag_warning(p->d, p->src, x->loc,
		     "declared shape %s of '%s' is not what %s makes of its "
		     "operands: taken as %s, as XLA takes it",
		     sb_str(&a), x->name, hlo_opcode_name(x->op), sb_str(&b));
	sb_free(&a);
	sb_free(&b);
	x->shape = s;
}

/* Fills missing shapes, callees first, operands before users. */
/* ins got no shape: says so unless infer_shape did (say). False. */
static bool cannot_infer(P *p, const HloInstr *ins, bool say)
{
	if (say)
		err_at(p, ins->loc,
		       "cannot infer the shape of '%s' (%s): write it, e.g. "
		       "'%s = f32[4] %s(...)'",
		       ins->name, hlo_opcode_name(ins->op), ins->name,
		       hlo_opcode_name(ins->op));
	p->failed = true;
	return false;
}

static bool infer_missing(P *p, HloComp *c)
{
	bool any = false;
	for (int i = 0; i < c->n; i++) {
		transfer_declared(p, c->instrs[i]);
		any |= c->instrs[i]->shape == NULL;
	}
	if (!any)
		return true;
	HloInstr **order;
	int n = hlo_comp_post_order(c, &order);
	if (n == HLO_ORDER_OOM)
		return err_at(p, c->loc, "out of memory ordering '%s'",
			      c->name);
	if (n < 0)
		return err_at(p, c->loc, "computation '%s' has a cycle", c->name);
	bool ok = true;
	for (int i = 0; i < n && ok; i++) {
		HloInstr *ins = order[i];
		transfer_declared(p, ins);
		if (ins->shape)
			continue;
		bool no_rule = false;
		bool opsok = true;
		for (int j = 0; j < ins->nops; j++)
			opsok &= ins->ops[j] && ins->ops[j]->shape != NULL;
		if (opsok)
			ins->shape = infer_shape(&p->m->arena, ins, p->d, p->src,
						 &no_rule);
		if (!ins->shape)
			ok = cannot_infer(p, ins, no_rule || !opsok);
		else
			ok = take_layout(p, ins);
	}
	free(order);
	return ok;
}

/* infer_missing for a typed line: the instructions it added to c (from
 * n0 on, each after its operands) are the only ones without a shape, so
 * they are inferred in order instead of walking all of c. Anything else
 * (an operand that still has none) goes the long way. */
static bool infer_added(P *p, HloComp *c, int n0)
{
	for (int i = n0; i < c->n; i++) {
		const HloInstr *ins = c->instrs[i];
		if (ins->shape)
			continue;
		for (int j = 0; j < ins->nops; j++)
			if (!ins->ops[j] || !ins->ops[j]->shape ||
			    ins->ops[j]->parent != c)
				return infer_missing(p, c);
		bool no_rule = false;
		HloInstr *x = c->instrs[i];
		x->shape = infer_shape(&p->m->arena, x, p->d, p->src, &no_rule);
		if (!x->shape)
			return cannot_infer(p, x, no_rule);
		if (!take_layout(p, x))
			return false;
	}
	for (int i = 0; i < n0; i++) /* the line changes no older one */
		if (!c->instrs[i]->shape)
			return infer_missing(p, c);
	return true;
}

static bool infer_module(P *p)
{
	HloComp **order;
	int n = hlo_module_comp_post_order(p->m, &order);
	if (n < 0)
		return err(p, "out of memory");
	bool ok = true;
	for (int i = 0; i < n && ok; i++)
		ok = infer_missing(p, order[i]);
	free(order);
	return ok;
}

/* Text may use an instruction before the line that defines it; XLA's
 * parser refuses that, so what we save has every operand before its
 * users (a cycle stays for the verifier to report). */
static bool order_module(P *p)
{
	for (int i = 0; i < p->m->ncomps; i++)
		if (!hlo_comp_sort_operands_first(p->m->comps[i]))
			return err(p, "out of memory");
	return true;
}

/* Computations may not call each other in a cycle (HLO has no
 * recursion). Depth-first over the call graph with three colours. */
static bool cycle_from(P *p, int ci, unsigned char *state, int depth)
{
	HloModule *m = p->m;
	HloComp *c = m->comps[ci];
	if (depth > 10000)
		return err_at(p, c->loc, "computations nested too deeply");
	state[ci] = 1;
	for (int i = 0; i < c->n; i++) {
		const HloInstr *ins = c->instrs[i];
		for (int k = 0; k < hlo_instr_ncalled(ins); k++) {
			HloComp *callee = hlo_instr_called_at(ins, k);
			int cj = callee ? hlo_module_comp_index(m, callee) : -1;
			if (cj < 0 || state[cj] == 2)
				continue;
			if (state[cj] == 1)
				return err_at(p, ins->loc,
					      "'%s' calls '%s', which is already "
					      "being called: computations call "
					      "each other in a cycle",
					      c->name, callee->name);
			if (!cycle_from(p, cj, state, depth + 1))
				return false;
		}
	}
	state[ci] = 2;
	return true;
}

static bool check_call_cycles(P *p)
{
	unsigned char *state = calloc((size_t)p->m->ncomps + 1, 1);
	if (!state)
		return err(p, "out of memory");
	bool ok = true;
	for (int i = 0; i < p->m->ncomps && ok; i++)
		if (!state[i])
			ok = cycle_from(p, i, state, 0);
	free(state);
	return ok;
}

/* entry_computation_layout={(params)->result} should agree with the entry
 * computation (types and dims); it is printed back recomputed. */
static bool check_entry_layout(P *p)
{
	HloComp *c = p->m->entry;
	if (!p->layout_text || !c || !c->root || !c->root->shape)
		return true;
	const char *t = p->layout_text;
	size_t n = strlen(t);
	if (n < 2 || t[0] != '{' || t[n - 1] != '}')
		return err_at(p, p->layout_loc, "entry_computation_layout must be {(...)->...}");
	P q = *p;
	Diag quiet; /* syntax errors in it are reported as one mismatch */
	diag_init(&quiet);
	q.d = &quiet;
	q.failed = false;
	lex_init(&q.lx, t + 1, n - 2);
	int k = 0, np = hlo_comp_param_count(c);
	Shape **kept = arena_alloc(&p->m->arena, sizeof *kept * ((size_t)np + 1));
	bool ok = kept && expect(&q, '(');
	while (ok && lex_peek(&q.lx) != ')') {
		Shape *s = parse_shape(&q);
		HloInstr *prm = hlo_comp_param(c, k);
		if (!s || !prm || !prm->shape || !shape_compatible(s, prm->shape)) {
			ok = false;
			break;
		}
		kept[k++] = s;
		if (!lex_accept(&q.lx, ','))
			break;
	}
	ok = ok && expect(&q, ')') && k == np;
	lex_skip(&q.lx);
	ok = ok && lex_accept_str(&q.lx, "->");
	Shape *r = ok ? parse_shape(&q) : NULL;
	ok = ok && r && shape_compatible(r, c->root->shape) && lex_eof(&q.lx);
	diag_free(&quiet);
	if (ok) {
		kept[np] = r;
		p->m->entry_layout = kept;
		p->m->entry_layout_n = np + 1;
		return true;
	}
	/* XLA's own dumps have such headers (builder golden files): warn and
	 * print the layout recomputed from the entry computation. */
	StrBuf b;
	sb_init(&b);
	print_entry_layout(&b, p->m);
	diag_warning(p->d, p->src, p->layout_loc,
		     "entry_computation_layout=%s does not match the entry "
		     "computation '%s', which is %s; using the latter", t,
		     c->name, sb_str(&b));
	sb_free(&b);
	return true;
}

static bool check_text(P *p)
{
	const char *nul = memchr(p->lx.start, 0, (size_t)(p->lx.end - p->lx.start));
	if (nul)
		return err_at(p, lex_loc_at(&p->lx, nul),
			      "binary data (a NUL byte) in HLO text");
	return true;
}

static const char *module_name_from(const SrcFile *src)
{
	if (!src->name || src->name[0] == '<')
		return "module";
	const char *b = strrchr(src->name, '/');
	return b ? b + 1 : src->name;
}

static bool parse_module_text(P *p)
{
	HloComp *entry = NULL;
	if (!check_text(p))
		return false;
	lex_skip(&p->lx);
	if (lex_peek_ident(&p->lx, false) == 9 && !memcmp(p->lx.p, "HloModule", 9) &&
	    !parse_header(p))
		return false;
	while (!p->failed && !lex_eof(&p->lx))
		if (!parse_computation(p, &entry))
			return false;
	if (p->lx.open_comment)
		return err_at(p, lex_loc_at(&p->lx, p->lx.open_comment),
			      "unterminated /* comment");
	if (!p->failed && p->m->ncomps == 0) {
		p->incomplete = p->m->name != NULL;
		return err(p, "no computation in the module");
	}
	if (!entry) /* no ENTRY: the last computation written is the entry */
		for (int i = p->m->ncomps - 1; i >= 0 && !entry; i--)
			if (!p->m->comps[i]->inlined)
				entry = p->m->comps[i];
	hlo_module_set_entry(p->m, entry);
	return resolve_comprefs(p) && check_call_cycles(p) && infer_module(p) &&
	       order_module(p) && check_entry_layout(p);
}

HloModule *parse_module(const SrcFile *src, Diag *d, ParseStatus *st)
{
	P p = {0};
	p.src = src;
	p.d = d;
	p.m = hlo_module_new(NULL);
	if (!p.m) {
		diag_error(d, src, (SrcLoc){0, 0}, "out of memory");
		if (st)
			*st = PARSE_ERROR;
		return NULL;
	}
	lex_init(&p.lx, src->text ? src->text : "", src->text ? src->len : 0);
	p.m->name = NULL;
	bool ok = parse_module_text(&p);
	if (ok && !p.m->name)
		p.m->name = arena_strdup(&p.m->arena, module_name_from(src));
	if (ok && src->name)
		p.m->source_name = arena_strdup(&p.m->arena, src->name);
	/* Failing at the end of the text with a bracket still open means it
	 * may just be unfinished: the REPL reads more lines. */
	if (!ok && p.err_at_end && src->text &&
	    parse_open_depth(src->text, src->len) > 0)
		p.incomplete = true;
	if (st)
		*st = ok ? PARSE_OK : p.incomplete ? PARSE_INCOMPLETE : PARSE_ERROR;
	if (!ok) {
		hlo_module_free(p.m);
		return NULL;
	}
	return p.m;
}

HloInstr *parse_instr_line(HloComp *c, const SrcFile *src, Diag *d,
			   ParseStatus *st)
{
	P p = {0};
	p.src = src;
	p.d = d;
	p.m = c->module;
	p.single = true;
	lex_init(&p.lx, src->text ? src->text : "", src->text ? src->len : 0);
	int n0 = c->n, nc0 = p.m->ncomps;
	bool is_root = false;
	HloInstr *ins = check_text(&p) ? parse_instr(&p, c, &is_root) : NULL;
	if (ins && !lex_eof(&p.lx)) {
		char buf[32];
		err(&p, "unexpected text after the instruction: '%s'",
		    near(&p, buf, sizeof buf));
	}
	/* a call cycle needs a new computation or a new call */
	bool calls = p.m->ncomps > nc0;
	for (int i = n0; i < c->n && !calls; i++)
		calls = c->instrs[i]->nattrs && hlo_instr_ncalled(c->instrs[i]);
	bool ok = !p.failed && resolve_comprefs(&p) &&
		  (!calls || check_call_cycles(&p));
	for (int i = nc0; ok && i < p.m->ncomps; i++) /* inline bodies */
		ok = infer_missing(&p, p.m->comps[i]);
	ok = ok && infer_added(&p, c, n0); /* the line, nested operands */
	if (!ok && p.err_at_end && src->text &&
	    parse_open_depth(src->text, src->len) > 0)
		p.incomplete = true;
	if (st)
		*st = ok ? PARSE_OK : p.incomplete ? PARSE_INCOMPLETE : PARSE_ERROR;
	if (!ok) { /* take back everything the line added */
		while (c->n > n0)
			hlo_instr_remove(c->instrs[c->n - 1]);
		while (p.m->ncomps > nc0)
			hlo_module_remove_comp(p.m, p.m->comps[p.m->ncomps - 1]);
		return NULL;
	}
	if (is_root || !c->root_explicit) {
		c->root = ins;
		c->root_explicit = is_root;
	}
	return ins;
}

int parse_open_depth(const char *text, size_t len)
{
	int depth = 0;
	const char *q = text, *end = text + len;
	while (q < end) {
		if (*q == '"') {
			for (q++; q < end && *q != '"' && *q != '\n'; q++)
				if (*q == '\\')
					q++;
			q += q < end;
		} else if (q + 1 < end && q[0] == '/' && q[1] == '/') {
			while (q < end && *q != '\n')
				q++;
		} else if (q + 1 < end && q[0] == '/' && q[1] == '*') {
			const char *e = q + 2;
			while (e + 1 < end && !(e[0] == '*' && e[1] == '/'))
				e++;
			if (e + 1 >= end)
				return depth + 1; /* open comment */
			q = e + 2;
		} else {
			depth += (*q == '{' || *q == '(') - (*q == '}' || *q == ')');
			q++;
		}
	}
	return depth;
}

Shape *parse_shape_text(Arena *a, const char *text, Diag *d)
{
	HloModule *tmp = hlo_module_new("shape");
	if (!tmp)
		return NULL;
	SrcFile src = {"<shape>", text, strlen(text), 0};
	P p = {0};
	p.src = &src;
	p.d = d;
	p.m = tmp;
	lex_init(&p.lx, text, src.len);
	Shape *s = parse_shape(&p);
	if (s && !lex_eof(&p.lx))
		s = (err(&p, "unexpected text after the shape"), NULL);
	Shape *r = s ? shape_clone(a, s) : NULL;
	hlo_module_free(tmp);
	return r;
}

Literal *parse_literal_text(Arena *a, const Shape *s, const char *text,
			    Diag *d)
{
	HloModule *tmp = hlo_module_new("literal");
	if (!tmp)
		return NULL;
	SrcFile src = {"<literal>", text, strlen(text), 0};
	P p = {0};
	p.src = &src;
	p.d = d;
	p.m = tmp;
	lex_init(&p.lx, text, src.len);
	Literal *l = parse_literal(&p, s, "literal");
	if (l && !lex_eof(&p.lx))
		l = (err(&p, "unexpected text after the literal"), NULL);
	Literal *r = l ? literal_clone(a, l) : NULL;
	hlo_module_free(tmp);
	return r;
}
