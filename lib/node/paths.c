/* SPDX-License-Identifier: MIT */
/* paths.c - the kernel paths in words; see paths.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/homes.h"
#include "base/park.h"
#include "paths.h"
#include "affinity/plan.h"
#include "reactor/ring.h"
#include "reactor/reactor.h"
#include "runtime.h"
#include "mem/stack.h"

static const char *const names[ACT_PATHS] = {
	"park", "doorbell", "ring", "guard", "numa",
};

const char *act__paths_name(int i)
{
	return i >= 0 && i < ACT_PATHS ? names[i] : NULL;
}

static void ring_words(char *buf, size_t len, const struct act__ring *g)
{
	const struct io_uring *ring = &g->ring;

	if (g->mode == ACT_RING_NONE) {
		snprintf(buf, len, "none (%s)", g->why[0] ? g->why : "off");
		return;
	}
	snprintf(buf, len, "%s%s, %u SQ and %u CQ entries",
		 g->setup_flags & IORING_SETUP_SINGLE_ISSUER ? "SINGLE_ISSUER" :
							       "plain",
		 g->setup_flags & IORING_SETUP_DEFER_TASKRUN ?
			 " DEFER_TASKRUN" :
			 "",
		 ring->sq.ring_entries, ring->cq.ring_entries);
}

static void doorbell_words(char *buf, size_t len, const struct act__ring *g)
{
	const char *how =
		g->mode == ACT_RING_FUTEX ? "IORING_OP_FUTEX_WAIT in the ring" :
		g->mode == ACT_RING_EVENTFD ? "eventfd read in the ring" :
					      "FUTEX_WAIT (no ring)";

	snprintf(buf, len, "%s%s", how,
		 g->bell_broken ? ", failed: 1 ms polls" : "");
}

static void guard_words(char *buf, size_t len, int mode)
{
	switch (mode) {
	case ACT_GUARD_MADVISE:
		snprintf(buf, len, "madvise (MADV_GUARD_INSTALL), %u KiB",
			 ACT_GUARD_SIZE >> 10);
		break;
	case ACT_GUARD_MPROTECT:
		snprintf(buf, len,
			 "mprotect, %u KiB, %ld guards left before canaries",
			 ACT_GUARD_SIZE >> 10, act__stack_mprotect_budget());
		break;
	default:
		snprintf(buf, len, "canary words (no guard)");
		break;
	}
}

static void numa_words(char *buf, size_t len, const struct act__numa *n)
{
	snprintf(buf, len, "%d home%s, %s", n->nnodes,
		 n->nnodes == 1 ? "" : "s",
		 atomic_load_explicit(&n->bind, memory_order_relaxed) ?
			 "bound with mbind" :
		 n->why_plain ? n->why_plain :
				"not bound");
}

static void fill(struct act__paths *out, const struct act__ring *g, int guard,
		 const struct act__numa *n)
{
	act__park_describe(out->v[ACT_PATH_PARK], sizeof(out->v[0]));
	doorbell_words(out->v[ACT_PATH_DOORBELL], sizeof(out->v[0]), g);
	ring_words(out->v[ACT_PATH_RING], sizeof(out->v[0]), g);
	guard_words(out->v[ACT_PATH_GUARD], sizeof(out->v[0]), guard);
	numa_words(out->v[ACT_PATH_NUMA], sizeof(out->v[0]), n);
}

void act__paths_of(const struct act__rt *rt, struct act__paths *out)
{
	fill(out, &rt->reactor->ring, act__stack_guard_mode(), &rt->numa);
}

int act__paths_probe(const struct act__plan *plan, bool simulated,
		     unsigned ring_entries, const struct act__tests *test,
		     struct act__paths *out)
{
	struct act__ring g;
	struct act__numa n;
	int *nodes, *homes, i, guard;
	char why[160];

	nodes = calloc((size_t)plan->nworkers + 1, sizeof(*nodes));
	homes = calloc((size_t)plan->nworkers + 1, sizeof(*homes));
	if (!nodes || !homes) {
		free(nodes);
		free(homes);
		return -ENOMEM;
	}
	for (i = 0; i < plan->nworkers; i++)
		nodes[i] = plan->w[i].node;
	act__homes_init(&n, nodes, (uint32_t)plan->nworkers, homes, simulated,
			test->numa);
	free(nodes);
	free(homes);
	memset(&g, 0, sizeof(g));
	act__ring_init(&g, ring_entries, test->ring, why, sizeof(why));
	guard = act__stack_global_init(ACT_GUARD_AUTO, 0) ?
			ACT_GUARD_CANARY :
			act__stack_guard_mode();
	fill(out, &g, guard, &n);
	act__stack_global_fini();
	act__ring_exit(&g);
	return 0;
}

void act__paths_line(FILE *f, const struct act__paths *p)
{
	int i;

	fprintf(f, "actors: paths:");
	for (i = 0; i < ACT_PATHS; i++)
		fprintf(f, "%s %s %s", i ? ";" : "", names[i], p->v[i]);
	fprintf(f, "\n");
}
