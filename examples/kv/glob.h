/* SPDX-License-Identifier: MIT */
/*
 * glob.h - the pattern match of KEYS, SCAN's MATCH and CONFIG GET: redis
 * 7.0's stringmatchlen, binary-safe: '*', '?', '[...]' with '^',
 * ranges (either way round) and '\' escapes, and '\' outside a class.
 *
 * redis reads the byte after the end of its (NUL-ended) pattern in a few
 * places: an unclosed class, a trailing '*'. The arguments here are not
 * NUL-ended (a request's bytes follow one another), so every read past
 * the end is answered '\0', which gives redis's results exactly. Like
 * redis, a run of stars stops the search once the rest cannot match
 * anywhere, so no pattern costs more than a quadratic scan.
 */
#ifndef KV_GLOB_H
#define KV_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* True if s[0..sn) matches pattern p[0..pn), case-sensitive (nocase:
 * ASCII case folded, as CONFIG GET's). */
bool kv_glob(const char *p, size_t pn, const char *s, size_t sn, bool nocase);

#endif /* KV_GLOB_H */
