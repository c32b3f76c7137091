/* SPDX-License-Identifier: MIT */
/*
 * dist_node - an actors node for tests/dist-node.sh, on the public API
 * only (act_dist_start(3)).
 *
 *   dist_node NAME COOKIE EPMD_PORT TICK_MS [PEER]
 *
 * (COOKIE "-": none given, so that ACTORS_COOKIE or ~/.erlang.cookie is
 * taken.)
 * Starts the node NAME and registers "echo", a process that answers
 * every message from another node to its sender: a message of a user
 * tag with act_send (the same tag and bytes), a term (ACT_TAG_TERM)
 * with act_send_term (the same bytes). Two requests are its own, in
 * the user form:
 *   {1, <<"pid">>}         answered with the term {pid, EchoPid}
 *   {2, <<"name", Node>>}  answered with act_send_name(Node, "tester",
 *                          3, "hi") (a send by name from here)
 * With PEER it first connects there (act_dist_connect) and sends the
 * PEER's "tester" {4, <<"hello">>}; with "actors" after PEER (an
 * actors node, no BEAM), it then runs peer_checks against PEER's echo
 * and prints "peer: ok|FAIL WHAT" lines and "peer: done OK FAILED". Prints "ready NAME", "connected
 * PEER" or "connect: ERROR", and on standard error the runtime's own
 * lines; runs until killed.
 */
#include <actors.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *name, *cookie, *peer;
static bool peer_actors;
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

/* A reason as the test's text: the ACT_EXIT_* by name, else the number */
static const char *reason_text(intptr_t r, char *buf, size_t n)
{
	switch (r) {
	case ACT_EXIT_NORMAL:
		return "normal";
	case ACT_EXIT_KILL:
		return "kill";
	case ACT_EXIT_KILLED:
		return "killed";
	case ACT_EXIT_NOPROC:
		return "noproc";
	case ACT_EXIT_SHUTDOWN:
		return "shutdown";
	case ACT_EXIT_NOCONNECTION:
		return "noconnection";
	case ACT_EXIT_TERM:
		return "term";
	default:
		snprintf(buf, n, "%lld", (long long)r);
		return buf;
	}
}

/* the victim: exits as it is told ({11, <<Reason:64>>} or "kill"),
 * answers {12, <<"ping">>} with {12, <<"pong">>} */
static void victim(void *arg)
{
	(void)arg;
	for (;;) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		if (m->tag == 12) {
			act_send(m->from, 12, "pong", 4);
		} else if (m->tag == 11 && m->len == 4) {
			act_kill(act_self(), ACT_EXIT_KILL);
		} else if (m->tag == 11 && m->len == 8) {
			long long r = 0;
			int i;

			for (i = 0; i < 8; i++)
				r = (long long)((unsigned long long)r << 8 |
						((unsigned char *)m->data)[i]);
			act_exit((intptr_t)r);
		}
		act_msg_free(m);
	}
}

/* a victim that first sends its requester {20, "hi"} (its pid then
 * arrives as the message's sender: a pid inside a term is not taken) */
static void victim_hello(void *arg)
{
	act_pid to = *(act_pid *)arg;

	free(arg);
	act_send(to, 20, "hi", 2);
	victim(NULL);
}

struct watch_arg {
	act_pid target;
	char node[256];
};

/* the watcher: links to and monitors a remote process (trapping exits),
 * says "linked" to it, then reports its EXIT and its DOWN, on stdout and
 * to the tester of its node ({15, <<"exit REASON">>}) */
static void watcher(void *arg)
{
	struct watch_arg *a = arg;
	uint64_t ref;
	int i, rc;

	act_trap_exit(true);
	rc = act_link(a->target);
	ref = act_monitor(a->target);
	printf("watcher: link %d monitor %s\n", rc, ref ? "ok" : "failed");
	fflush(stdout);
	act_send(a->target, 14, "linked", 6);
	for (i = 0; i < 2;) {
		struct act_msg *m = act_receive(ACT_FOREVER);
		struct act_exit_info x;
		char line[64], num[32];

		if ((m->tag == ACT_TAG_EXIT || m->tag == ACT_TAG_DOWN) &&
		    m->len >= sizeof(x)) {
			memcpy(&x, m->data, sizeof(x));
			snprintf(line, sizeof(line), "%s %s",
				 m->tag == ACT_TAG_EXIT ? "exit" : "down",
				 reason_text(x.reason, num, sizeof(num)));
			if (x.who.id != a->target.id ||
			    (m->tag == ACT_TAG_DOWN && x.ref != ref))
				snprintf(line, sizeof(line), "%s from another",
					 m->tag == ACT_TAG_EXIT ? "exit" :
								  "down");
			printf("watcher: %s (%zu bytes)\n", line, m->len);
			fflush(stdout);
			act_send_name(a->node, "tester", 15, line,
				      strlen(line));
			i++;
		}
		act_msg_free(m);
	}
	free(a);
}

/* a swarmer: answers each message of tag 18 to its sender, the same */
static void swarmer(void *arg)
{
	(void)arg;
	for (;;) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		if (m->tag == 18)
			act_send(m->from, 18, m->data, m->len);
		act_msg_free(m);
	}
}

/* n swarmers spawned, and the term {swarm, [Pid...]} of them to `to` */
static int swarm(act_pid to, uint32_t n)
{
	size_t cap = 16 + (size_t)n * ACT_PID_TERM_MAX, len = 0;
	unsigned char *t = malloc(cap), p[ACT_PID_TERM_MAX];
	uint32_t i;
	int rc;

	if (!t)
		return -1;
	t[len++] = 131;
	t[len++] = 104; /* SMALL_TUPLE_EXT, 2 */
	t[len++] = 2;
	t[len++] = 119; /* SMALL_ATOM_UTF8_EXT "swarm" */
	t[len++] = 5;
	memcpy(t + len, "swarm", 5);
	len += 5;
	t[len++] = 108; /* LIST_EXT, n elements */
	t[len++] = (unsigned char)(n >> 24);
	t[len++] = (unsigned char)(n >> 16);
	t[len++] = (unsigned char)(n >> 8);
	t[len++] = (unsigned char)n;
	for (i = 0; i < n; i++) {
		ssize_t k =
			act_pid_term(act_spawn(swarmer, NULL), p, sizeof(p));

		if (k < 2) {
			free(t);
			return -1;
		}
		memcpy(t + len, p + 1, (size_t)k - 1);
		len += (size_t)k - 1;
	}
	t[len++] = 106; /* NIL_EXT */
	rc = act_send_term(to, t, len);
	free(t);
	return rc;
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
		} else if (m->tag == 10) {
			unsigned char t[ACT_PID_TERM_MAX + 16];
			act_pid v = act_spawn(victim, NULL);
			size_t n = pid_tuple(v, t, sizeof(t));

			rc = n ? act_send_term(m->from, t, n) : -1;
		} else if (m->tag == 13 && m->len > 4 &&
			   !memcmp(m->data, "link", 4)) {
			struct watch_arg *a = calloc(1, sizeof(*a));
			size_t n = m->len - 4 < 255 ? m->len - 4 : 255;

			a->target = m->from;
			memcpy(a->node, (char *)m->data + 4, n);
			act_spawn(watcher, a);
		} else if (m->tag == 19) {
			act_pid *to = malloc(sizeof(*to));

			*to = m->from;
			act_spawn(victim_hello, to);
		} else if (m->tag == 17 && m->len == 4) {
			const unsigned char *d = m->data;

			rc = swarm(m->from, (uint32_t)d[0] << 24 |
						    (uint32_t)d[1] << 16 |
						    (uint32_t)d[2] << 8 | d[3]);
		} else if (m->tag < ACT_TAG_RESERVED) {
			rc = act_send(m->from, m->tag, m->data, m->len);
		}
		if (rc < 0)
			printf("echo: reply failed: %s\n", strerror(-rc));
		fflush(stdout);
		act_msg_free(m);
	}
}

static int peer_ok, peer_bad;

static void check(bool good, const char *what)
{
	printf("peer: %s %s\n", good ? "ok" : "FAIL", what);
	if (good)
		peer_ok++;
	else
		peer_bad++;
}

/* the next message of tag, within 20 s (a failure limit only) */
static bool match_tag(const struct act_msg *m, void *ctx)
{
	return m->tag == *(uint32_t *)ctx;
}

static struct act_msg *expect(uint32_t tag)
{
	return act_receive_match(match_tag, &tag, 20000000000);
}

/* a victim on the peer, linked to and monitored from here, told to exit
 * with reason (or killed with ACT_EXIT_KILL): EXIT and DOWN come back
 * with it (killed for a kill) */
static void peer_exit(act_pid echo_pid, intptr_t reason, const char *what)
{
	struct act_exit_info x, y;
	struct act_msg *m;
	unsigned char b[8];
	act_pid v;
	uint64_t ref;
	int i;

	act_send(echo_pid, 19, "", 0);
	m = expect(20);
	if (!m) {
		check(false, what);
		return;
	}
	v = m->from;
	act_msg_free(m);
	act_link(v);
	ref = act_monitor(v);
	act_send(v, 12, "ping", 4);
	m = expect(12); /* the link and the monitor are there */
	if (m)
		act_msg_free(m);
	if (reason == ACT_EXIT_KILL) {
		act_kill(v, ACT_EXIT_KILL);
	} else {
		for (i = 0; i < 8; i++)
			b[i] = (unsigned char)((uint64_t)reason >>
					       (56 - 8 * i));
		act_send(v, 11, b, 8);
	}
	m = expect(ACT_TAG_EXIT);
	if (m)
		memcpy(&x, m->data, sizeof(x));
	act_msg_free(m);
	m = expect(ACT_TAG_DOWN);
	if (m)
		memcpy(&y, m->data, sizeof(y));
	act_msg_free(m);
	if (reason == ACT_EXIT_KILL)
		reason = ACT_EXIT_KILLED;
	check(m && x.who.id == v.id && x.reason == reason && y.ref == ref &&
		      y.who.id == v.id && y.reason == reason,
	      what);
}

/* an actors node against another (no BEAM): messages by name, by pid
 * and as terms, links, monitors and a kill across them */
static void peer_checks(void)
{
	static const unsigned char term[] = { 131, 104, 2,   119, 5,  'h',
					      'e', 'l', 'l', 'o', 97, 7 };
	struct act_msg *m;
	act_pid e = ACT_PID_NONE;

	act_trap_exit(true);
	act_send_name(peer, "echo", 5, "ping", 4);
	m = expect(5);
	check(m && m->len == 4 && !memcmp(m->data, "ping", 4),
	      "a send by name, answered by pid");
	if (m)
		e = m->from;
	act_msg_free(m);
	act_send(e, 6, "by pid", 6);
	m = expect(6);
	check(m && m->len == 6 && m->from.id == e.id, "a send by pid");
	act_msg_free(m);
	act_send_term(e, term, sizeof(term));
	m = expect(ACT_TAG_TERM);
	check(m && m->len == sizeof(term) &&
		      !memcmp(m->data, term, sizeof(term)),
	      "a term ({hello, 7}) there and back");
	act_msg_free(m);
	peer_exit(e, 42, "a linked and monitored process's exit 42");
	peer_exit(e, ACT_EXIT_NORMAL, "... normal");
	peer_exit(e, ACT_EXIT_SHUTDOWN, "... shutdown");
	peer_exit(e, ACT_EXIT_KILL, "... act_kill from here: killed");
	printf("peer: done %d %d\n", peer_ok, peer_bad);
	fflush(stdout);
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
			fflush(stdout);
			if (peer_actors)
				peer_checks();
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
			"[PEER [actors]]\n");
		return 2;
	}
	name = argv[1];
	cookie = strcmp(argv[2], "-") ? argv[2] : NULL; /* -: the default */
	opts.epmd_port = (uint16_t)atoi(argv[3]);
	opts.ticktime_ms = (uint32_t)atoi(argv[4]);
	peer = argc > 5 ? argv[5] : NULL;
	peer_actors = argc > 6 && !strcmp(argv[6], "actors");
	rc = act_main(NULL, start, NULL);
	return rc < 0 ? 1 : rc;
}
