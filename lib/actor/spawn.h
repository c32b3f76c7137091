/* SPDX-License-Identifier: MIT */
/*
 * spawn.h - making a process (spawn.c), shared by act_spawn_opt and
 * act_main. spawn.c also implements act_self, act_yield, act_exit,
 * act_kill, act_worker and act_workers (actors.h) and the exits that
 * lower layers call, act__spawn_exit_now and act__spawn_die_if_killed (declared
 * in sched/worker.h).
 */
#ifndef ACT_SPAWN_H
#define ACT_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors.h"

struct act__spawn_rels;
struct act__worker;

/* A process running fn(arg), on worker w (main process: w's first).
 * mailbox_limit: 0 for none; rels: the caller's link and monitor to put
 * on before the child can run (NULL: none), consumed on success; fpenv:
 * ACT_SPAWN_FPENV. 0 and its pid in *pid, -EAGAIN (max_procs alive) or
 * -ENOMEM (no stack). */
int act__spawn(struct act__worker *w, void (*fn)(void *), void *arg,
	       size_t stack_size, uint32_t mailbox_limit, bool is_main,
	       struct act__spawn_rels *rels, bool fpenv, act_pid *pid);

#endif /* ACT_SPAWN_H */
