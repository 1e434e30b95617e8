#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh: guest slowdown caused by the hca plugin (make bench-emulator).
#
# Runs the bare-metal "bench" guest of testguest.S (real mode, one vCPU,
# 20000 passes over 448 KiB: about 1.15e9 instructions and 5.7e8 loads and
# stores, half of its instructions access memory, every access a TLB hit,
# so it is a worst case for a per-access cost) without the plugin, with
# exact counting and with 1 access in 16, interleaved, BENCH_RUNS times
# each (default 5), and prints the medians.  The slowdown is computed on
# the CPU time of QEMU (user + system), which other load on the host
# disturbs much less than the wall time; both are shown.
set -u
. "$(dirname "$0")/testlib.sh"
RUNS=${BENCH_RUNS:-5}
# name|plugin options ("-" for no plugin)|target slowdown
CONFIGS=${BENCH_CONFIGS:-"none|-|
exact|sample=1|6
sample=16|sample=16|2"}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
EMU_LOG=$tmp/qemu.log

emu_build || die "build failed, see $HWAGE_LOGS/emulator-build.log"

# run NAME OPTS: one timed run, "wall cpu" appended to $tmp/NAME.
run() {
	local name=$1 opts=$2 rc t
	local args=("$EMU_QEMU" "${EMU_QEMU_ARGS[@]}" -bios "$EMU_OUT/guest-bench.bin")
	[ "$opts" = - ] || args+=(-plugin "$EMU_PLUGIN,table=$tmp/table,ram=$EMU_RAM,$opts" -d plugin)
	t=$( { TIMEFORMAT='%R %U %S'; time nice -n 10 "${args[@]}" </dev/null >"$EMU_LOG" 2>&1; } 2>&1)
	rc=$?
	# time's status is the command's
	[ $rc = "$EMU_EXIT" ] || { cat "$EMU_LOG" >&2; die "$name: QEMU exited $rc, want $EMU_EXIT"; }
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' <<<"$t" >>"$tmp/$name"
}

median() {	# median of column $2 of file $1
	sort -n -k "$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

info "emulator benchmark: $RUNS rounds, host load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= RUNS; r++)); do
	while IFS='|' read -r name opts _; do
		[ -n "$name" ] && run "$name" "$opts"
	done <<<"$CONFIGS"
	echo "  round $r/$RUNS done"
done

base_cpu=$(median "$tmp/none" 2)
base_wall=$(median "$tmp/none" 1)
printf '\n%-12s %-20s %9s %9s %9s %9s %8s\n' config options "cpu s" "wall s" "slowdown" "(wall)" target
while IFS='|' read -r name opts target; do
	[ -n "$name" ] || continue
	cpu=$(median "$tmp/$name" 2)
	wall=$(median "$tmp/$name" 1)
	awk -v n="$name" -v o="$opts" -v c="$cpu" -v w="$wall" -v bc="$base_cpu" -v bw="$base_wall" -v t="$target" \
		'BEGIN { printf "%-12s %-20s %9.2f %9.2f %8.2fx %8.2fx %8s\n", n, o, c, w, c / bc, w / bw,
			t == "" ? "" : (c / bc <= t ? "<=" t "x ok" : "<=" t "x MISS") }'
done <<<"$CONFIGS"
echo "(median of $RUNS; guest: bare-metal x86 bench of emulator/testguest.S, 1 vCPU, $EMU_RAM)"
