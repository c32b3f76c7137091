/* SPDX-License-Identifier: MIT */
/* c_zset.c - the kv example's zset commands (cmd.h). */
#include "cmd_impl.h"

const struct kv_cmd kv_cmds_zset[] = {
	{ .name = NULL },
};
