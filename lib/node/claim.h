/* SPDX-License-Identifier: MIT */
/*
 * claim.h - ACTORS_CPU_CLAIM (claim.c): a runtime's claim on the CPUs
 * its plan runs on, which another runtime that claims them sees.
 */
#ifndef ACT_CLAIM_H
#define ACT_CLAIM_H

struct act__topo;
struct act__plan;

/*
 * act_main, once the plan is made: with mode (enum act__cpu_claim)
 * warn or refuse, claim each CPU of pl's threads; CPUs claimed by
 * another runtime are said in one line on stderr. 0; -EADDRINUSE (under
 * refuse, a CPU taken), or the error that kept a CPU from being claimed
 * under refuse (said too); -ENOMEM. Nothing is held on failure.
 */
int act__claim_take(const struct act__topo *t, const struct act__plan *pl,
		    int mode);

/* act_main's end: the claims go (nothing when none was taken). */
void act__claim_release(void);

#endif /* ACT_CLAIM_H */
