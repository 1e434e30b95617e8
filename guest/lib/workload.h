/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a workload (a w-* program) in a memory cgroup under one of the
 * benchmark's configurations, for the tests and for runners/bench.c.
 *
 *   base           counter aging off: stock MGLRU
 *   hca            counter aging on (lru_gen/enabled 0x0008 set), the
 *                  kernel's defaults: k-means with a gap (classifier 3),
 *                  eviction without the page table references of folios
 *                  with cold counts (evict-skip-refs=1)
 *   hca-kmeans     hca with plain k-means (classifier 2; the default
 *                  before 2026-12-06)
 *   hca-refs       hca, every page table reference checked
 *                  (evict-skip-refs=0)
 *   hca-noref      the same as hca (its name from before evict-skip-refs
 *                  was on by default, when hca meant hca-refs)
 *   hca-share      counter aging on, the share classifier
 *   hca-linear     counter aging on, the linear classifier
 *   hca-prevgen    hca, the walk also reading the previous aging's
 *                  generation (walk-prev-gen=1)
 *   hca-tiers      hca, promotions counted in the tiers (walk-refs=1)
 *   hca-thp        hca, huge pages split and collapsed by the hotness of
 *                  their pages (thp-split-hot=25, thp-collapse-hot=25)
 *   hca-thpN       the same with both knobs at N (1 to 100)
 *   hca-everywalk  hca, every promotion walk looking at every generation
 *                  (walk-once-per-window=0, what hca was before patch 14)
 *   hca-gap        the same as hca (kmeans-gap, now the default)
 *   nb-tiering     as base, with NUMA balancing's tiering mode
 *                  (numa_balancing=2: promotion by hint faults), for the
 *                  tiers workload
 *   kp-faults      nb-tiering with its hint faults recorded for kpromoted,
 *                  which promotes by them (promote-faults=1), counts off
 *   damon-hot      as base, with DAMON's migrate_hot moving node 1's hot
 *                  regions to node 0 (wl_damon_hot())
 *   damon-hot-counts  damon-hot on DAMON's count check (paddr_counts)
 *   unconstrained  as base, with no memory limit: the ceiling
 */
#ifndef HWAGE_WORKLOAD_H
#define HWAGE_WORKLOAD_H

/*
 * What w-hotcold -A prints (after "# ") where the measured run ends and
 * its tail begins, for a runner to take its end snapshot on
 */
#define WL_RUN_ENDS "-A: the measured run ends here"
/*
 * hca-thp's thp-split-hot and thp-collapse-hot: a huge page a quarter or
 * less of whose pages are hot is split (at least three quarters of it
 * freed) and such a range is not collapsed
 */
#define WL_THP_HOT "25"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "damon.h"
#include "hca.h"
#include "tiers.h"
#include "util.h"

/*
 * damon-hot: kdamond 0 on node 1's physical addresses with the operations
 * @ops (paddr, or paddr_counts for damon-hot-counts), DAMOS migrate_hot
 * to node 0 of the regions accessed in at least 1 of the 20 samples of an
 * aggregation (any use: the others promote whatever is used while node 0
 * has room), at most 256 MiB a second (kpromoted's rate limit); 0, or -1
 * without a node 1 or if DAMON refuses it
 */
static inline int wl_damon_hot(const char *ops)
{
	long long start, managed, end;
	long page = sysconf(_SC_PAGESIZE);

	if (tiers_node_span(1, &start, &managed, &end))
		return -1;
	return damon_migrate_hot_start(ops, start * page, end * page, 0, 1, 256);
}

/*
 * set the knobs of a configuration; 0, or -1 if it needs counts we lack.
 * The counter configurations set the classifier too: hca-kmeans k-means
 * (2), hca-share share (1), hca-linear linear (0), the others kmeans-gap
 * (3, the default); evict-skip-refs: 0 for hca-refs, 1 (the default) for
 * every other configuration, base included, which so leaves the default
 * behind; walk-prev-gen: 1 for hca-prevgen
 * (the promotion walk looking at the previous aging's generation too), 0
 * (the default) for the others; walk-refs: 1 for hca-tiers (promotions
 * counted in the folios' tiers), 0 (the default) for the others;
 * walk-once-per-window: 0 for hca-everywalk, 1 (the default) for the
 * others; numa_balancing: 2 for nb-tiering and kp-faults, 0 (off, the
 * default here) for the others; promote-faults: 1 for kp-faults, 0 (the
 * default) for the others; DAMON's migrate_hot from node 1 for damon-hot
 * and damon-hot-counts;
 * thp-split-hot and thp-collapse-hot: WL_THP_HOT for hca-thp, N for
 * hca-thpN, 0 (the default, off) for the others.
 */
static inline int wl_config(const char *config)
{
	int linear = !strcmp(config, "hca-linear"), share = !strcmp(config, "hca-share");
	int prevgen = !strcmp(config, "hca-prevgen"), tiers = !strcmp(config, "hca-tiers");
	int gap = !strcmp(config, "hca-gap"), refs = !strcmp(config, "hca-refs");
	int kmeans = !strcmp(config, "hca-kmeans"), thp = !strncmp(config, "hca-thp", 7);
	const char *thp_hot = thp && config[7] ? config + 7 : WL_THP_HOT;
	int everywalk = !strcmp(config, "hca-everywalk");
	int kpf = !strcmp(config, "kp-faults"), nbt = kpf || !strcmp(config, "nb-tiering");
	int damon_counts = !strcmp(config, "damon-hot-counts");
	int damon = damon_counts || !strcmp(config, "damon-hot");
	int counts = !strcmp(config, "hca") || !strcmp(config, "hca-noref") || refs ||
		     prevgen || tiers || gap || kmeans || linear || share || thp || everywalk;

	if (!counts && !nbt && !damon && strcmp(config, "base") && strcmp(config, "unconstrained"))
		return -1;
	/* hca-thpN: N from 1 to 100, digits only */
	if (thp && (strspn(thp_hot, "0123456789") != strlen(thp_hot) || thp_hot[0] == '0' ||
		    atoi(thp_hot) > 100))
		return -1;
	if (counts && hca_knob("classifier", linear ? "0" : share ? "1" : kmeans ? "2" : "3"))
		return -1;
	if (hca_counts(counts) && counts)
		return -1;
	if (hca_knob("evict-skip-refs", refs ? "0" : "1") && counts)
		return -1;
	if (hca_knob("walk-prev-gen", prevgen ? "1" : "0") && prevgen)
		return -1;
	if (hca_knob("walk-refs", tiers ? "1" : "0") && tiers)
		return -1;
	if (hca_knob("walk-once-per-window", everywalk ? "0" : "1") && everywalk)
		return -1;
	if (hca_knob("thp-split-hot", thp ? thp_hot : "0") && thp)
		return -1;
	if (hca_knob("thp-collapse-hot", thp ? thp_hot : "0") && thp)
		return -1;
	/* without CONFIG_NUMA_BALANCING only nb-tiering and kp-faults need the file */
	if (write_file("/proc/sys/kernel/numa_balancing", nbt ? "2" : "0") && nbt)
		return -1;
	if (hca_knob("promote-faults", kpf ? "1" : "0") && kpf)
		return -1;
	if (damon && wl_damon_hot(damon_counts ? "paddr_counts" : "paddr"))
		return -1;
	return 0;
}

#define WL_KHUGEPAGED "/sys/kernel/mm/transparent_hugepage/khugepaged/"

/* khugepaged's sleeps before wl_khugepaged_fast() set them */
struct wl_khugepaged {
	char scan[32], alloc[32];
};

/*
 * Wake khugepaged every @ms ms (scan_sleep_millisecs and
 * alloc_sleep_millisecs), the old values kept in @k for
 * wl_khugepaged_restore(), which the caller calls in any case; 0, or -1
 * if they cannot be read (nothing to restore then) or written.
 */
static inline int wl_khugepaged_fast(struct wl_khugepaged *k, const char *ms)
{
	k->scan[0] = k->alloc[0] = '\0';
	if (read_file(WL_KHUGEPAGED "scan_sleep_millisecs", k->scan, sizeof(k->scan)) <= 0 ||
	    read_file(WL_KHUGEPAGED "alloc_sleep_millisecs", k->alloc, sizeof(k->alloc)) <= 0) {
		k->scan[0] = '\0';
		return -1;
	}
	k->scan[strcspn(k->scan, "\n")] = '\0';
	k->alloc[strcspn(k->alloc, "\n")] = '\0';
	if (write_file(WL_KHUGEPAGED "scan_sleep_millisecs", ms) ||
	    write_file(WL_KHUGEPAGED "alloc_sleep_millisecs", ms))
		return -1;
	return 0;
}

/* put back what wl_khugepaged_fast() changed */
static inline void wl_khugepaged_restore(const struct wl_khugepaged *k)
{
	if (!k->scan[0])
		return;
	write_file(WL_KHUGEPAGED "scan_sleep_millisecs", k->scan);
	write_file(WL_KHUGEPAGED "alloc_sleep_millisecs", k->alloc);
}

/* the value of key=NUMBER in a "result ..." line, or -1 */
static inline double wl_get(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = line; (p = strstr(p, key)); p++)
		if ((p == line || p[-1] == ' ') && p[n] == '=')
			return atof(p + n + 1);
	return -1;
}

/*
 * Run argv in cgroup cg (NULL: ours), its stdout and stderr forwarded as
 * "# " lines ("# label: " lines, without the line's own '#', when label is
 * not NULL), its "result" line kept in result. With hooks, hooks->tick(arg,
 * n) is called about every 250 ms without output, and hooks->line(arg,
 * line) with each line before it is forwarded (either may be NULL).
 * Returns its wait status.
 */
struct wl_hooks {
	void (*tick)(void *arg, int n);
	void (*line)(void *arg, const char *line);
	void *arg;
};

static inline int wl_run(const char *cg, char *const argv[], const char *label,
			 char *result, size_t len, const struct wl_hooks *hooks)
{
	char buf[8192];
	size_t have = 0;
	int pfd[2], status = -1, n = 0;
	pid_t pid;

	if (result && len)
		result[0] = '\0';
	if (pipe(pfd) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (cg && cg_enter(cg))
			_exit(126);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execv(argv[0], argv);
		printf("exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int r = poll(&p, 1, 250);
		ssize_t got;
		char *nl, *line;

		if (r == 0) {
			if (hooks && hooks->tick)
				hooks->tick(hooks->arg, n++);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		got = read(pfd[0], buf + have, sizeof(buf) - 1 - have);
		if (got <= 0)
			break;
		have += got;
		buf[have] = '\0';
		line = buf;
		while ((nl = strchr(line, '\n')) || have - (line - buf) >= sizeof(buf) - 1) {
			if (nl)
				*nl = '\0';
			if (hooks && hooks->line)
				hooks->line(hooks->arg, line);
			if (!strncmp(line, "result ", 7) && result && len) {
				size_t l = strlen(line) < len ? strlen(line) : len - 1;

				memcpy(result, line, l);
				result[l] = '\0';
			}
			if (label)
				printf("# %s: %s\n", label, line + strspn(line, "# "));
			else
				printf("%s%s\n", line[0] == '#' ? "" : "# ", line);
			if (!nl) {
				line = buf + have;
				break;
			}
			line = nl + 1;
		}
		have -= line - buf;
		memmove(buf, line, have);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	fflush(stdout);
	return status;
}

#endif
