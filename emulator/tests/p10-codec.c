// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * p10-codec - known answers of the POWER10 layout's encoding (hca-table.h:
 * hca_p10_field(), hca_p10_value(), hca_p10_decay()) at its edges: the
 * exponent steps of the 12-bit count and the 8-bit prev_count, the floor
 * between steps, saturation, and a decay's fields (prev_count, count, age
 * up to 7, the generation bit, time log and socket ids kept). The bit
 * positions are checked against the header's IBM-numbered description by
 * a decoder written here from that description, not from hca-table.h.
 * Prints each wrong answer; exit status 0 only if all are right.
 */
#include <stdio.h>

#include "../hca-table.h"

static int bad;

/* IBM bit numbering: bits a..b (0 the most significant) of a 64-bit word */
static __u64 ibm(__u64 w, int a, int b)
{
	return (w >> (63 - b)) & ((1ULL << (b - a + 1)) - 1);
}

static void expect(const char *what, __u64 in, __u64 got, __u64 want)
{
	if (got == want)
		return;
	printf("%s(%llu): got %llu, want %llu\n", what, (unsigned long long)in,
	       (unsigned long long)got, (unsigned long long)want);
	bad++;
}

/* the count @v reads back as @want in a count field, and in a prev field */
static void count(__u64 v, __u64 want_exp, __u64 want)
{
	__u64 f = hca_p10_field(v, HCA_P10_COUNT_MANT_BITS);

	expect("count exponent", v, f >> 12, want_exp);
	expect("count value", v, hca_p10_value(f, HCA_P10_COUNT_MANT_BITS), want);
}

static void prev(__u64 v, __u64 want)
{
	expect("prev value", v,
	       hca_p10_value(hca_p10_field(v, HCA_P10_PREV_MANT_BITS), HCA_P10_PREV_MANT_BITS),
	       want);
}

int main(void)
{
	const __u64 cmax = 4095ULL << 30, pmax = 255ULL << 30;
	__u64 w, d;

	count(0, 0, 0);
	count(1, 0, 1);
	count(4095, 0, 4095);
	count(4096, 1, 4096);		/* 1024 * 4 */
	count(4097, 1, 4096);		/* floored to the step of 4 */
	count(4099, 1, 4096);
	count(4100, 1, 4100);
	count(16383, 1, 16380);		/* 4095 * 4 */
	count(16384, 2, 16384);		/* 1024 * 16 */
	count(1000000, 4, 999936);	/* 3906 * 256 */
	count(cmax, 15, cmax);
	count(cmax + 1, 15, cmax);	/* saturated */
	count(~0ULL, 15, cmax);
	expect("count max", 0, hca_p10_max(HCA_P10_COUNT_MANT_BITS), cmax);
	prev(255, 255);
	prev(256, 256);			/* 64 * 4 */
	prev(257, 256);
	prev(1000, 1000);		/* 250 * 4 */
	prev(1001, 1000);
	prev(1023, 1020);
	prev(1024, 1024);		/* 64 * 16 */
	prev(pmax, pmax);
	prev(~0ULL, pmax);

	/* the fields where the header says, by IBM bit numbers */
	w = hca_p10_set_count(0, 1000000);
	expect("count bits 0-3", 1000000, ibm(w, 0, 3), 4);
	expect("count bits 4-15", 1000000, ibm(w, 4, 15), 3906);
	expect("count read back", 1000000, hca_p10_count(w), 999936);

	/* a decay: count 1000, prev 7, age 6, gen 0, time log 5, socket 9 */
	w = hca_p10_set_count(0, 1000) | 7ULL << HCA_P10_PREV_SHIFT |
	    6ULL << HCA_P10_AGE_SHIFT | 5ULL << HCA_P10_TIME_SHIFT | 9;
	d = hca_p10_decay(w, HCA_DECAY_MOVE);
	expect("move: count", 1000, ibm(d, 0, 15), 0);
	expect("move: age bits 16-18", 1000, ibm(d, 16, 18), 7);
	expect("move: gen bit 19", 1000, ibm(d, 19, 19), 1);
	expect("move: prev exponent bits 20-23", 1000, ibm(d, 20, 23), 1);
	expect("move: prev mantissa bits 24-31", 1000, ibm(d, 24, 31), 250);
	expect("move: time log bits 32-38", 1000, ibm(d, 32, 38), 5);
	expect("move: socket bits 39-63", 1000, ibm(d, 39, 63), 9);
	d = hca_p10_decay(d, HCA_DECAY_MOVE);
	expect("move twice: age stays", 1000, ibm(d, 16, 18), 7);
	expect("move twice: gen flips back", 1000, ibm(d, 19, 19), 0);
	expect("move twice: prev", 1000, ibm(d, 20, 31), 0);
	d = hca_p10_decay(w, HCA_DECAY_SHIFT);
	/* (7 + 1000) / 2 = 503, floored to a step of 4: 125 * 4 */
	expect("shift: prev", 1000,
	       hca_p10_value(ibm(d, 20, 31), HCA_P10_PREV_MANT_BITS), 500);
	expect("shift: count", 1000, ibm(d, 0, 15), 0);
	/* saturated counts decay into a saturated prev_count */
	d = hca_p10_decay(hca_p10_set_count(0, cmax), HCA_DECAY_MOVE);
	expect("move max: prev", cmax,
	       hca_p10_value(ibm(d, 20, 31), HCA_P10_PREV_MANT_BITS), pmax);
	return bad != 0;
}
