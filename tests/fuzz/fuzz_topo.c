/* SPDX-License-Identifier: MIT */
/*
 * fuzz_topo.c - libFuzzer target: a machine as `actors topo --synthetic`
 * and `--xml` take it (and ACT_TEST_TOPOLOGY), with an ACTORS_CPUS list,
 * through lib/affinity/topology.c; when it loads, the plan of every
 * binding (plan.c) and the split into instances (instances.c) are made
 * of it too.
 *
 * The input's first byte: bit 0, XML (written to a file, as --xml reads
 * one) or a synthetic description; bit 1, a CPU list follows the
 * description after a NUL; bits 2-4, the workers asked for (0: the
 * default); bits 5-7, instances. A synthetic machine of more than 4,096
 * PUs (the product of its counts) is not tried: hwloc would build it.
 * An XML file is loaded in a child process first (act__topology_xml_probe,
 * as `actors topo --xml` does): hwloc 2.9's importer crashes on some
 * damaged files (tests/regress/fuzz_topo) and leaks on refusing others,
 * which are hwloc's to fix; the load here takes only a file that loaded
 * there.
 *
 * Beyond "no crash, no sanitizer report": a topology that loads has
 * usable PUs and cores, no more than it has; a plan has the workers
 * asked for; a split gives each instance a CPU list.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actors.h"
#include "affinity/instances.h"
#include "affinity/plan.h"
#include "affinity/topology.h"

#define MAX_PUS 4096

static char xml[64];

/* LeakSanitizer's suppressions, built in (the fuzzer's and the replay's):
 * hwloc 2.9 leaks on refusing some synthetic descriptions, a bad
 * attribute after a good one ("pack:2 [numa(memory=1GB)] core:2 pa:1",
 * tests/regress/fuzz_topo), after its topology is destroyed. hwloc's to
 * fix; a leak of the runtime's is still reported. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libhwloc.so\n";
}

static void cleanup(void)
{
	unlink(xml);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc;
	(void)argv;
	snprintf(xml, sizeof(xml), "/tmp/fuzz_topo.XXXXXX");
	fd = mkstemp(xml);
	if (fd < 0)
		abort();
	close(fd);
	atexit(cleanup);
	return 0;
}

/* The product of the counts: the numbers after each ':', after '*'
 * (hwloc's other count), and the bare ones ("2 4 2": a level each),
 * within MAX_PUS. hwloc takes time quadratic in the objects to build a
 * synthetic topology (a bare "8888" took 8 s, and its fuzzer's run
 * past its limit). */
static int small_enough(const char *s)
{
	unsigned long long pus = 1, v;
	const char *at = s;
	char *end;

	for (; *s; s++) {
		const char *n = s + 1;

		if (s == at && *s >= '0' && *s <= '9')
			n = s; /* a bare count at the start */
		else if ((*s == ' ' || *s == '\t' || *s == '\n') &&
			 s[1] >= '0' && s[1] <= '9')
			n = s + 1; /* a bare count after a blank */
		else if (*s != ':' && *s != '*')
			continue;
		v = strtoull(n, &end, 10);
		if (end == n)
			continue;
		if (v > MAX_PUS || (pus *= v ? v : 1) > MAX_PUS)
			return 0;
		s = end - 1;
	}
	return 1;
}

static void plans(const struct act__topo *t, int workers)
{
	struct act__plan_in in = { .schedulers = workers, .reactor = -1 };
	struct act__plan pl;
	char why[256];
	int b;

	for (b = ACT_BIND_NONE; b <= ACT_BIND_NUMA; b++) {
		in.bind = b;
		if (act__plan_make(&pl, t, &in, why, sizeof(why)))
			continue;
		if (workers && pl.nworkers != workers)
			abort();
		act__plan_free(&pl);
	}
}

static void split(const struct act__topo *t, int n)
{
	struct act__instance in[8];
	char why[256];
	int i;

	if (act__instances_split(t, n, in, why, sizeof(why)))
		return;
	for (i = 0; i < n; i++)
		if (!in[i].cpus || !*in[i].cpus || in[i].npus < 1)
			abort();
	act__instances_free(in, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct act__topo_src src = { 0 };
	struct act__topo t;
	const char *cpus = NULL;
	char *s, why[256];
	FILE *f;

	if (n < 1)
		return 0;
	s = malloc(n + 1);
	if (!s)
		abort();
	memcpy(s, d + 1, n - 1);
	s[n - 1] = s[n] = '\0';
	if (d[0] & 2) /* the CPU list after the description's NUL */
		cpus = s + strlen(s) + 1;
	if (d[0] & 1) {
		f = fopen(xml, "w");
		if (!f)
			abort();
		fwrite(s, 1, strlen(s), f);
		fclose(f);
		/* in a child first, as `actors topo --xml` does: hwloc's
		 * importer crashes on some files, and leaks on refusing
		 * others; only one it loads is loaded here */
		if (act__topology_xml_probe(xml, why, sizeof(why)) != 0)
			goto out;
		src.xml = xml;
	} else {
		if (!small_enough(s))
			goto out;
		src.synthetic = s;
	}
	if (act__topology_load(&t, &src, cpus, "ACTORS_CPUS", why,
			       sizeof(why)) == 0) {
		if (t.nusable_pus < 1 || t.nusable_cores < 1 ||
		    t.nusable_pus > t.npus || t.nusable_cores > t.ncores)
			abort();
		plans(&t, (d[0] >> 2) & 7);
		split(&t, 1 + (d[0] >> 5));
		act__topology_free(&t);
	}
out:
	free(s);
	return 0;
}
