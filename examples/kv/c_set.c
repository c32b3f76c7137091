/* SPDX-License-Identifier: MIT */
/* c_set.c - the kv example's set commands (cmd.h). */
#include "cmd_impl.h"

const struct kv_cmd kv_cmds_set[] = {
	{ .name = NULL },
};
