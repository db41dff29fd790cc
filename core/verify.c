/* verify.c - the HLO verifier.
 *
 * Module level: one entry computation, every computation has a root of
 * its own, parameters numbered 0..n-1, no cycles. Instruction level, in
 * this order (a failed step skips the later ones, so one mistake gives one
 * message): operands (present, same computation, how many), required
 * attributes, operand element types, the signatures of called
 * computations, and the declared shape against the inferred one
 * (infer.c).
 *
 * What XLA itself accepts is the bar: the corpus of real modules must
 * verify. Mixed floating-point precision is accepted where XLA's
 * signature checks ignore it (reducer and comparator parameters).
 * Opcodes without an inference rule (custom-call, collectives, async
 * wrappers) get the generic checks only. Errors are collected, up to
 * MAX_ERRORS per call. */
#include "verify.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "namemap.h"

enum { MAX_ERRORS = 20, MAX_PATH = 8 };

typedef struct V {
	Diag *d;
	const SrcFile *f;
	const HloModule *m;
	int start; /* d->errors when the run began */
	Arena tmp; /* inferred shapes and message text; reset now and then */
	bool changed_only; /* verify_module_changed */
	int checked;       /* instructions the checks ran on */
	/* check_comp's list of the calls its computation makes (v->calls:
	 * what each instruction calls, in hlo_instr_called_at's order,
	 * instruction by instruction) is being made: sig_calls puts them
	 * on it. calls_lost: the list could not grow (check_comp then
	 * asks the instructions) */
	bool listing, calls_lost;
	int ncalls, cap_calls;
	struct Call {
		const HloInstr *by;
		const HloComp *c;
	} *calls;
	/* check_cycles' stacks, reused from one computation to the next */
	HloInstr **stack;
	int *next, cap;
	/* verify_module_changed: the contents (content_key) of instructions
	 * that passed in this run; open addressing, 0 empty */
	uint64_t *seen;
	int nseen, cap_seen;
	/* the last of them check_listed met (a key is often the one
	 * before it again: no probe) */
	uint64_t seen_last;
	/* check_comp's list of what to check (their signatures in vsig
	 * until they fail), their content keys (verify_module_changed),
	 * and the computation's parameters */
	HloInstr **todo, **params;
	uint64_t *keys;
	int cap_todo;
	/* the first instruction seen calling each computation in this run,
	 * open addressing on the computation's address (see note_callers) */
	struct Caller {
		const HloComp *c;
		/* the caller's address, its low bit set once the
		 * computation's error is reported (an instruction's
		 * address is even): two words a slot, less to clear */
		uintptr_t by;
	} *callers;
	int cap_callers; /* a power of two, or 0 */
	bool named_all; /* note_named filled callers */
	/* this run's number (HloComp.vrun: hashed) */
	unsigned run;
	/* verify_module_changed_each's caller, handed the entry's
	 * instructions as list_in passes them */
	VerifyEach each;
	void *each_ctx;
	bool listed_each; /* list_in handed each what it did not list */
	/* str_word's last string and its hash */
	const char *str_last;
	uint64_t str_last_hash;
	bool oom; /* an error says: out of memory */
} V;

_Static_assert(_Alignof(HloInstr) >= 2, "a caller's low bit is free");
/* The signature walk (instr_sig, list_in) reads an instruction's first
 * 64 bytes and nothing after them (hlo.h) */
_Static_assert(offsetof(HloInstr, attrs) + sizeof(HloAttr *) <= 64 &&
		       offsetof(HloInstr, vsig) < 64 &&
		       offsetof(HloInstr, id) < 64 &&
		       offsetof(HloInstr, mark) < 64,
	       "what the signature walk reads is in the first 64 bytes");

static bool full(const V *v) { return v->d->errors - v->start >= MAX_ERRORS; }

static void vreport(V *v, SrcLoc loc, const char *pre, const char *fmt,
		    va_list ap)
{
	char msg[900];
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (!full(v))
		diag_error(v->d, v->f, loc, "%s%s", pre, msg);
}

/* An error about one instruction: "op 'name': message". */
static void err(V *v, const HloInstr *ins, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void err(V *v, const HloInstr *ins, const char *fmt, ...)
{
	char pre[300];
	snprintf(pre, sizeof pre, "%s '%s': ", hlo_opcode_name(ins->op),
		 ins->name);
	va_list ap;
	va_start(ap, fmt);
	vreport(v, ins->loc, pre, fmt, ap);
	va_end(ap);
}

static void err_at(V *v, SrcLoc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void err_at(V *v, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(v, loc, "", fmt, ap);
	va_end(ap);
}

static const char *str(V *v, const Shape *s)
{
	StrBuf b;
	sb_init(&b);
	shape_print(&b, s, false);
	const char *r = arena_strdup(&v->tmp, sb_str(&b));
	sb_free(&b);
	return r ? r : "?";
}

/* --- shape comparisons ------------------------------------------------- */

/* Same element types and dims, layouts and dynamic marks ignored ('?'
 * matches any size), tuples elementwise. */
static bool compat(const Shape *a, const Shape *b)
{
	return shape_matches(a, b);
}

/* Element types equal up to floating-point precision, as XLA's reducer
 * and comparator checks allow. */
static bool fp_eq(Dtype a, Dtype b)
{
	return a == b || (dtype_is_float(a) && dtype_is_float(b));
}

static bool is_scalar(const Shape *s)
{
	return s && shape_is_array(s) && s->rank == 0;
}

static const Shape *oshape(const HloInstr *ins, int i)
{
	return ins->ops[i]->shape;
}

/* --- operands -------------------------------------------------------- */

static bool operands_present(V *v, const HloInstr *ins)
{
	for (int i = 0; i < ins->nops; i++) {
		const HloInstr *o = ins->ops[i];
		if (!o) {
			err(v, ins, "operand %d is missing", i);
			return false;
		}
		if (o->parent != ins->parent) {
			err(v, ins,
			    "operand %d '%s' belongs to computation '%s'", i,
			    o->name, o->parent ? o->parent->name : "?");
			return false;
		}
		if (!o->shape) {
			err(v, ins, "operand %d '%s' has no shape", i, o->name);
			return false;
		}
	}
	return true;
}

/* Operand count of a dynamic-(update-)slice: the fixed operands plus one
 * scalar per dim, or (the old form) plus one index vector. */
static bool slice_arity(const HloInstr *ins, int fixed)
{
	int n = ins->nops;
	if (n < fixed)
		return false;
	int rank = shape_is_array(oshape(ins, 0)) ? oshape(ins, 0)->rank : 0;
	return n == fixed + rank ||
	       (n == fixed + 1 && oshape(ins, fixed)->rank == 1);
}

static bool arity_ok(V *v, const HloInstr *ins)
{
	int n = ins->nops, a = hlo_opcode_arity(ins->op);
	const char *want = NULL;
	switch (ins->op) {
	case HLO_REDUCE:
	case HLO_REDUCE_WINDOW:
		if (n < 2 || n % 2)
			want = "inputs and as many init values";
		break;
	case HLO_SCATTER:
		if (n < 3 || n % 2 == 0)
			want = "operands, indices and as many updates";
		break;
	case HLO_DYNAMIC_SLICE:
		if (!slice_arity(ins, 1))
			want = "the operand and one start index per dimension";
		break;
	case HLO_DYNAMIC_UPDATE_SLICE:
		if (!slice_arity(ins, 2))
			want = "the operand, the update and one start index "
			       "per dimension";
		break;
	case HLO_RNG: /* XLA's rng_expander tests pass a third operand */
		if (n < 2)
			want = "at least the two distribution parameters";
		break;
	case HLO_CONCATENATE:
	case HLO_MAP:
	case HLO_SORT:
	case HLO_CONDITIONAL:
		if (n < 1)
			want = "at least one operand";
		break;
	default:
		if (a >= 0 && n != a) {
			err(v, ins, "expects %d operand%s, got %d", a,
			    a == 1 ? "" : "s", n);
			return false;
		}
	}
	if (want)
		err(v, ins, "expects %s, got %d operand%s", want, n,
		    n == 1 ? "" : "s");
	return !want;
}

/* --- attributes -------------------------------------------------------- */

static const AttrKey required[HLO_OPCODE_COUNT][5] = {
	[HLO_TRANSPOSE] = {A_DIMENSIONS},
	[HLO_REVERSE] = {A_DIMENSIONS},
	[HLO_CONCATENATE] = {A_DIMENSIONS},
	[HLO_REDUCE] = {A_DIMENSIONS, A_TO_APPLY},
	[HLO_REDUCE_WINDOW] = {A_TO_APPLY},
	[HLO_SELECT_AND_SCATTER] = {A_SELECT, A_SCATTER},
	[HLO_MAP] = {A_TO_APPLY},
	[HLO_SORT] = {A_DIMENSIONS, A_TO_APPLY},
	[HLO_SLICE] = {A_SLICE},
	[HLO_DYNAMIC_SLICE] = {A_DYNAMIC_SLICE_SIZES},
	[HLO_PAD] = {A_PADDING},
	[HLO_IOTA] = {A_IOTA_DIMENSION},
	[HLO_COMPARE] = {A_DIRECTION},
	[HLO_GET_TUPLE_ELEMENT] = {A_INDEX},
	[HLO_GET_DIMENSION_SIZE] = {A_DIMENSIONS},
	[HLO_CALL] = {A_TO_APPLY},
	[HLO_FUSION] = {A_KIND, A_CALLS},
	[HLO_WHILE] = {A_CONDITION, A_BODY},
	[HLO_CONVOLUTION] = {A_DIM_LABELS},
	[HLO_GATHER] = {A_OFFSET_DIMS, A_COLLAPSED_SLICE_DIMS,
			A_START_INDEX_MAP, A_INDEX_VECTOR_DIM, A_SLICE_SIZES},
	[HLO_SCATTER] = {A_UPDATE_WINDOW_DIMS, A_INSERTED_WINDOW_DIMS,
			 A_SCATTER_DIMS_TO_OPERAND_DIMS, A_INDEX_VECTOR_DIM,
			 A_TO_APPLY},
	[HLO_REDUCE_PRECISION] = {A_EXPONENT_BITS, A_MANTISSA_BITS},
	[HLO_FFT] = {A_FFT_TYPE, A_FFT_LENGTH},
	[HLO_BATCH_NORM_TRAINING] = {A_EPSILON, A_FEATURE_INDEX},
	[HLO_BATCH_NORM_INFERENCE] = {A_EPSILON, A_FEATURE_INDEX},
	[HLO_BATCH_NORM_GRAD] = {A_EPSILON, A_FEATURE_INDEX},
	[HLO_RNG] = {A_DISTRIBUTION},
	[HLO_TOPK] = {A_K},
	/* as XLA's parser requires them */
	[HLO_CUSTOM_CALL] = {A_CUSTOM_CALL_TARGET},
	[HLO_ALL_REDUCE] = {A_TO_APPLY},
	[HLO_ALL_REDUCE_START] = {A_TO_APPLY},
	[HLO_REDUCE_SCATTER] = {A_DIMENSIONS, A_TO_APPLY},
	[HLO_ALL_GATHER] = {A_DIMENSIONS},
	[HLO_ALL_GATHER_START] = {A_DIMENSIONS},
};

/* Required attributes the IR keeps as raw text. */
static const struct {
	HloOpcode op;
	const char *name;
} required_raw[] = {
	{HLO_COLLECTIVE_PERMUTE, "source_target_pairs"},
	{HLO_COLLECTIVE_PERMUTE_START, "source_target_pairs"},
	{HLO_RNG_BIT_GENERATOR, "algorithm"},
	{HLO_RNG_GET_AND_UPDATE_STATE, "delta"},
};

static const char *const fusion_kinds[] = {"kLoop", "kInput", "kOutput",
					   "kCustom"};

static bool attrs_ok(V *v, const HloInstr *ins)
{
	bool ok = true;
	for (int i = 0; i < 5 && required[ins->op][i] != A_RAW; i++)
		if (!hlo_attr_find(ins, required[ins->op][i])) {
			err(v, ins, "missing %s attribute",
			    hlo_attr_name(required[ins->op][i]));
			ok = false;
		}
	for (size_t i = 0; i < sizeof required_raw / sizeof *required_raw; i++)
		if (ins->op == required_raw[i].op &&
		    !hlo_attr_find_raw(ins, required_raw[i].name)) {
			err(v, ins, "missing %s attribute", required_raw[i].name);
			ok = false;
		}
	if (ins->op == HLO_BROADCAST && !hlo_attr_find(ins, A_DIMENSIONS) &&
	    ins->nops == 1 && !is_scalar(oshape(ins, 0))) {
		err(v, ins, "missing dimensions attribute");
		ok = false;
	}
	if (ins->op == HLO_CONDITIONAL &&
	    !hlo_attr_find(ins, A_BRANCH_COMPUTATIONS) &&
	    !(hlo_attr_comp(ins, A_TRUE_COMPUTATION) &&
	      hlo_attr_comp(ins, A_FALSE_COMPUTATION))) {
		err(v, ins, "missing branch_computations attribute");
		ok = false;
	}
	const char *kind = hlo_attr_enum(ins, A_KIND);
	if (ins->op == HLO_FUSION && kind) {
		bool known = false;
		for (size_t i = 0;
		     i < sizeof fusion_kinds / sizeof *fusion_kinds; i++)
			known |= strcmp(kind, fusion_kinds[i]) == 0;
		if (!known) {
			err(v, ins, "unknown fusion kind %s", kind);
			ok = false;
		}
	}
	return ok;
}

/* --- operand element types -------------------------------------------- */

typedef enum {
	T_ANY,
	T_ARRAY,      /* any element type with values, pred included */
	T_NUM,        /* integer, float or complex */
	T_FLOAT_CPLX, /* float or complex */
	T_FLOAT,
	T_INT,
	T_INT_PRED,
	T_PRED,
} TyClass;

static const char *const ty_names[] = {
	[T_ANY] = "anything",
	[T_ARRAY] = "an array type",
	[T_NUM] = "a number type",
	[T_FLOAT_CPLX] = "floating point or complex",
	[T_FLOAT] = "floating point",
	[T_INT] = "an integer type",
	[T_INT_PRED] = "pred or an integer type",
	[T_PRED] = "pred",
};

/* What every operand of an elementwise opcode must hold. */
static const uint8_t elem_types[HLO_OPCODE_COUNT] = {
	[HLO_ABS] = T_NUM,
	[HLO_NEGATE] = T_NUM,
	[HLO_SIGN] = T_NUM,
	[HLO_NOT] = T_INT_PRED,
	[HLO_EXP] = T_FLOAT_CPLX,
	[HLO_EXPM1] = T_FLOAT_CPLX,
	[HLO_LOG] = T_FLOAT_CPLX,
	[HLO_LOG1P] = T_FLOAT_CPLX,
	[HLO_LOGISTIC] = T_FLOAT_CPLX,
	[HLO_SQRT] = T_FLOAT_CPLX,
	[HLO_RSQRT] = T_FLOAT_CPLX,
	[HLO_CBRT] = T_FLOAT_CPLX,
	[HLO_SIN] = T_FLOAT_CPLX,
	[HLO_COS] = T_FLOAT_CPLX,
	[HLO_TAN] = T_FLOAT_CPLX,
	[HLO_TANH] = T_FLOAT_CPLX,
	[HLO_SINH] = T_FLOAT_CPLX,
	[HLO_COSH] = T_FLOAT_CPLX,
	[HLO_ASIN] = T_FLOAT_CPLX,
	[HLO_ACOS] = T_FLOAT_CPLX,
	[HLO_ASINH] = T_FLOAT_CPLX,
	[HLO_ACOSH] = T_FLOAT_CPLX,
	[HLO_ATANH] = T_FLOAT_CPLX,
	[HLO_ERF] = T_FLOAT,
	[HLO_FLOOR] = T_FLOAT,
	[HLO_CEIL] = T_FLOAT,
	[HLO_ROUND_AFZ] = T_FLOAT,
	[HLO_ROUND_EVEN] = T_FLOAT,
	[HLO_IS_FINITE] = T_FLOAT,
	[HLO_CLZ] = T_INT,
	[HLO_POPCNT] = T_INT,
	[HLO_REAL] = T_FLOAT_CPLX,
	[HLO_IMAG] = T_FLOAT_CPLX,
	[HLO_REDUCE_PRECISION] = T_FLOAT,
	[HLO_ADD] = T_ARRAY,
	[HLO_SUBTRACT] = T_NUM,
	[HLO_MULTIPLY] = T_ARRAY,
	[HLO_DIVIDE] = T_NUM,
	[HLO_REMAINDER] = T_NUM,
	[HLO_POWER] = T_NUM,
	[HLO_ATAN2] = T_FLOAT_CPLX,
	[HLO_MAXIMUM] = T_ARRAY,
	[HLO_MINIMUM] = T_ARRAY,
	[HLO_AND] = T_INT_PRED,
	[HLO_OR] = T_INT_PRED,
	[HLO_XOR] = T_INT_PRED,
	[HLO_SHL] = T_INT,
	[HLO_SHRA] = T_INT,
	[HLO_SHRL] = T_INT,
	[HLO_COMPLEX] = T_FLOAT,
	[HLO_COMPARE] = T_ARRAY,
};

static bool ty_ok(Dtype t, TyClass c)
{
	DtypeKind k = dtype_kind(t);
	switch (c) {
	case T_ANY:
		return true;
	case T_ARRAY:
		return dtype_is_array(t);
	case T_NUM:
		return k == DK_SINT || k == DK_UINT || k == DK_FLOAT ||
		       k == DK_COMPLEX;
	case T_FLOAT_CPLX:
		return k == DK_FLOAT || k == DK_COMPLEX;
	case T_FLOAT:
		return k == DK_FLOAT;
	case T_INT:
		return k == DK_SINT || k == DK_UINT;
	case T_INT_PRED:
		return k == DK_SINT || k == DK_UINT || k == DK_PRED;
	case T_PRED:
		return k == DK_PRED;
	}
	return true;
}

/* Operands from..to-1 must hold element types of class c. */
static bool types_in(V *v, const HloInstr *ins, int from, int to, TyClass c)
{
	for (int i = from; i < to && i < ins->nops; i++) {
		const Shape *s = oshape(ins, i);
		if (s->type == DT_TUPLE || !ty_ok(s->type, c)) {
			err(v, ins, "operand %d '%s' is %s, expected %s", i,
			    ins->ops[i]->name, str(v, s), ty_names[c]);
			return false;
		}
	}
	return true;
}

static bool types_ok(V *v, const HloInstr *ins)
{
	int n = ins->nops;
	switch (ins->op) {
	case HLO_SELECT:
		return types_in(v, ins, 0, 1, T_PRED);
	case HLO_DYNAMIC_SLICE:
		return types_in(v, ins, 1, n, T_INT);
	case HLO_DYNAMIC_UPDATE_SLICE:
		return types_in(v, ins, 2, n, T_INT);
	case HLO_GATHER:
		return types_in(v, ins, 1, 2, T_INT);
	case HLO_SCATTER:
		return types_in(v, ins, n / 2, n / 2 + 1, T_INT);
	case HLO_IOTA:
		if (!ins->shape || (shape_is_array(ins->shape) &&
				    ty_ok(ins->shape->type, T_NUM)))
			return true;
		err(v, ins, "cannot make an iota of %s", str(v, ins->shape));
		return false;
	case HLO_CONDITIONAL: {
		const Shape *s = oshape(ins, 0);
		bool two = !hlo_attr_find(ins, A_BRANCH_COMPUTATIONS) || n == 3;
		if (is_scalar(s) &&
		    (s->type == DT_S32 || (two && s->type == DT_PRED)))
			return true;
		err(v, ins, "branch index '%s' is %s, expected %s",
		    ins->ops[0]->name, str(v, s),
		    two ? "pred[] or s32[]" : "s32[]");
		return false;
	}
	default:
		return elem_types[ins->op] == T_ANY ||
		       types_in(v, ins, 0, n, (TyClass)elem_types[ins->op]);
	}
}

/* --- declared against inferred shape ----------------------------------- */

static void check_shape(V *v, const HloInstr *ins)
{
	bool no_rule = false;
	if (!ins->shape) {
		err(v, ins, "has no shape");
		return;
	}
	Shape *s = infer_shape(&v->tmp, ins, full(v) ? NULL : v->d, v->f,
			       &no_rule);
	if (s && !compat(ins->shape, s))
		err_at(v, ins->loc,
		       "declared shape %s of '%s' does not match "
		       "inferred %s",
		       str(v, ins->shape), ins->name, str(v, s));
}

/* --- called computations ----------------------------------------------- */

/* A computation's parameters by number (missing numbers are NULL). */
typedef struct Params {
	int n;
	HloInstr **p;
} Params;

static bool params_of(V *v, const HloComp *c, Params *ps)
{
	ps->n = hlo_comp_param_count(c);
	ps->p = arena_alloc(&v->tmp, sizeof *ps->p * (size_t)(ps->n + 1));
	if (!ps->p)
		return false;
	for (int i = 0; i < c->n; i++) {
		HloInstr *x = c->instrs[i];
		if (x->op == HLO_PARAMETER && x->param_no >= 0 &&
		    x->param_no < ps->n)
			ps->p[x->param_no] = x;
	}
	return true;
}

static const Shape *root_shape(const HloComp *c)
{
	return c && c->root ? c->root->shape : NULL;
}

static bool param_count(V *v, const HloInstr *ins, const char *role,
			const HloComp *c, const Params *ps, int want)
{
	if (ps->n == want)
		return true;
	err(v, ins, "%s '%s' takes %d parameter%s, expected %d", role, c->name,
	    ps->n, ps->n == 1 ? "" : "s", want);
	return false;
}

/* Parameter i of c must be a scalar of a type fp_eq to t. */
static bool scalar_param(V *v, const HloInstr *ins, const char *role,
			 const HloComp *c, const Params *ps, int i, Dtype t)
{
	const HloInstr *p = ps->p[i];
	if (!p || !p->shape ||
	    (is_scalar(p->shape) && fp_eq(p->shape->type, t)))
		return true;
	err(v, ins, "parameter %d of %s '%s' is %s, expected %s[]", i, role,
	    c->name, str(v, p->shape), dtype_name(t));
	return false;
}

/* Parameter i of c must be compatible with shape s. */
static bool shaped_param(V *v, const HloInstr *ins, const char *role,
			 const HloComp *c, const Params *ps, int i,
			 const Shape *s)
{
	const HloInstr *p = ps->p[i];
	if (!p || !p->shape || compat(p->shape, s))
		return true;
	err(v, ins, "parameter %d of %s '%s' is %s, expected %s", i, role,
	    c->name, str(v, p->shape), str(v, s));
	return false;
}

/* XLA's VerifyReducerShape: 2N scalar parameters (accumulators, then
 * inputs), N scalar results (a tuple when N > 1) of the init types. */
static void reducer(V *v, const HloInstr *ins, const char *role,
		    const HloComp *c, int n, int init0, int in0)
{
	Params ps;
	const Shape *rs = root_shape(c);
	if (!c || !params_of(v, c, &ps) ||
	    !param_count(v, ins, role, c, &ps, 2 * n) || !rs)
		return;
	if (n > 1 && (!shape_is_tuple(rs) || rs->ntuple != n)) {
		err(v, ins,
		    "%s '%s' returns %s, expected a tuple of %d scalars", role,
		    c->name, str(v, rs), n);
		return;
	}
	for (int i = 0; i < n; i++) {
		const Shape *acc = n == 1 ? rs : rs->tuple[i];
		const Shape *init = oshape(ins, init0 + i);
		if (!is_scalar(acc)) {
			err(v, ins, "%s '%s' must return scalars, returns %s",
			    role, c->name, str(v, rs));
			return;
		}
		if (!fp_eq(acc->type, init->type)) {
			err(v, ins,
			    "%s '%s' returns %s where the init value "
			    "is %s",
			    role, c->name, str(v, acc), str(v, init));
			return;
		}
		if (!scalar_param(v, ins, role, c, &ps, i, acc->type) ||
		    !scalar_param(v, ins, role, c, &ps, n + i,
				  oshape(ins, in0 + i)->type))
			return;
	}
}

static bool returns_pred(V *v, const HloInstr *ins, const char *role,
			 const HloComp *c)
{
	const Shape *rs = root_shape(c);
	if (!rs || (is_scalar(rs) && rs->type == DT_PRED))
		return true;
	err(v, ins, "%s '%s' returns %s, expected pred[]", role, c->name,
	    str(v, rs));
	return false;
}

static void sig_sort(V *v, const HloInstr *ins)
{
	const HloComp *c = hlo_attr_comp(ins, A_TO_APPLY);
	Params ps;
	if (!c || !params_of(v, c, &ps) ||
	    !param_count(v, ins, "comparator", c, &ps, 2 * ins->nops))
		return;
	for (int i = 0; i < 2 * ins->nops; i++)
		if (!scalar_param(v, ins, "comparator", c, &ps, i,
				  oshape(ins, i / 2)->type))
			return;
	returns_pred(v, ins, "comparator", c);
}

static void sig_map(V *v, const HloInstr *ins)
{
	const HloComp *c = hlo_attr_comp(ins, A_TO_APPLY);
	Params ps;
	if (!c || !params_of(v, c, &ps) ||
	    !param_count(v, ins, "to_apply", c, &ps, ins->nops))
		return;
	for (int i = 0; i < ins->nops; i++)
		if (!scalar_param(v, ins, "to_apply", c, &ps, i,
				  oshape(ins, i)->type))
			return;
}

/* call: one parameter per operand, of its shape. fusion: the same, but
 * XLA lets a fusion pass operands its computation does not use. */
static void sig_call(V *v, const HloInstr *ins, AttrKey k)
{
	const HloComp *c = hlo_attr_comp(ins, k);
	const char *role = hlo_attr_name(k);
	Params ps;
	if (!c || !params_of(v, c, &ps))
		return;
	int want = k == A_CALLS && ps.n < ins->nops ? ps.n : ins->nops;
	if (!param_count(v, ins, role, c, &ps, want))
		return;
	for (int i = 0; i < ps.n; i++)
		if (!shaped_param(v, ins, role, c, &ps, i, oshape(ins, i)))
			return;
}

/* A computation taking exactly one parameter of shape s. */
static bool one_param(V *v, const HloInstr *ins, const char *role,
		      const HloComp *c, const Shape *s)
{
	Params ps;
	return !c || !params_of(v, c, &ps) ||
	       (param_count(v, ins, role, c, &ps, 1) &&
		shaped_param(v, ins, role, c, &ps, 0, s));
}

static void sig_while(V *v, const HloInstr *ins)
{
	const HloComp *cond = hlo_attr_comp(ins, A_CONDITION);
	const HloComp *body = hlo_attr_comp(ins, A_BODY);
	const Shape *x = oshape(ins, 0);
	if (one_param(v, ins, "condition", cond, x) &&
	    returns_pred(v, ins, "condition", cond))
		one_param(v, ins, "body", body, x);
}

static void sig_conditional(V *v, const HloInstr *ins)
{
	const HloAttr *bc = hlo_attr_find(ins, A_BRANCH_COMPUTATIONS);
	HloComp *tf[2] = {hlo_attr_comp(ins, A_TRUE_COMPUTATION),
			  hlo_attr_comp(ins, A_FALSE_COMPUTATION)};
	HloComp *const *br = bc ? bc->u.comps.v : tf;
	int n = bc ? bc->u.comps.n : 2;
	for (int i = 0; i < n && i + 1 < ins->nops; i++)
		if (!one_param(v, ins, "branch", br[i], oshape(ins, i + 1)))
			return;
}

static void sig_select_and_scatter(V *v, const HloInstr *ins)
{
	const HloComp *sel = hlo_attr_comp(ins, A_SELECT);
	Params ps;
	Dtype t = oshape(ins, 0)->type;
	if (sel && params_of(v, sel, &ps) &&
	    param_count(v, ins, "select", sel, &ps, 2) &&
	    scalar_param(v, ins, "select", sel, &ps, 0, t) &&
	    scalar_param(v, ins, "select", sel, &ps, 1, t) &&
	    returns_pred(v, ins, "select", sel))
		reducer(v, ins, "scatter", hlo_attr_comp(ins, A_SCATTER), 1, 2,
			1);
}

static void signatures(V *v, const HloInstr *ins)
{
	int n = ins->nops;
	switch (ins->op) {
	case HLO_REDUCE:
	case HLO_REDUCE_WINDOW:
		reducer(v, ins, "to_apply", hlo_attr_comp(ins, A_TO_APPLY),
			n / 2, n / 2, 0);
		break;
	case HLO_SCATTER:
		reducer(v, ins, "to_apply", hlo_attr_comp(ins, A_TO_APPLY),
			n / 2, 0, n / 2 + 1);
		break;
	case HLO_SELECT_AND_SCATTER:
		sig_select_and_scatter(v, ins);
		break;
	case HLO_SORT:
		sig_sort(v, ins);
		break;
	case HLO_MAP:
		sig_map(v, ins);
		break;
	case HLO_CALL:
		sig_call(v, ins, A_TO_APPLY);
		break;
	case HLO_FUSION:
		sig_call(v, ins, A_CALLS);
		break;
	case HLO_WHILE:
		sig_while(v, ins);
		break;
	case HLO_CONDITIONAL:
		sig_conditional(v, ins);
		break;
	default:
		break;
	}
}

static void calls_entry(V *v, const HloInstr *ins)
{
	for (int i = 0, n = hlo_instr_ncalled(ins); v->m && i < n; i++)
		if (hlo_instr_called_at(ins, i) == v->m->entry) {
			err(v, ins, "calls the entry computation '%s'",
			    v->m->entry->name);
			return;
		}
}

/* --- what an instruction's checks depend on -------------------------- */

/* One word into the hash: for a fixed word each step is a bijection of
 * h, so two sequences that differ in one word always hash apart. */
static uint64_t mix(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x100000001b3u;
	/* rotated (also a bijection): a product's top bits would
	 * otherwise never reach the others, and flips of the top bit of
	 * two words would cancel out */
	return h << 27 | h >> 37;
}

static uint64_t mixp(uint64_t h, const void *p)
{
	return mix(h, (uint64_t)(uintptr_t)p);
}

/* shape_hash, asking only when its cache is empty (most shapes here
 * were hashed before: the call would cost more than the answer). */
static uint64_t shash(const Shape *s)
{
	return s && s->hash_cache ? s->hash_cache : shape_hash(s);
}

/* What a caller's checks read of computation c: whether it is the
 * entry (calls_entry), its root's shape, its parameters' numbers and
 * shapes in order (params_of), and its size; by address (c->vhash: not
 * its own nor its root's, the same in a clone, see instr_sig) and by
 * content (c->vfused, mix_fused's: a fused computation is a copy of
 * what was fused, with shapes of its own; 0 stands for a missing shape,
 * shape_hash is never 0). Kept in c for the rest of this run: nothing
 * changes while the verifier runs, and each fusion calls a computation
 * of its own, which check_comp has walked already (the entry, where
 * passes make fusions, is verified last), so the callers' signatures
 * walk no computation again (a walk of a fused computation was a miss
 * in the cache for each of its instructions). Taken parameter by
 * parameter: comp_start, comp_param for each in c's order, comp_end;
 * kept by comp_keep. */
typedef struct CompAcc {
	uint64_t h, f;
	int np;
} CompAcc;

static CompAcc comp_start(const V *v, const HloComp *c)
{
	uint64_t e = v->m && c == v->m->entry ? 3 : 2;
	const HloInstr *r = c->root;
	return (CompAcc){mix(e, (uint64_t)(uintptr_t)(r ? r->shape : NULL)),
			 mix(mix(mix(0, e), r != NULL),
			     r && r->shape ? shash(r->shape) : 0),
			 0};
}

static inline void comp_param(CompAcc *a, const HloInstr *p)
{
	a->h = mixp(mix(a->h, (uint64_t)p->param_no), p->shape);
	a->f = mix(mix(a->f, (uint64_t)p->param_no),
		   p->shape ? shash(p->shape) : 0);
	a->np++;
}

/* The two hashes, by address and by content (see above). */
typedef struct CompHashes {
	uint64_t vhash, vfused;
} CompHashes;

static CompHashes comp_end(const HloComp *c, const CompAcc *a)
{
	return (CompHashes){mix(a->h, (uint64_t)c->n),
			    mix(a->f, (uint64_t)a->np)};
}

/* Keeps c's hashes h for the rest of run v. */
static void comp_keep(const V *v, HloComp *c, CompHashes h)
{
	c->vhash = h.vhash;
	c->vfused = h.vfused;
	c->vrun = v->run;
}

/* c's hashes: kept in c for this run (comp_keep), else by a walk of its
 * own when check_comp has not walked it yet (a caller before its
 * callee), then kept. Outside a run (v->run 0: verify_inherit,
 * verify_module_digest) taken afresh, c left as it is. */
static CompHashes hashed(const V *v, const HloComp *cc)
{
	HloComp *c = (HloComp *)cc; /* the module verified: not const */
	bool kept = v->run && c->vrun == v->run;
	if (kept && !XR_ASAN)
		return (CompHashes){c->vhash, c->vfused};
	CompAcc a = comp_start(v, c);
	for (int i = 0; i < c->n; i++)
		if (c->instrs[i]->op == HLO_PARAMETER)
			comp_param(&a, c->instrs[i]);
	CompHashes h = comp_end(c, &a);
	/* sanitizer builds: the kept hashes, taken again */
	if (kept && (h.vhash != c->vhash || h.vfused != c->vfused)) {
		fprintf(stderr, "verify: the hashes kept for '%s' moved\n",
			c->name);
		abort();
	}
	if (v->run)
		comp_keep(v, c, h);
	return h;
}

/* c's hash by address (hashed) into h. */
static uint64_t comp_sig(V *v, uint64_t h, const HloComp *c)
{
	return mix(h, hashed(v, c).vhash);
}

/* The keys whose values are computations (what hlo_instr_called_at
 * walks), from the one attribute table. */
static const bool comp_key[A_COUNT] = {
#define ATTR(e, s, k) [e] = (k) == AV_COMP || (k) == AV_COMPS,
#include "attrs.def"
#undef ATTR
};

static bool calls_comps(const HloAttr *a)
{
	return (unsigned)a->key < A_COUNT && comp_key[a->key];
}

/* by calls c: onto check_comp's list of calls. */
static void add_call(V *v, const HloInstr *by, const HloComp *c)
{
	if (v->ncalls == v->cap_calls) {
		int nc = v->cap_calls ? v->cap_calls * 2 : 64;
		struct Call *t = realloc(v->calls, sizeof *t * (size_t)nc);
		if (!t) {
			v->calls_lost = true;
			return;
		}
		v->calls = t;
		v->cap_calls = nc;
	}
	v->calls[v->ncalls++] = (struct Call){by, c};
}

/* instr_sig's part for what ins calls (some attribute's key is one
 * whose value is computations): each called computation (comp_sig).
 * While check_comp lists its instructions (v->listing), each call goes
 * on its list of calls (note_calls reads it instead of ins's
 * attributes). Apart: few instructions call anything. */
static __attribute__((noinline)) uint64_t
sig_calls(V *v, const HloInstr *ins, uint64_t h)
{
	for (int i = 0; i < ins->nattrs; i++) {
		const HloAttr *a = &ins->attrs[i];
		for (int k = 0; calls_comps(a) && k < a->u.comps.n; k++) {
			const HloComp *c = a->u.comps.v[k];
			h = c ? comp_sig(v, h, c) : mix(h, 1);
			if (c && v->listing)
				add_call(v, ins, c);
		}
	}
	return h;
}

/* For each key (taken mod 64), the bits of an attribute's last word
 * that sig_attrs leaves out: for a key whose value is a list of
 * computations all of them (u.comps.v: the list's address, a clone's
 * own), else none. A stray key of 64 or more that lands on such a key
 * loses them too: nothing reads its value (check_instr finds
 * attributes by key). */
static const uint64_t list_word[64] = {
#define ATTR(e, s, k) [e] = (k) == AV_COMP || (k) == AV_COMPS ? ~(uint64_t)0 : 0,
#include "attrs.def"
#undef ATTR
};
_Static_assert(A_COUNT <= 64, "list_word has a slot for each key");
_Static_assert(offsetof(HloAttr, u.comps.v) + 8 == sizeof(HloAttr),
	       "the list of computations is an attribute's last word");

/* instr_sig's part for ins's attributes: their bytes (a value replaced
 * in its slot changes them; values themselves are never changed in
 * place), then each called computation (sig_calls). A list of
 * computations is a clone's own (the values it points to are the
 * clone's computations): not its address, but what sig_calls takes of
 * each. */
static inline __attribute__((always_inline)) uint64_t
sig_attrs(V *v, const HloInstr *ins, uint64_t h)
{
	uint64_t lists = 0; /* nonzero once a key's value is a list */
	const HloAttr *a = ins->attrs, *end = a + ins->nattrs;
	for (; a < end; a++) {
		const unsigned char *ab = (const unsigned char *)a;
		uint64_t drop = list_word[(unsigned)a->key & 63];
		lists |= drop;
#pragma GCC unroll 8
		for (size_t k = 0; k + 8 <= sizeof *a; k += 8) {
			uint64_t w;
			memcpy(&w, ab + k, 8);
			h = mix(h, k + 8 == sizeof *a ? w & ~drop : w);
		}
	}
	return lists ? sig_calls(v, ins, h) : h;
}

/* Everything check_instr reads, as one hash: the instruction's opcode,
 * shape and attributes (their bytes: a value replaced in place changes
 * them; not its literal, which no check reads); whether it is in c, the
 * computation it is listed in (its parent's address only when not);
 * each operand (by id: ids are unique in a module and never given
 * again), its shape and whether it is in the same computation (all
 * operands_present and the cycle walk ask of its computation); each
 * called computation (comp_hash). Shapes and attribute values are not
 * changed once an instruction holds them (a pass makes new ones), and
 * nothing in a module's arena is freed before the module, so equal
 * pointers are equal contents.
 *
 * No address of the module's own graph goes in (operands, parent,
 * called computations, lists of computations): a clone that shares the
 * source's shapes and attribute values (hlo_module_clone) has the same
 * signatures, and takes vsig as it is.
 *
 * On the way (it reads each operand's parent anyway) it asks
 * in_order's question: whether each operand in c comes before its user
 * in c->instrs. The walk gives each instruction the fresh generation
 * passed once its operands are looked at (a mark left by another walk
 * is never equal to it), so an operand with that mark sits at a place
 * before its user's first place and no edge goes back: *ordered is
 * never a wrong "yes". */
static inline __attribute__((always_inline)) uint64_t
instr_sig(V *v, const HloInstr *ins, const HloComp *c, unsigned passed,
	  bool *ordered)
{
	/* opcode and operand count in one word (nothing lost); how many
	 * attributes there are, the words their bytes make tell */
	uint64_t h = (uint64_t)(uint32_t)ins->op << 32 | (uint32_t)ins->nops;
	/* a Shape's address is even: the low bit is free */
	const HloComp *p = ins->parent;
	h = mix(h, (uint64_t)(uintptr_t)ins->shape | (p != c));
	if (p != c)
		h = mixp(h, p);
	if (ins->nattrs)
		h = sig_attrs(v, ins, h);
	bool ok = *ordered;
	/* by index: ops is NULL when there are none */
	for (int i = 0; i < ins->nops; i++) {
		const HloInstr *o = ins->ops[i];
		if (!o) { /* a word no operand's id makes */
			h = mix(h, ~(uint64_t)0);
			continue;
		}
		const HloComp *q = o->parent;
		h = mix(mix(h, (uint64_t)(uint32_t)o->id),
			(uint64_t)(uintptr_t)o->shape | (q != p));
		ok &= q != c || o->mark == passed;
	}
	*ordered = ok;
	/* never 0, "never checked": one word's change still shows in the
	 * other 63 bits */
	return h | 1;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	if (!s)
		return mix(h, 0);
	uint64_t w = 0;
	size_t n = 0;
	for (; *s; s++) {
		w = w << 8 | (unsigned char)*s;
		if (++n % 8 == 0) {
			h = mix(h, w);
			w = 0;
		}
	}
	return mix(mix(h, w), (uint64_t)n + 1);
}

/* mix_str of s on its own, as one word (content_key's word for a string:
 * still the text, not the address). The last one is kept: the strings
 * content_key reads are mostly one (a fusion pass gives every fusion the
 * same kind text), and nothing changes or is freed while the verifier
 * runs, so within a run the same address is the same text. */
static uint64_t str_word(V *v, const char *s)
{
	if (!s || s != v->str_last) {
		v->str_last = s;
		v->str_last_hash = mix_str(0x5354, s);
	}
	return v->str_last_hash;
}

static uint64_t mix_ints(uint64_t h, int n, const int64_t *v)
{
	h = mix(h, (uint64_t)n);
	for (int i = 0; i < n; i++)
		h = mix(h, (uint64_t)v[i]);
	return h;
}

/* A fusion's computation as check_instr reads it (sig_call, r_fusion,
 * calls_entry): its hash by content (hashed). */
static uint64_t mix_fused(const V *v, uint64_t h, const HloComp *c)
{
	return c ? mix(h, hashed(v, c).vfused) : mix(h, 1);
}

/* ins's attributes as check_instr reads them: each typed one by its
 * value (computations by address, but a fusion's by mix_fused), in
 * order. Untyped ones (metadata, sharding, frontend attributes...) it
 * never reads. */
static uint64_t mix_attr_values(V *v, uint64_t h, const HloInstr *ins)
{
	for (int i = 0; i < ins->nattrs; i++) {
		const HloAttr *a = &ins->attrs[i];
		if (a->key == A_RAW)
			continue;
		h = mix(h, (uint64_t)a->key + 0x2000);
		uint64_t w;
		switch (hlo_attr_kind(a->key)) {
		case AV_INT:
			h = mix(h, (uint64_t)a->u.i);
			break;
		case AV_BOOL:
			h = mix(h, a->u.b);
			break;
		case AV_FLOAT:
			memcpy(&w, &a->u.f, sizeof w);
			h = mix(h, w);
			break;
		case AV_INTS:
			h = mix_ints(h, a->u.ints.n, a->u.ints.v);
			break;
		case AV_ENUM:
		case AV_STRING:
			h = mix(h, str_word(v, a->u.s));
			break;
		case AV_COMP:
		case AV_COMPS:
			h = mix(h, (uint64_t)a->u.comps.n);
			for (int k = 0; k < a->u.comps.n; k++)
				h = ins->op == HLO_FUSION && a->key == A_CALLS
					    ? mix_fused(v, h, a->u.comps.v[k])
					    : mixp(h, a->u.comps.v[k]);
			break;
		case AV_SLICE:
			h = mix(h, (uint64_t)a->u.slice.n);
			for (int k = 0; k < a->u.slice.n; k++) {
				const SliceDim *d = &a->u.slice.v[k];
				h = mix(mix(mix(h, (uint64_t)d->start),
					    (uint64_t)d->limit),
					(uint64_t)d->stride);
			}
			break;
		case AV_PADDING:
			h = mix(h, (uint64_t)a->u.pad.n);
			for (int k = 0; k < a->u.pad.n; k++) {
				const PadDim *d = &a->u.pad.v[k];
				h = mix(mix(mix(h, (uint64_t)d->lo),
					    (uint64_t)d->hi),
					(uint64_t)d->interior);
			}
			break;
		case AV_WINDOW:
			h = mix(h, (uint64_t)a->u.window.n);
			for (int k = 0; k < a->u.window.n; k++) {
				const WindowDim *d = &a->u.window.v[k];
				int64_t f[] = {d->size,	      d->stride,
					       d->pad_lo,     d->pad_hi,
					       d->lhs_dilate, d->rhs_dilate,
					       d->reversal};
				h = mix_ints(h, 7, f);
			}
			break;
		default: /* dim_labels (rare): by address */
			h = mixp(h, a->u.conv);
			break;
		}
	}
	return h;
}

/* What check_instr's verdict on ins depends on apart from where ins and
 * its operands are (operands_present checks that): opcode, shape, typed
 * attributes and each operand's shape, by content; called computations
 * by address (they do not change while the verifier runs), a fusion's
 * by what its checks read of it (mix_fused); not async_wrapped, which no
 * check reads. 0 for a constant (one with a literal: only constants
 * have one; asked by opcode, which lies in what the signature walk has
 * just read, the literal does not) or a malformed one. A copy of an
 * instruction that passed, over operands of the same shapes, passes:
 * the incremental verifier checks a
 * pass's new and changed instructions once per kind (a fusion pass
 * copies the same few ops into thousands of fused computations, and
 * makes thousands of fusions that differ only in which of those they
 * call; the users of what it fused read new operands). 0 too when an
 * operand is missing, has no shape or is in another computation: a
 * nonzero key says operands_present would pass as well. */
static uint64_t content_key(V *v, const HloInstr *ins)
{
	if (ins->op == HLO_CONSTANT || !ins->shape || ins->op <= HLO_INVALID ||
	    ins->op >= HLO_OPCODE_COUNT)
		return 0;
	uint64_t h = mix((uint64_t)(uint32_t)ins->op << 32,
			 (uint64_t)(uint32_t)ins->nops);
	h = mix(h, shash(ins->shape));
	h = mix_attr_values(v, h, ins);
	for (int i = 0; i < ins->nops; i++) {
		const HloInstr *o = ins->ops[i];
		if (!o || !o->shape || o->parent != ins->parent)
			return 0;
		h = mix(h, shash(o->shape));
	}
	return h ? h : 1;
}

/* The slot to start at: a key is mix's result (or 1), whose low bits
 * are a product's top bits, rotated down (mix): they hang on every bit
 * of the inputs already. Only where to start looking: any slot would
 * give the same answers. */
static int seen_slot(uint64_t k, int cap)
{
	return (int)(k & (uint64_t)(cap - 1));
}

static bool seen_has(const V *v, uint64_t k)
{
	if (!v->cap_seen)
		return false;
	unsigned mask = (unsigned)v->cap_seen - 1;
	for (unsigned i = (unsigned)seen_slot(k, v->cap_seen); v->seen[i];
	     i = (i + 1) & mask)
		if (v->seen[i] == k)
			return true;
	return false;
}

static void seen_add(V *v, uint64_t k)
{
	if ((v->nseen + 1) * 2 > v->cap_seen) {
		int nc = v->cap_seen ? v->cap_seen * 2 : 256;
		uint64_t *t = calloc((size_t)nc, sizeof *t);
		if (!t)
			return; /* only a cache */
		for (int i = 0; i < v->cap_seen; i++) {
			uint64_t x = v->seen[i];
			int j = x ? seen_slot(x, nc) : 0;
			while (x && t[j])
				j = (j + 1) & (nc - 1);
			if (x)
				t[j] = x;
		}
		free(v->seen);
		v->seen = t;
		v->cap_seen = nc;
	}
	int i = seen_slot(k, v->cap_seen);
	while (v->seen[i])
		i = (i + 1) & (v->cap_seen - 1);
	v->seen[i] = k;
	v->nseen++;
}

static void check_instr(V *v, const HloInstr *ins)
{
	if (ins->op <= HLO_INVALID || ins->op >= HLO_OPCODE_COUNT) {
		err_at(v, ins->loc, "'%s' has no valid opcode", ins->name);
		return;
	}
	if (!operands_present(v, ins) || !arity_ok(v, ins) ||
	    !attrs_ok(v, ins) || !types_ok(v, ins))
		return;
	calls_entry(v, ins);
	int before = v->d->errors;
	signatures(v, ins);
	if (v->d->errors == before)
		check_shape(v, ins);
}

/* --- computations ------------------------------------------------------ */

static void check_root(V *v, const HloComp *c)
{
	if (!c->root)
		err_at(v, c->loc, "computation '%s' has no root instruction",
		       c->name);
	else if (c->root->parent != c)
		err_at(v, c->loc,
		       "root '%s' of computation '%s' belongs to "
		       "another computation",
		       c->root->name, c->name);
}

/* The first parameter before xs[i] numbered no. */
static const HloInstr *param_numbered(HloInstr *const *xs, int i, int64_t no)
{
	for (int j = 0; j < i; j++)
		if (xs[j]->op == HLO_PARAMETER && xs[j]->param_no == no)
			return xs[j];
	return NULL;
}

/* The parameters among xs[0..nx-1] (c's instructions, or just its
 * parameters, in order) are numbered 0..n-1 once each, where n is how
 * many c has. The numbers seen so far as bits when they fit in a word
 * (a fused computation has a few parameters, and there are thousands
 * of those); else a table of the first parameter of each number. */
static void check_params(V *v, const HloComp *c, HloInstr *const *xs, int nx,
			 int n)
{
	uint64_t bits = 0;
	HloInstr **seen =
		n <= 64 ? NULL
			: arena_alloc(&v->tmp, sizeof *seen * (size_t)(n + 1));
	if (n > 64 && !seen)
		return;
	for (int i = 0; i < nx; i++) {
		HloInstr *p = xs[i];
		if (p->op != HLO_PARAMETER)
			continue;
		int64_t no = p->param_no;
		if ((no < 0 || no >= n) && n == 1)
			err(v, p,
			    "parameter number %lld is out of range: the only "
			    "parameter of computation '%s' is number 0",
			    (long long)no, c->name);
		else if (no < 0 || no >= n)
			err(v, p,
			    "parameter number %lld is out of range: the %d "
			    "parameters of computation '%s' (this one "
			    "included) are numbered 0 to %d",
			    (long long)no, n, c->name, n - 1);
		else if (seen ? seen[no] != NULL : (bits >> no & 1) != 0)
			err(v, p,
			    "parameter number %lld is already used by '%s'",
			    (long long)no,
			    seen ? seen[no]->name
				 : param_numbered(xs, i, no)->name);
		else if (seen)
			seen[no] = p;
		else
			bits |= (uint64_t)1 << no;
	}
}

/* Whether check_params(v, c, ps, np, np) would find nothing to say:
 * the np parameters ps are numbered 0..np-1 once each. Its question,
 * without its cost for the many computations whose parameters are in
 * place (a fused computation's: thousands of them); never a wrong
 * "yes". */
static bool params_in_place(HloInstr *const *ps, int np)
{
	if (np > 64)
		return false;
	uint64_t seen = 0;
	for (int i = 0; i < np; i++) {
		uint64_t no = (uint64_t)ps[i]->param_no; /* <0: out of range */
		if (no >= (uint64_t)np || (seen >> no & 1))
			return false;
		seen |= (uint64_t)1 << no;
	}
	return true;
}

/* Reports the cycle closed by an edge to stack[from] (the DFS stack runs
 * from users to operands). */
static void report_cycle(V *v, HloInstr **stack, int from, int top)
{
	StrBuf b;
	sb_init(&b);
	for (int i = from; i <= top && i < from + MAX_PATH; i++)
		sb_printf(&b, "%s -> ", stack[i]->name);
	if (top >= from + MAX_PATH)
		sb_puts(&b, "... -> ");
	sb_puts(&b, stack[from]->name);
	err_at(v, stack[from]->loc, "instruction '%s' depends on itself: %s",
	       stack[from]->name, sb_str(&b));
	sb_free(&b);
}

/* A fresh array for 2n entries of e bytes in place of old (whose
 * contents go), or NULL when out of memory. */
static void *fresh_array(void *old, size_t e, int n)
{
	free(old);
	return malloc(e * (size_t)n * 2);
}

/* A fusion's computation is its own: XLA gives every fusion instruction
 * a computation that nothing else calls (a pass that changes the fused
 * computation changes that one fusion). ins calls what it calls; an
 * earlier caller of the same computation, either of the two a fusion,
 * is an error, reported once per computation. This for one computation
 * k that ins calls; false when the table is full (then the rest of ins's
 * calls go unchecked too). */
static inline __attribute__((always_inline)) bool
note_caller(V *v, const HloInstr *ins, const HloComp *k)
{
	unsigned mask = (unsigned)v->cap_callers - 1;
	unsigned h = (unsigned)(((uintptr_t)k >> 4) * 0x9e3779b1u);
	struct Caller *s = &v->callers[h & mask];
	/* full only when instructions call computations that are not in
	 * the module (then no slot is free: no check) */
	for (int probes = 1; s->c && s->c != k; probes++) {
		if (probes == v->cap_callers)
			return false;
		h++;
		s = &v->callers[h & mask];
	}
	if (!s->by) {
		/* k is in the module's name table under its name: noted
		 * already when named_all, else looked up */
		bool named = v->named_all ? s->c != NULL
					  : !v->m ||
						  hlo_module_find_comp(
							  v->m, k->name) == k;
#if XR_ASAN
		if (v->named_all &&
		    named != (hlo_module_find_comp(v->m, k->name) == k)) {
			fprintf(stderr, "note_named and hlo_module_find_comp "
					"disagree on '%s'\n",
				k->name);
			abort();
		}
#endif
		s->c = k;
		s->by = (uintptr_t)ins;
		/* what a pass left calling a computation it took out (or one
		 * of another module) */
		if (!named) {
			s->by |= 1;
			err(v, ins,
			    "calls computation '%s', which is not in the "
			    "module",
			    k->name);
		}
		return true;
	}
	const HloInstr *by = (const HloInstr *)(s->by & ~(uintptr_t)1);
	if (by == ins || (s->by & 1) ||
	    (ins->op != HLO_FUSION && by->op != HLO_FUSION))
		return true;
	s->by |= 1;
	if (by->op == HLO_FUSION)
		err(v, ins,
		    "calls computation '%s', the body of fusion '%s' "
		    "(a fused computation belongs to its one fusion)",
		    k->name, by->name);
	else
		err(v, ins,
		    "its computation '%s' is also called by %s '%s' "
		    "(a fused computation belongs to its one fusion)",
		    k->name, hlo_opcode_name(by->op), by->name);
	return true;
}

/* Puts each computation that m's name table holds under its own name
 * into the callers table (no caller yet): what hlo_module_find_comp
 * would find for it. One walk over the table instead of a lookup (a
 * hash of the name) per called computation, for modules of many (a
 * fused computation each). False, nothing noted, when the table could
 * fill up with them. */
static bool note_named(V *v, const HloModule *m)
{
	const NameMap *nm = &m->comp_names;
	if (!v->cap_callers || nm->count * 2 > (size_t)v->cap_callers)
		return false;
	unsigned mask = (unsigned)v->cap_callers - 1;
	for (size_t i = 0; i < nm->cap; i++) {
		const NameMapSlot *e = &nm->slots[i];
		const HloComp *c = e->val; /* NULL: empty or deleted */
		if (!c || !c->name ||
		    (e->key != c->name && strcmp(e->key, c->name) != 0))
			continue;
		unsigned h = (unsigned)(((uintptr_t)c >> 4) * 0x9e3779b1u);
		while (v->callers[h & mask].c && v->callers[h & mask].c != c)
			h++;
		v->callers[h & mask].c = c;
	}
	return true;
}

/* What ins calls, in hlo_instr_called_at's order. */
static void note_callers(V *v, const HloInstr *ins)
{
	for (int i = 0; i < ins->nattrs && v->cap_callers; i++) {
		const HloAttr *a = &ins->attrs[i];
		for (int j = 0; calls_comps(a) && j < a->u.comps.n; j++)
			if (a->u.comps.v[j] &&
			    !note_caller(v, ins, a->u.comps.v[j]))
				return;
	}
}

/* note_callers for each instruction of c, from the list of calls the
 * signature walk made (the same calls in the same order), or from the
 * instructions when the list is not whole. */
static void note_calls(V *v, const HloComp *c)
{
	if (v->calls_lost) {
		for (int i = 0; i < c->n; i++)
			note_callers(v, c->instrs[i]);
		return;
	}
	const struct Call *cs = v->calls;
	for (int i = 0; i < v->ncalls && v->cap_callers; i++)
		if (!note_caller(v, cs[i].by, cs[i].c)) /* the rest of by's
							   calls go too */
			while (i + 1 < v->ncalls && cs[i + 1].by == cs[i].by)
				i++;
}

/* Iterative DFS over operands with three colours: unmarked (white),
 * grey (on the stack) and black (done). One cycle per computation is
 * reported. */
static void check_cycles(V *v, HloModule *m, HloComp *c)
{
	if (!m || c->n == 0)
		return;
	for (int i = 0; i < c->n; i++) /* marks may hold other walks' data */
		c->instrs[i]->mark = 0;
	unsigned grey = hlo_new_mark(m), black = hlo_new_mark(m);
	if (c->n > v->cap) {
		v->stack = fresh_array(v->stack, sizeof *v->stack, c->n);
		v->next = fresh_array(v->next, sizeof *v->next, c->n);
		v->cap = v->stack && v->next ? c->n * 2 : 0;
	}
	HloInstr **stack = v->stack;
	int *next = v->next;
	for (int s = 0; stack && next && s < c->n; s++) {
		if (c->instrs[s]->mark == grey || c->instrs[s]->mark == black)
			continue;
		int top = 0;
		stack[0] = c->instrs[s];
		next[0] = 0;
		stack[0]->mark = grey;
		while (top >= 0) {
			HloInstr *x = stack[top];
			if (next[top] == x->nops) {
				x->mark = black;
				top--;
				continue;
			}
			HloInstr *o = x->ops[next[top]++];
			if (!o || o->parent != c || o->mark == black)
				continue;
			if (o->mark == grey) {
				int from = top;
				while (stack[from] != o)
					from--;
				report_cycle(v, stack, from, top);
				goto out;
			}
			o->mark = grey;
			stack[++top] = o;
			next[top] = 0;
		}
	}
out:;
}

/* --- control edges ------------------------------------------------------ */

static int by_first(const void *a, const void *b)
{
	const int *x = a, *y = b;
	return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0])
			    : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The control edges of a computation being checked: (predecessor,
 * successor) positions, and whether a list had a bad name. */
typedef struct CtrlEdges {
	V *v;
	int (*e)[2];
	int n, cap;
	bool oom;
} CtrlEdges;

/* One name of x's list: an instruction of x's computation other than
 * x, kept as an edge; else an error. */
static void ctrl_name(CtrlEdges *ce, const HloInstr *x, const char *name)
{
	const HloInstr *y = namemap_get(&x->parent->names, name);
	if (!y) {
		err(ce->v, x,
		    "control-predecessors names '%s', which is not an "
		    "instruction of computation '%s'",
		    name, x->parent->name);
		return;
	}
	if (y == x) {
		err(ce->v, x, "control-predecessors names the instruction itself");
		return;
	}
	if (ce->n == ce->cap) {
		int cap = ce->cap ? ce->cap * 2 : 16;
		void *more = realloc(ce->e, sizeof *ce->e * (size_t)cap);
		if (!more) {
			ce->oom = true;
			return;
		}
		ce->e = more;
		ce->cap = cap;
	}
	ce->e[ce->n][0] = (int)y->mark;
	ce->e[ce->n++][1] = (int)x->mark;
}

/* Each name of x's control-predecessors={a, %b} through ctrl_name; how
 * many there are, -1 when x has no such list. */
static int ctrl_names(CtrlEdges *ce, const HloInstr *x)
{
	const HloAttr *a = hlo_attr_find_raw(x, "control-predecessors");
	if (!a || !a->u.s)
		return -1;
	int n = 0;
	for (const char *p = a->u.s; *p && !ce->oom;) {
		while (*p == '{' || *p == '}' || *p == ',' || *p == ' ' ||
		       *p == '\t' || *p == '\n' || *p == '%')
			p++;
		size_t k = strcspn(p, "{}, \t\n%");
		if (!k)
			break;
		char small[256], *name = k < sizeof small ? small : malloc(k + 1);
		if (!name) {
			ce->oom = true;
			break;
		}
		memcpy(name, p, k);
		name[k] = 0;
		ctrl_name(ce, x, name);
		if (name != small)
			free(name);
		n++;
		p += k;
	}
	return n;
}

/* Each name of a control-predecessors list is an instruction of the same
 * computation other than the instruction itself, and the edges with the
 * operands make no cycle, as XLA's parser has it (such a list was kept
 * as text and saved for XLA to refuse). */
static void check_control(V *v, HloComp *c)
{
	CtrlEdges ce = {.v = v};
	int with = 0, before = v->d->errors;
	for (int i = 0; i < c->n; i++) /* positions, for the edges */
		c->instrs[i]->mark = (unsigned)i;
	for (int i = 0; i < c->n && !ce.oom; i++) {
		const HloInstr *x = c->instrs[i];
		int n = ctrl_names(&ce, x);
		with += n >= 0;
		if (n == 0)
			err(v, x, "control-predecessors lists no instruction");
	}
	int *indeg = NULL, *order = NULL;
	if (!with || ce.oom || full(v) || v->d->errors > before)
		goto out;
	/* A cycle through the edges: Kahn's order over operands and control
	 * predecessors, the control edges grouped by their predecessor. */
	indeg = calloc((size_t)c->n + 1, sizeof *indeg);
	order = malloc(sizeof *order * ((size_t)c->n + 1));
	if (!indeg || !order)
		goto out;
	for (int i = 0; i < c->n; i++) {
		const HloInstr *x = c->instrs[i];
		for (int k = 0; k < x->nops; k++)
			indeg[i] += x->ops[k] && x->ops[k]->parent == c;
	}
	for (int k = 0; k < ce.n; k++)
		indeg[ce.e[k][1]]++;
	if (ce.n > 1)
		qsort(ce.e, (size_t)ce.n, sizeof *ce.e, by_first);
	int head = 0, tail = 0;
	for (int i = 0; i < c->n; i++)
		if (!indeg[i])
			order[tail++] = i;
	while (head < tail) {
		int xi = order[head++];
		const HloInstr *x = c->instrs[xi];
		for (int u = 0; u < x->nusers; u++) {
			const HloInstr *y = x->users[u];
			if (y->parent != c)
				continue;
			for (int k = 0; k < y->nops; k++)
				if (y->ops[k] == x && !--indeg[y->mark])
					order[tail++] = (int)y->mark;
		}
		int lo = 0, hi = ce.n; /* the first edge from xi */
		while (lo < hi) {
			int mid = (lo + hi) / 2;
			if (ce.e[mid][0] < xi)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int k = lo; k < ce.n && ce.e[k][0] == xi; k++)
			if (!--indeg[ce.e[k][1]])
				order[tail++] = ce.e[k][1];
	}
	if (tail < c->n)
		for (int i = 0; i < c->n; i++)
			if (indeg[i]) {
				err(v, c->instrs[i],
				    "control-predecessors make a cycle "
				    "through it");
				break;
			}
out:
	for (int i = 0; i < c->n; i++)
		c->instrs[i]->mark = 0;
	free(ce.e);
	free(indeg);
	free(order);
}

/* Sanitizer builds: instr_sig's question over again, on its own walk.
 * Whether each operand in c comes before its user in c->instrs: then
 * c has no cycle, and check_cycles' walk would find none. One walk: an
 * instruction is marked with a fresh generation once it is passed (a
 * mark left by another walk is never equal to it), so an operand with
 * that mark sits at a place before its user's first place, and no edge
 * goes back: the answer is never a wrong "yes". Marks end cleared. m
 * is the module verified (its generations). */
#if XR_ASAN
static bool in_order(HloModule *m, HloComp *c)
{
	if (!m) /* no cycle walk either (check_cycles) */
		return true;
	HloInstr **xs = c->instrs;
	int n = c->n;
	bool ok = true;
	unsigned passed = hlo_new_mark(m);
	for (int i = 0; ok && i < n; i++) {
		HloInstr *x = xs[i];
		/* by index: ops is NULL when there are none */
		for (int k = 0; k < x->nops; k++) {
			const HloInstr *o = x->ops[k];
			if (o && o->parent == c && o->mark != passed) {
				ok = false;
				break;
			}
		}
		x->mark = passed;
	}
	for (int i = 0; i < n; i++)
		xs[i]->mark = 0;
	return ok;
}
#endif

/* Room for check_comp's lists of n instructions; false when out of
 * memory. */
static bool room(V *v, int n)
{
	if (n <= v->cap_todo)
		return true;
	v->todo = fresh_array(v->todo, sizeof *v->todo, n);
	v->params = fresh_array(v->params, sizeof *v->params, n);
	v->keys = fresh_array(v->keys, sizeof *v->keys, n);
	bool ok = v->todo && v->params && v->keys;
	v->cap_todo = ok ? n * 2 : 0;
	return ok;
}

/* check_comp's list of what to check (v->todo, k of them), taken from
 * c's instructions: all, or those whose signature moved since they last
 * passed; each gets its signature in vsig (check_listed clears it again
 * if they fail). Each signature is taken once: the checks change
 * nothing it reads. A changed one's content key (v->keys) is taken
 * here too, while the instruction, its operands and what it calls are
 * in the cache from its signature (check_listed would read them all
 * again from memory, computations later: most are not checked, their
 * keys known). The same walk lists the
 * parameters (*np) and the calls (v->calls, v->ncalls), gives each
 * instruction the mark passed and answers in_order's question
 * (*ordered). The verifier's inner loop: apart from the checks, and
 * made twice (all, or not) so that the loop asks nothing else. */
static inline __attribute__((always_inline)) int
list_in(V *v, HloComp *c, unsigned passed, bool *ordered, int *np,
	bool all)
{
	HloInstr **todo = v->todo, **params = v->params;
	int k = 0, nparams = 0;
	bool ok = true;
	v->ncalls = 0;
	v->calls_lost = false;
	v->listing = true;
	/* The entry's instructions go to each in runs of at most EACH_RUN
	 * (what the cost model's walk reads of them asked ahead too): those
	 * that passed before as they are (their signature holds), when
	 * nothing else has failed in this run (the entry comes last: its
	 * fusions' computations passed). The new or changed ones go after
	 * their checks (check_comp). */
	enum { EACH_RUN = 64 };
	VerifyEach each = v->m && c == v->m->entry && v->d->errors == v->start
				  ? v->each
				  : NULL;
	int from = 0; /* the run each has not had yet: from .. i */
	for (int i = 0; i < c->n; i++) {
		HloInstr *x = c->instrs[i];
		/* the instructions ahead, asked from memory while this one is
		 * hashed (an entry computation's do not stay in the caches) */
		if (i + 8 < c->n)
			__builtin_prefetch(c->instrs[i + 8]);
		if (i + 4 < c->n) {
			const HloInstr *y = c->instrs[i + 4];
			__builtin_prefetch(y->ops);
			__builtin_prefetch(y->attrs);
			if (each)
				__builtin_prefetch(&y->cost_sig);
		}
		uint64_t s = instr_sig(v, x, c, passed, &ok);
		x->mark = passed;
		if (x->op == HLO_PARAMETER)
			params[nparams++] = x;
		bool listed = all || x->vsig != s;
		if (listed) {
			if (!all)
				v->keys[k] = content_key(v, x);
			todo[k++] = x;
			x->vsig = s;
		}
		if (each &&
		    (listed || i + 1 - from == EACH_RUN || i + 1 == c->n)) {
			int end = listed ? i : i + 1;
			if (end > from)
				each(v->each_ctx, c->instrs + from, end - from);
			from = i + 1;
		}
	}
	v->listed_each = each != NULL;
	v->listing = false;
	*ordered = ok;
	*np = nparams;
	return k;
}

static __attribute__((noinline)) int list_changed(V *v, HloComp *c,
						  unsigned passed,
						  bool *ordered, int *np)
{
	return v->changed_only ? list_in(v, c, passed, ordered, np, false)
			       : list_in(v, c, passed, ordered, np, true);
}

/* The instruction checks on what list_changed listed (k of them): an
 * instruction that fails them, or is not checked (too many errors),
 * keeps no signature. comp_ok: their computation passed its own checks
 * (a cycle or a bad control edge fails the computation, not one
 * instruction: then none keeps its signature, or the next run would
 * find nothing changed and skip these walks). */
static __attribute__((noinline)) void check_listed(V *v, int k, bool comp_ok)
{
	HloInstr **todo = v->todo;
	int i = 0;
	for (bool stop = full(v); i < k && !stop; i++) {
		HloInstr *x = todo[i];
		uint64_t key = v->changed_only ? v->keys[i] : 0;
#if XR_ASAN
		if (key != (v->changed_only ? content_key(v, x) : 0)) {
			fprintf(stderr, "verify: the content key of '%s' "
					"moved after list_changed took it\n",
				x->name);
			abort();
		}
#endif
		/* known: the same checks passed already, and the key says
		 * the operands are there (operands_present) */
		if (key && (key == v->seen_last || seen_has(v, key))) {
			v->seen_last = key;
			continue;
		}
		int before = v->d->errors;
		check_instr(v, x);
		if (v->d->errors != before)
			x->vsig = 0;
		else if (key)
			seen_add(v, v->seen_last = key);
		stop = full(v);
		/* inferred shapes and messages: not kept past their check */
		if (v->tmp.used_total > ((size_t)1 << 20))
			arena_reset(&v->tmp);
	}
	for (i = comp_ok ? i : 0; i < k; i++)
		todo[i]->vsig = 0;
}

static void check_comp(V *v, HloModule *m, HloComp *c)
{
	check_root(v, c);
	if (!room(v, c->n)) {
		check_params(v, c, c->instrs, c->n, hlo_comp_param_count(c));
		err_at(v, c->loc, "out of memory verifying '%s'", c->name);
		v->oom = true;
		return;
	}
	/* Which instructions to check: all, or those whose signature
	 * moved (a cycle needs a changed operand, so a computation without
	 * one keeps its acyclic verdict). The parameters and the callers
	 * are checked after the walk in the order the errors have always
	 * come in: the parameters', then the callers'. */
	int np;
	bool ordered;
	int k = list_changed(v, c, hlo_new_mark(m), &ordered, &np);
	if (c->vrun != v->run) { /* for its callers still to come */
		CompAcc a = comp_start(v, c);
		for (int i = 0; i < np; i++)
			comp_param(&a, v->params[i]);
		comp_keep(v, c, comp_end(c, &a));
	}
	/* sanitizer builds check always, and stop if params_in_place
	 * passed what check_params reports */
	bool in_place = params_in_place(v->params, np);
	int quiet = v->d->errors;
	if (!in_place || XR_ASAN)
		check_params(v, c, v->params, np, np);
	if (XR_ASAN && in_place && v->d->errors != quiet) {
		fprintf(stderr, "verify: params_in_place passed the "
				"parameters of '%s'\n",
			c->name);
		abort();
	}
	note_calls(v, c);
	v->checked += k;
	int whole = v->d->errors;
#if XR_ASAN
	if (ordered != in_order(m, c)) {
		fprintf(stderr, "verify: the signature walk and in_order "
				"disagree on '%s'\n",
			c->name);
		abort();
	}
#endif
	if (k && !ordered)
		check_cycles(v, m, c);
	if (k && m && m->control_preds)
		check_control(v, c);
	check_listed(v, k, v->d->errors == whole);
	/* the rest of the entry for each: what list_in listed, now checked */
	if (v->listed_each && v->d->errors == v->start)
		v->each(v->each_ctx, v->todo, k);
	v->listed_each = false;
}

static void check_entry(V *v, const HloModule *m)
{
	const HloComp *first = NULL;
	for (int i = 0; i < m->ncomps; i++) {
		const HloComp *c = m->comps[i];
		if (!c->is_entry)
			continue;
		if (first)
			err_at(v, c->loc,
			       "computation '%s' is a second ENTRY "
			       "(the first is '%s')",
			       c->name, first->name);
		first = first ? first : c;
	}
	if (!m->entry)
		err_at(v, (SrcLoc){0, 0},
		       "module '%s' has no entry computation",
		       m->name ? m->name : "");
}

/* verify's run, its computations in m's order, or with entry_last the
 * entry after all the others. */
static bool verify_in(HloModule *m, Diag *d, const SrcFile *f,
		      bool changed_only, bool entry_last, int *checked,
		      bool *oom, VerifyEach each, void *ctx)
{
	/* a number no computation holds from an earlier run */
	static unsigned runs;
	if (++runs == 0)
		runs = 1;
	V v = {.d = d,
	       .f = f,
	       .m = m,
	       .start = d->errors,
	       .changed_only = changed_only,
	       .run = runs,
	       .each = each,
	       .each_ctx = ctx};
	arena_init(&v.tmp);
	int cap = 16;
	while (cap < 2 * m->ncomps)
		cap *= 2;
	v.callers = calloc((size_t)cap, sizeof *v.callers);
	v.cap_callers = v.callers ? cap : 0;
	v.named_all = m->ncomps >= 64 && note_named(&v, m);
	check_entry(&v, m);
	for (int i = 0; i < m->ncomps && !full(&v); i++)
		if (!entry_last || m->comps[i] != m->entry)
			check_comp(&v, m, m->comps[i]);
	for (int i = 0; entry_last && i < m->ncomps && !full(&v); i++)
		if (m->comps[i] == m->entry)
			check_comp(&v, m, m->comps[i]);
	if (full(&v))
		diag_report(d, DIAG_NOTE, f, (SrcLoc){0, 0},
			    "too many errors; stopped after %d", MAX_ERRORS);
	arena_free(&v.tmp);
	free(v.stack);
	free(v.next);
	free(v.seen);
	free(v.todo);
	free(v.keys);
	free(v.params);
	free(v.calls);
	free(v.callers);
	if (checked)
		*checked = v.checked;
	if (oom)
		*oom = v.oom;
	return d->errors == v.start;
}

/* A pass appends what it makes (fused computations) after the entry,
 * which then asks their hashes before their own walks have taken them
 * (hashed walks each again): a module that passes is verified with the
 * entry last, as HLO text has it. One that fails is verified again in
 * its own order, so that the errors come as they always have (in the
 * order of the text, the first MAX_ERRORS of them): the first run's
 * errors are dropped, and what it left (signatures of instructions
 * that passed) leaves the second the same checks to make. */
static bool verify(HloModule *m, Diag *d, const SrcFile *f, bool changed_only,
		   int *checked, bool *oom, VerifyEach each, void *ctx)
{
	bool entry_last = false;
	for (int i = 0; i + 1 < m->ncomps && !entry_last; i++)
		entry_last = m->comps[i] == m->entry;
	/* (each only where the entry comes last: see list_in) */
	if (entry_last) {
		Diag quiet;
		diag_init(&quiet);
		bool ok = verify_in(m, &quiet, f, changed_only, true, checked,
				    oom, each, ctx);
		diag_free(&quiet);
		if (ok)
			return true;
		each = NULL; /* the module fails: no caller reads on */
	}
	return verify_in(m, d, f, changed_only, false, checked, oom, each, ctx);
}

bool verify_module(HloModule *m, Diag *d, const SrcFile *f)
{
	return verify(m, d, f, false, NULL, NULL, NULL, NULL);
}

bool verify_module_oom(HloModule *m, Diag *d, const SrcFile *f, bool *oom)
{
	return verify(m, d, f, false, NULL, oom, NULL, NULL);
}

/* Sanitizer builds (the tests under ASan, the fuzzers) run the whole
 * verifier after every incremental one that passes and stop at once if
 * it does not: an instruction changed behind the signature's back. */
bool verify_module_changed(HloModule *m, Diag *d, const SrcFile *f,
			   int *checked)
{
	return verify_module_changed_each(m, d, f, checked, NULL, NULL);
}

bool verify_module_changed_each(HloModule *m, Diag *d, const SrcFile *f,
				int *checked, VerifyEach each, void *ctx)
{
	bool ok = verify(m, d, f, true, checked, NULL, each, ctx);
#if XR_ASAN
	if (ok) {
		Diag full_d;
		diag_init(&full_d);
		bool oom = false;
		/* (the check itself may run out of memory: no verdict) */
		if (!verify_module_oom(m, &full_d, f, &oom) && !oom) {
			fprintf(stderr,
				"verify_module_changed passed a module that "
				"verify_module rejects:\n%s",
				diag_text(&full_d));
			abort();
		}
		diag_free(&full_d);
	}
#endif
	return ok;
}

/* Whether dst's instructions hold src's shapes (hlo_module_clone shared
 * them), asked of the first instruction with a shape. */
static bool shares_shapes(const HloModule *dst, const HloModule *src)
{
	for (int i = 0; i < src->ncomps; i++) {
		const HloComp *cs = src->comps[i], *cd = dst->comps[i];
		for (int k = 0; k < cs->n && k < cd->n; k++)
			if (cs->instrs[k]->shape)
				return cd->instrs[k]->shape == cs->instrs[k]->shape;
	}
	return false;
}

/* A clone that shares src's shapes and attribute values took each vsig
 * as it was (the signatures are the same: instr_sig); one that
 * copied them gets them here, for each instruction whose signature in
 * src is still the one that passed. */
void verify_inherit(HloModule *dst, const HloModule *src)
{
	V vs = {.m = src}, vd = {.m = dst};
	if (dst->ncomps != src->ncomps || shares_shapes(dst, src))
		return;
	for (int i = 0; i < src->ncomps; i++) {
		const HloComp *cs = src->comps[i];
		HloComp *cd = dst->comps[i];
		if (cs->n != cd->n)
			return;
		for (int k = 0; k < cs->n; k++) {
			const HloInstr *s = cs->instrs[k];
			HloInstr *d = cd->instrs[k];
			bool ordered = true; /* not asked: passed 0 */
			if (s->vsig && s->op == d->op &&
			    s->vsig == instr_sig(&vs, s, cs, 0, &ordered))
				d->vsig = instr_sig(&vd, d, cd, 0, &ordered);
		}
	}
}

uint64_t verify_module_digest(const HloModule *m)
{
	V v = {.m = m}; /* (not listing: sig_calls keeps no callers) */
	/* no address of the module's own (as instr_sig): a clone that
	 * shares the shapes has the same digest */
	uint64_t h = (uint64_t)m->ncomps;
	for (int i = 0; i < m->ncomps; i++) {
		const HloComp *c = m->comps[i];
		h = mix(mix(h, (uint64_t)c->n << 1 | (c == m->entry)),
			(uint64_t)i);
		for (int k = 0; k < c->n; k++) {
			bool ordered = true; /* not asked: passed 0 */
			h = mix(h, instr_sig(&v, c->instrs[k], c, 0, &ordered));
		}
	}
	return h;
}

bool verify_instr(HloInstr *ins, Diag *d, const SrcFile *f)
{
	V v = {.d = d, .f = f, .start = d->errors};
	v.m = ins->parent ? ins->parent->module : NULL;
	arena_init(&v.tmp);
	check_instr(&v, ins);
	arena_free(&v.tmp);
	return d->errors == v.start;
}
