/* SPDX-License-Identifier: MIT */
/* flags.c - the names of the distribution flags (flags.h). */
#include <stdio.h>
#include <string.h>

#include "flags.h"

/* OTP's names (dist_util.erl's dflag2str) by bit number. */
static const char *const names[64] = {
	[0] = "PUBLISHED",
	[1] = "ATOM_CACHE",
	[2] = "EXTENDED_REFERENCES",
	[3] = "DIST_MONITOR",
	[4] = "FUN_TAGS",
	[5] = "DIST_MONITOR_NAME",
	[6] = "HIDDEN_ATOM_CACHE",
	[7] = "NEW_FUN_TAGS",
	[8] = "EXTENDED_PIDS_PORTS",
	[9] = "EXPORT_PTR_TAG",
	[10] = "BIT_BINARIES",
	[11] = "NEW_FLOATS",
	[12] = "UNICODE_IO",
	[13] = "DIST_HDR_ATOM_CACHE",
	[14] = "SMALL_ATOM_TAGS",
	[16] = "UTF8_ATOMS",
	[17] = "MAP_TAG",
	[18] = "BIG_CREATION",
	[19] = "SEND_SENDER",
	[20] = "BIG_SEQTRACE_LABELS",
	[22] = "EXIT_PAYLOAD",
	[23] = "FRAGMENTS",
	[24] = "HANDSHAKE_23",
	[25] = "UNLINK_ID",
	[26] = "MANDATORY_25_DIGEST",
	[27] = "MULTISEND",
	[32] = "SPAWN",
	[33] = "NAME_ME",
	[34] = "V4_NC",
	[35] = "ALIAS",
};

size_t act__flags_format(uint64_t f, char *buf, size_t cap)
{
	char one[32];
	size_t n = 0, k;
	int bit;

	if (!cap)
		return 0;
	buf[0] = '\0';
	for (bit = 0; bit < 64; bit++) {
		if (!(f >> bit & 1))
			continue;
		if (names[bit])
			snprintf(one, sizeof(one), "%s%s", n ? " " : "",
				 names[bit]);
		else
			snprintf(one, sizeof(one), "%sbit%d", n ? " " : "",
				 bit);
		k = strlen(one);
		if (n + k + 4 > cap) { /* room for "..." and the NUL */
			if (n + 4 <= cap)
				memcpy(buf + n, "...", 4);
			return strlen(buf);
		}
		memcpy(buf + n, one, k + 1);
		n += k;
	}
	return n;
}
