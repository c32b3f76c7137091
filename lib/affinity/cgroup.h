/* SPDX-License-Identifier: MIT */
/*
 * cgroup.h - what the process's control group lets it use: a CPU time
 * quota (CFS bandwidth) and a cpuset. A container limited to 2.5 CPUs of
 * time on a 64-core host should not start 63 workers.
 *
 * Nothing here fails start-up: a file that is missing, unreadable or
 * malformed reads as "no limit". The caller rounds the quota.
 */
#ifndef ACT_CGROUP_H
#define ACT_CGROUP_H

#include <hwloc.h>

/*
 * CPUs of time per period the cgroup allows (2.5 for cpu.max "250000
 * 100000"), the smallest over the cgroup and its ancestors; 0 when
 * unlimited or unknown.
 *
 * root == NULL: this process's cgroup, found through /proc/self/cgroup and
 * /proc/self/mountinfo. cgroup v2: cpu.max at each level from the
 * process's cgroup up to the cgroup2 mount point. cgroup v1 (also a hybrid
 * host whose cpu controller is on a v1 hierarchy): cpu.cfs_quota_us and
 * cpu.cfs_period_us, -1 being unlimited, up the same way.
 *
 * root != NULL: a directory standing for one cgroup (a simulated
 * container, for tests and `actors topo --cgroup DIR`): root/cpu.max only,
 * or, when that is missing, root/cpu.cfs_quota_us and cpu.cfs_period_us.
 * No ancestors.
 */
double act__cgroup_quota(const char *root);

/*
 * The cpuset.cpus.effective of the cgroup into out. root == NULL: this
 * process's, from its cgroup or the nearest ancestor that has the file
 * (the cpuset controller need not be enabled at the leaf); v1:
 * cpuset.effective_cpus, else cpuset.cpus. root != NULL: that directory's
 * cpuset.cpus.effective (else the v1 names), no ancestors.
 *
 * Returns 0; -ENOENT when there is none (no file, or an empty one);
 * -EINVAL when the file is malformed; -ENOMEM. On error out is empty, and
 * the caller should treat any error as "no cpuset".
 */
int act__cgroup_cpuset(const char *root, hwloc_bitmap_t out);

/*
 * act__cgroup_quota(NULL) and act__cgroup_cpuset(NULL, out) with the two
 * /proc files named: tests simulate a host or a container with them (the
 * mount points in the mountinfo then name temporary directories).
 */
double act__cgroup_quota_at(const char *proc_cgroup, const char *mountinfo);
int act__cgroup_cpuset_at(const char *proc_cgroup, const char *mountinfo,
			  hwloc_bitmap_t out);

#endif /* ACT_CGROUP_H */
