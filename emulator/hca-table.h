/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hca-table.h - layout of the emulated HCA counter table (ABI version 1)
 *
 * The hwage QEMU plugin (emulator/hca.c) counts guest memory accesses per
 * guest-physical page into a table kept in a shared file.  QEMU exposes the
 * same file to the guest as BAR2 of an ivshmem-plain PCI device (1af4:1110),
 * where the guest driver reads, and clears, the entries.  This header is
 * the whole contract between the two; it is meant to be included both by the
 * host plugin and by a Linux driver, so it only uses <linux/types.h>.
 *
 * Layout of the table (all fields little-endian, offsets in bytes):
 *
 *	0                 struct hca_table_header, one 4096-byte page
 *	entries_offset    struct hca_entry entries[nr_pages], pfn order
 *	...               zero padding up to table_size
 *
 * table_size is a power of two (an ivshmem BAR must be) and at least
 * HCA_TABLE_HEADER_SIZE + nr_pages * sizeof(struct hca_entry); see
 * hca_table_size().  The entry of guest page frame pfn (guest-physical
 * address >> page_shift, counted from the start of guest RAM) is
 * entries[pfn].
 *
 * Who writes what:
 *  - the plugin writes every field of the header outside the control area
 *    once, before the guest runs, then only @epoch at each decay;
 *  - the guest writes the control area: @enabled and @truth_req; the plugin
 *    answers @truth_req through @truth_done;
 *  - the plugin adds to entries[].count and applies decays; the guest may
 *    clear an entry by writing 0 to all three counters.
 *
 * Entry semantics (those of the POWER10 HCA as used by the RFC in seeds/):
 *  - @count: accesses in the current decay period;
 *  - @prev_count: accesses in the previous decay period;
 *  - @age: decay periods since the entry was last cleared, saturating at
 *    HCA_AGE_MAX.
 * A decay, every @decay_insns guest instructions (summed over all vCPUs;
 * approximately with the plugin's clock=inline), moves @count into @prev_count, sets @count to 0 and increments @age.
 * The hotness of a page is prev_count + count.  Counters saturate at
 * HCA_COUNT_MAX instead of wrapping.  With sampling (@sample = N > 1) one
 * access in N on average is counted, and adds N, so that @count estimates
 * the real number of accesses.
 *
 * Counts reach the table with a short lag: each vCPU keeps the counts of
 * up to 4 pages pending and adds them when another page takes their slot,
 * every 65536 of its instructions (256 of its counted accesses with the
 * plugin's clock=inline), and when it goes idle.  A page read or cleared
 * right after an access may miss those pending counts.
 *
 * Races the guest must expect: a decay walks the table while vCPUs keep
 * running, so it may run concurrently with a guest clear of the same entry;
 * the guest can compare @epoch before and after to detect that.  While
 * @enabled is 0 neither counting nor decays happen (@epoch does not move).
 */
#ifndef HCA_TABLE_H
#define HCA_TABLE_H

#include <linux/types.h>

/* "HWAGEHCA" in memory order (little-endian u64). */
#define HCA_TABLE_MAGIC		0x4143484547415748ULL
#define HCA_TABLE_VERSION	1
#define HCA_TABLE_HEADER_SIZE	4096
#define HCA_COUNT_MAX		0xffffffffU
/* As the seed's u8 age. */
#define HCA_AGE_MAX		255U

/**
 * struct hca_table_header - first page of the table
 * @magic: HCA_TABLE_MAGIC.
 * @version: HCA_TABLE_VERSION; a different value means a different layout.
 * @header_size: HCA_TABLE_HEADER_SIZE.
 * @page_shift: log2 of the page size counted by one entry (12 for 4K pages,
 *	16 for 64K pages); it must match the guest's page size.
 * @entry_size: sizeof(struct hca_entry) = 16.
 * @nr_pages: number of entries: guest RAM size >> page_shift.
 * @entries_offset: offset of entries[0] from the start of the table (4096).
 * @table_size: size of the table, a power of two; the BAR is at least this.
 * @epoch: number of decays so far; written by the plugin after each decay
 *	has been applied to every entry.
 * @decay_insns: guest instructions (all vCPUs) between two decays.
 * @sample: 1 if every access is counted, N if one access in N is.
 * @age_max: HCA_AGE_MAX.
 * @count_max: HCA_COUNT_MAX.
 * @flags: 0 (no flags are defined in version 1).
 * @enabled: control, guest-written: 1 (the default) counts and decays,
 *	0 stops both.
 * @truth_req: control, guest-written: increment to ask the plugin to write
 *	its ground-truth file (only if the plugin was given truth=PATH).
 * @truth_done: set by the plugin to the value of @truth_req it has
 *	answered, once the file is complete on the host.
 * @reserved0: zero, reserved.
 * @reserved1: zero, reserved.
 */
struct hca_table_header {
	/* 0x000: geometry and state, written by the plugin */
	__le64 magic;
	__le32 version;
	__le32 header_size;
	__le32 page_shift;
	__le32 entry_size;
	__le64 nr_pages;
	__le64 entries_offset;
	__le64 table_size;
	__le64 epoch;
	__le64 decay_insns;
	__le32 sample;
	__le32 age_max;
	__le32 count_max;
	__le32 flags;
	__u8 reserved0[0x100 - 0x50];
	/* 0x100: control area, written by the guest (own cache lines) */
	__le32 enabled;
	__le32 truth_req;
	__le32 truth_done;
	__u8 reserved1[HCA_TABLE_HEADER_SIZE - 0x10c];
};

/**
 * struct hca_entry - counters of one guest page
 * @count: accesses in the current decay period (saturating).
 * @prev_count: accesses in the previous decay period.
 * @age: decay periods since the last clear, saturating at HCA_AGE_MAX.
 * @reserved: zero, reserved.
 */
struct hca_entry {
	__le32 count;
	__le32 prev_count;
	__le32 age;
	__le32 reserved;
};

/*
 * hca_table_size() - size of the table file for @nr_pages entries: the
 * smallest power of two that holds the header and the entries.  This is
 * the size= to give QEMU's memory-backend-file.
 */
static inline __u64 hca_table_size(__u64 nr_pages)
{
	__u64 need = HCA_TABLE_HEADER_SIZE + nr_pages * sizeof(struct hca_entry);
	__u64 size = HCA_TABLE_HEADER_SIZE;

	while (size < need)
		size <<= 1;
	return size;
}

#endif /* HCA_TABLE_H */
