/* SPDX-License-Identifier: MIT */
/*
 * sup.c - a supervisor's process: OTP's supervisor (stdlib's
 * supervisor.erl as of OTP 25) in C, on links, monitors, exit signals and
 * act__call. doc/design/supervisor.md has the design; sup_api.c the
 * calls that talk to it.
 *
 * The state is the supervisor's alone (a local of act__sup_main): its
 * children in start order, each with its spec, pid and state, and the
 * times of its recent restarts. It traps exits. A child's exit (its EXIT
 * message) is decided by its restart type and the reason; a restart goes
 * through the restart intensity, then the strategy: one-for-one starts
 * the child again, rest-for-one stops the children started after it
 * (newest first) and starts it and them in order, one-for-all does the
 * same with every child. A start that fails leaves the child RESTARTING
 * and sends the supervisor a retry, behind what is queued already, so a
 * stop or another request comes first; each retry is a restart, counted.
 * More restarts than the intensity within the period, and the
 * supervisor stops every child, newest first, and exits with
 * ACT_EXIT_SHUTDOWN. An EXIT from its parent (the process that started
 * it) does the same with the parent's reason.
 *
 * A child is stopped as OTP's shutdown/1 does it: a monitor, an exit
 * signal (ACT_EXIT_SHUTDOWN, or ACT_EXIT_KILL for a brutal kill), a wait
 * for the DOWN that escalates to ACT_EXIT_KILL after the child's
 * shutdown time, then an unlink and a look for the child's EXIT, which
 * takes it out of the mailbox: after an unlink no EXIT of that link can
 * arrive (links.c sends it and drops the link in one step, under both
 * slots' locks), so the child leaves nothing behind.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "actor/call.h"
#include "actor/message.h"
#include "sup.h"
#include "base/clock.h"
#include "sched/worker.h"

/* One child: its spec, and what it is doing. */
struct kid {
	struct act__sup_wchild spec;
	act_pid pid; /* RUNNING: the child */
	int state;   /* enum act_sup_child_state */
	bool gone;   /* to be removed: a temporary child stopped */
};

struct sup {
	act_pid self, parent;
	int strategy, intensity;
	int64_t period_ns;
	struct kid *kids; /* in start order */
	size_t n, cap;
	/* the times of the restarts within the period, oldest at head: a
	 * ring of at most intensity + 1 */
	int64_t *ring;
	size_t rhead, rlen, rcap;
};

/* The child's side of a start from fn: what it runs. */
struct boot {
	void (*fn)(void *arg);
	void *arg;
	int (*init)(void *arg);
};

static int sys_send(act_pid to, uint32_t tag, const void *data, size_t len)
{
	struct act__worker *w = act__tls_worker_self(); /* I8 */

	return act__message_send(w->rt, to, tag, data, len, ACT_PID_NONE);
}

static bool match_tag(const struct act_msg *m, void *ctx)
{
	return m->tag == *(const uint32_t *)ctx;
}

/*
 * A child with an init: its boot request first (the supervisor sends it
 * right after the spawn, so nothing comes before it), init, its answer,
 * then fn. A child without one is spawned as fn itself.
 */
static void child_main(void *unused)
{
	uint32_t tag = ACT__TAG_SUP_BOOT;
	struct act_msg *m;
	struct boot b;
	int rc;

	(void)unused;
	m = act_receive_match(match_tag, &tag, ACT_FOREVER);
	memcpy(&b, m->data, sizeof(b));
	/* observers (act_process_info, act_dump, the trace) name fn, not
	 * this trampoline; relaxed, as act__spawn's store */
	atomic_store_explicit(&act__tls_worker_self()->current->fn, b.fn,
			      memory_order_relaxed);
	rc = b.init(b.arg);
	/* -ESRCH: the supervisor is gone, and its exit signal on its way;
	 * nothing else to do with the answer */
	(void)act__call_reply(m, ACT__TAG_SUP_BOOT, &rc, sizeof(rc));
	act_msg_free(m);
	if (rc)
		act_exit(ACT_EXIT_NORMAL);
	b.fn(b.arg);
}

static bool match_exit_from(const struct act_msg *m, void *ctx)
{
	return m->tag == ACT_TAG_EXIT && m->from.id == ((act_pid *)ctx)->id;
}

/* Take pid's EXIT out of the mailbox, if it is there (a link to pid
 * that is gone can send no more); returns its reason, or dflt. */
static intptr_t unlink_flush(act_pid pid, intptr_t dflt)
{
	struct act_msg *m;
	intptr_t r = dflt;

	act_unlink(pid);
	m = act_receive_match(match_exit_from, &pid, 0);
	if (m) {
		r = ((const struct act_exit_info *)m->data)->reason;
		act_msg_free(m);
	}
	return r;
}

/* Start a child from its fn: spawn it, and with init boot it and wait
 * for init's answer. */
static int boot_child(const struct act__sup_wchild *c, act_pid *pid)
{
	struct act_spawn_opts o = { 0 };
	struct boot b = { c->fn, c->arg, c->init };
	struct act_msg *rep;
	act_pid child;
	int rc;

	o.stack_size = (size_t)c->stack_size;
	o.flags = ACT_SPAWN_LINK;
	if (!c->init)
		return act_spawn_pid(c->fn, c->arg, &o, pid);
	rc = act_spawn_pid(child_main, NULL, &o, &child);
	if (rc)
		return rc;
	rc = act__call(child, ACT__TAG_SUP_BOOT, &b, sizeof(b), ACT_FOREVER,
		       &rep);
	if (rc == -ECONNRESET) {
		/* it exited in init: its EXIT is ours to take */
		act_msg_free(rep);
		unlink_flush(child, 0);
		return -ECHILD;
	}
	if (rc) {
		/* the boot was not sent (no memory): it would wait for
		 * ever */
		act_kill(child, ACT_EXIT_KILL);
		unlink_flush(child, 0);
		return rc;
	}
	memcpy(&rc, rep->data, sizeof(rc));
	act_msg_free(rep);
	if (rc) {
		/* it exits by itself, normally */
		unlink_flush(child, 0);
		return rc;
	}
	*pid = child;
	return 0;
}

/* Start k: 0 (it runs), ACT_SUP_IGNORE (it does not, on purpose), or
 * the start's failure. */
static int start_kid(struct kid *k)
{
	const struct act__sup_wchild *c = &k->spec;
	act_pid pid = ACT_PID_NONE;
	int rc;

	if (c->start)
		rc = c->start(c->arg, &pid);
	else if (c->fn)
		rc = boot_child(c, &pid);
	else
		rc = act_sup_start(c->arg, &pid);
	if (rc == 0 && !pid.id)
		rc = -EINVAL; /* a start that gave no pid */
	if (rc == 0) {
		k->pid = pid;
		k->state = ACT_SUP_CHILD_RUNNING;
	}
	return rc;
}

bool act__sup_match_down(const struct act_msg *m, void *ref)
{
	const struct act_exit_info *x = m->data;

	return m->tag == ACT_TAG_DOWN && x->ref == *(uint64_t *)ref;
}

/* Wait for the DOWN of ref up to timeout_ns; true if it came. */
static bool wait_down(uint64_t ref, int64_t timeout_ns)
{
	struct act_msg *m =
		act_receive_match(act__sup_match_down, &ref, timeout_ns);

	if (!m)
		return false;
	act_msg_free(m);
	return true;
}

/*
 * Stop k, if it runs (OTP's shutdown/1). The monitor of a child that
 * has exited already sends its DOWN at once; a monitor that cannot be
 * had (no memory) leaves the link's EXIT to wait for.
 */
static void shutdown_kid(struct kid *k)
{
	act_pid pid = k->pid;
	bool brutal = k->spec.shutdown_ns == ACT_SUP_BRUTAL_KILL;
	int64_t t = brutal ? ACT_FOREVER : k->spec.shutdown_ns;
	uint64_t ref;
	bool done;

	if (k->state != ACT_SUP_CHILD_RUNNING)
		return;
	ref = act_monitor(pid);
	act_kill(pid, brutal ? ACT_EXIT_KILL : ACT_EXIT_SHUTDOWN);
	if (ref) {
		done = wait_down(ref, t);
		if (!done) {
			act_kill(pid, ACT_EXIT_KILL);
			wait_down(ref, ACT_FOREVER);
		}
		unlink_flush(pid, 0);
	} else {
		struct act_msg *m;

		m = act_receive_match(match_exit_from, &pid, t);
		if (!m) {
			act_kill(pid, ACT_EXIT_KILL);
			m = act_receive_match(match_exit_from, &pid,
					      ACT_FOREVER);
		}
		act_msg_free(m);
	}
	k->pid = ACT_PID_NONE;
	k->state = ACT_SUP_CHILD_STOPPED;
}

/* k is not running any more (OTP's del_child): a temporary child's spec
 * goes (at the next compact), the others' stays. */
static void del_kid(struct kid *k)
{
	k->pid = ACT_PID_NONE;
	k->state = ACT_SUP_CHILD_STOPPED;
	if (k->spec.restart == ACT_SUP_TEMPORARY)
		k->gone = true;
}

/* Drop the children marked gone, keeping the order. */
static void compact(struct sup *s)
{
	size_t i, j = 0;

	for (i = 0; i < s->n; i++)
		if (!s->kids[i].gone)
			s->kids[j++] = s->kids[i];
	s->n = j;
}

static struct kid *find_id(struct sup *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->kids[i].spec.id, id))
			return &s->kids[i];
	return NULL;
}

static struct kid *find_pid(struct sup *s, act_pid pid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->kids[i].state == ACT_SUP_CHILD_RUNNING &&
		    s->kids[i].pid.id == pid.id)
			return &s->kids[i];
	return NULL;
}

/* Stop the children from index `from` on, newest first (OTP's
 * terminate_children); temporary ones are dropped. */
static void terminate_from(struct sup *s, size_t from)
{
	size_t i;

	for (i = s->n; i-- > from;) {
		shutdown_kid(&s->kids[i]);
		del_kid(&s->kids[i]);
	}
	compact(s);
}

/*
 * Start the children from index `from` on, in order (OTP's
 * start_children). An ignored child stays, stopped (a temporary one
 * goes). Returns 0, or the failure of the first that did not start,
 * whose id is copied to failed; those after it are left stopped.
 */
static int start_from(struct sup *s, size_t from, char *failed)
{
	size_t i;
	int rc = 0;

	for (i = from; i < s->n; i++) {
		rc = start_kid(&s->kids[i]);
		if (rc == ACT_SUP_IGNORE) {
			del_kid(&s->kids[i]);
			rc = 0;
		} else if (rc) {
			strcpy(failed, s->kids[i].spec.id);
			break;
		}
	}
	compact(s);
	return rc;
}

/* Room for one more restart time in the ring; false: no memory. */
static bool ring_grow(struct sup *s)
{
	size_t cap = s->rcap ? s->rcap * 2 : 4, i;
	int64_t *r = malloc(cap * sizeof(*r));

	if (!r)
		return false;
	for (i = 0; i < s->rlen; i++)
		r[i] = s->ring[(s->rhead + i) % s->rcap];
	free(s->ring);
	s->ring = r;
	s->rcap = cap;
	s->rhead = 0;
	return true;
}

/* One more restart, now: true while no more than the intensity fall
 * within the period (OTP's add_restart). */
static bool add_restart(struct sup *s)
{
	int64_t now = act__clock_now();

	while (s->rlen && s->ring[s->rhead] < now - s->period_ns) {
		s->rhead = (s->rhead + 1) % s->rcap;
		s->rlen--;
	}
	if (s->rlen == s->rcap && !ring_grow(s)) {
		/* no memory: the oldest makes room, still counted */
		if (!s->rcap)
			return s->intensity >= 1;
		s->ring[s->rhead] = now;
		s->rhead = (s->rhead + 1) % s->rcap;
		return s->rlen + 1 <= (size_t)s->intensity;
	}
	s->ring[(s->rhead + s->rlen) % s->rcap] = now;
	s->rlen++;
	return s->rlen <= (size_t)s->intensity;
}

/* A restart failed at child id: it is RESTARTING, and the supervisor
 * tries again after what is queued (OTP's try_again_restart). False
 * when the retry cannot be queued (no memory): the supervisor gives up,
 * as it would past its intensity. */
static bool try_again(struct sup *s, const char *id)
{
	struct kid *k = find_id(s, id);

	k->state = ACT_SUP_CHILD_RESTARTING;
	k->pid = ACT_PID_NONE;
	return !sys_send(s->self, ACT__TAG_SUP_RETRY, id, strlen(id) + 1);
}

/* Restart k by the strategy (OTP's restart/2); false when the intensity
 * is passed and the supervisor must stop. */
static bool restart(struct sup *s, struct kid *k)
{
	char failed[ACT_NAME_MAX + 1];
	size_t from;
	int rc;

	if (!add_restart(s)) {
		del_kid(k);
		compact(s);
		return false;
	}
	if (s->strategy == ACT_SUP_ONE_FOR_ONE) {
		rc = start_kid(k);
		if (rc == ACT_SUP_IGNORE)
			del_kid(k);
		else if (rc && !try_again(s, k->spec.id))
			return false;
		compact(s);
		return true;
	}
	k->pid = ACT_PID_NONE;
	k->state = ACT_SUP_CHILD_STOPPED;
	from = s->strategy == ACT_SUP_REST_FOR_ONE ? (size_t)(k - s->kids) : 0;
	terminate_from(s, from);
	return !start_from(s, from, failed) || try_again(s, failed);
}

/* A child exited with reason (OTP's do_restart); false: stop. */
static bool child_exited(struct sup *s, struct kid *k, intptr_t reason)
{
	bool clean = reason == ACT_EXIT_NORMAL || reason == ACT_EXIT_SHUTDOWN;

	k->pid = ACT_PID_NONE;
	k->state = ACT_SUP_CHILD_STOPPED;
	if (k->spec.restart == ACT_SUP_PERMANENT ||
	    (k->spec.restart == ACT_SUP_TRANSIENT && !clean))
		return restart(s, k);
	del_kid(k);
	compact(s);
	return true;
}

/* Stop every child and exit with reason (sup_free frees the rest). */
static __attribute__((noreturn)) void die(struct sup *s, intptr_t reason)
{
	terminate_from(s, 0);
	act_exit(reason);
}

/* The supervisor's exit handler: however it ends, killed included, its
 * state goes (s is act__sup_main's local, whose frame the handlers run
 * under). */
static void sup_free(void *arg)
{
	struct sup *s = arg;

	free(s->kids);
	free(s->ring);
	s->kids = NULL;
	s->ring = NULL;
}

static int add_kid(struct sup *s, const struct act__sup_wchild *c)
{
	struct kid *k;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;

		k = realloc(s->kids, cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		s->kids = k;
		s->cap = cap;
	}
	k = &s->kids[s->n++];
	memset(k, 0, sizeof(*k));
	k->spec = *c;
	k->spec.id[ACT_NAME_MAX] = 0;
	k->state = ACT_SUP_CHILD_STOPPED;
	return 0;
}

/* OTP's init: the flags, the name, the children started in order. On a
 * failure the started ones are stopped again. */
static int sup_init(struct sup *s, const struct act_msg *m)
{
	const struct act__sup_req *q = m->data;
	char failed[ACT_NAME_MAX + 1];
	uint32_t i;
	int rc;

	s->parent = m->from;
	s->strategy = q->strategy;
	s->intensity = q->intensity;
	s->period_ns = q->period_ns;
	for (i = 0; i < q->n; i++) {
		rc = add_kid(s, &q->child[i]);
		if (rc)
			return rc;
	}
	if (q->name[0]) {
		rc = act_register(q->name, s->self);
		if (rc)
			return rc;
	}
	rc = start_from(s, 0, failed);
	if (rc)
		terminate_from(s, 0);
	return rc;
}

/* Answer m with r; when that cannot be sent (no memory for a long
 * answer), with r's error alone: a caller never waits for ever. */
static void reply(const struct act_msg *m, struct act__sup_rep *r, size_t len)
{
	struct act__sup_rep err = { 0 };
	int rc = act__call_reply(m, ACT__TAG_SUP, r, len);

	if (rc && rc != -ESRCH && len > sizeof(err)) {
		err.rc = rc;
		rc = act__call_reply(m, ACT__TAG_SUP, &err, sizeof(err));
	}
	/* -ESRCH: the caller is gone; -ENOMEM for so short an answer:
	 * said on stderr by the send, and the caller waits on */
	(void)rc;
}

static void op_start_child(struct sup *s, const struct act__sup_req *q,
			   struct act__sup_rep *r)
{
	struct kid *k = find_id(s, q->child[0].id);

	if (k) {
		r->rc = k->state == ACT_SUP_CHILD_RUNNING ? -EEXIST : -EALREADY;
		r->pid = k->pid;
		return;
	}
	r->rc = add_kid(s, &q->child[0]);
	if (r->rc)
		return;
	k = &s->kids[s->n - 1];
	r->rc = start_kid(k);
	r->pid = k->pid;
	if (r->rc == ACT_SUP_IGNORE && k->spec.restart != ACT_SUP_TEMPORARY)
		return; /* kept, stopped */
	if (r->rc)
		s->n--;
}

static void op_which(struct sup *s, const struct act__sup_req *q,
		     struct act__sup_rep *r)
{
	size_t i;

	r->total = (uint32_t)s->n;
	for (i = 0; i < s->n && i < q->n && i < ACT__SUP_WHICH_MAX; i++) {
		struct act_sup_child_info *o = &r->info[i];
		const struct kid *k = &s->kids[i];

		memset(o, 0, sizeof(*o));
		memcpy(o->id, k->spec.id, sizeof(o->id));
		o->pid = k->pid;
		o->state = k->state;
		o->restart = k->spec.restart;
		o->type = k->spec.type;
	}
}

static void op_count(struct sup *s, struct act__sup_rep *r)
{
	struct act_process_info info;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct kid *k = &s->kids[i];

		r->counts.specs++;
		if (k->spec.type == ACT_SUP_SUPERVISOR)
			r->counts.supervisors++;
		else
			r->counts.workers++;
		if (k->state == ACT_SUP_CHILD_RUNNING &&
		    !act_process_info(k->pid, &info) &&
		    info.state != ACT_PROC_EXITING)
			r->counts.active++;
	}
}

/* TERMINATE, RESTART, DELETE: on the child named q->name. */
static void op_on_id(struct sup *s, const struct act__sup_req *q,
		     struct act__sup_rep *r)
{
	struct kid *k = find_id(s, q->name);

	if (!k) {
		r->rc = -ENOENT;
		return;
	}
	if (q->op == ACT__SUP_TERMINATE_CHILD) {
		shutdown_kid(k);
		del_kid(k);
		compact(s);
		return;
	}
	if (k->state != ACT_SUP_CHILD_STOPPED) {
		r->rc = k->state == ACT_SUP_CHILD_RUNNING ? -EBUSY : -EAGAIN;
		return;
	}
	if (q->op == ACT__SUP_DELETE_CHILD) {
		k->gone = true;
		compact(s);
		return;
	}
	r->rc = start_kid(k);
	r->pid = k->pid;
}

/* A request. Returns false for a stop. */
static bool request(struct sup *s, const struct act_msg *m)
{
	const struct act__sup_req *q = m->data;
	struct act__sup_rep small = { 0 }, *r = &small;
	size_t len = sizeof(small);

	if (m->len < sizeof(*q))
		return true; /* not one of ours */
	if (q->op == ACT__SUP_STOP)
		return false;
	if (!m->ref)
		return true; /* every other request is a call */
	switch (q->op) {
	case ACT__SUP_START_CHILD:
		if (m->len < sizeof(*q) + sizeof(q->child[0]))
			r->rc = -EINVAL;
		else
			op_start_child(s, q, r);
		break;
	case ACT__SUP_TERMINATE_CHILD:
	case ACT__SUP_RESTART_CHILD:
	case ACT__SUP_DELETE_CHILD:
		op_on_id(s, q, r);
		break;
	case ACT__SUP_WHICH:
		if (q->n && s->n) {
			size_t n = q->n < s->n ? q->n : s->n;

			/* the answer's room: at most what one message holds */
			if (n > ACT__SUP_WHICH_MAX)
				n = ACT__SUP_WHICH_MAX;
			len += n * sizeof(r->info[0]);
			r = calloc(1, len);
			if (!r) {
				r = &small;
				len = sizeof(small);
				r->rc = -ENOMEM;
				break;
			}
		}
		op_which(s, q, r);
		break;
	case ACT__SUP_COUNT:
		op_count(s, r);
		break;
	default:
		r->rc = -EINVAL;
	}
	reply(m, r, len);
	if (r != &small)
		free(r);
	return true;
}

/* A retry of a failed restart: the child, if it still waits for one. */
static bool retry(struct sup *s, const struct act_msg *m)
{
	struct kid *k;

	if (!m->len || ((const char *)m->data)[m->len - 1])
		return true;
	k = find_id(s, m->data);
	if (!k || k->state != ACT_SUP_CHILD_RESTARTING)
		return true;
	return restart(s, k);
}

/* Act on one message; false when the supervisor stops (*why: its exit
 * reason). */
static bool handle(struct sup *s, const struct act_msg *m, intptr_t *why)
{
	const struct act_exit_info *x = m->data;
	struct kid *k;

	switch (m->tag) {
	case ACT_TAG_EXIT:
		if (m->from.id == s->parent.id) {
			*why = x->reason;
			return false;
		}
		k = find_pid(s, m->from);
		*why = ACT_EXIT_SHUTDOWN;
		return !k || child_exited(s, k, x->reason);
	case ACT__TAG_SUP:
		*why = ACT_EXIT_NORMAL;
		return request(s, m);
	case ACT__TAG_SUP_RETRY:
		*why = ACT_EXIT_SHUTDOWN;
		return retry(s, m);
	default:
		return true; /* a stale DOWN, or not for a supervisor */
	}
}

void act__sup_main(void *unused)
{
	uint32_t tag = ACT__TAG_SUP;
	struct act__sup_rep r = { 0 };
	struct sup s = { 0 };
	struct act_msg *m;
	intptr_t why = ACT_EXIT_NORMAL;
	bool on;

	(void)unused;
	s.self = act_self();
	act_trap_exit(true);
	r.rc = act_on_exit(sup_free, &s);
	/* the INIT call of act_sup_start, which spawned it, comes first */
	m = act_receive_match(match_tag, &tag, ACT_FOREVER);
	if (!r.rc)
		r.rc = sup_init(&s, m);
	if (r.rc) {
		/* act_sup_start returns the failure: the caller is not
		 * killed by it as well */
		act_unlink(m->from);
		reply(m, &r, sizeof(r));
		act_msg_free(m);
		die(&s, ACT_EXIT_SHUTDOWN);
	}
	reply(m, &r, sizeof(r));
	act_msg_free(m);
	do {
		m = act_receive(ACT_FOREVER);
		on = handle(&s, m, &why);
		act_msg_free(m);
	} while (on);
	die(&s, why);
}
