#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: harness/demo-report.sh on a demo log and ground-truth
# snapshots made up here, with known answers.
set -u
R=$(dirname "$0")/../../harness/demo-report.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../../harness/ktap.sh"
ktap_plan 9

# base: pfns 0x10-0x17, 0x10-0x13 hot by design (k = 4). Accesses in the
# run phase (snapshot 2 minus 1): 0x10 100, 0x11 90, 0x12 80, 0x13 5,
# 0x14 70, 0x15 3, 0x16 2, 0x17 0: truly hot are 0x10, 0x11, 0x12 and
# 0x14, so 0x13 (hot by design) is truly cold. By generation age:
#   0: 0x12 0x14 -> 2 hot, 0 cold    1: 0x11 0x15 -> 1 hot, 1 cold
#   2: 0x10      -> 1 hot            3: 0x13 0x16 -> 0 hot, 2 cold
#   off the lists (-1): 0x17 cold; swapped out: 3, 2 of them cold
# Order: the 4 youngest of the 7 pages in generations are those of age 0
# and 1: 3 hot, 75%; at random 4 / 7, 57%.
# hca: pfns 0x20-0x25, 3 hot by design; accesses 50, 40, 30, 35, 0, 0:
# truly hot 0x20, 0x21, 0x23. Ages 0: 0x20 0x21 0x22 -> 2 hot, 1 cold;
# 1: 0x23 -> 1 hot; 2: 0x24 0x25 -> 2 cold; 3 (base has it): none.
# Order: the 3 youngest, age 0, are 2 hot: 67%; at random 3 / 6, 50%.
log=$tmp/guest.log
cat >"$log" <<'LOG'
hwage-init: mode demo
demo: base: stock MGLRU (lru_gen/enabled 0x0008 clear); writing every page, then 20 s of operations
# 8 pages of 4096 bytes: 4 hot, 4 cold; 90% of operations hot, 10% writes
# truth begin=1 end=2
# cls 10:2:1 11:1:1 12:0:1 13:3:1
# cls 14:0:0 15:1:0 16:3:0 17:-1:0
# swapped out at the end of the run: 3 pages, 2 of them cold (66.7%)
# result ops=2000 secs=20.00 ops_per_s=100 p50_us=1.0 p99_us=2.0 hot_pages=5 cold_pages=6 swapped=3 swapped_cold=2 errors=0
hwage-demo config=base limit_kb=32768 evicted=30 refaulted=20 swapins=21 exit=0 ops=2000 secs=20.00 ops_per_s=100 p50_us=1.0 p99_us=2.0 hot_pages=5 cold_pages=6 swapped=3 swapped_cold=2 errors=0
demo: hca: MGLRU aging from the access counts (lru_gen/enabled 0x0008 set); writing every page, then 20 s of operations
# truth begin=3 end=4
# cls 20:0:1 21:0:1 22:0:1 23:1:0 24:2:0 25:2:0
# result ops=3000 secs=20.00 ops_per_s=150 p50_us=1.0 p99_us=2.0 hot_pages=5 cold_pages=6 swapped=5 swapped_cold=5 errors=0
hwage-demo config=hca limit_kb=32768 evicted=10 refaulted=4 swapins=5 exit=0 ops=3000 secs=20.00 ops_per_s=150 p50_us=1.0 p99_us=2.0 hot_pages=5 cold_pages=6 swapped=5 swapped_cold=5 errors=0
hwage-init: powering off
LOG
printf '# hwage hca ground truth\n# pfn count\n16 10\n17 10\n18 10\n19 10\n20 10\n21 10\n22 10\n23 10\n' >"$log.truth.1"
printf '# hwage hca ground truth\n# pfn count\n16 110\n17 100\n18 90\n19 15\n20 80\n21 13\n22 12\n' >"$log.truth.2"
printf '# hwage hca ground truth\n32 5\n' >"$log.truth.3"
printf '# hwage hca ground truth\n32 55\n33 40\n34 30\n35 35\n' >"$log.truth.4"

# the table of one configuration: its lines from "CONFIG:" to "run phase"
table() {
	sed -n "/^$1: /,/run phase/p" <<<"$2"
}

out=$(bash "$R" "$log" "$tmp/out" 2>&1)
want="base: stock MGLRU (counter aging off); hot and cold: ground truth (the emulator's exact access counts in the run phase, snapshots 1 and 2)
  generation                  hot   cold  hot share
  0 (youngest)                  2      0       100%
  1                             1      1        50%
  2                             1      0       100%
  3                             0      2         0%
  off the lists                 0      1         0%
  swapped out (by design)       1      2        33%
  order: of the 4 youngest pages, 75% are hot (taken at random: 57%)
  run phase: 100 ops/s; evicted 30 pages, refaulted 20, swapped in 21"
got=$(table base "$out")
[ "$got" = "$want" ]
ktap_ok base_by_ground_truth $? "got:" "$got" "want:" "$want"

want="hca: MGLRU aging from the access counts; hot and cold: ground truth (the emulator's exact access counts in the run phase, snapshots 3 and 4)
  generation                  hot   cold  hot share
  0 (youngest)                  2      1        67%
  1                             1      0       100%
  2                             0      2         0%
  3                             0      0          -
  swapped out (by design)       0      5         0%
  order: of the 3 youngest pages, 67% are hot (taken at random: 50%)
  run phase: 150 ops/s; evicted 10 pages, refaulted 4, swapped in 5"
got=$(table hca "$out")
[ "$got" = "$want" ]
ktap_ok hca_by_ground_truth $? "got:" "$got" "want:" "$want"

# config, k, hot, random, evicted, refaulted, swap-ins, ops/s
got=$(sed -n '/^  config /,$p' <<<"$out" | grep '^  [bh]' | tr -s ' ')
want=" base 4 75% 57% 30 20 21 100
 hca 3 67% 50% 10 4 5 150"
[ "$got" = "$want" ]
ktap_ok short_table $? "got:" "$got" "want:" "$want"

[ -s "$tmp/out/demo-base.png" ] && [ -s "$tmp/out/demo-hca.png" ] &&
	grep -q "^picture: $tmp/out/demo-base.png$" <<<"$out" || ! command -v gnuplot >/dev/null
ktap_ok pictures $? "$(ls "$tmp/out")" "$out"

# without snapshot 2, base falls back to the design, and says so: 0x13
# is hot and 0x14 cold
rm "$log.truth.2"
out=$(bash "$R" "$log" "$tmp/out2" 2>&1)
got=$(table base "$out" | sed -n '1p;3,6p')
want="base: stock MGLRU (counter aging off); hot and cold: by design (no ground-truth snapshot $log.truth.2)
  0 (youngest)                  1      1        50%
  1                             1      1        50%
  2                             1      0       100%
  3                             1      1        50%"
[ "$got" = "$want" ]
ktap_ok design_without_snapshot $? "got:" "$got" "want:" "$want"

# a boot without the truth (no "truth" line) says how to get it
sed '/truth begin=/d' "$log" >"$tmp/nt.log"
bash "$R" "$tmp/nt.log" "$tmp/out3" 2>&1 | grep -q '^hca: .*hot and cold: by design (no ground truth in this boot: make demo with HWAGE_HCA_TRUTH=1)$'
ktap_ok design_without_truth $?

# the k-th youngest page inside a generation: its pages count pro rata.
# By design, age 0: 0x30 hot, 0x31 cold; age 1: 0x32 0x33 hot, 0x34
# cold; k = 3: age 0 and one of the 3 pages of age 1, 2/3 hot: 1 + 2/3 of
# 3, 56%; at random 3 / 5, 60%.
cat >"$tmp/pro.log" <<'LOG'
# cls 30:0:1 31:0:0 32:1:1 33:1:1 34:1:0
hwage-demo config=base limit_kb=32768 evicted=1 refaulted=1 swapins=1 exit=0 ops_per_s=1 hot_pages=3 cold_pages=2 swapped=0 swapped_cold=0 errors=0
LOG
out=$(bash "$R" "$tmp/pro.log" "$tmp/out6" 2>&1)
grep -q '^  order: of the 3 youngest pages, 56% are hot (taken at random: 60%)$' <<<"$out"
ktap_ok order_pro_rata $? "$out"

# a configuration the guest skipped is reported as such
sed '/^hwage-demo config=hca/s/.*/hwage-demo config=hca skipped=no-counter-engine/' "$log" >"$tmp/skip.log"
out=$(bash "$R" "$tmp/skip.log" "$tmp/out4" 2>&1)
grep -q '^hca: MGLRU aging from the access counts: skipped (no-counter-engine)$' <<<"$out" &&
	grep -q '^  base ' <<<"$out" && ! grep -q '^  hca ' <<<"$out"
ktap_ok skipped_config $? "$out"

# a log with no demo results is an error
grep -v '^hwage-demo' "$log" >"$tmp/none.log"
! out=$(bash "$R" "$tmp/none.log" "$tmp/out5" 2>&1) && grep -q 'no demo results' <<<"$out"
ktap_ok no_results_fails $? "$out"
ktap_done
