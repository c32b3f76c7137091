/* SPDX-License-Identifier: MIT */
/*
 * sup_diff.c - the act_sup_* side of tests/sup-diff.sh: reads a script
 * of supervisor operations on standard input (tests/sup-diff.erl says
 * what each line means), runs them against the library's supervisor,
 * and prints what each gave and the supervisor's state after it, in the
 * form that tests/sup-diff.erl prints for OTP's own supervisor.
 *
 *   sup_diff [--workers N] < script
 *
 * Exit status 0, 1 when a call failed in a way the script cannot
 * explain (said on stderr), 2 for bad arguments.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#define MAXKIDS 64
#define MAXIDS 16
#define IDLEN 16

enum { T_EXIT = 1 };

/* What the script's children did, by id. */
static struct {
	char id[IDLEN];
	_Atomic int starts, fail, ignore, alive;
} ids[MAXIDS];
static int nids;

static char **lines;
static size_t nlines;
static int bad; /* the exit status */

static int id_index(const char *id)
{
	int i;

	for (i = 0; i < nids; i++)
		if (!strcmp(ids[i].id, id))
			return i;
	if (nids == MAXIDS || strlen(id) >= IDLEN) {
		fprintf(stderr, "sup_diff: too many ids, or %s too long\n", id);
		exit(2);
	}
	snprintf(ids[nids].id, IDLEN, "%s", id);
	return nids++;
}

static void kid_ended(void *arg)
{
	atomic_fetch_sub(&ids[(intptr_t)arg].alive, 1);
}

static int kid_init(void *arg)
{
	intptr_t i = (intptr_t)arg;

	atomic_fetch_add(&ids[i].starts, 1);
	if (atomic_load(&ids[i].fail) > 0) {
		atomic_fetch_sub(&ids[i].fail, 1);
		return -EIO;
	}
	if (atomic_load(&ids[i].ignore) > 0) {
		atomic_fetch_sub(&ids[i].ignore, 1);
		return ACT_SUP_IGNORE;
	}
	atomic_fetch_add(&ids[i].alive, 1);
	if (act_on_exit(kid_ended, arg)) {
		fprintf(stderr, "sup_diff: act_on_exit failed\n");
		bad = 1;
	}
	return 0;
}

static void kid(void *arg)
{
	struct act_msg *m;
	intptr_t r;

	(void)arg;
	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (m->tag == T_EXIT) {
			memcpy(&r, m->data, sizeof(r));
			act_msg_free(m);
			act_exit(r);
		}
		act_msg_free(m);
	}
}

/* ---- the session ---------------------------------------------------- */

static struct {
	struct act_sup_spec spec;
	struct act_sup_child kids[MAXKIDS];
	act_pid sup;
} ses;

static struct act_sup_child child_of(const char *id, const char *restart,
				     const char *shutdown)
{
	struct act_sup_child c = { 0 };
	intptr_t i = id_index(id);

	c.id = ids[i].id;
	c.fn = kid;
	c.init = kid_init;
	c.arg = (void *)i;
	c.restart = !strcmp(restart, "permanent") ? ACT_SUP_PERMANENT :
		    !strcmp(restart, "transient") ? ACT_SUP_TRANSIENT :
						    ACT_SUP_TEMPORARY;
	c.shutdown_ns = !strcmp(shutdown, "brutal") ? ACT_SUP_BRUTAL_KILL :
			!strcmp(shutdown, "inf")    ? ACT_FOREVER :
						      atoll(shutdown) * 1000000LL;
	return c;
}

static struct act_sup_child_info info[MAXKIDS];

/* which_children in start order once no failed restart is still to be
 * tried again; -1 once the supervisor is gone. */
static int which(void)
{
	int n, i;

	for (;;) {
		n = act_sup_which_children(ses.sup, info, MAXKIDS);
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++)
			if (info[i].state == ACT_SUP_CHILD_RESTARTING)
				break;
		if (i == n)
			return n;
		act_yield();
	}
}

static bool alive(void)
{
	struct act_sup_counts c;

	return ses.sup.id && !act_sup_count_children(ses.sup, &c);
}

static const char *err(int rc)
{
	switch (rc) {
	case 0:
		return "ok";
	case ACT_SUP_IGNORE:
		return "ignore";
	case -ENOENT:
		return "enoent";
	case -EBUSY:
		return "ebusy";
	case -EAGAIN:
		return "eagain";
	case -EEXIST:
		return "eexist";
	case -EALREADY:
		return "ealready";
	case -EIO:
		return "error";
	default:
		fprintf(stderr, "sup_diff: unexpected %d (%s)\n", rc,
			strerror(-rc));
		bad = 1;
		return "unexpected";
	}
}

/* Until the supervisor has acted on pid's exit: pid is not its child. */
static void wait_gone(act_pid pid)
{
	int n, i;

	for (;;) {
		n = act_sup_which_children(ses.sup, info, MAXKIDS);
		for (i = 0; i < n; i++)
			if (info[i].pid.id == pid.id)
				break;
		if (n < 0 || i == n)
			return;
		act_sleep(1000000);
	}
}

static const char *op_exit(const char *id, const char *reason)
{
	intptr_t r = !strcmp(reason, "normal")	 ? ACT_EXIT_NORMAL :
		     !strcmp(reason, "shutdown") ? ACT_EXIT_SHUTDOWN :
		     !strcmp(reason, "kill")	 ? ACT_EXIT_KILL :
						   42;
	act_pid pid = ACT_PID_NONE;
	struct act_msg *m;
	uint64_t ref;
	int n, i;

	n = which();
	for (i = 0; i < n; i++)
		if (!strcmp(info[i].id, id))
			pid = info[i].pid;
	if (!pid.id)
		return "notrunning";
	ref = act_monitor(pid);
	if (r == ACT_EXIT_KILL)
		act_kill(pid, ACT_EXIT_KILL);
	else
		act_send(pid, T_EXIT, &r, sizeof(r));
	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (m->tag == ACT_TAG_DOWN &&
		    ((struct act_exit_info *)m->data)->ref == ref)
			break;
		act_msg_free(m); /* an EXIT of a supervisor gone */
	}
	act_msg_free(m);
	wait_gone(pid);
	return "ok";
}

static const char *op_sup(char **w, int n)
{
	struct act_sup_child c;
	act_pid pid;

	if (!alive())
		return "nosup";
	if (!strcmp(w[0], "exit") && n == 3)
		return op_exit(w[1], w[2]);
	if (!strcmp(w[0], "add") && n == 4) {
		c = child_of(w[1], w[2], w[3]);
		return err(act_sup_start_child(ses.sup, &c, &pid));
	}
	if (!strcmp(w[0], "term") && n == 2)
		return err(act_sup_terminate_child(ses.sup, w[1]));
	if (!strcmp(w[0], "restart") && n == 2)
		return err(act_sup_restart_child(ses.sup, w[1], &pid));
	if (!strcmp(w[0], "delete") && n == 2)
		return err(act_sup_delete_child(ses.sup, w[1]));
	if (!strcmp(w[0], "stop") && n == 1) {
		if (act_sup_stop(ses.sup))
			bad = 1;
		return "ok";
	}
	fprintf(stderr, "sup_diff: bad line: %s\n", w[0]);
	exit(2);
}

static void stop_session(void)
{
	if (alive() && act_sup_stop(ses.sup))
		bad = 1;
	ses.sup = ACT_PID_NONE;
}

static const char *op(char **w, int n)
{
	int i;

	if (!strcmp(w[0], "session") && n == 3) {
		stop_session();
		for (i = 0; i < nids; i++) {
			ids[i].starts = 0;
			ids[i].fail = 0;
			ids[i].ignore = 0;
		}
		act_sup_spec_init(&ses.spec);
		ses.spec.strategy =
			!strcmp(w[1], "one_for_one") ? ACT_SUP_ONE_FOR_ONE :
			!strcmp(w[1], "one_for_all") ? ACT_SUP_ONE_FOR_ALL :
						       ACT_SUP_REST_FOR_ONE;
		ses.spec.intensity = atoi(w[2]);
		ses.spec.period_ns = 3600 * 1000000000LL;
		ses.spec.children = ses.kids;
		ses.spec.nchildren = 0;
		return "ok";
	}
	if (!strcmp(w[0], "child") && n == 4 && ses.spec.nchildren < MAXKIDS) {
		ses.kids[ses.spec.nchildren++] = child_of(w[1], w[2], w[3]);
		return "ok";
	}
	if (!strcmp(w[0], "start") && n == 1) {
		if (alive())
			return "alive";
		return act_sup_start(&ses.spec, &ses.sup) ? "error" : "ok";
	}
	if ((!strcmp(w[0], "failnext") || !strcmp(w[0], "ignorenext")) &&
	    n == 3) {
		i = id_index(w[1]);
		if (w[0][0] == 'f')
			ids[i].fail = atoi(w[2]);
		else
			ids[i].ignore = atoi(w[2]);
		return "ok";
	}
	return op_sup(w, n);
}

/* ---- the state after an operation ---------------------------------- */

static void print_state(void)
{
	struct act_sup_counts c;
	bool up = alive();
	int n = up ? which() : -1, i, k;

	up = n >= 0 && !act_sup_count_children(ses.sup, &c);
	printf("  sup=%s children=[", up ? "up" : "down");
	for (i = 0; up && i < n; i++)
		printf("%s%s:%s:%d", i ? " " : "", info[i].id,
		       info[i].state == ACT_SUP_CHILD_RUNNING ? "R" :
		       info[i].state == ACT_SUP_CHILD_STOPPED ? "S" :
								"X",
		       ids[id_index(info[i].id)].starts);
	if (up)
		printf("] count=%u/%u/%u/%u alive=[", c.specs, c.active,
		       c.supervisors, c.workers);
	else
		printf("] count=- alive=[");
	/* the ids with a live process, each as often as it has one, in
	 * the order OTP's side sorts them */
	{
		int order[MAXIDS], j, t, first = 1;

		for (i = 0; i < nids; i++)
			order[i] = i;
		for (i = 1; i < nids; i++)
			for (j = i; j > 0 && strcmp(ids[order[j - 1]].id,
						    ids[order[j]].id) > 0;
			     j--) {
				t = order[j];
				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		for (i = 0; i < nids; i++)
			for (k = 0; k < ids[order[i]].alive; k++) {
				printf("%s%s", first ? "" : " ",
				       ids[order[i]].id);
				first = 0;
			}
	}
	printf("]\n");
}

static void run(void *arg)
{
	char *w[8], *s, buf[256];
	size_t l;
	int n;

	(void)arg;
	act_trap_exit(true); /* a supervisor that gives up ends, not this */
	for (l = 0; l < nlines; l++) {
		snprintf(buf, sizeof(buf), "%s", lines[l]);
		n = 0;
		for (s = strtok(buf, " "); s && n < 8; s = strtok(NULL, " "))
			w[n++] = s;
		if (!n)
			continue;
		printf("%s => %s\n", lines[l], op(w, n));
		print_state();
		fflush(stdout);
	}
	stop_session();
}

int main(int argc, char **argv)
{
	struct act_config cfg;
	char line[256];
	size_t cap = 0;
	int rc;

	act_config_init(&cfg);
	if (argc == 3 && !strcmp(argv[1], "--workers"))
		cfg.schedulers = atoi(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: sup_diff [--workers N] < script\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (nlines == cap) {
			cap = cap ? cap * 2 : 256;
			lines = realloc(lines, cap * sizeof(*lines));
			if (!lines)
				return 2;
		}
		lines[nlines++] = strdup(line);
	}
	rc = act_main(&cfg, run, NULL);
	if (rc) {
		fprintf(stderr, "sup_diff: act_main: %d\n", rc);
		return 1;
	}
	return bad;
}
