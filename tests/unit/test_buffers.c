/* test_buffers.c - buffer assignment on small modules whose live ranges,
 * slots, offsets and peak are worked out by hand in the comments
 * (a chain, best fit, tuple/get-tuple-element/bitcast aliasing, the
 * leaves of a tuple-shaped value, parameters and constants, a scrambled
 * program order), the SVG chart (well-formed, one tooltip per buffer),
 * and the invariants over every corpus module. */
#include "passes/buffers.h"
#include "testutil.h"

typedef struct {
	HloModule *m;
	BufferAssignment ba;
	BufferInfo *info;
} Asg;

static void assign(Asg *a, const char *text)
{
	a->m = load_text(text);
	assert_true(buffers_assign_info(a->m, &a->ba, &a->info));
}

static void asg_free(Asg *a)
{
	buffers_free(&a->ba);
	free(a->info);
	hlo_module_free(a->m);
}

/* The buffer of leaf `leaf` of the instruction called name. */
static int buf(const Asg *a, const char *name, int leaf)
{
	for (int i = 0; i < a->ba.n; i++)
		if (!strcmp(a->ba.bufs[i].def->name, name) &&
		    a->info[i].leaf == leaf)
			return i;
	fail_msg("no buffer %s{%d}", name, leaf);
	return -1;
}

static void assert_buf(const Asg *a, const char *name, int start, int end,
		       int slot, int64_t offset, BufferKind kind)
{
	const Buffer *b = &a->ba.bufs[buf(a, name, 0)];
	const BufferInfo *in = &a->info[buf(a, name, 0)];
	if (b->start != start || b->end != end || b->slot != slot ||
	    b->offset != offset || in->kind != kind)
		fail_msg("%s: live %d-%d slot %d offset %lld %s, want %d-%d "
			 "slot %d offset %lld %s",
			 name, b->start, b->end, b->slot, (long long)b->offset,
			 buffers_kind_name(in->kind), start, end, slot,
			 (long long)offset, buffers_kind_name(kind));
}

/* f32[256] = 1 KiB each. Positions: p 0, a 1, b 2, c 3, d 4.
 *   p [0,4] parameter, slot 0
 *   a [1,2] slot 1;  b [2,3] slot 2
 *   c [3,4] takes a's slot 1 (a's last use was position 2)
 *   d [4,4] output, takes b's slot 2
 * Peak: three buffers at every position from 2 on: 3 KiB; the arena is
 * three 1 KiB slots; 5 KiB without reuse; temporaries a, b, c. */
static void test_chain_reuse(void **state)
{
	(void)state;
	Asg a;
	assign(&a, "HloModule t\n\nENTRY e {\n"
		   "  p = f32[256] parameter(0)\n"
		   "  a = f32[256] negate(p)\n"
		   "  b = f32[256] exponential(a)\n"
		   "  c = f32[256] negate(b)\n"
		   "  ROOT d = f32[256] exponential(c)\n"
		   "}\n");
	assert_int_equal(a.ba.n, 5);
	assert_int_equal(a.ba.npositions, 5);
	assert_buf(&a, "p", 0, 4, 0, 0, BUF_PARAMETER);
	assert_buf(&a, "a", 1, 2, 1, 1024, BUF_TEMP);
	assert_buf(&a, "b", 2, 3, 2, 2048, BUF_TEMP);
	assert_buf(&a, "c", 3, 4, 1, 1024, BUF_TEMP);
	assert_buf(&a, "d", 4, 4, 2, 2048, BUF_OUTPUT);
	assert_int_equal(a.ba.nslots, 3);
	assert_int_equal(a.ba.peak_bytes, 3072);
	assert_int_equal(a.ba.arena_bytes, 3072);
	assert_int_equal(a.ba.total_bytes, 5120);
	assert_int_equal(a.ba.ntemps, 3);
	asg_free(&a);
}

/* Best fit. p f32[1000] (4000 B) and q f32[100] (400 B) are parameters
 * (slots 0, 1).
 *   2 a = negate(p)        4000  [2,4] slot 2
 *   3 b = negate(q)         400  [3,4] slot 3
 *   4 s = concatenate(a,b) 4400  [4,5] slot 4 (nothing free yet)
 *   5 t = slice(s)          400  [5,6]: a and b are free (slots of 4000
 *                                and 400): the smaller, slot 3
 *   6 r = broadcast(t)     4800  [6,6] output: s's 4400 and a's 4000 are
 *                                free but too small: a new slot 5
 * Live bytes: 4400 (parameters) + 4000 + 400 + 4400 = 13200 at position
 * 4, the peak. Arena: 4000+400+4000+400+4400+4800 = 18000. */
static void test_best_fit(void **state)
{
	(void)state;
	Asg a;
	assign(&a, "HloModule t\n\nENTRY e {\n"
		   "  p = f32[1000] parameter(0)\n"
		   "  q = f32[100] parameter(1)\n"
		   "  a = f32[1000] negate(p)\n"
		   "  b = f32[100] negate(q)\n"
		   "  s = f32[1100] concatenate(a, b), dimensions={0}\n"
		   "  t = f32[100] slice(s), slice={[0:100]}\n"
		   "  ROOT r = f32[12,100] broadcast(t), dimensions={1}\n"
		   "}\n");
	assert_buf(&a, "p", 0, 6, 0, 0, BUF_PARAMETER);
	assert_buf(&a, "q", 0, 6, 1, 4000, BUF_PARAMETER);
	assert_buf(&a, "a", 2, 4, 2, 4400, BUF_TEMP);
	assert_buf(&a, "b", 3, 4, 3, 8400, BUF_TEMP);
	assert_buf(&a, "s", 4, 5, 4, 8800, BUF_TEMP);
	assert_buf(&a, "t", 5, 6, 3, 8400, BUF_TEMP);
	assert_buf(&a, "r", 6, 6, 5, 13200, BUF_OUTPUT);
	assert_int_equal(a.ba.peak_bytes, 13200);
	assert_int_equal(a.ba.arena_bytes, 18000);
	assert_int_equal(a.ba.total_bytes, 18400);
	assert_int_equal(a.ba.ntemps, 4);
	asg_free(&a);
}

/* tuple, get-tuple-element and bitcast name their operands' buffers:
 * five buffers for nine instructions. a stays live through t, g and bc
 * until c reads bc at position 7; b is part of the result (through r),
 * so it lives to the end. */
static void test_aliases(void **state)
{
	(void)state;
	Asg a;
	assign(&a, "HloModule t\n\nENTRY e {\n"
		   "  p0 = f32[8] parameter(0)\n"
		   "  p1 = f32[8] parameter(1)\n"
		   "  a = f32[8] negate(p0)\n"
		   "  b = f32[8] exponential(p1)\n"
		   "  t = (f32[8], f32[8]) tuple(a, b)\n"
		   "  g = f32[8] get-tuple-element(t), index=0\n"
		   "  bc = f32[2,4] bitcast(g)\n"
		   "  c = f32[2,4] add(bc, bc)\n"
		   "  ROOT r = (f32[2,4], f32[8]) tuple(c, b)\n"
		   "}\n");
	assert_int_equal(a.ba.n, 5);
	assert_buf(&a, "a", 2, 7, 2, 64, BUF_TEMP);
	assert_buf(&a, "b", 3, 8, 3, 96, BUF_OUTPUT);
	assert_buf(&a, "c", 7, 8, 4, 128, BUF_OUTPUT);
	assert_int_equal(a.ba.ntemps, 1);
	/* at position 7: p0, p1, a, b, c = 5 * 32 bytes */
	assert_int_equal(a.ba.peak_bytes, 160);
	asg_free(&a);
}

/* dynamic-update-slice in place, as XLA assigns it: d writes into a (its
 * only reader, a temporary of its own), so a's buffer lives to d's last
 * reader (position 6) and d defines none. e updates p0, a parameter, and
 * f updates b, which g also reads: both get buffers of their own.
 * Positions: p0 0, u 1, i 2, a 3, d 4, b 5, n 6, e 7, f 8, g 9, r 10. */
static void test_update_in_place(void **state)
{
	(void)state;
	Asg a;
	assign(&a, "HloModule t\n\nENTRY e {\n"
		   "  p0 = f32[64] parameter(0)\n"
		   "  u = f32[4] parameter(1)\n"
		   "  i = s32[] parameter(2)\n"
		   "  a = f32[64] exponential(p0)\n"
		   "  d = f32[64] dynamic-update-slice(a, u, i)\n"
		   "  b = f32[64] negate(p0)\n"
		   "  n = f32[64] add(d, b)\n"
		   "  e = f32[64] dynamic-update-slice(p0, u, i)\n"
		   "  f = f32[64] dynamic-update-slice(b, u, i)\n"
		   "  g = f32[64] add(f, b)\n"
		   "  ROOT r = (f32[64], f32[64], f32[64]) tuple(n, e, g)\n"
		   "}\n");
	for (int k = 0; k < a.ba.n; k++)
		if (!strcmp(a.ba.bufs[k].def->name, "d"))
			fail_msg("d has a buffer of its own");
	const Buffer *ba_ = &a.ba.bufs[buf(&a, "a", 0)];
	assert_int_equal(ba_->start, 3);
	assert_int_equal(ba_->end, 6);
	assert_int_equal(a.info[buf(&a, "e", 0)].kind, BUF_OUTPUT);
	const Buffer *bf = &a.ba.bufs[buf(&a, "f", 0)];
	assert_int_equal(bf->start, 8);
	assert_int_equal(a.ba.bufs[buf(&a, "b", 0)].end, 9);
	asg_free(&a);
}

/* A while runs in place on its state, as XLA assigns it: leaf 1 of w
 * is a's buffer (a temporary only the init tuple reads), which lives
 * on to w's last reader, the root (an output then). Leaf 0 starts as
 * p0, a parameter, and leaf 2 as b, which n also reads after the loop:
 * both get buffers of w's own (XLA's copy insertion copies them).
 * Positions: p0 0, a 1, b 2, t 3, w 4, g0 5, g1 6, g2 7, n 8, r 9. */
static void test_while_in_place(void **state)
{
	(void)state;
	Asg a;
	assign(&a,
	       "HloModule t\n\n"
	       "body {\n"
	       "  s = (f32[16], f32[16], f32[16]) parameter(0)\n"
	       "  x = f32[16] get-tuple-element(s), index=0\n"
	       "  y = f32[16] get-tuple-element(s), index=1\n"
	       "  z = f32[16] get-tuple-element(s), index=2\n"
	       "  y2 = f32[16] add(x, y)\n"
	       "  ROOT o = (f32[16], f32[16], f32[16]) tuple(x, y2, z)\n"
	       "}\n\n"
	       "cond {\n"
	       "  s = (f32[16], f32[16], f32[16]) parameter(0)\n"
	       "  ROOT c = pred[] constant(false)\n"
	       "}\n\n"
	       "ENTRY e {\n"
	       "  p0 = f32[16] parameter(0)\n"
	       "  a = f32[16] exponential(p0)\n"
	       "  b = f32[16] negate(p0)\n"
	       "  t = (f32[16], f32[16], f32[16]) tuple(p0, a, b)\n"
	       "  w = (f32[16], f32[16], f32[16]) while(t), condition=cond, "
	       "body=body\n"
	       "  g0 = f32[16] get-tuple-element(w), index=0\n"
	       "  g1 = f32[16] get-tuple-element(w), index=1\n"
	       "  g2 = f32[16] get-tuple-element(w), index=2\n"
	       "  n = f32[16] add(g2, b)\n"
	       "  ROOT r = (f32[16], f32[16], f32[16]) tuple(g0, g1, n)\n"
	       "}\n");
	for (int k = 0; k < a.ba.n; k++)
		if (!strcmp(a.ba.bufs[k].def->name, "w") && a.info[k].leaf == 1)
			fail_msg("w{1} has a buffer of its own");
	const Buffer *ab = &a.ba.bufs[buf(&a, "a", 0)];
	assert_int_equal(ab->start, 1);
	assert_int_equal(ab->end, 9);
	assert_int_equal(a.info[buf(&a, "a", 0)].kind, BUF_OUTPUT);
	/* w's own leaves, numbered as leaves of its shape */
	assert_int_equal(a.ba.bufs[buf(&a, "w", 0)].start, 4);
	assert_int_equal(a.info[buf(&a, "w", 0)].kind, BUF_OUTPUT);
	const Buffer *w2 = &a.ba.bufs[buf(&a, "w", 2)];
	assert_int_equal(w2->start, 4);
	assert_int_equal(w2->end, 8);
	/* b is read after the loop: it lives to n */
	assert_int_equal(a.ba.bufs[buf(&a, "b", 0)].end, 8);
	asg_free(&a);
}

/* A tuple-shaped value has a buffer per leaf with its own live range:
 * the fusion's leaf 0 is never read (dead at once), leaf 1 is read by y
 * through get-tuple-element. y then reuses leaf 0's slot. */
static void test_tuple_leaves(void **state)
{
	(void)state;
	Asg a;
	assign(&a, "HloModule t\n\n"
		   "fused {\n"
		   "  p = f32[8] parameter(0)\n"
		   "  n = f32[8] negate(p)\n"
		   "  x = f32[8] exponential(p)\n"
		   "  ROOT t = (f32[8], f32[8]) tuple(n, x)\n"
		   "}\n\n"
		   "ENTRY e {\n"
		   "  x = f32[8] parameter(0)\n"
		   "  f = (f32[8], f32[8]) fusion(x), kind=kLoop, calls=fused\n"
		   "  g = f32[8] get-tuple-element(f), index=1\n"
		   "  ROOT y = f32[8] add(g, g)\n"
		   "}\n");
	assert_int_equal(a.ba.n, 4);
	const Buffer *f0 = &a.ba.bufs[buf(&a, "f", 0)];
	const Buffer *f1 = &a.ba.bufs[buf(&a, "f", 1)];
	assert_int_equal(f0->start, 1);
	assert_int_equal(f0->end, 1);
	assert_int_equal(f1->start, 1);
	assert_int_equal(f1->end, 3);
	assert_buf(&a, "y", 3, 3, f0->slot, f0->offset, BUF_OUTPUT);
	assert_int_equal(a.ba.ntemps, 2);
	/* positions 1 and 3: three 32-byte buffers live */
	assert_int_equal(a.ba.peak_bytes, 96);
	asg_free(&a);
}

/* Parameters and constants live throughout and their slots are never
 * reused, even when their last use is early; a parameter returned as the
 * result stays a parameter; tokens have no buffer. */
static void test_params_constants(void **state)
{
	(void)state;
	Asg a;
	assign(&a, "HloModule t\n\nENTRY e {\n"
		   "  p = f32[4] parameter(0)\n"
		   "  k = f32[4] constant({1, 2, 3, 4})\n"
		   "  tok = token[] after-all()\n"
		   "  a = f32[4] add(p, k)\n"
		   "  b = f32[4] negate(a)\n"
		   "  c = f32[4] negate(b)\n"
		   "  ROOT r = (f32[4], f32[4]) tuple(c, p)\n"
		   "}\n");
	assert_int_equal(a.ba.n, 5); /* p, k, a, b, c: no token */
	assert_buf(&a, "p", 0, 6, 0, 0, BUF_PARAMETER);
	assert_buf(&a, "k", 0, 6, 1, 16, BUF_CONSTANT);
	assert_buf(&a, "a", 3, 4, 2, 32, BUF_TEMP);
	assert_buf(&a, "b", 4, 5, 3, 48, BUF_TEMP);
	assert_buf(&a, "c", 5, 6, 2, 32, BUF_OUTPUT);
	assert_int_equal(a.ba.ntemps, 2);
	asg_free(&a);
}

/* Empty and parameter-only modules. */
static void test_small(void **state)
{
	(void)state;
	HloModule *m = hlo_module_new("empty");
	hlo_module_set_entry(m, hlo_comp_new(m, "main"));
	BufferAssignment ba;
	assert_true(buffers_assign(m, &ba));
	assert_int_equal(ba.n, 0);
	assert_int_equal(ba.peak_bytes, 0);
	buffers_free(&ba);
	hlo_module_free(m);

	Asg a;
	assign(&a, "HloModule t\n\nENTRY e {\n"
		   "  ROOT p = f32[2,3] parameter(0)\n"
		   "}\n");
	assert_int_equal(a.ba.n, 1);
	assert_buf(&a, "p", 0, 0, 0, 0, BUF_PARAMETER);
	assert_int_equal(a.ba.peak_bytes, 24);
	assert_int_equal(a.ba.ntemps, 0);
	asg_free(&a);
}

/* Sizes too large to add up: each parameter's buffer keeps its size
 * (2^52 bytes, a c128[2^48]), and the sums (peak, arena, total)
 * saturate at INT64_MAX once 2,048 of them are live: 2^63 bytes. With
 * 1,000 the sums are exact. */
static void test_huge_sizes(void **state)
{
	(void)state;
	const int64_t leaf = INT64_C(1) << 52;
	for (int n = 1000; n <= 2048; n += 1048) {
		StrBuf b;
		sb_init(&b);
		sb_puts(&b, "HloModule huge\n\nENTRY e {\n");
		for (int i = 0; i < n; i++)
			sb_printf(&b, "  %sp%d = c128[281474976710656] "
				  "parameter(%d)\n",
				  i == n - 1 ? "ROOT " : "", i, i);
		sb_puts(&b, "}\n");
		Asg a;
		assign(&a, sb_str(&b));
		sb_free(&b);
		assert_int_equal(a.ba.n, n);
		for (int i = 0; i < a.ba.n; i++)
			assert_true(a.ba.bufs[i].bytes == leaf);
		int64_t sum = n == 2048 ? INT64_MAX : leaf * n;
		assert_true(a.ba.peak_bytes == sum);
		assert_int_equal(a.ba.peak_at, 0); /* all live from 0 */
		assert_true(a.ba.arena_bytes == sum);
		assert_true(a.ba.total_bytes == sum);
		asg_free(&a);
	}
}

/* When the program order is not a schedule (a use before its definition)
 * a post order is used: every buffer is defined before it is read. */
static void test_scrambled_order(void **state)
{
	(void)state;
	Asg a;
	assign(&a, "HloModule t\n\nENTRY e {\n"
		   "  p = f32[8] parameter(0)\n"
		   "  a = f32[8] negate(p)\n"
		   "  b = f32[8] exponential(a)\n"
		   "  ROOT c = f32[8] add(b, a)\n"
		   "}\n");
	buffers_free(&a.ba);
	free(a.info);
	HloComp *c = a.m->entry;
	HloInstr *t = c->instrs[1]; /* put b before a */
	c->instrs[1] = c->instrs[2];
	c->instrs[2] = t;
	assert_true(buffers_assign_info(a.m, &a.ba, &a.info));
	const Buffer *ba = &a.ba.bufs[buf(&a, "a", 0)];
	const Buffer *bb = &a.ba.bufs[buf(&a, "b", 0)];
	const Buffer *bc = &a.ba.bufs[buf(&a, "c", 0)];
	assert_true(ba->start < bb->start);
	assert_true(bb->start < bc->start);
	assert_int_equal(ba->end, bc->start);
	assert_int_equal(bb->end, bc->start);
	asg_free(&a);
}

/* --- the chart ------------------------------------------------------------ */

/* NULL when text is well-formed XML as far as tags, quotes and entities
 * go (enough for what buffers_svg writes), else what is wrong. */
static const char *xml_check(const char *s)
{
	enum { MAX_DEPTH = 64 };
	const char *open[MAX_DEPTH];
	size_t len[MAX_DEPTH];
	int depth = 0, roots = 0;
	while (*s) {
		if (*s == '&') {
			static const char *const ent[] = {"&amp;", "&lt;",
							  "&gt;", "&quot;"};
			bool ok = false;
			for (int i = 0; i < 4; i++)
				ok |= !strncmp(s, ent[i], strlen(ent[i]));
			if (!ok)
				return "a bare '&'";
			s++;
			continue;
		}
		if (*s == '>')
			return "a bare '>'";
		if (*s != '<') {
			s++;
			continue;
		}
		if (s[1] == '?') {
			s = strstr(s, "?>");
			if (!s)
				return "unterminated <?";
			s += 2;
			continue;
		}
		bool closing = s[1] == '/';
		const char *name = s + 1 + closing;
		size_t n = strcspn(name, " \t\n/>");
		if (!n)
			return "a tag without a name";
		const char *p = name + n;
		char quote = 0;
		for (; *p && (quote || *p != '>'); p++) {
			if (quote && *p == '<')
				return "'<' in an attribute";
			if (*p == '"' || *p == '\'')
				quote = quote == *p ? 0 : quote ? quote : *p;
		}
		if (!*p)
			return "unterminated tag";
		bool selfclosing = p[-1] == '/';
		if (closing) {
			if (!depth || len[depth - 1] != n ||
			    strncmp(open[depth - 1], name, n))
				return "mismatched closing tag";
			depth--;
		} else if (!selfclosing) {
			if (depth == MAX_DEPTH)
				return "too deep";
			roots += depth == 0;
			open[depth] = name;
			len[depth++] = n;
		}
		s = p + 1;
	}
	if (depth)
		return "unclosed tag";
	return roots == 1 ? NULL : "not exactly one root element";
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static void test_xml_check(void **state)
{
	(void)state;
	assert_null(xml_check("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t</a>"));
	assert_non_null(xml_check("<a><b></a></b>"));
	assert_non_null(xml_check("<a>x & y</a>"));
	assert_non_null(xml_check("<a x=\"<\"></a>"));
	assert_non_null(xml_check("<a>"));
	assert_non_null(xml_check("<a></a><b></b>"));
}

static void test_svg(void **state)
{
	(void)state;
	Asg a;
	assign(&a, "HloModule t\n\nENTRY e {\n"
		   "  p = f32[256] parameter(0)\n"
		   "  a = f32[256] negate(p)\n"
		   "  b = f32[256] exponential(a)\n"
		   "  c = f32[256] negate(b)\n"
		   "  ROOT d = f32[256] exponential(c)\n"
		   "}\n");
	StrBuf b;
	sb_init(&b);
	buffers_svg(&b, &a.ba, a.info, "chart of <t> & \"friends\"\x01");
	const char *svg = sb_str(&b);
	const char *err = xml_check(svg);
	if (err)
		fail_msg("%s\n%s", err, svg);
	assert_non_null(
		strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(
		strstr(svg, "chart of &lt;t&gt; &amp; &quot;friends&quot;?"));
	/* one tooltip per buffer, and the legend and axes */
	assert_int_equal(count(svg, "<title>"), a.ba.n);
	assert_non_null(strstr(svg, "<title>c: 1.0 KiB (temporary), live 3-4, "
				    "slot 1, offset 1024</title>"));
	assert_non_null(strstr(svg, "schedule position"));
	assert_non_null(strstr(svg, "arena offset"));
	for (int k = 0; k < 4; k++)
		assert_non_null(strstr(svg, buffers_kind_name((BufferKind)k)));
	/* UTF-8 names keep their characters; a stray byte becomes U+FFFD */
	sb_clear(&b);
	buffers_svg(&b, &a.ba, a.info, "mod\xc3\xa9le \xe2\x86\x92 x\xff\xc3");
	svg = sb_str(&b);
	assert_null(xml_check(svg));
	assert_non_null(strstr(svg, "mod\xc3\xa9le \xe2\x86\x92 "
				    "x\xef\xbf\xbd\xef\xbf\xbd<"));
	sb_free(&b);
	asg_free(&a);
}

/* --- the corpus ----------------------------------------------------------- */

/* Buffer indices grouped by slot (a stable counting sort: within a slot,
 * in the order buffers.c made them, which is schedule order). */
static int *by_slot(const BufferAssignment *ba)
{
	int *first = calloc((size_t)ba->nslots + 1, sizeof *first);
	int *v = malloc(sizeof *v * (size_t)(ba->n + 1));
	for (int i = 0; i < ba->n; i++)
		first[ba->bufs[i].slot + 1]++;
	for (int k = 0; k < ba->nslots; k++)
		first[k + 1] += first[k];
	for (int i = 0; i < ba->n; i++)
		v[first[ba->bufs[i].slot]++] = i;
	free(first);
	return v;
}

/* Returns a malloc'd failure message or NULL. */
static char *check_invariants(const HloModule *m, const BufferAssignment *ba,
			      const BufferInfo *info)
{
	char msg[256];
#define FAIL(...)                                       \
	do {                                            \
		snprintf(msg, sizeof msg, __VA_ARGS__); \
		return strdup(msg);                     \
	} while (0)
	int n = ba->npositions, last = n - 1;
	if (m->entry && n != m->entry->n)
		FAIL("%d positions for %d instructions", n, m->entry->n);
	int64_t largest = 0, total = 0;
	int temps = 0;
	for (int i = 0; i < ba->n; i++) {
		const Buffer *b = &ba->bufs[i];
		if (b->start < 0 || b->start > b->end || b->end > last)
			FAIL("%s: live %d-%d outside 0-%d", b->def->name,
			     b->start, b->end, last);
		if (b->def->parent != m->entry)
			FAIL("%s is not in the entry", b->def->name);
		if (b->bytes < 0 || b->offset < 0 ||
		    b->offset + b->bytes > ba->arena_bytes)
			FAIL("%s: offset %lld + %lld past the arena %lld",
			     b->def->name, (long long)b->offset,
			     (long long)b->bytes, (long long)ba->arena_bytes);
		if (b->slot < 0 || b->slot >= ba->nslots)
			FAIL("%s: slot %d of %d", b->def->name, b->slot,
			     ba->nslots);
		bool whole = info[i].kind != BUF_TEMP;
		if (whole && b->end != last)
			FAIL("%s (%s) ends at %d of %d", b->def->name,
			     buffers_kind_name(info[i].kind), b->end, last);
		if ((info[i].kind == BUF_PARAMETER) !=
		    (b->def->op == HLO_PARAMETER))
			FAIL("%s: kind %s", b->def->name,
			     buffers_kind_name(info[i].kind));
		temps += info[i].kind == BUF_TEMP;
		largest = b->bytes > largest ? b->bytes : largest;
		total += b->bytes;
	}
	if (temps != ba->ntemps || total != ba->total_bytes)
		FAIL("ntemps %d (counted %d), total %lld (counted %lld)",
		     ba->ntemps, temps, (long long)ba->total_bytes,
		     (long long)total);
	if (ba->peak_bytes > ba->arena_bytes || ba->arena_bytes > total ||
	    ba->peak_bytes < largest)
		FAIL("largest %lld, peak %lld, arena %lld, total %lld",
		     (long long)largest, (long long)ba->peak_bytes,
		     (long long)ba->arena_bytes, (long long)total);
	/* The peak, position by position (quadratic, so only on modules of
	 * moderate size: independent of the difference array buffers.c
	 * uses). */
	bool small = (double)n * ba->n <= 4e6;
	int64_t peak = small ? 0 : ba->peak_bytes;
	for (int p = 0; small && p < n; p++) {
		int64_t live = 0;
		for (int i = 0; i < ba->n; i++)
			if (ba->bufs[i].start <= p && p <= ba->bufs[i].end)
				live += ba->bufs[i].bytes;
		peak = live > peak ? live : peak;
	}
	if (peak != ba->peak_bytes)
		FAIL("peak %lld, recomputed %lld", (long long)ba->peak_bytes,
		     (long long)peak);
	/* Buffers sharing a slot: same offset, never live at once, never
	 * parameters or constants. */
	int *v = by_slot(ba);
	for (int k = 1; k < ba->n; k++) {
		const Buffer *a = &ba->bufs[v[k - 1]], *b = &ba->bufs[v[k]];
		if (a->slot != b->slot)
			continue;
		BufferKind ka = info[v[k - 1]].kind, kb = info[v[k]].kind;
		bool fixed = ka == BUF_PARAMETER || ka == BUF_CONSTANT ||
			     kb == BUF_PARAMETER || kb == BUF_CONSTANT;
		if (a->offset != b->offset || a->end >= b->start || fixed) {
			snprintf(msg, sizeof msg,
				 "%s (%d-%d) and %s (%d-%d) share slot %d",
				 a->def->name, a->start, a->end, b->def->name,
				 b->start, b->end, a->slot);
			free(v);
			return strdup(msg);
		}
	}
	free(v);
	return NULL;
#undef FAIL
}

typedef struct Tally {
	int failed, reused;
} Tally;

static bool check_one(const char *name, HloModule *m, void *ctx)
{
	Tally *t = ctx;
	BufferAssignment ba;
	BufferInfo *info;
	assert_true(buffers_assign_info(m, &ba, &info));
	char *msg = check_invariants(m, &ba, info);
	t->reused += ba.nslots < ba.n;
	t->failed += tally_fail(name, msg);
	buffers_free(&ba);
	free(info);
	hlo_module_free(m);
	return true;
}

static void test_corpus(void **state)
{
	(void)state;
	Tally t = {0};
	CorpusCount n = corpus_each(check_one, &t);
	print_message("buffers: %d modules, %d assigned, %d with reuse, "
		      "%d failed\n",
		      n.listed, n.loaded, t.reused, t.failed);
	assert_true(n.listed >= 396);
	assert_true(n.loaded >= 390); /* a handful are invalid on purpose */
	assert_true(t.reused > 50);
	assert_int_equal(t.failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_reuse),
		cmocka_unit_test(test_best_fit),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_update_in_place),
		cmocka_unit_test(test_while_in_place),
		cmocka_unit_test(test_tuple_leaves),
		cmocka_unit_test(test_params_constants),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_scrambled_order),
		cmocka_unit_test(test_xml_check),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_huge_sizes),
		cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
