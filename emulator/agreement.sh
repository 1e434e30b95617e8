#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agreement.sh TABLE TRUTH: how well the counts in an hca table agree with
# the exact ground truth of the same run (plugin options sample=N,truth=):
# Spearman's rank correlation of count + prev_count against the exact count
# over the pages the guest touched, and how many of the 10% hottest pages
# by the truth are also among the 10% hottest by the table.  Run with a
# decay longer than the run, or the table holds only the last two periods,
# and without the ivshmem device, or the guest's driver clears the counts
# of every page it allocates and the table no longer matches the truth.
set -eu
[ $# = 2 ] || { echo "usage: $0 TABLE TRUTH" >&2; exit 2; }
table=$1
truth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# pfn exact sampled, for the pages with an exact count
od -A n -t u4 -v -j 4096 "$table" | awk '{ print NR - 1, $1 + $2 }' >"$tmp/table"
grep -v '^#' "$truth" | sort -k1,1 >"$tmp/truth"
sort -k1,1 "$tmp/table" | join "$tmp/truth" - >"$tmp/both"

# rank COLUMN: "pfn rank" with tied values given their average rank
rank() {
	sort -k"$1","$1"n "$tmp/both" | awk -v c="$1" '
		{ v[NR] = $c; p[NR] = $1 }
		END {
			for (i = 1; i <= NR; i = j) {
				for (j = i; j <= NR && v[j] == v[i]; j++) ;
				for (k = i; k < j; k++) print p[k], (i + j - 1) / 2
			}
		}' | sort -k1,1
}
rank 2 >"$tmp/r_exact"
rank 3 >"$tmp/r_table"
join "$tmp/r_exact" "$tmp/r_table" | awk '
	{ n++; x[n] = $2; y[n] = $3; sx += $2; sy += $3 }
	END {
		if (n < 2) { print "fewer than 2 pages"; exit 1 }
		mx = sx / n; my = sy / n
		for (i = 1; i <= n; i++) {
			a += (x[i] - mx) * (y[i] - my)
			b += (x[i] - mx) ^ 2; c += (y[i] - my) ^ 2
		}
		printf "pages touched: %d\nspearman rho (exact vs count+prev_count): %.4f\n", n, a / sqrt(b * c)
	}'
n=$(wc -l <"$tmp/both")
top=$(((n + 9) / 10))
comm -12 <(sort -k2,2nr "$tmp/both" | head -n "$top" | cut -d' ' -f1 | sort) \
	<(sort -k3,3nr "$tmp/both" | head -n "$top" | cut -d' ' -f1 | sort) | wc -l |
	awk -v t="$top" '{ printf "hottest 10%% (%d pages): %d found by the table (%.1f%%)\n", t, $1, 100 * $1 / t }'
