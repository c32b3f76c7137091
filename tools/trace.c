/* SPDX-License-Identifier: MIT */
/*
 * trace.c - `actors trace [--top N] [--json] FILE`: reads a trace that
 * ACTORS_TRACE=FILE wrote and keeps its aggregates (trace_sum.h), which
 * tools/trace_report.c prints (doc/observability.md has the output).
 *
 * The file is a Chrome trace-event JSON object, its "traceEvents" an
 * array of events with "ph" (the kind), "tid" (worker index + 1, or the
 * reactor's), "ts" and "dur" (us with 3 decimals), "name", "cat", "id"
 * and "args". It is mapped (or read, when it is no regular file) and
 * read in one pass with the strict reader of tools/json.h; each event is
 * decoded into one struct ev, folded into the aggregates and forgotten.
 * Nothing in it relies on line breaks or key order: thread names and
 * otherData.dropped may come after the events they describe, since
 * tracks are keyed by tid and resolved at the end.
 *
 * What it understands: M (process_name, thread_name), X (run slices,
 * search and parked, reactor loops), i/I (steal, timer; the others are
 * read and passed over), b/e (I/O operations, paired by cat, name and
 * id), s/t/f (flows) and C (counters), the last three passed over. Any
 * other "ph" is counted by value; a known one without the fields it
 * needs (an X without ts or dur) is counted as malformed. Neither stops
 * the summary; bad JSON does (status 1, the offset and what was expected
 * there).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "../examples/opt.h"
#include "commands.h"
#include "trace_map.h"
#include "trace_sum.h"

#define NAME_CAP 1024 /* names are cut at 1023 bytes */
#define KEY_CAP 32
#define TOP_DEFAULT 10
#define TOP_MAX 1000000

static uint64_t hash_bytes(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull; /* a separator */
}

/* ---- tracks and processes ---------------------------------------------- */

static struct trace_track *track_get(struct trace_sum *s, int64_t tid)
{
	struct trace_ent *e;
	struct trace_track *t;
	bool fresh;

	e = trace_map_get(&s->track_of, (uint64_t)tid, &fresh);
	if (!fresh)
		return &s->tracks[e->idx];
	if (s->ntracks == s->tracks_cap) {
		s->tracks_cap = s->tracks_cap ? s->tracks_cap * 2 : 16;
		s->tracks = trace_xrealloc(s->tracks, s->tracks_cap,
					   sizeof(*s->tracks));
	}
	e->idx = (uint32_t)s->ntracks;
	t = &s->tracks[s->ntracks++];
	*t = (struct trace_track){ .tid = tid, .worker = -1 };
	return t;
}

static struct trace_proc *proc_get(struct trace_sum *s, uint64_t pid,
				   const char *name)
{
	struct trace_ent *e;
	struct trace_proc *p;
	bool fresh;

	e = trace_map_get(&s->proc_of, pid, &fresh);
	if (!fresh)
		return &s->procs[e->idx];
	if (s->nprocs == s->procs_cap) {
		s->procs_cap = s->procs_cap ? s->procs_cap * 2 : 256;
		s->procs = trace_xrealloc(s->procs, s->procs_cap,
					  sizeof(*s->procs));
	}
	e->idx = (uint32_t)s->nprocs;
	p = &s->procs[s->nprocs++];
	*p = (struct trace_proc){ .pid = pid, .name = trace_xstrdup(name) };
	return p;
}

/* "worker N (cpu C)" or "worker N (cpu -)": N, else -1. */
static int worker_index(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "worker ", 7) || name[7] < '0' || name[7] > '9')
		return -1;
	errno = 0;
	n = strtol(name + 7, &end, 10);
	if (errno || n > 1 << 20 || (*end != '\0' && *end != ' '))
		return -1;
	return (int)n;
}

/* ---- one event --------------------------------------------------------- */

/* The args this tool reads; the others are passed over. */
enum arg { A_PID, A_REDUCTIONS, A_COUNT, A_VICTIM, A_SQES, A_CQES, A_NUMS };

static const char *const arg_key[A_NUMS] = {
	"pid", "reductions", "count", "victim", "sqes", "cqes",
};

enum {
	HAS_PH = 1 << 0,
	HAS_TID = 1 << 1,
	HAS_TS = 1 << 2,
	HAS_DUR = 1 << 3,
	HAS_ID = 1 << 4,
	HAS_ANAME = 1 << 5,
	HAS_ARG = 1 << 6, /* HAS_ARG << A_*: that number was read */
};

struct ev {
	unsigned has;
	char ph[8];
	char cat[KEY_CAP];
	char id[64];
	char why[TRACE_WHY_CAP];
	double tid, ts, dur;
	double arg[A_NUMS];
	char name[NAME_CAP];
	char aname[NAME_CAP]; /* args.name */
};

static bool has(const struct ev *ev, unsigned bits)
{
	return (ev->has & bits) == bits;
}

static bool has_arg(const struct ev *ev, enum arg a)
{
	return ev->has & (HAS_ARG << a);
}

/* A number of the file as an integer, clamped: a bad file cannot make a
 * conversion undefined. */
static int64_t to_i64(double v)
{
	if (v != v)
		return 0;
	if (v <= -9e18)
		return -9000000000000000000LL;
	if (v >= 9e18)
		return 9000000000000000000LL;
	return (int64_t)(v < 0 ? v - 0.5 : v + 0.5); /* to the nearest */
}

static int64_t to_ns(double us)
{
	return to_i64(us * 1000.0);
}

/* A number into *v (bit set in *has), or any other value passed over. */
static int num_or_skip(struct json *j, double *v, unsigned *hasbits,
		       unsigned bit)
{
	if (json_peek(j) != JSON_NUMBER)
		return json_skip(j);
	*hasbits |= bit;
	return json_number(j, v, NULL, 0);
}

/* The same for a string (cut to cap), which is "" if it was not one. */
static int str_or_skip(struct json *j, char *buf, size_t cap, unsigned *hasbits,
		       unsigned bit)
{
	size_t len;

	if (json_peek(j) != JSON_STRING)
		return json_skip(j);
	*hasbits |= bit;
	return json_string(j, buf, cap, &len);
}

static int ev_args(struct json *j, struct ev *ev)
{
	char key[KEY_CAP];
	size_t n = 0, len;
	unsigned ignored = 0;
	int r, a;

	if (json_peek(j) != JSON_OBJECT)
		return json_skip(j);
	if (json_obj_begin(j))
		return -1;
	while ((r = json_obj_next(j, &n, key, sizeof(key), &len)) > 0) {
		for (a = 0; a < A_NUMS && strcmp(key, arg_key[a]); a++)
			;
		if (len >= sizeof(key))
			r = json_skip(j);
		else if (a < A_NUMS)
			r = num_or_skip(j, &ev->arg[a], &ev->has, HAS_ARG << a);
		else if (!strcmp(key, "name"))
			r = str_or_skip(j, ev->aname, sizeof(ev->aname),
					&ev->has, HAS_ANAME);
		else if (!strcmp(key, "why"))
			r = str_or_skip(j, ev->why, sizeof(ev->why), &ignored,
					1);
		else
			r = json_skip(j);
		if (r)
			return -1;
	}
	return r;
}

/* "id": a string, or a number kept as its text. */
static int ev_id(struct json *j, struct ev *ev)
{
	double v;

	if (json_peek(j) == JSON_NUMBER) {
		ev->has |= HAS_ID;
		return json_number(j, &v, ev->id, sizeof(ev->id));
	}
	return str_or_skip(j, ev->id, sizeof(ev->id), &ev->has, HAS_ID);
}

/* One member of an event object. */
static int ev_member(struct json *j, struct ev *ev, const char *key)
{
	unsigned ignored = 0;

	switch (key[0]) {
	case 'p':
		if (!strcmp(key, "ph"))
			return str_or_skip(j, ev->ph, sizeof(ev->ph), &ev->has,
					   HAS_PH);
		break;
	case 't':
		if (!strcmp(key, "tid"))
			return num_or_skip(j, &ev->tid, &ev->has, HAS_TID);
		if (!strcmp(key, "ts"))
			return num_or_skip(j, &ev->ts, &ev->has, HAS_TS);
		break;
	case 'd':
		if (!strcmp(key, "dur"))
			return num_or_skip(j, &ev->dur, &ev->has, HAS_DUR);
		break;
	case 'n':
		if (!strcmp(key, "name"))
			return str_or_skip(j, ev->name, sizeof(ev->name),
					   &ignored, 1);
		break;
	case 'c':
		if (!strcmp(key, "cat"))
			return str_or_skip(j, ev->cat, sizeof(ev->cat),
					   &ignored, 1);
		break;
	case 'i':
		if (!strcmp(key, "id"))
			return ev_id(j, ev);
		break;
	case 'a':
		if (!strcmp(key, "args"))
			return ev_args(j, ev);
		break;
	}
	return json_skip(j);
}

static void ev_reset(struct ev *ev)
{
	ev->has = 0;
	ev->ph[0] = ev->cat[0] = ev->id[0] = ev->why[0] = '\0';
	ev->name[0] = ev->aname[0] = '\0';
}

/* One event object into ev. */
static int ev_read(struct json *j, struct ev *ev)
{
	char key[KEY_CAP];
	size_t n = 0, len;
	int r;

	ev_reset(ev);
	if (json_obj_begin(j))
		return -1;
	while ((r = json_obj_next(j, &n, key, sizeof(key), &len)) > 0)
		if ((len < sizeof(key) ? ev_member(j, ev, key) : json_skip(j)))
			return -1;
	return r;
}

/* ---- folding an event in ----------------------------------------------- */

static void count_unknown(struct trace_sum *s, const char *ph)
{
	size_t i;

	s->unknown++;
	for (i = 0; i < s->nunknown_ph; i++)
		if (!strcmp(s->unknown_ph[i].ph, ph))
			break;
	if (i == s->nunknown_ph) {
		if (i == TRACE_UNKNOWN_MAX)
			ph = "(other)";
		else
			s->nunknown_ph++;
		snprintf(s->unknown_ph[i].ph, sizeof(s->unknown_ph[i].ph), "%s",
			 ph);
	}
	s->unknown_ph[i].n++;
}

static void span(struct trace_sum *s, int64_t from, int64_t to)
{
	if (!s->any_ts || from < s->first)
		s->first = from;
	if (!s->any_ts || to > s->last)
		s->last = to;
	s->any_ts = true;
}

static void on_meta(struct trace_sum *s, const struct ev *ev)
{
	struct trace_track *t;

	if (!has(ev, HAS_ANAME))
		return;
	if (!strcmp(ev->name, "process_name")) {
		free(s->process);
		s->process = trace_xstrdup(ev->aname);
	} else if (!strcmp(ev->name, "thread_name") && has(ev, HAS_TID)) {
		t = track_get(s, to_i64(ev->tid));
		free(t->name);
		t->name = trace_xstrdup(ev->aname);
		t->worker = worker_index(t->name);
		t->reactor = !strcmp(t->name, "reactor");
	}
}

static bool better(const struct trace_slice *a, const struct trace_slice *b)
{
	if (a->dur != b->dur)
		return a->dur > b->dur;
	if (a->ts != b->ts)
		return a->ts < b->ts;
	return a->tid < b->tid;
}

/* Restores the min-heap (the worst slice first) below slot i. */
static void heap_down(struct trace_slice *h, size_t n, size_t i)
{
	struct trace_slice tmp;
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && better(&h[c], &h[c + 1]))
			c++;
		if (!better(&h[i], &h[c]))
			break;
		tmp = h[i], h[i] = h[c], h[c] = tmp;
		i = c;
	}
}

static void heap_up(struct trace_slice *h, size_t i)
{
	struct trace_slice tmp;

	while (i > 0 && better(&h[(i - 1) / 2], &h[i])) {
		tmp = h[i], h[i] = h[(i - 1) / 2], h[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static void keep_slice(struct trace_sum *s, const struct trace_slice *c)
{
	struct trace_slice *h = s->slices;

	if (s->nslices < s->top) {
		h[s->nslices] = *c;
		h[s->nslices].name = trace_xstrdup(c->name);
		heap_up(h, s->nslices++);
	} else if (better(c, &h[0])) {
		free(h[0].name);
		h[0] = *c;
		h[0].name = trace_xstrdup(c->name);
		heap_down(h, s->nslices, 0);
	}
}

static void on_run(struct trace_sum *s, struct trace_track *t,
		   const struct ev *ev, int64_t ts, int64_t dur)
{
	struct trace_slice c = { .dur = dur, .ts = ts, .tid = t->tid };
	struct trace_proc *p;

	t->busy += dur;
	t->runs++;
	if (!has_arg(ev, A_PID))
		return;
	c.pid = (uint64_t)to_i64(ev->arg[A_PID] < 0 ? 0 : ev->arg[A_PID]);
	p = proc_get(s, c.pid, ev->name);
	p->run += dur;
	p->runs++;
	if (dur > p->max)
		p->max = dur;
	if (has_arg(ev, A_REDUCTIONS))
		p->reductions += to_i64(ev->arg[A_REDUCTIONS]);
	c.name = (char *)ev->name;
	memcpy(c.why, ev->why, sizeof(c.why));
	if (s->top > 0)
		keep_slice(s, &c);
}

static void on_slice(struct trace_sum *s, const struct ev *ev)
{
	struct trace_track *t;
	int64_t ts, dur;

	if (!has(ev, HAS_TID | HAS_TS | HAS_DUR) || ev->dur < 0) {
		s->malformed++;
		return;
	}
	ts = to_ns(ev->ts);
	dur = to_ns(ev->dur);
	span(s, ts, ts + dur);
	t = track_get(s, to_i64(ev->tid));
	if (!strcmp(ev->cat, "run")) {
		on_run(s, t, ev, ts, dur);
	} else if (!strcmp(ev->cat, "idle")) {
		if (!strcmp(ev->name, "search"))
			t->search += dur;
		else if (!strcmp(ev->name, "parked"))
			t->parked += dur;
	} else if (!strcmp(ev->cat, "reactor") && !strcmp(ev->name, "loop")) {
		t->busy += dur;
		s->loops++;
		if (has_arg(ev, A_SQES))
			s->sqes += to_i64(ev->arg[A_SQES]);
		if (has_arg(ev, A_CQES))
			s->cqes += to_i64(ev->arg[A_CQES]);
	}
}

static void on_instant(struct trace_sum *s, const struct ev *ev)
{
	struct trace_track *t;
	struct trace_ent *e;
	bool fresh;
	int64_t n;

	if (!has(ev, HAS_TID | HAS_TS)) {
		s->malformed++;
		return;
	}
	span(s, to_ns(ev->ts), to_ns(ev->ts));
	t = track_get(s, to_i64(ev->tid));
	if (!strcmp(ev->name, "steal") && !strcmp(ev->cat, "sched")) {
		if (!has_arg(ev, A_VICTIM) || ev->arg[A_VICTIM] < 0 ||
		    ev->arg[A_VICTIM] > UINT32_MAX) {
			s->malformed++;
			return;
		}
		n = has_arg(ev, A_COUNT) ? to_i64(ev->arg[A_COUNT]) : 0;
		t->steals++;
		t->stolen += n;
		e = trace_map_get(&s->steal_of,
				  (uint64_t)t->tid << 32 |
					  (uint32_t)ev->arg[A_VICTIM],
				  &fresh);
		e->v += n;
	} else if (!strcmp(ev->name, "timer") && !strcmp(ev->cat, "timer")) {
		s->timers++;
	}
}

static uint32_t ioop_index(struct trace_sum *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nioops; i++)
		if (!strcmp(s->ioops[i].name, name))
			return (uint32_t)i;
	if (i == TRACE_IO_OPS_MAX)
		name = "(other)";
	s->ioops[i].name = trace_xstrdup(name);
	s->nioops++;
	return (uint32_t)i;
}

static void on_async(struct trace_sum *s, const struct ev *ev)
{
	uint64_t key = 0xcbf29ce484222325ull;
	struct trace_ioop *op;
	struct trace_ent *e;
	int64_t ts = to_ns(ev->ts), lat;
	bool fresh;

	if (!has(ev, HAS_TS | HAS_ID)) {
		s->malformed++;
		return;
	}
	span(s, ts, ts);
	key = hash_bytes(hash_bytes(hash_bytes(key, ev->cat), ev->name),
			 ev->id);
	if (ev->ph[0] == 'b') {
		e = trace_map_get(&s->io_open, key, &fresh);
		e->v = ts;
		e->idx = ioop_index(s, ev->name);
		return;
	}
	e = trace_map_find(&s->io_open, key);
	if (e == NULL) {
		s->io_unmatched++;
		return;
	}
	op = &s->ioops[e->idx];
	lat = ts - e->v;
	op->count++;
	op->sum += lat;
	if (lat > op->max)
		op->max = lat;
	trace_map_del(&s->io_open, e);
}

/* Flows and counters: understood, and not summarized. */
static bool passed_over(const char *ph)
{
	return !strcmp(ph, "s") || !strcmp(ph, "t") || !strcmp(ph, "f") ||
	       !strcmp(ph, "C");
}

static void on_event(struct trace_sum *s, const struct ev *ev)
{
	const char *ph = has(ev, HAS_PH) ? ev->ph : "(none)";

	s->events++;
	if (!strcmp(ph, "M")) {
		on_meta(s, ev);
	} else if (!strcmp(ph, "X")) {
		on_slice(s, ev);
	} else if (!strcmp(ph, "i") || !strcmp(ph, "I")) {
		on_instant(s, ev);
	} else if (!strcmp(ph, "b") || !strcmp(ph, "e")) {
		on_async(s, ev);
	} else if (passed_over(ph)) {
		if (has(ev, HAS_TS))
			span(s, to_ns(ev->ts), to_ns(ev->ts));
	} else {
		count_unknown(s, ph);
	}
}

/* ---- the file ---------------------------------------------------------- */

static int events(struct json *j, struct trace_sum *s)
{
	struct ev *ev = trace_xrealloc(NULL, 1, sizeof(*ev));
	size_t n = 0;
	int r;

	if (json_arr_begin(j))
		goto out;
	while ((r = json_arr_next(j, &n)) > 0) {
		if (json_peek(j) != JSON_OBJECT) {
			s->events++;
			count_unknown(s, "(not an object)");
			r = json_skip(j);
		} else if (!(r = ev_read(j, ev))) {
			on_event(s, ev);
		}
		if (r)
			break;
	}
out:
	free(ev);
	return j->failed ? -1 : 0;
}

static int dropped(struct json *j, struct trace_sum *s)
{
	size_t n = 0, cap = 0;
	double v;
	int r;

	if (json_peek(j) != JSON_ARRAY)
		return json_skip(j);
	if (json_arr_begin(j))
		return -1;
	while ((r = json_arr_next(j, &n)) > 0) {
		if (json_peek(j) != JSON_NUMBER) {
			v = 0;
			if (json_skip(j))
				return -1;
		} else if (json_number(j, &v, NULL, 0)) {
			return -1;
		}
		if (s->ndropped == cap) {
			cap = cap ? cap * 2 : 16;
			s->dropped = trace_xrealloc(s->dropped, cap,
						    sizeof(*s->dropped));
		}
		s->dropped[s->ndropped++] = to_i64(v);
	}
	return r;
}

static int other_data(struct json *j, struct trace_sum *s)
{
	char key[KEY_CAP], buf[NAME_CAP];
	size_t n = 0, len;
	unsigned got = 0;
	double v;
	int r;

	if (json_peek(j) != JSON_OBJECT)
		return json_skip(j);
	if (json_obj_begin(j))
		return -1;
	while ((r = json_obj_next(j, &n, key, sizeof(key), &len)) > 0) {
		got = 0;
		if (!strcmp(key, "dropped")) {
			r = dropped(j, s);
		} else if (!strcmp(key, "workers")) {
			r = num_or_skip(j, &v, &got, 1);
			if (got)
				s->declared_workers = to_i64(v);
		} else if (!strcmp(key, "version") || !strcmp(key, "clock")) {
			r = str_or_skip(j, buf, sizeof(buf), &got, 1);
			if (got && key[0] == 'v')
				free(s->version),
					s->version = trace_xstrdup(buf);
			else if (got)
				free(s->clock), s->clock = trace_xstrdup(buf);
		} else {
			r = json_skip(j);
		}
		if (r)
			return -1;
	}
	return r;
}

/* The whole text; 0, -1 for bad JSON (j says where), 1 for no events. */
static int parse(struct json *j, struct trace_sum *s)
{
	char key[KEY_CAP];
	size_t n = 0, len;
	bool found = false;
	int r;

	if (json_peek(j) != JSON_OBJECT && json_peek(j) != JSON_NONE)
		/* JSON, but no object: no trace either */
		return json_skip(j) || json_end(j) ? -1 : 1;
	if (json_obj_begin(j))
		return -1;
	while ((r = json_obj_next(j, &n, key, sizeof(key), &len)) > 0) {
		if (!strcmp(key, "traceEvents") && json_peek(j) == JSON_ARRAY) {
			found = true;
			r = events(j, s);
		} else if (!strcmp(key, "otherData")) {
			r = other_data(j, s);
		} else {
			r = json_skip(j);
		}
		if (r)
			return -1;
	}
	if (r || json_end(j))
		return -1;
	return found ? 0 : 1;
}

/* The dropped counts onto their tracks (tid k + 1 for entry k). */
static void place_drops(struct trace_sum *s)
{
	size_t k;

	for (k = 0; k < s->ndropped; k++)
		if (s->dropped[k] != 0)
			track_get(s, (int64_t)k + 1)->dropped += s->dropped[k];
}

struct text {
	void *p;
	size_t len;
	bool mapped;
};

/* A file that is no regular one (a pipe, /dev/stdin): read to its end. */
static int read_all(int fd, struct text *t)
{
	size_t cap = 1 << 16;
	ssize_t r;

	t->p = trace_xrealloc(NULL, cap, 1);
	t->len = 0;
	for (;;) {
		if (t->len == cap)
			t->p = trace_xrealloc(t->p, cap *= 2, 1);
		r = read(fd, (char *)t->p + t->len, cap - t->len);
		if (r == 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			t->len += (size_t)r;
	}
}

static int load(const char *path, struct text *t)
{
	struct stat st;
	int fd, rc = 0;

	memset(t, 0, sizeof(*t));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		rc = -errno;
	} else if (S_ISREG(st.st_mode) && st.st_size > 0) {
		t->len = (size_t)st.st_size;
		t->p = mmap(NULL, t->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (t->p == MAP_FAILED)
			rc = -errno;
		else
			t->mapped = true;
		if (!rc)
			madvise(t->p, t->len, MADV_SEQUENTIAL);
	} else {
		rc = read_all(fd, t);
	}
	close(fd);
	return rc;
}

static void unload(struct text *t)
{
	if (t->mapped)
		munmap(t->p, t->len);
	else
		free(t->p);
}

static void sum_free(struct trace_sum *s)
{
	size_t i;

	for (i = 0; i < s->ntracks; i++)
		free(s->tracks[i].name);
	for (i = 0; i < s->nprocs; i++)
		free(s->procs[i].name);
	for (i = 0; i < s->nslices; i++)
		free(s->slices[i].name);
	for (i = 0; i < s->nioops; i++)
		free(s->ioops[i].name);
	free(s->tracks);
	free(s->procs);
	free(s->slices);
	free(s->dropped);
	free(s->process);
	free(s->version);
	free(s->clock);
	free(s->track_of.e);
	free(s->proc_of.e);
	free(s->steal_of.e);
	free(s->io_open.e);
}

/* Reads the file into s; the exit status, with its message if not 0. */
static int summarize(const char *path, struct trace_sum *s)
{
	struct text t;
	struct json j;
	int rc;

	rc = load(path, &t);
	if (rc) {
		fprintf(stderr, "actors trace: %s: %s\n", path, strerror(-rc));
		return 1;
	}
	json_init(&j, t.p, t.len);
	rc = parse(&j, s);
	if (rc < 0)
		fprintf(stderr,
			"actors trace: %s: invalid JSON at byte %zu%s: "
			"expected %s\n",
			path, j.pos,
			j.pos == t.len ? " (the end of the file)" : "",
			j.expected);
	else if (rc > 0)
		fprintf(stderr,
			"actors trace: %s: not a trace: no "
			"\"traceEvents\" array\n",
			path);
	unload(&t);
	place_drops(s);
	return rc ? 1 : 0;
}

/* ---- the command ------------------------------------------------------- */

static const char trace_about[] =
	"Summarizes a trace that ACTORS_TRACE=FILE wrote (Chrome trace-event "
	"JSON):\neach worker's busy, searching and parked shares, the "
	"processes with the\nmost run time, the longest run slices, the "
	"steals between workers and the\nreactor's loops and I/O "
	"(doc/observability.md).\n";

int actors_trace_main(int argc, char **argv)
{
	struct trace_sum s = { .top = TOP_DEFAULT, .declared_workers = -1 };
	bool json = false;
	long top = TOP_DEFAULT;
	const struct opt opts[] = {
		OPT_LONG("top", &top, 0, TOP_MAX, "N",
			 "rows of the process and slice tables, {range}"),
		OPT_FLAG("json", &json, "one JSON object instead of text"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "actors trace",
				     .opts = opts,
				     .operands = "FILE",
				     .about = trace_about };
	int ops, rc;

	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (argc - ops != 1)
		return opt_error(&cmd,
				 ops == argc ? "no FILE" : "one FILE only");
	s.top = (size_t)top;
	s.file = argv[ops];
	s.slices = trace_xrealloc(NULL, s.top, sizeof(*s.slices));
	rc = summarize(s.file, &s);
	if (rc == 0) {
		rc = json ? trace_report_json(stdout, &s) :
			    trace_report_text(stdout, &s);
		if (rc || fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "actors trace: writing failed\n");
			rc = 1;
		}
	}
	sum_free(&s);
	return rc;
}
