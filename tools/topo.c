/* SPDX-License-Identifier: MIT */
/*
 * topo.c - `actors topo [...]`: the topology and the placement plan that
 * the environment gives (doc/topology.md).
 *
 * The plan act_main would make, printed instead of applied: the same
 * act__plan_resolve with the same precedence (a config field beats the
 * environment), so the options below stand for a program's act_config
 * and ACTORS_BIND, ACTORS_CPUS, ACTORS_REACTOR_CPU and ACTORS_SCHEDULERS
 * are read as act_main reads them. --synthetic and --xml make it a plan
 * for another machine, --cgroup for a container.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <actors.h>

#include "affinity/instances.h"
#include "affinity/plan.h"
#include "affinity/report.h"
#include "base/json.h"
#include "node/paths.h"
#include "node/runtime.h" /* ACT_MAX_WORKERS */
#include "settings/env.h"
#include "settings/vars.h"
#include "../examples/opt.h"
#include "commands.h"

static const char topo_about[] =
	"Prints the topology, the allowed and usable CPUs and the plan that "
	"act_main\nwould make here with this environment: each worker's CPU, "
	"core and node,\nthe reactor's CPU and worker 0's steal order "
	"(doc/topology.md).\n";

struct topo_opts {
	struct act_config cfg;
	struct act__topo_src src;
	bool other; /* --synthetic, --xml or --cgroup: src applies */
	bool json, steal_all;
	int instances; /* --instances N; 0: none */
};

/* The options' fn (opt.h): NULL, or what they expected. */
static const char *topo_synthetic(const char *arg, void *dst)
{
	struct topo_opts *o = dst;

	o->src.synthetic = arg;
	o->other = true;
	return NULL;
}

static const char *topo_xml(const char *arg, void *dst)
{
	struct topo_opts *o = dst;

	o->src.xml = arg;
	o->other = true;
	return NULL;
}

static const char *topo_cgroup(const char *arg, void *dst)
{
	struct topo_opts *o = dst;
	struct stat st;

	/* a missing file in it reads as "no limit" (cgroup.h), but a
	 * missing directory is surely a typo */
	if (stat(arg, &st) || !S_ISDIR(st.st_mode))
		return "a directory";
	o->src.cgroup = arg;
	o->other = true;
	return NULL;
}

static const char *topo_bind(const char *arg, void *dst)
{
	int b = act__plan_bind_parse(arg);

	if (b < 0)
		return "none, core, pu, spread, compact or numa";
	*(int *)dst = b;
	return NULL;
}

#define STR_(x) #x
#define STR(x) STR_(x)

static const char *topo_reactor(const char *arg, void *dst)
{
	int *cpu = dst;
	uint64_t n;

	if (!strcmp(arg, "auto"))
		*cpu = ACT_REACTOR_AUTO;
	else if (!strcmp(arg, "none"))
		*cpu = ACT_REACTOR_NONE;
	else if (!strcmp(arg, "inline"))
		*cpu = ACT_REACTOR_INLINE;
	else if (!act__env_parse_uint(arg, 0, ACT_CPU_MAX, &n))
		*cpu = ACT_REACTOR_CPU((int)n);
	else
		return "auto, none, inline or a CPU number from 0 to " STR(
			ACT_CPU_MAX);
	return NULL;
}

static const char *topo_steal(const char *arg, void *dst)
{
	if (strcmp(arg, "all"))
		return "all";
	*(bool *)dst = true;
	return NULL;
}

/* One instance's plan: the one act_main makes with ACTORS_CPUS set to
 * its CPUs, from the same settings otherwise; its workers and reactor
 * CPU (-1 not pinned, -3 inline), or -1 with the library's line said. */
static int instance_plan(const struct topo_opts *o, const char *cpus,
			 int *workers, int *reactor)
{
	struct act_config cfg = o->cfg;
	struct act__topo t;
	struct act__plan pl;

	cfg.cpus = cpus;
	if (act__plan_resolve(&cfg, o->other ? &o->src : NULL, &t, &pl))
		return -1;
	*workers = pl.nworkers;
	*reactor = pl.reactor_inline ? -3 : pl.reactor_cpu;
	act__plan_free(&pl);
	act__topology_free(&t);
	return 0;
}

static void reactor_text(char *buf, size_t n, int reactor)
{
	if (reactor == -3)
		snprintf(buf, n, "inline");
	else if (reactor < 0)
		snprintf(buf, n, "none");
	else
		snprintf(buf, n, "%d", reactor);
}

static void instance_line(const struct topo_opts *o, int k,
			  const struct act__instance *in, int workers,
			  int reactor, const char *rtext)
{
	if (!o->json) {
		printf("instance %d: ACTORS_CPUS=%s ACTORS_REACTOR_CPU=%s "
		       "(%s %s: %d core%s, %d CPU%s, %d worker%s)\n",
		       k, in->cpus, rtext,
		       strpbrk(in->nodes, ",-") ? "nodes" : "node",
		       in->nodes[0] ? in->nodes : "?", in->ncores,
		       in->ncores == 1 ? "" : "s", in->npus,
		       in->npus == 1 ? "" : "s", workers,
		       workers == 1 ? "" : "s");
		return;
	}
	printf("%s\n    {\"index\": %d, \"cpus\": ", k ? "," : "", k);
	act__json_fstr(stdout, in->cpus);
	printf(", \"reactor_cpu\": ");
	if (reactor >= 0)
		printf("%d", reactor);
	else
		act__json_fstr(stdout, rtext);
	printf(", \"nodes\": ");
	act__json_fstr(stdout, in->nodes);
	printf(", \"cores\": %d, \"npus\": %d, \"workers\": %d}", in->ncores,
	       in->npus, workers);
}

/*
 * --instances N: the usable cores split N ways (lib/affinity/
 * instances.h), each share with the settings that run a runtime on it
 * and the plan those give. 0, or the exit status.
 */
static int topo_instances(const struct topo_opts *o, const struct act__topo *t)
{
	struct act__instance *in = calloc((size_t)o->instances, sizeof(*in));
	char why[256], rtext[16];
	int k, workers, reactor, rc;

	if (!in)
		return 1;
	rc = act__instances_split(t, o->instances, in, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "actors: %s\n",
			rc == -EINVAL ? why : strerror(-rc));
		free(in);
		return rc == -EINVAL ? 2 : 1;
	}
	if (o->json) {
		printf("{\"source\": ");
		act__json_fstr(stdout, t->source);
		printf(", \"usable_cores\": %d, \"instances\": [",
		       t->nusable_cores);
	} else {
		printf("%d instance%s on %s: %d usable cores, no core in "
		       "two (doc/topology.md)\n",
		       o->instances, o->instances == 1 ? "" : "s", t->source,
		       t->nusable_cores);
	}
	for (k = 0; k < o->instances && !rc; k++) {
		if (instance_plan(o, in[k].cpus, &workers, &reactor)) {
			rc = 2;
			break;
		}
		reactor_text(rtext, sizeof(rtext), reactor);
		instance_line(o, k, &in[k], workers, reactor, rtext);
	}
	if (o->json && !rc)
		printf("\n]}\n");
	act__instances_free(in, o->instances);
	free(in);
	return rc;
}

int actors_topo_main(int argc, char **argv)
{
	struct topo_opts o = { .other = false };
	struct act__report_kv kv[ACT_PATHS];
	struct act__paths paths;
	struct act__topo t;
	struct act__plan pl;
	struct act__settings set;
	const struct opt opts[] = {
		OPT_FN("synthetic", topo_synthetic, &o, "DESC",
		       "plan for an hwloc synthetic machine, e.g.\n"
		       "'pack:2 numa:2 core:16 pu:2'"),
		OPT_FN("xml", topo_xml, &o, "FILE",
		       "plan for the machine an hwloc XML file describes"),
		OPT_FN("cgroup", topo_cgroup, &o, "DIR",
		       "DIR stands for the process's cgroup: its cpu.max and\n"
		       "cpuset.cpus.effective limit the plan"),
		OPT_FLAG("json", &o.json, "one JSON object instead of text"),
		OPT_INT("workers", &o.cfg.schedulers, 1, ACT_MAX_WORKERS, "N",
			"workers, {range} (act_config.schedulers; else\n"
			"ACTORS_SCHEDULERS, else the default)"),
		OPT_FN("bind", topo_bind, &o.cfg.bind, "POLICY",
		       "none, core, pu, spread, compact or numa\n"
		       "(act_config.bind; else ACTORS_BIND, else core)"),
		/* checked against the topology by act__plan_resolve */
		OPT_STR("cpus", &o.cfg.cpus, "LIST",
			"CPUs to use, e.g. 0-7,16-23 (act_config.cpus; else\n"
			"ACTORS_CPUS, else all allowed)"),
		OPT_FN("reactor-cpu", topo_reactor, &o.cfg.reactor_cpu, "C",
		       "the reactor's CPU, auto, none or inline\n"
		       "(act_config.reactor_cpu; else ACTORS_REACTOR_CPU,\n"
		       "else auto)"),
		OPT_FN("steal", topo_steal, &o.steal_all, "all",
		       "every worker's steal order, not only worker 0's"),
		OPT_INT("instances", &o.instances, 1, ACT_MAX_WORKERS, "N",
			"split the usable cores among N runtimes ({range}):\n"
			"each one's ACTORS_CPUS and ACTORS_REACTOR_CPU, along\n"
			"NUMA nodes and shared caches, no core in two\n"
			"(default: one runtime, not split)"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "actors topo",
				     .opts = opts,
				     .about = topo_about };
	unsigned flags;
	int nkv, ops, rc;
	char why[256];

	act_config_init(&o.cfg);
	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (ops < argc)
		return opt_error(&cmd, "unexpected operand %s", argv[ops]);
	if (o.src.synthetic && o.src.xml)
		return opt_error(&cmd, "--synthetic and --xml: give one");
	if (o.instances && (o.cfg.schedulers || o.cfg.reactor_cpu))
		return opt_error(&cmd, "--instances gives each instance its "
				       "default workers and reactor CPU: "
				       "--workers and --reactor-cpu do not go "
				       "with it");
	flags = (o.json ? ACT_REPORT_JSON : 0) |
		(o.steal_all ? ACT_REPORT_STEAL_ALL : 0);
	/* act_main's count and ring size, by act_main's table: the field,
	 * else the variable, else the default (the count's: the plan's);
	 * the test switches of the paths probed; act__plan_resolve does
	 * the placement three and the topology's */
	act__vars_settings_init(&set, &o.cfg);
	if (act__vars_resolve(&set, ACT_VAR_BIT(ACT_VAR_SCHEDULERS) |
					    ACT_VAR_BIT(ACT_VAR_RING_ENTRIES) |
					    ACT_VAR_BIT(ACT_VAR_TEST_RING) |
					    ACT_VAR_BIT(ACT_VAR_TEST_NUMA)))
		return 2;
	o.cfg = set.cfg;
	if (o.src.xml &&
	    act__topology_xml_probe(o.src.xml, why, sizeof(why)) < 0) {
		fprintf(stderr, "actors: %s\n", why);
		return 2;
	}
	rc = act__plan_resolve(&o.cfg, o.other ? &o.src : NULL, &t, &pl);
	if (rc)
		return rc == -EINVAL ? 2 : 1; /* the library said why */
	if (o.instances) {
		act__plan_free(&pl);
		/* the split of what the settings leave usable; each
		 * instance's plan from its own CPUs, not the pool's */
		o.cfg.cpus = NULL;
		rc = topo_instances(&o, &t);
		act__topology_free(&t);
		if (fflush(stdout) || ferror(stdout))
			return 1;
		return rc;
	}
	/* this machine: the kernel paths a runtime would take here */
	nkv = 0;
	if (!o.other && !act__paths_probe(&pl, t.simulated, o.cfg.ring_entries,
					  &set.test, &paths)) {
		for (nkv = 0; nkv < ACT_PATHS; nkv++) {
			kv[nkv].key = act__paths_name(nkv);
			kv[nkv].value = paths.v[nkv];
		}
	}
	rc = act__report_print_kv(stdout, &t, &pl, flags, kv, nkv);
	if (rc) {
		fprintf(stderr, "actors topo: %s\n", strerror(-rc));
	} else if (pl.nworkers > ACT_MAX_WORKERS) {
		/* a default count on a machine this big: act_main refuses
		 * it in the same words */
		fprintf(stderr, "actors: %d workers: at most %d\n", pl.nworkers,
			ACT_MAX_WORKERS);
		rc = -EINVAL;
	}
	act__plan_free(&pl);
	act__topology_free(&t);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "actors topo: writing the report failed\n");
		return 1;
	}
	return rc == -EINVAL ? 2 : rc ? 1 : 0;
}
