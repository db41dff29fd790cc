/* learn.c - `example` and `explain`: content that teaches.
 *
 * `example NAME` loads a built-in module (learn_examples.c) as a new
 * history step, exactly as `load` would load the same text from a file.
 * `explain TOPIC` prints the explanation of an opcode, a pass or a
 * concept (learn_text.c); an unknown topic is answered with the topics
 * whose names are close to it. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "learn.h"
#include "parse.h"
#include "passes/fusion.h"
#include "verify.h"

enum { LIST_WIDTH = 76, MAX_SUGGESTIONS = 8 };

/* ---- example ----------------------------------------------------------- */

static void list_examples(Session *s)
{
	int n;
	const Example *ex = cmd_example_table(&n);
	fputs("examples (load one with 'example NAME'):\n", s->out);
	for (int i = 0; i < n; i++)
		fprintf(s->out, "  %-12s %s\n", ex[i].name, ex[i].summary);
}

static bool unknown_example(Session *s, const char *name)
{
	int n;
	const Example *ex = cmd_example_table(&n);
	StrBuf b;
	sb_init(&b);
	for (int i = 0; i < n; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", ex[i].name);
	char q[80];
	repl_error(s, "unknown example '%s' (examples: %s)",
		   repl_quote(q, sizeof q, name, strlen(name)), sb_str(&b));
	sb_free(&b);
	return false;
}

/* Parses and verifies the example's text and makes it a history step
 * labelled "example NAME"; diagnostics (which would be a bug in the
 * table) carry the name "example:NAME". */
static bool load_example(Session *s, const Example *ex)
{
	char src_name[64], label[80];
	snprintf(src_name, sizeof src_name, "example:%s", ex->name);
	snprintf(label, sizeof label, "example %s", ex->name);
	SrcFile src = {src_name, ex->text, strlen(ex->text), 0};
	Diag d;
	diag_init(&d);
	ParseStatus st = PARSE_OK;
	HloModule *m = parse_module(&src, &d, &st);
	bool ok = m && verify_module(m, &d, &src);
	repl_print_diag(s, &d);
	diag_free(&d);
	if (!ok) {
		hlo_module_free(m);
		return repl_error(s, "example '%s' does not load", ex->name);
	}
	if (!repl_start_module(s, m, label))
		return false;
	repl_describe_module(s, label);
	return true;
}

bool cmd_example(Session *s, const CmdArgs *a)
{
	if (a->argc == 0) {
		list_examples(s);
		return true;
	}
	const Example *ex = cmd_example_find(a->argv[0]);
	if (!ex)
		return unknown_example(s, a->argv[0]);
	return load_example(s, ex);
}

void cmd_complete_examples(const Session *s, const char *prefix,
			   CmdMatches *out)
{
	(void)s;
	int n;
	const Example *ex = cmd_example_table(&n);
	size_t k = strlen(prefix);
	for (int i = 0; i < n; i++)
		if (strncmp(ex[i].name, prefix, k) == 0)
			cmd_matches_add(out, ex[i].name);
}

/* ---- explain ----------------------------------------------------------- */

static const char *const group_titles[NTOPIC_KINDS] = {
	[TOPIC_OPCODE] = "Opcodes",
	[TOPIC_PASS] = "Passes",
	[TOPIC_CONCEPT] = "Concepts",
};

/* Adds name to a listing filled into lines of at most LIST_WIDTH
 * columns; *col is the current line's width. */
static void list_word(Session *s, const char *name, int *col)
{
	int w = (int)strlen(name);
	if (*col && *col + 1 + w > LIST_WIDTH) {
		fputc('\n', s->out);
		*col = 0;
	}
	*col += fprintf(s->out, "%s%s", *col ? " " : "  ", name);
}

/* Names of one kind. */
static void list_group(Session *s, TopicKind kind)
{
	int n, col = 0;
	const Topic *t = cmd_topic_table(&n);
	fprintf(s->out, "%s:\n", group_titles[kind]);
	for (int i = 0; i < n; i++)
		if (t[i].kind == kind)
			list_word(s, t[i].name, &col);
	if (col)
		fputc('\n', s->out);
}

static void list_topics(Session *s)
{
	fputs("explain TOPIC: topics by group\n", s->out);
	for (int k = 0; k < NTOPIC_KINDS; k++)
		list_group(s, (TopicKind)k);
	/* The rules `why` and `fusions` name. */
	int n, col = 0;
	const FusionRule *r = fusion_rules(&n);
	fputs("Fusion rules:\n", s->out);
	for (int i = 0; i < n; i++)
		list_word(s, r[i].name, &col);
	if (col)
		fputc('\n', s->out);
}

/* text in lines of at most LIST_WIDTH columns, indented by two. */
static void print_wrapped(Session *s, const char *text)
{
	int col = 0;
	for (const char *p = text; *p;) {
		size_t w = strcspn(p, " ");
		if (col && col + 1 + (int)w > LIST_WIDTH) {
			fputc('\n', s->out);
			col = 0;
		}
		col += fprintf(s->out, "%s%.*s", col ? " " : "  ", (int)w, p);
		p += w;
		p += strspn(p, " ");
	}
	if (col)
		fputc('\n', s->out);
}

/* A rule of the fusion decision log by name, or NULL. */
static const FusionRule *fusion_rule(const char *name)
{
	int n;
	const FusionRule *r = fusion_rules(&n);
	for (int i = 0; i < n; i++)
		if (!strcasecmp(r[i].name, name))
			return &r[i];
	return NULL;
}

static void print_topic(Session *s, const Topic *t)
{
	fprintf(s->out, "%s (%s)\n", t->name, cmd_topic_kind_names[t->kind]);
	for (const char *p = t->text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		fprintf(s->out, "%s%.*s\n", n ? "  " : "", (int)n, p);
		p += n + (nl != NULL);
	}
}

/* Levenshtein distance of a and b, case-insensitive, capped at 9. */
static int distance(const char *a, const char *b)
{
	size_t n = strlen(b);
	if (strlen(a) > 40 || n > 40)
		return 9;
	int row[41];
	for (size_t j = 0; j <= n; j++)
		row[j] = (int)j;
	for (size_t i = 1; a[i - 1]; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= n; j++) {
			int cost = tolower((unsigned char)a[i - 1]) !=
				   tolower((unsigned char)b[j - 1]);
			int best = diag + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = row[j];
			row[j] = best;
		}
	}
	return row[n] < 9 ? row[n] : 9;
}

/* Does hay contain needle, ignoring case? */
static bool contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return n == 0;
}

static bool seen_before(const Topic *t, int i)
{
	for (int j = 0; j < i; j++)
		if (strcmp(t[j].name, t[i].name) == 0)
			return true;
	return false;
}

/* How close a topic is to what was typed: 0 it starts so, 1 a typo
 * away, 2 one contains the other, 3 not close. */
static int closeness(const char *typed, const char *name)
{
	size_t n = strlen(typed);
	if (strncasecmp(name, typed, n) == 0)
		return 0;
	if (distance(typed, name) <= (n <= 4 ? 1 : 2))
		return 1;
	if ((n >= 3 && contains(name, typed)) ||
	    (strlen(name) >= 3 && contains(typed, name)))
		return 2;
	return 3;
}

static bool unknown_topic(Session *s, const char *name)
{
	int n, found = 0;
	const Topic *t = cmd_topic_table(&n);
	StrBuf b;
	sb_init(&b);
	for (int level = 0; level < 3; level++) {
		for (int i = 0; i < n && found < MAX_SUGGESTIONS; i++) {
			if (closeness(name, t[i].name) != level ||
			    seen_before(t, i))
				continue;
			sb_printf(&b, "%s%s", found++ ? ", " : "", t[i].name);
		}
	}
	char q[80];
	repl_quote(q, sizeof q, name, strlen(name));
	if (found)
		repl_error(s, "unknown topic '%s' (did you mean: %s?)", q,
			   sb_str(&b));
	else
		repl_error(s, "unknown topic '%s' ('explain' lists the topics)",
			   q);
	sb_free(&b);
	return false;
}

/* Other words people use for a topic. */
static const struct {
	const char *alias, *topic;
} aliases[] = {
	{"kLoop", "fusion-kinds"},
	{"kInput", "fusion-kinds"},
	{"kOutput", "fusion-kinds"},
	{"kCustom", "fusion-kinds"},
	{"jit", "jit-vs-aot"},
	{"aot", "jit-vs-aot"},
	{"llvm", "llvm-ir"},
	{"mof", "multi-output-fusion"},
	{"interp", "interpreter"},
	{"buffers", "buffer-assignment"},
	{"schedule", "scheduling"},
	{"cluster", "clusters"},
	{"lazy-tensor", "lazy-tensors"},
};

static const char *resolve_alias(const char *name)
{
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcasecmp(aliases[i].alias, name) == 0)
			return aliases[i].topic;
	return name;
}

bool cmd_explain(Session *s, const CmdArgs *a)
{
	if (a->argc == 0) {
		list_topics(s);
		return true;
	}
	const char *name = resolve_alias(a->argv[0]);
	int n, shown = 0;
	const Topic *t = cmd_topic_table(&n);
	for (int k = 0; k < NTOPIC_KINDS; k++) {
		for (int i = 0; i < n; i++) {
			if (t[i].kind != (TopicKind)k ||
			    strcasecmp(t[i].name, name) != 0)
				continue;
			if (shown++)
				fputc('\n', s->out);
			print_topic(s, &t[i]);
		}
	}
	const FusionRule *r = fusion_rule(name);
	if (r) {
		if (shown++)
			fputc('\n', s->out);
		char text[512];
		snprintf(text, sizeof text,
			 "%c%s. 'fusions %s' lists the pairs it decided; "
			 "'explain fusion' says how fusion works.",
			 toupper((unsigned char)r->says[0]), r->says + 1,
			 r->name);
		fprintf(s->out, "%s (fusion rule)\n", r->name);
		print_wrapped(s, text);
	}
	/* X-start, X-update, X-done: an asynchronous X, as printed for
	 * async-start (etc.) wrapping a known opcode */
	static const char *const parts[] = {"-start", "-update", "-done"};
	size_t len = strlen(name);
	for (size_t k = 0; !shown && k < 3; k++) {
		size_t pl = strlen(parts[k]);
		if (len <= pl || strcasecmp(name + len - pl, parts[k]))
			continue;
		char op[64], async[32];
		snprintf(op, sizeof op, "%.*s", (int)(len - pl), name);
		snprintf(async, sizeof async, "async%s", parts[k]);
		const Topic *wrapped = cmd_topic_find(op, TOPIC_OPCODE);
		const Topic *how = cmd_topic_find(async, TOPIC_OPCODE);
		if (!wrapped || !how)
			continue;
		print_topic(s, how);
		fputc('\n', s->out);
		print_topic(s, wrapped);
		shown = 2;
	}
	return shown ? true : unknown_topic(s, a->argv[0]);
}

void cmd_complete_explain(const Session *s, const char *prefix, CmdMatches *out)
{
	(void)s;
	int n;
	const Topic *t = cmd_topic_table(&n);
	size_t k = strlen(prefix);
	for (int i = 0; i < n; i++)
		if (strncmp(t[i].name, prefix, k) == 0 && !seen_before(t, i))
			cmd_matches_add(out, t[i].name);
	const FusionRule *r = fusion_rules(&n);
	for (int i = 0; i < n; i++)
		if (strncmp(r[i].name, prefix, k) == 0)
			cmd_matches_add(out, r[i].name);
}
