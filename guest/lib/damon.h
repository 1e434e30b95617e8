/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DAMON through its sysfs interface (Debian 12 packages no user-space tool
 * for it): one kdamond, monitoring a range of physical addresses (the
 * paddr operations) with one DAMOS scheme, for the bench's damon-hot
 * configuration: migrate_hot from the slow node to the fast one.
 * Documentation/admin-guide/mm/damon/usage.rst describes the files.
 */
#ifndef HWAGE_DAMON_H
#define HWAGE_DAMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define DAMON_KDAMONDS "/sys/kernel/mm/damon/admin/kdamonds/"
#define DAMON_CTX "0/contexts/0/"
#define DAMON_SCHEME DAMON_CTX "schemes/0/"

/* write @val to the file @rel of DAMON_KDAMONDS; 0, or -1 naming it on stderr */
static inline int damon_set(const char *rel, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), DAMON_KDAMONDS "%s", rel);
	if (write_file(path, val)) {
		fprintf(stderr, "damon: cannot write %s to %s\n", val, path);
		return -1;
	}
	return 0;
}

static inline int damon_setull(const char *rel, unsigned long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", val);
	return damon_set(rel, buf);
}

/*
 * Start kdamond 0 on the physical addresses [@start, @end) at DAMON's
 * default intervals (5 ms sampling, 100 ms aggregation: a region's
 * nr_accesses goes from 0 to 20) with one scheme: migrate_hot to node
 * @nid of the regions accessed in at least @min_accesses samples of an
 * aggregation, at most @mb_per_s MiB a second (the scheme's quota). 0, or
 * -1 on the first file that refused its value.
 */
static inline int damon_migrate_hot_start(unsigned long long start, unsigned long long end,
					  int nid, int min_accesses, int mb_per_s)
{
	if (damon_set("nr_kdamonds", "1") || damon_set("0/contexts/nr_contexts", "1") ||
	    damon_set(DAMON_CTX "operations", "paddr") ||
	    damon_set(DAMON_CTX "targets/nr_targets", "1") ||
	    damon_set(DAMON_CTX "targets/0/regions/nr_regions", "1") ||
	    damon_setull(DAMON_CTX "targets/0/regions/0/start", start) ||
	    damon_setull(DAMON_CTX "targets/0/regions/0/end", end) ||
	    damon_set(DAMON_CTX "schemes/nr_schemes", "1") ||
	    damon_set(DAMON_SCHEME "action", "migrate_hot") ||
	    damon_setull(DAMON_SCHEME "target_nid", nid) ||
	    /* every range of a new scheme is [0, 0]: open the others up */
	    damon_set(DAMON_SCHEME "access_pattern/sz/max", "18446744073709551615") ||
	    damon_set(DAMON_SCHEME "access_pattern/age/max", "4294967295") ||
	    damon_set(DAMON_SCHEME "access_pattern/nr_accesses/max", "4294967295") ||
	    damon_setull(DAMON_SCHEME "access_pattern/nr_accesses/min", min_accesses) ||
	    damon_setull(DAMON_SCHEME "quotas/bytes", (unsigned long long)mb_per_s << 20) ||
	    damon_set(DAMON_SCHEME "quotas/reset_interval_ms", "1000") ||
	    damon_set("0/state", "on"))
		return -1;
	return 0;
}

/* kdamond 0's pid, or -1 when it is not running */
static inline int damon_pid(void)
{
	char buf[32];
	int pid;

	if (read_file(DAMON_KDAMONDS "0/pid", buf, sizeof(buf)) <= 0)
		return -1;
	pid = atoi(buf);
	return pid > 0 ? pid : -1;
}

/*
 * The bytes the scheme of kdamond 0 has been applied to successfully
 * (its sz_applied, refreshed first), or 0 without a running kdamond
 */
static inline long long damon_applied_bytes(void)
{
	char buf[32];

	if (damon_pid() < 0 || write_file(DAMON_KDAMONDS "0/state", "update_schemes_stats") ||
	    read_file(DAMON_KDAMONDS DAMON_SCHEME "stats/sz_applied", buf, sizeof(buf)) <= 0)
		return 0;
	return atoll(buf);
}

#endif /* HWAGE_DAMON_H */
