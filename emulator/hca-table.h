/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hca-table.h - the counter table, as the plugin and hca-size set it up.
 *
 * The layout is not defined here: its one definition is the kernel series'
 * include/uapi/misc/hca_emu.h (added by the hca-emu driver's patch in
 * patches/), the header the guest's hca-emu driver includes. The Makefile
 * extracts that header from the series into the build directory, so the
 * plugin cannot be built against another layout than the driver's;
 * emulator/tests/abi.sh checks the tables the plugin and hca-size write
 * against it.
 *
 * What is here is how the host side fills the table, which the driver
 * does not need: the file's size and the header's initial values.
 */
#ifndef HCA_TABLE_H
#define HCA_TABLE_H

#include <string.h>

#include <misc/hca_emu.h>

/* bytes an entry takes in a table of these HCA_TABLE_FLAG_*s */
static inline __u32 hca_entry_size(__u32 flags)
{
	return flags & HCA_TABLE_FLAG_FORMAT_P10 ? sizeof(__u64) : sizeof(struct hca_entry);
}

/*
 * hca_table_size() - size of the table file for @nr_pages entries of
 * @entry_size bytes: the smallest power of two (an ivshmem BAR must be one)
 * that holds the header and the entries. With the plain layout's entries,
 * the larger, this is the size= to give QEMU's memory-backend-file for a
 * table of either layout.
 */
static inline __u64 hca_table_size(__u64 nr_pages, __u32 entry_size)
{
	__u64 need = HCA_TABLE_HEADER_SIZE + nr_pages * entry_size;
	__u64 size = HCA_TABLE_HEADER_SIZE;

	while (size < need)
		size <<= 1;
	return size;
}

/*
 * hca_header_init() - the header of an idle table, before the guest runs:
 * geometry, the engine's settings (@flags: HCA_TABLE_FLAG_*; a decay every
 * @decay_insns guest instructions or every @decay_ns nanoseconds of guest
 * time, the other 0), epoch 0, counting enabled, no ground truth asked for.
 * The entries start right after the header. The magic is stored last, with
 * release order, so that a reader that sees it sees the rest. Written in
 * host order: the plugin and hca-size refuse to build on a big-endian host.
 */
static inline void hca_header_init(struct hca_table_header *hdr,
				   __u64 nr_pages, unsigned int page_shift,
				   __u64 decay_insns, __u64 decay_ns,
				   __u32 sample, __u32 flags)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->version = HCA_TABLE_VERSION;
	hdr->header_size = HCA_TABLE_HEADER_SIZE;
	hdr->page_shift = page_shift;
	hdr->entry_size = hca_entry_size(flags);
	hdr->nr_pages = nr_pages;
	hdr->entries_offset = HCA_TABLE_HEADER_SIZE;
	hdr->table_size = hca_table_size(nr_pages, hdr->entry_size);
	hdr->decay_insns = decay_insns;
	hdr->decay_ns = decay_ns;
	hdr->sample = sample;
	hdr->age_max = flags & HCA_TABLE_FLAG_FORMAT_P10 ? HCA_P10_AGE_MAX : HCA_AGE_MAX;
	hdr->count_max = HCA_COUNT_MAX;
	hdr->flags = flags;
	hdr->enabled = 1;
	__atomic_store_n(&hdr->magic, HCA_TABLE_MAGIC, __ATOMIC_RELEASE);
}

/*
 * hca_decay_pair() - the count pair of an entry after a decay: @pair is
 * count (low half) and prev_count (high half) as one word, the way the
 * plugin and the driver access them.
 *
 * HCA_DECAY_MOVE: prev_count takes count, count starts again at 0: the
 *	pair holds the accesses of the last two periods and nothing older.
 * HCA_DECAY_SHIFT: prev_count takes the mean of itself and count, rounded
 *	down (a right shift of their sum), count starts again at 0: prev_count
 *	is a history in which the accesses of each earlier period weigh half
 *	as much, so that a page read once a few periods ago still shows them,
 *	as the RFC's engine decrements its counts over time. With count and
 *	prev_count at most HCA_COUNT_MAX, so is the new prev_count.
 */
enum hca_decay_mode { HCA_DECAY_MOVE, HCA_DECAY_SHIFT };

static inline __u64 hca_decay_pair(__u64 pair, enum hca_decay_mode mode)
{
	__u64 count = pair & 0xffffffffULL, prev = pair >> 32;

	if (mode == HCA_DECAY_SHIFT)
		return ((prev + count) >> 1) << 32;
	return count << 32;
}

/*
 * The POWER10 layout (HCA_TABLE_FLAG_FORMAT_P10; the header file has the
 * bits). A count field is a 4-bit exponent e above an @mant_bits-bit
 * mantissa m and holds m * 4^e: hca_p10_value() reads one,
 * hca_p10_field() makes the one for @v, floored to the precision of the
 * smallest exponent whose mantissa holds it, and saturated. The driver
 * decodes the same way (hca_emu_p10_value()).
 */
#define HCA_P10_EXP_MAX		((1U << HCA_P10_EXP_BITS) - 1)

static inline __u64 hca_p10_value(__u64 field, unsigned int mant_bits)
{
	return (field & ((1ULL << mant_bits) - 1)) << (2 * (field >> mant_bits));
}

static inline __u64 hca_p10_field(__u64 v, unsigned int mant_bits)
{
	__u64 mant_max = (1ULL << mant_bits) - 1;
	unsigned int e = 0;

	while (e < HCA_P10_EXP_MAX && v >> (2 * e) > mant_max)
		e++;
	v >>= 2 * e;
	return (__u64)e << mant_bits | (v < mant_max ? v : mant_max);
}

/* the largest count a field can hold */
static inline __u64 hca_p10_max(unsigned int mant_bits)
{
	return hca_p10_value((__u64)HCA_P10_EXP_MAX << mant_bits | ((1ULL << mant_bits) - 1),
			     mant_bits);
}

#define HCA_P10_MASK(f)		(((1ULL << f##_BITS) - 1) << f##_SHIFT)

/* a POWER10 entry with its count field replaced by the one for @count */
static inline __u64 hca_p10_set_count(__u64 word, __u64 count)
{
	return (word & ~HCA_P10_MASK(HCA_P10_COUNT)) |
	       hca_p10_field(count, HCA_P10_COUNT_MANT_BITS) << HCA_P10_COUNT_SHIFT;
}

/* the count of a POWER10 entry */
static inline __u64 hca_p10_count(__u64 word)
{
	return hca_p10_value(HCA_P10_FIELD(word, HCA_P10_COUNT), HCA_P10_COUNT_MANT_BITS);
}

/*
 * hca_p10_decay() - a POWER10 entry after a decay: prev_count takes the
 * count (@mode HCA_DECAY_MOVE) or the mean of both (HCA_DECAY_SHIFT), in
 * its own coarser form; count starts again at 0; the age goes up to
 * HCA_P10_AGE_MAX; the generation bit flips; the time log and socket ids
 * stay.
 */
static inline __u64 hca_p10_decay(__u64 word, enum hca_decay_mode mode)
{
	__u64 count = hca_p10_count(word);
	__u64 prev = hca_p10_value(HCA_P10_FIELD(word, HCA_P10_PREV), HCA_P10_PREV_MANT_BITS);
	__u64 age = HCA_P10_FIELD(word, HCA_P10_AGE);
	__u64 gen = HCA_P10_FIELD(word, HCA_P10_GEN) ^ 1;

	if (mode == HCA_DECAY_SHIFT)
		count = (prev + count) >> 1;
	word &= HCA_P10_MASK(HCA_P10_TIME) | HCA_P10_MASK(HCA_P10_SOCKET);
	word |= hca_p10_field(count, HCA_P10_PREV_MANT_BITS) << HCA_P10_PREV_SHIFT;
	word |= (age < HCA_P10_AGE_MAX ? age + 1 : age) << HCA_P10_AGE_SHIFT;
	word |= gen << HCA_P10_GEN_SHIFT;
	return word;
}

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the table is little-endian and the host side writes it natively"
#endif

_Static_assert(sizeof(struct hca_table_header) == HCA_TABLE_HEADER_SIZE,
	       "the header is HCA_TABLE_HEADER_SIZE bytes, the entries follow");
_Static_assert(__builtin_offsetof(struct hca_entry, count) == 0 &&
	       __builtin_offsetof(struct hca_entry, prev_count) == 4 &&
	       sizeof(struct hca_entry) % 8 == 0 && HCA_TABLE_HEADER_SIZE % 8 == 0,
	       "count and prev_count form one aligned 64-bit word, count low");

#endif /* HCA_TABLE_H */
