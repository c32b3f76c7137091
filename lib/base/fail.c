/* SPDX-License-Identifier: MIT */
/* fail.c - ACT_TEST_FAIL's rules and their counters; see fail.h. */
#include <errno.h>
#include <string.h>

#include "fail.h"

_Atomic bool act__fail_armed;

static const char *const names[ACT_FAIL_SITES] = {
	[ACT_FAIL_SLOT] = "slot",
	[ACT_FAIL_STACK] = "stack",
	[ACT_FAIL_ENVELOPE] = "envelope",
	[ACT_FAIL_SLAB] = "slab",
	[ACT_FAIL_MMAP] = "mmap",
	[ACT_FAIL_MBIND] = "mbind",
	[ACT_FAIL_MADVISE] = "madvise",
	[ACT_FAIL_RING_SETUP] = "ring_setup",
	[ACT_FAIL_SUBMIT_BUSY] = "submit_busy",
	[ACT_FAIL_SUBMIT_AGAIN] = "submit_again",
	[ACT_FAIL_CQ_OVERFLOW] = "cq_overflow",
	[ACT_FAIL_FUTEX_EINTR] = "futex_eintr",
	[ACT_FAIL_FUTEX_EAGAIN] = "futex_eagain",
	[ACT_FAIL_THREAD] = "thread",
	[ACT_FAIL_HWLOC] = "hwloc",
};

/* The armed rules: written by act__fail_arm before the runtime's
 * threads start (their creation orders it), read-only while armed. */
static struct act__fail_spec armed;
static uint64_t armed_seed;
/* each site's counts, any thread: relaxed adds, nothing hangs on them */
static struct {
	_Atomic uint64_t calls, fired;
} count[ACT_FAIL_SITES];

const char *act__fail_name(enum act__fail_site site)
{
	return (unsigned)site < ACT_FAIL_SITES ? names[site] : NULL;
}

/* A whole number of [s, end) in [1, max], digits only: 0 or -EINVAL. */
static int number(const char *s, const char *end, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;

	if (s == end || end - s > 10)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v < 1 || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* One rule, [s, end): "site:N", "site:N+" or "site:1/P". */
static int rule(const char *s, const char *end, struct act__fail_spec *spec)
{
	const char *colon = memchr(s, ':', (size_t)(end - s));
	struct act__fail_rule r = { 0, 0, false };
	const char *slash;
	int i;

	if (!colon)
		return -EINVAL;
	for (i = 0; i < ACT_FAIL_SITES; i++)
		if (strlen(names[i]) == (size_t)(colon - s) &&
		    !memcmp(s, names[i], (size_t)(colon - s)))
			break;
	if (i == ACT_FAIL_SITES || spec->rule[i].n)
		return -EINVAL; /* unknown, or a site twice */
	s = colon + 1;
	slash = memchr(s, '/', (size_t)(end - s));
	if (slash) {
		if (slash - s != 1 || *s != '1' ||
		    number(slash + 1, end, ACT_FAIL_P_MAX, &r.one_in))
			return -EINVAL;
		r.n = 1;
	} else {
		r.every = end > s && end[-1] == '+';
		if (number(s, end - r.every, ACT_FAIL_N_MAX, &r.n))
			return -EINVAL;
	}
	spec->rule[i] = r;
	return 0;
}

int act__fail_parse(const char *s, struct act__fail_spec *spec)
{
	struct act__fail_spec own;
	const char *end;

	if (!spec)
		spec = &own;
	memset(spec, 0, sizeof(*spec));
	if (!s || !*s)
		return -EINVAL;
	for (;; s = end + 1) {
		end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		if (rule(s, end, spec)) {
			memset(spec, 0, sizeof(*spec));
			return -EINVAL;
		}
		if (!*end)
			return 0;
	}
}

int act__fail_check(const char *s)
{
	return act__fail_parse(s, NULL);
}

void act__fail_arm(const struct act__fail_spec *spec, uint64_t seed)
{
	bool any = false;
	int i;

	memset(&armed, 0, sizeof(armed));
	for (i = 0; i < ACT_FAIL_SITES; i++) {
		atomic_store_explicit(&count[i].calls, 0, memory_order_relaxed);
		atomic_store_explicit(&count[i].fired, 0, memory_order_relaxed);
		if (spec && spec->rule[i].n) {
			armed.rule[i] = spec->rule[i];
			any = true;
		}
	}
	armed_seed = seed;
	/* relaxed: the threads that test it are created after this store
	 * (or, off the runtime, order nothing by it) */
	atomic_store_explicit(&act__fail_armed, any, memory_order_relaxed);
}

void act__fail_disarm(void)
{
	atomic_store_explicit(&act__fail_armed, false, memory_order_relaxed);
}

bool act__fail_hit(enum act__fail_site site)
{
	const struct act__fail_rule *r = &armed.rule[site];
	uint64_t call;
	bool fail;

	if (!r->n)
		return false;
	call = atomic_fetch_add_explicit(&count[site].calls, 1,
					 memory_order_relaxed) +
	       1;
	if (r->one_in)
		fail = act__internal_mix64(armed_seed * 0x9e3779b97f4a7c15ull ^
					   (uint64_t)site << 56 ^ call) %
			       r->one_in ==
		       0;
	else
		fail = r->every ? call >= r->n : call == r->n;
	if (fail)
		atomic_fetch_add_explicit(&count[site].fired, 1,
					  memory_order_relaxed);
	return fail;
}

uint64_t act__fail_calls(enum act__fail_site site)
{
	return atomic_load_explicit(&count[site].calls, memory_order_relaxed);
}

uint64_t act__fail_fired(enum act__fail_site site)
{
	return atomic_load_explicit(&count[site].fired, memory_order_relaxed);
}
