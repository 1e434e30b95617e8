#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test: set up the host, build each target's kernel and guest, boot it
# in QEMU, and count the KTAP results. The last line printed is
#   N passed, N failed
# HWAGE_ARCHS picks the targets (default: ppc64le x86_64), HWAGE_HCA_BOOTS
# the counter-engine scenarios booted for each (default: on chaos
# badmagic badsize badtable p10, radix on ppc64le, hotplug on x86_64, tiers
# on both but with KASAN kernels; see
# harness/run-guest.sh and
# harness/boot-test.sh), each booted and scored by harness/boot-test.sh.
# The kernels booted are the debug flavour (HWAGE_KERNEL=debug: lockdep,
# DEBUG_VM, list debugging, lockup detectors, panic_on_warn; see
# configs/debug.config), in their own build directories beside the
# production kernels of the demo and the benchmarks; make test-kasan runs
# the same with HWAGE_KERNEL=kasan. Each boot runs the tests of its
# scenario (HWAGE_TEST_SET=quick, see boot-test.sh); make test-full
# (HWAGE_TEST_SET=full) runs them all in the on, badmagic and badsize boots.
# The next target's kernel builds beside the current target's boots
# (HWAGE_BUILD_AHEAD, below).
# The whole script is one block, read before it runs: an edit of this file
# while a make test is under way does not reach that run.
{
set -u
. "$(dirname "$0")/lib.sh"
S=$HWAGE_TOP/harness
export HWAGE_KERNEL=${HWAGE_KERNEL:-debug}
ARCHS=${HWAGE_ARCHS:-ppc64le x86_64}
HCA_BOOTS=${HWAGE_HCA_BOOTS:-on chaos badmagic badsize badtable p10}
# KASAN: the scenarios that drive the series' code (see boot-test.sh)
if [ "$HWAGE_KERNEL" = kasan ]; then
	HCA_BOOTS=${HWAGE_HCA_BOOTS:-on chaos badtable}
	# a KASAN kernel under TCG is several times slower than a debug one
	# (ppc64le's outline KASAN: t12 alone past 600 s): longer timeouts,
	# per guest test (hwage.timeout=) and per boot (HWAGE_TIMEOUT)
	export HWAGE_CMDLINE="hwage.timeout=3000 ${HWAGE_CMDLINE:-}"
	export HWAGE_TIMEOUT=${HWAGE_TIMEOUT:-7200}
fi
# the quick set's short stress: loads of 48 MiB (t21-stress; a load ends
# once the pass under way has checked every page, which t21 waits for)
[ "${HWAGE_TEST_SET:-quick}" != quick ] || [ "$HWAGE_KERNEL" = kasan ] ||
	export HWAGE_CMDLINE="hwage.stress_mb=48 ${HWAGE_CMDLINE:-}"
t0=$(date +%s)
passed=0
failed=0
skipped=0
summary=()

# Host tests (harness/host-tests.sh): its last line is counted.
host_tests() {
	local out
	out=$(mktemp)
	bash "$S/host-tests.sh" | tee "$out"
	count "$(tail -n 1 "$out")"
	rm -f "$out"
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

# score_boot ARCH HCA OUT RC: count the summary lines of a boot's output
# OUT, boot-test.sh having exited with RC
score_boot() {
	local arch=$1 hca=$2 out=$3 rc=$4 n=0 line
	while IFS= read -r line; do
		count "$line"
		n=$((n + 1))
	done < <(grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out")
	# a boot step that died without its summary is still a failure
	if [ "$n" = 0 ] || { [ "$rc" != 0 ] && ! grep -qE '^[^ ]+: [0-9]+ passed, [1-9][0-9]* failed' "$out"; }; then
		count "$arch/hca=$hca: 0 passed, 1 failed, 0 skipped (boot-test.sh exited with status $rc)"
	fi
}

# lane_done PID RC: a boot run beside another (lane_hca[PID]: its target
# and scenario) has ended with RC: show its lines and count them
lane_done() {
	local arch hca rc=$2
	read -r arch hca <<<"${lane_hca[$1]}"
	unset "lane_hca[$1]"
	cat "$lane_dir/$arch-$hca"
	score_boot "$arch" "$hca" "$lane_dir/$arch-$hca" "$rc"
}

# building: whether the next target's kernel builds beside the boots
# (ahead_pid, not yet reaped)
building() {
	[ -n "$ahead_pid" ] && [ -z "$ahead_rc" ]
}

# lanes_now: the boots that may run at once now: one while building
lanes_now() {
	if building; then echo 1; else echo "$lanes"; fi
}

# lane_wait: wait for a boot, or for the build beside them, to end
lane_wait() {
	local pid rc

	# shellcheck disable=SC2046
	wait -n -p pid "${!lane_hca[@]}" $(building && echo "$ahead_pid")
	rc=$?
	if [ "$pid" = "$ahead_pid" ]; then
		ahead_rc=$rc
		[ "$lanes" = 1 ] ||
			info "$ahead_arch: build ended (its lines follow the boots); boots at once now up to $lanes"
	else
		lane_done "$pid" "$rc"
	fi
}

# a target's kernel, then its guest programs and initramfs: bash -c "$BUILD" _ "$S" ARCH
BUILD='bash "$1/build-kernel.sh" "$2" && bash "$1/mkinitramfs.sh" "$2"'

# The boots use one core each (one vCPU, TCG) and a build uses them all:
# the next target builds beside the current one's boots, at a lower
# priority so that the guests keep their core (HWAGE_BUILD_AHEAD=0 builds
# each target just before its boots). Its output is held back until the
# boots are done, so that the two do not interleave.
ahead_pid=
ahead_rc=
ahead_arch=
ahead_out=$(mktemp)
# the boots under way, of any target: their outputs, and pid -> "ARCH HCA"
lane_dir=$(mktemp -d)
declare -A lane_hca=()
trap 'rm -rf "$ahead_out" "$lane_dir"; [ -z "$ahead_pid" ] || kill -- -"$ahead_pid" 2>/dev/null; kill $(jobs -p) 2>/dev/null' EXIT
set -- $ARCHS
while [ $# -gt 0 ]; do
	arch=$1
	shift
	if [ -n "$ahead_pid" ]; then
		# reaped already if it ended while the boots were waited for
		if [ -z "$ahead_rc" ]; then
			wait "$ahead_pid"
			rc=$?
		else
			rc=$ahead_rc
		fi
		ahead_pid=
		ahead_rc=
		cat "$ahead_out"
	else
		bash -c "$BUILD" _ "$S" "$arch"
		rc=$?
	fi
	if [ "${HWAGE_BUILD_AHEAD:-1}" != 0 ] && [ $# -gt 0 ]; then
		info "building $1 beside the boots of $arch (its lines follow them; logs: $HWAGE_LOGS/build-$1*.log)"
		# a session and process group of its own, killed with the script
		setsid nice -n 10 bash -c "$BUILD" _ "$S" "$1" >"$ahead_out" 2>&1 </dev/null &
		ahead_pid=$!
		ahead_arch=$1
	fi
	if [ "$rc" != 0 ]; then
		count "$arch: 0 passed, 1 failed, 0 skipped (build)"
		continue
	fi
	# One boot per counter-engine scenario (see HWAGE_HCA in
	# run-guest.sh), each scored from its own log only (boot-test.sh).
	boots=$HCA_BOOTS
	# ppc64le: one more boot on the radix MMU, for t18 (boot-test.sh)
	# (KASAN kernels boot ppc64le on the radix MMU anyway)
	[ "$arch" != ppc64le ] || [ -n "${HWAGE_HCA_BOOTS:-}" ] || [ "$HWAGE_KERNEL" = kasan ] ||
		boots="$boots radix"
	# x86_64: one more boot with a DIMM plugged past the counter table
	# (t23-hotplug, boot-test.sh)
	[ "$arch" != x86_64 ] || [ -n "${HWAGE_HCA_BOOTS:-}" ] || boots="$boots hotplug"
	# both: one more boot with a slow memory tier (t25-tiers, boot-test.sh)
	[ -n "${HWAGE_HCA_BOOTS:-}" ] || [ "$HWAGE_KERNEL" = kasan ] || boots="$boots tiers"
	# Boots at once: HWAGE_TEST_LANES (2 on 2 cores or more): a boot
	# keeps one core busy (one vCPU under TCG), and the last target's
	# boots, one after another, left the second core idle; but one only
	# while the next target's kernel builds beside them, which takes the
	# other cores (then the lanes open up: a fresh run's ppc64le boots
	# went on alone for 630 s after the x86_64 build had ended).
	lanes=${HWAGE_TEST_LANES:-$(($(nproc) >= 2 ? 2 : 1))}
	[[ "$lanes" =~ ^[1-9][0-9]*$ ]] || die "HWAGE_TEST_LANES=$lanes: want a number of boots >= 1"
	if [ "$lanes" = 1 ] && [ -z "$ahead_pid" ]; then
		while [ ${#lane_hca[@]} -gt 0 ]; do
			lane_wait
		done
		for hca in $boots; do
			out=$(mktemp)
			bash "$S/boot-test.sh" "$arch" "$hca" | tee "$out"
			score_boot "$arch" "$hca" "$out" "${PIPESTATUS[0]}"
			rm -f "$out"
		done
		continue
	fi
	# each boot's lines are shown, and counted, when it ends
	info "$arch: boots $(echo $boots), $lanes at a time (HWAGE_TEST_LANES$([ -z "$ahead_pid" ] || echo ", one until ${1:-}'s build ends")); the lines of each follow when it ends"
	for hca in $boots; do
		while [ ${#lane_hca[@]} -ge "$(lanes_now)" ]; do
			lane_wait
		done
		info "$arch/hca=$hca: booting"
		bash "$S/boot-test.sh" "$arch" "$hca" >"$lane_dir/$arch-$hca" 2>&1 &
		lane_hca[$!]="$arch $hca"
	done
	# The last boots of a target share the lanes with the next target's
	# first ones (a fresh run's x86_64 boots waited 3 min for ppc64le's
	# last): once its kernel is built, the next target goes on; without a
	# build beside them (HWAGE_BUILD_AHEAD=0), its build waits for them.
	if [ -n "$ahead_pid" ]; then
		while building; do
			lane_wait
		done
	else
		while [ ${#lane_hca[@]} -gt 0 ]; do
			lane_wait
		done
	fi
done
while [ ${#lane_hca[@]} -gt 0 ]; do
	lane_wait
done

echo
echo "hwage test summary ($HWAGE_KERNEL kernels, ${HWAGE_TEST_SET:-quick} set, $(($(date +%s) - t0))s):"
printf '  %s\n' "${summary[@]}"
echo "$passed passed, $failed failed$([ "$skipped" = 0 ] || echo ", $skipped skipped")"
[ "$failed" = 0 ]
exit
}
