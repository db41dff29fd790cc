/* reader.c - lines in, units out.
 *
 * A unit is decided by its first line: an instruction ("[ROOT] name ="),
 * an HLO block (HloModule, ENTRY, or a line leaving a '{' or '(' open), or
 * else a command. Instructions and blocks read continuation lines until
 * their brackets balance. A block then takes further computations while
 * they follow, so a whole XLA dump pasted or embedded in a script loads as
 * one module. It ends at a command or an instruction line, at end of
 * input, or after the ENTRY computation (at once at the prompt; in a
 * script, unless more computations follow).
 *
 * At a terminal, Ctrl-C cancels the line being typed (and a block being
 * entered: the whole unit is dropped) and gives a fresh prompt; while a
 * command runs it is caught too, so it never ends the session (a run
 * polls for it and stops early, see commands/run.c). The prompt is in
 * colour when stdout is a terminal, unless NO_COLOR is set or TERM is
 * "dumb". */
#include "reader.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/types.h>
#include <unistd.h>

#include "commands.h"
#include "parse.h"

#ifdef XR_HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

#define PROMPT      "xla> "
#define PROMPT_CONT "...> "
enum { HISTORY_MAX = 1000 };

/* Colour for the prompts: SGR codes, each wrapped in \001 \002 for
 * Readline so that it knows they take no columns. The prompt's text stays
 * in one piece, so a tool that looks for "xla> " on a terminal finds it. */
#define COLOUR_ON(code)    "\001\033[" code "m\002"
#define COLOUR_OFF         "\001\033[0m\002"
#define PROMPT_COLOUR      COLOUR_ON("1;36") PROMPT COLOUR_OFF
#define PROMPT_CONT_COLOUR COLOUR_ON("2") PROMPT_CONT COLOUR_OFF

/* --- Ctrl-C and colour --- */

/* A signal handler can only set a flag, and signals are the process's,
 * not a reader's: so the flag and the reader that installed the handler
 * (the interactive one; sourced scripts inside it read files) are file
 * statics. `cancelled` says the unit being read was dropped by Ctrl-C. */
static volatile sig_atomic_t got_sigint;
static bool cancelled;
static struct sigaction old_sigint;
static const Reader *sigint_owner;
static bool prompt_colour; /* Readline's prompts (there is one Readline) */

static void on_sigint(int sig)
{
	(void)sig;
	got_sigint = 1;
}

/* No SA_RESTART: a read in progress returns EINTR, so the line being
 * typed can be cancelled at once. */
static void catch_sigint(const Reader *r)
{
	if (sigint_owner)
		return; /* caught already */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, &old_sigint) == 0)
		sigint_owner = r;
}

static void release_sigint(const Reader *r)
{
	if (sigint_owner != r)
		return;
	sigaction(SIGINT, &old_sigint, NULL);
	sigint_owner = NULL;
}

#ifdef XR_HAVE_READLINE
/* Colour only for a person at a terminal who has not asked for none
 * (https://no-color.org: NO_COLOR set to anything non-empty). */
static bool want_colour(FILE *out)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	if (nc && *nc)
		return false;
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(out));
}
#endif

/* --- classifying a line --- */

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
			 s[i] == '\f' || s[i] == '\v'))
		i++;
	return i;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

static size_t name_end(const char *s, size_t n, size_t i)
{
	while (i < n && is_name_char(s[i]))
		i++;
	return i;
}

/* s[i..] is the word w, not just a prefix of a longer name. */
static bool word_is(const char *s, size_t n, size_t i, const char *w)
{
	size_t k = strlen(w);
	return n - i >= k && memcmp(s + i, w, k) == 0 &&
	       name_end(s, n, i) == i + k;
}

/* An assignment's '=' at s[i], not the start of "==". */
static bool is_assign(const char *s, size_t n, size_t i)
{
	return i < n && s[i] == '=' && (i + 1 == n || s[i + 1] != '=');
}

/* A name as the HLO parser takes it: a letter or '_' first, or after the
 * '%' sigil any name character ("%1"). */
static bool plausible_name(const char *s, size_t i, size_t e, bool sigil)
{
	unsigned char c = (unsigned char)s[i];
	return e > i && (isalpha(c) || c == '_' || sigil);
}

/* "[ROOT] [%]name =" whatever the name: a typed instruction must never be
 * taken for a command, however short its name. "echo == 1" is echo. */
static bool is_instr(const char *s, size_t n, size_t i)
{
	if (word_is(s, n, i, "ROOT")) {
		size_t j = skip_blanks(s, n, i + 4);
		if (is_assign(s, n, j))
			return true; /* an instruction named ROOT */
		i = j;
	}
	bool sigil = i < n && s[i] == '%';
	i += sigil;
	size_t e = name_end(s, n, i);
	return plausible_name(s, i, e, sigil) &&
	       is_assign(s, n, skip_blanks(s, n, e));
}

/* The line ends in an open '{': a computation header such as
 * `compare {` or `%add (a: f32[], b: f32[]) -> f32[] {`. */
static bool opens_brace(const char *s, size_t n, size_t i)
{
	while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n > i && s[n - 1] == '{' && parse_open_depth(s + i, n - i) > 0;
}

/* The first word names a command exactly (a prefix does not count here,
 * so `add {` still starts a computation), and the line is not a
 * computation header named like a command (`compare {`, `echo (...) ->
 * ... {`): in one, the name is followed by its '{' or its parameters
 * ('echo begin {' is a command). */
static bool is_command_word(const char *s, size_t n, size_t i)
{
	size_t e = name_end(s, n, i);
	if (e == i || (e < n && skip_blanks(s, n, e) == e))
		return false;
	size_t j = skip_blanks(s, n, e);
	bool header = j < n && (s[j] == '{' || s[j] == '(') &&
		      opens_brace(s, n, i);
	return cmd_find_exact(s + i, e - i) != NULL && !header;
}

/* '#', or an HLO comment filling the line: "// ..." or a closed slash-star
 * comment (dumps may start with one). */
static bool is_comment(const char *s, size_t n, size_t i)
{
	if (s[i] == '#' || (n - i >= 2 && memcmp(s + i, "//", 2) == 0))
		return true;
	if (n - i < 4 || memcmp(s + i, "/*", 2) != 0)
		return false;
	for (size_t j = i + 2; j + 1 < n; j++)
		if (s[j] == '*' && s[j + 1] == '/')
			return skip_blanks(s, n, j + 2) == n;
	return false;
}

LineKind repl_classify_line(const char *s, size_t n)
{
	size_t i = skip_blanks(s, n, 0);
	if (i == n)
		return LINE_BLANK;
	if (is_comment(s, n, i))
		return LINE_COMMENT;
	if (is_instr(s, n, i))
		return LINE_INSTR;
	if (is_command_word(s, n, i))
		return LINE_COMMAND;
	if (word_is(s, n, i, "HloModule"))
		return LINE_MODULE;
	if (word_is(s, n, i, "ENTRY") || parse_open_depth(s + i, n - i) > 0)
		return LINE_BLOCK;
	return LINE_OTHER;
}

/* Inside a block, a command abbreviated to a unique prefix ends it too. */
static bool names_command(const char *s, size_t n)
{
	size_t i = skip_blanks(s, n, 0), e = name_end(s, n, i);
	if (e == i || (e < n && skip_blanks(s, n, e) == e))
		return false;
	return cmd_find(s + i, e - i) != NULL;
}

/* --- reading lines --- */

static bool get_line(Reader *r, const char *prompt)
{
	if (r->interactive && prompt) {
		fputs(prompt, r->prompt_out);
		fflush(r->prompt_out);
	}
	got_sigint = 0;
	errno = 0;
	ssize_t got = getline(&r->buf, &r->cap, r->in);
	if (got < 0 && errno == EINTR && got_sigint) {
		clearerr(r->in); /* Ctrl-C: not the end of input */
		got_sigint = 0;
		cancelled = true;
		fputc('\n', r->prompt_out);
		return false;
	}
	if (got < 0) {
		/* a read error (a directory, no memory for one huge line)
		 * is not the end of the script */
		if (ferror(r->in) || errno)
			r->read_errno = errno ? errno : EIO;
		return false;
	}
	size_t n = (size_t)got;
	const char *text = r->buf;
	/* a byte order mark (editors on Windows write one) is no command */
	if (r->line == 0 && n >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		text += 3;
		n -= 3;
	}
	if (n && text[n - 1] == '\n')
		n--;
	if (n && text[n - 1] == '\r')
		n--;
	sb_putn(&r->cur, text, n);
	return true;
}

#ifdef XR_HAVE_READLINE
/* Readline's callback interface, so that Ctrl-C can end the wait for a
 * key: the line handler has no context pointer, hence the statics. */
static char *rl_got;
static bool rl_have_line;

static void rl_line_done(char *line)
{
	rl_got = line; /* NULL: end of input (Ctrl-D) */
	rl_have_line = true;
	rl_callback_handler_remove();
}

/* Ctrl-C at the prompt: forget the half-typed line, say so, and leave
 * the terminal as Readline found it. */
static void rl_cancel(void)
{
	rl_free_line_state();
	rl_callback_sigcleanup();
	rl_replace_line("", 0);
	fputs("^C", rl_outstream);
	rl_crlf();
	rl_callback_handler_remove();
	got_sigint = 0;
	cancelled = true;
}

/* Waits for input with SIGINT blocked except inside pselect, so a Ctrl-C
 * cannot slip in between looking at the flag and starting to wait. */
static bool rl_get_line(Reader *r, const char *prompt)
{
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	got_sigint = 0;
	rl_got = NULL;
	rl_have_line = false;
	rl_callback_handler_install(prompt, rl_line_done);
	int fd = fileno(rl_instream);
	while (!rl_have_line) {
		fd_set fds;
		FD_ZERO(&fds);
		FD_SET(fd, &fds);
		int n = pselect(fd + 1, &fds, NULL, NULL, NULL, &old);
		if (got_sigint) {
			rl_cancel();
			break;
		}
		if (n < 0 && errno != EINTR) {
			rl_callback_handler_remove();
			break; /* the terminal is gone: end of input */
		}
		if (n > 0)
			rl_callback_read_char();
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (!rl_got)
		return false;
	if (*rl_got)
		add_history(rl_got);
	sb_puts(&r->cur, rl_got);
	free(rl_got);
	rl_got = NULL;
	return true;
}
#else
static bool rl_get_line(Reader *r, const char *prompt)
{
	return get_line(r, prompt);
}
#endif

/* The next line into r->cur; a pushed-back line is still there. */
static bool next_line(Reader *r, const char *prompt)
{
	if (r->has_pending) {
		r->has_pending = false;
		return true;
	}
	sb_clear(&r->cur);
	/* A terminal gives EOF (Ctrl-D) once and then reads on: remember it,
	 * so Ctrl-D in the middle of a block ends the session too. */
	if (r->eof)
		return false;
	if (r->readline && prompt && prompt_colour)
		prompt = strcmp(prompt, PROMPT) == 0 ? PROMPT_COLOUR
						     : PROMPT_CONT_COLOUR;
	bool got = r->readline ? rl_get_line(r, prompt) : get_line(r, prompt);
	if (got && r->cur.oom) {
		/* no memory to hold the line: a read error, not a blank
		 * line (nor every line after it: the buffer stays cut) */
		r->read_errno = ENOMEM;
		got = false;
	}
	if (got)
		r->line++;
	r->eof = !got && !cancelled;
	return got;
}

/* --- assembling a unit --- */

static const char *cur_text(Reader *r) { return sb_str(&r->cur); }

/* Brackets left open by the unit's text after r->settled (normally just
 * the newest line), and whether it ends inside a slash-star comment. */
static int region_depth(Reader *r, bool *in_comment)
{
	const char *s = sb_str(&r->unit) + r->settled;
	size_t n = r->unit.len - r->settled;
	int d = parse_open_depth(s, n);
	*in_comment = false;
	if (!strstr(s, "/*"))
		return d;
	/* parse_open_depth counts an open comment as one more level;
	 * closing it shows whether that happened. */
	StrBuf t;
	sb_init(&t);
	sb_putn(&t, s, n);
	sb_puts(&t, "\n*/");
	*in_comment = parse_open_depth(sb_str(&t), t.len) != d;
	sb_free(&t);
	return d;
}

static bool closes_comment(const char *s, size_t n)
{
	for (size_t k = 0; k + 1 < n; k++)
		if (s[k] == '*' && s[k + 1] == '/')
			return true;
	return false;
}

/* The length of HLO line s without a '#' comment at its end: a '#' that
 * starts a word (after a blank), outside strings, slash-star comments
 * and, unless a blank or the end follows it, brackets ('#' also appears
 * in layouts, {0:#(u32)}). XLA's text has no such comments; a script's
 * HLO lines may, like its commands. */
static size_t before_comment(const char *s, size_t n)
{
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '"') {
			for (i++; i < n && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
		} else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			return n; /* the rest is a comment already */
		} else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			/* a '#' in a slash-star comment is the comment's */
			for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/');
			     i++)
				;
			i++;
		} else if (c == '{' || c == '(' || c == '[') {
			depth++;
		} else if (c == '}' || c == ')' || c == ']') {
			depth--;
		} else if (c == '#' && i > 0 &&
			   (s[i - 1] == ' ' || s[i - 1] == '\t') &&
			   (depth <= 0 || i + 1 == n || s[i + 1] == ' ' ||
			    s[i + 1] == '\t')) {
			/* in brackets only "# text": a layout's #(u32) is
			 * no comment, "ENTRY e { # entry" is */
			while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
				i--;
			return i;
		}
	}
	return n;
}

static void unit_add(Reader *r)
{
	const char *s = cur_text(r);
	size_t n = r->cur.len;
	if (r->nlines++)
		sb_putc(&r->unit, '\n');
	if (!r->nul_line && memchr(s, 0, n))
		r->nul_line = r->line;
	/* A '#' comment inside HLO text stays as an empty line: the parser
	 * does not know '#', and line numbers must not shift. */
	size_t i = skip_blanks(s, n, 0);
	if (i < n && s[i] == '#')
		return;
	if (r->hlo && !r->in_comment) /* a line inside one: its text */
		n = before_comment(s, n);
	sb_putn(&r->unit, s, n);
	/* Counting line by line keeps long blocks linear; a comment that
	 * spans lines is counted again together once, at the line that
	 * closes it (a line without its end changes nothing). */
	if (r->in_comment && !closes_comment(s, n))
		return;
	r->depth = r->base + region_depth(r, &r->in_comment);
	if (!r->in_comment) {
		r->base = r->depth;
		r->settled = r->unit.len;
	}
}

static void unit_start(Reader *r)
{
	sb_clear(&r->unit);
	r->start = r->line;
	r->depth = r->base = 0;
	r->settled = 0;
	r->in_comment = false;
	r->nlines = 0;
	r->nul_line = 0;
	unit_add(r);
}

/* Reads continuation lines while brackets are open; false at EOF. */
static bool gather_open(Reader *r)
{
	while (r->depth > 0) {
		if (!next_line(r, PROMPT_CONT))
			return false;
		unit_add(r);
	}
	return true;
}

static bool starts_entry(Reader *r)
{
	const char *s = cur_text(r);
	size_t n = r->cur.len;
	return word_is(s, n, skip_blanks(s, n, 0), "ENTRY");
}

/* Does the line just read belong to the block? Before the ENTRY
 * computation anything but a command or an instruction does (XLA dumps
 * put stack-frame tables there); after it, only further computations. */
static bool block_takes(Reader *r, bool after_entry)
{
	const char *s = cur_text(r);
	size_t n = r->cur.len;
	switch (repl_classify_line(s, n)) {
	case LINE_BLANK:
	case LINE_COMMENT:
	case LINE_BLOCK:
		return true;
	case LINE_OTHER:
		return !after_entry && !names_command(s, n);
	default:
		return false;
	}
}

/* Whole computations until the block ends (see the file comment). The
 * ENTRY computation ends it once its body has been opened and closed
 * (its '{' may come on a line of its own); a script may still define
 * computations after it, so there one more line is looked at. */
static bool gather_block(Reader *r)
{
	bool entry = starts_entry(r), body = r->depth > 0, done = false;
	for (;;) {
		if (!gather_open(r))
			return false;
		if (r->depth < 0 || (entry && body && r->interactive))
			return true;
		done = done || (entry && body);
		if (!next_line(r, PROMPT_CONT))
			return true;
		if (!block_takes(r, done)) {
			r->has_pending = true;
			return true;
		}
		if (starts_entry(r))
			entry = true, body = false;
		unit_add(r);
		body = body || r->depth > 0;
	}
}

static void fail_unit(Unit *u, const char *msg, int line)
{
	u->kind = UNIT_ERROR;
	u->error = msg;
	u->line = line;
}

static void finish(Reader *r, Unit *u, UnitKind kind, bool complete)
{
	u->kind = kind;
	u->line = r->start;
	u->text = sb_str(&r->unit);
	u->len = r->unit.len;
	u->error = NULL;
	if (!complete) {
		snprintf(r->msg, sizeof r->msg,
			 "unterminated block started at line %d", r->start);
		fail_unit(u, r->msg, r->line);
	} else if (r->nul_line) {
		fail_unit(u, "NUL byte in input", r->nul_line);
	} else if (r->unit.oom) {
		fail_unit(u, "out of memory reading the input", r->start);
	}
}

/* One unit; false at end of input, or when Ctrl-C dropped it. */
static bool read_unit(Reader *r, Unit *u)
{
	LineKind k;
	do {
		if (!next_line(r, PROMPT))
			return false;
		k = repl_classify_line(cur_text(r), r->cur.len);
	} while (k == LINE_BLANK || k == LINE_COMMENT);
	r->hlo = k == LINE_INSTR || k == LINE_BLOCK || k == LINE_MODULE;
	unit_start(r);
	if (k == LINE_INSTR)
		finish(r, u, UNIT_INSTR, gather_open(r));
	else if (k == LINE_BLOCK || k == LINE_MODULE)
		finish(r, u, UNIT_BLOCK, gather_block(r));
	else
		finish(r, u, UNIT_COMMAND, true); /* LINE_OTHER too: dispatch
						     knows prefixes and junk */
	return true;
}

bool repl_read_unit(Reader *r, Unit *u)
{
	for (;;) {
		cancelled = false;
		bool got = read_unit(r, u);
		if (!cancelled)
			return got;
		r->has_pending = false; /* Ctrl-C: start afresh */
	}
}

/* --- Readline: history and completion --- */

#ifdef XR_HAVE_READLINE
/* Readline's completion callback takes no context pointer, so the session
 * it completes against has to be reachable from here. */
static const Session *rl_session;

static char *common_prefix(const CmdMatches *m)
{
	size_t n = strlen(m->v[0]);
	for (int i = 1; i < m->n; i++) {
		size_t k = 0;
		while (k < n && m->v[i][k] == m->v[0][k])
			k++;
		n = k;
	}
	return strndup(m->v[0], n);
}

/* Readline's match array: the text to insert, then the candidates. */
static char **match_array(CmdMatches *m)
{
	char **v = malloc(((size_t)m->n + 2) * sizeof *v);
	if (!v)
		return NULL;
	int k = 0;
	if (m->n > 1)
		v[k++] = common_prefix(m);
	for (int i = 0; i < m->n; i++)
		v[k++] = m->v[i];
	v[k] = NULL;
	m->n = 0;
	return v;
}

static char **complete_hook(const char *text, int start, int end)
{
	(void)end;
	CmdMatches m = {0};
	if (!cmd_complete_line(rl_session, rl_line_buffer, start, text, &m)) {
		cmd_matches_free(&m);
		return NULL; /* Readline falls back to file names */
	}
	rl_attempted_completion_over = 1;
	char **v = m.n ? match_array(&m) : NULL;
	cmd_matches_free(&m);
	return v;
}

static void rl_setup(Reader *r, const Session *s)
{
	rl_session = s;
	rl_readline_name = "xla-repl";
	rl_attempted_completion_function = complete_hook;
	rl_catch_signals = 0; /* Ctrl-C is ours: see rl_get_line */
	prompt_colour = want_colour(rl_outstream ? rl_outstream : stdout);
	using_history();
	stifle_history(HISTORY_MAX);
	const char *home = getenv("HOME");
	if (!home || !*home)
		return;
	size_t n = strlen(home) + sizeof "/.xla_repl_history";
	r->history_path = malloc(n);
	if (!r->history_path)
		return;
	snprintf(r->history_path, n, "%s/.xla_repl_history", home);
	read_history(r->history_path);
}

static void rl_teardown(Reader *r)
{
	if (r->history_path) {
		write_history(r->history_path);
		history_truncate_file(r->history_path, HISTORY_MAX);
	}
	rl_session = NULL;
}
#endif

void repl_reader_init(Reader *r, FILE *in, bool interactive, const Session *s)
{
	memset(r, 0, sizeof *r);
	r->in = in;
	r->prompt_out = s ? s->out : stdout;
	r->interactive = interactive;
	sb_init(&r->cur);
	sb_init(&r->unit);
	(void)s;
	bool tty = interactive && isatty(fileno(in));
	if (tty)
		catch_sigint(r);
#ifdef XR_HAVE_READLINE
	r->readline = tty && in == stdin;
	if (r->readline)
		rl_setup(r, s);
#endif
}

void repl_reader_free(Reader *r)
{
	release_sigint(r);
#ifdef XR_HAVE_READLINE
	if (r->readline)
		rl_teardown(r);
#endif
	free(r->history_path);
	free(r->buf);
	sb_free(&r->cur);
	sb_free(&r->unit);
}
