/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DAMON through its sysfs interface (Debian 12 packages no user-space tool
 * for it): one kdamond, monitoring a range of physical addresses with the
 * paddr operations (accessed bits) or paddr_counts (page access counts,
 * patch 26), and one DAMOS scheme: stat (to read the regions DAMON sees),
 * pageout, or migrate_hot for the bench's damon-hot configuration.
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
#define DAMON_TRIED DAMON_KDAMONDS DAMON_SCHEME "tried_regions/"

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

/* whether this kernel offers the operations set @ops ("paddr_counts") */
static inline int damon_has_ops(const char *ops)
{
	char buf[256], *tok, *save;

	if (damon_set("nr_kdamonds", "1") || damon_set("0/contexts/nr_contexts", "1") ||
	    read_file(DAMON_KDAMONDS DAMON_CTX "avail_operations", buf, sizeof(buf)) <= 0)
		return 0;
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, ops))
			return 1;
	return 0;
}

/**
 * struct damon_cfg - kdamond 0's one context, target and scheme
 * @ops:	"paddr" or "paddr_counts"
 * @start:	the first physical address monitored
 * @end:	the end of the range monitored
 * @action:	the scheme's action: "stat", "pageout", "migrate_hot", ...
 * @target_nid:	migrate_hot's node
 * @min_accesses: the least nr_accesses (samples of 20 that found an
 *		access in an aggregation) of a region the scheme acts on
 * @max_accesses: the most, or -1 for no bound
 * @min_age:	the least age (aggregations) of such a region
 * @quota_mb:	the scheme's quota, MiB per @quota_ms, or 0 for none
 * @quota_ms:	the quota's reset interval, or 0 for 1000 ms
 * @freq_permil: the weight of a region's access frequency in the score by
 *		which a quota ranks the regions
 * @age_permil:	the weight of its age (DAMON's default for both, 0, ranks
 *		all regions alike: the quota goes by address)
 * @memcg:	the memory cgroup (path below the cgroup mount) whose pages
 *		alone the scheme acts on, or NULL for all
 * @sample_us:	the sampling interval, or 0 for DAMON's 5 ms
 * @aggr_us:	the aggregation interval, or 0 for DAMON's 100 ms
 * @max_regions: the most regions DAMON keeps, or 0 for its 1000
 */
struct damon_cfg {
	const char *ops;
	unsigned long long start, end;
	const char *action;
	int target_nid;
	unsigned int min_accesses, min_age;
	long long max_accesses;
	int quota_mb;
	unsigned int quota_ms, freq_permil, age_permil;
	const char *memcg;
	unsigned long sample_us, aggr_us;
	unsigned int max_regions;
	/* if @nr_ranges, the initial regions instead of [@start, @end) */
	const unsigned long long (*ranges)[2];
	int nr_ranges;
};

/* the target's initial regions: @c's ranges, or [@start, @end) */
static inline int damon_set_regions(const struct damon_cfg *c)
{
	char rel[128];
	int i, n = c->nr_ranges ? c->nr_ranges : 1;

	if (damon_setull(DAMON_CTX "targets/0/regions/nr_regions", n))
		return -1;
	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), DAMON_CTX "targets/0/regions/%d/start", i);
		if (damon_setull(rel, c->nr_ranges ? c->ranges[i][0] : c->start))
			return -1;
		snprintf(rel, sizeof(rel), DAMON_CTX "targets/0/regions/%d/end", i);
		if (damon_setull(rel, c->nr_ranges ? c->ranges[i][1] : c->end))
			return -1;
	}
	return 0;
}

/*
 * Start kdamond 0 as @c says, by default at DAMON's default intervals (5 ms
 * sampling, 100 ms aggregation: a region's nr_accesses goes from 0 to 20).
 * 0, or -1 on the first file that refused its value.
 */
static inline int damon_start(const struct damon_cfg *c)
{
	if (damon_set("nr_kdamonds", "1") || damon_set("0/contexts/nr_contexts", "1") ||
	    damon_set(DAMON_CTX "operations", c->ops) ||
	    /* the aggregation first: the sampling interval may not exceed it */
	    damon_setull(DAMON_CTX "monitoring_attrs/intervals/aggr_us",
			 c->aggr_us ? c->aggr_us : 100000) ||
	    damon_setull(DAMON_CTX "monitoring_attrs/intervals/sample_us",
			 c->sample_us ? c->sample_us : 5000) ||
	    damon_setull(DAMON_CTX "monitoring_attrs/nr_regions/max",
			 c->max_regions ? c->max_regions : 1000) ||
	    damon_set(DAMON_CTX "targets/nr_targets", "1") ||
	    damon_set_regions(c) ||
	    damon_set(DAMON_CTX "schemes/nr_schemes", "1") ||
	    damon_set(DAMON_SCHEME "action", c->action) ||
	    (c->target_nid >= 0 && damon_setull(DAMON_SCHEME "target_nid", c->target_nid)) ||
	    /* every range of a new scheme is [0, 0]: open the others up */
	    damon_set(DAMON_SCHEME "access_pattern/sz/max", "18446744073709551615") ||
	    damon_set(DAMON_SCHEME "access_pattern/age/max", "4294967295") ||
	    damon_setull(DAMON_SCHEME "access_pattern/age/min", c->min_age) ||
	    damon_setull(DAMON_SCHEME "access_pattern/nr_accesses/max",
			 c->max_accesses < 0 ? 4294967295U : c->max_accesses) ||
	    damon_setull(DAMON_SCHEME "access_pattern/nr_accesses/min", c->min_accesses) ||
	    damon_setull(DAMON_SCHEME "quotas/bytes", (unsigned long long)c->quota_mb << 20) ||
	    damon_setull(DAMON_SCHEME "quotas/reset_interval_ms",
			 !c->quota_mb ? 0 : c->quota_ms ? c->quota_ms : 1000) ||
	    damon_setull(DAMON_SCHEME "quotas/weights/nr_accesses_permil", c->freq_permil) ||
	    damon_setull(DAMON_SCHEME "quotas/weights/age_permil", c->age_permil) ||
	    damon_set(DAMON_SCHEME "filters/nr_filters", c->memcg ? "1" : "0") ||
	    /* matching N: the pages of other cgroups are filtered out */
	    (c->memcg && (damon_set(DAMON_SCHEME "filters/0/type", "memcg") ||
			  damon_set(DAMON_SCHEME "filters/0/memcg_path", c->memcg) ||
			  damon_set(DAMON_SCHEME "filters/0/matching", "N"))) ||
	    damon_set("0/state", "on"))
		return -1;
	return 0;
}

/*
 * Start kdamond 0 on the physical addresses [@start, @end) with the
 * operations @ops and one scheme: migrate_hot to node @nid of the regions
 * accessed in at least @min_accesses samples of an aggregation, at most
 * @mb_per_s MiB a second (the scheme's quota).
 */
static inline int damon_migrate_hot_start(const char *ops, unsigned long long start,
					  unsigned long long end, int nid, int min_accesses,
					  int mb_per_s)
{
	struct damon_cfg c = {
		.ops = ops, .start = start, .end = end, .action = "migrate_hot",
		.target_nid = nid, .min_accesses = min_accesses, .max_accesses = -1,
		.quota_mb = mb_per_s,
	};

	return damon_start(&c);
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

/* stop kdamond 0 if it runs; 0, or -1 */
static inline int damon_stop(void)
{
	return damon_pid() > 0 ? damon_set("0/state", "off") : 0;
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

/* one region as the scheme of kdamond 0 last tried it */
struct damon_region {
	unsigned long long start, end;
	unsigned int nr_accesses, age;
};

static inline long long damon_tried_value(int i, const char *file)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), DAMON_TRIED "%d/%s", i, file);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return atoll(buf);
}

/*
 * The regions the scheme of kdamond 0 tried in its last apply interval
 * (all of them, for a stat scheme whose access pattern is open), sorted by
 * address as DAMON keeps them, at most @max into @r: their number, or -1.
 */
static inline int damon_tried_regions(struct damon_region *r, int max)
{
	int i;

	if (damon_pid() < 0 || write_file(DAMON_KDAMONDS "0/state", "update_schemes_tried_regions"))
		return -1;
	for (i = 0; i < max; i++) {
		long long start = damon_tried_value(i, "start"), end = damon_tried_value(i, "end");

		if (start < 0 || end <= start)
			break;
		r[i].start = start;
		r[i].end = end;
		r[i].nr_accesses = damon_tried_value(i, "nr_accesses");
		r[i].age = damon_tried_value(i, "age");
	}
	return i;
}

/* the index of the region of @r (@n, sorted by address) holding @pa, or -1 */
static inline int damon_region_at(const struct damon_region *r, int n, unsigned long long pa)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (pa < r[mid].start)
			hi = mid - 1;
		else if (pa >= r[mid].end)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

/* how many of @pages pages (@pfn, 0 where absent) of @psz bytes lie in the regions @r */
static inline long damon_pages_in(const struct damon_region *r, int n,
				  const unsigned long long *pfn, long pages, long psz)
{
	long i, in = 0;

	for (i = 0; i < pages; i++)
		in += pfn[i] && damon_region_at(r, n, pfn[i] * psz) >= 0;
	return in;
}

#endif /* HWAGE_DAMON_H */
