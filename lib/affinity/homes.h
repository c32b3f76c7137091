/* SPDX-License-Identifier: MIT */
/*
 * homes.h - memory homes: which NUMA node backs each worker's slot, envelope
 * and stack chunks.
 *
 * A home is a dense index 0..nnodes-1 standing for one OS NUMA node that
 * at least one worker is placed on. Each worker has one home (the node of
 * the CPU or node it is bound to). Chunks a worker carves are bound to its
 * home's node with mbind(MPOL_PREFERRED) through libnuma, so a full node
 * spills to another instead of failing. Memory freed on a worker of
 * another home goes back to the home it came from.
 *
 * Plain fallback: when numa_available() < 0, when the workers are not
 * bound (ACTORS_BIND=none), or when they all sit on one node, there is one
 * home and nothing is bound (no mbind system call at all).
 *
 * The homes are the workers' distinct OS nodes in increasing order. A
 * worker bound to no single node (os_node -1) among workers bound to
 * several nodes gets the homes in turn by its index (worker i: home
 * i % nnodes), so such workers' memory is spread like an interleave.
 *
 * Test switch ACT_TEST_NUMA (act__homes_init's test, resolved by the
 * variables' table, settings/vars.h: ACT_TEST_NUMA_*):
 *   off     as if numa_available() < 0
 *   force   bind even when there is one node (exercises mbind here)
 *   fake:K  K homes, worker i in home i % K, nothing bound (the homes'
 *           bookkeeping on a machine with one node); 1 <= K <= 8
 */
#ifndef ACT_HOMES_H
#define ACT_HOMES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACT_NUMA_MAX 64 /* homes */

struct act__numa {
	int nnodes;	      /* homes, >= 1 */
	int os[ACT_NUMA_MAX]; /* OS node of each home; -1: unknown */
	/* mbind each chunk to its home's node; atomic because the first
	 * failing mbind, on any worker, turns it off for all */
	_Atomic bool bind;
	const char *why_plain; /* when !bind: the reason, for `actors topo`
				* and ACTORS_STATS (static string) */
};

/*
 * Set up the homes from each worker's OS node (os_node[i], -1 when the
 * worker is not bound to one node; os_node may be NULL: all -1), and write
 * each worker's home to home[i]. simulated: the nodes are those of a
 * simulated machine (ACT_TEST_TOPOLOGY), not this one's: the homes
 * follow them but nothing is bound. test: ACT_TEST_NUMA's value
 * (ACT_TEST_NUMA_UNSET, _OFF, _FORCE, or K for fake:K).
 */
void act__homes_init(struct act__numa *n, const int *os_node, uint32_t nworkers,
		     int *home, bool simulated, int test);

/* Bind [p, p+len) (page-aligned) to home's node when n->bind; else
 * nothing. A failure is reported once on stderr and binding stops. */
void act__homes_place(struct act__numa *n, int home, void *p, size_t len);

#endif /* ACT_HOMES_H */
