#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo's report: from the log of a demo boot (guest/runners/demo.c)
# and the emulator's ground-truth snapshots beside it (LOG.truth.N), for
# each configuration (base: stock MGLRU, hca: aging from the access
# counts) a table of where its resident pages sat in the generations at the
# end of the run phase, hot and cold apart, and a picture of it,
# OUTDIR/demo-CONFIG.png (stacked bars, with gnuplot, beside a bar of the
# pages swapped out at the end); then a short table, a line per
# configuration: how well its generations order the pages (of the k
# youngest resident pages, k being the hot ones, the share that is hot,
# against a random order's), and the run phase's evictions, refaults,
# swap-ins and ops/s.
#
# Hot and cold come from the ground truth: a page's accesses during the run
# phase are its count in snapshot "end" minus its count in snapshot "begin"
# (the log's "truth begin=A end=B"), and the truly hot pages are the k most
# accessed resident pages, k being the number of resident pages hot by
# design (the same rule as bench/score.sh). Without the snapshots the
# report falls back to the workload's design and says so.
#   demo-report.sh LOG OUTDIR
set -u
[ $# = 2 ] || { echo "usage: $0 LOG OUTDIR" >&2; exit 2; }
log=$1
out=$2
[ -r "$log" ] || { echo "hwage: demo-report: cannot read $log" >&2; exit 1; }
mkdir -p "$out" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One file of "pfn age hot" lines per configuration ($tmp/cls.N) and in
# $tmp/index "N begin end" followed by the fields of its hwage-demo line.
tr -d '\r' <"$log" | awk -v dir="$tmp" '
	BEGIN { n = 0 }
	/(^|# )truth begin=/ {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^begin=/) b = substr($i, 7)
			if ($i ~ /^end=/) e = substr($i, 5)
		}
	}
	/(^|# )cls / {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9a-fA-F]+:-?[0-9]+:[01]$/) {
				split($i, f, ":")
				print f[1], f[2], f[3] > (dir "/cls." n)
			}
	}
	/^hwage-demo config=/ {
		close(dir "/cls." n)
		print n, (b == "" ? -1 : b), (e == "" ? -1 : e), substr($0, 12) > (dir "/index")
		n++
		b = e = ""
	}'
[ -s "$tmp/index" ] || { echo "hwage: demo-report: no demo results (hwage-demo lines) in $log" >&2; exit 1; }

# field KEY FIELDS...: the value of KEY=VALUE among the fields, or -
field() {
	local k=$1 f
	shift
	for f; do
		[ "${f%%=*}" = "$k" ] && { echo "${f#*=}"; return; }
	done
	echo -
}

# classify N: "age hot" lines of configuration N into $tmp/pages.N (hot
# from the ground truth when its snapshots are there); prints where hot and
# cold came from
classify() {
	local n=$1 b=$2 e=$3 A B
	A=$log.truth.$b
	B=$log.truth.$e
	if [ ! -s "$tmp/cls.$n" ]; then
		: >"$tmp/pages.$n"
		echo "none (no cls lines in the log)"
		return
	fi
	if [ "$b" -lt 0 ] || [ "$e" -lt 0 ] || [ ! -f "$A" ] || [ ! -f "$B" ]; then
		awk '{ print $2, $3 }' "$tmp/cls.$n" >"$tmp/pages.$n"
		if [ "$b" -lt 0 ] || [ "$e" -lt 0 ]; then
			echo "by design (no ground truth in this boot: make demo with HWAGE_HCA_TRUTH=1)"
		else
			echo "by design (no ground-truth snapshot $([ -f "$A" ] && echo "$B" || echo "$A"))"
		fi
		return
	fi
	# pfn (hex) age hot -> pfn (decimal) accesses age hot, most accessed
	# first; the first k (hot by design) of them are truly hot
	awk 'FILENAME == ARGV[1] { if ($1 !~ /^#/) a[$1] = $2; next }
	     FILENAME == ARGV[2] { if ($1 !~ /^#/) c[$1] = $2 - a[$1]; next }
	     {
		pfn = 0; h = tolower($1)
		for (j = 1; j <= length(h); j++) pfn = pfn * 16 + index("0123456789abcdef", substr(h, j, 1)) - 1
		print pfn, (pfn in c ? c[pfn] : 0), $2, $3
	     }' "$A" "$B" "$tmp/cls.$n" | sort -k2,2nr -k1,1n |
		awk '{ age[NR] = $3; k += $4 } END { for (i = 1; i <= NR; i++) print age[i], i <= k }' \
			>"$tmp/pages.$n"
	echo "ground truth (the emulator's exact access counts in the run phase, snapshots $b and $e)"
}

# the oldest generation age any configuration has, so the tables and the
# pictures have the same rows
maxage=0
while read -r n b e rest; do
	src[n]=$(classify "$n" "$b" "$e")
	m=$(awk 'BEGIN { m = 0 } $1 > m { m = $1 } END { print m }' "$tmp/pages.$n")
	[ "$m" -le "$maxage" ] || maxage=$m
done <"$tmp/index"

first=1
ymax=1
ymax2=1
while read -r n b e rest; do
	# shellcheck disable=SC2086
	set -- $rest
	config=$(field config "$@")
	skipped=$(field skipped "$@")
	if [ "$first" = 1 ] && [ "$skipped" = - ]; then
		echo "w-hotcold: $(field hot_pages "$@") pages hot by design (90% of the operations)," \
			"$(field cold_pages "$@") cold, in a memcg of $(($(field limit_kb "$@") / 1024)) MiB;" \
			"$(printf %.0f "$(field secs "$@")") s of operations per configuration"
		first=0
	fi
	echo
	case $config in
	base) what="stock MGLRU (counter aging off)" ;;
	hca) what="MGLRU aging from the access counts" ;;
	*) what=$config ;;
	esac
	if [ "$skipped" != - ]; then
		echo "$config: $what: skipped ($skipped)"
		continue
	fi
	echo "$config: $what; hot and cold: ${src[n]}"
	# "label<TAB>hot<TAB>cold": the generations, youngest first, then the
	# pages off the LRU lists (isolated by reclaim at that moment) and the
	# pages swapped out at the end (hot or cold by design)
	awk -v maxage="$maxage" -v swapped="$(field swapped "$@")" -v scold="$(field swapped_cold "$@")" '
		{ if ($1 < 0) { off[$2]++ } else { g[$1, $2]++ } }
		END {
			for (a = 0; a <= maxage; a++)
				printf "%s\t%d\t%d\n", a == 0 ? "0 (youngest)" : a, g[a, 1], g[a, 0]
			if (off[0] + off[1])
				printf "off the lists\t%d\t%d\n", off[1], off[0]
			if (swapped != "-")
				printf "swapped out (by design)\t%d\t%d\n", swapped - scold, scold
		}' "$tmp/pages.$n" >"$tmp/gens.$n"
	printf '  %-24s %6s %6s  %9s\n' generation hot cold "hot share"
	awk -F '\t' '{
		printf "  %-24s %6d %6d  %9s\n", $1, $2, $3, $2 + $3 ? sprintf("%.0f%%", 100 * $2 / ($2 + $3)) : "-"
	}' "$tmp/gens.$n"
	# how well the generations order the pages: of the k youngest pages in
	# the generations, k being the hot ones among them, the share that is
	# hot (the pages of the generation where the k-th falls counted pro
	# rata); 100% is a perfect order, and any order that ignores hotness
	# gets, on average, the share of hot pages overall: "chance"
	read -r k young chance < <(awk -F '\t' '
		$1 ~ /^[0-9]/ { n++; h[n] = $2; c[n] = $3; k += $2; all += $2 + $3 }
		END {
			left = k
			for (i = 1; i <= n && left > 0; i++) {
				t = h[i] + c[i]
				take = t < left ? t : left
				got += h[i] * take / t
				left -= take
			}
			if (k) printf "%d %.0f%% %.0f%%\n", k, 100 * got / k, 100 * k / all
			else print "0 - -"
		}' "$tmp/gens.$n")
	echo "  order: of the $k youngest pages, $young are hot (taken at random: $chance)"
	echo "  run phase: $(field ops_per_s "$@") ops/s; evicted $(field evicted "$@") pages," \
		"refaulted $(field refaulted "$@"), swapped in $(field swapins "$@")"
	# the highest bars, the same scale in every picture
	read -r m1 m2 < <(awk -F '\t' 'BEGIN { g = s = 1 }
		$1 ~ /^[0-9]/ && $2 + $3 > g { g = $2 + $3 }
		$1 ~ /^swapped/ && $2 + $3 > s { s = $2 + $3 }
		END { print g, s }' "$tmp/gens.$n")
	[ "$m1" -le "$ymax" ] || ymax=$m1
	[ "$m2" -le "$ymax2" ] || ymax2=$m2
	printf '  %-6s  %6s  %6s  %6s  %8s  %9s  %8s  %8s\n' "$config" "$k" "$young" "$chance" \
		"$(field evicted "$@")" "$(field refaulted "$@")" "$(field swapins "$@")" \
		"$(field ops_per_s "$@")" >>"$tmp/short"
	echo "$n $config $what; hot and cold: ${src[n]%% (*}|of the $k youngest pages, $young are hot (at random: $chance)" >>"$tmp/plots"
done <"$tmp/index"

[ -s "$tmp/short" ] || exit 0
echo
echo "in short: of the k youngest resident pages (k: the hot ones), the share that is hot, against"
echo "a random order's; then the run phase's evictions, refaults, swap-ins and ops/s"
printf '  %-6s  %6s  %6s  %6s  %8s  %9s  %8s  %8s\n' config k hot random evicted refaulted \
	swap-ins ops/s
cat "$tmp/short"

if ! command -v gnuplot >/dev/null; then
	echo "no gnuplot (apt-get install gnuplot-nox): no pictures"
	exit 0
fi
ymax=$(((ymax * 11 + 9) / 10))
ymax2=$(((ymax2 * 11 + 9) / 10))
while read -r n config what; do
	sub=${what#*|}
	what=${what%%|*}
	awk -F '\t' '$1 ~ /^[0-9]/ { printf "\"%s\" %d %d\n", $1, $2, $3 > (FILENAME ".gens") }
		$1 ~ /^swapped/ { printf "\"at the end\" %d %d\n", $2, $3 > (FILENAME ".out") }' "$tmp/gens.$n"
	[ -s "$tmp/gens.$n.out" ] || echo '"at the end" 0 0' >"$tmp/gens.$n.out"
	gnuplot <<EOF || echo "warning: gnuplot failed for $config"
set terminal pngcairo size 760,440 font ",9" noenhanced
set output "$out/demo-$config.png"
set multiplot title "$config: $what"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set grid ytics
set ylabel "pages"
set key top right
set origin 0, 0
set size 0.72, 0.94
set title "resident, by generation (0 the youngest)\n$sub"
set yrange [0:$ymax]
plot "$tmp/gens.$n.gens" using 2:xtic(1) title "hot" lc rgb "#c0504d", "" using 3 title "cold" lc rgb "#4878a8"
set origin 0.72, 0
set size 0.28, 0.94
set title "swapped out (by design)"
unset ylabel
set yrange [0:$ymax2]
unset key
plot "$tmp/gens.$n.out" using 2:xtic(1) lc rgb "#c0504d", "" using 3 lc rgb "#4878a8"
unset multiplot
EOF
	[ -s "$out/demo-$config.png" ] && echo "picture: $out/demo-$config.png"
done <"$tmp/plots"
