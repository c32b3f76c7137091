/* SPDX-License-Identifier: MIT */
/*
 * epmd.h - the Erlang Port Mapper Daemon's protocol (ERTS User's Guide,
 * "Distribution Protocol", "EPMD Protocol"): the requests a node sends
 * and the replies it reads, as pure functions on byte buffers. They do
 * no I/O: the caller sends what an encoder wrote and feeds a decoder
 * what it has received so far.
 *
 *   ALIVE2_REQ (120)        -> ALIVE2_X_RESP (118, 32-bit creation), or
 *                              ALIVE2_RESP (121, 16-bit) from an old epmd;
 *                              the socket stays open while the node lives:
 *                              closing it unregisters the name
 *   PORT_PLEASE2_REQ (122)  -> PORT2_RESP (119); epmd then closes
 *   NAMES_REQ (110)         -> epmd's port (4 bytes) and a text of
 *                              "name N at port P\n" lines to the close
 *
 * A request is preceded by its length (2 bytes), a reply is not; all
 * integers are big-endian. The names in epmd are the part of a node's
 * name before the '@'.
 *
 * Decoders return the bytes the reply took (> 0) once it is whole, 0
 * while more bytes are needed, or a negative errno with *why, a one-line
 * reason, for a reply that is malformed, beyond a bound below, or a
 * refusal; they never read past n nor allocate. Any thread.
 */
#ifndef ACT_DIST_EPMD_H
#define ACT_DIST_EPMD_H

#include <stddef.h>
#include <stdint.h>

#define ACT__EPMD_PORT 4369 /* the default; ERL_EPMD_PORT changes it */

/* Bounds: a name as Erlang's (an atom: 255 bytes), epmd's extra field,
 * and a NAMES_RESP's text. */
#define ACT__EPMD_NAME_MAX 255
#define ACT__EPMD_EXTRA_MAX 1024
#define ACT__EPMD_NAMES_MAX 65536

/* The message tags. */
enum {
	ACT__EPMD_NAMES_REQ = 110,
	ACT__EPMD_ALIVE2_X_RESP = 118,
	ACT__EPMD_PORT2_RESP = 119,
	ACT__EPMD_ALIVE2_REQ = 120,
	ACT__EPMD_ALIVE2_RESP = 121,
	ACT__EPMD_PORT_PLEASE2_REQ = 122,
};

#define ACT__EPMD_NODE_NORMAL 77 /* 'M': an Erlang node */
#define ACT__EPMD_NODE_HIDDEN 72 /* 'H': a hidden node, a C node */
#define ACT__EPMD_PROTO_TCP4 0
#define ACT__EPMD_VERSION 6 /* the handshake of OTP 23 and later */

/*
 * A node as ALIVE2_REQ registers it and PORT2_RESP describes it. extra
 * points into the caller's memory: the encoder's input, or the buffer a
 * decoder was given (valid as long as that buffer is).
 */
struct act__epmd_node {
	uint16_t port;	  /* where the node accepts connections */
	uint8_t type;	  /* ACT__EPMD_NODE_* */
	uint8_t protocol; /* ACT__EPMD_PROTO_TCP4 */
	uint16_t high;	  /* distribution versions: highest, */
	uint16_t low;	  /* lowest */
	char name[ACT__EPMD_NAME_MAX + 1]; /* NUL-terminated */
	const uint8_t *extra;
	size_t extra_len;
};

/*
 * The requests, length first, into buf[0..cap). Return the bytes
 * written, or -EINVAL for a name that is empty, longer than
 * ACT__EPMD_NAME_MAX or holds an '@', or an extra over
 * ACT__EPMD_EXTRA_MAX, or -ENOSPC when cap is too small.
 */
int act__epmd_alive2_req(uint8_t *buf, size_t cap,
			 const struct act__epmd_node *node);
int act__epmd_port_please2_req(uint8_t *buf, size_t cap, const char *name);
int act__epmd_names_req(uint8_t *buf, size_t cap);

/*
 * The reply to ALIVE2_REQ: either form; *creation is the node's creation
 * (never 0). A result other than 0 (the name is registered already) is
 * -EADDRINUSE.
 */
int act__epmd_alive2_resp(const uint8_t *p, size_t n, uint32_t *creation,
			  const char **why);

/*
 * The reply to PORT_PLEASE2_REQ into *node. A result other than 0 (no
 * such name) is -ENOENT; a node that does not speak version 6 over
 * TCP/IPv4 is -EPROTONOSUPPORT (its fields filled).
 */
int act__epmd_port2_resp(const uint8_t *p, size_t n,
			 struct act__epmd_node *node, const char **why);

/*
 * The reply to NAMES_REQ, whole only when epmd has closed the socket:
 * eof says so. *epmd_port is epmd's port; the text follows the 4 bytes
 * and runs to n (longer than ACT__EPMD_NAMES_MAX is -EMSGSIZE, at once).
 */
int act__epmd_names_resp(const uint8_t *p, size_t n, int eof,
			 uint32_t *epmd_port, const char **why);

/*
 * The next line of a NAMES_RESP text t[0..len) from *off: its name and
 * port. Returns 1 and moves *off past the line, 0 at the end, or
 * -EPROTO with *why for a line not "name N at port P".
 */
int act__epmd_names_next(const uint8_t *t, size_t len, size_t *off,
			 char name[ACT__EPMD_NAME_MAX + 1], uint16_t *port,
			 const char **why);

#endif
