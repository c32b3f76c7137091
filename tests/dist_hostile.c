/* SPDX-License-Identifier: MIT */
/*
 * dist_hostile - the actors node that tests/dist-hostile.sh attacks, on
 * the public API only (act_dist_start(3)).
 *
 *   dist_hostile NAME COOKIE EPMD_PORT TICK_MS SETUP_MS
 *
 * Starts the node NAME (ticktime TICK_MS, setup_ms SETUP_MS) and
 * registers "echo", a process that answers every message from another
 * node to its sender: a message of a user tag with act_send (the same
 * tag and bytes), a term (ACT_TAG_TERM) with act_send_term (the same
 * bytes). Prints "ready NAME PID ALLOCATOR" (PID: this process's, for
 * the test to read its memory; ALLOCATOR "libc", or "sanitizer" when a
 * sanitizer's replaces it, whose memory is not the runtime's) or
 * "start: ERROR", and on standard error the runtime's own lines; runs
 * until killed.
 */
#include <actors.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* as examples/kv/c_server.c's INFO mem_allocator */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ALLOCATOR "sanitizer"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ALLOCATOR "sanitizer"
#endif
#endif
#ifndef ALLOCATOR
#define ALLOCATOR "libc"
#endif

static const char *name, *cookie;
static struct act_dist_opts opts;

static void echo(void *arg)
{
	(void)arg;
	for (;;) {
		struct act_msg *m = act_receive(ACT_FOREVER);
		int rc = 0;

		if (m->tag == ACT_TAG_TERM)
			rc = act_send_term(m->from, m->data, m->len);
		else if (m->tag < ACT_TAG_RESERVED)
			rc = act_send(m->from, m->tag, m->data, m->len);
		if (rc < 0) {
			printf("echo: reply failed: %s\n", strerror(-rc));
			fflush(stdout);
		}
		act_msg_free(m);
	}
}

static void start(void *arg)
{
	int rc;

	(void)arg;
	rc = act_dist_start(name, cookie, &opts);
	if (rc < 0) {
		printf("start: %s\n", strerror(-rc));
		fflush(stdout);
		act_exit(1);
	}
	act_register("echo", act_spawn(echo, NULL));
	printf("ready %s %ld %s\n", name, (long)getpid(), ALLOCATOR);
	fflush(stdout);
	for (;;)
		act_msg_free(act_receive(ACT_FOREVER));
}

int main(int argc, char **argv)
{
	int rc;

	if (argc != 6) {
		fprintf(stderr, "usage: dist_hostile NAME COOKIE EPMD_PORT "
				"TICK_MS SETUP_MS\n");
		return 2;
	}
	name = argv[1];
	cookie = argv[2];
	opts.epmd_port = (uint16_t)atoi(argv[3]);
	opts.ticktime_ms = (uint32_t)atoi(argv[4]);
	opts.setup_ms = (uint32_t)atoi(argv[5]);
	rc = act_main(NULL, start, NULL);
	return rc < 0 ? 1 : rc;
}
