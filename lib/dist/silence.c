/* SPDX-License-Identifier: MIT */
/*
 * silence.c - whether a connected node has gone silent (silence.h).
 */
#include <sys/ioctl.h>

#include "silence.h"

enum act__silence act__silence_check(int64_t now, int64_t last_in,
				     int64_t tick_ns, int fd)
{
	int queued = 0;

	if (now - last_in < tick_ns)
		return ACT__SILENCE_HEARD;
	if (ioctl(fd, FIONREAD, &queued) == 0 && queued > 0)
		return ACT__SILENCE_BEHIND;
	return ACT__SILENCE_DOWN;
}
