#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Score w-hotcold's classification in one guest log against the emulator's
# ground truth. For each run of w-hotcold in the log (its "result" line
# ends it; in order) prints
#   precision recall design_precision design_recall truth_agreement
# or "- - - - -" when the log has no classification for it.
#
# From the log: "truth begin=A end=B" (the ground-truth snapshots LOG.truth.A
# and LOG.truth.B taken at the start and the end of the run phase) and the
# "cls pfn:gen_age:hot ..." lines, one entry per resident page of the
# workload. The accesses of a page during the run are its count in B minus
# its count in A. The truly hot pages are the k resident pages with the
# most accesses, k being the number of resident pages hot by design; the
# young pages are those in the HWAGE_BENCH_YOUNG (1) youngest generations
# that hold any of the listed pages. (Right after an aging by page table
# walk the youngest generation is empty: the walk moves what it finds
# accessed into the generation that was the youngest, then makes a new
# one. Scores before 2026-12-04 evening counted the youngest generation
# even then, as "-" precision and recall 0.)
# HWAGE_SCORE_LIST=clsa scores the "clsa" lines instead, the listing that
# w-hotcold -A makes right after one more aging (a run without them then
# scores "- - - - -").
#   precision = |young and truly hot| / |young|
#   recall    = |young and truly hot| / |truly hot|
# design_* score the same against the hot set by construction, and
# truth_agreement is the share of the truly hot pages that are hot by
# design (how well the workload's intent shows in the real accesses).
#   score.sh LOG
set -u
log=$1
young=${HWAGE_BENCH_YOUNG:-1}
list=${HWAGE_SCORE_LIST:-cls}
case $list in
cls | clsa) ;;
*) echo "score.sh: HWAGE_SCORE_LIST=$list: want cls or clsa" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Split the log into one file of "pfn age hot" lines per hotcold
# measurement; list "index begin end" in $tmp/index.
tr -d '\r' <"$log" | awk -v dir="$tmp" -v list="$list" '
	/truth begin=/ { for (i = 1; i <= NF; i++) { if ($i ~ /^begin=/) b = substr($i, 7); if ($i ~ /^end=/) e = substr($i, 5) } }
	$0 ~ "(^| )" list " " { for (i = 1; i <= NF; i++) if ($i ~ /:/) { split($i, f, ":"); print f[1], f[2], f[3] > (dir "/cls." n) } }
	/(^|# )result .*hot_pages=/ { print n, (b == "" ? -1 : b), (e == "" ? -1 : e) > (dir "/index"); close(dir "/cls." n); n++; b = e = "" }
	BEGIN { n = 0 }'
[ -f "$tmp/index" ] || exit 0

while read -r i b e; do
	A=$log.truth.$b
	B=$log.truth.$e
	if [ ! -s "$tmp/cls.$i" ] || [ "$b" -lt 0 ] || [ "$e" -lt 0 ] || [ ! -f "$A" ] || [ ! -f "$B" ]; then
		echo "- - - - -"
		continue
	fi
	# pfn (hex) age hot -> pfn (decimal) accesses age hot, most accessed first
	awk 'FILENAME == ARGV[1] { if ($1 !~ /^#/) a[$1] = $2; next }
	     FILENAME == ARGV[2] { if ($1 !~ /^#/) c[$1] = $2 - a[$1]; next }
	     {
		pfn = 0; h = tolower($1)
		for (j = 1; j <= length(h); j++) pfn = pfn * 16 + index("0123456789abcdef", substr(h, j, 1)) - 1
		print pfn, (pfn in c ? c[pfn] : 0), $2, $3
	     }' "$A" "$B" "$tmp/cls.$i" | sort -k2,2nr -k1,1n >"$tmp/scored"
	awk -v young="$young" '
		{ n++; pfn[n] = $1; age[n] = $3; hot[n] = $4; k += $4; if ($3 >= 0 && (min == "" || $3 < min)) min = $3 }
		END {
			for (j = 1; j <= n; j++) {
				th = j <= k; y = min != "" && age[j] >= min && age[j] < min + young
				ny += y; nt += th; yt += y && th; yd += y && hot[j]; td += th && hot[j]
			}
			printf "%s %s %s %s %s\n", ny ? sprintf("%.3f", yt / ny) : "-", nt ? sprintf("%.3f", yt / nt) : "-",
				ny ? sprintf("%.3f", yd / ny) : "-", k ? sprintf("%.3f", yd / k) : "-",
				nt ? sprintf("%.3f", td / nt) : "-"
		}' "$tmp/scored"
done <"$tmp/index"
