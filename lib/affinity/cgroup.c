/* SPDX-License-Identifier: MIT */
/*
 * cgroup.c - the cgroup CPU quota and cpuset; see cgroup.h.
 *
 * Finding the process's cgroup directory takes two files.
 * /proc/self/cgroup names the cgroup as a path relative to the root of
 * its hierarchy ("0::/user.slice/x.scope" on v2, "4:cpu,cpuacct:/x" on
 * v1). /proc/self/mountinfo says where that hierarchy is mounted and which
 * of its directories the mount shows: without a cgroup namespace a
 * container sees "0::/docker/abc" while /sys/fs/cgroup shows exactly
 * /docker/abc, so the mount's root is cut off the front of the path; with
 * one it sees "0::/" and the mount shows its own cgroup. The walk up from
 * the process's cgroup steps over directories that are not there, and
 * ends at the mount point: inside a container that is the container's
 * cgroup, and a limit above it is not visible anyway.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "cpulist.h"

#define CG_PROC_CGROUP "/proc/self/cgroup"
#define CG_MOUNTINFO "/proc/self/mountinfo"
#define CG_MOUNT "/sys/fs/cgroup"
/* A cpuset file of 65536 single CPUs is under 400 KiB; refuse more. */
#define CG_FILE_MAX ((size_t)1 << 20)

/* The cgroup directory of one controller of this process. */
struct cg_loc {
	char dir[PATH_MAX];
	size_t top;  /* dir[0, top) is the mount point: walk no higher */
	int version; /* 1 or 2 */
};

/* A whole small file, NUL-terminated, malloc'd; NULL with errno set. */
static char *read_text(const char *path)
{
	size_t cap = 4096, len = 0;
	char *buf, *nb;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	if (!buf) {
		err = ENOMEM;
		goto fail;
	}
	for (;;) {
		if (len + 1 == cap) {
			if (cap >= CG_FILE_MAX) {
				err = EFBIG;
				goto fail;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				err = ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
fail:
	free(buf);
	close(fd);
	errno = err;
	return NULL;
}

/*
 * A decimal number at *p, stepped past. At most 18 digits, so it cannot
 * overflow; a quota in microseconds never comes near. -1 when none.
 */
static int cg_u64(const char **p, uint64_t *v)
{
	const char *q = *p;
	int digits = 0;

	*v = 0;
	for (; isdigit((unsigned char)*q); q++) {
		if (++digits > 18)
			return -1;
		*v = *v * 10 + (uint64_t)(*q - '0');
	}
	if (!digits)
		return -1;
	*p = q;
	return 0;
}

/* Only blanks (the kernel's trailing newline) left at p. */
static int cg_rest_blank(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return !*p;
}

/*
 * QUOTA / PERIOD, or 0 when either is 0: the kernel never shows a zero
 * (its minimum quota is 1 ms), so a zero means the file is not what we
 * think it is, and "no quota" is the safe reading.
 */
static double cg_ratio(uint64_t quota, uint64_t period)
{
	if (!quota || !period)
		return 0;
	return (double)quota / (double)period;
}

/* v2 cpu.max, "max 100000" or "QUOTA PERIOD": CPUs, 0, or -1 (no file). */
static double cg_v2_quota(const char *dir)
{
	char path[PATH_MAX + 32];
	uint64_t quota, period;
	double r = 0;
	const char *p;
	char *text;

	snprintf(path, sizeof(path), "%s/cpu.max", dir);
	text = read_text(path);
	if (!text)
		return -1;
	p = text;
	/* "max" is unlimited, and so is everything malformed: r stays 0. */
	if (!cg_u64(&p, &quota) && *p++ == ' ' && !cg_u64(&p, &period) &&
	    cg_rest_blank(p))
		r = cg_ratio(quota, period);
	free(text);
	return r;
}

/* One v1 number file, "-1" included; 0, or -1 when unreadable/malformed. */
static int cg_v1_num(const char *dir, const char *name, int64_t *v)
{
	char path[PATH_MAX + 32];
	const char *p;
	uint64_t u;
	char *text;
	int neg, rc = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = read_text(path);
	if (!text)
		return -1;
	p = text;
	neg = *p == '-';
	p += neg;
	if (!cg_u64(&p, &u) && cg_rest_blank(p)) {
		*v = neg ? -(int64_t)u : (int64_t)u;
		rc = 0;
	}
	free(text);
	return rc;
}

/* v1 cpu.cfs_quota_us / cpu.cfs_period_us: CPUs, 0, or -1 (no files). */
static double cg_v1_quota(const char *dir)
{
	int64_t quota, period;

	if (cg_v1_num(dir, "cpu.cfs_quota_us", &quota))
		return -1;
	/* -1 is the kernel's "unlimited"; other negatives are malformed. */
	if (quota <= 0 || cg_v1_num(dir, "cpu.cfs_period_us", &period) ||
	    period <= 0)
		return 0;
	return cg_ratio((uint64_t)quota, (uint64_t)period);
}

/*
 * The cpuset file `name` in dir into out: 0, -ENOENT (missing, unreadable
 * or empty: the cpuset controller is not on there), -EINVAL (malformed or
 * over CG_FILE_MAX), -ENOMEM.
 */
static int cg_cpuset_file(const char *dir, const char *name, hwloc_bitmap_t out)
{
	char path[PATH_MAX + 32];
	char *text;
	int rc;

	hwloc_bitmap_zero(out);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = read_text(path);
	if (!text) {
		if (errno == ENOMEM)
			return -ENOMEM;
		return errno == EFBIG ? -EINVAL : -ENOENT;
	}
	if (cg_rest_blank(text))
		rc = -ENOENT;
	else
		rc = act__cpulist_parse(text, out, NULL, 0);
	free(text);
	return rc;
}

/* The cpuset of one level: the file names of `version`, 0 for both. */
static int cg_cpuset_level(const char *dir, int version, hwloc_bitmap_t out)
{
	static const char *const names[] = {
		"cpuset.cpus.effective", /* v2 */
		"cpuset.effective_cpus", /* v1 */
		"cpuset.cpus",		 /* v1, before effective_cpus */
	};
	unsigned i = version == 1 ? 1 : 0;
	unsigned n = version == 2 ? 1 : 3;
	int rc = -ENOENT;

	for (; i < n && rc == -ENOENT; i++)
		rc = cg_cpuset_file(dir, names[i], out);
	return rc;
}

/* tok is one of the comma-separated words of list. */
static int has_word(const char *list, const char *tok)
{
	size_t n = strlen(tok);
	const char *p = list;

	while ((p = strstr(p, tok))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

/* Undo mountinfo's octal escapes ("\040" for a space) in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* path is root or below it ("/" is above everything). */
static int is_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return 1;
	return !strncmp(path, root, n) && (path[n] == '/' || !path[n]);
}

/*
 * The mount of the hierarchy (cgroup2, or the v1 one carrying ctrl) into
 * mnt and its root into root; the one whose root holds path if there are
 * several. -ENOENT when mountinfo has none.
 */
static int cg_mount(const char *mountinfo, int version, const char *ctrl,
		    const char *path, char *mnt, char *root)
{
	char *line = NULL, *save, *tok, *f[5], *fstype, *opts;
	size_t cap = 0;
	int found = 0, i;
	FILE *fp;

	fp = fopen(mountinfo, "re");
	if (!fp)
		return -ENOENT;
	while (found < 2 && getline(&line, &cap, fp) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - TYPE
		 * SOURCE SUPEROPTS */
		tok = strtok_r(line, " \n", &save);
		for (i = 0; i < 5 && tok; i++) {
			f[i] = tok;
			tok = strtok_r(NULL, " \n", &save);
		}
		while (tok && strcmp(tok, "-"))
			tok = strtok_r(NULL, " \n", &save);
		if (i < 5 || !tok)
			continue;
		fstype = strtok_r(NULL, " \n", &save);
		if (!fstype || !strtok_r(NULL, " \n", &save))
			continue;
		opts = strtok_r(NULL, " \n", &save);
		if (version == 2 && strcmp(fstype, "cgroup2"))
			continue;
		if (version == 1 && (strcmp(fstype, "cgroup") || !opts ||
				     !has_word(opts, ctrl)))
			continue;
		unescape(f[3]);
		unescape(f[4]);
		if (strlen(f[3]) >= PATH_MAX || strlen(f[4]) >= PATH_MAX)
			continue;
		/* The first match stands in until one holds path. */
		if (!found || is_under(path, f[3])) {
			strcpy(root, f[3]);
			strcpy(mnt, f[4]);
			found = is_under(path, f[3]) ? 2 : 1;
		}
	}
	free(line);
	fclose(fp);
	return found ? 0 : -ENOENT;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * This process's cgroup directory for controller ctrl. A v1 hierarchy
 * carrying ctrl wins over the v2 one: on a hybrid host the controller
 * works only where it is attached, and a v1 line naming it says that is
 * v1.
 */
static int cg_locate(const char *proc_cgroup, const char *mountinfo,
		     const char *ctrl, struct cg_loc *loc)
{
	char path[PATH_MAX], mnt[PATH_MAX], root[PATH_MAX], ctrls[256];
	char *text, *line, *next, *c1, *c2;
	const char *rel;
	int version = 0;
	int n;

	text = read_text(proc_cgroup);
	if (!text)
		return -ENOENT;
	/* ID:CONTROLLERS:PATH, the path possibly holding ':' itself. */
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		c1 = strchr(line, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || c2[1] != '/' || strlen(c2 + 1) >= sizeof(path))
			continue;
		*c1 = *c2 = '\0';
		if (has_word(c1 + 1, ctrl) && strlen(c1 + 1) < sizeof(ctrls)) {
			strcpy(ctrls, c1 + 1);
			strcpy(path, c2 + 1);
			version = 1;
			break;
		}
		if (!strcmp(line, "0") && !c1[1]) {
			strcpy(path, c2 + 1);
			version = 2;
		}
	}
	free(text);
	if (!version)
		return -ENOENT;

	if (cg_mount(mountinfo, version, ctrl, path, mnt, root)) {
		/* No mountinfo: the usual places, showing the whole tree. */
		strcpy(root, "/");
		if (version == 2)
			strcpy(mnt, CG_MOUNT);
		else if (snprintf(mnt, sizeof(mnt), CG_MOUNT "/%s", ctrls) >=
				 (int)sizeof(mnt) ||
			 !is_dir(mnt))
			snprintf(mnt, sizeof(mnt), CG_MOUNT "/%s", ctrl);
	}

	if (!strcmp(root, "/"))
		rel = path;
	else if (is_under(path, root))
		rel = path + strlen(root);
	else
		rel = ""; /* outside the mount's view (a namespace's "/..") */
	if (!strcmp(rel, "/"))
		rel = "";
	/* A level that is not there is stepped over on the walk up. */
	n = snprintf(loc->dir, sizeof(loc->dir), "%s%s", mnt, rel);
	if (n < 0 || (size_t)n >= sizeof(loc->dir))
		snprintf(loc->dir, sizeof(loc->dir), "%s", mnt);
	loc->top = strlen(mnt);
	loc->version = version;
	return 0;
}

/* Step loc->dir to its parent; 0 when it already is the mount point. */
static int cg_up(struct cg_loc *loc)
{
	char *slash;

	if (strlen(loc->dir) <= loc->top)
		return 0;
	slash = strrchr(loc->dir, '/');
	if (!slash || (size_t)(slash - loc->dir) < loc->top)
		loc->dir[loc->top] = '\0';
	else
		*slash = '\0';
	return 1;
}

double act__cgroup_quota_at(const char *proc_cgroup, const char *mountinfo)
{
	struct cg_loc loc;
	double best = 0, q;

	if (cg_locate(proc_cgroup, mountinfo, "cpu", &loc))
		return 0;
	/* A parent's limit binds its children too: take the smallest. */
	do {
		q = loc.version == 2 ? cg_v2_quota(loc.dir) :
				       cg_v1_quota(loc.dir);
		if (q > 0 && (best == 0 || q < best))
			best = q;
	} while (cg_up(&loc));
	return best;
}

int act__cgroup_cpuset_at(const char *proc_cgroup, const char *mountinfo,
			  hwloc_bitmap_t out)
{
	struct cg_loc loc;
	int rc;

	hwloc_bitmap_zero(out);
	if (cg_locate(proc_cgroup, mountinfo, "cpuset", &loc))
		return -ENOENT;
	/*
	 * The file is only where the cpuset controller is enabled; below
	 * that a cgroup has its nearest such ancestor's CPUs.
	 */
	do
		rc = cg_cpuset_level(loc.dir, loc.version, out);
	while (rc == -ENOENT && cg_up(&loc));
	return rc;
}

double act__cgroup_quota(const char *root)
{
	double q;

	if (!root)
		return act__cgroup_quota_at(CG_PROC_CGROUP, CG_MOUNTINFO);
	q = cg_v2_quota(root);
	if (q < 0)
		q = cg_v1_quota(root);
	return q > 0 ? q : 0;
}

int act__cgroup_cpuset(const char *root, hwloc_bitmap_t out)
{
	if (!root)
		return act__cgroup_cpuset_at(CG_PROC_CGROUP, CG_MOUNTINFO, out);
	return cg_cpuset_level(root, 0, out);
}
