#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slowdown.sh: guest slowdown caused by the hca plugin (make bench-emulator).
#
# Runs a guest without the plugin and with it (exact counting with and
# without the ground truth, 1 access in 16 and in 32 as the POWER10 engine
# samples), interleaved, BENCH_RUNS times each (default 5), and prints the
# medians.  The slowdown is computed on the CPU time of
# QEMU (user + system), which other load on the host disturbs much less
# than the wall time; both are shown.  BENCH_GUEST picks the guest:
#
#  bare   (default) the bare-metal "bench" guest of testguest.S: real mode,
#         one vCPU, 20000 passes over 448 KiB, about 1.15e9 instructions
#         and 5.7e8 loads and stores: half of its instructions access
#         memory and every access hits QEMU's TLB, a worst case for a
#         per-access cost.
#  linux  the x86_64 kernel and initramfs of the harness, booted in test
#         mode (-smp 2, 1 GiB) until it powers off: a mixed workload of
#         boot, kernel code and the guest tests, which change with them.
set -u
. "$(dirname "$0")/tests/lib.sh"
RUNS=${BENCH_RUNS:-5}
GUEST=${BENCH_GUEST:-bare}
# name|plugin options ("-" for no plugin)|target slowdown
CONFIGS=${BENCH_CONFIGS:-"none|-|
exact|sample=1|6
exact-truth|sample=1,truth=TRUTH|
sample16|sample=16|2
sample32|sample=32|2"}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
EMU_LOG=$tmp/qemu.log
emu_build || die "build failed, see $HWAGE_LOGS/emulator-build.log"

case $GUEST in
bare)
	ram=$EMU_RAM
	guest=(-bios "$EMU_OUT/guest-bench.bin")
	qemu_args=("${EMU_QEMU_ARGS[@]}")
	want=$EMU_EXIT
	what="bare-metal x86 bench of emulator/tests/testguest.S, 1 vCPU, $ram"
	;;
linux)
	ram=1G
	kernel=$HWAGE_CACHE/build-x86_64/arch/x86/boot/bzImage
	initrd=$HWAGE_CACHE/guest-x86_64/initramfs.cpio
	[ -f "$kernel" ] && [ -f "$initrd" ] || die "no x86_64 kernel or initramfs (make kernel initramfs ARCH=x86_64)"
	guest=(-kernel "$kernel" -initrd "$initrd" -serial stdio
		-append "console=ttyS0 panic=-1 hwage.mode=test")
	qemu_args=(-nodefaults -display none -no-reboot
		-M pc -cpu max -smp 2 -m $ram
		-object memory-backend-file,id=hca,share=on,mem-path=$tmp/table,size=$("$EMU_OUT/hca-size" $ram)
		-device ivshmem-plain,memdev=hca)
	want=0
	what="x86_64 Linux test boot of the harness, 2 vCPUs, $ram"
	;;
*)
	die "BENCH_GUEST=$GUEST: want bare or linux"
	;;
esac

# run NAME OPTS: one timed run, "wall cpu" appended to $tmp/NAME.
run() {
	local name=$1 opts=$2 rc t
	local args=("$EMU_QEMU" "${qemu_args[@]}" "${guest[@]}")
	[ "$opts" = - ] || args+=(-plugin "$EMU_PLUGIN,table=$tmp/table,ram=$ram,${opts/TRUTH/$tmp/truth}" -d plugin)
	t=$( { TIMEFORMAT='%R %U %S'; time nice -n 10 timeout 900 "${args[@]}" </dev/null >"$EMU_LOG" 2>&1; } 2>&1)
	rc=$?
	[ $rc = "$want" ] || { tail -n 20 "$EMU_LOG" >&2; die "$name: QEMU exited $rc, want $want"; }
	[ "$GUEST" = bare ] || grep -aq 'reboot: Power down' "$EMU_LOG" ||
		{ tail -n 20 "$EMU_LOG" >&2; die "$name: the guest did not power off"; }
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' <<<"$t" >>"$tmp/$name"
}

median() {	# median of column $2 of file $1
	sort -n -k "$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

info "emulator benchmark ($GUEST): $RUNS rounds, host load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= RUNS; r++)); do
	while IFS='|' read -r name opts _; do
		[ -n "$name" ] && run "$name" "$opts"
	done <<<"$CONFIGS"
	echo "  round $r/$RUNS done"
done

base_cpu=$(median "$tmp/none" 2)
base_wall=$(median "$tmp/none" 1)
printf '\n%-16s %-24s %8s %8s %9s %8s %10s\n' config options "cpu s" "wall s" slowdown "(wall)" target
while IFS='|' read -r name opts target; do
	[ -n "$name" ] || continue
	cpu=$(median "$tmp/$name" 2)
	wall=$(median "$tmp/$name" 1)
	awk -v n="$name" -v o="$opts" -v c="$cpu" -v w="$wall" -v bc="$base_cpu" -v bw="$base_wall" -v t="$target" \
		'BEGIN { printf "%-16s %-24s %8.2f %8.2f %8.2fx %7.2fx %10s\n", n, o, c, w, c / bc, w / bw,
			t == "" ? "" : (c / bc <= t ? "<=" t "x ok" : "<=" t "x MISS") }'
done <<<"$CONFIGS"
echo "(median of $RUNS; guest: $what; host load now $(cut -d' ' -f1-3 /proc/loadavg))"
