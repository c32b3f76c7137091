/* SPDX-License-Identifier: MIT */
/*
 * trace_map.h - what both halves of `actors trace` (tools/trace.c reads,
 * tools/trace_report.c prints) use: an open-addressing hash map of 64-bit
 * keys, and allocation that cannot fail, which ends the tool with status
 * 1 when memory runs out. Here so that neither half calls the other.
 */
#ifndef ACTORS_TOOLS_TRACE_MAP_H
#define ACTORS_TOOLS_TRACE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One entry; the map keeps it in place until it grows or a delete. */
struct trace_ent {
	uint64_t key;
	int64_t v;    /* a sum, or an I/O operation's start */
	uint32_t idx; /* an index into an array, or an I/O op */
	uint32_t used;
};

/* Linear probing, at most 3/4 full; zeroed, it is an empty map. */
struct trace_map {
	struct trace_ent *e;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

/* The map's entry for key, or NULL. */
struct trace_ent *trace_map_find(const struct trace_map *m, uint64_t key);

/* key's entry, made (zeroed) if it was not there: *fresh says which. */
struct trace_ent *trace_map_get(struct trace_map *m, uint64_t key, bool *fresh);

/* Removes e (an entry of m), moving back the entries it displaced. */
void trace_map_del(struct trace_map *m, struct trace_ent *e);

/* realloc of n * size bytes, and strdup; out of memory exits (status 1). */
void *trace_xrealloc(void *p, size_t n, size_t size);
char *trace_xstrdup(const char *s);

#endif
