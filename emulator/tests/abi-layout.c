// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * abi-layout - the counter table's layout as the kernel series' header,
 * include/uapi/misc/hca_emu.h, defines it, for tests/abi.sh:
 *
 *	struct NAME SIZE
 *	field NAME.FIELD OFFSET SIZE	every field, in declaration order
 *	const NAME VALUE		every constant, in decimal (function-like
 *					macros are not constants)
 *
 * C cannot enumerate a struct's fields, so they are listed by hand here;
 * abi.sh checks that the fields cover every byte of each struct and that
 * every struct and #define of the header is printed, so that one added to
 * the header and not here fails the test instead of going unchecked.
 */
#include <stddef.h>
#include <stdio.h>

#include <misc/hca_emu.h>

#define STRUCT(s) \
	printf("struct %s %zu\n", #s, sizeof(struct s))
#define FIELD(s, f) \
	printf("field %s.%s %zu %zu\n", #s, #f, offsetof(struct s, f), \
	       sizeof(((struct s *)0)->f))
#define CONST(c) \
	printf("const %s %llu\n", #c, (unsigned long long)(c))

int main(void)
{
	STRUCT(hca_table_header);
	FIELD(hca_table_header, magic);
	FIELD(hca_table_header, version);
	FIELD(hca_table_header, header_size);
	FIELD(hca_table_header, page_shift);
	FIELD(hca_table_header, entry_size);
	FIELD(hca_table_header, nr_pages);
	FIELD(hca_table_header, entries_offset);
	FIELD(hca_table_header, table_size);
	FIELD(hca_table_header, epoch);
	FIELD(hca_table_header, decay_insns);
	FIELD(hca_table_header, sample);
	FIELD(hca_table_header, age_max);
	FIELD(hca_table_header, count_max);
	FIELD(hca_table_header, flags);
	FIELD(hca_table_header, decay_ns);
	FIELD(hca_table_header, reserved0);
	FIELD(hca_table_header, enabled);
	FIELD(hca_table_header, truth_req);
	FIELD(hca_table_header, truth_done);
	FIELD(hca_table_header, reserved1);

	STRUCT(hca_entry);
	FIELD(hca_entry, count);
	FIELD(hca_entry, prev_count);
	FIELD(hca_entry, age);
	FIELD(hca_entry, reserved);

	CONST(HCA_TABLE_MAGIC);
	CONST(HCA_TABLE_VERSION);
	CONST(HCA_TABLE_HEADER_SIZE);
	CONST(HCA_COUNT_MAX);
	CONST(HCA_AGE_MAX);
	CONST(HCA_TABLE_FLAG_DECAY_SHIFT);
	CONST(HCA_TABLE_FLAG_MEMORY_SIDE);
	CONST(HCA_TABLE_FLAG_FORMAT_P10);
	CONST(HCA_P10_COUNT_SHIFT);
	CONST(HCA_P10_COUNT_BITS);
	CONST(HCA_P10_COUNT_MANT_BITS);
	CONST(HCA_P10_AGE_SHIFT);
	CONST(HCA_P10_AGE_BITS);
	CONST(HCA_P10_GEN_SHIFT);
	CONST(HCA_P10_GEN_BITS);
	CONST(HCA_P10_PREV_SHIFT);
	CONST(HCA_P10_PREV_BITS);
	CONST(HCA_P10_PREV_MANT_BITS);
	CONST(HCA_P10_TIME_SHIFT);
	CONST(HCA_P10_TIME_BITS);
	CONST(HCA_P10_SOCKET_SHIFT);
	CONST(HCA_P10_SOCKET_BITS);
	CONST(HCA_P10_EXP_BITS);
	CONST(HCA_P10_AGE_MAX);
	return 0;
}
