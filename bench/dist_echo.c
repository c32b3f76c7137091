/* SPDX-License-Identifier: MIT */
/*
 * dist_echo - the actors side of scripts/bench-dist.sh: a node whose
 * registered "bench" process opens an echo process per client, as the
 * Erlang side of the benchmark (scripts/bench-dist.escript, "server")
 * does, so that both servers see the same frames.
 *
 *   bench/dist_echo NAME COOKIE EPMD_PORT   (--help says more)
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
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
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

#define PROG "bench/dist_echo" /* its name in the usage and errors */

static const char usage_text[] =
	"usage: " PROG " NAME COOKIE EPMD_PORT\n"
	"An actors node for scripts/bench-dist.sh: its process \"bench\" "
	"opens an echo\nprocess per client ({open, Pid}), which answers each "
	"message of tag 1 with\nthe same; a message of tag 4 to \"bench\" "
	"stops the node.\n"
	"  NAME        the node's name, NAME@HOST or NAME (then the short "
	"host name)\n"
	"  COOKIE      the cluster's cookie\n"
	"  EPMD_PORT   epmd's port, 0 to 65535; 0: ERL_EPMD_PORT, else 4369\n"
	"  -h, --help  this text\n"
	"Prints \"ready NAME OSPID\" on stdout once the node is up.\n"
	"exit status: 0 stopped by tag 4, 1 the runtime or the node could "
	"not start,\n2 a usage error\n";

#define RUN (-1)

/* The three operands, in order: RUN, or the exit status (0 after --help,
 * 2 after a usage error, said in one line on stderr). */
static int parse_args(int argc, char **argv)
{
	static const char *const what[] = { "NAME", "COOKIE", "EPMD_PORT" };
	const char *op[3];
	bool options = true;
	int i, n = 0;
	char *end;
	long port;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return fflush(stdout) == EOF ? 1 : 0;
		}
	for (i = 1; i < argc; i++) {
		if (options && !strcmp(argv[i], "--")) {
			options = false;
		} else if (options && argv[i][0] == '-' && argv[i][1] &&
			   !isdigit((unsigned char)argv[i][1])) {
			fprintf(stderr,
				"%s: unknown option %s: expected NAME "
				"COOKIE EPMD_PORT or --help\n",
				PROG, argv[i]);
			return 2;
		} else if (n == 3) {
			fprintf(stderr,
				"%s: unexpected operand '%s': expected "
				"NAME COOKIE EPMD_PORT\n",
				PROG, argv[i]);
			return 2;
		} else {
			op[n++] = argv[i];
		}
	}
	if (n < 3) {
		fprintf(stderr,
			"%s: %s is missing: expected NAME COOKIE "
			"EPMD_PORT\n",
			PROG, what[n]);
		return 2;
	}
	errno = 0;
	port = strtol(op[2], &end, 10);
	if (errno || end == op[2] || *end || port < 0 || port > 65535) {
		fprintf(stderr,
			"%s: EPMD_PORT: bad value '%s': expected 0 to "
			"65535\n",
			PROG, op[2]);
		return 2;
	}
	name = op[0];
	cookie = op[1];
	opts.epmd_port = (uint16_t)port;
	return RUN;
}

int main(int argc, char **argv)
{
	int rc = parse_args(argc, argv);

	if (rc != RUN)
		return rc;
	rc = act_main(NULL, start, NULL);
	return rc < 0 ? 1 : rc;
}
