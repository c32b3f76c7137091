/* SPDX-License-Identifier: MIT */
/*
 * old_program.c - a program built against the ACTORS_0.1 layouts
 * (abi-0.1.h), run against today's library (tests/abi/old_now) and
 * against one whose three structs have grown (tests/abi/old_grown,
 * built with ACT__ABI_TEST_GROW: 16 to 32 bytes appended to each, which
 * that library checks are zero on input and fills on output). Each
 * struct sits before a guard of 0xa5 bytes, which stands for whatever
 * the old binary keeps after it: the library must neither write it
 * (act_config_init, act_process_info) nor read it as a field (act_main
 * and act_spawn_opt would refuse the grown fields' garbage with
 * -EINVAL). And the fields the old program set must arrive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi-0.1.h"

#define GUARD 64
#define LIMIT 7
#define MAIN_LIMIT 1000

static int fails, checks;

#define CHECK(c)                                                              \
	do {                                                                  \
		checks++;                                                     \
		if (!(c)) {                                                   \
			fprintf(stderr, "old_program: %s:%d: %s\n", __FILE__, \
				__LINE__, #c);                                \
			fails++;                                              \
		}                                                             \
	} while (0)

static struct {
	struct act_config c;
	unsigned char guard[GUARD];
} cfg;

static struct {
	struct act_spawn_opts o;
	unsigned char guard[GUARD];
} opts;

static struct {
	struct act_process_info i;
	unsigned char guard[GUARD];
} info;

static bool guard_ok(const unsigned char *g)
{
	int i;

	for (i = 0; i < GUARD; i++)
		if (g[i] != 0xa5)
			return false;
	return true;
}

static void child(void *arg)
{
	(void)arg;
	act_msg_free(act_receive(ACT_FOREVER));
}

static void old_main(void *arg)
{
	uint64_t ref = 0;
	struct act_msg *m;
	act_pid kid;
	int i;

	(void)arg;
	/* act_main read the old config's fields, and nothing past them */
	CHECK(act_workers() == 2);
	memset(&info, 0xa5, sizeof(info));
	CHECK(act_process_info(act_self(), &info.i) == 0);
	CHECK(info.i.mailbox_limit == MAIN_LIMIT);
	CHECK(guard_ok(info.guard));

	/* act_spawn_opt: the old options arrive, the guard is not read */
	memset(&opts, 0xa5, sizeof(opts));
	memset(&opts.o, 0, sizeof(opts.o));
	opts.o.stack_size = 128 << 10;
	opts.o.flags = ACT_SPAWN_MONITOR;
	opts.o.mailbox_limit = LIMIT;
	opts.o.monitor_ref = &ref;
	kid = act_spawn_opt(child, NULL, &opts.o);
	CHECK(kid.id != 0);
	CHECK(ref != 0);
	CHECK(act_register("abi_kid", kid) == 0);
	for (i = 0; i < 1000; i++) { /* until it waits in its receive */
		memset(&info, 0xa5, sizeof(info));
		if (act_process_info(kid, &info.i) == 0 &&
		    info.i.state == ACT_PROC_WAITING)
			break;
		act_sleep(1000000);
	}

	/* act_process_info: the old fields, nothing written past them */
	CHECK(info.i.pid.id == kid.id);
	CHECK(info.i.state == ACT_PROC_WAITING);
	CHECK(info.i.mailbox_limit == LIMIT);
	CHECK(info.i.monitored_by == 1);
	CHECK(info.i.fn == child);
	CHECK(strcmp(info.i.name, "abi_kid") == 0);
	CHECK(info.i.reserved[5] == 0);
	CHECK(guard_ok(info.guard));

	CHECK(act_send(kid, 1, NULL, 0) == 0);
	m = act_receive(ACT_FOREVER);
	CHECK(m && m->tag == ACT_TAG_DOWN);
	act_msg_free(m);
}

int main(void)
{
	int rc;

	/* act_config_init: zeroes the old struct, leaves the guard */
	memset(&cfg, 0xa5, sizeof(cfg));
	act_config_init(&cfg.c);
	CHECK(cfg.c.schedulers == 0 && cfg.c.trace_buffer == 0 &&
	      cfg.c.cpus == NULL && cfg.c.reserved[0] == 0);
	CHECK(guard_ok(cfg.guard));
	cfg.c.schedulers = 2;
	cfg.c.mailbox_limit = MAIN_LIMIT;
	cfg.c.bind = 1; /* ACT_BIND_NONE: any machine */
	rc = act_main(&cfg.c, old_main, NULL);
	CHECK(rc == 0);
	if (rc)
		fprintf(stderr, "old_program: act_main: %d\n", rc);
	printf("old_program: %d checks, %d failed\n", checks, fails);
	return fails ? 1 : 0;
}
