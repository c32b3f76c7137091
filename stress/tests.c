/* SPDX-License-Identifier: MIT */
/*
 * tests.c - the table of stress tests and their quick profile; see tests.h.
 *
 * The quick profile (`make stress`): every test, bounded sizes, about a
 * minute on a 2-core VM. spawn_burst's default is 10,000 CPU-bound
 * children on 4 workers, checked for steals and for a child on every
 * worker (its busiest/least-busy ratio is printed, and checked only with
 * --max-ratio: on a busy machine the kernel's share of each worker thread
 * decides it); the queue hammer's, an owner against 2 thieves and a
 * remote waker, 1e6 runs. exit_storm's default is 1,000 link chains of
 * 10, 200 monitors on each victim (2,000,000 monitors, about 250 MB of
 * RSS, 4 s); its --iters caps the monitors by cutting the chains, so the
 * TSan run's --iters 10000 makes it 5 chains. kill_churn's --iters counts
 * spawn/kill cycles; mailbox_flood's is the receiver's mailbox limit (1
 * KiB envelopes), and it checks the peak RSS against that limit. fanin
 * --window 0 has no flow control: backpressure alone (muting the senders
 * of a backlogged receiver, lib/sched/backpressure.h) bounds its memory.
 */
#include <stddef.h>

#include "tests.h"

const struct st_test st_tests[] = {
	{ "wake_storm",
	  st_main_wake_storm,
	  "ping-pong pairs across workers: lost wakeups, double runs",
	  { "--iters 20000", "--workers 2 --pairs 16 --iters 20000", NULL },
	  "--workers 2 --pairs 2 --iters 20" },
	{ "fanin",
	  st_main_fanin,
	  "many senders, one receiver: lost, duplicated, out-of-order",
	  { "", "--window 1 --iters 5000",
	    "--window 0 --senders 16 --iters 100000", NULL },
	  "--workers 2 --senders 3 --iters 20 --window 4" },
	{ "spawn_burst",
	  st_main_spawn_burst,
	  "a burst of CPU-bound children: steals, every worker used",
	  { "", "--workers 3 --yields 0 --iters 20000", NULL },
	  "--workers 2 --iters 16 --work 100 --yields 1" },
	{ "exit_churn",
	  st_main_exit_churn,
	  "processes exit while others send to them: misdelivered",
	  { "", "--workers 2 --snipers 8 --iters 25000", NULL },
	  "--workers 2 --spawners 2 --snipers 2 --iters 10" },
	{ "queue_hammer",
	  st_main_queue_hammer,
	  "the run queue alone: an owner, thieves and remote wakers",
	  { "", "--workers 2 --procs 64 --remote 2 --iters 300000", NULL },
	  "--workers 2 --procs 8 --remote 1 --iters 200" },
	{ "exit_storm",
	  st_main_exit_storm,
	  "link chains killed at once: every DOWN and exit signal once",
	  { "",
	    "--workers 2 --chains 200 --length 5 --monitors 20 --watchers 20",
	    NULL },
	  "--workers 2 --chains 2 --length 3 --monitors 2 --watchers 2" },
	{ "kill_churn",
	  st_main_kill_churn,
	  "spawn, kill, spawn into the freed slot: stale pids, handlers",
	  { "", "--workers 4 --drivers 4 --iters 30000", NULL },
	  "--workers 2 --drivers 2 --iters 20" },
	{ "mailbox_flood",
	  st_main_mailbox_flood,
	  "senders flood a process that never reads: its limit, its memory",
	  { "",
	    "--workers 3 --senders 8 --rounds 3 --payload 1984 --iters 2000",
	    NULL },
	  "--workers 2 --senders 2 --rounds 2 --payload 64 --iters 8" },
	{ "park_race",
	  st_main_park_race,
	  "park and wake with delays between their steps: lost wakeups",
	  { "", "--workers 2 --pairs 8 --iters 3000", NULL },
	  "--workers 2 --pairs 2 --iters 10" },
	{ "timer_race",
	  st_main_timer_race,
	  "timer cancels against fires: exactly one outcome each",
	  { "", "--workers 2 --racers 64 --iters 2000", NULL },
	  "--workers 2 --racers 3 --iters 6" },
	{ "io_cancel_race",
	  st_main_io_cancel_race,
	  "kills during reads and accepts: no buffer written after reuse",
	  { "", "--workers 2 --readers 64 --acceptors 8 --iters 2000", NULL },
	  "--workers 2 --readers 2 --acceptors 1 --iters 6" },
	{ "sup_churn",
	  st_main_sup_churn,
	  "random crashes in a supervision tree under load: none lost, none doubled",
	  { "", "--workers 2 --sups 2 --children 16 --iters 5000", NULL },
	  "--workers 2 --sups 1 --children 3 --clients 1 --crashers 1 --iters 10" },
	{ "fail_random",
	  st_main_fail_random,
	  "messages, spawns and I/O while calls fail at random: all counted",
	  { "--workers 2 --senders 4 --iters 10000 --rate 32", NULL },
	  "--workers 2 --senders 2 --iters 20 --rate 8 --io 1024" },
	{ NULL, NULL, NULL, { NULL }, NULL },
};
