/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two memory tiers in the guest (HWAGE_TIERS, harness/run-guest.sh): node 0
 * with the CPUs, node 1 CPU-less and slower. Pages put on a node, where
 * they are now, their contents checked, and random reads of a set, for
 * t25-tiers and w-tiers.
 */
#ifndef HWAGE_TIERS_H
#define HWAGE_TIERS_H

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

#include "damon.h"
#include "util.h"

#define TIERS_PAGE 4096UL
#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2

/* the memory tier id of @nid, from memory_tiering's nodelists; -1 if none */
static inline int tiers_node_tier(int nid)
{
	DIR *d = opendir("/sys/devices/virtual/memory_tiering");
	struct dirent *e;
	int tier = -1;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[320], list[64];
		int a, b, n;
		char *p;

		if (strncmp(e->d_name, "memory_tier", 11) || !e->d_name[11])
			continue;
		snprintf(path, sizeof(path), "/sys/devices/virtual/memory_tiering/%s/nodelist",
			 e->d_name);
		if (read_file(path, list, sizeof(list)) <= 0)
			continue;
		/* "0", "0-1", "0,2-3" */
		for (p = list; *p; p += n) {
			n = 0;
			if (sscanf(p, "%d-%d%n", &a, &b, &n) == 2 && n) {
			} else if (sscanf(p, "%d%n", &a, &n) == 1 && n) {
				b = a;
			} else {
				break;
			}
			if (nid >= a && nid <= b)
				tier = atoi(e->d_name + 11);
			if (p[n] == ',')
				n++;
		}
	}
	closedir(d);
	return tier;
}

/*
 * The pages moved up to node 0 so far, by whatever moves them: NUMA
 * balancing and kpromoted count them in pgpromote_success; DAMOS
 * migrate_hot (the bench's damon-hot) does not, its scheme's sz_applied
 * does
 */
static inline long long tiers_promoted(void)
{
	return vmstat("pgpromote_success") + damon_applied_bytes() / sysconf(_SC_PAGESIZE);
}

/* the CPU time of the promotion threads that run (kpromoted1, kdamond 0), in ns */
static inline long long tiers_promoters_cpu_ns(void)
{
	int kp = thread_pid("kpromoted1"), kd = damon_pid();

	return (kp > 0 ? task_cpu_ns(kp) : 0) + (kd > 0 ? task_cpu_ns(kd) : 0);
}

/*
 * The number after @key (" busy_ns ") in kpromoted1's line of
 * /sys/kernel/debug/hca/promote-stat (patch 23), or -1
 */
static inline long long tiers_promote_stat(const char *key)
{
	char stat[512], *p;

	if (read_file("/sys/kernel/debug/hca/promote-stat", stat, sizeof(stat)) <= 0 ||
	    !(p = strstr(stat, key)))
		return -1;
	return atoll(p + strlen(key));
}

static inline long tiers_set_policy(int mode, int node)
{
	unsigned long mask = 1UL << node;

	return syscall(SYS_set_mempolicy, mode, mode == MPOL_DEFAULT ? NULL : &mask,
		       mode == MPOL_DEFAULT ? 0 : 8 * sizeof(mask) + 1);
}

/*
 * The first page frame number of node @nid and the pages its zones manage,
 * from /proc/zoneinfo, and if @end_pfn is not NULL the frame after its
 * last; 0, or -1 if the node has no zone with pages.
 */
static inline int tiers_node_span(int nid, long long *start_pfn, long long *managed,
				  long long *end_pfn)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	long long v, start = -1, end = -1, spanned = 0, sum = 0;
	char line[256];
	int node = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone", &node) == 1) {
			spanned = 0;
			continue;
		}
		if (node != nid)
			continue;
		if (sscanf(line, " spanned %lld", &v) == 1) {
			spanned = v;
		} else if (sscanf(line, " managed %lld", &v) == 1) {
			sum += v;
		} else if (sscanf(line, " start_pfn: %lld", &v) == 1 && spanned) {
			if (start < 0 || v < start)
				start = v;
			if (v + spanned > end)
				end = v + spanned;
		}
	}
	fclose(f);
	if (start < 0)
		return -1;
	*start_pfn = start;
	*managed = sum;
	if (end_pfn)
		*end_pfn = end;
	return 0;
}

/*
 * Move every other page of @pid's private anonymous writable mappings to
 * @node (move_pages(2); a huge page goes whole): its data spilled over two
 * nodes, whatever its memory policy. The pages now on @node, or -1.
 */
static inline long tiers_spill(int pid, int node)
{
	unsigned long lo, hi, addr, inode, cap = 1 << 16;
	void **pages = malloc(cap * sizeof(*pages));
	int *nodes = NULL, *status = NULL;
	char path[64], line[512], perms[8];
	long i, n = 0, nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && pages && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %*x %*s %lu", &lo, &hi, perms, &inode) != 4 ||
		    strncmp(perms, "rw", 2) || perms[3] != 'p' || inode)
			continue;
		for (addr = lo; addr < hi; addr += 2 * TIERS_PAGE) {
			if (n == (long)cap) {
				void **more = realloc(pages, 2 * cap * sizeof(*pages));

				if (!more)
					break;
				pages = more;
				cap *= 2;
			}
			pages[n++] = (void *)addr;
		}
	}
	if (f)
		fclose(f);
	nodes = malloc((n + 1) * sizeof(*nodes));
	status = malloc((n + 1) * sizeof(*status));
	if (pages && nodes && status) {
		for (i = 0; i < n; i++)
			nodes[i] = node;
		if (!syscall(SYS_move_pages, pid, n, pages, nodes, status, 2 /* MPOL_MF_MOVE */))
			for (i = 0, nr = 0; i < n; i++)
				nr += status[i] == node;
	}
	free(pages);
	free(nodes);
	free(status);
	return nr;
}

/* the nodes of the @n pages from @buf into @status; the pages on @node */
static inline long tiers_on_node(char *buf, long n, int *status, int node)
{
	void **pages = malloc(n * sizeof(*pages));
	long i, nr = 0;

	if (!pages)
		return -1;
	for (i = 0; i < n; i++)
		pages[i] = buf + i * TIERS_PAGE;
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0)) {
		free(pages);
		return -1;
	}
	for (i = 0; i < n; i++)
		nr += status[i] == node;
	free(pages);
	return nr;
}

/*
 * @n pages under the memory policy @mode (MPOL_BIND, MPOL_PREFERRED) for
 * @node, each filled with its pattern from @seed; the default policy after
 */
static inline char *tiers_alloc_policy(int mode, int node, long n, unsigned int seed)
{
	char *buf;
	long i;

	if (tiers_set_policy(mode, node))
		return NULL;
	buf = mmap(NULL, n * TIERS_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf != MAP_FAILED) {
		madvise(buf, n * TIERS_PAGE, MADV_NOHUGEPAGE);
		for (i = 0; i < n; i++) {
			uint64_t *w = (uint64_t *)(buf + i * TIERS_PAGE);
			unsigned long j;

			for (j = 0; j < TIERS_PAGE / 8; j++)
				w[j] = ((uint64_t)seed << 40) ^ ((uint64_t)i << 12) ^ j;
		}
	}
	tiers_set_policy(MPOL_DEFAULT, 0);
	return buf == MAP_FAILED ? NULL : buf;
}

/* @n pages on node @node, each filled with its pattern from @seed */
static inline char *tiers_alloc(int node, long n, unsigned int seed)
{
	return tiers_alloc_policy(MPOL_BIND, node, n, seed);
}

/* the free memory of @node in KiB, from its meminfo; -1 if unknown */
static inline long long tiers_free_kb(int node)
{
	char path[96], buf[4096], key[32], *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	snprintf(key, sizeof(key), "Node %d MemFree:", node);
	if (read_file(path, buf, sizeof(buf)) <= 0 || !(p = strstr(buf, key)))
		return -1;
	return atoll(p + strlen(key));
}

/* the pages from @buf whose pattern is wrong */
static inline long tiers_check(char *buf, long n, unsigned int seed)
{
	long i, bad = 0;

	for (i = 0; i < n; i++) {
		uint64_t *w = (uint64_t *)(buf + i * TIERS_PAGE);
		unsigned long j;

		for (j = 0; j < TIERS_PAGE / 8; j++) {
			if (w[j] != (((uint64_t)seed << 40) ^ ((uint64_t)i << 12) ^ j)) {
				bad++;
				break;
			}
		}
	}
	return bad;
}

/* read @reads words at random from the @n pages of @buf */
static inline uint64_t tiers_read(char *buf, long n, long reads, uint64_t *rng)
{
	uint64_t sum = 0;

	while (reads--) {
		uint64_t r = xorshift64(rng);

		sum += *(volatile uint64_t *)(buf + (r % n) * TIERS_PAGE + ((r >> 32) % (TIERS_PAGE / 8)) * 8);
	}
	return sum;
}

/*
 * One second of random reads of the @n pages of @buf (@reads counts them),
 * then where they are: the pages on node 0 (@status filled), or -1
 */
static inline long tiers_step(char *buf, long n, int *status, uint64_t *rng, long long *reads)
{
	double t = now_s();

	while (now_s() - t < 1) {
		tiers_read(buf, n, 100000, rng);
		*reads += 100000;
	}
	return tiers_on_node(buf, n, status, 0);
}

/* the system CPU time of this process in ns */
static inline long long tiers_sys_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL;
}

#endif /* HWAGE_TIERS_H */
