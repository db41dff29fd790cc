/* npy.c - reading and writing NumPy .npy files. */
#include "npy.h"

#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char kind;  /* b i u f c */
	int size;   /* bytes per element */
	Dtype type;
	const char *name;
} NpyType;

static const NpyType npy_types[] = {
	{'b', 1, DT_PRED, "bool"},      {'i', 1, DT_S8, "int8"},
	{'i', 2, DT_S16, "int16"},      {'i', 4, DT_S32, "int32"},
	{'i', 8, DT_S64, "int64"},      {'u', 1, DT_U8, "uint8"},
	{'u', 2, DT_U16, "uint16"},     {'u', 4, DT_U32, "uint32"},
	{'u', 8, DT_U64, "uint64"},     {'f', 2, DT_F16, "float16"},
	{'f', 4, DT_F32, "float32"},    {'f', 8, DT_F64, "float64"},
	{'c', 8, DT_C64, "complex64"},  {'c', 16, DT_C128, "complex128"},
};

static const NpyType *type_by_dtype(Dtype t)
{
	for (size_t i = 0; i < sizeof npy_types / sizeof *npy_types; i++)
		if (npy_types[i].type == t)
			return &npy_types[i];
	return NULL;
}

static const NpyType *type_by_descr(char kind, int size)
{
	for (size_t i = 0; i < sizeof npy_types / sizeof *npy_types; i++)
		if (npy_types[i].kind == kind && npy_types[i].size == size)
			return &npy_types[i];
	return NULL;
}

/* What a type is stored as in a file: itself, or the nearest NumPy type. */
static Dtype file_type(Dtype t)
{
	if (type_by_dtype(t))
		return t;
	switch (dtype_kind(t)) {
	case DK_SINT: return DT_S8;
	case DK_UINT: return DT_U8;
	case DK_FLOAT: return DT_F32;
	default: return DT_INVALID;
	}
}

const char *npy_dtype_name(Dtype t)
{
	const NpyType *n = type_by_dtype(file_type(t));
	return n ? n->name : "none";
}

/* ---- header ------------------------------------------------------------ */

/* The file's name leads the message, which has no place of its own: the
 * caller's (a script line that read or wrote the file) is the one to
 * show. */
static bool fail(Diag *d, const char *name, const char *msg, const char *arg)
{
	diag_error(d, NULL, (SrcLoc){0, 0}, "%s: %s%s", name, msg,
		   arg ? arg : "");
	return false;
}

/* Finds 'key': in a dict text and returns a pointer after the colon. */
static const char *dict_value(const char *h, const char *key)
{
	char pat[32];
	snprintf(pat, sizeof pat, "'%s'", key);
	const char *p = strstr(h, pat);
	if (!p) {
		snprintf(pat, sizeof pat, "\"%s\"", key);
		p = strstr(h, pat);
	}
	if (!p)
		return NULL;
	p = strchr(p + strlen(pat), ':');
	if (!p)
		return NULL;
	for (p++; *p == ' '; p++)
		;
	return p;
}

typedef struct {
	const NpyType *t;
	bool big_endian;
	int rank;
	int64_t dims[XR_MAX_RANK];
} Header;

static bool parse_descr(const char *v, Header *h, Diag *d, const char *name)
{
	char q = *v;
	if (q != '\'' && q != '"')
		return fail(d, name, "unsupported dtype (structured arrays are not "
			    "supported)", NULL);
	char order = v[1], kind = v[2];
	int size = atoi(v + 3);
	if (order != '<' && order != '>' && order != '|' && order != '=')
		return fail(d, name, "bad dtype in the header", NULL);
	h->big_endian = order == '>';
	h->t = type_by_descr(kind, size);
	if (!h->t) {
		char buf[16];
		snprintf(buf, sizeof buf, "'%c%c%d'", order, kind, size);
		return fail(d, name, "unsupported dtype ", buf);
	}
	return true;
}

static bool parse_shape_tuple(const char *v, Header *h, Diag *d, const char *name)
{
	if (*v != '(')
		return fail(d, name, "bad shape in the header", NULL);
	h->rank = 0;
	for (v++;;) {
		while (*v == ' ' || *v == ',')
			v++;
		if (*v == ')')
			return true;
		if (h->rank == XR_MAX_RANK)
			return fail(d, name, "too many dimensions", NULL);
		char *e;
		errno = 0;
		long long n = strtoll(v, &e, 10);
		if (e == v || errno || n < 0)
			return fail(d, name, "bad shape in the header", NULL);
		while (*e == 'L') /* Python 2 longs */
			e++;
		h->dims[h->rank++] = n;
		v = e;
	}
}

static bool parse_header(const unsigned char *buf, size_t len, Header *h,
			 size_t *data_off, Diag *d, const char *name)
{
	if (len < 10 || memcmp(buf, "\x93NUMPY", 6))
		return fail(d, name, "not a .npy file (bad magic)", NULL);
	int major = buf[6];
	size_t hlen, off;
	if (major == 1) {
		hlen = buf[8] | (size_t)buf[9] << 8;
		off = 10;
	} else if (major == 2 || major == 3) {
		if (len < 12)
			return fail(d, name, "truncated header", NULL);
		hlen = buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 |
		       (size_t)buf[11] << 24;
		off = 12;
	} else {
		char v[16];
		snprintf(v, sizeof v, "%d.%d", major, buf[7]);
		return fail(d, name, "unsupported .npy format version ", v);
	}
	if (hlen > len - off || hlen > (1u << 24))
		return fail(d, name, "truncated header", NULL);
	char *text = malloc(hlen + 1);
	if (!text)
		return fail(d, name, "out of memory", NULL);
	memcpy(text, buf + off, hlen);
	text[hlen] = 0;
	const char *descr = dict_value(text, "descr");
	const char *fo = dict_value(text, "fortran_order");
	const char *shape = dict_value(text, "shape");
	bool ok = descr && fo && shape;
	if (!ok)
		fail(d, name, "header lacks descr, fortran_order or shape", NULL);
	else if (!strncmp(fo, "True", 4))
		ok = fail(d, name, "Fortran-order arrays are not supported: save "
			  "with np.ascontiguousarray(x)", NULL);
	else
		ok = parse_descr(descr, h, d, name) &&
		     parse_shape_tuple(shape, h, d, name);
	free(text);
	*data_off = off + hlen;
	return ok;
}

/* ---- reading ----------------------------------------------------------- */

static void swap_bytes(unsigned char *p, int size, int64_t n)
{
	int half = size > 8 ? 8 : size; /* complex: swap each part */
	for (int64_t i = 0; i < n * (size / half); i++) {
		unsigned char *q = p + i * half;
		for (int j = 0; j < half / 2; j++) {
			unsigned char t = q[j];
			q[j] = q[half - 1 - j];
			q[half - 1 - j] = t;
		}
	}
}

Literal *npy_parse(Arena *a, const char *name, const unsigned char *buf,
		   size_t len, Diag *d)
{
	Header h;
	size_t off;
	if (!parse_header(buf, len, &h, &off, d, name))
		return NULL;
	Shape *s = shape_array(a, h.t->type, h.rank, h.dims);
	if (!s || shape_elements(s) < 0)
		return fail(d, name, "array too large", NULL), NULL;
	Literal *l = literal_new(a, s);
	if (!l)
		return fail(d, name, "array too large to load", NULL), NULL;
	size_t bytes = (size_t)l->n * (size_t)h.t->size;
	if (len - off < bytes) {
		char msg[96];
		snprintf(msg, sizeof msg, " (%zu data bytes, %zu expected)",
			 len - off, bytes);
		return fail(d, name, "truncated data", msg), NULL;
	}
	memcpy(l->data, buf + off, bytes);
	if (h.big_endian && h.t->size > 1)
		swap_bytes(l->data, h.t->size, l->n);
	if (h.t->type == DT_PRED)
		for (int64_t i = 0; i < l->n; i++)
			((unsigned char *)l->data)[i] = ((unsigned char *)l->data)[i] != 0;
	return l;
}

Literal *npy_read(Arena *a, const char *path, Diag *d)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(d, path, "cannot open: ", strerror(errno)), NULL;
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			unsigned char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return fail(d, path, "out of memory", NULL), NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		/* not a .npy (say /dev/zero): said after the first chunk,
		 * not after reading all there is */
		if (got == 0 || (len >= 6 && memcmp(buf, "\x93NUMPY", 6)))
			break;
	}
	int e = ferror(f) ? errno : 0;
	fclose(f);
	if (e) {
		free(buf);
		return fail(d, path, "cannot read: ", strerror(e)), NULL;
	}
	Literal *l = npy_parse(a, path, buf, len, d);
	free(buf);
	return l;
}

/* ---- writing ----------------------------------------------------------- */

Literal *literal_convert(Arena *a, const Literal *l, Dtype to)
{
	Shape *s = shape_array(a, to, l->shape->rank, l->shape->dims);
	Literal *r = s ? literal_new(a, s) : NULL;
	if (!r)
		return NULL;
	DtypeKind from = dtype_kind(l->shape->type), k = dtype_kind(to);
	for (int64_t i = 0; i < l->n; i++) {
		if (k == DK_COMPLEX || from == DK_COMPLEX) {
			double re, im;
			literal_get_c(l, i, &re, &im);
			literal_set_c(r, i, re, im);
		} else if (from == DK_FLOAT || k == DK_FLOAT) {
			literal_set_f64(r, i, literal_get_f64(l, i));
		} else {
			literal_set_i64(r, i, literal_get_i64(l, i));
		}
	}
	return r;
}

static void put_header(StrBuf *b, const NpyType *t, const Shape *s)
{
	char own[256]; /* (a header of a few dims: no allocation) */
	StrBuf h;
	sb_init_on(&h, own, sizeof own);
	sb_printf(&h, "{'descr': '%c%c%d', 'fortran_order': False, 'shape': (",
		  t->size == 1 ? '|' : '<', t->kind, t->size);
	for (int i = 0; i < s->rank; i++)
		sb_printf(&h, "%lld,%s", (long long)s->dims[i],
			  i + 1 < s->rank || s->rank > 1 ? " " : "");
	if (h.oom) { /* (the text cut short: b says so) */
		b->oom = 1;
		sb_free(&h);
		return;
	}
	if (s->rank > 1)
		h.len -= 2, h.s[h.len] = 0; /* "(2, 3)" not "(2, 3, )" */
	sb_puts(&h, "), }");
	size_t total = 10 + h.len + 1;
	size_t pad = (64 - total % 64) % 64;
	for (size_t i = 0; i < pad; i++)
		sb_putc(&h, ' ');
	sb_putc(&h, '\n');
	sb_putn(b, "\x93NUMPY\x01\x00", 8);
	sb_putc(b, (char)(h.len & 0xff));
	sb_putc(b, (char)(h.len >> 8));
	sb_putn(b, h.s, h.len);
	sb_free(&h);
}

bool npy_write(const char *path, const Literal *l, Diag *d, const char **note)
{
	if (note)
		*note = NULL;
	if (!dtype_is_array(l->shape->type))
		return fail(d, path, "only arrays can be written as .npy", NULL);
	Dtype ft = file_type(l->shape->type);
	const NpyType *t = type_by_dtype(ft);
	if (!t)
		return fail(d, path, "no .npy type for ", dtype_name(l->shape->type));
	Arena a;
	arena_init(&a);
	const Literal *w = l;
	if (ft != l->shape->type) {
		w = literal_convert(&a, l, ft);
		if (note)
			*note = dtype_kind(ft) == DK_FLOAT
					? "NumPy has no such type: written as float32"
					: "NumPy has no such type: written as 8-bit integers";
	}
	StrBuf b;
	sb_init(&b);
	bool ok = w != NULL;
	if (ok) {
		put_header(&b, t, l->shape);
		sb_putn(&b, w->data, (size_t)w->n * (size_t)t->size);
		ok = !b.oom;
	}
	if (!ok)
		fail(d, path, "out of memory", NULL);
	else if (!(ok = file_write_whole(path, b.s, b.len)))
		fail(d, path, "cannot write: ", strerror(errno));
	sb_free(&b);
	arena_free(&a);
	return ok;
}
