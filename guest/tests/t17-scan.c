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
 *         pass on average than base, and, when the passes span at most
 *         MAX_WINDOWS decay windows, at most MAX_LOST_PCT of the hot set
 *         lost per pass on average and in the last pass (the first
 *         scored passes lose more as the hot set settles in: the worst
 *         pass is shown). A hot page is lost in a pass if it is seen
 *         swapped out at any of the pass's check points.
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
/*
 * A count covers two decay windows and a folio's credit four more, so a hot
 * page is kept while it is read at least once in six windows. A hot page
 * here is read READS times a pass at random: with a pass of W windows, a
 * gap of more than six windows between two reads has probability
 * exp(-6 * READS / W) each, about 7% of the hot set per pass at W = 6 from
 * the gaps alone. A pass spans 2-3 windows on the prod kernels; a debug
 * kernel's extra instructions make it span more, and the bound is then not
 * asserted (the losses are still shown).
 */
#define MAX_WINDOWS 6

/* what w-scan reports of the scored passes: hot set lost (%), decay windows */
struct scan_result {
	double max, mean, last;
	long long windows;
};

/* one run under config; 1 if every page was intact and pages went to swap */
static int run(const char *config, struct scan_result *r)
{
	/* hwage.scan_diag=1: w-scan -D, the hot pages' states (slower) */
	int diag = !strcmp(kparam("scan_diag", "0"), "1") && strcmp(config, "base");
	char *argv[] = { "/bin/w-scan", "-H", HOT_MB, "-C", COLD_MB, "-p", PASSES, "-r", READS,
			 diag ? "-D" : NULL, NULL };
	long long out0 = vmstat("pswpout"), out;
	char res[512];
	int st, intact;

	r->max = r->mean = r->last = -1;
	r->windows = -1;
	if (wl_config(config) || cg_create(CG, (long long)LIMIT_MB << 20)) {
		ktap_diag("%s: cannot set the knobs or the cgroup up", config);
		return 0;
	}
	st = wl_run(CG, argv, NULL, res, sizeof(res), NULL);
	out = vmstat("pswpout") - out0;
	rmdir(CG);
	r->max = wl_get(res, "lost_pct_max");
	r->mean = wl_get(res, "lost_pct_mean");
	r->last = wl_get(res, "lost_pct_last");
	r->windows = wl_get(res, "decays_max");
	ktap_diag("%s: hot set lost per pass: mean %.1f%%, worst %.1f%%, last %.1f%%; "
		  "%.1f s, up to %lld decay windows a pass, pswpout +%lld", config, r->mean,
		  r->max, r->last, wl_get(res, "secs"), r->windows, out);
	intact = WIFEXITED(st) && WEXITSTATUS(st) == 0 && wl_get(res, "errors") == 0;
	if (intact && out <= 0)
		ktap_diag("%s: no page went out to swap: the limit did not press", config);
	return intact && out > 0;
}

int main(void)
{
	struct scan_result base, hca, other;
	int ok;

	ktap_begin("scan", 7);
	if (setup_zram_swap(256)) {
		ktap_result(0, "zram_swap");
		return ktap_end();
	}
	ktap_result(run("base", &base), "base_every_page_intact");
	if (!hca_on()) {
		ktap_skip("hca_every_page_intact", HCA_OFF_WHY);
		ktap_skip("hca_keeps_the_hot_set", HCA_OFF_WHY);
		ktap_skip("hca_keeps_the_hot_set_settled", HCA_OFF_WHY);
		ktap_skip("hca_loses_less_than_base", HCA_OFF_WHY);
		ktap_skip("hca_tiers_every_page_intact", HCA_OFF_WHY);
		ktap_skip("hca_kmeans_every_page_intact", HCA_OFF_WHY);
		return ktap_end();
	}
	ok = run("hca", &hca);
	wl_config("base");
	ktap_result(ok, "hca_every_page_intact");
	ktap_diag("hca: mean loss per pass %.1f%%, last pass %.1f%% (want <= %.0f%% each), "
		  "worst %.1f%%; base's mean %.1f%%", hca.mean, hca.last, MAX_LOST_PCT, hca.max,
		  base.mean);
	if (ok && hca.windows > MAX_WINDOWS) {
		char why[128];

		snprintf(why, sizeof(why), "a pass spans up to %lld decay windows, more than %d",
			 hca.windows, MAX_WINDOWS);
		ktap_skip("hca_keeps_the_hot_set", why);
		ktap_skip("hca_keeps_the_hot_set_settled", why);
	} else {
		ktap_result(ok && hca.windows > 0 && hca.mean >= 0 && hca.mean <= MAX_LOST_PCT,
			    "hca_keeps_the_hot_set");
		ktap_result(ok && hca.windows > 0 && hca.last >= 0 && hca.last <= MAX_LOST_PCT,
			    "hca_keeps_the_hot_set_settled");
	}
	ktap_result(ok && hca.mean >= 0 && base.mean >= 0 && hca.mean <= base.mean,
		    "hca_loses_less_than_base");
	ok = run("hca-tiers", &other);
	wl_config("base");
	ktap_result(ok, "hca_tiers_every_page_intact");
	ok = run("hca-kmeans", &other);
	wl_config("base");
	ktap_result(ok, "hca_kmeans_every_page_intact");
	return ktap_end();
}
