/* render.c - DOT text to SVG/PNG/PDF through libgvc (see render.h).
 *
 * The graph (agclose), its layout (gvFreeLayout) and the rendered bytes
 * (gvFreeRenderData, after copying them into a buffer of our own) live
 * only inside viz_render and are released on every path; the context is
 * the process's one (see gv_context). */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dot.h"
#include "render.h"
#include "strbuf.h"

#ifdef XR_HAVE_GRAPHVIZ
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#endif

const char *viz_format_of(const char *path)
{
	static const char *const fmts[] = {"svg", "png", "pdf", "dot"};
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	if (!dot || (slash && dot < slash) || strlen(dot + 1) != 3)
		return NULL;
	for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
		int k = 0;
		while (k < 3 &&
		       tolower((unsigned char)dot[1 + k]) == fmts[i][k])
			k++;
		if (k == 3)
			return fmts[i];
	}
	return NULL;
}

static void say(char *err, size_t cap, const char *msg)
{
	if (cap)
		snprintf(err, cap, "%s", msg);
}

#ifndef XR_HAVE_GRAPHVIZ

bool viz_have_graphviz(void) { return false; }

bool viz_render(const char *dot, const char *format, char **out, size_t *len,
		char *err, size_t errcap)
{
	(void)dot;
	(void)format;
	*out = NULL;
	*len = 0;
	say(err, errcap,
	    "built without Graphviz: only .dot output is available "
	    "(install libgraphviz-dev and rebuild)");
	return false;
}

#else

bool viz_have_graphviz(void) { return true; }

/* One context for the process, made at the first picture and freed at
 * exit: Graphviz 2.42 caches font names across layouts (the pango plugin
 * keeps a pointer into the context's font dictionary), so a second
 * context after the first was freed reads freed memory (ASan:
 * heap-use-after-free in textspan_size). Reusing the context keeps that
 * dictionary alive. */
static GVC_t *gv_ctx;

static void gv_close(void)
{
	if (gv_ctx)
		gvFreeContext(gv_ctx);
	gv_ctx = NULL;
}

static GVC_t *gv_context(void)
{
	if (!gv_ctx) {
		gv_ctx = gvContext();
		if (gv_ctx)
			atexit(gv_close);
	}
	return gv_ctx;
}

/* Graphviz reports errors through one process-wide callback with no
 * context pointer, so its last message is kept here. Rendering is
 * single-threaded (one command at a time). */
static char gv_msg[512];

static int gv_error(char *msg)
{
	size_t n = strlen(gv_msg);
	if (n < sizeof gv_msg - 1)
		snprintf(gv_msg + n, sizeof gv_msg - n, "%s", msg);
	return 0;
}

/* The message Graphviz gave, tidied to one line, or fallback. */
static void gv_error_text(char *err, size_t cap, const char *fallback)
{
	char *s = gv_msg;
	while (*s == ' ' || *s == '\n')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = 0;
	for (char *p = s; *p; p++)
		if (*p == '\n')
			*p = ' ';
	if (!cap)
		return;
	if (*s)
		snprintf(err, cap, "graphviz: %s", s);
	else
		snprintf(err, cap, "graphviz: %s", fallback);
}

/* Sets a graph attribute unless the DOT text set it. */
static void set_default(Agraph_t *g, const char *name, const char *value)
{
	char key[16], val[16], none[] = "";
	snprintf(key, sizeof key, "%s", name);
	snprintf(val, sizeof val, "%s", value);
	const char *v = agget(g, key);
	if (!v || !*v)
		agsafeset(g, key, val, none);
}

static void bound_layout(Agraph_t *g, const char *format)
{
	/* Cairo bitmaps stop at 32767 pixels a side; Graphviz would scale
	 * down itself but print a warning on stderr. 340 inches at 96 dpi
	 * is just under. */
	if (strcmp(format, "png") == 0)
		set_default(g, "size", "340,340");
	/* text from elsewhere may lack the bound dot.c writes
	 * (VIZ_BOUND_FROM_NODES) */
	if (agnnodes(g) < VIZ_BOUND_FROM_NODES)
		return;
	char n[16];
	snprintf(n, sizeof n, "%d", VIZ_NSLIMIT);
	set_default(g, "nslimit", n);
	set_default(g, "nslimit1", n);
}

bool viz_render(const char *dot, const char *format, char **out, size_t *len,
		char *err, size_t errcap)
{
	*out = NULL;
	*len = 0;
	gv_msg[0] = 0;
	agusererrf old = agseterrf(gv_error);
	agerrlevel_t old_level = agseterr(AGERR);
	bool ok = false;
	GVC_t *gvc = gv_context();
	Agraph_t *g = NULL;
	bool laid_out = false;
	char *data = NULL;
	unsigned int n = 0;
	if (!gvc) {
		gv_error_text(err, errcap, "cannot create a context");
		goto done;
	}
	g = agmemread(dot);
	if (!g) {
		gv_error_text(err, errcap, "cannot read the DOT text");
		goto done;
	}
	bound_layout(g, format);
	if (gvLayout(gvc, g, "dot") != 0) {
		gv_error_text(err, errcap, "layout failed");
		goto done;
	}
	laid_out = true;
	if (gvRenderData(gvc, g, format, &data, &n) != 0 || !data) {
		gv_error_text(err, errcap, "rendering failed");
		goto done;
	}
	/* An error on the way (a label it could not read, drawn with the
	 * node's name instead) makes a wrong picture: none is made. */
	if (gv_msg[0]) {
		gv_error_text(err, errcap, "graphviz reported an error");
		goto done;
	}
	*out = malloc((size_t)n + 1);
	if (!*out) {
		say(err, errcap, "out of memory");
		goto done;
	}
	memcpy(*out, data, n);
	(*out)[n] = 0;
	*len = n;
	ok = true;
done:
	if (data)
		gvFreeRenderData(data);
	if (laid_out)
		gvFreeLayout(gvc, g);
	if (g)
		agclose(g);
	agseterr(old_level);
	agseterrf(old);
	return ok;
}

#endif

/* --- the guard: rendering in a child process with a deadline --- */

typedef struct ChildHead {
	int ok;
	size_t n; /* bytes that follow: the picture, or the error text */
} ChildHead;

static bool write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		c += k;
		n -= (size_t)k;
	}
	return true;
}

static void child(int fd, const char *dot, const char *format)
{
	char *data = NULL, e[600] = "";
	size_t n = 0;
	bool ok = viz_render(dot, format, &data, &n, e, sizeof e);
	ChildHead h = {ok, ok ? n : strlen(e)};
	if (write_all(fd, &h, sizeof h))
		write_all(fd, ok ? data : e, h.n);
	/* _exit: no atexit handlers, no stdio flush, no leak check of a
	 * process that is about to vanish. */
	_exit(0);
}

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Reads fd to its end into b; false with *timed_out at the deadline. */
static bool read_until(int fd, int64_t deadline, StrBuf *b, bool *timed_out)
{
	char buf[1 << 16];
	for (;;) {
		int64_t left = deadline - now_ms();
		struct pollfd p = {fd, POLLIN, 0};
		int r = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			*timed_out = true;
			return false;
		}
		if (r < 0)
			return false;
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			return !b->oom;
		sb_putn(b, buf, (size_t)n);
	}
}

/* The child's answer in b: the picture into *out, or its error. */
static bool take_answer(StrBuf *b, char **out, size_t *len, char *err,
			size_t errcap)
{
	ChildHead h;
	if (b->len < sizeof h) {
		say(err, errcap, "graphviz: the drawing process stopped");
		return false;
	}
	memcpy(&h, b->s, sizeof h);
	if (h.n != b->len - sizeof h) {
		say(err, errcap, "graphviz: the drawing process stopped");
		return false;
	}
	if (!h.ok) {
		if (errcap)
			snprintf(err, errcap, "%.*s", (int)h.n,
				 b->s + sizeof h);
		return false;
	}
	*out = malloc(h.n + 1);
	if (!*out) {
		say(err, errcap, "out of memory");
		return false;
	}
	memcpy(*out, b->s + sizeof h, h.n);
	(*out)[h.n] = 0;
	*len = h.n;
	return true;
}

bool viz_render_guarded(const char *dot, const char *format, int limit_ms,
			char **out, size_t *len, bool *timed_out, char *err,
			size_t errcap)
{
	*out = NULL;
	*len = 0;
	*timed_out = false;
	if (!viz_have_graphviz())
		return viz_render(dot, format, out, len, err, errcap);
	int fd[2];
	if (pipe(fd) != 0) {
		say(err, errcap, "cannot start drawing: no pipe");
		return false;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		say(err, errcap, "cannot start drawing: fork failed");
		return false;
	}
	if (pid == 0) {
		close(fd[0]);
		child(fd[1], dot, format);
	}
	close(fd[1]);
	StrBuf b;
	sb_init(&b);
	bool ok = read_until(fd[0], now_ms() + limit_ms, &b, timed_out);
	close(fd[0]);
	if (!ok)
		kill(pid, SIGKILL);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ok)
		ok = take_answer(&b, out, len, err, errcap);
	else if (b.oom)
		say(err, errcap, "graphviz: out of memory reading the picture");
	else if (*timed_out && errcap)
		snprintf(err, errcap,
			 "graphviz: the layout took longer than %d ms and was "
			 "stopped",
			 limit_ms);
	else
		say(err, errcap, "graphviz: reading the picture failed");
	sb_free(&b);
	return ok;
}
