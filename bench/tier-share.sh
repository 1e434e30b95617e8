#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Score where a two-tier guest's accesses were served, from the emulator's
# ground truth: for each pair of consecutive snapshots LOG.truth.A and
# LOG.truth.B of the list A:B:..., the accesses of each page in between
# (its count in B minus its count in A), and of all of them
#   share:   the share that pages of node 0 (page frames below NODE1_PFN)
#            served;
#   best:    the share the best placement would have served: the
#            NODE0_PAGES most accessed pages on node 0 (node 0 manages
#            that many pages; the kernel's own are among the hottest);
#   movable: the same when the pages of node 1 listed in PINNED stay on
#            node 1 (pages on no LRU list, which no promotion moves: the
#            best page migration can reach); best without PINNED.
# Prints "share best movable" per interval, one line each; "- - -" for an
# interval without both snapshots or without accesses.
#   tier-share.sh LOG A:B:... NODE1_PFN NODE0_PAGES [PINNED]
# PINNED: a file of "FIRST LAST" pfn ranges, one a line.
set -u
[ $# = 4 ] || [ $# = 5 ] || { echo "usage: $0 LOG A:B:... NODE1_PFN NODE0_PAGES [PINNED]" >&2; exit 2; }
log=$1 node1=$3 pages=$4 pinned=${5:-/dev/null}
IFS=: read -r -a snaps <<<"$2"
for ((i = 0; i + 1 < ${#snaps[@]}; i++)); do
	A=$log.truth.${snaps[i]} B=$log.truth.${snaps[i + 1]}
	if [ "${snaps[i]}" -lt 0 ] 2>/dev/null || [ "${snaps[i + 1]}" -lt 0 ] 2>/dev/null ||
	   [ ! -f "$A" ] || [ ! -f "$B" ]; then
		echo "- - -"
		continue
	fi
	# "pfn accesses pinned" of the pages that had any, most accessed first
	# (PINNED lists pages of node 1 only)
	awk 'FILENAME == ARGV[1] { for (x = $1; x <= $2; x++) pin[x] = 1; next }
	     FILENAME == ARGV[2] { if ($1 !~ /^#/) a[$1] = $2; next }
	     $1 !~ /^#/ && $2 - a[$1] > 0 { print $1, $2 - a[$1], ($1 in pin) ? 1 : 0 }' \
		"$pinned" "$A" "$B" |
		sort -k2,2nr |
		awk -v node1="$node1" -v pages="$pages" '
			{
				total += $2
				if ($1 + 0 < node1 + 0) fast += $2
				if (NR <= pages + 0) best += $2
				if ($3) next
				if (++m <= pages + 0) mov += $2
			}
			END {
				if (total > 0) printf "%.4f %.4f %.4f\n", fast / total, best / total, mov / total
				else print "- - -"
			}'
done
