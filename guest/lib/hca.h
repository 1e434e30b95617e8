/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The series' debugfs files of page aging from access counts, and the
 * counter engine the host gave the guest (hwage.hca= on the command line).
 *
 *   LRU_GEN_ENABLED   the on/off switch of counter aging: its 0x0008 bit
 *   HCA_DIR           the tuning knobs: scan-pfn-ratio, classifier, ...
 *   HCA_PFN           write a pfn, read "pfn P hotness H gen_age A"
 *   HCA_BACKEND       the hca-emu driver's files (table, entry, truth)
 *   hca_truth_snapshot(): a ground-truth snapshot of the emulator
 */
#ifndef HWAGE_HCA_H
#define HWAGE_HCA_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define HCA_DIR "/sys/kernel/debug/hca/"
#define HCA_PFN HCA_DIR "pfn"
#define HCA_BACKEND HCA_DIR "backend/"
#define HCA_TRUTH HCA_BACKEND "truth"
/* the reason of a check skipped for want of counts */
#define HCA_OFF_WHY "no counter engine (hwage.hca is not on)"

/*
 * hca_on(): the host runs the counting plugin: hwage.hca=on, or chaos (the
 * plugin counts and the host corrupts its table all the while, so only
 * tests that check survival, not counts, run in that boot)
 */
static inline int hca_on(void)
{
	const char *hca = kparam("hca", "off");

	return !strcmp(hca, "on") || !strcmp(hca, "chaos");
}

/*
 * hca_spin(): burn n loop iterations of guest instructions. The plugin
 * adds a vCPU's pending counts to the table as that vCPU's instruction
 * clock advances, and decays on it: spin after accesses before reading
 * their counts, or while waiting for a decay.
 */
static inline void hca_spin(long n)
{
	volatile long x = 0;

	while (n--)
		x++;
}

/* hca_knob(): write a knob of HCA_DIR; 0 or -errno */
static inline int hca_knob(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), HCA_DIR "%s", name);
	return write_file(path, val);
}

/* hca_read_number(): the number in a small file, or -1 */
static inline long hca_read_number(const char *path)
{
	char buf[32];

	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/*
 * hca_truth_snapshot(): ask the emulator for a ground-truth snapshot (the
 * host writes it to LOG.truth.N, HWAGE_HCA_TRUTH=1); its number N, or -1.
 * The truth file is a simple attribute, not seekable: open it for each
 * access.
 */
static inline long hca_truth_snapshot(void)
{
	long want = hca_read_number(HCA_TRUTH) + 1;
	int fd, i;

	if (want <= 0)
		return -1;
	fd = open(HCA_TRUTH, O_WRONLY);
	if (fd < 0)
		return -1;
	if (write(fd, "1", 1) != 1) {
		close(fd);
		return -1;
	}
	close(fd);
	for (i = 0; i < 2000; i++) {
		if (hca_read_number(HCA_TRUTH) >= want)
			return want;
		usleep(5000);
	}
	printf("# no ground-truth snapshot %ld after 10 s\n", want);
	return -1;
}

#define LRU_GEN_ENABLED "/sys/kernel/mm/lru_gen/enabled"
/* the capability bit of lru_gen/enabled that turns counter aging on */
#define LRU_GEN_ACCESS_COUNTS 0x0008

/* lru_gen_caps(): the capabilities lru_gen/enabled shows, or -errno */
static inline long lru_gen_caps(void)
{
	char buf[32], *end;
	long caps;

	if (read_file(LRU_GEN_ENABLED, buf, sizeof(buf)) <= 0)
		return -EIO;
	caps = strtol(buf, &end, 16);
	return end == buf || caps < 0 ? -EINVAL : caps;
}

/*
 * hca_counts(): counter aging on (1) or off (0): set or clear the 0x0008
 * bit of lru_gen/enabled, keeping the other bits; 0 or -errno. The bit
 * reads as set only while a counter backend is registered.
 */
static inline int hca_counts(int on)
{
	long caps = lru_gen_caps();
	char val[24];

	if (caps < 0)
		return caps;
	caps = on ? caps | LRU_GEN_ACCESS_COUNTS : caps & ~LRU_GEN_ACCESS_COUNTS;
	snprintf(val, sizeof(val), "0x%lx", caps);
	return write_file(LRU_GEN_ENABLED, val);
}

/* hca_counts_on(): whether counter aging is in use (1, 0), or -errno */
static inline int hca_counts_on(void)
{
	long caps = lru_gen_caps();

	return caps < 0 ? (int)caps : !!(caps & LRU_GEN_ACCESS_COUNTS);
}

/* hca_table(): a "name value" field of the backend's table file, -1 if none */
static inline long long hca_table(const char *field)
{
	return stat_value(HCA_BACKEND "table", field);
}

struct hca_pfn {
	unsigned long long pfn;
	long long hotness;	/* prev_count + count, -1 without a count */
	long long gen_age;	/* generations from the youngest, -1 off the LRU */
};

/* hca_pfn_parse(): one exact "pfn P hotness H gen_age A\n", nothing after */
static inline int hca_pfn_parse(const char *buf, struct hca_pfn *l)
{
	int n = -1;

	if (sscanf(buf, "pfn %llu hotness %lld gen_age %lld\n%n", &l->pfn, &l->hotness,
		   &l->gen_age, &n) != 3 || n <= 0 || buf[n] || buf[n - 1] != '\n')
		return -1;
	return 0;
}

/*
 * hca_pfn_lookup(): select pfn (a decimal or 0x number, as written) with
 * pwrite() on fd, an open HCA_PFN, and read its line back with pread(),
 * both at offset 0, as the benchmark does for thousands of pages. 0,
 * -errno, or -EBADMSG for a line that does not parse.
 */
static inline int hca_pfn_lookup(int fd, const char *pfn, struct hca_pfn *l)
{
	char buf[256];
	ssize_t n;

	errno = EIO;
	if (pwrite(fd, pfn, strlen(pfn), 0) != (ssize_t)strlen(pfn))
		return -errno;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	return hca_pfn_parse(buf, l) ? -EBADMSG : 0;
}

/* one entry of the counter table, as the backend's "entry" file shows it */
struct hca_count {
	unsigned long long count, prev, age;
};

/* hca_read_count(): the entry of @pfn through HCA_BACKEND "entry"; 0 or -1 */
static inline int hca_read_count(unsigned long pfn, struct hca_count *e)
{
	char buf[128];
	unsigned long got;

	snprintf(buf, sizeof(buf), "%lu", pfn);
	if (write_file(HCA_BACKEND "entry", buf) ||
	    read_file(HCA_BACKEND "entry", buf, sizeof(buf)) <= 0)
		return -1;
	return sscanf(buf, "%lu %llu %llu %llu", &got, &e->count, &e->prev, &e->age) == 4 &&
	       got == pfn ? 0 : -1;
}

/*
 * hca_decay_shift(): whether a decay halves prev_count + count into
 * prev_count (the plugin's decay_mode=shift, HCA_TABLE_FLAG_DECAY_SHIFT in
 * the table's flags) instead of moving count there
 */
static inline int hca_decay_shift(void)
{
	long long flags = hca_table("flags");

	return flags > 0 && (flags & 1);
}

/*
 * hca_format_p10(): whether the table's entries are in the POWER10 layout
 * (the plugin's format=p10, HCA_TABLE_FLAG_FORMAT_P10 in its flags): counts
 * floored to m * 4^e, prev_count with an 8-bit mantissa, ages up to 7
 */
static inline int hca_format_p10(void)
{
	long long flags = hca_table("flags");

	return flags > 0 && (flags & 4);
}

/* the largest age an entry shows: 7 in the POWER10 layout, else 255 */
static inline unsigned long long hca_age_max(void)
{
	return hca_format_p10() ? 7 : 255;
}

/*
 * hca_p10_floor(): @v as a POWER10 count field of @mant_bits mantissa bits
 * (12 for count, 8 for prev_count) holds it: floored to a multiple of 4^e,
 * e the smallest exponent whose mantissa holds @v, saturated at e = 15
 */
static inline unsigned long long hca_p10_floor(unsigned long long v, int mant_bits)
{
	unsigned long long mant_max = (1ULL << mant_bits) - 1;
	int e = 0;

	while (e < 15 && v >> (2 * e) > mant_max)
		e++;
	if (v >> (2 * e) > mant_max)
		return mant_max << (2 * e);
	return v >> (2 * e) << (2 * e);
}

/* hca_epoch(): the decays the table has had, -1 without a backend */
static inline unsigned long long hca_epoch(void)
{
	return hca_table("epoch");
}

/* hca_wait_epoch_after(): wait for the epoch to pass @e, up to about a minute */
static inline unsigned long long hca_wait_epoch_after(unsigned long long e)
{
	time_t t0 = time(NULL);
	unsigned long long now;

	while ((now = hca_epoch()) <= e && time(NULL) - t0 < 60)
		hca_spin(1000000);
	return now;
}

#endif
