// SPDX-License-Identifier: GPL-2.0
/*
 * w-tiers: a hot set that starts on the slow memory tier and then moves,
 * for the benchmark of promotion across memory tiers (bench workload
 * "tiers", a guest booted with HWAGE_TIERS: node 1 CPU-less, below node 0).
 *
 *   w-tiers [-H HOT_MB] [-C COLD_MB] [-s SECONDS] [-r SEED]
 *
 * It puts a cold set of COLD_MB (48) and two hot sets, A and B, of HOT_MB
 * (16) each on node 1 (MPOL_BIND while it writes them, the default policy
 * after), then reads set A at random for SECONDS (20), then set B for as
 * long: the hot set moves. Whatever moves pages up (the counts' kpromoted,
 * NUMA balancing's tiering mode, nothing) is the caller's setting. Every
 * second it checks where the set being read is (move_pages()). The reads
 * are uniform over the set, so the share of its pages on node 0 is the
 * share of the reads node 0 served in that second; node 0 has room for
 * every set, so the best placement serves all of them there (1.0).
 *
 * Lines:
 *   second phase=a|b t=N up=N of=N
 *   result hot_mb=N cold_mb=N secs=N t90_a=S share_a=F t90_b=S share_b=F
 *     precision=F cold_up=N candidates=N promote_fail=N promoted=N
 *     kpromoted_ms=F kpromoted_busy_ms=F kpromoted_move_ms=F sys_ms=F
 *     ops_per_s=N errors=N
 * t90_X: seconds of phase X until 90% of its set was on node 0 (-1: never);
 * share_X: the mean over the seconds of phase X of its share on node 0;
 * precision: at the end of phase A, the share of set A among this
 * program's pages on node 0 (1 when none is there); cold_up: the cold
 * set's pages on node 0 at the end; candidates, promote_fail: the
 * pages kpromoted found hot and failed to move up (pgpromote_counts_*);
 * promoted: the pages moved up over the run (tiers_promoted():
 * pgpromote_success, and DAMOS migrate_hot's); kpromoted_ms: the CPU time
 * of kpromoted1 and kdamond 0 (tiers_promoters_cpu_ns()) over the run, from
 * their utime and stime (clock ticks, sampled);
 * kpromoted_busy_ms: the CPU time it spent in its rounds, from promote-stat
 * (-1 without); kpromoted_move_ms: the part of it spent migrating the
 * pages (-1 without); sys_ms: this program's system time over the run (NUMA
 * balancing's hint faults and scans are charged there); ops_per_s: the
 * random reads per second. The run is the two phases: all of these are
 * taken before the check that reads every page back (its faults would
 * move the cold set up under NUMA balancing's hint faults); errors: pages
 * whose contents were lost, or -1 when the sets could not be put on node 1.
 * Exit status 0, 1 on errors, 2 on bad usage, 3 without a node 1.
 */
#include <getopt.h>

#include "tiers.h"

static double phase(const char *name, char *buf, long n, int *st, int secs, uint64_t *rng,
		    long long *reads, double *share)
{
	double t90 = -1, sum = 0;
	int t;

	for (t = 1; t <= secs; t++) {
		long up = tiers_step(buf, n, st, rng, reads);

		printf("second phase=%s t=%d up=%ld of=%ld\n", name, t, up, n);
		fflush(stdout);
		sum += up > 0 ? (double)up / n : 0;
		if (t90 < 0 && up >= n * 9 / 10)
			t90 = t;
	}
	*share = sum / secs;
	return t90;
}

int main(int argc, char **argv)
{
	long hot_mb = 16, cold_mb = 48, secs = 20;
	uint64_t rng = 0x7135;
	long long reads = 0, pro0, kp0, sys0, cand0, fail0, busy0, move0;
	long long pro, cpu, sys, cand, fail, busy, move;
	char stat[256] = "";
	double t0, wall, share_a, share_b, t90_a, t90_b, prec;
	long hot_n, cold_n, a_up, b_up, c_up, errors;
	char *a, *b, *cold;
	int *st, opt, damon;

	while ((opt = getopt(argc, argv, "H:C:s:r:")) != -1) {
		switch (opt) {
		case 'H':
			hot_mb = parse_num("w-tiers", "-H", optarg, 1, 1024);
			break;
		case 'C':
			cold_mb = parse_num("w-tiers", "-C", optarg, 0, 4096);
			break;
		case 's':
			secs = parse_num("w-tiers", "-s", optarg, 1, 3600);
			break;
		case 'r':
			rng = parse_num("w-tiers", "-r", optarg, 1, 1L << 62);
			break;
		default:
			fprintf(stderr, "usage: w-tiers [-H HOT_MB] [-C COLD_MB] [-s SECONDS] [-r SEED]\n");
			return 2;
		}
	}
	if (access("/sys/devices/system/node/node1", F_OK)) {
		printf("# no node 1: boot with HWAGE_TIERS\n");
		return 3;
	}
	hot_n = hot_mb * (1 << 20) / TIERS_PAGE;
	cold_n = cold_mb * (1 << 20) / TIERS_PAGE;
	/*
	 * DAMON (damon-hot) sees the sets being written as accesses and would
	 * move them up before the run: off while they are
	 */
	damon = damon_pid() > 0 && !damon_set("0/state", "off");
	cold = cold_n ? tiers_alloc(1, cold_n, 2) : NULL;
	a = tiers_alloc(1, hot_n, 1);
	b = tiers_alloc(1, hot_n, 3);
	st = calloc(hot_n > cold_n ? hot_n : cold_n, sizeof(int));
	if ((cold_n && !cold) || !a || !b || !st ||
	    tiers_on_node(a, hot_n, st, 1) != hot_n || tiers_on_node(b, hot_n, st, 1) != hot_n ||
	    (damon && damon_set("0/state", "on"))) {
		printf("result hot_mb=%ld cold_mb=%ld secs=%ld errors=-1\n", hot_mb, cold_mb, secs);
		return 1;
	}

	pro0 = tiers_promoted();
	cand0 = vmstat("pgpromote_counts_candidate");
	fail0 = vmstat("pgpromote_counts_fail");
	busy0 = tiers_promote_stat(" busy_ns ");
	move0 = tiers_promote_stat(" move_ns ");
	kp0 = tiers_promoters_cpu_ns();
	sys0 = tiers_sys_ns();
	t0 = now_s();
	t90_a = phase("a", a, hot_n, st, secs, &rng, &reads, &share_a);
	a_up = tiers_on_node(a, hot_n, st, 0);
	b_up = tiers_on_node(b, hot_n, st, 0);
	c_up = cold_n ? tiers_on_node(cold, cold_n, st, 0) : 0;
	prec = a_up + b_up + c_up ? (double)a_up / (a_up + b_up + c_up) : 1;
	t90_b = phase("b", b, hot_n, st, secs, &rng, &reads, &share_b);
	c_up = cold_n ? tiers_on_node(cold, cold_n, st, 0) : 0;
	/* the figures of the run, before the check reads every page */
	wall = now_s() - t0;
	cand = vmstat("pgpromote_counts_candidate") - cand0;
	fail = vmstat("pgpromote_counts_fail") - fail0;
	pro = tiers_promoted() - pro0;
	cpu = tiers_promoters_cpu_ns() - kp0;
	busy = busy0 >= 0 ? tiers_promote_stat(" busy_ns ") - busy0 : -1000000;
	move = move0 >= 0 ? tiers_promote_stat(" move_ns ") - move0 : -1000000;
	sys = tiers_sys_ns() - sys0;
	if (read_file("/sys/kernel/debug/hca/promote-stat", stat, sizeof(stat)) > 0)
		printf("# promote-stat: %s", stat);
	errors = tiers_check(a, hot_n, 1) + tiers_check(b, hot_n, 3) +
		 (cold_n ? tiers_check(cold, cold_n, 2) : 0);
	printf("result hot_mb=%ld cold_mb=%ld secs=%ld t90_a=%.0f share_a=%.3f t90_b=%.0f share_b=%.3f precision=%.3f cold_up=%ld candidates=%lld promote_fail=%lld promoted=%lld kpromoted_ms=%.1f kpromoted_busy_ms=%.1f kpromoted_move_ms=%.1f sys_ms=%.1f ops_per_s=%.0f errors=%ld\n",
	       hot_mb, cold_mb, secs, t90_a, share_a, t90_b, share_b, prec, c_up, cand, fail,
	       pro, cpu / 1e6, busy / 1e6, move / 1e6, sys / 1e6, reads / wall, errors);
	return errors ? 1 : 0;
}
