/* SPDX-License-Identifier: MIT */
/*
 * dist_node - an actors node for tests/dist-node.sh, on the public API
 * only (act_dist_start(3)).
 *
 *   dist_node NAME COOKIE EPMD_PORT TICK_MS [PEER]
 *
 * Starts the node NAME and registers "echo", a process that answers
 * every message from another node to its sender: a message of a user
 * tag with act_send (the same tag and bytes), a term (ACT_TAG_TERM)
 * with act_send_term (the same bytes). Two requests are its own, in
 * the user form:
 *   {1, <<"pid">>}         answered with the term {pid, EchoPid}
 *   {2, <<"name", Node>>}  answered with act_send_name(Node, "tester",
 *                          3, "hi") (a send by name from here)
 * With PEER it first connects there (act_dist_connect) and sends the
 * PEER's "tester" {4, <<"hello">>}. Prints "ready NAME", "connected
 * PEER" or "connect: ERROR", and on standard error the runtime's own
 * lines; runs until killed.
 */
#include <actors.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *name, *cookie, *peer;
static struct act_dist_opts opts;

/* {pid, Pid}: the term's bytes into out, its length */
static size_t pid_tuple(act_pid pid, unsigned char *out, size_t cap)
{
	unsigned char p[ACT_PID_TERM_MAX];
	ssize_t n = act_pid_term(pid, p, sizeof(p));

	if (n < 2 || (size_t)n + 8 > cap)
		return 0;
	out[0] = 131;
	out[1] = 104; /* SMALL_TUPLE_EXT */
	out[2] = 2;
	out[3] = 119; /* SMALL_ATOM_UTF8_EXT */
	out[4] = 3;
	memcpy(out + 5, "pid", 3);
	memcpy(out + 8, p + 1, (size_t)n - 1);
	return (size_t)n - 1 + 8;
}

static void echo(void *arg)
{
	(void)arg;
	for (;;) {
		struct act_msg *m = act_receive(ACT_FOREVER);
		int rc = 0;

		if (m->tag == ACT_TAG_TERM) {
			rc = act_send_term(m->from, m->data, m->len);
		} else if (m->tag == 1 && m->len == 3 &&
			   !memcmp(m->data, "pid", 3)) {
			unsigned char t[ACT_PID_TERM_MAX + 16];
			size_t n = pid_tuple(act_self(), t, sizeof(t));

			rc = n ? act_send_term(m->from, t, n) : -1;
		} else if (m->tag == 2 && m->len > 4 &&
			   !memcmp(m->data, "name", 4)) {
			char node[256];
			size_t n = m->len - 4 < 255 ? m->len - 4 : 255;

			memcpy(node, (char *)m->data + 4, n);
			node[n] = 0;
			rc = act_send_name(node, "tester", 3, "hi", 2);
		} else if (m->tag < ACT_TAG_RESERVED) {
			rc = act_send(m->from, m->tag, m->data, m->len);
		}
		if (rc < 0)
			printf("echo: reply failed: %s\n", strerror(-rc));
		fflush(stdout);
		act_msg_free(m);
	}
}

static void start(void *arg)
{
	act_pid e;
	int rc;

	(void)arg;
	rc = act_dist_start(name, cookie, &opts);
	if (rc < 0) {
		printf("start: %s\n", strerror(-rc));
		fflush(stdout);
		act_exit(1);
	}
	e = act_spawn(echo, NULL);
	act_register("echo", e);
	printf("ready %s\n", name);
	fflush(stdout);
	if (peer) {
		rc = act_dist_connect(peer);
		if (rc < 0) {
			printf("connect: %s\n", strerror(-rc));
		} else {
			printf("connected %s\n", peer);
			rc = act_send_name(peer, "tester", 4, "hello", 5);
			if (rc < 0)
				printf("send_name: %s\n", strerror(-rc));
		}
		fflush(stdout);
	}
	for (;;)
		act_msg_free(act_receive(ACT_FOREVER));
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 5) {
		fprintf(stderr,
			"usage: dist_node NAME COOKIE EPMD_PORT TICK_MS "
			"[PEER]\n");
		return 2;
	}
	name = argv[1];
	cookie = argv[2];
	opts.epmd_port = (uint16_t)atoi(argv[3]);
	opts.ticktime_ms = (uint32_t)atoi(argv[4]);
	peer = argc > 5 ? argv[5] : NULL;
	rc = act_main(NULL, start, NULL);
	return rc < 0 ? 1 : rc;
}
