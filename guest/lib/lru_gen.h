/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One parser of /sys/kernel/debug/lru_gen and lru_gen_full (mm/vmscan.c,
 * lru_gen_seq_show(), and the series' additions):
 *
 *   memcg ID PATH                          first node of each memcg only
 *    node NID
 *     hotness max N min N                  the sampled hotness range
 *    SEQ AGE_MS NR_ANON NR_FILE            one line per generation
 *               TIER ...                   lru_gen_full: per tier, and
 *                     ...                  the page table walk's stats
 *     aging ns N calls N look_around ns N calls N    lru_gen_full
 *
 * A generation line's first number ends within 11 columns, a tier or
 * walk line's after 12 spaces of indent: that tells them apart.
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
	LG_HOTNESS,	/* v: max, min */
	LG_GEN,		/* v: seq, age ms, anon pages, file pages */
	LG_AGING,	/* v: aging ns, calls, look-around ns, calls */
	LG_OTHER,	/* a lru_gen_full tier or walk line */
};

struct lru_gen_line {
	enum lru_gen_kind kind;
	int memcg;		/* the memcg and node the line belongs to */
	const char *path;
	int nid;
	long long v[4];
	const char *text;	/* the line as read */
};

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
		} else if (sscanf(line, " hotness max %lld min %lld", &l.v[0], &l.v[1]) == 2) {
			l.kind = LG_HOTNESS;
		} else if (sscanf(line, " aging ns %lld calls %lld look_around ns %lld calls %lld",
				  &l.v[0], &l.v[1], &l.v[2], &l.v[3]) == 4) {
			l.kind = LG_AGING;
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

/*
 * What a scan of one memcg (or all) and one node (or all) found: the
 * number of memcgs, nodes, generation lines and time lines seen, the nodes
 * with fewer than MIN_NR_GENS (2) generations, the first memcg and node,
 * the largest max_seq and hotness max, and the sum of the aging times.
 */
struct lru_gen_scan {
	int memcgs, nodes, gens, short_nodes, aging_lines;
	int first_memcg, first_nid;
	long long max_seq, hot_max, aging[4];
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
		break;
	case LG_AGING:
		s->aging_lines++;
		for (i = 0; i < 4; i++)
			s->aging[i] += l->v[i];
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
	int ret;

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
	return ret < 0 ? -1 : 0;
}

#endif
