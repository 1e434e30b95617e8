/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A verifying memory load in the background: a child process joins a
 * memory cgroup and, until stopped, fills a region larger than the
 * cgroup's limit with a pattern derived from each word's page, index and
 * pass, then reads every page back; a page that does not read back as
 * written is data loss. A stop ends the load once the pass under way has
 * checked every page (a pass past the first stops writing at the stop and
 * checks the pages it did not get to against the previous pass), so every
 * page is verified at least once however slow the kernel is. Tests run it while they do something risky to
 * reclaim (knob writes, a driver unbound) and check it at the end.
 *
 *	pid = vload_start(CG, 96);	// the cgroup must exist
 *	...
 *	ok = !vload_stop(pid);		// 0: every page intact
 */
#ifndef HWAGE_VLOAD_H
#define HWAGE_VLOAD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"

static volatile sig_atomic_t vload_stopping;

static inline void vload_on_term(int sig)
{
	vload_stopping = 1;
}

static inline uint64_t vload_word(size_t page, size_t i, unsigned int pass)
{
	return (page * 0x9e3779b97f4a7c15ull) ^ (i & 7) ^ ((uint64_t)pass << 56);
}

/* the child: exit status 0 only if it verified pages and all were intact */
static inline int vload_child(const char *cg, int mb)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t npages = (size_t)mb * 1024 * 1024 / psz, words = psz / 8, p, w, i;
	size_t bad = 0, verified = 0;
	unsigned int pass;
	uint64_t *mem;

	signal(SIGTERM, vload_on_term);
	if (cg_enter(cg))
		return 2;
	mem = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 3;
	for (pass = 0;; pass++) {
		/*
		 * The first pass writes every page; a later one stops writing
		 * when told to, and its check then wants this pass's pattern
		 * in the pages it wrote and the previous pass's in the rest:
		 * every page is still checked, without a whole pass more.
		 */
		for (w = 0; w < npages && (!pass || !vload_stopping); w++)
			for (i = 0; i < words; i++)
				mem[w * words + i] = vload_word(w, i, pass);
		for (p = 0; p < npages; p++, verified++)
			for (i = 0; i < words; i++)
				if (mem[p * words + i] != vload_word(p, i, p < w ? pass : pass - 1)) {
					bad++;
					break;
				}
		if (vload_stopping)
			break;
	}
	printf("# load: %u passes, %zu pages verified, %zu bad\n", pass + 1, verified, bad);
	return bad || !verified ? 1 : 0;
}

/* vload_start(): the child touching @mb MiB in @cg; its pid, or -1 */
static inline pid_t vload_start(const char *cg, int mb)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(vload_child(cg, mb));
	return pid;
}

/* vload_stop(): stop the child; 0 if every page it verified was intact */
static inline int vload_stop(pid_t pid)
{
	int status;

	if (pid <= 0)
		return -1;
	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif /* HWAGE_VLOAD_H */
