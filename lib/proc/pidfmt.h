/* SPDX-License-Identifier: MIT */
/*
 * pidfmt.h - act_pid_format (pidfmt.c): a pid as Erlang prints one.
 *
 * A pid's split of index and generation is its table's (proc.h
 * idx_bits), which act__proc_table_init tells this module; a pid is
 * printed with the split of the runtime running now, else of the last
 * one that ran, else (no runtime yet) with 32 index bits.
 */
#ifndef ACT_PIDFMT_H
#define ACT_PIDFMT_H

#include <stdint.h>

#include "actors.h"

/* The node of a remote pid (bit 63 set; the encoding is
 * lib/dist/peers.h's), 1..2047; 0 for a local pid. */
static inline uint32_t act__pidfmt_node(act_pid pid)
{
	return pid.id >> 63 ? (uint32_t)((pid.id >> 52) & 0x7ff) : 0;
}

/* The split of the table that makes pids from now on. */
void act__pidfmt_split(uint32_t idx_bits);

#endif /* ACT_PIDFMT_H */
