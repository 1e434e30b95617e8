// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hca-size [-w FILE] RAM [PAGE] - print the size in bytes of the HCA table
 * file for a guest with RAM bytes of memory counted in PAGE-byte pages
 * (default 4096), i.e. the size= to give QEMU's memory-backend-file for the
 * ivshmem device. Sizes take an optional K, M, G or T suffix (powers of
 * 1024), as the plugin's ram= and page= options do: both use parse-size.h.
 *
 * With -w, also write FILE as the plugin would set it up (header, zero
 * entries) without running it: the harness uses that to hand the guest a
 * table made for another RAM size. The header is set up by the plugin's
 * own hca_header_init() (hca-table.h), with no decays and exact counting.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca-table.h"
#include "parse-size.h"

/* write_table(): an idle table for @nr_pages pages of 1 << @shift bytes */
static int write_table(const char *path, uint64_t nr_pages, unsigned int shift)
{
	struct hca_table_header hdr;
	uint64_t size = hca_table_size(nr_pages);
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	hca_header_init(&hdr, nr_pages, shift, 0, 1, 0);
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
	if (argc < 2 || argc > 3 || !parse_size(argv[1], &ram) ||
	    (argc == 3 && !parse_size(argv[2], &page)) ||
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
