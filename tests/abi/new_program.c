/* SPDX-License-Identifier: MIT */
/*
 * new_program.c - built with ACT__ABI_TEST_GROW against the grown
 * library (tests/abi/new_grown): the grown fields are real there, so the
 * guards of old_program.c would catch a compat form that moved more
 * than the 0.1 prefix. act_config_init clears them, act_main and
 * act_spawn_opt refuse them nonzero, act_process_info writes them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "actors.h"

static int fails, checks;

#define CHECK(c)                                                              \
	do {                                                                  \
		checks++;                                                     \
		if (!(c)) {                                                   \
			fprintf(stderr, "new_program: %s:%d: %s\n", __FILE__, \
				__LINE__, #c);                                \
			fails++;                                              \
		}                                                             \
	} while (0)

static void noop(void *arg)
{
	(void)arg;
}

static void new_main(void *arg)
{
	struct act_spawn_opts o;
	struct act_process_info i;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.abi_test[3] = 1;
	CHECK(act_spawn_opt(noop, NULL, &o).id == 0);
	memset(&i, 0, sizeof(i));
	CHECK(act_process_info(act_self(), &i) == 0);
	CHECK(i.abi_test[3] == 0x5a5a5a5a5a5a5a5aull);
}

int main(void)
{
	struct act_config cfg;

	memset(&cfg, 0xa5, sizeof(cfg));
	act_config_init(&cfg);
	CHECK(cfg.abi_test[3] == 0);
	cfg.bind = ACT_BIND_NONE;
	cfg.schedulers = 1;
	cfg.abi_test[3] = 1;
	CHECK(act_main(&cfg, new_main, NULL) == -EINVAL);
	cfg.abi_test[3] = 0;
	CHECK(act_main(&cfg, new_main, NULL) == 0);
	printf("new_program: %d checks, %d failed\n", checks, fails);
	return fails ? 1 : 0;
}
