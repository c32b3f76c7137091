/* SPDX-License-Identifier: MIT */
/*
 * systematic.h - the seeded one-at-a-time scheduler of a systematic build
 * (./configure --enable-systematic, ACTORS_SEED; doc/systematic.md).
 *
 * Pony's systematic testing and Tokio's loom, for the whole runtime: the
 * runtime's threads (the workers, the reactor, the thread of act_main,
 * each a "participant") run one at a time, and at every switch point the
 * one holding the turn draws the next from a xorshift seeded by
 * ACTORS_SEED. The points are every atomic operation of the library
 * (sysatomic.h, included before each of its sources in such a build),
 * every spin-wait step and every wait: a wait is not a system call but a
 * turn given up until the words it waits on move or its deadline passes
 * on a logical clock, which each point moves on by ACT_SYS_QUANTUM_NS and
 * which jumps to the next deadline when every participant waits. So a
 * run is a function of the seed (the path's hash, printed at the end,
 * says so), and when every participant waits with nothing due the run is
 * stopped as a lost wakeup or a deadlock, with the line to rerun it.
 *
 * What is outside: threads that are not participants (the blocking
 * pool's, a program's own, a stress program's watchdog) run freely; an
 * operation of the kernel (io_uring's completions) comes when it comes.
 * The reactor, while it has I/O in the kernel, is a poller (eligible at
 * each point); a run whose participants all wait gives such outsiders a
 * grace period of real time before it is called a deadlock.
 *
 * In a build without it every function here is an inline nothing, and
 * sysatomic.h is not included: the shipped library has none of it.
 */
#ifndef ACT_SYSTEMATIC_H
#define ACT_SYSTEMATIC_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h" /* ACT_SYSTEMATIC from ./configure --enable-systematic */

#ifndef ACT_SYSTEMATIC
#define ACT_SYSTEMATIC 0
#endif

/* At a switch point, the holder goes on but one time in this many (a
 * wait or a spin-wait step always passes the turn, if it can). */
#define ACT_SYS_SWITCH_ONE_IN 4
/* The logical time one switch point takes. */
#define ACT_SYS_QUANTUM_NS 250
/* Participants at most: the workers, the reactor, act_main's thread. */
#define ACT_SYS_MAX 1040
/* The logical clock at the start of a run (nanoseconds). */
#define ACT_SYS_CLOCK0 1000000000ll

#if ACT_SYSTEMATIC

/* True while a seeded run is on (any thread may read it, with
 * __atomic_load_n: a plain word, so that sysatomic.h does not wrap it). */
extern bool act__systematic_on;

/* A switch point of the calling participant (nothing for others). */
void act__systematic_point(void);
/* A spin-wait step: another eligible participant runs, if there is one. */
void act__systematic_yield(void);
/* The logical clock (ns), while a run is on. */
int64_t act__systematic_now(void);

/*
 * The calling participant waits while *a == seen_a (and *b == seen_b, b
 * not NULL), for at most timeout_ns on the logical clock (< 0: no
 * limit); poll: it has work in the kernel, so it is eligible anyway.
 * Returns false, having done nothing, when the caller is not a
 * participant (the caller then waits as it would have). Spurious
 * returns, as a futex's.
 */
bool act__systematic_wait(_Atomic uint32_t *a, uint32_t seen_a,
			  _Atomic uint32_t *b, uint32_t seen_b,
			  int64_t timeout_ns, bool poll);

/*
 * act_main's thread: a seeded run starts, the caller the first
 * participant, holding the turn. 0, or -EINVAL (a run is on already).
 */
int act__systematic_begin(uint64_t seed);
/* act_main's thread, the others joined: the run ends; its path on stderr
 * ("actors: systematic run ACTORS_SEED=N: ... path 0x..."). */
void act__systematic_end(void);

/* Just before pthread_create, with no switch point (no atomic) between:
 * the new thread's participant number (-1: no run is on), eligible at
 * the next point; the created thread calls act__systematic_enter(n)
 * first thing. */
int act__systematic_thread_new(const char *name);
void act__systematic_enter(int n);
/* pthread_create failed: participant n never comes (n < 0: nothing). */
void act__systematic_thread_gone(int n);
/* The participant's last step: it leaves, the turn passes on. */
void act__systematic_exit(void);
/* Wait until participant n has left (then pthread_join it); n < 0:
 * nothing. */
void act__systematic_join(int n);

/* The seed of the run on (for a report's "rerun with"); 0: none. */
uint64_t act__systematic_seed(void);

#else

static inline void act__systematic_point(void)
{
}
static inline void act__systematic_yield(void)
{
}
static inline bool act__systematic_wait(_Atomic uint32_t *a, uint32_t seen_a,
					_Atomic uint32_t *b, uint32_t seen_b,
					int64_t timeout_ns, bool poll)
{
	(void)a, (void)seen_a, (void)b, (void)seen_b, (void)timeout_ns;
	(void)poll;
	return false;
}
static inline int act__systematic_thread_new(const char *name)
{
	(void)name;
	return -1;
}
static inline void act__systematic_enter(int n)
{
	(void)n;
}
static inline void act__systematic_thread_gone(int n)
{
	(void)n;
}
static inline void act__systematic_exit(void)
{
}
static inline void act__systematic_join(int n)
{
	(void)n;
}
static inline uint64_t act__systematic_seed(void)
{
	return 0;
}
static inline int act__systematic_begin(uint64_t seed)
{
	(void)seed;
	return -ENOTSUP;
}
static inline void act__systematic_end(void)
{
}

#endif /* ACT_SYSTEMATIC */

#endif /* ACT_SYSTEMATIC_H */
