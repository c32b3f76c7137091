/* SPDX-License-Identifier: MIT */
/*
 * pidfmt.c - act_pid_format: <0.INDEX.GEN>, as Erlang's pid_to_list
 * (node 0, this one; the slot's index; its generation), or "<none>" for
 * ACT_PID_NONE.
 *
 * Written by hand rather than with snprintf: the stack overflow report
 * formats its pid in a signal handler (sched/overflow.c), so this is
 * async-signal-safe, and so is act_pid_format for its callers.
 */
#include <stdatomic.h>
#include <string.h>

#include "pidfmt.h"

/* idx_bits of the table pids come from; relaxed: a value, read whole */
static _Atomic uint32_t split_bits = 32;

void act__pidfmt_split(uint32_t idx_bits)
{
	atomic_store_explicit(&split_bits, idx_bits, memory_order_relaxed);
}

/* v in decimal at s; the digits written */
static size_t put_dec(char *s, uint64_t v)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		s[i] = tmp[n - 1 - i];
	return n;
}

int act_pid_format(act_pid pid, char *buf, size_t len)
{
	uint32_t bits = atomic_load_explicit(&split_bits, memory_order_relaxed);
	char s[ACT_PID_STRLEN];
	size_t n = 0;

	if (!pid.id) {
		memcpy(s, "<none>", 6);
		n = 6;
	} else if (pid.id >> 63) {
		/* a remote pid (lib/dist/peers.h): <node.entry.0>, the
		 * node's number and the pid's entry in its table */
		s[n++] = '<';
		n += put_dec(s + n, act__pidfmt_node(pid));
		s[n++] = '.';
		n += put_dec(s + n, pid.id & (((uint64_t)1 << 52) - 1));
		memcpy(s + n, ".0>", 3);
		n += 3;
	} else {
		if (bits < 1 || bits > 32)
			bits = 32;
		memcpy(s, "<0.", 3);
		n = 3;
		n += put_dec(s + n, pid.id & (((uint64_t)1 << bits) - 1));
		s[n++] = '.';
		n += put_dec(s + n, pid.id >> bits);
		s[n++] = '>';
	}
	if (buf && len) {
		size_t k = n < len ? n : len - 1;

		memcpy(buf, s, k);
		buf[k] = '\0';
	}
	return (int)n;
}
