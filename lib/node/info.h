/* SPDX-License-Identifier: MIT */
/*
 * info.h - act_process_info, act_process_next and act_dump (info.c, the
 * public side is actors.h), and ACTORS_DUMP_SIGNAL's handler.
 */
#ifndef ACT_INFO_H
#define ACT_INFO_H

struct act__rt;

/*
 * act_main, once the runtime is open: with sig nonzero, install the
 * handler of ACTORS_DUMP_SIGNAL (it asks the reactor to print act_dump
 * on stderr). 0 or -errno (sigaction's).
 */
int act__info_signal_start(struct act__rt *rt, int sig);
/* act_main, before the runtime closes: the previous action is back and
 * no handler is still inside. Nothing to do when none was installed. */
void act__info_signal_stop(void);

/* act__info_dump_requested (the reactor, when the handler asked) is
 * declared in reactor/reactor.h, the layer that calls it. */

#endif /* ACT_INFO_H */
