// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs files the benchmark reads:
 *
 *   /sys/kernel/debug/hca/pfn     write a pfn, read "pfn P hotness H gen_age A"
 *   /sys/kernel/debug/lru_gen_full  "aging ns N calls N look_around ns N calls N"
 *
 * pfn refuses garbage and pfns without an online page with EINVAL and keeps
 * the page selected before; a page of our own anonymous buffer, found
 * through /proc/self/pagemap, is on a multi-gen LRU list (gen_age >= 0) and,
 * when the counter engine is on, has at least the count of the stores just
 * made to it (hotness >= 100 when exact, > 0 when sampled; a lookup that
 * two decays raced is taken again, and skipped if all are); pwrite() then
 * pread() at offset 0 on one open file always shows the pfn just written,
 * as the benchmark uses it. lru_gen_full shows the time line for every
 * node, and making a generation through lru_gen adds an aging call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hca.h"
#include "ktap.h"
#include "lru_gen.h"
#include "pagemap.h"
#include "util.h"

#define NR_PAGES 256
#define LOOKUPS 2000
/* stores to our page right before its hotness is read */
#define TOUCHES 100
/* lookups raced by a second decay are taken again, this many times */
#define TRIES 5

/* the pfn file as cat sees it */
static int show(struct hca_pfn *l)
{
	char buf[256];

	if (read_file(HCA_PFN, buf, sizeof(buf)) <= 0)
		return -1;
	return hca_pfn_parse(buf, l);
}

static void refuses_bad_pfns(unsigned long long own)
{
	static const char *const bad[] = {
		"abc", "-1", "1x", "1.5", " 1", "\n", "0x", "12 34",
		"99999999999999999999999", "18446744073709551615",
		"0x10000000000", "0xffffffffffffffff",
	};
	char own_s[32], longval[4096];
	struct hca_pfn l;
	unsigned int i;
	int ret, ok;

	snprintf(own_s, sizeof(own_s), "%llu", own);
	ok = !write_file(HCA_PFN, own_s) && !show(&l) && l.pfn == own;
	if (!ok)
		ktap_diag("selecting our own pfn %llu failed", own);
	memset(longval, '1', sizeof(longval) - 1);
	longval[sizeof(longval) - 1] = '\0';

	for (i = 0; ok && i <= sizeof(bad) / sizeof(bad[0]); i++) {
		const char *v = i < sizeof(bad) / sizeof(bad[0]) ? bad[i] : longval;

		ret = write_file(HCA_PFN, v);
		if (ret != -EINVAL || show(&l) || l.pfn != own) {
			ktap_diag("writing \"%.24s\" gave %d (%s), selection %llu -> %llu", v, ret,
				  strerror(-ret), own, l.pfn);
			ok = 0;
		}
	}
	ktap_result(ok, "pfn_refuses_bad_values");
}

static void aging_time(void)
{
	struct lru_gen_scan all, before, after, gens;
	int id, nid, i, ret = -1, plain;
	static char buf[1 << 20];
	char cmd[128] = "";

	/* the first memcg and node of lru_gen, the root memcg's */
	if (lru_gen_scan(LRU_GEN, NULL, -1, -1, &all) || all.first_memcg < 0) {
		ktap_diag("no memcg and node in " LRU_GEN);
		ktap_result(0, "lru_gen_full_shows_aging_time");
		ktap_result(0, "aging_time_accounted");
		return;
	}
	id = all.first_memcg;
	nid = all.first_nid;

	lru_gen_scan(LRU_GEN_FULL, NULL, -1, -1, &all);
	lru_gen_scan(LRU_GEN_FULL, NULL, id, nid, &before);
	plain = read_file(LRU_GEN, buf, sizeof(buf)) > 0 && !strstr(buf, "aging ns");
	ktap_diag("lru_gen_full: %d nodes shown, %d time lines; memcg %d node %d: aging ns %lld "
		  "calls %lld; lru_gen %s", all.nodes, all.aging_lines, id, nid, before.aging[0],
		  before.aging[1], plain ? "without them" : "has them too");
	ktap_result(all.nodes > 0 && all.aging_lines == all.nodes && before.aging_lines == 1 &&
		    before.aging[1] >= 0 && plain, "lru_gen_full_shows_aging_time");

	/* make a new generation; again if the aging made one meanwhile */
	for (i = 0; i < 5; i++) {
		lru_gen_scan(LRU_GEN, NULL, id, nid, &gens);
		snprintf(cmd, sizeof(cmd), "+ %d %d %lld 1 1", id, nid, gens.max_seq);
		ret = write_file(LRU_GEN, cmd);
		lru_gen_scan(LRU_GEN_FULL, NULL, id, nid, &after);
		if (ret || after.aging[1] > before.aging[1])
			break;
	}
	ktap_diag("after \"%s\" (%d): aging ns %lld calls %lld", cmd, ret, after.aging[0],
		  after.aging[1]);
	ktap_result(!ret && after.aging[1] > before.aging[1] && after.aging[0] > before.aging[0],
		    "aging_time_accounted");
}

/*
 * Look our page up right after TOUCHES stores to it, in the same or the
 * next decay window (a decay moves the count into prev_count, which the
 * hotness includes; a second one would drop it). 0, -errno, or 1 when a
 * second decay raced every try (the last lookup is in l all the same).
 */
static int touched_hotness(int fd, volatile char *p, unsigned long long pfn, struct hca_pfn *l)
{
	long long e0, e1;
	int i, try, ret = 1;
	char s[32];

	snprintf(s, sizeof(s), "%llu", pfn);
	for (try = 0; try < TRIES && ret == 1; try++) {
		e0 = hca_table("epoch");
		for (i = 0; i < TOUCHES; i++)
			p[0] = i;
		hca_spin(200000);
		ret = hca_pfn_lookup(fd, s, l);
		e1 = hca_table("epoch");
		if (!ret && e1 - e0 > 1)
			ret = 1;
	}
	return ret;
}

int main(void)
{
	char s[32];
	struct hca_pfn l = { 0 };
	unsigned long long pfn[2];
	struct timespec t0, t1;
	long psz = sysconf(_SC_PAGESIZE), sample;
	int counts = hca_on(), fd, pm, i, ok, ret;
	char *buf;

	ktap_begin("hca_debugfs", 6);

	/* touch our pages, then flush the per-CPU LRU caches onto the lists */
	buf = mmap(NULL, NR_PAGES * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		ktap_diag("mmap: %s", strerror(errno));
		return ktap_end();
	}
	for (i = 0; i < NR_PAGES * psz; i += psz)
		buf[i] = 1;
	write_file("/proc/sys/vm/drop_caches", "1");
	pm = pagemap_open();
	pfn[0] = pagemap_pfn(pm, buf);
	pfn[1] = pagemap_pfn(pm, buf + (NR_PAGES / 2) * psz);
	ktap_diag("own pages: pfn %llu and %llu", pfn[0], pfn[1]);
	if (!pfn[0] || !pfn[1]) {
		ktap_diag("no pfn in /proc/self/pagemap");
		return ktap_end();
	}

	refuses_bad_pfns(pfn[0]);

	/* as the benchmark does it: one open file, pwrite then pread */
	fd = open(HCA_PFN, O_RDWR);
	ok = fd >= 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; ok && i < LOOKUPS; i++) {
		/* decimal and hexadecimal alike */
		snprintf(s, sizeof(s), i & 2 ? "%llu" : "0x%llx", pfn[i & 1]);
		ok = !hca_pfn_lookup(fd, s, &l) && l.pfn == pfn[i & 1];
		if (!ok)
			ktap_diag("lookup %d of %s: pfn %llu", i, s, l.pfn);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ok)
		ktap_diag("%d lookups, %.1f us each", LOOKUPS,
			  ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / LOOKUPS / 1e3);
	ktap_result(ok, "pfn_pwrite_pread_on_one_file");

	/*
	 * Our page is on a multi-gen LRU list; with the counter engine it
	 * has a count: the stores just made, every one of them when the
	 * plugin counts exactly (a decay in between moves them into
	 * prev_count, which the hotness includes).
	 */
	ret = ok ? touched_hotness(fd, buf, pfn[0], &l) : -EBADF;
	ok = ok && ret >= 0 && l.pfn == pfn[0];
	sample = counts ? hca_table("sample") : -1;
	ktap_diag("own page after %d stores: pfn %llu hotness %lld gen_age %lld (1 access "
		  "counted in %ld)", TOUCHES, l.pfn, l.hotness, l.gen_age, sample);
	ktap_result(ok && l.gen_age >= 0, "own_page_gen_age");
	if (!counts)
		ktap_skip("own_page_hotness", HCA_OFF_WHY);
	else if (ok && ret == 1)
		ktap_skip("own_page_hotness", "a second decay raced each try");
	else
		ktap_result(ok && (sample == 1 ? l.hotness >= TOUCHES : l.hotness > 0),
			    "own_page_hotness");
	if (fd >= 0)
		close(fd);

	aging_time();

	munmap(buf, NR_PAGES * psz);
	return ktap_end();
}
