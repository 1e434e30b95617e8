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
#
# Then the decay clock (decay_clock=insns|time), on the "idle" guest: the
# pattern, then halted until QEMU is stopped from outside, 2 s later. On
# instructions nothing decays while it idles (epoch 0, A's 1000 loads in
# its count); on guest time, with a decay every 50 ms, about 40 decays
# happen (10 to 50 allowed: QEMU starts and stops within that time, on a
# host that may be busy), A's history is gone and its age is the epoch.
# The header says which clock: decay_insns 0 and decay_ns the period.
set -u
. "$(dirname "$0")/lib.sh"
emu_setup

ktap_plan 10
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

# run_idle OPTIONS: the idle guest for 2 s; sets rc, ep, A's entry, and the
# header's decay_insns (offset 56) and decay_ns (offset 80) in di dn
run_idle() {
	EMU_TIMEOUT=2 emu_run idle "$T,$R,$1"
	rc=$?
	ep=$(emu_u64 "$tmp/t" 48)
	di=$(emu_u64 "$tmp/t" 56)
	dn=$(emu_u64 "$tmp/t" 80)
	read -r ac ap aa < <(emu_entry "$tmp/t" 16)
}

run_idle decay=50000
[ $rc = 124 ] && [ "$ep" = 0 ] && [ "$ac $ap $aa" = "1000 0 0" ] &&
	[ "$di" = 50000 ] && [ "$dn" = 0 ]
ktap_ok insns_clock_stops_when_idle $? "exit $rc (want 124, stopped by timeout)" \
	"epoch=$ep (want 0); A: $ac $ap $aa (want 1000 0 0);" \
	"header decay_insns=$di decay_ns=$dn (want 50000 0)"

run_idle decay=50000000,decay_clock=time
[ $rc = 124 ] && [ "$ep" -ge 10 ] && [ "$ep" -le 50 ] &&
	[ "$ac $ap $aa" = "0 0 $((ep < 255 ? ep : 255))" ] &&
	[ "$di" = 0 ] && [ "$dn" = 50000000 ] &&
	grep -q "decay_clock=time" "$EMU_LOG"
ktap_ok time_clock_runs_when_idle $? "exit $rc (want 124)" \
	"epoch=$ep (want 10..50 in 2 s at 50 ms); A: $ac $ap $aa (want 0 0 epoch);" \
	"header decay_insns=$di decay_ns=$dn (want 0 50000000);" \
	"$(grep -m 1 '^hca: table' "$EMU_LOG")"

# the p10 layout under the time clock, decay_mode=shift: the header's
# flags say both (HCA_TABLE_FLAG_FORMAT_P10 | DECAY_SHIFT = 5), the POWER10
# age saturates at 7, and A's history halves at each decay after its loads
# landed: the clock starts with the plugin, before the guest, so allow
# half of the decays to have come before them (A at most 1000 >> epoch/2)
run_idle decay=50000000,decay_clock=time,format=p10,decay_mode=shift
flags=$(emu_u32 "$tmp/t" 76)
[ $rc = 124 ] && [ "$ep" -ge 10 ] && [ "$ep" -le 50 ] && [ "$flags" = 5 ] &&
	[ "$aa" = 7 ] && [ $((ac + ap)) -le $((1000 >> (ep / 2))) ] && [ "$dn" = 50000000 ]
ktap_ok time_clock_p10_shift $? "exit $rc (want 124) epoch=$ep (want 10..50)" \
	"flags=$flags (want 5); A: $ac $ap $aa (want count+prev <= $((1000 >> (ep / 2))), age 7);" \
	"decay_ns=$dn"

# enabled=0 (the guest's switch, poked here as the driver writes it) stops
# the time clock's decays too, and enabled=1 restarts them: epoch moves by
# at most 1 (a decay in flight) in 0.5 s (10 periods) while off.
rm -f "$tmp/t"
timeout 30 "$EMU_QEMU" "${EMU_QEMU_ARGS[@]}" -bios "$EMU_OUT/guest-idle.bin" \
	-plugin "$EMU_PLUGIN,$T,$R,decay=50000000,decay_clock=time" -d plugin \
	</dev/null >"$EMU_LOG" 2>&1 &
qpid=$!
epoch_above() { [ -f "$tmp/t" ] && [ "$(emu_u64 "$tmp/t" 48)" -gt "$1" ] 2>/dev/null; }
problems=$(
	wait_for 20 epoch_above 1 || echo "no decay in 20 s: epoch $(emu_u64 "$tmp/t" 48)"
	emu_poke32 "$tmp/t" 256 0
	sleep 0.1
	e1=$(emu_u64 "$tmp/t" 48)
	sleep 0.5
	e2=$(emu_u64 "$tmp/t" 48)
	emu_poke32 "$tmp/t" 256 1
	[ "$e2" -le $((e1 + 1)) ] || echo "enabled=0: epoch $e1 then $e2 0.5 s later"
	wait_for 10 epoch_above "$e2" || echo "enabled=1: epoch stays $e2")
kill -TERM $qpid 2>/dev/null
wait $qpid 2>/dev/null
[ -z "$problems" ]
ktap_ok time_clock_obeys_enabled $? "$problems"

# QEMU stopped (SIGSTOP) for 1 s, 20 periods: once it runs again the clock
# skips what it missed instead of decaying 20 times in a burst (at most 12
# decays in the 0.3 s after SIGCONT, 6 periods), and says so at exit
rm -f "$tmp/t"
timeout 30 "$EMU_QEMU" "${EMU_QEMU_ARGS[@]}" -bios "$EMU_OUT/guest-idle.bin" \
	-plugin "$EMU_PLUGIN,$T,$R,decay=50000000,decay_clock=time" -d plugin \
	</dev/null >"$EMU_LOG" 2>&1 &
qpid=$!
problems=$(
	wait_for 20 epoch_above 1 || echo "no decay in 20 s: epoch $(emu_u64 "$tmp/t" 48)"
	qemu=$(pgrep -P $qpid)
	kill -STOP $qemu
	sleep 1
	e1=$(emu_u64 "$tmp/t" 48)
	kill -CONT $qemu
	sleep 0.3
	e2=$(emu_u64 "$tmp/t" 48)
	[ "$e2" -le $((e1 + 12)) ] || echo "stopped 1 s: epoch $e1, then $e2 0.3 s after it ran again")
kill -TERM $qpid 2>/dev/null
wait $qpid 2>/dev/null
skipped=$(sed -n 's/^hca: exit: .*decays_skipped=\([0-9]*\).*/\1/p' "$EMU_LOG")
[ -z "$problems" ] && [ "${skipped:-0}" -ge 10 ]
ktap_ok time_clock_skips_a_stop $? "$problems" "decays_skipped=${skipped:-none} (want >= 10)"
