// SPDX-License-Identifier: GPL-2.0
/*
 * make demo: a hot/cold workload in a memory cgroup over its limit, with
 * swap on zram, and what MGLRU does about it, printed every round: the
 * cgroup's generations from /sys/kernel/debug/lru_gen and its reclaim
 * counters from memory.stat.
 *
 * The workload touches COLD_MB once, then keeps re-reading HOT_MB; with the
 * limit between the two, a good aging policy keeps the hot pages resident
 * and refaults stay low.
 *
 * With the emulated counter engine (hwage.hca=on), the demo turns
 * hca_lru_age on, so generations come from the access counts, and the
 * lru_gen block shows the sampled hotness range.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "hca.h"
#include "lru_gen.h"
#include "util.h"

#define CG CG_ROOT "/hwage-demo"
#define LIMIT_MB 32
#define HOT_MB 16
#define COLD_MB 48
#define ROUNDS 6

/*
 * Reclaim and refaults from the cgroup's memory.stat (limit reclaim is not
 * in /proc/vmstat's pgscan); swap traffic from /proc/vmstat, since
 * memory.stat has no pswpin/pswpout (the demo's cgroup is the only one
 * that swaps).
 */
static const struct {
	const char *name;
	int vmstat;
} counters[] = {
	{ "pgscan", 0 }, { "pgsteal", 0 }, { "pswpout", 1 }, { "pswpin", 1 },
	{ "workingset_refault_anon", 0 }, { "workingset_activate_anon", 0 }, { NULL, 0 },
};

static long long counter(int i)
{
	return counters[i].vmstat ? vmstat(counters[i].name) :
				    cg_stat(CG, "memory.stat", counters[i].name);
}

static void workload(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t hot = (size_t)HOT_MB << 20, cold = (size_t)COLD_MB << 20, i;
	volatile char *mem;

	if (cg_enter(CG))
		_exit(1);
	mem = mmap(NULL, hot + cold, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		_exit(1);
	for (i = 0; i < hot + cold; i += psz)
		mem[i] = (char)(i / psz);
	for (;;)
		for (i = 0; i < hot; i += psz)
			mem[i]++;
}

/* print the lines of our cgroup's block in lru_gen */
static int print_ours(const struct lru_gen_line *l, void *arg)
{
	if (l->kind != LG_MEMCG && !strcmp(l->path, cg_path(CG)))
		printf("  %s\n", l->text);
	return 0;
}

/* print_memcg_gens(): the lru_gen block of our cgroup only. */
static void print_memcg_gens(void)
{
	printf("  generations of %s (gen, age ms, anon pages, file pages):\n", cg_path(CG));
	lru_gen_each(LRU_GEN, print_ours, NULL);
}

int main(void)
{
	long long base[16], now;
	int r, i, ret;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = setup_zram_swap(256);
	if (ret) {
		printf("demo: swap on zram failed: %s\n", strerror(-ret));
		return 1;
	}
	if (!access(HCA_BACKEND "table", R_OK)) {
		hca_knob("hca_lru_age", "1");
		printf("demo: counter backend registered, hca_lru_age=1: aging from access counts\n");
	} else {
		printf("demo: no counter backend: stock MGLRU aging\n");
	}
	ret = cg_create(CG, (long long)LIMIT_MB << 20);
	if (ret) {
		printf("demo: cannot create %s: %s\n", CG, strerror(-ret));
		return 1;
	}
	printf("demo: memcg limit %d MiB, workload: %d MiB hot (re-read), %d MiB cold (touched once)\n",
	       LIMIT_MB, HOT_MB, COLD_MB);
	for (i = 0; counters[i].name; i++)
		base[i] = counter(i);
	pid = fork();
	if (pid == 0)
		workload();
	for (r = 1; r <= ROUNDS; r++) {
		sleep(3);
		printf("--- round %d/%d\n", r, ROUNDS);
		print_memcg_gens();
		printf("  since start:");
		for (i = 0; counters[i].name; i++) {
			now = counter(i);
			printf(" %s %lld", counters[i].name, now - base[i]);
		}
		printf("\n");
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rmdir(CG);
	return 0;
}
