/* SPDX-License-Identifier: MIT */
/*
 * dist_echo - the actors side of scripts/bench-dist.sh: a node whose
 * registered "bench" process opens an echo process per client, as the
 * Erlang side of the benchmark (scripts/bench-dist.escript, "server")
 * does, so that both servers see the same frames.
 *
 *   dist_echo NAME COOKIE EPMD_PORT
 *
 * A client sends "bench" a term ({open, ClientPid}); "bench" spawns an
 * echo process, which sends the client {pid, EchoPid} and then answers
 * each {1, Binary} with the same message to its sender (act_send: the
 * binary's bytes, no term encoding), until a message of tag 3, on
 * which it exits. A message of tag 4 to "bench" stops the node (with
 * ACTORS_STATS=1, its figures per node on standard error). Prints
 * "ready NAME OSPID" once the node is up. Public API only (act_dist_start(3)).
 */
#include <actors.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *name, *cookie;
static struct act_dist_opts opts;

/* {pid, Self} as a term: its length in out, 0 if it does not fit */
static size_t pid_tuple(unsigned char *out, size_t cap)
{
	unsigned char p[ACT_PID_TERM_MAX];
	ssize_t n = act_pid_term(act_self(), p, sizeof(p));

	if (n < 2 || (size_t)n + 8 > cap)
		return 0;
	out[0] = 131;
	out[1] = 104; /* SMALL_TUPLE_EXT, 2 */
	out[2] = 2;
	out[3] = 119; /* SMALL_ATOM_UTF8_EXT "pid" */
	out[4] = 3;
	memcpy(out + 5, "pid", 3);
	memcpy(out + 8, p + 1, (size_t)n - 1);
	return (size_t)n - 1 + 8;
}

static void echo(void *arg)
{
	act_pid client = *(act_pid *)arg;
	unsigned char t[ACT_PID_TERM_MAX + 16];
	size_t n = pid_tuple(t, sizeof(t));

	free(arg);
	if (!n || act_send_term(client, t, n) < 0)
		act_exit(1);
	for (;;) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		if (m->tag == 3)
			act_exit(ACT_EXIT_NORMAL);
		if (m->tag == 1)
			act_send(m->from, 1, m->data, m->len);
		act_msg_free(m);
	}
}

static void start(void *arg)
{
	int rc;

	(void)arg;
	rc = act_dist_start(name, cookie, &opts);
	if (rc < 0) {
		fprintf(stderr, "dist_echo: act_dist_start: %s\n",
			strerror(-rc));
		act_exit(1);
	}
	act_register("bench", act_self());
	printf("ready %s %d\n", name, (int)getpid());
	fflush(stdout);
	for (;;) {
		struct act_msg *m = act_receive(ACT_FOREVER);
		act_pid *client;

		if (m->tag == 4) { /* the end: act_main returns */
			act_msg_free(m);
			return;
		}
		client = malloc(sizeof(*client));
		if (client && m->tag == ACT_TAG_TERM) {
			*client = m->from;
			act_spawn(echo, client);
		} else {
			free(client);
		}
		act_msg_free(m);
	}
}

int main(int argc, char **argv)
{
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: dist_echo NAME COOKIE EPMD_PORT\n");
		return 2;
	}
	name = argv[1];
	cookie = argv[2];
	opts.epmd_port = (uint16_t)atoi(argv[3]);
	rc = act_main(NULL, start, NULL);
	return rc < 0 ? 1 : rc;
}
