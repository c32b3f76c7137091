/* SPDX-License-Identifier: MIT */
/*
 * trace_run.c - the scripted runs of tests/trace.sh (doc/observability.md):
 *
 *   trace_run script   spawns, messages, a steal at 2 workers, a timer, an
 *                      I/O operation and a kill; prints "NAME PID" lines
 *                      for the checker (tests/trace-check.py)
 *   trace_run long     one process that holds its worker for 60 ms
 *                      without a runtime call, one that yields all along
 *   trace_run sleep    the main process sleeps 300 ms in 10 ms steps
 *   trace_run quick    returns at once (the bad-value checks)
 *
 * Linked with -rdynamic, so that the trace names entry functions. Exit
 * status: act_main's result (negated errno) as 100 + errno, else 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <actors.h>

/* the build hides symbols (-fvisibility=hidden): these are shown */
#define SHOWN __attribute__((visibility("default")))

static int pipefd[2];
static int64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void say(const char *what, act_pid pid)
{
	printf("%s %" PRIu64 "\n", what, pid.id);
	fflush(stdout);
}

/* The runtime's messages name a pid as act_pid_format writes it. */
static void say_formatted(const char *what, act_pid pid)
{
	char s[ACT_PID_STRLEN];

	act_pid_format(pid, s, sizeof(s));
	printf("%s %s\n", what, s);
	fflush(stdout);
}

SHOWN void trace_echoer(void *arg)
{
	struct act_msg *m = act_receive(ACT_FOREVER);

	(void)arg;
	if (m) {
		act_send(m->from, 2, "pong", 4);
		act_msg_free(m);
	}
}

SHOWN void trace_sleeper(void *arg)
{
	(void)arg;
	act_sleep(2000000); /* 2 ms: a timer the reactor fires */
}

SHOWN void trace_reader(void *arg)
{
	char buf[8];
	ssize_t n;

	(void)arg;
	n = act_io_read(pipefd[0], buf, sizeof(buf), -1);
	if (n == -ENOSYS) { /* no io_uring here: the checker is told */
		say("noring", act_self());
		return;
	}
	if (n != 4)
		abort();
}

SHOWN void trace_victim(void *arg)
{
	(void)arg;
	act_receive(ACT_FOREVER); /* until killed */
}

SHOWN void trace_spinner(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 200; i++)
		act_yield();
}

/* Until pid is reaped (act_process_info: -ESRCH), so that its exit is
 * in the trace whatever the machine's speed. */
static void wait_gone(act_pid pid)
{
	struct act_process_info info;

	while (act_process_info(pid, &info) == 0)
		act_sleep(1000000);
}

SHOWN void trace_main(void *arg)
{
	act_pid self = act_self(), p, spin[64], named[4];
	struct act_msg *m;
	int i;

	(void)arg;
	say("main", self);
	if (act_register("trace-main", self))
		abort();
	p = act_spawn(trace_echoer, NULL);
	say("echoer", p);
	named[0] = p;
	act_send(p, 1, "ping", 4);
	m = act_receive(ACT_FOREVER);
	act_msg_free(m);
	named[1] = act_spawn(trace_sleeper, NULL);
	say("sleeper", named[1]);
	if (pipe(pipefd))
		abort();
	p = act_spawn(trace_reader, NULL);
	say("reader", p);
	named[2] = p;
	act_sleep(1000000);
	if (write(pipefd[1], "data", 4) != 4)
		abort();
	p = act_spawn(trace_victim, NULL);
	say("victim", p);
	named[3] = p;
	act_yield();
	act_kill(p, ACT_EXIT_KILL);
	/* a surplus on this worker for the other to steal */
	for (i = 0; i < 64; i++)
		spin[i] = act_spawn(trace_spinner, NULL);
	say("spinner", spin[0]);
	for (i = 0; i < 400; i++)
		act_yield();
	/* the others finish: their exits are checked */
	for (i = 0; i < 4; i++)
		wait_gone(named[i]);
	for (i = 0; i < 64; i++)
		wait_gone(spin[i]);
}

SHOWN void trace_hog(void *arg)
{
	int64_t until = ms_now() + 60;

	(void)arg;
	while (ms_now() < until) /* no runtime call: one long turn */
		;
}

SHOWN void trace_polite(void *arg)
{
	int64_t until = ms_now() + 60;

	(void)arg;
	while (ms_now() < until)
		act_yield();
}

SHOWN void trace_long(void *arg)
{
	(void)arg;
	say("polite", act_spawn(trace_polite, NULL));
	say_formatted("hog", act_spawn(trace_hog, NULL));
	act_sleep(150000000);
}

SHOWN void trace_sleep(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 30; i++)
		act_sleep(10000000);
}

SHOWN void trace_quick(void *arg)
{
	(void)arg;
}

int main(int argc, char **argv)
{
	struct act_config cfg;
	void (*fn)(void *) = trace_quick;
	int rc;

	act_config_init(&cfg);
	if (argc > 1 && !strcmp(argv[1], "script")) {
		fn = trace_main;
		cfg.schedulers = 2;
	} else if (argc > 1 && !strcmp(argv[1], "long")) {
		fn = trace_long;
		cfg.schedulers = 2;
	} else if (argc > 1 && !strcmp(argv[1], "sleep")) {
		fn = trace_sleep;
	}
	rc = act_main(&cfg, fn, NULL);
	return rc < 0 ? 100 + -rc : 0;
}
