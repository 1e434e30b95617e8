// SPDX-License-Identifier: GPL-2.0
/*
 * memcached (Debian's, from the initramfs) under memory pressure: it runs
 * in a memory cgroup with swap on zram; w-mcload sets every key once, the
 * cgroup's memory.current after that load is its footprint, and memory.max
 * goes to two thirds of it (pressure 1.5x, measured, not guessed). Then a
 * short Zipfian run of w-mcload (every get verified byte for byte, 5% sets)
 * in each configuration of the benchmarks:
 *
 *   base       hca_lru_age=0 (stock MGLRU)
 *   hca        hca_lru_age=1, aging from the counts
 *   hca-noref  hca_lru_age=1 and evict-skip-refs=1
 *
 * The last two need the counter engine (hwage.hca=on), otherwise they are
 * skipped. Each configuration passes when the client saw no wrong value,
 * no miss and no error; pswpout must grow over the test (the limit
 * pressed). ops/s, p99 and the swap traffic of each run are diagnostics:
 * one short run says nothing about which configuration is faster
 * (bench/run.sh measures that).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "util.h"
#include "mc.h"

#define HCA "/sys/kernel/debug/hca/"
#define CG "/sys/fs/cgroup/hwage-t14"
#define STATE "/tmp/t14-mcload.state"
#define CLIENT "/bin/w-mcload"
#define PORT 11211
#define PORT_S "11211"
/* 16384 values of 1 KiB: about 20 MiB in memcached's 1184-byte chunks */
#define KEYS "16384"
#define VALUE "1024"
/* memcached's cache, well above the items: it must never evict */
#define CACHE_MB 64
#define RUN_SECS "4"
#define ZRAM_MB 256

static const struct config {
	const char *name, *age, *skip_refs;
	int needs_hca;
} configs[] = {
	{ "base", "0", "0", 0 },
	{ "hca", "1", "0", 1 },
	{ "hca-noref", "1", "1", 1 },
};

#define NCONFIGS (int)(sizeof(configs) / sizeof(configs[0]))

struct result {
	long long ops, ops_per_s, p50, p99, gets, sets, misses, errors;
	int found;
};

/*
 * client(): run w-mcload with the common options and the given ones; its
 * '#' lines become our diagnostics (prefixed with label), its result line
 * is parsed into r. Returns its exit status, -1 if it did not exit.
 */
static int client(const char *label, const char *const extra[], struct result *r)
{
	const char *argv[32] = { CLIENT, "-p", PORT_S, "-k", KEYS, "-v", VALUE, "-t", "2",
				 "-f", STATE };
	char line[1024];
	int pfd[2], status, n = 11;
	FILE *in;
	pid_t pid;

	while (*extra && n < 31)
		argv[n++] = *extra++;
	argv[n] = NULL;
	memset(r, 0, sizeof(*r));
	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execv(CLIENT, (char *const *)argv);
		printf("# exec %s: %s\n", CLIENT, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	in = fdopen(pfd[0], "r");
	while (fgets(line, sizeof(line), in)) {
		char *p = line;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "result ops=%lld secs=%*s ops_per_s=%lld p50_us=%lld p99_us=%lld "
			   "gets=%lld sets=%lld misses=%lld errors=%lld", &r->ops, &r->ops_per_s,
			   &r->p50, &r->p99, &r->gets, &r->sets, &r->misses, &r->errors) == 8)
			r->found = 1;
		if (*p == '#')
			for (p++; *p == ' '; p++)
				;
		ktap_diag("%s: %s", label, p);
	}
	fclose(in);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static long long cg_value(const char *file)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), CG "/%s", file);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return atoll(buf);
}

static int knobs(const char *age, const char *skip_refs)
{
	int ret = write_file(HCA "evict-skip-refs", skip_refs);

	if (!ret)
		ret = write_file(HCA "hca_lru_age", age);
	if (ret)
		ktap_diag("hca_lru_age=%s evict-skip-refs=%s: %s", age, skip_refs, strerror(-ret));
	return ret;
}

int main(void)
{
	static const char *const load_args[] = { "-l", NULL };
	static const char *const run_args[] = { "-s", RUN_SECS, "-z", "0.99", "-w", "5", NULL };
	long long out0 = vmstat("pswpout"), footprint, limit;
	char cmdline[4096], buf[64];
	int hca, ret, i, loaded = 0;
	struct result r;
	pid_t mc = -1;

	read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	hca = strstr(cmdline, "hwage.hca=on") != NULL;
	ktap_begin("memcached", 2 + NCONFIGS);
	if (hca)
		knobs("0", "0");

	ret = lo_up();
	if (ret)
		ktap_diag("lo up: %s", strerror(-ret));
	else if ((ret = setup_zram_swap(ZRAM_MB)))
		ktap_diag("swap on zram0: %s", strerror(-ret));
	if (!ret) {
		write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
		if (mkdir(CG, 0755) && errno != EEXIST)
			ktap_diag("mkdir " CG ": %s", strerror(errno));
		unlink(STATE);
		mc = mc_start(CG, PORT, CACHE_MB);
	}
	if (mc > 0) {
		ret = client("load", load_args, &r);
		footprint = cg_value("memory.current");
		/* two thirds of the footprint, in whole pages: 1.5x pressure */
		limit = footprint * 2 / 3 / 4096 * 4096;
		snprintf(buf, sizeof(buf), "%lld", limit);
		loaded = ret == 0 && footprint > 0 && !write_file(CG "/memory.max", buf);
		ktap_diag("memcached footprint after the load %lld KiB, memory.max %lld KiB (1.5x)",
			  footprint >> 10, limit >> 10);
	}
	ktap_result(loaded, "loaded");

	for (i = 0; i < NCONFIGS; i++) {
		const struct config *c = &configs[i];
		long long in1, out1;

		if (!loaded) {
			ktap_skip(c->name, "memcached was not loaded");
			continue;
		}
		if (c->needs_hca && !hca) {
			ktap_skip(c->name, "no counter engine (hwage.hca is not on)");
			continue;
		}
		if (hca && knobs(c->age, c->skip_refs)) {
			ktap_result(0, c->name);
			continue;
		}
		in1 = vmstat("pswpin");
		out1 = vmstat("pswpout");
		ret = client(c->name, run_args, &r);
		ktap_diag("%s: %lld ops/s, p99 %lld us, %lld gets (%lld misses), %lld sets, "
			  "%lld errors, pswpin +%lld, pswpout +%lld, memory.current %lld KiB",
			  c->name, r.ops_per_s, r.p99, r.gets, r.misses, r.sets, r.errors,
			  vmstat("pswpin") - in1, vmstat("pswpout") - out1,
			  cg_value("memory.current") >> 10);
		ktap_result(ret == 0 && r.found && r.ops > 0, c->name);
	}

	ktap_diag("pswpout +%lld over the test, oom_kill %lld", vmstat("pswpout") - out0,
		  stat_value(CG "/memory.events", "oom_kill"));
	ktap_result(vmstat("pswpout") > out0, "reclaimed_to_swap");

	if (hca)
		knobs("0", "0");
	mc_stop(mc);
	unlink(STATE);
	if (rmdir(CG) && errno != ENOENT)
		ktap_diag("rmdir " CG ": %s", strerror(errno));
	return ktap_end();
}
