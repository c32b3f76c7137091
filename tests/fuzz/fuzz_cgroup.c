/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cgroup.c - libFuzzer target: what lib/affinity/cgroup.c reads from
 * the kernel, made of the input: /proc/self/cgroup, /proc/self/mountinfo,
 * and a cgroup's cpu.max, cpu.cfs_quota_us, cpu.cfs_period_us and
 * cpuset.cpus.effective, at a mount point and at a cgroup below it.
 *
 * The input is up to eight parts separated by the line "--" (a missing
 * part: no file): the cgroup file, the mountinfo (where "%T" stands for
 * the fuzzer's own directory, so that a mount can point at the files it
 * wrote), then cpu.max, cpu.cfs_quota_us, cpu.cfs_period_us and
 * cpuset.cpus.effective at the mount (T/fs), and cpu.max and
 * cpuset.cpus.effective of the cgroup /a below it (T/fs/a).
 *
 * Beyond "no crash, no sanitizer report": a quota is 0 (none) or
 * positive and finite; a cpuset is 0 with CPUs in it, or -ENOENT,
 * -EINVAL or -ENOMEM with none (cgroup.h).
 */
#include <errno.h>
#include <hwloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "affinity/cgroup.h"

#define PARTS 8

static char dir[64];
static const char *const names[PARTS] = {
	"cgroup",
	"mountinfo",
	"fs/cpu.max",
	"fs/cpu.cfs_quota_us",
	"fs/cpu.cfs_period_us",
	"fs/cpuset.cpus.effective",
	"fs/a/cpu.max",
	"fs/a/cpuset.cpus.effective",
};

static void path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void cleanup(void)
{
	char p[128];
	int i;

	for (i = 0; i < PARTS; i++) {
		path(p, sizeof(p), names[i]);
		unlink(p);
	}
	path(p, sizeof(p), "fs/a");
	rmdir(p);
	path(p, sizeof(p), "fs");
	rmdir(p);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char p[128];

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "/tmp/fuzz_cgroup.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	path(p, sizeof(p), "fs");
	mkdir(p, 0700);
	path(p, sizeof(p), "fs/a");
	mkdir(p, 0700);
	atexit(cleanup);
	return 0;
}

/* Part text[0..len) into file i, "%T" replaced by the directory. */
static void write_part(int i, const char *text, size_t len)
{
	char p[128];
	FILE *f;
	size_t k;

	path(p, sizeof(p), names[i]);
	f = fopen(p, "w");
	if (!f)
		abort();
	for (k = 0; k < len; k++) {
		if (text[k] == '%' && k + 1 < len && text[k + 1] == 'T') {
			fputs(dir, f);
			k++;
		} else {
			fputc(text[k], f);
		}
	}
	fclose(f);
}

static void check_cpuset(int rc, hwloc_bitmap_t set)
{
	if (rc == 0 ? hwloc_bitmap_iszero(set) :
		      (rc != -ENOENT && rc != -EINVAL && rc != -ENOMEM) ||
			      !hwloc_bitmap_iszero(set))
		abort();
}

static void check_quota(double q)
{
	if (!(q == 0 || (q > 0 && isfinite(q))))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const char *s = (const char *)d, *end = s + n, *sep;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char cg[128], mi[128], fs[128];
	int i;

	if (!set)
		abort();
	for (i = 0; i < PARTS; i++) {
		char p[128];

		path(p, sizeof(p), names[i]);
		unlink(p);
	}
	for (i = 0; i < PARTS && s <= end; i++) {
		sep = memmem(s, (size_t)(end - s), "\n--\n", 4);
		write_part(i, s, sep ? (size_t)(sep - s) : (size_t)(end - s));
		s = sep ? sep + 4 : end + 1;
	}
	path(cg, sizeof(cg), "cgroup");
	path(mi, sizeof(mi), "mountinfo");
	path(fs, sizeof(fs), "fs");
	check_quota(act__cgroup_quota_at(cg, mi));
	check_cpuset(act__cgroup_cpuset_at(cg, mi, set), set);
	check_quota(act__cgroup_quota(fs));
	check_cpuset(act__cgroup_cpuset(fs, set), set);
	hwloc_bitmap_free(set);
	return 0;
}
