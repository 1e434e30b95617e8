// SPDX-License-Identifier: GPL-2.0
/*
 * MGLRU aging from the emulated counts at work (hwage.hca=on only): a
 * hot/cold workload in a memory cgroup twice its limit, with swap on
 * zram, runs with counter aging on and every reference checked
 * (evict-skip-refs 0), while counter aging is switched off and on again
 * under load, then with it on throughout, then with evict-skip-refs on
 * (the kernel's default). Every page is verified at the end of each
 * run, and the aging must have sampled a hotness range for the cgroup
 * (the "hotness max N min N" line of /sys/kernel/debug/lru_gen). The
 * limit must have been set and each run must have pushed pages out to
 * swap, or the runs checked nothing.
 *
 * The run with counter aging on throughout caught a livelock: every newly
 * faulted page, its count fresh from the kernel's zeroing, was promoted
 * out of the oldest generation, and the cgroup went OOM.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "hca.h"
#include "ktap.h"
#include "lru_gen.h"
#include "util.h"

#define CG CG_ROOT "/hwage-t12"
#define HOT_MB 12
#define COLD_MB 52
#define LIMIT_MB 32
#define HOT_PASSES 40

static long psz;

static uint64_t word(size_t page)
{
	return page * 0x9e3779b97f4a7c15ull + 1;
}

/* fill hot and cold once, re-read hot, then verify every page */
static int child(void)
{
	size_t hot = ((size_t)HOT_MB << 20) / psz, all = ((size_t)(HOT_MB + COLD_MB) << 20) / psz;
	size_t p, bad = 0, step = psz / 8;
	uint64_t *mem;
	int pass;

	if (cg_enter(CG))
		return 2;
	mem = mmap(NULL, all * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 3;
	for (p = 0; p < all; p++)
		mem[p * step] = word(p);
	for (pass = 0; pass < HOT_PASSES; pass++)
		for (p = 0; p < hot; p++)
			bad += mem[p * step] != word(p);
	for (p = 0; p < all; p++)
		bad += mem[p * step] != word(p);
	return bad ? 1 : 0;
}

/* the hotness max the aging sampled for our cgroup, -1 if not shown */
static long long cg_hotness_max(void)
{
	struct lru_gen_scan s;

	if (lru_gen_scan(LRU_GEN, cg_path(CG), -1, -1, &s))
		return -1;
	return s.hot_max;
}

/*
 * Run the workload; with toggle, switch counter aging off and on again
 * while it runs (*switches counts the switches made under it). Returns 1
 * if every page was intact; *swapped is the pswpout it caused, *oom the
 * memcg OOM kills.
 */
static int run(int toggle, long long *seen_max, int *switches, long long *swapped,
	       long long *oom)
{
	long long oom0 = cg_stat(CG, "memory.events", "oom_kill");
	long long out0 = vmstat("pswpout");
	int status = -1, i;
	pid_t pid = fork();

	if (pid == 0)
		_exit(child());
	for (i = 0; waitpid(pid, &status, WNOHANG) == 0; i++) {
		long long m = cg_hotness_max();

		if (m > *seen_max)
			*seen_max = m;
		if (toggle && (i == 2 || i == 4))
			*switches += !hca_counts(i != 2);
		usleep(300000);
	}
	/* the workload ended before both switches: leave the knob on */
	if (toggle)
		hca_counts(1);
	*swapped = vmstat("pswpout") - out0;
	*oom = cg_stat(CG, "memory.events", "oom_kill") - oom0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
	long long max1 = -1, max2 = -1, swapped[3], oom;
	int ok, switches = 0;
	char skip_refs[16] = "";

	psz = sysconf(_SC_PAGESIZE);
	if (!hca_on()) {
		ktap_begin("hca_aging", 1);
		ktap_skip("aging_from_counts", HCA_OFF_WHY);
		return ktap_end();
	}
	ktap_begin("hca_aging", 7);
	read_file(HCA_DIR "evict-skip-refs", skip_refs, sizeof(skip_refs));
	skip_refs[strcspn(skip_refs, "\n")] = 0;
	if (!ktap_result(!setup_zram_swap(256) && !hca_counts(1) &&
			 !hca_knob("evict-skip-refs", "0"), "counts_in_use") ||
	    !ktap_result(!cg_create(CG, (long long)LIMIT_MB << 20), "memcg_limit_set")) {
		hca_knob("evict-skip-refs", skip_refs[0] ? skip_refs : "1");
		return ktap_end();
	}

	ok = run(1, &max1, &switches, &swapped[0], &oom);
	ktap_diag("counter aging on -> off -> on under load (%d of 2 switches made): hotness max seen "
		  "%lld, pswpout +%lld", switches, max1, swapped[0]);
	ktap_result(ok && switches == 2, "every_page_intact_across_counts_switches");

	ok = run(0, &max2, &switches, &swapped[1], &oom);
	ktap_diag("counter aging on throughout: hotness max seen %lld, pswpout +%lld", max2,
		  swapped[1]);
	ktap_result(ok, "every_page_intact_with_counts_in_use");
	/*
	 * A count is known two decay windows after its page was cleared, and
	 * the switching run has the counts in use part of the time only: it
	 * may end before the walk knows any page of the cgroup (seen once on
	 * x86_64), the run with the counts on throughout must not.
	 */
	ktap_result(max1 > 0 || max2 > 0, "aging_sampled_a_hotness_range");

	hca_knob("evict-skip-refs", "1");
	ok = run(0, &max2, &switches, &swapped[2], &oom);
	/* back to what the kernel had */
	hca_knob("evict-skip-refs", skip_refs[0] ? skip_refs : "1");
	ktap_diag("evict-skip-refs 1: hotness max seen %lld, pswpout +%lld, memcg OOM kills %lld",
		  max2, swapped[2], oom);
	/*
	 * Known defect: now and then (1 boot in about 8 on x86_64) the memcg
	 * OOM-kills the workload here although zram has room, i.e. eviction
	 * without reference checks makes no progress; the counter-aging work
	 * (issue 11) owns it. Only that is a known failure: a workload that
	 * ran to its end with a bad page, or died otherwise, fails.
	 */
	if (!ok && oom > 0)
		ktap_todo("every_page_intact_with_evict_skip_refs",
			  "memcg OOM kill with swap free under evict-skip-refs (issue 11)");
	else
		ktap_result(ok, "every_page_intact_with_evict_skip_refs");
	/* each run must have pressed the limit, or it checked nothing */
	ktap_result(swapped[0] > 0 && swapped[1] > 0 && swapped[2] > 0, "reclaimed_to_swap");

	hca_counts(0);
	rmdir(CG);
	return ktap_end();
}
