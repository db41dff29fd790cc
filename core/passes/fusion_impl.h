/* fusion_impl.h - what the fusion files share (fusion.c: the rules and
 * the producer/consumer pass; multi_output_fusion.c: the multi-output
 * pass; fusion_log.c: the decision log). Not part of the public
 * interface, which is fusion.h. */
#ifndef XR_FUSION_IMPL_H
#define XR_FUSION_IMPL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fusion.h"
#include "passes.h"

/* Caps on one fusion, as XLA's: operands (its GPU budget is 96 operands
 * and outputs) and fused instructions (code size). */
enum { FUSION_MAX_OPERANDS = 96, FUSION_MAX_INSTRS = 200 };

typedef enum { FK_NONE, FK_LOOP, FK_INPUT, FK_OUTPUT } FKind;

/* What a would-be fusion holds: the instruction alone, or the insides of
 * a fusion instruction. */
typedef struct Group {
	int ninstrs;        /* fused instructions, parameters not counted */
	int nparams;        /* parameters of a fused computation that
			       something in it reads (or its root) */
	int nreduce, ndot;  /* reduce; dot or convolution */
	int nscatter;       /* scatter (a kInput hero, at the root) */
	const char *costly; /* the first expensive opcode, or NULL */
	bool elementwise;   /* only elementwise ops, scalar constants,
			       broadcasts and iotas: a possible epilogue */
	const char *not_ew; /* else the first op that is not one of those */
} Group;

/* What fz_group_of found in fused computations, while they stay as they
 * were (same instruction count and last instruction: a pass only
 * appends to them or drops from them). Direct-mapped by address. */
enum { GROUP_CACHE = 512, PRODUCER_CACHE = 1024, PRODUCER_OPS = 3 };
typedef struct GroupCache {
	struct {
		const HloComp *fc;
		int n;
		const HloInstr *last;
		Group g;
	} e[GROUP_CACHE];
	/* What fz_unfusible and fz_group_of said of producers other than
	 * fusions, which a pass does not change (fusion.c: producer): a
	 * producer is offered to each of its consumers, and again after
	 * each fusion into one. Direct-mapped by address; the id tells a
	 * later instruction at the same address apart. */
	struct ProducerSeen {
		const HloInstr *x;
		int id;
		const char *why;
		Group g; /* when why is NULL */
		/* The producer's half of the bytes a fusion saves that no
		 * consumer changes (fusion.c: producer_half), when why is
		 * NULL: its distinct operands but itself, what it reads of
		 * each and whether a copy would read it again (nhalf -1:
		 * more than PRODUCER_OPS, not kept); its own bytes moved. */
		int nhalf;
		bool kernel;
		int64_t io;
		struct { const HloInstr *o; int64_t read; bool large; }
			half[PRODUCER_OPS];
	} prod[PRODUCER_CACHE];
	/* The instructions with control edges (a control-predecessors
	 * list, or named in one), sorted by address; made when first
	 * asked, in a module that has such lists (fz_unfusible). */
	const HloInstr **ctrl;
	int nctrl, cap_ctrl;
	bool ctrl_made;
} GroupCache;

/* Why x may not be fused because of control edges (a
 * control-predecessors list, or a place in another's), or NULL. gc may
 * be NULL (then x's computation is read). */
const char *fz_control_edges(GroupCache *gc, const HloInstr *x);
/* An empty cache; NULL when out of memory. */
GroupCache *fz_groups_new(void);
/* Frees what gc holds, and gc. */
void fz_groups_free(GroupCache *gc);

/* A decision before it is logged. The sentence is kept as its format
 * (conversions %s, %d, %lld, %%) and the values packed after one
 * another (strings with their terminating zero), and made into text
 * only when someone reads it (fz_text). */
enum { VERDICT_ARGS = 640 };
typedef struct Verdict {
	bool fused;
	const char *rule;
	const char *fmt;
	int nargs; /* bytes of args used */
	int64_t saved;
	FKind kind; /* of the fusion it makes */
	int nin;    /* decide: how many of in[] it found (0: none asked) */
	bool siblings; /* about two kernels reading one value, not a
			  producer and its consumer */
	unsigned char args[VERDICT_ARGS]; /* fz_verdict_clear stops here */
	/* decide: the instructions inside the consumer that read the
	 * producer, as inner_users finds them (fz_record_pair's list) */
	const HloInstr *in[16];
} Verdict;
/* A verdict with nothing said yet (args, read only up to nargs, left as
 * they are: clearing them would cost more than the decision). */
static inline void fz_verdict_clear(Verdict *v)
{
	memset(v, 0, offsetof(Verdict, args));
}
/* The sentence of fmt and its packed args, at most cap - 1 bytes. */
void fz_text(const char *fmt, const unsigned char *args, int nargs,
	     char *out, size_t cap);

/* An index from a hash of some strings to an int (a decision, a
 * group) that holds no keys: a hit is confirmed by comparing the
 * strings of the entry it names (callers pass the test). */
typedef struct FzIndex {
	struct FzSlot {
		unsigned h;
		int v; /* the entry + 1; 0: empty (so calloc makes an
			  empty table) */
	} *slot;
	int cap, n;
} FzIndex;

enum { FZ_REC_CACHE = 1024, FZ_PARAM_NAMES = 128, FZ_FRESH_TEXT = 48 };

/* One fusion pass running: the module, the log it fills, what it changed. */
typedef struct Fz {
	HloModule *m;
	FusionLog *log;
	FzIndex seen; /* (comp, producer, consumer) -> decision index */
	/* The fusion pass asks seen only about its current consumer's
	 * decisions (a kernel's are all made while fuse_consumer offers it
	 * its operands): each consumer starts seen afresh (seen_restart),
	 * an entry for a decision before seen_from counting as an empty
	 * slot. The table then holds one consumer's decisions and stays
	 * in the cache; multi-output fusion keeps seen_from 0 (all). */
	int seen_from;
	bool seen_calls;
	FzIndex seen_all; /* sanitizer builds: every decision, to compare */
	const char *pass;
	bool failed; /* out of memory */
	bool temp_params; /* fz_param_for may name parameters for a while
			     (fz_temp_params_ok) */
	/* Fused parameters are made and dropped cheaply until fz_finish
	 * (most go again within a fusion or two): with temp_params those
	 * made go unnamed (FZ_UNNAMED, out of the names map) until
	 * tidy_params names them param_N, and those dropped stay in the
	 * list, detached, until fz_finish compacts it (fusion.c:
	 * drop_operand_late). Only pass fusion: multi-output fusion and
	 * `fuse` take the plain path. */
	bool lazy_params;
	/* No fusion was in the module when the pass began (pass fusion):
	 * then none is copied, and fz_finish has none to unshare. */
	bool own_fusions_only;
	int nfused;
	HloComp **touched; /* computations changed: re-sorted at the end */
	int ntouched, cap_touched;
	FzIndex touched_ix; /* computation -> its place in touched */
	int nlate; /* fused ones left to collect_groups (fz_finish) */
	/* When not 0, collect_groups marks each fused computation it reads
	 * with this generation (HloComp.mark), and sets group_shared where
	 * it reads one twice (fz_finish) */
	unsigned group_mark;
	bool group_shared;
	/* the one fz_touch last found in touched by its index (the
	 * computation the fusions are in, mostly), or NULL */
	const HloComp *touched_known;
	HloComp **dropped;     /* computations to take out at the end */
	int ndropped, cap_dropped;
	/* Values whose user lists still name instructions taken out, to
	 * sweep when their computation is done (multi_output_fusion.c:
	 * detach_sibling) */
	HloInstr **unswept;
	int nunswept, cap_unswept;
	GroupCache *groups; /* NULL: no cache (out of memory) */
	/* Names copied into the log, by address (rec_slot in fusion.c):
	 * the same text is stored once. Slot h holds rec_src[h] (NULL:
	 * none), its copy and the hash of its text (text_hash). */
	const char *rec_src[FZ_REC_CACHE];
	char *rec_dup[FZ_REC_CACHE];
	unsigned rec_hash[FZ_REC_CACHE];
	/* "param_N" for N < FZ_PARAM_NAMES once made (fusion.c:
	 * param_name) */
	const char *param_names[FZ_PARAM_NAMES];
	/* and each one's length and names-map hash (namemap_key_hash),
	 * for the maps of all the computations tidy_params names */
	unsigned param_hash[FZ_PARAM_NAMES];
	unsigned char param_len[FZ_PARAM_NAMES];
	/* Suffixes for new names (see fresh_name). */
	int next_fusion, next_comp, next_gte;
	/* Whether the name at each suffix above was found free at the
	 * first try last time: then the next one is made without a look
	 * first (fusion.c: fz_new_fresh) */
	bool fusion_direct, comp_direct, gte_direct;
	/* The last name made from each base above, base.k, so that the
	 * next one is its number incremented in place (fusion.c:
	 * fresh_text) */
	struct FzFresh {
		const char *base; /* the caller's string; NULL: unused */
		int k, n, len;
		char text[FZ_FRESH_TEXT];
	} fresh[4];
	/* The names starting with "fusion" of every computation when the
	 * pass first names a fusion (fusion.c: fusion_name) */
	NameMap fusion_names;
	bool fusion_names_made;
	/* The kernel (fusion or instruction) each decision of this pass was
	 * made in: log entry log_first + i in kern[i]; NULL for decisions
	 * known by name only (siblings). A duplicated consumer has a copy
	 * in several kernels, and each copy its own decision. A kernel that
	 * becomes part of another (wrapped into a fusion, or fused into its
	 * consumer) is forwarded to it (fz_forward), so a decision follows
	 * its consumer's copy; the decisions just made in it, the last of
	 * the log, move with it at once (fusion.c: rekey_tail). */
	int layout_copies; /* made by fz_as_layout so far */
	int reused;        /* producers copy_into found computed in the fusion
		       already (fusion.c: same_in), so far */
	struct FzKern {
		const HloInstr *k;
		unsigned names; /* decision_names: hash of its three names */
		int id;		/* k's id then: a kernel moved since (into a
				   fused computation: hlo_instr_move) has a
				   new one, though it is still in a
				   computation */
		/* When its word was said, in the order of the decisions
		 * made (nmade then): moved by rekey_tail, a decision takes
		 * the words said about its names in its new kernel, which
		 * would have made a decision of their own, and its word
		 * counts as that one's (settle_decisions orders words by
		 * it); wait: moved, no word taken since. */
		int said;
		bool wait;
	} *kern;
	int nkern, cap_kern, log_first;
	int nmade; /* decisions made, and those rekey_tail spared */
	bool kern_started;
	FzIndex fwd_ix; /* forwarded kernel -> its place in fwd, made
			   when first asked (fusion.c: fwd_index) */
	bool fwd_indexed;
	struct FzFwd {
		const HloInstr *from, *to;
	} *fwd;
	int nfwd, cap_fwd;
	/* kernel_now's last answer: now_from is part of now_to, while
	 * nfwd is still now_nfwd */
	const HloInstr *now_from, *now_to;
	int now_nfwd;
	/* About how many decisions the pass will record (0: unknown), to
	 * make room for them at once. */
	int expect;
	/* Building fused computations (fusion.c: fz_param_for): the
	 * operand array last grown there, of grown_of, with room for
	 * grown_cap operands, so that a fusion gaining operands one by
	 * one is not copied each time. */
	const HloInstr *grown_of;
	HloInstr **grown_ops;
	int grown_cap;
	/* fz_tidied(tidied_of), of the computation last asked about
	 * (fusion.c: tidied_cached) */
	const HloComp *tidied_of;
	bool tidied_is;
} Fz;

/* --- the log (fusion_log.c) --- */
char *fz_dup(const char *s);
/* A copy of s (NULL: NULL) in the log's arena. */
char *fz_ldup(FusionLog *l, const char *s);
bool fz_grow(void **v, int *cap, int need, size_t elem);
void fz_clear_groups(FusionLog *l);
/* fusion_log_refresh where the first `first` decisions are known to
 * need no place and their settled flags are cleared already (the pass
 * that settled them did so as it walked them: fusion.c's
 * settle_decisions), so that the log is not walked twice. */
bool fz_log_refresh_from(FusionLog *l, int first);

/* FNV-1a of strings s[0..n-1], each followed by a blank (names have
 * none, so the words are told apart). */
unsigned fz_hash_words(const char *const *s, int n);
/* The entry of hash h for which same(ctx, entry) holds, or -1. Inline:
 * the passes probe tens of thousands of times, and a caller's constant
 * same is then inlined too. */
static inline int fz_index_find(const FzIndex *ix, unsigned h,
				bool (*same)(const void *ctx, int v),
				const void *ctx)
{
	if (!ix->cap)
		return -1;
	unsigned mask = (unsigned)ix->cap - 1;
	for (unsigned i = h & mask;; i = (i + 1) & mask) {
		const struct FzSlot *s = &ix->slot[i];
		if (!s->v)
			return -1;
		if (s->h == h && same(ctx, s->v - 1))
			return s->v - 1;
	}
}
/* fz_index_add when ix must grow first. */
bool fz_index_add_grow(FzIndex *ix, unsigned h, int v);
/* Adds entry v of hash h. False on out of memory. Inline: the passes
 * add an entry for every decision, and mostly there is room. */
static inline bool fz_index_add(FzIndex *ix, unsigned h, int v)
{
	if ((ix->n + 1) * 2 > ix->cap)
		return fz_index_add_grow(ix, h, v);
	unsigned mask = (unsigned)ix->cap - 1, i = h & mask;
	while (ix->slot[i].v)
		i = (i + 1) & mask;
	ix->slot[i].h = h;
	ix->slot[i].v = v + 1;
	ix->n++;
	return true;
}
/* ix with nc slots (a power of two), its entries of a value over from
 * placed again (0: all), the others dropped. False on out of memory (ix
 * unchanged). */
bool fz_index_resize(FzIndex *ix, int nc, int from);
/* Room for n entries in all, so that adding them moves nothing. */
bool fz_index_reserve(FzIndex *ix, int n);
void fz_index_free(FzIndex *ix);

/* --- what an instruction is to fusion (fusion.c) --- */
/* The rule's static name from the vocabulary. */
const char *fz_rule(const char *name);
/* The computation fusion f calls (its calls= attribute), NULL for an
 * instruction that is not a fusion. Inline: the passes ask it of nearly
 * every instruction they look at. */
static inline HloComp *fz_fused_comp(const HloInstr *f)
{
	if (f->op != HLO_FUSION)
		return NULL;
	for (int i = 0; i < f->nattrs; i++)
		if (f->attrs[i].key == A_CALLS)
			return f->attrs[i].u.comps.n > 0
				       ? f->attrs[i].u.comps.v[0]
				       : NULL;
	return NULL;
}
/* The in-place update (dynamic-update-slice or scatter) kernel x ends
 * in: x itself, or the root of its fused computation (an update is only
 * ever a fusion's root: decide fuses nothing of it into a consumer);
 * NULL when none. Inline: decide asks it of every pair. */
static inline const HloInstr *fz_in_place_of(const HloInstr *x)
{
	if (x->op == HLO_DYNAMIC_UPDATE_SLICE || x->op == HLO_SCATTER)
		return x;
	HloComp *fc = fz_fused_comp(x);
	const HloInstr *r = fc ? fc->root : NULL;
	return r && (r->op == HLO_DYNAMIC_UPDATE_SLICE || r->op == HLO_SCATTER)
		       ? r
		       : NULL;
}
/* Why x cannot be part of a fusion ("a parameter"), or NULL. An
 * in-place update can, only as a consumer (decide). */
const char *fz_unfusible(GroupCache *gc, const HloInstr *x);
Group fz_group_of(const HloInstr *x);
/* fz_group_of through a cache (gc may be NULL: none). */
Group fz_group(GroupCache *gc, const HloInstr *x);
/* Tells the cache x's group, worked out without a scan (sanitizer
 * builds check it against one). */
void fz_group_put(GroupCache *gc, const HloInstr *x, Group g);
FKind fz_kind_from(const Group *g);
int64_t fz_bytes_of(const HloInstr *x);
bool fz_among(HloInstr *const *list, int n, const HloInstr *v);
unsigned fz_fresh_mark(const HloInstr *x);
bool fz_first_time(const HloInstr *o, unsigned mk);
bool fz_is_kernel(const HloInstr *x);
int fz_merged_operands(const HloInstr *p, const HloInstr *c);
/* Sets v's verdict, rule and sentence; returns fused. */
bool fz_say(Verdict *v, bool fused, const char *r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
const char *fz_human(char *buf, size_t cap, int64_t b);
void fz_shape_text(char *buf, size_t cap, const Shape *s);
/* The name a kernel's value goes by in the log. */
const char *fz_value_name(const HloInstr *x);

/* --- changing the graph (fusion.c) --- */
void fz_touch(Fz *z, HloComp *c);
const char *fz_fresh_name(Fz *z, const NameMap *names, const char *base,
			  int *next);
/* hlo_instr_new(c, op, shape, fz_fresh_name(z, &c->names, base, next),
 * nops, ops), where the name is not in also either (NULL: no such
 * map), with one hash of the name in the usual case. direct: the
 * Fz.*_direct flag of next. */
HloInstr *fz_new_fresh(Fz *z, HloComp *c, HloOpcode op, Shape *shape,
		       const char *base, int *next, bool *direct,
		       const NameMap *also, int nops, HloInstr *const *ops);
void fz_drop_comp(Fz *z, HloComp *c);
void fz_set_kind(HloInstr *f, FKind k);
FKind fz_kind_of_fusion(GroupCache *gc, const HloInstr *f);
/* c as a fusion instruction of its own, in c's place. */
HloInstr *fz_wrap(Fz *z, HloInstr *c);
/* The name of a fused parameter made while Fz.lazy_params (compared by
 * address; not a name HLO text can spell). */
extern const char FZ_UNNAMED[];
void fz_drop_operand(HloInstr *f, int i);
bool fz_tidied(const HloComp *c);
bool fz_temp_params_ok(const HloModule *m);
HloInstr *fz_param_for(Fz *z, HloInstr *f, HloInstr *o);
/* Copies the instructions of src other than its parameters into dst,
 * parameter k standing for ops[k]. *po gets src's post order and *map
 * the copy of po[i] at map[i]; each instruction of src gets its index
 * in po as its mark (so map[x->mark] is x's copy). Returns the count,
 * -1 on failure (z->failed set). The caller frees *po and *map. */
int fz_inline_comp(Fz *z, HloComp *src, HloComp *dst, const HloComp *outer,
		   HloInstr *const *ops, int nops, HloInstr ***po,
		   HloInstr ***map);
/* The same into the caller's po and map, room for src->n each. */
int fz_inline_comp_in(Fz *z, HloComp *src, HloComp *dst, const HloComp *outer,
		      HloInstr *const *ops, int nops, HloInstr **po,
		      HloInstr **map);
/* fz_inline_comp_in for a src dropped right after (fz_drop_comp): its
 * instructions but the parameters move into dst instead of being copied
 * (with the names, ids and user lists the copies would have), and
 * map[i] is po[i] itself for those; one whose value dst computes
 * already (pass_same_value) stays behind, map[i] naming dst's. Of src
 * only its parameters and root may be read after; a tuple root is
 * copied, not moved. */
int fz_move_comp_in(Fz *z, HloComp *src, HloComp *dst, const HloComp *outer,
		    HloInstr *const *ops, int nops, HloInstr **po,
		    HloInstr **map);
HloInstr *fz_copy_into(Fz *z, HloInstr *p, HloInstr *f);
HloInstr *fz_as_layout(Fz *z, HloComp *fc, HloInstr *v, const Shape *want);

/* --- recording and ending a pass (fusion.c) --- */
void fz_record(Fz *z, const char *prod, const char *cons, const char *comp,
	       const char *into, const Verdict *v, const HloInstr *kernel);
/* Kernel from became part of kernel to. */
void fz_forward(Fz *z, const HloInstr *from, const HloInstr *to);
void fz_record_pair(Fz *z, const HloInstr *p, const HloInstr *c,
		    const char *into, const Verdict *v);
void fz_free_seen(Fz *z);
/* The computations that run as code (entry, loop bodies, branches). */
int fz_code_comps(HloModule *m, HloComp ***out);
/* Re-sorts what the pass touched, rebuilds the log's groups, frees z's
 * state and comps; returns "changed". */
bool fz_finish(Fz *z, PassCtx *cx, HloComp **comps, int nc);

#endif
