/* SPDX-License-Identifier: MIT */
/* c_stream.c - the kv example's stream commands (cmd.h). */
#include "cmd_impl.h"

const struct kv_cmd kv_cmds_stream[] = {
	{ .name = NULL },
};
