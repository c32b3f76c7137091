/* SPDX-License-Identifier: MIT */
/*
 * dist_pair - two actors nodes, two OS processes of the runtime and no
 * BEAM, for tests/dist-node.sh: the cases of the messaging and lifecycle
 * programs (test_mailbox, test_backpressure, test_links, test_monitors,
 * test_exit_handlers) that mean something across nodes, each with its
 * other end in the other OS process. On the public API only
 * (act_dist_start(3)).
 *
 *   dist_pair serve NAME COOKIE EPMD_PORT TICK_MS
 *   dist_pair check NAME COOKIE EPMD_PORT TICK_MS PEER
 *
 * The serve node reads each frame at once (linger_us -1), the check node
 * waits for batches where that pays (the default, lib/dist/linger.h).
 *
 * serve: a node whose server, registered as "pair", spawns puppets when
 * asked and says when one is gone; told to stop, it has the main process
 * return, so that the runtime stops cleanly (act_main returns) with the
 * server and the puppets alive. Prints "ready NAME", and "stopped RC,
 * descriptors N before, M after" once act_main has returned (N those
 * open before act_main, M after it).
 * check: runs the cases against PEER, a serve node; prints "peer: ok
 * CASE" or "peer: FAIL CASE: expected X, saw Y" for each, "peer: restart
 * PEER" once PEER has stopped (the test then starts it again), and
 * "peer: done PASSED FAILED" at the end.
 *
 * A puppet carries out orders (link, monitor, send, take an EXIT...) and
 * answers, so that the checker sees both ends from here. A pid of the
 * other node is only ever learnt as a message's sender: a puppet there
 * acts on the process here that last sent it T_MEET.
 *
 * Nothing is timed. Each wait for what must come has a failure limit
 * only (WAIT); where nothing must come, a barrier first makes sure that
 * it would have come. The barriers: what a node sends another, messages
 * and signals, goes through its one connection process in the order it
 * was given, and is delivered there by one reader in that order; and a
 * process that is gone (act_process_info says -ESRCH) has given its
 * exit's signals to the connection process already. So a message that
 * leaves after a process is gone arrives after that process's EXITs and
 * DOWNs. For a process there, the serve node's T_GONE answer is that
 * message.
 */
#include <actors.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEC 1000000000LL
#define WAIT (20 * SEC) /* a failure limit only */
#define REG "pair-reg"	/* the name the name cases register there */

enum {
	T_SPAWN = 1, /* to the server: struct spawn_req */
	T_HELLO,     /* a new puppet's first word, its number */
	T_GONE,	     /* to the server: a number; answered once it is gone */
	T_STOP,	     /* to the server: return, and the runtime stops */
	T_PING,	     /* to the server: answered with the same */
	T_CMD,	     /* to a puppet: struct pcmd */
	T_REPLY,     /* a puppet's answer: struct prep */
	T_MEET,	     /* to a puppet: the sender is its peer from now on */
	T_DATA,	     /* numbered (uint32_t) */
	T_ECHO,	     /* answered to the sender with the same bytes */
	T_BYE,	     /* an exit handler's message */
	T_SEL,	     /* T_SEL + k: the selective receive's tags */
};

/* a puppet's orders; "peer" is the process it acts on */
enum {
	P_TRAP = 1,  /* v = act_trap_exit(arg) */
	P_LINK,	     /* v = act_link(peer) */
	P_UNLINK,    /* v = act_unlink(peer) */
	P_MONITOR,   /* ref = act_monitor(peer) */
	P_DEMONITOR, /* v = act_demonitor(ref) */
	P_KILL,	     /* v = act_kill(peer, arg) */
	P_EXIT,	     /* act_exit(arg); no answer */
	P_MEET,	     /* T_MEET to peer: it learns this puppet */
	P_SETPEER,   /* peer = ref, a pid of this node's table */
	P_ON_EXIT,   /* an exit handler that sends peer T_BYE */
	P_REGISTER,  /* v = act_register(REG, self) */
	P_PING,	     /* answers, if a kill that came first has not
		      * ended it */
	P_TAKE,	     /* txt = the next message of tag n (0: any from
		      * peer; a DOWN: of monitor ref), waiting arg ns */
	P_COUNT,     /* v = messages of tag arg now (0: EXITs and DOWNs) */
	P_SEND,	     /* n numbered messages to peer: T_DATA, or tags
		      * T_SEL + i % arg when arg > 0; v = a send's error */
	P_COLLECT,   /* n senders' arg T_DATA each, in order */
	P_SELECT,    /* n from peer, tags T_SEL + i % arg, the last tag's
		      * first */
	P_DRAIN,     /* T_DATA from peer in order up to its tag n */
	P_FLOOD,     /* n T_DATA to peer and to the commander, then
		      * act_exit(arg); no answer */
	P_ECHO_PEER, /* v = 1 when peer answers a T_ECHO from here */
	P_CROSS,     /* n T_DATA to peer in bursts of arg while reading
		      * n from it */
};

struct pcmd {
	int32_t op;
	uint32_t n;
	int64_t arg;
	uint64_t ref;
};

struct prep {
	int64_t v;
	uint64_t ref;
	uint32_t n, bad;
	char txt[96];
};

struct spawn_req {
	uint32_t count, trap, limit;
};

struct pup {
	act_pid boss, peer;
	uint32_t id;
	bool trap;
};

static const char *name, *cookie, *peer;
static struct act_dist_opts opts;

/* ---- what a process saw, as text ----------------------------------------- */

/* A reason as the test's text: the ACT_EXIT_* by name, else the number */
static const char *reason_text(intptr_t r, char *buf, size_t n)
{
	switch (r) {
	case ACT_EXIT_NORMAL:
		return "normal";
	case ACT_EXIT_KILL:
		return "kill";
	case ACT_EXIT_KILLED:
		return "killed";
	case ACT_EXIT_NOPROC:
		return "noproc";
	case ACT_EXIT_SHUTDOWN:
		return "shutdown";
	case ACT_EXIT_MAILBOX:
		return "mailbox";
	case ACT_EXIT_NOCONNECTION:
		return "noconnection";
	case ACT_EXIT_TERM:
		return "term";
	default:
		snprintf(buf, n, "%lld", (long long)r);
		return buf;
	}
}

/* The atom of a term's bytes (version byte first), else "?" */
static void term_atom(const unsigned char *t, size_t n, char *out, size_t cap)
{
	size_t len = 0, at = 0;

	if (n >= 3 && t[0] == 131 && t[1] == 119) { /* SMALL_ATOM_UTF8 */
		len = t[2];
		at = 3;
	} else if (n >= 4 && t[0] == 131 && (t[1] == 118 || t[1] == 100)) {
		len = (size_t)t[2] << 8 | t[3];
		at = 4;
	}
	if (!at || at + len != n || len >= cap) {
		snprintf(out, cap, "?");
		return;
	}
	memcpy(out, t + at, len);
	out[len] = 0;
}

/* An EXIT's or DOWN's reason: "42", "killed", "term mailbox_limit" */
static void why_text(const struct act_msg *m, char *buf, size_t cap)
{
	struct act_exit_info x;
	char num[32], a[40];

	memcpy(&x, m->data, sizeof(x));
	if (x.reason == ACT_EXIT_TERM && m->len > sizeof(x)) {
		term_atom((const unsigned char *)m->data + sizeof(x),
			  m->len - sizeof(x), a, sizeof(a));
		snprintf(buf, cap, "term %s", a);
	} else {
		snprintf(buf, cap, "%s",
			 reason_text(x.reason, num, sizeof(num)));
	}
}

/* "nothing", "EXIT 42", "DOWN noproc", "bye"...: what came, with
 * " from another" when it is not from `from`, " (another ref)" when its
 * reference is not `ref` (0 for an EXIT) */
static void sig_text(const struct act_msg *m, act_pid from, uint64_t ref,
		     char *buf, size_t cap)
{
	struct act_exit_info x;
	char why[48];

	if (!m) {
		snprintf(buf, cap, "nothing");
		return;
	}
	if ((m->tag != ACT_TAG_EXIT && m->tag != ACT_TAG_DOWN) ||
	    m->len < sizeof(x)) {
		snprintf(buf, cap, "%s",
			 m->tag == T_BYE  ? "bye" :
			 m->tag == T_DATA ? "data" :
					    "another message");
		return;
	}
	memcpy(&x, m->data, sizeof(x));
	why_text(m, why, sizeof(why));
	snprintf(buf, cap, "%s %s%s%s",
		 m->tag == ACT_TAG_EXIT ? "EXIT" : "DOWN", why,
		 act_pid_eq(x.who, from) && act_pid_eq(m->from, from) ?
			 "" :
			 " from another",
		 x.ref == ref ? "" : " (another ref)");
}

/* ---- receiving ----------------------------------------------------------- */

struct want {
	uint32_t tag; /* 0: any but the orders' and answers' */
	act_pid from;
	bool any_from;
	uint64_t ref; /* a DOWN's, when not 0 */
};

static bool is_ctl(uint32_t tag)
{
	return tag == T_CMD || tag == T_MEET || tag == T_ECHO ||
	       tag == ACT_TAG_TERM || tag == T_REPLY || tag == T_HELLO;
}

static bool is_want(const struct act_msg *m, void *ctx)
{
	const struct want *w = ctx;
	struct act_exit_info x;

	if (w->tag ? m->tag != w->tag : is_ctl(m->tag))
		return false;
	if (!w->any_from && !act_pid_eq(m->from, w->from))
		return false;
	if (!w->ref || m->tag != ACT_TAG_DOWN)
		return true;
	if (m->len < sizeof(x))
		return false;
	memcpy(&x, m->data, sizeof(x));
	return x.ref == w->ref;
}

static struct act_msg *take(uint32_t tag, act_pid from, bool any_from,
			    uint64_t ref, int64_t tmo)
{
	struct want w = {
		.tag = tag, .from = from, .any_from = any_from, .ref = ref
	};

	return act_receive_match(is_want, &w, tmo);
}

static void drop(struct act_msg *m)
{
	if (m)
		act_msg_free(m);
}

/* How many messages of tag (0: EXITs and DOWNs) are here now; taken */
static int count_now(uint32_t tag)
{
	struct act_msg *m;
	int n = 0;

	if (!tag)
		return count_now(ACT_TAG_EXIT) + count_now(ACT_TAG_DOWN);
	while ((m = take(tag, ACT_PID_NONE, true, 0, 0))) {
		act_msg_free(m);
		n++;
	}
	return n;
}

static uint32_t seq_of(const struct act_msg *m)
{
	uint32_t v = UINT32_MAX;

	if (m->len == sizeof(v))
		memcpy(&v, m->data, sizeof(v));
	return v;
}

/* n senders' `each` T_DATA, numbered from 0 each, from anyone: how many
 * came (v), from how many senders (n), how many out of place (bad) */
static void collect(uint32_t senders, uint32_t each, struct prep *r)
{
	uint64_t *who = calloc(senders, sizeof(*who));
	uint32_t *next = calloc(senders, sizeof(*next));
	uint32_t k, i;

	for (k = 0; who && next && k < senders * each; k++) {
		struct act_msg *m = take(T_DATA, ACT_PID_NONE, true, 0, WAIT);

		if (!m)
			break;
		for (i = 0; i < r->n && who[i] != m->from.id; i++)
			;
		if (i == r->n && r->n < senders)
			who[r->n++] = m->from.id;
		if (i < senders)
			r->bad += seq_of(m) != next[i]++;
		else
			r->bad++;
		act_msg_free(m);
	}
	for (i = 0; next && i < senders; i++)
		r->bad += next[i] != each;
	r->v = k;
	free(who);
	free(next);
}

/* The T_DATA from `from` in order up to its message of tag `end`, then
 * whatever more came from it: count (v), out of place and after (bad),
 * and the end (txt) */
static void drain(act_pid from, uint32_t end, uint64_t ref, struct prep *r)
{
	struct act_msg *m;
	uint32_t next = 0;

	for (;;) {
		m = take(0, from, false, 0, WAIT);
		if (!m || m->tag == end)
			break;
		r->bad += m->tag != T_DATA || seq_of(m) != next;
		next++;
		act_msg_free(m);
	}
	r->v = next;
	sig_text(m, from, ref, r->txt, sizeof(r->txt));
	if (!m)
		return;
	act_msg_free(m);
	while ((m = take(0, from, false, 0, 0))) {
		r->bad++;
		act_msg_free(m);
	}
}

/* n from `from`, of tags T_SEL + i % ntags, taken the last tag's first:
 * each tag's in the order sent (v taken, bad out of place) */
static void select_tags(act_pid from, uint32_t n, uint32_t ntags,
			struct prep *r)
{
	uint32_t t, j;

	for (t = ntags; t-- > 0;)
		for (j = t; j < n; j += ntags) {
			struct act_msg *m =
				take(T_SEL + t, from, false, 0, WAIT);

			if (!m)
				return;
			r->v++;
			r->bad += seq_of(m) != j;
			act_msg_free(m);
		}
}

/* test_backpressure's cross flood, to another node: n each way, sent in
 * bursts, read as they come; 0 or -EPROTO (out of order), -ETIMEDOUT */
static int cross(act_pid to, uint32_t n, uint32_t burst, uint32_t *got)
{
	uint32_t sent = 0, k;
	int rc = 0;

	*got = 0;
	while (!rc && (sent < n || *got < n)) {
		for (k = 0; k < burst && sent < n && !rc; k++, sent++)
			rc = act_send(to, T_DATA, &sent, sizeof(sent));
		for (k = 0; k < 300 && *got < n && !rc; k++) {
			struct act_msg *m =
				take(T_DATA, to, false, 0, sent < n ? 0 : WAIT);

			if (!m) {
				rc = sent < n ? 0 : -ETIMEDOUT;
				break;
			}
			rc = seq_of(m) == (*got)++ ? 0 : -EPROTO;
			act_msg_free(m);
		}
	}
	return rc;
}

/* ---- the puppet ---------------------------------------------------------- */

static void say_bye(void *arg)
{
	act_pid to = *(act_pid *)arg;

	free(arg);
	act_send(to, T_BYE, NULL, 0);
}

static int on_exit_bye(act_pid to)
{
	act_pid *a = malloc(sizeof(*a));

	if (!a)
		return -ENOMEM;
	*a = to;
	return act_on_exit(say_bye, a);
}

static void pup_msgs(struct pup *s, const struct pcmd *c, act_pid from,
		     struct prep *r)
{
	struct act_msg *m;
	uint32_t i;

	switch (c->op) {
	case P_TAKE:
		m = take(c->n, s->peer, c->n != 0, c->ref, c->arg);
		sig_text(m, s->peer, m && m->tag == ACT_TAG_EXIT ? 0 : c->ref,
			 r->txt, sizeof(r->txt));
		drop(m);
		break;
	case P_COUNT:
		r->v = count_now((uint32_t)c->arg);
		break;
	case P_SEND:
		for (i = 0; i < c->n && !r->v; i++)
			r->v = act_send(s->peer,
					c->arg ? T_SEL + i % (uint32_t)c->arg :
						 T_DATA,
					&i, sizeof(i));
		break;
	case P_COLLECT:
		collect(c->n, (uint32_t)c->arg, r);
		break;
	case P_SELECT:
		select_tags(s->peer, c->n, (uint32_t)c->arg, r);
		break;
	case P_DRAIN:
		drain(s->peer, c->n, c->ref, r);
		break;
	case P_FLOOD:
		for (i = 0; i < c->n; i++) {
			act_send(s->peer, T_DATA, &i, sizeof(i));
			act_send(from, T_DATA, &i, sizeof(i));
		}
		act_exit((intptr_t)c->arg);
	case P_ECHO_PEER:
		act_send(s->peer, T_ECHO, "hello", 5);
		m = take(T_ECHO, s->peer, false, 0, WAIT);
		r->v = m && m->len == 5 && !memcmp(m->data, "hello", 5);
		drop(m);
		break;
	case P_CROSS:
		r->v = cross(s->peer, c->n, (uint32_t)c->arg, &r->n);
		break;
	}
}

static void pup_do(struct pup *s, const struct pcmd *c, act_pid from,
		   struct prep *r)
{
	switch (c->op) {
	case P_TRAP:
		r->v = act_trap_exit(c->arg != 0);
		break;
	case P_LINK:
		r->v = act_link(s->peer);
		break;
	case P_UNLINK:
		r->v = act_unlink(s->peer);
		break;
	case P_MONITOR:
		r->ref = act_monitor(s->peer);
		break;
	case P_DEMONITOR:
		r->v = act_demonitor(c->ref);
		break;
	case P_KILL:
		r->v = act_kill(s->peer, (intptr_t)c->arg);
		break;
	case P_EXIT:
		act_exit((intptr_t)c->arg);
	case P_MEET:
		r->v = act_send(s->peer, T_MEET, NULL, 0);
		break;
	case P_SETPEER:
		s->peer.id = c->ref;
		break;
	case P_ON_EXIT:
		r->v = on_exit_bye(s->peer);
		break;
	case P_REGISTER:
		r->v = act_register(REG, act_self());
		break;
	case P_PING:
		/* a kill that came before the ping ends it here: a process
		 * that was running when it came ends only at a resume
		 * point, and would take the ping first */
		act_yield();
		break;
	default:
		pup_msgs(s, c, from, r);
	}
}

static bool is_order(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == T_CMD || m->tag == T_MEET || m->tag == T_ECHO ||
	       m->tag == ACT_TAG_TERM;
}

/* Carries out orders and answers each; echoes T_ECHO and terms to their
 * senders. Everything else stays in its mailbox for the orders. */
static void puppet(void *arg)
{
	struct pup s = *(struct pup *)arg;

	free(arg);
	act_trap_exit(s.trap);
	s.peer = s.boss;
	act_send(s.boss, T_HELLO, &s.id, sizeof(s.id));
	for (;;) {
		struct act_msg *m =
			act_receive_match(is_order, NULL, ACT_FOREVER);
		act_pid from = m->from;
		struct pcmd c;
		struct prep r;

		if (m->tag == T_MEET)
			s.peer = from;
		else if (m->tag == T_ECHO)
			act_send(from, T_ECHO, m->data, m->len);
		else if (m->tag == ACT_TAG_TERM)
			act_send_term(from, m->data, m->len);
		if (m->tag != T_CMD || m->len != sizeof(c)) {
			act_msg_free(m);
			continue;
		}
		memcpy(&c, m->data, sizeof(c));
		act_msg_free(m);
		memset(&r, 0, sizeof(r));
		pup_do(&s, &c, from, &r);
		act_send(from, T_REPLY, &r, sizeof(r));
	}
}

static act_pid spawn_puppet(act_pid boss, uint32_t id, bool trap,
			    uint32_t limit)
{
	struct act_spawn_opts o = { .mailbox_limit = limit };
	struct pup *a = calloc(1, sizeof(*a));

	if (!a)
		return ACT_PID_NONE;
	a->boss = boss;
	a->id = id;
	a->trap = trap;
	return act_spawn_opt(puppet, a, &o);
}

/* Until p is gone, its exit's signals all given out; false at the
 * failure limit */
static bool wait_gone(act_pid p)
{
	struct act_process_info in;
	int i;

	for (i = 0; i < 20000 && act_process_info(p, &in) == 0; i++)
		act_sleep(1000000);
	return act_process_info(p, &in) != 0;
}

/* ---- serve: the other node ----------------------------------------------- */

/* the server's puppets, by number; freed once act_main has returned
 * (the server is alive at the stop, and discarded) */
static struct server {
	act_pid *pup;
	uint32_t n, cap;
} sv;

static void serve_spawn(act_pid boss, const struct spawn_req *q)
{
	uint32_t k;

	for (k = 0; k < q->count; k++) {
		if (sv.n == sv.cap) {
			uint32_t cap = sv.cap ? 2 * sv.cap : 256;
			act_pid *n = realloc(sv.pup, cap * sizeof(*n));

			if (!n)
				return;
			sv.pup = n;
			sv.cap = cap;
		}
		sv.pup[sv.n] = spawn_puppet(boss, sv.n, q->trap, q->limit);
		sv.n++;
	}
}

/* A serve node's server, "pair"; on T_STOP it tells the main process
 * (arg), and goes on: alive when the runtime stops, so that the stop is
 * all that its watchers see */
static void server(void *arg)
{
	act_pid main_pid = *(act_pid *)arg;

	act_register("pair", act_self());
	for (;;) {
		struct act_msg *m = act_receive(ACT_FOREVER);
		struct spawn_req q;
		uint32_t id;

		if (m->tag == T_SPAWN && m->len == sizeof(q)) {
			memcpy(&q, m->data, sizeof(q));
			serve_spawn(m->from, &q);
		} else if (m->tag == T_GONE && m->len == sizeof(id)) {
			memcpy(&id, m->data, sizeof(id));
			if (id < sv.n && wait_gone(sv.pup[id]))
				act_send(m->from, T_GONE, &id, sizeof(id));
		} else if (m->tag == T_PING) {
			act_send(m->from, T_PING, m->data, m->len);
		} else if (m->tag == T_STOP) {
			act_send(main_pid, T_STOP, NULL, 0);
		}
		act_msg_free(m);
	}
}

/* A serve node's main process: returns, and the runtime stops
 * (act_main returns), when the server says so */
static void serve(void)
{
	act_pid me = act_self(), sv = act_spawn(server, &me);
	struct act_msg *m = take(T_STOP, sv, false, 0, ACT_FOREVER);

	act_msg_free(m);
}

/* ---- check: the cases' tools --------------------------------------------- */

static int n_ok, n_bad;
static act_pid srv;	 /* the peer's "pair" */
static uint64_t srv_mon; /* the checker's monitor of it */

static void check(const char *what, const char *want, const char *saw)
{
	if (!strcmp(want, saw)) {
		printf("peer: ok %s\n", what);
		n_ok++;
	} else {
		printf("peer: FAIL %s: expected %s, saw %s\n", what, want, saw);
		n_bad++;
	}
	fflush(stdout);
}

static void checkf(const char *what, const char *want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void checkf(const char *what, const char *want, const char *fmt, ...)
{
	char saw[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(saw, sizeof(saw), fmt, ap);
	va_end(ap);
	check(what, want, saw);
}

/* One end of a case: a puppet here or there, monitored by the checker */
struct end {
	act_pid pid;
	uint32_t id; /* there: the server's number for it */
	bool there;
	uint64_t mon;
};

/* p's next answer into r: false (txt "no answer") when none came */
static bool take_reply(act_pid p, struct prep *r, int64_t tmo)
{
	struct act_msg *m = take(T_REPLY, p, false, 0, tmo);

	memset(r, 0, sizeof(*r));
	snprintf(r->txt, sizeof(r->txt), "no answer");
	if (!m)
		return false;
	if (m->len == sizeof(*r))
		memcpy(r, m->data, sizeof(*r));
	act_msg_free(m);
	return true;
}

/* An order, and its answer (false, and txt "no answer", when none) */
static bool pcall(act_pid p, int op, uint32_t n, int64_t arg, uint64_t ref,
		  struct prep *r)
{
	struct pcmd c = { .op = op, .n = n, .arg = arg, .ref = ref };

	if (act_send(p, T_CMD, &c, sizeof(c)) < 0) {
		memset(r, 0, sizeof(*r));
		snprintf(r->txt, sizeof(r->txt), "no answer");
		return false;
	}
	return take_reply(p, r, WAIT + 10 * SEC);
}

static void pcast(act_pid p, int op, uint32_t n, int64_t arg)
{
	struct pcmd c = { .op = op, .n = n, .arg = arg };

	act_send(p, T_CMD, &c, sizeof(c));
}

/* An order's v, or INT64_MIN when no answer came */
static int64_t pv(const struct end *e, int op, int64_t arg)
{
	struct prep r;

	return pcall(e->pid, op, 0, arg, 0, &r) ? r.v : INT64_MIN;
}

static uint64_t pmonitor(const struct end *e)
{
	struct prep r;

	pcall(e->pid, P_MONITOR, 0, 0, 0, &r);
	return r.ref;
}

/* What e takes next of tag (0: anything from its peer), as text */
static const char *ptake(const struct end *e, uint32_t tag, uint64_t ref,
			 int64_t tmo, char *buf)
{
	struct prep r;

	pcall(e->pid, P_TAKE, tag, tmo, ref, &r);
	memcpy(buf, r.txt, sizeof(r.txt));
	return buf;
}

static struct end here(bool trap, uint32_t limit)
{
	struct end e = { .id = UINT32_MAX };

	e.pid = spawn_puppet(act_self(), UINT32_MAX, trap, limit);
	drop(take(T_HELLO, e.pid, false, 0, WAIT));
	e.mon = act_monitor(e.pid);
	return e;
}

/* n puppets there (without the checker's monitors): how many came */
static uint32_t there_n(struct end *e, uint32_t n, bool trap, uint32_t limit)
{
	struct spawn_req q = { n, trap, limit };
	uint32_t k;

	act_send(srv, T_SPAWN, &q, sizeof(q));
	for (k = 0; k < n; k++) {
		struct act_msg *m = take(T_HELLO, ACT_PID_NONE, true, 0, WAIT);

		if (!m)
			break;
		memset(&e[k], 0, sizeof(e[k]));
		e[k].pid = m->from;
		e[k].there = true;
		memcpy(&e[k].id, m->data, sizeof(e[k].id));
		act_msg_free(m);
	}
	return k;
}

static struct end there(bool trap, uint32_t limit)
{
	struct end e = { .there = true };

	if (there_n(&e, 1, trap, limit) == 1)
		e.mon = act_monitor(e.pid);
	return e;
}

/* x (here) acts on p (there); with meet, p acts on x too */
static void aim(const struct end *x, const struct end *p, bool meet)
{
	struct prep r;

	pcall(x->pid, P_SETPEER, 0, 0, p->pid.id, &r);
	if (meet)
		pcall(x->pid, P_MEET, 0, 0, 0, &r);
}

/* The barrier: e's exit's signals are on their way before what the
 * checker sends from now on (a process there: the server's answer
 * comes after them) */
static bool gone(const struct end *e)
{
	struct act_msg *m;

	if (!e->there)
		return wait_gone(e->pid);
	act_send(srv, T_GONE, &e->id, sizeof(e->id));
	m = take(T_GONE, srv, false, 0, WAIT);
	drop(m);
	return m != NULL;
}

/* A round trip to the server there: what the peer sent before its
 * answer has been delivered here */
static bool sync_there(void)
{
	struct act_msg *m;

	act_send(srv, T_PING, "sync", 4);
	m = take(T_PING, srv, false, 0, WAIT);
	drop(m);
	return m != NULL;
}

struct fate_want {
	act_pid pid;
	uint64_t mon;
};

static bool is_reply_or_down(const struct act_msg *m, void *ctx)
{
	const struct fate_want *f = ctx;
	struct act_exit_info x;

	if (m->tag == T_REPLY)
		return act_pid_eq(m->from, f->pid);
	if (m->tag != ACT_TAG_DOWN || m->len < sizeof(x))
		return false;
	memcpy(&x, m->data, sizeof(x));
	return x.ref == f->mon;
}

/* "alive" when e answers a ping, "dead R" when the checker's monitor of
 * it fires first */
static const char *fate(struct end *e, char *buf, size_t cap)
{
	struct fate_want f = { e->pid, e->mon };
	struct act_msg *m;
	char why[48];

	pcast(e->pid, P_PING, 0, 0);
	m = act_receive_match(is_reply_or_down, &f, WAIT);
	if (!m) {
		snprintf(buf, cap, "no answer");
	} else if (m->tag == T_REPLY) {
		snprintf(buf, cap, "alive");
	} else {
		why_text(m, why, sizeof(why));
		snprintf(buf, cap, "dead %s", why);
		e->mon = 0;
	}
	drop(m);
	return buf;
}

/* The case is over: its puppets go (a DOWN left of them is taken too) */
static void end_close(struct end *e)
{
	if (e->mon)
		act_demonitor(e->mon);
	e->mon = 0;
	act_kill(e->pid, ACT_EXIT_KILL);
}

static void close2(struct end *a, struct end *b)
{
	end_close(a);
	end_close(b);
}

static const char *side(bool there)
{
	return there ? "there" : "here";
}

/* ---- messages ------------------------------------------------------------ */

/* test_mailbox's FIFO and test_backpressure's flood: n processes there
 * send `each` to the checker at once; all come, each's in order */
static void many_to_here(uint32_t n, uint32_t each, const char *what)
{
	struct end *p = calloc(n, sizeof(*p));
	struct prep r = { 0 };
	uint32_t k, got, sent = 0;
	char want[96];

	got = p ? there_n(p, n, false, 0) : 0;
	for (k = 0; k < got; k++)
		pcast(p[k].pid, P_SEND, each, 0);
	collect(n, each, &r);
	for (k = 0; k < got; k++) {
		struct prep a;

		sent += take_reply(p[k].pid, &a, WAIT) && !a.v;
		act_kill(p[k].pid, ACT_EXIT_KILL);
	}
	snprintf(want, sizeof(want), "%u sent %u, %u came from %u, 0 bad", n,
		 n * each, n * each, n);
	checkf(what, want, "%u sent %u, %lld came from %u, %u bad", sent,
	       sent * each, (long long)r.v, r.n, r.bad);
	free(p);
}

/* ... and n processes here send `each` to one there */
static void many_to_there(uint32_t n, uint32_t each, const char *what)
{
	struct end c = there(false, 0), *x = calloc(n, sizeof(*x));
	struct prep r;
	uint32_t k, sent = 0;
	char want[96];

	/* the collector first: a process that does not read would hold up
	 * the connection's reader there (backpressure) */
	pcast(c.pid, P_COLLECT, n, each);
	for (k = 0; x && k < n; k++) {
		x[k] = here(false, 0);
		aim(&x[k], &c, false);
	}
	for (k = 0; x && k < n; k++)
		pcast(x[k].pid, P_SEND, each, 0);
	for (k = 0; x && k < n; k++)
		sent += take_reply(x[k].pid, &r, WAIT) && !r.v;
	take_reply(c.pid, &r, 6 * WAIT);
	snprintf(want, sizeof(want), "%u sent %u, %u came from %u, 0 bad", n,
		 n * each, n * each, n);
	checkf(what, want, "%u sent %u, %lld came from %u, %u bad", sent,
	       sent * each, (long long)r.v, r.n, r.bad);
	for (k = 0; x && k < n; k++)
		end_close(&x[k]);
	end_close(&c);
	free(x);
}

/* test_mailbox's sizes, through another node: each there and back the
 * same, and one over ACT_MSG_MAX refused at the send. (16 MiB at most:
 * dist-node.escript sends erl 64 MiB, a few seconds here.) */
static void sizes(void)
{
	static const size_t len[] = { 0, 1, 13, 4096, 65536, 1 << 20, 16 << 20 };
	unsigned char *b = malloc(ACT_MSG_MAX + 1);
	struct end p = there(false, 0);
	char what[96];
	size_t i, k;

	for (i = 0; b && i < sizeof(len) / sizeof(len[0]); i++) {
		struct act_msg *m;
		int rc;

		for (k = 0; k < len[i]; k++)
			b[k] = (unsigned char)(k * 131 + len[i]);
		rc = act_send(p.pid, T_ECHO, b, len[i]);
		m = take(T_ECHO, p.pid, false, 0, 3 * WAIT);
		snprintf(what, sizeof(what),
			 "a message of %zu bytes there and back", len[i]);
		checkf(what, "0, the same bytes", "%d, %s", rc,
		       !m				    ? "nothing back" :
		       m->len != len[i]			    ? "another length" :
		       len[i] && memcmp(m->data, b, len[i]) ? "other bytes" :
							      "the same bytes");
		drop(m);
	}
	snprintf(what, sizeof(what), "%d", -EMSGSIZE);
	checkf("a message of ACT_MSG_MAX + 1 bytes to a process there: "
	       "-EMSGSIZE at the send",
	       what, "%d", b ? act_send(p.pid, T_ECHO, b, ACT_MSG_MAX + 1) : 0);
	free(b);
	end_close(&p);
}

/* act_send_term and a term echoed with it */
static void term_there_and_back(void)
{
	static const unsigned char term[] = { 131, 104, 2,   119, 5,  'h',
					      'e', 'l', 'l', 'o', 97, 7 };
	struct end p = there(false, 0);
	struct act_msg *m;
	int rc;

	rc = act_send_term(p.pid, term, sizeof(term));
	m = take(ACT_TAG_TERM, p.pid, false, 0, WAIT);
	checkf("a term ({hello, 7}) there and back (act_send_term)",
	       "0, the same bytes", "%d, %s", rc,
	       m && m->len == sizeof(term) &&
			       !memcmp(m->data, term, sizeof(term)) ?
		       "the same bytes" :
		       "not them");
	drop(m);
	end_close(&p);
}

/* test_mailbox's selective receive: 300 messages of 3 tags sent
 * interleaved, taken a tag at a time, the last first: each tag's in
 * the order sent. Here from there, then there from here. */
static void selective(void)
{
	struct end p = there(false, 0), x = here(false, 0);
	struct prep r = { 0 }, s;

	pcast(p.pid, P_SEND, 300, 3);
	select_tags(p.pid, 300, 3, &r);
	take_reply(p.pid, &s, WAIT);
	checkf("selective receive here, by tag, of 3 tags sent interleaved "
	       "from there: each tag's in the order sent",
	       "0 sent, 300 taken, 0 out of order",
	       "%lld sent, %lld taken, %u out of order", (long long)s.v,
	       (long long)r.v, r.bad);
	aim(&x, &p, true);
	pcast(p.pid, P_SELECT, 300, 3); /* it reads as they come */
	pcall(x.pid, P_SEND, 300, 3, 0, &s);
	take_reply(p.pid, &r, WAIT + 10 * SEC);
	checkf("selective receive there, by tag, of 3 tags sent interleaved "
	       "from here: each tag's in the order sent",
	       "0 sent, 300 taken, 0 out of order",
	       "%lld sent, %lld taken, %u out of order", (long long)s.v,
	       (long long)r.v, r.bad);
	close2(&p, &x);
}

/* msg->from: processes there are distinct pids of another node (bit 63),
 * each answered at its from; a process here is answered there at its */
static void senders(void)
{
	struct end p[3], x = here(false, 0);
	uint32_t k, n = there_n(p, 3, false, 0), good = 0;

	for (k = 0; k < n; k++) {
		struct act_msg *m;

		act_send(p[k].pid, T_ECHO, &p[k].id, sizeof(p[k].id));
		m = take(T_ECHO, p[k].pid, false, 0, WAIT);
		good += m && m->len == sizeof(k) &&
			!memcmp(m->data, &p[k].id, sizeof(k)) &&
			p[k].pid.id >> 63 && !act_pid_eq(p[k].pid, srv) &&
			!act_pid_eq(p[k].pid, p[(k + 1) % n].pid);
		drop(m);
	}
	checkf("msg->from: 3 processes there, 3 distinct pids of another "
	       "node (bit 63), each answered at its from",
	       "3 of 3", "%u of %u", good, n);
	aim(&x, &p[0], false);
	checkf("msg->from there: a process here answered at its pid", "1",
	       "%lld", (long long)pv(&x, P_ECHO_PEER, 0));
	for (k = 0; k < n; k++)
		act_kill(p[k].pid, ACT_EXIT_KILL);
	end_close(&x);
}

/* Sends to a process there that is gone: 0, dropped (not taken by
 * another), and the sender goes on */
static void to_the_dead(void)
{
	static const unsigned char term[] = { 131, 97, 7 };
	struct end p = there(false, 0), q;
	int rc1, rc2, rc3;

	pcast(p.pid, P_EXIT, 0, ACT_EXIT_NORMAL);
	gone(&p);
	q = there(false, 0); /* perhaps in its slot */
	rc1 = act_send(p.pid, T_DATA, "x", 1);
	rc2 = act_send_term(p.pid, term, sizeof(term));
	rc3 = act_kill(p.pid, 5);
	checkf("act_send, act_send_term and act_kill of a process there "
	       "that is gone: 0, nothing arrives, the sender goes on",
	       "0 0 0, 0 at another, answered", "%d %d %d, %lld at another, %s",
	       rc1, rc2, rc3, (long long)pv(&q, P_COUNT, T_DATA),
	       sync_there() ? "answered" : "no answer");
	close2(&p, &q);
}

static struct act_msg *name_ping(const char *to)
{
	act_send_name(peer, to, T_ECHO, "n", 1);
	return take(T_ECHO, ACT_PID_NONE, true, 0, WAIT);
}

/* Sends by name: to no process there, to a name whose process is gone,
 * and the name's next owner gets only what came after it registered */
static void by_name(void)
{
	struct end p = there(false, 0), q;
	struct act_msg *m;
	int rc1, rc2;
	int64_t reg1, reg2;

	rc1 = act_send_name(peer, "nosuch", T_DATA, "x", 1);
	checkf("a send by name to a name no process has there: 0, the "
	       "sender goes on",
	       "0, answered", "%d, %s", rc1,
	       sync_there() ? "answered" : "no answer");
	reg1 = pv(&p, P_REGISTER, 0);
	m = name_ping(REG);
	checkf("a send by name to a process there, answered by pid", "0 it",
	       "%lld %s", (long long)reg1,
	       m && act_pid_eq(m->from, p.pid) ? "it" : "not it");
	drop(m);
	pcast(p.pid, P_EXIT, 0, ACT_EXIT_NORMAL);
	gone(&p);
	rc2 = act_send_name(peer, REG, T_DATA, "x", 1);
	q = there(false, 0);
	reg2 = pv(&q, P_REGISTER, 0);
	act_send_name(peer, REG, T_DATA, "y", 1);
	checkf("a send by name after its process there is gone: dropped; "
	       "the name's next owner gets what came after",
	       "0, 0, 1", "%d, %lld, %lld", rc2, (long long)reg2,
	       (long long)pv(&q, P_COUNT, T_DATA));
	close2(&p, &q);
}

/* test_backpressure's cross flood: a process here and one there send
 * each other 20,000 while reading what comes; both finish, in order */
static void cross_flood(void)
{
	struct end x = here(false, 0), p = there(false, 0);
	struct prep a, b;

	aim(&x, &p, true);
	pcast(x.pid, P_CROSS, 20000, 1000);
	pcast(p.pid, P_CROSS, 20000, 1000);
	take_reply(x.pid, &a, 6 * WAIT);
	take_reply(p.pid, &b, 6 * WAIT);
	checkf("a process here and one there flood each other with 20,000 "
	       "(backpressure both ways): both finish, each in order",
	       "here 0 20000, there 0 20000", "here %lld %u, there %lld %u",
	       (long long)a.v, a.n, (long long)b.v, b.n);
	close2(&x, &p);
}

/* test_links' signal_after_messages: 1,000 messages, then the sender's
 * exit; its linked receiver (trapping) gets them all, then its EXIT,
 * and its watcher all, then its DOWN; nothing after */
static void after_messages(bool from_there)
{
	struct end f = from_there ? there(false, 0) : here(false, 0);
	struct end r = from_there ? here(true, 0) : there(true, 0);
	struct prep a, b = { 0 };
	char what[160];

	aim(from_there ? &r : &f, from_there ? &f : &r, true);
	pcall(r.pid, P_LINK, 0, 0, 0, &a);
	pcast(r.pid, P_DRAIN, ACT_TAG_EXIT, 0);
	pcast(f.pid, P_FLOOD, 1000, 50);
	drain(f.pid, ACT_TAG_DOWN, f.mon, &b);
	f.mon = 0;
	take_reply(r.pid, &a, 2 * WAIT);
	snprintf(what, sizeof(what),
		 "1,000 messages from %s, then its exit: the linked "
		 "receiver %s and the watcher here get them all, in order, "
		 "then EXIT and DOWN",
		 side(from_there), side(!from_there));
	checkf(what, "1000 0 EXIT 50; 1000 0 DOWN 50", "%lld %u %s; %lld %u %s",
	       (long long)a.v, a.bad, a.txt, (long long)b.v, b.bad, b.txt);
	close2(&f, &r);
}

/* ---- links and exits ----------------------------------------------------- */

enum how { H_EXIT, H_KILL, H_MAILBOX };

struct why {
	const char *name;
	enum how how;
	intptr_t r;
};

/* the reasons a process exits with, and how (test_links' table) */
static const struct why whys[] = {
	{ "normal", H_EXIT, ACT_EXIT_NORMAL },
	{ "shutdown", H_EXIT, ACT_EXIT_SHUTDOWN },
	{ "42", H_EXIT, 42 },
	{ "-1000", H_EXIT, -1000 },
	{ "INTPTR_MAX", H_EXIT, INTPTR_MAX },
	{ "INTPTR_MIN", H_EXIT, INTPTR_MIN },
	{ "noproc", H_EXIT, ACT_EXIT_NOPROC },
	{ "killed (act_exit(KILL))", H_EXIT, ACT_EXIT_KILL },
	{ "killed (act_kill(KILL) from the checker)", H_KILL, ACT_EXIT_KILL },
	{ "43 (act_kill from the checker)", H_KILL, 43 },
	/* not mapped back: another node's mailbox_limit is a term here */
	{ "its mailbox limit", H_MAILBOX, 0 },
};
#define N_WHYS (sizeof(whys) / sizeof(whys[0]))
#define LIMIT 4 /* the mailbox limit of H_MAILBOX's process */

/* the reason a linked process that traps exits sees */
static void why_want(const struct why *w, char *buf, size_t cap)
{
	char num[32];

	if (w->how == H_MAILBOX)
		snprintf(buf, cap, "term mailbox_limit");
	else
		snprintf(buf, cap, "%s",
			 reason_text(w->r == ACT_EXIT_KILL ? ACT_EXIT_KILLED :
							     w->r,
				     num, sizeof(num)));
}

static void end_it(const struct end *d, const struct why *w)
{
	uint32_t i;

	if (w->how == H_EXIT)
		pcast(d->pid, P_EXIT, 0, w->r);
	else if (w->how == H_KILL)
		act_kill(d->pid, w->r);
	else
		for (i = 0; i < LIMIT + 2; i++) /* it never reads them */
			act_send(d->pid, T_DATA, &i, sizeof(i));
}

/* What a non-trapping process that a link kills with w sees: its death's
 * reason, as its DOWN reaches the checker. A term (mailbox_limit) is not
 * kept: here it dies ACT_EXIT_TERM, there too, which comes here as
 * exit_term (doc/distribution.md). */
static void dead_want(const struct why *w, bool there, char *buf, size_t cap)
{
	char r[64];

	why_want(w, r, sizeof(r));
	if (w->r == ACT_EXIT_NORMAL && w->how == H_EXIT)
		snprintf(buf, cap, "alive");
	else if (w->how == H_MAILBOX)
		snprintf(buf, cap, "dead term%s", there ? " exit_term" : "");
	else
		snprintf(buf, cap, "dead %s", r);
}

/*
 * test_links' exit-signal table across nodes: d exits as w says, s is
 * linked to it (the link made by d or by s), and traps exits or not.
 * Trapping: an EXIT with the reason. Not: normal leaves it alive, any
 * other reason ends it with that reason.
 */
static void link_case(const struct why *w, bool d_there, bool trap, bool by_d)
{
	uint32_t lim = w->how == H_MAILBOX ? LIMIT : 0;
	struct end d = d_there ? there(false, lim) : here(false, lim);
	struct end s = d_there ? here(trap, 0) : there(trap, 0);
	char what[200], want[96], saw[96];
	int64_t rc;

	aim(d_there ? &s : &d, d_there ? &d : &s, true);
	rc = pv(by_d ? &d : &s, P_LINK, 0);
	end_it(&d, w);
	if (trap) {
		why_want(w, want + 5, sizeof(want) - 5);
		memcpy(want, "EXIT ", 5);
		ptake(&s, ACT_TAG_EXIT, 0, WAIT, saw);
	} else {
		dead_want(w, !d_there, want, sizeof(want));
		gone(&d); /* its EXIT is in s's mailbox before the ping */
		fate(&s, saw, sizeof(saw));
	}
	snprintf(what, sizeof(what),
		 "a link made %s: the process %s exits %s; the one %s, %s, "
		 "%s %s",
		 side(by_d == d_there), side(d_there), w->name, side(!d_there),
		 trap ? "trapping" : "not trapping", trap ? "gets" : "is",
		 want);
	checkf(what, want, "%s%s", rc ? "act_link failed: " : "", saw);
	close2(&d, &s);
}

static void links(void)
{
	static const int untrapped[] = { 0, 1, 2, 7, 8, 10 };
	size_t i;

	for (i = 0; i < N_WHYS; i++) {
		link_case(&whys[i], true, true, false);
		link_case(&whys[i], false, true, false);
	}
	for (i = 0; i < sizeof(untrapped) / sizeof(untrapped[0]); i++) {
		link_case(&whys[untrapped[i]], true, false, true);
		link_case(&whys[untrapped[i]], false, false, true);
	}
}

/* test_links' kill_signal across nodes: act_kill(t, r) from a process
 * of the other node; t traps exits or not */
static void kill_case(bool t_there, bool trap, intptr_t r)
{
	struct end t = t_there ? there(trap, 0) : here(trap, 0), k = { 0 };
	char what[160], want[64], saw[96], num[32];
	const char *rt = reason_text(r, num, sizeof(num));
	int64_t rc;

	if (t_there) { /* the checker kills; t's peer is the checker */
		rc = act_kill(t.pid, r);
	} else {
		k = there(false, 0);
		aim(&t, &k, true);
		rc = pv(&k, P_KILL, r);
	}
	if (trap && r != ACT_EXIT_KILL) {
		snprintf(want, sizeof(want), "EXIT %s", rt);
		ptake(&t, ACT_TAG_EXIT, 0, WAIT, saw);
	} else {
		snprintf(want, sizeof(want), "%s",
			 r == ACT_EXIT_KILL   ? "dead killed" :
			 r == ACT_EXIT_NORMAL ? "alive" :
						"dead 43");
		fate(&t, saw, sizeof(saw));
	}
	snprintf(what, sizeof(what),
		 "act_kill(%s) of a process %s, %s, from %s: %s", rt,
		 side(t_there), trap ? "trapping" : "not trapping",
		 side(!t_there), want);
	checkf(what, want, "%s%s", rc ? "act_kill failed: " : "", saw);
	end_close(&t);
	if (!t_there)
		end_close(&k);
}

static void kills(void)
{
	int d;

	for (d = 0; d < 2; d++) {
		kill_case(d, false, ACT_EXIT_KILL);
		kill_case(d, true, ACT_EXIT_KILL);
		kill_case(d, true, 42);
		kill_case(d, true, ACT_EXIT_NORMAL);
		kill_case(d, false, ACT_EXIT_NORMAL);
		kill_case(d, false, 43);
	}
}

/* ---- unlinks ------------------------------------------------------------- */

/* The orders of an unlink case, in turn: who of x (here) and p (there)
 * links or unlinks, and who exits 44 at the end */
enum { U_END, U_XL, U_XU, U_PL, U_PU };

struct unlink_case {
	const char *what;
	int steps[5];
	bool x_exits, trap;
	const char *want;
};

static const struct unlink_case unlinks[] = {
	{ "a link made here, unlinked here; there exits 44: nothing here "
	  "(trapping)",
	  { U_XL, U_XU },
	  false,
	  true,
	  "0 0, nothing" },
	{ "a link made here, unlinked here; there exits 44: here (not "
	  "trapping) lives",
	  { U_XL, U_XU },
	  false,
	  false,
	  "0 0, alive" },
	{ "a link made there, unlinked there; here exits 44: nothing there "
	  "(trapping)",
	  { U_PL, U_PU },
	  true,
	  true,
	  "0 0, nothing" },
	{ "a link made there, unlinked there; here exits 44: there (not "
	  "trapping) lives",
	  { U_PL, U_PU },
	  true,
	  false,
	  "0 0, alive" },
	{ "a link made here, unlinked by the other end; there exits 44: "
	  "nothing here",
	  { U_XL, U_PU },
	  false,
	  true,
	  "0 0, nothing" },
	{ "a link made there, unlinked by the other end; here exits 44: "
	  "nothing there",
	  { U_PL, U_XU },
	  true,
	  true,
	  "0 0, nothing" },
	{ "linked from both ends (one link), unlinked once; there exits 44: "
	  "nothing here",
	  { U_XL, U_PL, U_XU },
	  false,
	  true,
	  "0 0 0, nothing" },
	{ "linked twice here, unlinked once; there exits 44: nothing here",
	  { U_XL, U_XL, U_XU },
	  false,
	  true,
	  "0 0 0, nothing" },
	{ "linked twice here and once there; there exits 44: one EXIT here",
	  { U_XL, U_XL, U_PL },
	  false,
	  true,
	  "0 0 0, EXIT 44, then 0" },
	{ "linked twice there and once here; here exits 44: one EXIT there",
	  { U_PL, U_PL, U_XL },
	  true,
	  true,
	  "0 0 0, EXIT 44, then 0" },
};

/* the survivor s after its partner's exit: what came to it, then (when
 * that was an EXIT) how many more came */
static void unlink_outcome(const struct unlink_case *u, struct end *s,
			   const struct end *d, char *saw, size_t cap)
{
	char sig[96];
	bool one = strstr(u->want, "EXIT") != NULL;

	gone(d);
	if (!u->trap) {
		fate(s, saw, cap);
		return;
	}
	ptake(s, ACT_TAG_EXIT, 0, one ? WAIT : 0, sig);
	if (one)
		snprintf(saw, cap, "%s, then %lld", sig,
			 (long long)pv(s, P_COUNT, 0));
	else
		snprintf(saw, cap, "%s", sig);
}

/* test_links' unlink cases across nodes */
static void unlink_case(const struct unlink_case *u)
{
	struct end x = here(!u->x_exits && u->trap, 0);
	struct end p = there(u->x_exits && u->trap, 0);
	struct end *d = u->x_exits ? &x : &p, *s = u->x_exits ? &p : &x;
	char saw[200], rcs[64] = "";
	size_t at = 0;
	int i;

	aim(&x, &p, true);
	for (i = 0; i < 5 && u->steps[i]; i++) {
		int st = u->steps[i];
		const struct end *e = st == U_XL || st == U_XU ? &x : &p;
		int64_t rc =
			pv(e, st == U_XL || st == U_PL ? P_LINK : P_UNLINK, 0);

		at += (size_t)snprintf(rcs + at, sizeof(rcs) - at, "%s%lld",
				       i ? " " : "", (long long)rc);
	}
	pcast(d->pid, P_EXIT, 0, 44);
	unlink_outcome(u, s, d, saw, sizeof(saw));
	checkf(u->what, u->want, "%s, %s", rcs, saw);
	close2(&x, &p);
}

static void unlinks_all(void)
{
	size_t i;

	for (i = 0; i < sizeof(unlinks) / sizeof(unlinks[0]); i++)
		unlink_case(&unlinks[i]);
}

/* ---- a process that is gone ---------------------------------------------- */

/* test_links' and test_monitors' dead pids across nodes: a link to a
 * process of the other node that is gone gets noproc (an EXIT when
 * trapping, else the linker's end), a monitor a DOWN noproc */
static void dead_case(bool dead_there, bool trap, bool mon)
{
	struct end d = dead_there ? there(false, 0) : here(false, 0);
	struct end s = dead_there ? here(trap, 0) : there(trap, 0);
	const char *want = mon	? "DOWN noproc" :
			   trap ? "EXIT noproc" :
				  "dead noproc";
	char what[160], saw[96];
	uint64_t ref = 0;
	int64_t rc = 0;

	aim(dead_there ? &s : &d, dead_there ? &d : &s, true);
	pcast(d.pid, P_EXIT, 0, ACT_EXIT_NORMAL);
	gone(&d);
	if (mon) {
		ref = pmonitor(&s);
		ptake(&s, ACT_TAG_DOWN, ref, WAIT, saw);
	} else {
		rc = pv(&s, P_LINK, 0);
		if (trap)
			ptake(&s, ACT_TAG_EXIT, 0, WAIT, saw);
		else if (sync_there()) /* the noproc is here, or there */
			fate(&s, saw, sizeof(saw));
	}
	snprintf(what, sizeof(what), "%s %s%s of a process %s that is gone: %s",
		 mon ? "a monitor" : "a link", side(!dead_there),
		 mon  ? "" :
		 trap ? " (trapping)" :
			" (not trapping)",
		 side(dead_there), want);
	checkf(what, want, "%s%s",
	       mon ? (ref ? "" : "no ref: ") :
	       rc  ? "act_link failed: " :
		     "",
	       saw);
	close2(&d, &s);
}

static void dead_pids(void)
{
	int d;

	for (d = 0; d < 2; d++) {
		dead_case(d, true, false);
		dead_case(d, false, false);
		dead_case(d, false, true);
	}
}

/* ---- monitors ------------------------------------------------------------ */

/* t (here or there) and w, its watcher on the other node */
static void watch_pair(bool t_there, struct end *t, struct end *w)
{
	*t = t_there ? there(false, 0) : here(false, 0);
	*w = t_there ? here(false, 0) : there(false, 0);
	aim(t_there ? w : t, t_there ? t : w, true);
}

/* test_monitors' two monitors across nodes: two refs, two DOWNs, and
 * no more once the process is gone */
static void two_monitors(bool t_there)
{
	struct end t, w;
	char what[160], a[96], b[96];
	uint64_t r1, r2;

	watch_pair(t_there, &t, &w);
	r1 = pmonitor(&w);
	r2 = pmonitor(&w);
	pcast(t.pid, P_EXIT, 0, 9);
	ptake(&w, ACT_TAG_DOWN, r1, WAIT, a);
	ptake(&w, ACT_TAG_DOWN, r2, WAIT, b);
	gone(&t);
	snprintf(what, sizeof(what),
		 "two monitors %s of a process %s: two refs, two DOWNs",
		 side(!t_there), side(t_there));
	checkf(what, "2 refs, DOWN 9, DOWN 9, 0 more",
	       "%d refs, %s, %s, %lld more", r1 && r2 && r1 != r2 ? 2 : 1, a, b,
	       (long long)pv(&w, P_COUNT, 0));
	close2(&t, &w);
}

/* test_monitors' act_demonitor before the exit, across nodes: no DOWN
 * of it, -ENOENT for a second act_demonitor; the other monitor's DOWN
 * comes */
static void demonitor_before(bool t_there)
{
	struct end t, w;
	char what[160], a[96], b[96], want[48];
	uint64_t r1, r2;
	struct prep d1, d2;

	watch_pair(t_there, &t, &w);
	r1 = pmonitor(&w);
	r2 = pmonitor(&w);
	pcall(w.pid, P_DEMONITOR, 0, 0, r1, &d1);
	pcall(w.pid, P_DEMONITOR, 0, 0, r1, &d2);
	pcast(t.pid, P_EXIT, 0, 10);
	ptake(&w, ACT_TAG_DOWN, r2, WAIT, b);
	gone(&t);
	ptake(&w, ACT_TAG_DOWN, r1, 0, a);
	snprintf(what, sizeof(what),
		 "act_demonitor %s before the process %s exits: no DOWN of "
		 "it, -ENOENT again; the other monitor's DOWN comes",
		 side(!t_there), side(t_there));
	snprintf(want, sizeof(want), "0 %d, DOWN 10, nothing", -ENOENT);
	checkf(what, want, "%lld %lld, %s, %s", (long long)d1.v,
	       (long long)d2.v, b, a);
	close2(&t, &w);
}

/* act_demonitor after the DOWN came from there: 0, and the DOWN is out
 * of the mailbox; also one whose reason is a term (mailbox_limit there,
 * which comes as ACT_EXIT_TERM with the term after the info) */
static void demonitor_after(bool term)
{
	struct end t, w;
	char what[160], a[96];
	uint64_t r1;
	struct prep d1;

	watch_pair(true, &t, &w);
	r1 = pmonitor(&w);
	pcast(t.pid, P_EXIT, 0, term ? ACT_EXIT_MAILBOX : 11);
	gone(&t); /* its DOWN is in w's mailbox */
	pcall(w.pid, P_DEMONITOR, 0, 0, r1, &d1);
	ptake(&w, ACT_TAG_DOWN, r1, 0, a);
	snprintf(what, sizeof(what),
		 "act_demonitor here once the DOWN (%s) from there came: 0, "
		 "and the DOWN is gone from the mailbox",
		 term ? "a term: mailbox_limit" : "11");
	checkf(what, "0, nothing", "%lld, %s", (long long)d1.v, a);
	close2(&t, &w);
}

/* test_exit_handlers' order at exit, across nodes: the handler's
 * message, then the EXIT (links), then the DOWN (monitors) */
static void exit_order(bool t_there)
{
	struct end t, w;
	char what[160], a[96], b[96], c[96];
	uint64_t ref;
	struct prep r;

	watch_pair(t_there, &t, &w);
	pcall(w.pid, P_TRAP, 0, 1, 0, &r);
	pcall(t.pid, P_ON_EXIT, 0, 0, 0, &r);
	pcall(w.pid, P_LINK, 0, 0, 0, &r);
	ref = pmonitor(&w);
	pcast(t.pid, P_EXIT, 0, 9);
	ptake(&w, 0, ref, WAIT, a);
	ptake(&w, 0, ref, WAIT, b);
	ptake(&w, 0, ref, WAIT, c);
	snprintf(what, sizeof(what),
		 "a process %s exits 9: the watcher %s gets its exit "
		 "handler's message, then EXIT, then DOWN",
		 side(t_there), side(!t_there));
	checkf(what, "bye, EXIT 9, DOWN 9", "%s, %s, %s", a, b, c);
	close2(&t, &w);
}

/* The EXITs and DOWNs in the checker's mailbox now, taken: "none", or
 * each's kind, reason and ref */
static const char *strays(char *buf, size_t cap)
{
	struct act_msg *m;
	size_t at = 0;

	snprintf(buf, cap, "none");
	while ((m = take(ACT_TAG_DOWN, ACT_PID_NONE, true, 0, 0)) ||
	       (m = take(ACT_TAG_EXIT, ACT_PID_NONE, true, 0, 0))) {
		struct act_exit_info x;
		char w[48];

		memcpy(&x, m->data, sizeof(x));
		why_text(m, w, sizeof(w));
		if (at < cap)
			at += (size_t)snprintf(
				buf + at, cap - at, "%s%s %s ref %llu",
				at ? ", " : "",
				m->tag == ACT_TAG_DOWN ? "DOWN" : "EXIT", w,
				(unsigned long long)x.ref);
		act_msg_free(m);
	}
	return buf;
}

/* ---- what the observers show ---------------------------------------------- */

/* act_dump's output: the line after pid's ("none" if it has no line or
 * none follows), and how many lines end with `tail` */
static int dump_of(act_pid pid, const char *tail, char *next, size_t cap)
{
	char s[ACT_PID_STRLEN], *out = NULL, *l, *e;
	size_t len = 0, n = strlen(tail), k;
	FILE *f = open_memstream(&out, &len);
	int ends = 0;

	snprintf(next, cap, "none");
	if (!f || act_dump(f) < 0) {
		if (f)
			fclose(f);
		free(out);
		return 0;
	}
	fclose(f);
	k = (size_t)act_pid_format(pid, s, sizeof(s));
	for (l = out; *l; l = e + 1) {
		e = strchr(l, '\n');
		if (!e)
			break;
		if ((size_t)(e - l) >= n && !strncmp(e - n, tail, n))
			ends++;
		if (!strncmp(l, s, k) && l[k] == ' ' && e[1] &&
		    strchr(e + 1, '\n'))
			snprintf(next, cap, "%.*s",
				 (int)(strchr(e + 1, '\n') - e - 1), e + 1);
	}
	free(out);
	return ends;
}

/* x here linked to p there and monitoring it, p monitoring x: counted by
 * act_process_info, and named in act_dump with p's node, as is the
 * connection's process here (doc/observability.md) */
static void observed(void)
{
	struct end x = here(false, 0), p = there(false, 0);
	struct act_process_info in;
	char want[256], next[256], tail[200], s[ACT_PID_STRLEN];
	int conns;

	aim(&x, &p, true);
	pv(&x, P_LINK, 0);
	pmonitor(&x);
	/* its MONITOR_P came before its answer: the monitor is made here */
	pmonitor(&p);
	memset(&in, 0, sizeof(in));
	act_process_info(x.pid, &in);
	checkf("act_process_info counts the links and monitors with "
	       "processes there (and the checker's monitor)",
	       "links 1, monitors 1, monitored by 2",
	       "links %u, monitors %u, monitored by %u", in.links, in.monitors,
	       in.monitored_by);
	act_pid_format(p.pid, s, sizeof(s));
	snprintf(want, sizeof(want),
		 "  remote: link %s@%s, monitor %s@%s, monitored-by %s, "
		 "1 connection",
		 s, peer, s, peer, peer);
	snprintf(tail, sizeof(tail), " conn=%s", peer);
	conns = dump_of(x.pid, tail, next, sizeof(next));
	checkf("act_dump: the links and monitors with processes there, "
	       "each with its node, and the connection's process named",
	       want, "%s, %d connection", next, conns);
	close2(&x, &p);
}

/* ---- the peer stops ------------------------------------------------------ */

/* The connection's process here: the one that holds the checker's
 * monitors of processes there (a remote pid stands here as its node's
 * connection process, doc/distribution.md), at least `mons` of them */
static act_pid conn_process(uint32_t mons)
{
	struct act_process_info in;
	act_pid p = ACT_PID_NONE, best = ACT_PID_NONE;
	uint32_t most = 0;

	while ((p = act_process_next(p)).id)
		if (!act_process_info(p, &in) && in.monitored_by > most) {
			most = in.monitored_by;
			best = p;
		}
	return most >= mons ? best : ACT_PID_NONE;
}

/* a pair x (here) and p (there) linked, made by one of them */
static void linked(struct end *x, struct end *p, bool trap, bool by_x)
{
	*x = here(trap, 0);
	*p = there(false, 0);
	aim(x, p, true);
	pv(by_x ? x : p, P_LINK, 0);
}

/* the checker's DOWNs of the monitors in ref[]: how many are
 * noconnection from their pid */
static int downs_noconnection(const act_pid *pid, const uint64_t *ref, int n)
{
	char t[96];
	int i, good = 0;

	for (i = 0; i < n; i++) {
		struct act_msg *m =
			take(ACT_TAG_DOWN, pid[i], false, ref[i], WAIT);

		sig_text(m, pid[i], ref[i], t, sizeof(t));
		good += !strcmp(t, "DOWN noconnection");
		drop(m);
	}
	return good;
}

/*
 * The peer's clean stop (its act_main returns): every link and monitor
 * here with a process there gets noconnection, once: a trapping process
 * an EXIT, one that does not trap its end, a watcher a DOWN.
 */
static void peer_stops(struct end e[8])
{
	act_pid pid[6], conn;
	uint64_t ref[6];
	char a[96], b[96], c[96], d[96];
	int i, downs;
	bool gone_ok;

	linked(&e[0], &e[1], true, true);
	linked(&e[2], &e[3], true, false);
	linked(&e[4], &e[5], false, true);
	linked(&e[6], &e[7], false, false);
	pmonitor(&e[7]); /* and a monitor there of a process here */
	for (i = 0; i < 4; i++) {
		pid[i] = e[2 * i + 1].pid;
		ref[i] = e[2 * i + 1].mon;
		e[2 * i + 1].mon = 0;
	}
	pid[4] = e[1].pid;
	ref[4] = act_monitor(e[1].pid); /* a second monitor of one */
	pid[5] = srv;
	ref[5] = srv_mon;
	conn = conn_process(6);
	act_send(srv, T_STOP, NULL, 0);
	/* gone, it has given every relation its noconnection */
	gone_ok = conn.id && wait_gone(conn);
	ptake(&e[0], ACT_TAG_EXIT, 0, WAIT, a);
	ptake(&e[2], ACT_TAG_EXIT, 0, WAIT, b);
	fate(&e[4], c, sizeof(c));
	fate(&e[6], d, sizeof(d));
	downs = downs_noconnection(pid, ref, 6);
	checkf("the peer stops (its act_main returns): a link made here "
	       "and one made there, trapping here: EXIT noconnection",
	       "EXIT noconnection, EXIT noconnection", "%s, %s", a, b);
	checkf("... a link made here and one made there, not trapping here: "
	       "dead noconnection",
	       "dead noconnection, dead noconnection", "%s, %s", c, d);
	checkf("... 6 monitors here of 5 processes there, two of one: "
	       "DOWN noconnection each",
	       "6", "%d", downs);
	checkf("... each once: nothing more once the connection's process "
	       "here is gone",
	       "found, gone, 0 0 0", "%s, %s, %lld %lld %d",
	       conn.id ? "found" : "not found", gone_ok ? "gone" : "not gone",
	       (long long)pv(&e[0], P_COUNT, 0),
	       (long long)pv(&e[2], P_COUNT, 0), count_now(0));
}

/* With the peer down: a send is dropped, a link and a monitor get
 * noconnection (the connection tried, and failed) */
static void peer_down(const struct end *p)
{
	struct end x = here(true, 0);
	struct act_msg *m;
	uint64_t ref;
	char a[96], b[96];

	checkf("the peer down: a send to a process there: 0, the sender "
	       "goes on",
	       "0", "%d", act_send(p->pid, T_DATA, "x", 1));
	aim(&x, p, false);
	pv(&x, P_LINK, 0);
	ptake(&x, ACT_TAG_EXIT, 0, WAIT, a);
	ref = act_monitor(p->pid);
	m = take(ACT_TAG_DOWN, p->pid, false, ref, WAIT);
	sig_text(m, p->pid, ref, b, sizeof(b));
	drop(m);
	checkf("the peer down: a link (trapping) and a monitor here of a "
	       "process there: EXIT and DOWN noconnection",
	       "EXIT noconnection, DOWN noconnection", "%s, %s", a, b);
	end_close(&x);
}

/* The peer's server, by name; ACT_PID_NONE when it does not answer */
static act_pid find_server(void)
{
	struct act_msg *m;
	act_pid p;

	act_send_name(peer, "pair", T_PING, "hi", 2);
	m = take(T_PING, ACT_PID_NONE, true, 0, WAIT);
	p = m ? m->from : ACT_PID_NONE;
	drop(m);
	return p;
}

/* The peer's node restarted (a new OS process of the same name): the
 * pids of its earlier run name processes that are gone */
static void peer_restarted(act_pid old)
{
	struct end x = here(true, 0);
	struct act_msg *m;
	uint64_t ref;
	int rc;
	char a[96], b[96];

	rc = act_send(old, T_PING, "old", 3);
	srv = find_server();
	checkf("the peer restarted: a send to a process of its earlier run "
	       "is dropped, not given to the new run's",
	       "0, answered by name, 0 more", "%d, %s, %d more", rc,
	       srv.id ? "answered by name" : "no answer", count_now(T_PING));
	ref = act_monitor(old);
	m = take(ACT_TAG_DOWN, old, false, ref, WAIT);
	sig_text(m, old, ref, a, sizeof(a));
	drop(m);
	check("the peer restarted: a monitor here of a process of its "
	      "earlier run: DOWN noproc",
	      "DOWN noproc", a);
	aim(&x, &(struct end){ .pid = old }, false);
	pv(&x, P_LINK, 0);
	ptake(&x, ACT_TAG_EXIT, 0, WAIT, b);
	check("the peer restarted: a link here (trapping) to a process of "
	      "its earlier run: EXIT noproc",
	      "EXIT noproc", b);
	end_close(&x);
	ref = act_monitor(srv);
	act_send(srv, T_STOP, NULL, 0);
	m = take(ACT_TAG_DOWN, srv, false, ref, WAIT);
	sig_text(m, srv, ref, a, sizeof(a));
	drop(m);
	checkf("the restarted peer stops: DOWN noconnection of its server",
	       "DOWN noconnection", "%s", a);
}

/* Until the peer can be reached again (the test starts it anew) */
static bool reconnect(void)
{
	int i;

	for (i = 0; i < 600; i++) {
		if (act_dist_connect(peer) == 0)
			return true;
		act_sleep(100000000);
	}
	return false;
}

/* ---- the run ------------------------------------------------------------- */

static void messages(void)
{
	many_to_here(8, 2000,
		     "8 processes there send 2,000 each at once to "
		     "one here: all come, each's in the order sent");
	many_to_there(8, 2000,
		      "8 processes here send 2,000 each at once to "
		      "one there: all come, each's in the order sent");
	many_to_here(200, 10,
		     "fan-in: 200 processes there, 10 messages "
		     "each, to one here");
	many_to_there(200, 10,
		      "fan-in: 200 processes here, 10 messages "
		      "each, to one there");
	sizes();
	term_there_and_back();
	selective();
	senders();
	to_the_dead();
	by_name();
	cross_flood();
	after_messages(true);
	after_messages(false);
}

static void lifecycle(void)
{
	int d;

	links();
	kills();
	unlinks_all();
	dead_pids();
	for (d = 0; d < 2; d++) {
		two_monitors(d);
		demonitor_before(d);
		exit_order(d);
	}
	demonitor_after(false);
	demonitor_after(true);
	observed();
}

static void check_all(void)
{
	struct end e[8];
	struct act_msg *m;
	char t[256];
	act_pid old;
	int i;

	srv = find_server();
	checkf("a send by name there, answered by pid", "answered", "%s",
	       srv.id ? "answered" : "no answer");
	if (!srv.id)
		return;
	srv_mon = act_monitor(srv);
	messages();
	lifecycle();
	m = take(ACT_TAG_DOWN, srv, false, srv_mon, 0);
	sig_text(m, srv, srv_mon, t, sizeof(t));
	drop(m);
	check("the connection stayed up through every case", "nothing", t);
	check("no EXIT or DOWN left here after the cases (each monitor's "
	      "DOWN taken, or removed by act_demonitor)",
	      "none", strays(t, sizeof(t)));
	old = srv;
	peer_stops(e);
	peer_down(&e[1]);
	for (i = 0; i < 8; i += 2) /* those there went with their node */
		end_close(&e[i]);
	printf("peer: restart %s\n", peer);
	fflush(stdout);
	if (reconnect())
		peer_restarted(old);
	else
		check("the peer restarted: connected again", "0", "no");
}

static void start(void *arg)
{
	int rc, i;

	(void)arg;
	if (peer) {
		/* a reader's wait for a batch is at most 1 ms: refused
		 * before anything is opened */
		struct act_dist_opts bad = opts;

		bad.linger_us = 1001;
		rc = act_dist_start(name, cookie, &bad);
		checkf("act_dist_start with linger_us 1001", "Invalid argument",
		       "%s", rc < 0 ? strerror(-rc) : "started");
	}
	for (i = 0; i < 100; i++) { /* epmd may not have seen the last
				    * run's registration go yet */
		rc = act_dist_start(name, cookie, &opts);
		if (rc != -EADDRINUSE)
			break;
		act_sleep(100000000);
	}
	if (rc < 0) {
		printf("start: %s\n", strerror(-rc));
		fflush(stdout);
		act_exit(1);
	}
	printf("ready %s\n", name);
	fflush(stdout);
	if (!peer) {
		serve();
		return;
	}
	rc = act_dist_connect(peer);
	if (rc < 0)
		printf("peer: FAIL act_dist_connect: expected 0, saw %s\n",
		       strerror(-rc));
	else
		check_all();
	printf("peer: done %d %d\n", n_ok, n_bad + (rc < 0));
	fflush(stdout);
}

/* descriptors open in this process now */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* less opendir's own */
}

int main(int argc, char **argv)
{
	bool serving = argc == 6 && !strcmp(argv[1], "serve");
	int rc, fds;

	if (!serving && !(argc == 7 && !strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: dist_pair serve NAME COOKIE EPMD_PORT "
				"TICK_MS\n"
				"       dist_pair check NAME COOKIE EPMD_PORT "
				"TICK_MS PEER\n");
		return 2;
	}
	name = argv[2];
	cookie = argv[3];
	opts.epmd_port = (uint16_t)atoi(argv[4]);
	opts.ticktime_ms = (uint32_t)atoi(argv[5]);
	peer = serving ? NULL : argv[6];
	/* the server reads each frame at once, the checker waits for
	 * batches where they pay (the default): both readers' ways are
	 * under every case */
	if (serving)
		opts.linger_us = -1;
	fds = count_fds();
	rc = act_main(NULL, start, NULL);
	free(sv.pup);
	if (serving) {
		/* I9: the stop closes every socket of the node (listen,
		 * epmd, connections) */
		printf("stopped %d, descriptors %d before, %d after\n", rc, fds,
		       count_fds());
		fflush(stdout);
	}
	return rc < 0 ? 1 : rc;
}
