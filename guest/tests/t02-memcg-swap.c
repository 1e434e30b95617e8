// SPDX-License-Identifier: GPL-2.0
/*
 * A process in a memory cgroup touches three times its limit: the kernel
 * must reclaim it to swap on zram and give every page back intact.
 *
 * The child fills each page with a pattern derived from its index, then
 * reads every page back twice; any mismatch is data loss.
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

#include "cgroup.h"
#include "ktap.h"
#include "util.h"

#define CG CG_ROOT "/hwage-t02"
#define LIMIT_MB 32
#define TOUCH_MB 96

static uint64_t word(size_t page, size_t i)
{
	return (page * 0x9e3779b97f4a7c15ull) ^ (i & 7);
}

static int child(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t npages = (size_t)TOUCH_MB * 1024 * 1024 / psz, words = psz / 8, p, i;
	size_t bad = 0;
	uint64_t *mem;
	int pass;

	if (cg_enter(CG))
		return 2;
	mem = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 3;
	for (p = 0; p < npages; p++)
		for (i = 0; i < words; i++)
			mem[p * words + i] = word(p, i);
	for (pass = 0; pass < 2; pass++)
		for (p = 0; p < npages; p++)
			for (i = 0; i < words; i++)
				if (mem[p * words + i] != word(p, i)) {
					bad++;
					break;
				}
	printf("# child: %zu pages of %ld bytes, %zu bad reads\n", npages, psz, bad);
	return bad ? 1 : 0;
}

int main(void)
{
	long long out0, in0, out1, in1, peak;
	int ret, status = -1;
	pid_t pid;

	ktap_begin("memcg_swap", 4);
	ret = setup_zram_swap(256);
	ktap_diag("swap on zram0: %s", ret ? strerror(-ret) : "on");
	if (!ktap_result(!ret, "zram_swap_on"))
		return ktap_end();

	ret = cg_create(CG, (long long)LIMIT_MB << 20);
	if (!ktap_result(!ret, "memcg_limit_set"))
		return ktap_end();

	out0 = vmstat("pswpout");
	in0 = vmstat("pswpin");
	pid = fork();
	if (pid == 0)
		_exit(child());
	waitpid(pid, &status, 0);
	out1 = vmstat("pswpout");
	in1 = vmstat("pswpin");
	peak = cg_read(CG, "memory.peak");
	rmdir(CG);

	ktap_diag("limit %d MiB, touched %d MiB, peak %lld KiB, pswpout +%lld, pswpin +%lld",
		  LIMIT_MB, TOUCH_MB, peak / 1024, out1 - out0, in1 - in0);
	ktap_result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "every_page_read_back_intact");
	/*
	 * At least the part over the limit must have gone out to swap once
	 * (counted in pages), and come back for the verification pass.
	 */
	{
		long long over = (long long)(TOUCH_MB - LIMIT_MB) * 1024 * 1024 /
				 sysconf(_SC_PAGESIZE);

		ktap_result(out1 - out0 >= over && in1 - in0 >= over / 2 &&
			    peak > 0 && peak <= LIMIT_MB * 1024LL * 1024,
			    "reclaimed_to_zram_within_limit");
	}
	return ktap_end();
}
