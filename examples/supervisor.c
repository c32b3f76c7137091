/* SPDX-License-Identifier: MIT */
/*
 * supervisor.c - the library's supervisor (act_sup_start(3)) at work: a
 * demo that crashes its workers on purpose.
 *
 *   supervisor [--workers N] [--intensity R] [--period MS]
 *
 * The main process, the client, starts a one-for-one supervisor of N
 * transient workers (restarted unless they exit with ACT_EXIT_NORMAL or
 * ACT_EXIT_SHUTDOWN), R restarts allowed within T ms. A worker's child
 * init registers its name, "worker.<i>", so a restart is complete, name
 * included, when the supervisor has it. A worker answers TAG_DIV calls
 * with the quotient and crashes (exits with WORKER_EXIT_DIVZERO) when
 * asked to divide by zero: let it crash, the supervisor starts a new one.
 *
 * The client checks, through act_whereis() names only: every worker
 * answers; a crashed worker is restarted under its name as a new process
 * that answers; a normal exit and a shutdown are not restarted; the window
 * slides; and R + 1 crashes within T ms make the supervisor give up: it
 * shuts the other workers down, then exits with ACT_EXIT_SHUTDOWN, an
 * EXIT to the client (its parent, linked, trapping exits). The client
 * learns each decision from act_sup_which_children(), asked after the
 * crashed worker's DOWN (an exiting process signals its links before its
 * monitors, so the question comes after the EXIT), and checks it against
 * its own clock (check_window()).
 *
 * Changed with the move from a supervisor made by hand: that one reported
 * each decision, with the exit it saw and the restarts it counted in its
 * window, and the client checked both; the library's tells its children's
 * pids only, so the client checks the decision alone (the exit reason it
 * has from its own call's DOWN). That one gave up with a reason of its
 * own; the library's, as OTP's, with ACT_EXIT_SHUTDOWN. And as R + 1
 * crashes within T need a quick enough machine, the client crashes
 * worker.0 until the supervisor gives up (the window slides meanwhile),
 * failing only after 20 (R + 1) crashes, not 2 (R + 1) + 10.
 *
 * Exit status: 0 when every check held, 1 with a line naming the check
 * that did not, 2 for bad options. Every receive has a timeout, so a lost
 * message is a failed check, never a hang (a question to the supervisor
 * ends when it answers or exits).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <actors.h>

#include "opt.h"
#include "util.h"

#define WORKERS_MAX 64
#define INTENSITY_MAX 100
#define PERIOD_MIN_MS 50 /* shorter: too short to crash R + 1 times */
#define PERIOD_MAX_MS 60000
#define WINDOW_TEST_MAX_MS 2000 /* longest period the demo waits out */
#define NAME_LEN 32
#define SPANS_MAX 512

#define MS 1000000LL
#define WAIT_NS (10000 * MS) /* each of the client's waits */
#define IDLE_NS (60000 * MS) /* a worker with nothing to do stops */

#define WORKER_EXIT_DIVZERO 10 /* a worker asked to divide by zero */

enum {
	TAG_DIV = 1, /* client -> worker: act_call, struct div_req */
	TAG_RESULT,  /* worker -> client: act_reply, the quotient (long) */
	TAG_STOP,    /* client -> worker: return (ACT_EXIT_NORMAL) */
};

struct div_req {
	long a, b;
};

struct text {
	char s[48]; /* ACT_PID_STRLEN or more */
};

static struct text pid_text(act_pid pid)
{
	struct text t;

	act_pid_format(pid, t.s, sizeof(t.s));
	return t;
}

static struct text reason_text(intptr_t r)
{
	struct text t;

	snprintf(t.s, sizeof(t.s), "%s (%ld)",
		 r == ACT_EXIT_NORMAL	  ? "normal" :
		 r == ACT_EXIT_SHUTDOWN	  ? "shutdown" :
		 r == WORKER_EXIT_DIVZERO ? "divide by zero" :
					    "other",
		 (long)r);
	return t;
}

static act_pid whereis(int i) /* ACT_PID_NONE: no such name */
{
	char name[NAME_LEN];

	snprintf(name, sizeof(name), "worker.%d", i);
	return act_whereis(name);
}

/* ---- a worker --------------------------------------------------------- */

/* Its child init, in its own process: its name, or the start fails. */
static int worker_init(void *arg)
{
	char name[NAME_LEN];
	int rc;

	snprintf(name, sizeof(name), "worker.%d", (int)(intptr_t)arg);
	rc = act_register(name, act_self());
	if (rc < 0)
		fprintf(stderr, "%s: act_register: %s\n", name, strerror(-rc));
	return rc;
}

/* Serves until TAG_STOP, or IDLE_NS without a message. */
static void worker(void *arg)
{
	struct div_req req;
	struct act_msg *m;
	bool stop = false;
	long q;

	(void)arg;
	while (!stop && (m = act_receive(IDLE_NS)) != NULL) {
		stop = m->tag == TAG_STOP;
		if (m->tag == TAG_DIV && m->len == sizeof(req)) {
			memcpy(&req, m->data, sizeof(req));
			if (req.b == 0 || (req.a == LONG_MIN && req.b == -1)) {
				/* let it crash; act_exit() frees nothing */
				act_msg_free(m);
				act_exit(WORKER_EXIT_DIVZERO);
			}
			q = req.a / req.b;
			/* -ESRCH: the caller left; else its call times out */
			(void)act_reply(m, TAG_RESULT, &q, sizeof(q));
		}
		act_msg_free(m); /* anything else: dropped */
	}
}

/* ---- the client (the main process) ------------------------------------ */

struct client {
	int workers, intensity, period_ms; /* the options: N, R, T */
	act_pid sup;
	int checks; /* checks that held */
	/*
	 * The restarts that may still count in the window, oldest first:
	 * each was made at some time in [start, end] of the client's clock
	 * (start: before the call that crashed the worker; end: after the
	 * supervisor's answer on it).
	 */
	int nspans;
	struct span {
		int64_t start, end;
	} spans[SPANS_MAX];
};

static void fail(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "client: check failed: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	act_exit(1);
}

static void monitor(act_pid pid)
{
	if (act_monitor(pid) == 0)
		fail("act_monitor(%s) failed", pid_text(pid).s);
}

static bool is_end_of(const struct act_msg *m, void *ctx)
{
	struct act_exit_info info;

	if ((m->tag != ACT_TAG_EXIT && m->tag != ACT_TAG_DOWN) ||
	    m->len != sizeof(info))
		return false;
	memcpy(&info, m->data, sizeof(info));
	return act_pid_eq(info.who, *(const act_pid *)ctx);
}

/* Waits for pid's DOWN (monitored) or EXIT (linked); its exit reason. */
static intptr_t await_end(act_pid pid)
{
	struct act_msg *m = act_receive_match(is_end_of, &pid, WAIT_NS);
	struct act_exit_info info;

	if (m == NULL)
		fail("no DOWN or EXIT from %s in %lld ms", pid_text(pid).s,
		     WAIT_NS / MS);
	memcpy(&info, m->data, sizeof(info));
	act_msg_free(m);
	return info.reason;
}

/*
 * Asks worker i, pid, for a / b: it must answer right or, b being 0, die
 * with WORKER_EXIT_DIVZERO (act_call's -ECONNRESET, its DOWN in m).
 */
static void ask(struct client *c, int i, act_pid pid, long a, long b)
{
	struct div_req req = { a, b };
	long want = b ? a / b : WORKER_EXIT_DIVZERO, got = 0;
	struct act_msg *m = NULL;
	int rc;

	rc = act_call(pid, TAG_DIV, &req, sizeof(req), WAIT_NS, &m);
	if (rc == -ECONNRESET)
		got = ((const struct act_exit_info *)m->data)->reason;
	else if (rc == 0 && m->len == sizeof(got))
		memcpy(&got, m->data, sizeof(got));
	act_msg_free(m);
	if (rc != (b ? 0 : -ECONNRESET) || got != want)
		fail("worker.%d %s, %ld / %ld: %s %ld, not %s %ld", i,
		     pid_text(pid).s, a, b,
		     rc == 0	       ? "answered" :
		     rc == -ECONNRESET ? "exited with" :
					 strerror(-rc),
		     got, b ? "answered" : "exited with", want);
	c->checks++;
}

/*
 * What the supervisor has for worker i: true and its pid (ACT_PID_NONE:
 * not running), or false when the supervisor has exited.
 */
static bool sup_child(struct client *c, int i, act_pid *pid)
{
	struct act_sup_child_info info[WORKERS_MAX];
	char name[NAME_LEN];
	int n = act_sup_which_children(c->sup, info, WORKERS_MAX);

	if (n == -ESRCH || n == -ECONNRESET)
		return false;
	if (n < 0)
		fail("act_sup_which_children: %s", strerror(-n));
	/* transient children keep their specs, in start order */
	snprintf(name, sizeof(name), "worker.%d", i);
	if (n != c->workers || strcmp(info[i].id, name) != 0)
		fail("the supervisor has %d children, not %d from worker.0", n,
		     c->workers);
	if (info[i].state == ACT_SUP_CHILD_RESTARTING)
		fail("the supervisor could not restart %s", name);
	*pid = info[i].pid;
	return true;
}

/*
 * The supervisor restarted (or gave up on) a worker at some time t in
 * [start, end]. A restart k was within the period T before t for sure
 * when k's span began at or after end - T, and maybe when it ended at or
 * after start - T (those that ended before can never count again: they
 * go). So the supervisor must give up when the sure count plus this one
 * passes R, and must restart when the maybe count plus this one does not.
 */
static void check_window(struct client *c, int64_t start, int64_t end,
			 bool restarted)
{
	int64_t t = c->period_ms * MS;
	int k, sure = 0, r = c->intensity;

	for (k = 0; k < c->nspans && c->spans[k].end < start - t; k++)
		;
	c->nspans -= k;
	memmove(c->spans, c->spans + k, c->nspans * sizeof(c->spans[0]));
	for (k = 0; k < c->nspans; k++)
		sure += c->spans[k].start >= end - t;
	if (restarted && sure + 1 > r)
		fail("a restart although %d restarts fell within the %d ms "
		     "before it (intensity %d)",
		     sure, c->period_ms, r);
	if (!restarted && c->nspans + 1 <= r)
		fail("the supervisor gave up although at most %d restarts "
		     "fell within the %d ms before (intensity %d)",
		     c->nspans, c->period_ms, r);
	c->checks++;
}

/*
 * Crashes worker i; checks the supervisor's decision and its new worker.
 * True when it was restarted. False when the supervisor exited instead,
 * its reason in *reason; with reason NULL, that fails the check.
 */
static bool crash(struct client *c, int i, intptr_t *reason)
{
	act_pid old = whereis(i), new;
	int64_t start = util_now_ns(), end;
	bool restarted;

	ask(c, i, old, 1, 0);
	restarted = sup_child(c, i, &new);
	end = util_now_ns();
	check_window(c, start, end, restarted);
	if (!restarted && reason == NULL)
		fail("the supervisor exited (%s) instead of restarting "
		     "worker.%d",
		     reason_text(await_end(c->sup)).s, i);
	if (!restarted) {
		*reason = await_end(c->sup);
		return false;
	}
	if (act_pid_eq(new, ACT_PID_NONE) || act_pid_eq(new, old) ||
	    !act_pid_eq(whereis(i), new))
		fail("worker.%d %s crashed: the supervisor has %s, the name "
		     "%s; not one new process",
		     i, pid_text(old).s, pid_text(new).s,
		     pid_text(whereis(i)).s);
	ask(c, i, new, 84, 4);
	if (c->nspans == SPANS_MAX)
		fail("more than %d restarts in a period", SPANS_MAX);
	c->spans[c->nspans++] = (struct span){ start, end };
	printf("client: worker.%d %s crashed; worker.%d is now %s, which "
	       "answers 84 / 4 = 21\n",
	       i, pid_text(old).s, i, pid_text(new).s);
	return true;
}

/* Ends worker i with TAG_STOP (normal) or act_kill (shutdown). */
static void check_transient(struct client *c, int i, intptr_t how)
{
	act_pid old = whereis(i), now;
	intptr_t why;

	monitor(old);
	/* a failed send or kill: no DOWN, and await_end() says so */
	if (how == ACT_EXIT_NORMAL)
		(void)act_send(old, TAG_STOP, NULL, 0);
	else
		(void)act_kill(old, how);
	why = await_end(old);
	if (why != how)
		fail("worker.%d %s ended with %s, not %s", i, pid_text(old).s,
		     reason_text(why).s, reason_text(how).s);
	if (!sup_child(c, i, &now))
		fail("the supervisor exited (%s) after worker.%d's exit",
		     reason_text(await_end(c->sup)).s, i);
	if (!act_pid_eq(now, ACT_PID_NONE) ||
	    !act_pid_eq(whereis(i), ACT_PID_NONE))
		fail("worker.%d %s ended with %s; then the supervisor had %s, "
		     "the name %s",
		     i, pid_text(old).s, reason_text(why).s, pid_text(now).s,
		     pid_text(whereis(i)).s);
	printf("client: worker.%d %s exited: %s; not restarted, as it "
	       "should\n",
	       i, pid_text(old).s, reason_text(why).s);
	c->checks++;
}

static void start_supervisor(struct client *c)
{
	struct act_sup_child kids[WORKERS_MAX] = { 0 };
	char ids[WORKERS_MAX][NAME_LEN];
	struct act_sup_spec spec;
	int i, rc;

	for (i = 0; i < c->workers; i++) {
		snprintf(ids[i], sizeof(ids[i]), "worker.%d", i);
		kids[i].id = ids[i]; /* copied by the supervisor */
		kids[i].fn = worker;
		kids[i].init = worker_init;
		kids[i].arg = (void *)(intptr_t)i;
		kids[i].restart = ACT_SUP_TRANSIENT;
	}
	act_sup_spec_init(&spec);
	spec.intensity = c->intensity;
	spec.period_ns = c->period_ms * MS;
	spec.children = kids;
	spec.nchildren = (size_t)c->workers;
	rc = act_sup_start(&spec, &c->sup);
	if (rc != 0)
		fail("act_sup_start: %s", rc < 0 ? strerror(-rc) : "ignored");
	printf("client: supervisor %s started %d workers (intensity %d "
	       "restarts in %d ms)\n",
	       pid_text(c->sup).s, c->workers, c->intensity, c->period_ms);
}

/* Fills the window with R restarts, lets it slide, crashes once more. */
static void check_slide(struct client *c)
{
	int64_t until, left;

	while (c->nspans < c->intensity)
		crash(c, 0, NULL);
	until = c->spans[c->nspans - 1].end + (c->period_ms + 1) * MS;
	printf("client: %d restarts made; waiting %d ms for the window to "
	       "slide past them\n",
	       c->nspans, c->period_ms);
	while ((left = until - util_now_ns()) > 0)
		if (act_sleep(left) < 0)
			fail("act_sleep(%lld ns) failed", (long long)left);
	crash(c, 0, NULL);
	printf("client: restarted after the window slid, as it should\n");
}

/* Crashes worker.0 until the supervisor gives up; checks the rest. */
static void check_give_up(struct client *c)
{
	act_pid pids[WORKERS_MAX];
	intptr_t reason;
	int i, n;

	for (i = 1; i < c->workers; i++) {
		pids[i] = whereis(i); /* none: stopped, not restarted */
		if (!act_pid_eq(pids[i], ACT_PID_NONE))
			monitor(pids[i]);
	}
	printf("client: crashing worker.0 until the supervisor gives up\n");
	for (n = 1; crash(c, 0, &reason); n++)
		if (n == 20 * (c->intensity + 1))
			fail("the supervisor did not give up after %d crashes: "
			     "never more than %d within %d ms; try a longer "
			     "--period",
			     n, c->intensity, c->period_ms);
	if (reason != ACT_EXIT_SHUTDOWN)
		fail("the supervisor exited with %s, not %s",
		     reason_text(reason).s, reason_text(ACT_EXIT_SHUTDOWN).s);
	printf("client: the supervisor gave up on crash %d of this round: "
	       "EXIT %s\n",
	       n, reason_text(reason).s);
	for (i = 1; i < c->workers; i++) {
		if (act_pid_eq(pids[i], ACT_PID_NONE))
			continue;
		reason = await_end(pids[i]);
		if (reason != ACT_EXIT_SHUTDOWN)
			fail("worker.%d %s ended with %s, not shutdown", i,
			     pid_text(pids[i]).s, reason_text(reason).s);
	}
	for (i = 0; i < c->workers; i++)
		if (!act_pid_eq(whereis(i), ACT_PID_NONE))
			fail("\"worker.%d\" still names %s after the shutdown",
			     i, pid_text(whereis(i)).s);
	c->checks++;
}

static void demo(void *arg)
{
	struct client *c = arg;
	int i, n = c->intensity < 3 ? c->intensity : 3;

	(void)act_trap_exit(true); /* the supervisor's exit: an EXIT */
	start_supervisor(c);
	for (i = 0; i < c->workers; i++)
		ask(c, i, whereis(i), 100 + i, 7);
	printf("client: all %d workers answer\n", c->workers);
	for (i = 0; i < n; i++)
		crash(c, i % c->workers, NULL);
	if (c->workers >= 2)
		check_transient(c, c->workers - 1, ACT_EXIT_NORMAL);
	if (c->workers >= 3)
		check_transient(c, c->workers - 2, ACT_EXIT_SHUTDOWN);
	if (c->intensity > 0 && c->period_ms <= WINDOW_TEST_MAX_MS)
		check_slide(c);
	else
		printf("client: not testing the window's slide (needs an "
		       "intensity > 0 and a period <= %d ms)\n",
		       WINDOW_TEST_MAX_MS);
	check_give_up(c);
	printf("client: all %d checks held\n", c->checks);
	fflush(stdout);
}

/* ---- the program ------------------------------------------------------ */

static const char usage_after[] =
	"Crashes the workers, checks the supervisor restarts them, then makes "
	"it\ngive up.\nexit status: 0 when every check held, 1 when one "
	"failed, 2 a usage error\n";

int main(int argc, char **argv)
{
	static struct client c = { .workers = 4,
				   .intensity = 5,
				   .period_ms = 1000 };
	const struct opt opts[] = {
		OPT_INT("workers", &c.workers, 1, WORKERS_MAX, "N",
			"workers under the supervisor, {range}"),
		OPT_INT("intensity", &c.intensity, 0, INTENSITY_MAX, "R",
			"restarts allowed within the period, {range}"),
		OPT_INT("period", &c.period_ms, PERIOD_MIN_MS, PERIOD_MAX_MS,
			"MS", "the period, {range} ms"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "supervisor",
				     .opts = opts,
				     .after = usage_after };
	int ops, rc;

	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (ops < argc)
		return opt_error(&cmd, "unexpected operand %s", argv[ops]);
	rc = act_main(NULL, demo, &c);
	if (rc < 0) {
		fprintf(stderr, "supervisor: act_main: %s\n", strerror(-rc));
		return 1;
	}
	return rc == 0 ? 0 : 1;
}
