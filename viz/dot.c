/* dot.c - HLO to DOT text (see dot.h): colours and labels as XLA's graph
 * dumper, inlined small constants, fusion and body clusters, the
 * neighbourhood of an instruction, the node cap and its fall-backs, and
 * the two-panel compare picture.
 *
 * A picture is drawn in two phases: nodes and clusters first (deciding
 * which fusions are drawn open), then every edge, so that an edge into an
 * open fusion can go to its fused parameter and one out of it can leave
 * from its fused root. A fall-back redraws the whole panel into a scratch
 * buffer with fewer things open until it fits under the cap. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dot.h"
#include "print.h"

enum { DIFF_NONE, DIFF_ADDED, DIFF_REMOVED, DIFF_CHANGED };

enum {
	INLINE_MAX_ELEMS = 8,  /* constants this small go into labels */
	INLINE_MAX_CHARS = 64, /* ... when their text is this short */
	TEXT_MAX_CHARS = 64,   /* shapes and attributes are cut here */
	SMALL_ELEMS = 4096,    /* edges from smaller values: empty arrow */
	FANOUT_STOP = 16, /* neighbourhoods stop at nodes with more users */
	MAX_NEST = 8,     /* clusters inside clusters */
};

/* --- colours (XLA's hlo_graph_dumper, Material palette) --- */

typedef struct Scheme {
	const char *fill, *stroke, *font;
} Scheme;

static const Scheme SC_WHITE = {"#ffffff", "#9e9e9e", "#000000"};
static const Scheme SC_YELLOW = {"#fff9c4", "#cbc693", "#000000"};
static const Scheme SC_GREEN = {"#c8e6c9", "#97b498", "#000000"};
static const Scheme SC_DARK_BLUE = {"#1565c0", "#003c8f", "#ffffff"};
static const Scheme SC_PURPLE = {"#e1bee7", "#af8eb5", "#000000"};
static const Scheme SC_GRAY = {"#cfd8dc", "#9ea7aa", "#000000"};
static const Scheme SC_BROWN = {"#bcaaa4", "#8c7b75", "#000000"};
static const Scheme SC_DARK_GREEN = {"#2e7d32", "#005005", "#ffffff"};
static const Scheme SC_ORANGE = {"#ffe0b2", "#cbae82", "#000000"};
static const Scheme SC_DARK_ORANGE = {"#ffb74d", "#c88719", "#000000"};
static const Scheme SC_RED = {"#b71c1c", "#7f0000", "#ffffff"};
/* Compare: what happened to an instruction between the two versions. */
static const Scheme SC_ADDED = {"#a5d6a7", "#1b5e20", "#000000"};
static const Scheme SC_REMOVED = {"#ef9a9a", "#b71c1c", "#000000"};
static const Scheme SC_CHANGED = {"#ffe082", "#e65100", "#000000"};

static bool is_async(HloOpcode op)
{
	return op == HLO_ASYNC_START || op == HLO_ASYNC_UPDATE ||
	       op == HLO_ASYNC_DONE;
}

static Scheme scheme_param(const HloInstr *ins)
{
	int64_t n = shape_elements(ins->shape);
	return n >= SMALL_ELEMS ? SC_DARK_ORANGE : SC_ORANGE;
}

/* The colour of an opcode's category; fused: inside a fusion. */
static Scheme scheme_of(const HloInstr *ins, bool fused)
{
	HloOpcode op = ins->op;
	if (is_async(op) && ins->async_wrapped != HLO_INVALID)
		op = ins->async_wrapped;
	switch (op) {
	case HLO_PARAMETER:
		return scheme_param(ins);
	case HLO_BROADCAST:
	case HLO_DYNAMIC_UPDATE_SLICE:
		return SC_YELLOW;
	case HLO_BITCAST:
		return fused ? SC_GREEN : SC_WHITE;
	case HLO_CONCATENATE:
	case HLO_DYNAMIC_SLICE:
	case HLO_RESHAPE:
	case HLO_DYNAMIC_RESHAPE:
	case HLO_REVERSE:
	case HLO_TRANSPOSE:
	case HLO_COPY:
	case HLO_COPY_START:
	case HLO_COPY_DONE:
		return SC_GREEN;
	case HLO_CONVOLUTION:
	case HLO_DOT:
	case HLO_RAGGED_DOT:
	case HLO_SCALED_DOT:
	case HLO_FFT:
	case HLO_TRIANGULAR_SOLVE:
	case HLO_CHOLESKY:
		return SC_DARK_BLUE;
	case HLO_REDUCE:
	case HLO_REDUCE_WINDOW:
	case HLO_SCATTER:
	case HLO_SELECT_AND_SCATTER:
	case HLO_GATHER:
	case HLO_BATCH_NORM_GRAD:
	case HLO_BATCH_NORM_INFERENCE:
	case HLO_BATCH_NORM_TRAINING:
		return SC_PURPLE;
	case HLO_FUSION:
	case HLO_MAP:
	case HLO_DOMAIN:
	case HLO_GET_DIMENSION_SIZE:
	case HLO_SET_DIMENSION_SIZE:
		return SC_GRAY;
	case HLO_CALL:
	case HLO_CONDITIONAL:
	case HLO_CUSTOM_CALL:
	case HLO_WHILE:
		return SC_DARK_GREEN;
	case HLO_INFEED:
	case HLO_OUTFEED:
	case HLO_SEND:
	case HLO_SEND_DONE:
	case HLO_RECV:
	case HLO_RECV_DONE:
	case HLO_PARTITION_ID:
	case HLO_REPLICA_ID:
		return SC_BROWN;
	default:
		return (hlo_opcode_flags(op) & XF_COLL) ? SC_BROWN : SC_WHITE;
	}
}

/* --- text helpers --- */

/* Characters are copied whole; a byte that starts no valid UTF-8
 * sequence (names come from any file; a cut may split one) becomes
 * U+FFFD, so that Graphviz and browsers read the text. */
void viz_html_escape(StrBuf *b, const char *s, size_t n, bool controls)
{
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)s[i] >= 0x80) {
			i += sb_put_char(b, s + i, n - i) - 1;
			continue;
		}
		switch (s[i]) {
		case '&':
			sb_puts(b, "&amp;");
			break;
		case '<':
			sb_puts(b, "&lt;");
			break;
		case '>':
			sb_puts(b, "&gt;");
			break;
		case '"':
			sb_puts(b, "&quot;");
			break;
		default: {
			unsigned char c = (unsigned char)s[i];
			bool ctl = c < 32 || c == 0x7f;
			/* HTML allows tab and line ends as text; any other
			 * control character is a parse error (an ESC read
			 * from a module's string went into the report) */
			if (!ctl)
				sb_putc(b, s[i]);
			else if (!controls)
				sb_putc(b, ' ');
			else if (c == '\t' || c == '\n' || c == '\r')
				sb_putc(b, s[i]);
			else
				sb_puts(b, "\xef\xbf\xbd");
		}
		}
	}
}

/* s escaped for an HTML-like label, cut at max characters with "...". */
static void esc(StrBuf *b, const char *s, size_t max)
{
	size_t n = strlen(s);
	bool cut = max && n > max;
	size_t k = cut ? max - 3 : n;
	while (cut && k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--; /* not inside a character */
	viz_html_escape(b, s, k, false);
	if (cut)
		sb_puts(b, "...");
}

/* s as a quoted DOT string (graph titles). */
static void quoted(StrBuf *b, const char *s)
{
	sb_putc(b, '"');
	for (size_t n = strlen(s); *s; s++, n--) {
		if ((unsigned char)*s >= 0x80) { /* as viz_html_escape */
			size_t k = utf8_len(s, n);
			if (k)
				sb_putn(b, s, k);
			else
				sb_puts(b, "\xef\xbf\xbd");
			s += k ? k - 1 : 0;
			n -= k ? k - 1 : 0;
			continue;
		}
		if (*s == '"' || *s == '\\')
			sb_putc(b, '\\');
		sb_putc(b, (unsigned char)*s < 32 ? ' ' : *s);
	}
	sb_putc(b, '"');
}

/* Layout only when it says something: an array of rank > 1. */
static bool layout_matters(const Shape *s)
{
	return !shape_is_tuple(s) && shape_is_array(s) && s->rank > 1;
}

static void shape_text(StrBuf *b, const Shape *s)
{
	StrBuf t;
	sb_init(&t);
	shape_print(&t, s, layout_matters(s));
	esc(b, sb_str(&t), TEXT_MAX_CHARS);
	sb_free(&t);
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* --- what is drawn as a node --- */

static bool small_const(const HloInstr *ins)
{
	if (ins->op != HLO_CONSTANT || !ins->literal ||
	    !shape_is_array(ins->shape) ||
	    shape_elements(ins->shape) > INLINE_MAX_ELEMS)
		return false;
	char buf[INLINE_MAX_CHARS * 2 + 64]; /* (no allocation: no failure) */
	StrBuf t;
	sb_init_on(&t, buf, sizeof buf);
	literal_print(&t, ins->literal, INLINE_MAX_ELEMS);
	bool ok = t.len <= INLINE_MAX_CHARS && !t.oom;
	sb_free(&t);
	return ok;
}

/* Written into its users' labels rather than drawn: a small constant, or
 * a broadcast of a small scalar constant (never a root). */
static bool inlined(const HloInstr *ins)
{
	if (ins->parent && ins->parent->root == ins)
		return false;
	if (ins->nusers == 0)
		return false;
	if (ins->op == HLO_CONSTANT)
		return small_const(ins);
	return ins->op == HLO_BROADCAST && ins->nops == 1 &&
	       shape_is_scalar(ins->ops[0]->shape) && inlined(ins->ops[0]);
}

static void inline_text(StrBuf *b, const HloInstr *p)
{
	StrBuf t;
	sb_init(&t);
	shape_print(&t, p->shape, false);
	const HloInstr *c = p->op == HLO_BROADCAST ? p->ops[0] : p;
	sb_puts(&t, p->op == HLO_BROADCAST ? " broadcast " : " ");
	literal_print(&t, c->literal, INLINE_MAX_ELEMS);
	esc(b, sb_str(&t), TEXT_MAX_CHARS + 32);
	sb_free(&t);
}

/* A reducer XLA names instead of drawing: two parameters and one
 * instruction combining them. Its opcode name, or NULL. */
static const char *trivial_reducer(const HloComp *c)
{
	if (!c || c->n != 3 || !c->root || c->root->nops != 2)
		return NULL;
	const HloInstr *r = c->root;
	if (r->ops[0]->op != HLO_PARAMETER || r->ops[1]->op != HLO_PARAMETER ||
	    !(hlo_opcode_flags(r->op) & XF_EW))
		return NULL;
	if (r->op == HLO_COMPARE) {
		const char *d = hlo_attr_enum(r, A_DIRECTION);
		return d ? d : "compare";
	}
	return hlo_opcode_name(r->op);
}

static bool has_bodies(const HloInstr *ins)
{
	return ins->op == HLO_WHILE || ins->op == HLO_CONDITIONAL ||
	       ins->op == HLO_CALL;
}

/* --- one panel: a module drawn with a prefix on its node names --- */

/* A computation drawn as a cluster, and the instruction calling it. */
typedef struct Cluster {
	const HloComp *comp;
	const HloInstr *caller;
	int k; /* which of the caller's computations */
	bool fusion;
} Cluster;

typedef struct View {
	const HloModule *m;
	StrBuf *b;
	const char *pfx;   /* node names: pfx + instruction id */
	const uint8_t *st; /* DIFF_* by id, drawn as colours; NULL: none */
	/* What is drawn: the computation top; with subset only the
	 * instructions with show[id] (and cut[id] counts what is not). */
	const HloComp *top;
	bool subset;
	uint8_t *show;
	int *cut_in, *cut_out;
	const HloInstr *center;
	bool collapse; /* fusions as one node */
	bool bodies;   /* while/conditional/call bodies as clusters */
	uint8_t *open; /* by id: fusion drawn as a cluster */
	Cluster *cl;
	int ncl, capcl;
	int nodes;
	bool oom;
} View;

/* Written into its users' labels in this picture (the centre of a
 * neighbourhood never is). */
static bool folded(const View *v, const HloInstr *ins)
{
	return ins != v->center && inlined(ins);
}

static void indent(View *v, int nest)
{
	for (int i = 0; i <= nest; i++)
		sb_puts(v->b, "  ");
}

static void node_name(View *v, const HloInstr *ins)
{
	sb_printf(v->b, "%s%d", v->pfx, ins->id);
}

static bool is_node(const View *v, const HloInstr *ins)
{
	if (folded(v, ins))
		return false;
	return ins->parent != v->top || !v->subset || v->show[ins->id];
}

static bool comp_drawn(const View *v, const HloComp *c)
{
	for (int i = 0; i < v->ncl; i++)
		if (v->cl[i].comp == c)
			return true;
	return c == v->top;
}

static bool add_cluster(View *v, const HloComp *c, const HloInstr *caller,
			int k, bool fusion)
{
	if (v->ncl == v->capcl) {
		int cap = v->capcl ? 2 * v->capcl : 16;
		Cluster *n = realloc(v->cl, (size_t)cap * sizeof *n);
		if (!n) {
			v->oom = true;
			return false;
		}
		v->cl = n;
		v->capcl = cap;
	}
	v->cl[v->ncl++] = (Cluster){c, caller, k, fusion};
	return true;
}

static void attr_line(StrBuf *b, const HloInstr *ins)
{
	static const AttrKey shown[] = {
		A_DIRECTION, A_DIMENSIONS,         A_INDEX,
		A_SLICE,     A_CUSTOM_CALL_TARGET, A_FEATURE_GROUP_COUNT,
	};
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		const HloAttr *a = hlo_attr_find(ins, shown[i]);
		if (!a)
			continue;
		StrBuf t;
		sb_init(&t);
		sb_printf(&t, "%s=", hlo_attr_name(shown[i]));
		print_attr_value(&t, a);
		sb_puts(b, "<br/>");
		esc(b, sb_str(&t), TEXT_MAX_CHARS);
		sb_free(&t);
	}
}

/* Called computations not drawn as clusters: one line each. */
static void called_lines(View *v, const HloInstr *ins)
{
	if (ins->op == HLO_FUSION)
		return;
	int n = hlo_instr_ncalled(ins);
	for (int i = 0; i < n; i++) {
		const HloComp *c = hlo_instr_called_at(ins, i);
		if (!c)
			continue;
		const char *r = trivial_reducer(c);
		sb_puts(v->b, "<br/>");
		if (r) {
			sb_puts(v->b, "Subcomputation: ");
			esc(v->b, r, TEXT_MAX_CHARS);
		} else if (!(v->bodies && has_bodies(ins))) {
			esc(v->b, c->name, TEXT_MAX_CHARS);
			sb_printf(v->b, " (%d instructions)", c->n);
		} else {
			sb_puts(v->b, "calls ");
			esc(v->b, c->name, TEXT_MAX_CHARS);
		}
	}
}

static void opcode_line(View *v, const HloInstr *ins)
{
	const char *op = hlo_opcode_name(ins->op);
	if (ins->op == HLO_PARAMETER) {
		sb_printf(v->b, "<br/>Parameter %lld",
			  (long long)ins->param_no);
	} else if (ins->op == HLO_FUSION) {
		const char *kind = hlo_attr_enum(ins, A_KIND);
		sb_puts(v->b,
			starts_with(ins->name, op) ? "<br/>" : "<br/>fusion:");
		esc(v->b, kind ? kind : "fusion", TEXT_MAX_CHARS);
	} else if (!starts_with(ins->name, op)) {
		sb_puts(v->b, "<br/>");
		esc(v->b, op, 0);
	}
}

static void label(View *v, const HloInstr *ins)
{
	StrBuf *b = v->b;
	sb_puts(b, "<<b>");
	esc(b, ins->name, TEXT_MAX_CHARS);
	sb_puts(b, "</b>");
	opcode_line(v, ins);
	attr_line(b, ins);
	called_lines(v, ins);
	sb_puts(b, "<br/>");
	if (small_const(ins))
		inline_text(b, ins); /* a constant drawn: its value */
	else
		shape_text(b, ins->shape);
	for (int i = 0; i < ins->nops; i++) {
		if (!folded(v, ins->ops[i]))
			continue;
		sb_printf(b, "<br/><i>operand %d</i> = ", i);
		inline_text(b, ins->ops[i]);
	}
	/* a fused parameter bound to a value written into labels (a small
	 * constant): that value, as no edge brings it */
	for (int i = 0; ins->op == HLO_PARAMETER && i < v->ncl; i++) {
		const Cluster *c = &v->cl[i];
		if (c->comp != ins->parent || !c->fusion ||
		    ins->param_no < 0 || ins->param_no >= c->caller->nops)
			continue;
		const HloInstr *o = c->caller->ops[ins->param_no];
		if (o && folded(v, o)) {
			sb_puts(b, "<br/><i>bound to</i> ");
			inline_text(b, o);
		}
		break;
	}
	sb_puts(b, ">");
}

/* Is ins inside a fusion drawn open? */
static bool in_fusion(const View *v, const HloInstr *ins)
{
	for (int i = 0; i < v->ncl; i++)
		if (v->cl[i].comp == ins->parent)
			return v->cl[i].fusion;
	return false;
}

static Scheme node_scheme(const View *v, const HloInstr *ins)
{
	if (ins == v->center)
		return SC_RED;
	if (v->st) {
		switch (v->st[ins->id]) {
		case DIFF_ADDED:
			return SC_ADDED;
		case DIFF_REMOVED:
			return SC_REMOVED;
		case DIFF_CHANGED:
			return SC_CHANGED;
		}
	}
	return scheme_of(ins, ins->op == HLO_BITCAST && in_fusion(v, ins));
}

static void emit_node(View *v, const HloInstr *ins, int nest)
{
	Scheme s = node_scheme(v, ins);
	bool cut = v->subset && ins->parent == v->top &&
		   (v->cut_in[ins->id] || v->cut_out[ins->id]);
	bool diff = v->st && v->st[ins->id];
	indent(v, nest);
	node_name(v, ins);
	sb_puts(v->b, " [label=");
	label(v, ins);
	sb_printf(v->b, ", fillcolor=\"%s\", color=\"%s\", fontcolor=\"%s\"",
		  s.fill, s.stroke, s.font);
	if (ins == v->center) /* highlighted, as XLA's dumper draws it */
		sb_puts(v->b, ", shape=diamond");
	else if (ins->op == HLO_WHILE)
		sb_puts(v->b, ", shape=ellipse");
	if (cut)
		sb_puts(v->b, ", style=\"filled,dashed\"");
	if (diff || ins == v->center)
		sb_puts(v->b, ", penwidth=3");
	else if (ins->parent->root == ins)
		sb_puts(v->b, ", penwidth=2");
	sb_puts(v->b, "];\n");
	v->nodes++;
}

static void emit_comp(View *v, const HloComp *c, int nest);

static void emit_fusion(View *v, const HloInstr *ins, const HloComp *c,
			int nest)
{
	const char *kind = hlo_attr_enum(ins, A_KIND);
	v->open[ins->id] = 1;
	if (!add_cluster(v, c, ins, 0, true))
		return;
	Scheme s = {"#f5f5f5", "#c2c2c2", "#000000"};
	if (v->st && v->st[ins->id]) {
		Scheme d = node_scheme(v, ins);
		s.stroke = d.stroke;
	}
	if (ins == v->center)
		s = (Scheme){"#ffcdd2", "#b71c1c", "#000000"};
	indent(v, nest);
	sb_printf(v->b, "subgraph cluster_%s%d {\n", v->pfx, ins->id);
	indent(v, nest + 1);
	sb_puts(v->b, "label=<Fused expression for <b>");
	esc(v->b, ins->name, TEXT_MAX_CHARS);
	sb_puts(v->b, "</b><br/>");
	esc(v->b, kind ? kind : "fusion", TEXT_MAX_CHARS);
	sb_printf(v->b,
		  ">; style=\"rounded,filled,bold\"; fillcolor=\"%s\"; "
		  "color=\"%s\";\n",
		  s.fill, s.stroke);
	emit_comp(v, c, nest + 1);
	indent(v, nest);
	sb_puts(v->b, "}\n");
}

static void emit_bodies(View *v, const HloInstr *ins, int nest)
{
	int n = hlo_instr_ncalled(ins);
	for (int k = 0; k < n; k++) {
		const HloComp *c = hlo_instr_called_at(ins, k);
		if (!c || trivial_reducer(c) || comp_drawn(v, c) ||
		    nest >= MAX_NEST || !add_cluster(v, c, ins, k, false))
			continue;
		indent(v, nest);
		sb_printf(v->b, "subgraph cluster_%s%d_%d {\n", v->pfx, ins->id,
			  k);
		indent(v, nest + 1);
		sb_puts(v->b, "label=<Subcomputation for <b>");
		esc(v->b, ins->name, TEXT_MAX_CHARS);
		sb_puts(v->b, "</b><br/>");
		esc(v->b, c->name, TEXT_MAX_CHARS);
		sb_puts(v->b, ">; style=\"rounded\"; color=\"#000000\";\n");
		emit_comp(v, c, nest + 1);
		indent(v, nest);
		sb_puts(v->b, "}\n");
	}
}

static void emit_comp(View *v, const HloComp *c, int nest)
{
	for (int i = 0; i < c->n && !v->oom; i++) {
		const HloInstr *ins = c->instrs[i];
		if (!is_node(v, ins))
			continue;
		const HloComp *f = ins->op == HLO_FUSION
					   ? hlo_instr_called_at(ins, 0)
					   : NULL;
		if (f && !v->collapse && nest < MAX_NEST && f->root &&
		    !comp_drawn(v, f)) {
			emit_fusion(v, ins, f, nest);
			continue;
		}
		emit_node(v, ins, nest);
		if (v->bodies && has_bodies(ins))
			emit_bodies(v, ins, nest);
	}
}

/* --- edges --- */

/* The node an edge out of p leaves from: an open fusion's fused root. */
static const HloInstr *source(const View *v, const HloInstr *p)
{
	for (int k = 0; k <= MAX_NEST && p->op == HLO_FUSION && v->open[p->id];
	     k++)
		p = hlo_instr_called_at(p, 0)->root;
	return p;
}

static void edge(View *v, const HloInstr *from, const HloInstr *to,
		 const HloInstr *user, int i)
{
	sb_puts(v->b, "  ");
	node_name(v, from);
	sb_puts(v->b, " -> ");
	node_name(v, to);
	const char *sep = " [";
	if (user->nops > 1) {
		sb_printf(v->b, "%sheadlabel=\"%d\"", sep, i);
		sep = ", ";
	}
	if (shape_elements(from->shape) < SMALL_ELEMS) {
		sb_printf(v->b, "%sarrowhead=empty", sep);
		sep = ", ";
	}
	sb_puts(v->b, *sep == ',' ? "];\n" : ";\n");
}

enum { MAX_PARALLEL = 64 }; /* edges between one pair, as XLA's dumper */

/* How many of u's operands before slot i are p, up to MAX_PARALLEL
 * (a concatenate of thousands of one value would draw thousands of
 * edges, which no layout finishes). */
static int earlier_uses(const HloInstr *u, int i, const HloInstr *p)
{
	int k = 0;
	for (int j = 0; j < i && k < MAX_PARALLEL; j++)
		k += u->ops[j] == p;
	return k;
}

/* Edges into u (a node, or an open fusion whose operands go to its fused
 * parameters). */
static void edges_in(View *v, const HloInstr *u)
{
	const HloComp *f = v->open[u->id] ? hlo_instr_called_at(u, 0) : NULL;
	for (int i = 0; i < u->nops; i++) {
		const HloInstr *p = u->ops[i];
		if (folded(v, p) || !is_node(v, p))
			continue;
		const HloInstr *to = f ? hlo_comp_param(f, i) : u;
		if (to && (f || u->nops <= MAX_PARALLEL ||
			   earlier_uses(u, i, p) < MAX_PARALLEL))
			edge(v, source(v, p), to, u, i);
	}
}

/* Dotted gray edges labelled ctrl from each of u's control
 * predecessors (control-predecessors={a, %b}, names in u's
 * computation) that the picture shows. */
static void control_edges(View *v, const HloInstr *u)
{
	const HloAttr *a = hlo_attr_find_raw(u, "control-predecessors");
	const char *p = a && a->key == A_RAW ? a->u.s : NULL;
	while (p && *p) {
		p += strspn(p, "{}, \t%");
		size_t n = strcspn(p, "{}, \t");
		if (!n)
			break;
		/* the whole name, however long (a copy into a fixed buffer
		 * cut it, and found another instruction or none) */
		const HloInstr *x = namemap_getn(&u->parent->names, p, n);
		p += n;
		if (!x || folded(v, x) || !is_node(v, x))
			continue;
		sb_puts(v->b, "  ");
		node_name(v, source(v, x));
		sb_puts(v->b, " -> ");
		node_name(v, u);
		sb_puts(v->b, " [style=dotted, color=\"#9e9e9e\", "
			      "label=\"ctrl\", fontcolor=\"#757575\"];\n");
	}
}

static void comp_edges(View *v, const HloComp *c)
{
	for (int i = 0; i < c->n; i++) {
		const HloInstr *ins = c->instrs[i];
		if (!is_node(v, ins))
			continue;
		edges_in(v, ins);
		if (c->module->control_preds)
			control_edges(v, ins);
	}
}

/* Dashed stubs where a neighbourhood cuts edges off. */
static void cut_edges(View *v, const HloInstr *ins)
{
	int in = v->cut_in[ins->id], out = v->cut_out[ins->id];
	if (in) {
		sb_printf(v->b,
			  "  %s%d_in [shape=plaintext, label=\"%d operand%s\", "
			  "fontcolor=\"#757575\"];\n",
			  v->pfx, ins->id, in, in == 1 ? "" : "s");
		/* into the node; into an open fusion, to the fused
		 * parameters its cut operands feed */
		const HloComp *f =
			v->open[ins->id] ? hlo_instr_called_at(ins, 0) : NULL;
		for (int k = 0, drawn = 0; k < (f ? ins->nops : 1) &&
					   drawn < MAX_PARALLEL; k++) {
			const HloInstr *o = ins->ops[k];
			const HloInstr *to =
				!f ? source(v, ins)
				   : !folded(v, o) && !v->show[o->id]
					     ? hlo_comp_param(f, k)
					     : NULL;
			if (!to)
				continue;
			sb_printf(v->b, "  %s%d_in -> ", v->pfx, ins->id);
			node_name(v, to);
			sb_puts(v->b,
				" [style=dashed, color=\"#9e9e9e\"];\n");
			drawn++;
		}
	}
	if (out) {
		sb_printf(v->b,
			  "  %s%d_out [shape=plaintext, label=\"%d user%s\", "
			  "fontcolor=\"#757575\"];\n",
			  v->pfx, ins->id, out, out == 1 ? "" : "s");
		sb_puts(v->b, "  ");
		node_name(v, source(v, ins));
		sb_printf(v->b,
			  " -> %s%d_out [style=dashed, color=\"#9e9e9e\"];\n",
			  v->pfx, ins->id);
	}
}

static void emit_edges(View *v)
{
	const HloComp *top = v->top;
	comp_edges(v, top);
	for (int i = 0; i < v->ncl; i++) {
		const Cluster *c = &v->cl[i];
		comp_edges(v, c->comp);
		if (c->fusion || !c->comp->root)
			continue;
		/* The body's result goes back to its caller. */
		sb_puts(v->b, "  ");
		node_name(v, source(v, c->comp->root));
		sb_puts(v->b, " -> ");
		node_name(v, c->caller);
		sb_printf(v->b,
			  " [style=dashed, ltail=cluster_%s%d_%d, "
			  "color=\"#616161\"];\n",
			  v->pfx, c->caller->id, c->k);
	}
	if (v->subset)
		for (int i = 0; i < top->n; i++)
			if (is_node(v, top->instrs[i]))
				cut_edges(v, top->instrs[i]);
	const HloInstr *r = top->root;
	if (r && is_node(v, r)) {
		sb_printf(v->b,
			  "  %sroot [shape=circle, label=\"ROOT\", "
			  "fillcolor=\"#bcaaa4\", color=\"#8c7b75\", "
			  "fontsize=8];\n  ",
			  v->pfx);
		node_name(v, source(v, r));
		sb_printf(v->b, " -> %sroot;\n", v->pfx);
	}
}

/* --- selection: neighbourhoods --- */

/* For every shown instruction of v->top, the operands and users that
 * are not shown (drawn as dashed stubs). */
static void count_cuts(View *v)
{
	for (int i = 0; i < v->top->n; i++) {
		const HloInstr *x = v->top->instrs[i];
		v->cut_in[x->id] = v->cut_out[x->id] = 0;
		if (!v->show[x->id])
			continue;
		for (int k = 0; k < x->nops; k++)
			if (!folded(v, x->ops[k]) && !v->show[x->ops[k]->id])
				v->cut_in[x->id]++;
		for (int k = 0; k < x->nusers; k++)
			if (x->users[k]->parent == v->top &&
			    !v->show[x->users[k]->id])
				v->cut_out[x->id]++;
	}
}

/* Shows the instructions of v->top up to depth edges from the seeds, at
 * most limit of them in breadth-first order (operands and users;
 * constants' users and the users of nodes with more than FANOUT_STOP
 * users are not followed), then counts the edges cut off. */
static bool select_near(View *v, const HloInstr *const *seeds, int nseeds,
			int depth, int limit)
{
	int n = v->m->next_id;
	int *dist = malloc((size_t)n * sizeof *dist);
	const HloInstr **q = malloc((size_t)(v->top->n + 1) * sizeof *q);
	if (!dist || !q) {
		free(dist);
		free(q);
		return false;
	}
	for (int i = 0; i < n; i++)
		dist[i] = -1;
	int head = 0, tail = 0;
	for (int i = 0; i < nseeds && tail < limit; i++)
		if (dist[seeds[i]->id] < 0) {
			dist[seeds[i]->id] = 0;
			q[tail++] = seeds[i];
		}
	while (head < tail && tail < limit) {
		const HloInstr *x = q[head++];
		int d = dist[x->id];
		if (d >= depth)
			continue;
		for (int i = 0; i < x->nops && tail < limit; i++) {
			const HloInstr *p = x->ops[i];
			if (!folded(v, p) && dist[p->id] < 0) {
				dist[p->id] = d + 1;
				q[tail++] = p;
			}
		}
		if ((x->op == HLO_CONSTANT || x->nusers > FANOUT_STOP) && d > 0)
			continue;
		for (int i = 0; i < x->nusers && tail < limit; i++) {
			const HloInstr *u = x->users[i];
			if (u->parent == v->top && dist[u->id] < 0) {
				dist[u->id] = d + 1;
				q[tail++] = u;
			}
		}
	}
	for (int i = 0; i < v->top->n; i++) {
		const HloInstr *x = v->top->instrs[i];
		v->show[x->id] = dist[x->id] >= 0;
	}
	count_cuts(v);
	free(dist);
	free(q);
	return true;
}

/* --- diff status --- */

typedef struct Matcher {
	const HloModule *other;
	NameMap any; /* instruction name -> first instruction of that name */
	StrBuf ta, tb;
} Matcher;

static bool matcher_init(Matcher *mt, const HloModule *other)
{
	mt->other = other;
	namemap_init(&mt->any);
	sb_init(&mt->ta);
	sb_init(&mt->tb);
	/* Entry first, so a name found there wins. */
	const HloComp *e = other->entry;
	for (int pass = 0; pass < 2; pass++)
		for (int c = 0; c < other->ncomps; c++) {
			const HloComp *oc = other->comps[c];
			if ((oc == e) != (pass == 0))
				continue;
			for (int i = 0; i < oc->n; i++) {
				const HloInstr *x = oc->instrs[i];
				if (!namemap_get(&mt->any, x->name) &&
				    !namemap_put(&mt->any, x->name, (void *)x))
					return false;
			}
		}
	return true;
}

static void matcher_free(Matcher *mt)
{
	namemap_free(&mt->any);
	sb_free(&mt->ta);
	sb_free(&mt->tb);
}

static const PrintOpts match_opts = {.short_form = true, .max_const_elems = 64};

static int status_of(Matcher *mt, const HloInstr *x, int missing)
{
	const HloComp *oc = hlo_module_find_comp(mt->other, x->parent->name);
	const HloInstr *o = oc ? hlo_comp_find(oc, x->name) : NULL;
	if (!o)
		o = namemap_get(&mt->any, x->name);
	if (!o)
		return missing;
	sb_clear(&mt->ta);
	sb_clear(&mt->tb);
	print_instr(&mt->ta, x, &match_opts);
	print_instr(&mt->tb, o, &match_opts);
	return strcmp(sb_str(&mt->ta), sb_str(&mt->tb)) ? DIFF_CHANGED
							: DIFF_NONE;
}

/* st[id] for every instruction of m against other; false when out of
 * memory. */
static bool mark_diff(uint8_t *st, const HloModule *m, const HloModule *other,
		      int missing)
{
	Matcher mt;
	bool ok = matcher_init(&mt, other);
	for (int c = 0; ok && c < m->ncomps; c++) {
		const HloComp *mc = m->comps[c];
		for (int i = 0; i < mc->n; i++)
			st[mc->instrs[i]->id] =
				(uint8_t)status_of(&mt, mc->instrs[i], missing);
	}
	ok = ok && !mt.ta.oom && !mt.tb.oom;
	matcher_free(&mt);
	return ok;
}

int viz_count_changed(const HloModule *m, const HloModule *prev)
{
	if (!m->entry || !prev)
		return 0;
	uint8_t *st = calloc((size_t)m->next_id + 1, 1);
	int n = 0;
	if (st && mark_diff(st, m, prev, DIFF_ADDED))
		for (int i = 0; i < m->entry->n; i++)
			n += st[m->entry->instrs[i]->id] != DIFF_NONE;
	free(st);
	return n;
}

/* --- a panel with its fall-backs --- */

typedef struct Panel {
	const HloModule *m;
	const char *pfx;
	const uint8_t *st;   /* colours (compare); NULL: none */
	const uint8_t *seed; /* changed instructions by id; NULL: none */
	const VizOpts *o;
	int cap;
} Panel;

static void view_reset(View *v)
{
	v->ncl = 0;
	v->nodes = 0;
	memset(v->open, 0, (size_t)v->m->next_id + 1);
}

/* Draws the panel as v is set up into out (scratch first). */
static bool draw(View *v, StrBuf *out)
{
	StrBuf b;
	sb_init(&b);
	view_reset(v);
	v->b = &b;
	if (v->top)
		emit_comp(v, v->top, 0);
	if (v->top)
		emit_edges(v);
	bool ok = !b.oom && !v->oom;
	sb_clear(out);
	sb_putn(out, b.s ? b.s : "", b.len);
	sb_free(&b);
	return ok && !out->oom;
}

/* The seeds of the neighbourhood fall-back: the centre, else what
 * changed, else the root. What they are goes into what. */
static int collect_seeds(const Panel *p, const HloComp *top,
			 const HloInstr **seeds, char *what, size_t cap)
{
	int n = 0;
	if (p->o->center) {
		seeds[n++] = p->o->center;
		snprintf(what, cap, "%s", p->o->center->name);
		return n;
	}
	for (int i = 0; p->seed && i < top->n; i++)
		if (p->seed[top->instrs[i]->id] && !inlined(top->instrs[i]))
			seeds[n++] = top->instrs[i];
	if (n) {
		snprintf(what, cap, "the %d instruction%s that changed", n,
			 n == 1 ? "" : "s");
		return n;
	}
	snprintf(what, cap, "the root");
	if (top->root)
		seeds[n++] = top->root;
	return n;
}

/* The neighbourhood fall-back: shrinking depth down to 1, then the
 * nearest nodes up to the cap in breadth-first order (seeds first). */
static bool fall_back_near(View *v, const Panel *p, StrBuf *out, VizResult *r,
			   int nfull)
{
	const HloComp *top = v->top;
	const HloInstr **seeds = malloc((size_t)(top->n + 1) * sizeof *seeds);
	if (!seeds)
		return false;
	char what[160];
	int ns = collect_seeds(p, top, seeds, what, sizeof what);
	v->subset = true;
	v->collapse = true;
	v->bodies = false;
	int d0 = p->o->center ? p->o->depth - 1 : 1;
	if (d0 < 1)
		d0 = 1;
	bool ok = true;
	int d = d0;
	for (;; d--) {
		ok = select_near(v, seeds, ns, d, INT_MAX) && draw(v, out);
		if (!ok || v->nodes <= p->cap || d == 1)
			break;
	}
	r->level = VIZ_CHANGED;
	if (ok && v->nodes > p->cap) {
		ok = select_near(v, seeds, ns, d0, p->cap) && draw(v, out);
		r->level = VIZ_TRUNCATED;
		snprintf(r->note, sizeof r->note,
			 "%d nodes is over the cap of %d: showing the %d "
			 "nearest to %s, fusions collapsed",
			 nfull, p->cap, v->nodes, what);
	} else {
		snprintf(r->note, sizeof r->note,
			 "%d nodes is over the cap of %d: showing the "
			 "neighbourhood (depth %d) of %s, fusions collapsed",
			 nfull, p->cap, d, what);
	}
	free(seeds);
	return ok;
}

/* Draws panel p into out, falling back as the cap asks. */
static bool draw_panel(const Panel *p, StrBuf *out, VizResult *r)
{
	const HloModule *m = p->m;
	size_t n = (size_t)m->next_id + 1;
	View v = {.m = m, .pfx = p->pfx, .st = p->st, .center = p->o->center};
	v.show = calloc(n, 1);
	v.open = calloc(n, 1);
	v.cut_in = calloc(n, sizeof *v.cut_in);
	v.cut_out = calloc(n, sizeof *v.cut_out);
	bool ok = v.show && v.open && v.cut_in && v.cut_out;
	memset(r, 0, sizeof *r);
	v.top = p->o->center ? p->o->center->parent : m->entry;
	v.collapse = p->o->fusions_collapsed;
	v.bodies = !p->o->bodies_summarised;
	if (ok && p->o->center) {
		v.subset = true;
		const HloInstr *c = p->o->center;
		ok = select_near(&v, &c, 1, p->o->depth, INT_MAX);
	}
	ok = ok && draw(&v, out);
	r->full_nodes = v.nodes;
	r->level = VIZ_FULL;
	if (ok && v.nodes > p->cap && (!v.collapse || v.bodies)) {
		v.collapse = true;
		v.bodies = false;
		ok = draw(&v, out);
		r->level = VIZ_COLLAPSED;
		snprintf(r->note, sizeof r->note,
			 "%d nodes is over the cap of %d: fusions collapsed "
			 "and bodies summarised (%d nodes)",
			 r->full_nodes, p->cap, v.nodes);
	}
	if (ok && v.nodes > p->cap && v.top)
		ok = fall_back_near(&v, p, out, r, r->full_nodes);
	r->nodes = v.nodes;
	free(v.show);
	free(v.open);
	free(v.cut_in);
	free(v.cut_out);
	free(v.cl);
	return ok;
}

/* --- whole pictures --- */

/* The graph's attributes; a graph of nodes instruction nodes or more
 * carries the bound on network simplex that rendering sets
 * (render.c), so that `dot` run on a written .dot file lays it out in
 * the same time and the same way (without it, minutes). */
static void header(StrBuf *b, const char *name, int nodes)
{
	sb_puts(b, "digraph ");
	quoted(b, name);
	sb_puts(b, " {\n"
		   "  graph [rankdir=TB, compound=true, newrank=true, "
		   "fontname=\"Helvetica\", fontsize=12, labelloc=t];\n");
	if (nodes >= VIZ_BOUND_FROM_NODES)
		sb_printf(b, "  graph [nslimit=%d, nslimit1=%d];\n",
			  VIZ_NSLIMIT, VIZ_NSLIMIT);
	sb_puts(b, "  node [shape=rect, style=filled, fontname=\"Helvetica\", "
		   "fontsize=10, margin=\"0.08,0.04\"];\n"
		   "  edge [fontname=\"Helvetica\", fontsize=8, "
		   "color=\"#616161\"];\n");
}

/* graph label: title, then the note in italics. */
static void graph_label(StrBuf *b, const char *title, const char *note,
			int nest)
{
	for (int i = 0; i <= nest; i++)
		sb_puts(b, "  ");
	sb_puts(b, "label=<<b>");
	esc(b, title, 0);
	sb_puts(b, "</b>");
	if (note && *note) {
		sb_puts(b, "<br/><i>");
		esc(b, note, 0);
		sb_puts(b, "</i>");
	}
	sb_puts(b, ">;\n");
}

static int cap_of(const VizOpts *o)
{
	return o->max_nodes > 0 ? o->max_nodes : VIZ_DEFAULT_MAX_NODES;
}

bool viz_dot_module(StrBuf *out, const HloModule *m, const VizOpts *o,
		    VizResult *r)
{
	size_t n = (size_t)m->next_id + 1;
	uint8_t *seed = NULL;
	if (o->prev) {
		seed = calloc(n, 1);
		if (!seed || !mark_diff(seed, m, o->prev, DIFF_ADDED)) {
			free(seed);
			return false;
		}
	}
	Panel p = {m, "n", NULL, seed, o, cap_of(o)};
	StrBuf body;
	sb_init(&body);
	bool ok = draw_panel(&p, &body, r);
	char title[256];
	if (o->title)
		snprintf(title, sizeof title, "%s", o->title);
	else if (o->center && o->center->parent &&
		 o->center->parent != m->entry)
		/* the picture is of that computation: its ROOT is marked,
		 * not the module's */
		snprintf(title, sizeof title,
			 "%s: neighbourhood of %s (depth %d) in %s", m->name,
			 o->center->name, o->depth, o->center->parent->name);
	else if (o->center)
		snprintf(title, sizeof title,
			 "%s: neighbourhood of %s (depth %d)", m->name,
			 o->center->name, o->depth);
	else
		snprintf(title, sizeof title, "%s", m->name);
	header(out, m->name, r->nodes);
	graph_label(out, title, r->note, 0);
	sb_putn(out, body.s ? body.s : "", body.len);
	sb_puts(out, "}\n");
	sb_free(&body);
	free(seed);
	return ok && !out->oom;
}

static void legend(StrBuf *b)
{
	sb_puts(b, "  legend [shape=plaintext, style=\"\", label=<<table "
		   "border=\"0\" cellborder=\"1\" cellspacing=\"2\">"
		   "<tr><td colspan=\"2\"><b>legend</b></td></tr>");
	const struct {
		const char *what;
		Scheme s;
	} rows[] = {
		{"added", SC_ADDED},
		{"removed", SC_REMOVED},
		{"changed", SC_CHANGED},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		sb_printf(b,
			  "<tr><td bgcolor=\"%s\" color=\"%s\">  </td>"
			  "<td align=\"left\">%s</td></tr>",
			  rows[i].s.fill, rows[i].s.stroke, rows[i].what);
	sb_puts(b, "<tr><td bgcolor=\"#f5f5f5\" color=\"#c2c2c2\" "
		   "style=\"rounded\">  </td><td align=\"left\">fusion "
		   "(box)</td></tr></table>>];\n");
}

static bool panel_cluster(StrBuf *out, const Panel *p, const char *title,
			  VizResult *r)
{
	StrBuf body;
	sb_init(&body);
	bool ok = draw_panel(p, &body, r);
	sb_printf(out, "  subgraph cluster_%s {\n", p->pfx);
	graph_label(out, title, r->note, 1);
	sb_puts(out, "    style=\"rounded\"; color=\"#757575\";\n");
	sb_putn(out, body.s ? body.s : "", body.len);
	sb_puts(out, "  }\n");
	sb_free(&body);
	return ok;
}

bool viz_dot_compare(StrBuf *out, const HloModule *a, const char *title_a,
		     const HloModule *b, const char *title_b, const VizOpts *o,
		     VizResult *ra, VizResult *rb)
{
	VizResult tmp_a, tmp_b;
	ra = ra ? ra : &tmp_a;
	rb = rb ? rb : &tmp_b;
	memset(ra, 0, sizeof *ra);
	VizOpts po = *o;
	po.center = NULL;
	int cap = cap_of(o);
	uint8_t *sa = a ? calloc((size_t)a->next_id + 1, 1) : NULL;
	uint8_t *sb = calloc((size_t)b->next_id + 1, 1);
	bool ok = sb && (!a || sa);
	if (ok && a)
		ok = mark_diff(sa, a, b, DIFF_REMOVED) &&
		     mark_diff(sb, b, a, DIFF_ADDED);
	/* the panels first: the header needs their node count */
	StrBuf body;
	sb_init(&body);
	memset(rb, 0, sizeof *rb);
	if (ok) {
		int half = a ? (cap + 1) / 2 : cap;
		Panel pa = {a, "a", sa, sa, &po, half};
		Panel pb = {b, "b", a ? sb : NULL, a ? sb : NULL, &po, half};
		if (a)
			ok = panel_cluster(&body, &pa,
					   title_a ? title_a : "before", ra);
		ok = ok &&
		     panel_cluster(&body, &pb, title_b ? title_b : "after", rb);
		if (a)
			legend(&body);
	}
	header(out, "compare", ra->nodes + rb->nodes);
	char title[200];
	snprintf(title, sizeof title, "%s%s%s", title_a ? title_a : "",
		 a ? " \xe2\x86\x92 " : "", title_b ? title_b : "");
	if (a)
		graph_label(out, title, NULL, 0);
	sb_putn(out, body.s ? body.s : "", body.len);
	sb_puts(out, "}\n");
	bool body_oom = body.oom;
	sb_free(&body);
	free(sa);
	free(sb);
	return ok && !body_oom && !out->oom;
}
