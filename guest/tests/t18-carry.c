// SPDX-License-Identifier: GPL-2.0
/*
 * The counts of a page the kernel moves (patch 6): khugepaged's
 * collapse, run synchronously by MADV_COLLAPSE, copies every base page of
 * a range into a new huge page, as migration copies a folio. The new pages
 * must take over the old pages' counts and ages, less the accesses of the
 * copy itself, instead of starting again as freshly allocated pages.
 *
 * A PMD-sized range of base pages is written once and left for two decays
 * (mature counts, the writes forgotten); then its first half is loaded
 * HOT_LOADS times per page and the range collapsed. Checked against the
 * entries read just before the collapse:
 *   carry_keeps_the_age         every new page is at least as old as its
 *                               old page (a fresh page would be at 0 or 1);
 *   carry_keeps_hot_pages_hot   the hot half keeps at least half of its
 *                               hotness (a decay may come in between);
 *   carry_takes_off_the_copy    the cold half's median hotness grows by
 *                               less than a quarter of what the copy
 *                               counted on each new page (the copy reads
 *                               every line of the old page).
 * Skipped without counts or if the collapse does not happen.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hca.h"
#include "ktap.h"
#include "pagemap.h"
#include "util.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HOT_LOADS 200
#define TRIES 3

static long psz;
static int pagemap_fd;

static const char *const names[] = {
	"carry_keeps_the_age",
	"carry_keeps_hot_pages_hot",
	"carry_takes_off_the_copy",
};
#define NR_CHECKS (int)(sizeof(names) / sizeof(names[0]))

static void skip_all(const char *why)
{
	int i;

	for (i = 0; i < NR_CHECKS; i++)
		ktap_skip(names[i], why);
}

/* the number in a one-number file, -1 if none */
static long read_long(const char *path)
{
	char buf[64];

	return read_file(path, buf, sizeof(buf)) > 0 ? atol(buf) : -1;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static unsigned long long median(unsigned long long *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_ull);
	return v[n / 2];
}

/* the pfns and entries of @n pages from @p; -1 if one is not there */
static int snapshot(volatile char *p, int n, unsigned long *pfn, struct hca_count *e)
{
	int i;

	for (i = 0; i < n; i++) {
		pfn[i] = pagemap_pfn(pagemap_fd, p + i * psz);
		if (!pfn[i] || hca_read_count(pfn[i], &e[i]))
			return -1;
	}
	return 0;
}

/*
 * One try: a fresh range, its hot half loaded, collapsed. 1 if checked,
 * 0 if a second decay raced it (try again), -1 if it cannot be done
 * (@why says why).
 */
static int try_collapse(long hpage, char *why, size_t whylen)
{
	int n = hpage / psz, half = n / 2, i, t, ret = -1;
	unsigned long *pfn0 = calloc(n, sizeof(*pfn0)), *pfn1 = calloc(n, sizeof(*pfn1));
	struct hca_count *e0 = calloc(n, sizeof(*e0)), *e1 = calloc(n, sizeof(*e1));
	unsigned long long *hot = calloc(half, sizeof(*hot)), *cold0 = calloc(n - half, sizeof(*cold0)),
			   *cold1 = calloc(n - half, sizeof(*cold1)), ep0, ep1, copy_med;
	int age_ok = 1, hot_ok = 0, moved = 0;
	volatile char *p;
	char *map;

	if (!pfn0 || !pfn1 || !e0 || !e1 || !hot || !cold0 || !cold1) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	map = mmap(NULL, 2 * hpage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		snprintf(why, whylen, "mmap: %s", strerror(errno));
		goto out;
	}
	p = (volatile char *)(((uintptr_t)map + hpage - 1) & ~(uintptr_t)(hpage - 1));
	/* base pages, until the collapse */
	madvise((void *)p, hpage, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * psz] = 1;

	/* two decays: the counts mature and the writes are forgotten */
	hca_wait_epoch_after(hca_wait_epoch_after(hca_epoch()));
	for (t = 0; t < HOT_LOADS; t++)
		for (i = 0; i < half; i++)
			(void)p[i * psz];
	hca_spin(200000);
	ep0 = hca_epoch();
	if (snapshot(p, n, pfn0, e0)) {
		snprintf(why, whylen, "cannot read the pages' entries");
		goto unmap;
	}

	if (madvise((void *)p, hpage, MADV_HUGEPAGE) ||
	    madvise((void *)p, hpage, MADV_COLLAPSE)) {
		snprintf(why, whylen, "MADV_COLLAPSE: %s", strerror(errno));
		goto unmap;
	}
	hca_spin(200000);
	if (snapshot(p, n, pfn1, e1)) {
		snprintf(why, whylen, "cannot read the new pages' entries");
		goto unmap;
	}
	ep1 = hca_epoch();
	for (i = 0; i < n; i++)
		moved += pfn1[i] != pfn0[i];
	if (moved != n) {
		snprintf(why, whylen, "the collapse moved %d of %d pages", moved, n);
		goto unmap;
	}
	ret = 0;
	if (ep1 - ep0 > 1)
		goto unmap;	/* two decays: the hot counts are gone */

	for (i = 0; i < n; i++)
		age_ok &= e1[i].age >= e0[i].age && e1[i].age >= 2;
	for (i = 0; i < half; i++) {
		hot[i] = e1[i].count + e1[i].prev;
		hot_ok += 2 * hot[i] >= e0[i].count + e0[i].prev;
	}
	for (i = half; i < n; i++) {
		cold0[i - half] = e0[i].count + e0[i].prev;
		cold1[i - half] = e1[i].count + e1[i].prev;
	}
	/* what the copy counts on a page: one access per 64-byte line */
	copy_med = psz / 64;
	ktap_diag("epochs %llu..%llu; old ages %llu..%llu, new %llu..%llu",
		  ep0, ep1, e0[0].age, e0[n - 1].age, e1[0].age, e1[n - 1].age);
	ktap_diag("hot half: %d of %d pages keep half their hotness, median %llu (before %llu)",
		  hot_ok, half, median(hot, half), e0[0].count + e0[0].prev);
	ktap_diag("cold half: median hotness %llu before, %llu after (the copy counts about %llu)",
		  median(cold0, n - half), median(cold1, n - half), copy_med);
	ktap_result(age_ok, names[0]);
	ktap_result(hot_ok == half, names[1]);
	ktap_result(median(cold1, n - half) < median(cold0, n - half) + copy_med / 4, names[2]);
	ret = 1;
unmap:
	munmap(map, 2 * hpage);
out:
	free(pfn0);
	free(pfn1);
	free(e0);
	free(e1);
	free(hot);
	free(cold0);
	free(cold1);
	return ret;
}

int main(void)
{
	char why[160] = "";
	long hpage;
	int try, r = 0;

	ktap_begin("t18-carry", NR_CHECKS);
	psz = sysconf(_SC_PAGESIZE);
	if (!hca_on()) {
		skip_all(HCA_OFF_WHY);
		return ktap_end();
	}
	if (access(HCA_BACKEND "entry", R_OK)) {
		skip_all("no counter backend registered");
		return ktap_end();
	}
	hpage = read_long("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
	pagemap_fd = pagemap_open();
	if (hpage <= psz) {
		/* e.g. ppc64 with the hash MMU and 4K pages */
		skip_all("this kernel has no PMD-sized transparent huge pages");
		return ktap_end();
	}
	if (pagemap_fd < 0) {
		skip_all("no /proc/self/pagemap");
		return ktap_end();
	}
	for (try = 0; try < TRIES && !r; try++)
		r = try_collapse(hpage, why, sizeof(why));
	if (r < 0)
		skip_all(why);
	else if (!r)
		skip_all("a second decay raced each try");
	return ktap_end();
}
