/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of anonymous pages with a known pattern (one byte per 64-byte line
 * from the page's index, the line's offset and the set's seed), for the
 * programs that watch where the kernel puts a hot, warm or cold set
 * (t26-damon, w-damon): allocate and fill it, check it, read a word of
 * each page, find its pages' pfns and the physical range they span.
 */
#ifndef HWAGE_PAGESET_H
#define HWAGE_PAGESET_H

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pagemap.h"

struct page_set {
	unsigned char *buf;
	long pages;
	unsigned char seed;
};

static inline long page_set_psz(void)
{
	static long psz;

	if (!psz)
		psz = sysconf(_SC_PAGESIZE);
	return psz;
}

static inline unsigned char page_set_byte(const struct page_set *s, long page, long off)
{
	return (unsigned char)(page * 7 + off + s->seed);
}

/*
 * page_set_alloc(): map @mb MiB as a set (huge-page advised if @thp) and
 * write its pattern, which faults every page in; 0 or -errno
 */
static inline int page_set_alloc(struct page_set *s, long mb, unsigned char seed, int thp)
{
	long psz = page_set_psz(), i, j;

	s->pages = (mb << 20) / psz;
	s->seed = seed;
	s->buf = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->buf == MAP_FAILED)
		return -errno;
	if (thp)
		madvise(s->buf, mb << 20, MADV_HUGEPAGE);
	for (i = 0; i < s->pages; i++)
		for (j = 0; j < psz; j += 64)
			s->buf[i * psz + j] = page_set_byte(s, i, j);
	return 0;
}

/* page_set_errors(): the bytes of the pattern that read back wrong */
static inline long page_set_errors(const struct page_set *s)
{
	long psz = page_set_psz(), i, j, bad = 0;

	for (i = 0; i < s->pages; i++)
		for (j = 0; j < psz; j += 64)
			bad += s->buf[i * psz + j] != page_set_byte(s, i, j);
	return bad;
}

/* page_set_read(): read the first byte of each page once; their sum */
static inline unsigned long page_set_read(const struct page_set *s)
{
	long psz = page_set_psz(), i;
	unsigned long sum = 0;

	for (i = 0; i < s->pages; i++)
		sum += ((volatile unsigned char *)s->buf)[i * psz];
	return sum;
}

/* page_set_pfns(): the pfn of each page of the set (0 if not present) into @pfn */
static inline void page_set_pfns(int pm, const struct page_set *s, unsigned long long *pfn)
{
	long psz = page_set_psz(), i;

	for (i = 0; i < s->pages; i++)
		pfn[i] = pagemap_pfn(pm, s->buf + i * psz);
}

/*
 * page_set_span(): the lowest and highest pfn of the present pages of the
 * @n sets; 0 and 0 if none is present or pagemap cannot be read
 */
static inline void page_set_span(const struct page_set *sets, int n, unsigned long long *lo,
				 unsigned long long *hi)
{
	long psz = page_set_psz(), i;
	int fd = pagemap_open(), k;

	*lo = ~0ULL;
	*hi = 0;
	for (k = 0; fd >= 0 && k < n; k++) {
		for (i = 0; i < sets[k].pages; i++) {
			unsigned long long pfn = pagemap_pfn(fd, sets[k].buf + i * psz);

			if (!pfn)
				continue;
			*lo = pfn < *lo ? pfn : *lo;
			*hi = pfn > *hi ? pfn : *hi;
		}
	}
	if (fd >= 0)
		close(fd);
	if (*lo > *hi)
		*lo = *hi = 0;
}

#endif
