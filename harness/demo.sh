#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: set up, build the ppc64le kernel and guest, and boot it once
# to run the same hot/cold workload under stock MGLRU (base) and under
# aging from the access counts (hca), side by side (guest/runners/demo.c);
# then harness/demo-report.sh tells, from the emulator's ground truth, where
# the hot and the cold pages sat in the generations, what was evicted and
# what refaulted: a table, and a picture per configuration in the output
# directory. Last, a short A/B benchmark (bench/run.sh: one run of base and
# hca, both workloads at 1.5 times their limit) and its table.
#
# Settings (environment):
#   HWAGE_DEMO_ARCH   the target (ppc64le)
#   HWAGE_DEMO_SECS   guest seconds of each configuration's run phase (20)
#   HWAGE_DEMO_OUT    the report and pictures ($HWAGE_CACHE/demo/DATE)
#   HWAGE_DEMO_BENCH  0 skips the benchmark
#   HWAGE_ICOUNT      the guest clock, as run-guest.sh takes it (3: guest
#                     time counts guest instructions, so ops/s do not
#                     depend on the host's load)
#   HWAGE_HCA, HWAGE_HCA_TRUTH   the counter engine (on) and its ground
#                     truth (1); with HWAGE_HCA=off only base runs, and
#                     without the truth hot and cold are the workload's
#                     design
set -u
. "$(dirname "$0")/lib.sh"
# performance is measured on production kernels only (not HWAGE_KERNEL=debug)
[ "${HWAGE_KERNEL:-prod}" = prod ] ||
	die "HWAGE_KERNEL=$HWAGE_KERNEL: make demo measures performance, on the production kernel only (unset HWAGE_KERNEL)"
export HWAGE_KERNEL=prod
S=$HWAGE_TOP/harness
arch=${HWAGE_DEMO_ARCH:-ppc64le}
secs=${HWAGE_DEMO_SECS:-20}
hca=${HWAGE_HCA:-on}
out=${HWAGE_DEMO_OUT:-$HWAGE_CACHE/demo/$(date +%Y%m%d-%H%M%S)}
[[ "$secs" =~ ^[1-9][0-9]*$ ]] || die "HWAGE_DEMO_SECS=$secs: want seconds >= 1"

bash "$S/setup.sh" && bash "$S/prepare-tree.sh" &&
bash "$S/build-kernel.sh" "$arch" && bash "$S/mkinitramfs.sh" "$arch" || exit 1

log=$HWAGE_LOGS/guest-$arch-demo-hca-$hca-$(date +%Y%m%d-%H%M%S).log
# the boot's progress, without the per-page "cls" lines and the
# "hwage-demo" results (they are for the report, in the log)
boot() {
	HWAGE_LOG=$log HWAGE_HCA=$hca HWAGE_HCA_TRUTH=${HWAGE_HCA_TRUTH:-1} \
		HWAGE_ICOUNT=${HWAGE_ICOUNT:-3} HWAGE_CMDLINE="hwage.secs=$secs ${HWAGE_CMDLINE:-}" \
		bash "$S/run-guest.sh" "$arch" demo | grep --line-buffered -av -e '\] \(# \)\{0,1\}cls ' -e '\] hwage-demo '
	return "${PIPESTATUS[0]}"
}
step "boot $arch: w-hotcold under base, then hca" boot || exit 1
mkdir -p "$out" || die "cannot create $out"
echo
bash "$S/demo-report.sh" "$log" "$out" | tee "$out/report.txt"
[ "${PIPESTATUS[0]}" = 0 ] || die "no report from $log"
info "the report is in $out (report.txt and the pictures); the boot's log: $log"

[ "${HWAGE_DEMO_BENCH:-1}" = 0 ] && exit 0
echo
info "a short A/B benchmark: one run each of base and hca (make bench for the full one)"
HWAGE_BENCH_ARCHS=$arch HWAGE_BENCH_RUNS=1 HWAGE_BENCH_CONFIGS="base hca" \
	HWAGE_BENCH_PRESSURES=1.5 HWAGE_BENCH_SECS=5 \
	HWAGE_BENCH_OUT=${HWAGE_BENCH_OUT:-$HWAGE_CACHE/bench/demo-$(date +%Y%m%d-%H%M%S)} \
	bash "$HWAGE_TOP/bench/run.sh"
