// SPDX-License-Identifier: GPL-2.0
/*
 * make demo: the same hot/cold workload (w-hotcold) run twice in one boot,
 * first under stock MGLRU (base: counter aging off), then under aging from
 * the access counts (hca), each in a fresh memory cgroup at half its
 * footprint, with swap on zram. harness/demo-report.sh turns the log into
 * a table and a picture per configuration.
 *
 * For each configuration it prints a few progress lines ("demo: ..."), the
 * workload's own lines ("# ...": its "cls pfn:gen_age:hot" lines, one entry
 * per resident page, and "truth begin=A end=B", the numbers of the
 * emulator's ground-truth snapshots at the start and the end of its run
 * phase), and last
 *   hwage-demo config=C limit_kb=N evicted=N refaulted=N swapins=N exit=N
 *     <the fields of the workload's result line>
 * or "hwage-demo config=C skipped=WHY". evicted is pswpout and swapins
 * pswpin (/proc/vmstat: memory.stat has neither, and the demo's cgroup is
 * the only one that swaps), refaulted the cgroup's workingset_refault_anon;
 * all three count the run phase only (from the workload's "# N pages"
 * line, once it has written every page, to the end of its operations), so
 * the filling and the final read-back, the same under both, do not blur
 * the difference.
 *
 * Kernel command line: hwage.secs=N, seconds of each run phase (20);
 * hwage.truth=1 (the host keeps the ground truth) adds -T.
 */

#include "cgroup.h"
#include "hca.h"
#include "workload.h"

#define HOT_MB 16
#define COLD_MB 48
#define LIMIT_MB 32
/* seconds between progress lines while the workload runs quietly */
#define PROGRESS_S 5

struct counts {
	long long pswpout, pswpin, refault;
};

/* one run of the workload, followed through its output */
struct run {
	const char *config;
	char cg[64];
	int phase;			/* 0 filling, 1 run phase, 2 after it */
	double t0, last;
	struct counts start, end;
	char result[1024];
};

static void counts(const struct run *r, struct counts *c)
{
	c->pswpout = vmstat("pswpout");
	c->pswpin = vmstat("pswpin");
	c->refault = cg_stat(r->cg, "memory.stat", "workingset_refault_anon");
}

/*
 * The run phase starts after "# N pages of ..." and ends before the first
 * line the workload prints after it: "truth", "cls" or "# swapped out".
 */
static void follow(struct run *r, const char *line)
{
	const char *l = line + strspn(line, "# ");

	if (r->phase == 1 && (!strncmp(l, "truth ", 6) || !strncmp(l, "cls ", 4) ||
			      !strncmp(l, "swapped out", 11))) {
		counts(r, &r->end);
		r->phase = 2;
		printf("demo: %s: run phase over after %.0f s; where each page sits, for the host\n",
		       r->config, now_s() - r->t0);
	}
	if (r->phase == 0 && strstr(l, " pages of ")) {
		counts(r, &r->start);
		r->phase = 1;
		r->t0 = r->last = now_s();
	}
	if (!strncmp(l, "result ", 7))
		snprintf(r->result, sizeof(r->result), "%s", l + 7);
}

/* every PROGRESS_S of the run phase: the cgroup's size and swap traffic */
static void progress(struct run *r)
{
	struct counts c;
	double t = now_s();

	if (r->phase != 1 || t - r->last < PROGRESS_S)
		return;
	r->last = t;
	counts(r, &c);
	printf("demo: %s: %3.0f s: %4.1f MiB resident, so far %lld pages evicted, %lld refaulted\n",
	       r->config, t - r->t0, cg_read(r->cg, "memory.current") / 1048576.0,
	       c.pswpout - r->start.pswpout, c.refault - r->start.refault);
}

/* wl_run()'s hooks: the run phase from the lines, progress between them */
static void demo_line(void *arg, const char *line)
{
	follow(arg, line);
}

static void demo_tick(void *arg, int n)
{
	progress(arg);
}

static void demo(const char *config, const char *secs, int cls, int truth)
{
	char h[16], c[16];
	char *argv[] = { "/bin/w-hotcold", "-H", h, "-C", c, "-s", (char *)secs,
			 cls ? "-c" : NULL, truth ? "-T" : NULL, NULL };
	struct run r = { .config = config };
	int st, ok;

	snprintf(h, sizeof(h), "%d", HOT_MB);
	snprintf(c, sizeof(c), "%d", COLD_MB);
	snprintf(r.cg, sizeof(r.cg), CG_ROOT "/hwage-demo-%s", config);
	if (wl_config(config)) {
		printf("hwage-demo config=%s skipped=no-counter-engine\n", config);
		printf("demo: %s: skipped: %s\n", config, HCA_OFF_WHY);
		return;
	}
	if (cg_create(r.cg, (long long)LIMIT_MB << 20)) {
		printf("hwage-demo config=%s skipped=no-cgroup\n", config);
		return;
	}
	printf("demo: %s: %s; writing every page, then %s s of operations\n", config,
	       strcmp(config, "base") ? "MGLRU aging from the access counts (lru_gen/enabled 0x0008 set)" :
					"stock MGLRU (lru_gen/enabled 0x0008 clear)", secs);
	st = wl_run(r.cg, argv, NULL, NULL, 0,
		    &(struct wl_hooks){ .line = demo_line, .tick = demo_tick, .arg = &r });
	ok = r.phase == 2;
	printf("hwage-demo config=%s limit_kb=%d evicted=%lld refaulted=%lld swapins=%lld exit=%d %s\n",
	       config, LIMIT_MB << 10, ok ? r.end.pswpout - r.start.pswpout : -1,
	       ok ? r.end.refault - r.start.refault : -1, ok ? r.end.pswpin - r.start.pswpin : -1,
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
	       r.result[0] ? r.result : "errors=-1");
	printf("demo: %s: %.0f ops/s; in the run phase %lld pages evicted, %lld refaulted, %lld swapped in\n",
	       config, wl_get(r.result, "ops_per_s"), ok ? r.end.pswpout - r.start.pswpout : -1,
	       ok ? r.end.refault - r.start.refault : -1, ok ? r.end.pswpin - r.start.pswpin : -1);
	rmdir(r.cg);
}

int main(void)
{
	const char *secs = kparam("secs", "20");
	int truth = !strcmp(kparam("truth", "0"), "1");
	int cls = !access(HCA_PFN, R_OK), ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = setup_zram_swap(256);
	if (ret) {
		printf("demo: swap on zram failed: %s\n", strerror(-ret));
		return 1;
	}
	printf("demo: w-hotcold: %d MiB hot (90%% of its operations), %d MiB cold, "
	       "in a memcg limited to %d MiB, swap on zram\n", HOT_MB, COLD_MB, LIMIT_MB);
	printf("demo: generations of each resident page: %s; ground truth: %s\n",
	       cls ? "yes" : "no (no " HCA_PFN ")",
	       truth ? "yes" : "no (hwage.truth=0): hot and cold by design only");
	demo("base", secs, cls, truth && cls);
	demo("hca", secs, cls, truth && cls);
	wl_config("base");
	return 0;
}
