// SPDX-License-Identifier: GPL-2.0
/*
 * Scan resistance (hwage.hca=on for the hca runs): w-scan reads a hot set
 * of HOT_MB at random, READS times per page per pass, while it streams a
 * cold set of COLD_MB through, in a memory cgroup whose limit holds the
 * hot set with room to spare but not the cold set, swap on zram.
 *
 *   base  stock MGLRU: every page intact; its hot-set losses are shown
 *   hca   counter aging with the kernel's defaults (k-means with a gap,
 *         evict-skip-refs): every page intact, no more hot-set loss per
 *         pass on average than base (prod kernels, one boot each: 14.4%
 *         against 97.0% on x86_64, 24.7% against 89.2% on ppc64le, with
 *         the credit of patches 11 and 12), and no scored pass loses
 *         more than MAX_LOST_PCT of the hot set (a hot page is lost in a
 *         pass if it is seen swapped out at any of the pass's check
 *         points); the last is a known failure for now (KTAP TODO, see
 *         below)
 *   hca-tiers counter aging with walk-refs (promotions counted in the
 *         folios' tiers instead of the credit, evict-skip-refs on): every
 *         page intact, and its losses shown beside the others
 *   hca-kmeans counter aging with plain k-means (the default before
 *         2026-12-06), which splits hot pages read once or twice a
 *         window in two: every page intact, its losses shown
 *
 * A run that pushed no page out to swap fails: the limit did not press.
 * hwage.scan_diag=1 on the kernel command line runs w-scan -D in the
 * counter configurations: the log then shows the states (count age,
 * hotness, generation) the lost and the kept hot pages were in.
 */
#include "hca.h"
#include "ktap.h"
#include "workload.h"

#define CG CG_ROOT "/hwage-t17"
#define HOT_MB "8"
#define COLD_MB "32"
#define LIMIT_MB 16
#define PASSES "4"
#define READS "4"
#define MAX_LOST_PCT 10.0

/* one run under config; 1 if every page was intact and pages went to swap */
static int run(const char *config, double *lost_max, double *lost_mean)
{
	/* hwage.scan_diag=1: w-scan -D, the hot pages' states (slower) */
	int diag = !strcmp(kparam("scan_diag", "0"), "1") && strcmp(config, "base");
	char *argv[] = { "/bin/w-scan", "-H", HOT_MB, "-C", COLD_MB, "-p", PASSES, "-r", READS,
			 diag ? "-D" : NULL, NULL };
	long long out0 = vmstat("pswpout"), out;
	char res[512];
	int st, intact;

	*lost_max = *lost_mean = -1;
	if (wl_config(config) || cg_create(CG, (long long)LIMIT_MB << 20)) {
		ktap_diag("%s: cannot set the knobs or the cgroup up", config);
		return 0;
	}
	st = wl_run(CG, argv, NULL, res, sizeof(res), NULL);
	out = vmstat("pswpout") - out0;
	rmdir(CG);
	*lost_max = wl_get(res, "lost_pct_max");
	*lost_mean = wl_get(res, "lost_pct_mean");
	ktap_diag("%s: hot set lost per pass: mean %.1f%%, worst %.1f%%; %.1f s, pswpout +%lld",
		  config, *lost_mean, *lost_max, wl_get(res, "secs"), out);
	intact = WIFEXITED(st) && WEXITSTATUS(st) == 0 && wl_get(res, "errors") == 0;
	if (intact && out <= 0)
		ktap_diag("%s: no page went out to swap: the limit did not press", config);
	return intact && out > 0;
}

int main(void)
{
	double base_max, base_mean, max, mean;
	int ok;

	ktap_begin("scan", 6);
	if (setup_zram_swap(256)) {
		ktap_result(0, "zram_swap");
		return ktap_end();
	}
	ktap_result(run("base", &base_max, &base_mean), "base_every_page_intact");
	if (!hca_on()) {
		ktap_skip("hca_every_page_intact", HCA_OFF_WHY);
		ktap_skip("hca_keeps_the_hot_set", HCA_OFF_WHY);
		ktap_skip("hca_loses_less_than_base", HCA_OFF_WHY);
		ktap_skip("hca_tiers_every_page_intact", HCA_OFF_WHY);
		ktap_skip("hca_kmeans_every_page_intact", HCA_OFF_WHY);
		return ktap_end();
	}
	ok = run("hca", &max, &mean);
	wl_config("base");
	ktap_result(ok, "hca_every_page_intact");
	ktap_diag("hca: worst pass lost %.1f%% of the hot set (want <= %.0f%%)", max,
		  MAX_LOST_PCT);
	/*
	 * A known defect (issue 11). With the credit (a hot page stays four
	 * walks after its count last said it is hot; one read back in within
	 * refault-gens generations of its eviction gets full credit) the
	 * loss fell from 74-88% to 14-25% per pass on prod kernels, and it
	 * still falls from pass to pass as the hot set settles in: the first
	 * passes lose the hot pages read back in later than refault-gens
	 * after their eviction, or not hot by count for longer than four
	 * walks (README, "Scan resistance: the credit"). Anything else (a
	 * broken run) still fails.
	 */
	if (ok && max > MAX_LOST_PCT)
		ktap_todo("hca_keeps_the_hot_set", "issue 11: counter aging loses more than "
			  "10% of the hot set in a pass as it settles in");
	else
		ktap_result(ok && max >= 0 && max <= MAX_LOST_PCT, "hca_keeps_the_hot_set");
	ktap_diag("hca: mean loss per pass %.1f%% against base's %.1f%%", mean, base_mean);
	ktap_result(ok && mean >= 0 && base_mean >= 0 && mean <= base_mean,
		    "hca_loses_less_than_base");
	ok = run("hca-tiers", &max, &mean);
	wl_config("base");
	ktap_result(ok, "hca_tiers_every_page_intact");
	ktap_diag("hca-tiers: mean loss per pass %.1f%%, worst %.1f%%, base's mean %.1f%%", mean,
		  max, base_mean);
	ok = run("hca-kmeans", &max, &mean);
	wl_config("base");
	ktap_result(ok, "hca_kmeans_every_page_intact");
	ktap_diag("hca-kmeans: mean loss per pass %.1f%%, worst %.1f%%, base's mean %.1f%%",
		  mean, max, base_mean);
	return ktap_end();
}
