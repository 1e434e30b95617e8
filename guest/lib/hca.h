/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The series' debugfs files of page aging from access counts, and the
 * counter engine the host gave the guest (hwage.hca= on the command line).
 *
 *   HCA_DIR           the knobs: hca_lru_age, scan-pfn-ratio, ...
 *   HCA_PFN           write a pfn, read "pfn P hotness H gen_age A"
 *   HCA_BACKEND       the hca-emu driver's files (table, entry, truth)
 */
#ifndef HWAGE_HCA_H
#define HWAGE_HCA_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define HCA_DIR "/sys/kernel/debug/hca/"
#define HCA_PFN HCA_DIR "pfn"
#define HCA_BACKEND HCA_DIR "backend/"
#define HCA_TRUTH HCA_BACKEND "truth"
/* the reason of a check skipped for want of counts */
#define HCA_OFF_WHY "no counter engine (hwage.hca is not on)"

/* hca_on(): the host runs the counting plugin (hwage.hca=on) */
static inline int hca_on(void)
{
	return !strcmp(kparam("hca", "off"), "on");
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

#endif
