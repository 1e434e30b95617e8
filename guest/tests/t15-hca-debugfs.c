// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs files the benchmark reads:
 *
 *   /sys/kernel/debug/hca/pfn     write a pfn, read "pfn P hotness H gen_age A"
 *   /sys/kernel/debug/lru_gen_full  "aging ns N calls N look_around ns N calls N"
 *
 * pfn refuses garbage and pfns without an online page with EINVAL and keeps
 * the page selected before; a page of our own anonymous buffer, found
 * through /proc/self/pagemap, is on a multi-gen LRU list (gen_age >= 0) and
 * has a count (hotness >= 0) when the counter engine is on; pwrite() then
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

#include "ktap.h"
#include "util.h"

#define PFN "/sys/kernel/debug/hca/pfn"
#define LRU_GEN "/sys/kernel/debug/lru_gen"
#define LRU_GEN_FULL "/sys/kernel/debug/lru_gen_full"
#define NR_PAGES 256
#define LOOKUPS 2000

struct pfn_line {
	unsigned long long pfn;
	long long hotness;
	long long gen_age;
};

/* the pfn of the page at addr, 0 if not present */
static unsigned long long pagemap_pfn(const void *addr)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t ent = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &ent, sizeof(ent), (uintptr_t)addr / psz * sizeof(ent)) != sizeof(ent))
		ent = 0;
	close(fd);
	/* bit 63: present; bits 0-54: the pfn */
	return ent >> 63 ? ent & ((1ULL << 55) - 1) : 0;
}

/* one exact "pfn P hotness H gen_age A\n" line, and nothing after it */
static int parse(const char *buf, struct pfn_line *l)
{
	int n = -1;

	if (sscanf(buf, "pfn %llu hotness %lld gen_age %lld\n%n", &l->pfn, &l->hotness,
		   &l->gen_age, &n) != 3 || n < 0 || buf[n] || buf[n - 1] != '\n')
		return -1;
	return 0;
}

/* select pfn with pwrite() and read it back with pread(), both at offset 0 */
static int lookup(int fd, const char *pfn, struct pfn_line *l)
{
	char buf[256];
	ssize_t n;

	if (pwrite(fd, pfn, strlen(pfn), 0) != (ssize_t)strlen(pfn))
		return -errno;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	return parse(buf, l) ? -EBADMSG : 0;
}

/* the pfn file as cat sees it */
static int show(struct pfn_line *l)
{
	char buf[256];

	if (read_file(PFN, buf, sizeof(buf)) <= 0)
		return -1;
	return parse(buf, l);
}

static void refuses_bad_pfns(unsigned long long own)
{
	static const char *const bad[] = {
		"abc", "-1", "1x", "1.5", " 1", "\n", "0x", "12 34",
		"99999999999999999999999", "18446744073709551615",
		"0x10000000000", "0xffffffffffffffff",
	};
	char own_s[32], longval[4096];
	struct pfn_line l;
	unsigned int i;
	int ret, ok;

	snprintf(own_s, sizeof(own_s), "%llu", own);
	ok = !write_file(PFN, own_s) && !show(&l) && l.pfn == own;
	if (!ok)
		ktap_diag("selecting our own pfn %llu failed", own);
	memset(longval, '1', sizeof(longval) - 1);
	longval[sizeof(longval) - 1] = '\0';

	for (i = 0; ok && i <= sizeof(bad) / sizeof(bad[0]); i++) {
		const char *v = i < sizeof(bad) / sizeof(bad[0]) ? bad[i] : longval;

		ret = write_file(PFN, v);
		if (ret != -EINVAL || show(&l) || l.pfn != own) {
			ktap_diag("writing \"%.24s\" gave %d (%s), selection %llu -> %llu", v, ret,
				  strerror(-ret), own, l.pfn);
			ok = 0;
		}
	}
	ktap_result(ok, "pfn_refuses_bad_values");
}

/* time ns and calls of the aging of one node of one memcg, from lru_gen_full */
struct aging_time {
	long long ns, calls;
};

/*
 * Parse lru_gen_full: the number of nodes shown, and how many have the time
 * line; also the aging time of node nid of memcg id.
 */
static int read_full(int id, int nid, int *nodes, int *lines, struct aging_time *t)
{
	static char buf[1 << 20];
	char *line, *save = NULL;
	int cur_id = -1, cur_nid = -1;
	long long ns, calls, lns, lcalls;

	*nodes = *lines = 0;
	t->ns = t->calls = -1;
	if (read_file(LRU_GEN_FULL, buf, sizeof(buf)) <= 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "memcg %d", &cur_id) == 1)
			continue;
		if (sscanf(line, " node %d", &cur_nid) == 1) {
			(*nodes)++;
			continue;
		}
		if (sscanf(line, " aging ns %lld calls %lld look_around ns %lld calls %lld",
			   &ns, &calls, &lns, &lcalls) != 4)
			continue;
		(*lines)++;
		if (cur_id == id && cur_nid == nid) {
			t->ns = ns;
			t->calls = calls;
		}
	}
	return 0;
}

/* max_seq of node nid of memcg id, from lru_gen; -1 if not found */
static long long max_seq(int id, int nid)
{
	static char buf[1 << 20];
	char *line, *save = NULL;
	int cur_id = -1, cur_nid = -1;
	long long seq, last = -1;

	if (read_file(LRU_GEN, buf, sizeof(buf)) <= 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "memcg %d", &cur_id) == 1 || sscanf(line, " node %d", &cur_nid) == 1)
			continue;
		if (cur_id == id && cur_nid == nid && sscanf(line, " %lld", &seq) == 1)
			last = seq;
	}
	return last;
}

static void aging_time(void)
{
	struct aging_time before, after;
	int nodes, lines, id = -1, nid = -1, i, ret = -1, plain;
	static char buf[1 << 20];
	char cmd[128];

	/* the first memcg and node of lru_gen, the root memcg's */
	if (read_file(LRU_GEN, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "memcg %d %*s node %d", &id, &nid) != 2) {
		ktap_diag("no memcg and node in " LRU_GEN);
		ktap_result(0, "lru_gen_full_shows_aging_time");
		ktap_result(0, "aging_time_accounted");
		return;
	}

	read_full(id, nid, &nodes, &lines, &before);
	plain = read_file(LRU_GEN, buf, sizeof(buf)) > 0 && !strstr(buf, "aging ns");
	ktap_diag("lru_gen_full: %d nodes shown, %d time lines; memcg %d node %d: aging ns %lld calls %lld; lru_gen %s",
		  nodes, lines, id, nid, before.ns, before.calls,
		  plain ? "without them" : "has them too");
	ktap_result(nodes > 0 && lines == nodes && before.calls >= 0 && plain,
		    "lru_gen_full_shows_aging_time");

	/* make a new generation; again if the aging made one meanwhile */
	for (i = 0; i < 5; i++) {
		snprintf(cmd, sizeof(cmd), "+ %d %d %lld 1 1", id, nid, max_seq(id, nid));
		ret = write_file(LRU_GEN, cmd);
		read_full(id, nid, &nodes, &lines, &after);
		if (ret || after.calls > before.calls)
			break;
	}
	ktap_diag("after \"%s\" (%d): aging ns %lld calls %lld", cmd, ret, after.ns, after.calls);
	ktap_result(!ret && after.calls > before.calls && after.ns > before.ns,
		    "aging_time_accounted");
}

int main(void)
{
	char cmdline[4096], s[32];
	struct pfn_line l = { 0 };
	unsigned long long pfn[2];
	struct timespec t0, t1;
	long psz = sysconf(_SC_PAGESIZE);
	int counts, fd, i, ok;
	char *buf;

	read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	counts = strstr(cmdline, "hwage.hca=on") != NULL;
	ktap_begin("hca_debugfs", 6);

	/* touch our pages, then flush the per-CPU LRU caches onto the lists */
	buf = mmap(NULL, NR_PAGES * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		ktap_diag("mmap: %s", strerror(errno));
		return 1;
	}
	for (i = 0; i < NR_PAGES * psz; i += psz)
		buf[i] = 1;
	write_file("/proc/sys/vm/drop_caches", "1");
	pfn[0] = pagemap_pfn(buf);
	pfn[1] = pagemap_pfn(buf + (NR_PAGES / 2) * psz);
	ktap_diag("own pages: pfn %llu and %llu", pfn[0], pfn[1]);
	if (!pfn[0] || !pfn[1]) {
		ktap_diag("no pfn in /proc/self/pagemap");
		return 1;
	}

	refuses_bad_pfns(pfn[0]);

	/* as the benchmark does it: one open file, pwrite then pread */
	fd = open(PFN, O_RDWR);
	ok = fd >= 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; ok && i < LOOKUPS; i++) {
		/* decimal and hexadecimal alike */
		snprintf(s, sizeof(s), i & 2 ? "%llu" : "0x%llx", pfn[i & 1]);
		ok = !lookup(fd, s, &l) && l.pfn == pfn[i & 1];
		if (!ok)
			ktap_diag("lookup %d of %s: pfn %llu", i, s, l.pfn);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ok)
		ktap_diag("%d lookups, %.1f us each", LOOKUPS,
			  ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / LOOKUPS / 1e3);
	ktap_result(ok, "pfn_pwrite_pread_on_one_file");

	snprintf(s, sizeof(s), "%llu", pfn[0]);
	ok = ok && !lookup(fd, s, &l) && l.pfn == pfn[0];
	ktap_diag("own page: pfn %llu hotness %lld gen_age %lld", l.pfn, l.hotness, l.gen_age);
	ktap_result(ok && l.gen_age >= 0, "own_page_gen_age");
	if (counts)
		ktap_result(ok && l.hotness >= 0, "own_page_hotness");
	else
		ktap_skip("own_page_hotness", "no counter engine (hwage.hca is not on)");
	if (fd >= 0)
		close(fd);

	aging_time();

	munmap(buf, NR_PAGES * psz);
	return ktap_end();
}
