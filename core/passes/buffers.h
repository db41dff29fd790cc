/* buffers.h - buffer assignment for the entry computation: one logical
 * buffer per array value, live ranges in program (schedule) order, and
 * reuse of dead buffers' memory, as XLA's BufferAssignment does for a
 * sequential schedule.
 *
 * Values that alias their operand (bitcast, get-tuple-element, tuple)
 * get no buffer of their own; parameters and constants are live for the
 * whole computation and never reused; the root's buffers live to the
 * end. */
#ifndef XR_BUFFERS_H
#define XR_BUFFERS_H
#include <stdint.h>

#include "hlo.h"
#include "strbuf.h"

typedef struct Buffer {
	const HloInstr *def; /* the instruction that defines the value */
	int64_t bytes;
	int start, end;      /* live range: schedule positions, inclusive */
	int slot;            /* memory slot; buffers sharing a slot reuse
				memory */
	int64_t offset;      /* byte offset of the slot in one arena */
} Buffer;

typedef struct BufferAssignment {
	Buffer *bufs;
	int n;
	int nslots;
	int64_t peak_bytes;  /* largest sum of live buffers at any position
				(INT64_MAX: at least that many) */
	int peak_at;         /* the first position where it is reached */
	int64_t total_bytes; /* sum of all buffer sizes (no reuse) */
	int64_t arena_bytes; /* size of the arena after reuse */
	int ntemps;          /* buffers neither parameter, constant nor
				part of the result */
	int npositions;      /* length of the schedule */
} BufferAssignment;

/* Assigns buffers for m's entry computation. False on out of memory. */
bool buffers_assign(const HloModule *m, BufferAssignment *ba);
void buffers_free(BufferAssignment *ba);

/* What a buffer holds. A parameter or constant that is also (part of)
 * the result keeps its own kind. */
typedef enum {
	BUF_TEMP,      /* neither parameter, constant nor output */
	BUF_PARAMETER,
	BUF_CONSTANT,
	BUF_OUTPUT,    /* part of the root's value */
} BufferKind;

typedef struct BufferInfo {
	BufferKind kind;
	int leaf; /* which array leaf of def's (tuple) shape, 0 for arrays */
} BufferInfo;

/* As buffers_assign, and also *info: a malloc'd array (the caller frees
 * it) saying what ba->bufs[i] holds, for each i. */
bool buffers_assign_info(const HloModule *m, BufferAssignment *ba,
			 BufferInfo **info);
/* "temporary", "parameter", "constant", "output". */
const char *buffers_kind_name(BufferKind k);
/* Appends an SVG chart of ba to b: x is the schedule position, y the
 * offset in the arena, one rectangle per buffer (coloured by kind, with
 * a tooltip), axes and a legend. title heads it (NULL: none). */
void buffers_svg(StrBuf *b, const BufferAssignment *ba,
		 const BufferInfo *info, const char *title);

#endif
