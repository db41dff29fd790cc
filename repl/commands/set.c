/* set.c - session options: `set` lists them, `set OPTION VALUE` changes
 * one. One table of options drives both (and completion). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "dot.h"

typedef struct Option {
	const char *name;
	const char *help;
	bool (*set)(Session *s, const char *value);
	void (*show)(const Session *s, char *buf, size_t cap);
} Option;

/* "4G", "512M", "1000000", "64K": bytes. */
static bool parse_bytes(const char *v, int64_t *out)
{
	char *e;
	errno = 0;
	double x = strtod(v, &e);
	double k = 1;
	switch (*e) {
	case 'k': case 'K': k = 1024; e++; break;
	case 'm': case 'M': k = 1024.0 * 1024; e++; break;
	case 'g': case 'G': k = 1024.0 * 1024 * 1024; e++; break;
	default: break;
	}
	if (*e == 'B' || *e == 'b')
		e++;
	if (e == v || *e || errno || !(x >= 0) || x * k > 9e18)
		return false;
	*out = (int64_t)(x * k);
	return true;
}

static bool set_max_memory(Session *s, const char *v)
{
	int64_t b;
	char q[80];
	if (!parse_bytes(v, &b) || b < 1024)
		return repl_error(s, "max-memory needs a size of at least 1K, "
				     "such as 512M or 4G, not '%s'",
				  repl_quote(q, sizeof q, v, strlen(v)));
	s->max_memory = b;
	return true;
}

static void show_max_memory(const Session *s, char *buf, size_t cap)
{
	char h[32];
	snprintf(buf, cap, "%lld (%s)", (long long)s->max_memory,
		 repl_bytes(h, sizeof h, s->max_memory));
}

static bool parse_onoff(Session *s, const char *name, const char *v,
			const char *on, const char *off, bool *out)
{
	if (!strcmp(v, on))
		*out = true;
	else if (!strcmp(v, off))
		*out = false;
	else
		return repl_error(s, "%s takes '%s' or '%s', not '%s'", name,
				  on, off, v);
	return true;
}

static bool set_fusion(Session *s, const char *v)
{
	bool on = true;
	if (!parse_onoff(s, "fusion", v, "on", "off", &on))
		return false;
	s->fusion_off = !on;
	return true;
}

static void show_fusion(const Session *s, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", s->fusion_off ? "off" : "on");
}

static bool set_bodies(Session *s, const char *v)
{
	return parse_onoff(s, "bodies", v, "summary", "clusters",
			   &s->bodies_summarised);
}

static void show_bodies(const Session *s, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", s->bodies_summarised ? "summary" : "clusters");
}

static bool set_pass_log(Session *s, const char *v)
{
	return parse_onoff(s, "pass-log", v, "on", "off", &s->pass_log);
}

static void show_pass_log(const Session *s, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", s->pass_log ? "on" : "off");
}

static bool set_fusions(Session *s, const char *v)
{
	return parse_onoff(s, "fusions", v, "collapsed", "expanded",
			   &s->fusions_collapsed);
}

static void show_fusions(const Session *s, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s",
		 s->fusions_collapsed ? "collapsed" : "expanded");
}

/* Pictures: below 10 nodes nothing useful is left to draw; above 5000
 * Graphviz's layout takes minutes (the render time limit would cut it
 * short and redraw at 100 nodes anyway). */
enum { NODE_CAP_MIN = 10, NODE_CAP_MAX = 5000 };

static bool set_node_cap(Session *s, const char *v)
{
	int n;
	if (!repl_parse_int(v, NODE_CAP_MIN, NODE_CAP_MAX, &n))
		return repl_error(s, "node-cap needs a whole number from %d to "
				     "%d, not '%s'",
				  NODE_CAP_MIN, NODE_CAP_MAX, v);
	s->node_cap = n;
	return true;
}

static void show_node_cap(const Session *s, char *buf, size_t cap)
{
	snprintf(buf, cap, "%d",
		 s->node_cap > 0 ? s->node_cap : VIZ_DEFAULT_MAX_NODES);
}

/* A positive figure (GB/s or GFLOP/s) of a roofline machine. */
static bool set_rate(Session *s, const char *name, const char *v, double *out)
{
	char *e;
	errno = 0;
	double x = strtod(v, &e);
	if (e == v || *e || (errno && errno != ERANGE) || !(x >= 1e-6) ||
	    x > 1e9)
		return repl_error(s,
				  "%s needs a number from 1e-6 to 1e9 (GB/s or "
				  "GFLOP/s), not '%s'",
				  name, v);
	*out = x;
	return true;
}

#define RATE_OPTION(field, opt)                                               \
	static bool set_##field(Session *s, const char *v)                    \
	{                                                                     \
		return set_rate(s, opt, v, &s->field);                        \
	}                                                                     \
	static void show_##field(const Session *s, char *buf, size_t cap)     \
	{                                                                     \
		snprintf(buf, cap, "%g", s->field);                           \
	}
RATE_OPTION(cpu_gbps, "cpu-gbps")
RATE_OPTION(cpu_gflops, "cpu-gflops")
RATE_OPTION(gpu_gbps, "gpu-gbps")
RATE_OPTION(gpu_gflops, "gpu-gflops")
#undef RATE_OPTION

static const Option options[] = {
	{"max-memory", "largest total of buffers one run may use (bytes; K, M "
		       "and G suffixes)", set_max_memory, show_max_memory},
	{"fusion", "on|off: off makes the fusion pass fuse nothing",
	 set_fusion, show_fusion},
	{"fusions", "expanded|collapsed: fusions drawn with their insides or "
		    "as one node", set_fusions, show_fusions},
	{"bodies", "clusters|summary: while, conditional and call bodies "
		   "drawn as clusters or as one line", set_bodies, show_bodies},
	{"pass-log", "on|off: on makes 'pass' print every rewrite it made",
	 set_pass_log, show_pass_log},
	{"node-cap", "nodes a picture draws before it falls back to collapsed "
		     "fusions, then to what the last step changed (compare: "
		     "half per panel)", set_node_cap, show_node_cap},
	{"cpu-gbps", "memory bandwidth of the CPU roofline (GB/s)",
	 set_cpu_gbps, show_cpu_gbps},
	{"cpu-gflops", "f32 compute peak of the CPU roofline (GFLOP/s)",
	 set_cpu_gflops, show_cpu_gflops},
	{"gpu-gbps", "memory bandwidth of the GPU (H200) roofline (GB/s)",
	 set_gpu_gbps, show_gpu_gbps},
	{"gpu-gflops", "f32 compute peak of the GPU (H200) roofline (GFLOP/s)",
	 set_gpu_gflops, show_gpu_gflops},
};

static const Option *find_option(const char *name)
{
	for (size_t i = 0; i < sizeof options / sizeof *options; i++)
		if (!strcmp(options[i].name, name))
			return &options[i];
	return NULL;
}

bool cmd_set(Session *s, const CmdArgs *a)
{
	if (a->argc == 0) {
		for (size_t i = 0; i < sizeof options / sizeof *options; i++) {
			char v[64];
			options[i].show(s, v, sizeof v);
			fprintf(s->out, "%-12s %-24s %s\n", options[i].name, v,
				options[i].help);
		}
		return true;
	}
	const Option *o = find_option(a->argv[0]);
	if (!o)
		return repl_error(s, "unknown option '%s' (type 'set' for the list)",
				  a->argv[0]);
	char v[64];
	if (a->argc == 1) { /* shown, not changed */
		o->show(s, v, sizeof v);
		fprintf(s->out, "%s = %s\n", o->name, v);
		return true;
	}
	if (!o->set(s, a->argv[1]))
		return false;
	o->show(s, v, sizeof v);
	fprintf(s->out, "%s = %s\n", o->name, v);
	return true;
}

void cmd_complete_options(const Session *s, const char *prefix,
			  CmdMatches *out)
{
	(void)s;
	for (size_t i = 0; i < sizeof options / sizeof *options; i++)
		if (!strncmp(options[i].name, prefix, strlen(prefix)))
			cmd_matches_add(out, options[i].name);
}
