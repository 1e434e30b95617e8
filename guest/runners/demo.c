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

#include "util.h"

#define CG "/sys/fs/cgroup/hwage-demo"
#define LIMIT_MB 32
#define HOT_MB 16
#define COLD_MB 48
#define ROUNDS 6

/* From the cgroup's memory.stat: limit reclaim is not in /proc/vmstat's pgscan. */
static const char *const counters[] = {
	"pgscan", "pgsteal", "pswpout", "pswpin",
	"workingset_refault_anon", "workingset_activate_anon", NULL,
};

static void workload(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t hot = (size_t)HOT_MB << 20, cold = (size_t)COLD_MB << 20, i;
	volatile char *mem;

	write_file(CG "/cgroup.procs", "0");
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

/* print_memcg_gens(): the lru_gen block of our cgroup only. */
static void print_memcg_gens(void)
{
	static char buf[1 << 20];
	char *line, *save = NULL;
	int ours = 0;

	if (read_file("/sys/kernel/debug/lru_gen", buf, sizeof(buf)) <= 0)
		return;
	printf("  generations of %s (gen, age ms, anon pages, file pages):\n", CG + 14);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "memcg", 5))
			ours = strstr(line, "/hwage-demo") != NULL;
		else if (ours)
			printf("  %s\n", line);
	}
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
	if (!access("/sys/kernel/debug/hca/backend/table", R_OK)) {
		write_file("/sys/kernel/debug/hca/hca_lru_age", "1");
		printf("demo: counter backend registered, hca_lru_age=1: aging from access counts\n");
	} else {
		printf("demo: no counter backend: stock MGLRU aging\n");
	}
	write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	mkdir(CG, 0755);
	write_file(CG "/memory.max", "32M");
	printf("demo: memcg limit %d MiB, workload: %d MiB hot (re-read), %d MiB cold (touched once)\n",
	       LIMIT_MB, HOT_MB, COLD_MB);
	for (i = 0; counters[i]; i++)
		base[i] = stat_value(CG "/memory.stat", counters[i]);
	pid = fork();
	if (pid == 0)
		workload();
	for (r = 1; r <= ROUNDS; r++) {
		sleep(3);
		printf("--- round %d/%d\n", r, ROUNDS);
		print_memcg_gens();
		printf("  memory.stat since start:");
		for (i = 0; counters[i]; i++) {
			now = stat_value(CG "/memory.stat", counters[i]);
			printf(" %s %lld", counters[i], now - base[i]);
		}
		printf("\n");
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rmdir(CG);
	return 0;
}
