/* SPDX-License-Identifier: MIT */
/*
 * linger.c - when a connection's reader waits for a batch (linger.h).
 */
#include "linger.h"

void act__linger_init(struct act__linger *l, int64_t ns)
{
	*l = (struct act__linger){ .ns = ns > 0 ? ns : 0,
				   .state = ACT__LINGER_EAGER,
				   .wait = 1,
				   .backoff = 1,
				   .hold_next = ACT__LINGER_HOLD };
}

/* frames over ns at least ACT__LINGER_KEEP_PCT percent of the eager
 * window's rate? (cross-multiplied: no division, no float) */
static bool keeps_up(const struct act__linger *l, uint64_t frames, int64_t ns)
{
	unsigned __int128 now = (unsigned __int128)frames *
				(uint64_t)l->eager_ns * 100,
			  was = (unsigned __int128)l->eager_frames *
				(uint64_t)ns * ACT__LINGER_KEEP_PCT;

	return now >= was;
}

/* v twice, at most max */
static uint32_t doubled(uint32_t v, uint32_t max)
{
	return v * 2 > max ? max : v * 2;
}

/* The waits lost: eager again, the next trial `backoff` windows away,
 * and the one after that twice as far. */
static void give_up(struct act__linger *l)
{
	l->state = ACT__LINGER_EAGER;
	l->strikes = 0;
	l->wait = l->backoff;
	l->backoff = doubled(l->backoff, ACT__LINGER_BACKOFF_MAX);
	l->hold_next = ACT__LINGER_HOLD;
}

/* A window closed with frames over ns: the verdict on the state it was
 * measured in. */
static void verdict(struct act__linger *l, uint64_t frames, int64_t ns)
{
	switch (l->state) {
	case ACT__LINGER_EAGER:
		l->eager_frames = frames;
		l->eager_ns = ns;
		if (l->wait && --l->wait)
			break;
		l->state = ACT__LINGER_TRIAL;
		l->trials++;
		break;
	case ACT__LINGER_TRIAL:
		if (!keeps_up(l, frames, ns)) {
			give_up(l);
			break;
		}
		l->kept++;
		l->state = ACT__LINGER_ON;
		l->backoff = 1;
		l->hold = l->hold_next;
		l->hold_next = doubled(l->hold_next, ACT__LINGER_HOLD_MAX);
		break;
	default: /* ON */
		/* one slow window can be the machine's: two in a row are
		 * the waits' */
		if (!keeps_up(l, frames, ns)) {
			if (++l->strikes >= 2)
				give_up(l);
			break;
		}
		l->strikes = 0;
		if (!--l->hold) {
			/* the eager rate again, then a trial against it */
			l->state = ACT__LINGER_EAGER;
			l->wait = 1;
		}
		break;
	}
}

int64_t act__linger_after_read(struct act__linger *l, int64_t now,
			       uint32_t frames)
{
	int64_t el;

	if (!l->ns)
		return 0;
	if (!l->win_start) {
		l->win_start = now;
	} else {
		l->win_reads++;
		l->win_frames += frames;
		el = now - l->win_start;
		if (el >= ACT__LINGER_GAP_NS || el < 0) {
			l->win_start = now;
			l->win_reads = 0;
			l->win_frames = 0;
		} else if (el >= ACT__LINGER_WINDOW_NS &&
			   l->win_reads >= ACT__LINGER_WINDOW_READS) {
			verdict(l, l->win_frames, el);
			l->win_start = now;
			l->win_reads = 0;
			l->win_frames = 0;
		}
	}
	return l->state != ACT__LINGER_EAGER && frames >= 2 ? l->ns : 0;
}
