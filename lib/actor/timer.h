/* SPDX-License-Identifier: MIT */
/*
 * timer.h - user timers (timer.c): act_send_after, act_send_interval and
 * act_timer_cancel are public (actors.h); the reactor's side of them,
 * act__timer_arm, _fire, _release and _destroy_all, is declared in
 * reactor/reactor.h, which calls it. Here:
 * what the tests reach.
 */
#ifndef ACT_TIMER_H
#define ACT_TIMER_H

#include "actors.h"

/* Tests only (NULL otherwise): called by act_send_after and
 * act_send_interval the moment they have written *ref, as a canceller
 * that learned the reference at once would act. */
extern void (*act__test_timer_published)(act_timer ref);

#endif /* ACT_TIMER_H */
