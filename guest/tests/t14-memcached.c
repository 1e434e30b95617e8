// SPDX-License-Identifier: GPL-2.0
/*
 * memcached (Debian's, from the initramfs) under memory pressure: it runs
 * in a memory cgroup with swap on zram; w-mcload sets every key once, the
 * cgroup's memory.current after that load is its footprint, and memory.max
 * goes to two thirds of it (pressure 1.5x, measured, not guessed). Then a
 * short Zipfian run of w-mcload (every get verified byte for byte, 5% sets)
 * in each configuration of the benchmarks:
 *
 *   base       counter aging off (stock MGLRU)
 *   hca        counter aging on (lru_gen/enabled 0x0008)
 *   hca-refs   counter aging on and evict-skip-refs=0 (hca: the default, 1)
 *
 * The last two need the counter engine (hwage.hca=on), otherwise they are
 * skipped. Each configuration passes when the client saw no wrong value,
 * no miss and no error, and its run swapped pages in or out (the limit
 * pressed it); pswpout must grow over the test. ops/s, p99 and the swap traffic of each run are diagnostics:
 * one short run says nothing about which configuration is faster
 * (bench/run.sh measures that).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "hca.h"
#include "ktap.h"
#include "mc.h"
#include "util.h"
#include "workload.h"

#define CG CG_ROOT "/hwage-t14"
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
	const char *name;
	int needs_hca;
} configs[] = {
	{ "base", 0 },
	{ "hca", 1 },
	{ "hca-refs", 1 },
};

#define NCONFIGS (int)(sizeof(configs) / sizeof(configs[0]))

/*
 * client(): run w-mcload with the common options and the given ones; its
 * lines become our diagnostics (prefixed with label), its result line is
 * kept in res. Returns its exit status, -1 if it did not exit.
 */
static int client(const char *label, char *const extra[], char *res, size_t len)
{
	char *argv[32] = { CLIENT, "-p", PORT_S, "-k", KEYS, "-v", VALUE, "-t", "2",
			   "-f", STATE };
	int n = 11, status;

	while (*extra && n < 31)
		argv[n++] = *extra++;
	argv[n] = NULL;
	status = wl_run(NULL, argv, label, res, len, NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
	static char *const load_args[] = { "-l", NULL };
	static char *const run_args[] = { "-s", RUN_SECS, "-z", "0.99", "-w", "5", NULL };
	long long out0 = vmstat("pswpout"), footprint, limit;
	int hca = hca_on(), ret, i, loaded = 0;
	char res[1024];
	pid_t mc = -1;

	ktap_begin("memcached", 2 + NCONFIGS);
	if (hca)
		wl_config("base");

	ret = lo_up();
	if (ret)
		ktap_diag("lo up: %s", strerror(-ret));
	else if ((ret = setup_zram_swap(ZRAM_MB)))
		ktap_diag("swap on zram0: %s", strerror(-ret));
	if (!ret && !cg_create(CG, 0)) {
		unlink(STATE);
		mc = mc_start(CG, PORT, CACHE_MB);
	}
	if (mc > 0) {
		ret = client("load", load_args, res, sizeof(res));
		footprint = cg_read(CG, "memory.current");
		/* two thirds of the footprint, in whole pages: 1.5x pressure */
		limit = footprint * 2 / 3 / 4096 * 4096;
		loaded = ret == 0 && footprint > 0 && !cg_set_max(CG, limit);
		ktap_diag("memcached footprint after the load %lld KiB, memory.max %lld KiB (1.5x)",
			  footprint >> 10, cg_read(CG, "memory.max") >> 10);
	}
	ktap_result(loaded, "loaded");

	for (i = 0; i < NCONFIGS; i++) {
		const struct config *c = &configs[i];
		long long in1, out1, swap_io;

		if (!loaded) {
			ktap_skip(c->name, "memcached was not loaded");
			continue;
		}
		if (c->needs_hca && !hca) {
			ktap_skip(c->name, HCA_OFF_WHY);
			continue;
		}
		if (hca && wl_config(c->name)) {
			ktap_diag("%s: cannot set its knobs", c->name);
			ktap_result(0, c->name);
			continue;
		}
		in1 = vmstat("pswpin");
		out1 = vmstat("pswpout");
		ret = client(c->name, run_args, res, sizeof(res));
		swap_io = vmstat("pswpin") - in1 + vmstat("pswpout") - out1;
		ktap_diag("%s: %.0f ops/s, p99 %.0f us, %.0f gets (%.0f misses), %.0f sets, "
			  "%.0f errors, pswpin +%lld, pswpout +%lld, memory.current %lld KiB",
			  c->name, wl_get(res, "ops_per_s"), wl_get(res, "p99_us"),
			  wl_get(res, "gets"), wl_get(res, "misses"), wl_get(res, "sets"),
			  wl_get(res, "errors"), vmstat("pswpin") - in1, vmstat("pswpout") - out1,
			  cg_read(CG, "memory.current") >> 10);
		/* without swap traffic the limit did not press: nothing was checked */
		if (!swap_io)
			ktap_diag("%s: no swap traffic during the run", c->name);
		ktap_result(ret == 0 && res[0] && wl_get(res, "ops") > 0 &&
			    wl_get(res, "errors") == 0 && wl_get(res, "misses") == 0 && swap_io > 0,
			    c->name);
	}

	ktap_diag("pswpout +%lld over the test, oom_kill %lld", vmstat("pswpout") - out0,
		  cg_stat(CG, "memory.events", "oom_kill"));
	ktap_result(vmstat("pswpout") > out0, "reclaimed_to_swap");

	if (hca)
		wl_config("base");
	mc_stop(mc);
	unlink(STATE);
	if (rmdir(CG) && errno != ENOENT)
		ktap_diag("rmdir " CG ": %s", strerror(errno));
	return ktap_end();
}
