/* print.c - HLO text in XLA's default (long) form, or the short form. */
#include "print.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const PrintOpts print_opts_default = {false, 0, false, false};

static void put_name(StrBuf *b, const char *name, const PrintOpts *o)
{
	if (!o->short_form)
		sb_putc(b, '%');
	sb_puts(b, name);
}

/* Shortest %g text that reads back as the same double. */
static void put_double(StrBuf *b, double v)
{
	char buf[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	sb_puts(b, buf);
}

static void put_ints(StrBuf *b, const int64_t *v, int n, const char *sep)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(b, sep);
		sb_putint(b, v[i]);
	}
}

static void put_slice(StrBuf *b, const HloAttr *a)
{
	sb_putc(b, '{');
	for (int i = 0; i < a->u.slice.n; i++) {
		const SliceDim *s = &a->u.slice.v[i];
		if (i)
			sb_puts(b, ", ");
		sb_putc(b, '[');
		sb_putint(b, s->start);
		sb_putc(b, ':');
		sb_putint(b, s->limit);
		if (s->stride != 1) {
			sb_putc(b, ':');
			sb_putint(b, s->stride);
		}
		sb_putc(b, ']');
	}
	sb_putc(b, '}');
}

static void put_padding(StrBuf *b, const HloAttr *a)
{
	bool interior = false;
	for (int i = 0; i < a->u.pad.n; i++)
		interior |= a->u.pad.v[i].interior != 0;
	for (int i = 0; i < a->u.pad.n; i++) {
		const PadDim *p = &a->u.pad.v[i];
		if (i)
			sb_putc(b, 'x');
		sb_putint(b, p->lo);
		sb_putc(b, '_');
		sb_putint(b, p->hi);
		if (interior) {
			sb_putc(b, '_');
			sb_putint(b, p->interior);
		}
	}
}

/* One window field across dims, "3x3" or "1_1x0_0". */
static void put_wfield(StrBuf *b, const char *key, const HloAttr *a, int f)
{
	const WindowDim *w = a->u.window.v;
	int n = a->u.window.n;
	bool need = f == 0;
	for (int i = 0; i < n && !need; i++)
		need = (f == 1 && w[i].stride != 1) ||
		       (f == 2 && (w[i].pad_lo || w[i].pad_hi)) ||
		       (f == 3 && w[i].lhs_dilate != 1) ||
		       (f == 4 && w[i].rhs_dilate != 1) || (f == 5 && w[i].reversal);
	if (!need)
		return;
	if (f)
		sb_putc(b, ' ');
	sb_printf(b, "%s=", key);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_putc(b, 'x');
		switch (f) {
		case 0: sb_printf(b, "%" PRId64, w[i].size); break;
		case 1: sb_printf(b, "%" PRId64, w[i].stride); break;
		case 2: sb_printf(b, "%" PRId64 "_%" PRId64, w[i].pad_lo, w[i].pad_hi); break;
		case 3: sb_printf(b, "%" PRId64, w[i].lhs_dilate); break;
		case 4: sb_printf(b, "%" PRId64, w[i].rhs_dilate); break;
		default: sb_putc(b, w[i].reversal ? '1' : '0'); break;
		}
	}
}

static void put_window(StrBuf *b, const HloAttr *a)
{
	static const char *keys[] = {"size", "stride", "pad", "lhs_dilate",
				     "rhs_dilate", "rhs_reversal"};
	sb_putc(b, '{');
	if (a->u.window.n)
		for (int f = 0; f < 6; f++)
			put_wfield(b, keys[f], a, f);
	sb_putc(b, '}');
}

static void put_comps(StrBuf *b, const HloAttr *a, const PrintOpts *o)
{
	bool list = hlo_attr_kind(a->key) == AV_COMPS;
	if (list)
		sb_putc(b, '{');
	for (int i = 0; i < a->u.comps.n; i++) {
		if (i)
			sb_puts(b, ", ");
		put_name(b, a->u.comps.v[i] ? a->u.comps.v[i]->name : "?", o);
	}
	if (list)
		sb_putc(b, '}');
}

/* Text kept as written (a string's inside, a raw attribute's value),
 * with any byte that is not printable ASCII escaped as XLA's printer
 * escapes it (absl's CEscape: \n, \r, \t, else three octal digits;
 * UTF-8 too). XLA's parser reads both forms alike; written raw, an ESC
 * from a module's string reached the terminal. Escapes already in the
 * text stay as they are. */
static void put_text(StrBuf *b, const char *s, const PrintOpts *o)
{
	for (const char *run = s;; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 0x20 && c < 0x7f) || (c >= 0x80 && o->utf8_raw))
			continue;
		sb_putn(b, run, (size_t)(s - run));
		if (!c)
			return;
		char e[5] = {'\\', 'n', 0, 0, 0};
		if (c == '\t' || c == '\r')
			e[1] = c == '\t' ? 't' : 'r';
		else if (c != '\n') {
			e[1] = (char)('0' + (c >> 6));
			e[2] = (char)('0' + ((c >> 3) & 7));
			e[3] = (char)('0' + (c & 7));
		}
		sb_puts(b, e);
		run = s + 1;
	}
}

static void attr_value(StrBuf *b, const HloAttr *a, const PrintOpts *o)
{
	switch (hlo_attr_kind(a->key)) {
	case AV_INT: sb_putint(b, a->u.i); break;
	case AV_INTS:
		sb_putc(b, '{');
		put_ints(b, a->u.ints.v, a->u.ints.n, ",");
		sb_putc(b, '}');
		break;
	case AV_BOOL: sb_puts(b, a->u.b ? "true" : "false"); break;
	case AV_FLOAT: put_double(b, a->u.f); break;
	case AV_STRING:
		sb_putc(b, '"');
		put_text(b, a->u.s, o);
		sb_putc(b, '"');
		break;
	case AV_COMP:
	case AV_COMPS: put_comps(b, a, o); break;
	case AV_SLICE: put_slice(b, a); break;
	case AV_PADDING: put_padding(b, a); break;
	case AV_WINDOW: put_window(b, a); break;
	case AV_DIMLABELS: sb_puts(b, a->u.conv->text); break;
	default: put_text(b, a->u.s ? a->u.s : "", o); break;
	}
}

void print_attr_value(StrBuf *b, const HloAttr *a)
{
	static const PrintOpts shown = {.utf8_raw = true};
	attr_value(b, a, &shown);
}

static void put_opcode(StrBuf *b, const HloInstr *ins)
{
	if (ins->async_wrapped == HLO_INVALID) {
		sb_puts(b, hlo_opcode_name(ins->op));
		return;
	}
	sb_puts(b, hlo_opcode_name(ins->async_wrapped));
	sb_puts(b, ins->op == HLO_ASYNC_START	 ? "-start"
		   : ins->op == HLO_ASYNC_UPDATE ? "-update"
						 : "-done");
}

/* A constant's literal, a negative zero written -0.0: XLA prints -0 but
 * its parser reads -0 as +0 (and -0.0 as -0), so a saved -0 changed what
 * the module computes in XLA. Integers never print -0. */
static void put_constant(StrBuf *b, const Literal *l, int64_t max_elems)
{
	size_t from = b->len;
	literal_print(b, l, max_elems);
	if (b->oom || !strstr(sb_str(b) + from, "-0"))
		return;
	StrBuf t;
	sb_init(&t);
	const char *s = sb_str(b) + from;
	size_t n = b->len - from;
	for (size_t i = 0; i < n; i++) {
		sb_putc(&t, s[i]);
		bool start = i == 0 || strchr("{(, ", s[i - 1]);
		bool whole = i + 2 >= n || strchr(",})", s[i + 2]) ||
			     s[i + 2] == ' ';
		if (s[i] == '-' && start && i + 1 < n && s[i + 1] == '0' &&
		    whole) {
			sb_puts(&t, "0.0");
			i++;
		}
	}
	b->len = from;
	sb_putn(b, sb_str(&t), t.len);
	if (t.oom)
		b->oom = 1;
	sb_free(&t);
}

static void put_operands(StrBuf *b, const HloInstr *ins, const PrintOpts *o)
{
	if (ins->op == HLO_PARAMETER) {
		sb_putint(b, ins->param_no);
		return;
	}
	if (ins->op == HLO_CONSTANT) {
		if (ins->literal)
			put_constant(b, ins->literal, o->max_const_elems);
		return;
	}
	for (int i = 0; i < ins->nops; i++) {
		const HloInstr *op = ins->ops[i];
		if (i)
			sb_puts(b, ", ");
		if (i % 5 == 0 && i) /* as XLA prints long operand lists */
			sb_printf(b, "/*index=%d*/", i);
		if (!o->short_form && op && op->shape) {
			shape_print(b, op->shape, true);
			sb_putc(b, ' ');
		}
		put_name(b, op ? op->name : "?", o);
	}
}

void print_instr(StrBuf *b, const HloInstr *ins, const PrintOpts *o)
{
	if (ins->parent && ins->parent->root == ins)
		sb_puts(b, "ROOT ");
	put_name(b, ins->name, o);
	sb_puts(b, " = ");
	if (ins->shape) {
		shape_print(b, ins->shape, true);
		sb_putc(b, ' ');
	}
	put_opcode(b, ins);
	sb_putc(b, '(');
	put_operands(b, ins, o);
	sb_putc(b, ')');
	for (int i = 0; i < ins->nattrs; i++) {
		sb_puts(b, ", ");
		sb_puts(b, ins->attrs[i].name);
		sb_putc(b, '=');
		attr_value(b, &ins->attrs[i], o);
	}
}

/* Parameters in number order (gaps are a verifier error; printed as
 * found). */
static int params_sorted(const HloComp *c, const HloInstr **out, int cap)
{
	int n = 0;
	for (int i = 0; i < c->n && n < cap; i++)
		if (c->instrs[i]->op == HLO_PARAMETER)
			out[n++] = c->instrs[i];
	for (int i = 1; i < n; i++) /* insertion sort: usually sorted */
		for (int j = i; j > 0 && out[j - 1]->param_no > out[j]->param_no; j--) {
			const HloInstr *t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

static void put_signature(StrBuf *b, const HloComp *c, bool layouts)
{
	const HloInstr **ps = malloc(sizeof *ps * (size_t)(c->n + 1));
	int n = ps ? params_sorted(c, ps, c->n) : 0;
	if (!ps)
		b->oom = 1; /* (the text is cut short) */
	sb_putc(b, '(');
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(b, ", ");
		if (!layouts) {
			sb_puts(b, ps[i]->name);
			sb_puts(b, ": ");
		} else if (i && i % 5 == 0) {
			sb_printf(b, "/*index=%d*/", i);
		}
		if (ps[i]->shape)
			shape_print(b, ps[i]->shape, layouts);
	}
	sb_puts(b, layouts ? ")->" : ") -> ");
	if (c->root && c->root->shape)
		shape_print(b, c->root->shape, layouts);
	free(ps);
}

/* Does the header's entry layout still agree with the entry (passes
 * keep its parameters and result shape)? */
static bool header_layout_holds(const HloModule *m)
{
	const HloComp *c = m->entry;
	int np = c ? hlo_comp_param_count(c) : -1;
	if (!m->entry_layout || np + 1 != m->entry_layout_n || !c->root ||
	    !c->root->shape ||
	    !shape_compatible(m->entry_layout[np], c->root->shape))
		return false;
	for (int i = 0; i < np; i++) {
		const HloInstr *prm = hlo_comp_param(c, i);
		if (!prm || !prm->shape ||
		    !shape_compatible(m->entry_layout[i], prm->shape))
			return false;
	}
	return true;
}

void print_entry_layout(StrBuf *b, const HloModule *m)
{
	sb_putc(b, '{');
	if (header_layout_holds(m)) {
		int np = m->entry_layout_n - 1;
		sb_putc(b, '(');
		for (int i = 0; i < np; i++) {
			if (i)
				sb_puts(b, ", ");
			if (i && i % 5 == 0)
				sb_printf(b, "/*index=%d*/", i);
			shape_print(b, m->entry_layout[i], true);
		}
		sb_puts(b, ")->");
		shape_print(b, m->entry_layout[np], true);
	} else if (m->entry) {
		put_signature(b, m->entry, true);
	}
	sb_putc(b, '}');
}

void print_comp(StrBuf *b, const HloComp *c, const PrintOpts *o)
{
	if (c->is_entry)
		sb_puts(b, "ENTRY ");
	put_name(b, c->name, o);
	sb_putc(b, ' ');
	put_signature(b, c, false);
	sb_puts(b, " {\n");
	for (int i = 0; i < c->n; i++) {
		sb_puts(b, "  ");
		print_instr(b, c->instrs[i], o);
		sb_putc(b, '\n');
	}
	sb_putc(b, '}');
	if (c->exec_thread)
		sb_printf(b, ", execution_thread=\"%s\"", c->exec_thread);
	sb_putc(b, '\n');
}

/* Header attributes XLA prints before entry_computation_layout. */
static bool before_layout(const char *name)
{
	static const char *names[] = {"is_scheduled", "input_output_alias",
				      "buffer_donor", "alias_passthrough_params"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* The attributes in their written order; entry_computation_layout (the
 * header's while it agrees with the entry, else recomputed from the
 * entry computation) where it was written or, when it was not, where
 * XLA puts it. */
static void put_header(StrBuf *b, const HloModule *m)
{
	sb_printf(b, "HloModule %s", m->name);
	bool given = false, layout_done = false;
	for (int i = 0; i < m->nattrs; i++)
		given |= !strcmp(m->attrs[i].name, "entry_computation_layout");
	for (int i = 0; i < m->nattrs; i++) {
		const HloAttr *a = &m->attrs[i];
		bool is_layout = !strcmp(a->name, "entry_computation_layout");
		if (!layout_done && (is_layout || (!given && !before_layout(a->name)))) {
			sb_puts(b, ", entry_computation_layout=");
			print_entry_layout(b, m);
			layout_done = true;
		}
		if (is_layout)
			continue;
		sb_printf(b, ", %s=", a->name);
		put_text(b, a->u.s ? a->u.s : "", &print_opts_default);
	}
	if (!layout_done) {
		sb_puts(b, ", entry_computation_layout=");
		print_entry_layout(b, m);
	}
	sb_puts(b, "\n\n");
	if (m->frame_index) {
		sb_puts(b, m->frame_index);
		sb_putc(b, '\n');
	}
}

void print_module(StrBuf *b, const HloModule *m, const PrintOpts *o)
{
	put_header(b, m);
	HloComp **order;
	int n = hlo_module_comp_post_order((HloModule *)m, &order);
	if (n < 0)
		b->oom = 1; /* (a verified module has no cycle) */
	for (int i = 0; i < n; i++) {
		if (i)
			sb_putc(b, '\n');
		print_comp(b, order[i], o);
	}
	free(order);
}
