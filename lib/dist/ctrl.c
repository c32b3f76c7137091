/* SPDX-License-Identifier: MIT */
/*
 * ctrl.c - control messages read from and written to a connection's
 * frames (ctrl.h).
 */
#include <errno.h>
#include <string.h>

#include "ctrl.h"
#include "term.h"

/* ---- reading ------------------------------------------------------------ */

/* The fields of each operation after its number: what a tuple of it
 * holds, in order. */
enum field {
	F_PID_FROM,
	F_PID_TO,
	F_PROC_TO,
	F_PROC_FROM,
	F_UNUSED,
	F_NAME,
	F_REASON,
	F_REF,
	F_ID,
	F_END
};

struct shape {
	enum act__ctrl_op op;
	bool msg; /* a message term follows */
	enum field f[5];
};

static const struct shape shapes[] = {
	{ ACT__CTRL_LINK, false, { F_PID_FROM, F_PID_TO, F_END } },
	{ ACT__CTRL_SEND, true, { F_UNUSED, F_PID_TO, F_END } },
	{ ACT__CTRL_EXIT, false, { F_PID_FROM, F_PID_TO, F_REASON, F_END } },
	{ ACT__CTRL_REG_SEND, true, { F_PID_FROM, F_UNUSED, F_NAME, F_END } },
	{ ACT__CTRL_EXIT2, false, { F_PID_FROM, F_PID_TO, F_REASON, F_END } },
	{ ACT__CTRL_MONITOR_P, false, { F_PID_FROM, F_PROC_TO, F_REF, F_END } },
	{ ACT__CTRL_DEMONITOR_P,
	  false,
	  { F_PID_FROM, F_PROC_TO, F_REF, F_END } },
	{ ACT__CTRL_MONITOR_P_EXIT,
	  false,
	  { F_PROC_FROM, F_PID_TO, F_REF, F_REASON, F_END } },
	{ ACT__CTRL_SEND_SENDER, true, { F_PID_FROM, F_PID_TO, F_END } },
	{ ACT__CTRL_UNLINK_ID, false, { F_ID, F_PID_FROM, F_PID_TO, F_END } },
	{ ACT__CTRL_UNLINK_ID_ACK,
	  false,
	  { F_ID, F_PID_FROM, F_PID_TO, F_END } },
};

static const struct shape *shape_of(long op)
{
	size_t i;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if ((long)shapes[i].op == op)
			return &shapes[i];
	return NULL;
}

/* The fields' count of s. */
static int arity_of(const struct shape *s)
{
	int n = 0;

	while (n < 5 && s->f[n] != F_END)
		n++;
	return n + 1;
}

/* A pid, or (proc) a registered name, at p[*i], into *pid or name. */
static int proc_decode(const char *p, int *i, bool proc, struct act__peers *t,
		       const struct act__codec_self *me, act_pid *pid,
		       char *name, const char **why)
{
	int type, size, rc;

	if (ei_get_type(p, i, &type, &size)) {
		*why = "a control message's field unreadable";
		return -EINVAL;
	}
	if (proc &&
	    (type == ERL_ATOM_EXT || type == ERL_SMALL_ATOM_EXT ||
	     type == ERL_ATOM_UTF8_EXT || type == ERL_SMALL_ATOM_UTF8_EXT)) {
		*pid = ACT_PID_NONE;
		if (ei_decode_atom_as(p, i, name, 256, ERLANG_UTF8, NULL,
				      NULL)) {
			*why = "a process name over 255 bytes";
			return -EINVAL;
		}
		return 0;
	}
	rc = act__codec_pid_decode(p, i, t, me, pid);
	if (rc == -EINVAL)
		*why = "a control message's pid that is not one";
	else if (rc < 0)
		*why = "a pid past the table of its node's pids";
	return rc;
}

/* One field f of c at p[*i] (the frame's control term, end its end). */
static int field(const char *p, int *i, int end, enum field f,
		 struct act__peers *t, const struct act__codec_self *me,
		 struct act__ctrl *c, const char **why)
{
	struct act__term_err err;
	unsigned long long id;
	long len;

	switch (f) {
	case F_PID_FROM:
		return proc_decode(p, i, false, t, me, &c->from, c->name, why);
	case F_PID_TO:
		return proc_decode(p, i, false, t, me, &c->to, c->name, why);
	case F_PROC_TO:
		return proc_decode(p, i, true, t, me, &c->to, c->name, why);
	case F_PROC_FROM:
		return proc_decode(p, i, true, t, me, &c->from, c->name, why);
	case F_NAME:
		if (ei_decode_atom_as(p, i, c->name, sizeof(c->name),
				      ERLANG_UTF8, NULL, NULL)) {
			*why = "a registered name that is not an atom of at "
			       "most 255 bytes";
			return -EINVAL;
		}
		return 0;
	case F_REF:
		if (ei_decode_ref(p, i, &c->ref)) {
			*why = "a monitor's reference that is not one";
			return -EINVAL;
		}
		return 0;
	case F_ID:
		if (ei_decode_ulonglong(p, i, &id)) {
			*why = "an unlink id that is not an integer of 64 bits";
			return -EINVAL;
		}
		c->id = id;
		return 0;
	case F_UNUSED:
	case F_REASON:
		/* a term: checked with the control message; measured */
		len = act__term_check((const uint8_t *)p + *i,
				      (size_t)(end - *i), &err);
		if (len < 0) {
			*why = err.why;
			return -EINVAL;
		}
		if (f == F_REASON) {
			c->reason = p + *i;
			c->reason_len = (size_t)len;
		}
		*i += (int)len;
		return 0;
	default:
		*why = "a control message's shape unknown";
		return -EINVAL;
	}
}

/* A version byte and one term at p[at], within n: its end, or -1
 * (none: why it is missed). */
static long versioned(const char *p, size_t n, size_t at, const char *none,
		      const char **why)
{
	struct act__term_err err;
	long len;

	if (at >= n || (uint8_t)p[at] != ACT__ET_VERSION) {
		*why = at >= n ? none : "a term without its version byte";
		return -1;
	}
	len = act__term_check((const uint8_t *)p + at + 1, n - at - 1, &err);
	if (len < 0) {
		*why = err.why;
		return -1;
	}
	return (long)at + 1 + len;
}

int act__ctrl_decode(const char *p, size_t n, struct act__peers *t,
		     const struct act__codec_self *me, struct act__ctrl *c,
		     const char **why)
{
	const struct shape *s;
	long end, op;
	int i = 1, arity, k, rc;

	memset(c, 0, sizeof(*c));
	if (n > INT32_MAX) {
		*why = "a frame over 2 GiB";
		return -EINVAL;
	}
	if (!n || (uint8_t)p[0] != ACT__CTRL_PASS_THROUGH) {
		*why = n >= 2 && (uint8_t)p[0] == 131 && p[1] == 'D' ?
			       "a distribution header, and no atom cache was "
			       "negotiated" :
			       "a frame that is not pass-through (112)";
		return -EINVAL;
	}
	end = versioned(p, n, 1, "a frame with no control message", why);
	if (end < 0)
		return -EINVAL;
	i = 2;
	if (ei_decode_tuple_header(p, &i, &arity) || arity < 1 ||
	    ei_decode_long(p, &i, &op) || !(s = shape_of(op))) {
		*why = "a control message that is not a tuple of a known "
		       "operation";
		return -EINVAL;
	}
	if (arity != arity_of(s)) {
		*why = "a control message of the wrong size for its "
		       "operation";
		return -EINVAL;
	}
	c->op = (enum act__ctrl_op)op;
	for (k = 0; s->f[k] != F_END; k++) {
		rc = field(p, &i, (int)end, s->f[k], t, me, c, why);
		if (rc < 0)
			return rc;
	}
	if (i != end) {
		*why = "a control message's fields past its end";
		return -EINVAL;
	}
	if (s->msg) {
		long mend = versioned(p, n, (size_t)end,
				      "a send with no message", why);

		if (mend < 0)
			return -EINVAL;
		c->msg = p + end;
		c->msg_len = (size_t)(mend - end);
		end = mend;
	}
	if ((size_t)end != n) {
		*why = "bytes past the frame's terms";
		return -EINVAL;
	}
	return 0;
}

/* ---- writing ------------------------------------------------------------ */

int act__ctrl_begin(ei_x_buff *b)
{
	b->index = 0;
	return act__ctrl_begin_at(b);
}

int act__ctrl_begin_at(ei_x_buff *b)
{
	static const char head[5] = { 0, 0, 0, 0, ACT__CTRL_PASS_THROUGH };

	return ei_x_append_buf(b, head, 5) ? -ENOMEM : 0;
}

int act__ctrl_end(ei_x_buff *b)
{
	return act__ctrl_end_at(b, 0);
}

int act__ctrl_end_at(ei_x_buff *b, int at)
{
	return act__ctrl_end_at_more(b, at, 0);
}

int act__ctrl_end_at_more(ei_x_buff *b, int at, size_t more)
{
	uint32_t n = (uint32_t)(b->index - at) - 4 + (uint32_t)more;
	char *h = b->buff + at;

	h[0] = (char)(n >> 24);
	h[1] = (char)(n >> 16);
	h[2] = (char)(n >> 8);
	h[3] = (char)n;
	return 0;
}

static int head(ei_x_buff *b, enum act__ctrl_op op, int arity)
{
	if (ei_x_encode_version(b) || ei_x_encode_tuple_header(b, arity) ||
	    ei_x_encode_long(b, op))
		return -ENOMEM;
	return 0;
}

int act__ctrl_encode(ei_x_buff *b, struct act__peers *t,
		     const struct act__codec_self *me, enum act__ctrl_op op,
		     act_pid from, act_pid to, uint64_t id)
{
	int rc;

	switch (op) {
	case ACT__CTRL_LINK:
	case ACT__CTRL_SEND_SENDER:
		rc = head(b, op, 3);
		break;
	case ACT__CTRL_EXIT:
	case ACT__CTRL_EXIT2:
		rc = head(b, op, 4); /* the reason: the caller's */
		break;
	case ACT__CTRL_UNLINK_ID:
	case ACT__CTRL_UNLINK_ID_ACK:
		rc = head(b, op, 4);
		if (!rc && ei_x_encode_ulonglong(b, id))
			rc = -ENOMEM;
		break;
	default:
		return -EINVAL;
	}
	if (!rc)
		rc = act__codec_pid_encode(b, t, me, from);
	if (!rc)
		rc = act__codec_pid_encode(b, t, me, to);
	return rc;
}

int act__ctrl_encode_reg_send(ei_x_buff *b, struct act__peers *t,
			      const struct act__codec_self *me, act_pid from,
			      const char *name)
{
	int rc = head(b, ACT__CTRL_REG_SEND, 4);

	if (!rc)
		rc = act__codec_pid_encode(b, t, me, from);
	if (!rc && (ei_x_encode_atom(b, "") ||
		    ei_x_encode_atom_len_as(b, name, (int)strlen(name),
					    ERLANG_UTF8, ERLANG_UTF8)))
		rc = -ENOMEM;
	return rc;
}

int act__ctrl_encode_monitor(ei_x_buff *b, struct act__peers *t,
			     const struct act__codec_self *me,
			     enum act__ctrl_op op, act_pid from, act_pid to,
			     const erlang_ref *ref)
{
	int rc;

	if (op != ACT__CTRL_MONITOR_P && op != ACT__CTRL_DEMONITOR_P &&
	    op != ACT__CTRL_MONITOR_P_EXIT)
		return -EINVAL;
	rc = head(b, op, op == ACT__CTRL_MONITOR_P_EXIT ? 5 : 4);
	if (!rc)
		rc = act__codec_pid_encode(b, t, me, from);
	if (!rc)
		rc = act__codec_pid_encode(b, t, me, to);
	if (!rc && ei_x_encode_ref(b, ref))
		rc = -ENOMEM;
	return rc;
}
