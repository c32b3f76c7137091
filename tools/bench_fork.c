/* SPDX-License-Identifier: MIT */
/* bench_fork.c - a workload in a forked child, its outcome back through
 * a pipe (bench_fork.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_fork.h"

static int io_all(int fd, void *buf, size_t len, bool wr)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* In the forked child: fill in *out, send its len bytes back, exit. */
static void __attribute__((noreturn))
child_report(void (*fill)(const void *arg, void *out), const void *arg,
	     void *out, size_t len, int fd)
{
	fill(arg, out);
	_exit(io_all(fd, out, len, true) ? 1 : 0);
}

/*
 * Reaps the child; takes its peak RSS and says how it ended if badly
 * (reported: it wrote its outcome).
 */
static int reap(const char *name, pid_t pid, bool reported, double *rss_mib)
{
	struct rusage ru;
	int status;

	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -errno;
	*rss_mib = (double)ru.ru_maxrss / 1024.0; /* ru_maxrss: KiB */
	if (WIFSIGNALED(status))
		fprintf(stderr, "actors bench %s: killed by signal %d (%s)\n",
			name, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (!reported)
		fprintf(stderr, "actors bench %s: exited %d with no result\n",
			name, WEXITSTATUS(status));
	return 0;
}

int bench_fork(const char *name, void (*fill)(const void *, void *),
	       const void *arg, void *out, size_t len, bool *reported,
	       double *rss_mib)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		return -errno;
	fflush(NULL); /* or the child would flush our buffers again */
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		child_report(fill, arg, out, len, fd[1]);
	}
	close(fd[1]);
	if (pid < 0) {
		close(fd[0]);
		return -errno;
	}
	*reported = io_all(fd[0], out, len, false) == 0;
	close(fd[0]);
	return reap(name, pid, *reported, rss_mib);
}
