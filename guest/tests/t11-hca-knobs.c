// SPDX-License-Identifier: GPL-2.0
/*
 * The knobs of page aging from access counts, /sys/kernel/debug/hca/:
 * every bad value is refused with EINVAL and changes nothing, and the
 * values in range are taken. Each knob is put back as it was. And the
 * switch, the 0x0008 bit of /sys/kernel/mm/lru_gen/enabled: it turns
 * counter aging on and off, reads as set only with a counter backend,
 * and leaves the other bits alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hca.h"
#include "ktap.h"
#include "util.h"

struct knob {
	const char *name;
	const char *good[4];
	const char *bad_range[3];
};

static const struct knob knobs[] = {
	{ "scan-pfn-ratio", { "1", "100", "50" }, { "0", "101" } },
	{ "scan-skip-msec", { "0", "60000", "100" }, { "60001" } },
	{ "evict-skip-refs", { "0", "1" }, { "2" } },
	{ "walk-prev-gen", { "1", "0" }, { "2" } },
	{ "walk-refs", { "1", "0" }, { "2" } },
	{ "classifier", { "0", "1", "2", "3" }, { "4" } },
	{ "refault-gens", { "0", "1024", "8" }, { "1025" } },
	{ "promote", { "0", "1" }, { "2" } },
	{ "promote-interval-msec", { "10", "60000", "100" }, { "9", "60001" } },
	{ "promote-scan-pages", { "64", "16777216", "65536" }, { "63", "16777217" } },
	{ "promote-sample-pages", { "1", "4096", "64" }, { "0", "4097" } },
	{ "promote-rate-limit-mbps", { "0", "1048576", "256" }, { "1048577" } },
	{ "promote-hysteresis-pct", { "0", "1000", "25" }, { "1001" } },
	{ "promote-faults", { "1", "0" }, { "2" } },
};

/* bad whatever the knob: not a number, signed, junk, empty, overlong */
static const char *const bad_any[] = {
	"abc", "-1", "1x", "1.5", " 1", "\n", "0x", "99999999999999999999999",
};
#define NR_BAD_ANY ((int)(sizeof(bad_any) / sizeof(bad_any[0])))

/* the knob's value, or "(unreadable)" */
static int value(const char *name, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), HCA_DIR "%s", name);
	if (read_file(path, buf, size) <= 0) {
		snprintf(buf, size, "(unreadable)");
		return -1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static void check_knob(const struct knob *k)
{
	char before[64], after[64], name[128], longval[8192];
	int i, ret, bad_ok = 1, good_ok = 1;

	if (value(k->name, before, sizeof(before))) {
		ktap_diag("cannot read " HCA_DIR "%s", k->name);
		snprintf(name, sizeof(name), "%s_refuses_bad_values", k->name);
		ktap_result(0, name);
		snprintf(name, sizeof(name), "%s_takes_values_in_range", k->name);
		ktap_result(0, name);
		return;
	}
	memset(longval, '1', sizeof(longval) - 1);
	longval[sizeof(longval) - 1] = '\0';

	for (i = 0; i < NR_BAD_ANY + 3 + 1; i++) {
		const char *v = i < NR_BAD_ANY ? bad_any[i] :
				i < NR_BAD_ANY + 3 ? k->bad_range[i - NR_BAD_ANY] : longval;

		if (!v)
			continue;
		ret = hca_knob(k->name, v);
		value(k->name, after, sizeof(after));
		if (ret != -EINVAL || strcmp(before, after)) {
			ktap_diag("%s: writing \"%.20s\" gave %d (%s), value %s -> %s", k->name,
				  v, ret, strerror(-ret), before, after);
			bad_ok = 0;
		}
	}
	snprintf(name, sizeof(name), "%s_refuses_bad_values", k->name);
	ktap_result(bad_ok, name);

	for (i = 0; i < (int)(sizeof(k->good) / sizeof(k->good[0])) && k->good[i]; i++) {
		ret = hca_knob(k->name, k->good[i]);
		value(k->name, after, sizeof(after));
		if (ret || strcmp(after, k->good[i])) {
			ktap_diag("%s: writing %s gave %d, reads %s", k->name, k->good[i], ret, after);
			good_ok = 0;
		}
	}
	hca_knob(k->name, before);
	value(k->name, after, sizeof(after));
	snprintf(name, sizeof(name), "%s_takes_values_in_range", k->name);
	ktap_result(good_ok && !strcmp(before, after), name);
}

/* the counts bit of lru_gen/enabled, set and cleared, then put back */
static void check_switch(void)
{
	long before = lru_gen_caps(), on, off, after;
	int backend = !access(HCA_BACKEND "table", F_OK);

	if (before < 0) {
		ktap_diag("cannot read " LRU_GEN_ENABLED);
		ktap_result(0, "lru_gen_enabled_switches_counter_aging");
		ktap_result(0, "lru_gen_enabled_keeps_the_other_bits");
		return;
	}
	hca_counts(1);
	on = lru_gen_caps();
	hca_counts(0);
	off = lru_gen_caps();
	hca_counts(!!(before & LRU_GEN_ACCESS_COUNTS));
	after = lru_gen_caps();
	ktap_diag("lru_gen/enabled %#lx; counts on %#lx, off %#lx, back %#lx (%s backend)",
		  before, on, off, after, backend ? "with a" : "no");
	/* without a backend the bit is taken but reads as clear */
	ktap_result(on >= 0 && off >= 0 && !!(on & LRU_GEN_ACCESS_COUNTS) == backend &&
		    !(off & LRU_GEN_ACCESS_COUNTS) && after == before,
		    "lru_gen_enabled_switches_counter_aging");
	ktap_result((on & ~LRU_GEN_ACCESS_COUNTS) == (before & ~LRU_GEN_ACCESS_COUNTS) &&
		    (off & ~LRU_GEN_ACCESS_COUNTS) == (before & ~LRU_GEN_ACCESS_COUNTS),
		    "lru_gen_enabled_keeps_the_other_bits");
}

int main(void)
{
	unsigned int i;

	ktap_begin("hca_knobs", 2 * sizeof(knobs) / sizeof(knobs[0]) + 2);
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		check_knob(&knobs[i]);
	check_switch();
	return ktap_end();
}
