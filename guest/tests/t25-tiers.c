// SPDX-License-Identifier: GPL-2.0
/*
 * t25: promotion across memory tiers by the counts (scenario tiers).
 * The guest's RAM is on two nodes, node 1 CPU-less and in a memory tier
 * below node 0's (HWAGE_TIERS, harness/run-guest.sh); kpromoted1 moves the
 * hottest pages of node 1 up to node 0 by their counts:
 *
 *   1. the topology: node 1 in a lower tier than node 0, kpromoted1
 *      running, the counter table covering both nodes, and a page of node
 *      1 the test writes counted at its own pfn;
 *   2. a hot set (HOT_MB, read at random again and again) and a cold set
 *      (COLD_MB, written once) start on node 1; with counter aging on, at
 *      least 90% of the hot pages move to node 0 within LIMIT_S seconds
 *      of guest time, at least 90% of the cold ones stay, the pages the
 *      kernel moved up are the hot ones with a precision of at least 0.9,
 *      and /proc/vmstat agrees;
 *   3. the hot set moves: the reads go to a second set, cold on node 1
 *      until then; at least 90% of it moves up within LIMIT_S seconds;
 *      then, with nothing hot left on node 1, a pass of kpromoted1 reads
 *      the counts of at most a 32nd of node 1's pages within IDLE_S
 *      seconds (it samples one page per block of promote-sample-pages,
 *      64, or more when idle);
 *      and with room to spare on node 0, a set used lightly (a word of
 *      each page every 200 ms, far below the hot sets' rate) moves up
 *      too, 90% of it within LIMIT_S seconds;
 *   4. node 0 full: a ballast takes node 0's free memory and a new hot
 *      set starts on node 1; at least 90% of it moves up within LIMIT_S
 *      seconds, as kswapd demotes node 0's coldest pages (the ballast) to
 *      make room, and of the pages moved up at most 10% come back down
 *      (ping-pong);
 *   5. with counter aging off, a new hot set on node 1 stays there and
 *      nothing is promoted by counts: stock behaviour;
 *   6. every page of every set, the ballast too, read back intact (only
 *      at the end: reading it all makes all of it hot);
 *   7. NUMA hint faults as the source, the counts still off: with NUMA
 *      balancing's tiering mode and promote-faults, the ballast freed, a
 *      new hot set on node 1 moves up, 90% of it within LIMIT_S seconds,
 *      by kpromoted1 (pgpromote_counts_success) rather than in the fault
 *      path, and the cold set, which nothing reads, stays; the new set
 *      read back intact. Skipped on a kernel without NUMA balancing.
 *
 * The figures go to the log as diagnostics: the share of the hot set's
 * reads that node 0 serves, each second (the reads are uniform over the
 * hot set, so it is the share of its pages on node 0; the best placement
 * serves them all there: node 0 has room for every set), the time to 90%
 * of it, and kpromoted1's CPU per page moved up. The benchmark's tiers
 * workload (w-tiers) measures the same on production kernels, against
 * NUMA balancing's tiering mode.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hca.h"
#include "ktap.h"
#include "pagemap.h"
#include "tiers.h"
#include "util.h"

#define HOT_MB 16
#define COLD_MB 48
#define LIMIT_S 60
#define OFF_S 5
#define LINGER_S 3
#define WARM_MB 4
#define IDLE_S 10
#define NR_TESTS 18

static const char *names[NR_TESTS] = {
	"node 1 is in a lower memory tier than node 0",
	"kpromoted1 runs",
	"the counter table covers both nodes",
	"a page of node 1 is counted at its own pfn",
	"the hot and the cold set start on node 1",
	"90% of the hot set moves up to node 0",
	"90% of the cold set stays on node 1",
	"precision of the pages moved up >= 0.9",
	"vmstat counts the promotions",
	"the hot set moves: 90% of the new one moves up",
	"idle: a pass reads the counts of at most 1/32 of node 1's pages",
	"room on node 0: 90% of a lightly used set moves up",
	"node 0 full: 90% of a new hot set moves up, node 0's coldest pages demoted",
	"ping-pong bounded: hot pages back down <= 10% of those up",
	"counts off: the hot set stays on node 1, nothing promoted",
	"no byte lost",
	"hint faults, counts off: 90% of a hot set moves up, by kpromoted1",
	"hint faults: the cold set stays on node 1, the hot set intact",
};

/*
 * Read @buf's @n pages at random, checking each second where they are,
 * until 90% are on node 0 or @limit seconds pass, then for @linger seconds
 * more; the seconds it took to 90%, or -1. @downs counts the pages seen
 * to go from node 0 back to node 1 (ping-pong). @what names the set in
 * the diagnostics.
 */
static double converge(const char *what, char *buf, long n, int *status, int limit, int linger,
		       uint64_t *rng, long *up, long *downs)
{
	double start = now_s(), t90 = -1;
	int *prev = malloc(n * sizeof(*prev));
	long long reads = 0;
	int sec, stop = 0;
	long i;

	*downs = 0;
	for (i = 0; prev && i < n; i++)
		prev[i] = -1;
	for (sec = 1; t90 >= 0 || now_s() - start < limit; sec++) {
		char stat[256] = "";

		*up = tiers_step(buf, n, status, rng, &reads);
		for (i = 0; prev && i < n; i++) {
			*downs += prev[i] == 0 && status[i] == 1;
			prev[i] = status[i];
		}
		if (read_file(HCA_DIR "promote-stat", stat, sizeof(stat)) > 0)
			stat[strcspn(stat, "\n")] = '\0';
		ktap_diag("%s %2ds: %ld of %ld pages on node 0, share of reads served there %.2f (%s)",
			  what, sec, *up, n, (double)*up / n, stat);
		if (t90 < 0 && *up >= n * 9 / 10) {
			t90 = now_s() - start;
			stop = sec + linger;
		}
		if (t90 >= 0 && sec >= stop)
			break;
	}
	free(prev);
	return t90;
}

static void skip_rest(int from, const char *why)
{
	int i;

	for (i = from; i < NR_TESTS; i++)
		ktap_skip(names[i], why);
}

int main(void)
{
	long hot_n = HOT_MB * (1 << 20) / TIERS_PAGE, cold_n = COLD_MB * (1 << 20) / TIERS_PAGE;
	long warm_n = WARM_MB * (1 << 20) / TIERS_PAGE;
	long long node1_pfn, node1_pages, idle_read;
	char *warm;
	long long success0, cand0, back0, success, cand, back, cpu0, cpu;
	long hot_up = 0, hot_up0, cold_up, cold_down, bad, downs;
	char *hot, *cold, *hot2, *hot3, *hot4, *hot5, *ballast, table[8192];
	long long free_kb, dem0, dem;
	long ballast_n;
	int *hot_st, *cold_st, pid, t0, t1, ok;
	double t90, t_off;
	uint64_t rng = 0x5eed7125;
	unsigned long long pfn;

	ktap_begin("t25-tiers", NR_TESTS);
	if (!hca_on() || access("/sys/devices/system/node/node1", F_OK)) {
		skip_rest(0, !hca_on() ? HCA_OFF_WHY :
			  "no node 1 (the tiers boot has one: HWAGE_TIERS)");
		return ktap_end();
	}

	/* 1. the topology */
	t0 = tiers_node_tier(0);
	t1 = tiers_node_tier(1);
	ktap_diag("memory tiers: node 0 in %d, node 1 in %d", t0, t1);
	ktap_result(t0 >= 0 && t1 > t0, names[0]);
	write_file("/sys/kernel/mm/numa/demotion_enabled", "1");
	pid = thread_pid("kpromoted1");
	ktap_result(pid > 0, names[1]);
	ok = 0;
	if (read_file(HCA_BACKEND "table", table, sizeof(table)) > 0) {
		char *n0 = strstr(table, "node 0 pfn "), *n1 = strstr(table, "node 1 pfn ");

		ok = n0 && n1 && !strncmp(strchr(n0 + 11, ' '), " covered", 8) &&
		     !strncmp(strchr(n1 + 11, ' '), " covered", 8);
		if (!ok)
			ktap_diag("table: %s", table);
	}
	ktap_result(ok, names[2]);

	/* 2. a hot and a cold set on node 1, and the sets of phases 3 to 5 */
	cold = tiers_alloc(1, cold_n, 2);
	hot = tiers_alloc(1, hot_n, 1);
	hot2 = tiers_alloc(1, hot_n, 3);
	hot_st = calloc(hot_n, sizeof(int));
	cold_st = calloc(cold_n, sizeof(int));
	if (!hot || !cold || !hot2 || !hot_st || !cold_st) {
		ktap_diag("allocation on node 1 failed: %s", strerror(errno));
		skip_rest(3, "allocation on node 1 failed");
		return ktap_end();
	}
	{
		/* the first hot page: its count at its own pfn */
		int fd = pagemap_open();
		struct hca_count e0, e1;

		pfn = fd >= 0 ? pagemap_pfn(fd, hot) : 0;
		if (fd >= 0)
			close(fd);
		ok = pfn && !hca_read_count(pfn, &e0);
		if (ok) {
			tiers_read(hot, 1, 200000, &rng);
			hca_spin(2000000);
			ok = !hca_read_count(pfn, &e1) &&
			     e1.count + e1.prev >= e0.count + e0.prev + 1000;
			ktap_diag("pfn %llu of node 1: count %llu+%llu, after 200000 reads %llu+%llu",
				  pfn, e0.count, e0.prev, e1.count, e1.prev);
		}
		ktap_result(ok, names[3]);
	}
	ok = tiers_on_node(hot, hot_n, hot_st, 1) == hot_n && tiers_on_node(cold, cold_n, cold_st, 1) == cold_n &&
	     tiers_on_node(hot2, hot_n, hot_st, 1) == hot_n;
	ktap_result(ok, names[4]);
	if (hca_counts(1))
		ktap_diag("could not turn counter aging on: %s", strerror(errno));

	/* counter aging may have been on since boot (hca_age=1) */
	hot_up0 = tiers_on_node(hot, hot_n, hot_st, 0);
	success0 = vmstat("pgpromote_counts_success");
	cand0 = vmstat("pgpromote_counts_candidate");
	back0 = vmstat("pgdemote_counts_back");
	cpu0 = task_cpu_ns(pid);
	t90 = converge("hot set", hot, hot_n, hot_st, LIMIT_S, 0, &rng, &hot_up, &downs);
	success = vmstat("pgpromote_counts_success") - success0;
	cand = vmstat("pgpromote_counts_candidate") - cand0;
	back = vmstat("pgdemote_counts_back") - back0;
	cpu = task_cpu_ns(pid) - cpu0;
	cold_down = tiers_on_node(cold, cold_n, cold_st, 1);
	cold_up = tiers_on_node(cold, cold_n, cold_st, 0) + tiers_on_node(hot2, hot_n, hot_st, 0);
	ktap_diag("counts: 90%% of the hot set on node 0 after %.1f s; cold pages moved up %ld of %ld; vmstat candidates %lld promoted %lld demoted back %lld; kpromoted1 %.1f ms CPU, %.0f ns per page moved up",
		  t90, cold_up, cold_n + hot_n, cand, success, back, cpu / 1e6,
		  success > 0 ? (double)cpu / success : 0.0);
	ktap_result(t90 >= 0, names[5]);
	ktap_result(cold_down >= cold_n * 9 / 10, names[6]);
	ktap_diag("precision %.3f", hot_up + cold_up ? (double)hot_up / (hot_up + cold_up) : 0.0);
	ktap_result(hot_up > 0 && hot_up * 10 >= (hot_up + cold_up) * 9, names[7]);
	ktap_result(success >= hot_up - hot_up0 && cand >= success, names[8]);

	/* 3. the hot set moves */
	t90 = converge("moved hot set", hot2, hot_n, hot_st, LIMIT_S, 0, &rng, &hot_up, &downs);
	ktap_diag("counts: 90%% of the moved hot set on node 0 after %.1f s; cold set pages on node 0: %ld",
		  t90, tiers_on_node(cold, cold_n, cold_st, 0));
	ktap_result(t90 >= 0, names[9]);

	/*
	 * 3b. idle: nothing hot on node 1 any more (the rest of the moved set
	 * goes up within a pass or two), kpromoted1 samples it: the fewest
	 * counts a pass read, over IDLE_S seconds
	 */
	if (tiers_node_span(1, &node1_pfn, &node1_pages, NULL))
		node1_pages = -1;
	idle_read = -1;
	for (t_off = now_s(); now_s() - t_off < IDLE_S; usleep(250000)) {
		long long r = tiers_promote_stat(" read ");

		if (r >= 0 && (idle_read < 0 || r < idle_read))
			idle_read = r;
	}
	ktap_diag("idle: the fewest counts a pass of kpromoted1 read in %d s: %lld; node 1 has %lld pages",
		  IDLE_S, idle_read, node1_pages);
	ktap_result(idle_read >= 0 && node1_pages > 0 && idle_read * 32 <= node1_pages, names[10]);

	/* 3c. room on node 0: a set used lightly moves up too */
	warm = tiers_alloc(1, warm_n, 7);
	t90 = -1;
	t_off = now_s();
	while (warm && now_s() - t_off < LIMIT_S) {
		long i;

		for (i = 0; i < warm_n; i++)
			(void)*(volatile uint64_t *)(warm + i * TIERS_PAGE);
		usleep(200000);
		if (tiers_on_node(warm, warm_n, hot_st, 0) >= warm_n * 9 / 10) {
			t90 = now_s() - t_off;
			break;
		}
	}
	ktap_diag("room: 90%% of a %d MiB set read a word a page every 200 ms on node 0 after %.1f s",
		  WARM_MB, t90);
	ktap_result(t90 >= 0, names[11]);

	/*
	 * 4. node 0 full: a ballast as large as node 0's free memory,
	 * preferring node 0 (what does not fit goes to node 1), then a new hot
	 * set on node 1; it can move up only as kswapd demotes node 0's
	 * coldest pages to make room
	 */
	free_kb = tiers_free_kb(0);
	ballast_n = free_kb > 0 ? free_kb / (TIERS_PAGE / 1024) : 0;
	ballast = ballast_n ? tiers_alloc_policy(MPOL_PREFERRED, 0, ballast_n, 6) : NULL;
	hot4 = tiers_alloc(1, hot_n, 5);
	ktap_diag("node 0 full: ballast of %lld KiB, node 0 now %lld KiB free", free_kb,
		  tiers_free_kb(0));
	success0 = vmstat("pgpromote_counts_success");
	back0 = vmstat("pgdemote_counts_back");
	dem0 = vmstat("pgdemote_kswapd");
	t90 = ballast && hot4 ? converge("node 0 full", hot4, hot_n, hot_st, LIMIT_S, LINGER_S, &rng,
					 &hot_up, &downs) : -1;
	success = vmstat("pgpromote_counts_success") - success0;
	back = vmstat("pgdemote_counts_back") - back0;
	dem = vmstat("pgdemote_kswapd") - dem0;
	ktap_diag("node 0 full: 90%% of the hot set on node 0 after %.1f s, %ld of its pages seen going back down in it and %d s more; promoted %lld, demoted by kswapd %lld, demoted back in the period they moved up (pgdemote_counts_back) %lld",
		  t90, downs, LINGER_S, success, dem, back);
	ktap_result(t90 >= 0 && dem > 0, names[12]);
	ktap_result(hot_up > 0 && downs * 10 <= hot_up, names[13]);

	/* 5. counts off: stock */
	hca_counts(0);
	hot3 = tiers_alloc(1, hot_n, 4);
	success0 = vmstat("pgpromote_counts_success");
	t_off = now_s();
	while (hot3 && now_s() - t_off < OFF_S)
		tiers_read(hot3, hot_n, 100000, &rng);
	success = vmstat("pgpromote_counts_success") - success0;
	hot_up = hot3 ? tiers_on_node(hot3, hot_n, hot_st, 1) : -1;
	ktap_diag("counts off: %ld of %ld hot pages still on node 1, %lld promoted by counts",
		  hot_up, hot_n, success);
	ktap_result(hot3 && hot_up == hot_n && !success, names[14]);

	/* every set read back only now: the reads would make all of it hot */
	bad = tiers_check(hot, hot_n, 1) + tiers_check(cold, cold_n, 2) + tiers_check(hot2, hot_n, 3);
	bad += (hot4 ? tiers_check(hot4, hot_n, 5) : 0) + (hot3 ? tiers_check(hot3, hot_n, 4) : 0);
	bad += ballast ? tiers_check(ballast, ballast_n, 6) : 0;
	bad += warm ? tiers_check(warm, warm_n, 7) : 0;
	if (bad)
		ktap_diag("%ld pages lost their pattern", bad);
	ktap_result(!bad, names[15]);

	/* 7. hint faults as the source, the counts still off */
	if (ballast)
		munmap(ballast, ballast_n * TIERS_PAGE);
	if (write_file("/proc/sys/kernel/numa_balancing", "2")) {
		skip_rest(16, "no NUMA balancing (CONFIG_NUMA_BALANCING)");
		return ktap_end();
	}
	ok = !hca_knob("promote-faults", "1");
	hot5 = tiers_alloc(1, hot_n, 8);
	success0 = vmstat("pgpromote_counts_success");
	t90 = ok && hot5 ? converge("hint faults", hot5, hot_n, hot_st, LIMIT_S, 0, &rng,
				    &hot_up, &downs) : -1;
	success = vmstat("pgpromote_counts_success") - success0;
	cold_down = tiers_on_node(cold, cold_n, cold_st, 1);
	hca_knob("promote-faults", "0");
	write_file("/proc/sys/kernel/numa_balancing", "0");
	ktap_diag("hint faults: 90%% of the hot set on node 0 after %.1f s, %ld pages up, %lld promoted by kpromoted1; cold set on node 1: %ld of %ld",
		  t90, hot_up, success, cold_down, cold_n);
	ktap_result(t90 >= 0 && success >= hot_up * 9 / 10, names[16]);
	bad = hot5 ? tiers_check(hot5, hot_n, 8) : -1;
	ktap_result(hot5 && !bad && cold_down >= cold_n * 9 / 10, names[17]);

	return ktap_end();
}
