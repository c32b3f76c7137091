/* SPDX-License-Identifier: MIT */
/*
 * tracefile.c - the trace's writer (tracefile.h, doc/observability.md):
 * the rings of lib/base/trace.h, read once every thread has stopped, as
 * one Chrome trace-event JSON file that Perfetto opens.
 *
 * Each track (a worker, the reactor) is written in time order: its ring
 * sorted (nearly sorted already: sort_nearly), each event as one JSON
 * object made by hand (struct out), and pids named by their registered
 * name or entry function, gathered first from the NAME and SPAWN events
 * (collect_names); the distribution's nodes by their names, which they
 * keep until after the writer is done (act__route_figures).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "reactor/reactor.h"
#include "observe.h"
#include "runtime.h"
#include "tracefile.h"

/* An output buffer in front of a FILE: the JSON is made by hand, digit
 * by digit, which is several times faster than printf here. */
struct out {
	FILE *f;
	char *buf;
	size_t n, cap;
	int err;
};

static void out_flush(struct out *o)
{
	if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
		o->err = errno ? errno : EIO;
	o->n = 0;
}

static void out_room(struct out *o, size_t n)
{
	if (o->n + n > o->cap)
		out_flush(o);
}

static void out_s(struct out *o, const char *s)
{
	size_t n = strlen(s);

	out_room(o, n);
	if (n > o->cap) { /* longer than the buffer: straight out */
		if (fwrite(s, 1, n, o->f) != n)
			o->err = EIO;
		return;
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

/* n bytes of s (n below the buffer's size) */
static void out_mem(struct out *o, const char *s, size_t n)
{
	out_room(o, n);
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

/* A string literal, its length known to the compiler. */
#define out_lit(o, s) out_mem((o), (s), sizeof(s) - 1)

/* "00" to "99": two digits a division, half the divisions of one. */
static const char digit_pairs[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

static void out_u(struct out *o, uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull,
		10ull,
		100ull,
		1000ull,
		10000ull,
		100000ull,
		1000000ull,
		10000000ull,
		100000000ull,
		1000000000ull,
		10000000000ull,
		100000000000ull,
		1000000000000ull,
		10000000000000ull,
		100000000000000ull,
		1000000000000000ull,
		10000000000000000ull,
		100000000000000000ull,
		1000000000000000000ull,
		10000000000000000000ull,
	};
	/* its digits, counted first (1233 / 4096 is log10(2), so t is
	 * floor(log10(v)) or one less), then written from the last one
	 * back, in place */
	int t = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;
	int n = t + (v >= pow10[t]);
	char *q;

	if (!n)
		n = 1;
	out_room(o, 20);
	q = o->buf + o->n + n;
	o->n += (size_t)n;
	while (v >= 100) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(q - 2, digit_pairs + 2 * v, 2);
	else
		q[-1] = (char)('0' + v);
}

static void out_i(struct out *o, int64_t v)
{
	if (v < 0) {
		out_lit(o, "-");
		out_u(o, (uint64_t)0 - (uint64_t)v);
	} else {
		out_u(o, (uint64_t)v);
	}
}

/* Nanoseconds as microseconds with three decimals. */
static void out_us(struct out *o, int64_t ns)
{
	uint64_t f;

	if (ns < 0)
		ns = 0;
	f = (uint64_t)ns % 1000;
	out_u(o, (uint64_t)ns / 1000);
	out_room(o, 4);
	o->buf[o->n] = '.';
	o->buf[o->n + 1] = (char)('0' + f / 100);
	memcpy(o->buf + o->n + 2, digit_pairs + 2 * (f % 100), 2);
	o->n += 4;
}

/* n bytes of the output, as act__json_str gives them */
static void out_put(void *ctx, const char *s, size_t n)
{
	struct out *o = ctx;

	if (n > o->cap) { /* longer than the buffer: straight out */
		out_flush(o);
		if (fwrite(s, 1, n, o->f) != n)
			o->err = EIO;
		return;
	}
	out_mem(o, s, n);
}

/* A JSON string, quoted and escaped. */
static void out_str(struct out *o, const char *s)
{
	act__json_str(s, out_put, o);
}

/* What a pid is called: its registered name, its entry function, or its
 * number. Open addressing on the pid; built from the NAME and SPAWN
 * events, and the slots of processes still alive. */
struct pname {
	uint64_t pid;
	uintptr_t fn;
	char *name;	 /* registered, malloc'd */
	const char *sym; /* fn's symbol, once looked up */
	bool looked;
};

struct names {
	struct pname *tab;
	size_t mask;
	unsigned shift; /* 64 - log2 of the table's size */
};

static struct pname *name_slot(struct names *nm, uint64_t pid)
{
	/* the product's high bits: a pid's low bits are its slot's index,
	 * which every generation of the slot shares */
	size_t i = (size_t)((pid * 0x9e3779b97f4a7c15ull) >> nm->shift);

	while (nm->tab[i].pid && nm->tab[i].pid != pid)
		i = (i + 1) & nm->mask;
	nm->tab[i].pid = pid;
	return &nm->tab[i];
}

static const char *why_name[] = {
	"?", "receive", "yield", "io", "exit", "muted"
};

/* One track's event, sorted by time; slices before the instants they
 * contain (the sort key's low bit). */
struct ord {
	uint64_t key; /* tick << 1 | not a slice */
	const struct act__trace_ev *e;
};

static int ord_cmp(const void *a, const void *b)
{
	const struct ord *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * A track's events are nearly in order already: each slice is recorded
 * at its end, so only it moves back, past the instants recorded during
 * it (at most a turn's reductions of them, or a reactor loop's SQEs).
 * Insertion sort is linear in that; past 64 moves an event on average,
 * qsort takes over.
 */
static void sort_nearly(struct ord *a, uint64_t n)
{
	uint64_t i, j, moves = 0;

	for (i = 1; i < n; i++) {
		struct ord x = a[i];

		for (j = i; j > 0 && a[j - 1].key > x.key; j--) {
			a[j] = a[j - 1];
			if (++moves > 64 * n) {
				a[j - 1] = x; /* a valid permutation again */
				qsort(a, n, sizeof(*a), ord_cmp);
				return;
			}
		}
		a[j] = x;
	}
}

static uint64_t ev_tick(const struct act__trace_ev *e)
{
	unsigned k = (unsigned)(e->tk >> 56);

	/* a slice is placed at its start */
	if (k == ACT_TR_RUN || k == ACT_TR_SEARCH || k == ACT_TR_PARKED ||
	    k == ACT_TR_LOOP)
		return e->b;
	return e->tk & ACT_TRACE_TICK_MASK;
}

static bool ev_slice(const struct act__trace_ev *e)
{
	unsigned k = (unsigned)(e->tk >> 56);

	return k == ACT_TR_RUN || k == ACT_TR_SEARCH || k == ACT_TR_PARKED ||
	       k == ACT_TR_LOOP;
}

struct wctx {
	struct act__rt *rt;
	struct out *o;
	struct names *nm;
	double r; /* ns per tick */
	uint32_t tid;
	uint32_t worker; /* the track's worker; the reactor: nworkers */
	/* the last entry function looked up and its symbol: most pids
	 * share a few (dladdr walks the symbol table each time) */
	uintptr_t sym_fn;
	const char *sym;
	/* the last node of the distribution named, by number (0: none) */
	uint64_t node_num;
	char node[ACT__ROUTE_NAME_SIZE];
};

/* An event's first fields, named name, or pid's number if name is
 * NULL. */
static void head_as(struct wctx *c, char ph, const char *name, uint64_t pid,
		    const char *cat, uint64_t t)
{
	struct out *o = c->o;

	out_lit(o, ",\n{\"ph\":\"");
	out_mem(o, &ph, 1);
	out_lit(o, "\",\"pid\":1,\"tid\":");
	out_u(o, c->tid);
	out_lit(o, ",\"ts\":");
	out_us(o, act__clock_ticks_ns(t, c->r));
	out_lit(o, ",\"name\":");
	if (name) {
		out_str(o, name);
	} else {
		out_lit(o, "\"");
		out_u(o, pid);
		out_lit(o, "\"");
	}
	out_lit(o, ",\"cat\":\"");
	out_s(o, cat);
	out_lit(o, "\"");
}

static void head(struct wctx *c, char ph, const char *name, const char *cat,
		 uint64_t t)
{
	head_as(c, ph, name, 0, cat, t);
}

/* An argument "k":v, k a string literal (its length the compiler's),
 * after a comma unless first. */
static void arg_key(struct out *o, const char *k, size_t n, bool first)
{
	out_room(o, n + 4);
	if (!first)
		o->buf[o->n++] = ',';
	o->buf[o->n++] = '"';
	memcpy(o->buf + o->n, k, n);
	o->n += n;
	o->buf[o->n++] = '"';
	o->buf[o->n++] = ':';
}

#define arg_u(o, k, v, first) \
	(arg_key((o), "" k, sizeof(k) - 1, (first)), out_u((o), (v)))
#define arg_i(o, k, v, first) \
	(arg_key((o), "" k, sizeof(k) - 1, (first)), out_i((o), (v)))

/* fn's symbol (act__observe_symbol), the last one asked for kept. */
static const char *fn_symbol(struct wctx *c, uintptr_t fn)
{
	if (!c->sym_fn || fn != c->sym_fn) {
		c->sym_fn = fn;
		c->sym = act__observe_symbol(fn);
	}
	return c->sym;
}

/* pid's name or its entry function's symbol; NULL: neither, its
 * number names it. */
static const char *pid_name(struct wctx *c, uint64_t pid)
{
	struct pname *p = name_slot(c->nm, pid);

	if (p->name)
		return p->name;
	if (!p->looked) { /* dladdr once a pid, not once a slice */
		p->sym = fn_symbol(c, p->fn);
		p->looked = true;
	}
	return p->sym;
}

static const char *io_op_name(unsigned op)
{
	switch (op) {
	case IORING_OP_READ:
		return "read";
	case IORING_OP_WRITE:
		return "write";
	case IORING_OP_RECV:
		return "recv";
	case IORING_OP_SEND:
		return "send";
	case IORING_OP_ACCEPT:
		return "accept";
	case IORING_OP_CONNECT:
		return "connect";
	case IORING_OP_CLOSE:
		return "close";
	case IORING_OP_POLL_ADD:
		return "poll";
	case IORING_OP_FILES_UPDATE:
		return "register";
	case IORING_OP_SHUTDOWN:
		return "shutdown";
	case IORING_OP_FSYNC:
		return "fsync";
	default:
		return "io";
	}
}

/* A run slice: a process's turn, and the arrow of the wake that began
 * it, if one was drawn. */
static void write_run(struct wctx *c, const struct act__trace_ev *e, uint64_t t)
{
	struct out *o = c->o;

	head_as(c, 'X', pid_name(c, e->a), e->a, "run", e->b);
	out_lit(o, ",\"dur\":");
	out_us(o, act__clock_ticks_ns(t - e->b, c->r));
	out_lit(o, ",\"args\":{");
	arg_u(o, "pid", e->a, true);
	arg_u(o, "reductions", (e->c >> 8) & 0xffffff, false);
	out_lit(o, ",\"why\":\"");
	out_s(o, why_name[(e->c & 0xff) < 6 ? e->c & 0xff : 0]);
	out_lit(o, "\"}}");
	if (e->c >> 32) {
		head(c, 'f', "wake", "flow", e->b);
		out_lit(o, ",\"bp\":\"e\",\"id\":");
		out_u(o, e->c >> 32);
		out_lit(o, "}");
	}
}

/* A worker's idle slice (search, parked) or a reactor's (loop,
 * parked). */
static void write_idle(struct wctx *c, const struct act__trace_ev *e,
		       unsigned k, uint64_t t)
{
	struct out *o = c->o;

	head(c, 'X',
	     k == ACT_TR_SEARCH ? "search" :
	     k == ACT_TR_PARKED ? "parked" :
				  "loop",
	     k == ACT_TR_LOOP ? "reactor" : "idle", e->b);
	out_lit(o, ",\"dur\":");
	out_us(o, act__clock_ticks_ns(t - e->b, c->r));
	if (k == ACT_TR_LOOP) {
		out_lit(o, ",\"args\":{");
		arg_u(o, "sqes", e->a, true);
		arg_u(o, "cqes", e->c, false);
		out_lit(o, "}");
	}
	out_lit(o, "}");
}

/* A wake's arrow, from its start. */
static void write_flow(struct wctx *c, const struct act__trace_ev *e,
		       uint64_t t)
{
	struct out *o = c->o;

	head(c, 's', "wake", "flow", t);
	out_lit(o, ",\"id\":");
	out_u(o, e->a);
	out_lit(o, ",\"args\":{");
	arg_u(o, "pid", e->b, true);
	out_lit(o, "}}");
}

/* The run queue's length, a counter track per worker. */
static void write_runq(struct wctx *c, const struct act__trace_ev *e,
		       uint64_t t)
{
	struct out *o = c->o;
	char buf[32];

	snprintf(buf, sizeof(buf), "runq worker %u", c->worker);
	head(c, 'C', buf, "sched", t);
	out_lit(o, ",\"args\":{");
	arg_u(o, "length", e->a, true);
	out_lit(o, "}}");
}

/* A node's traffic so far (lib/dist): two counter tracks a node, its
 * bytes and its frames, each with a series in and a series out, and the
 * frames' with the ticks missed. */
static void write_node(struct wctx *c, const struct act__trace_ev *e,
		       unsigned k, uint64_t t)
{
	struct act__route_figures f;
	struct out *o = c->o;
	char buf[sizeof(c->node) + 16];
	uint64_t num = e->a & UINT32_MAX;

	if (c->node_num != num) {
		/* the nodes outlive the trace's writing (act__route_stop
		 * comes after) */
		if (act__route_figures(c->rt, (uint32_t)num, &f))
			memcpy(c->node, f.name, sizeof(c->node));
		else
			snprintf(c->node, sizeof(c->node), "%" PRIu64, num);
		c->node_num = num;
	}
	snprintf(buf, sizeof(buf), "node %s %s", c->node,
		 k == ACT_TR_NODE_BYTES ? "bytes" : "frames");
	head(c, 'C', buf, "dist", t);
	out_lit(o, ",\"args\":{");
	arg_u(o, "in", e->b, true);
	arg_u(o, "out", e->c, false);
	if (k == ACT_TR_NODE_FRAMES)
		arg_u(o, "tick misses", e->a >> 32, false);
	out_lit(o, "}}");
}

/* One end of an I/O operation's async slice. */
static void write_io(struct wctx *c, const struct act__trace_ev *e, unsigned k,
		     uint64_t t)
{
	struct out *o = c->o;
	char buf[32];

	head(c, k == ACT_TR_IO_BEGIN ? 'b' : 'e',
	     io_op_name((unsigned)(e->c >> 32)), "io", t);
	out_lit(o, ",\"id\":\"0x");
	snprintf(buf, sizeof(buf), "%" PRIx64, e->a);
	out_s(o, buf);
	out_lit(o, "\",\"args\":{");
	if (k == ACT_TR_IO_BEGIN) {
		arg_u(o, "pid", e->b, true);
		arg_i(o, "fd", (int32_t)(uint32_t)e->c, false);
	} else {
		arg_i(o, "res", (int64_t)e->b, true);
	}
	out_lit(o, "}}");
}

/* An instant's head, up to its first argument: name in category cat. */
static void instant(struct wctx *c, const char *name, const char *cat,
		    uint64_t t)
{
	head(c, 'i', name, cat, t);
	out_lit(c->o, ",\"s\":\"t\",\"args\":{");
}

/* A process's instant: spawn, exit, kill, exit signal or DOWN; false
 * for another kind. */
static bool write_proc_instant(struct wctx *c, const struct act__trace_ev *e,
			       unsigned k, uint64_t t)
{
	struct out *o = c->o;

	switch (k) {
	case ACT_TR_SPAWN:
		instant(c, "spawn", "proc", t);
		arg_u(o, "pid", e->a, true);
		arg_u(o, "parent", e->c, false);
		out_lit(o, ",\"fn\":");
		out_str(o, fn_symbol(c, e->b) ? fn_symbol(c, e->b) : "?");
		return true;
	case ACT_TR_EXIT:
		instant(c, "exit", "proc", t);
		arg_u(o, "pid", e->a, true);
		arg_i(o, "reason", (int64_t)e->b, false);
		return true;
	case ACT_TR_KILL:
		instant(c, "kill", "proc", t);
		arg_u(o, "pid", e->a, true);
		arg_u(o, "by", e->c, false);
		arg_i(o, "reason", (int64_t)e->b, false);
		return true;
	case ACT_TR_SIG_EXIT:
	case ACT_TR_SIG_DOWN:
		head(c, 'i', "signal", "proc", t);
		out_lit(o, ",\"s\":\"t\",\"args\":{\"kind\":\"");
		out_s(o, k == ACT_TR_SIG_EXIT ? "exit" : "down");
		out_lit(o, "\"");
		arg_u(o, "from", e->a, false);
		arg_u(o, "to", e->b, false);
		arg_i(o, "reason", (int64_t)e->c, false);
		return true;
	default:
		return false;
	}
}

/* A scheduler's or a timer's instant: steal, mute, release, a worker
 * rung, a timer fired; false for another kind. */
static bool write_sched_instant(struct wctx *c, const struct act__trace_ev *e,
				unsigned k, uint64_t t)
{
	struct out *o = c->o;

	switch (k) {
	case ACT_TR_STEAL:
		instant(c, "steal", "sched", t);
		arg_u(o, "victim", e->a, true);
		arg_u(o, "count", e->b, false);
		return true;
	case ACT_TR_MUTE:
		instant(c, "mute", "sched", t);
		arg_u(o, "pid", e->a, true);
		arg_u(o, "receiver", e->b, false);
		return true;
	case ACT_TR_RELEASE:
		instant(c, "release", "sched", t);
		arg_u(o, "pid", e->a, true);
		return true;
	case ACT_TR_WAKE_WORKER:
		instant(c, "wake worker", "sched", t);
		arg_u(o, "worker", e->a, true);
		return true;
	case ACT_TR_TIMER:
		instant(c, "timer", "timer", t);
		arg_u(o, "pid", e->a, true);
		out_s(o,
		      e->b ? ",\"kind\":\"message\"" : ",\"kind\":\"timeout\"");
		return true;
	default:
		return false;
	}
}

/* One event as a JSON object; NAME and BYTES write none (collect_names
 * reads them). */
static void write_event(struct wctx *c, const struct act__trace_ev *e)
{
	unsigned k = (unsigned)(e->tk >> 56);
	uint64_t t = e->tk & ACT_TRACE_TICK_MASK;

	switch (k) {
	case ACT_TR_RUN:
		write_run(c, e, t);
		return;
	case ACT_TR_SEARCH:
	case ACT_TR_PARKED:
	case ACT_TR_LOOP:
		write_idle(c, e, k, t);
		return;
	case ACT_TR_FLOW:
		write_flow(c, e, t);
		return;
	case ACT_TR_RUNQ:
		write_runq(c, e, t);
		return;
	case ACT_TR_IO_BEGIN:
	case ACT_TR_IO_END:
		write_io(c, e, k, t);
		return;
	case ACT_TR_NODE_BYTES:
	case ACT_TR_NODE_FRAMES:
		write_node(c, e, k, t);
		return;
	default:
		break;
	}
	if (write_proc_instant(c, e, k, t) || write_sched_instant(c, e, k, t))
		out_lit(c->o, "}}");
}

/* The events of buffer b still there, oldest first: [*first, b->n). */
static uint64_t ev_first(const struct act__trace_buf *b)
{
	return b->n > b->mask + 1 ? b->n - (b->mask + 1) : 0;
}

static const struct act__trace_ev *ev_at(const struct act__trace_buf *b,
					 uint64_t i)
{
	return &b->ev[i & b->mask];
}

/* The NAME event at j of b: the name its BYTES events carry, for its
 * pid (a name cut by the ring's end is left out). */
static void read_name(struct names *nm, const struct act__trace_buf *b,
		      uint64_t j)
{
	const struct act__trace_ev *e = ev_at(b, j);
	uint64_t len = e->b, m;
	struct pname *p;

	if (j + 1 + (len + 23) / 24 > b->n || len > ACT_NAME_MAX)
		return;
	p = name_slot(nm, e->a);
	free(p->name);
	p->name = malloc(len + 1);
	if (!p->name)
		return;
	for (m = 0; m < len; m += 24) {
		const struct act__trace_ev *x = ev_at(b, j + 1 + m / 24);
		uint64_t wds[3] = { x->a, x->b, x->c };

		memcpy(p->name + m, wds, len - m < 24 ? len - m : 24);
	}
	p->name[len] = '\0';
}

static int collect_names(struct act__rt *rt, const struct act__trace_buf *bufs,
			 struct names *nm)
{
	uint32_t n = rt->nworkers + 1, i;
	size_t want = 1024, cap = 1;
	uint64_t j;

	for (i = 0; i < n; i++)
		for (j = ev_first(&bufs[i]); j < bufs[i].n; j++) {
			unsigned k = (unsigned)(ev_at(&bufs[i], j)->tk >> 56);

			want += k == ACT_TR_SPAWN || k == ACT_TR_NAME;
		}
	while (cap < 2 * want)
		cap *= 2;
	nm->tab = calloc(cap, sizeof(*nm->tab));
	if (!nm->tab)
		return -ENOMEM;
	nm->mask = cap - 1;
	nm->shift = 64 - (unsigned)__builtin_ctzll(cap);
	for (i = 0; i < n; i++) {
		const struct act__trace_buf *b = &bufs[i];

		for (j = ev_first(b); j < b->n; j++) {
			const struct act__trace_ev *e = ev_at(b, j);
			unsigned k = (unsigned)(e->tk >> 56);

			if (k == ACT_TR_SPAWN)
				name_slot(nm, e->a)->fn = (uintptr_t)e->b;
			else if (k == ACT_TR_NAME)
				read_name(nm, b, j);
		}
	}
	return 0;
}

/* One track: where its record begins if the ring lost events, then its
 * events in time order. */
static int write_track(struct wctx *c, const struct act__trace_buf *b)
{
	uint64_t first = ev_first(b), j, n = b->n - first, k = 0;
	struct ord *ord;

	if (first) {
		/* where this track's record begins, and why */
		head(c, 'i', "dropped", "trace", ev_tick(ev_at(b, first)));
		out_lit(c->o, ",\"s\":\"t\",\"args\":{");
		arg_u(c->o, "events", first, true);
		out_lit(c->o, "}}");
	}
	ord = malloc((n ? n : 1) * sizeof(*ord));
	if (!ord)
		return -ENOMEM;
	for (j = first; j < b->n; j++) {
		const struct act__trace_ev *e = ev_at(b, j);
		unsigned kind = (unsigned)(e->tk >> 56);

		/* a name's bytes cut by the ring's wrap: nothing to show */
		if (kind == ACT_TR_NAME || kind == ACT_TR_BYTES)
			continue;
		ord[k].key = ev_tick(e) << 1 | !ev_slice(e);
		ord[k++].e = e;
	}
	sort_nearly(ord, k);
	for (j = 0; j < k; j++)
		write_event(c, ord[j].e);
	free(ord);
	return 0;
}

static void meta(struct out *o, uint32_t tid, const char *what,
		 const char *name, bool first)
{
	out_s(o, first ? "\n{\"ph\":\"M\",\"pid\":1,\"tid\":" :
			 ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":");
	out_u(o, tid);
	out_lit(o, ",\"name\":\"");
	out_s(o, what);
	out_lit(o, "\",\"args\":{\"name\":");
	out_str(o, name);
	out_lit(o, "}}");
}

/* The file's head: otherData (the writer, the clock, the workers, the
 * events each ring lost), then the process's and the tracks' names. */
static void write_header(struct out *o, struct act__rt *rt,
			 const struct act__trace_buf *bufs)
{
	uint32_t n = rt->nworkers + 1, i;
	char name[64];

	out_s(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{"
		 "\"version\":\"actors " PACKAGE_VERSION "\",\"clock\":\"");
	out_s(o, act__clock_ticks_name());
	out_lit(o, "\",\"workers\":");
	out_u(o, rt->nworkers);
	out_lit(o, ",\"dropped\":[");
	for (i = 0; i < n; i++) {
		if (i)
			out_lit(o, ",");
		out_u(o, ev_first(&bufs[i]));
	}
	out_lit(o, "]},\"traceEvents\":[");
	snprintf(name, sizeof(name), "actors (pid %d)", (int)getpid());
	meta(o, 0, "process_name", name, true);
	for (i = 0; i < n; i++) {
		int cpu = i < rt->nworkers ? rt->plan.w[i].cpu : -1;

		if (i == rt->nworkers)
			snprintf(name, sizeof(name), "reactor");
		else if (cpu >= 0)
			snprintf(name, sizeof(name), "worker %u (cpu %d)", i,
				 cpu);
		else
			snprintf(name, sizeof(name), "worker %u (cpu -)", i);
		meta(o, i + 1, "thread_name", name, false);
	}
}

static void names_free(struct names *nm)
{
	size_t j;

	if (!nm->tab)
		return;
	for (j = 0; j <= nm->mask; j++)
		free(nm->tab[j].name);
	free(nm->tab);
}

int act__tracefile_write(struct act__rt *rt, const struct act__trace_buf *bufs,
			 const char *path)
{
	uint32_t n = rt->nworkers + 1, i;
	struct names nm = { NULL, 0, 0 };
	struct out out = { 0 };
	struct wctx c = { 0 };
	int rc;

	out.f = fopen(path, "w");
	if (!out.f)
		return -errno;
	out.cap = (size_t)1 << 20;
	out.buf = malloc(out.cap);
	rc = out.buf ? collect_names(rt, bufs, &nm) : -ENOMEM;
	if (rc)
		goto done;
	write_header(&out, rt, bufs);
	c.rt = rt;
	c.o = &out;
	c.nm = &nm;
	c.r = act__clock_cal_ratio(&rt->cal);
	for (i = 0; i < n && !rc; i++) {
		c.tid = i + 1;
		c.worker = i;
		rc = write_track(&c, &bufs[i]);
	}
	out_lit(&out, "\n]}\n");
	out_flush(&out);
	if (!rc && out.err)
		rc = -out.err;
done:
	if (fclose(out.f) && !rc)
		rc = -EIO;
	free(out.buf);
	names_free(&nm);
	return rc;
}
