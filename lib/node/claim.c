/* SPDX-License-Identifier: MIT */
/*
 * claim.c - ACTORS_CPU_CLAIM: a runtime that claims the CPUs it runs
 * on, so that a second runtime on the host that claims one of them too
 * says so at start (warn), or does not start (refuse). doc/topology.md
 * "Several instances" has the rule.
 *
 * A claim is an abstract unix socket (a name in the kernel, no file:
 * nothing to clean up after a crash, gone with the process) named
 * "actors/cpu/N", bound and listening for as long as the runtime runs.
 * A second bind of the name fails with EADDRINUSE; a connect to it then
 * tells whose it is (SO_PEERCRED). Abstract names are per network
 * namespace: runtimes in containers of their own namespaces do not see
 * each other's claims. Off by default: the runtime opens no socket the
 * user did not ask for. One runtime per OS process, so one set of
 * claims: the state is this file's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "claim.h"
#include "affinity/plan.h"
#include "settings/vars.h"

static int *claimed; /* a listening socket per CPU claimed */
static int nclaimed;

static socklen_t claim_addr(struct sockaddr_un *a, int cpu)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	/* sun_path[0] = 0: the abstract namespace */
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "actors/cpu/%d",
		     cpu);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)n);
}

/* Claim cpu: a listening socket (>= 0), -EADDRINUSE when another has
 * it, or another -errno. */
static int claim_one(int cpu)
{
	struct sockaddr_un a;
	socklen_t len = claim_addr(&a, cpu);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, len) || listen(fd, 1)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/* The pid of the process that holds cpu's claim, or 0 if that cannot
 * be told. */
static pid_t holder(int cpu)
{
	struct sockaddr_un a;
	socklen_t len = claim_addr(&a, cpu);
	struct ucred cred = { 0 };
	socklen_t clen = sizeof(cred);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return 0;
	if (connect(fd, (struct sockaddr *)&a, len) ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen))
		cred.pid = 0;
	close(fd);
	return cred.pid;
}

/* "3 (pid 1234), 5 (pid 1234)" into buf: the CPUs taken and by whom. */
static void taken_text(char *buf, size_t n, const int *cpu, const pid_t *by,
		       int ntaken)
{
	size_t at = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < ntaken && at + 1 < n; i++) {
		int w = by[i] ? snprintf(buf + at, n - at, "%s%d (pid %d)",
					 i ? ", " : "", cpu[i], (int)by[i]) :
				snprintf(buf + at, n - at, "%s%d",
					 i ? ", " : "", cpu[i]);

		if (w < 0)
			break;
		at += (size_t)w;
	}
	if (at + 1 >= n && n > 4)
		memcpy(buf + n - 4, "...", 4);
}

/* Say what was found; -EADDRINUSE when mode refuses it, else 0. */
static int say_taken(int mode, const int *cpu, const pid_t *by, int ntaken)
{
	char list[512];

	taken_text(list, sizeof(list), cpu, by, ntaken);
	fprintf(stderr,
		"actors: CPU%s %s %s claimed by another actors runtime "
		"(ACTORS_CPU_CLAIM)%s; give each runtime its own "
		"ACTORS_CPUS (actors topo --instances N)\n",
		ntaken > 1 ? "s" : "", list, ntaken > 1 ? "are" : "is",
		mode == ACT_CPU_CLAIM_REFUSE ? ": not started" :
					       ": the two will share them");
	return mode == ACT_CPU_CLAIM_REFUSE ? -EADDRINUSE : 0;
}

int act__claim_take(const struct act__topo *t, const struct act__plan *pl,
		    int mode)
{
	int n, i, fd, ntaken = 0, rc = 0, *cpus = NULL, *taken = NULL;
	pid_t *by = NULL;

	if (mode == ACT_CPU_CLAIM_OFF)
		return 0;
	n = act__plan_cpus(pl, t, NULL, 0);
	if (n < 0)
		return n;
	cpus = calloc((size_t)n + 1, sizeof(*cpus));
	taken = calloc((size_t)n + 1, sizeof(*taken));
	by = calloc((size_t)n + 1, sizeof(*by));
	claimed = calloc((size_t)n + 1, sizeof(*claimed));
	if (!cpus || !taken || !by || !claimed) {
		rc = -ENOMEM;
		goto out;
	}
	act__plan_cpus(pl, t, cpus, n);
	for (i = 0; i < n; i++) {
		fd = claim_one(cpus[i]);
		if (fd >= 0) {
			claimed[nclaimed++] = fd;
		} else if (fd == -EADDRINUSE) {
			taken[ntaken] = cpus[i];
			by[ntaken++] = holder(cpus[i]);
		} else {
			fprintf(stderr,
				"actors: ACTORS_CPU_CLAIM: CPU %d cannot be "
				"claimed: %s\n",
				cpus[i], strerror(-fd));
			/* refuse promised no start without the claims */
			rc = mode == ACT_CPU_CLAIM_REFUSE ? fd : 0;
			goto out;
		}
	}
	if (ntaken)
		rc = say_taken(mode, taken, by, ntaken);
out:
	free(cpus);
	free(taken);
	free(by);
	if (rc)
		act__claim_release();
	return rc;
}

void act__claim_release(void)
{
	int i;

	for (i = 0; i < nclaimed; i++)
		close(claimed[i]);
	free(claimed);
	claimed = NULL;
	nclaimed = 0;
}
