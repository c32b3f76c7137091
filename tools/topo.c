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
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <actors.h>

#include "affinity/plan.h"
#include "affinity/report.h"
#include "node/paths.h"
#include "node/runtime.h" /* ACT_MAX_WORKERS */
#include "settings/env.h"
#include "settings/vars.h"
#include "commands.h"

static int topo_usage(const char *why)
{
	if (why) {
		fprintf(stderr, "actors topo: %s\n", why);
		fprintf(stderr, "run 'actors topo --help' for the options\n");
		return 2;
	}
	printf("usage: actors topo [--synthetic DESC | --xml FILE] "
	       "[--cgroup DIR] [--json]\n"
	       "                   [--workers N] [--bind POLICY] "
	       "[--cpus LIST]\n"
	       "                   [--reactor-cpu CPU|auto|none|inline] "
	       "[--steal all]\n"
	       "Prints the topology, the allowed and usable CPUs and the "
	       "plan that act_main\nwould make here with this environment: "
	       "each worker's CPU, core and node,\nthe reactor's CPU and "
	       "worker 0's steal order (doc/topology.md).\n"
	       "  --synthetic DESC  plan for an hwloc synthetic machine, "
	       "e.g.\n"
	       "                    'pack:2 numa:2 core:16 pu:2'\n"
	       "  --xml FILE        plan for the machine an hwloc XML file "
	       "describes\n"
	       "  --cgroup DIR      DIR stands for the process's cgroup: its "
	       "cpu.max and\n"
	       "                    cpuset.cpus.effective limit the plan\n"
	       "  --json            one JSON object instead of text\n"
	       "  --workers N       workers, 1 to %d (act_config.schedulers; "
	       "else\n"
	       "                    ACTORS_SCHEDULERS, else the default)\n"
	       "  --bind POLICY     none, core, pu, spread, compact or numa "
	       "(act_config.bind;\n"
	       "                    else ACTORS_BIND, else core)\n"
	       "  --cpus LIST       CPUs to use, e.g. 0-7,16-23 "
	       "(act_config.cpus; else\n"
	       "                    ACTORS_CPUS, else all allowed)\n"
	       "  --reactor-cpu C   the reactor's CPU, auto, none or "
	       "inline (act_config.reactor_cpu;\n"
	       "                    else ACTORS_REACTOR_CPU, else auto)\n"
	       "  --steal all       every worker's steal order, not only "
	       "worker 0's\n",
	       ACT_MAX_WORKERS);
	return 0;
}

static const struct option topo_longopts[] = {
	{ "synthetic", required_argument, NULL, 's' },
	{ "xml", required_argument, NULL, 'x' },
	{ "cgroup", required_argument, NULL, 'g' },
	{ "json", no_argument, NULL, 'j' },
	{ "workers", required_argument, NULL, 'w' },
	{ "bind", required_argument, NULL, 'b' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "reactor-cpu", required_argument, NULL, 'r' },
	{ "steal", required_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct topo_opts {
	struct act_config cfg;
	struct act__topo_src src;
	bool other;	/* --synthetic, --xml or --cgroup: src applies */
	unsigned flags; /* ACT_REPORT_* */
};

/* One option into o; NULL, or why it is wrong (in buf). */
static const char *topo_opt(int c, const char *arg, struct topo_opts *o,
			    char *buf, size_t len)
{
	struct stat st;
	uint64_t n;
	int b;

	switch (c) {
	case 's':
		o->src.synthetic = arg;
		break;
	case 'x':
		o->src.xml = arg;
		break;
	case 'g':
		/* a missing file in it reads as "no limit" (cgroup.h), but
		 * a missing directory is surely a typo */
		if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
			snprintf(buf, len, "--cgroup %s: not a directory", arg);
			return buf;
		}
		o->src.cgroup = arg;
		break;
	case 'j':
		o->flags |= ACT_REPORT_JSON;
		return NULL;
	case 'w':
		if (act__env_parse_uint(arg, 1, ACT_MAX_WORKERS, &n)) {
			snprintf(buf, len, "--workers %s: expected 1 to %d",
				 arg, ACT_MAX_WORKERS);
			return buf;
		}
		o->cfg.schedulers = (int)n;
		return NULL;
	case 'b':
		b = act__plan_bind_parse(arg);
		if (b < 0) {
			snprintf(buf, len,
				 "--bind %s: expected none, core, "
				 "pu, spread, compact or numa",
				 arg);
			return buf;
		}
		o->cfg.bind = b;
		return NULL;
	case 'c':
		/* checked against the topology by act__plan_resolve */
		o->cfg.cpus = arg;
		return NULL;
	case 'r':
		if (!strcmp(arg, "auto")) {
			o->cfg.reactor_cpu = ACT_REACTOR_AUTO;
		} else if (!strcmp(arg, "none")) {
			o->cfg.reactor_cpu = ACT_REACTOR_NONE;
		} else if (!strcmp(arg, "inline")) {
			o->cfg.reactor_cpu = ACT_REACTOR_INLINE;
		} else if (!act__env_parse_uint(arg, 0, ACT_CPU_MAX, &n)) {
			o->cfg.reactor_cpu = ACT_REACTOR_CPU((int)n);
		} else {
			snprintf(buf, len,
				 "--reactor-cpu %s: expected auto, "
				 "none, inline or a CPU number from 0 to %d",
				 arg, ACT_CPU_MAX);
			return buf;
		}
		return NULL;
	case 'S':
		if (strcmp(arg, "all")) {
			snprintf(buf, len, "--steal %s: expected all", arg);
			return buf;
		}
		o->flags |= ACT_REPORT_STEAL_ALL;
		return NULL;
	case ':':
		snprintf(buf, len, "%s needs a value", arg);
		return buf;
	default:
		snprintf(buf, len, "unknown option %s", arg);
		return buf;
	}
	o->other = true;
	return NULL;
}

int actors_topo_main(int argc, char **argv)
{
	struct topo_opts o = { .flags = 0 };
	struct act__report_kv kv[ACT_PATHS];
	struct act__paths paths;
	struct act__topo t;
	struct act__plan pl;
	struct act__settings set;
	int nkv;
	char buf[256];
	const char *why;
	int c, rc;

	act_config_init(&o.cfg);
	optind = 1;
	opterr = 0; /* topo_opt says what is wrong, in one line */
	while ((c = getopt_long(argc, argv, ":h", topo_longopts, NULL)) != -1) {
		if (c == 'h')
			return topo_usage(NULL);
		why = topo_opt(c,
			       c == ':' || c == '?' ? argv[optind - 1] : optarg,
			       &o, buf, sizeof(buf));
		if (why)
			return topo_usage(why);
	}
	if (optind < argc) {
		snprintf(buf, sizeof(buf), "unexpected operand %s",
			 argv[optind]);
		return topo_usage(buf);
	}
	if (o.src.synthetic && o.src.xml)
		return topo_usage("--synthetic and --xml: give one");
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
	rc = act__plan_resolve(&o.cfg, o.other ? &o.src : NULL, &t, &pl);
	if (rc)
		return rc == -EINVAL ? 2 : 1; /* the library said why */
	/* this machine: the kernel paths a runtime would take here */
	nkv = 0;
	if (!o.other && !act__paths_probe(&pl, t.simulated, o.cfg.ring_entries,
					  &set.test, &paths)) {
		for (nkv = 0; nkv < ACT_PATHS; nkv++) {
			kv[nkv].key = act__paths_name(nkv);
			kv[nkv].value = paths.v[nkv];
		}
	}
	rc = act__report_print_kv(stdout, &t, &pl, o.flags, kv, nkv);
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
