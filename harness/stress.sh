#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stress: on each target's debug kernel (configs/debug.config, booted
# with panic_on_warn=1) and the counting plugin, run t21-stress alone for
# HWAGE_STRESS_SECS seconds (600 by default): two verifying loads over
# their cgroups' limits, a hog the OOM killer kills again and again,
# stress-ng's vm, mmap, fork and swap stressors, every knob flipped at
# random. Prints each boot's results and figures, and ends with
#   N passed, N failed
# HWAGE_ARCHS picks the targets (default: ppc64le x86_64).
set -u
. "$(dirname "$0")/lib.sh"
S=$HWAGE_TOP/harness
export HWAGE_KERNEL=${HWAGE_KERNEL:-debug}
[ "$HWAGE_KERNEL" != prod ] || die "make stress runs on debug kernels (HWAGE_KERNEL=debug or kasan)"
ARCHS=${HWAGE_ARCHS:-ppc64le x86_64}
passed=0
failed=0
t0=$(date +%s)

bash "$S/setup.sh" && bash "$S/prepare-tree.sh" || { echo "0 passed, 1 failed"; exit 1; }
for arch in $ARCHS; do
	if ! bash "$S/build-kernel.sh" "$arch" || ! bash "$S/mkinitramfs.sh" "$arch"; then
		failed=$((failed + 1))
		continue
	fi
	out=$(mktemp)
	bash "$S/boot-test.sh" "$arch" stress | tee "$out"
	log=$(sed -n 's/^results for .* (\(.*\)):$/\1/p' "$out")
	[ -n "$log" ] && grep -a '# .* s: .* knob flips\|# load: ' "$log" | sed "s/^/  $arch figures: /"
	read -r p f < <(sed -n 's/^[^ ]*: \([0-9]*\) passed, \([0-9]*\) failed, .*/\1 \2/p' "$out" | tail -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
	rm -f "$out"
done
echo "hwage stress ($HWAGE_KERNEL kernels, ${HWAGE_STRESS_SECS:-600} s a target, $(($(date +%s) - t0)) s in all):"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
