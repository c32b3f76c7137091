/* SPDX-License-Identifier: MIT */
/*
 * trace.h - `actors trace [--top N] [--json] FILE`: a text (or JSON)
 * summary of a trace that ACTORS_TRACE=FILE wrote (Chrome trace-event
 * JSON; doc/observability.md). tools/actors.c dispatches to it.
 */
#ifndef ACTORS_TOOLS_TRACE_H
#define ACTORS_TOOLS_TRACE_H

/*
 * argv[0] is "trace". Prints the summary on stdout; returns the exit
 * status: 0, 1 for a file that cannot be read or is not a trace (one line
 * on stderr says why: for bad JSON, the byte offset and what was
 * expected there), 2 for a usage error.
 */
int actors_trace_main(int argc, char **argv);

#endif
