#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: set up, build the ppc64le kernel and guest, boot it and run
# the demo workload (guest/demo-run.c), printing what MGLRU does.
# HWAGE_DEMO_ARCH picks another target; the guest gets the emulated counter
# engine unless HWAGE_HCA says otherwise (see scripts/run-guest.sh).
set -u
. "$(dirname "$0")/lib.sh"
S=$HWAGE_TOP/scripts
arch=${HWAGE_DEMO_ARCH:-ppc64le}

bash "$S/setup.sh" && bash "$S/prepare-tree.sh" &&
bash "$S/build-kernel.sh" "$arch" && bash "$S/mkinitramfs.sh" "$arch" || exit 1
step "boot $arch and run the demo" env HWAGE_HCA="${HWAGE_HCA:-on}" bash "$S/run-guest.sh" "$arch" demo
