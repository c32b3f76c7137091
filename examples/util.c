/* SPDX-License-Identifier: MIT */
/*
 * util.c - the examples' listening socket, their room under the
 * descriptor limit and their error text (see util.h).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util.h"

void util_addr_name(char *buf, size_t len, const char *host, int port)
{
	snprintf(buf, len, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

static int listen_one(const struct addrinfo *ai, const char *who,
		      const char *name)
{
	const char *call = "socket";
	int fd, one = 1, err;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
	if (fd < 0)
		goto err;
	call = "setsockopt SO_REUSEADDR";
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		goto err_close;
	call = "bind";
	if (bind(fd, ai->ai_addr, ai->ai_addrlen))
		goto err_close;
	call = "listen";
	if (listen(fd, SOMAXCONN))
		goto err_close;
	return fd;
err_close:
	err = errno;
	close(fd);
	errno = err;
err:
	err = -errno;
	fprintf(stderr, "%s: %s %s: %s\n", who, call, name, strerror(errno));
	return err;
}

static int bound_port_of(int fd, const char *who)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len)) {
		fprintf(stderr, "%s: getsockname: %s\n", who, strerror(errno));
		return -1;
	}
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

int util_listen(const char *who, const char *host, int port, int *bound_port)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				  .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	char serv[16], name[300];
	int fd = -EADDRNOTAVAIL, rc, p;

	util_addr_name(name, sizeof(name), host, port);
	if (port < 0 || port > 65535) {
		fprintf(stderr, "%s: %s: bad port\n", who, name);
		return -EINVAL;
	}
	snprintf(serv, sizeof(serv), "%d", port);
	rc = getaddrinfo(host, serv, &hints, &res);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", who, name,
			rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return rc == EAI_MEMORY ? -ENOMEM : -EADDRNOTAVAIL;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = listen_one(ai, who, name);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	if (fd >= 0 && bound_port) {
		p = bound_port_of(fd, who);
		if (p < 0) {
			close(fd);
			return -EIO;
		}
		*bound_port = p;
	}
	return fd;
}

const char *util_strerror(int rc)
{
	if (rc == -ENOSYS)
		return "no io_uring in this runtime (act_io_*: ENOSYS)";
	return strerror(-rc);
}

int util_fit_nofile(const char *who, const char *what, long long *max,
		    int reserve)
{
	rlim_t need = (rlim_t)*max + (rlim_t)reserve, was;
	struct rlimit rl, up;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0; /* RLIM_INFINITY too */
	was = rl.rlim_cur;
	up = rl;
	up.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
	if (up.rlim_cur > rl.rlim_cur && !setrlimit(RLIMIT_NOFILE, &up))
		rl.rlim_cur = up.rlim_cur;
	if (rl.rlim_cur >= need) {
		if (who)
			fprintf(stderr,
				"%s: RLIMIT_NOFILE raised from %llu to %llu "
				"for %s %lld\n",
				who, (unsigned long long)was,
				(unsigned long long)rl.rlim_cur, what, *max);
		return 0;
	}
	if (rl.rlim_cur <= (rlim_t)reserve) {
		if (who)
			fprintf(stderr,
				"%s: RLIMIT_NOFILE is %llu (ulimit -n): no "
				"room for a client beside the %d descriptors "
				"kept for the server\n",
				who, (unsigned long long)rl.rlim_cur, reserve);
		return -EMFILE;
	}
	if (who)
		fprintf(stderr,
			"%s: %s lowered from %lld to %lld: RLIMIT_NOFILE is "
			"%llu (ulimit -n%s) less %d descriptors kept for the "
			"server\n",
			who, what, *max,
			(long long)(rl.rlim_cur - (rlim_t)reserve),
			(unsigned long long)rl.rlim_cur,
			rl.rlim_cur == rl.rlim_max ? ", the hard limit too" :
						     "",
			reserve);
	*max = (long long)(rl.rlim_cur - (rlim_t)reserve);
	return 0;
}
