/* SPDX-License-Identifier: MIT */
/*
 * sup.h - what a supervisor's process (sup.c) and the act_sup_* calls
 * (sup_api.c) say to each other. doc/design/supervisor.md has the
 * design.
 *
 * Every request but the stop is an act__call (call.h) with the tag
 * ACT__TAG_SUP, which no program's message can carry: a struct
 * act__sup_req, followed for ACT__SUP_INIT by the children's specs, and
 * answered by a struct act__sup_rep (followed for ACT__SUP_WHICH by the
 * children's struct act_sup_child_info). Everything travels in the
 * messages, nothing by pointer to the caller's memory: a caller killed
 * in its call leaves the supervisor nothing to write into.
 */
#ifndef ACT_SUP_H
#define ACT_SUP_H

#include <stdbool.h>
#include <stdint.h>

#include "actors.h"

/* The supervisor's requests and replies. */
#define ACT__TAG_SUP 0xfffffff0u
/* A child's boot: supervisor -> child spawned from fn (sup.c). */
#define ACT__TAG_SUP_BOOT 0xfffffff1u
/* A restart tried again: supervisor -> itself. */
#define ACT__TAG_SUP_RETRY 0xfffffff2u

/* How long a worker has to stop by default (OTP's 5000 ms). */
#define ACT__SUP_SHUTDOWN_WORKER_NS (5 * 1000000000LL)

enum act__sup_op {
	ACT__SUP_INIT = 1, /* act_sup_start: from its caller, the first */
	ACT__SUP_START_CHILD,
	ACT__SUP_TERMINATE_CHILD,
	ACT__SUP_RESTART_CHILD,
	ACT__SUP_DELETE_CHILD,
	ACT__SUP_WHICH,
	ACT__SUP_COUNT,
	ACT__SUP_STOP, /* act_sup_stop: a plain message, not a call */
};

/* A child spec as it travels: act_sup_child with its id inside and its
 * shutdown resolved (never ACT_SUP_SHUTDOWN_DEFAULT). */
struct act__sup_wchild {
	void (*fn)(void *arg);
	void *arg;
	int (*init)(void *arg);
	int (*start)(void *arg, act_pid *pid);
	int64_t shutdown_ns;
	uint64_t stack_size;
	int32_t restart, type;
	char id[ACT_NAME_MAX + 1];
};

struct act__sup_req {
	uint32_t op;	  /* enum act__sup_op */
	uint32_t n;	  /* INIT: children after it; START_CHILD: 1;
			   * WHICH: the most infos wanted */
	int32_t strategy; /* INIT: the spec's */
	int32_t intensity;
	int64_t period_ns;
	char name[ACT_NAME_MAX + 1];	/* INIT: the name, "" none; TERMINATE,
				      * RESTART, DELETE: the child's id */
	struct act__sup_wchild child[]; /* INIT, START_CHILD */
};

struct act__sup_rep {
	int32_t rc;	/* 0, ACT_SUP_IGNORE, or -errno */
	uint32_t total; /* WHICH: children; as many infos follow, at most
			 * the n asked for */
	act_pid pid;	/* START_CHILD, RESTART_CHILD: the child */
	struct act_sup_counts counts; /* COUNT */
	struct act_sup_child_info info[];
};

/* The most children one WHICH answer lists: a message's largest. */
#define ACT__SUP_WHICH_MAX                             \
	((ACT_MSG_MAX - sizeof(struct act__sup_rep)) / \
	 sizeof(struct act_sup_child_info))

/* sup.c: an act_receive_match match for the DOWN of the monitor whose
 * reference *ref (a uint64_t) names. */
bool act__sup_match_down(const struct act_msg *m, void *ref);

/* sup.c: the supervisor process's body, spawned by act_sup_start. */
void act__sup_main(void *unused);

#endif /* ACT_SUP_H */
