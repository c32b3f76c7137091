/* SPDX-License-Identifier: MIT */
/* trace_map.c - the hash map and the allocation of `actors trace`
 * (trace_map.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_map.h"

void *trace_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > PTRDIFF_MAX / size)
		p = NULL; /* no such object */
	else
		p = realloc(p, n * size > 0 ? n * size : 1);
	if (p == NULL) {
		fprintf(stderr, "actors trace: out of memory\n");
		exit(1);
	}
	return p;
}

char *trace_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(trace_xrealloc(NULL, n, 1), s, n);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

struct trace_ent *trace_map_find(const struct trace_map *m, uint64_t key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = mix(key) & (m->cap - 1); m->e[i].used;
	     i = (i + 1) & (m->cap - 1))
		if (m->e[i].key == key)
			return &m->e[i];
	return NULL;
}

static struct trace_ent *map_slot(struct trace_ent *e, size_t cap, uint64_t key)
{
	size_t i;

	for (i = mix(key) & (cap - 1); e[i].used && e[i].key != key;
	     i = (i + 1) & (cap - 1))
		;
	return &e[i];
}

static void map_grow(struct trace_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	struct trace_ent *e = trace_xrealloc(NULL, cap, sizeof(*e));

	memset(e, 0, cap * sizeof(*e));
	for (i = 0; i < m->cap; i++)
		if (m->e[i].used)
			*map_slot(e, cap, m->e[i].key) = m->e[i];
	free(m->e);
	m->e = e;
	m->cap = cap;
}

struct trace_ent *trace_map_get(struct trace_map *m, uint64_t key, bool *fresh)
{
	struct trace_ent *e;

	if ((m->n + 1) * 4 > m->cap * 3)
		map_grow(m);
	e = map_slot(m->e, m->cap, key);
	*fresh = !e->used;
	if (*fresh) {
		*e = (struct trace_ent){ .key = key, .used = 1 };
		m->n++;
	}
	return e;
}

void trace_map_del(struct trace_map *m, struct trace_ent *e)
{
	size_t mask = m->cap - 1, i = (size_t)(e - m->e), j = i, home;

	for (;;) {
		m->e[i].used = 0;
		do {
			j = (j + 1) & mask;
			if (!m->e[j].used) {
				m->n--;
				return;
			}
			home = mix(m->e[j].key) & mask;
			/* stays if its home lies cyclically in (i, j] */
		} while (i <= j ? i < home && home <= j :
				  i < home || home <= j);
		m->e[i] = m->e[j];
		i = j;
	}
}
