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
 *   actors help [COMMAND...]    here: the commands, or COMMAND --help
 *   actors --version            here
 *
 * Each command is one entry of commands[] and one file of tools/, its
 * entry point declared in commands.h; runtime errors (negative errno)
 * are printed with strerror and give exit status 1, usage errors 2.
 *
 * Every command keeps one convention (examples/opt.h, tests/cli.sh):
 * -h or --help prints the usage on stdout and exits 0, as do `actors
 * help COMMAND` and `actors COMMAND --help`; a usage error is one line
 * on stderr that starts with the command's name ("actors topo: ") and
 * names the option, the value and what was expected, and exits 2.
 */
#include <stdio.h>
#include <string.h>

#include <actors.h>

#include "commands.h"

static void usage(FILE *f);
static int run_command(int argc, char **argv);

/* actors help [COMMAND [WORD...]]: the commands, or COMMAND WORD...
 * --help, that command's usage */
static int cmd_help(int argc, char **argv)
{
	char *words[16];
	int i;

	if (argc < 2 || !strcmp(argv[1], "help") || argv[1][0] == '-') {
		usage(stdout);
		return 0;
	}
	if (argc > 14) {
		fprintf(stderr, "actors help: too many words\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		words[i - 1] = argv[i];
	words[argc - 1] = "--help";
	words[argc] = NULL;
	return run_command(argc, words);
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
	{ "help", cmd_help, "[COMMAND]", "this text, or COMMAND --help" },
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
	fprintf(f, "\nactors COMMAND --help (or actors help COMMAND): the "
		   "command's options.\nexit status: 0 done, 1 the command "
		   "failed, 2 a usage error (actors(1)).\n");
}

/* argv[0] is the command's name: its exit status */
static int run_command(int argc, char **argv)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[0], commands[i].name))
			return commands[i].run(argc, argv);
	if (argv[0][0] == '-') {
		fprintf(stderr,
			"actors: unknown option %s: expected a command, "
			"--help or --version (actors help lists them)\n",
			argv[0]);
		return 2;
	}
	fprintf(stderr, "actors: unknown command '%s': expected", argv[0]);
	for (i = 0; i < NCOMMANDS && commands[i].name[0] != '-'; i++)
		fprintf(stderr, "%s %s",
			!i			       ? "" :
			commands[i + 1].name[0] == '-' ? " or" :
							 ",",
			commands[i].name);
	fprintf(stderr, " (actors help lists them)\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) { /* a usage error: the commands, on stderr */
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(1, argv + 1);
	return run_command(argc - 1, argv + 1);
}
