#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The results.csv rows of one benchmark boot (bench/run.sh), from that
# boot's log and its LOG.cmd only:
#   bench/rows.sh --header          the CSV header
#   bench/rows.sh ARCH RUN SERIES LOG
# One row per "hwage-bench" line of LOG (guest/runners/bench.c), with the
# facts of the boot as it really ran:
#   kernel     hwage.release= of the kernel command line in LOG.cmd
#   qemu       the version of the QEMU binary LOG.cmd ran (the target's)
#   emulator   the options the plugin printed it runs with ("hca: table=..."
#              in LOG), e.g. page:4096/sample:1/decay:100000000/lines:on/
#              truth:on; "none" without the plugin
#   guest_mem  -m of LOG.cmd; phase_secs: hwage.secs= of LOG.cmd; scale:
#              hwage.scale= (the workloads' size factor, 1 without)
#   clock      the guest's clock: icount:N (-icount shift=N: guest time is
#              guest instructions) or host (it follows the host's)
#   boot_wall_s  the boot's wall-clock seconds on the host, from LOG.wall
#              (bench/run.sh writes it), empty without
# and the classification scores of bench/score.sh for the hotcold rows:
# cls_* of the listing at the end of the run phase, aged_* of the one
# right after one more aging (w-hotcold -A, HWAGE_SCORE_LIST=clsa).
# For the tiers-mc rows, bench/tier-share.sh's share of all accesses node
# 0 served, from the ground-truth snapshots the guest took around each run
# of the load: fast_share, fast_best (the best placement's) and
# fast_movable (the best page migration can reach: the pages of node 1 on
# no LRU list, "hwage-tiers-pinned" lines of LOG, stay) averaged over the
# runs, fast_*_last of the last run.
# For the damon and damon-fine rows (one per w-damon run), bench/damon-score.sh
# scores DAMON's views against the truth between the run's snapshots:
# damon_precision, damon_recall (of the pages hot by either), damon_error
# (access-weighted) and damon_truth_hot; the damon-reclaim rows carry
# their own figures (saved_kb, applied_kb, min_age), the damon-quota rows
# theirs (quota_hot, quota_cover).
set -u
COLS="arch run config workload pressure ops_per_s p50_us p99_us ops errors misses exit
limit_kb footprint_kb workingset_refault_anon workingset_refault_file
workingset_activate_anon workingset_activate_file pgscan pgsteal pgmajfault pswpin pswpout
cpu_usec cpu_sys_usec aging_ns aging_calls look_around_ns look_around_calls counts_ns
counts_calls counts_sample_ns counts_sample_calls counts_evict_ns counts_evict_calls
counts_thp_ns counts_thp_calls majflt limit_ms pages resident hot_pages hot_resident huge
limit_majflt subpage_cold subpage_cold_freed even_pages even_huge thp_split_page
thp_sparse_scanned thp_sparse_split thp_sparse_freed thp_collapse_alloc thp_collapse_uneven
khugepaged_ms anon_kb anon_thp_kb
t90_a share_a t90_b share_b precision cold_up candidates promote_fail promoted kpromoted_ms kpromoted_busy_ms kpromoted_move_ms sys_ms
fast_share fast_best fast_movable fast_share_last fast_best_last fast_movable_last
lock_hold_samples lock_hold_ns lock_hold_p99_ns lock_hold_max_ns
putback_hold_samples putback_hold_ns putback_hold_p99_ns putback_hold_max_ns swapped
swapped_cold cls_precision cls_recall cls_design_precision cls_design_recall
truth_agreement aged_precision aged_recall damon_ops sample_us aggr_us kdamond_ms kdamond_warm_ms warm_s views regions
hot_reads damon_precision damon_recall damon_error damon_truth_hot min_age saved_kb applied_kb quota_hot quota_cover secs kernel series qemu emulator guest_mem scale phase_secs clock boot_wall_s log"

if [ "${1:-}" = --header ]; then
	echo $COLS | tr ' ' ,
	exit 0
fi
[ $# = 4 ] || { echo "usage: $0 --header | ARCH RUN SERIES LOG" >&2; exit 1; }
arch=$1 run=$2 series=$3 log=$4
[ -f "$log.cmd" ] || { echo "bench/rows.sh: no $log.cmd: not a boot of run-guest.sh" >&2; exit 1; }

# "word" of the QEMU command line that follows OPTION, or KEY=value of it
read -r -a cmd <"$log.cmd"
arg_after() {
	local i
	for ((i = 0; i < ${#cmd[@]} - 1; i++)); do
		[ "${cmd[i]}" = "$1" ] && { echo "${cmd[i + 1]}"; return; }
	done
}
param() {
	local w
	for w in "${cmd[@]}"; do
		[ "${w#"$1"=}" != "$w" ] && { echo "${w#"$1"=}"; return; }
	done
}
qemu=$("${cmd[0]}" --version 2>/dev/null | sed -n '1s/.*version \([^ ]*\).*/\1/p')
emulator=$(tr -d '\r' <"$log" | sed -n 's/^hca: table=[^ ]* //p' | head -n 1 |
	awk '{ for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "size" || kv[1] == "pages") continue
			if (kv[1] == "truth") kv[2] = "on"
			s = s (s == "" ? "" : "/") kv[1] ":" kv[2]
		}
		print s }')
grep -q 'truth:on' <<<"$emulator" || [ -z "$emulator" ] || emulator+=/truth:off
meta="arch=$arch run=$run kernel=$(param hwage.release) series=$series"
meta+=" qemu=${qemu:-unknown} emulator=${emulator:-none} guest_mem=$(arg_after -m)"
icount=$(arg_after -icount)
clock=host
[ -z "$icount" ] || clock=icount:$(sed -n 's/.*shift=\([0-9]*\).*/\1/p' <<<"$icount")
scale=$(param hwage.scale)
meta+=" scale=${scale:-1} phase_secs=$(param hwage.secs) clock=$clock boot_wall_s=$(cat "$log.wall" 2>/dev/null)"
meta+=" log=$(basename "$log")"

scores=$(bash "$(dirname "$0")/score.sh" "$log")
pinned=$(mktemp)
trap 'rm -f "$pinned"' EXIT
tr -d '\r' <"$log" | grep -a '^hwage-tiers-pinned ' | tr ' ' '\n' | grep -E '^[0-9]+-[0-9]+$' | tr - ' ' >"$pinned"
aged=$(HWAGE_SCORE_LIST=clsa bash "$(dirname "$0")/score.sh" "$log")
tr -d '\r' <"$log" | grep -a '^hwage-bench ' | awk -v meta="$meta" -v cols="$COLS" -v scores="$scores" -v aged="$aged" \
	-v logf="$log" -v here="$(dirname "$0")" -v pinned="$pinned" '
	BEGIN { ncol = split(cols, col, /[ \n]+/); nsc = split(scores, sc, "\n"); split(aged, ag, "\n") }
	{
		delete v
		n = split(meta " " $0, kv, " ")
		for (i = 1; i <= n; i++) if ((j = index(kv[i], "=")) > 0) v[substr(kv[i], 1, j - 1)] = substr(kv[i], j + 1)
		if (v["workload"] == "hotcold" && ++h <= nsc) {
			split(sc[h], s, " ")
			v["cls_precision"] = s[1]; v["cls_recall"] = s[2]
			v["cls_design_precision"] = s[3]; v["cls_design_recall"] = s[4]; v["truth_agreement"] = s[5]
			split(ag[h], s, " ")
			v["aged_precision"] = s[1]; v["aged_recall"] = s[2]
		}
		# tiers-mc: the share of accesses node 0 served, per run, from the truth
		if (v["workload"] == "tiers-mc" && v["truth"] != "") {
			cmd = "bash \"" here "/tier-share.sh\" \"" logf "\" " v["truth"] " " v["node1_pfn"] " " v["node0_pages"] " \"" pinned "\""
			k = ss = sb = sm = 0
			while ((cmd | getline l) > 0) {
				split(l, s, " ")
				if (s[1] == "-") continue
				k++; ss += s[1]; sb += s[2]; sm += s[3]
				v["fast_share_last"] = s[1]; v["fast_best_last"] = s[2]; v["fast_movable_last"] = s[3]
			}
			close(cmd)
			if (k) {
				v["fast_share"] = sprintf("%.4f", ss / k); v["fast_best"] = sprintf("%.4f", sb / k)
				v["fast_movable"] = sprintf("%.4f", sm / k)
			}
		}
		# damon, damon-fine: DAMON view of the run against the truth
		if (v["workload"] ~ /^damon/ && split(v["truth"], tr, ":") == 2) {
			cmd = "bash \"" here "/damon-score.sh\" \"" logf "\" " tr[1] " " tr[2] " " v["secs"] " " v["sample_us"] " " v["aggr_us"]
			if ((cmd | getline l) > 0) {
				split(l, s, " ")
				v["damon_precision"] = s[1]; v["damon_recall"] = s[2]
				v["damon_error"] = s[3]; v["damon_truth_hot"] = s[4]
			}
			close(cmd)
		}
		line = ""
		for (i = 1; i <= ncol; i++) {
			x = (col[i] in v) ? v[col[i]] : ""
			if (x == "-") x = ""
			line = line (i > 1 ? "," : "") x
		}
		print line
	}'
