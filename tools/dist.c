/* SPDX-License-Identifier: MIT */
/*
 * dist.c - `actors dist names|ping`: the operator's look at Erlang
 * distribution (doc/distribution.md).
 *
 *   actors dist names [--epmd-port P]
 *       the nodes epmd knows on this host, "name N at port P" a line,
 *       as `epmd -names` prints them (a plain socket: no runtime)
 *   actors dist ping NODE [--name N] [--cookie C] [--epmd-port P]
 *       a runtime made a node (act_dist_start: the name, by default
 *       actors_ping_PID, the cookie as act_dist_start takes it), which
 *       connects to NODE: "pong NODE" and 0, or "pang NODE: why" and 1,
 *       as net_adm:ping answers
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "actors.h"
#include "dist/epmd.h"
#include "../examples/opt.h"
#include "commands.h"

static int epmd_port_opt(int given)
{
	const char *e = getenv("ERL_EPMD_PORT");

	if (given)
		return given;
	if (e && atoi(e) > 0 && atoi(e) < 65536)
		return atoi(e);
	return ACT__EPMD_PORT;
}

static int names(int port)
{
	static uint8_t buf[ACT__EPMD_NAMES_MAX + 4];
	struct sockaddr_in sa;
	uint8_t req[8];
	size_t have = 0, off = 0;
	const char *why = NULL;
	uint32_t eport;
	char name[ACT__EPMD_NAME_MAX + 1];
	uint16_t nport;
	int fd, n, rc;

	n = act__epmd_names_req(req, sizeof(req));
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr,
			"actors dist names: no epmd on port %d (%s): start "
			"one with epmd -daemon\n",
			port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (n < 0 || write(fd, req, (size_t)n) != n) {
		fprintf(stderr, "actors dist names: epmd: %s\n",
			strerror(errno));
		close(fd);
		return 1;
	}
	for (;;) {
		ssize_t k = read(fd, buf + have, sizeof(buf) - have);

		if (k < 0 && errno == EINTR)
			continue;
		rc = act__epmd_names_resp(buf, have + (k > 0 ? (size_t)k : 0),
					  k <= 0, &eport, &why);
		if (k > 0)
			have += (size_t)k;
		if (rc != 0 || k <= 0)
			break;
	}
	close(fd);
	if (rc <= 0) {
		fprintf(stderr, "actors dist names: epmd: %s\n",
			why ? why : "no answer");
		return 1;
	}
	printf("epmd: up and running on port %u with data:\n", eport);
	while ((rc = act__epmd_names_next(buf + 4, have - 4, &off, name, &nport,
					  &why)) > 0)
		printf("name %s at port %u\n", name, nport);
	if (rc < 0) {
		fprintf(stderr, "actors dist names: epmd: %s\n", why);
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}

struct ping {
	const char *node, *name, *cookie;
	int port;
	int rc;
};

static void ping_main(void *arg)
{
	struct ping *p = arg;
	struct act_dist_opts o = { .epmd_port = (uint16_t)p->port };
	char me[64];
	int rc;

	if (!p->name) {
		snprintf(me, sizeof(me), "actors_ping_%d", (int)getpid());
		p->name = me;
	}
	rc = act_dist_start(p->name, p->cookie, &o);
	if (rc == 0)
		rc = act_dist_connect(p->node);
	if (rc == 0)
		printf("pong %s\n", p->node);
	else
		printf("pang %s: %s\n", p->node, strerror(-rc));
	p->rc = rc == 0 ? 0 : 1;
}

/* "names" or "ping NODE": 0, or the usage error's status. */
static int dist_operands(const struct opt_cmd *cmd, int n, char **w)
{
	if (n == 0)
		return opt_error(cmd, "no subcommand: expected names or ping "
				      "NODE");
	if (!strcmp(w[0], "names") && n > 1)
		return opt_error(cmd, "names: unexpected operand '%s'", w[1]);
	if (!strcmp(w[0], "ping") && n < 2)
		return opt_error(cmd, "ping: needs a NODE (name@host)");
	if (!strcmp(w[0], "ping") && n > 2)
		return opt_error(cmd, "ping: unexpected operand '%s'", w[2]);
	if (strcmp(w[0], "names") && strcmp(w[0], "ping"))
		return opt_error(cmd,
				 "unknown subcommand '%s': expected names or "
				 "ping NODE",
				 w[0]);
	return 0;
}

int actors_dist_main(int argc, char **argv)
{
	const char *name = NULL, *cookie = NULL;
	int port = 0, ops, rc;
	const struct opt opts[] = {
		OPT_INT("epmd-port", &port, 1, 65535, "P",
			"epmd's port (default ERL_EPMD_PORT, else 4369)"),
		OPT_STR("name", &name, "N",
			"ping: this node's name (default actors_ping_PID)"),
		OPT_STR("cookie", &cookie, "C",
			"ping: the cookie (default ACTORS_COOKIE, else "
			"~/.erlang.cookie)"),
		OPT_END,
	};
	const struct opt_cmd cmd = {
		.name = "actors dist",
		.opts = opts,
		.operands = "names | ping NODE",
		.about = "names: the nodes epmd knows on this host.\n"
			 "ping NODE: connect to NODE as a node: pong, or pang "
			 "and why.\n",
	};
	struct ping p;

	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	rc = dist_operands(&cmd, argc - ops, argv + ops);
	if (rc)
		return rc;
	if (!strcmp(argv[ops], "names"))
		return names(epmd_port_opt(port));
	memset(&p, 0, sizeof(p));
	p.node = argv[ops + 1];
	p.name = name;
	p.cookie = cookie;
	p.port = epmd_port_opt(port);
	p.rc = 1;
	rc = act_main(NULL, ping_main, &p);
	if (rc < 0) {
		fprintf(stderr, "actors dist ping: act_main: %s\n",
			strerror(-rc));
		return 1;
	}
	return fflush(stdout) ? 1 : p.rc;
}
