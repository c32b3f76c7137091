/* SPDX-License-Identifier: MIT */
/*
 * trace_report.c - `actors trace`'s output: the aggregates of
 * trace_sum.h sorted and printed, as text tables or as one JSON object
 * with the same figures (doc/observability.md shows both).
 *
 * Shares are of the trace's span, the earliest ts to the latest end of a
 * slice; "other" is what busy, search and parked leave of it (never
 * below 0). Times print as microseconds with three decimals, as the file
 * has them; shares with one decimal.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "trace_map.h"
#include "trace_sum.h"

#define MATRIX_MAX 1024 /* workers in the steal matrix (ACT_MAX_WORKERS) */
#define ESC_CAP 4096

/* ---- sorting and the matrix -------------------------------------------- */

static int by_tid(const void *a, const void *b)
{
	const struct trace_track *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int by_run(const void *a, const void *b)
{
	const struct trace_proc *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int by_dur(const void *a, const void *b)
{
	const struct trace_slice *x = a, *y = b;

	if (x->dur != y->dur)
		return x->dur < y->dur ? 1 : -1;
	if (x->ts != y->ts)
		return x->ts > y->ts ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The steals, thief by victim; the workers are 0 to n - 1. */
struct matrix {
	int n;
	int64_t *cell;	 /* [thief * n + victim] */
	int64_t outside; /* processes stolen by or from no worker below n */
};

/* The worker a track is, for a steal: its name's, else its tid's. */
static int thief_of(const struct trace_track *t)
{
	if (t->worker >= 0)
		return t->worker;
	return t->reactor || t->tid < 1 || t->tid > MATRIX_MAX ?
		       -1 :
		       (int)t->tid - 1;
}

/* A steal entry's thief (-1: no worker) and victim. */
static void steal_pair(const struct trace_sum *s, const struct trace_ent *e,
		       int *thief, int *victim)
{
	const struct trace_ent *te = trace_map_find(&s->track_of, e->key >> 32);

	*thief = te ? thief_of(&s->tracks[te->idx]) : -1;
	*victim = (int)(uint32_t)e->key;
}

/* Workers 0 to n - 1: those named, and those steals name (below 1024). */
static int matrix_size(const struct trace_sum *s)
{
	const struct trace_map *sm = &s->steal_of;
	int n = 0, thief, victim;
	size_t i;

	for (i = 0; i < s->ntracks; i++)
		if (s->tracks[i].worker >= n)
			n = s->tracks[i].worker + 1;
	for (i = 0; i < sm->cap; i++) {
		if (!sm->e[i].used)
			continue;
		steal_pair(s, &sm->e[i], &thief, &victim);
		if (thief >= n && thief < MATRIX_MAX)
			n = thief + 1;
		if (victim >= n && victim < MATRIX_MAX)
			n = victim + 1;
	}
	return n > MATRIX_MAX ? MATRIX_MAX : n;
}

static void matrix_fill(struct trace_sum *s, struct matrix *m)
{
	const struct trace_map *sm = &s->steal_of;
	size_t i, cells;
	int thief, victim;

	m->n = matrix_size(s);
	m->outside = 0;
	cells = (size_t)m->n * (size_t)m->n + 1;
	m->cell = trace_xrealloc(NULL, cells, sizeof(*m->cell));
	memset(m->cell, 0, cells * sizeof(*m->cell));
	for (i = 0; i < sm->cap; i++) {
		if (!sm->e[i].used)
			continue;
		steal_pair(s, &sm->e[i], &thief, &victim);
		if (thief < 0 || thief >= m->n || victim >= m->n)
			m->outside += sm->e[i].v;
		else
			m->cell[thief * m->n + victim] += sm->e[i].v;
	}
}

/*
 * Sorts what the tables show. The steal keys name tracks by tid, so the
 * matrix is made before the tracks move; after, the maps are stale.
 */
static void prepare(struct trace_sum *s, struct matrix *m)
{
	matrix_fill(s, m);
	qsort(s->tracks, s->ntracks, sizeof(*s->tracks), by_tid);
	qsort(s->procs, s->nprocs, sizeof(*s->procs), by_run);
	qsort(s->slices, s->nslices, sizeof(*s->slices), by_dur);
}

/* ---- figures ----------------------------------------------------------- */

static int64_t span_ns(const struct trace_sum *s)
{
	return s->any_ts ? s->last - s->first : 0;
}

static int64_t other_ns(const struct trace_sum *s, const struct trace_track *t)
{
	int64_t o = span_ns(s) - t->busy - t->search - t->parked;

	return o > 0 ? o : 0;
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ns as microseconds with three decimals, into buf[32]. */
static const char *us(char *buf, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	snprintf(buf, 32, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000,
		 (unsigned)(a % 1000));
	return buf;
}

static int64_t mean(int64_t sum, int64_t n)
{
	return n > 0 ? (sum + n / 2) / n : 0; /* to the nearest ns */
}

static int64_t total_dropped(const struct trace_sum *s)
{
	int64_t n = 0;
	size_t i;

	for (i = 0; i < s->ndropped; i++)
		n += s->dropped[i];
	return n;
}

static int workers_found(const struct trace_sum *s)
{
	size_t i;
	int n = 0;

	for (i = 0; i < s->ntracks; i++)
		n += s->tracks[i].worker >= 0;
	return n;
}

static bool any_reactor(const struct trace_sum *s)
{
	size_t i;

	for (i = 0; i < s->ntracks; i++)
		if (s->tracks[i].reactor)
			return true;
	return s->loops || s->nioops || s->timers;
}

/* ---- text -------------------------------------------------------------- */

/* s with backslashes and control characters escaped (\\, \n, \xNN), for
 * one line of a table. */
static const char *esc(char *buf, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	unsigned char c;

	for (; (c = (unsigned char)*s) && n + 5 < ESC_CAP; s++) {
		if (c >= 0x20 && c != 0x7f && c != '\\') {
			buf[n++] = (char)c;
		} else if (c == '\n' || c == '\t' || c == '\\') {
			buf[n++] = '\\';
			buf[n++] = c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
		} else {
			buf[n++] = '\\';
			buf[n++] = 'x';
			buf[n++] = hex[c >> 4];
			buf[n++] = hex[c & 15];
		}
	}
	buf[n] = '\0';
	return buf;
}

static const char *track_label(char *buf, const struct trace_track *t)
{
	if (t->name == NULL) {
		snprintf(buf, ESC_CAP, "tid %" PRId64, t->tid);
		return buf;
	}
	return esc(buf, t->name);
}

static void text_header(FILE *f, const struct trace_sum *s)
{
	char a[32], b[32], c[32], e[ESC_CAP], k[ESC_CAP];
	size_t i;

	fprintf(f, "trace %s\n", esc(e, s->file));
	if (s->process)
		fprintf(f, "  process   %s\n", esc(e, s->process));
	if (s->version || s->clock)
		fprintf(f, "  writer    %s, clock %s\n",
			s->version ? esc(e, s->version) : "-",
			s->clock ? esc(k, s->clock) : "-");
	fprintf(f,
		"  events    %" PRId64 " read, %" PRId64
		" not understood, %" PRId64 " malformed\n",
		s->events, s->unknown, s->malformed);
	for (i = 0; i < s->nunknown_ph; i++)
		fprintf(f, "            ph \"%s\": %" PRId64 "\n",
			esc(e, s->unknown_ph[i].ph), s->unknown_ph[i].n);
	fprintf(f, "  span      %s us (%s to %s)\n", us(a, span_ns(s)),
		us(b, s->any_ts ? s->first : 0),
		us(c, s->any_ts ? s->last : 0));
	fprintf(f, "  workers   %d", workers_found(s));
	if (s->declared_workers >= 0)
		fprintf(f, " (otherData: %" PRId64 ")", s->declared_workers);
	fprintf(f, "\n  dropped   %" PRId64, total_dropped(s));
	for (i = 0; i < s->ntracks; i++)
		if (s->tracks[i].dropped)
			fprintf(f, ", %s %" PRId64,
				track_label(e, &s->tracks[i]),
				s->tracks[i].dropped);
	fprintf(f, "\n");
}

static void text_tracks(FILE *f, const struct trace_sum *s)
{
	const struct trace_track *t;
	int64_t all = span_ns(s);
	char e[ESC_CAP];
	size_t i;

	fprintf(f,
		"\ntracks (shares of the span)\n"
		"  %-20s %6s %7s %7s %7s %7s %7s %7s %8s\n",
		"track", "busy", "search", "parked", "other", "runs", "steals",
		"stolen", "dropped");
	for (i = 0; i < s->ntracks; i++) {
		t = &s->tracks[i];
		fprintf(f,
			"  %-20s %5.1f%% %6.1f%% %6.1f%% %6.1f%% %7" PRId64
			" %7" PRId64 " %7" PRId64 " %8" PRId64 "\n",
			track_label(e, t), pct(t->busy, all),
			pct(t->search, all), pct(t->parked, all),
			pct(other_ns(s, t), all), t->runs, t->steals, t->stolen,
			t->dropped);
	}
}

static void text_procs(FILE *f, const struct trace_sum *s)
{
	const struct trace_proc *p;
	char a[32], b[32], c[32], e[ESC_CAP];
	size_t i, n = s->nprocs < s->top ? s->nprocs : s->top;

	fprintf(f,
		"\nprocesses by run time (%zu of %zu)\n"
		"  %16s %12s %8s %11s %11s %11s  %s\n",
		n, s->nprocs, "pid", "run (us)", "runs", "mean (us)",
		"max (us)", "reductions", "name");
	for (i = 0; i < n; i++) {
		p = &s->procs[i];
		fprintf(f,
			"  %16" PRIu64 " %12s %8" PRId64 " %11s %11s %11" PRId64
			"  %s\n",
			p->pid, us(a, p->run), p->runs,
			us(b, mean(p->run, p->runs)), us(c, p->max),
			p->reductions, esc(e, p->name));
	}
}

/* The worker a slice ran on, or its tid. */
static const char *slice_worker(char *buf, const struct trace_sum *s,
				int64_t tid)
{
	const struct trace_track *t = NULL;
	size_t i;

	for (i = 0; i < s->ntracks && t == NULL; i++)
		if (s->tracks[i].tid == tid)
			t = &s->tracks[i];
	if (t != NULL && t->worker >= 0)
		snprintf(buf, 32, "%d", t->worker);
	else
		snprintf(buf, 32, "tid %" PRId64, tid);
	return buf;
}

static void text_slices(FILE *f, const struct trace_sum *s)
{
	const struct trace_slice *l;
	char a[32], b[32], w[32], e[ESC_CAP], y[ESC_CAP];
	size_t i;

	fprintf(f,
		"\nlongest run slices (%zu)\n"
		"  %8s %16s %14s %11s  %-8s %s\n",
		s->nslices, "worker", "pid", "start (us)", "dur (us)", "why",
		"name");
	for (i = 0; i < s->nslices; i++) {
		l = &s->slices[i];
		fprintf(f, "  %8s %16" PRIu64 " %14s %11s  %-8s %s\n",
			slice_worker(w, s, l->tid), l->pid, us(a, l->ts),
			us(b, l->dur), l->why[0] ? esc(y, l->why) : "-",
			esc(e, l->name));
	}
}

static void text_steals(FILE *f, const struct matrix *m)
{
	char w[32];
	int r, c;

	fprintf(f, "\nsteals (row: thief, column: victim; processes stolen)\n");
	if (m->n == 0) {
		fprintf(f, "  no workers\n");
		return;
	}
	fprintf(f, "  %-8s", "");
	for (c = 0; c < m->n; c++) {
		snprintf(w, sizeof(w), "w%d", c);
		fprintf(f, " %7s", w);
	}
	fprintf(f, "\n");
	for (r = 0; r < m->n; r++) {
		snprintf(w, sizeof(w), "w%d", r);
		fprintf(f, "  %-8s", w);
		for (c = 0; c < m->n; c++)
			if (r == c && m->cell[r * m->n + c] == 0)
				fprintf(f, " %7s", "-");
			else
				fprintf(f, " %7" PRId64, m->cell[r * m->n + c]);
		fprintf(f, "\n");
	}
	if (m->outside)
		fprintf(f, "  %" PRId64 " stolen by or from no such worker\n",
			m->outside);
}

static void text_reactor(FILE *f, const struct trace_sum *s)
{
	const struct trace_ioop *op;
	char a[32], b[32], e[ESC_CAP];
	size_t i;

	if (!any_reactor(s)) {
		fprintf(f, "\nreactor: none in the trace\n");
		return;
	}
	fprintf(f,
		"\nreactor: %" PRId64 " loops, %" PRId64 " SQEs, %" PRId64
		" CQEs, %" PRId64 " timer fires\n"
		"  %-16s %8s %11s %11s\n",
		s->loops, s->sqes, s->cqes, s->timers, "I/O op", "ops",
		"mean (us)", "max (us)");
	for (i = 0; i < s->nioops; i++) {
		op = &s->ioops[i];
		fprintf(f, "  %-16s %8" PRId64 " %11s %11s\n", esc(e, op->name),
			op->count, us(a, mean(op->sum, op->count)),
			us(b, op->max));
	}
	fprintf(f,
		"  %zu in flight at the end, %" PRId64
		" ends without a begin\n",
		s->io_open.n, s->io_unmatched);
}

int trace_report_text(FILE *f, struct trace_sum *s)
{
	struct matrix m;

	prepare(s, &m);
	text_header(f, s);
	text_tracks(f, s);
	text_procs(f, s);
	text_slices(f, s);
	text_steals(f, &m);
	text_reactor(f, s);
	free(m.cell);
	return ferror(f) ? -1 : 0;
}

/* ---- JSON -------------------------------------------------------------- */

/* "key":"value" or "key":null */
static void jkey_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "\"%s\":", key);
	act__json_fstr(f, v);
}

static void json_header(FILE *f, const struct trace_sum *s)
{
	char a[32], b[32], c[32];
	size_t i;

	jkey_str(f, "file", s->file);
	fputc(',', f);
	jkey_str(f, "process", s->process);
	fputc(',', f);
	jkey_str(f, "version", s->version);
	fputc(',', f);
	jkey_str(f, "clock", s->clock);
	fprintf(f,
		",\"events\":%" PRId64 ",\"not_understood\":%" PRId64
		",\"malformed\":%" PRId64 ",\"unknown_ph\":{",
		s->events, s->unknown, s->malformed);
	for (i = 0; i < s->nunknown_ph; i++) {
		fprintf(f, i ? "," : "");
		act__json_fstr(f, s->unknown_ph[i].ph);
		fprintf(f, ":%" PRId64, s->unknown_ph[i].n);
	}
	fprintf(f, "},\"first_us\":%s,\"last_us\":%s,\"span_us\":%s",
		us(a, s->any_ts ? s->first : 0), us(b, s->any_ts ? s->last : 0),
		us(c, span_ns(s)));
	fprintf(f, ",\"workers\":%d,\"workers_declared\":", workers_found(s));
	if (s->declared_workers >= 0)
		fprintf(f, "%" PRId64, s->declared_workers);
	else
		fprintf(f, "null");
	fprintf(f, ",\"dropped\":%" PRId64, total_dropped(s));
}

static void json_tracks(FILE *f, const struct trace_sum *s)
{
	const struct trace_track *t;
	int64_t all = span_ns(s);
	char a[32], b[32], c[32], d[32];
	size_t i;

	fprintf(f, ",\"tracks\":[");
	for (i = 0; i < s->ntracks; i++) {
		t = &s->tracks[i];
		fprintf(f, "%s{\"tid\":%" PRId64 ",", i ? "," : "", t->tid);
		jkey_str(f, "name", t->name);
		fprintf(f, ",\"worker\":");
		if (t->worker >= 0)
			fprintf(f, "%d", t->worker);
		else
			fprintf(f, "null");
		fprintf(f,
			",\"reactor\":%s,\"busy_us\":%s,\"search_us\":%s,"
			"\"parked_us\":%s,\"other_us\":%s,\"busy_pct\":%.1f,"
			"\"search_pct\":%.1f,\"parked_pct\":%.1f,"
			"\"other_pct\":%.1f,\"runs\":%" PRId64
			",\"steals\":%" PRId64 ",\"stolen\":%" PRId64
			",\"dropped\":%" PRId64 "}",
			t->reactor ? "true" : "false", us(a, t->busy),
			us(b, t->search), us(c, t->parked),
			us(d, other_ns(s, t)), pct(t->busy, all),
			pct(t->search, all), pct(t->parked, all),
			pct(other_ns(s, t), all), t->runs, t->steals, t->stolen,
			t->dropped);
	}
	fprintf(f, "]");
}

static void json_procs(FILE *f, const struct trace_sum *s)
{
	const struct trace_proc *p;
	char a[32], b[32], c[32];
	size_t i, n = s->nprocs < s->top ? s->nprocs : s->top;

	fprintf(f, ",\"processes\":%zu,\"top_processes\":[", s->nprocs);
	for (i = 0; i < n; i++) {
		p = &s->procs[i];
		fprintf(f, "%s{\"pid\":%" PRIu64 ",", i ? "," : "", p->pid);
		jkey_str(f, "name", p->name);
		fprintf(f,
			",\"run_us\":%s,\"runs\":%" PRId64
			",\"mean_us\":%s,\"max_us\":%s,\"reductions\":%" PRId64
			"}",
			us(a, p->run), p->runs, us(b, mean(p->run, p->runs)),
			us(c, p->max), p->reductions);
	}
	fprintf(f, "]");
}

static void json_slices(FILE *f, const struct trace_sum *s)
{
	const struct trace_slice *l;
	const struct trace_track *t;
	char a[32], b[32];
	size_t i, k;

	fprintf(f, ",\"longest_slices\":[");
	for (i = 0; i < s->nslices; i++) {
		l = &s->slices[i];
		for (k = 0, t = NULL; k < s->ntracks && t == NULL; k++)
			if (s->tracks[k].tid == l->tid)
				t = &s->tracks[k];
		fprintf(f, "%s{\"tid\":%" PRId64 ",\"worker\":", i ? "," : "",
			l->tid);
		if (t != NULL && t->worker >= 0)
			fprintf(f, "%d", t->worker);
		else
			fprintf(f, "null");
		fprintf(f, ",\"pid\":%" PRIu64 ",", l->pid);
		jkey_str(f, "name", l->name);
		fprintf(f, ",\"ts_us\":%s,\"dur_us\":%s,", us(a, l->ts),
			us(b, l->dur));
		jkey_str(f, "why", l->why[0] ? l->why : NULL);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

static void json_steals(FILE *f, const struct matrix *m)
{
	int r, c;

	fprintf(f, ",\"steals\":{\"workers\":%d,\"matrix\":[", m->n);
	for (r = 0; r < m->n; r++) {
		fprintf(f, "%s[", r ? "," : "");
		for (c = 0; c < m->n; c++)
			fprintf(f, "%s%" PRId64, c ? "," : "",
				m->cell[r * m->n + c]);
		fprintf(f, "]");
	}
	fprintf(f, "],\"outside\":%" PRId64 "}", m->outside);
}

static void json_reactor(FILE *f, const struct trace_sum *s)
{
	const struct trace_ioop *op;
	char a[32], b[32];
	size_t i;

	fprintf(f,
		",\"reactor\":{\"present\":%s,\"loops\":%" PRId64
		",\"sqes\":%" PRId64 ",\"cqes\":%" PRId64
		",\"timer_fires\":%" PRId64 ",\"io\":[",
		any_reactor(s) ? "true" : "false", s->loops, s->sqes, s->cqes,
		s->timers);
	for (i = 0; i < s->nioops; i++) {
		op = &s->ioops[i];
		fprintf(f, "%s{", i ? "," : "");
		jkey_str(f, "op", op->name);
		fprintf(f,
			",\"count\":%" PRId64 ",\"mean_us\":%s,\"max_us\":%s}",
			op->count, us(a, mean(op->sum, op->count)),
			us(b, op->max));
	}
	fprintf(f, "],\"io_in_flight\":%zu,\"io_unmatched\":%" PRId64 "}",
		s->io_open.n, s->io_unmatched);
}

int trace_report_json(FILE *f, struct trace_sum *s)
{
	struct matrix m;

	prepare(s, &m);
	fputc('{', f);
	json_header(f, s);
	json_tracks(f, s);
	json_procs(f, s);
	json_slices(f, s);
	json_steals(f, &m);
	json_reactor(f, s);
	fprintf(f, "}\n");
	free(m.cell);
	return ferror(f) ? -1 : 0;
}
