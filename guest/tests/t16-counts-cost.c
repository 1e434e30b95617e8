// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of reading access counts, where it is spent (patches 9 and 10),
 * from lru_gen_full:
 *
 *   counts ns N calls N sample ns N calls N evict ns N calls N
 *   lru_lock_hold isolate|putback ns N holds N log2_ns N0 ... N31
 *
 * w-hotcold runs in a fresh memory cgroup at twice its limit, swap on
 * zram, once with counter aging and its default evict-skip-refs
 * (hca, hwage.hca=on only) and once without
 * (base, every boot), each in a cgroup of its own. The figures are the
 * cgroup's, summed over its nodes, from right after it is made to right
 * after the workload ends, before it is removed.
 *
 *   hca   the counts were read by the aging's promotion walk (sample
 *         calls and ns > 0) and by the eviction's check of the folios it
 *         isolated (evict calls and ns > 0, evict-skip-refs being set);
 *         the total is exactly sample + evict, in ns and in calls (the
 *         kernel prints the sum of the two it read); the sampling, which
 *         the aging does, took no more time than the aging did, since its
 *         time is part of the aging's (a cumulative figure, taken with the
 *         cgroup idle, so no aging is half accounted); both lru_lock holds
 *         happened (isolate and putback holds > 0, with time) and each
 *         histogram's buckets sum to its holds.
 *   base  no count was read (every calls and ns of the counts line 0),
 *         with the engine (counter aging off) or without it; the holds are
 *         kept all the same, the baseline of the hca run's.
 *
 * Both runs must have pushed pages out to swap and kept every page intact,
 * or nothing was measured. The diagnostics give the cost per read and the
 * holds' p99 and longest (upper bounds of their log2 buckets).
 */
#include "hca.h"
#include "ktap.h"
#include "lru_gen.h"
#include "workload.h"

#define CG_HCA CG_ROOT "/hwage-t16-hca"
#define CG_BASE CG_ROOT "/hwage-t16-base"
#define HOT_MB "8"
#define COLD_MB "24"
#define TOTAL_MB 32
#define SECS "4"

static const char *const hold_name[LG_NR_HOLDS] = { "isolate", "putback" };

/* what one run measured: the figures of its cgroup, end - start */
struct run {
	int ok;				/* every page intact and pages swapped out */
	long long counts[2 * LG_NR_COUNTS], aging[4];
	long long end_aging_ns, end_sample_ns;
	struct lru_gen_hold hold[LG_NR_HOLDS];
	int lines;			/* counts and both hold lines were shown */
};

/* w-hotcold at twice the limit of cg under config, measured into r */
static void run(const char *config, const char *cg, struct run *r)
{
	char *argv[] = { "/bin/w-hotcold", "-H", HOT_MB, "-C", COLD_MB, "-s", SECS, NULL };
	struct lru_gen_scan s0, s1;
	long long out0 = vmstat("pswpout"), out;
	char res[512];
	int st, i, k;

	memset(r, 0, sizeof(*r));
	if (wl_config(config) || cg_create(cg, (long long)TOTAL_MB / 2 << 20)) {
		ktap_diag("%s: cannot set the knobs or the cgroup up", config);
		return;
	}
	lru_gen_scan(LRU_GEN_FULL, cg_path(cg), -1, -1, &s0);
	st = wl_run(cg, argv, NULL, res, sizeof(res), NULL);
	lru_gen_scan(LRU_GEN_FULL, cg_path(cg), -1, -1, &s1);
	out = vmstat("pswpout") - out0;
	rmdir(cg);

	r->ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && wl_get(res, "errors") == 0 && out > 0;
	r->lines = s1.counts_lines > 0 && s1.hold_lines[LG_HOLD_ISOLATE] > 0 &&
		   s1.hold_lines[LG_HOLD_PUTBACK] > 0;
	for (i = 0; i < 2 * LG_NR_COUNTS; i++)
		r->counts[i] = lru_gen_delta(s1.counts[i], s0.counts[i]);
	for (i = 0; i < 4; i++)
		r->aging[i] = lru_gen_delta(s1.aging[i], s0.aging[i]);
	r->end_aging_ns = s1.aging[0];
	r->end_sample_ns = s1.counts[2 * LG_COUNTS_SAMPLE];
	for (k = 0; k < LG_NR_HOLDS; k++) {
		r->hold[k].ns = lru_gen_delta(s1.hold[k].ns, s0.hold[k].ns);
		r->hold[k].holds = lru_gen_delta(s1.hold[k].holds, s0.hold[k].holds);
		for (i = 0; i < LG_HOLD_BUCKETS; i++)
			r->hold[k].hist[i] = lru_gen_delta(s1.hold[k].hist[i], s0.hold[k].hist[i]);
	}

	ktap_diag("%s: ops/s %.0f, errors %.0f, pswpout +%lld; lru_gen_full lines %s", config,
		  wl_get(res, "ops_per_s"), wl_get(res, "errors"), out,
		  r->lines ? "shown" : "missing");
	ktap_diag("%s: aging ns %lld calls %lld, look_around ns %lld calls %lld", config,
		  r->aging[0], r->aging[1], r->aging[2], r->aging[3]);
	for (i = 0; i < LG_NR_COUNTS; i++) {
		long long ns = r->counts[2 * i], calls = r->counts[2 * i + 1];

		ktap_diag("%s: counts %-6s ns %lld calls %lld (%.0f ns per read)", config,
			  (const char *[]){ "all", "sample", "evict", "thp" }[i], ns, calls,
			  calls > 0 ? (double)ns / calls : 0);
	}
	for (k = 0; k < LG_NR_HOLDS; k++)
		ktap_diag("%s: lru_lock_hold %s ns %lld holds %lld (%.0f ns each), p99 < %lld ns, "
			  "max < %lld ns", config, hold_name[k], r->hold[k].ns, r->hold[k].holds,
			  r->hold[k].holds > 0 ? (double)r->hold[k].ns / r->hold[k].holds : 0,
			  lru_gen_hold_quantile(r->hold[k].hist, 0.99),
			  lru_gen_hold_quantile(r->hold[k].hist, 1));
}

/* both holds happened, took time, and each histogram sums to its holds */
static int holds_ok(const char *config, const struct run *r)
{
	int ok = r->lines, i, k;

	for (k = 0; k < LG_NR_HOLDS; k++) {
		long long sum = 0;

		for (i = 0; i < LG_HOLD_BUCKETS; i++)
			sum += r->hold[k].hist[i];
		if (r->hold[k].holds <= 0 || r->hold[k].ns <= 0 || sum != r->hold[k].holds) {
			ktap_diag("%s: %s: holds %lld, ns %lld, buckets sum to %lld", config,
				  hold_name[k], r->hold[k].holds, r->hold[k].ns, sum);
			ok = 0;
		}
	}
	return ok;
}

int main(void)
{
	struct run hca, base;
	long long sum_ns = 0, sum_calls = 0;
	int i, zero;

	ktap_begin("counts_cost", 9);
	if (!ktap_result(!setup_zram_swap(256), "zram_swap"))
		return ktap_end();

	if (!hca_on()) {
		ktap_skip("hca_run_pressed_and_intact", HCA_OFF_WHY);
		ktap_skip("hca_walk_and_eviction_read_counts", HCA_OFF_WHY);
		ktap_skip("hca_counts_total_is_sample_evict", HCA_OFF_WHY);
		ktap_skip("hca_sample_time_within_aging_time", HCA_OFF_WHY);
		ktap_skip("hca_lru_lock_hold_histograms", HCA_OFF_WHY);
	} else {
		run("hca", CG_HCA, &hca);
		ktap_result(hca.ok && hca.lines, "hca_run_pressed_and_intact");
		ktap_result(hca.lines && hca.counts[2 * LG_COUNTS_SAMPLE + 1] > 0 &&
			    hca.counts[2 * LG_COUNTS_SAMPLE] > 0 &&
			    hca.counts[2 * LG_COUNTS_EVICT + 1] > 0 &&
			    hca.counts[2 * LG_COUNTS_EVICT] > 0,
			    "hca_walk_and_eviction_read_counts");
		for (i = LG_COUNTS_SAMPLE; i < LG_NR_COUNTS; i++) {
			sum_ns += hca.counts[2 * i];
			sum_calls += hca.counts[2 * i + 1];
		}
		ktap_diag("hca: sample + evict: ns %lld calls %lld; counts: ns %lld calls %lld",
			  sum_ns, sum_calls, hca.counts[0], hca.counts[1]);
		ktap_result(hca.lines && sum_ns == hca.counts[0] && sum_calls == hca.counts[1],
			    "hca_counts_total_is_sample_evict");
		ktap_diag("hca: at the end, sample ns %lld, aging ns %lld", hca.end_sample_ns,
			  hca.end_aging_ns);
		ktap_result(hca.lines && hca.end_sample_ns >= 0 &&
			    hca.end_sample_ns <= hca.end_aging_ns,
			    "hca_sample_time_within_aging_time");
		ktap_result(holds_ok("hca", &hca), "hca_lru_lock_hold_histograms");
	}

	run("base", CG_BASE, &base);
	ktap_result(base.ok && base.lines, "base_run_pressed_and_intact");
	for (zero = base.lines, i = 0; i < 2 * LG_NR_COUNTS; i++)
		zero = zero && base.counts[i] == 0;
	ktap_result(zero, "base_reads_no_counts");
	ktap_result(holds_ok("base", &base), "base_lru_lock_hold_histograms");

	wl_config("base");
	return ktap_end();
}
