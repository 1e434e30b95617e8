#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host test: counting under multi-threaded TCG. The "smp" test guest
# (emulator/tests/testguest.S) runs two vCPUs at once, each loading pages
# A (pfn 16) and F (pfn 20) in turn 100000 times, so that every access of
# either vCPU updates the shared table (A and F share a pending slot)
# while the other does the same. With sample=1 and no decay, at exit the
# table must equal the ground truth on every page, and A and F must hold
# 200000 each: a lost compare-and-swap or a pending count dropped or
# added twice shows as a difference. Run RUNS times (10).
set -u
. "$(dirname "$0")/lib.sh"
emu_setup
RUNS=${RUNS:-10}

ktap_plan 3
emu_build
ktap_ok build $? "make -C emulator failed, see $HWAGE_LOGS/emulator-build.log"

# table_vs_truth: the pages whose count differs from the truth, "pfn truth table"
table_vs_truth() {
	local pfn n c
	truth_body "$tmp/truth" | while read -r pfn n; do
		read -r c _ < <(emu_entry "$tmp/t" "$pfn")
		[ "$c" = "$n" ] || echo "$pfn $n $c"
	done
}

ran=0 exact=0 why=
for ((i = 1; i <= RUNS; i++)); do
	rm -f "$tmp/t" "$tmp/truth"
	emu_run smp "$T,$R,decay=1000000000000,truth=$tmp/truth" -smp 2 -accel tcg,thread=multi
	rc=$?
	a=$(awk '$1 == 16 { print $2 }' "$tmp/truth" 2>/dev/null)
	f=$(awk '$1 == 20 { print $2 }' "$tmp/truth" 2>/dev/null)
	if [ $rc != $EMU_EXIT ] || [ "$a" != 200000 ] || [ "$f" != 200000 ]; then
		why+=" run $i: exit $rc, truth A=$a F=$f (want $EMU_EXIT, 200000, 200000);"
		continue
	fi
	ran=$((ran + 1))
	diff=$(table_vs_truth)
	if [ -n "$diff" ] || [ "$(emu_entry "$tmp/t" 16)" != "200000 0 0" ]; then
		why+=" run $i: table differs (pfn truth table): $(echo $diff | head -c 200); A $(emu_entry "$tmp/t" 16);"
		continue
	fi
	exact=$((exact + 1))
done
[ $ran = "$RUNS" ]
ktap_ok two_vcpus_ran $? "$ran of $RUNS runs had both vCPUs count 100000 loads of A and F:$why"
[ $exact = "$RUNS" ]
ktap_ok table_equals_truth $? "$exact of $RUNS runs ended with the table equal to the truth:$why"
