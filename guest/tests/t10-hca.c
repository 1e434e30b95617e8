// SPDX-License-Identifier: GPL-2.0
/*
 * The emulated counter engine seen from the guest, through the hca-emu
 * driver's debugfs files (/sys/kernel/debug/hca/backend/).
 *
 * hwage.hca= on the kernel command line says what the host gave us:
 *   on        the plugin counts: check the counts of pages accessed with
 *             known frequencies (1, 10, 100, 1000 loads per page), pages
 *             left alone, a decay, and a freshly allocated page;
 *   badmagic  an ivshmem device without a table: not ours, the driver
 *             leaves it with an informational line, no error;
 *   badsize   a table the driver must refuse with an error line, leaving
 *             the kernel without a backend (the other tests of the same
 *             boot check that the kernel keeps working);
 *   badtable  tables that lie about their geometry, and two good ones:
 *             each lie refused with its line, the first good table used;
 *   off       no device: nothing to check.
 *
 * The plugin counts exactly in the harness (sample=1), and a decay moves
 * count into prev_count, so the hotness (prev_count + count) of a page
 * holds every access of the current and the previous decay window: the
 * counts of the pattern must match its loads exactly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hca.h"
#include "ktap.h"
#include "pagemap.h"
#include "util.h"

#define NGROUPS 5
#define PER_GROUP 16
/* measurements raced by a second decay are taken again, this many times */
#define TRIES 5
/* loads per page of the hot group before a decay is watched */
#define DECAY_LOADS 100

/* loads per page in each group; group 0 is left alone */
static const int freq[NGROUPS] = { 0, 1, 10, 100, 1000 };

static long psz;
static int pagemap_fd;

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

/*
 * The pages of each group are loaded freq[] times. Two decays first, so
 * that the faults and any earlier try are forgotten; then the pattern,
 * and the reading within the same or the next decay window: the hotness
 * (prev_count + count) then holds every load. A second decay in between
 * would have dropped part of the pattern: that try is taken again, and if
 * every try is raced the checks are skipped, not passed.
 */
static void test_counts(volatile char *g[], unsigned long pfn[][PER_GROUP])
{
	unsigned long long lo[NGROUPS], hi[NGROUPS], e0 = 0, e1 = 0;
	long long sample = hca_table("sample");
	int i, j, try, clean = 0, order_ok = 1, exact_ok = 1, shift = hca_decay_shift();
	char why[128];

	for (try = 0; try < TRIES && !clean; try++) {
		hca_wait_epoch_after(hca_wait_epoch_after(hca_epoch()));
		e0 = hca_epoch();
		for (i = 1; i < NGROUPS; i++)
			access_pages(g[i], PER_GROUP, freq[i]);
		hca_spin(200000);
		for (i = 0; i < NGROUPS; i++) {
			lo[i] = ~0ULL;
			hi[i] = 0;
			for (j = 0; j < PER_GROUP; j++) {
				struct hca_count e;
				unsigned long long h;

				if (hca_read_count(pfn[i][j], &e))
					e.count = e.prev = ~0ULL / 4;
				h = e.count + e.prev;
				lo[i] = h < lo[i] ? h : lo[i];
				hi[i] = h > hi[i] ? h : hi[i];
			}
		}
		e1 = hca_epoch();
		clean = e1 - e0 <= 1;
	}
	for (i = 0; i < NGROUPS; i++)
		ktap_diag("%4d loads/page: hotness %llu..%llu", freq[i], lo[i], hi[i]);
	ktap_diag("epochs %llu..%llu, %d tries, 1 access counted in %lld", e0, e1, try, sample);
	if (!clean) {
		snprintf(why, sizeof(why), "a second decay raced each of %d tries", TRIES);
		ktap_skip("untouched_pages_read_zero", why);
		ktap_skip("counts_keep_the_access_order", why);
		ktap_skip("exact_counts_match_the_loads", why);
		return;
	}
	for (i = 1; i < NGROUPS; i++) {
		/*
		 * Exact: the loads of the pattern are the only accesses to
		 * these pages (mlocked, populated two decays before), and the
		 * plugin counts each of them (sample=1).
		 */
		exact_ok &= lo[i] == (unsigned long long)freq[i] &&
			    hi[i] == (unsigned long long)freq[i];
		order_ok &= lo[i] > hi[i - 1];
	}
	/*
	 * With decay_mode=shift, the periods before the pattern (the pages'
	 * population) stay in prev_count, halved at each decay: the counts
	 * are then neither zero nor exact, but keep their order.
	 */
	if (shift)
		ktap_skip("untouched_pages_read_zero", "decay_mode=shift keeps earlier periods");
	else
		ktap_result(hi[0] == 0, "untouched_pages_read_zero");
	ktap_result(order_ok, "counts_keep_the_access_order");
	if (shift)
		ktap_skip("exact_counts_match_the_loads", "decay_mode=shift keeps earlier periods");
	else if (sample == 1)
		ktap_result(exact_ok, "exact_counts_match_the_loads");
	else
		ktap_skip("exact_counts_match_the_loads", "the plugin samples (sample != 1)");
}

/*
 * A decay moves count into prev_count (decay_mode=shift: puts the mean of
 * prev_count and count there), zeroes count and ages the entry by
 * one: the hot group is loaded right after a decay, read within that
 * window, and read again within the next one. A try that a second decay
 * raced is taken again; if every try is raced the check is skipped. No
 * decay within a minute fails it.
 */
static void test_decay(volatile char *p, const unsigned long *pfn)
{
	struct hca_count ent[PER_GROUP] = { { 0 } }, after[PER_GROUP] = { { 0 } };
	unsigned long long ea = 0, eb = 0;
	int j, try, clean = 0, stuck = 0, ok = 1, shift = hca_decay_shift(), p10 = hca_format_p10();
	unsigned long long age_max = hca_age_max();
	char why[128];

	for (try = 0; try < TRIES && !clean && !stuck; try++) {
		ea = hca_wait_epoch_after(hca_epoch());
		access_pages(p, PER_GROUP, DECAY_LOADS);
		hca_spin(200000);
		for (j = 0; j < PER_GROUP; j++)
			ok &= !hca_read_count(pfn[j], &ent[j]);
		if (hca_epoch() != ea)
			continue;
		eb = hca_wait_epoch_after(ea);
		stuck = eb <= ea;
		for (j = 0; j < PER_GROUP; j++)
			ok &= !hca_read_count(pfn[j], &after[j]);
		clean = eb == ea + 1 && hca_epoch() == eb;
	}
	if (!clean && !stuck && ok) {
		snprintf(why, sizeof(why), "a second decay raced each of %d tries", TRIES);
		ktap_skip("decay_moves_count_to_prev_count_and_ages", why);
		return;
	}
	for (j = 0; j < PER_GROUP; j++) {
		unsigned long long prev = shift ? (ent[j].prev + ent[j].count) / 2 : ent[j].count;

		/* the POWER10 layout: prev_count in its coarser form */
		if (p10)
			prev = hca_p10_floor(prev, 8);
		ok &= ent[j].count > 0 && after[j].count == 0 && after[j].prev == prev &&
		      after[j].age == (ent[j].age < age_max ? ent[j].age + 1 : age_max);
	}
	ktap_diag("decay (%s%s) %llu -> %llu (%d tries): entry of pfn %lu was %llu/%llu/age %llu, "
		  "now %llu/%llu/age %llu", shift ? "shift" : "move", p10 ? ", POWER10 layout" : "",
		  ea, eb, try, pfn[0],
		  ent[0].count, ent[0].prev,
		  ent[0].age, after[0].count, after[0].prev, after[0].age);
	if (stuck)
		ktap_diag("no decay within a minute");
	ktap_result(clean && ok, "decay_moves_count_to_prev_count_and_ages");
}

/*
 * Make the hot group very hot, free it and allocate again: the page
 * allocator hands recently freed pages out first, and their counts must
 * start over. The kernel's own zeroing of the new page counts, up to one
 * access per byte (x86's rep stosb), so the history is made far larger
 * than that, and must be in the counts when the pages are freed: a try in
 * which it is not (two decays came between the loads and the reading) is
 * taken again with the new pages, and skipped if every try is.
 */
static void test_fresh(volatile char **p, unsigned long *pfn)
{
	unsigned long long e0, history = 0, limit = psz + 64;
	int i, j, try, recycled = 0, fresh_ok = 1, clean = 0;
	char why[128];

	for (try = 0; try < TRIES && !clean && *p; try++) {
		struct hca_count e;

		e0 = hca_epoch();
		access_pages(*p, PER_GROUP, 8 * psz);
		hca_spin(200000);
		history = hca_read_count(pfn[0], &e) ? 0 : e.count + e.prev;
		munmap((void *)*p, PER_GROUP * psz);
		*p = map_pages(PER_GROUP);
		hca_spin(200000);
		recycled = 0;
		fresh_ok = 1;
		for (j = 0; *p && j < PER_GROUP; j++) {
			unsigned long q = pagemap_pfn(pagemap_fd, *p + j * psz);

			for (i = 0; i < PER_GROUP; i++)
				if (q && q == pfn[i])
					break;
			if (i == PER_GROUP || hca_read_count(q, &e))
				continue;
			recycled++;
			fresh_ok &= e.count + e.prev <= limit;
			if (recycled == 1)
				ktap_diag("recycled pfn %lu: hotness %llu; before the free, pfn %lu "
					  "had %llu after %ld loads", q, e.count + e.prev, pfn[0],
					  history, 8 * psz);
		}
		clean = history > 2 * limit && hca_epoch() - e0 <= 1;
		for (j = 0; *p && j < PER_GROUP; j++)
			pfn[j] = pagemap_pfn(pagemap_fd, *p + j * psz);
	}
	snprintf(why, sizeof(why), "a second decay raced each of %d tries", TRIES);
	if (!*p)
		ktap_result(0, "fresh_page_starts_from_zero");	/* could not map pages */
	else if (!recycled)
		ktap_skip("fresh_page_starts_from_zero", "no freed page came back");
	else if (!clean)
		ktap_skip("fresh_page_starts_from_zero", why);
	else
		ktap_result(fresh_ok, "fresh_page_starts_from_zero");
}

static void test_engine(void)
{
	volatile char *g[NGROUPS];
	unsigned long pfn[NGROUPS][PER_GROUP];
	int i, j;

	for (i = 0; i < NGROUPS; i++) {
		g[i] = map_pages(PER_GROUP);
		if (!g[i]) {
			ktap_result(0, "pages_allocated");
			return;
		}
		for (j = 0; j < PER_GROUP; j++)
			pfn[i][j] = pagemap_pfn(pagemap_fd, g[i] + j * psz);
	}
	ktap_result(pfn[0][0] && pfn[NGROUPS - 1][PER_GROUP - 1], "pages_allocated");
	test_counts(g, pfn);
	test_decay(g[NGROUPS - 1], pfn[NGROUPS - 1]);
	test_fresh(&g[NGROUPS - 1], pfn[NGROUPS - 1]);
}

/* the kernel log, read once: "<level>[time] text" lines */
static const char *kernel_log(void)
{
	static char log[1 << 20];
	static int read;
	int n;

	if (!read) {
		n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
		log[n > 0 ? n : 0] = '\0';
		read = 1;
	}
	return log;
}

/* log_line_has(): whether line @l (up to @end) holds @what at @level (< 0: any) */
static int log_line_has(const char *l, const char *end, const char *what, int level)
{
	const char *hit = strstr(l, what);

	return hit && hit < end && (level < 0 || (l[0] == '<' && atoi(l + 1) == level));
}

/* the end of the log line at @l */
static const char *log_eol(const char *l)
{
	const char *end = strchr(l, '\n');

	return end ? end : l + strlen(l);
}

/*
 * log_lines(): the number of the kernel log's lines that hold @what at
 * console level @level (3 error, 6 info), or at any level if @level < 0;
 * shows the first as a diagnostic.
 */
static int log_lines(const char *what, int level)
{
	const char *l, *end;
	int n = 0;

	for (l = kernel_log(); *l; l = *end ? end + 1 : end) {
		end = log_eol(l);
		if (log_line_has(l, end, what, level) && !n++)
			ktap_diag("dmesg: %.*s", (int)(end - l), l);
	}
	return n;
}

static void test_refused(const char *why, int level)
{
	ktap_result(log_lines(why, level) > 0, "driver_refuses_the_table_with_a_log_line");
	ktap_result(access(HCA_BACKEND, F_OK) != 0, "no_counter_backend_registered");
}

/*
 * hwage.hca=badtable (harness/run-guest.sh): ten devices in this order, an
 * all-zero one, seven tables that lie (BADTABLES there), two good ones. Each
 * is refused with its own line, the kernel did not oops on any (this runs
 * after them), and the first good table is the backend.
 */
static void test_badtables(void)
{
	static const struct {
		const char *what, *name;
		int level, n;
	} expect[] = {
		{ "not an hca-emu device", "zeros_are_not_a_counter_device_no_error", 6, 1 },
		{ "does not fit the", "tables_beyond_misaligned_or_overflowing_refused", 3, 4 },
		{ "table version", "wrong_version_or_header_size_refused", 3, 2 },
		{ "table flags", "unknown_flags_refused", 3, 1 },
		{ "another counter table is in use", "second_good_table_refused", 3, 1 },
		{ "counter table: ", "first_good_table_registered_once", 6, 1 },
	};
	struct hca_count last;
	const char *l, *end;
	long long nr_pages;
	unsigned int i;
	int n;

	for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		n = log_lines(expect[i].what, expect[i].level);
		if (n != expect[i].n)
			ktap_diag("%d lines with \"%s\" at level %d, expected %d",
				  n, expect[i].what, expect[i].level, expect[i].n);
		ktap_result(n == expect[i].n, expect[i].name);
	}
	/*
	 * not one error line from the driver that the list above does not
	 * explain (the driver core's "probe ... failed" follows each refusal)
	 */
	n = 0;
	for (l = kernel_log(); *l; l = *end ? end + 1 : end) {
		end = log_eol(l);
		if (!log_line_has(l, end, "hca-emu", 3) ||
		    log_line_has(l, end, "probe with driver hca-emu failed", 3))
			continue;
		for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
			if (log_line_has(l, end, expect[i].what, expect[i].level))
				break;
		if (i == sizeof(expect) / sizeof(expect[0]) && ++n)
			ktap_diag("unexpected: %.*s", (int)(end - l), l);
	}
	ktap_result(n == 0, "no_other_driver_errors");
	/* the backend answers from the first good table: its last entry reads */
	nr_pages = hca_table("nr_pages");
	ktap_diag("backend table: %lld pages", nr_pages);
	ktap_result(nr_pages > 0 && !hca_read_count(nr_pages - 1, &last),
		    "backend_reads_the_first_good_table");
}

int main(void)
{
	const char *mode = kparam("hca", "off");

	psz = sysconf(_SC_PAGESIZE);
	if (!strcmp(mode, "on")) {
		ktap_begin("hca", 7);
		pagemap_fd = pagemap_open();
		ktap_diag("%s", access(HCA_BACKEND "table", R_OK) ? "no " HCA_BACKEND "table" :
			  "backend registered");
		if (!ktap_result(access(HCA_BACKEND "table", R_OK) == 0 &&
				 hca_epoch() != (unsigned long long)-1, "backend_registered"))
			return ktap_end();
		test_engine();
	} else if (!strcmp(mode, "badmagic")) {
		/* another ivshmem device, not an error */
		ktap_begin("hca", 2);
		test_refused("no counter table", 6);
	} else if (!strcmp(mode, "badsize")) {
		ktap_begin("hca", 2);
		test_refused("does not cover the memory", 3);
	} else if (!strcmp(mode, "badtable")) {
		ktap_begin("hca", 8);
		test_badtables();
	} else {
		ktap_begin("hca", 1);
		ktap_skip("counter_engine", "no counter device (hwage.hca=off)");
	}
	return ktap_end();
}
