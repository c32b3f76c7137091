/* SPDX-License-Identifier: MIT */
/*
 * compat.c - the ACTORS_0.1 forms of the calls whose structs may grow
 * (doc/design/abi.md): act_config_init, act_main, act_spawn_opt and
 * act_process_info as a binary built against the 0.1 layout of struct
 * act_config, act_spawn_opts and act_process_info calls them.
 *
 * Fields are only ever appended, so a 0.1 struct is a prefix of today's:
 * each form here moves only the 0.1 prefix, into a zeroed current struct
 * (zero is "unset" for every field) or out of a filled one, and never
 * reads or writes past what the old binary has. lib/libactors.map binds
 * them to ACTORS_0.1 (.symver below); the current functions, of their
 * own files, are the default ACTORS_0.2, which new builds link to.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "actors.h"

#define END_OF(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* The 0.1 layouts end at these fields, frozen (tests/abi/abi-0.1.h) */
#define CONFIG_0_1 END_OF(struct act_config, trace_buffer)
#define SPAWN_OPTS_0_1 END_OF(struct act_spawn_opts, reserved)
#define INFO_0_1 END_OF(struct act_process_info, reserved)
_Static_assert(CONFIG_0_1 == 80, "act_config 0.1 layout");
_Static_assert(SPAWN_OPTS_0_1 == 40, "act_spawn_opts 0.1 layout");
_Static_assert(INFO_0_1 == 408, "act_process_info 0.1 layout");

#define COMPAT __attribute__((visibility("default")))

COMPAT void act__compat_config_init(struct act_config *cfg);
COMPAT int act__compat_main(const struct act_config *cfg, void (*fn)(void *),
			    void *arg);
COMPAT act_pid act__compat_spawn_opt(void (*fn)(void *), void *arg,
				     const struct act_spawn_opts *opts);
COMPAT int act__compat_process_info(act_pid pid, struct act_process_info *info);

__asm__(".symver act__compat_config_init, act_config_init@ACTORS_0.1");
__asm__(".symver act__compat_main, act_main@ACTORS_0.1");
__asm__(".symver act__compat_spawn_opt, act_spawn_opt@ACTORS_0.1");
__asm__(".symver act__compat_process_info, act_process_info@ACTORS_0.1");

void act__compat_config_init(struct act_config *cfg)
{
	memset(cfg, 0, CONFIG_0_1);
}

int act__compat_main(const struct act_config *cfg, void (*fn)(void *),
		     void *arg)
{
	struct act_config c;

	if (!cfg)
		return act_main(NULL, fn, arg);
	memset(&c, 0, sizeof(c));
	memcpy(&c, cfg, CONFIG_0_1);
	return act_main(&c, fn, arg); /* act_main keeps no pointer to it */
}

act_pid act__compat_spawn_opt(void (*fn)(void *), void *arg,
			      const struct act_spawn_opts *opts)
{
	struct act_spawn_opts o;

	if (!opts)
		return act_spawn_opt(fn, arg, NULL);
	memset(&o, 0, sizeof(o));
	memcpy(&o, opts, SPAWN_OPTS_0_1);
	return act_spawn_opt(fn, arg, &o);
}

int act__compat_process_info(act_pid pid, struct act_process_info *info)
{
	struct act_process_info i;
	int rc;

	if (!info)
		return -EINVAL;
	rc = act_process_info(pid, &i);
	if (!rc)
		memcpy(info, &i, INFO_0_1);
	return rc;
}
