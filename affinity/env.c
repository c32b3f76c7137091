/* SPDX-License-Identifier: MIT */
/* env.c - ACTORS_* parsing; see env.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "env.h"

int act__parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int act__parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (tolower((unsigned char)*end)) {
	case '\0':
		break;
	case 'k':
		shift = 10;
		break;
	case 'm':
		shift = 20;
		break;
	case 'g':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (shift && (end[1] != '\0' || v > (SIZE_MAX >> shift)))
		return -EINVAL;
	*out = (size_t)v << shift;
	return 0;
}

size_t act__stack_size_ok(size_t size)
{
	if (size < ACT_STACK_MIN || size > ACT_STACK_MAX)
		return 0;
	return (size + 4095) & ~(size_t)4095;
}

int act__env_stack_size(const char *name, size_t *out)
{
	const char *v = getenv(name);
	size_t sz;

	if (*out || !v)
		return 0;
	if (act__parse_size(v, &sz) || !act__stack_size_ok(sz)) {
		fprintf(stderr,
			"actors: %s=\"%s\": expected a size in bytes with an "
			"optional k, m or g suffix, from 16k to 1g "
			"(e.g. 64k or 1m)\n",
			name, v);
		return -EINVAL;
	}
	*out = act__stack_size_ok(sz);
	return 0;
}

int act__env_uint(const char *name, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	const char *v = getenv(name);

	if (*out || !v)
		return 0;
	if (act__parse_uint(v, min, max, out)) {
		fprintf(stderr,
			"actors: %s=\"%s\": expected a whole number from "
			"%llu to %llu\n",
			name, v, (unsigned long long)min,
			(unsigned long long)max);
		return -EINVAL;
	}
	return 0;
}
