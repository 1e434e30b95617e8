#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: bench/damon-score.sh and bench/rows.sh on DAMON views and
# ground-truth snapshots made up here, with answers worked out by hand.
set -u
B=$(dirname "$0")/../../bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../../harness/ktap.sh"
ktap_plan 5

# Pages 0-19 (4 KiB), two regions of 10 pages, two views 1 s apart at 5 ms
# sampling (200 intervals): pages 0-9 estimated (20 + 10) / 2 / 20 = 0.75,
# hot; pages 10-19 (0 + 2) / 2 / 20 = 0.05. Truth over the run: pages 0 and
# 1 accessed 5000 times (25 a sampling interval, capped at 1), page 2 300
# (1.5, capped), page 12 once, page 15 20 times (0.1): hot are 0, 1 and 2.
# Precision 3/10, recall 3/3; error (5000 * 0.25 * 2 + 300 * 0.25 +
# 1 * 0.045 + 20 * 0.05) / 10321 = 0.2496.
log=$tmp/guest.log
cat >"$log" <<'LOG'
hwage-damon-view truth=1 0:40960:20 40960:81920:0
hwage-damon-view truth=1 0:40960:10 40960:81920:2
hwage-damon-view truth=3 0:81920:20
hwage-bench config=damon-counts workload=damon pressure=1 damon_ops=paddr_counts sample_us=5000 aggr_us=100000 truth=1:2 secs=1 kdamond_ms=5 views=2 regions=2 exit=0 errors=0
LOG
printf '# h\n# pfn count\n0 5\n1 5\n12 7\n' >"$log.truth.1"
cp "$log.truth.1" "$log.truth.3"
# the boot as rows.sh wants it: its command line, a QEMU that names its version
echo "qemu-system-x86_64 -m 1G -append hwage.mode=bench hwage.release=6.12.118-hwage+ hwage.secs=10 -icount shift=3" >"$log.cmd"
mkdir "$tmp/bin"
printf '#!/bin/sh\necho "QEMU emulator version 10.0.2"\n' >"$tmp/bin/qemu-system-x86_64"
chmod +x "$tmp/bin/qemu-system-x86_64"
export PATH=$tmp/bin:$PATH
printf '# h\n# pfn count\n0 5005\n1 5005\n2 300\n12 8\n15 20\n' >"$log.truth.2"

got=$(bash "$B/damon-score.sh" "$log" 1 2 1 5000 100000)
[ "$got" = "0.3000 1.0000 0.2496 3" ]
ktap_ok scores_by_hand $? "got: $got"

# the views of another run (truth=3: one region of all 20 pages, found
# accessed in every sample) are not this run's: all 20 hot, error
# (1 * 0.995 + 20 * 0.9) / 10321
got=$(bash "$B/damon-score.sh" "$log" 3 2 1 5000 100000)
[ "$got" = "0.1500 1.0000 0.0018 3" ]
ktap_ok views_of_their_run_only $? "got: $got"

# a missing snapshot scores nothing
got=$(bash "$B/damon-score.sh" "$log" 1 9 1 5000 100000)
[ "$got" = "- - - -" ]
ktap_ok missing_snapshot $? "got: $got"

# rows.sh carries the scores into the row
col() { awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) n = i; next } { print $n }' "$1"; }
{ bash "$B/rows.sh" --header; bash "$B/rows.sh" x86_64 1 abc "$log"; } >"$tmp/r.csv"
got="$(col "$tmp/r.csv" config) $(col "$tmp/r.csv" damon_precision) $(col "$tmp/r.csv" damon_recall) $(col "$tmp/r.csv" damon_truth_hot)"
[ "$got" = "damon-counts 0.3000 1.0000 3" ]
ktap_ok rows_carry_scores $? "got: $got"
got="$(col "$tmp/r.csv" kdamond_ms) $(col "$tmp/r.csv" sample_us)"
[ "$got" = "5 5000" ]
ktap_ok rows_carry_kdamond $? "got: $got"
ktap_done
