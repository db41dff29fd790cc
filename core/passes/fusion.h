/* fusion.h - the fusion passes' decision log, and the questions the REPL
 * asks about fusion: why a pair was (not) fused, what the pass would
 * decide now, and forcing one fusion as a what-if.
 *
 * Every decision names a rule from a fixed vocabulary (fusion_rules) and
 * says it in a sentence with the pair's own figures, in the spirit of
 * XLA's FusionDecision. Names in the log are the instructions' names
 * when the pass ran; instructions keep their names inside fused
 * computations, so they stay valid after fusion. The log owns its
 * strings (in an arena of its own), so it outlives the module it
 * describes. */
#ifndef XR_FUSION_H
#define XR_FUSION_H
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "pass.h"

typedef struct FusionDecision {
	char *producer;   /* the producer (or first sibling) */
	char *consumer;   /* the instruction that uses it (or second sibling) */
	char *comp;       /* the computation both are in */
	char *into;       /* fused: the fusion instruction it went into */
	char *where;      /* declined: the fusion the consumer is in, when
			     it is in one (a consumer copied into several
			     fusions has a decision for each copy) */
	const char *pass; /* "fusion", "multi-output-fusion" or "fuse" */
	const char *rule; /* one of fusion_rules[].name */
	/* The rule's sentence with this pair's figures: reason, or (in a
	 * pass's log, where most are never read) made from fmt and its
	 * packed arguments when asked: fusion_decision_reason. */
	char *reason;
	const char *fmt;
	const unsigned char *args;
	int nargs;
	bool fused;
	bool settled;        /* into/where were just set from the module by
				the pass that made it: the next
				fusion_log_refresh leaves them (and clears
				this) */
	bool siblings;       /* producer and consumer are two siblings:
				kernels that read the same value */
	int64_t bytes_saved; /* bytes moved saved by fusing (< 0: it costs);
				for a refusal, what fusing would have saved */
} FusionDecision;

/* The longest sentence a decision says (longer ones are cut). */
enum { FUSION_REASON_MAX = 320 };

/* d's sentence: d->reason, or made in buf (cap bytes). */
const char *fusion_decision_reason(const FusionDecision *d, char *buf,
				   size_t cap);

/* A fusion instruction as the last pass left it. */
typedef struct FusionGroup {
	char *name;
	char *comp;
	const char *kind;  /* "kLoop", "kInput", "kOutput", ... */
	char **members;    /* fused instructions' names (no parameters) */
	int nmembers;
	bool multi_output;
} FusionGroup;

typedef struct FusionLog {
	Arena a; /* every string of d and g (decisions replaced or groups
		    cleared leave theirs until the log is freed) */
	FusionDecision *d;
	int n, cap;
	FusionGroup *g;
	int ng, capg;
	bool off; /* the pass ran with `set fusion off` */
	/* Fusions merged into others after the decisions naming them were
	 * made (multi-output fusion): ren_from[i] ("COMP NAME": fusion
	 * NAME of computation COMP) became part of ren_to[i] (of the same
	 * computation), in that order. fusion_log_refresh follows them to place a
	 * decision whose fusion is gone. */
	char **ren_from, **ren_to;
	int nren, capren;
} FusionLog;

/* The vocabulary: every rule a decision can name. */
typedef struct FusionRule {
	const char *name;
	const char *says; /* what the rule means, for `explain` and help */
} FusionRule;
const FusionRule *fusion_rules(int *n);

FusionLog *fusion_log_new(void);
void fusion_log_free(FusionLog *l);
/* Moves src's decisions to the end of dst's and replaces dst's groups by
 * src's (they describe the newer module); src is left empty. False on
 * out of memory (src then unchanged, or emptied and dst holding all). */
bool fusion_log_merge(FusionLog *dst, FusionLog *src);
/* Notes that fusion `from` of computation comp became part of fusion
 * `to` there. False on out of memory. */
bool fusion_log_renamed(FusionLog *l, const char *comp, const char *from,
			const char *to);
/* A copy of l with strings of its own; NULL on out of memory. */
FusionLog *fusion_log_copy(const FusionLog *l);
/* Appends a copy of d (its reason made into text) to l. False on out of
 * memory. */
bool fusion_log_add(FusionLog *l, const FusionDecision *d);
/* Replaces l's groups by the fusions of m (after a change the passes did
 * not log, such as 'fuse') and points decisions at them. */
bool fusion_log_regroup(FusionLog *l, HloModule *m);
void fusion_decision_free(FusionDecision *d);
/* Points every fused decision's `into` at the group that holds its
 * consumer now (after later passes renamed or merged fusions). */
bool fusion_log_refresh(FusionLog *l);

/* Decisions about producer a and consumer b, by the names in the log or
 * by the name of a fusion group (standing for its members). Returns how
 * many were found (at most max), newest last. */
int fusion_log_find(const FusionLog *l, const char *a, const char *b,
		    const FusionDecision **out, int max);
const FusionGroup *fusion_log_group(const FusionLog *l, const char *name);

/* The fusion pass's rules applied to producer p and consumer c of the
 * same computation as they stand, on their own (nothing changes; the
 * pass itself offers p to the kernel c is part of by its turn, which
 * a trial run of the pass on a copy answers: the REPL's 'why'). When
 * c does not use p, the rule says why the pair is never considered.
 * out's strings are malloc'd (fusion_decision_free); all NULL when
 * memory ran out. */
void fusion_judge(const HloModule *m, const HloInstr *p, const HloInstr *c,
		  bool fusion_off, FusionDecision *out);

/* Fuses producer p into consumer c of m whatever the pass's rules say,
 * when that is legal (c uses p, both can live in a fusion, and the
 * computation is one fusion runs in). m is changed in place (callers
 * pass a clone); *verdict is what the pass itself would decide with
 * fusion switched off or on (fusion_off, as 'set fusion' has it; its
 * strings malloc'd: fusion_decision_free), and *made the fusion
 * instruction p went into. False when the fusion is not legal or memory
 * ran out: verdict->reason says why (NULL: out of memory). */
/* The names the fusion log gives the edge from p to c (c reads p): p's
 * value (for a fusion, the instruction computing its output) and the
 * instruction inside c that reads it. */
void fusion_edge_names(const HloInstr *p, const HloInstr *c,
		       const char **prod, const char **cons);

bool fusion_force(HloModule *m, HloInstr *p, HloInstr *c, bool fusion_off,
		  FusionDecision *verdict, const char **made);

#endif
