/* SPDX-License-Identifier: MIT */
/*
 * test_dist_route.c - a send to a remote pid (lib/dist/route.c): before
 * distribution starts, to a pid no one met, to a node with no
 * connection, each refused with its own error; once a node has a
 * connection process, each send reaches it as one forward: the remote
 * pid, the sender's tag, the sender as msg.from (none from a thread of
 * no process; a timer's setter), the bytes whole, up to ACT_MSG_MAX of
 * them. A connection
 * process stands in for the real one here: a process of the test.
 *
 * What the observers show of a node (doc/observability.md): a process's
 * links and monitors with a remote one, counted by act_process_info and
 * named with their node by act_dump; the node's traffic in ACTORS_STATS'
 * interval lines (their sums are its counters) and its line at the
 * stop; the trace's counter tracks, sampled by the workers and once
 * more at the stop with the final figures.
 */
#include <inttypes.h>
#include <pthread.h>

#include "config.h" /* ACT_HAVE_EI */
#include "testrt.h"
#include "dist/peers.h"
#include "dist/route.h"
#include "sched/rt.h"

static act_pid remote;

/* A foreign thread's send: from no process. */
static void *foreign_send(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)act_send(remote, 9, "x", 1);
}

/* one forward received: its header and bytes checked */
static void expect_fwd(act_pid from, uint32_t tag, const void *p, size_t n)
{
	struct act_msg *m = act_receive(TU_WAIT);
	struct act__route_fwd h;

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, ACT__TAG_DIST_SEND);
	ck_assert_uint_eq(m->len, sizeof(h) + n);
	memcpy(&h, m->data, sizeof(h));
	ck_assert(act_pid_eq(h.to, remote));
	ck_assert_uint_eq(h.tag, tag);
	ck_assert(act_pid_eq(m->from, from));
	ck_assert(!memcmp((char *)m->data + sizeof(h), p, n));
	act_msg_free(m);
}

/*
 * A send to a pid of node erl, which has no connection: with libei the
 * send starts one (a connection process that dials, the send queued in
 * its mailbox) and succeeds; here the node cannot be reached (a setup
 * time of 0: distribution was started without act_dist_start), so the
 * connection process gives up and takes its pid off the node. Without
 * libei there is no connection to make: -ENOTCONN.
 */
static void no_connection(struct act__peer *erl)
{
#if ACT_HAVE_EI
	int i;

	ck_assert_int_eq(act_send(remote, 1, "a", 1), 0);
	/* acquire: pairs with the release stores of proxy (conn.c) */
	ck_assert_uint_ne(
		atomic_load_explicit(&erl->proxy, memory_order_acquire), 0);
	for (i = 0; i < 100000 &&
		    atomic_load_explicit(&erl->proxy, memory_order_acquire);
	     i++)
		act_sleep(TU_MS);
	ck_assert_uint_eq(
		atomic_load_explicit(&erl->proxy, memory_order_acquire), 0);
#else
	ck_assert_int_eq(act_send(remote, 1, "a", 1), -ENOTCONN);
#endif
}

static void route_main(void *arg)
{
	struct act__rt *rt = act__rt_current;
	struct act__rpid r = { 7, 3, 99 };
	struct act__peer *erl;
	struct act__dist *d;
	pthread_t t;
	void *rc;
	char *big;

	(void)arg;
	/* not started: as any pid no slot holds */
	ck_assert_int_eq(act_send(act__peers_pid_make(1, 0), 1, "a", 1),
			 -ESRCH);
	ck_assert_int_eq(act__route_start(rt, "me@host", 5), 0);
	ck_assert_int_eq(act__route_start(rt, "me@host", 5), -EALREADY);
	d = act__route_dist(rt);
	ck_assert_int_eq(act__peers_get(&d->peers, "erl@host", 8, &erl), 0);
	/* a pid of the node that no term named yet */
	ck_assert_int_eq(act_send(act__peers_pid_make(erl->num, 0), 1, "a", 1),
			 -ESRCH);
	ck_assert_int_eq(act__peers_pid_get(erl, &r, &remote), 0);
	/* met, but its node has no connection */
	no_connection(erl);
	/* this process stands for the node's connection */
	act__route_set_proxy(erl, act_self());
	ck_assert_int_eq(act_send(remote, 7, "hello", 5), 0);
	expect_fwd(act_self(), 7, "hello", 5);
	ck_assert_int_eq(act_send(remote, 0, NULL, 0), 0);
	expect_fwd(act_self(), 0, "", 0);
	ck_assert_int_eq(pthread_create(&t, NULL, foreign_send, NULL), 0);
	pthread_join(t, &rc);
	ck_assert_int_eq((intptr_t)rc, 0);
	expect_fwd(ACT_PID_NONE, 9, "x", 1);
	/* a timer's message: from the process that set it */
	ck_assert_int_eq(act_send_after(TU_MS, remote, 4, "later", 5, NULL), 0);
	expect_fwd(act_self(), 4, "later", 5);
	/* the largest message, and one past it */
	big = malloc(ACT_MSG_MAX + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, 'b', ACT_MSG_MAX + 1);
	ck_assert_int_eq(act_send(remote, 3, big, ACT_MSG_MAX), 0);
	expect_fwd(act_self(), 3, big, ACT_MSG_MAX);
	ck_assert_int_eq(act_send(remote, 3, big, ACT_MSG_MAX + 1), -EMSGSIZE);
	free(big);
	/* the connection gone */
	act__route_set_proxy(erl, ACT_PID_NONE);
	no_connection(erl);
	/* a reserved tag stays refused, remote or not */
	ck_assert_int_eq(act_send(remote, ACT_TAG_RESERVED, "a", 1), -EINVAL);
}

START_TEST(route)
{
	struct act_config cfg = tu_with_workers(2);

	ck_assert_int_eq(tu_run_main(&cfg, route_main, NULL), 0);
}
END_TEST

/* ---- what the observers show of a node ------------------------------------ */

enum { STAND_MONITOR = 1, STAND_QUIT };

static act_pid boss;	       /* figures_main */
static const char *stats_path; /* its stderr: the interval lines */

/* The node's connection process, stood in for: it takes what the
 * relations tell it (ACT__TAG_LINK_SIG), monitors the boss when told (a
 * remote process's monitor is its node's connection process's own, here)
 * and says so, and leaves when told. */
static void stand_in(void *arg)
{
	struct act_msg *m;
	uint32_t tag;

	(void)arg;
	for (;;) {
		m = act_receive(ACT_FOREVER);
		tag = m->tag;
		act_msg_free(m);
		if (tag == STAND_QUIT)
			return;
		if (tag == STAND_MONITOR) {
			ck_assert_uint_ne(act_monitor(boss), 0);
			ck_assert_int_eq(act_send(boss, STAND_MONITOR, NULL, 0),
					 0);
		}
	}
}

/* The line of act_dump's output after pid's, and whether pid's ends
 * with `tail` */
static void dump_lines(act_pid pid, const char *tail, char *next, size_t cap)
{
	char s[ACT_PID_STRLEN], *out = NULL, *l, *e;
	size_t len = 0, n = strlen(tail);
	FILE *f = open_memstream(&out, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(act_dump(f), 0);
	fclose(f);
	act_pid_format(pid, s, sizeof(s));
	next[0] = '\0';
	for (l = out; l && *l; l = e ? e + 1 : NULL) {
		e = strchr(l, '\n');
		if (strncmp(l, s, strlen(s)) || l[strlen(s)] != ' ')
			continue;
		ck_assert_ptr_nonnull(e);
		ck_assert_msg(e - l >= (ptrdiff_t)n && !strncmp(e - n, tail, n),
			      "%.*s: not ending with %s", (int)(e - l), l,
			      tail);
		l = e + 1;
		e = strchr(l, '\n');
		snprintf(next, cap, "%.*s", e ? (int)(e - l) : (int)strlen(l),
			 l);
		break;
	}
	free(out);
}

/* The interval lines of node erl@host in file path: how many, their
 * figures summed (frames in, bytes in, reads, frames out, bytes out,
 * writes, tick misses) and how many said "(up)" */
static int node_sums(const char *path, uint64_t sum[7], int *up)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0, i;

	memset(sum, 0, 7 * sizeof(*sum));
	*up = 0;
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "s node erl@host (");
		uint64_t v[7];
		char st[8];

		if (strncmp(line, "actors: ", 8) || !p ||
		    sscanf(p,
			   "s node erl@host (%7[a-z]): %" SCNu64
			   " frames in (%" SCNu64 " bytes, %" SCNu64
			   " reads), %" SCNu64 " out (%" SCNu64
			   " bytes, %" SCNu64 " writes), %" SCNu64
			   " tick misses",
			   st, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6]) != 8)
			continue;
		for (i = 0; i < 7; i++)
			sum[i] += v[i];
		*up += !strcmp(st, "up");
		n++;
	}
	fclose(f);
	return n;
}

static const uint64_t traffic[7] = { 5, 100, 3, 7, 200, 4, 1 };

/* The node's counters, as its connection would have counted them */
static void count_traffic(struct act__peer *nd)
{
	atomic_store_explicit(&nd->up, 1, memory_order_relaxed);
	atomic_store_explicit(&nd->msgs_in, traffic[0], memory_order_relaxed);
	atomic_store_explicit(&nd->bytes_in, traffic[1], memory_order_relaxed);
	atomic_store_explicit(&nd->reads, traffic[2], memory_order_relaxed);
	atomic_store_explicit(&nd->msgs_out, traffic[3], memory_order_relaxed);
	atomic_store_explicit(&nd->bytes_out, traffic[4], memory_order_relaxed);
	atomic_store_explicit(&nd->writes, traffic[5], memory_order_relaxed);
	atomic_store_explicit(&nd->tick_misses, (uint32_t)traffic[6],
			      memory_order_relaxed);
}

static bool is_tag(const struct act_msg *m, void *ctx)
{
	return m->tag == *(const uint32_t *)ctx;
}

/* the relations with remote pid `remote`, through node erl's stand-in
 * connection process conn: counted, and named in act_dump */
static void relations(act_pid conn, uint64_t *mref)
{
	struct act_process_info in;
	uint32_t tag = STAND_MONITOR;
	char next[512];

	ck_assert_int_eq(act_link(remote), 0);
	*mref = act_monitor(remote);
	ck_assert_uint_ne(*mref, 0);
	ck_assert_int_eq(act_send(conn, STAND_MONITOR, NULL, 0), 0);
	act_msg_free(act_receive_match(is_tag, &tag, TU_WAIT));
	/* the counts include them: here, and on the connection process
	 * their second sides (and its own monitor) */
	ck_assert_int_eq(act_process_info(boss, &in), 0);
	ck_assert_uint_eq(in.links, 1);
	ck_assert_uint_eq(in.monitors, 1);
	ck_assert_uint_eq(in.monitored_by, 1);
	ck_assert_int_eq(act_process_info(conn, &in), 0);
	ck_assert_uint_eq(in.links, 1);
	ck_assert_uint_eq(in.monitors, 1);
	ck_assert_uint_eq(in.monitored_by, 1);
	/* act_dump names the node of each; the connection process is
	 * named for its node */
	dump_lines(boss, " figures", next, sizeof(next));
	ck_assert_str_eq(next, "  remote: link <2.0.0>@erl@host, monitor "
			       "<2.0.0>@erl@host, monitored-by erl@host");
	dump_lines(conn, " conn=erl@host", next, sizeof(next));
	ck_assert(strncmp(next, "  remote:", 9) != 0);
}

/* The interval lines add up to the node's counters (waited for: a
 * failure limit only), and some said it was up; this node (me@host)
 * has none */
static void interval_lines(void)
{
	uint64_t sum[7];
	int i, up = 0, k;

	for (i = 0; i < 20000; i++) {
		if (node_sums(stats_path, sum, &up) &&
		    !memcmp(sum, traffic, sizeof(sum)))
			break;
		act_sleep(TU_MS);
	}
	for (k = 0; k < 7; k++)
		ck_assert_uint_eq(sum[k], traffic[k]);
	ck_assert_int_gt(up, 0);
}

static void figures_main(void *arg)
{
	struct act__rt *rt = act__rt_current;
	struct act__rpid r = { 7, 3, 99 };
	struct act__peer *erl;
	act_pid conn;
	uint64_t mref;
	uint32_t tag = ACT_TAG_DOWN;

	(void)arg;
	boss = act_self();
	ck_assert_int_eq(act_register("figures", boss), 0);
	ck_assert_int_eq(act__route_start(rt, "me@host", 5), 0);
	ck_assert_int_eq(act__peers_get(&act__route_dist(rt)->peers, "erl@host",
					8, &erl),
			 0);
	ck_assert_int_eq(act__peers_pid_get(erl, &r, &remote), 0);
	ck_assert_int_eq(act_spawn_pid(stand_in, NULL, NULL, &conn), 0);
	act__route_set_proxy(erl, conn);
	relations(conn, &mref);
	count_traffic(erl);
	interval_lines();
	/* two idle turns of this worker at least a sample's period apart:
	 * one samples the figures for the trace */
	act_sleep(2 * TU_MS);
	act_sleep(2 * TU_MS);
	ck_assert_int_eq(act_unlink(remote), 0);
	ck_assert_int_eq(act_demonitor(mref), 0);
	act_monitor(conn);
	ck_assert_int_eq(act_send(conn, STAND_QUIT, NULL, 0), 0);
	act_msg_free(act_receive_match(is_tag, &tag, TU_WAIT));
}

/* Lines of text that contain `what`: how many, and how many of those
 * have "tid":tid */
static int lines_with(const char *text, const char *what, int tid, int *on)
{
	char t[32];
	const char *l, *e, *p;
	int n = 0;

	snprintf(t, sizeof(t), "\"tid\":%d,", tid);
	*on = 0;
	for (l = text; (p = strstr(l, what)); l = e + 1) {
		for (l = p; l > text && l[-1] != '\n'; l--)
			;
		e = strchr(p, '\n');
		ck_assert_ptr_nonnull(e);
		n++;
		p = strstr(l, t);
		*on += p && p < e;
	}
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t cap = 0, n = 0;
	size_t k;

	ck_assert_ptr_nonnull(f);
	do {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			s = realloc(s, cap);
			ck_assert_ptr_nonnull(s);
		}
		k = fread(s + n, 1, 4096, f);
		n += k;
	} while (k);
	s[n] = '\0';
	fclose(f);
	return s;
}

START_TEST(figures)
{
	struct act_config cfg = tu_with_workers(1);
	char stats[] = "/tmp/act-figures-XXXXXX",
	     trace[] = "/tmp/act-trace-XXXXXX";
	int fd = mkstemp(stats), tfd = mkstemp(trace), saved = dup(2), rc;
	int on, up, k;
	uint64_t sum[7];
	char *text;

	ck_assert(fd >= 0 && tfd >= 0 && saved >= 0);
	close(tfd);
	stats_path = stats;
	cfg.trace = trace;
	setenv("ACTORS_STATS", "1ms", 1);
	ck_assert_int_eq(dup2(fd, 2), 2);
	rc = tu_run_main(&cfg, figures_main, NULL);
	dup2(saved, 2);
	close(saved);
	close(fd);
	unsetenv("ACTORS_STATS");
	ck_assert_int_eq(rc, 0);
	/* every line, the ones after the traffic too (nothing new: 0) */
	ck_assert_int_gt(node_sums(stats, sum, &up), 1);
	for (k = 0; k < 7; k++)
		ck_assert_uint_eq(sum[k], traffic[k]);
	text = slurp(stats);
	ck_assert_msg(strstr(text, "actors: dist: node erl@host: 5 frames in "
				   "(100 bytes, 3 reads), 7 out (200 bytes, "
				   "4 writes), 1 tick misses\n"),
		      "%s", text);
	ck_assert_ptr_null(strstr(text, "node me@host"));
	free(text);
	/* the trace: the node's counter tracks, with the figures sampled
	 * by the worker (tid 1) and at the stop on the reactor's track
	 * (tid 2) */
	text = slurp(trace);
	ck_assert_int_gt(
		lines_with(text,
			   "\"name\":\"node erl@host frames\",\"cat\":\"dist\","
			   "\"args\":{\"in\":5,\"out\":7,\"tick "
			   "misses\":1}}",
			   1, &on),
		0);
	ck_assert_int_gt(on, 0);
	lines_with(text,
		   "\"name\":\"node erl@host frames\",\"cat\":\"dist\","
		   "\"args\":{\"in\":5,\"out\":7,\"tick "
		   "misses\":1}}",
		   2, &on);
	ck_assert_int_eq(on, 1);
	lines_with(text,
		   "\"name\":\"node erl@host bytes\",\"cat\":\"dist\","
		   "\"args\":{\"in\":100,\"out\":200}}",
		   2, &on);
	ck_assert_int_eq(on, 1);
	ck_assert_ptr_null(strstr(text, "node me@host"));
	free(text);
	unlink(stats);
	unlink(trace);
}
END_TEST

static Suite *dist_route_suite(void)
{
	Suite *s = suite_create("dist_route");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, route);
	tcase_add_test(tc, figures);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(dist_route_suite());
}
