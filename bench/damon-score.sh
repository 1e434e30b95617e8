#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Score one w-damon run (guest/workloads/w-damon.c) against the emulator's
# ground truth: DAMON's views of the run (the "hwage-damon-view truth=A"
# lines of LOG: regions START:END:NR_ACCESSES) against the accesses of
# each page between the snapshots LOG.truth.A and LOG.truth.B.
#
# For each 4 KiB page of the monitored range (the plugin's page=4096):
#   estimate  the mean over the views of NR_ACCESSES / MAX of its region,
#             MAX = AGGR_US / SAMPLE_US, the share of samples that DAMON
#             found it accessed;
#   truth     its accesses / the sampling intervals in SECS, at most 1:
#             the share a sampler would find if the accesses were spread
#             evenly over the run;
#   hot       a share of at least 0.25 (nr_accesses 5 of 20), by either.
# Prints "precision recall error hot": of the pages DAMON found hot, the
# share hot in truth; of those hot in truth, the share DAMON found; the
# mean of |estimate - truth| weighted by each page's accesses; the pages
# hot in truth. "- - - -" without views or snapshots.
#   damon-score.sh LOG A B SECS SAMPLE_US AGGR_US
set -u
[ $# = 6 ] || { echo "usage: $0 LOG A B SECS SAMPLE_US AGGR_US" >&2; exit 2; }
log=$1 a=$2 b=$3 secs=$4 sample=$5 aggr=$6
if [ ! -f "$log.truth.$a" ] || [ ! -f "$log.truth.$b" ]; then
	echo "- - - -"
	exit 0
fi
tr -d '\r' <"$log" | grep -a "^hwage-damon-view truth=$a " |
	awk -v ta="$log.truth.$a" -v tb="$log.truth.$b" -v secs="$secs" -v sample="$sample" \
	    -v aggr="$aggr" '
	function hot(x) { return x >= 0.25 }
	{
		views++
		for (i = 3; i <= NF; i++) {
			split($i, r, ":")
			lo = int(r[1] / 4096); hi = int(r[2] / 4096)
			if (views == 1 && (first == "" || lo < first)) first = lo
			if (views == 1 && hi > last) last = hi
			for (p = lo; p < hi; p++) est[p] += r[3] / max
		}
	}
	BEGIN {
		max = aggr / sample
		intervals = secs * 1000000 / sample
		while ((getline l < ta) > 0) if (l !~ /^#/) { split(l, f, " "); before[f[1]] = f[2] }
		while ((getline l < tb) > 0) if (l !~ /^#/) { split(l, f, " "); after[f[1]] = f[2] }
	}
	END {
		if (!views || intervals <= 0) { print "- - - -"; exit }
		for (p = first; p < last; p++) {
			acc = (p in after) ? after[p] - before[p] : 0
			if (acc < 0) acc = 0
			t = acc / intervals; if (t > 1) t = 1
			e = est[p] / views
			if (hot(e)) { found++; if (hot(t)) both++ }
			if (hot(t)) truth++
			d = e - t; if (d < 0) d = -d
			werr += acc * d; wacc += acc
		}
		printf "%s %s %s %d\n", found ? sprintf("%.4f", both / found) : "-",
			truth ? sprintf("%.4f", both / truth) : "-",
			wacc ? sprintf("%.4f", werr / wacc) : "-", truth
	}'
