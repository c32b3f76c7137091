/* SPDX-License-Identifier: MIT */
/* topology.c - hwloc discovery and the usable set; see topology.h. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>

#include "base/fail.h"
#include "cgroup.h"
#include "cpulist.h"
#include "settings/vars.h"
#include "topology.h"

/* This machine's topology, loaded at the first act_main and kept: it
 * does not change while the process runs, and a load costs 10-25 ms. */
static hwloc_topology_t machine;
static int machine_rc;
static const char *machine_sim; /* ACT_TEST_TOPOLOGY at the load */
static bool machine_bad_sim;	/* ... and it did not load */
static bool machine_bad_var;	/* a test switch refused (said) */
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;
static atomic_int flat_said;

/*
 * Test switch ACT_TEST_TOPOLOGY=DESC: "this machine" is the hwloc
 * synthetic machine DESC (for example "pack:2 numa:2 core:4 pu:2"), so
 * that the whole suite runs at the default worker count of a larger
 * machine. Nothing is bound and no cgroup quota is read on it
 * (topology.h: simulated). ACT_TEST_HWLOC=fail: hwloc fails here, the
 * fallback's test. Both are read at this one load, which may come before
 * any act_main (`actors topo`, the tests), so it resolves them itself,
 * by the variables' table (settings/vars.h); act__plan_resolve has
 * checked them already where it made the load.
 */
static void machine_load(void)
{
	struct act__settings s;
	const char *sim;

	act__vars_settings_init(&s, NULL);
	if (act__vars_resolve(&s, ACT_VARS_MACHINE)) {
		machine_bad_var = true;
		machine_rc = -EINVAL;
		return;
	}
	sim = s.test.topology;
	machine_sim = sim; /* the environment's own string, kept */

	if (s.test.hwloc_fail) { /* the fallback's test */
		machine_rc = -EINVAL;
		return;
	}
	if (hwloc_topology_init(&machine)) {
		machine_rc = -ENOMEM;
		return;
	}
	if ((sim && hwloc_topology_set_synthetic(machine, sim)) ||
	    (!sim && ACT_FAIL(ACT_FAIL_HWLOC)) ||
	    hwloc_topology_load(machine)) {
		machine_bad_sim = sim != NULL;
		hwloc_topology_destroy(machine);
		machine = NULL;
		machine_rc = -EINVAL;
	}
}

/*
 * hwloc could not read this machine (a sandbox that hides /sys, say):
 * one core per CPU of the calling thread's mask, numbered from 0, so the
 * count and the plan still work, and nothing is bound, since the numbers
 * need not be the real ones. Said in one line; start-up goes on.
 */
static int flat(struct act__topo *t, char *why, size_t why_len)
{
	cpu_set_t *set = CPU_ALLOC(ACT_CPU_MAX + 1);
	size_t size = CPU_ALLOC_SIZE(ACT_CPU_MAX + 1);
	char *desc = NULL;
	size_t len = 0;
	FILE *f;
	int n = 0, cpu;

	/* "core:N pu:1(indexes=c0,c1,...)": the mask's real CPU numbers,
	 * so ACTORS_CPUS and ACTORS_REACTOR_CPU name the same CPUs as
	 * everywhere else */
	f = open_memstream(&desc, &len);
	if (set && f && !sched_getaffinity(0, size, set)) {
		n = CPU_COUNT_S(size, set);
		fprintf(f, "core:%d pu:1(indexes=", n);
		for (cpu = 0, n = 0; cpu <= ACT_CPU_MAX; cpu++)
			if (CPU_ISSET_S((size_t)cpu, size, set))
				fprintf(f, "%s%d", n++ ? "," : "", cpu);
		fprintf(f, ")");
	}
	if (f)
		fclose(f);
	if (set)
		CPU_FREE(set);
	if (!n || hwloc_topology_init(&t->hw)) {
		t->hw = NULL;
		goto fail;
	}
	if (hwloc_topology_set_synthetic(t->hw, desc) ||
	    hwloc_topology_load(t->hw)) {
		hwloc_topology_destroy(t->hw);
		t->hw = NULL;
		goto fail;
	}
	free(desc);
	t->flat = true;
	snprintf(t->source, sizeof(t->source),
		 "this machine, as %d core%s (hwloc could not read it)", n,
		 n == 1 ? "" : "s");
	/* once per OS process; no data hangs on it, so relaxed */
	if (!atomic_exchange_explicit(&flat_said, 1, memory_order_relaxed))
		fprintf(stderr,
			"actors: hwloc could not read this machine's topology: "
			"planning for the %d CPU%s of the affinity mask, "
			"nothing bound\n",
			n, n == 1 ? "" : "s");
	return 0;
fail:
	free(desc);
	snprintf(why, why_len, "hwloc could not read this machine's topology");
	return -ENOMEM;
}

static int load_hw(struct act__topo *t, const struct act__topo_src *src,
		   char *why, size_t why_len)
{
	if (!src->synthetic && !src->xml) {
		pthread_once(&machine_once, machine_load);
		if (machine_bad_var) {
			snprintf(why, why_len,
				 "this machine's topology: a test switch "
				 "refused (above)");
			return -EINVAL;
		}
		if (machine_bad_sim) {
			snprintf(why, why_len,
				 "ACT_TEST_TOPOLOGY=\"%s\": expected an hwloc "
				 "synthetic description such as \"pack:2 "
				 "numa:1 core:4 pu:2\"",
				 machine_sim);
			return -EINVAL;
		}
		if (machine_rc)
			return flat(t, why, why_len);
		t->hw = machine;
		t->shared = true;
		t->simulated = machine_sim != NULL;
		if (t->simulated)
			snprintf(t->source, sizeof(t->source),
				 "this machine, simulated as \"%s\" "
				 "(ACT_TEST_TOPOLOGY)",
				 machine_sim);
		else
			snprintf(t->source, sizeof(t->source), "this machine");
		return 0;
	}
	if (hwloc_topology_init(&t->hw)) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	if (src->synthetic) {
		if (hwloc_topology_set_synthetic(t->hw, src->synthetic)) {
			snprintf(why, why_len,
				 "bad hwloc synthetic description \"%s\" "
				 "(expected e.g. \"pack:2 numa:2 core:16 "
				 "pu:2\")",
				 src->synthetic);
			goto fail;
		}
		snprintf(t->source, sizeof(t->source), "synthetic \"%s\"",
			 src->synthetic);
	} else {
		if (hwloc_topology_set_xml(t->hw, src->xml)) {
			snprintf(why, why_len,
				 "cannot read hwloc XML file \"%s\": %s",
				 src->xml, strerror(errno));
			goto fail;
		}
		snprintf(t->source, sizeof(t->source), "xml \"%s\"", src->xml);
	}
	if (hwloc_topology_load(t->hw)) {
		snprintf(why, why_len, "hwloc could not load %s", t->source);
		goto fail;
	}
	return 0;
fail:
	hwloc_topology_destroy(t->hw);
	t->hw = NULL;
	return -EINVAL;
}

/* Where a sanitizer writes its report (a sanitized build only): the
 * probe's child, whose crash is expected, says nothing. */
void __sanitizer_set_report_path(const char *path) __attribute__((weak));

int act__topology_xml_probe(const char *path, char *why, size_t why_len)
{
	hwloc_topology_t h;
	pid_t pid;
	int st, rc;

	fflush(NULL); /* nothing buffered is written twice */
	pid = fork();
	if (pid < 0)
		return 0; /* no probe: loaded as it is */
	if (pid == 0) {
		/* a crash kills the child: no handler of the parent's (a
		 * sanitizer's, a fuzzer's) reports it or saves its input */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		if (__sanitizer_set_report_path)
			__sanitizer_set_report_path("/dev/null");
		rc = hwloc_topology_init(&h) ? 3 :
		     hwloc_topology_set_xml(h, path) || hwloc_topology_load(h) ?
					       3 :
					       0;
		_exit(rc); /* no exit handlers: the child only probes */
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
		return 1;
	if (WIFSIGNALED(st))
		snprintf(why, why_len,
			 "hwloc crashed reading the XML file \"%s\" (%s): "
			 "it is damaged, or not a topology hwloc wrote "
			 "(lstopo --of xml)",
			 path, strsignal(WTERMSIG(st)));
	else
		snprintf(why, why_len,
			 "hwloc crashed reading the XML file \"%s\" (exit "
			 "status %d): it is damaged, or not a topology hwloc "
			 "wrote (lstopo --of xml)",
			 path, WEXITSTATUS(st));
	return -EINVAL;
}

/* The smallest cache above pu that covers more than pu's core. */
static hwloc_obj_t shared_cache(hwloc_obj_t pu, hwloc_obj_t core)
{
	hwloc_obj_t o;
	int own = hwloc_bitmap_weight((core ? core : pu)->cpuset);

	for (o = pu->parent; o; o = o->parent)
		if (hwloc_obj_type_is_cache(o->type) &&
		    hwloc_bitmap_weight(o->cpuset) > own)
			return o;
	return NULL;
}

static int fill_pus(struct act__topo *t)
{
	hwloc_topology_t hw = t->hw;
	int i, j, nnuma = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE);
	hwloc_obj_t *caches;

	t->npus = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PU);
	t->pus = calloc((size_t)t->npus, sizeof(*t->pus));
	caches = calloc((size_t)t->npus, sizeof(*caches));
	if (!t->pus || !caches) {
		free(caches);
		return -ENOMEM;
	}
	t->nnodes = nnuma;
	t->npackages = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PACKAGE);
	t->ncores = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_CORE);
	if (t->npackages < 1)
		t->npackages = 1;
	for (i = 0; i < t->npus; i++) {
		hwloc_obj_t pu =
			hwloc_get_obj_by_type(hw, HWLOC_OBJ_PU, (unsigned)i);
		hwloc_obj_t core =
			hwloc_get_ancestor_obj_by_type(hw, HWLOC_OBJ_CORE, pu);
		hwloc_obj_t pack = hwloc_get_ancestor_obj_by_type(
			hw, HWLOC_OBJ_PACKAGE, pu);
		hwloc_obj_t cache = shared_cache(pu, core);
		struct act__pu *p = &t->pus[i];

		p->os = (int)pu->os_index;
		/* no core objects (some synthetic or virtual machines):
		 * each PU is a core of its own */
		p->core = core ? (int)core->logical_index : i;
		p->package = pack ? (int)pack->logical_index : 0;
		p->node = -1;
		for (j = 0; j < nnuma; j++) {
			hwloc_obj_t n = hwloc_get_obj_by_type(
				hw, HWLOC_OBJ_NUMANODE, (unsigned)j);

			if (n->cpuset &&
			    hwloc_bitmap_isset(n->cpuset, pu->os_index)) {
				p->node = (int)n->os_index;
				break;
			}
		}
		p->cache = -1;
		if (cache) {
			for (j = 0; j < t->ncaches && caches[j] != cache; j++)
				;
			if (j == t->ncaches)
				caches[t->ncaches++] = cache;
			p->cache = j;
		}
	}
	if (t->ncores < 1)
		t->ncores = t->npus;
	free(caches);
	return 0;
}

/* "0-3,8" for a message; static buffer, one at a time. */
static const char *list_of(hwloc_const_bitmap_t b)
{
	static char buf[512];

	if (hwloc_bitmap_list_snprintf(buf, sizeof(buf), b) < 0)
		snprintf(buf, sizeof(buf), "?");
	return buf;
}

static int restrict_usable(struct act__topo *t, const struct act__topo_src *src,
			   const char *cpus, const char *cpus_name, char *why,
			   size_t why_len)
{
	hwloc_bitmap_t b = hwloc_bitmap_alloc();
	char reason[160], *seen;
	int rc = 0, i;

	t->allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(t->hw));
	t->usable = hwloc_bitmap_alloc();
	if (!b || !t->allowed || !t->usable) {
		rc = -ENOMEM;
		goto out;
	}
	hwloc_bitmap_and(t->allowed, t->allowed,
			 hwloc_topology_get_topology_cpuset(t->hw));
	if (src->cgroup) {
		if (!act__cgroup_cpuset(src->cgroup, b))
			hwloc_bitmap_and(t->allowed, t->allowed, b);
		t->quota = act__cgroup_quota(src->cgroup);
	} else if ((t->shared && !t->simulated) || t->flat) {
		/* the calling thread's mask: taskset, numactl, a parent's
		 * sched_setaffinity (the flat stand-in is made of it) */
		if (t->shared &&
		    !hwloc_get_cpubind(t->hw, b, HWLOC_CPUBIND_THREAD))
			hwloc_bitmap_and(t->allowed, t->allowed, b);
		t->quota = act__cgroup_quota(NULL);
	}
	if (hwloc_bitmap_iszero(t->allowed)) {
		snprintf(why, why_len, "%s has no CPU this process may use",
			 t->source);
		rc = -EINVAL;
		goto out;
	}
	hwloc_bitmap_copy(t->usable, t->allowed);
	if (cpus) {
		if (act__cpulist_parse(cpus, b, reason, sizeof(reason))) {
			snprintf(why, why_len,
				 "%s=\"%s\": %s; expected a list of CPUs such "
				 "as 0-3,8 from the allowed set %s",
				 cpus_name, cpus, reason, list_of(t->allowed));
			rc = -EINVAL;
			goto out;
		}
		if (!hwloc_bitmap_isincluded(b, t->allowed)) {
			int bad;

			hwloc_bitmap_andnot(b, b, t->allowed);
			bad = hwloc_bitmap_first(b);
			snprintf(why, why_len,
				 "%s=\"%s\": CPU %d is not in the allowed set "
				 "%s; expected a list of CPUs such as 0-3,8 "
				 "from that set",
				 cpus_name, cpus, bad, list_of(t->allowed));
			rc = -EINVAL;
			goto out;
		}
		hwloc_bitmap_copy(t->usable, b);
	}
	seen = calloc((size_t)t->npus, 1);
	if (!seen) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < t->npus; i++) {
		struct act__pu *p = &t->pus[i];

		p->usable = hwloc_bitmap_isset(t->usable, (unsigned)p->os);
		if (!p->usable)
			continue;
		t->nusable_pus++;
		if (!seen[p->core]) {
			seen[p->core] = 1;
			t->nusable_cores++;
		}
	}
	free(seen);
	/* hwloc takes an XML file whose hardware threads are not the CPUs
	 * its cpusets name (tests/regress/fuzz_topo): nothing to run on */
	if (t->nusable_pus == 0) {
		snprintf(why, why_len,
			 "%s: none of its hardware threads is among the CPUs "
			 "%s (a damaged or inconsistent topology)",
			 t->source, list_of(t->usable));
		rc = -EINVAL;
	} else if (t->nusable_cores > t->ncores) {
		/* and one whose threads are not all in cores when some are
		 * (a thread without a core counts as a core of its own) */
		snprintf(why, why_len,
			 "%s: %d of its hardware threads are in %d cores, "
			 "more than the %d it has (a damaged or inconsistent "
			 "topology)",
			 t->source, t->nusable_pus, t->nusable_cores,
			 t->ncores);
		rc = -EINVAL;
	}
out:
	hwloc_bitmap_free(b);
	return rc;
}

int act__topology_load(struct act__topo *t, const struct act__topo_src *src,
		       const char *cpus, const char *cpus_name, char *why,
		       size_t why_len)
{
	static const struct act__topo_src here;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!src)
		src = &here;
	rc = load_hw(t, src, why, why_len);
	if (rc)
		return rc;
	t->thissystem = hwloc_topology_is_thissystem(t->hw) && !src->cgroup &&
			!t->flat && !t->simulated;
	rc = fill_pus(t);
	if (rc) {
		snprintf(why, why_len, "out of memory");
		goto fail;
	}
	rc = restrict_usable(t, src, cpus,
			     cpus_name ? cpus_name : "ACTORS_CPUS", why,
			     why_len);
	if (rc)
		goto fail;
	return 0;
fail:
	act__topology_free(t);
	return rc;
}

void act__topology_free(struct act__topo *t)
{
	if (t->hw && !t->shared)
		hwloc_topology_destroy(t->hw);
	hwloc_bitmap_free(t->usable);
	hwloc_bitmap_free(t->allowed);
	free(t->pus);
	memset(t, 0, sizeof(*t));
}

const struct act__pu *act__topology_pu(const struct act__topo *t, int cpu)
{
	int i;

	for (i = 0; i < t->npus; i++)
		if (t->pus[i].os == cpu)
			return &t->pus[i];
	return NULL;
}
