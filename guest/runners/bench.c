// SPDX-License-Identifier: GPL-2.0
/*
 * One benchmark boot (hwage.mode=bench, started by bench/run.sh): runs
 * each workload at each pressure under one configuration, each in a fresh
 * memory cgroup with swap on zram, and prints one line per measurement:
 *
 *   hwage-bench config=C workload=W pressure=P limit_kb=N footprint_kb=N
 *     <the workload's result fields> <the cgroup's counters>
 *
 * Kernel command line:
 *   hwage.config=base|hca|hca-refs|hca-kmeans|hca-noref|hca-prevgen|hca-tiers|hca-gap|hca-share|hca-linear|
 *                hca-thp|hca-thpN|hca-everywalk|nb-tiering|kp-faults|damon-hot|
 *                damon-hot-counts|unconstrained
 *                            (base; see lib/workload.h)
 *   hwage.workloads=hotcold,memcached,thp,thp-collapse,tiers,tiers-mc,damon,damon-fine,
 *                   damon-thp,damon-reclaim,damon-quota
 *                            (hotcold,memcached)
 *   hwage.pressures=1.2,2    footprint / memory.max (unconstrained: none)
 *   hwage.secs=N             seconds of each run phase (10)
 *   hwage.scale=N            workload sizes times N, for guests with N
 *                            times the memory (1 to 64; 1)
 *
 * The pressure is the workload's measured footprint (memory.current with
 * no limit, after it has loaded its data) over the limit. hotcold's
 * footprint is its size, as it cannot wait for a limit to be set; so is
 * thp's (w-thp: four regions of huge pages, every page, one in 16, one
 * run of a sixteenth and none hot), which lowers its own limit to the
 * pressure's after a warm-up in which the counts mature. thp-collapse
 * (w-thp -b, for khugepaged) runs once, without a limit, at pressure 1;
 * so do tiers (w-tiers, in a guest with a slow memory tier), tiers-mc
 * (memcached spilled over both tiers) and damon, damon-fine, damon-thp,
 * damon-reclaim and damon-quota (w-damon: DAMON's view of a known pattern,
 * or its DAMOS pageout, or a DAMOS quota ranked by frequency, with each
 * access check; it prints its own lines, config=damon-ab and damon-counts,
 * whatever the boot's).
 *
 * Every line also has the huge page events of /proc/vmstat over the
 * phase (thp_split_page, thp_sparse_*, thp_collapse_alloc,
 * thp_collapse_uneven), khugepaged's CPU time over it (khugepaged_ms) and
 * the cgroup's anonymous memory at its end (anon_kb, anon_thp_kb: what
 * of it is in huge pages).
 */
#include <sys/stat.h>

#include "cgroup.h"
#include "hca.h"
#include "lru_gen.h"
#include "mc.h"
#include "tiers.h"
#include "workload.h"

/*
 * A new cgroup per measurement: a removed memcg may linger (offline) in
 * lru_gen_full under its old path, so names are never reused in a boot.
 */
static char CG[64];
static int nr_cg;
/* hwage.scale: hotcold's sets, memcached's keys and cache, zram times this */
static int scale = 1;
#define HOT_MB 16
#define COLD_MB 48
/* w-thp's huge pages per region, four regions */
#define THP_HUGE_PAGES 8
#define MC_PORT 11211
/* 4 KiB values: about one page per key, so the key skew is a page skew */
#define MC_KEYS 12288
#define MC_VALUE 4096
#define MC_CACHE_MB 256
#define MC_STATE "/tmp/hwage-bench-mc.state"

/* counters of the cgroup, from memory.stat, and its CPU time */
static const char *const stats[] = {
	"workingset_refault_anon", "workingset_refault_file", "workingset_activate_anon",
	"workingset_activate_file", "pgscan", "pgsteal", "pgmajfault", NULL,
};

/* the huge page events of /proc/vmstat, as differences over the phase */
static const char *const thp_events[] = {
	"thp_split_page", "thp_sparse_scanned", "thp_sparse_split", "thp_sparse_freed",
	"thp_collapse_alloc", "thp_collapse_uneven", NULL,
};
#define NR_THP_EVENTS (sizeof(thp_events) / sizeof(thp_events[0]) - 1)

/* what is measured as a difference over the measured phase */
struct snap {
	long long cpu, sys, pswpin, pswpout;
	long long thp[NR_THP_EVENTS];
	/* khugepaged's CPU time, ms (-1: no khugepaged) */
	long long khugepaged_ms;
	/* memory.stat's stats[] of our memcg, counted from its creation */
	long long stat[sizeof(stats) / sizeof(stats[0])];
	/* lru_gen_full of our memcg, summed over its nodes (-1: no such lines) */
	struct lru_gen_scan lg;
};

/* the CPU time of khugepaged in ms, or -1 */
static long long khugepaged_ms(void)
{
	static int pid;
	long long ns;

	if (!pid)
		pid = thread_pid("khugepaged");
	ns = pid > 0 ? task_cpu_ns(pid) : -1;
	return ns < 0 ? -1 : ns / 1000000;
}

static void snap(struct snap *s)
{
	int i;

	for (i = 0; thp_events[i]; i++)
		s->thp[i] = vmstat(thp_events[i]);
	s->khugepaged_ms = khugepaged_ms();

	for (i = 0; stats[i]; i++)
		s->stat[i] = cg_stat(CG, "memory.stat", stats[i]);
	s->cpu = cg_stat(CG, "cpu.stat", "usage_usec");
	s->sys = cg_stat(CG, "cpu.stat", "system_usec");
	lru_gen_scan(LRU_GEN_FULL, cg_path(CG), -1, -1, &s->lg);
	s->pswpin = vmstat("pswpin");
	s->pswpout = vmstat("pswpout");
}

/* the fields of one kind of lru_lock hold: PREFIX_samples, _ns, _p99_ns, _max_ns */
static size_t hold_fields(char *line, size_t size, const char *prefix,
			  const struct lru_gen_hold *h1, const struct lru_gen_hold *h0)
{
	long long hist[LG_HOLD_BUCKETS];
	int i;

	if (h1->holds < 0)
		return snprintf(line, size, " %s_samples=-1 %s_ns=-1 %s_p99_ns=-1 %s_max_ns=-1",
				prefix, prefix, prefix, prefix);
	for (i = 0; i < LG_HOLD_BUCKETS; i++)
		hist[i] = lru_gen_delta(h1->hist[i], h0->hist[i]);
	/* quantiles of the phase's own holds: -1 if it had none */
	return snprintf(line, size, " %s_samples=%lld %s_ns=%lld %s_p99_ns=%lld %s_max_ns=%lld",
			prefix, lru_gen_delta(h1->holds, h0->holds), prefix,
			lru_gen_delta(h1->ns, h0->ns), prefix, lru_gen_hold_quantile(hist, 0.99),
			prefix, lru_gen_hold_quantile(hist, 1));
}

/*
 * print the measurement; s0 is the snapshot taken at the start of it, end
 * the one taken at its end if taken already (w-hotcold -A's mark), else NULL
 */
static void report(const char *config, const char *workload, const char *pressure,
		   long long limit, long long footprint, const char *res, int status,
		   const struct snap *s0, const struct snap *end)
{
	char line[4096];
	struct snap s1;
	size_t n;
	int i;

	if (end)
		s1 = *end;
	else
		snap(&s1);
	n = snprintf(line, sizeof(line), "hwage-bench config=%s workload=%s pressure=%s "
		     "limit_kb=%lld footprint_kb=%lld exit=%d %s", config, workload, pressure,
		     limit >> 10, footprint >> 10,
		     WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
		     res[0] ? res + 7 : "errors=-1");
	for (i = 0; stats[i]; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s=%lld", stats[i], s1.stat[i]);
	n += snprintf(line + n, sizeof(line) - n, " pswpin=%lld pswpout=%lld cpu_usec=%lld"
		      " cpu_sys_usec=%lld", s1.pswpin - s0->pswpin, s1.pswpout - s0->pswpout,
		      s1.cpu - s0->cpu, s1.sys - s0->sys);
	for (i = 0; i < 4; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s=%lld",
			      (const char *[]){ "aging_ns", "aging_calls", "look_around_ns",
						"look_around_calls" }[i],
			      lru_gen_delta(s1.lg.aging[i], s0->lg.aging[i]));
	for (i = 0; i < 2 * LG_NR_COUNTS; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s=%lld",
			      (const char *[]){ "counts_ns", "counts_calls", "counts_sample_ns",
						"counts_sample_calls", "counts_evict_ns",
						"counts_evict_calls", "counts_thp_ns",
						"counts_thp_calls" }[i],
			      lru_gen_delta(s1.lg.counts[i], s0->lg.counts[i]));
	for (i = 0; thp_events[i]; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s=%lld", thp_events[i],
			      s1.thp[i] < 0 || s0->thp[i] < 0 ? -1 : s1.thp[i] - s0->thp[i]);
	n += snprintf(line + n, sizeof(line) - n, " khugepaged_ms=%lld anon_kb=%lld anon_thp_kb=%lld",
		      s1.khugepaged_ms < 0 || s0->khugepaged_ms < 0 ? -1 :
		      s1.khugepaged_ms - s0->khugepaged_ms,
		      cg_stat(CG, "memory.stat", "anon") >> 10,
		      cg_stat(CG, "memory.stat", "anon_thp") >> 10);
	n += hold_fields(line + n, sizeof(line) - n, "lock_hold", &s1.lg.hold[LG_HOLD_ISOLATE],
			 &s0->lg.hold[LG_HOLD_ISOLATE]);
	n += hold_fields(line + n, sizeof(line) - n, "putback_hold",
			 &s1.lg.hold[LG_HOLD_PUTBACK], &s0->lg.hold[LG_HOLD_PUTBACK]);
	printf("%s\n", line);
	fflush(stdout);
}

static long long limit_for(const char *config, long long footprint, const char *pressure)
{
	if (!strcmp(config, "unconstrained"))
		return 0;
	return (long long)(footprint / atof(pressure)) & ~4095LL;
}

/* w-hotcold -A: the end snapshot at its mark, before the tail of -A */
struct mark {
	struct snap s;
	int taken;
};

static void at_mark(void *arg, const char *line)
{
	struct mark *m = arg;

	if (!m->taken && strstr(line, WL_RUN_ENDS)) {
		snap(&m->s);
		m->taken = 1;
	}
}

static void hotcold(const char *config, const char *pressure, const char *secs, int counts)
{
	char h[16], c[16], res[1024];
	/*
	 * the classification (-c, and -A: again after one more aging) needs
	 * the counters; the ground-truth snapshots (-T) also need the plugin
	 * to keep the truth (hwage.truth=1)
	 */
	int snapshots = counts && !strcmp(kparam("truth", "0"), "1");
	char *argv[] = { "/bin/w-hotcold", "-H", h, "-C", c, "-s", (char *)secs,
			 counts ? "-c" : NULL, counts ? "-A" : NULL, snapshots ? "-T" : NULL, NULL };
	long long footprint = (long long)(HOT_MB + COLD_MB) * scale << 20;
	long long limit = limit_for(config, footprint, pressure);
	struct snap s0;
	struct mark m = { .taken = 0 };
	struct wl_hooks hooks = { .line = at_mark, .arg = &m };
	int st;

	snprintf(h, sizeof(h), "%d", HOT_MB * scale);
	snprintf(c, sizeof(c), "%d", COLD_MB * scale);
	snap(&s0);
	if (cg_create(CG, limit)) {
		/* a limit that did not apply must not pass for a measurement */
		report(config, "hotcold", pressure, limit, footprint, "", 1 << 8, &s0, NULL);
		return;
	}
	st = wl_run(CG, argv, NULL, res, sizeof(res), &hooks);
	report(config, "hotcold", pressure, limit, footprint, res, st, &s0, m.taken ? &m.s : NULL);
}

static void thp(const char *config, const char *pressure, const char *secs)
{
	char n[16], l[16], res[1024], buf[32];
	char *argv[] = { "/bin/w-thp", "-N", n, "-W", "4", "-s", (char *)secs, "-L", l, NULL };
	long long hpage = read_file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf,
				    sizeof(buf)) > 0 ? atoll(buf) : 0;
	long long footprint = 4LL * THP_HUGE_PAGES * scale * hpage;
	long long limit = limit_for(config, footprint, pressure);
	struct snap s0;
	int st;

	snprintf(n, sizeof(n), "%d", THP_HUGE_PAGES * scale);
	/* unconstrained: a limit of twice the footprint, which does not press */
	snprintf(l, sizeof(l), "%lld", (limit ? limit : 2 * footprint) >> 20);
	snap(&s0);
	if (cg_create(CG, 0)) {
		report(config, "thp", pressure, limit, footprint, "", 1 << 8, &s0, NULL);
		return;
	}
	st = wl_run(CG, argv, NULL, res, sizeof(res), NULL);
	report(config, "thp", pressure, limit, footprint, res, st, &s0, NULL);
}

/*
 * thp-collapse: w-thp -b, its regions faulted in as base pages and handed
 * to khugepaged, woken every 50 ms instead of 10 s, once their counts are
 * mature; no limit (the pressure is not used). What it measures: which
 * ranges khugepaged collapsed (thp_collapse_alloc, thp_collapse_uneven,
 * even_huge and huge of the census) and khugepaged's CPU time.
 */
static void thp_collapse(const char *config, const char *secs)
{
	char n[16], res[1024], buf[32];
	char *argv[] = { "/bin/w-thp", "-N", n, "-b", "-W", "4", "-s", (char *)secs, NULL };
	long long hpage = read_file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf,
				    sizeof(buf)) > 0 ? atoll(buf) : 0;
	long long footprint = 4LL * THP_HUGE_PAGES * scale * hpage;
	struct wl_khugepaged k;
	struct snap s0;
	int st = 1 << 8;

	snprintf(n, sizeof(n), "%d", THP_HUGE_PAGES * scale);
	snap(&s0);
	res[0] = '\0';
	if (!wl_khugepaged_fast(&k, "50") && !cg_create(CG, 0))
		st = wl_run(CG, argv, NULL, res, sizeof(res), NULL);
	report(config, "thp-collapse", "1", 0, footprint, res, st, &s0, NULL);
	wl_khugepaged_restore(&k);
}

/*
 * tiers: w-tiers in a guest booted with a slow memory tier (HWAGE_TIERS),
 * no limit (the pressure is not used): a hot set on node 1 that moves
 * after secs; what moves it up is the configuration's: nothing (base),
 * kpromoted by the counts (hca), NUMA balancing's tiering mode
 * (nb-tiering), kpromoted by nb-tiering's hint faults (kp-faults),
 * DAMOS migrate_hot (damon-hot, and damon-hot-counts on the count check).
 */
static void tiers(const char *config, const char *secs)
{
	char res[1024];
	char *argv[] = { "/bin/w-tiers", "-s", (char *)secs, NULL };
	struct snap s0;
	int st = 1 << 8;

	snap(&s0);
	res[0] = '\0';
	if (!cg_create(CG, 0))
		st = wl_run(CG, argv, NULL, res, sizeof(res), NULL);
	report(config, "tiers", "1", 0, 0, res, st, &s0, NULL);
}

/* run w-damon as @argv says in a fresh cgroup CG, its output to the console */
static void damon_run(const char *name, char *const argv[])
{
	int st = -1;
	pid_t pid;

	if (cg_create(CG, 0))
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (cg_enter(CG))
			_exit(126);
		execv(argv[0], argv);
		printf("hwage-bench-error exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		printf("hwage-bench-error workload=%s: w-damon exit status %d\n", name,
		       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/*
 * damon, damon-fine, damon-thp, damon-reclaim, damon-quota: w-damon in a
 * fresh cgroup, its output straight to the console (its view lines are
 * long and many):
 * DAMON's paddr and paddr_counts in turn, 3 rounds, at DAMON's default
 * intervals (5 ms sampling, 100 ms aggregation) or finer ones (damon-fine:
 * 1 ms, 20 ms: nr_accesses still counts to 20), the sets in huge pages
 * (damon-thp), scored on the host (bench/damon-score.sh); or DAMOS pageout
 * of the regions unaccessed for 5 aggregations (damon-reclaim); or DAMOS
 * lru_prio with a quota ranked by frequency (damon-quota; with
 * hwage.damon_detail=1 on the kernel command line, what its views took,
 * w-damon -v).
 */
static void damon_wl(const char *name, const char *secs)
{
	int fine = !strcmp(name, "damon-fine");
	char *argv[] = { "/bin/w-damon", "-n", (char *)name, "-s", (char *)secs,
			 "-i", fine ? "1000" : "5000", "-a", fine ? "20000" : "100000",
			 NULL, NULL, NULL };

	if (!strcmp(name, "damon-thp"))
		argv[9] = "-T";
	else if (!strcmp(name, "damon-reclaim"))
		argv[9] = "-P";
	else if (!strcmp(name, "damon-quota")) {
		argv[9] = "-Q";
		/* hwage.damon_detail=1: what the quota's views took (w-damon -v) */
		if (!strcmp(kparam("damon_detail", "0"), "1"))
			argv[10] = "-v";
	}
	damon_run(name, argv);
}

/* the runs of tiers-mc's load, each followed by a ground-truth snapshot */
#define TIERS_MC_RUNS 4

/* the number after "@key=" in @res, or -1 */
static long long res_field(const char *res, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), " %s=", key);
	p = strstr(res, k);
	return p ? atoll(p + strlen(k)) : -1;
}

/*
 * One scan of node 1 (from @start, @n pages) through /proc/kpageflags, as
 * diagnostics and for the host's scoring: the pages in use but on no LRU
 * list (slab, page tables, kernel stacks: no promotion can move them), as
 * "hwage-tiers-pinned A-B ..." lines of pfn ranges, for
 * bench/tier-share.sh's best placement page migration can reach; and the
 * five pages in use with the most accesses by their counts
 * (/sys/kernel/debug/hca/pfn), with their page flags: what of node 1
 * stays hot.
 */
static void tiers_node1_census(long long start, long long n)
{
	static const char *const names[] = { [5] = "lru", [7] = "slab", [10] = "buddy",
		[11] = "mmap", [12] = "anon", [15] = "head", [16] = "tail", [17] = "huge",
		[22] = "thp", [26] = "pgtable" };
	long long best[5][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };
	long long i, h, from = -1, nr = 0;
	uint64_t flags, bflags[5] = { 0 };
	char buf[128], line[1024];
	int fd, j, k, m = 0;

	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (i = start; i <= start + n; i++) {
		/* in use: not free (buddy), a page frame (not nopage) */
		int used = i < start + n &&
			   pread(fd, &flags, sizeof(flags), i * 8) == sizeof(flags) &&
			   !(flags & (1ULL << 10 | 1ULL << 20)) && flags;
		int pinned = used && !(flags & 1ULL << 5);

		if (pinned && from < 0)
			from = i;
		if (!pinned && from >= 0) {
			if (m > (int)sizeof(line) - 48) {
				printf("hwage-tiers-pinned%s\n", line);
				m = 0;
			}
			m += snprintf(line + m, sizeof(line) - m, " %lld-%lld", from, i - 1);
			nr += i - from;
			from = -1;
		}
		if (!used)
			continue;
		snprintf(buf, sizeof(buf), "%lld", i);
		if (write_file(HCA_PFN, buf) || read_file(HCA_PFN, buf, sizeof(buf)) <= 0 ||
		    sscanf(buf, "pfn %*d hotness %lld", &h) != 1)
			continue;
		for (j = 0; j < 5 && h <= best[j][1]; j++)
			;
		if (j == 5)
			continue;
		memmove(best[j + 1], best[j], (4 - j) * sizeof(best[0]));
		memmove(bflags + j + 1, bflags + j, (4 - j) * sizeof(bflags[0]));
		best[j][0] = i;
		best[j][1] = h;
		bflags[j] = flags;
	}
	close(fd);
	if (m)
		printf("hwage-tiers-pinned%s\n", line);
	printf("# tiers-mc: %lld pages of node 1 in use on no LRU list\n", nr);
	for (j = 0; j < 5 && best[j][0] >= 0; j++) {
		m = 0;
		for (k = 0; k < 27; k++)
			if (bflags[j] & 1ULL << k && names[k])
				m += snprintf(buf + m, sizeof(buf) - m, "%s%s", m ? "," : "", names[k]);
		printf("# tiers-mc: hot on node 1: pfn %lld hotness %lld flags %s\n", best[j][0],
		       best[j][1], m ? buf : "-");
	}
}

/*
 * tiers-mc: memcached in a guest booted with a slow memory tier
 * (HWAGE_TIERS), no limit (node 0 has room for it all); after the load,
 * every other page of its memory moves to the slow node 1 (tiers_spill():
 * its data spilled over both nodes, while its memory policy stays the
 * default, under which NUMA balancing scans it; an interleave policy
 * would keep NUMA balancing off its pages). Then TIERS_MC_RUNS runs of the Zipfian load of secs /
 * TIERS_MC_RUNS seconds each, with a ground-truth snapshot of the emulator
 * before the first and after each: bench/tier-share.sh scores from them
 * the share of all accesses node 0 served in each run, against the best
 * placement (the hottest pages on node 0, as many as it manages). The
 * result has the load's operations over the runs, the snapshots
 * (truth=A:B:...), node 1's first page frame (node1_pfn) and node 0's
 * pages (node0_pages), the pages promoted (tiers_promoted()), those
 * kpromoted found hot and failed to move (candidates, promote_fail:
 * pgpromote_counts_*, 0 without it), the CPU
 * time of kpromoted1 and kdamond 0 (kpromoted_ms); memcached's system time
 * (NUMA balancing's hint faults and scans) is the cgroup's cpu_sys_usec.
 */
static void tiers_mc(const char *config, const char *secs)
{
	char k[16], v[16], s[16], res[1024], one[1024], truth[128];
	char *load[] = { "/bin/w-mcload", "-l", "-k", k, "-v", v, "-f", MC_STATE, NULL };
	char *run[] = { "/bin/w-mcload", "-k", k, "-v", v, "-s", s, "-f", MC_STATE, NULL };
	long long node1_pfn, node1_pages, node0_pfn, node0_pages, ops = 0, errors = 0, misses = 0;
	long long pro0, kp0, cand0, fail0, thp0, thpf0;
	double wall = 0;
	int i, n, st = 1 << 8;
	struct snap s0;
	pid_t mc;

	snprintf(k, sizeof(k), "%d", MC_KEYS * scale);
	snprintf(v, sizeof(v), "%d", MC_VALUE);
	snprintf(s, sizeof(s), "%d", atoi(secs) / TIERS_MC_RUNS > 0 ? atoi(secs) / TIERS_MC_RUNS : 1);
	unlink(MC_STATE);
	snap(&s0);
	res[0] = '\0';
	if (tiers_node_span(1, &node1_pfn, &node1_pages, NULL) ||
	    tiers_node_span(0, &node0_pfn, &node0_pages, NULL)) {
		printf("# tiers-mc: no node 1 (boot with HWAGE_TIERS)\n");
		report(config, "tiers-mc", "1", 0, 0, res, st, &s0, NULL);
		return;
	}
	mc = -1;
	if (!cg_create(CG, 0))
		mc = mc_start(CG, MC_PORT, MC_CACHE_MB * scale);
	if (mc < 0) {
		report(config, "tiers-mc", "1", 0, 0, res, st, &s0, NULL);
		return;
	}
	st = wl_run(NULL, load, NULL, one, sizeof(one), NULL);
	printf("# tiers-mc: %ld pages of memcached moved to node 1\n", tiers_spill(mc, 1));
	snap(&s0);
	kp0 = tiers_promoters_cpu_ns();
	pro0 = tiers_promoted();
	cand0 = vmstat("pgpromote_counts_candidate");
	fail0 = vmstat("pgpromote_counts_fail");
	thp0 = vmstat("thp_migration_success");
	thpf0 = vmstat("thp_migration_fail");
	n = snprintf(truth, sizeof(truth), "%ld", hca_truth_snapshot());
	for (i = 0; i < TIERS_MC_RUNS && WIFEXITED(st) && !WEXITSTATUS(st); i++) {
		st = wl_run(NULL, run, NULL, one, sizeof(one), NULL);
		n += snprintf(truth + n, sizeof(truth) - n, ":%ld", hca_truth_snapshot());
		ops += res_field(one, "ops");
		wall += res_field(one, "ops") / (double)(res_field(one, "ops_per_s") > 0 ?
							  res_field(one, "ops_per_s") : 1);
		errors += res_field(one, "errors");
		misses += res_field(one, "misses");
		printf("# tiers-mc run %d: %s\n", i + 1, one);
	}
	if (i == TIERS_MC_RUNS)
		snprintf(res, sizeof(res), "result ops=%lld ops_per_s=%.0f p50_us=%lld p99_us=%lld "
			 "misses=%lld errors=%lld truth=%s node1_pfn=%lld node0_pages=%lld "
			 "promoted=%lld candidates=%lld promote_fail=%lld kpromoted_ms=%.1f",
			 ops, wall > 0 ? ops / wall : 0, res_field(one, "p50_us"),
			 res_field(one, "p99_us"), misses, errors, truth, node1_pfn, node0_pages,
			 tiers_promoted() - pro0,
			 vmstat("pgpromote_counts_candidate") - cand0,
			 vmstat("pgpromote_counts_fail") - fail0,
			 (tiers_promoters_cpu_ns() - kp0) / 1e6);
	printf("# tiers-mc: huge pages migrated %lld, failed %lld\n",
	       vmstat("thp_migration_success") - thp0, vmstat("thp_migration_fail") - thpf0);
	if (read_file(HCA_DIR "promote-stat", one, sizeof(one)) > 0)
		printf("# promote-stat: %s", one);
	report(config, "tiers-mc", "1", 0, cg_read(CG, "memory.current"), res, st, &s0, NULL);
	tiers_node1_census(node1_pfn, node1_pages);
	mc_stop(mc);
}

static void memcached(const char *config, const char *pressure, const char *secs)
{
	char k[16], v[16], res[1024];
	/* the state file carries the key versions from the load to the run */
	char *load[] = { "/bin/w-mcload", "-l", "-k", k, "-v", v, "-f", MC_STATE, NULL };
	char *run[] = { "/bin/w-mcload", "-k", k, "-v", v, "-s", (char *)secs, "-f", MC_STATE,
			NULL };
	long long footprint, limit;
	struct snap s0;
	pid_t mc;
	int st;

	snprintf(k, sizeof(k), "%d", MC_KEYS * scale);
	snprintf(v, sizeof(v), "%d", MC_VALUE);
	unlink(MC_STATE);
	mc = cg_create(CG, 0) ? -1 : mc_start(CG, MC_PORT, MC_CACHE_MB * scale);
	snap(&s0);
	if (mc < 0) {
		report(config, "memcached", pressure, 0, 0, "", 1 << 8, &s0, NULL);
		return;
	}
	st = wl_run(NULL, load, NULL, res, sizeof(res), NULL);
	footprint = cg_read(CG, "memory.current");
	limit = limit_for(config, footprint, pressure);
	/* the measured phase starts here: the load ran with no limit */
	snap(&s0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		if (cg_set_max(CG, limit)) {
			res[0] = '\0';		/* no measurement under a limit */
			st = 1 << 8;
		} else {
			st = wl_run(NULL, run, NULL, res, sizeof(res), NULL);
		}
	}
	report(config, "memcached", pressure, limit, footprint, res, st, &s0, NULL);
	mc_stop(mc);
}

int main(void)
{
	char workloads[256], pressures[256], caps[64], *w, *p, *s1, *s2;
	const char *config, *secs, *sc;
	char *end;
	int counts;

	config = kparam("config", "base");
	secs = kparam("secs", "10");
	snprintf(workloads, sizeof(workloads), "%s", kparam("workloads", "hotcold,memcached"));
	snprintf(pressures, sizeof(pressures), "%s", kparam("pressures", "1.2,2"));
	counts = !access(HCA_PFN, R_OK);
	sc = kparam("scale", "1");
	scale = strtol(sc, &end, 10);
	if (*end || scale < 1 || scale > 64) {
		printf("hwage-bench-error hwage.scale=%s: want 1 to 64\n", sc);
		return 1;
	}

	if (read_file("/sys/kernel/mm/lru_gen/enabled", caps, sizeof(caps)) <= 0)
		snprintf(caps, sizeof(caps), "none");
	caps[strcspn(caps, "\n")] = '\0';
	printf("hwage-bench-info config=%s lru_gen_enabled=%s counts=%s scale=%d\n", config,
	       caps, counts ? "yes" : "no", scale);
	if (wl_config(config)) {
		printf("hwage-bench-error config=%s: cannot set its knobs (no counter engine?)\n",
		       config);
		return 1;
	}
	if (setup_zram_swap(512 * scale) || lo_up()) {
		printf("hwage-bench-error config=%s: no zram swap or no loopback\n", config);
		return 1;
	}
	for (w = strtok_r(workloads, ",", &s1); w; w = strtok_r(NULL, ",", &s1)) {
		char pr[256];

		snprintf(pr, sizeof(pr), "%s", pressures);
		if (!strcmp(w, "thp-collapse") || !strcmp(w, "tiers") || !strcmp(w, "tiers-mc") ||
		    !strncmp(w, "damon", 5)) {
			/* no limit: once, whatever the pressures */
			snprintf(CG, sizeof(CG), CG_ROOT "/hwage-bench-%d", ++nr_cg);
			if (!strcmp(w, "tiers"))
				tiers(config, secs);
			else if (!strcmp(w, "tiers-mc"))
				tiers_mc(config, secs);
			else if (!strcmp(w, "damon") || !strcmp(w, "damon-fine") ||
				 !strcmp(w, "damon-thp") || !strcmp(w, "damon-reclaim") ||
				 !strcmp(w, "damon-quota"))
				damon_wl(w, secs);
			else if (!strcmp(w, "thp-collapse"))
				thp_collapse(config, secs);
			else
				printf("hwage-bench-error unknown workload %s\n", w);
			rmdir(CG);
			continue;
		}
		for (p = strtok_r(pr, ",", &s2); p; p = strtok_r(NULL, ",", &s2)) {
			snprintf(CG, sizeof(CG), CG_ROOT "/hwage-bench-%d", ++nr_cg);
			if (!strcmp(w, "hotcold"))
				hotcold(config, p, secs, counts);
			else if (!strcmp(w, "memcached"))
				memcached(config, p, secs);
			else if (!strcmp(w, "thp"))
				thp(config, p, secs);
			else
				printf("hwage-bench-error unknown workload %s\n", w);
			rmdir(CG);
		}
	}
	wl_config("base");
	return 0;
}
