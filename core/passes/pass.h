/* pass.h - compiler passes you can step through: the registry, one pass
 * per file, named pipelines, and applying a pass safely.
 *
 * A pass is `bool pass_<name>(HloModule *m, PassCtx *cx)` returning
 * "changed". pass_run runs it in place and verifies what changed;
 * pass_apply does the same on a clone and only then hands it back, so a
 * pass that breaks the module is rolled back and reported as an internal
 * error naming the pass. A pipeline clones once and runs pass_run pass
 * after pass: the clone is what is thrown away when one fails. */
#ifndef XR_PASS_H
#define XR_PASS_H
#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "hlo.h"
#include "strbuf.h"

enum { PASS_MAX_RULES = 64 };

/* What a pass reports besides "changed": rules that fired (algsimp),
 * free-form log lines, and limits it must respect. */
typedef struct PassCtx {
	Diag *d;                  /* errors (a pass that fails returns false
				     and reports here) */
	StrBuf *log;              /* optional: one line per rewrite */
	int64_t fold_max_elems;   /* constant-folding size cap (elements) */
	struct FusionLog *fusion_log; /* fusion passes record their
					 decisions here (NULL: nowhere) */
	bool fusion_off;          /* `set fusion off`: fusion passes decline
				     every pair */
	/* The result of the pass that made the module given to pass_apply
	 * (a pipeline's previous step), or NULL: its after-counts are the
	 * module's, so they are not counted again. */
	const struct PassResult *prev;
	bool oom; /* set by pass_out_of_memory: the failure is that */
	int nrules;
	struct {
		const char *rule; /* static string */
		int count;
	} rules[PASS_MAX_RULES];
} PassCtx;

typedef bool (*PassFn)(HloModule *m, PassCtx *cx);

typedef struct Pass {
	const char *name;    /* "dce" */
	const char *summary; /* one line for `passes` */
	PassFn run;
} Pass;

const Pass *pass_table(int *n);
const Pass *pass_find(const char *name);
/* Counts a rewrite under a rule name (a static string). */
void pass_note_rule(PassCtx *cx, const char *rule);
/* pass_note_rule(cx, rule) n times over (n <= 0: none), in one look-up. */
void pass_note_rule_n(PassCtx *cx, const char *rule, int n);
/* Reports that the pass ran out of memory: it fails, pass_run says so
 * ("pass 'cse' ran out of memory", no "internal error": nothing is
 * wrong with the pass) and the caller drops what it made. */
void pass_out_of_memory(PassCtx *cx);

typedef struct PassResult PassResult;
struct PassResult {
	HloModule *m;    /* the new module (owned by the caller); NULL when
			    the pass failed or broke the module */
	bool changed;
	double ms;       /* time the pass took */
	int instrs_before, instrs_after;
	int kernels_before, kernels_after;
	int64_t bytes_before, bytes_after; /* bytes moved (cost model) */
};

/* Runs p on m itself, then verifies. On success r->m is m. On failure
 * (d says why, as for pass_apply) m may be half rewritten: the caller
 * must throw it away. A pipeline that keeps its start runs its passes
 * one after another on one clone this way. */
bool pass_run(HloModule *m, const Pass *p, PassCtx *cx, PassResult *r);
/* A clone of m to run passes on: its instructions that m's verification
 * passed need not be checked again after the first pass. */
HloModule *pass_clone(const HloModule *m);
/* pass_clone, with r as pass_run would leave it had a pass made the
 * clone (r->m the clone; instrs, kernels and bytes after: the clone's),
 * for the first pass run on it as cx->prev, so that its counts before
 * are not worked out again. NULL (r zeroed) when out of memory. */
HloModule *pass_clone_counted(const HloModule *m, PassResult *r);
/* Runs p on a clone of m, then verifies. On success r->m is the new
 * module (even when nothing changed). On failure r->m is NULL and d says
 * why ("internal error: pass 'cse' broke the module: ..."). */
bool pass_apply(const HloModule *m, const Pass *p, PassCtx *cx, PassResult *r);

/* Named pipelines: the pass names in order. NULL when unknown. "default"
 * is what `pipeline` alone runs. */
const char *const *pipeline_find(const char *name, int *n);
/* Names of all pipelines (for `pipeline` errors and completion). */
const char *const *pipeline_names(int *n);

#endif
