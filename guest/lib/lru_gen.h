/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One parser of /sys/kernel/debug/lru_gen and lru_gen_full (mm/vmscan.c,
 * lru_gen_seq_show(), and the series' additions):
 *
 *   memcg ID PATH                          first node of each memcg only
 *    node NID
 *     hotness max N min N threshold anon N file N walked N promoted N
 *                                          the promotion walk (patch 3)
 *    SEQ AGE_MS NR_ANON NR_FILE            one line per generation
 *               TIER ...                   lru_gen_full: per tier, and
 *                     ...                  the page table walk's stats
 *     aging ns N calls N look_around ns N calls N    lru_gen_full, and
 *     counts ns N calls N sample ns N calls N evict ns N calls N
 *       [thp ns N calls N]                 (the last pair since patch 16)
 *     lru_lock_hold isolate ns N holds N log2_ns N0 ... N31
 *     lru_lock_hold putback ns N holds N log2_ns N0 ... N31
 *
 * A generation line's first number ends within 11 columns, a tier or
 * walk line's after 12 spaces of indent: that tells them apart.
 *
 * The counts line is the time and number of the reads of page access
 * counts (patch 9), in all, then in the aging's promotion walk (which
 * the aging time includes) and in the eviction's check of the folios it
 * isolated (evict-skip-refs, patch 5). The
 * hold lines are the eviction's lru_lock holds (patch 10): the bucket i
 * of log2_ns counts the holds of [2^i, 2^(i+1)) ns, the first also 0 ns,
 * the last also longer; holds is the sum of the buckets.
 */
#ifndef HWAGE_LRU_GEN_H
#define HWAGE_LRU_GEN_H

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

#define LRU_GEN "/sys/kernel/debug/lru_gen"
#define LRU_GEN_FULL "/sys/kernel/debug/lru_gen_full"

enum lru_gen_kind {
	LG_MEMCG,	/* v: id */
	LG_NODE,	/* v: nid */
	LG_HOTNESS,	/* v: max, min, thresholds anon, file, walked, promoted */
	LG_GEN,		/* v: seq, age ms, anon pages, file pages */
	LG_AGING,	/* v: aging ns, calls, look-around ns, calls */
	LG_COUNTS,	/* v: ns, calls of all, sample, evict (LG_COUNTS_*) */
	LG_HOLD,	/* hold: which; v: ns, holds; hist: the 32 buckets */
	LG_OTHER,	/* a lru_gen_full tier or walk line */
};

/* the pairs of v[] of a counts line, each ns then calls */
enum { LG_COUNTS_ALL, LG_COUNTS_SAMPLE, LG_COUNTS_EVICT, LG_COUNTS_THP, LG_NR_COUNTS };
/* the lru_lock holds of the eviction */
enum { LG_HOLD_ISOLATE, LG_HOLD_PUTBACK, LG_NR_HOLDS };
#define LG_HOLD_BUCKETS 32

struct lru_gen_line {
	enum lru_gen_kind kind;
	int memcg;		/* the memcg and node the line belongs to */
	const char *path;
	int nid;
	long long v[2 * LG_NR_COUNTS];
	int hold;		/* LG_HOLD: LG_HOLD_ISOLATE or LG_HOLD_PUTBACK */
	long long hist[LG_HOLD_BUCKETS];
	const char *text;	/* the line as read */
};

/* " lru_lock_hold WHICH ns N holds N log2_ns" and exactly 32 numbers: 0 if so */
static inline int lru_gen__hold_line(const char *line, struct lru_gen_line *l)
{
	char which[16], *end;
	int n = -1, i;

	if (sscanf(line, " lru_lock_hold %15s ns %lld holds %lld log2_ns%n", which, &l->v[0],
		   &l->v[1], &n) != 3 || n < 0)
		return -1;
	if (!strcmp(which, "isolate"))
		l->hold = LG_HOLD_ISOLATE;
	else if (!strcmp(which, "putback"))
		l->hold = LG_HOLD_PUTBACK;
	else
		return -1;
	line += n;
	for (i = 0; i < LG_HOLD_BUCKETS; i++) {
		if (*line != ' ')
			return -1;
		l->hist[i] = strtoll(line, &end, 10);
		if (end == line)
			return -1;
		line = end;
	}
	return *line ? -1 : 0;
}

/*
 * lru_gen_each(): call fn for every line of file (LRU_GEN or LRU_GEN_FULL),
 * until it returns non-zero. Returns that, 0 at the end, or -1 if the file
 * cannot be read whole.
 */
static inline int lru_gen_each(const char *file, int (*fn)(const struct lru_gen_line *, void *),
			       void *arg)
{
	static char buf[4 << 20], path[4096];
	struct lru_gen_line l = { .memcg = -1, .path = path, .nid = -1 };
	ssize_t len = read_file(file, buf, sizeof(buf));
	char *line, *save = NULL;
	int ret;

	path[0] = '\0';
	if (len <= 0 || len == (ssize_t)sizeof(buf) - 1)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t indent = strspn(line, " ");

		l.text = line;
		l.kind = LG_OTHER;
		memset(l.v, 0, sizeof(l.v));
		if (!strncmp(line, "memcg ", 6)) {
			path[0] = '\0';
			if (sscanf(line, "memcg %d %4095s", &l.memcg, path) < 1)
				l.memcg = -1;
			l.nid = -1;
			l.kind = LG_MEMCG;
			l.v[0] = l.memcg;
		} else if (sscanf(line, " node %d", &l.nid) == 1) {
			l.kind = LG_NODE;
			l.v[0] = l.nid;
		} else if (sscanf(line, " hotness max %lld min %lld threshold anon %lld file %lld "
				  "walked %lld promoted %lld", &l.v[0], &l.v[1], &l.v[2], &l.v[3],
				  &l.v[4], &l.v[5]) >= 2) {
			l.kind = LG_HOTNESS;
		} else if (sscanf(line, " aging ns %lld calls %lld look_around ns %lld calls %lld",
				  &l.v[0], &l.v[1], &l.v[2], &l.v[3]) == 4) {
			l.kind = LG_AGING;
		} else if (sscanf(line, " counts ns %lld calls %lld sample ns %lld calls %lld evict ns "
				  "%lld calls %lld thp ns %lld calls %lld", &l.v[0], &l.v[1], &l.v[2],
				  &l.v[3], &l.v[4], &l.v[5], &l.v[6], &l.v[7]) >= 6) {
			/* a kernel before the thp pair: none */
			if (!strstr(line, " thp ns "))
				l.v[6] = l.v[7] = 0;
			l.kind = LG_COUNTS;
		} else if (!lru_gen__hold_line(line, &l)) {
			l.kind = LG_HOLD;
		} else if (indent < 12 && isdigit((unsigned char)line[indent]) &&
			   sscanf(line, "%lld %lld %lld%*c %lld", &l.v[0], &l.v[1], &l.v[2],
				  &l.v[3]) == 4) {
			l.kind = LG_GEN;
		}
		ret = fn(&l, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* the sum of the hold lines of one kind: total ns, holds, histogram */
struct lru_gen_hold {
	long long ns, holds, hist[LG_HOLD_BUCKETS];
};

/*
 * What a scan of one memcg (or all) and one node (or all) found: the
 * number of memcgs, nodes, generation lines and time lines seen, the nodes
 * with fewer than MIN_NR_GENS (2) generations, the first memcg and node,
 * the largest max_seq and hotness max, the sums of the folios the last
 * promotion walks looked at and moved, and the sums of the aging times, of
 * the counts line (v[] of LG_COUNTS) and of the hold lines.
 */
struct lru_gen_scan {
	int memcgs, nodes, gens, short_nodes, aging_lines, counts_lines, hold_lines[LG_NR_HOLDS];
	int first_memcg, first_nid;
	long long max_seq, hot_max, walked, promoted, aging[4], counts[2 * LG_NR_COUNTS];
	struct lru_gen_hold hold[LG_NR_HOLDS];
	/* the filter, set by lru_gen_scan() */
	const char *path;
	int memcg, nid, node_gens, memcg_match, match;
};

static inline int lru_gen__scan_line(const struct lru_gen_line *l, void *arg)
{
	struct lru_gen_scan *s = arg;
	int i;

	if (l->kind == LG_MEMCG || l->kind == LG_NODE) {
		if (s->match && s->node_gens >= 0 && s->node_gens < 2)
			s->short_nodes++;
		s->node_gens = -1;
		s->match = 0;
		if (l->kind == LG_MEMCG) {
			s->memcg_match = (!s->path || !strcmp(l->path, s->path)) &&
					 (s->memcg < 0 || l->memcg == s->memcg);
			s->memcgs += s->memcg_match;
			return 0;
		}
		s->match = s->memcg_match && (s->nid < 0 || l->nid == s->nid);
		if (!s->match)
			return 0;
		if (!s->nodes++) {
			s->first_memcg = l->memcg;
			s->first_nid = l->nid;
		}
		s->node_gens = 0;
		return 0;
	}
	if (!s->match)
		return 0;
	switch (l->kind) {
	case LG_GEN:
		s->gens++;
		s->node_gens++;
		if (l->v[0] > s->max_seq)
			s->max_seq = l->v[0];
		break;
	case LG_HOTNESS:
		if (l->v[0] > s->hot_max)
			s->hot_max = l->v[0];
		s->walked += l->v[4];
		s->promoted += l->v[5];
		break;
	case LG_AGING:
		s->aging_lines++;
		for (i = 0; i < 4; i++)
			s->aging[i] += l->v[i];
		break;
	case LG_COUNTS:
		s->counts_lines++;
		for (i = 0; i < 2 * LG_NR_COUNTS; i++)
			s->counts[i] += l->v[i];
		break;
	case LG_HOLD:
		s->hold_lines[l->hold]++;
		s->hold[l->hold].ns += l->v[0];
		s->hold[l->hold].holds += l->v[1];
		for (i = 0; i < LG_HOLD_BUCKETS; i++)
			s->hold[l->hold].hist[i] += l->hist[i];
		break;
	default:
		break;
	}
	return 0;
}

/*
 * lru_gen_scan(): scan file for the memcg at path (as the kernel shows it,
 * see cg_path(); NULL: any) or with id memcg (-1: any), and node nid (-1:
 * any). Returns 0, or -1 if the file cannot be read. Absent values read
 * -1; memcgs counts the memcgs that match, whatever their nodes.
 */
static inline int lru_gen_scan(const char *file, const char *path, int memcg, int nid,
			       struct lru_gen_scan *s)
{
	int ret, i;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->memcg = memcg;
	s->nid = nid;
	s->node_gens = -1;
	s->first_memcg = s->first_nid = -1;
	s->max_seq = s->hot_max = -1;
	ret = lru_gen_each(file, lru_gen__scan_line, s);
	if (s->match && s->node_gens >= 0 && s->node_gens < 2)
		s->short_nodes++;
	if (!s->aging_lines)
		s->aging[0] = s->aging[1] = s->aging[2] = s->aging[3] = -1;
	if (!s->counts_lines)
		memset(s->counts, -1, sizeof(s->counts));
	for (i = 0; i < LG_NR_HOLDS; i++)
		if (!s->hold_lines[i])
			memset(&s->hold[i], -1, sizeof(s->hold[i]));
	return ret < 0 ? -1 : 0;
}

/*
 * lru_gen_delta(): end - start of a counter of lru_gen_scan(), -1 if it is
 * absent (-1) at the end, and counted from 0 if absent at the start: a
 * memcg made after the start snapshot (the benchmark's hotcold takes it
 * before it makes its cgroup) had counted nothing then.
 */
static inline long long lru_gen_delta(long long end, long long start)
{
	return end < 0 ? -1 : end - (start < 0 ? 0 : start);
}

/*
 * lru_gen_hold_quantile(): the upper bound, in ns, of the log2 bucket of
 * hist (LG_HOLD_BUCKETS of them) that holds the q-quantile of the holds
 * (0 < q <= 1; 1: the longest hold), i.e. the q-quantile is below it;
 * 2^32 for the last, open bucket. -1 without holds.
 */
static inline long long lru_gen_hold_quantile(const long long *hist, double q)
{
	long long n = 0, need, seen = 0;
	int i;

	for (i = 0; i < LG_HOLD_BUCKETS; i++)
		n += hist[i] > 0 ? hist[i] : 0;
	if (n <= 0)
		return -1;
	/* the rank of the quantile, ceil(q * n), at least 1 */
	need = (long long)(q * n);
	if (need < q * n)
		need++;
	if (need < 1)
		need = 1;
	for (i = 0; i < LG_HOLD_BUCKETS; i++) {
		seen += hist[i] > 0 ? hist[i] : 0;
		if (seen >= need)
			break;
	}
	return 2LL << (i < LG_HOLD_BUCKETS ? i : LG_HOLD_BUCKETS - 1);
}

#endif
