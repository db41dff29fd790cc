/* print.h - HLO text printer in XLA's default style (% sigils, operand
 * shapes, layouts). print(parse(print(parse(x)))) == print(parse(x)). */
#ifndef XR_PRINT_H
#define XR_PRINT_H
#include <stdbool.h>
#include <stdint.h>

#include "hlo.h"
#include "strbuf.h"

typedef struct PrintOpts {
	bool short_form;         /* no %, no operand shapes (ShortParsable) */
	int64_t max_const_elems; /* > 0: larger constants print as {...} */
	bool skip_inlined_marker;/* reserved */
	bool utf8_raw;           /* bytes >= 0x80 of strings as they are
				    (for display), not escaped as XLA
				    prints them */
} PrintOpts;

/* XLA's default: long form, every constant in full (what `save` writes). */
extern const PrintOpts print_opts_default;

void print_module(StrBuf *b, const HloModule *m, const PrintOpts *o);
void print_comp(StrBuf *b, const HloComp *c, const PrintOpts *o);
/* One instruction line without indentation or newline. */
void print_instr(StrBuf *b, const HloInstr *ins, const PrintOpts *o);
/* An attribute's value for display (info, graph labels): as printed,
 * but UTF-8 in strings left as it is. */
void print_attr_value(StrBuf *b, const HloAttr *a);
/* entry_computation_layout={...} value text for the module's entry. */
void print_entry_layout(StrBuf *b, const HloModule *m);

#endif
