// SPDX-License-Identifier: GPL-2.0
/*
 * w-thp: transparent huge pages with known sub-page hotness, for the tests
 * and the benchmark of the huge page split and collapse by access counts.
 *
 *   w-thp [-N THPS] [-W WARM_SECONDS] [-s SECONDS] [-L LIMIT_MB] [-r SEED]
 *         [-b]
 *
 * It maps four regions of THPS (8) PMD-sized huge pages each, with
 * MADV_HUGEPAGE, and writes every page once. The pages it then reads are
 * hot; the others are never read again until the final check:
 *   even     every page hot
 *   sparse   one page in 16 hot, evenly spread
 *   cluster  one run of contiguous pages hot, a sixteenth of each huge page
 *   cold     no page hot
 * Each operation picks one of the hot pages at random, all equally likely,
 * reads all its 64-byte lines and checks them (each holds its page's id).
 * It reads for WARM_SECONDS (4), so that the hot pages' counts mature, then
 * with -L lowers the memory.max of its own memory cgroup to LIMIT_MB: the
 * kernel reclaims down to it in the writing thread, while the main thread
 * goes on reading the hot pages (a workload does not pause for reclaim, and
 * the counts of its hot pages must not fade while the kernel reads them).
 * Once the limit is in place it reads for SECONDS (5) more: the measured
 * run. At the end it reports, per region, how many of its pages
 * are resident, swapped out and still mapped as part of a huge page
 * (/proc/kpageflags), and how many hot and cold pages are resident, then
 * reads back every page and checks it: a page lost or mixed up is an error.
 *
 * With -b the regions are faulted in as base pages (MADV_NOHUGEPAGE) and
 * given MADV_HUGEPAGE after the warm-up, for khugepaged to collapse once
 * their counts are mature; the run then goes on for SECONDS, the regions
 * get MADV_NOHUGEPAGE again as it ends (idle, every range would soon look
 * evenly cold), and the report says which ranges khugepaged collapsed.
 *
 * Lines:
 *   region NAME thps=N pages=N resident=N swapped=N huge=N hot_resident=N
 *     cold_resident=N hot=N cold=N
 *   result ops=N secs=S ops_per_s=N majflt=N limit_ms=N limit_majflt=N pages=N
 *     resident=N hot_pages=N hot_resident=N huge=N subpage_cold=N
 *     subpage_cold_freed=N even_pages=N even_huge=N errors=N
 * majflt counts the major faults of the measured run: only hot pages are
 * read then, so each is a hot page that was swapped out; limit_ms is the
 * time the write of memory.max took (the reclaim down to the limit, hot
 * pages read meanwhile) and limit_majflt the major faults meanwhile; the
 * rest sums the regions' census after the run; subpage_cold counts the
 * cold pages of the sparse and cluster regions, subpage_cold_freed those of
 * them not resident, even_huge the even region's pages mapped huge. The
 * exit status is 0 only if errors=0; 3 if no huge page could be had at all
 * (without -b), so that a test can tell that apart.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "pagemap.h"
#include "util.h"

#define KPF_THP		22
#define NR_REGIONS	4
#define SPARSE_EVERY	16

enum { EVEN, SPARSE, CLUSTER, COLD };
static const char *const region_names[NR_REGIONS] = { "even", "sparse", "cluster", "cold" };

static long psz, hpage, sub;	/* page size, huge page size, pages per huge page */
static long thps = 8;
static char *region[NR_REGIONS];
static uint32_t *hot_ids;	/* global page ids of the hot pages */
static size_t nr_hot;
static uint64_t errors;

static void usage(const char *why)
{
	fprintf(stderr, "w-thp: %s\nusage: w-thp [-N THPS] [-W WARM_SECONDS] [-s SECONDS] "
		"[-L LIMIT_MB] [-r SEED] [-b]\n", why);
	exit(2);
}

/* whether page j (0 to sub - 1) of a huge page of region r is hot */
static int page_hot(int r, long j)
{
	switch (r) {
	case EVEN:
		return 1;
	case SPARSE:
		return j % SPARSE_EVERY == 0;
	case CLUSTER:
		return j >= sub / 4 && j < sub / 4 + sub / SPARSE_EVERY;
	}
	return 0;
}

static uint64_t page_word(size_t id)
{
	return id * 0x9e3779b97f4a7c15ull ^ 0x7468707061676573ull;
}

static char *page_addr(size_t id)
{
	size_t per = thps * sub;

	return region[id / per] + id % per * psz;
}

static void write_page(size_t id)
{
	uint64_t *w = (uint64_t *)page_addr(id);
	long i;

	for (i = 0; i < psz / 8; i += 8)
		w[i] = page_word(id);
}

static void check_page(size_t id)
{
	volatile uint64_t *w = (volatile uint64_t *)page_addr(id);
	long i;

	for (i = 0; i < psz / 8; i += 8) {
		if (w[i] != page_word(id)) {
			if (errors++ < 10)
				printf("# page %zu line %ld reads %#llx, want %#llx\n", id, i / 8,
				       (unsigned long long)w[i], (unsigned long long)page_word(id));
			return;
		}
	}
}

static uint64_t ops_for(double secs, uint64_t *rng)
{
	double end = now_s() + secs;
	uint64_t ops = 0;
	int i;

	while (now_s() < end) {
		for (i = 0; i < 64; i++)
			check_page(hot_ids[xorshift64(rng) % nr_hot]);
		ops += 64;
	}
	return ops;
}

/* memory.max of our own memory cgroup, in MiB; 0 or -errno */
static int set_own_limit(long mb)
{
	char cg[320], val[32];
	int ret = cg_self(cg, sizeof(cg));

	if (ret)
		return ret;
	snprintf(val, sizeof(val), "%ld", mb << 20);
	ret = cg_write(cg, "memory.max", val);
	return ret < 0 ? ret : 0;
}

/* the write of memory.max, in a thread of its own */
struct limit_arg {
	long mb;
	int ret;
	double ms;
	volatile int done;
};

static void *limit_thread(void *p)
{
	struct limit_arg *a = p;
	double t0 = now_s();

	a->ret = set_own_limit(a->mb);
	a->ms = (now_s() - t0) * 1000;
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static long majflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

/* what the census found in all regions */
static long total_resident, total_hot_res, total_huge;
/* the cold pages of the sparse and cluster regions, and how many are resident */
static long sub_cold, sub_cold_res;
/* the even region's pages mapped huge */
static long even_huge;

/* the census of region r; returns the pages of huge pages found in it */
static long census(int r, int pm, int kpf)
{
	long j, pages = thps * sub, resident = 0, swapped = 0, huge = 0, hot_res = 0, cold_res = 0;
	long hot = 0;

	for (j = 0; j < pages; j++) {
		uint64_t e = pagemap_entry(pm, region[r] + j * psz), flags = 0;
		int h = page_hot(r, j % sub);

		hot += h;
		if (e & PM_SWAPPED)
			swapped++;
		if (!(e & PM_PRESENT))
			continue;
		resident++;
		if (h)
			hot_res++;
		else
			cold_res++;
		if (kpf >= 0 && pread(kpf, &flags, 8, (e & PM_PFN) * 8) == 8 &&
		    flags & 1ull << KPF_THP)
			huge++;
	}
	printf("region %s thps=%ld pages=%ld resident=%ld swapped=%ld huge=%ld hot_resident=%ld "
	       "cold_resident=%ld hot=%ld cold=%ld\n", region_names[r], thps, pages, resident,
	       swapped, huge, hot_res, cold_res, hot, pages - hot);
	total_resident += resident;
	total_hot_res += hot_res;
	total_huge += huge;
	if (r == SPARSE || r == CLUSTER) {
		sub_cold += pages - hot;
		sub_cold_res += cold_res;
	}
	if (r == EVEN)
		even_huge = huge;
	return huge;
}

int main(int argc, char **argv)
{
	long warm = 4, secs = 5, limit = 0, base_pages = 0, r, j, huge = 0, flt0, limit_ms = 0;
	long limit_flt = 0;
	uint64_t rng = 0x2545f4914f6cdd1dull, ops;
	int c, pm, kpf;
	double t0, t1;
	size_t id;

	while ((c = getopt(argc, argv, "N:W:s:L:r:b")) != -1) {
		switch (c) {
		case 'N': thps = parse_num("w-thp", "-N", optarg, 1, 1 << 16); break;
		case 'W': warm = parse_num("w-thp", "-W", optarg, 0, 86400); break;
		case 's': secs = parse_num("w-thp", "-s", optarg, 0, 86400); break;
		case 'L': limit = parse_num("w-thp", "-L", optarg, 1, 1 << 20); break;
		case 'r': rng = parse_num("w-thp", "-r", optarg, 1, 1L << 62); break;
		case 'b': base_pages = 1; break;
		default: usage("unknown option");
		}
	}
	if (optind != argc)
		usage("unexpected argument");

	psz = sysconf(_SC_PAGESIZE);
	{
		char buf[32];

		hpage = read_file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf,
				  sizeof(buf)) > 0 ? atol(buf) : 0;
	}
	if (hpage <= psz) {
		printf("# no PMD-sized transparent huge pages on this kernel\n");
		return 3;
	}
	sub = hpage / psz;
	pm = pagemap_open();
	kpf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (pm < 0 || kpf < 0) {
		printf("# cannot open /proc/self/pagemap or /proc/kpageflags: %s\n", strerror(errno));
		return 1;
	}
	hot_ids = malloc(NR_REGIONS * thps * sub * sizeof(*hot_ids));
	if (!hot_ids) {
		printf("# out of memory\n");
		return 1;
	}
	for (r = 0; r < NR_REGIONS; r++) {
		size_t len = thps * hpage;
		char *map = mmap(NULL, len + hpage, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (map == MAP_FAILED) {
			printf("# mmap of %zu bytes: %s\n", len + hpage, strerror(errno));
			return 1;
		}
		region[r] = (char *)(((uintptr_t)map + hpage - 1) & ~(uintptr_t)(hpage - 1));
		madvise(region[r], len, base_pages ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
		for (j = 0; j < thps * sub; j++) {
			id = r * thps * sub + j;
			write_page(id);
			if (page_hot(r, j % sub))
				hot_ids[nr_hot++] = id;
		}
	}
	printf("# %d regions of %ld huge pages of %ld pages of %ld bytes; %zu pages hot\n",
	       NR_REGIONS, thps, sub, psz, nr_hot);
	for (r = 0; r < NR_REGIONS; r++)
		huge += census(r, pm, kpf);
	if (!base_pages && !huge) {
		printf("# no huge page: transparent huge pages are off or none could be had\n");
		return 3;
	}
	fflush(stdout);

	ops_for(warm, &rng);
	/* khugepaged may take the ranges now, their counts mature */
	for (r = 0; base_pages && r < NR_REGIONS; r++)
		madvise(region[r], thps * hpage, MADV_HUGEPAGE);
	if (limit) {
		struct limit_arg a = { .mb = limit };
		pthread_t t;
		int ret = pthread_create(&t, NULL, limit_thread, &a);

		if (ret) {
			printf("# cannot start a thread: %s\n", strerror(ret));
			return 1;
		}
		/* the hot pages are read on while the kernel reclaims */
		limit_flt = majflt();
		while (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE))
			ops_for(0.01, &rng);
		pthread_join(t, NULL);
		limit_flt = majflt() - limit_flt;
		limit_ms = a.ms;
		if (a.ret) {
			printf("# cannot set memory.max to %ld MiB: %s\n", limit, strerror(-a.ret));
			return 1;
		}
	}
	flt0 = majflt();
	t0 = now_s();
	ops = ops_for(secs, &rng);
	t1 = now_s();
	flt0 = majflt() - flt0;
	/*
	 * Idle from here on, the hot pages' counts fade and every range
	 * looks evenly cold within two decays: keep khugepaged off the
	 * regions while the census reads them, so that it reports the run
	 */
	for (r = 0; base_pages && r < NR_REGIONS; r++)
		madvise(region[r], thps * hpage, MADV_NOHUGEPAGE);

	total_resident = total_hot_res = total_huge = sub_cold = sub_cold_res = 0;
	for (r = 0; r < NR_REGIONS; r++)
		census(r, pm, kpf);
	for (id = 0; id < (size_t)(NR_REGIONS * thps * sub); id++)
		check_page(id);
	printf("result ops=%llu secs=%.2f ops_per_s=%.0f majflt=%ld limit_ms=%ld limit_majflt=%ld "
	       "pages=%ld resident=%ld hot_pages=%zu hot_resident=%ld huge=%ld subpage_cold=%ld "
	       "subpage_cold_freed=%ld even_pages=%ld even_huge=%ld errors=%llu\n",
	       (unsigned long long)ops, t1 - t0, ops / (t1 - t0 + 1e-9), flt0, limit_ms, limit_flt,
	       NR_REGIONS * thps * sub, total_resident, nr_hot, total_hot_res, total_huge,
	       sub_cold, sub_cold - sub_cold_res, thps * sub, even_huge,
	       (unsigned long long)errors);
	return errors ? 1 : 0;
}
