#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: bench/score.sh and bench/report.sh on a guest
# log and ground-truth snapshots made up here, with known answers.
set -u
S=$(dirname "$0")/../../bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../../harness/ktap.sh"
ktap_plan 14

# Pages (pfn 0x10-0x14): 0x10 and 0x11 hot by design; during the run 0x10,
# 0x11 and 0x13 were accessed most (100, 90, 45), and 0x10, 0x11, 0x13 sit
# in the youngest generation. Truly hot = the top 2: 0x10 and 0x11.
log=$tmp/guest.log
cat >"$log" <<'LOG'
[ppc64le 1.0s] hwage-init: mode bench
    # 64 pages of 4096 bytes
truth begin=1 end=2
# cls 10:0:1 11:0:1 12:2:0
# cls 13:0:0 14:3:0
# result ops=1 ops_per_s=100 hot_pages=2 cold_pages=3 swapped=10 swapped_cold=9 errors=0
hwage-bench config=hca workload=hotcold pressure=1.2 ops_per_s=100 errors=0 swapped=10 swapped_cold=9
# result ops=1 ops_per_s=50 gets=1 sets=0 misses=0 errors=0
hwage-bench config=hca workload=memcached pressure=1.2 ops_per_s=50 errors=0 misses=0
# result ops=1 ops_per_s=80 hot_pages=2 cold_pages=3 swapped=0 swapped_cold=0 errors=0
hwage-bench config=hca workload=hotcold pressure=2 ops_per_s=80 errors=0
LOG
printf '# hwage hca ground truth\n16 5\n17 5\n18 5\n19 5\n20 5\n' >"$log.truth.1"
printf '# hwage hca ground truth\n16 105\n17 95\n18 6\n19 50\n20 5\n' >"$log.truth.2"
out=$(bash "$S/score.sh" "$log")
want="0.667 1.000 0.667 1.000 1.000
- - - - -"
[ "$out" = "$want" ]
ktap_ok score_against_truth $? "got:" "$out" "want:" "$want"

out=$(HWAGE_BENCH_YOUNG=3 bash "$S/score.sh" "$log" | head -n 1)
[ "$out" = "0.500 1.000 0.500 1.000 1.000" ]
ktap_ok young_generations_setting $? "got: $out (want 0.500 1.000 0.500 1.000 1.000)"

# The listing after one more aging (w-hotcold -A): 0x13 left the youngest
# generation, so it holds exactly the truly hot pages; the plain listing
# is scored as before.
sed -i 's/^# cls 13:0:0 14:3:0$/&\n# clsa 10:0:1 11:0:1 12:3:0\n# clsa 13:1:0 14:3:0/' "$log"
out=$(HWAGE_SCORE_LIST=clsa bash "$S/score.sh" "$log" | tr '\n' /)
want="1.000 1.000 1.000 1.000 1.000/- - - - -/"
[ "$out" = "$want" ] && [ "$(bash "$S/score.sh" "$log" | head -n 1)" = "0.667 1.000 0.667 1.000 1.000" ]
ktap_ok score_after_one_more_aging $? "got: $out" "want: $want"

# Right after a page table walk the youngest generation is empty: the
# youngest one holding pages counts (here age 1: 0x10, 0x11 and 0x13).
sed -i 's/^# cls 10:0:1 11:0:1 12:2:0$/# cls 10:1:1 11:1:1 12:3:0/; s/^# cls 13:0:0 14:3:0$/# cls 13:1:0 14:3:0/' "$log"
out=$(bash "$S/score.sh" "$log" | head -n 1)
grep -q '^# cls 10:1:1 11:1:1 12:3:0$' "$log" && grep -q '^# cls 13:1:0 14:3:0$' "$log" &&
	[ "$out" = "0.667 1.000 0.667 1.000 1.000" ]
ktap_ok youngest_generation_with_pages $? "got: $out (want 0.667 1.000 0.667 1.000 1.000)"

rm "$log.truth.2"
out=$(bash "$S/score.sh" "$log" | head -n 1)
[ "$out" = "- - - - -" ]
ktap_ok missing_snapshot_scores_nothing $? "got: $out"

# The report: medians, spread and ratios to base with their interval, and
# the figures per unit of work. hca's refaults per 1000 operations: 100 /
# 2 = 50 in both runs, base's 300 / 1, 100 / 1, 200 / 2 = 300, 100, 100;
# so the ratio is 50 / 100 = 0.50 and every resample gives 50 over 100 or
# 300: the interval [0.17, 0.50] excludes 1. Aging per reclaimed page:
# 4000 / 10 = 400 ns (hca) against 1000 ns (base). ops/s: a resample
# median of hca's {250, 210} is 210 with probability 1/4 and one of base's
# {100, 300, 200} is 300 with probability 7/27, so the lowest ratio, 210 /
# 300 = 0.70, has more than 2.5% and is the interval's low end; 2.50 (250 /
# 100) likewise its high end. The coefficient of variation of ops/s:
# base's {100, 300, 200} has mean 200 and standard deviation 100: 50.0%;
# hca's {250, 210} mean 230, standard deviation 28.28: 12.3%. The reading
# cost per reclaimed page counts aging, look-around and the counts once,
# the counts' sampling being part of the aging: base (10000 + 2000 + 0 - 0) / 10 = 1200 ns, hca (4000 + 0 +
# 3000 - 1000) / 10 = 600 ns, 0.50 of base in every resample; the isolate
# hold is the median p99 and max of the runs: base 8192 and 65536 ns, hca
# 16384 and (131072 + 262144) / 2 = 196608 ns.
mkdir "$tmp/b"
{
	echo "arch,run,config,workload,pressure,ops_per_s,p99_us,ops,errors,misses,exit,workingset_refault_anon,workingset_refault_file,pgscan,pgsteal,pgmajfault,pswpin,aging_ns,swapped,swapped_cold,look_around_ns,counts_ns,counts_sample_ns,lock_hold_p99_ns,lock_hold_max_ns"
	echo "x86_64,1,base,hotcold,2,100,10,1000,0,,0,300,0,20,10,30,40,10000,10,9,2000,0,0,8192,65536"
	echo "x86_64,2,base,hotcold,2,300,10,1000,0,,0,100,0,20,10,30,40,10000,10,9,2000,0,0,8192,65536"
	echo "x86_64,3,base,hotcold,2,200,10,2000,0,,0,200,0,20,10,30,40,10000,10,9,2000,0,0,8192,65536"
	echo "x86_64,1,hca,hotcold,2,250,10,2000,0,,0,100,0,40,10,60,80,4000,10,10,0,3000,1000,16384,131072"
	echo "x86_64,2,hca,hotcold,2,210,10,2000,1,,1,100,0,40,10,60,80,4000,10,10,0,3000,1000,16384,262144"
} >"$tmp/b/results.csv"
out=$(HWAGE_TOP=$S/.. bash "$S/report.sh" "$tmp/b" 2>&1)
grep -q '^| x86_64 | hotcold | 2x | base | 3 | 200 (100-300) | 50.0% | 1.00 | - |' <<<"$out" &&
	grep -q '^| x86_64 | hotcold | 2x | hca | 2 (1 failed) | 230 (210-250) | 12.3% | 1.15 \[0.70, 2.50\] | no | 10 (10-10) | 100 (100-100) | 0.50 |' <<<"$out"
ktap_ok report_medians_and_ratios $? "$out"
grep -q '^| x86_64 | hotcold | 2x | hca | 50 (50-50) | 0.50 \[0.17, 0.50\] | yes | 30 (30-30) | 40 (40-40) | 4 (4-4) | 400 (400-400) | 0.40 \[0.40, 0.40\] | yes |' <<<"$out"
ktap_ok report_per_unit_of_work $? "$out"
grep -q '^| x86_64 | hotcold | 2x | base | .* | 200 (200-200) | 0 (0-0) | 1200 (1200-1200) | 1.00 | - | 8.19/65.5 |$' <<<"$out" &&
	grep -q '^| x86_64 | hotcold | 2x | hca | .* | 0 (0-0) | 300 (300-300) | 600 (600-600) | 0.50 \[0.50, 0.50\] | yes | 16.4/197 |$' <<<"$out"
ktap_ok report_reading_cost_and_lock_hold $? "$out"
[ -s "$tmp/b/x86_64-hotcold.png" ] || ! command -v gnuplot >/dev/null
ktap_ok report_plots $? "$(ls "$tmp/b")"

# The scale sweep: a target run at 1G and 2G gets a table over the sizes.
# Reading cost (aging + look-around + counts - sampling) / pgsteal: 1G
# (3000 + 1000 + 0 - 0) / 20 = 200 ns, 2G (6000 + 2000) / 20 = 400 ns; the
# worst hold is the longest of the runs: 1G 131.072 and 65.536 us -> 131.
mkdir "$tmp/s"
{
	echo "arch,run,config,workload,pressure,ops_per_s,ops,errors,misses,exit,pgsteal,aging_ns,look_around_ns,counts_ns,counts_sample_ns,lock_hold_p99_ns,lock_hold_max_ns,guest_mem,scale"
	echo "ppc64le,1,base,hotcold,1.2,100,1000,0,,0,20,3000,1000,0,0,8192,131072,1024M,1"
	echo "ppc64le,2,base,hotcold,1.2,100,1000,0,,0,20,3000,1000,0,0,8192,65536,1024M,1"
	echo "ppc64le,1,base,hotcold,1.2,90,1000,0,,0,20,6000,2000,0,0,8192,262144,2048M,2"
} >"$tmp/s/results.csv"
out=$(HWAGE_TOP=$S/.. bash "$S/report.sh" "$tmp/s" 2>&1)
grep -q '^| ppc64le | 1G | hotcold | 1.2x | base | 2 | 100 (100-100) | 150 (150-150) | 200 (200-200) | 8.19 (8.19-8.19) | 131 |$' <<<"$out" &&
	grep -q '^| ppc64le | 2G | hotcold | 1.2x | base | 1 | 90 | 300 | 400 | 8.19 | 262 |$' <<<"$out" &&
	{ [ -s "$tmp/s/sweep-ppc64le-hotcold.png" ] || ! command -v gnuplot >/dev/null; }
ktap_ok report_scale_sweep $? "$out"

# The huge page table (workload thp): resident pages, the share of hot
# pages kept (base: 4300 and 4400 of 4608, 0.933 and 0.955), pages mapped
# huge, major faults with their ratio to base (390 / 3500 = 0.11), the
# reclaim to the limit and the eviction's reads per huge page (4000 ns /
# 40 = 100); base has no reads of huge pages: "-".
mkdir "$tmp/t"
{
	echo "arch,run,config,workload,pressure,ops_per_s,ops,errors,misses,exit,resident,majflt,huge,limit_ms,hot_pages,hot_resident,counts_thp_ns,counts_thp_calls,limit_majflt,subpage_cold,subpage_cold_freed,even_pages,even_huge,thp_sparse_split,thp_split_page,thp_collapse_alloc,thp_collapse_uneven,khugepaged_ms,anon_kb,anon_thp_kb"
	echo "x86_64,1,base,thp,2,100,1000,0,,0,5000,3000,1024,3000,4608,4300,0,0,100,7680,3840,4096,2048,0,4,,,,65536,32768"
	echo "x86_64,2,base,thp,2,120,1200,0,,0,5200,4000,1024,3000,4608,4400,0,0,300,7680,4608,4096,2560,0,6,,,,65536,16384"
	echo "x86_64,1,hca-thp,thp,2,900,9000,0,,0,5120,400,4608,3500,4608,4608,4000,40,10,7680,7680,4096,4096,16,16,,,,65536,49152"
	echo "x86_64,2,hca-thp,thp,2,1000,10000,0,,0,5120,380,4608,3500,4608,4608,4000,40,20,7680,7296,4096,4096,15,15,,,,65536,49152"
	echo "x86_64,1,base,thp-collapse,1,50,500,0,,0,16384,0,16384,0,4608,4608,0,0,,,,4096,4096,0,0,32,0,120,65536,65536"
	echo "x86_64,1,hca-thp,thp-collapse,1,60,600,0,,0,16384,0,8192,0,4608,4608,0,0,,,,4096,4096,0,0,16,8,140,65536,32768"
} >"$tmp/t/results.csv"
out=$(HWAGE_TOP=$S/.. bash "$S/report.sh" "$tmp/t" 2>&1)
grep -q '^| x86_64 | 2x | base | 5100 (5000-5200) | 1.00 | - | 0.944 (0.933-0.955) | 1024 (1024-1024) | 3500 (3000-4000) | 1.00 | - | 3000 (3000-3000) | - |$' <<<"$out" &&
	grep -q '^| x86_64 | 2x | hca-thp | 5120 (5120-5120) | 1.00 \[[0-9.]*, [0-9.]*\] | [a-z]* | 1 (1-1) | 4608 (4608-4608) | 390 (380-400) | 0.11 \[[0-9.]*, [0-9.]*\] | yes | 3500 (3500-3500) | 100 (100-100) |$' <<<"$out"
ktap_ok report_thp_table $? "$out"

# By region: cold pages of sparse and cluster freed (base 3840 and 4608 of
# 7680: 0.5 and 0.6; hca-thp 1 and 0.95), the even region kept huge (0.5,
# 0.625; 1), faults during the reclaim (100, 300), with the run's (3100,
# 4300: median 3700), splits by the counts of all of them.
grep -q '^| x86_64 | 2x | base | 0.55 (0.5-0.6) | 0.562 (0.5-0.625) | 200 (100-300) | 3700 (3100-4300) | 0 (0-0) | 5 (4-6) |$' <<<"$out" &&
	grep -q '^| x86_64 | 2x | hca-thp | 0.975 (0.95-1) | 1 (1-1) | 15 (10-20) | 405 (400-410) | 15.5 (15-16) | 15.5 (15-16) |$' <<<"$out"
ktap_ok report_thp_regions $? "$out"

# Collapse: the even region kept huge, pages mapped huge, collapses, ranges
# left uneven, khugepaged's time and ops/s, one run each.
grep -q '^| x86_64 | base | 1 | 1 | 16k | 32 | 0 | 120 | 50 |$' <<<"$out" &&
	grep -q '^| x86_64 | hca-thp | 1 | 1 | 8192 | 16 | 8 | 140 | 60 |$' <<<"$out"
ktap_ok report_collapse_table $? "$out"

# Coverage: anon_thp / anon (32768 and 16384 of 65536: 0.5, 0.25)
grep -q '^| x86_64 | thp | 2x | base | 0.375 (0.25-0.5) |$' <<<"$out" &&
	grep -q '^| x86_64 | thp-collapse | 1x | hca-thp | 0.5 |$' <<<"$out"
ktap_ok report_thp_coverage $? "$out"
ktap_done
