/* analysis.c - commands that estimate without running: cost (flops, bytes
 * and a roofline time per kernel, from core/passes/cost.c) and memory
 * (buffer assignment, live ranges, reuse and peak, from
 * core/passes/buffers.c, with an SVG lifetime chart).
 *
 * Both print one machine-readable line first or last ("cost: ...",
 * "memory: ...") and tables for people around it. */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "fileio.h"
#include "passes/buffers.h"
#include "passes/cost.h"

enum {
	COST_MAX_ROWS = 20,   /* kernels listed before "... N more" */
	MEMORY_MAX_ROWS = 20, /* buffers listed before "... N more" */
	SHARED_MAX = 3,       /* names listed as sharing a slot */
	NAME_MAX_WIDTH = 32,  /* longer names push their line out */
};

/* --- formatting ---------------------------------------------------------- */

/* 1234 -> "1234", 12345 -> "12.3K", 2.5e9 -> "2.5G". */
static const char *fmt_count(char *buf, size_t cap, double v)
{
	static const char *const unit[] = {"K", "M", "G", "T", "P", "E"};
	if (v < 10000) {
		snprintf(buf, cap, "%.0f", v);
		return buf;
	}
	int u = -1;
	while (v >= 1000 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, cap, "%.1f%s", v, unit[u]);
	return buf;
}

static const char *fmt_time(char *buf, size_t cap, double sec)
{
	static const char *const unit[] = {"ns", "us", "ms", "s"};
	double v = sec * 1e9;
	int u = 0;
	while (v >= 1000 && u < 3) {
		v /= 1000;
		u++;
	}
	/* up to 1e9 s in digits; beyond, in exponent form (a roofline of
	 * a tiny machine), never cut off */
	snprintf(buf, cap, v < 1000 || v >= 1e9 ? "%.3g %s" : "%.0f %s", v,
		 unit[u]);
	return buf;
}

static int name_width(int w, const char *name)
{
	int k = (int)strlen(name);
	if (k > NAME_MAX_WIDTH)
		k = NAME_MAX_WIDTH;
	return k > w ? k : w;
}

/* --- cost ---------------------------------------------------------------- */

typedef struct {
	const HloInstr *ins; /* NULL: the total row */
	Cost c;
	double t[2]; /* roofline seconds on the cpu and the gpu */
	bool mem[2]; /* memory bound there */
	int seq;     /* program order, to keep ties stable */
} CostRow;

typedef struct {
	CostMachine mc[2];
	CostRow *rows;
	int n;
} CostTable;

static void machines(const Session *s, CostMachine mc[2])
{
	mc[0] = (CostMachine){"cpu", s->cpu_gbps, s->cpu_gflops};
	mc[1] = (CostMachine){"h200", s->gpu_gbps, s->gpu_gflops};
}

static CostRow make_row(const CostMachine mc[2], const HloInstr *ins, Cost c)
{
	CostRow r = {ins, c, {0, 0}, {false, false}, 0};
	for (int k = 0; k < 2; k++)
		r.t[k] = cost_roofline_s(&c, &mc[k], &r.mem[k]);
	return r;
}

static const char *kind_of(char *buf, size_t cap, const HloInstr *ins)
{
	const char *k =
		ins->op == HLO_FUSION ? hlo_attr_enum(ins, A_KIND) : NULL;
	long long trips = ins->op == HLO_WHILE ? cost_trip_count(ins, NULL, 0)
					       : -1;
	if (k)
		snprintf(buf, cap, "fusion:%s", k);
	else if (trips >= 0)
		snprintf(buf, cap, "while x%lld", trips);
	else if (ins->op == HLO_WHILE)
		snprintf(buf, cap, "while*");
	else
		snprintf(buf, cap, "%s", hlo_opcode_name(ins->op));
	return buf;
}

/* The kernels of c, one row each; false on out of memory. */
static bool kernel_rows(CostTable *t, const HloComp *c)
{
	t->rows = calloc((size_t)c->n + 1, sizeof *t->rows);
	if (!t->rows)
		return false;
	for (int i = 0; i < c->n; i++) {
		const HloInstr *ins = c->instrs[i];
		if (!hlo_launches_kernel(ins->op))
			continue;
		t->rows[t->n] = make_row(t->mc, ins, cost_instr(ins));
		t->rows[t->n].seq = t->n;
		t->n++;
	}
	return true;
}

static void row_print(Session *s, const CostRow *r, int wn, int wk,
		      const char *label)
{
	char k[48], f[32], rd[32], wr[32], t0[32], t1[32];
	const char *name = r->ins ? r->ins->name : label;
	const char *kind = r->ins ? kind_of(k, sizeof k, r->ins) : "";
	fprintf(s->out,
		"%-*s  %-*s  %8s  %10s  %10s  %7.2f  %9s %-7s  %9s %s\n", wn,
		name, wk, kind, fmt_count(f, sizeof f, r->c.flops),
		repl_bytes(rd, sizeof rd, r->c.bytes_read),
		repl_bytes(wr, sizeof wr, r->c.bytes_written),
		cost_intensity(&r->c), fmt_time(t0, sizeof t0, r->t[0]),
		r->mem[0] ? "mem" : "compute", fmt_time(t1, sizeof t1, r->t[1]),
		r->mem[1] ? "mem" : "compute");
}

static void table_head(Session *s, int wn, int wk)
{
	fprintf(s->out, "%-*s  %-*s  %8s  %10s  %10s  %7s  %9s %-7s  %9s %s\n",
		wn, "kernel", wk, "kind", "flops", "read", "written", "flop/B",
		"cpu", "bound", "h200", "bound");
}

static void widths(const CostRow *rows, int n, const char *label, int *wn,
		   int *wk)
{
	*wn = name_width(6, label);
	*wk = 4;
	for (int i = 0; i < n; i++) {
		char k[48];
		*wn = name_width(*wn, rows[i].ins->name);
		*wk = name_width(*wk, kind_of(k, sizeof k, rows[i].ins));
	}
}

/* Slowest first on the cpu; program order among equals. */
static int by_time(const void *x, const void *y)
{
	const CostRow *a = x, *b = y;
	if (a->t[0] != b->t[0])
		return a->t[0] < b->t[0] ? 1 : -1;
	return a->seq - b->seq;
}

/* The total: costs summed, times summed kernel by kernel (each kernel is
 * bound on its own). */
static CostRow total_row(const CostTable *t)
{
	CostRow r = {0};
	for (int i = 0; i < t->n; i++) {
		const CostRow *k = &t->rows[i];
		r.c.flops += k->c.flops;
		r.c.transcendentals += k->c.transcendentals;
		/* saturating, as the cost model's own sums (huge shapes) */
		r.c.bytes_read = shape_bytes_add(r.c.bytes_read,
						 k->c.bytes_read);
		r.c.bytes_written = shape_bytes_add(r.c.bytes_written,
						    k->c.bytes_written);
		for (int m = 0; m < 2; m++)
			r.t[m] += k->t[m];
	}
	/* Bound: what most of the time is spent on. */
	for (int m = 0; m < 2; m++) {
		double tm = 0;
		for (int i = 0; i < t->n; i++)
			tm += t->rows[i].mem[m] ? t->rows[i].t[m] : 0;
		r.mem[m] = tm * 2 >= r.t[m];
	}
	return r;
}

static void machine_line(Session *s, const CostRow *r)
{
	fprintf(s->out,
		"cost: flops=%.0f bytes_read=%lld bytes_written=%lld "
		"intensity=%.4g cpu_us=%.4g gpu_us=%.4g\n",
		r->c.flops, (long long)r->c.bytes_read,
		(long long)r->c.bytes_written, cost_intensity(&r->c),
		r->t[0] * 1e6, r->t[1] * 1e6);
}

/* How the while loops among the n instructions were counted: each one
 * with a known trip count on a line of its own (the first few), the
 * others together. */
static void while_note(Session *s, const HloInstr *const *w, int n)
{
	enum { SHOWN = 8 };
	int known = 0, unknown = 0;
	for (int i = 0; i < n; i++) {
		if (w[i]->op != HLO_WHILE)
			continue;
		char how[160];
		long long trips = cost_trip_count(w[i], how, sizeof how);
		if (trips < 0) {
			unknown++;
		} else if (known++ < SHOWN) {
			fprintf(s->out,
				"* while %s: body %lld time%s, condition "
				"%lld (%lld trip%s: %s)\n",
				w[i]->name, trips, trips == 1 ? "" : "s",
				trips + 1, trips, trips == 1 ? "" : "s", how);
		}
	}
	if (known > SHOWN)
		fprintf(s->out, "* ... and %d more while loops with a known "
				"trip count\n", known - SHOWN);
	if (unknown)
		fprintf(s->out,
			"* while%s: body and condition counted once (the "
			"trip count is not known)\n",
			known ? " (the others)" : "");
}

/* Rows (the slowest COST_MAX_ROWS when there are more), a total, the
 * machine line. */
static void print_table(Session *s, CostTable *t, const char *total_label)
{
	CostRow tot = total_row(t);
	int shown = t->n;
	if (t->n > COST_MAX_ROWS) {
		qsort(t->rows, (size_t)t->n, sizeof *t->rows, by_time);
		shown = COST_MAX_ROWS;
	}
	int wn, wk;
	widths(t->rows, shown, total_label, &wn, &wk);
	table_head(s, wn, wk);
	for (int i = 0; i < shown; i++)
		row_print(s, &t->rows[i], wn, wk, NULL);
	if (shown < t->n)
		fprintf(s->out,
			"... %d more kernel%s (the %d slowest on the "
			"cpu are listed)\n",
			t->n - shown, t->n - shown == 1 ? "" : "s", shown);
	row_print(s, &tot, wn, wk, total_label);
	const HloInstr **w = malloc(sizeof *w * ((size_t)t->n + 1));
	for (int i = 0; w && i < t->n; i++)
		w[i] = t->rows[i].ins;
	if (w)
		while_note(s, w, t->n);
	free(w);
	machine_line(s, &tot);
}

static bool cost_all(Session *s)
{
	CostTable t = {0};
	machines(s, t.mc);
	if (!kernel_rows(&t, s->mod->entry))
		return repl_error(s, "out of memory");
	char label[48];
	snprintf(label, sizeof label, "total (%d kernel%s)", t.n,
		 t.n == 1 ? "" : "s");
	print_table(s, &t, label);
	free(t.rows);
	return true;
}

/* What each fused instruction adds to its fusion, and what the fusion
 * reads of each operand. */
static void fusion_detail(Session *s, const HloInstr *f, double flops)
{
	HloComp *c = hlo_attr_comp(f, A_CALLS);
	if (!c)
		return;
	int wn = 4;
	for (int i = 0; i < c->n; i++)
		wn = name_width(wn, c->instrs[i]->name);
	fprintf(s->out, "fused instructions of %s:\n", c->name);
	for (int i = 0; i < c->n; i++) {
		const HloInstr *ins = c->instrs[i];
		if (ins->op == HLO_PARAMETER)
			continue;
		Cost k = cost_flops(ins);
		char fl[32], tr[32];
		fprintf(s->out, "  %-*s  %-20s %8s flops %5.1f%%", wn,
			ins->name, hlo_opcode_name(ins->op),
			fmt_count(fl, sizeof fl, k.flops),
			flops > 0 ? 100 * k.flops / flops : 0.0);
		if (k.transcendentals > 0)
			fprintf(s->out, "  (%s transcendental)",
				fmt_count(tr, sizeof tr, k.transcendentals));
		fputc('\n', s->out);
	}
	fprintf(s->out, "reads:\n");
	for (int i = 0; i < f->nops; i++) {
		char rd[32], whole[32];
		int64_t w = shape_bytes(f->ops[i]->shape);
		int64_t r = cost_operand_bytes(f, i);
		fprintf(s->out, "  operand %d %%%s: %s", i, f->ops[i]->name,
			repl_bytes(rd, sizeof rd, r));
		if (w > 0 && r < w)
			fprintf(s->out, " of %s (%s)",
				repl_bytes(whole, sizeof whole, w),
				r ? "read through slices" : "not read");
		fputc('\n', s->out);
	}
}

/* The kernels of each computation a call, while or conditional runs. */
static bool called_detail(Session *s, const HloInstr *ins)
{
	int n = hlo_instr_ncalled(ins);
	for (int i = 0; i < n; i++) {
		const HloComp *c = hlo_instr_called_at(ins, i);
		CostTable t = {0};
		machines(s, t.mc);
		if (!kernel_rows(&t, c))
			return repl_error(s, "out of memory");
		bool per_trip = ins->op == HLO_WHILE &&
				cost_trip_count(ins, NULL, 0) >= 0;
		fprintf(s->out, "kernels of %s%s:%s\n", c->name,
			per_trip ? " (one run)" : "", t.n ? "" : " none");
		int wn, wk;
		widths(t.rows, t.n, "", &wn, &wk);
		if (t.n)
			table_head(s, wn, wk);
		for (int k = 0; k < t.n; k++)
			row_print(s, &t.rows[k], wn, wk, NULL);
		free(t.rows);
	}
	return true;
}

static bool cost_one(Session *s, const char *name)
{
	const HloInstr *ins = repl_find_instr(s->mod, name);
	char q[80];
	if (!ins)
		return repl_error(s, "no instruction named '%s'",
				  repl_quote(q, sizeof q, name, strlen(name)));
	if (ins->parent != s->mod->entry)
		fprintf(s->out,
			"%s is in computation %s: costed as a kernel "
			"of its own\n",
			ins->name, ins->parent->name);
	if (!hlo_launches_kernel(ins->op))
		fprintf(s->out, "%s is a %s: it launches no kernel\n",
			ins->name, hlo_opcode_name(ins->op));
	CostTable t = {0};
	machines(s, t.mc);
	CostRow r = make_row(t.mc, ins, cost_instr(ins));
	int wn, wk;
	widths(&r, 1, "", &wn, &wk);
	table_head(s, wn, wk);
	row_print(s, &r, wn, wk, NULL);
	bool ok = true;
	if (ins->op == HLO_FUSION)
		fusion_detail(s, ins, r.c.flops);
	else if (ins->op == HLO_CALL || ins->op == HLO_WHILE ||
		 ins->op == HLO_CONDITIONAL)
		ok = called_detail(s, ins);
	if (!ok)
		return false;
	while_note(s, &ins, 1);
	machine_line(s, &r);
	return true;
}

bool cmd_cost(Session *s, const CmdArgs *a)
{
	if (!repl_need_module(s))
		return false;
	if (!s->mod->entry)
		return repl_error(s, "the module has no ENTRY computation");
	return a->argc ? cost_one(s, a->argv[0]) : cost_all(s);
}

/* --- memory --------------------------------------------------------------- */

typedef struct {
	BufferAssignment ba;
	BufferInfo *info;
	int *by_size; /* buffer indices, largest first */
} Memory;

typedef struct {
	int64_t bytes;
	int i;
} SizeKey;

static int by_size(const void *x, const void *y)
{
	const SizeKey *a = x, *b = y;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return a->i - b->i;
}

static bool memory_assign(const HloModule *m, Memory *mem)
{
	memset(mem, 0, sizeof *mem);
	if (!buffers_assign_info(m, &mem->ba, &mem->info))
		return false;
	int n = mem->ba.n;
	SizeKey *k = malloc(sizeof *k * (size_t)(n + 1));
	mem->by_size = malloc(sizeof *mem->by_size * (size_t)(n + 1));
	if (!k || !mem->by_size) {
		free(k);
		return false;
	}
	for (int i = 0; i < n; i++)
		k[i] = (SizeKey){mem->ba.bufs[i].bytes, i};
	qsort(k, (size_t)n, sizeof *k, by_size);
	for (int i = 0; i < n; i++)
		mem->by_size[i] = k[i].i;
	free(k);
	return true;
}

static void memory_free(Memory *mem)
{
	buffers_free(&mem->ba);
	free(mem->info);
	free(mem->by_size);
}

static void buf_name(char *buf, size_t cap, const Buffer *b,
		     const BufferInfo *in)
{
	if (in->leaf || shape_is_tuple(b->def->shape))
		snprintf(buf, cap, "%s{%d}", b->def->name, in->leaf);
	else
		snprintf(buf, cap, "%s", b->def->name);
}

/* The others in buffer i's slot, in order: "a, b, c +2". */
static void shared_with(StrBuf *sb, const Memory *mem, int i)
{
	int shown = 0, more = 0;
	for (int j = 0; j < mem->ba.n; j++) {
		if (j == i || mem->ba.bufs[j].slot != mem->ba.bufs[i].slot)
			continue;
		if (shown == SHARED_MAX) {
			more++;
			continue;
		}
		char nm[160];
		buf_name(nm, sizeof nm, &mem->ba.bufs[j], &mem->info[j]);
		sb_printf(sb, "%s%s", shown++ ? ", " : "", nm);
	}
	if (more)
		sb_printf(sb, " +%d", more);
	if (!shown)
		sb_puts(sb, "-");
}

static void memory_table(Session *s, const Memory *mem)
{
	int shown = mem->ba.n < MEMORY_MAX_ROWS ? mem->ba.n : MEMORY_MAX_ROWS;
	int wn = 6;
	if (!mem->ba.n) {
		fprintf(s->out, "no buffers\n");
		return;
	}
	char nm[160], sz[32], range[32];
	for (int k = 0; k < shown; k++) {
		int i = mem->by_size[k];
		buf_name(nm, sizeof nm, &mem->ba.bufs[i], &mem->info[i]);
		wn = name_width(wn, nm);
	}
	fprintf(s->out, "%-*s  %10s  %-9s  %-9s  %4s  %10s  %s\n", wn, "buffer",
		"size", "kind", "live", "slot", "offset",
		"shares its slot with");
	StrBuf sb;
	sb_init(&sb);
	for (int k = 0; k < shown; k++) {
		int i = mem->by_size[k];
		const Buffer *b = &mem->ba.bufs[i];
		buf_name(nm, sizeof nm, b, &mem->info[i]);
		snprintf(range, sizeof range, "%d-%d", b->start, b->end);
		sb_clear(&sb);
		shared_with(&sb, mem, i);
		fprintf(s->out, "%-*s  %10s  %-9s  %-9s  %4d  %10lld  %s\n", wn,
			nm, repl_bytes(sz, sizeof sz, b->bytes),
			buffers_kind_name(mem->info[i].kind), range, b->slot,
			(long long)b->offset, sb_text(&sb));
	}
	sb_free(&sb);
	if (shown < mem->ba.n)
		fprintf(s->out, "... %d more buffers\n", mem->ba.n - shown);
}

/* "compared with step 3 (pass dce): temporaries 8 -> 2, peak ..." */
static bool memory_compare(Session *s, const BufferAssignment *now)
{
	int cur = s->hist_cur + s->hist_dropped;
	const HistStep *h = s->nhist ? repl_history_step(s, cur - 1) : NULL;
	const HistStep *now_step = s->nhist ? repl_history_step(s, cur) : NULL;
	if (!h || (now_step && now_step->starts))
		return true; /* the step before holds another module */
	const HloModule *hm = repl_history_module(s, cur - 1);
	if (!hm)
		return false;
	BufferAssignment before;
	if (!buffers_assign(hm, &before))
		return repl_error(s, "out of memory");
	char p0[32], p1[32];
	fprintf(s->out,
		"compared with step %d (%s): temporaries %d -> %d, peak %s -> "
		"%s\n",
		cur - 1, h->label, before.ntemps, now->ntemps,
		repl_bytes(p0, sizeof p0, before.peak_bytes),
		repl_bytes(p1, sizeof p1, now->peak_bytes));
	buffers_free(&before);
	return true;
}

static bool write_svg(Session *s, const char *path, const Memory *mem)
{
	StrBuf sb;
	sb_init(&sb);
	char title[200], pk[32];
	snprintf(title, sizeof title, "buffers of %s (peak %s)", s->mod->name,
		 repl_bytes(pk, sizeof pk, mem->ba.peak_bytes));
	buffers_svg(&sb, &mem->ba, mem->info, title);
	int err = sb.oom ? ENOMEM : 0;
	if (!err && !file_write_whole(path, sb_str(&sb), sb.len))
		err = errno;
	sb_free(&sb);
	if (err) {
		char q[160];
		return repl_error(s, "cannot write '%s': %s",
				  repl_quote(q, sizeof q, path, strlen(path)),
				  strerror(err));
	}
	return true;
}

/* NULL: no chart wanted; *bad: the arguments are wrong. */
static const char *svg_path(Session *s, const CmdArgs *a, bool *bad)
{
	char q[80];
	*bad = false;
	if (!a->argc)
		return NULL;
	*bad = true;
	if (strcmp(a->argv[0], "--svg") != 0)
		repl_error(
			s, "unknown argument '%s' (usage: %s)",
			repl_quote(q, sizeof q, a->argv[0], strlen(a->argv[0])),
			a->cmd->synopsis);
	else if (a->argc < 2)
		repl_error(s, "'--svg' needs a PATH (usage: %s)",
			   a->cmd->synopsis);
	else if (!repl_has_ext(a->argv[1], ".svg"))
		repl_error(s,
			   strcasecmp(a->argv[1], ".svg") == 0
				   ? "the chart is SVG: '%s' has no file name "
				     "before .svg"
				   : "the chart is SVG: '%s' must end in .svg",
			   repl_quote(q, sizeof q, a->argv[1],
				      strlen(a->argv[1])));
	else
		*bad = false;
	return *bad ? NULL : a->argv[1];
}

bool cmd_memory(Session *s, const CmdArgs *a)
{
	bool bad;
	const char *svg = svg_path(s, a, &bad);
	if (bad || !repl_need_module(s))
		return false;
	if (!s->mod->entry)
		return repl_error(s, "the module has no ENTRY computation");
	Memory mem;
	if (!memory_assign(s->mod, &mem)) {
		memory_free(&mem);
		return repl_error(s, "out of memory");
	}
	bool ok = !svg || write_svg(s, svg, &mem);
	if (ok) {
		const BufferAssignment *ba = &mem.ba;
		char pk[32], ar[32], tot[32];
		fprintf(s->out,
			"memory: buffers=%d temps=%d peak_bytes=%lld "
			"arena_bytes=%lld total_bytes=%lld\n",
			ba->n, ba->ntemps, (long long)ba->peak_bytes,
			(long long)ba->arena_bytes, (long long)ba->total_bytes);
		fprintf(s->out,
			"peak %s at position %d; arena %s in %d slot%s; %s "
			"without reuse\n",
			repl_bytes(pk, sizeof pk, ba->peak_bytes),
			ba->peak_at,
			repl_bytes(ar, sizeof ar, ba->arena_bytes), ba->nslots,
			ba->nslots == 1 ? "" : "s",
			repl_bytes(tot, sizeof tot, ba->total_bytes));
		memory_table(s, &mem);
		ok = memory_compare(s, ba);
	}
	if (ok && svg)
		fprintf(s->out, "wrote the buffer chart to %s\n", svg);
	memory_free(&mem);
	return ok;
}
