// SPDX-License-Identifier: GPL-2.0
/*
 * Huge pages by the hotness of their pages (thp-split-hot, thp-collapse-hot):
 * w-thp's four regions of transparent huge pages (every page hot; one page
 * in 16 hot; one hot run of a sixteenth; cold), THPS huge pages each, with
 * swap on zram. After a warm-up in which the counts mature, the workload
 * lowers its memory cgroup's limit to LIMIT_MB, a little above its hot
 * pages, and reads its hot pages on; then every page is checked.
 *
 *   base   stock MGLRU (no counts): every page intact
 *   split  counter aging with thp-split-hot=25 (WL_THP_HOT): every page
 *          intact; sparse huge pages split (thp_sparse_split); at least 80% of the cold
 *          pages of the sparse and cluster regions freed while every page
 *          of the even region is still resident and mapped huge; no more
 *          major faults on hot pages than base (a tenth and 8 faults of
 *          margin)
 *   collapse  counter aging with thp-collapse-hot=25, the regions faulted
 *          in as base pages and handed to a fast khugepaged once their
 *          counts are mature: every page intact; no sparse or cluster
 *          range collapsed and some counted in thp_collapse_uneven; the
 *          even ranges collapsed
 *
 * Skipped without counts (hwage.hca is not on) or without PMD-sized huge
 * pages (ppc64le's hash MMU with 4K pages: the radix boot runs it there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca.h"
#include "ktap.h"
#include "workload.h"

#define CG CG_ROOT "/hwage-t24"
/*
 * 4 huge pages a region, the hot pages 9 of the 32 MiB with 2 MiB huge
 * pages, and a limit 3 MiB above them: small enough for make test's time
 * on ppc64le's debug kernel (8 a region and 22 MiB took 240 s there)
 */
#define THPS "4"
#define LIMIT_MB "12"
#define MIN_FREED 0.80

enum { EVEN, SPARSE, CLUSTER, COLD, NR_REGIONS };
static const char *const region_names[NR_REGIONS] = { "even", "sparse", "cluster", "cold" };

static const char *const names[] = {
	"base_every_page_intact",
	"split_every_page_intact",
	"split_splits_sparse_thps",
	"split_frees_cold_subpages",
	"split_keeps_even_thps",
	"split_hot_faults_not_above_base",
	"collapse_every_page_intact",
	"collapse_skips_uneven_ranges",
	"collapse_takes_even_ranges",
};
#define NR_CHECKS (int)(sizeof(names) / sizeof(names[0]))

/* the last "region" line of each region (the census after the run) */
struct regions {
	char line[NR_REGIONS][256];
};

static void keep_region(void *arg, const char *line)
{
	struct regions *rs = arg;
	int r;

	for (r = 0; r < NR_REGIONS; r++) {
		size_t n = strlen(region_names[r]);

		if (!strncmp(line, "region ", 7) && !strncmp(line + 7, region_names[r], n) &&
		    line[7 + n] == ' ')
			snprintf(rs->line[r], sizeof(rs->line[r]), "%s", line);
	}
}

static double region_get(const struct regions *rs, int r, const char *key)
{
	return wl_get(rs->line[r], key);
}

/*
 * One run of w-thp with the extra options in opts (NULL-terminated), in a
 * fresh cgroup; its wait status (-1 if it could not start), its result
 * line in res and its last census in rs.
 */
static int run(const char *config, char *const *opts, char *res, size_t len,
	       struct regions *rs)
{
	char *argv[16] = { "/bin/w-thp", "-N", THPS };
	struct wl_hooks hooks = { .line = keep_region, .arg = rs };
	int i, n = 3, st;

	for (i = 0; opts[i] && n < 15; i++)
		argv[n++] = opts[i];
	argv[n] = NULL;
	memset(rs, 0, sizeof(*rs));
	if (cg_create(CG, 0))
		return -1;
	st = wl_run(CG, argv, config, res, len, &hooks);
	rmdir(CG);
	return st;
}

static int intact(int st, const char *res)
{
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 && wl_get(res, "errors") == 0;
}

int main(void)
{
	char *split_opts[] = { "-W", "4", "-s", "4", "-L", LIMIT_MB, NULL };
	char *collapse_opts[] = { "-b", "-W", "4", "-s", "6", NULL };
	struct wl_khugepaged k;
	char res[512];
	struct regions base, split, coll;
	long long split0, splits, uneven0;
	double base_flt, split_flt, cold = 0, cold_res = 0;
	int st, r, i, ok;

	ktap_begin("t24-thp", NR_CHECKS);
	if (!hca_on()) {
		for (i = 0; i < NR_CHECKS; i++)
			ktap_skip(names[i], HCA_OFF_WHY);
		return ktap_end();
	}
	if (setup_zram_swap(256)) {
		for (i = 0; i < NR_CHECKS; i++)
			ktap_result(0, names[i]);
		return ktap_end();
	}

	wl_config("base");
	st = run("base", split_opts, res, sizeof(res), &base);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3) {
		for (i = 0; i < NR_CHECKS; i++)
			ktap_skip(names[i], "no PMD-sized transparent huge pages (w-thp says why)");
		return ktap_end();
	}
	base_flt = wl_get(res, "majflt");
	ktap_result(intact(st, res), names[0]);

	if (wl_config("hca") || hca_knob("thp-split-hot", WL_THP_HOT)) {
		ktap_diag("cannot turn counter aging on or set thp-split-hot");
		for (i = 1; i < NR_CHECKS; i++)
			ktap_result(0, names[i]);
		wl_config("base");
		return ktap_end();
	}
	split0 = vmstat("thp_sparse_split");
	splits = vmstat("thp_split_page");
	st = run("split", split_opts, res, sizeof(res), &split);
	split0 = vmstat("thp_sparse_split") - split0;
	splits = vmstat("thp_split_page") - splits;
	hca_knob("thp-split-hot", "0");
	split_flt = wl_get(res, "majflt");
	ktap_result(intact(st, res), names[1]);
	ktap_diag("split: thp_sparse_split +%lld of thp_split_page +%lld (the rest by other "
		  "paths), thp_sparse_freed %lld, thp_sparse_scanned %lld", split0, splits,
		  vmstat("thp_sparse_freed"), vmstat("thp_sparse_scanned"));
	ktap_result(split0 > 0, names[2]);
	for (r = SPARSE; r <= CLUSTER; r++) {
		cold += region_get(&split, r, "cold");
		cold_res += region_get(&split, r, "cold_resident");
	}
	ktap_diag("split: %.0f of the %.0f cold pages of sparse and cluster freed (%.0f%%, want >= "
		  "%.0f%%); even: %.0f of %.0f pages resident, %.0f mapped huge (base: %.0f, %.0f)",
		  cold - cold_res, cold, cold > 0 ? 100 * (cold - cold_res) / cold : 0,
		  100 * MIN_FREED, region_get(&split, EVEN, "resident"),
		  region_get(&split, EVEN, "pages"), region_get(&split, EVEN, "huge"),
		  region_get(&base, EVEN, "resident"), region_get(&base, EVEN, "huge"));
	ktap_result(cold > 0 && cold - cold_res >= MIN_FREED * cold, names[3]);
	ok = region_get(&split, EVEN, "pages") > 0 &&
	     region_get(&split, EVEN, "huge") == region_get(&split, EVEN, "pages");
	ktap_result(ok, names[4]);
	ktap_diag("major faults on hot pages in the measured run: split %.0f, base %.0f",
		  split_flt, base_flt);
	ktap_result(split_flt >= 0 && base_flt >= 0 && split_flt <= base_flt * 1.1 + 8, names[5]);

	/* khugepaged at full speed, for the length of the run */
	if (wl_khugepaged_fast(&k, "50") || hca_knob("thp-collapse-hot", WL_THP_HOT)) {
		ktap_diag("cannot speed khugepaged up or set thp-collapse-hot");
		for (i = 6; i < NR_CHECKS; i++)
			ktap_result(0, names[i]);
	} else {
		uneven0 = vmstat("thp_collapse_uneven");
		st = run("collapse", collapse_opts, res, sizeof(res), &coll);
		uneven0 = vmstat("thp_collapse_uneven") - uneven0;
		ktap_result(intact(st, res), names[6]);
		ktap_diag("collapse: thp_collapse_uneven +%lld; pages mapped huge: even %.0f, "
			  "sparse %.0f, cluster %.0f, cold %.0f (of %.0f each)", uneven0,
			  region_get(&coll, EVEN, "huge"), region_get(&coll, SPARSE, "huge"),
			  region_get(&coll, CLUSTER, "huge"), region_get(&coll, COLD, "huge"),
			  region_get(&coll, EVEN, "pages"));
		ktap_result(uneven0 > 0 && region_get(&coll, SPARSE, "huge") == 0 &&
			    region_get(&coll, CLUSTER, "huge") == 0, names[7]);
		ktap_result(region_get(&coll, EVEN, "pages") > 0 &&
			    region_get(&coll, EVEN, "huge") == region_get(&coll, EVEN, "pages"),
			    names[8]);
	}
	hca_knob("thp-collapse-hot", "0");
	wl_khugepaged_restore(&k);
	wl_config("base");
	return ktap_end();
}
