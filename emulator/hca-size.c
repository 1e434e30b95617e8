// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hca-size [-w FILE] RAM [PAGE] - print the size in bytes of the HCA table
 * file for a guest with RAM bytes of memory counted in PAGE-byte pages
 * (default 4096), i.e. the size= to give QEMU's memory-backend-file for the
 * ivshmem device. Sizes take an optional K, M, G or T suffix (powers of
 * 1024), as the plugin's ram= and page= options do.
 *
 * With -w, also write FILE as the plugin would set it up (header, zero
 * entries) without running it: the harness uses that to hand the guest a
 * table made for another RAM size. The host must be little-endian.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca-table.h"

static int parse_size(const char *s, uint64_t *out)
{
	unsigned int shift = 0;
	char *end;
	uint64_t v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end || !v || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = v << shift;
	return 0;
}

/* write_table(): an idle table for @nr_pages pages of 1 << @shift bytes */
static int write_table(const char *path, uint64_t nr_pages, unsigned int shift)
{
	struct hca_table_header hdr;
	uint64_t size = hca_table_size(nr_pages);
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = HCA_TABLE_MAGIC;
	hdr.version = HCA_TABLE_VERSION;
	hdr.header_size = HCA_TABLE_HEADER_SIZE;
	hdr.page_shift = shift;
	hdr.entry_size = sizeof(struct hca_entry);
	hdr.nr_pages = nr_pages;
	hdr.entries_offset = HCA_TABLE_HEADER_SIZE;
	hdr.table_size = size;
	hdr.sample = 1;
	hdr.age_max = HCA_AGE_MAX;
	hdr.count_max = HCA_COUNT_MAX;
	hdr.enabled = 1;
	if (fwrite(&hdr, sizeof(hdr), 1, f) != 1 || fseeko(f, size - 1, SEEK_SET) ||
	    fputc(0, f) == EOF) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

int main(int argc, char **argv)
{
	uint64_t ram, page = 4096;
	const char *out = NULL;

	if (argc > 2 && !strcmp(argv[1], "-w")) {
		out = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || argc > 3 || parse_size(argv[1], &ram) ||
	    (argc == 3 && parse_size(argv[2], &page)) ||
	    page < 4096 || (page & (page - 1)) || ram % page) {
		fprintf(stderr, "usage: hca-size [-w FILE] RAM [PAGE]  "
			"(PAGE a power of two >= 4096 dividing RAM)\n");
		return 2;
	}
	if (out && write_table(out, ram / page, __builtin_ctzll(page))) {
		perror(out);
		return 1;
	}
	printf("%llu\n", (unsigned long long)hca_table_size(ram / page));
	return 0;
}
