/* SPDX-License-Identifier: MIT */
/*
 * flags.h - Erlang distribution's capability flags, the 64-bit word each
 * node sends in the handshake (handshake.h), with the values of OTP's
 * erts/emulator/beam/dist.h and of kernel's include/dist.hrl (OTP 25 and
 * 26 agree, and so does erl_interface's ei_connect_int.h), and the sets
 * this runtime requires and advertises.
 */
#ifndef ACT_DIST_FLAGS_H
#define ACT_DIST_FLAGS_H

#include <stddef.h>
#include <stdint.h>

/* clang-format off */
#define ACT__DFLAG_PUBLISHED		0x01ull
#define ACT__DFLAG_ATOM_CACHE		0x02ull
#define ACT__DFLAG_EXTENDED_REFERENCES	0x04ull
#define ACT__DFLAG_DIST_MONITOR		0x08ull
#define ACT__DFLAG_FUN_TAGS		0x10ull
#define ACT__DFLAG_DIST_MONITOR_NAME	0x20ull
#define ACT__DFLAG_HIDDEN_ATOM_CACHE	0x40ull
#define ACT__DFLAG_NEW_FUN_TAGS		0x80ull
#define ACT__DFLAG_EXTENDED_PIDS_PORTS	0x100ull
#define ACT__DFLAG_EXPORT_PTR_TAG	0x200ull
#define ACT__DFLAG_BIT_BINARIES		0x400ull
#define ACT__DFLAG_NEW_FLOATS		0x800ull
#define ACT__DFLAG_UNICODE_IO		0x1000ull
#define ACT__DFLAG_DIST_HDR_ATOM_CACHE	0x2000ull
#define ACT__DFLAG_SMALL_ATOM_TAGS	0x4000ull
#define ACT__DFLAG_UTF8_ATOMS		0x10000ull
#define ACT__DFLAG_MAP_TAG		0x20000ull
#define ACT__DFLAG_BIG_CREATION		0x40000ull
#define ACT__DFLAG_SEND_SENDER		0x80000ull
#define ACT__DFLAG_BIG_SEQTRACE_LABELS	0x100000ull
#define ACT__DFLAG_EXIT_PAYLOAD		0x400000ull
#define ACT__DFLAG_FRAGMENTS		0x800000ull
#define ACT__DFLAG_HANDSHAKE_23		0x1000000ull
#define ACT__DFLAG_UNLINK_ID		0x2000000ull
#define ACT__DFLAG_MANDATORY_25_DIGEST	0x4000000ull
#define ACT__DFLAG_MULTISEND		0x8000000ull
#define ACT__DFLAG_SPAWN		(0x1ull << 32)
#define ACT__DFLAG_NAME_ME		(0x2ull << 32)
#define ACT__DFLAG_V4_NC		(0x4ull << 32)
#define ACT__DFLAG_ALIAS		(0x8ull << 32)
/* clang-format on */

/*
 * What OTP 25 made mandatory, and lets a peer say with the one bit
 * MANDATORY_25_DIGEST (dist.hrl: a node of OTP 27 may send the bit
 * alone): a peer's flags are read with the bit expanded into these.
 */
#define ACT__DFLAGS_MANDATORY_25                                              \
	(ACT__DFLAG_EXTENDED_REFERENCES | ACT__DFLAG_FUN_TAGS |               \
	 ACT__DFLAG_EXTENDED_PIDS_PORTS | ACT__DFLAG_NEW_FUN_TAGS |           \
	 ACT__DFLAG_EXPORT_PTR_TAG | ACT__DFLAG_BIT_BINARIES |                \
	 ACT__DFLAG_NEW_FLOATS | ACT__DFLAG_UTF8_ATOMS | ACT__DFLAG_MAP_TAG | \
	 ACT__DFLAG_BIG_CREATION | ACT__DFLAG_HANDSHAKE_23)

/*
 * What a peer must have, or the handshake refuses it: OTP 25's mandatory
 * set and the two OTP 26 added (UNLINK_ID, V4_NC), so that the layer
 * above decodes one term format (new pids and references, maps, UTF-8
 * atoms, new floats) and one unlink protocol. OTP 25 and later send
 * them all, and OTP 26 and later require them of us as well.
 */
#define ACT__DFLAGS_REQUIRED \
	(ACT__DFLAGS_MANDATORY_25 | ACT__DFLAG_UNLINK_ID | ACT__DFLAG_V4_NC)

/*
 * What we advertise by default: the required set, the digest bit for
 * OTP 27 peers, and what the connection layer above implements:
 *
 *   DIST_MONITOR	MONITOR_P, DEMONITOR_P, MONITOR_P_EXIT (19-21)
 *   DIST_MONITOR_NAME	the same by registered name; OTP sends none of
 *			them to a node without both bits (dist.c: the
 *			monitor then only watches the connection)
 *   SEND_SENDER	the peer sends SEND_SENDER (22), not SEND (2)
 *   UNLINK_ID		(required) UNLINK_ID and its ACK (35, 36)
 *
 * LINK, EXIT, EXIT2 and REG_SEND need no flag. Not advertised, so that
 * an OTP peer never sends what that layer does not take: PUBLISHED (we
 * are a hidden node, as C nodes are: no global name server on our
 * side), DIST_HDR_ATOM_CACHE and FRAGMENTS (every message comes with a
 * pass-through 'p' header, whole), EXIT_PAYLOAD (exits come as EXIT,
 * EXIT2 and MONITOR_P_EXIT), SPAWN, ALIAS, NAME_ME.
 */
#define ACT__DFLAGS_OURS                                          \
	(ACT__DFLAGS_REQUIRED | ACT__DFLAG_MANDATORY_25_DIGEST |  \
	 ACT__DFLAG_DIST_MONITOR | ACT__DFLAG_DIST_MONITOR_NAME | \
	 ACT__DFLAG_SEND_SENDER)

/* f with MANDATORY_25_DIGEST, if set, expanded into the flags it stands
 * for. */
static inline uint64_t act__flags_expand(uint64_t f)
{
	return f & ACT__DFLAG_MANDATORY_25_DIGEST ?
		       f | ACT__DFLAGS_MANDATORY_25 :
		       f;
}

/*
 * The names of f's bits, lowest first, separated by spaces, as OTP
 * spells them less DFLAG_ ("UNLINK_ID V4_NC"), a bit without a name as
 * "bit37", into buf (NUL-terminated, cut with "..." at cap). Returns the
 * length written.
 */
size_t act__flags_format(uint64_t f, char *buf, size_t cap);

#endif
