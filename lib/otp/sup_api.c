/* SPDX-License-Identifier: MIT */
/*
 * sup_api.c - the act_sup_* calls: each checks what it is given, puts
 * it in a request (sup.h) and calls the supervisor, whose process
 * (sup.c) does the work; act_sup_start spawns that process first.
 * doc/design/supervisor.md has the design.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "actor/call.h"
#include "actor/message.h"
#include "sup.h"
#include "sched/worker.h"

void act_sup_spec_init(struct act_sup_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->strategy = ACT_SUP_ONE_FOR_ONE;
	spec->intensity = 1; /* OTP's defaults */
	spec->period_ns = 5000000000LL;
}

/* 0, or -EINVAL: not a name of 1 to ACT_NAME_MAX bytes. */
static int check_id(const char *id)
{
	size_t n;

	if (!id)
		return -EINVAL;
	n = strnlen(id, ACT_NAME_MAX + 1);
	return n && n <= ACT_NAME_MAX ? 0 : -EINVAL;
}

static bool zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

/* c as it travels, its defaults resolved; 0 or -EINVAL. */
static int wire_child(struct act__sup_wchild *w, const struct act_sup_child *c)
{
	int64_t t = c->shutdown_ns;

	if (check_id(c->id))
		return -EINVAL;
	if (c->restart < ACT_SUP_PERMANENT || c->restart > ACT_SUP_TEMPORARY)
		return -EINVAL;
	if (c->type != ACT_SUP_WORKER && c->type != ACT_SUP_SUPERVISOR)
		return -EINVAL;
	if (t < 0 && t != ACT_FOREVER && t != ACT_SUP_BRUTAL_KILL)
		return -EINVAL;
	if (!c->start && !c->fn && (c->type != ACT_SUP_SUPERVISOR || !c->arg))
		return -EINVAL; /* nothing to start */
	if (!zero(c->reserved, sizeof(c->reserved)))
		return -EINVAL; /* a later release's field: not known here */
	memset(w, 0, sizeof(*w));
	w->fn = c->fn;
	w->arg = c->arg;
	w->init = c->init;
	w->start = c->start;
	if (t == ACT_SUP_SHUTDOWN_DEFAULT)
		t = c->type == ACT_SUP_SUPERVISOR ? ACT_FOREVER :
						    ACT__SUP_SHUTDOWN_WORKER_NS;
	w->shutdown_ns = t;
	w->stack_size = c->stack_size;
	w->restart = c->restart;
	w->type = c->type;
	strcpy(w->id, c->id);
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Two children of one name: -EINVAL (OTP's duplicate_child_name). */
static int check_unique(const struct act__sup_wchild *c, size_t n)
{
	const char **ids;
	size_t i;
	int rc = 0;

	if (n < 2)
		return 0;
	ids = malloc(n * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ids[i] = c[i].id;
	qsort(ids, n, sizeof(*ids), cmp_id);
	for (i = 1; i < n && !rc; i++)
		if (!strcmp(ids[i - 1], ids[i]))
			rc = -EINVAL;
	free(ids);
	return rc;
}

/* The INIT request of spec, or NULL with *rc set. */
static struct act__sup_req *init_request(const struct act_sup_spec *spec,
					 size_t *len, int *rc)
{
	size_t n = spec->nchildren, i;
	struct act__sup_req *q;

	*rc = -EINVAL;
	if (spec->strategy < ACT_SUP_ONE_FOR_ONE ||
	    spec->strategy > ACT_SUP_REST_FOR_ONE || spec->intensity < 0 ||
	    spec->period_ns <= 0 || (n && !spec->children) ||
	    (spec->name && check_id(spec->name)) ||
	    !zero(spec->reserved, sizeof(spec->reserved)))
		return NULL;
	if (n > (ACT_MSG_MAX - sizeof(*q)) / sizeof(q->child[0])) {
		*rc = -E2BIG;
		return NULL;
	}
	*len = sizeof(*q) + n * sizeof(q->child[0]);
	q = calloc(1, *len);
	if (!q) {
		*rc = -ENOMEM;
		return NULL;
	}
	q->op = ACT__SUP_INIT;
	q->n = (uint32_t)n;
	q->strategy = spec->strategy;
	q->intensity = spec->intensity;
	q->period_ns = spec->period_ns;
	if (spec->name)
		strcpy(q->name, spec->name);
	for (i = 0; i < n; i++)
		if (wire_child(&q->child[i], &spec->children[i]))
			goto err;
	*rc = check_unique(q->child, n);
	if (!*rc)
		return q;
err:
	free(q);
	return NULL;
}

int act_sup_start(const struct act_sup_spec *spec, act_pid *sup)
{
	struct act_spawn_opts o = { 0 };
	struct act__sup_req *q;
	struct act_msg *rep;
	act_pid pid;
	size_t len;
	int rc;

	if (!spec || !sup)
		return -EINVAL;
	q = init_request(spec, &len, &rc);
	if (!q)
		return rc;
	/* linked to its caller, its parent; no mailbox limit kills it */
	o.flags = ACT_SPAWN_LINK;
	o.mailbox_limit = ACT_MAILBOX_UNLIMITED;
	rc = act_spawn_pid(act__sup_main, NULL, &o, &pid);
	if (rc) {
		free(q);
		return rc;
	}
	rc = act__call(pid, ACT__TAG_SUP, q, len, ACT_FOREVER, &rep);
	free(q);
	if (rc == -ECONNRESET) {
		/* it died in its start (killed): the link tells the caller
		 * too */
		act_msg_free(rep);
		return rc;
	}
	if (rc) {
		/* the request was not sent (no memory): end it, unlinked
		 * first, so that its death is not the caller's */
		act_unlink(pid);
		act_kill(pid, ACT_EXIT_KILL);
		return rc;
	}
	memcpy(&rc, rep->data, sizeof(rc));
	act_msg_free(rep);
	if (!rc)
		*sup = pid;
	return rc;
}

/* 0 if pid is a supervisor's process, else -ESRCH (not alive) or
 * -EINVAL (another process): a request to it would go unanswered. */
static int check_sup(act_pid pid)
{
	struct act_process_info info;
	int rc = act_process_info(pid, &info);

	if (rc)
		return rc;
	return info.fn == act__sup_main ? 0 : -EINVAL;
}

/* Call sup with q; 0 and the reply's struct in *rep (act_msg_free
 * *msg), or -errno. */
static int sup_call(act_pid sup, const struct act__sup_req *q, size_t len,
		    struct act_msg **msg, const struct act__sup_rep **rep)
{
	int rc = check_sup(sup);

	if (rc)
		return rc;
	rc = act__call(sup, ACT__TAG_SUP, q, len, ACT_FOREVER, msg);
	if (rc == -ECONNRESET)
		act_msg_free(*msg);
	if (rc)
		return rc;
	*rep = (*msg)->data;
	return 0;
}

int act_sup_stop(act_pid sup)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__sup_req q = { 0 };
	struct act_msg *m;
	uint64_t ref;
	int rc;

	if (!w || !w->current)
		return -EPERM;
	rc = check_sup(sup);
	if (!rc && sup.id == w->current->pid.id)
		rc = -EDEADLK; /* a supervisor's start, asking it */
	if (!rc)
		rc = act_monitor_ref(sup, &ref);
	if (rc)
		return rc;
	q.op = ACT__SUP_STOP;
	rc = act__message_send(w->rt, sup, ACT__TAG_SUP, &q, sizeof(q),
			       ACT_PID_NONE);
	if (rc && rc != -ESRCH) {
		act_demonitor(ref);
		return rc;
	}
	/* w is not used past here: the wait may move the caller (I8) */
	m = act_receive_match(act__sup_match_down, &ref, ACT_FOREVER);
	act_msg_free(m);
	return 0;
}

int act_sup_start_child(act_pid sup, const struct act_sup_child *child,
			act_pid *pid)
{
	size_t len =
		sizeof(struct act__sup_req) + sizeof(struct act__sup_wchild);
	const struct act__sup_rep *rep;
	struct act__sup_req *q;
	struct act_msg *m;
	int rc;

	if (!child)
		return -EINVAL;
	q = calloc(1, len); /* the request and its one child */
	if (!q)
		return -ENOMEM;
	if (wire_child(&q->child[0], child)) {
		free(q);
		return -EINVAL;
	}
	q->op = ACT__SUP_START_CHILD;
	q->n = 1;
	rc = sup_call(sup, q, len, &m, &rep);
	free(q);
	if (rc)
		return rc;
	rc = rep->rc;
	if (pid && (!rc || rc == -EEXIST))
		*pid = rep->pid;
	act_msg_free(m);
	return rc;
}

/* TERMINATE, RESTART or DELETE of the child id: the reply's rc, and
 * the pid of a restarted child. */
static int on_id(act_pid sup, uint32_t op, const char *id, act_pid *pid)
{
	struct act__sup_req q;
	const struct act__sup_rep *rep;
	struct act_msg *m;
	int rc;

	if (check_id(id))
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	q.op = op;
	strcpy(q.name, id);
	rc = sup_call(sup, &q, sizeof(q), &m, &rep);
	if (rc)
		return rc;
	rc = rep->rc;
	if (pid && !rc)
		*pid = rep->pid;
	act_msg_free(m);
	return rc;
}

int act_sup_terminate_child(act_pid sup, const char *id)
{
	return on_id(sup, ACT__SUP_TERMINATE_CHILD, id, NULL);
}

int act_sup_restart_child(act_pid sup, const char *id, act_pid *pid)
{
	return on_id(sup, ACT__SUP_RESTART_CHILD, id, pid);
}

int act_sup_delete_child(act_pid sup, const char *id)
{
	return on_id(sup, ACT__SUP_DELETE_CHILD, id, NULL);
}

int act_sup_which_children(act_pid sup, struct act_sup_child_info *children,
			   size_t n)
{
	struct act__sup_req q;
	const struct act__sup_rep *rep;
	struct act_msg *m;
	size_t got;
	int rc;

	if (n && !children)
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	q.op = ACT__SUP_WHICH;
	q.n = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	rc = sup_call(sup, &q, sizeof(q), &m, &rep);
	if (rc)
		return rc;
	rc = rep->rc;
	if (!rc) {
		got = (m->len - sizeof(*rep)) / sizeof(rep->info[0]);
		if (got)
			memcpy(children, rep->info, got * sizeof(*children));
		rc = (int)rep->total;
	}
	act_msg_free(m);
	return rc;
}

int act_sup_count_children(act_pid sup, struct act_sup_counts *counts)
{
	struct act__sup_req q;
	const struct act__sup_rep *rep;
	struct act_msg *m;
	int rc;

	if (!counts)
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	q.op = ACT__SUP_COUNT;
	rc = sup_call(sup, &q, sizeof(q), &m, &rep);
	if (rc)
		return rc;
	rc = rep->rc;
	if (!rc)
		*counts = rep->counts;
	act_msg_free(m);
	return rc;
}
