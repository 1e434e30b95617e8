// SPDX-License-Identifier: GPL-2.0
/*
 * The emulated counter engine seen from the guest, through the hca-emu
 * driver's debugfs files (/sys/kernel/debug/hca/backend/).
 *
 * hwage.hca= on the kernel command line says what the host gave us:
 *   on        the plugin counts: check the counts of pages accessed with
 *             known frequencies (1, 10, 100, 1000 loads per page), pages
 *             left alone, a decay, and a freshly allocated page;
 *   badmagic, badsize
 *             a table the driver must refuse with a log line, leaving the
 *             kernel without a backend (the other tests of the same boot
 *             check that the kernel keeps working);
 *   off       no device: nothing to check.
 *
 * The plugin counts exactly in the harness (sample=1), and a decay moves
 * count into prev_count, so the hotness (prev_count + count) of a page
 * holds every access of the current and the previous decay window.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "util.h"

#define DIR "/sys/kernel/debug/hca/backend"
#define NGROUPS 5
#define PER_GROUP 16

/* loads per page in each group; group 0 is left alone */
static const int freq[NGROUPS] = { 0, 1, 10, 100, 1000 };

struct entry {
	unsigned long long count, prev, age;
};

static long psz;
static int pagemap_fd;

static unsigned long long epoch(void)
{
	return stat_value(DIR "/table", "epoch");
}

static int read_entry(unsigned long pfn, struct entry *e)
{
	char buf[128];
	unsigned long got;

	snprintf(buf, sizeof(buf), "%lu", pfn);
	if (write_file(DIR "/entry", buf) || read_file(DIR "/entry", buf, sizeof(buf)) <= 0)
		return -1;
	return sscanf(buf, "%lu %llu %llu %llu", &got, &e->count, &e->prev, &e->age) == 4 &&
	       got == pfn ? 0 : -1;
}

static unsigned long pfn_of(volatile char *p)
{
	uint64_t v = 0;

	if (pread(pagemap_fd, &v, 8, (uintptr_t)p / psz * 8) != 8 || !(v >> 63))
		return 0;
	return v & ((1ULL << 55) - 1);
}

/* burn guest instructions; the plugin flushes pending counts as we go */
static void spin(long n)
{
	volatile long x = 0;

	while (n--)
		x++;
}

/* wait for the epoch to move past @e, up to about a minute */
static unsigned long long wait_epoch_after(unsigned long long e)
{
	time_t t0 = time(NULL);
	unsigned long long now;

	while ((now = epoch()) <= e && time(NULL) - t0 < 60)
		spin(1000000);
	return now;
}

static volatile char *map_pages(int n)
{
	volatile char *p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mlock((void *)p, n * psz);
	return p;
}

static void access_pages(volatile char *p, int n, int times)
{
	int i, t;

	for (t = 0; t < times; t++)
		for (i = 0; i < n; i++)
			(void)p[i * psz];
}

static void test_counts(void)
{
	volatile char *g[NGROUPS];
	unsigned long pfn[NGROUPS][PER_GROUP];
	unsigned long long lo[NGROUPS], hi[NGROUPS], e0, e1, e2;
	struct entry ent[PER_GROUP], after;
	int i, j, try, order_ok, exact_ok, zero_ok, decay_ok = 1, recycled = 0, fresh_ok = 1;

	for (i = 0; i < NGROUPS; i++) {
		g[i] = map_pages(PER_GROUP);
		if (!g[i]) {
			ktap_result(0, "pages_allocated");
			return;
		}
		for (j = 0; j < PER_GROUP; j++)
			pfn[i][j] = pfn_of(g[i] + j * psz);
	}
	ktap_result(pfn[0][0] && pfn[NGROUPS - 1][PER_GROUP - 1], "pages_allocated");

	/*
	 * Let two decays pass so the faults are forgotten, run the pattern,
	 * and read within the next window: retry if a second decay came in
	 * between, which would have moved part of the pattern out.
	 */
	for (try = 0; try < 3; try++) {
		wait_epoch_after(wait_epoch_after(epoch()));
		e0 = epoch();
		for (i = 1; i < NGROUPS; i++)
			access_pages(g[i], PER_GROUP, freq[i]);
		spin(200000);
		for (i = 0; i < NGROUPS; i++) {
			lo[i] = ~0ULL;
			hi[i] = 0;
			for (j = 0; j < PER_GROUP; j++) {
				struct entry e;
				unsigned long long h;

				if (read_entry(pfn[i][j], &e))
					e.count = e.prev = ~0ULL / 4;
				h = e.count + e.prev;
				lo[i] = h < lo[i] ? h : lo[i];
				hi[i] = h > hi[i] ? h : hi[i];
				if (i == NGROUPS - 1)
					ent[j] = e;
			}
		}
		e1 = epoch();
		if (e1 - e0 <= 1)
			break;
	}
	for (i = 0; i < NGROUPS; i++)
		ktap_diag("%4d loads/page: hotness %llu..%llu", freq[i], lo[i], hi[i]);
	ktap_diag("epochs %llu..%llu, %d retries", e0, e1, try);

	zero_ok = hi[0] == 0;
	exact_ok = 1;
	order_ok = 1;
	for (i = 1; i < NGROUPS; i++) {
		/* exact counting: every load is there, plus at most a few strays */
		exact_ok &= lo[i] >= (unsigned long long)freq[i] &&
			    hi[i] <= (unsigned long long)freq[i] + freq[i] / 10 + 4;
		order_ok &= lo[i] > hi[i - 1];
	}
	ktap_result(zero_ok, "untouched_pages_read_zero");
	ktap_result(order_ok, "counts_keep_the_access_order");
	ktap_result(exact_ok, "exact_counts_match_the_loads");

	/* one more decay: count moves into prev_count, age goes up by one */
	e2 = wait_epoch_after(e1);
	for (j = 0; j < PER_GROUP; j++) {
		if (read_entry(pfn[NGROUPS - 1][j], &after)) {
			decay_ok = 0;
			continue;
		}
		if (e2 == e1 + 1 && epoch() == e2)
			decay_ok &= after.count == 0 && after.prev == ent[j].count &&
				    after.age == (ent[j].age < 255 ? ent[j].age + 1 : 255);
		else
			decay_ok &= after.age >= ent[j].age;
	}
	ktap_diag("decay %llu -> %llu: entry of pfn %lu was %llu/%llu/age %llu, now %llu/%llu/age %llu",
		  e1, e2, pfn[NGROUPS - 1][0], ent[0].count, ent[0].prev, ent[0].age,
		  after.count, after.prev, after.age);
	ktap_result(e2 > e1 && decay_ok, "decay_moves_count_to_prev_count_and_ages");

	/*
	 * Make the hot group very hot, free it and allocate again: the page
	 * allocator hands recently freed pages out first, and their counts
	 * must start over. The kernel's own zeroing of the new page counts,
	 * up to one access per byte (x86's rep stosb), so the history is
	 * made far larger than that.
	 */
	access_pages(g[NGROUPS - 1], PER_GROUP, 8 * psz);
	munmap((void *)g[NGROUPS - 1], PER_GROUP * psz);
	g[NGROUPS - 1] = map_pages(PER_GROUP);
	spin(200000);
	for (j = 0; g[NGROUPS - 1] && j < PER_GROUP; j++) {
		unsigned long p = pfn_of(g[NGROUPS - 1] + j * psz);
		struct entry e;

		for (i = 0; i < PER_GROUP; i++)
			if (p && p == pfn[NGROUPS - 1][i])
				break;
		if (i == PER_GROUP || read_entry(p, &e))
			continue;
		recycled++;
		fresh_ok &= e.count + e.prev <= (unsigned long long)psz + 64;
		if (recycled == 1)
			ktap_diag("recycled pfn %lu: hotness %llu after %ld loads before the free",
				  p, e.count + e.prev, 8 * psz);
	}
	if (!recycled)
		ktap_skip("fresh_page_starts_from_zero", "no freed page came back");
	else
		ktap_result(fresh_ok, "fresh_page_starts_from_zero");
}

static void test_refused(const char *why)
{
	static char log[1 << 18];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
	char *line;

	log[n > 0 ? n : 0] = '\0';
	line = strstr(log, why);
	if (line) {
		char *end = strchr(line, '\n');

		if (end)
			*end = '\0';
		ktap_diag("dmesg: ...%s", line);
	}
	ktap_result(line != NULL, "driver_refuses_the_table_with_a_log_line");
	ktap_result(access(DIR, F_OK) != 0, "no_counter_backend_registered");
}

int main(void)
{
	char cmdline[4096], mode[32] = "off";
	const char *p;

	psz = sysconf(_SC_PAGESIZE);
	read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	p = strstr(cmdline, "hwage.hca=");
	if (p)
		sscanf(p + strlen("hwage.hca="), "%31s", mode);

	if (!strcmp(mode, "on")) {
		ktap_begin("hca", 7);
		pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
		ktap_diag("%s", access(DIR "/table", R_OK) ? "no " DIR "/table" : "backend registered");
		if (!ktap_result(access(DIR "/table", R_OK) == 0 && epoch() != (unsigned long long)-1,
				 "backend_registered"))
			return ktap_end();
		test_counts();
	} else if (!strcmp(mode, "badmagic")) {
		ktap_begin("hca", 2);
		test_refused("no counter table");
	} else if (!strcmp(mode, "badsize")) {
		ktap_begin("hca", 2);
		test_refused("does not cover the memory");
	} else {
		ktap_begin("hca", 1);
		ktap_skip("counter_engine", "no counter device (hwage.hca=off)");
	}
	return ktap_end();
}
