/* SPDX-License-Identifier: MIT */
/*
 * supervisor.c - a one-for-one supervisor, as Erlang/OTP's, on links and
 * exit signals (doc/design/lifecycle.md), and a demo that crashes its
 * workers on purpose.
 *
 *   supervisor [--workers N] [--intensity R] [--period MS]
 *
 * The supervisor traps exits and starts N workers, each linked to it
 * (ACT_SPAWN_LINK) and registered by itself as "worker.<i>". Like OTP's
 * proc_lib start, a start is synchronous: the supervisor sends the new
 * child TAG_INIT and waits for its TAG_STARTED, which the child sends once
 * its name is registered, so a restart is complete, name included, when
 * the supervisor reports it. On each EXIT from a child it restarts that
 * child alone (one-for-one), unless the reason is ACT_EXIT_NORMAL or
 * ACT_EXIT_SHUTDOWN (OTP's "transient" children). More than R restarts
 * within a sliding window of T ms (OTP's intensity and period) and it
 * gives up: it shuts its children down, newest first, each with
 * act_kill(ACT_EXIT_SHUTDOWN) and a wait for its EXIT, and exits with
 * SUP_EXIT_INTENSITY, which its monitors and links see (and act_main()
 * returns, were it the main process).
 *
 * A worker answers TAG_DIV requests with the quotient and crashes (exits
 * with WORKER_EXIT_DIVZERO, without replying) when asked to divide by
 * zero: let it crash, the supervisor starts a fresh one.
 *
 * The main process is the demo's client. It monitors the supervisor and
 * checks, through act_whereis() names only: every worker answers; a
 * crashed worker is restarted under its name as a new process that
 * answers; a normal exit and a shutdown are not restarted; the window
 * slides; and R + 1 crashes within T ms make the supervisor give up with
 * SUP_EXIT_INTENSITY after shutting the other workers down. Each restart
 * decision is checked against the client's own clock (see
 * check_window()). Exit status: 0 when every check held, 1 with a line
 * naming the check that did not, 2 for bad options. Every receive has a
 * timeout, so a lost message is a failed check, never a hang.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <actors.h>

#include "opt.h"
#include "util.h"

#define WORKERS_MAX 64
#define INTENSITY_MAX 100
#define PERIOD_MIN_MS 50 /* shorter: too short to crash R + 1 times */
#define PERIOD_MAX_MS 60000
#define WINDOW_TEST_MAX_MS 2000 /* longest period the demo waits out */
#define NAME_LEN 32

#define MS 1000000LL
#define START_NS (500 * MS)    /* a child's TAG_INIT / TAG_STARTED */
#define SHUTDOWN_NS (500 * MS) /* a child's EXIT after a kill */
#define CLIENT_NS (2000 * MS)  /* each of the client's waits */
#define IDLE_NS (10000 * MS)   /* a server with nothing to do stops */

/* Exit reasons of our own: positive, so act_main() can return them. */
enum {
	WORKER_EXIT_DIVZERO = 10, /* asked to divide by zero */
	WORKER_EXIT_BADREQ,	  /* a request of the wrong size */
	WORKER_EXIT_INIT,	  /* no TAG_INIT from the supervisor */
	WORKER_EXIT_REGISTER,	  /* its name could not be registered */
	SUP_EXIT_INTENSITY = 100, /* more than R restarts within T ms */
	SUP_EXIT_START,		  /* a child did not start at first */
	SUP_EXIT_IDLE,		  /* no message in IDLE_NS */
};

/* Message tags. */
enum {
	TAG_DIV = 1,   /* client -> worker: struct div_req */
	TAG_RESULT,    /* worker -> client: struct div_reply */
	TAG_STOP,      /* client -> worker: return (ACT_EXIT_NORMAL) */
	TAG_INIT,      /* supervisor -> new child: the supervisor is from */
	TAG_STARTED,   /* child -> supervisor: registered, serving */
	TAG_SUP_READY, /* supervisor -> observer: every child started */
	TAG_SUP_EVENT, /* supervisor -> observer: struct sup_event */
};

struct div_req {
	uint64_t id;
	long a, b;
};

struct div_reply {
	uint64_t id;
	long quotient;
};

/* What the supervisor did about a child's exit (TAG_SUP_EVENT). */
struct sup_event {
	act_pid old;	 /* the child that exited */
	act_pid new;	 /* its replacement; ACT_PID_NONE: not restarted */
	intptr_t reason; /* old's exit reason */
	int child;	 /* its index */
	int in_window;	 /* restarts within the period, this one included */
};

/* The supervisor's argument; copied at its start. */
struct sup_spec {
	int workers;
	int intensity;	  /* R: restarts allowed within the period */
	int period_ms;	  /* T */
	act_pid observer; /* gets TAG_SUP_*; ACT_PID_NONE: nobody */
};

/* ---- helpers ---------------------------------------------------------- */

struct text {
	char s[48]; /* ACT_PID_STRLEN or more */
};

static struct text pid_text(act_pid pid)
{
	struct text t;

	act_pid_format(pid, t.s, sizeof(t.s));
	return t;
}

static const struct {
	intptr_t reason;
	const char *name;
} reason_names[] = {
	{ ACT_EXIT_NORMAL, "normal" },
	{ ACT_EXIT_KILL, "kill" },
	{ ACT_EXIT_KILLED, "killed" },
	{ ACT_EXIT_NOPROC, "noproc" },
	{ ACT_EXIT_SHUTDOWN, "shutdown" },
	{ ACT_EXIT_MAILBOX, "mailbox" },
	{ WORKER_EXIT_DIVZERO, "divide by zero" },
	{ WORKER_EXIT_BADREQ, "bad request" },
	{ WORKER_EXIT_INIT, "no init" },
	{ WORKER_EXIT_REGISTER, "name not registered" },
	{ SUP_EXIT_INTENSITY, "intensity" },
	{ SUP_EXIT_START, "start failed" },
	{ SUP_EXIT_IDLE, "idle" },
};

static const char *reason_name(intptr_t r)
{
	size_t i;

	for (i = 0; i < sizeof(reason_names) / sizeof(reason_names[0]); i++)
		if (reason_names[i].reason == r)
			return reason_names[i].name;
	return "user";
}

static struct text reason_text(intptr_t r)
{
	struct text t;

	snprintf(t.s, sizeof(t.s), "%s (%ld)", reason_name(r), (long)r);
	return t;
}

static void child_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "worker.%d", i);
}

/* The payload of an EXIT or DOWN; false when it is not one. */
static bool exit_info(const struct act_msg *m, struct act_exit_info *info)
{
	if ((m->tag != ACT_TAG_EXIT && m->tag != ACT_TAG_DOWN) ||
	    m->len != sizeof(*info))
		return false;
	memcpy(info, m->data, sizeof(*info));
	return true;
}

static bool is_exit_from(const struct act_msg *m, void *ctx)
{
	struct act_exit_info info;

	return m->tag == ACT_TAG_EXIT && exit_info(m, &info) &&
	       act_pid_eq(info.who, *(const act_pid *)ctx);
}

/* ---- a worker --------------------------------------------------------- */

static bool is_init(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == TAG_INIT;
}

static void divide(act_pid from, const struct div_req *req)
{
	struct div_reply rep = { .id = req->id };
	int rc;

	if (req->b == 0 || (req->a == LONG_MIN && req->b == -1))
		act_exit(WORKER_EXIT_DIVZERO); /* let it crash */
	rep.quotient = req->a / req->b;
	rc = act_send(from, TAG_RESULT, &rep, sizeof(rep));
	if (rc < 0 && rc != -ESRCH) /* -ESRCH: the client left */
		fprintf(stderr, "worker: reply to %s: %s\n", pid_text(from).s,
			strerror(-rc));
}

static void serve(const char *name)
{
	struct div_req req;
	struct act_msg *m;
	uint32_t tag;
	act_pid from;
	bool whole;

	for (;;) {
		m = act_receive(IDLE_NS);
		if (m == NULL) {
			printf("%s: no request in %lld s; stopping\n", name,
			       IDLE_NS / 1000 / MS);
			return;
		}
		/* act_exit() frees nothing the process holds: copy, free */
		tag = m->tag;
		from = m->from;
		whole = m->len == sizeof(req);
		if (tag == TAG_DIV && whole)
			memcpy(&req, m->data, sizeof(req));
		act_msg_free(m);
		if (tag == TAG_STOP)
			return;
		if (tag == TAG_DIV && !whole)
			act_exit(WORKER_EXIT_BADREQ);
		if (tag == TAG_DIV)
			divide(from, &req);
		/* anything else is not ours: dropped */
	}
}

/* arg: the child's index. The supervisor's pid comes in TAG_INIT. */
static void worker(void *arg)
{
	int i = (int)(intptr_t)arg, rc;
	char name[NAME_LEN];
	struct act_msg *m;
	act_pid sup;

	child_name(name, sizeof(name), i);
	m = act_receive_match(is_init, NULL, START_NS);
	if (m == NULL) {
		fprintf(stderr, "%s: no TAG_INIT from the supervisor\n", name);
		act_exit(WORKER_EXIT_INIT);
	}
	sup = m->from;
	act_msg_free(m);
	rc = act_register(name, act_self());
	if (rc < 0) {
		fprintf(stderr, "%s: act_register: %s\n", name, strerror(-rc));
		act_exit(WORKER_EXIT_REGISTER);
	}
	rc = act_send(sup, TAG_STARTED, NULL, 0);
	if (rc < 0) {
		fprintf(stderr, "%s: act_send to the supervisor: %s\n", name,
			strerror(-rc));
		act_exit(WORKER_EXIT_INIT);
	}
	serve(name);
}

/* ---- the supervisor --------------------------------------------------- */

struct sup {
	struct sup_spec spec;
	act_pid child[WORKERS_MAX];	 /* ACT_PID_NONE: not running */
	int64_t restarts[INTENSITY_MAX]; /* ring of restart times, ns */
	int first, nrestarts;		 /* its oldest entry, its count */
};

static void report(struct sup *s, uint32_t tag, const void *data, size_t len)
{
	int rc;

	if (act_pid_eq(s->spec.observer, ACT_PID_NONE))
		return;
	rc = act_send(s->spec.observer, tag, data, len);
	if (rc < 0 && rc != -ESRCH) /* -ESRCH: the observer left */
		fprintf(stderr, "supervisor: report to %s: %s\n",
			pid_text(s->spec.observer).s, strerror(-rc));
}

static bool is_start_reply(const struct act_msg *m, void *ctx)
{
	const act_pid *pid = ctx;

	return (m->tag == TAG_STARTED && act_pid_eq(m->from, *pid)) ||
	       is_exit_from(m, ctx);
}

/* Waits for pid's EXIT; kills it if it does not come. Its reason. */
static intptr_t await_exit(act_pid pid)
{
	struct act_exit_info info;
	struct act_msg *m = act_receive_match(is_exit_from, &pid, SHUTDOWN_NS);

	if (m == NULL) {
		fprintf(stderr,
			"supervisor: no EXIT from %s in %lld ms; "
			"killing it\n",
			pid_text(pid).s, SHUTDOWN_NS / MS);
		if (act_kill(pid, ACT_EXIT_KILL) < 0)
			return ACT_EXIT_NOPROC;
		m = act_receive_match(is_exit_from, &pid, SHUTDOWN_NS);
		if (m == NULL) {
			fprintf(stderr,
				"supervisor: %s survives "
				"ACT_EXIT_KILL\n",
				pid_text(pid).s);
			return ACT_EXIT_KILL;
		}
	}
	(void)exit_info(m, &info); /* is_exit_from() checked it */
	act_msg_free(m);
	return info.reason;
}

/* Starts child i and waits until it has registered its name. */
static int start_child(struct sup *s, int i)
{
	struct act_spawn_opts o = { .flags = ACT_SPAWN_LINK };
	struct act_exit_info info;
	struct act_msg *m;
	act_pid pid;
	int rc;

	pid = act_spawn_opt(worker, (void *)(intptr_t)i, &o);
	if (act_pid_eq(pid, ACT_PID_NONE)) {
		fprintf(stderr, "supervisor: act_spawn_opt: failed\n");
		return -ENOMEM;
	}
	rc = act_send(pid, TAG_INIT, NULL, 0);
	if (rc < 0 && rc != -ESRCH) /* -ESRCH: it died; its EXIT comes */
		fprintf(stderr, "supervisor: TAG_INIT to %s: %s\n",
			pid_text(pid).s, strerror(-rc));
	m = act_receive_match(is_start_reply, &pid, START_NS);
	if (m == NULL) {
		fprintf(stderr,
			"supervisor: worker.%d %s did not start in "
			"%lld ms\n",
			i, pid_text(pid).s, START_NS / MS);
		(void)act_kill(pid, ACT_EXIT_KILL); /* -ESRCH: exited */
		(void)await_exit(pid);
		return -ETIMEDOUT;
	}
	if (exit_info(m, &info)) {
		fprintf(stderr,
			"supervisor: worker.%d %s exited while "
			"starting: %s\n",
			i, pid_text(pid).s, reason_text(info.reason).s);
		act_msg_free(m);
		return -ECHILD;
	}
	act_msg_free(m);
	s->child[i] = pid;
	return 0;
}

/* Kills the children, newest first, each waited for (OTP's shutdown). */
static void shutdown_children(struct sup *s)
{
	intptr_t reason;
	int i, rc;

	for (i = s->spec.workers - 1; i >= 0; i--) {
		act_pid pid = s->child[i];

		if (act_pid_eq(pid, ACT_PID_NONE))
			continue;
		rc = act_kill(pid, ACT_EXIT_SHUTDOWN);
		if (rc < 0 && rc != -ESRCH) /* -ESRCH: its EXIT is here */
			fprintf(stderr, "supervisor: act_kill %s: %s\n",
				pid_text(pid).s, strerror(-rc));
		reason = await_exit(pid);
		s->child[i] = ACT_PID_NONE;
		printf("supervisor: shut down worker.%d %s: %s\n", i,
		       pid_text(pid).s, reason_text(reason).s);
	}
}

static void give_up(struct sup *s, intptr_t reason) __attribute__((noreturn));

static void give_up(struct sup *s, intptr_t reason)
{
	shutdown_children(s);
	printf("supervisor: exiting: %s\n", reason_text(reason).s);
	fflush(stdout);
	act_exit(reason);
}

/*
 * OTP's add_restart: forget the restarts older than the period, count
 * this one; more than R and the supervisor must give up (false). The
 * number in the window, this one included, goes to *in_window.
 */
static bool add_restart(struct sup *s, int *in_window)
{
	int64_t now = util_now_ns();
	int64_t oldest = now - (int64_t)s->spec.period_ms * MS;

	while (s->nrestarts > 0 && s->restarts[s->first] < oldest) {
		s->first = (s->first + 1) % INTENSITY_MAX;
		s->nrestarts--;
	}
	*in_window = s->nrestarts + 1;
	if (*in_window > s->spec.intensity)
		return false;
	s->restarts[(s->first + s->nrestarts) % INTENSITY_MAX] = now;
	s->nrestarts++;
	return true;
}

static int child_index(const struct sup *s, act_pid pid)
{
	int i;

	for (i = 0; i < s->spec.workers; i++)
		if (act_pid_eq(s->child[i], pid))
			return i;
	return -1;
}

static void child_exited(struct sup *s, int i, intptr_t reason)
{
	struct sup_event ev = { .old = s->child[i],
				.reason = reason,
				.child = i };

	s->child[i] = ACT_PID_NONE;
	if (reason == ACT_EXIT_NORMAL || reason == ACT_EXIT_SHUTDOWN) {
		printf("supervisor: worker.%d %s exited: %s; not restarted "
		       "(transient)\n",
		       i, pid_text(ev.old).s, reason_text(reason).s);
		report(s, TAG_SUP_EVENT, &ev, sizeof(ev));
		return;
	}
	do {
		if (!add_restart(s, &ev.in_window)) {
			printf("supervisor: worker.%d %s exited: %s; that "
			       "makes %d restarts within %d ms, more than "
			       "%d: giving up\n",
			       i, pid_text(ev.old).s, reason_text(reason).s,
			       ev.in_window, s->spec.period_ms,
			       s->spec.intensity);
			give_up(s, SUP_EXIT_INTENSITY);
		}
	} while (start_child(s, i) < 0); /* a failed start counts too */
	ev.new = s->child[i];
	printf("supervisor: worker.%d %s exited: %s; restarted as %s "
	       "(%d of %d restarts within %d ms)\n",
	       i, pid_text(ev.old).s, reason_text(reason).s, pid_text(ev.new).s,
	       ev.in_window, s->spec.intensity, s->spec.period_ms);
	report(s, TAG_SUP_EVENT, &ev, sizeof(ev));
}

static void on_exit_msg(struct sup *s, const struct act_exit_info *info)
{
	int i = child_index(s, info->who);

	if (i >= 0) {
		child_exited(s, i, info->reason);
		return;
	}
	/*
	 * Not a child: a linked process, or act_kill() on us (who: its
	 * caller). As a gen_server does for its parent: any reason but
	 * normal stops the supervisor, its children first.
	 */
	if (info->reason == ACT_EXIT_NORMAL)
		return;
	printf("supervisor: exit signal from %s: %s\n", pid_text(info->who).s,
	       reason_text(info->reason).s);
	give_up(s, info->reason);
}

static void supervisor(void *arg)
{
	struct sup s = { .spec = *(const struct sup_spec *)arg };
	struct act_exit_info info;
	struct act_msg *m;
	bool ok;
	int i;

	(void)act_trap_exit(true); /* the previous setting: off at spawn */
	for (i = 0; i < s.spec.workers; i++) {
		if (start_child(&s, i) < 0) {
			printf("supervisor: worker.%d did not start\n", i);
			give_up(&s, SUP_EXIT_START);
		}
		printf("supervisor: started worker.%d %s\n", i,
		       pid_text(s.child[i]).s);
	}
	report(&s, TAG_SUP_READY, NULL, 0);
	for (;;) {
		m = act_receive(IDLE_NS);
		if (m == NULL) {
			printf("supervisor: no message in %lld s; stopping\n",
			       IDLE_NS / 1000 / MS);
			give_up(&s, SUP_EXIT_IDLE);
		}
		if (m->tag != ACT_TAG_EXIT) {
			if (m->tag != TAG_STARTED) /* late: start timed out */
				fprintf(stderr,
					"supervisor: ignoring tag %u "
					"from %s\n",
					m->tag, pid_text(m->from).s);
			act_msg_free(m);
			continue;
		}
		/* give_up() does not return: copy the payload, free m */
		ok = exit_info(m, &info) && act_pid_eq(m->from, info.who);
		if (!ok)
			fprintf(stderr,
				"supervisor: malformed EXIT (len %zu, "
				"from %s)\n",
				m->len, pid_text(m->from).s);
		act_msg_free(m);
		if (ok)
			on_exit_msg(&s, &info);
	}
}

/* ---- the client (the main process) ------------------------------------ */

#define SPANS_MAX 512

struct client {
	struct sup_spec spec;
	act_pid sup;
	uint64_t sup_ref; /* our monitor of the supervisor */
	uint64_t next_id; /* of requests */
	int checks;	  /* checks that held */
	/*
	 * Each restart the supervisor made happened at some time in
	 * [start, end] of the client's clock: start, before the request
	 * that crashed the worker; end, after the report of the restart.
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

static bool is_down(const struct act_msg *m, void *ctx)
{
	struct act_exit_info info;

	return m->tag == ACT_TAG_DOWN && exit_info(m, &info) &&
	       info.ref == *(const uint64_t *)ctx;
}

/* Waits for the DOWN of monitor ref on pid; its reason. */
static intptr_t await_down(uint64_t ref, act_pid pid, const char *what)
{
	struct act_exit_info info;
	struct act_msg *m = act_receive_match(is_down, &ref, CLIENT_NS);

	if (m == NULL)
		fail("no DOWN for %s %s in %lld ms", what, pid_text(pid).s,
		     CLIENT_NS / MS);
	(void)exit_info(m, &info); /* is_down() checked it */
	if (!act_pid_eq(info.who, pid) || !act_pid_eq(m->from, pid))
		fail("DOWN for %s %s names %s (from %s)", what, pid_text(pid).s,
		     pid_text(info.who).s, pid_text(m->from).s);
	act_msg_free(m);
	return info.reason;
}

static uint64_t monitor(act_pid pid, const char *what)
{
	uint64_t ref = act_monitor(pid);

	if (ref == 0)
		fail("act_monitor(%s %s) failed", what, pid_text(pid).s);
	return ref;
}

static act_pid whereis(int i)
{
	char name[NAME_LEN];
	act_pid pid;

	child_name(name, sizeof(name), i);
	pid = act_whereis(name);
	if (act_pid_eq(pid, ACT_PID_NONE))
		fail("act_whereis(\"%s\"): no such name", name);
	return pid;
}

struct want_reply {
	act_pid from;
	uint64_t id;
};

static bool is_reply(const struct act_msg *m, void *ctx)
{
	const struct want_reply *w = ctx;
	struct div_reply rep;

	if (m->tag != TAG_RESULT || m->len != sizeof(rep) ||
	    !act_pid_eq(m->from, w->from))
		return false;
	memcpy(&rep, m->data, sizeof(rep));
	return rep.id == w->id;
}

/* Sends pid a / b (b != 0); checks that pid itself answers, and right. */
static void ask(struct client *c, int i, act_pid pid, long a, long b)
{
	struct div_req req = { ++c->next_id, a, b };
	struct want_reply w = { pid, req.id };
	struct div_reply rep;
	struct act_msg *m;
	int rc;

	rc = act_send(pid, TAG_DIV, &req, sizeof(req));
	if (rc < 0)
		fail("act_send to worker.%d %s: %s", i, pid_text(pid).s,
		     strerror(-rc));
	m = act_receive_match(is_reply, &w, CLIENT_NS);
	if (m == NULL)
		fail("worker.%d %s did not answer %ld / %ld in %lld ms", i,
		     pid_text(pid).s, a, b, CLIENT_NS / MS);
	memcpy(&rep, m->data, sizeof(rep));
	act_msg_free(m);
	if (rep.quotient != a / b)
		fail("worker.%d %s: %ld / %ld = %ld, not %ld", i,
		     pid_text(pid).s, a, b, rep.quotient, a / b);
	c->checks++;
}

static bool is_sup_news(const struct act_msg *m, void *ctx)
{
	const struct client *c = ctx;

	return ((m->tag == TAG_SUP_EVENT || m->tag == TAG_SUP_READY) &&
		act_pid_eq(m->from, c->sup)) ||
	       is_down(m, (void *)&c->sup_ref);
}

/*
 * The supervisor's decision about worker i's exit: true and *ev, or
 * false when the supervisor exited instead (its reason in *reason).
 */
static bool await_news(struct client *c, int i, struct sup_event *ev,
		       intptr_t *reason)
{
	struct act_exit_info info;
	struct act_msg *m = act_receive_match(is_sup_news, c, CLIENT_NS);

	if (m == NULL)
		fail("no word from the supervisor on worker.%d in %lld ms", i,
		     CLIENT_NS / MS);
	if (exit_info(m, &info)) {
		act_msg_free(m);
		*reason = info.reason;
		return false;
	}
	if (m->tag != TAG_SUP_EVENT || m->len != sizeof(*ev))
		fail("tag %u of %zu bytes from the supervisor, not a "
		     "TAG_SUP_EVENT",
		     m->tag, m->len);
	memcpy(ev, m->data, sizeof(*ev));
	act_msg_free(m);
	if (ev->child != i)
		fail("the supervisor reports on worker.%d, not worker.%d",
		     ev->child, i);
	return true;
}

/*
 * The supervisor restarted (or gave up on) a worker at some time t in
 * [start, end]. A restart k was within the period T before t for sure
 * when k's span began at or after end - T, and maybe when it ended at or
 * after start - T. So the supervisor must give up when the sure count
 * plus this one passes R, must restart when the maybe count plus this
 * one does not, and may do either in between; what it counted must lie
 * between the two.
 */
static void check_window(struct client *c, int i, int64_t start, int64_t end,
			 const struct sup_event *ev)
{
	int64_t t = (int64_t)c->spec.period_ms * MS;
	int k, sure = 0, maybe = 0, r = c->spec.intensity;

	for (k = 0; k < c->nspans; k++) {
		sure += c->spans[k].start >= end - t;
		maybe += c->spans[k].end >= start - t;
	}
	if (ev && sure + 1 > r)
		fail("worker.%d was restarted although %d restarts fell "
		     "within the last %d ms before it (intensity %d)",
		     i, sure, c->spec.period_ms, r);
	if (!ev && maybe + 1 <= r)
		fail("the supervisor gave up on worker.%d although at most "
		     "%d restarts fell within the last %d ms (intensity %d)",
		     i, maybe, c->spec.period_ms, r);
	if (ev && (ev->in_window < sure + 1 || ev->in_window > maybe + 1))
		fail("the supervisor counted %d restarts within %d ms; the "
		     "client saw %d to %d",
		     ev->in_window, c->spec.period_ms, sure + 1, maybe + 1);
	c->checks++;
}

/* Checks that worker i's successor runs under its name and answers. */
static void check_restart(struct client *c, int i, act_pid old,
			  const struct sup_event *ev)
{
	act_pid now;

	if (!act_pid_eq(ev->old, old) || ev->reason != WORKER_EXIT_DIVZERO)
		fail("the supervisor reports %s: %s, not %s: %s",
		     pid_text(ev->old).s, reason_text(ev->reason).s,
		     pid_text(old).s, reason_text(WORKER_EXIT_DIVZERO).s);
	if (act_pid_eq(ev->new, ACT_PID_NONE) || act_pid_eq(ev->new, old))
		fail("worker.%d %s was not restarted as a new process (%s)", i,
		     pid_text(old).s, pid_text(ev->new).s);
	now = whereis(i);
	if (!act_pid_eq(now, ev->new))
		fail("act_whereis(\"worker.%d\") gives %s, not the restarted "
		     "%s",
		     i, pid_text(now).s, pid_text(ev->new).s);
	ask(c, i, now, 84, 4);
	c->checks++;
}

/*
 * Makes worker i crash; checks its DOWN and the supervisor's decision.
 * True when it was restarted, false when the supervisor gave up (its
 * reason in *reason).
 */
static bool crash(struct client *c, int i, intptr_t *reason)
{
	struct div_req req = { ++c->next_id, 1, 0 };
	act_pid old = whereis(i);
	uint64_t ref = monitor(old, "a worker");
	int64_t start = util_now_ns(), end;
	struct sup_event ev;
	intptr_t why;
	bool restarted;
	int rc;

	rc = act_send(old, TAG_DIV, &req, sizeof(req));
	if (rc < 0)
		fail("act_send to worker.%d %s: %s", i, pid_text(old).s,
		     strerror(-rc));
	why = await_down(ref, old, "a worker");
	if (why != WORKER_EXIT_DIVZERO)
		fail("worker.%d %s went down with %s, not %s", i,
		     pid_text(old).s, reason_text(why).s,
		     reason_text(WORKER_EXIT_DIVZERO).s);
	restarted = await_news(c, i, &ev, reason);
	end = util_now_ns();
	check_window(c, i, start, end, restarted ? &ev : NULL);
	if (!restarted)
		return false;
	check_restart(c, i, old, &ev);
	if (c->nspans == SPANS_MAX)
		fail("more than %d restarts: the demo's own limit", SPANS_MAX);
	c->spans[c->nspans++] = (struct span){ start, end };
	printf("client: worker.%d %s crashed: %s; worker.%d is now %s, "
	       "which answers 84 / 4 = 21\n",
	       i, pid_text(old).s, reason_text(why).s, i, pid_text(ev.new).s);
	return true;
}

static void must_restart(struct client *c, int i)
{
	intptr_t reason;

	if (!crash(c, i, &reason))
		fail("the supervisor exited (%s) instead of restarting "
		     "worker.%d",
		     reason_text(reason).s, i);
}

/* Ends worker i with TAG_STOP (normal) or act_kill (shutdown). */
static void check_transient(struct client *c, int i, bool by_kill)
{
	intptr_t want = by_kill ? ACT_EXIT_SHUTDOWN : ACT_EXIT_NORMAL, why;
	act_pid old = whereis(i);
	uint64_t ref = monitor(old, "a worker");
	char name[NAME_LEN];
	struct sup_event ev;
	int rc;

	rc = by_kill ? act_kill(old, ACT_EXIT_SHUTDOWN) :
		       act_send(old, TAG_STOP, NULL, 0);
	if (rc < 0)
		fail("%s worker.%d %s: %s", by_kill ? "act_kill" : "act_send",
		     i, pid_text(old).s, strerror(-rc));
	why = await_down(ref, old, "a worker");
	if (why != want)
		fail("worker.%d %s went down with %s, not %s", i,
		     pid_text(old).s, reason_text(why).s, reason_text(want).s);
	if (!await_news(c, i, &ev, &why))
		fail("the supervisor exited (%s) after worker.%d's %s exit",
		     reason_text(why).s, i, reason_name(want));
	if (!act_pid_eq(ev.new, ACT_PID_NONE) || ev.reason != want)
		fail("worker.%d %s, %s: the supervisor restarted it as %s", i,
		     pid_text(old).s, reason_text(ev.reason).s,
		     pid_text(ev.new).s);
	child_name(name, sizeof(name), i);
	if (!act_pid_eq(act_whereis(name), ACT_PID_NONE))
		fail("\"%s\" still names %s after a %s exit", name,
		     pid_text(act_whereis(name)).s, reason_name(want));
	printf("client: worker.%d %s exited: %s; not restarted, as it "
	       "should\n",
	       i, pid_text(old).s, reason_text(why).s);
	c->checks++;
}

static void start_supervisor(struct client *c)
{
	struct act_msg *m;

	c->sup = act_spawn(supervisor, &c->spec);
	if (act_pid_eq(c->sup, ACT_PID_NONE))
		fail("act_spawn(supervisor) failed");
	c->sup_ref = monitor(c->sup, "the supervisor");
	m = act_receive_match(is_sup_news, c, CLIENT_NS);
	if (m == NULL)
		fail("the supervisor did not start its workers in %lld ms",
		     CLIENT_NS / MS);
	if (m->tag != TAG_SUP_READY) {
		struct act_exit_info info = { .reason = 0 };

		exit_info(m, &info);
		fail("the supervisor did not start: %s",
		     reason_text(info.reason).s);
	}
	act_msg_free(m);
	printf("client: supervisor %s started %d workers (intensity %d "
	       "restarts in %d ms)\n",
	       pid_text(c->sup).s, c->spec.workers, c->spec.intensity,
	       c->spec.period_ms);
}

/* Fills the window with R restarts, lets it slide, crashes once more. */
static void check_slide(struct client *c)
{
	int64_t until, left;

	while (c->nspans < c->spec.intensity)
		must_restart(c, 0);
	until = c->spans[c->nspans - 1].end + (c->spec.period_ms + 20) * MS;
	printf("client: %d restarts made; waiting %d ms for the window to "
	       "slide past them\n",
	       c->nspans, c->spec.period_ms);
	while ((left = until - util_now_ns()) > 0)
		if (act_sleep(left) < 0)
			fail("act_sleep(%lld ns) failed", (long long)left);
	must_restart(c, 0);
	printf("client: restarted after the window slid, as it should\n");
}

/* Crashes worker 0 until the supervisor gives up; checks the rest. */
static void check_give_up(struct client *c)
{
	uint64_t refs[WORKERS_MAX] = { 0 };
	act_pid pids[WORKERS_MAX];
	char name[NAME_LEN];
	int i, n = 0, most = 2 * (c->spec.intensity + 1) + 10;
	int64_t start = util_now_ns();
	intptr_t reason;

	for (i = 1; i < c->spec.workers; i++) {
		child_name(name, sizeof(name), i);
		pids[i] = act_whereis(name);
		if (!act_pid_eq(pids[i], ACT_PID_NONE))
			refs[i] = monitor(pids[i], "a worker");
	}
	printf("client: crashing worker.0 until the supervisor gives up\n");
	while (crash(c, 0, &reason))
		if (++n >= most)
			fail("the supervisor did not give up after %d crashes "
			     "in %lld ms; more than %d within %d ms never "
			     "happened: try a longer --period",
			     n, (long long)((util_now_ns() - start) / MS),
			     c->spec.intensity, c->spec.period_ms);
	if (reason != SUP_EXIT_INTENSITY)
		fail("the supervisor exited with %s, not %s",
		     reason_text(reason).s, reason_text(SUP_EXIT_INTENSITY).s);
	printf("client: the supervisor gave up on crash %d of this round: "
	       "DOWN %s\n",
	       n + 1, reason_text(reason).s);
	for (i = 1; i < c->spec.workers; i++) {
		if (refs[i] == 0)
			continue;
		reason = await_down(refs[i], pids[i], "a worker");
		if (reason != ACT_EXIT_SHUTDOWN)
			fail("worker.%d %s ended with %s, not shutdown", i,
			     pid_text(pids[i]).s, reason_text(reason).s);
		c->checks++;
	}
	for (i = 0; i < c->spec.workers; i++) {
		child_name(name, sizeof(name), i);
		if (!act_pid_eq(act_whereis(name), ACT_PID_NONE))
			fail("\"%s\" still names %s after the shutdown", name,
			     pid_text(act_whereis(name)).s);
	}
	c->checks++;
}

static void demo(void *arg)
{
	struct client c = { .spec = *(const struct sup_spec *)arg };
	int i, n = c.spec.intensity < 3 ? c.spec.intensity : 3;

	c.spec.observer = act_self();
	start_supervisor(&c);
	for (i = 0; i < c.spec.workers; i++)
		ask(&c, i, whereis(i), 100 + i, 7);
	printf("client: all %d workers answer\n", c.spec.workers);
	for (i = 0; i < n; i++)
		must_restart(&c, i % c.spec.workers);
	if (c.spec.workers >= 2)
		check_transient(&c, c.spec.workers - 1, false);
	if (c.spec.workers >= 3)
		check_transient(&c, c.spec.workers - 2, true);
	if (c.spec.intensity > 0 && c.spec.period_ms <= WINDOW_TEST_MAX_MS)
		check_slide(&c);
	else
		printf("client: not testing the window's slide (needs an "
		       "intensity > 0 and a period <= %d ms)\n",
		       WINDOW_TEST_MAX_MS);
	check_give_up(&c);
	printf("client: all %d checks held\n", c.checks);
	fflush(stdout);
	act_exit(0);
}

/* ---- the program ------------------------------------------------------ */

static const char usage_after[] =
	"Crashes the workers, checks the supervisor restarts them, then makes "
	"it give up.\nExit status: 0 when every check held, 1 when one "
	"failed, 2 for bad options.\n";

int main(int argc, char **argv)
{
	struct sup_spec spec = { 4, 5, 1000, ACT_PID_NONE };
	const struct opt opts[] = {
		OPT_INT("workers", &spec.workers, 1, WORKERS_MAX, "N",
			"workers under the supervisor, {range}"),
		OPT_INT("intensity", &spec.intensity, 0, INTENSITY_MAX, "R",
			"restarts allowed within the period, {range}"),
		OPT_INT("period", &spec.period_ms, PERIOD_MIN_MS, PERIOD_MAX_MS,
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
	rc = act_main(NULL, demo, &spec);
	if (rc < 0) {
		fprintf(stderr, "supervisor: act_main: %s\n", strerror(-rc));
		return 1;
	}
	return rc == 0 ? 0 : 1;
}
