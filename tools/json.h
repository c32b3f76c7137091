/* SPDX-License-Identifier: MIT */
/*
 * json.h - a strict pull reader of JSON text in memory (RFC 8259), for
 * `actors trace` (tools/trace.c).
 *
 * The caller walks the document in one pass, asking for what it expects
 * next: an object's members one at a time (json_obj_next), an array's
 * elements (json_arr_next), a string, a number, or "skip this value"
 * (json_skip), which checks the value it passes over as strictly as the
 * rest. Nothing is built: a file of hundreds of MB costs its mapping and
 * the caller's aggregates, no more.
 *
 * Every call returns -1 on the first error, and from then on the reader
 * stays failed: each later call returns -1 at once, and pos and expected
 * keep the first error's byte offset and what was expected there, for
 * one message. Nesting is limited to JSON_MAX_DEPTH, to bound the stack
 * of json_skip.
 *
 * Strings are decoded into the caller's buffer as UTF-8: the escapes
 * \" \\ \/ \b \f \n \r \t and \uXXXX (surrogate pairs joined; a lone
 * surrogate, and \u0000, become U+FFFD so that the buffer stays one C
 * string of valid UTF-8). Raw bytes must be valid UTF-8 and no control
 * character may appear unescaped. A string longer than the buffer is cut
 * at a character boundary and *len says its whole decoded length.
 *
 * Not thread-safe: one reader, one thread.
 */
#ifndef ACTORS_TOOLS_JSON_H
#define ACTORS_TOOLS_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH 64

struct json {
	const unsigned char *p;	    /* the next byte to read */
	const unsigned char *start; /* the text */
	const unsigned char *end;   /* one past its last byte */
	int depth;		    /* objects and arrays open */
	bool failed;
	size_t pos;	      /* when failed: the byte offset of the error */
	const char *expected; /* when failed: what was expected there */
};

/* The value types, as json_peek() tells them from their first byte. */
enum json_type {
	JSON_NONE, /* not the start of a value (or the end of the text) */
	JSON_OBJECT,
	JSON_ARRAY,
	JSON_STRING,
	JSON_NUMBER,
	JSON_LITERAL, /* true, false or null */
};

/* Starts reading the len bytes at text; the text must outlive j. */
void json_init(struct json *j, const void *text, size_t len);

/* Records a failure at the current byte (unless one is recorded); -1. */
int json_fail(struct json *j, const char *expected);

/* The type of the value that starts at the next non-blank byte. */
enum json_type json_peek(struct json *j);

/*
 * An object or an array: json_*_begin reads its opening bracket. Then
 * each call of json_obj_next reads the separator before a member, its
 * key (into key, as a string above) and the colon, and returns 1, with
 * the member's value next to read; or reads the closing brace and
 * returns 0. *n counts the members read, starting at 0. json_arr_next
 * is the same for an array's elements, without a key.
 */
int json_obj_begin(struct json *j);
int json_obj_next(struct json *j, size_t *n, char *key, size_t cap,
		  size_t *len);
int json_arr_begin(struct json *j);
int json_arr_next(struct json *j, size_t *n);

/* A string into buf (cap > 0; NUL-terminated); *len: its whole length. */
int json_string(struct json *j, char *buf, size_t cap, size_t *len);

/* A number; its text (up to cap - 1 bytes) into raw when raw != NULL. */
int json_number(struct json *j, double *v, char *raw, size_t cap);

/* Any one value, checked and passed over. */
int json_skip(struct json *j);

/* After the top-level value: only blanks may be left. */
int json_end(struct json *j);

#endif
