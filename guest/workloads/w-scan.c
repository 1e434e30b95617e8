// SPDX-License-Identifier: GPL-2.0
/*
 * w-scan: scan resistance. A hot set that fits in the memory limit with
 * room to spare is read at random, several times per page in each pass,
 * while a cold set larger than the limit is streamed through once per
 * pass, a part at a time between the hot reads. A policy that knows
 * access frequency keeps the whole hot set; one that only knows recency
 * sees every streamed page as young as the hot ones and loses hot pages
 * on every pass.
 *
 *   w-scan -H HOT_MB -C COLD_MB [-p PASSES] [-r READS] [-k CHUNKS]
 *
 * Every page holds its id and version in the first word of each 64-byte
 * line. A hot read reads all the lines of a page and checks them; the
 * stream writes a new version of every cold page. Each pass streams the
 * cold set in CHUNKS (8) parts with READS (4) x hot pages random hot
 * reads spread between them, and after each part looks up in
 * /proc/self/pagemap which hot pages are swapped out: a hot page seen
 * swapped out at any of these points is lost in that pass. The first pass
 * fills memory and is not scored. The last step reads back and checks
 * every page.
 *
 * Prints one line per pass, "pass N hot_lost=N hot_lost_pct=X", then
 *   result passes=N hot_pages=N cold_pages=N lost_pct_max=X lost_pct_mean=X
 *     secs=S errors=N
 * over the scored passes; the exit status is 0 only if errors=0.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pagemap.h"
#include "util.h"

#define LINE_WORDS 8		/* one checked word per 64-byte line */

static long psz;
static size_t nr_hot, nr_cold;
static unsigned char *hot, *cold;
static uint32_t *cold_ver;
static unsigned long long errors;

static long opt_num(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "w-scan: bad value '%s' for %s (%ld to %ld)\n", s, opt, lo, hi);
		exit(2);
	}
	return v;
}

/* the word each line of page @id (hot ids first) holds at version @ver */
static uint64_t scan_word(size_t id, uint32_t ver)
{
	return (id * 0xbf58476d1ce4e5b9ull) ^ ((uint64_t)ver << 40) ^ 0xa5a5a5a5ull;
}

static void fill(unsigned char *page, size_t id, uint32_t ver)
{
	uint64_t w = scan_word(id, ver);
	long i;

	for (i = 0; i < psz / 8; i += LINE_WORDS)
		((volatile uint64_t *)page)[i] = w;
}

/* read every line of @page; 0 if each holds page @id at version @ver */
static int check(const unsigned char *page, size_t id, uint32_t ver)
{
	uint64_t w = scan_word(id, ver);
	int bad = 0;
	long i;

	for (i = 0; i < psz / 8; i += LINE_WORDS)
		bad |= ((const volatile uint64_t *)page)[i] != w;
	if (bad && errors++ < 5)
		fprintf(stderr, "w-scan: page %zu does not hold version %u\n", id, ver);
	return bad;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* mark in @lost the hot pages that are swapped out now; -1 on error */
static int census(int fd, unsigned char *lost)
{
	static uint64_t *pm;
	size_t i;

	if (!pm && !(pm = malloc(nr_hot * sizeof(*pm))))
		return -1;
	if (pread(fd, pm, nr_hot * sizeof(*pm), (uintptr_t)hot / psz * sizeof(*pm)) !=
	    (ssize_t)(nr_hot * sizeof(*pm)))
		return -1;
	for (i = 0; i < nr_hot; i++)
		if (pm[i] & PM_SWAPPED)
			lost[i] = 1;
	return 0;
}

int main(int argc, char **argv)
{
	long hot_mb = 0, cold_mb = 0, passes = 4, reads = 4, chunks = 8;
	double t0, lost_max = 0, lost_sum = 0;
	unsigned char *lost;
	size_t i, c;
	long p;
	int opt, fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "H:C:p:r:k:")) != -1) {
		switch (opt) {
		case 'H': hot_mb = opt_num("-H", optarg, 1, 1 << 16); break;
		case 'C': cold_mb = opt_num("-C", optarg, 1, 1 << 16); break;
		case 'p': passes = opt_num("-p", optarg, 2, 1000); break;
		case 'r': reads = opt_num("-r", optarg, 1, 1000); break;
		case 'k': chunks = opt_num("-k", optarg, 1, 4096); break;
		default:
			fprintf(stderr, "usage: w-scan -H HOT_MB -C COLD_MB [-p PASSES] [-r READS] "
				"[-k CHUNKS]\n");
			return 2;
		}
	}
	if (!hot_mb || !cold_mb) {
		fprintf(stderr, "w-scan: -H and -C are required\n");
		return 2;
	}
	psz = sysconf(_SC_PAGESIZE);
	nr_hot = (size_t)hot_mb << 20 >> __builtin_ctzl(psz);
	nr_cold = (size_t)cold_mb << 20 >> __builtin_ctzl(psz);
	hot = mmap(NULL, nr_hot * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cold = mmap(NULL, nr_cold * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cold_ver = calloc(nr_cold, sizeof(*cold_ver));
	lost = malloc(nr_hot);
	fd = pagemap_open();
	if (hot == MAP_FAILED || cold == MAP_FAILED || !cold_ver || !lost || fd < 0) {
		fprintf(stderr, "w-scan: cannot set up %ld + %ld MiB: %s\n", hot_mb, cold_mb,
			strerror(errno));
		return 1;
	}
	/* base pages only: a huge page would be hot or cold as a whole */
	madvise(hot, nr_hot * psz, MADV_NOHUGEPAGE);
	madvise(cold, nr_cold * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < nr_hot; i++)
		fill(hot + i * psz, i, 0);

	t0 = now_s();
	for (p = 0; p < passes; p++) {
		size_t nr_lost = 0, per_chunk = (size_t)reads * nr_hot / chunks;

		memset(lost, 0, nr_hot);
		for (c = 0; c < (size_t)chunks; c++) {
			size_t lo = nr_cold * c / chunks, hi = nr_cold * (c + 1) / chunks;

			for (i = lo; i < hi; i++) {
				if (p)
					check(cold + i * psz, nr_hot + i, cold_ver[i]);
				fill(cold + i * psz, nr_hot + i, ++cold_ver[i]);
			}
			for (i = 0; i < per_chunk; i++) {
				size_t h = rnd() % nr_hot;

				check(hot + h * psz, h, 0);
			}
			if (census(fd, lost)) {
				fprintf(stderr, "w-scan: cannot read /proc/self/pagemap\n");
				errors++;
			}
		}
		for (i = 0; i < nr_hot; i++)
			nr_lost += lost[i];
		printf("pass %ld hot_lost=%zu hot_lost_pct=%.1f\n", p, nr_lost,
		       100.0 * nr_lost / nr_hot);
		if (p) {
			lost_sum += 100.0 * nr_lost / nr_hot;
			if (100.0 * nr_lost / nr_hot > lost_max)
				lost_max = 100.0 * nr_lost / nr_hot;
		}
	}
	for (i = 0; i < nr_hot; i++)
		check(hot + i * psz, i, 0);
	for (i = 0; i < nr_cold; i++)
		check(cold + i * psz, nr_hot + i, cold_ver[i]);

	printf("result passes=%ld hot_pages=%zu cold_pages=%zu lost_pct_max=%.1f "
	       "lost_pct_mean=%.1f secs=%.2f errors=%llu\n", passes - 1, nr_hot, nr_cold, lost_max,
	       lost_sum / (passes - 1), now_s() - t0, errors);
	return errors ? 1 : 0;
}
