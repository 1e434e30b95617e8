#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test: set up the host, build each target's kernel and guest, boot it
# in QEMU, and count the KTAP results. The last line printed is
#   N passed, N failed
# HWAGE_ARCHS picks the targets (default: ppc64le x86_64), HWAGE_HCA_BOOTS
# the counter-engine scenarios booted for each (default: on badmagic
# badsize; see harness/run-guest.sh).
set -u
. "$(dirname "$0")/lib.sh"
S=$HWAGE_TOP/harness
ARCHS=${HWAGE_ARCHS:-ppc64le x86_64}
HCA_BOOTS=${HWAGE_HCA_BOOTS:-on badmagic badsize}
t0=$(date +%s)
passed=0
failed=0
skipped=0
summary=()

count() {
	local line=$1 p f s
	read -r p f s < <(sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' <<<"$line")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
	skipped=$((skipped + ${s:-0}))
	summary+=("$line")
}

# Host tests: each tests/host/*.sh and emulator/tests/*.sh prints flat KTAP.
host_tests() {
	local t out p f rc hp=0 hf=0
	for t in "$HWAGE_TOP"/tests/host/*.sh "$HWAGE_TOP"/emulator/tests/*.sh; do
		out=$(bash "$t" 2>&1)
		rc=$?
		p=$(grep -c '^ok ' <<<"$out")
		f=$(grep -c '^not ok ' <<<"$out")
		[ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
		printf '  %s %-40s %d passed, %d failed\n' "$([ "$f" = 0 ] && echo "ok  " || echo FAIL)" \
			"host/$(basename "$t" .sh)" "$p" "$f"
		[ "$f" = 0 ] || grep -E '^(not ok|#)' <<<"$out" | sed 's/^/    /'
		hp=$((hp + p))
		hf=$((hf + f))
	done
	count "host: $hp passed, $hf failed, 0 skipped"
}
# t13's counter-aging run lists its pages and takes ground-truth snapshots:
# the pages hot by its design must be the ones the emulator saw accessed
# most (bench/score.sh), or its "cold set" means nothing.
truth_check() {
	local arch=$1 log=$2 p r dp dr agree ok=0
	read -r p r dp dr agree < <(bash "$HWAGE_TOP/bench/score.sh" "$log" | grep -v '^-' | head -n 1)
	awk -v a="${agree:--}" 'BEGIN { exit !(a != "-" && a >= 0.75) }' && ok=1
	echo "  $([ $ok = 1 ] && echo "ok  " || echo FAIL) $arch t13 hot set against the ground truth: agreement ${agree:-none} (want >= 0.75), youngest generation precision ${p:--} recall ${r:--}"
	count "$arch/t13-truth: $ok passed, $((1 - ok)) failed, 0 skipped"
}

bash "$S/setup.sh" || {
	echo "0 passed, 1 failed"
	exit 1
}
step "host tests" host_tests
bash "$S/prepare-tree.sh" || {
	echo "$passed passed, $((failed + 1)) failed"
	exit 1
}

for arch in $ARCHS; do
	if ! bash "$S/build-kernel.sh" "$arch" || ! bash "$S/mkinitramfs.sh" "$arch"; then
		count "$arch: 0 passed, 1 failed, 0 skipped (build)"
		continue
	fi
	# One boot per counter-engine scenario: see HWAGE_HCA in run-guest.sh.
	for hca in $HCA_BOOTS; do
		step "boot $arch (hca=$hca) and run the guest tests" \
			env HWAGE_HCA="$hca" bash "$S/run-guest.sh" "$arch" test
		log=$HWAGE_LOGS/guest-$arch-test$([ "$hca" = off ] || echo "-hca-$hca").log
		echo "results for $arch, hca=$hca ($(readlink -f "$log")):"
		res=$(awk -v label="$arch/hca=$hca" -f "$S/ktap-summary.awk" "$log")
		echo "$res"
		count "$(tail -n 1 <<<"$res")"
		[ "$hca" = on ] && truth_check "$arch" "$(readlink -f "$log")"
	done
done

echo
echo "hwage test summary ($(($(date +%s) - t0))s):"
printf '  %s\n' "${summary[@]}"
echo "$passed passed, $failed failed$([ "$skipped" = 0 ] || echo ", $skipped skipped")"
[ "$failed" = 0 ]
