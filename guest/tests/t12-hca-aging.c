// SPDX-License-Identifier: GPL-2.0
/*
 * MGLRU aging from the emulated counts at work (hwage.hca=on only): a
 * hot/cold workload in a memory cgroup twice its limit, with swap on
 * zram, runs with hca_lru_age on, while hca_lru_age is switched off and
 * on again under load, then with it on throughout, then with
 * evict-skip-refs on as well. Every page is verified at the end of each
 * run, and the aging must have sampled a hotness range for the cgroup
 * (the "hotness max N min N" line of /sys/kernel/debug/lru_gen).
 *
 * The run with hca_lru_age on throughout caught a livelock: every newly
 * faulted page, its count fresh from the kernel's zeroing, was promoted
 * out of the oldest generation, and the cgroup went OOM.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "util.h"

#define HCA "/sys/kernel/debug/hca/"
#define CG "/sys/fs/cgroup/hwage-t12"
#define HOT_MB 12
#define COLD_MB 52
#define LIMIT "32M"
#define HOT_PASSES 40

static long psz;

static uint64_t word(size_t page)
{
	return page * 0x9e3779b97f4a7c15ull + 1;
}

/* fill hot and cold once, re-read hot, then verify every page */
static int child(void)
{
	size_t hot = (size_t)HOT_MB << 20 >> 12, all = (size_t)(HOT_MB + COLD_MB) << 20 >> 12;
	size_t p, bad = 0, step = psz / 8;
	uint64_t *mem;
	int pass;

	hot = hot * 4096 / psz;
	all = all * 4096 / psz;
	if (write_file(CG "/cgroup.procs", "0"))
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

/* the hotness max of our cgroup's first node, -1 if not shown */
static long long cg_hotness_max(void)
{
	static char buf[1 << 20];
	char *line, *save = NULL;
	int ours = 0;
	long long max = -1, min;

	if (read_file("/sys/kernel/debug/lru_gen", buf, sizeof(buf)) <= 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "memcg", 5))
			ours = strstr(line, "/hwage-t12") != NULL;
		else if (ours && sscanf(line, " hotness max %lld min %lld", &max, &min) == 2)
			return max;
	}
	return max;
}

/* run the workload; toggle hca_lru_age under it if asked */
static int run(int toggle, long long *seen_max)
{
	int status = -1, i;
	pid_t pid = fork();

	if (pid == 0)
		_exit(child());
	for (i = 0; waitpid(pid, &status, WNOHANG) == 0; i++) {
		long long m = cg_hotness_max();

		if (m > *seen_max)
			*seen_max = m;
		if (toggle && i == 2)
			write_file(HCA "hca_lru_age", "0");
		if (toggle && i == 4)
			write_file(HCA "hca_lru_age", "1");
		usleep(300000);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
	char cmdline[4096];
	long long max1 = -1, max2 = -1, out0;
	int ok;

	psz = sysconf(_SC_PAGESIZE);
	read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	if (!strstr(cmdline, "hwage.hca=on")) {
		ktap_begin("hca_aging", 1);
		ktap_skip("aging_from_counts", "no counter engine (hwage.hca is not on)");
		return ktap_end();
	}
	ktap_begin("hca_aging", 6);
	if (!ktap_result(!setup_zram_swap(256) &&
			 !write_file(HCA "hca_lru_age", "1"), "counts_in_use"))
		return ktap_end();
	write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	mkdir(CG, 0755);
	write_file(CG "/memory.max", LIMIT);

	out0 = vmstat("pswpout");
	ok = run(1, &max1);
	ktap_diag("hca_lru_age 1 -> 0 -> 1 under load: hotness max seen %lld, pswpout +%lld",
		  max1, vmstat("pswpout") - out0);
	ktap_result(ok, "every_page_intact_across_hca_lru_age_switches");
	ktap_result(max1 > 0, "aging_sampled_a_hotness_range");

	out0 = vmstat("pswpout");
	ok = run(0, &max2);
	ktap_diag("hca_lru_age 1 throughout: hotness max seen %lld, pswpout +%lld", max2,
		  vmstat("pswpout") - out0);
	ktap_result(ok, "every_page_intact_with_counts_in_use");

	write_file(HCA "evict-skip-refs", "1");
	out0 = vmstat("pswpout");
	ok = run(0, &max2);
	write_file(HCA "evict-skip-refs", "0");
	ktap_diag("evict-skip-refs 1: hotness max seen %lld, pswpout +%lld", max2,
		  vmstat("pswpout") - out0);
	ktap_result(ok, "every_page_intact_with_evict_skip_refs");
	ktap_result(vmstat("pswpout") > out0, "reclaimed_to_swap");

	write_file(HCA "hca_lru_age", "0");
	rmdir(CG);
	return ktap_end();
}
