/* SPDX-License-Identifier: MIT */
/* echo_inproc.c - the echo server against its load, in this process
 * (echo_inproc.h). */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "../examples/util.h"
#include "echo_inproc.h"

struct echo_client {
	struct echo_server *server;
	struct echoload_opts opts;
	struct echoload_result res;
	int rc;
};

static void *echo_client_main(void *arg)
{
	struct echo_client *c = arg;

	c->rc = echoload_run(&c->opts, &c->res);
	echo_server_stop(c->server);
	return NULL;
}

int echo_inproc(const struct echo_plan *p, struct echo_outcome *out)
{
	struct echo_client c;
	pthread_t tid;
	int fd, port, rc;

	memset(out, 0, sizeof(*out));
	fd = util_listen("actors", ECHO_SERVER_HOST, 0, &port);
	if (fd < 0)
		return out->rc = fd;
	c.server = echo_server_new(fd, 0, 0);
	if (c.server == NULL) {
		close(fd);
		return out->rc = -ENOMEM;
	}
	echoload_opts_init(&c.opts, ECHO_SERVER_HOST, port);
	c.opts.conns = p->conns;
	c.opts.seconds = p->seconds;
	c.opts.warmup = p->warmup;
	rc = -pthread_create(&tid, NULL, echo_client_main, &c);
	if (rc == 0) {
		rc = echo_server_serve(c.server);
		/* If the server failed, this resets the client's
		 * connections, which ends its run at once. */
		close(fd);
		fd = -1;
		pthread_join(tid, NULL);
		if (rc == 0)
			rc = c.rc;
		out->load = c.res;
		echo_server_stats(c.server, &out->server);
	}
	if (fd >= 0)
		close(fd);
	echo_server_free(c.server);
	return out->rc = rc;
}

bool echo_ok(const struct echo_outcome *out)
{
	return out->rc == 0 && out->load.errors == 0 && out->load.requests > 0;
}
