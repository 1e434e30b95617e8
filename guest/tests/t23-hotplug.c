// SPDX-License-Identifier: GPL-2.0
/*
 * t23: memory hotplug past the counter table (scenario hotplug, x86_64).
 * The table covers the RAM the guest booted with; a pc-dimm plugged at run
 * time lands above 4 GiB, past it. Node 0 then spans pages the backend
 * does not count, so it must go back to stock MGLRU (the page table walk
 * and the look-around) and keep working:
 *
 *   1. before the plug (counter aging on, as the test sets it), node 0 is
 *      covered and a verifying load under a
 *      memory cgroup limit is aged by the counts (the promotion walk runs,
 *      the look-around does not);
 *   2. the test asks the host for the DIMM ("hwage-hotplug: plug" on the
 *      console; harness/run-guest.sh, HWAGE_HOTPLUG), waits for its memory
 *      blocks and onlines them;
 *   3. the table now says node 0 is not covered, and pages past the table
 *      read no count (hotness -1) while pages inside still do;
 *   4. the same load in a new cgroup is aged by stock MGLRU (the look-around
 *      runs, the promotion walk does not), swaps, and loses no page.
 *
 * Each load runs LOAD_SECS, and up to MORE_SECS more until its memcg has
 * been aged once (a loaded host may not have got there yet).
 *
 * hwage.hotplug_mb=N (set by harness/boot-test.sh) is the DIMM's size; the
 * test skips without it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgroup.h"
#include "hca.h"
#include "ktap.h"
#include "lru_gen.h"
#include "pagemap.h"
#include "util.h"
#include "vload.h"

#define CG_A CG_ROOT "/hwage-t23a"
#define CG_B CG_ROOT "/hwage-t23b"
#define LIMIT_MB 48
#define LOAD_MB 80
#define LOAD_SECS 20
#define MORE_SECS 60
#define MEMDIR "/sys/devices/system/memory"
#define MAX_BLOCKS 4096
#define NR_TESTS 9

/* "node 0 pfn A-B covered" of the backend's table file: 1, 0, or -1 */
static int node0_covered(unsigned long *end)
{
	static char buf[16384];
	unsigned long a, b;
	char *p;

	if (read_file(HCA_BACKEND "table", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "node 0 pfn ");
	if (!p || sscanf(p, "node 0 pfn %lu-%lu", &a, &b) != 2)
		return -1;
	*end = b;
	p = strchr(p + 11, ' ');
	return p && !strncmp(p, " covered", 8);
}

/* the memory blocks' states: the names of the offline ones, their number */
static int memory_blocks(char (*names)[32], int *offline, int max)
{
	DIR *d = opendir(MEMDIR);
	struct dirent *e;
	int n = 0;

	*offline = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], state[32];

		if (strncmp(e->d_name, "memory", 6) || !strchr("0123456789", e->d_name[6]))
			continue;
		n++;
		snprintf(path, sizeof(path), MEMDIR "/%.200s/state", e->d_name);
		if (read_file(path, state, sizeof(state)) > 0 && !strncmp(state, "offline", 7) &&
		    *offline < max)
			snprintf(names[(*offline)++], 32, "%.31s", e->d_name);
	}
	closedir(d);
	return n;
}

/* run the verifying load in cg for LOAD_SECS; the lru_gen_full deltas */
static int aged_load(const char *cg, struct lru_gen_scan *d)
{
	struct lru_gen_scan a, b;
	pid_t pid;
	int intact, i;

	if (cg_create(cg, (long long)LIMIT_MB << 20))
		return -1;
	pid = vload_start(cg, LOAD_MB);
	sleep(LOAD_SECS / 3);
	/* the memcg is there now: count from here */
	lru_gen_scan(LRU_GEN_FULL, cg_path(cg), -1, 0, &a);
	sleep(LOAD_SECS - LOAD_SECS / 3);
	lru_gen_scan(LRU_GEN_FULL, cg_path(cg), -1, 0, &b);
	/*
	 * the checks are of what runs when the memcg is aged: on a loaded
	 * host the load may not have been aged yet (CI once saw two checks
	 * fail so): give it up to MORE_SECS more, a second at a time
	 */
	for (i = 0; i < MORE_SECS && lru_gen_delta(b.aging[1], a.aging[1]) <= 0; i++) {
		sleep(1);
		lru_gen_scan(LRU_GEN_FULL, cg_path(cg), -1, 0, &b);
	}
	intact = !vload_stop(pid);
	memset(d, 0, sizeof(*d));
	/*
	 * walked and promoted are the last walk's (not running totals), and
	 * the memcg is new: what b shows is what a walk of it did
	 */
	d->walked = b.walked;
	d->promoted = b.promoted;
	d->max_seq = lru_gen_delta(b.max_seq, a.max_seq);
	d->aging[1] = lru_gen_delta(b.aging[1], a.aging[1]);
	d->aging[3] = lru_gen_delta(b.aging[3], a.aging[3]);
	ktap_diag("%s node 0 over %d s: max_seq +%lld, aging calls +%lld, look-around calls +%lld, last promotion walk %lld folios, %lld promoted; pages %s",
		  cg_path(cg), LOAD_SECS - LOAD_SECS / 3 + i, d->max_seq, d->aging[1], d->aging[3],
		  d->walked, d->promoted, intact ? "intact" : "LOST");
	return intact;
}

/* pages of a fresh mapping past the table read no count; inside they do */
static void check_counts(unsigned long nr_pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t len = 128ul << 20, off;
	int pm = pagemap_open(), fd = open(HCA_PFN, O_RDWR);
	long past = 0, inside = 0, past_bad = 0, inside_bad = 0;
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED || pm < 0 || fd < 0) {
		ktap_diag("mmap, pagemap or " HCA_PFN ": %s", strerror(errno));
		ktap_result(0, "no_count_past_the_table");
		return;
	}
	for (off = 0; off < len; off += psz)
		mem[off] = 1;
	for (off = 0; off < len; off += psz) {
		unsigned long long pfn = pagemap_pfn(pm, mem + off);
		struct hca_pfn l;
		char s[32];

		if (!pfn)
			continue;
		if (pfn >= nr_pages ? past >= 64 : inside >= 64)
			continue;
		snprintf(s, sizeof(s), "%llu", pfn);
		if (hca_pfn_lookup(fd, s, &l))
			l.hotness = -2;
		if (pfn >= nr_pages) {
			past++;
			past_bad += l.hotness != -1;
		} else {
			inside++;
			inside_bad += l.hotness < 0;
		}
	}
	ktap_diag("pages past the table (pfn >= %lu): %ld looked at, %ld with a count; inside: %ld, %ld without",
		  nr_pages, past, past_bad, inside, inside_bad);
	ktap_result(past > 0 && !past_bad && !inside_bad, "no_count_past_the_table");
	munmap(mem, len);
	close(fd);
	close(pm);
}

int main(void)
{
	int mb = atoi(kparam("hotplug_mb", "0")), nblocks, offline, i, onlined = 0;
	static char names[MAX_BLOCKS][32];
	long long total0, total1;
	unsigned long end0 = 0, end1 = 0, nr_pages;
	struct lru_gen_scan d;
	char path[300];
	int saved;
	int covered;

	ktap_begin("t23-hotplug", NR_TESTS);
	if (mb <= 0 || !hca_on()) {
		for (i = 0; i < NR_TESTS; i++)
			ktap_skip("hotplug", mb <= 0 ? "no hwage.hotplug_mb (scenario hotplug)" : HCA_OFF_WHY);
		return ktap_end();
	}
	/* counter aging is off by default (hca_age=): on, for this test */
	saved = hca_counts_on();
	if (saved < 0 || hca_counts(1))
		ktap_diag("cannot turn counter aging on (lru_gen/enabled)");
	nr_pages = hca_table("nr_pages");
	covered = node0_covered(&end0);
	ktap_diag("table of %lu pages; node 0 ends at pfn %lu", nr_pages, end0);
	ktap_result(covered == 1, "node0_covered_at_boot");
	if (setup_zram_swap(512))
		ktap_diag("no swap on zram");
	ktap_result(aged_load(CG_A, &d) == 1 && d.walked > 0 && d.aging[3] == 0,
		    "counts_age_node0_before");

	total0 = stat_value("/proc/meminfo", "MemTotal:");
	nblocks = memory_blocks(names, &offline, MAX_BLOCKS);
	ktap_diag("%d memory blocks, %d offline, MemTotal %lld kB; asking the host for %d MiB",
		  nblocks, offline, total0, mb);
	printf("hwage-hotplug: plug %d\n", mb);
	fflush(stdout);
	for (i = 0; i < 240; i++) {
		usleep(500000);
		if (memory_blocks(names, &offline, MAX_BLOCKS) > nblocks && offline)
			break;
	}
	sleep(1);
	memory_blocks(names, &offline, MAX_BLOCKS);
	for (i = 0; i < offline; i++) {
		snprintf(path, sizeof(path), MEMDIR "/%.31s/state", names[i]);
		onlined += !write_file(path, "online");
	}
	total1 = stat_value("/proc/meminfo", "MemTotal:");
	ktap_diag("after the plug: %d offline blocks, %d onlined, MemTotal %lld kB (+%lld)",
		  offline, onlined, total1, total1 - total0);
	if (!ktap_result(onlined > 0 && total1 - total0 >= (long long)mb * 1024 * 9 / 10,
			 "dimm_onlined")) {
		for (i = 0; i < NR_TESTS - 3; i++)
			ktap_skip("after_the_plug", "the DIMM did not arrive");
		hca_counts(saved > 0);
		return ktap_end();
	}
	covered = node0_covered(&end1);
	ktap_diag("node 0 now ends at pfn %lu, %s", end1,
		  covered == 1 ? "covered" : covered ? "unreadable" : "not covered");
	ktap_result(covered == 0 && end1 > nr_pages, "node0_not_covered_after");
	check_counts(nr_pages);

	ktap_result(aged_load(CG_B, &d) == 1, "pages_intact_after");
	ktap_result(d.aging[3] > 0, "look_around_back_after");
	ktap_result(d.walked == 0 && d.promoted == 0, "no_promotion_walk_after");
	ktap_result(d.max_seq >= 0 && d.aging[1] > 0, "stock_aging_runs_after");
	rmdir(CG_A);
	rmdir(CG_B);
	hca_counts(saved > 0);
	return ktap_end();
}
