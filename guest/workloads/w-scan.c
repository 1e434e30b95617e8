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
 *   w-scan -H HOT_MB -C COLD_MB [-p PASSES] [-r READS] [-k CHUNKS] [-D]
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
 * -D (diagnosis; needs the series' debugfs files, root): at each check
 * point, the state of every hot page still in memory is read (its count's
 * age and hotness from the backend's "entry" file, its generation from
 * HCA_PFN), and each pass prints, for the hot pages lost by the next check
 * point and for those kept, how many were in each state before, with the
 * same for a sample of the cold pages in memory:
 *   diag pass N lost|kept|cold unknown=N h0=N h1-127=N h128-255=N h256+=N
 *     gen0=N gen1=N gen2=N gen3+=N
 * (unknown: a count younger than two decay windows; hN: prev_count +
 * count; genN: generations older than the youngest.) It slows the run.
 *
 * Prints one line per pass, "pass N hot_lost=N hot_lost_pct=X decays=N"
 * (decays: the counter table's decays during the pass, -1 without a
 * backend: how many decay windows a pass spans), then
 *   result passes=N hot_pages=N cold_pages=N lost_pct_max=X lost_pct_mean=X
 *     lost_pct_last=X decays_max=N secs=S errors=N
 * over the scored passes (decays_max: the most decay windows a scored pass
 * spanned, -1 without a backend); the exit status is 0 only if errors=0.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hca.h"
#include "pagemap.h"
#include "util.h"

#define LINE_WORDS 8		/* one checked word per 64-byte line */

static long psz;
static size_t nr_hot, nr_cold;
static unsigned char *hot, *cold;
static uint32_t *cold_ver;
static unsigned long long errors;

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

/*
 * -D: the state of a page in memory, as an index into the counts below:
 * 0 unknown, 1-4 hotness 0, 1-127, 128-255, 256+; and its generation age,
 * 0-3 (3 for 3 or more), -1 if not known.
 */
#define NR_HOT_STATES 5
#define NR_GEN_STATES 4
static const char *const hot_state_name[NR_HOT_STATES] = {
	"unknown", "h0", "h1-127", "h128-255", "h256+",
};

struct diag {
	unsigned long hot[NR_HOT_STATES], gen[NR_GEN_STATES];
};

static int pfn_fd = -1;	/* HCA_PFN, open with -D */

static void page_state(const volatile void *addr, int fd, signed char *hs, signed char *gs)
{
	unsigned long long pfn = pagemap_pfn(fd, addr);
	struct hca_count e;
	struct hca_pfn l;
	unsigned long long h;
	char buf[32];

	*hs = *gs = -1;
	if (!pfn || hca_read_count(pfn, &e))
		return;
	h = e.count + e.prev;
	*hs = e.age < 2 ? 0 : !h ? 1 : h < 128 ? 2 : h < 256 ? 3 : 4;
	snprintf(buf, sizeof(buf), "%llu", pfn);
	if (!hca_pfn_lookup(pfn_fd, buf, &l) && l.gen_age >= 0)
		*gs = l.gen_age > 3 ? 3 : l.gen_age;
}

static void diag_add(struct diag *d, signed char hs, signed char gs)
{
	if (hs >= 0)
		d->hot[hs]++;
	if (gs >= 0)
		d->gen[gs]++;
}

static void diag_print(long pass, const char *what, const struct diag *d)
{
	int i;

	printf("diag pass %ld %s", pass, what);
	for (i = 0; i < NR_HOT_STATES; i++)
		printf(" %s=%lu", hot_state_name[i], d->hot[i]);
	for (i = 0; i < NR_GEN_STATES; i++)
		printf(" gen%d%s=%lu", i, i == NR_GEN_STATES - 1 ? "+" : "", d->gen[i]);
	printf("\n");
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
	signed char *hs = NULL, *gs = NULL, chs, cgs;
	struct diag d_lost, d_kept, d_cold;
	int diag = 0;
	double t0, lost_max = 0, lost_sum = 0, lost_last = 0;
	long long decays_max = -1;
	unsigned char *lost;
	size_t i, c;
	long p;
	int opt, fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "H:C:p:r:k:D")) != -1) {
		switch (opt) {
		case 'H': hot_mb = parse_num("w-scan", "-H", optarg, 1, 1 << 16); break;
		case 'C': cold_mb = parse_num("w-scan", "-C", optarg, 1, 1 << 16); break;
		case 'p': passes = parse_num("w-scan", "-p", optarg, 2, 1000); break;
		case 'r': reads = parse_num("w-scan", "-r", optarg, 1, 1000); break;
		case 'k': chunks = parse_num("w-scan", "-k", optarg, 1, 4096); break;
		case 'D': diag = 1; break;
		default:
			fprintf(stderr, "usage: w-scan -H HOT_MB -C COLD_MB [-p PASSES] [-r READS] "
				"[-k CHUNKS] [-D]\n");
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
	if (diag) {
		hs = malloc(nr_hot);
		gs = malloc(nr_hot);
		pfn_fd = open(HCA_PFN, O_RDWR);
		if (!hs || !gs || pfn_fd < 0 || access(HCA_BACKEND "entry", W_OK)) {
			fprintf(stderr, "w-scan: -D needs %s and %s\n", HCA_PFN, HCA_BACKEND "entry");
			return 2;
		}
		memset(hs, -1, nr_hot);
		memset(gs, -1, nr_hot);
	}
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
		long long decays, epoch0 = (long long)hca_epoch();
		double lost_pct;

		memset(lost, 0, nr_hot);
		memset(&d_lost, 0, sizeof(d_lost));
		memset(&d_kept, 0, sizeof(d_kept));
		memset(&d_cold, 0, sizeof(d_cold));
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
			if (!diag)
				continue;
			/* the hot pages' states since the last check point, then now */
			for (i = 0; i < nr_hot; i++) {
				if (hs[i] >= 0 || gs[i] >= 0)
					diag_add(lost[i] ? &d_lost : &d_kept, hs[i], gs[i]);
				if (lost[i])
					hs[i] = gs[i] = -1;
				else
					page_state(hot + i * psz, fd, &hs[i], &gs[i]);
			}
			/* 256 cold pages spread over the cold set, those in memory */
			for (i = 0; i < 256; i++) {
				page_state(cold + (nr_cold * i / 256) * psz, fd, &chs, &cgs);
				diag_add(&d_cold, chs, cgs);
			}
		}
		if (diag) {
			diag_print(p, "lost", &d_lost);
			diag_print(p, "kept", &d_kept);
			diag_print(p, "cold", &d_cold);
		}
		for (i = 0; i < nr_hot; i++)
			nr_lost += lost[i];
		lost_pct = 100.0 * nr_lost / nr_hot;
		decays = epoch0 < 0 ? -1 : (long long)hca_epoch() - epoch0;
		printf("pass %ld hot_lost=%zu hot_lost_pct=%.1f decays=%lld\n", p, nr_lost,
		       lost_pct, decays);
		if (p) {
			lost_sum += lost_pct;
			lost_max = lost_pct > lost_max ? lost_pct : lost_max;
			lost_last = lost_pct;
			decays_max = decays > decays_max ? decays : decays_max;
		}
	}
	for (i = 0; i < nr_hot; i++)
		check(hot + i * psz, i, 0);
	for (i = 0; i < nr_cold; i++)
		check(cold + i * psz, nr_hot + i, cold_ver[i]);

	printf("result passes=%ld hot_pages=%zu cold_pages=%zu lost_pct_max=%.1f "
	       "lost_pct_mean=%.1f lost_pct_last=%.1f decays_max=%lld secs=%.2f errors=%llu\n",
	       passes - 1, nr_hot, nr_cold, lost_max, lost_sum / (passes - 1), lost_last,
	       decays_max, now_s() - t0, errors);
	return errors ? 1 : 0;
}
