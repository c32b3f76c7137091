/* SPDX-License-Identifier: MIT */
/*
 * json.h - the one JSON string writer, for the library's JSON (the
 * topology report, the trace) and the tool's (`actors trace --json`,
 * `actors stress --json`): a C string, quoted, with '"' and '\' escaped
 * by a backslash and the control characters below 0x20 as \u00xx. Other
 * bytes pass as they are: the callers' strings are UTF-8 already.
 */
#ifndef ACT_JSON_H
#define ACT_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Takes the next n bytes of the output. */
typedef void act__json_put_fn(void *ctx, const char *s, size_t n);

/*
 * s as a JSON string, through put: the opening quote, each longest run
 * of bytes that need no escape, each escape whole, the closing quote.
 */
void act__json_str(const char *s, act__json_put_fn *put, void *ctx);

/* The same to f; NULL is written as null. Errors: ferror(f). */
void act__json_fstr(FILE *f, const char *s);

#endif
