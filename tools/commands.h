/* SPDX-License-Identifier: MIT */
/*
 * commands.h - the commands of the actors tool, one file of tools/ each,
 * called by main.c's table (doc/man1/actors.1 documents them all).
 *
 * Each takes its own argv, argv[0] its name ("bench"; for `actors bench
 * echo`, "echo"), prints its report on stdout, and returns the exit
 * status: 0, 1 when the run failed (one line on stderr says why), 2 for
 * a usage error (the same).
 */
#ifndef ACTORS_TOOLS_COMMANDS_H
#define ACTORS_TOOLS_COMMANDS_H

/* 100 working children, then an echo server; 1 when a check failed. */
int actors_demo_main(int argc, char **argv);

/* The workloads, one forked child each; 1 when a checksum was wrong. */
int actors_bench_main(int argc, char **argv);
int actors_bench_echo_main(int argc, char **argv);
int actors_bench_timeouts_main(int argc, char **argv);
int actors_bench_call_main(int argc, char **argv);

/* The plan act_main would make; the library says why it cannot. */
int actors_topo_main(int argc, char **argv);

/*
 * A text (or JSON) summary of a trace that ACTORS_TRACE=FILE wrote
 * (Chrome trace-event JSON; doc/observability.md). 1 for a file that
 * cannot be read or is not a trace: for bad JSON, the byte offset and
 * what was expected there.
 */
int actors_trace_main(int argc, char **argv);

/*
 * The stress tests of stress/ (stress/tests.h), each in a child process
 * of its own, on the kernel paths asked for or on every one this kernel
 * has, with a progress line, a result line and the exact command that
 * reruns it. 1: a violation, a timeout or a crash in any run; 2 also for
 * a path this kernel does not have.
 */
int actors_stress_main(int argc, char **argv);

/* epmd's names on this host, or a ping of a node as a node (dist.c). */
int actors_dist_main(int argc, char **argv);

/* The ACTORS_* variables, or act_config_init(3)'s entries for them. */
int actors_vars_main(int argc, char **argv);

#endif
