/* SPDX-License-Identifier: MIT */
/*
 * ctrl.h - a connection's frames after the handshake: the control
 * messages of the distribution protocol, read and written
 * (doc/design/distribution.md "Frames").
 *
 * A frame is a 4-byte big-endian length, then (length 0 is a tick) the
 * pass-through byte 112 ('p'), the control message as a term (its
 * version byte first) and, for the sends and the exits with a payload,
 * the message as a second term. Neither the atom cache nor fragments is
 * negotiated, so a frame of any other first byte is refused (a
 * distribution header, 'D', names which).
 *
 * act__ctrl_decode checks both terms with act__term_check before it
 * decodes anything, and refuses with a reason: terms cut short or past
 * the frame, a control message that is not a tuple of a known operation
 * with the fields that operation has, a pid or reference of the wrong
 * form, a name too long.
 */
#ifndef ACT_DIST_CTRL_H
#define ACT_DIST_CTRL_H

#include <ei.h>
#include <stddef.h>
#include <stdint.h>

#include "actors.h"
#include "codec.h"
#include "peers.h"

/* The operations (erl_dist_protocol's control messages) taken. */
enum act__ctrl_op {
	ACT__CTRL_LINK = 1,	       /* {1, From, To} */
	ACT__CTRL_SEND = 2,	       /* {2, Unused, To}, Message */
	ACT__CTRL_EXIT = 3,	       /* {3, From, To, Reason} */
	ACT__CTRL_REG_SEND = 6,	       /* {6, From, Unused, ToName}, Message */
	ACT__CTRL_EXIT2 = 8,	       /* {8, From, To, Reason} */
	ACT__CTRL_MONITOR_P = 19,      /* {19, From, ToProc, Ref} */
	ACT__CTRL_DEMONITOR_P = 20,    /* {20, From, ToProc, Ref} */
	ACT__CTRL_MONITOR_P_EXIT = 21, /* {21, FromProc, To, Ref, Reason} */
	ACT__CTRL_SEND_SENDER = 22,    /* {22, From, To}, Message */
	ACT__CTRL_UNLINK_ID = 35,      /* {35, Id, From, To} */
	ACT__CTRL_UNLINK_ID_ACK = 36,  /* {36, Id, From, To} */
};

/* The byte after a frame's length: pass-through. */
#define ACT__CTRL_PASS_THROUGH 112

/* A decoded control message: the fields its operation has. */
struct act__ctrl {
	enum act__ctrl_op op;
	act_pid from, to; /* to: ACT_PID_NONE where a name is given */
	/* REG_SEND's ToName; MONITOR_P's or DEMONITOR_P's ToProc when it
	 * is a name (registered name); MONITOR_P_EXIT's FromProc when a
	 * name; NUL-terminated, empty otherwise */
	char name[256];
	uint64_t id;	    /* UNLINK_ID's, UNLINK_ID_ACK's */
	erlang_ref ref;	    /* the monitors' */
	const char *reason; /* EXIT's, EXIT2's, MONITOR_P_EXIT's: a term
			     * (no version byte) in the frame */
	size_t reason_len;
	const char *msg; /* the sends': the message term, its version
			  * byte first, in the frame */
	size_t msg_len;
};

/*
 * The frame body p (n bytes, after its length): 0 with *c filled, its
 * pointers into p; -EINVAL with *why set. Pids are read with
 * act__codec_pid_decode (a new one is entered in t); -ENOSPC when t is
 * full.
 */
int act__ctrl_decode(const char *p, size_t n, struct act__peers *t,
		     const struct act__codec_self *me, struct act__ctrl *c,
		     const char **why);

/*
 * Frames out: b is started with act__ctrl_begin (4 bytes for the length,
 * then 112), a control message and its message (if any) are appended,
 * and act__ctrl_end writes the length. 0, or -ENOMEM; -ESRCH for a pid
 * of no known entry.
 */
int act__ctrl_begin(ei_x_buff *b);
int act__ctrl_end(ei_x_buff *b);
/* Frames one after another in b, for one write: act__ctrl_begin_at
 * starts one at b->index (the caller keeps that offset), and
 * act__ctrl_end_at(b, at) writes the length of the one at offset at. */
int act__ctrl_begin_at(ei_x_buff *b);
int act__ctrl_end_at(ei_x_buff *b, int at);
/* act__ctrl_end_at for a frame whose last `more` bytes are not in b:
 * the caller writes them right after it. */
int act__ctrl_end_at_more(ei_x_buff *b, int at, size_t more);
/* LINK, EXIT2's and EXIT's heads: {op, From, To} and {op, From, To} then
 * a reason appended by the caller (act__ctrl_reason_atom); UNLINK_ID and
 * its ack {op, Id, From, To}; SEND_SENDER {22, From, To} (the message
 * follows: act__codec_user_encode, or bytes of a term) and REG_SEND
 * {6, From, '', Name}. */
int act__ctrl_encode(ei_x_buff *b, struct act__peers *t,
		     const struct act__codec_self *me, enum act__ctrl_op op,
		     act_pid from, act_pid to, uint64_t id);
int act__ctrl_encode_reg_send(ei_x_buff *b, struct act__peers *t,
			      const struct act__codec_self *me, act_pid from,
			      const char *name);
/* MONITOR_P, DEMONITOR_P: {op, From, To, Ref}; MONITOR_P_EXIT:
 * {21, From, To, Ref, Reason}, the reason appended by the caller. */
int act__ctrl_encode_monitor(ei_x_buff *b, struct act__peers *t,
			     const struct act__codec_self *me,
			     enum act__ctrl_op op, act_pid from, act_pid to,
			     const erlang_ref *ref);

#endif /* ACT_DIST_CTRL_H */
