/* SPDX-License-Identifier: MIT */
/*
 * trace_sum.h - what `actors trace` keeps of a trace: per-track, per-
 * process and per-operation aggregates, the longest run slices and the
 * steal pairs, filled in one pass over the file by tools/trace.c and
 * printed by tools/trace_report.c. No event is kept.
 *
 * Times are integer nanoseconds: the file's microseconds have three
 * decimals, which this makes exact to add up.
 */
#ifndef ACTORS_TOOLS_TRACE_SUM_H
#define ACTORS_TOOLS_TRACE_SUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_map.h"

#define TRACE_WHY_CAP 16
#define TRACE_UNKNOWN_MAX 16 /* distinct "ph" values counted apart */
#define TRACE_IO_OPS_MAX 64  /* distinct I/O op names counted apart */

/* A thread of the trace: a worker, the reactor, or an unnamed tid. */
struct trace_track {
	int64_t tid;
	char *name;   /* its thread_name, or NULL */
	int worker;   /* from "worker N (cpu C)", else -1 */
	bool reactor; /* thread_name "reactor" */
	int64_t busy; /* run slices; on the reactor, loop slices */
	int64_t search, parked;
	int64_t runs, steals, stolen, dropped;
};

struct trace_proc {
	uint64_t pid;
	char *name; /* the first run slice's name */
	int64_t run, runs, max, reductions;
};

/* One of the longest run slices. */
struct trace_slice {
	int64_t dur, ts, tid;
	uint64_t pid;
	char *name;
	char why[TRACE_WHY_CAP];
};

struct trace_count {
	char ph[24]; /* "(not an object)" and "(none)" are ours */
	int64_t n;
};

struct trace_ioop {
	char *name;
	int64_t count, sum, max;
};

struct trace_sum {
	const char *file;
	size_t top; /* --top */
	/* header */
	int64_t events, unknown, malformed;
	struct trace_count unknown_ph[TRACE_UNKNOWN_MAX + 1]; /* + other */
	size_t nunknown_ph;
	int64_t first, last; /* earliest ts, latest ts + dur */
	bool any_ts;
	char *process; /* process_name */
	char *version, *clock;
	int64_t declared_workers; /* otherData.workers, -1 if absent */
	int64_t *dropped;	  /* otherData.dropped[tid - 1] */
	size_t ndropped;
	/* tracks, by tid */
	struct trace_track *tracks;
	size_t ntracks, tracks_cap;
	struct trace_map track_of;
	/* processes, by pid */
	struct trace_proc *procs;
	size_t nprocs, procs_cap;
	struct trace_map proc_of;
	/* the longest slices: a min-heap of up to top */
	struct trace_slice *slices;
	size_t nslices;
	/* steals: key tid << 32 | victim, v the processes stolen */
	struct trace_map steal_of;
	/* the reactor */
	int64_t loops, sqes, cqes, timers;
	struct trace_ioop ioops[TRACE_IO_OPS_MAX + 1]; /* + "(other)" */
	size_t nioops;
	struct trace_map io_open; /* key hash(cat, name, id), v ts */
	int64_t io_unmatched;
};

/* The report, as text or as one JSON object; 0, or -1 if writing failed. */
int trace_report_text(FILE *f, struct trace_sum *s);
int trace_report_json(FILE *f, struct trace_sum *s);

#endif
