/* SPDX-License-Identifier: MIT */
/*
 * handshake.h - Erlang distribution's handshake, version 6 (OTP 23 and
 * later), both roles, as one state machine on byte buffers: it does no
 * I/O, takes no lock and allocates nothing. The caller sends what
 * act__handshake_output gives, feeds what it receives, and is told when
 * the connection is up (DONE) or refused (FAILED, with a reason).
 *
 * Frames are a 2-byte big-endian length and a tagged body:
 *
 *   initiator (A, we connect)          acceptor (B, we accept)
 *   'N' flags:8 creation:4 nlen:2 name ---->
 *                                      <---- 's' status
 *   ('s' "true" ---->, if status was "alive")
 *                                      <---- 'N' flags:8 challenge:4
 *                                                creation:4 nlen:2 name
 *   'r' challenge:4 digest:16 ---->
 *                                      <---- 'a' digest:16
 *
 * A digest is MD5 of the cookie followed by the other side's challenge
 * in decimal (md5.h). After DONE the connection speaks 4-byte frames;
 * feed never takes a byte past the handshake's last frame.
 *
 * Bounds and refusals: a frame is at most ACT__HANDSHAKE_FRAME_MAX
 * bytes; a node name is "alive@host", 3 to 255 bytes (OTP's limit: an
 * atom) of printable ASCII, as the node table takes names (peers.h). A
 * frame over the bound, with a tag the step does not expect, shorter
 * than its fields, with a bad name, a peer without ACT__DFLAGS_REQUIRED
 * (flags.h), a status other than ok, or a digest that does not match
 * the cookie, each ends the handshake FAILED with its own errno and a
 * one-line reason in h->why:
 *
 *   -EMSGSIZE          a frame over the bound, or empty
 *   -EPROTO            a malformed frame: tag, length, name, status
 *   -EPROTONOSUPPORT   the version 5 handshake ('n'), a dynamic name
 *                      (NAME_ME), flags we require missing
 *   -EACCES            a digest that does not match: the cookies differ
 *   -ECONNREFUSED      status not_allowed or false from the peer; or we
 *                      refused the peer (act__handshake_accept)
 *   -EALREADY          status nok: the peer's own connection to us wins
 *   -ECONNRESET        the peer closed the connection (act__handshake_eof)
 *
 * Dynamic names (a node named by its peer: DFLAG_NAME_ME, status
 * "named:") are refused in both roles: our name is always static. An
 * initiator answers the status "alive" with "true": it connects only
 * when it holds no connection to the peer, so the peer's is stale.
 *
 * One thread at a time per struct; no global state.
 */
#ifndef ACT_DIST_HANDSHAKE_H
#define ACT_DIST_HANDSHAKE_H

#include <stddef.h>
#include <stdint.h>

#define ACT__HANDSHAKE_FRAME_MAX 1024 /* a frame's body, bytes */
#define ACT__HANDSHAKE_NAME_MAX 255   /* a node name, bytes */
#define ACT__HANDSHAKE_COOKIE_MAX 255 /* a cookie, bytes */

enum act__handshake_role {
	ACT__HANDSHAKE_INITIATOR, /* we connected */
	ACT__HANDSHAKE_ACCEPTOR,  /* the peer connected */
};

/* What feed, accept and eof return (>= 0), as h->state says it too. */
enum act__handshake_state {
	/* send the output, feed what arrives */
	ACT__HANDSHAKE_RUNNING,
	/* acceptor: the peer's name, flags and creation are known;
	 * answer with act__handshake_accept */
	ACT__HANDSHAKE_NAME,
	/* the connection is up: peer_* are set; send the output left
	 * (the acceptor's ack), then speak 4-byte frames */
	ACT__HANDSHAKE_DONE,
	/* refused: err and why say why; send the output left (a status
	 * that tells the peer), then close */
	ACT__HANDSHAKE_FAILED,
};

/* The acceptor's answer to a peer's name (OTP's status strings). */
enum act__handshake_status {
	ACT__HANDSHAKE_OK,		/* "ok": go on */
	ACT__HANDSHAKE_OK_SIMULTANEOUS, /* "ok_simultaneous": go on; our
					 * own attempt to the peer ends */
	ACT__HANDSHAKE_NOK,		/* "nok": our own attempt wins */
	ACT__HANDSHAKE_NOT_ALLOWED,	/* "not_allowed" */
	ACT__HANDSHAKE_ALIVE,		/* "alive": we hold a connection to
					 * that name; the peer says whether
					 * to go on ("true": it is stale) */
};

/* The caller's memory; fields above "private" may be read. */
struct act__handshake {
	enum act__handshake_state state;
	/* the peer, once NAME (acceptor) or DONE: */
	char peer_name[ACT__HANDSHAKE_NAME_MAX + 1];
	uint64_t peer_flags; /* as sent, MANDATORY_25_DIGEST expanded */
	uint32_t peer_creation;
	/* FAILED: the negative errno returned, and a one-line reason */
	int err;
	const char *why;

	/* private */
	enum act__handshake_role role;
	int step;
	char our_name[ACT__HANDSHAKE_NAME_MAX + 1];
	char expect[ACT__HANDSHAKE_NAME_MAX + 1];
	char cookie[ACT__HANDSHAKE_COOKIE_MAX + 1];
	uint64_t our_flags;
	uint32_t our_creation;
	uint32_t our_challenge;
	uint32_t peer_challenge;
	uint8_t in[2 + ACT__HANDSHAKE_FRAME_MAX]; /* the frame coming in */
	size_t in_len;
	uint8_t out[640]; /* frames going out: at most a status and a
			   * challenge (2 + 15 + 2 + 19 + 255 bytes) */
	size_t out_off;
	size_t out_len;
	char why_buf[256]; /* a reason with a name or a number in it */
};

/*
 * Starts a handshake in h. our_name is ours ("alive@host"), cookie the
 * shared secret (1 to 255 bytes), our_flags what we advertise (normally
 * ACT__DFLAGS_OURS: it must hold ACT__DFLAGS_REQUIRED and not NAME_ME),
 * our_creation ours from epmd, our_challenge a random number the peer's
 * digest must answer (from a good source: it is what stops a replay).
 * The initiator's first frame is in the output at once. Returns 0, or
 * -EINVAL with h FAILED and h->why for an argument out of those bounds.
 * Copies the strings.
 */
int act__handshake_init(struct act__handshake *h, enum act__handshake_role role,
			const char *our_name, const char *cookie,
			uint64_t our_flags, uint32_t our_creation,
			uint32_t our_challenge);

/*
 * Initiator: the name of the node we called; its challenge must carry
 * that name, as OTP checks, or the handshake fails (-EPROTO). Returns 0
 * or -EINVAL for a name that is not a node name.
 */
int act__handshake_expect(struct act__handshake *h, const char *peer);

/*
 * Takes received bytes in[0..n): *used says how many it took (fewer than
 * n when the handshake ends, or waits on the caller in NAME, before
 * them). Returns the state, or the negative errno once FAILED.
 */
int act__handshake_feed(struct act__handshake *h, const uint8_t *in, size_t n,
			size_t *used);

/*
 * Acceptor in NAME: the status to send the peer. OK and OK_SIMULTANEOUS
 * go on (the challenge follows the status), ALIVE waits for the peer's
 * answer, NOK and NOT_ALLOWED end the handshake (-ECONNREFUSED) once
 * the status is sent. Returns as feed; -EINVAL if h is not in NAME.
 */
int act__handshake_accept(struct act__handshake *h,
			  enum act__handshake_status status);

/*
 * The peer closed the connection (or the caller gives up on it): the
 * handshake fails with the reason that fits its step (the acceptor that
 * closes instead of its ack refused our digest: -EACCES). Returns the
 * negative errno, or the state if it had ended already.
 */
int act__handshake_eof(struct act__handshake *h);

/* The bytes to send now, *p[0..*len) (*len 0: none). */
void act__handshake_output(const struct act__handshake *h, const uint8_t **p,
			   size_t *len);

/* n of those bytes were sent. */
void act__handshake_sent(struct act__handshake *h, size_t n);

#endif
