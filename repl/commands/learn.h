/* learn.h - the content behind `example` and `explain`: built-in example
 * modules (learn_examples.c) and explanation texts (learn_text.c), as
 * plain tables so that tests can walk them. */
#ifndef XR_LEARN_H
#define XR_LEARN_H

/* A built-in module: HLO text as XLA dumps it. */
typedef struct Example {
	const char *name;    /* "softmax" */
	const char *summary; /* one line for `example` */
	const char *text;    /* the module */
} Example;

const Example *cmd_example_table(int *n);
/* The example spelled exactly so, or NULL. */
const Example *cmd_example_find(const char *name);

typedef enum {
	TOPIC_OPCODE,
	TOPIC_PASS,
	TOPIC_CONCEPT,
	NTOPIC_KINDS
} TopicKind;

/* One explanation. A name may have several (the opcode, the pass and the
 * concept called "fusion"); `explain` prints them all. */
typedef struct Topic {
	const char *name;
	TopicKind kind;
	const char *text; /* 3-10 lines, each ending in '\n' */
} Topic;

const Topic *cmd_topic_table(int *n);
/* The topic of that kind named name (case-insensitive), or NULL. The
 * table lists opcodes, then passes, then concepts. */
const Topic *cmd_topic_find(const char *name, TopicKind kind);
extern const char *const cmd_topic_kind_names[NTOPIC_KINDS];

#endif
