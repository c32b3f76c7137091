/* SPDX-License-Identifier: MIT */
/*
 * resp.h - RESP2 requests, parsed the way redis-server 7.0 parses them.
 *
 * A connection's input is one byte string; the parser takes the bytes not
 * yet consumed, buf[0..len), and returns the next command, asks for more,
 * or names a protocol error. Between calls the caller may append bytes and
 * may move the unconsumed bytes as one block (its buffer compacted or
 * grown): the parser keeps offsets from buf, never pointers, and does not
 * scan again what it has scanned, so a client that sends one byte at a
 * time costs one byte of scanning per byte.
 *
 * Two forms, chosen by the first byte of a command (as redis does):
 *
 *   multibulk: "*<n>\r\n" then n times "$<len>\r\n<len bytes>\r\n". The
 *     arguments are the bytes of buf themselves, binary-safe. n <= 0 is an
 *     empty command, skipped. The two bytes after an argument are skipped
 *     without a look, as redis does.
 *   inline: a line up to "\n" (a "\r" before it is dropped), split on
 *     blanks, with "double quotes" (\n \r \t \b \a \\ \" and \xHH escapes)
 *     and 'single quotes' (\' only). The line is decoded where it lies in
 *     buf (the decoding only ever shrinks it), so its arguments point into
 *     buf too. A blank line is an empty command, skipped.
 *
 * Errors are redis-server 7.0's own words, to be sent as "-ERR <error>"
 * before the connection is closed: a count or length that is not a plain
 * integer (string2ll's rules: no sign but '-', no leading zero, at most 20
 * characters), a bulk length over max_bulk (refused before any byte of it
 * is asked for), a header or inline line of more than 64 KiB, a token
 * that does not start with '$', unbalanced quotes. Like redis, a header
 * or inline line is searched as a C string: a NUL byte in it hides what
 * follows, until the 64 KiB limit.
 *
 * One parser per connection; it is not shared between threads.
 */
#ifndef KV_RESP_H
#define KV_RESP_H

#include <stddef.h>
#include <stdint.h>

#define RESP_INLINE_MAX (64 * 1024) /* PROTO_INLINE_MAX_SIZE */
#define RESP_MAX_BULK_DEFAULT (512LL * 1024 * 1024)

enum resp_status {
	RESP_MORE = 0, /* need more bytes: ps->need of them in all, or any */
	RESP_CMD,      /* a command: ps->argc arguments, ps->used bytes */
	RESP_ERROR,    /* a protocol error: ps->error; close after it */
	RESP_NOMEM,    /* the argument vector could not grow */
};

struct resp_arg {
	const char *p;
	size_t len;
};

struct resp_parser {
	/* limits, set by resp_init */
	long long max_bulk;

	/* the command being read */
	int form;	/* 0 until its first byte, then '*' or 'i' */
	size_t pos;	/* bytes of buf consumed by its parts so far */
	size_t scanned; /* bytes from pos known to hold no line end */
	long long left; /* multibulk: arguments still to read */
	long long bulk; /* multibulk: this argument's length, or -1 */

	/* its arguments: offsets into buf until RESP_CMD, then pointers */
	int argc;
	int cap;
	struct resp_arg *argv;

	/* results */
	size_t used;	/* RESP_CMD: bytes of buf the command took */
	size_t need;	/* RESP_MORE: bytes buf must hold (0: any more) */
	char error[64]; /* RESP_ERROR: the message, without "ERR " */
};

void resp_init(struct resp_parser *ps, long long max_bulk);
void resp_free(struct resp_parser *ps);

/*
 * Parse buf[0..len), the bytes not yet consumed (buf is written: inline
 * lines are decoded in place). On RESP_CMD, argv[0..argc) point into buf
 * and stay valid until buf's bytes are moved or overwritten; the caller
 * consumes ps->used bytes and calls again for the next command. On
 * RESP_MORE, call again with the same bytes and more after them. After
 * RESP_ERROR or RESP_NOMEM the parser is spent: close the connection.
 */
enum resp_status resp_parse(struct resp_parser *ps, char *buf, size_t len);

/* redis's string2ll: 1 and *out on a plain integer, else 0. */
int resp_string2ll(const char *s, size_t len, long long *out);
/* redis's string2d (a score, a float): 1 and *out, else 0. */
int resp_string2d(const char *s, size_t len, double *out);
/* redis's string2ld (INCRBYFLOAT's long double): 1 and *out, else 0. */
#define RESP_LDOUBLE_MAX 5120 /* MAX_LONG_DOUBLE_CHARS: longer is refused */
int resp_string2ld(const char *s, size_t len, long double *out);

#endif /* KV_RESP_H */
