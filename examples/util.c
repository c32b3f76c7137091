/* SPDX-License-Identifier: MIT */
/*
 * util.c - the examples' listening socket and error text (see util.h).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
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
