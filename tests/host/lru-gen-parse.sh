#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: guest/lib/lru_gen.h, the guest's one parser of lru_gen_full,
# on a made-up file with two memcgs of two nodes each: the aging, counts
# and lru_lock hold lines, and the promotion walk's folios of the hotness
# lines (the old two-number form too), are summed over the nodes of the
# memcg asked for (a counts line without the thp pair of patch 16 counts
# it 0, one with it adds it), a line cut short is not taken, a memcg
# without such lines reads -1, lru_gen_delta() counts a counter absent at
# the start from 0, and lru_gen_hold_quantile() gives the bounds worked
# out by hand below.
set -u
here=$(dirname "$0")
. "$here/../../harness/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 7

z30=$(printf ' 0%.0s' $(seq 30))
cat >"$tmp/lru_gen_full" <<EOF2
memcg     1 /
 node     0
  hotness max          0 min          0
          3       1000          5          7
                      0          1          0          0
  aging ns 100 calls 1 look_around ns 0 calls 0
  counts ns 50 calls 5 sample ns 30 calls 3 evict ns 20 calls 2
  lru_lock_hold isolate ns 9999 holds 1 log2_ns 1$z30 0
  lru_lock_hold putback ns 0 holds 0 log2_ns 0$z30 0
memcg     7 /hwage-bench-1
 node     0
  hotness max        640 min         64 threshold anon 256 file 0 walked 100 promoted 30
          4       2000         11         13
  aging ns 1000 calls 2 look_around ns 5 calls 1
  counts ns 500 calls 50 sample ns 300 calls 30 evict ns 200 calls 20
  lru_lock_hold isolate ns 5000 holds 100 log2_ns 0 0 0 0 0 0 0 0 0 0 90 9 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
  lru_lock_hold putback ns 700 holds 3 log2_ns 0 0 0 0 0 0 0 0 0 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 node     1
  hotness max        900 min          1 threshold anon 128 file 64 walked 10 promoted 3
          4       2000          1          1
  aging ns 1 calls 1 look_around ns 0 calls 0
  counts ns 12 calls 5 sample ns 3 calls 1 evict ns 2 calls 1 thp ns 7 calls 3
  lru_lock_hold isolate ns 3 holds 1 log2_ns 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1
  lru_lock_hold putback ns 9 holds 1 log2_ns 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
EOF2

cat >"$tmp/p.c" <<'EOF2'
#include "lru_gen.h"

int main(int argc, char **argv)
{
	struct lru_gen_scan s;
	int i, k;

	if (lru_gen_scan(argv[1], argc > 2 ? argv[2] : NULL, -1, -1, &s))
		return 1;
	printf("nodes %d aging %lld %lld %lld %lld counts", s.nodes, s.aging[0], s.aging[1],
	       s.aging[2], s.aging[3]);
	for (i = 0; i < 2 * LG_NR_COUNTS; i++)
		printf(" %lld", s.counts[i]);
	printf(" hot %lld walked %lld promoted %lld\n", s.hot_max, s.walked, s.promoted);
	for (k = 0; k < LG_NR_HOLDS; k++) {
		long long sum = 0;

		for (i = 0; i < LG_HOLD_BUCKETS; i++)
			sum += s.hold[k].hist[i];
		printf("hold %d lines %d ns %lld holds %lld sum %lld p50 %lld p99 %lld max %lld\n", k,
		       s.hold_lines[k], s.hold[k].ns, s.hold[k].holds, sum,
		       lru_gen_hold_quantile(s.hold[k].hist, 0.5),
		       lru_gen_hold_quantile(s.hold[k].hist, 0.99),
		       lru_gen_hold_quantile(s.hold[k].hist, 1));
	}
	printf("delta %lld %lld %lld\n", lru_gen_delta(5, -1), lru_gen_delta(-1, 3),
	       lru_gen_delta(9, 4));
	return 0;
}
EOF2
cc -O2 -Wall -Wextra -Werror -Wno-unused-parameter -I"$here/../../guest/lib" -o "$tmp/p" "$tmp/p.c" \
	2>"$tmp/err"
ktap_ok builds $? "$(cat "$tmp/err")" || ktap_done

out=$("$tmp/p" "$tmp/lru_gen_full" /hwage-bench-1)
want="nodes 2 aging 1001 3 5 1 counts 512 55 303 31 202 21 7 3 hot 900 walked 110 promoted 33"
[ "$(sed -n 1p <<<"$out")" = "$want" ]
ktap_ok aging_and_counts_summed_over_nodes $? "got:  $(sed -n 1p <<<"$out")" "want: $want"

# isolate: node 0's 90 + 9 + 1 holds in buckets 10-12 and node 1's one
# hold in the open bucket 31. Of 101 holds, the 51st (p50) is in bucket 10
# (below 2^11 = 2048 ns), the 100th (p99: ceil(0.99 * 101) = 100) in
# bucket 12 (90 + 9 are below it; below 8192), the longest in bucket 31
# (2^32).
want="hold 0 lines 2 ns 5003 holds 101 sum 101 p50 2048 p99 8192 max 4294967296"
[ "$(sed -n 2p <<<"$out")" = "$want" ]
ktap_ok isolate_histogram_and_quantiles $? "got:  $(sed -n 2p <<<"$out")" "want: $want"

# putback: node 1's line has 31 buckets only, so it is not taken; node
# 0's 3 holds are all in bucket 9 (below 1024 ns).
want="hold 1 lines 1 ns 700 holds 3 sum 3 p50 1024 p99 1024 max 1024"
[ "$(sed -n 3p <<<"$out")" = "$want" ]
ktap_ok short_hold_line_ignored $? "got:  $(sed -n 3p <<<"$out")" "want: $want"

# the root memcg: bucket 0 counts a hold below 2 ns (its bound is 2);
# no holds at all have no quantile
out=$("$tmp/p" "$tmp/lru_gen_full" /)
want="hold 0 lines 1 ns 9999 holds 1 sum 1 p50 2 p99 2 max 2"
[ "$(sed -n 2p <<<"$out")" = "$want" ] &&
	[ "$(sed -n 3p <<<"$out")" = "hold 1 lines 1 ns 0 holds 0 sum 0 p50 -1 p99 -1 max -1" ]
ktap_ok bucket_0_and_no_holds $? "got:" "$out"

# a memcg the file does not show: every value -1
out=$("$tmp/p" "$tmp/lru_gen_full" /nosuch)
want="nodes 0 aging -1 -1 -1 -1 counts -1 -1 -1 -1 -1 -1 -1 -1 hot -1 walked 0 promoted 0"
[ "$(sed -n 1p <<<"$out")" = "$want" ] &&
	[ "$(sed -n 2p <<<"$out")" = "hold 0 lines 0 ns -1 holds -1 sum -32 p50 -1 p99 -1 max -1" ]
ktap_ok absent_memcg_reads_minus_1 $? "got:" "$out"

# a counter absent at the start counts from 0, absent at the end is -1
[ "$(sed -n 4p <<<"$out")" = "delta 5 -1 5" ]
ktap_ok delta_from_absent_start $? "got: $(sed -n 4p <<<"$out") (want delta 5 -1 5)"
ktap_done
