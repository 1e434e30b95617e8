// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hca-size RAM [PAGE] - print the size in bytes of the HCA table file for a
 * guest with RAM bytes of memory counted in PAGE-byte pages (default 4096),
 * i.e. the size= to give QEMU's memory-backend-file for the ivshmem device.
 * Sizes take an optional K, M, G or T suffix (powers of 1024), as the
 * plugin's ram= and page= options do.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	uint64_t ram, page = 4096;

	if (argc < 2 || argc > 3 || parse_size(argv[1], &ram) ||
	    (argc == 3 && parse_size(argv[2], &page)) ||
	    page < 4096 || (page & (page - 1)) || ram % page) {
		fprintf(stderr, "usage: hca-size RAM [PAGE]  "
			"(PAGE a power of two >= 4096 dividing RAM)\n");
		return 2;
	}
	printf("%llu\n", (unsigned long long)hca_table_size(ram / page));
	return 0;
}
