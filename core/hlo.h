/* hlo.h - the HLO IR: modules, computations, instructions, attributes.
 *
 * A module owns one arena; everything hanging off it (names, shapes,
 * literals, attribute values) is allocated there and freed with the module.
 * Instructions keep operand and user lists; names are unique per
 * computation and looked up through a hash map. */
#ifndef XR_HLO_H
#define XR_HLO_H
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "literal.h"
#include "namemap.h"
#include "shape.h"

typedef enum {
	HLO_INVALID,
#define OP(e, s, ar, cl, fl) e,
#include "opcodes.def"
#undef OP
	HLO_OPCODE_COUNT
} HloOpcode;

typedef enum { OC_UNARY, OC_UNARY_PRED, OC_BINARY, OC_TERNARY, OC_OTHER } OpClass;

enum {
	XF_EW = 1 << 0,
	XF_COMM = 1 << 1,
	XF_EXP = 1 << 2,
	XF_SIDE = 1 << 3,
	XF_COLL = 1 << 4,
	XF_SHAPE = 1 << 5,
	XF_LEAF = 1 << 6,
	XF_ASYNC = 1 << 7,
};

const char *hlo_opcode_name(HloOpcode op);
/* HLO_INVALID when the spelling is not an opcode. */
HloOpcode hlo_opcode_parse(const char *s, int n);
int hlo_opcode_arity(HloOpcode op); /* -1: variadic */
OpClass hlo_opcode_class(HloOpcode op);
unsigned hlo_opcode_flags(HloOpcode op);
/* The attribute keys op takes beyond those every instruction takes, which
 * are HLO_INVALID's: space-separated, as in opattrs.def. */
const char *hlo_opcode_attrs(HloOpcode op);

typedef enum {
	A_RAW, /* a key the IR does not interpret */
#define ATTR(e, s, k) e,
#include "attrs.def"
#undef ATTR
	A_COUNT
} AttrKey;

typedef enum {
	AV_RAW,
	AV_INT,
	AV_INTS,
	AV_BOOL,
	AV_FLOAT,
	AV_ENUM,
	AV_STRING,
	AV_COMP,
	AV_COMPS,
	AV_SLICE,
	AV_PADDING,
	AV_WINDOW,
	AV_DIMLABELS,
} AttrValKind;

const char *hlo_attr_name(AttrKey k);
AttrKey hlo_attr_parse(const char *s, int n); /* A_RAW when unknown */
AttrValKind hlo_attr_kind(AttrKey k);

typedef struct HloComp HloComp;
typedef struct HloInstr HloInstr;
typedef struct HloModule HloModule;

typedef struct SliceDim {
	int64_t start, limit, stride;
} SliceDim;

typedef struct PadDim {
	int64_t lo, hi, interior;
} PadDim;

typedef struct WindowDim {
	int64_t size, stride, pad_lo, pad_hi, lhs_dilate, rhs_dilate;
	bool reversal;
} WindowDim;

/* Convolution dimension numbers, from dim_labels=b01f_01io->b01f. */
typedef struct ConvDims {
	int nspatial;
	int64_t in_batch, in_feature, *in_spatial;
	int64_t k_in_feature, k_out_feature, *k_spatial;
	int64_t out_batch, out_feature, *out_spatial;
	const char *text; /* as written, printed back */
} ConvDims;

typedef struct HloAttr {
	AttrKey key;
	const char *name; /* spelling; for A_RAW the key as written */
	union {
		int64_t i;
		bool b;
		double f;
		const char *s; /* AV_ENUM word, AV_STRING body (escapes kept),
				  AV_RAW value text */
		struct {
			int n;
			int64_t *v;
		} ints;
		struct {
			int n;
			HloComp **v;
		} comps; /* AV_COMP has n == 1 */
		struct {
			int n;
			SliceDim *v;
		} slice;
		struct {
			int n;
			PadDim *v;
		} pad;
		struct {
			int n;
			WindowDim *v;
		} window;
		ConvDims *conv;
	} u;
} HloAttr;

struct HloInstr {
	/* What the graph walks read first, in the first 64 bytes: each
	 * pass walks every instruction several times, and a module of
	 * thousands does not stay in the cache from one walk to the
	 * next. The verifier's signature walk after every pass reads
	 * these and nothing else of an instruction (vsig and id
	 * included: its operands' ids), post order and fusion's
	 * decisions most of them. An instruction is 144 bytes from a
	 * 16-byte boundary (arena.h), so these 64 lie in one or two
	 * cache lines, the whole in three. Then what walks read next
	 * most (name, users, the cost walk's memo), the rare last. */
	HloOpcode op;
	int nops;
	HloInstr **ops;
	Shape *shape;
	HloComp *parent;
	uint64_t vsig;     /* verify.c: what it looked like when it last
			      passed the instruction checks (0: never) */
	int id;            /* unique in the module, creation order */
	unsigned mark;     /* scratch for graph walks (see hlo_new_mark): a
			      generation, or a position or count below
			      HLO_MARK_GEN0; any walk may leave any of them */
	int nattrs;
	int nusers;
	HloAttr *attrs;
	const char *name;
	HloInstr **users;
	int cap_users;
	int user_hint;     /* hlo.c: where in users the last removal was */
	uint64_t cost_sig; /* cost.c: vsig when cost_read was worked out */
	int64_t cost_read; /* cost.c: bytes the kernel reads (or moves:
			      see kernel_bytes) */
	Literal *literal;  /* constant */
	HloOpcode async_wrapped; /* "xyz-start" sugar: the wrapped opcode */
	int cap_attrs;
	int64_t param_no;  /* parameter */
	SrcLoc loc;        /* where it was written; 0 if made by a pass */
	bool shape_given;  /* shape was written in the text */
	bool nested;       /* written as an unnamed operand: add(parameter(0)) */
	/* hlo.c: strlen(name) + 1 and namemap_key_hash(name) once known,
	 * so that a name taken out of a map, moved or looked up again is
	 * not read (the string is mostly a miss in the cache); 0 unknown
	 * (hlo_name_hash). Kept with the name: whatever sets name sets
	 * them (hlo_name_keep) or forgets them (hlo_name_forget). */
	uint16_t name_len;
	unsigned name_hash;
};

struct HloComp {
	const char *name;
	HloModule *module;
	int n, cap;
	HloInstr **instrs; /* program order */
	HloInstr *root;
	bool root_explicit; /* ROOT was written (or set by a command) */
	bool is_entry;
	bool inlined;       /* came from an inline to_apply={...} body */
	const char *exec_thread; /* execution_thread="..." value, or NULL */
	NameMap names;      /* name -> HloInstr* */
	SrcLoc loc;
	/* A cache for hlo_comp_param: parameter k at pidx[k] when last
	 * indexed. Each hit is checked (still in c, still number k), so
	 * nothing has to keep it up to date; a miss re-indexes. */
	HloInstr **pidx;
	int npidx, cap_pidx;
	unsigned mark; /* scratch for module walks, like HloInstr.mark */
	int at;        /* where in module->comps when last indexed (see
			  hlo_module_comp_index) */
	/* verify.c: what its callers' checks read of it, hashed in the
	 * verifier's run vrun (0: none): by address (vhash) and by
	 * content (vfused) */
	unsigned vrun;
	uint64_t vhash, vfused;
};

struct HloModule {
	Arena arena;
	const char *name;
	int ncomps, cap_comps;
	HloComp **comps; /* order of definition */
	HloComp *entry;
	NameMap comp_names;
	int nattrs, cap_attrs;
	HloAttr *attrs;  /* header attributes (raw, except those recomputed) */
	int next_id;
	unsigned mark_gen;
	/* an instruction was given a control-predecessors attribute (see
	 * pass_tidy_control_preds) */
	bool control_preds;
	const char *source_name; /* file it was loaded from, or NULL */
	/* JAX's stack frame index (FileNames, FunctionNames, FileLocations,
	 * StackFrames sections after the header), kept verbatim. */
	const char *frame_index;
	/* entry_computation_layout as the header gave it (the parameters',
	 * then the result's shape), when it agreed with the entry: XLA
	 * keeps its layouts (memory spaces, tiles, orders other than the
	 * parameters'), and so does `save` while the entry still agrees.
	 * NULL when not given. */
	Shape **entry_layout;
	int entry_layout_n;
};

/* --- modules and computations --- */
HloModule *hlo_module_new(const char *name);
void hlo_module_free(HloModule *m);
/* A copy in a fresh arena: its instructions, computations and
 * attribute arrays its own; its shapes, names and attribute values
 * shared with m, whose arena the copy's holds (neither may change them
 * in place; either may be freed first), unless m holds another arena
 * itself (then all copied). NULL on out-of-memory. */
HloModule *hlo_module_clone(const HloModule *m);
/* hlo_module_clone, calling each(ctx, x) for every instruction x of m's
 * entry computation, in order, just before x is copied: a walk over the
 * entry that rides on the copy's, reading x while the copy has it in
 * cache (the cost model's byte count). each may change what x
 * remembers for itself (a memo); the copy takes it. */
typedef void HloCloneEach(void *ctx, HloInstr *x);
HloModule *hlo_module_clone_each(const HloModule *m, HloCloneEach *each,
				 void *ctx);
HloComp *hlo_comp_new(HloModule *m, const char *name);
/* hlo_comp_new with strlen(name) known (n): a name just written. */
HloComp *hlo_comp_new_n(HloModule *m, const char *name, size_t n);
HloComp *hlo_module_find_comp(const HloModule *m, const char *name);
/* c's position in m->comps, -1 when it is not there. Constant time while
 * the list stays as it was; after a change one call indexes it again. */
int hlo_module_comp_index(const HloModule *m, const HloComp *c);
/* A name not used by any computation: base, base.1, base.2, ... */
const char *hlo_module_unique_comp_name(HloModule *m, const char *base);
void hlo_module_set_entry(HloModule *m, HloComp *c);
/* Forgets where the unique-name searches resume (a hint skips names
 * freed below it): what is named next is named as in a fresh clone. */
void hlo_module_reset_name_hints(HloModule *m);
/* Takes a computation out of the module (its memory stays in the arena
 * until the module is freed). Nothing may call it any more. */
void hlo_module_remove_comp(HloModule *m, HloComp *c);
/* The same for n computations at once, in one sweep of the list. */
void hlo_module_remove_comps(HloModule *m, HloComp *const *v, int n);
/* Counts over all computations (inlined bodies counted separately). */
int hlo_module_instr_count(const HloModule *m);
/* Kernels as DESIGN.md's stats line counts them: top-level instructions
 * of the entry computation other than parameter, constant, tuple,
 * get-tuple-element and bitcast (what a backend would launch). */
int hlo_module_kernels(const HloModule *m);
/* The same where call, while and conditional count the kernels of the
 * computations they run (callee; condition and body; every branch)
 * instead of one each: every kernel of the program once, as compiled
 * (stats' kernels_all; a kernel in a loop body counts once, not once
 * per trip). */
int hlo_module_kernels_all(const HloModule *m);
/* Does an instruction of this opcode launch a kernel of its own (all but
 * parameter, constant, tuple, get-tuple-element and bitcast)? */
bool hlo_launches_kernel(HloOpcode op);

/* --- instructions --- */
/* Appends a new instruction to c. name must be unique in c (NULL: a
 * fresh one is made from the opcode). Operands get c's instr as a user. */
HloInstr *hlo_instr_new(HloComp *c, HloOpcode op, Shape *shape,
			const char *name, int nops, HloInstr *const *ops);
/* hlo_instr_new with name's length known (n bytes, NUL-terminated
 * there: a name just written, not looked over again). */
HloInstr *hlo_instr_new_n(HloComp *c, HloOpcode op, Shape *shape,
			  const char *name, size_t n, int nops,
			  HloInstr *const *ops);
/* hlo_instr_new named base, or base.N when base is taken in c. */
HloInstr *hlo_instr_new_unique(HloComp *c, HloOpcode op, Shape *shape,
			       const char *base, int nops,
			       HloInstr *const *ops);
/* An instruction without operands appended to c as hlo_instr_new makes
 * one (its id taken at the same point, room for its first users), under
 * name, which is NOT entered in c's names: a placeholder (that must
 * outlive the module) until hlo_instr_rename gives it a real one, for a
 * pass that names what it makes at the end. NULL on out of memory. */
HloInstr *hlo_instr_new_unlisted(HloComp *c, HloOpcode op, Shape *shape,
				 const char *name);
/* Parameter number no of c made as hlo_instr_new_unlisted makes one, and
 * entered in c's parameter index (hlo_comp_param_added): in one call,
 * for a pass that makes thousands. NULL on out of memory. */
HloInstr *hlo_param_new_unlisted(HloComp *c, Shape *shape, const char *name,
				 int64_t no);
/* The same without copying name, which must be a string in c's module's
 * arena (an instruction's name there: names are never changed in place;
 * a rename gives an instruction a new string). */
HloInstr *hlo_instr_new_in_arena(HloComp *c, HloOpcode op, Shape *shape,
				 const char *name, int nops,
				 HloInstr *const *ops);
HloInstr *hlo_comp_find(const HloComp *c, const char *name);
const char *hlo_comp_unique_name(HloComp *c, const char *base);
/* For base (n bytes), taken in c: leaves c's name hints as
 * hlo_comp_unique_name would (the number it would give is not offered
 * again), without making the name, for a caller that names its
 * instruction otherwise. */
void hlo_comp_skip_unique_name(HloComp *c, const char *base, size_t n);
void hlo_set_operand(HloInstr *ins, int i, HloInstr *v);
/* hlo_set_operand for a caller that knows ins's other operands, without
 * looking at them: old_elsewhere / v_elsewhere say whether ins->ops[i]
 * / v is also an operand of ins in a slot other than i (a wrong answer
 * breaks the use lists). For an operand appended to an instruction of
 * many (a fusion's new parameter), where hlo_set_operand's look costs
 * O(operands). */
void hlo_set_operand_known(HloInstr *ins, int i, HloInstr *v,
			   bool old_elsewhere, bool v_elsewhere);
/* Every operand of ins set to NULL, ins taken out of their user lists
 * (as hlo_set_operand(ins, i, NULL) for each i, in one walk). */
void hlo_instr_drop_operands(HloInstr *ins);
void hlo_replace_all_uses(HloInstr *old, HloInstr *with);
/* Removes an instruction with no users from its computation. */
void hlo_instr_remove(HloInstr *ins);
/* Batch removal for passes that drop many instructions: unlink takes an
 * instruction with no users out of its computation's names (and root)
 * and sets its parent to NULL, but leaves it in the program order and in
 * its operands' user lists, so n removals cost O(n) even when the
 * operands have many users. Until hlo_comp_sweep, those user lists still
 * name it (nusers counts it): a pass must not rely on them. */
void hlo_instr_unlink(HloInstr *ins);
/* Finishes the unlinks of c: drops every instruction with a NULL parent
 * from c's program order and from the user lists of c's instructions
 * (the order of the others is kept) and clears its operands - the state
 * one removal at a time would have left. Linear in c's size and uses. */
void hlo_comp_sweep(HloComp *c);
/* Drops the users without a computation (detached or unlinked while
 * still listed) from ins's user list, keeping the others' order. */
void hlo_instr_sweep_users(HloInstr *ins);
/* ins's name's length (*len) and namemap_key_hash, as ins keeps them
 * (name_len), else worked out (hlo_name_hash_slow: also in sanitizer
 * builds, which check what is kept). */
unsigned hlo_name_hash_slow(const HloInstr *ins, size_t *len);
static inline unsigned hlo_name_hash(const HloInstr *ins, size_t *len)
{
	if (ins->name_len && !XR_ASAN) {
		*len = ins->name_len - 1u;
		return ins->name_hash;
	}
	return hlo_name_hash_slow(ins, len);
}
/* What ins keeps of its name (just set): its length len and hash h. */
static inline void hlo_name_keep(HloInstr *ins, size_t len, unsigned h)
{
	ins->name_len = len < UINT16_MAX ? (uint16_t)(len + 1) : 0;
	ins->name_hash = h;
}
static inline void hlo_name_forget(HloInstr *ins) { ins->name_len = 0; }
/* Takes ins's name out of c's names (hlo_name_hash: mostly without
 * reading it). */
bool hlo_names_del(HloComp *c, const HloInstr *ins);
/* Gives ins a copy of name; false (nothing changed) when an instruction
 * of its computation, ins itself included, has that name already. */
bool hlo_instr_rename(HloInstr *ins, const char *name);
/* buf = stem (its first n bytes), then k in decimal: "param_" 3 ->
 * "param_3"; cut short to fit cap. What passes name things with, many
 * thousand times a pass, without printf. Returns buf. */
char *hlo_numbered_name(char *buf, size_t cap, const char *stem, size_t n,
			long long k);
/* hlo_comp_param's slow path: rebuilds c's parameter index, then
 * answers (call hlo_comp_param). */
HloInstr *hlo_comp_param_reindex(const HloComp *c, int64_t number);
/* Parameter number of c (NULL: none). Inline: passes ask many thousand
 * times a pass, and a hit in the index (checked: still c's, still that
 * number) costs a few loads. */
static inline HloInstr *hlo_comp_param(const HloComp *c, int64_t number)
{
	if (number >= 0 && number < c->npidx) {
		HloInstr *p = c->pidx[number];
		if (p && p->op == HLO_PARAMETER && p->parent == c &&
		    p->param_no == number)
			return p;
	}
	return hlo_comp_param_reindex(c, number);
}
/* Keep hlo_comp_param's index in step (optional: a stale index is only
 * rebuilt): parameter number was taken out and those after it numbered
 * one lower; p was added with the next number. */
void hlo_comp_param_dropped(HloComp *c, int64_t number);
void hlo_comp_param_added(HloComp *c, HloInstr *p);
int hlo_comp_param_count(const HloComp *c);

/* --- attributes --- */
HloAttr *hlo_attr_find(const HloInstr *ins, AttrKey k);
HloAttr *hlo_attr_find_raw(const HloInstr *ins, const char *name);
/* Adds (or replaces) an attribute; returns the slot to fill. */
HloAttr *hlo_attr_set(HloInstr *ins, AttrKey k, const char *name);
bool hlo_attr_remove(HloInstr *ins, AttrKey k);
/* Typed getters: false when absent. */
bool hlo_attr_int(const HloInstr *ins, AttrKey k, int64_t *out);
/* Returns the list (NULL and *n = 0 if absent). */
const int64_t *hlo_attr_ints(const HloInstr *ins, AttrKey k, int *n);
HloComp *hlo_attr_comp(const HloInstr *ins, AttrKey k);
const char *hlo_attr_enum(const HloInstr *ins, AttrKey k);
/* Calls fn for every computation the instruction calls. */
typedef void (*HloCompVisit)(HloComp *c, void *ctx);
void hlo_instr_called(const HloInstr *ins, HloCompVisit fn, void *ctx);
int hlo_instr_ncalled(const HloInstr *ins);
HloComp *hlo_instr_called_at(const HloInstr *ins, int i);

/* --- walks --- */
/* A fresh mark value: instructions with ins->mark != it are unvisited.
 * Generations are at least HLO_MARK_GEN0 and grow, so a mark another walk
 * left (an older generation, or a position or count, which must stay
 * below HLO_MARK_GEN0) never equals a fresh one: no clearing needed. */
#define HLO_MARK_GEN0 0x80000000u
unsigned hlo_new_mark(HloModule *m);
/* Post order of c reachable from its root plus the unreachable rest, in a
 * malloc'd array the caller frees. Returns count, -1 on a cycle,
 * HLO_ORDER_OOM when out of memory. */
enum { HLO_ORDER_OOM = -2 };
int hlo_comp_post_order(HloComp *c, HloInstr ***out);
/* The same into out, which has room for c->n + 1 (no allocation for a
 * small computation). */
int hlo_comp_post_order_into(HloComp *c, HloInstr **out);
/* Reorders c's instructions so that every operand comes before its users,
 * keeping the existing order where it already is one (a depth-first post
 * order over operands, started from each instruction in turn; an order
 * that is one already is left alone at once). A cycle leaves the order
 * as it is, for the verifier to report. False on out of memory (nothing
 * changed). */
bool hlo_comp_sort_operands_first(HloComp *c);
/* Computations in callee-before-caller order (malloc'd). */
int hlo_module_comp_post_order(HloModule *m, HloComp ***out);
/* hlo_comp_sweep, sweeping only the user lists of the unlinked
 * instructions' operands (the only lists that can hold them, when every
 * unlinked one is still in c's list), not every instruction's: for a
 * pass that removed a few of many. Leaves marks changed. */
void hlo_comp_sweep_ops(HloComp *c);

/* Moves ins, which nothing but instructions of its computation that
 * drop it afterwards reads, into computation c of the same module,
 * reading ops (its operand count) there, as a copy made there would be
 * and ins taken out of its own: appended to c under its own name, with
 * a new id and nothing remembered of it (vsig, cost_sig, nested). It
 * stays in its old computation's list (as a detached one does) until
 * that is compacted, its parent c. NULL, nothing changed, when its name
 * is taken in c or on out of memory. */
HloInstr *hlo_instr_move(HloInstr *ins, HloComp *c, HloInstr *const *ops);

/* What a moved instruction (hlo_instr_move, multi-output fusion's move
 * of a fused body) starts with in c, as a new one made there would: a
 * new id, and nothing remembered of it (vsig, cost_sig, cost_read,
 * nested). One place, so that a field added to what is remembered is
 * forgotten by every move. */
static inline void hlo_instr_renew(HloInstr *ins, HloComp *c)
{
	ins->parent = c;
	ins->id = c->module->next_id++;
	ins->vsig = 0;
	ins->cost_sig = 0;
	ins->cost_read = 0;
	ins->nested = false;
}

#endif
