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
 * with act_send_term (the same bytes). Some requests are its own, in
 * the user form:
 *   {1, <<"pid">>}         answered with the term {pid, EchoPid}
 *   {2, <<"name", Node>>}  answered with act_send_name(Node, "tester",
 *                          3, "hi") (a send by name from here)
 *   {10, _}                a victim (below), answered {pid, VictimPid}
 *   {13, <<"link", Node>>} a watcher of the sender (below)
 *   {17, <<N:32, M:32>>}   the swarm (below), with the sender
 * With PEER it first connects there (act_dist_connect) and sends the
 * PEER's "tester" {4, <<"hello">>}. Prints "ready NAME", "connected
 * PEER" or "connect: ERROR", and on standard error the runtime's own
 * lines; runs until killed. (Two actors nodes, without BEAM, are
 * tests/dist_pair.c.)
 */
#include <actors.h>
#include <stdbool.h>
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
 * answers {12, <<"ping">>} with {12, <<"pong">>}, registers itself as
 * "victim" on {16, _} (answered {16, <<"ok">>}) */
static void victim(void *arg)
{
	(void)arg;
	for (;;) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		if (m->tag == 12) {
			act_send(m->from, 12, "pong", 4);
		} else if (m->tag == 16) {
			act_send(m->from, 16,
				 act_register("victim", act_self()) ? "no" :
								      "ok",
				 2);
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

/*
 * The swarm (dist-node.escript swarm): n swarmers here, n erl processes
 * there, and each of either side sends m messages to random ones of the
 * other side, all at once; each is answered to its sender. The erl
 * processes are known here by their hellos ({22, <<I:32>>} to the name
 * "swarm"): a pid inside a term stays bytes. Lives as long as the node.
 */
struct swarm {
	act_pid erl, coord; /* the erl side's main process, the coordinator */
	uint32_t n, m;
	act_pid *here, *there; /* by number: the swarmers, the erl processes */
	uint32_t short_n, answers; /* swarmers short of their m, answers */
};

struct swarmer_arg {
	struct swarm *sw;
	uint32_t i;
};

static uint32_t be32(const void *p)
{
	const unsigned char *d = p;

	return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
	       (uint32_t)d[2] << 8 | d[3];
}

static void put32(unsigned char *d, uint32_t v)
{
	d[0] = (unsigned char)(v >> 24);
	d[1] = (unsigned char)(v >> 16);
	d[2] = (unsigned char)(v >> 8);
	d[3] = (unsigned char)v;
}

/* swarmer i's m messages to random erl processes: the term {21, Self,
 * <<I:32, S:32>>}, which the erl process answers {21, <<I:32, S:32>>} */
static void swarm_send(const struct swarm *sw, uint32_t i)
{
	unsigned char t[ACT_PID_TERM_MAX + 24];
	ssize_t k = act_pid_term(act_self(), t + 4, ACT_PID_TERM_MAX);
	unsigned seed = i * 2654435761u + 1;
	size_t len;
	uint32_t s;

	if (k < 2)
		return;
	/* the pid's term went to t + 4: 21 takes its version byte's place */
	t[0] = 131;
	t[1] = 104; /* SMALL_TUPLE_EXT, 3 */
	t[2] = 3;
	t[3] = 97; /* SMALL_INTEGER_EXT */
	t[4] = 21;
	len = 4 + (size_t)k;
	t[len++] = 109; /* BINARY_EXT, 8 bytes */
	put32(t + len, 8);
	put32(t + len + 4, i);
	len += 8;
	for (s = 1; s <= sw->m; s++) {
		put32(t + len, s);
		act_send_term(sw->there[(uint32_t)rand_r(&seed) % sw->n], t,
			      len + 4);
	}
}

/* a swarmer: answers each message of tag 18 to its sender, the same;
 * on the coordinator's go (23) sends its own; once all m are answered
 * (21, its number first), reports {24, <<Got:32, Bad:32>>} to it */
static void swarmer(void *arg)
{
	struct swarmer_arg a = *(struct swarmer_arg *)arg;
	uint32_t got = 0, bad = 0;

	free(arg);
	for (;;) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		if (m->tag == 18) {
			act_send(m->from, 18, m->data, m->len);
		} else if (m->tag == 23) {
			swarm_send(a.sw, a.i);
		} else if (m->tag == 21 && got < a.sw->m) {
			bad += m->len != 8 || be32(m->data) != a.i;
			if (++got == a.sw->m) {
				unsigned char r[8];

				put32(r, got);
				put32(r + 4, bad);
				act_send(a.sw->coord, 24, r, sizeof(r));
			}
		}
		act_msg_free(m);
	}
}

/* the swarmers spawned, and the term {swarm, [Pid...]} of them to the
 * erl side */
static int swarm_spawn(struct swarm *sw)
{
	size_t cap = 16 + (size_t)sw->n * ACT_PID_TERM_MAX, len = 0;
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
	put32(t + len, sw->n);
	len += 4;
	for (i = 0; i < sw->n; i++) {
		struct swarmer_arg *a = malloc(sizeof(*a));
		ssize_t k;

		if (!a) {
			free(t);
			return -1;
		}
		a->sw = sw;
		a->i = i + 1;
		sw->here[i] = act_spawn(swarmer, a);
		k = act_pid_term(sw->here[i], p, sizeof(p));
		if (k < 2) {
			free(t);
			return -1;
		}
		memcpy(t + len, p + 1, (size_t)k - 1);
		len += (size_t)k - 1;
	}
	t[len++] = 106; /* NIL_EXT */
	rc = act_send_term(sw->erl, t, len);
	free(t);
	return rc;
}

static bool is_tag(const struct act_msg *m, void *ctx)
{
	return m->tag == *(const uint32_t *)ctx;
}

/* up to n messages of tag, each within 120 s (a failure limit only);
 * fn(sw, msg) for each; how many came */
static uint32_t swarm_take(struct swarm *sw, uint32_t tag, uint32_t n,
			   void (*fn)(struct swarm *, const struct act_msg *))
{
	uint32_t k;

	for (k = 0; k < n; k++) {
		struct act_msg *m =
			act_receive_match(is_tag, &tag, 120000000000);

		if (!m)
			break;
		fn(sw, m);
		act_msg_free(m);
	}
	return k;
}

static void swarm_hello(struct swarm *sw, const struct act_msg *m)
{
	uint32_t i = m->len == 4 ? be32(m->data) : 0;

	if (i >= 1 && i <= sw->n)
		sw->there[i - 1] = m->from;
}

static void swarm_report(struct swarm *sw, const struct act_msg *m)
{
	if (m->len == 8 && be32(m->data) == sw->m &&
	    !be32((const char *)m->data + 4))
		sw->short_n--;
	sw->answers += m->len == 8 ? be32(m->data) : 0;
}

/* the swarm's coordinator, "swarm": starts the swarmers, learns the erl
 * processes, says go to both sides ({26, <<"go">>} to the erl side),
 * and tells the erl side {25, <<Short:32, Answers:32>>}: how many
 * swarmers here did not get all their answers, and how many came */
static void swarm_coord(void *arg)
{
	struct swarm *sw = arg;
	unsigned char r[8];
	uint32_t i;

	sw->coord = act_self();
	act_register("swarm", sw->coord);
	if (swarm_spawn(sw) < 0 ||
	    swarm_take(sw, 22, sw->n, swarm_hello) < sw->n) {
		printf("swarm: no start\n");
		return;
	}
	for (i = 0; i < sw->n; i++)
		act_send(sw->here[i], 23, NULL, 0);
	act_send(sw->erl, 26, "go", 2);
	sw->short_n = sw->n;
	swarm_take(sw, 24, sw->n, swarm_report);
	put32(r, sw->short_n);
	put32(r + 4, sw->answers);
	act_send(sw->erl, 25, r, sizeof(r));
	act_unregister("swarm");
}

/* {17, <<N:32, M:32>>}: the swarm */
static int swarm(act_pid erl, const struct act_msg *m)
{
	struct swarm *sw = calloc(1, sizeof(*sw));

	if (!sw || m->len != 8)
		goto fail;
	sw->erl = erl;
	sw->n = be32(m->data);
	sw->m = be32((const char *)m->data + 4);
	sw->here = calloc(sw->n, sizeof(act_pid));
	sw->there = calloc(sw->n, sizeof(act_pid));
	if (!sw->n || !sw->here || !sw->there)
		goto fail;
	act_spawn(swarm_coord, sw);
	return 0;
fail:
	if (sw) {
		free(sw->here);
		free(sw->there);
	}
	free(sw);
	return -1;
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
		} else if (m->tag == 17) {
			rc = swarm(m->from, m);
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
			fflush(stdout);
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
	cookie = strcmp(argv[2], "-") ? argv[2] : NULL; /* -: the default */
	opts.epmd_port = (uint16_t)atoi(argv[3]);
	opts.ticktime_ms = (uint32_t)atoi(argv[4]);
	peer = argc > 5 ? argv[5] : NULL;
	rc = act_main(NULL, start, NULL);
	return rc < 0 ? 1 : rc;
}
