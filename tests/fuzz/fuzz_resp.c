/* SPDX-License-Identifier: MIT */
/*
 * fuzz_resp.c - libFuzzer target: the kv example's RESP parser
 * (examples/kv/resp.c) on any bytes a client could send.
 *
 * Beyond "no crash, no sanitizer report": the bytes parsed whole and the
 * same bytes arriving a few at a time (the step drawn from the input's
 * first byte) must give the same commands, argument for argument, and
 * the same error or the same unfinished tail: the parser keeps offsets
 * and does not scan twice, so a split anywhere must not change what it
 * reads (resp.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../examples/kv/resp.h"

#define MAX_BULK (1 << 20)

/* What a parse gave, as bytes to compare. */
struct trace {
	char *p;
	size_t len, cap;
};

static void put(struct trace *t, const void *p, size_t n)
{
	if (t->len + n > t->cap) {
		t->cap = (t->len + n) * 2 + 64;
		t->p = realloc(t->p, t->cap);
		if (!t->p)
			abort();
	}
	memcpy(t->p + t->len, p, n);
	t->len += n;
}

static void put_str(struct trace *t, const char *s)
{
	put(t, s, strlen(s) + 1);
}

/* Parse d[0..n) offered step bytes more at a time (n: all at once). */
static void parse(const uint8_t *d, size_t n, size_t step, struct trace *t)
{
	char *buf = malloc(n ? n : 1);
	struct resp_parser ps;
	size_t start = 0, avail = step < n ? step : n;
	enum resp_status st;
	int i;

	if (!buf)
		abort();
	memcpy(buf, d, n);
	resp_init(&ps, MAX_BULK);
	for (;;) {
		st = resp_parse(&ps, buf + start, avail - start);
		if (st == RESP_CMD) {
			put(t, &ps.argc, sizeof(ps.argc));
			for (i = 0; i < ps.argc; i++) {
				put(t, &ps.argv[i].len, sizeof(size_t));
				put(t, ps.argv[i].p, ps.argv[i].len);
			}
			if (ps.used == 0 || ps.used > avail - start)
				abort(); /* a command takes bytes it was given */
			start += ps.used;
			continue;
		}
		if (st == RESP_MORE) {
			if (ps.used > avail - start)
				abort();
			start += ps.used;
			if (avail == n) {
				put_str(t, "more");
				break;
			}
			avail = avail + step < n ? avail + step : n;
			continue;
		}
		put_str(t, st == RESP_ERROR ? ps.error : "nomem");
		break;
	}
	resp_free(&ps);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct trace whole = { 0 }, split = { 0 };
	size_t step;

	if (n < 1)
		return 0;
	step = (size_t)(d[0] % 7) + 1;
	parse(d + 1, n - 1, n - 1, &whole);
	parse(d + 1, n - 1, step, &split);
	if (whole.len != split.len || memcmp(whole.p, split.p, whole.len)) {
		fprintf(stderr,
			"fuzz_resp: %zu bytes parsed whole and %zu at "
			"a time differ\n",
			n - 1, step);
		abort();
	}
	free(whole.p);
	free(split.p);
	return 0;
}
