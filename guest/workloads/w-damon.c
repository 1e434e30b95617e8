// SPDX-License-Identifier: GPL-2.0
/*
 * w-damon: DAMON's view of a known access pattern, with the accessed-bit
 * check (operations paddr) and the count check (paddr_counts, patch 26),
 * for the bench's damon workloads, scored on the host against the
 * emulator's ground truth (bench/damon-score.sh).
 *
 * Three sets of anonymous memory: a hot one read at random by one thread
 * without pause, a warm one of which another thread reads a word of every
 * page each 100 ms, and a cold one written once. Then, -R times per check,
 * the two checks in turn (paddr first in odd rounds, paddr_counts first in
 * even ones): kdamond 0 on the physical range that spans the sets, with a
 * stat scheme, at the intervals given; after -w seconds of warm-up a
 * ground-truth snapshot, then a view of DAMON's regions every second for
 * -s seconds, each printed as
 *
 *   hwage-damon-view truth=A START:END:NR_ACCESSES ...
 *
 * (the regions of the last aggregation, by physical address), a second
 * snapshot, and one line for the run:
 *
 *   hwage-bench config=damon-ab|damon-counts workload=NAME ... truth=A:B
 *       secs=S kdamond_ms=M views=V regions=R ...
 *
 * kdamond_ms is kdamond 0's CPU time between the snapshots, which holds
 * the sysfs updates of the views; kdamond_warm_ms its CPU time over the
 * warm-up, monitoring alone.
 *
 * -T advises huge pages for the sets (MADV_HUGEPAGE).
 *
 * -P (proactive reclaim) takes no views: each run first reads every page
 * of the sets back in, then starts DAMOS pageout on the sets' range, for
 * the cgroup of w-damon only, of the regions found unaccessed (nr_accesses
 * 0) for -g aggregations, for -s seconds, and reports the memory it saved
 * (saved_kb: the cgroup's memory.current before the run less its mean
 * over the run's second half) and what that cost: the cgroup's refaults
 * (workingset_refault_anon) and the swap-ins (pswpin) of the run. The run
 * lines come at the end, after the sets' contents are checked (errors=,
 * the bytes that differ, of all the runs).
 *
 * -Q (a quota ranked by frequency) reads the warm set every 2 ms instead,
 * so that DAMON finds both it and the hot set accessed at every sample,
 * and runs a DAMOS lru_prio scheme on the sets' range for the regions
 * found accessed in at least 5 of 20 samples, whose quota, the hot set's
 * size each aggregation, ranks them by access frequency alone (weights:
 * nr_accesses 1000, age 0). After -w seconds a view each second for -s
 * seconds of the regions the scheme took; the run line says what share of
 * the sets' pages in them were hot (quota_hot=, the mean over the views)
 * and what share of the hot set they held (quota_cover=). The accessed
 * bits see the two sets alike; the counts say how often. -v adds, on
 * stderr, the regions of the first three views of each run, each with its
 * sets' pages and their counts (quota_detail()).
 *
 * Exit 0, 1 if a set lost a byte, 2 on bad options, 3 if DAMON or the
 * snapshots are missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgroup.h"
#include "damon.h"
#include "hca.h"
#include "pagemap.h"
#include "pageset.h"
#include "util.h"

#define MAX_REGIONS 4096

#define MAX_RUNS 200

static long psz;
static char cg[320];
static char *lines[MAX_RUNS];
static int nr_lines;
static volatile int stop;
static volatile long long hot_reads;

static int thp;
/* -v: what the quota run's first views took, on stderr */
static int detail;
/* the warm reader's pause between reads of its set */
static useconds_t warm_pause_us = 100000;

static void *hot_reader(void *arg)
{
	const struct page_set *s = arg;
	uint64_t rng = 0x5eed;
	unsigned long sum = 0;
	long long n = 0;

	while (!stop) {
		uint64_t r = xorshift64(&rng);

		sum += ((volatile unsigned char *)s->buf)[(r % s->pages) * psz + (r >> 40) % psz];
		if (!(++n & 1023))
			hot_reads = n;
	}
	return (void *)sum;
}

static void *warm_reader(void *arg)
{
	const struct page_set *s = arg;
	unsigned long sum = 0;

	while (!stop) {
		sum += page_set_read(s);
		usleep(warm_pause_us);
	}
	return (void *)sum;
}

/* read a word of every page of the sets: the pages swapped out come back */
static void fault_in(const struct page_set *sets, int n)
{
	unsigned long sum = 0;
	int k;

	for (k = 0; k < n; k++)
		sum += page_set_read(&sets[k]);
	(void)sum;
}

/*
 * One run of DAMOS pageout with @ops (-P): the memory it saved and the
 * refaults and swap-ins it cost, as one line kept for the end.
 */
static int reclaim_run(const char *ops, const char *name, const struct page_set *sets, int n,
		       unsigned long long lo, unsigned long long hi, unsigned int min_age,
		       int secs, long footprint)
{
	struct damon_cfg c = { .ops = ops, .start = lo, .end = hi, .action = "pageout",
			       .target_nid = -1, .max_accesses = 0, .min_age = min_age,
			       .memcg = cg_path(cg) };
	long long m0, r0, s0, cpu0, cpu1, applied, sum = 0;
	int pid, i, half = 0;

	fault_in(sets, n);
	sleep(2);
	m0 = cg_read(cg, "memory.current");
	r0 = cg_stat(cg, "memory.stat", "workingset_refault_anon");
	s0 = vmstat("pswpin");
	if (damon_start(&c) || (pid = damon_pid()) < 0) {
		fprintf(stderr, "w-damon: cannot start DAMOS pageout with %s\n", ops);
		return -1;
	}
	cpu0 = task_cpu_ns(pid);
	for (i = 1; i <= secs; i++) {
		sleep(1);
		if (i > secs / 2) {
			sum += cg_read(cg, "memory.current");
			half++;
		}
	}
	cpu1 = task_cpu_ns(pid);
	/* the scheme's statistics, while kdamond still runs */
	applied = damon_applied_bytes();
	damon_stop();
	if (nr_lines == MAX_RUNS ||
	    asprintf(&lines[nr_lines++], "hwage-bench config=damon-%s workload=%s pressure=1 limit_kb=0 footprint_kb=%ld damon_ops=%s min_age=%u saved_kb=%lld workingset_refault_anon=%lld pswpin=%lld kdamond_ms=%.3f applied_kb=%lld",
		     strcmp(ops, "paddr") ? "counts" : "ab", name, footprint >> 10, ops, min_age,
		     (m0 - sum / (half ? half : 1)) >> 10,
		     cg_stat(cg, "memory.stat", "workingset_refault_anon") - r0,
		     vmstat("pswpin") - s0, (cpu1 - cpu0) / 1e6, applied >> 10) < 0)
		return -1;
	return 0;
}

/* the summed counts (count + prev) of a page, -1 if they cannot be read */
static long long page_hotness(unsigned long long pfn)
{
	struct hca_count e;

	return hca_read_count(pfn, &e) ? -1 : (long long)(e.count + e.prev);
}

/* the mean hotness of up to @max of the @n pages @pfn (0: absent), evenly spread */
static double mean_hotness(const unsigned long long *pfn, long n, long max, long *read)
{
	long step = n > max ? n / max : 1, i;
	double sum = 0;

	*read = 0;
	for (i = 0; i < n; i += step) {
		long long h = pfn[i] ? page_hotness(pfn[i]) : -1;

		if (h >= 0) {
			sum += h;
			(*read)++;
		}
	}
	return *read ? sum / *read : 0;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * -v: what a view of the quota run (-Q) took, on stderr: per region taken,
 * its sets' pages, and the mean counts (count + prev, through the
 * backend's debugfs "entry" file) of its hot, warm and other pages
 * (other: in neither set; 16 of them at most, evenly spread), then those
 * of the two sets as a whole. Diagnostics: the reads take time and
 * perturb the run.
 */
static void quota_detail(int view, const struct damon_region *r, int n,
			 const unsigned long long *pfn, long hot_pages, long warm_pages)
{
	long total = hot_pages + warm_pages, i, k, got;
	unsigned long long *sorted = malloc(total * sizeof(*sorted));
	double mh, mw;

	if (!sorted)
		return;
	memcpy(sorted, pfn, total * sizeof(*sorted));
	qsort(sorted, total, sizeof(*sorted), cmp_ull);
	for (k = 0; k < n; k++) {
		unsigned long long first = r[k].start / psz, last = (r[k].end - 1) / psz, p;
		long h = 0, w = 0, nh = 0, nw = 0, no = 0;
		double sh = 0, sw = 0, so = 0;
		unsigned long long step = (last - first + 1) / 16 ? (last - first + 1) / 16 : 1;

		for (i = 0; i < total; i++) {
			long long c;

			if (!pfn[i] || pfn[i] < first || pfn[i] > last)
				continue;
			i < hot_pages ? h++ : w++;
			c = page_hotness(pfn[i]);
			if (c < 0)
				continue;
			if (i < hot_pages) {
				sh += c;
				nh++;
			} else {
				sw += c;
				nw++;
			}
		}
		for (p = first; p <= last; p += step) {
			long long c;

			if (bsearch(&p, sorted, total, sizeof(*sorted), cmp_ull))
				continue;
			c = page_hotness(p);
			if (c >= 0) {
				so += c;
				no++;
			}
		}
		fprintf(stderr, "# w-damon: quota view %d region %#llx-%#llx (%llu KiB) nr_accesses %u age %u: hot %ld (mean %.0f), warm %ld (mean %.0f), other mean %.0f (%ld read)\n",
			view, r[k].start, r[k].end, (r[k].end - r[k].start) >> 10, r[k].nr_accesses,
			r[k].age, h, nh ? sh / nh : 0, w, nw ? sw / nw : 0, no ? so / no : 0, no);
	}
	mh = mean_hotness(pfn, hot_pages, 512, &got);
	mw = mean_hotness(pfn + hot_pages, warm_pages, 512, &i);
	fprintf(stderr, "# w-damon: quota view %d: %d regions taken; hot set mean %.0f (%ld read), warm set mean %.0f (%ld read)\n",
		view, n, mh, got, mw, i);
	free(sorted);
}

/*
 * One run of the quota ranked by frequency with @ops (-Q): the share of
 * the sets' pages the scheme took that were hot, and of the hot set it
 * took, as one line kept for the end.
 */
static int quota_run(const char *ops, const char *name, const struct page_set *sets,
		     unsigned long long lo, unsigned long long hi, unsigned long sample_us,
		     unsigned long aggr_us, int warm, int secs, long footprint)
{
	struct damon_cfg c = { .ops = ops, .start = lo, .end = hi, .action = "lru_prio",
			       .target_nid = -1, .min_accesses = 5, .max_accesses = -1,
			       .quota_mb = (sets[0].pages * psz) >> 20,
			       .quota_ms = aggr_us / 1000, .freq_permil = 1000,
			       .sample_us = sample_us, .aggr_us = aggr_us };
	static struct damon_region r[MAX_REGIONS];
	unsigned long long *pfn = calloc(sets[0].pages + sets[1].pages, sizeof(*pfn));
	double hot = 0, cover = 0;
	long long cpu0, cpu1;
	int pm = pagemap_open(), pid, i, n, views = 0;

	if (!pfn || pm < 0 || damon_start(&c) || (pid = damon_pid()) < 0) {
		fprintf(stderr, "w-damon: cannot start DAMOS lru_prio with %s\n", ops);
		if (pm >= 0)
			close(pm);
		free(pfn);
		return -1;
	}
	sleep(warm);
	cpu0 = task_cpu_ns(pid);
	for (i = 0; i < secs; i++) {
		long h, w;

		sleep(1);
		n = damon_tried_regions(r, MAX_REGIONS);
		if (n <= 0)
			continue;
		page_set_pfns(pm, &sets[0], pfn);
		page_set_pfns(pm, &sets[1], pfn + sets[0].pages);
		h = damon_pages_in(r, n, pfn, sets[0].pages, psz);
		w = damon_pages_in(r, n, pfn + sets[0].pages, sets[1].pages, psz);
		if (h + w == 0)
			continue;
		hot += (double)h / (h + w);
		cover += (double)h / sets[0].pages;
		views++;
		if (detail && views <= 3) {
			/* the readers' loop flag, read at every access: a page hotter than any */
			fprintf(stderr, "# w-damon: quota run with %s, view %d: %ld hot and %ld warm pages taken; the loop flag's page is pfn %#llx\n",
				ops, views, h, w, pagemap_pfn(pm, &stop));
			quota_detail(views, r, n, pfn, sets[0].pages, sets[1].pages);
		}
	}
	cpu1 = task_cpu_ns(pid);
	damon_stop();
	close(pm);
	free(pfn);
	if (nr_lines == MAX_RUNS ||
	    asprintf(&lines[nr_lines++], "hwage-bench config=damon-%s workload=%s pressure=1 limit_kb=0 footprint_kb=%ld damon_ops=%s sample_us=%lu aggr_us=%lu quota_hot=%.4f quota_cover=%.4f views=%d kdamond_ms=%.3f",
		     strcmp(ops, "paddr") ? "counts" : "ab", name, footprint >> 10, ops, sample_us,
		     aggr_us, views ? hot / views : 0, views ? cover / views : 0, views,
		     (cpu1 - cpu0) / 1e6) < 0)
		return -1;
	return 0;
}

/* the physical address range of the sets' pages, in whole 2 MiB blocks */
static void span(const struct page_set *sets, int n, unsigned long long *lo,
		 unsigned long long *hi)
{
	page_set_span(sets, n, lo, hi);
	if (!*hi)
		return;
	*lo = (*lo * psz) & ~((2ULL << 20) - 1);
	*hi = ((*hi + 1) * psz + (2ULL << 20) - 1) & ~((2ULL << 20) - 1);
}

static int run(const char *ops, const char *name, unsigned long long lo, unsigned long long hi,
	       unsigned long sample_us, unsigned long aggr_us, int warm, int secs, long footprint)
{
	static struct damon_region r[MAX_REGIONS];
	struct damon_cfg c = { .ops = ops, .start = lo, .end = hi, .action = "stat",
			       .target_nid = -1, .max_accesses = -1, .sample_us = sample_us,
			       .aggr_us = aggr_us };
	long long cpu0, cpu1, warm0, reads0;
	long a, b, regions = 0;
	int pid, i, n, views = 0;
	double t0, t1;

	if (damon_start(&c) || (pid = damon_pid()) < 0) {
		fprintf(stderr, "w-damon: cannot start DAMON with %s\n", ops);
		return -1;
	}
	warm0 = task_cpu_ns(pid);
	sleep(warm);
	a = hca_truth_snapshot();
	cpu0 = task_cpu_ns(pid);
	reads0 = hot_reads;
	t0 = now_s();
	for (i = 0; i < secs; i++) {
		sleep(1);
		n = damon_tried_regions(r, MAX_REGIONS);
		if (n <= 0)
			continue;
		printf("hwage-damon-view truth=%ld", a);
		for (int j = 0; j < n; j++)
			printf(" %llu:%llu:%u", r[j].start, r[j].end, r[j].nr_accesses);
		printf("\n");
		views++;
		regions += n;
	}
	cpu1 = task_cpu_ns(pid);
	t1 = now_s();
	b = hca_truth_snapshot();
	damon_stop();
	if (a < 0 || b < 0)
		return -1;
	if (nr_lines == MAX_RUNS ||
	    asprintf(&lines[nr_lines++], "hwage-bench config=damon-%s workload=%s pressure=1 limit_kb=0 footprint_kb=%ld damon_ops=%s sample_us=%lu aggr_us=%lu damon_start=%llu damon_end=%llu truth=%ld:%ld secs=%.3f kdamond_ms=%.3f kdamond_warm_ms=%.3f warm_s=%d views=%d regions=%ld hot_reads=%lld",
		     strcmp(ops, "paddr") ? "counts" : "ab", name, footprint >> 10, ops,
		     sample_us, aggr_us, lo, hi, a, b, t1 - t0, (cpu1 - cpu0) / 1e6,
		     (cpu0 - warm0) / 1e6, warm, views,
		     views ? regions / views : 0, hot_reads - reads0) < 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long hot_mb = 16, warm_mb = 16, cold_mb = 96;
	unsigned long sample_us = 5000, aggr_us = 100000;
	int rounds = 3, warm = 5, secs = 10, opt, i, failed = 0, reclaim = 0, quota = 0;
	int min_age = 5;
	long errors = 0;
	const char *name = "damon";
	unsigned long long lo, hi;
	struct page_set sets[3];
	pthread_t th[2];

	while ((opt = getopt(argc, argv, "H:W:C:R:w:s:i:a:n:TPQg:v")) != -1) {
		switch (opt) {
		case 'H':
			hot_mb = parse_num("w-damon", "-H", optarg, 1, 1024);
			break;
		case 'W':
			warm_mb = parse_num("w-damon", "-W", optarg, 1, 1024);
			break;
		case 'C':
			cold_mb = parse_num("w-damon", "-C", optarg, 1, 4096);
			break;
		case 'R':
			rounds = parse_num("w-damon", "-R", optarg, 1, 100);
			break;
		case 'w':
			warm = parse_num("w-damon", "-w", optarg, 1, 600);
			break;
		case 's':
			secs = parse_num("w-damon", "-s", optarg, 1, 600);
			break;
		case 'i':
			sample_us = parse_num("w-damon", "-i", optarg, 100, 1000000);
			break;
		case 'a':
			aggr_us = parse_num("w-damon", "-a", optarg, 1000, 10000000);
			break;
		case 'n':
			name = optarg;
			break;
		case 'T':
			thp = 1;
			break;
		case 'P':
			reclaim = 1;
			break;
		case 'Q':
			quota = 1;
			warm_pause_us = 2000;
			break;
		case 'g':
			min_age = parse_num("w-damon", "-g", optarg, 1, 1000);
			break;
		case 'v':
			detail = 1;
			break;
		default:
			fprintf(stderr, "usage: w-damon [-H HOT_MB] [-W WARM_MB] [-C COLD_MB] [-R ROUNDS] [-w WARMUP_S] [-s SECONDS] [-i SAMPLE_US] [-a AGGR_US] [-n NAME] [-T] [-P [-g MIN_AGE] | -Q [-v]]\n");
			return 2;
		}
	}
	if (aggr_us < sample_us) {
		fprintf(stderr, "w-damon: -a %lu is below -i %lu: DAMON refuses it\n", aggr_us, sample_us);
		return 2;
	}
	psz = sysconf(_SC_PAGESIZE);
	if (reclaim && quota) {
		fprintf(stderr, "w-damon: -P and -Q are two workloads: one at a time\n");
		return 2;
	}
	if (!damon_has_ops("paddr_counts") ||
	    (!reclaim && !quota && hca_read_number(HCA_TRUTH) < 0)) {
		fprintf(stderr, "w-damon: no paddr_counts or no ground truth (HWAGE_HCA_TRUTH=1)\n");
		return 3;
	}
	if (reclaim && cg_self(cg, sizeof(cg))) {
		fprintf(stderr, "w-damon: -P wants a cgroup of its own (cgroup v2)\n");
		return 3;
	}
	if (page_set_alloc(&sets[0], hot_mb, 1, thp) ||
	    page_set_alloc(&sets[1], warm_mb, 2, thp) ||
	    page_set_alloc(&sets[2], cold_mb, 3, thp)) {
		fprintf(stderr, "w-damon: out of memory for the sets: %s\n", strerror(errno));
		return 3;
	}
	span(sets, 3, &lo, &hi);
	printf("# w-damon: sets hot %ld, warm %ld, cold %ld MiB; physical span %#llx-%#llx (%llu MiB); intervals %lu/%lu us\n",
	       hot_mb, warm_mb, cold_mb, lo, hi, (hi - lo) >> 20, sample_us, aggr_us);
	if (pthread_create(&th[0], NULL, hot_reader, &sets[0]) ||
	    pthread_create(&th[1], NULL, warm_reader, &sets[1]))
		return 3;
	for (i = 0; i < rounds && !failed; i++) {
		const char *first = i % 2 ? "paddr_counts" : "paddr";
		const char *second = i % 2 ? "paddr" : "paddr_counts";
		long fp = (hot_mb + warm_mb + cold_mb) << 20;

		if (reclaim)
			failed = reclaim_run(first, name, sets, 3, lo, hi, min_age, secs, fp) ||
				 reclaim_run(second, name, sets, 3, lo, hi, min_age, secs, fp);
		else if (quota)
			failed = quota_run(first, name, sets, lo, hi, sample_us, aggr_us, warm, secs,
					   fp) ||
				 quota_run(second, name, sets, lo, hi, sample_us, aggr_us, warm, secs,
					   fp);
		else
			failed = run(first, name, lo, hi, sample_us, aggr_us, warm, secs, fp) ||
				 run(second, name, lo, hi, sample_us, aggr_us, warm, secs, fp);
	}
	stop = 1;
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	for (i = 0; i < 3; i++)
		errors += page_set_errors(&sets[i]);
	for (i = 0; i < nr_lines; i++)
		printf("%s exit=%d errors=%ld\n", lines[i], errors ? 1 : 0, errors);
	if (errors)
		printf("# w-damon: %ld bytes of the sets differ\n", errors);
	return errors ? 1 : failed ? 3 : 0;
}
