// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hca-size [-w FILE [-s FIELD=VALUE]...] RAM [PAGE] - print the size in bytes of the HCA table
 * file for a guest with RAM bytes of memory counted in PAGE-byte pages
 * (default 4096), i.e. the size= to give QEMU's memory-backend-file for the
 * ivshmem device. Sizes take an optional K, M, G or T suffix (powers of
 * 1024), as the plugin's ram= and page= options do: both use parse-size.h.
 *
 * With -w, also write FILE as the plugin would set it up (header, zero
 * entries) without running it: the harness uses that to hand the guest a
 * table made for another RAM size. The header is set up by the plugin's
 * own hca_header_init() (hca-table.h), with no decays and exact counting.
 *
 * -s FIELD=VALUE then overrides one field of that header (magic, version,
 * header_size, page_shift, entry_size, nr_pages, entries_offset,
 * table_size, flags), for tables that lie: the harness hands the guest's
 * driver tables with out-of-range geometry (HWAGE_HCA=badtable). The file
 * keeps the size of the honest table.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca-table.h"

/* the header fields -s can set, with their offset and width */
#define FIELD(f) { #f, offsetof(struct hca_table_header, f), \
		   sizeof(((struct hca_table_header *)0)->f) }
static const struct field {
	const char *name;
	size_t offset, size;
} fields[] = {
	FIELD(magic), FIELD(version), FIELD(header_size), FIELD(page_shift),
	FIELD(entry_size), FIELD(nr_pages), FIELD(entries_offset),
	FIELD(table_size), FIELD(flags),
};

#define MAX_SETS 16
static const char *sets[MAX_SETS];
static int nr_sets;

/* set_field(): apply "FIELD=VALUE" to @hdr; 0, or -1 with a message */
static int set_field(struct hca_table_header *hdr, const char *arg)
{
	const char *eq = strchr(arg, '=');
	unsigned long long v;
	char *end;
	size_t i;

	for (i = 0; eq && i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (strlen(fields[i].name) != (size_t)(eq - arg) ||
		    strncmp(fields[i].name, arg, eq - arg))
			continue;
		errno = 0;
		v = strtoull(eq + 1, &end, 0);
		if (errno || end == eq + 1 || *end ||
		    (fields[i].size == 4 && v > UINT32_MAX)) {
			fprintf(stderr, "hca-size: -s %s: not a %zu-bit number\n",
				arg, fields[i].size * 8);
			return -1;
		}
		if (fields[i].size == 4) {
			uint32_t v32 = v;

			memcpy((char *)hdr + fields[i].offset, &v32, 4);
		} else {
			uint64_t v64 = v;

			memcpy((char *)hdr + fields[i].offset, &v64, 8);
		}
		return 0;
	}
	fprintf(stderr, "hca-size: -s %s: want FIELD=VALUE, FIELD one of", arg);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		fprintf(stderr, " %s", fields[i].name);
	fputc('\n', stderr);
	return -1;
}
#include "parse-size.h"

/* write_table(): an idle table for @nr_pages pages of 1 << @shift bytes */
static int write_table(const char *path, uint64_t nr_pages, unsigned int shift)
{
	struct hca_table_header hdr;
	uint64_t size = hca_table_size(nr_pages, sizeof(struct hca_entry));
	FILE *f;
	int i;

	hca_header_init(&hdr, nr_pages, shift, 0, 0, 1, 0);
	for (i = 0; i < nr_sets; i++)
		if (set_field(&hdr, sets[i]))
			return -2;
	f = fopen(path, "w");
	if (!f)
		return -1;
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

	int err;

	if (argc > 2 && !strcmp(argv[1], "-w")) {
		out = argv[2];
		argc -= 2;
		argv += 2;
		while (argc > 2 && !strcmp(argv[1], "-s") && nr_sets < MAX_SETS) {
			sets[nr_sets++] = argv[2];
			argc -= 2;
			argv += 2;
		}
	}
	if (argc < 2 || argc > 3 || !parse_size(argv[1], &ram) ||
	    (argc == 3 && !parse_size(argv[2], &page)) ||
	    page < 4096 || (page & (page - 1)) || ram % page) {
		fprintf(stderr, "usage: hca-size [-w FILE [-s FIELD=VALUE]...] RAM [PAGE]  "
			"(PAGE a power of two >= 4096 dividing RAM)\n");
		return 2;
	}
	err = out ? write_table(out, ram / page, __builtin_ctzll(page)) : 0;
	if (err == -1)
		perror(out);
	if (err)
		return err == -2 ? 2 : 1;
	printf("%llu\n", (unsigned long long)hca_table_size(ram / page, sizeof(struct hca_entry)));
	return 0;
}
