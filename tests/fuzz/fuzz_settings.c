/* SPDX-License-Identifier: MIT */
/*
 * fuzz_settings.c - libFuzzer target: every parser of an ACTORS_* value
 * (lib/settings/env.c, vars.c) and of a CPU list (lib/affinity/cpulist.c,
 * ACTORS_CPUS and the cgroup cpuset files). The input's first byte picks
 * the parser (and for the table's resolver, the variable); the rest is
 * the value, up to its first NUL. ACT_TEST_FAIL's values go through its
 * own parser too (lib/base/fail.c).
 *
 * Beyond "no crash, no sanitizer report": a number taken lies within the
 * bounds asked for; a CPU list taken names CPUs up to ACT_CPU_MAX only,
 * and hwloc's writing of it parses back to the same set; a value the
 * resolver refuses leaves -EINVAL and its one error line (on stderr,
 * which the fuzzer's -close_fd_mask=2 quiets), never another code.
 */
#include <errno.h>
#include <hwloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/cpulist.h"
#include "affinity/plan.h"
#include "base/fail.h"
#include "settings/env.h"
#include "settings/vars.h"

static void cpulist(const char *s)
{
	hwloc_bitmap_t a = hwloc_bitmap_alloc(), b = hwloc_bitmap_alloc();
	char why[128], *text = NULL;
	int rc;

	if (!a || !b)
		abort();
	rc = act__cpulist_parse(s, a, why, sizeof(why));
	if (rc == 0) {
		if (hwloc_bitmap_last(a) > ACT_CPU_MAX)
			abort();
		if (hwloc_bitmap_list_asprintf(&text, a) < 0)
			abort();
		/* an empty set is written "", which the parser refuses */
		if (*text && (act__cpulist_parse(text, b, NULL, 0) != 0 ||
			      !hwloc_bitmap_isequal(a, b)))
			abort();
		free(text);
	} else if (rc != -EINVAL && rc != -ENOMEM) {
		abort();
	} else if (!hwloc_bitmap_iszero(a)) {
		abort(); /* on error out is left empty (cpulist.h) */
	}
	hwloc_bitmap_free(a);
	hwloc_bitmap_free(b);
}

/* ACT_TEST_FAIL's rules: what is taken is within the limits, what is
 * refused leaves no rule */
static void fail_rules(const char *s)
{
	struct act__fail_spec spec;
	int rc = act__fail_parse(s, &spec), i;

	if (rc != 0 && rc != -EINVAL)
		abort();
	for (i = 0; i < ACT_FAIL_SITES; i++) {
		const struct act__fail_rule *r = &spec.rule[i];

		bool none = !r->n && !r->one_in && !r->every;
		bool within = r->n <= ACT_FAIL_N_MAX &&
			      r->one_in <= ACT_FAIL_P_MAX &&
			      (!r->one_in || (r->n == 1 && !r->every));

		if (rc ? !none : !within)
			abort();
	}
}

static void resolve(int id, const char *s)
{
	struct act__settings set;
	char buf[256];
	int rc;

	act__vars_expect(&act__vars[id], buf, sizeof(buf));
	act__vars_default(&act__vars[id], buf, sizeof(buf));
	if (setenv(act__vars[id].name, s, 1))
		return;
	act__vars_settings_init(&set, NULL);
	rc = act__vars_resolve(&set, ACT_VAR_BIT(id));
	if (rc != 0 && rc != -EINVAL)
		abort();
	if (id == ACT_VAR_TEST_FAIL)
		fail_rules(s);
	unsetenv(act__vars[id].name);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	uint64_t v, min, max;
	size_t size;
	char *s;

	if (n < 1)
		return 0;
	s = malloc(n);
	if (!s)
		abort();
	memcpy(s, d + 1, n - 1);
	s[n - 1] = '\0';
	switch (d[0] % 6) {
	case 0:
		if (act__env_parse_size(s, &size) == 0)
			act__env_stack_size_ok(size);
		break;
	case 1:
		act__env_parse_duration(s, &v);
		break;
	case 2:
		min = d[0] >> 4;
		max = min + ((uint64_t)1 << (d[0] & 15) * 4);
		if (act__env_parse_uint(s, min, max, &v) == 0 &&
		    (v < min || v > max))
			abort();
		break;
	case 3:
		cpulist(s);
		break;
	case 4:
		act__plan_bind_parse(s);
		break;
	default:
		resolve((d[0] / 6) % ACT_VARS, s);
		break;
	}
	free(s);
	return 0;
}
