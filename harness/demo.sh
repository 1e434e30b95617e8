#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: set up, build the ppc64le kernel and guest, boot it and run
# the demo workload (guest/runners/demo.c), printing what MGLRU does; then a
# short A/B benchmark (bench/run.sh: one run of base and hca, both
# workloads at 1.5 times their limit) and its table.
# HWAGE_DEMO_ARCH picks another target; the guest gets the emulated counter
# engine unless HWAGE_HCA says otherwise (see harness/run-guest.sh).
# HWAGE_DEMO_BENCH=0 skips the benchmark.
set -u
. "$(dirname "$0")/lib.sh"
S=$HWAGE_TOP/harness
arch=${HWAGE_DEMO_ARCH:-ppc64le}

bash "$S/setup.sh" && bash "$S/prepare-tree.sh" &&
bash "$S/build-kernel.sh" "$arch" && bash "$S/mkinitramfs.sh" "$arch" || exit 1
step "boot $arch and run the demo" env HWAGE_HCA="${HWAGE_HCA:-on}" bash "$S/run-guest.sh" "$arch" demo || exit 1
[ "${HWAGE_DEMO_BENCH:-1}" = 0 ] && exit 0
info "a short A/B benchmark: one run each of base and hca (make bench for the full one)"
HWAGE_BENCH_ARCHS=$arch HWAGE_BENCH_RUNS=1 HWAGE_BENCH_CONFIGS="base hca" \
	HWAGE_BENCH_PRESSURES=1.5 HWAGE_BENCH_SECS=5 \
	HWAGE_BENCH_OUT=${HWAGE_BENCH_OUT:-$HWAGE_CACHE/bench/demo-$(date +%Y%m%d-%H%M%S)} \
	bash "$HWAGE_TOP/bench/run.sh"
