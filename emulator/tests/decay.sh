#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host test: the decay modes (decay_mode=move|shift). hca_decay_pair()'s
# known answers at the edges (decay-pair.c), then the "decay" test guest
# of truth.sh (emulator/tests/testguest.S: page A, pfn 16, loaded 1000
# times, page B, pfn 32, stored 10 times and page C, pfn 48, loaded once;
# a spin of 100000 instructions; 7 more loads of A) under decay_mode=shift:
# with a decay every 40000 instructions (2 to 4 decays), A keeps half of
# its history per decay where move keeps none; with one every 10000 (8 to
# 12), the history has faded out of every page. The header's flags say
# HCA_TABLE_FLAG_DECAY_SHIFT (1) under shift.
set -u
. "$(dirname "$0")/lib.sh"
emu_setup

ktap_plan 5
emu_build
ktap_ok build $? "make -C emulator failed, see $HWAGE_LOGS/emulator-build.log"

emu_known_answers decay-pair

# run_decay DECAY MODE: the decay guest; sets rc, ep (epoch) and A's count,
# prev_count and age in ac ap aa
run_decay() {
	emu_run decay "$T,$R,decay=$1,decay_mode=$2"
	rc=$?
	ep=$(emu_u64 "$tmp/t" 48)
	read -r ac ap aa < <(emu_entry "$tmp/t" 16)
}

run_decay 40000 shift
lo=$((1000 >> ep)) hi=$(((1007 >> (ep - 1)) + 7))
flags=$(emu_u32 "$tmp/t" 76)
[ $rc = $EMU_EXIT ] && [ "$ep" -ge 2 ] && [ "$ep" -le 4 ] && [ "$aa" = "$ep" ] &&
	[ "$flags" = 1 ] &&
	[ $((ac + ap)) -ge $lo ] && [ $((ac + ap)) -le $hi ] &&
	[ "$(emu_entry "$tmp/t" 100)" = "0 0 $ep" ]
ktap_ok shift_keeps_history $? "exit $rc epoch=$ep (want 2..4); header flags $flags" \
	"(want 1, HCA_TABLE_FLAG_DECAY_SHIFT); A: $ac $ap $aa" \
	"(want count+prev in $lo..$hi, age=epoch); pfn 100: $(emu_entry "$tmp/t" 100)"

run_decay 40000 move
[ $rc = $EMU_EXIT ] && [ "$ep" -ge 2 ] && [ "$ep" -le 4 ] && [ $((ac + ap)) = 7 ]
ktap_ok move_keeps_two_periods $? "exit $rc epoch=$ep (want 2..4); A: $ac $ap $aa" \
	"(want count+prev=7: the 1000 earlier loads moved out)"

run_decay 10000 shift
hi=$(((1007 >> (ep - 1)) + 7))
[ $rc = $EMU_EXIT ] && [ "$ep" -ge 8 ] && [ "$ep" -le 12 ] && [ "$aa" = "$ep" ] &&
	[ $((ac + ap)) -ge 3 ] && [ $((ac + ap)) -le $hi ] &&
	[ "$(emu_entry "$tmp/t" 32)" = "0 0 $ep" ] && [ "$(emu_entry "$tmp/t" 48)" = "0 0 $ep" ]
ktap_ok shift_history_fades $? "exit $rc epoch=$ep (want 8..12); A: $ac $ap $aa" \
	"(want count+prev in 3..$hi); B: $(emu_entry "$tmp/t" 32), C: $(emu_entry "$tmp/t" 48)" \
	"(want 0 0 epoch)"
