/* SPDX-License-Identifier: MIT */
/*
 * handshake.c - the distribution handshake, version 6 (handshake.h), as
 * OTP 25's dist_util.erl speaks it: send_name, status, challenge,
 * challenge reply, challenge ack.
 *
 * The bytes come in through gather(), which keeps one frame in h->in:
 * it reads the 2-byte length, refuses an empty frame or one over
 * ACT__HANDSHAKE_FRAME_MAX at once (before waiting for its body), and
 * then takes exactly the body, so that no byte after the handshake's
 * last frame is consumed. Each whole frame goes to the step's reader,
 * which checks every length against the frame before it reads, and
 * either queues the answer in h->out and moves on, or fails. Fields
 * after a frame's name are ignored, as OTP ignores them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "flags.h"
#include "handshake.h"
#include "md5.h"

/* The private steps: which frame comes next, or none. */
enum step {
	RECV_NAME,	  /* acceptor: send_name */
	WAIT_CALLER,	  /* acceptor: act__handshake_accept */
	RECV_ALIVE_REPLY, /* acceptor: "true" or "false" after our alive */
	RECV_REPLY,	  /* acceptor: challenge reply */
	RECV_STATUS,	  /* initiator: status */
	RECV_CHALLENGE,	  /* initiator: challenge */
	RECV_ACK,	  /* initiator: challenge ack */
	END,
};

static const char no_cookie[] = ": wrong cookie (ours or the peer's)";

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static int fail(struct act__handshake *h, int err, const char *why)
{
	h->state = ACT__HANDSHAKE_FAILED;
	h->step = END;
	h->err = err;
	h->why = why;
	return err;
}

__attribute__((format(printf, 3, 4))) static int
failf(struct act__handshake *h, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->why_buf, sizeof(h->why_buf), fmt, ap);
	va_end(ap);
	return fail(h, err, h->why_buf);
}

/*
 * What is wrong with s[0..n) as a node name "alive@host", or NULL. The
 * bytes are printable ASCII, as host names are and as the node table
 * takes names (peers.c): OTP would take UTF-8 in the alive part, but a
 * name must read back as the bytes it was written with, whichever atom
 * form carried it, and a reason can quote it on one line.
 */
static const char *bad_name(const uint8_t *s, size_t n)
{
	size_t i, at = 0, ats = 0;

	if (n > ACT__HANDSHAKE_NAME_MAX)
		return "is over 255 bytes";
	for (i = 0; i < n; i++) {
		if (!s[i])
			return "holds a NUL byte";
		if (s[i] <= 0x20 || s[i] == 0x7f)
			return "holds a space or a control character";
		if (s[i] > 0x7f)
			return "is not printable ASCII";
		if (s[i] == '@')
			at = i, ats++;
	}
	if (ats != 1 || at == 0 || at == n - 1)
		return "is not of the form alive@host";
	return NULL;
}

/* MD5(cookie ++ decimal(challenge)), the handshake's digest. */
static void digest(const struct act__handshake *h, uint32_t challenge,
		   uint8_t out[ACT__MD5_LEN])
{
	struct act__md5_ctx c;
	char dec[16];
	int n = snprintf(dec, sizeof(dec), "%u", (unsigned)challenge);

	act__md5_init(&c);
	act__md5_update(&c, h->cookie, strlen(h->cookie));
	act__md5_update(&c, dec, (size_t)n);
	act__md5_final(&c, out);
}

/* The digest d against ours for challenge, in time that does not depend
 * on where they differ. */
static int digest_ok(const struct act__handshake *h, uint32_t challenge,
		     const uint8_t *d)
{
	uint8_t want[ACT__MD5_LEN], diff = 0;
	int i;

	digest(h, challenge, want);
	for (i = 0; i < ACT__MD5_LEN; i++)
		diff |= want[i] ^ d[i];
	return diff == 0;
}

/* Room for a frame of body len at the end of the output: its body. The
 * steps queue at most a status and a challenge before the caller must
 * send (h->out's size), so there is always room. */
static uint8_t *out_frame(struct act__handshake *h, size_t len)
{
	uint8_t *p;

	if (h->out_off) {
		memmove(h->out, h->out + h->out_off, h->out_len - h->out_off);
		h->out_len -= h->out_off;
		h->out_off = 0;
	}
	if (h->out_len + 2 + len > sizeof(h->out))
		return NULL;
	p = h->out + h->out_len;
	put16(p, (unsigned)len);
	h->out_len += 2 + len;
	return p + 2;
}

static void send_status(struct act__handshake *h, const char *status)
{
	size_t n = strlen(status);
	uint8_t *p = out_frame(h, 1 + n);

	if (!p) {
		fail(h, -EOVERFLOW, "handshake: output full (a bug)");
		return;
	}
	p[0] = 's';
	memcpy(p + 1, status, n);
}

/* 'N' flags:8 [challenge:4] creation:4 nlen:2 name: send_name (the
 * initiator's, no challenge) or the acceptor's challenge. */
static void send_n(struct act__handshake *h, int with_challenge)
{
	size_t nlen = strlen(h->our_name), fixed = with_challenge ? 19 : 15;
	uint8_t *p = out_frame(h, fixed + nlen);

	if (!p) {
		fail(h, -EOVERFLOW, "handshake: output full (a bug)");
		return;
	}
	p[0] = 'N';
	put32(p + 1, (uint32_t)(h->our_flags >> 32));
	put32(p + 5, (uint32_t)h->our_flags);
	if (with_challenge)
		put32(p + 9, h->our_challenge);
	put32(p + fixed - 6, h->our_creation);
	put16(p + fixed - 2, (unsigned)nlen);
	memcpy(p + fixed, h->our_name, nlen);
}

/* 'r' challenge:4 digest:16, or 'a' digest:16. */
static void send_digest(struct act__handshake *h, char tag)
{
	size_t at = tag == 'r' ? 5 : 1;
	uint8_t *p = out_frame(h, at + ACT__MD5_LEN);

	if (!p) {
		fail(h, -EOVERFLOW, "handshake: output full (a bug)");
		return;
	}
	p[0] = (uint8_t)tag;
	if (tag == 'r')
		put32(p + 1, h->our_challenge);
	digest(h, h->peer_challenge, p + at);
}

/* A frame of len bytes whose tag is not the step's. */
static int bad_tag(struct act__handshake *h, const uint8_t *b, const char *what,
		   char tag)
{
	if (b[0] == 'n' && tag == 'N')
		return fail(h, -EPROTONOSUPPORT,
			    "handshake: the peer speaks the version 5 "
			    "handshake ('n'); we speak version 6 (OTP 23 and "
			    "later) only");
	return failf(h, -EPROTO,
		     "handshake: expected the peer's %s ('%c'), got a frame "
		     "tagged 0x%02x",
		     what, tag, b[0]);
}

/* The name field of an 'N' frame b[0..len), at b[at..): checked into
 * peer_name. 0, or the handshake failed. */
static int take_name(struct act__handshake *h, const uint8_t *b, size_t len,
		     size_t at, const char *what)
{
	size_t nlen = get16(b + at - 2);
	const char *bad;

	if (nlen > len - at)
		return failf(h, -EPROTO,
			     "handshake: the peer's %s says its name is %zu "
			     "bytes, but %zu follow",
			     what, nlen, len - at);
	bad = bad_name(b + at, nlen);
	if (bad)
		return failf(h, -EPROTO,
			     "handshake: the name in the peer's %s %s", what,
			     bad);
	memcpy(h->peer_name, b + at, nlen);
	h->peer_name[nlen] = '\0';
	return 0;
}

/* The peer's flags: those we require, or the handshake fails. */
static int take_flags(struct act__handshake *h, uint64_t flags)
{
	uint64_t missing = ACT__DFLAGS_REQUIRED & ~act__flags_expand(flags);
	char names[160];

	if (missing) {
		act__flags_format(missing, names, sizeof(names));
		return failf(h, -EPROTONOSUPPORT,
			     "handshake: the peer %s lacks distribution flags "
			     "we require: %s (is it older than OTP 25?)",
			     h->peer_name, names);
	}
	h->peer_flags = act__flags_expand(flags);
	return 0;
}

/* Acceptor: send_name, 'N' flags:8 creation:4 nlen:2 name. */
static void recv_name(struct act__handshake *h, const uint8_t *b, size_t len)
{
	uint64_t flags;

	if (b[0] != 'N') {
		bad_tag(h, b, "name", 'N');
		return;
	}
	if (len < 15) {
		failf(h, -EPROTO,
		      "handshake: the peer's name frame is %zu bytes, fewer "
		      "than its 15 fixed ones",
		      len);
		return;
	}
	flags = get64(b + 1);
	if (flags & ACT__DFLAG_NAME_ME) {
		send_status(h, "not_allowed");
		fail(h, -EPROTONOSUPPORT,
		     "handshake: the peer asks us to name it (a dynamic name, "
		     "DFLAG_NAME_ME): we do not");
		return;
	}
	if (take_name(h, b, len, 15, "name frame"))
		return;
	if (take_flags(h, flags)) {
		send_status(h, "not_allowed");
		return;
	}
	h->peer_creation = get32(b + 9);
	h->step = WAIT_CALLER;
	h->state = ACT__HANDSHAKE_NAME;
}

/* Acceptor: the peer's answer to our status alive. */
static void recv_alive_reply(struct act__handshake *h, const uint8_t *b,
			     size_t len)
{
	if (b[0] != 's') {
		bad_tag(h, b, "answer to our status alive", 's');
		return;
	}
	if (len == 5 && !memcmp(b + 1, "true", 4)) {
		send_n(h, 1);
		h->step = RECV_REPLY;
	} else if (len == 6 && !memcmp(b + 1, "false", 5)) {
		fail(h, -ECONNREFUSED,
		     "handshake: the peer withdrew (it answered false to our "
		     "status alive)");
	} else {
		fail(h, -EPROTO,
		     "handshake: the peer's answer to our status alive is "
		     "neither true nor false");
	}
}

/* Acceptor: challenge reply, 'r' challenge:4 digest:16. */
static void recv_reply(struct act__handshake *h, const uint8_t *b, size_t len)
{
	if (b[0] != 'r') {
		bad_tag(h, b, "challenge reply", 'r');
		return;
	}
	if (len != 5 + ACT__MD5_LEN) {
		failf(h, -EPROTO,
		      "handshake: the peer's challenge reply is %zu bytes, "
		      "not 21",
		      len);
		return;
	}
	if (!digest_ok(h, h->our_challenge, b + 5)) {
		failf(h, -EACCES,
		      "handshake: challenge reply's digest does not match%s",
		      no_cookie);
		return;
	}
	h->peer_challenge = get32(b + 1);
	send_digest(h, 'a');
	if (h->step != END) {
		h->step = END;
		h->state = ACT__HANDSHAKE_DONE;
	}
}

/* s[0..n) is the text lit. */
static int is(const char *s, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(s, lit, n);
}

/* Initiator: status, 's' text. */
static void recv_status(struct act__handshake *h, const uint8_t *b, size_t len)
{
	const char *s = (const char *)b + 1;
	size_t n = len - 1;

	if (b[0] != 's') {
		bad_tag(h, b, "status", 's');
		return;
	}
	if (is(s, n, "ok") || is(s, n, "ok_simultaneous")) {
		h->step = RECV_CHALLENGE;
	} else if (is(s, n, "alive")) {
		/* we connect only when we hold no connection to the peer:
		 * the one it has for our name is stale */
		send_status(h, "true");
		h->step = RECV_CHALLENGE;
	} else if (is(s, n, "nok")) {
		fail(h, -EALREADY,
		     "handshake: the peer answered nok: it is connecting to us "
		     "at the same time, and its attempt wins");
	} else if (is(s, n, "not_allowed")) {
		fail(h, -ECONNREFUSED,
		     "handshake: the peer answered not_allowed: our name is "
		     "not allowed there, or it requires flags we lack");
	} else if (n >= 6 && !memcmp(s, "named:", 6)) {
		fail(h, -EPROTONOSUPPORT,
		     "handshake: the peer gave us a name (status named:), "
		     "but ours is static");
	} else {
		fail(h, -EPROTO,
		     "handshake: the peer's status is none of ok, "
		     "ok_simultaneous, nok, not_allowed, alive");
	}
}

/* Initiator: challenge, 'N' flags:8 challenge:4 creation:4 nlen:2 name. */
static void recv_challenge(struct act__handshake *h, const uint8_t *b,
			   size_t len)
{
	if (b[0] != 'N') {
		bad_tag(h, b, "challenge", 'N');
		return;
	}
	if (len < 19) {
		failf(h, -EPROTO,
		      "handshake: the peer's challenge is %zu bytes, fewer "
		      "than its 19 fixed ones",
		      len);
		return;
	}
	if (take_name(h, b, len, 19, "challenge"))
		return;
	if (h->expect[0] && strcmp(h->expect, h->peer_name)) {
		failf(h, -EPROTO, "handshake: we called %s, but the peer is %s",
		      h->expect, h->peer_name);
		return;
	}
	if (take_flags(h, get64(b + 1)))
		return;
	h->peer_challenge = get32(b + 9);
	h->peer_creation = get32(b + 13);
	send_digest(h, 'r');
	if (h->step != END)
		h->step = RECV_ACK;
}

/* Initiator: challenge ack, 'a' digest:16. */
static void recv_ack(struct act__handshake *h, const uint8_t *b, size_t len)
{
	if (b[0] != 'a') {
		bad_tag(h, b, "challenge ack", 'a');
		return;
	}
	if (len != 1 + ACT__MD5_LEN) {
		failf(h, -EPROTO,
		      "handshake: the peer's challenge ack is %zu bytes, not "
		      "17",
		      len);
		return;
	}
	if (!digest_ok(h, h->our_challenge, b + 1)) {
		failf(h, -EACCES,
		      "handshake: challenge ack's digest does not match%s",
		      no_cookie);
		return;
	}
	h->step = END;
	h->state = ACT__HANDSHAKE_DONE;
}

/* Bytes of in[0..n) into h->in until it holds a whole frame: 1 when it
 * does, 0 when in ran out first, negative when the frame is refused. */
static int gather(struct act__handshake *h, const uint8_t *in, size_t n,
		  size_t *took)
{
	size_t want, k;

	if (h->in_len < 2) {
		k = 2 - h->in_len < n ? 2 - h->in_len : n;
		memcpy(h->in + h->in_len, in, k);
		h->in_len += k;
		*took += k;
		in += k;
		n -= k;
		if (h->in_len < 2)
			return 0;
		want = get16(h->in);
		if (want == 0)
			return fail(h, -EMSGSIZE,
				    "handshake: the peer sent an empty frame");
		if (want > ACT__HANDSHAKE_FRAME_MAX)
			return failf(h, -EMSGSIZE,
				     "handshake: the peer's frame of %zu bytes "
				     "is over the bound of %d",
				     want, ACT__HANDSHAKE_FRAME_MAX);
	}
	want = 2 + get16(h->in) - h->in_len;
	k = want < n ? want : n;
	memcpy(h->in + h->in_len, in, k);
	h->in_len += k;
	*took += k;
	return k == want;
}

static void frame(struct act__handshake *h)
{
	const uint8_t *b = h->in + 2;
	size_t len = h->in_len - 2;

	switch (h->step) {
	case RECV_NAME:
		recv_name(h, b, len);
		break;
	case RECV_ALIVE_REPLY:
		recv_alive_reply(h, b, len);
		break;
	case RECV_REPLY:
		recv_reply(h, b, len);
		break;
	case RECV_STATUS:
		recv_status(h, b, len);
		break;
	case RECV_CHALLENGE:
		recv_challenge(h, b, len);
		break;
	case RECV_ACK:
		recv_ack(h, b, len);
		break;
	default:
		break;
	}
	h->in_len = 0;
}

static int result(const struct act__handshake *h)
{
	return h->state == ACT__HANDSHAKE_FAILED ? h->err : (int)h->state;
}

int act__handshake_feed(struct act__handshake *h, const uint8_t *in, size_t n,
			size_t *used)
{
	size_t took = 0;

	while (h->state == ACT__HANDSHAKE_RUNNING && took < n) {
		if (gather(h, in + took, n - took, &took) <= 0)
			break;
		frame(h);
	}
	*used = took;
	return result(h);
}

/* A node name given us by the caller, as bad_name checks a peer's. */
static int name_arg(const char *name, char *to)
{
	size_t n = strnlen(name, ACT__HANDSHAKE_NAME_MAX + 1);

	if (bad_name((const uint8_t *)name, n))
		return -EINVAL;
	memcpy(to, name, n + 1);
	return 0;
}

int act__handshake_init(struct act__handshake *h, enum act__handshake_role role,
			const char *our_name, const char *cookie,
			uint64_t our_flags, uint32_t our_creation,
			uint32_t our_challenge)
{
	size_t clen = strnlen(cookie, ACT__HANDSHAKE_COOKIE_MAX + 1);

	memset(h, 0, sizeof(*h));
	h->role = role;
	h->our_flags = our_flags;
	h->our_creation = our_creation;
	h->our_challenge = our_challenge;
	if (name_arg(our_name, h->our_name))
		return fail(h, -EINVAL,
			    "handshake: our name is not alive@host, 3 to 255 "
			    "bytes of printable ASCII");
	if (!clen || clen > ACT__HANDSHAKE_COOKIE_MAX)
		return fail(h, -EINVAL,
			    "handshake: our cookie is not 1 to 255 bytes");
	memcpy(h->cookie, cookie, clen + 1);
	if ((our_flags & ACT__DFLAGS_REQUIRED) != ACT__DFLAGS_REQUIRED ||
	    (our_flags & ACT__DFLAG_NAME_ME))
		return fail(h, -EINVAL,
			    "handshake: our flags lack some we require of "
			    "peers, or ask for a dynamic name");
	if (role == ACT__HANDSHAKE_INITIATOR) {
		send_n(h, 0);
		h->step = RECV_STATUS;
	} else {
		h->step = RECV_NAME;
	}
	return 0;
}

int act__handshake_expect(struct act__handshake *h, const char *peer)
{
	return name_arg(peer, h->expect);
}

int act__handshake_accept(struct act__handshake *h,
			  enum act__handshake_status status)
{
	static const char *const text[] = {
		[ACT__HANDSHAKE_OK] = "ok",
		[ACT__HANDSHAKE_OK_SIMULTANEOUS] = "ok_simultaneous",
		[ACT__HANDSHAKE_NOK] = "nok",
		[ACT__HANDSHAKE_NOT_ALLOWED] = "not_allowed",
		[ACT__HANDSHAKE_ALIVE] = "alive",
	};

	if (h->state != ACT__HANDSHAKE_NAME ||
	    (unsigned)status > ACT__HANDSHAKE_ALIVE)
		return -EINVAL;
	h->state = ACT__HANDSHAKE_RUNNING;
	send_status(h, text[status]);
	switch (status) {
	case ACT__HANDSHAKE_OK:
	case ACT__HANDSHAKE_OK_SIMULTANEOUS:
		send_n(h, 1);
		h->step = RECV_REPLY;
		break;
	case ACT__HANDSHAKE_ALIVE:
		h->step = RECV_ALIVE_REPLY;
		break;
	case ACT__HANDSHAKE_NOK:
		fail(h, -ECONNREFUSED,
		     "handshake: we refused the peer (status nok: our own "
		     "connection attempt to it goes on)");
		break;
	default:
		fail(h, -ECONNREFUSED,
		     "handshake: we refused the peer (status not_allowed)");
		break;
	}
	return result(h);
}

int act__handshake_eof(struct act__handshake *h)
{
	static const char *const why[] = {
		[RECV_NAME] = "before its name",
		[WAIT_CALLER] = "after its name",
		[RECV_ALIVE_REPLY] = "before its answer to our status alive",
		[RECV_REPLY] = "before its challenge reply: it refused our "
			       "challenge (our flags, or our name is not the "
			       "node it called?)",
		[RECV_STATUS] = "before its status: not a distribution port?",
		[RECV_CHALLENGE] = "before its challenge",
	};

	if (h->state == ACT__HANDSHAKE_DONE ||
	    h->state == ACT__HANDSHAKE_FAILED)
		return result(h);
	if (h->step == RECV_ACK)
		return failf(h, -EACCES,
			     "handshake: the peer closed the connection "
			     "instead of its challenge ack: it refused our "
			     "digest%s",
			     no_cookie);
	return failf(h, -ECONNRESET,
		     "handshake: the peer closed the connection %s",
		     why[h->step]);
}

void act__handshake_output(const struct act__handshake *h, const uint8_t **p,
			   size_t *len)
{
	*p = h->out + h->out_off;
	*len = h->out_len - h->out_off;
}

void act__handshake_sent(struct act__handshake *h, size_t n)
{
	size_t left = h->out_len - h->out_off;

	h->out_off += n < left ? n : left;
	if (h->out_off == h->out_len)
		h->out_off = h->out_len = 0;
}
