/* SPDX-License-Identifier: MIT */
/*
 * util.h - what the example programs (examples/), the benchmarks (bench/)
 * and the tool (tools/actors) would otherwise each write for themselves:
 * the monotonic clock, a listening TCP socket and room for its clients
 * under the descriptor limit.
 *
 * Nothing here uses libactors: bench/libechoload.la and
 * bench/peers/epoll_echo, which must not link it, use it too. Errors come
 * back as negative errno values, as in libactors.
 */
#ifndef EXAMPLES_UTIL_H
#define EXAMPLES_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* util_now_ns - CLOCK_MONOTONIC in nanoseconds: a vDSO read, no system
 * call, inline for the load generator's loops. It cannot fail on Linux.
 * Any thread. */
static inline int64_t util_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * util_listen - open a TCP socket bound to host:port (host: a numeric
 * address or a name; port 0 picks an ephemeral one), with SO_REUSEADDR,
 * listening with a backlog of SOMAXCONN; the first of the addresses that
 * host resolves to that works. Returns the descriptor, blocking and
 * close-on-exec, and the port bound in *bound_port (may be NULL), or
 * -errno: -EINVAL for a port out of range, -EADDRNOTAVAIL for a name that
 * does not resolve. Failures are said on stderr, each line starting with
 * "who: ". Any thread.
 */
int util_listen(const char *who, const char *host, int port, int *bound_port);

/*
 * util_fit_nofile - room for *max clients, as redis-server makes it at
 * start: RLIMIT_NOFILE's soft limit raised to *max + reserve when the
 * hard limit allows, else raised as far as it goes and *max lowered to
 * what that leaves (the limit less reserve, the descriptors the server
 * keeps for itself). Each change is said in one line on stderr that
 * starts with "who: " and names both numbers (what: the setting's name,
 * "maxclients"; who NULL: nothing said). Returns 0, or -EMFILE when the
 * limit leaves no room for a client (said too). Call it before act_main(): the runtime sizes its
 * table of registered files by the limit at the first registration.
 */
int util_fit_nofile(const char *who, const char *what, long long *max,
		    int reserve);

/* util_addr_name - "host:port" in buf, "[host]:port" for an IPv6
 * address, for messages. */
void util_addr_name(char *buf, size_t len, const char *host, int port);

/*
 * util_strerror - what a negative errno from act_main() or an act_io_*
 * call means, for a message: strerror's, but for -ENOSYS, which from
 * act_io_* means the runtime has no io_uring.
 */
const char *util_strerror(int rc);

#endif /* EXAMPLES_UTIL_H */
