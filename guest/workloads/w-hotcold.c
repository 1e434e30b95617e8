// SPDX-License-Identifier: GPL-2.0
/*
 * w-hotcold: a hot/cold workload whose hot set is known, for the tests and
 * the benchmark (see ../shared/BENCHMARKS.md in the project).
 *
 *   w-hotcold -H HOT_MB -C COLD_MB [-s SECONDS] [-n OPS_PER_HOT] [-p HOT_PCT]
 *             [-w WRITE_PCT] [-r SEED] [-c [-A]] [-T]
 *
 * It maps HOT_MB + COLD_MB of anonymous memory, picks the hot pages at
 * random (a seeded permutation, so they are spread over the mapping and
 * over physical memory), and writes every page once. Then, for SECONDS,
 * each operation picks a page, a hot one with probability HOT_PCT (90), a
 * cold one otherwise, uniformly within the set, reads it and checks its
 * content, and with probability WRITE_PCT (10) writes a new version of it.
 * Each page holds its id and version in the first word of every 64-byte
 * line, and an operation reads (or writes) all of them, as a server reads
 * a whole value: a page's access count then stands above the 64 lines the
 * kernel's zeroing or a swap-in copies. The last step reads back and
 * checks every page, so a page lost or mixed up through swap is an error.
 *
 * With -n, the run phase goes on past SECONDS until the hot pages have had
 * OPS_PER_HOT operations each on average, for at most MAX_RUN_STRETCH times
 * SECONDS, and says so: a ground truth scored against the hot set needs
 * enough reads per hot page that the rarely picked ones still stand above
 * a cold page read once, swapped in and out (each of those moves 64 lines,
 * as an operation does), however slow the guest is.
 *
 * At the end of the run phase, before the final check, it reports which of
 * its pages are swapped out (/proc/self/pagemap), and so how many of the
 * evicted pages were cold. With -c it also prints, for every resident page,
 * its pfn, the age of its MGLRU generation and whether it is hot by design,
 * from /sys/kernel/debug/hca/pfn, as "cls" lines for the host to score
 * against the emulator's ground truth (a page it cannot look up there is
 * an error, like a page that reads wrong); with -T it asks the emulator for a
 * ground-truth snapshot (/sys/kernel/debug/hca/backend/truth) at the start
 * and at the end of the run phase and prints their numbers.
 *
 * With -c -A, after that listing it runs on for a second (the listing
 * takes many decay windows, in which the counts of the idle workload fade),
 * ages its memory cgroup right then (a new generation on each of its nodes,
 * through /sys/kernel/debug/lru_gen, as the reclaim would) and lists its
 * pages again, as "clsa" lines. The pages faulted in since the last aging
 * sit in the youngest generation until the next one, whatever the aging
 * does (a fault makes a page active, in the stock multi-gen LRU as with
 * the counts), so the first listing scores the fault-ins of a moment that
 * varies from run to run as much as the aging; right after an aging, the
 * youngest generation is what that aging chose. Before the extra second it
 * prints "-A: the measured run ends here" and waits 200 ms, for a runner
 * that measures the run to take its end snapshot there (the bench does).
 *
 * The last line is
 *   result ops=N secs=S ops_per_s=N p50_us=N p99_us=N hot_pages=N
 *     cold_pages=N swapped=N swapped_cold=N errors=N
 * and the exit status is 0 only if errors=0.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hca.h"
#include "lru_gen.h"
#include "pagemap.h"
#include "util.h"
#include "workload.h"

/* latency histogram: 8 buckets per power of two of nanoseconds */
#define HIST_SUB 8
#define HIST_N (64 * HIST_SUB)
/* -A: how long the workload runs on before the aging, in ns */
#define AGING_WARM_NS 1000000000ull
/* -n stretches the run phase to at most this many times -s */
#define MAX_RUN_STRETCH 8
#define MAX_RUN_STRETCH_STR "8"
/*
 * -A: how long to wait after the line WL_RUN_ENDS printed before that, so
 * that a runner measuring the run (guest/runners/bench.c) takes its end
 * snapshot there and the tail of -A stays out of its figures
 */
#define AGING_MARK_WAIT_US 200000
/* measure the latency of one operation in LAT_EVERY */
#define LAT_EVERY 8

static long psz;
static size_t nr_pages, nr_hot;
static unsigned char *mem, *is_hot;
static uint32_t *version, *hot_ids, *cold_ids;
static uint64_t hist[HIST_N], errors;

static void usage(const char *why, const char *arg)
{
	fprintf(stderr, "w-hotcold: %s%s%s\n"
		"usage: w-hotcold -H HOT_MB -C COLD_MB [-s SECONDS] [-n OPS_PER_HOT] [-p HOT_PCT] "
		"[-w WRITE_PCT] [-r SEED] [-c [-A]] [-T]\n", why, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t word(size_t page, uint32_t ver)
{
	return (page * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ver << 40) ^ 0x5a5a5a5aull;
}

/* one word per 64-byte line: an operation reads (or writes) the whole page */
#define LINE_WORDS 8

static void write_page(size_t p)
{
	uint64_t *w = (uint64_t *)(mem + p * psz);
	uint64_t v = word(p, version[p]);
	long i;

	for (i = 0; i < psz / 8; i += LINE_WORDS)
		w[i] = v ^ i;
}

static int check_page(size_t p)
{
	uint64_t *w = (uint64_t *)(mem + p * psz);
	uint64_t v = word(p, version[p]);
	long i;

	for (i = 0; i < psz / 8; i += LINE_WORDS)
		if (w[i] != (v ^ i))
			break;
	if (i >= psz / 8)
		return 0;
	if (errors++ < 5)
		printf("# page %zu (%s) version %u: word %ld reads %#llx, want %#llx\n", p,
		       is_hot[p] ? "hot" : "cold", version[p], i, (unsigned long long)w[i],
		       (unsigned long long)(v ^ i));
	return 1;
}

static void hist_add(uint64_t ns)
{
	int b = ns ? 63 - __builtin_clzll(ns) : 0;
	int sub = b >= 3 ? (ns >> (b - 3)) & (HIST_SUB - 1) : 0;

	hist[b * HIST_SUB + sub]++;
}

/* the q-quantile of the histogram, in microseconds (bucket upper bound) */
static double hist_quantile(double q)
{
	uint64_t total = 0, seen = 0;
	int i;

	for (i = 0; i < HIST_N; i++)
		total += hist[i];
	for (i = 0; i < HIST_N && total; i++) {
		seen += hist[i];
		if (seen >= q * total) {
			int b = i / HIST_SUB, sub = i % HIST_SUB;
			double lo = b >= 3 ? (double)(1ull << b) * (1 + sub / 8.0) : (double)(1ull << b);

			return lo * (1 + 1 / 8.0) / 1000;
		}
	}
	return 0;
}


/*
 * Pages swapped out now, and of them cold ones; with cls (the lines' prefix,
 * "cls" or "clsa"; NULL: no listing), print the pfn,
 * generation age and design hotness of every resident page. A page that
 * cannot be looked up in the pfn file is an error: the host would score
 * an age of -1 for it. (A page off the LRU lists, e.g. isolated by the
 * reclaim at that moment, reads gen_age -1 and is no error.)
 */
static void census(const char *cls, size_t *swapped, size_t *swapped_cold)
{
	int pm = pagemap_open();
	int pf = cls ? open(HCA_PFN, O_RDWR) : -1;
	char line[1024], buf[32];
	size_t p, len = 0, n = 0, bad = 0;
	uint64_t e;

	*swapped = *swapped_cold = 0;
	if (pm < 0) {
		printf("# cannot open /proc/self/pagemap: %s\n", strerror(errno));
		errors++;
		return;
	}
	if (cls && pf < 0) {
		printf("# -c: cannot open %s: %s\n", HCA_PFN, strerror(errno));
		errors++;
	}
	for (p = 0; p < nr_pages; p++) {
		struct hca_pfn l = { .gen_age = -1 };
		int ret;

		e = pagemap_entry(pm, mem + p * psz);
		if (e & PM_SWAPPED) {
			(*swapped)++;
			*swapped_cold += !is_hot[p];
			continue;
		}
		if (!cls || !(e & PM_PRESENT) || !(e & PM_PFN))
			continue;
		if (pf >= 0) {
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(e & PM_PFN));
			ret = hca_pfn_lookup(pf, buf, &l);
			if (ret && bad++ < 5)
				printf("# -c: pfn %s of page %zu: %s\n", buf, p, strerror(-ret));
		}
		len += snprintf(line + len, sizeof(line) - len, " %llx:%lld:%d",
				(unsigned long long)(e & PM_PFN), l.gen_age, is_hot[p]);
		if (++n % 32 == 0) {
			printf("%s%s\n", cls, line);
			len = 0;
		}
	}
	if (len)
		printf("%s%s\n", cls, line);
	errors += bad;
	if (pf >= 0)
		close(pf);
	close(pm);
}

/*
 * Operations until deadline (now_ns()), or until max_ops (in batches of
 * 256) if that is not 0; the operations made, and in *end the time the last
 * batch ended. With measure, one operation in LAT_EVERY has its latency
 * taken.
 */
static uint64_t run_phase(uint64_t deadline, uint64_t max_ops, long hot_pct, long write_pct,
			  size_t nr_cold, int measure, uint64_t *end)
{
	uint64_t ops = 0, t;
	size_t p;
	int i;

	for (t = now_ns(); t < deadline && (!max_ops || ops < max_ops); t = now_ns()) {
		for (i = 0; i < 256; i++) {
			uint64_t r = rnd(), s = 0;
			int lat = measure && ops % LAT_EVERY == 0;

			if (r % 100 < (uint64_t)hot_pct || !nr_cold)
				p = hot_ids[(r >> 8) % nr_hot];
			else
				p = cold_ids[(r >> 8) % nr_cold];
			if (lat)
				s = now_ns();
			check_page(p);
			if ((r >> 40) % 100 < (uint64_t)write_pct) {
				version[p]++;
				write_page(p);
			}
			if (lat)
				hist_add(now_ns() - s);
			ops++;
		}
	}
	*end = t;
	return ops;
}

/* the memcg and node of each node line of our cgroup, with its max_seq */
struct age_target {
	int memcg, nid;
	long long max_seq;
};

struct age_targets {
	const char *path;
	int n, in_path;
	struct age_target t[64];
};

static int age__line(const struct lru_gen_line *l, void *arg)
{
	struct age_targets *a = arg;

	if (l->kind == LG_MEMCG) {
		/* a dying memcg shows id 0, which lru_gen does not take */
		a->in_path = l->memcg > 0 && !strcmp(l->path, a->path);
	} else if (l->kind == LG_NODE && a->in_path && a->n < 64) {
		a->t[a->n].memcg = l->memcg;
		a->t[a->n].nid = l->nid;
		a->t[a->n++].max_seq = -1;
	} else if (l->kind == LG_GEN && a->in_path && a->n && a->t[a->n - 1].nid == l->nid &&
		   l->v[0] > a->t[a->n - 1].max_seq) {
		a->t[a->n - 1].max_seq = l->v[0];
	}
	return 0;
}

/*
 * Make a new generation of our memory cgroup on each of its nodes, as the
 * reclaim's aging would (page table walk or promotion walk); the number of
 * generations made, or -1 if our cgroup is not in lru_gen or a write
 * failed. A cgroup of ours removed earlier (a dying memcg whose pages are
 * not all freed yet) may show with our path too: with id 0 once offline,
 * which is skipped; before that it is aged as well, as nothing else tells
 * them apart.
 */
static int age_memcg(void)
{
	char cg[320], cmd[128];
	struct age_targets a = { 0 };
	int i, ret;

	if (cg_self(cg, sizeof(cg))) {
		printf("# -A: cannot read our cgroup from /proc/self/cgroup\n");
		return -1;
	}
	a.path = cg_path(cg);
	if (lru_gen_each(LRU_GEN, age__line, &a) < 0 || !a.n) {
		printf("# -A: memcg %s is not in %s\n", a.path, LRU_GEN);
		return -1;
	}
	for (i = 0; i < a.n; i++) {
		snprintf(cmd, sizeof(cmd), "+ %d %d %lld 1 1", a.t[i].memcg, a.t[i].nid,
			 a.t[i].max_seq);
		ret = write_file(LRU_GEN, cmd);
		if (ret) {
			printf("# -A: \"%s\" > %s: %s\n", cmd, LRU_GEN, strerror(-ret));
			return -1;
		}
	}
	return a.n;
}

int main(int argc, char **argv)
{
	long hot_mb = -1, cold_mb = -1, secs = 5, hot_pct = 90, write_pct = 10, per_hot = 0;
	int cls = 0, truth = 0, aging = 0, c;
	long t_begin = -1, t_end = -1;
	size_t p, i, j, nr_cold, swapped, swapped_cold;
	uint64_t ops, t0, t1, min_ops = 0;

	while ((c = getopt(argc, argv, "H:C:s:n:p:w:r:cAT")) != -1) {
		switch (c) {
		case 'H': hot_mb = parse_num("w-hotcold", "-H", optarg, 1, 1 << 20); break;
		case 'C': cold_mb = parse_num("w-hotcold", "-C", optarg, 0, 1 << 20); break;
		case 's': secs = parse_num("w-hotcold", "-s", optarg, 0, 86400); break;
		case 'n': per_hot = parse_num("w-hotcold", "-n", optarg, 0, 1 << 20); break;
		case 'p': hot_pct = parse_num("w-hotcold", "-p", optarg, 0, 100); break;
		case 'w': write_pct = parse_num("w-hotcold", "-w", optarg, 0, 100); break;
		case 'r': rng_state = parse_num("w-hotcold", "-r", optarg, 1, 1L << 62); break;
		case 'c': cls = 1; break;
		case 'A': aging = 1; break;
		case 'T': truth = 1; break;
		default: usage("unknown option", NULL);
		}
	}
	if (optind != argc)
		usage("unexpected argument", argv[optind]);
	if (hot_mb < 0 || cold_mb < 0)
		usage("-H and -C are required", NULL);
	if (aging && !cls)
		usage("-A needs -c", NULL);
	if (per_hot && !hot_pct && cold_mb)
		usage("-n needs operations on the hot set: -p 0 makes none", NULL);

	psz = sysconf(_SC_PAGESIZE);
	nr_hot = ((size_t)hot_mb << 20) / psz;
	nr_cold = ((size_t)cold_mb << 20) / psz;
	nr_pages = nr_hot + nr_cold;
	mem = mmap(NULL, nr_pages * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	version = calloc(nr_pages, sizeof(*version));
	is_hot = calloc(nr_pages, 1);
	hot_ids = malloc(nr_hot * sizeof(*hot_ids));
	cold_ids = malloc((nr_cold + 1) * sizeof(*cold_ids));
	if (mem == MAP_FAILED || !version || !is_hot || !hot_ids || !cold_ids) {
		printf("# out of memory for %zu pages\n", nr_pages);
		return 1;
	}
	madvise(mem, nr_pages * psz, MADV_NOHUGEPAGE);

	/* a seeded Fisher-Yates permutation: its first nr_hot pages are hot */
	{
		uint32_t *perm = malloc(nr_pages * sizeof(*perm));

		if (!perm)
			return 1;
		for (p = 0; p < nr_pages; p++)
			perm[p] = p;
		for (p = nr_pages - 1; p > 0; p--) {
			size_t j = rnd() % (p + 1);
			uint32_t t = perm[p];

			perm[p] = perm[j];
			perm[j] = t;
		}
		for (p = 0; p < nr_hot; p++)
			is_hot[perm[p]] = 1;
		free(perm);
	}
	for (p = 0, i = 0, j = 0; p < nr_pages; p++) {
		if (is_hot[p])
			hot_ids[i++] = p;
		else
			cold_ids[j++] = p;
	}
	for (p = 0; p < nr_pages; p++)
		write_page(p);
	printf("# %zu pages of %ld bytes: %zu hot, %zu cold; %ld%% of operations hot, %ld%% writes\n",
	       nr_pages, psz, nr_hot, nr_cold, hot_pct, write_pct);
	fflush(stdout);

	if (truth)
		t_begin = hca_truth_snapshot();
	/* the hot share of the operations is hot_pct, or all with no cold page */
	min_ops = (uint64_t)per_hot * nr_hot * 100 / (nr_cold ? hot_pct : 100);
	t0 = now_ns();
	ops = run_phase(t0 + secs * 1000000000ull, 0, hot_pct, write_pct, nr_cold, 1, &t1);
	if (ops < min_ops) {
		ops += run_phase(t0 + MAX_RUN_STRETCH * secs * 1000000000ull, min_ops - ops, hot_pct,
				 write_pct, nr_cold, 1, &t1);
		printf("# -n %ld: ran %.1f s, not %ld, for %.1f operations per hot page%s\n",
		       per_hot, (t1 - t0) / 1e9, secs, ops * (nr_cold ? hot_pct : 100) / 100.0 / nr_hot,
		       ops < min_ops ? " (stopped at its limit, " MAX_RUN_STRETCH_STR " times -s)" : "");
	}
	if (truth) {
		t_end = hca_truth_snapshot();
		printf("truth begin=%ld end=%ld\n", t_begin, t_end);
	}
	census(cls ? "cls" : NULL, &swapped, &swapped_cold);
	if (aging) {
		size_t sw, swc;
		uint64_t t;
		int aged;

		/*
		 * The listing took many decay windows: run on for a second so
		 * that the accessed bits and the counts the aging reads are
		 * the workload's, as for an aging in the middle of the run.
		 */
		printf("# %s\n", WL_RUN_ENDS);
		fflush(stdout);
		usleep(AGING_MARK_WAIT_US);
		run_phase(now_ns() + AGING_WARM_NS, 0, hot_pct, write_pct, nr_cold, 0, &t);
		aged = age_memcg();
		printf("# -A: made %d generation%s of our memcg\n", aged, aged == 1 ? "" : "s");
		/* a scoring step: its failure shows as missing clsa lines, no page error */
		if (aged > 0)
			census("clsa", &sw, &swc);
	}
	for (p = 0; p < nr_pages; p++)
		check_page(p);
	printf("# swapped out at the end of the run: %zu pages, %zu of them cold (%.1f%%)\n",
	       swapped, swapped_cold, swapped ? 100.0 * swapped_cold / swapped : 0.0);
	printf("result ops=%llu secs=%.2f ops_per_s=%.0f p50_us=%.1f p99_us=%.1f hot_pages=%zu "
	       "cold_pages=%zu swapped=%zu swapped_cold=%zu errors=%llu\n",
	       (unsigned long long)ops, (t1 - t0) / 1e9, ops / ((t1 - t0) / 1e9 + 1e-9),
	       hist_quantile(0.5), hist_quantile(0.99), nr_hot, nr_cold, swapped, swapped_cold,
	       (unsigned long long)errors);
	return errors ? 1 : 0;
}
