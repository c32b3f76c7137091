/* SPDX-License-Identifier: MIT */
/*
 * main.c - the actors command-line tool: the table of its commands, one
 * file each, and the dispatch.
 *
 *   actors demo                 100 working children, where they ran;
 *                               then echoes to a loopback client (demo.c)
 *   actors bench [WORKLOAD...]  the bench/ workloads, a table (bench.c)
 *   actors bench echo [...]     the echo server against the load generator
 *                               (bench_echo.c)
 *   actors bench timeouts [...] receive-timeout lateness, idle CPU
 *                               (bench_timeouts.c)
 *   actors topo [...]           the topology and the placement plan that
 *                               the environment gives (topo.c,
 *                               doc/topology.md)
 *   actors trace [...] FILE     a summary of a trace that ACTORS_TRACE
 *                               wrote (trace.c, doc/observability.md)
 *   actors stress [TEST...]     the stress tests of stress/ (stress.c)
 *   actors dist names|ping NODE epmd's nodes, a node pinged (dist.c)
 *   actors vars [--man|--test]  the ACTORS_* variables (vars.c)
 *   actors help | --version     here
 *
 * Each command is one entry of commands[] and one file of tools/, its
 * entry point declared in commands.h; runtime errors (negative errno)
 * are printed with strerror and give exit status 1, usage errors 2.
 */
#include <stdio.h>
#include <string.h>

#include <actors.h>

#include "commands.h"

static void usage(FILE *f);

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stderr);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("actors %d.%d.%d\n", ACT_VERSION_MAJOR, ACT_VERSION_MINOR,
	       ACT_VERSION_PATCH);
	return 0;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the name */
	const char *args;
	const char *summary;
};

static const struct command commands[] = {
	{ "demo", actors_demo_main, "",
	  "100 working children, then an echo server" },
	{ "bench", actors_bench_main, "[WORKLOAD...|echo|timeouts] ...",
	  "run the benchmarks; print a table" },
	{ "topo", actors_topo_main, "[--synthetic DESC|--xml FILE] ...",
	  "the topology and the placement plan" },
	{ "trace", actors_trace_main, "[--top N] [--json] FILE",
	  "a summary of a trace (ACTORS_TRACE=FILE)" },
	{ "stress", actors_stress_main, "[TEST...] [--all-paths] ...",
	  "the race stress tests, on this machine's kernel paths" },
	{ "dist", actors_dist_main, "[...] names | ping NODE",
	  "epmd's nodes here, or ping a node (Erlang's)" },
	{ "vars", actors_vars_main, "[--man|--test]",
	  "the ACTORS_* variables, their defaults and forms" },
	{ "help", cmd_help, "", "this text" },
	{ "--version", cmd_version, "", "print the version" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: actors COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %-31s %s\n", commands[i].name,
			commands[i].args, commands[i].summary);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(argc - 1, argv + 1);
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "actors: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
