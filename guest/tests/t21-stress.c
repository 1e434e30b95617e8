// SPDX-License-Identifier: GPL-2.0
/*
 * Stress, nothing lost: for hwage.stress_secs seconds (20 by default; make
 * stress runs 600), at once:
 *  - two verifying loads (guest/lib/vload.h), each in a memory cgroup at
 *    three times its limit (hwage.stress_mb=, 72 MiB, over 24 MiB; make
 *    test's quick set takes 48: a load stops once the pass under way has
 *    checked every page, and a pass of 72 MiB takes over a minute on a
 *    debug kernel under TCG),
 *    swapping to zram;
 *  - OOM kills: a process that allocates twice its cgroup's limit with no
 *    swap allowed (memory.swap.max=0), started again each time the kernel
 *    kills it;
 *  - stress-ng's vm, mmap and fork stressors (with --verify) in a fourth
 *    cgroup, if the initramfs has stress-ng (Debian's, harness/mkinitramfs.sh),
 *    and its swap stressor (swap files it makes, swaps on and off, and pages
 *    out to) when the host attached a disk (HWAGE_DISK, which make stress
 *    does): the stressor needs a disk filesystem for its swap files, and
 *    the ext4 on /dev/vda is mounted for it;
 *  - every knob of /sys/kernel/debug/hca/ set to a random value in its
 *    range every 20 ms (counter aging on and off among them).
 * hwage.stress_flip=lru instead switches the multi-gen LRU itself off and
 * on about once a second (/sys/kernel/mm/lru_gen/enabled), all does both,
 * none neither. Not by default: on 6.12 that switch under memory cgroup
 * pressure has the OOM killer kill the verifying loads, which could swap,
 * with and without a counter backend (README, "Reliability").
 * Every verified page must read back intact, the OOM killer must have
 * killed (and nothing else died; the run goes on up to OOM_GRACE_S past
 * its time until it has), stress-ng must pass, and the knobs are
 * put back. The figures (seconds, pages verified, OOM kills, knob flips)
 * are printed for the closing tally of make stress.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "hca.h"
#include "ktap.h"
#include "util.h"
#include "vload.h"

#define CG_A CG_ROOT "/hwage-t21a"
#define CG_B CG_ROOT "/hwage-t21b"
#define CG_OOM CG_ROOT "/hwage-t21oom"
#define CG_NG CG_ROOT "/hwage-t21ng"
#define LIMIT_MB 24
/* the verifying loads' size by default (hwage.stress_mb=) */
#define TOUCH_MB 72
#define STRESS_NG "/usr/bin/stress-ng"
/* the disk of HWAGE_DISK (run-guest.sh makes it ext4), for the swap files */
#define NG_DISK "/dev/vda"
#define NG_MNT "/mnt/t21"
/* seconds the run goes on past hwage.stress_secs for its first OOM kill */
#define OOM_GRACE_S 120

/*
 * the knobs and the values in their range (t11-hca-knobs checks them);
 * COUNTS is counter aging's switch, the 0x0008 bit of lru_gen/enabled
 */
#define COUNTS "lru_gen/enabled 0x0008"
static const struct {
	const char *name;
	const char *values[5];
} knobs[] = {
	{ COUNTS, { "0", "1" } },
	{ "scan-pfn-ratio", { "1", "25", "100" } },
	{ "scan-skip-msec", { "0", "10", "1000" } },
	{ "evict-skip-refs", { "0", "1" } },
	{ "walk-prev-gen", { "0", "1" } },
	{ "walk-refs", { "0", "1" } },
	{ "classifier", { "0", "1", "2", "3" } },
	{ "refault-gens", { "0", "4", "8", "64" } },
};
#define NR_KNOBS (sizeof(knobs) / sizeof(knobs[0]))

static uint64_t rng = 0x2545f4914f6cdd1dull;

/* write a knob of knobs[]; 0 or -errno */
static int knob_write(const char *name, const char *val)
{
	if (!strcmp(name, COUNTS))
		return hca_counts(!strcmp(val, "1"));
	return hca_knob(name, val);
}

/* read a knob of knobs[] into @buf (one line, no newline); 0 or -1 */
static int knob_read(const char *name, char *buf, size_t size)
{
	char path[128];
	int on;

	if (!strcmp(name, COUNTS)) {
		on = hca_counts_on();
		snprintf(buf, size, "%d", on);
		return on < 0 ? -1 : 0;
	}
	snprintf(path, sizeof(path), HCA_DIR "%s", name);
	if (read_file(path, buf, size) <= 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static uint64_t rnd(void)
{
	return xorshift64(&rng);
}

/* oom_child(): touch twice the cgroup's limit; the kernel must kill it */
static int oom_child(void)
{
	size_t len = (size_t)2 * LIMIT_MB << 20, i;
	char *p;

	if (cg_enter(CG_OOM))
		return 2;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 3;
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	return 4;	/* not killed: the limit did not hold */
}

static pid_t start_oom(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(oom_child());
	return pid;
}

/*
 * The ext4 disk the host attached, mounted for stress-ng's swap files: 1 if
 * it is there, 0 if the guest has no disk (make test's short run).
 */
static int mount_swap_disk(void)
{
	struct stat st;

	if (stat(NG_DISK, &st) || !S_ISBLK(st.st_mode))
		return 0;
	mkdir("/mnt", 0755);
	mkdir(NG_MNT, 0755);
	if (mount(NG_DISK, NG_MNT, "ext4", 0, NULL) && errno != EBUSY) {
		ktap_diag("mount %s on %s: %s: no swap stressor", NG_DISK, NG_MNT, strerror(errno));
		return 0;
	}
	return 1;
}

static pid_t start_stress_ng(int secs, int swap)
{
	char t[32];
	const char *argv[] = { "stress-ng", "--vm", "1", "--vm-bytes", "32M", "--mmap", "1",
			       "--mmap-bytes", "16M", "--fork", "1", "--timeout", t,
			       "--metrics-brief", "--verify",
			       /* the swap stressor last, left out without a disk */
			       "--swap", "1", "--temp-path", NG_MNT, NULL };
	pid_t pid;

	snprintf(t, sizeof(t), "%ds", secs);
	if (!swap)
		argv[15] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (cg_enter(CG_NG))
			_exit(2);
		execv(STRESS_NG, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

int main(void)
{
	char saved[NR_KNOBS][64], lru_gen[64], path[128];
	int secs = atoi(kparam("stress_secs", "20"));
	int touch_mb = atoi(kparam("stress_mb", "72"));
	/* what is flipped: hwage.stress_flip=knobs (default), lru, all or none */
	const char *flip = kparam("stress_flip", "knobs");
	int flip_knobs = !strcmp(flip, "all") || !strcmp(flip, "knobs");
	int flip_lru = !strcmp(flip, "all") || !strcmp(flip, "lru");
	long long flips = 0, lru_flips = 0, kills = 0, other_deaths = 0;
	int status, ng_status = -1, i, n, restored = 1, have_ng, ng_swap = 0, intact;
	pid_t a, b, oom, ng = -1, pid;
	double t0, end, first_kill = -1;

	ktap_begin("stress", 6);
	if (secs < 1)
		secs = 20;
	/* above the limit, so that the loads swap */
	if (touch_mb <= LIMIT_MB)
		touch_mb = TOUCH_MB;
	rng ^= (uint64_t)time(NULL);
	ktap_diag("%d s, loads of %d MiB over %d MiB limits, seed %#llx", secs, touch_mb, LIMIT_MB,
		  (unsigned long long)rng);
	for (i = 0; i < (int)NR_KNOBS; i++)
		if (knob_read(knobs[i].name, saved[i], sizeof(saved[i])))
			snprintf(saved[i], sizeof(saved[i]), "?");
	if (read_file(LRU_GEN_ENABLED, lru_gen, sizeof(lru_gen)) <= 0)
		lru_gen[0] = '\0';
	lru_gen[strcspn(lru_gen, "\n")] = '\0';

	if (!ktap_result(!setup_zram_swap(512) && !cg_create(CG_A, (long long)LIMIT_MB << 20) &&
			 !cg_create(CG_B, (long long)LIMIT_MB << 20) &&
			 !cg_create(CG_OOM, (long long)LIMIT_MB << 20) &&
			 !cg_write(CG_OOM, "memory.swap.max", "0") &&
			 !cg_create(CG_NG, 64LL << 20), "cgroups_and_swap_set_up"))
		return ktap_end();

	if (read_file("/proc/swaps", path, sizeof(path)) > 0)
		ktap_diag("swap: %s", strchr(path, '\n') ? strchr(path, '\n') + 1 : path);
	have_ng = !access(STRESS_NG, X_OK);
	if (have_ng) {
		ng_swap = mount_swap_disk();
		ktap_diag("stress-ng: vm, mmap, fork%s", ng_swap ? ", swap (swap files on " NG_DISK ")" :
			  " (no disk attached: no swap stressor)");
	}
	a = vload_start(CG_A, touch_mb);
	b = vload_start(CG_B, touch_mb);
	oom = start_oom();
	if (have_ng)
		ng = start_stress_ng(secs, ng_swap);

	t0 = now_s();
	end = t0 + secs;
	/*
	 * Until the first OOM kill too, up to OOM_GRACE_S more: under a slow
	 * debug kernel on a loaded host the hog can take longer than the run
	 * to reach its limit.
	 */
	while (now_s() < end || (!kills && now_s() < end + OOM_GRACE_S)) {
		usleep(20000);
		i = rnd() % NR_KNOBS;
		for (n = 0; n < 5 && knobs[i].values[n]; n++)
			;
		if (flip_knobs && !knob_write(knobs[i].name, knobs[i].values[rnd() % n]))
			flips++;
		/* the multi-gen LRU off and on, about once a second */
		if (flip_lru && lru_gen[0] && rnd() % 50 == 0 &&
		    !write_file(LRU_GEN_ENABLED, "n") &&
		    !write_file(LRU_GEN_ENABLED, "y"))
			lru_flips++;
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			if (pid == oom) {
				if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
					if (!kills++)
						first_kill = now_s() - t0;
				} else {
					other_deaths++;
				}
				oom = start_oom();
			} else if (pid == ng) {
				ng_status = status;
				ng = -1;
			} else {
				ktap_diag("%s (pid %d) ended early: %s %d", pid == a ? "load A" :
					  pid == b ? "load B" : "a child", pid,
					  WIFSIGNALED(status) ? "signal" : "exit status",
					  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
				other_deaths++;
				if (pid == a)
					a = -1;
				if (pid == b)
					b = -1;
			}
		}
	}
	kill(oom, SIGKILL);
	waitpid(oom, &status, 0);
	if (ng > 0 && waitpid(ng, &ng_status, 0) != ng)
		ng_status = -1;
	ktap_diag("%.0f s: %lld knob flips, %lld multi-gen LRU off/on, %lld OOM kills (the first at %.0f s)",
		  now_s() - t0, flips, lru_flips, kills, first_kill);
	intact = !vload_stop(a);
	intact = !vload_stop(b) && intact;
	ktap_result(intact, "every_verified_page_intact");
	ktap_result(kills > 0 && !other_deaths, "oom_killer_killed_only_the_hog");
	if (!have_ng)
		ktap_skip("stress_ng_passed", "no " STRESS_NG " in this initramfs");
	else
		ktap_result(WIFEXITED(ng_status) && !WEXITSTATUS(ng_status), "stress_ng_passed");
	if (flip_knobs)
		ktap_result(flips > secs, "knobs_flipped");
	else
		ktap_skip("knobs_flipped", "hwage.stress_flip leaves the knobs alone");

	for (i = 0; i < (int)NR_KNOBS; i++)
		if (strcmp(saved[i], "?") && knob_write(knobs[i].name, saved[i]))
			restored = 0;
	if (lru_gen[0] && write_file(LRU_GEN_ENABLED, lru_gen))
		restored = 0;
	ktap_result(restored, "knobs_restored");
	rmdir(CG_A);
	rmdir(CG_B);
	rmdir(CG_OOM);
	rmdir(CG_NG);
	if (ng_swap)
		umount(NG_MNT);
	return ktap_end();
}
