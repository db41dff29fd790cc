/* namemap.h - string -> pointer hash map (open addressing, malloc'd).
 * Keys are not copied: they must outlive the map (arena strings do). */
#ifndef XR_NAMEMAP_H
#define XR_NAMEMAP_H
#include <stdbool.h>
#include <stddef.h>

typedef struct NameMapSlot {
	const char *key; /* NULL empty; NAMEMAP_TOMB deleted */
	void *val;
	unsigned hash;
} NameMapSlot;

typedef struct NameMap {
	NameMapSlot *slots;
	size_t cap, count, used; /* used counts tombstones too */
} NameMap;

void namemap_init(NameMap *m);
void namemap_free(NameMap *m);
void *namemap_get(const NameMap *m, const char *key);
void *namemap_getn(const NameMap *m, const char *key, size_t n);
/* Inserts or replaces. false on out-of-memory. */
bool namemap_put(NameMap *m, const char *key, void *val);
bool namemap_del(NameMap *m, const char *key);
unsigned namemap_hash(const char *s, size_t n);

#endif
