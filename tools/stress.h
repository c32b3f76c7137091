/* SPDX-License-Identifier: MIT */
/*
 * stress.h - `actors stress [TEST...] [options]`: the stress tests of
 * stress/ (stress/tests.h), each in a child process of its own, on the
 * kernel paths asked for or on every one this kernel has, with a
 * progress line, a result line and the exact command that reruns it.
 * tools/actors.c dispatches to it; doc/man1/actors.1 documents it.
 */
#ifndef ACTORS_TOOLS_STRESS_H
#define ACTORS_TOOLS_STRESS_H

/*
 * argv[0] is "stress". Returns the exit status: 0 every run passed, 1 a
 * violation, a timeout or a crash in any run, 2 a usage error or a path
 * this kernel does not have (one line on stderr says which).
 */
int actors_stress_main(int argc, char **argv);

#endif
