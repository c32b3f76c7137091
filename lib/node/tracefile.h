/* SPDX-License-Identifier: MIT */
/*
 * tracefile.h - the trace's writer: ACTORS_TRACE's rings (base/trace.h)
 * as a Chrome trace-event JSON file (doc/observability.md).
 */
#ifndef ACT_TRACEFILE_H
#define ACT_TRACEFILE_H

struct act__rt;
struct act__trace_buf;

/* After every thread has stopped: write the events of bufs (one per
 * worker, the reactor's last) to path. 0, or -errno (the file could not
 * be made or written, -ENOMEM). */
int act__tracefile_write(struct act__rt *rt, const struct act__trace_buf *bufs,
			 const char *path);

#endif /* ACT_TRACEFILE_H */
