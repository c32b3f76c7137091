/* SPDX-License-Identifier: MIT */
/*
 * test_cgroup.c - the CPU list parser (lib/affinity/cpulist.c) and the cgroup CPU
 * quota and cpuset (lib/affinity/cgroup.c). The cgroups are simulated with
 * temporary directories, and the process's /proc files with temporary
 * files whose mountinfo names those directories, so a container's view is
 * checked on any machine.
 */
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>

#include <hwloc.h>

#include "testutil.h"

#include "affinity/cgroup.h"
#include "affinity/cpulist.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- act__cpulist_parse -------------------------------------------- */

/* Good lists and the set each gives, in hwloc's canonical list form. */
static const struct {
	const char *s;
	const char *set;
	int weight;
} good[] = {
	{ "0", "0", 1 },
	{ "3", "3", 1 },
	{ "0-7,16-23", "0-7,16-23", 16 },
	{ "0,2,4", "0,2,4", 3 },
	{ "0-3,8", "0-3,8", 5 },
	{ "0-3,8\n", "0-3,8", 5 },
	{ "  1-2 \n", "1-2", 2 },
	{ "\t0-1\t", "0-1", 2 },
	{ "0, 2 ,4", "0,2,4", 3 },
	{ "8,0-3", "0-3,8", 5 },
	{ "5-5", "5", 1 },
	{ "007", "7", 1 },
	{ "0-15:2", "0,2,4,6,8,10,12,14", 8 },
	{ "1-10:3", "1,4,7,10", 4 },
	{ "0-3:8", "0", 1 },
	{ "0-3:1", "0-3", 4 },
	{ "65535", "65535", 1 },
	{ "0-65535", "0-65535", 65536 },
};

/* Bad lists and a word the reason must hold. */
static const struct {
	const char *s;
	const char *word;
} bad[] = {
	{ "", "the list is empty" },
	{ " ", "the list is empty" },
	{ "\n", "the list is empty" },
	{ NULL, "the list is empty" },
	{ ",", "element 1 is empty" },
	{ "1,,2", "element 2 is empty" },
	{ "1,", "element 2 is empty" },
	{ "a", "\"a\" is not a number" },
	{ "+1", "not a number" },
	{ "-1", "\"-1\" is negative" },
	{ "-", "\"-\" is not a number" },
	{ "3-1", "range 3-1 is reversed" },
	{ "1,1", "CPU 1 is named twice" },
	{ "0-3,2", "CPU 2 is named twice" },
	{ "0-3,2-5", "CPU 2 is named twice" },
	{ "1-", "range \"1-\" has no end" },
	{ "1-x", "not a number" },
	{ "1--2", "not a number" },
	{ "99999999", "above" },
	{ "65536", "above" },
	{ "0-65536", "above" },
	{ "99999999999999999999999", "above" },
	{ "0-3x", "junk \"x\" after \"0-3\"" },
	{ "0x3", "junk" },
	{ "1 2", "junk" },
	{ "1-2-3", "junk" },
	{ "3:2", "junk" },
	{ "0-7:0", "stride" },
	{ "0-7:", "stride" },
	{ "0-7:x", "stride" },
};

START_TEST(cpulist_good)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char why[128] = "unset", *got = NULL;

	ck_assert_ptr_nonnull(set);
	hwloc_bitmap_set(set, 100); /* the parser must empty it first */
	ck_assert_msg(act__cpulist_parse(good[_i].s, set, why, sizeof(why)) ==
			      0,
		      "\"%s\" rejected: %s", good[_i].s, why);
	ck_assert_int_ge(hwloc_bitmap_list_asprintf(&got, set), 0);
	ck_assert_msg(!strcmp(got, good[_i].set),
		      "\"%s\" -> {%s}, expected {%s}", good[_i].s, got,
		      good[_i].set);
	ck_assert_int_eq(hwloc_bitmap_weight(set), good[_i].weight);
	free(got);
	hwloc_bitmap_free(set);
}
END_TEST

START_TEST(cpulist_bad)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char why[128] = "";

	ck_assert_ptr_nonnull(set);
	ck_assert_msg(act__cpulist_parse(bad[_i].s, set, why, sizeof(why)) ==
			      -EINVAL,
		      "\"%s\" accepted", bad[_i].s ? bad[_i].s : "(null)");
	ck_assert_msg(why[0], "\"%s\": no reason given", bad[_i].s);
	ck_assert_msg(strstr(why, bad[_i].word),
		      "\"%s\": reason \"%s\" lacks \"%s\"", bad[_i].s, why,
		      bad[_i].word);
	ck_assert_msg(!strchr(why, '\n'), "reason \"%s\" breaks the line", why);
	/* a failed parse leaves nothing half-set */
	ck_assert_msg(hwloc_bitmap_iszero(set), "\"%s\": set not empty",
		      bad[_i].s);
	hwloc_bitmap_free(set);
}
END_TEST

/* The reason fits any buffer, none included. */
START_TEST(cpulist_why_buffer)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char why[8];

	memset(why, 'x', sizeof(why));
	ck_assert_int_eq(act__cpulist_parse("7-3", set, why, 5), -EINVAL);
	ck_assert_str_eq(why, "rang");
	ck_assert_int_eq(why[5], 'x');
	ck_assert_int_eq(act__cpulist_parse("7-3", set, NULL, 0), -EINVAL);
	ck_assert_int_eq(act__cpulist_parse("7-3", set, why, 0), -EINVAL);
	ck_assert_int_eq(act__cpulist_parse("1-3", set, NULL, 0), 0);
	ck_assert_int_eq(hwloc_bitmap_weight(set), 3);
	hwloc_bitmap_free(set);
}
END_TEST

/* ---- simulated cgroups --------------------------------------------- */

static char tmp[64];

static void tmp_make(void)
{
	strcpy(tmp, "/tmp/act_cgroup.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void tmp_remove(void)
{
	ck_assert_int_eq(nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* tmp/REL, formatted. */
static const char *at(const char *fmt, ...)
{
	static char path[4][512];
	static unsigned n;
	char *p = path[n++ % 4];
	int len;
	va_list ap;

	len = snprintf(p, 512, "%s/", tmp);
	va_start(ap, fmt);
	vsnprintf(p + len, 512 - (size_t)len, fmt, ap);
	va_end(ap);
	return p;
}

/* mkdir -p tmp/rel */
static void mkdirs(const char *rel)
{
	char path[512], *s;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	for (s = path + strlen(tmp) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		ck_assert(!mkdir(path, 0700) || errno == EEXIST);
		*s = '/';
	}
	ck_assert(!mkdir(path, 0700) || errno == EEXIST);
}

/* Write text to tmp/rel, making the directories on the way. */
static void put(const char *rel, const char *text)
{
	char dir[512], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		mkdirs(dir);
	}
	f = fopen(at("%s", rel), "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* cpu.max contents and the CPUs they give; 0 is "no quota". */
static const struct {
	const char *text;
	double cpus;
} cpu_max[] = {
	{ "max 100000", 0 },
	{ "max 100000\n", 0 },
	{ "250000 100000", 2.5 },
	{ "50000 100000", 0.5 },
	{ "200000 100000\n", 2.0 },
	{ "100000 100000\n", 1.0 },
	{ "150000 50000\n", 3.0 },
	{ "1000 100000\n", 0.01 },
	{ "abc", 0 },
	{ "", 0 },
	{ "\n", 0 },
	{ "0 100000", 0 },
	{ "100000 0", 0 },
	{ "100000", 0 },
	{ "100000\n", 0 },
	{ "max", 0 },
	{ "-5 100000", 0 },
	{ "250000  100000", 0 },
	{ "250000 100000 7", 0 },
	{ "250000 100000x", 0 },
	{ " 250000 100000", 0 },
	{ "9999999999999999999999 100000", 0 },
	{ "250000 99999999999999999999999", 0 },
};

START_TEST(quota_cpu_max)
{
	double q;

	tmp_make();
	put("cpu.max", cpu_max[_i].text);
	q = act__cgroup_quota(tmp);
	ck_assert_msg(fabs(q - cpu_max[_i].cpus) < 1e-9,
		      "cpu.max \"%s\" -> %g, expected %g", cpu_max[_i].text, q,
		      cpu_max[_i].cpus);
	tmp_remove();
}
END_TEST

/* No cpu.max: no quota. */
START_TEST(quota_no_file)
{
	tmp_make();
	ck_assert(act__cgroup_quota(tmp) == 0);
	tmp_remove();
	ck_assert(act__cgroup_quota("/nonexistent/act_cgroup") == 0);
}
END_TEST

/* A directory with the v1 files instead; -1 is unlimited. */
START_TEST(quota_v1_files)
{
	tmp_make();
	put("cpu.cfs_quota_us", "150000\n");
	put("cpu.cfs_period_us", "100000\n");
	ck_assert_double_eq_tol(act__cgroup_quota(tmp), 1.5, 1e-9);
	put("cpu.cfs_quota_us", "-1\n");
	ck_assert(act__cgroup_quota(tmp) == 0);
	put("cpu.cfs_quota_us", "-7\n");
	ck_assert(act__cgroup_quota(tmp) == 0);
	put("cpu.cfs_quota_us", "150000\n");
	put("cpu.cfs_period_us", "0\n");
	ck_assert(act__cgroup_quota(tmp) == 0);
	put("cpu.cfs_period_us", "junk\n");
	ck_assert(act__cgroup_quota(tmp) == 0);
	ck_assert_int_eq(remove(at("cpu.cfs_period_us")), 0);
	ck_assert(act__cgroup_quota(tmp) == 0);
	/* cpu.max, when there, is what counts */
	put("cpu.cfs_period_us", "100000\n");
	put("cpu.max", "50000 100000\n");
	ck_assert_double_eq_tol(act__cgroup_quota(tmp), 0.5, 1e-9);
	tmp_remove();
}
END_TEST

START_TEST(cpuset_file)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char *got = NULL;

	tmp_make();
	ck_assert_int_eq(act__cgroup_cpuset(tmp, set), -ENOENT);
	ck_assert(hwloc_bitmap_iszero(set));

	put("cpuset.cpus.effective", "0-3,8\n");
	ck_assert_int_eq(act__cgroup_cpuset(tmp, set), 0);
	ck_assert_int_ge(hwloc_bitmap_list_asprintf(&got, set), 0);
	ck_assert_str_eq(got, "0-3,8");
	ck_assert_int_eq(hwloc_bitmap_weight(set), 5);
	free(got);

	/* the kernel shows an empty file where no CPUs were assigned */
	put("cpuset.cpus.effective", "\n");
	ck_assert_int_eq(act__cgroup_cpuset(tmp, set), -ENOENT);
	put("cpuset.cpus.effective", "0-3,zz\n");
	ck_assert_int_eq(act__cgroup_cpuset(tmp, set), -EINVAL);
	ck_assert(hwloc_bitmap_iszero(set));

	/* v1's names */
	ck_assert_int_eq(remove(at("cpuset.cpus.effective")), 0);
	put("cpuset.cpus", "4-5\n");
	ck_assert_int_eq(act__cgroup_cpuset(tmp, set), 0);
	ck_assert_int_eq(hwloc_bitmap_first(set), 4);
	ck_assert_int_eq(hwloc_bitmap_weight(set), 2);
	put("cpuset.effective_cpus", "6\n");
	ck_assert_int_eq(act__cgroup_cpuset(tmp, set), 0);
	ck_assert_int_eq(hwloc_bitmap_first(set), 6);
	ck_assert_int_eq(hwloc_bitmap_weight(set), 1);
	tmp_remove();

	ck_assert_int_eq(act__cgroup_cpuset("/nonexistent/act_cgroup", set),
			 -ENOENT);
	hwloc_bitmap_free(set);
}
END_TEST

/* ---- simulated /proc/self/cgroup and mountinfo ---------------------- */

/* A mountinfo line for a cgroup2 mount of root at tmp/mnt. */
static void mountinfo_v2(const char *root, const char *mnt)
{
	char line[1024];

	snprintf(line, sizeof(line),
		 "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
		 "30 23 0:26 %s %s/%s rw,nosuid,nodev,noexec shared:4 - "
		 "cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
		 "31 23 0:27 / /sys/fs/pstore rw - pstore pstore rw\n",
		 root, tmp, mnt);
	put("mountinfo", line);
}

static double quota_at(void)
{
	return act__cgroup_quota_at(at("cgroup"), at("mountinfo"));
}

/* v2 on a host: the smallest limit from the leaf up to the mount. */
START_TEST(proc_v2_nested)
{
	tmp_make();
	put("cgroup", "0::/a/b/c\n");
	mountinfo_v2("/", "fs");
	put("fs/a/b/c/cpu.max", "300000 100000\n");
	put("fs/a/b/cpu.max", "max 100000\n");
	put("fs/a/cpu.max", "150000 100000\n");
	ck_assert_double_eq_tol(quota_at(), 1.5, 1e-9);
	/* the mount point counts: in a container it is the container */
	put("fs/cpu.max", "50000 100000\n");
	ck_assert_double_eq_tol(quota_at(), 0.5, 1e-9);
	put("fs/cpu.max", "max 100000\n");
	put("fs/a/cpu.max", "max 100000\n");
	ck_assert_double_eq_tol(quota_at(), 3.0, 1e-9);
	put("fs/a/b/c/cpu.max", "garbage\n");
	ck_assert(quota_at() == 0);
	/* a limit above the mount (outside a container) is out of sight */
	put("cpu.max", "10000 100000\n");
	ck_assert(quota_at() == 0);
	tmp_remove();
}
END_TEST

/* A container without a cgroup namespace: the mount shows /docker/abc. */
START_TEST(proc_v2_container_no_ns)
{
	tmp_make();
	put("cgroup", "0::/docker/abc\n");
	mountinfo_v2("/docker/abc", "fs");
	put("fs/cpu.max", "200000 100000\n");
	ck_assert_double_eq_tol(quota_at(), 2.0, 1e-9);
	/* a cgroup below the container's */
	put("cgroup", "0::/docker/abc/sub\n");
	put("fs/sub/cpu.max", "120000 100000\n");
	ck_assert_double_eq_tol(quota_at(), 1.2, 1e-9);
	/* a prefix that is not a path component does not count */
	put("cgroup", "0::/docker/abcdef\n");
	put("fsdef/cpu.max", "10000 100000\n");
	ck_assert_double_eq_tol(quota_at(), 2.0, 1e-9);
	tmp_remove();
}
END_TEST

/* A container with a namespace ("0::/"), and a path that is not there. */
START_TEST(proc_v2_container_ns)
{
	tmp_make();
	put("cgroup", "0::/\n");
	mountinfo_v2("/", "fs");
	put("fs/cpu.max", "400000 100000\n");
	ck_assert_double_eq_tol(quota_at(), 4.0, 1e-9);
	put("cgroup", "0::/not/here\n");
	ck_assert_double_eq_tol(quota_at(), 4.0, 1e-9);
	/*
	 * A path longer than PATH_MAX once the mount point is in front: the
	 * mount point. One longer than PATH_MAX itself: no cgroup.
	 */
	{
		static char path[PATH_MAX + 100];

		memset(path, 'x', sizeof(path) - 1);
		memcpy(path, "0::/", 4);
		path[PATH_MAX - 40] = '\n';
		path[PATH_MAX - 39] = '\0';
		put("cgroup", path);
		ck_assert_double_eq_tol(quota_at(), 4.0, 1e-9);
		path[PATH_MAX - 40] = 'x';
		path[PATH_MAX - 39] = 'x';
		path[sizeof(path) - 2] = '\n';
		put("cgroup", path);
		ck_assert(quota_at() == 0);
	}
	/* a namespace whose root is outside the process's cgroup */
	put("cgroup", "0::/../../other\n");
	mountinfo_v2("/..", "fs");
	ck_assert_double_eq_tol(quota_at(), 4.0, 1e-9);
	tmp_remove();
}
END_TEST

/* Two cgroup2 mounts: the one whose root holds the process's cgroup. */
START_TEST(proc_v2_two_mounts)
{
	char line[1024];

	tmp_make();
	put("cgroup", "0::/a\n");
	snprintf(line, sizeof(line),
		 "30 23 0:26 /other %s/fs1 rw - cgroup2 cgroup2 rw\n"
		 "31 23 0:26 / %s/fs2 rw - cgroup2 cgroup2 rw\n",
		 tmp, tmp);
	put("mountinfo", line);
	put("fs1/cpu.max", "10000 100000\n");
	put("fs2/a/cpu.max", "300000 100000\n");
	ck_assert_double_eq_tol(quota_at(), 3.0, 1e-9);
	tmp_remove();
}
END_TEST

/* A mount point with a space, which mountinfo writes as \040. */
START_TEST(proc_v2_escaped_mount)
{
	tmp_make();
	put("cgroup", "0::/x\n");
	mountinfo_v2("/", "my\\040fs");
	put("my fs/x/cpu.max", "70000 100000\n");
	ck_assert_double_eq_tol(quota_at(), 0.7, 1e-9);
	tmp_remove();
}
END_TEST

/* v1, also on a hybrid host, where the v1 cpu hierarchy is the one. */
START_TEST(proc_v1)
{
	char line[1024];

	tmp_make();
	put("cgroup", "12:cpuset:/\n"
		      "4:cpu,cpuacct:/x/y\n"
		      "1:name=systemd:/x/y\n"
		      "0::/x/y\n");
	snprintf(line, sizeof(line),
		 "40 25 0:35 / %s/v2 rw - cgroup2 cgroup2 rw\n"
		 "41 25 0:36 / %s/cpuset rw - cgroup cgroup rw,cpuset\n"
		 "42 25 0:37 / %s/cpu,cpuacct rw,nosuid shared:9 - cgroup "
		 "cgroup rw,cpu,cpuacct\n",
		 tmp, tmp, tmp);
	put("mountinfo", line);
	/* a v2 limit that must not be taken */
	put("v2/x/y/cpu.max", "10000 100000\n");
	put("cpu,cpuacct/x/y/cpu.cfs_quota_us", "-1\n");
	put("cpu,cpuacct/x/y/cpu.cfs_period_us", "100000\n");
	put("cpu,cpuacct/x/cpu.cfs_quota_us", "50000\n");
	put("cpu,cpuacct/x/cpu.cfs_period_us", "100000\n");
	put("cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
	put("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
	ck_assert_double_eq_tol(quota_at(), 0.5, 1e-9);
	put("cpu,cpuacct/x/cpu.cfs_quota_us", "-1\n");
	ck_assert(quota_at() == 0);
	put("cpu,cpuacct/x/y/cpu.cfs_quota_us", "250000\n");
	ck_assert_double_eq_tol(quota_at(), 2.5, 1e-9);
	tmp_remove();
}
END_TEST

/* Unreadable or nonsense /proc files: no quota, no cpuset, no crash. */
START_TEST(proc_broken)
{
	static const char *const cgroup[] = {
		"",	  "\n",	      "garbage", "0:", "0::", "0::relative\n",
		"::::\n", "4:cpu:\n",
	};
	static const char *const mountinfo[] = {
		"",
		"garbage\n",
		"1 2 3\n",
		"1 2 3 4 5 6 -\n",
		"1 2 3 4 5 6 - cgroup2\n",
	};
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	unsigned i, j;

	tmp_make();
	ck_assert(act__cgroup_quota_at(at("none"), at("none")) == 0);
	ck_assert_int_eq(act__cgroup_cpuset_at(at("none"), at("none"), set),
			 -ENOENT);
	for (i = 0; i < N(cgroup); i++) {
		for (j = 0; j < N(mountinfo); j++) {
			double q;

			put("cgroup", cgroup[i]);
			put("mountinfo", mountinfo[j]);
			q = quota_at();
			ck_assert_msg(q >= 0 && isfinite(q), "%g", q);
			act__cgroup_cpuset_at(at("cgroup"), at("mountinfo"),
					      set);
		}
	}
	tmp_remove();
	hwloc_bitmap_free(set);
}
END_TEST

/* The cpuset: the nearest level that has the file. */
START_TEST(proc_cpuset)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char line[512];

	tmp_make();
	put("cgroup", "0::/a/b\n");
	mountinfo_v2("/", "fs");
	ck_assert_int_eq(act__cgroup_cpuset_at(at("cgroup"), at("mountinfo"),
					       set),
			 -ENOENT);
	put("fs/cpuset.cpus.effective", "0-63\n");
	put("fs/a/cpuset.cpus.effective", "0-1\n");
	mkdirs("fs/a/b");
	ck_assert_int_eq(
		act__cgroup_cpuset_at(at("cgroup"), at("mountinfo"), set), 0);
	ck_assert_int_eq(hwloc_bitmap_weight(set), 2);
	put("fs/a/b/cpuset.cpus.effective", "1\n");
	ck_assert_int_eq(
		act__cgroup_cpuset_at(at("cgroup"), at("mountinfo"), set), 0);
	ck_assert_int_eq(hwloc_bitmap_weight(set), 1);
	ck_assert_int_eq(hwloc_bitmap_first(set), 1);

	/* v1: the cpuset hierarchy and its own file names */
	put("cgroup", "3:cpuset:/c\n2:cpu,cpuacct:/\n");
	snprintf(line, sizeof(line),
		 "41 25 0:36 / %s/cs rw - cgroup cgroup rw,cpuset\n", tmp);
	put("mountinfo", line);
	put("cs/c/cpuset.effective_cpus", "2-3\n");
	put("cs/c/cpuset.cpus", "2-7\n");
	ck_assert_int_eq(
		act__cgroup_cpuset_at(at("cgroup"), at("mountinfo"), set), 0);
	ck_assert_int_eq(hwloc_bitmap_first(set), 2);
	ck_assert_int_eq(hwloc_bitmap_weight(set), 2);
	tmp_remove();
	hwloc_bitmap_free(set);
}
END_TEST

/* This machine, whatever it is: an answer, and a sane one. */
START_TEST(this_machine)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	double q = act__cgroup_quota(NULL);
	int rc = act__cgroup_cpuset(NULL, set);

	ck_assert_msg(q >= 0 && isfinite(q), "quota %g", q);
	ck_assert_msg(rc == 0 || rc == -ENOENT, "cpuset: %d", rc);
	if (rc == 0)
		ck_assert(!hwloc_bitmap_iszero(set));
	else
		ck_assert(hwloc_bitmap_iszero(set));
	hwloc_bitmap_free(set);
}
END_TEST

static Suite *cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("cpulist");

	tcase_add_loop_test(tc, cpulist_good, 0, N(good));
	tcase_add_loop_test(tc, cpulist_bad, 0, N(bad));
	tcase_add_test(tc, cpulist_why_buffer);
	suite_add_tcase(s, tc);

	tc = tcase_create("dir");
	tcase_add_loop_test(tc, quota_cpu_max, 0, N(cpu_max));
	tcase_add_test(tc, quota_no_file);
	tcase_add_test(tc, quota_v1_files);
	tcase_add_test(tc, cpuset_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("proc");
	tcase_add_test(tc, proc_v2_nested);
	tcase_add_test(tc, proc_v2_container_no_ns);
	tcase_add_test(tc, proc_v2_container_ns);
	tcase_add_test(tc, proc_v2_two_mounts);
	tcase_add_test(tc, proc_v2_escaped_mount);
	tcase_add_test(tc, proc_v1);
	tcase_add_test(tc, proc_broken);
	tcase_add_test(tc, proc_cpuset);
	tcase_add_test(tc, this_machine);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(cgroup_suite());
}
