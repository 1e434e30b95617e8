#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kselftest: the kernel's own selftests (guest/kselftest/list; cgroup's
# test_memcontrol and test_kmem, a part of mm/) on the unpatched kernel and
# on the patched one, and their results side by side.
#   kselftest.sh
# For each target of HWAGE_ARCHS (default: ppc64le x86_64): build the debug
# kernel (HWAGE_KERNEL=debug) and the same config without the series
# (HWAGE_KERNEL=base), boot the unpatched one (scenario kselftest: the
# plugin and its device too, no driver for them; "stock"), then the
# patched one (counter aging off, then on), each on a fresh ext4 disk with
# swap on zram (harness/boot-test.sh).
# In each boot t22-kselftest checks every case against the unpatched
# kernel's recorded results, guest/kselftest/expect-ARCH.
#
# HWAGE_KSELFTEST_RECORD=1 writes guest/kselftest/expect-ARCH anew from this
# run's unpatched boot (a new list, a new package), and the patched boot is
# then checked against it.
#
# Prints a table of the cases that are not a pass everywhere (unpatched,
# off, on; "<<" marks a difference) and the number of the others, and ends
# with "N passed, N failed" over the boots' results.
set -u
. "$(dirname "$0")/lib.sh"
S=$HWAGE_TOP/harness
ARCHS=${HWAGE_ARCHS:-ppc64le x86_64}
record=${HWAGE_KSELFTEST_RECORD:-0}
# mkinitramfs.sh builds the selftests into the test image only when asked
export HWAGE_KSELFTESTS=1
case "$record" in 0|1) ;; *) die "HWAGE_KSELFTEST_RECORD=$record: want 0 or 1" ;; esac
t0=$(date +%s)
passed=0
failed=0
skipped=0
summary=()

# boot KERNEL ARCH: boot-test.sh's kselftest scenario on that kernel; sets
# the log it wrote in $boot_log, counts its summary
boot() {
	local out rc line
	out=$(mktemp)
	HWAGE_KERNEL=$1 bash "$S/boot-test.sh" "$2" kselftest | tee "$out"
	rc=${PIPESTATUS[0]}
	boot_log=$(sed -n 's/^results for [^ ]*, hca=[^ ]* (\(.*\)):$/\1/p' "$out" | tail -n 1)
	line=$(grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)
	[ -n "$line" ] || line="$2-$1/hca=kselftest: 0 passed, 1 failed, 0 skipped (boot-test.sh exited with status $rc)"
	count "$line"
	rm -f "$out"
}

# results LOG: its "PROGRAM CASE MODE RESULT" lines (t22's "# kselftest")
results() {
	[ -n "$1" ] && [ -f "$1" ] || return 0
	tr -d '\r' <"$1" | sed -n 's/^ *# kselftest \([^ ]* [^ ]* [^ ]* [^ ]*\)$/\1/p'
}

bash "$S/setup.sh" || exit 1
bash "$S/prepare-tree.sh" || exit 1
for arch in $ARCHS; do
	expect=$HWAGE_TOP/guest/kselftest/expect-$arch
	if ! HWAGE_KERNEL=debug bash "$S/build-kernel.sh" "$arch" ||
	   ! HWAGE_KERNEL=base bash "$S/build-kernel.sh" "$arch" ||
	   ! bash "$S/mkinitramfs.sh" "$arch"; then
		count "$arch: 0 passed, 1 failed, 0 skipped (build)"
		continue
	fi
	HWAGE_KSELFTEST_RECORD=$record boot base "$arch"
	base=$(results "$boot_log")
	if [ "$record" = 1 ]; then
		if [ -z "$base" ]; then
			count "$arch/record: 0 passed, 1 failed, 0 skipped (the unpatched boot reported no case)"
			continue
		fi
		# the cases marked "any" (timing-dependent, with the reason after
		# it) keep their line: a single run cannot tell them
		anys=$(awk '!/^#/ && $3 == "any"' "$expect" 2>/dev/null)
		{
			echo "# The results of the kernel's selftests (guest/kselftest/list) on the"
			echo "# unpatched $arch debug kernel ($(cat "$HWAGE_CACHE/build-$arch-base/.hwage-release" 2>/dev/null)),"
			echo "# written by HWAGE_KSELFTEST_RECORD=1 make kselftest; t22-kselftest wants"
			echo "# the same of the patched kernel. PROGRAM CASE RESULT, where RESULT"
			echo "# \"any\" (written by hand, with the reason after it) marks a case whose"
			echo "# result depends on timing: reported, not judged."
			awk -v anys="$anys" '
				BEGIN { n = split(anys, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); keep[f[1] " " f[2]] = l[i] } }
				$3 == "stock" { k = $1 " " $2; print (k in keep) ? keep[k] : $1 " " $2 " " $4 }' <<<"$base"
		} >"$expect.tmp" && mv "$expect.tmp" "$expect"
		info "recorded $(awk '$3 == "stock"' <<<"$base" | wc -l) results of the unpatched $arch kernel in $expect"
		# the patched boot is checked against them: a new image
		bash "$S/mkinitramfs.sh" "$arch" || { count "$arch: 0 passed, 1 failed, 0 skipped (build)"; continue; }
	fi
	# the patched kernel is checked against them, whatever the caller set
	HWAGE_KSELFTEST_RECORD=0 boot debug "$arch"
	patched=$(results "$boot_log")

	echo
	echo "kselftest results on $arch (unpatched, patched with counter aging off, on),"
	echo "the cases that are not a pass in all three (t22 lists a patched case only then):"
	printf '  %-40s %-36s %-9s %-9s %-9s\n' PROGRAM CASE unpatched off on
	{
		awk '{ print "B", $0 }' <<<"$base"
		awk '{ print "P", $0 }' <<<"$patched"
	} | awk '
		NF == 5 {
			k = $2 " " $3
			if (!(k in seen)) { seen[k] = 1; order[++n] = k }
			if ($1 == "B") b[k] = $5; else if ($4 == "off") off[k] = $5; else if ($4 == "on") on[k] = $5
		}
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				split(k, f, " ")
				u = (k in b) ? b[k] : "-"; o = (k in off) ? off[k] : "pass"; a = (k in on) ? on[k] : "pass"
				if (u == "pass" && o == "pass" && a == "pass") { allpass++; continue }
				printf "  %-40s %-36s %-9s %-9s %-9s%s\n", f[1], f[2], u, o, a, (u == o && o == a) ? "" : " <<"
			}
			printf "  and %d cases that pass in all three\n", allpass
		}'
done

echo
echo "hwage kselftest summary ($(($(date +%s) - t0))s):"
printf '  %s\n' "${summary[@]}"
echo "$passed passed, $failed failed$([ "$skipped" = 0 ] || echo ", $skipped skipped")"
[ "$failed" = 0 ]
