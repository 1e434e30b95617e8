// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decay-pair - known answers of hca_decay_pair() (hca-table.h), the count
 * pair of an entry after a decay in each decay mode, at the edges: empty,
 * count only, prev_count only, odd sums, both at HCA_COUNT_MAX. Prints
 * each wrong answer; exit status 0 only if all are right.
 */
#include <stdio.h>

#include "../hca-table.h"

#define PAIR(prev, count) (((__u64)(prev) << 32) | (count))

static int check(const char *mode, enum hca_decay_mode m, __u64 prev, __u64 count,
		 __u64 want_prev)
{
	__u64 got = hca_decay_pair(PAIR(prev, count), m);

	if (got == PAIR(want_prev, 0))
		return 0;
	printf("%s: prev %llu count %llu: got prev %llu count %llu, want prev %llu count 0\n",
	       mode, (unsigned long long)prev, (unsigned long long)count,
	       (unsigned long long)(got >> 32), (unsigned long long)(got & 0xffffffffULL),
	       (unsigned long long)want_prev);
	return 1;
}

int main(void)
{
	const __u64 max = HCA_COUNT_MAX;
	int bad = 0;

	bad += check("move", HCA_DECAY_MOVE, 0, 0, 0);
	bad += check("move", HCA_DECAY_MOVE, 0, 7, 7);
	bad += check("move", HCA_DECAY_MOVE, 500, 0, 0);
	bad += check("move", HCA_DECAY_MOVE, 500, 7, 7);
	bad += check("move", HCA_DECAY_MOVE, max, max, max);
	bad += check("shift", HCA_DECAY_SHIFT, 0, 0, 0);
	bad += check("shift", HCA_DECAY_SHIFT, 0, 7, 3);
	bad += check("shift", HCA_DECAY_SHIFT, 1, 0, 0);
	bad += check("shift", HCA_DECAY_SHIFT, 500, 0, 250);
	bad += check("shift", HCA_DECAY_SHIFT, 500, 7, 253);
	bad += check("shift", HCA_DECAY_SHIFT, 1000, 1000, 1000);
	bad += check("shift", HCA_DECAY_SHIFT, max, 0, max >> 1);
	bad += check("shift", HCA_DECAY_SHIFT, max, max, max);
	bad += check("shift", HCA_DECAY_SHIFT, max - 1, max, max - 1);
	return bad != 0;
}
