/* SPDX-License-Identifier: MIT */
/* fatal.c - the fatal-error path and an async-signal-safe line writer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fatal.h"

void act__fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("actors: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static size_t put_str(char *buf, size_t at, size_t cap, const char *s)
{
	while (s && *s && at < cap)
		buf[at++] = *s++;
	return at;
}

static size_t put_u64(char *buf, size_t at, size_t cap, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && at < cap)
		buf[at++] = tmp[--n];
	return at;
}

void act__fatal_write_line(int fd, const char *a, const char *s, const char *b,
			   uint64_t n, const char *c)
{
	char buf[256];
	size_t at = 0, cap = sizeof(buf) - 1;
	ssize_t rc;

	at = put_str(buf, at, cap, a);
	at = put_str(buf, at, cap, s);
	at = put_str(buf, at, cap, b);
	at = put_u64(buf, at, cap, n);
	at = put_str(buf, at, cap, c);
	buf[at++] = '\n';
	rc = write(fd, buf, at);
	(void)rc;
}
