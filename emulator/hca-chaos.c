// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hca-chaos TABLE [SECONDS] - corrupt a live counter table under a running
 * guest, to show that the kernel survives whatever a counter device puts
 * in it (HWAGE_HCA=chaos in harness/run-guest.sh).
 *
 * TABLE is the shared file the plugin counts into and QEMU shows the guest
 * (ivshmem). hca-chaos waits until the plugin has set it up (its magic),
 * then, until SECONDS have passed (0: until killed with SIGTERM or
 * SIGINT), goes round the first four of these corruptions, one every
 * 2 ms, and does the fifth every 50th round (so that a header is wrong
 * about a sixth of the time, and a probe can also find it right):
 *   random    random bytes over 64 random entries
 *   max       64 random entries at HCA_COUNT_MAX in both counts
 *   backward  the ages of 64 random entries set lower than they were
 *   flip      one entry rewritten 10000 times in a row between two
 *             contents, so that the guest's reads land between writes
 *   header    a header field (magic, version, sizes, nr_pages, entries
 *             offset, table size, flags) overwritten with random bits,
 *             the whole header put back 20 ms later
 * The control area (enabled, truth_req, truth_done) is left alone: it is
 * the guest's and the plugin's protocol, not data. The plugin keeps
 * counting and decaying meanwhile, on top of whatever it finds.
 *
 * At the end it prints one line, which the harness appends to the boot's
 * log:
 *   hca-chaos: N corruptions in S s: random R, max M, backward B, flip F, header H
 * (random, max and backward count rounds of 64 entries each).
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hca-table.h"

#define BATCH 64
#define FLIPS 10000

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* the header fields a header corruption picks from, offset and size */
static const struct {
	size_t offset, size;
} fields[] = {
	{ offsetof(struct hca_table_header, magic), 8 },
	{ offsetof(struct hca_table_header, version), 4 },
	{ offsetof(struct hca_table_header, header_size), 4 },
	{ offsetof(struct hca_table_header, page_shift), 4 },
	{ offsetof(struct hca_table_header, entry_size), 4 },
	{ offsetof(struct hca_table_header, nr_pages), 8 },
	{ offsetof(struct hca_table_header, entries_offset), 8 },
	{ offsetof(struct hca_table_header, table_size), 8 },
	{ offsetof(struct hca_table_header, flags), 4 },
};

int main(int argc, char **argv)
{
	unsigned long n[5] = { 0 };
	struct hca_table_header *hdr, saved;
	struct hca_entry *e, *entries;
	double t0, secs = argc > 2 ? atof(argv[2]) : 0;
	uint64_t nr, i, k;
	struct stat st;
	char *map;
	unsigned long round = 0;
	int fd = -1, op;

	if (argc < 2 || argc > 3 || secs < 0) {
		fprintf(stderr, "usage: hca-chaos TABLE [SECONDS]\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	rng = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull | 1;

	/* the plugin creates and sizes the file, then sets the magic last */
	for (t0 = now(); !stop; sleep_ms(50)) {
		fd = open(argv[1], O_RDWR);
		if (fd >= 0 && !fstat(fd, &st) && st.st_size >= HCA_TABLE_HEADER_SIZE)
			break;
		if (fd >= 0)
			close(fd);
		if (now() - t0 > 60) {
			fprintf(stderr, "hca-chaos: %s: no table after 60 s\n", argv[1]);
			return 1;
		}
	}
	if (stop)
		return 0;
	map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror(argv[1]);
		return 1;
	}
	hdr = (struct hca_table_header *)map;
	while (!stop && __atomic_load_n(&hdr->magic, __ATOMIC_ACQUIRE) != HCA_TABLE_MAGIC)
		sleep_ms(20);
	saved = *hdr;
	nr = saved.nr_pages;
	if (saved.flags & HCA_TABLE_FLAG_FORMAT_P10) {
		fprintf(stderr, "hca-chaos: %s: a POWER10-layout table (format=p10): "
			"only the plain layout is corrupted\n", argv[1]);
		return 1;
	}
	if (saved.entries_offset + nr * sizeof(*e) > (uint64_t)st.st_size) {
		fprintf(stderr, "hca-chaos: %s: the table does not fit its file\n", argv[1]);
		return 1;
	}
	entries = (struct hca_entry *)(map + saved.entries_offset);

	for (t0 = now(); !stop && (!secs || now() - t0 < secs); round++, sleep_ms(2)) {
		op = round % 50 == 49 ? 4 : round % 4;
		switch (op) {
		case 0:
			for (k = 0; k < BATCH; k++) {
				e = &entries[rnd() % nr];
				for (i = 0; i < sizeof(*e) / 8; i++)
					__atomic_store_n((uint64_t *)e + i, rnd(), __ATOMIC_RELAXED);
			}
			break;
		case 1:
			for (k = 0; k < BATCH; k++) {
				e = &entries[rnd() % nr];
				__atomic_store_n((uint64_t *)&e->count, ~0ull, __ATOMIC_RELAXED);
			}
			break;
		case 2:
			for (k = 0; k < BATCH; k++) {
				e = &entries[rnd() % nr];
				__atomic_store_n(&e->age, rnd() % (e->age + 1) / 2, __ATOMIC_RELAXED);
			}
			break;
		case 3:
			e = &entries[rnd() % nr];
			for (k = 0; k < FLIPS; k++) {
				__atomic_store_n((uint64_t *)&e->count, k & 1 ? ~0ull : 0, __ATOMIC_RELAXED);
				__atomic_store_n(&e->age, k & 1 ? 0 : HCA_AGE_MAX, __ATOMIC_RELAXED);
			}
			break;
		case 4:
			k = rnd() % (sizeof(fields) / sizeof(fields[0]));
			i = rnd();
			memcpy(map + fields[k].offset, &i, fields[k].size);
			sleep_ms(20);
			/* the plugin writes @epoch meanwhile: put back the rest */
			memcpy(map, &saved, offsetof(struct hca_table_header, epoch));
			memcpy(map + offsetof(struct hca_table_header, decay_insns),
			       (char *)&saved + offsetof(struct hca_table_header, decay_insns),
			       offsetof(struct hca_table_header, reserved0) -
			       offsetof(struct hca_table_header, decay_insns));
			break;
		}
		n[op]++;
	}
	printf("hca-chaos: %lu corruptions in %.0f s: random %lu, max %lu, backward %lu, flip %lu, header %lu\n",
	       n[0] + n[1] + n[2] + n[3] + n[4], now() - t0, n[0], n[1], n[2], n[3], n[4]);
	return 0;
}
