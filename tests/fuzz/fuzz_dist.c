/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dist.c - libFuzzer target: a connection's frame body as a peer
 * could send it (lib/dist/ctrl.c, term.c, codec.c, peers.c), into a
 * fresh table of peers each time.
 *
 * Beyond "no crash, no sanitizer report": a frame read whole has its
 * reason and message inside the input, and every pid it named writes
 * out and reads back as the same act_pid; the term walk of the input
 * itself says a length within it or refuses with a reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dist/ctrl.h"
#include "dist/term.h"

static const struct act__codec_self me = { "me@host", 7 };

static void check(bool ok)
{
	if (!ok)
		abort();
}

static void pid_back(struct act__peers *t, act_pid p)
{
	ei_x_buff b;
	act_pid q;
	int i = 0;

	if (act_pid_eq(p, ACT_PID_NONE))
		return;
	check(ei_x_new(&b) == 0);
	check(act__codec_pid_encode(&b, t, &me, p) == 0);
	check(act__codec_pid_decode(b.buff, &i, t, &me, &q) == 0);
	check(act_pid_eq(p, q) && i == b.index);
	ei_x_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static struct act__peers peers;
	struct act__term_err err;
	struct act__ctrl c;
	const char *why = NULL;
	char *p = malloc(n ? n : 1);
	long len;

	check(p != NULL);
	memcpy(p, d, n);
	len = act__term_check(d, n, &err);
	check(len == -1 ? err.why != NULL && err.at <= n : (size_t)len <= n);
	act__peers_init(&peers);
	if (act__ctrl_decode(p, n, &peers, &me, &c, &why) == 0) {
		check(!c.reason || (c.reason >= p && c.reason_len <= n &&
				    c.reason + c.reason_len <= p + n));
		check(!c.msg || (c.msg >= p && c.msg + c.msg_len <= p + n));
		pid_back(&peers, c.from);
		pid_back(&peers, c.to);
	} else {
		check(why != NULL);
	}
	act__peers_fini(&peers);
	free(p);
	return 0;
}
