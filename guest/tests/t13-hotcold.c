// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaim driven by the counts, end to end: w-hotcold (a known hot set and
 * cold set, every page verified) in a memory cgroup with 1.5 times its
 * limit in use, swap on zram.
 *
 *   base       stock MGLRU (every boot): every page intact
 *   hca        counter aging (hwage.hca=on): every page intact, and at least
 *              90% of the pages swapped out at the end of the run are cold
 *   switching  counter aging switched every half second under load: intact
 *   hca-refs   counter aging, every reference checked at eviction
 *              (evict-skip-refs=0; hca has the default, 1): intact
 *
 * A run that pushed no page out to swap fails: the limit did not press,
 * so it checked nothing; so does a switching run with fewer than two flips.
 *
 * The hot set is known by construction. With the counter engine, the base
 * and the hca runs also take ground-truth snapshots and list their pages
 * with their generations at the end of the run and again right after one
 * more aging (w-hotcold -c -A), and the host (harness/boot-test.sh) checks
 * that the pages hot by design are the ones the emulator saw accessed
 * most, and that the youngest generation counter aging made holds the
 * truly hot pages more precisely than the one stock MGLRU made in the same
 * boot, and with a precision of at least 0.8.
 */
#include "hca.h"
#include "ktap.h"
#include "workload.h"

#define CG CG_ROOT "/hwage-t13"
#define HOT_MB "12"
#define COLD_MB "36"
#define TOTAL_MB 48
#define SECS "8"
/*
 * With snapshots, the run goes on past SECS until each hot page has had
 * this many operations on average (w-hotcold -n): a slow guest without
 * -icount makes ~7 in 8 s on ppc64le, so that one hot page in 15 is read
 * 3 times or fewer and weighs no more than a cold one read once and swapped
 * in and out (the ground truth then agreed with the hot set at 0.67-0.76);
 * with 20, one hot page in 500 is read 8 times or fewer.
 */
#define OPS_PER_HOT "20"
#define MIN_COLD_SHARE 0.90

/* switch counter aging every other tick (half a second); count the flips made */
static void flip(void *arg, int n)
{
	int *flips = arg;

	if (n % 2 == 0)
		*flips += !hca_counts((n / 2) % 2);
}

/*
 * One run of w-hotcold under config; 1 if every page was intact and the
 * limit pressed (pages went out to swap: without that nothing was
 * checked), and with toggle if counter aging was switched at least twice.
 * With truth, it also prints its pages' pfns and generations and takes
 * ground truth snapshots, which the host scores (harness/boot-test.sh).
 */
static int run(const char *config, int toggle, int truth, double *cold_share,
	       double *swapped)
{
	/* snapshots only when the plugin writes truth (hwage.truth=1) */
	int snapshots = truth && !strcmp(kparam("truth", "0"), "1");
	char *argv[] = { "/bin/w-hotcold", "-H", HOT_MB, "-C", COLD_MB, "-s", SECS,
			 truth ? "-c" : NULL, truth ? "-A" : NULL, snapshots ? "-T" : NULL, "-n", OPS_PER_HOT,
			 NULL };
	char res[512];
	long long in0 = vmstat("pswpin"), out0 = vmstat("pswpout"), out;
	int st, flips = 0, intact;
	struct wl_hooks hooks = { .tick = flip, .arg = &flips };

	*swapped = *cold_share = 0;
	if (wl_config(config) || cg_create(CG, (long long)TOTAL_MB * 2 / 3 << 20)) {
		ktap_diag("%s: cannot set the knobs or the cgroup up", config);
		return 0;
	}
	st = wl_run(CG, argv, NULL, res, sizeof(res), toggle ? &hooks : NULL);
	out = vmstat("pswpout") - out0;
	*swapped = wl_get(res, "swapped");
	*cold_share = *swapped > 0 ? wl_get(res, "swapped_cold") / *swapped : 0;
	ktap_diag("%s: ops/s %.0f, p99 %.0f us, swapped at the end %.0f pages (%.1f%% cold), "
		  "pswpin +%lld, pswpout +%lld", config, wl_get(res, "ops_per_s"),
		  wl_get(res, "p99_us"), *swapped, 100 * *cold_share, vmstat("pswpin") - in0, out);
	if (toggle)
		ktap_diag("%s: counter aging switched %d times under load", config, flips);
	rmdir(CG);
	intact = WIFEXITED(st) && WEXITSTATUS(st) == 0 && wl_get(res, "errors") == 0;
	if (intact && out <= 0)
		ktap_diag("%s: no page went out to swap: the limit did not press", config);
	return intact && out > 0 && (!toggle || flips >= 2);
}

int main(void)
{
	double share, swapped;
	int counts = hca_on();

	ktap_begin("hotcold", 5);
	if (setup_zram_swap(256)) {
		ktap_result(0, "zram_swap");
		return ktap_end();
	}
	/* scored against the ground truth too, with the counter engine */
	ktap_result(run("base", 0, counts, &share, &swapped), "base_every_page_intact");
	if (!counts) {
		ktap_skip("hca_every_page_intact", HCA_OFF_WHY);
		ktap_skip("hca_evicts_cold_pages", HCA_OFF_WHY);
		ktap_skip("counts_switching_under_load", HCA_OFF_WHY);
		ktap_skip("hca_refs_every_page_intact", HCA_OFF_WHY);
		return ktap_end();
	}
	ktap_result(run("hca", 0, 1, &share, &swapped), "hca_every_page_intact");
	ktap_diag("hca: %.1f%% of the %.0f pages swapped out are cold (want >= %.0f%%)",
		  100 * share, swapped, 100 * MIN_COLD_SHARE);
	ktap_result(swapped > 0 && share >= MIN_COLD_SHARE, "hca_evicts_cold_pages");
	ktap_result(run("hca", 1, 0, &share, &swapped), "counts_switching_under_load");
	ktap_result(run("hca-refs", 0, 0, &share, &swapped), "hca_refs_every_page_intact");
	wl_config("base");
	return ktap_end();
}
