/* passes.h - what the pass files share with the registry (not part of
 * the public interface, which is pass.h). */
#ifndef XR_PASSES_H
#define XR_PASSES_H
#include <stdbool.h>

#include "pass.h"

bool pass_algsimp(HloModule *m, PassCtx *cx);
bool pass_dce(HloModule *m, PassCtx *cx);
bool pass_fusion(HloModule *m, PassCtx *cx);
bool pass_multi_output_fusion(HloModule *m, PassCtx *cx);
bool pass_cse(HloModule *m, PassCtx *cx);
bool pass_tuple_simplifier(HloModule *m, PassCtx *cx);
bool pass_call_inliner(HloModule *m, PassCtx *cx);
bool pass_constant_folding(HloModule *m, PassCtx *cx);
bool pass_defuser(HloModule *m, PassCtx *cx);

/* Replaces every instruction of opcode op (HLO_CALL: its to_apply;
 * HLO_FUSION: its fused computation) by a copy of what it runs, in
 * callee-before-caller order, and removes the computations nobody calls
 * any more (call_inliner.c: call-inliner and defuser). Returns
 * "changed"; out of memory is reported through cx. */
bool pass_inline_all(HloModule *m, PassCtx *cx, HloOpcode op);

/* Moves blocks of instructions appended to c to the program positions
 * of anchors, so that printed text reads definitions before uses: block
 * k is c->instrs[start[k] .. start[k + 1]) (start[nb] is c->n, start[0]
 * at least base) and goes just before anchor[k], one of
 * c->instrs[0 .. base); blocks of one anchor keep their order, and a
 * block whose anchor is not there stays at the end. One walk over c for
 * all of them (a move per block costs O(c->n) each). False on out of
 * memory, the order then unchanged: the printed text would read
 * otherwise, so the pass fails (pass_out_of_memory). */
bool pass_place_blocks(HloComp *c, int base, HloInstr *const *anchor,
		       const int *start, int nb);

/* A copy of s (same module) appended to c under s's name (when that is
 * taken in c, what hlo_comp_unique_name makes of it), with operands ops
 * (s->nops of them): opcode, shape, attributes, literal. NULL on out of
 * memory. */
HloInstr *pass_copy_instr(HloComp *c, const HloInstr *s, HloInstr *const *ops);
/* pass_copy_instr under another name (in c's module's arena, free in
 * c), for a copy within one module. */
HloInstr *pass_copy_instr_as(HloComp *c, const HloInstr *s,
			     HloInstr *const *ops, const char *name);

/* Gives every fusion a computation of its own, as the verifier requires:
 * a fused computation that a second fusion calls (a copy of a fusion
 * made by inlining a call, or by duplicating a fusion that holds one) is
 * copied for each fusion after the first, under a fresh name, nested
 * fusions likewise. Linear in the module's size. False on out of
 * memory. */
bool pass_unshare_fused(HloModule *m);

/* The first base.1, base.2, ... that neither a nor b (b may be NULL)
 * holds, written into buf (cap bytes); returns buf. */
const char *pass_free_name(char *buf, size_t cap, const char *base,
			   const NameMap *a, const NameMap *b);
/* The same for base's first n bytes, the name's length into *len. */
const char *pass_free_namen(char *buf, size_t cap, const char *base,
			    size_t n, const NameMap *a, const NameMap *b,
			    size_t *len);

/* Gives every fusion a name no other fusion of the module has ('why',
 * 'cost' and 'fuse' find a fusion by name; HLO text only asks a name to
 * be unique in its computation). A copy of a fusion in a second caller
 * (call-inliner) keeps its name in the entry, or in the first
 * computation that has it, and is renamed name.N elsewhere, N the first
 * suffix no instruction of the module has; control-predecessors lists
 * follow. Linear in the module's size. False on out of memory. */
bool pass_unique_fusion_names(HloModule *m);

/* control-predecessors={a, b} names instructions in raw text. A pass
 * that removes, merges or moves one (dce, cse, fusion) leaves its name
 * behind, and XLA's parser refuses such a module: pass_run (and 'fuse')
 * drop the names that are no longer in the instruction's computation,
 * the attribute with the last. The edges only order the schedule; XLA
 * moves them to the instruction that takes over, which is not tracked
 * here (the fusion passes leave instructions with edges unfused). */
void pass_tidy_control_preds(HloModule *m);

/* Rewrites a raw name list such as control-predecessors={a, %b}: each
 * name, looked up among c's instructions (y: NULL when none has it), goes
 * through `name`, which returns what to write in its place (tok, of
 * length n, to keep it as written) or NULL to drop it. The new list,
 * "{...}", is left in b. Returns how many names it keeps; *changed says
 * whether any was dropped or replaced. */
typedef const char *(*ListedName)(void *ctx, const HloInstr *y,
				  const char *tok, size_t n);
int pass_relist(const HloComp *c, const char *list, ListedName name,
		void *ctx, StrBuf *b, bool *changed);

/* The control-predecessors lists of f's computation that name f name nn
 * instead, nn listed once (a list that named an instruction called nn
 * too keeps one). Read through the computation's names: call it while f
 * still has its name. False on out of memory. */
bool pass_relist_renamed(HloModule *m, HloInstr *f, const char *nn, StrBuf *b);

/* The shape x has, for a new instruction of module m: x's own when x is
 * in m (shapes are not changed once an instruction holds one, and m's
 * arena lives as long as m, so instructions share them), else a copy in
 * m's arena. NULL on out of memory. */
Shape *pass_shape_of(HloModule *m, const HloInstr *x);

/* hlo_instr_remove costs O(instructions) each; these remove many in
 * linear time. pass_detach takes an instruction without users out of its
 * computation (name map, its operands' user lists: its operands become
 * NULL) but leaves its slot; pass_compact then drops every detached
 * slot of c in one sweep. Nothing may walk c in between. */
void pass_detach(HloInstr *ins);
void pass_compact(HloComp *c);

/* Whether d computes what s would with operands sops (s's own, or
 * their copies where s is being copied or moved): the same opcode,
 * operands in the same order, shape, attributes (metadata aside) and
 * literal, and nothing that cse would not merge (a parameter, a side
 * effect, a tuple). Sufficient, not necessary: a no may be two equal
 * values cse's printed keys would merge. */
bool pass_same_value(const HloInstr *d, const HloInstr *s,
		     HloInstr *const *sops);

/* True when ins, or anything a computation it calls runs, has side
 * effects (XF_SIDE opcodes; collectives and async pairs count too). */
bool pass_has_side_effect(const HloInstr *ins);

/* pass_has_side_effect with the answers for the computations
 * instructions call kept (the first PASS_SIDE_CACHE of them; then it
 * walks as pass_has_side_effect does): walking a reduce's reducer for
 * each of thousands of reduces was most of that check's cost. Valid
 * while the pass only removes, or adds, instructions without side
 * effects of their own that call what the ones they replace call (dce,
 * cse, algsimp), so a computation's answer cannot change; one cache per
 * pass run, zero-initialised. Sanitizer builds check every cached
 * answer. */
enum { PASS_SIDE_CACHE = 16 };
typedef struct {
	const HloComp *comp[PASS_SIDE_CACHE];
	bool side[PASS_SIDE_CACHE];
	int n;
} PassSideCache;
bool pass_has_side_effect_cached(const HloInstr *ins, PassSideCache *sc);

#endif
