/* SPDX-License-Identifier: MIT */
/* env.c - the parsers of ACTORS_* values; see env.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

int act__env_parse_uint(const char *s, uint64_t min, uint64_t max,
			uint64_t *out)
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

int act__env_parse_size(const char *s, size_t *out)
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

int act__env_parse_duration(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "ns", 1 },
		      { "us", 1000 },
		      { "ms", 1000000 },
		      { "s", 1000000000 } };
	unsigned long long v;
	char *end;
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v > UINT64_MAX / units[i].ns)
				return -EINVAL;
			*out = (uint64_t)v * units[i].ns;
			return 0;
		}
	return -EINVAL;
}

size_t act__env_stack_size_ok(size_t size)
{
	if (size < ACT_STACK_MIN || size > ACT_STACK_MAX)
		return 0;
	return (size + 4095) & ~(size_t)4095;
}
