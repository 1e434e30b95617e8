#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host test: the POWER10 entry layout (format=p10; HCA_TABLE_FLAG_FORMAT_P10
# in the kernel series' include/uapi/misc/hca_emu.h). The encoding's known
# answers at its edges (p10-codec.c: exponent steps, floors, saturation,
# a decay's fields by IBM bit number); the header a p10 table gets; the
# pattern guest's exact small counts; the bench guest's large counts
# (tests/testguest.S: 2.5 million accesses a page, 1 in 3 counted, no
# decay) equal, page for page, the plain layout's counts of the same run
# (sampling is seeded: one vCPU repeats exactly) floored to what a count
# field holds; the decay guest's decays (age to 7, generation bit, the
# counts of the last two periods) under both decay modes; the MTTCG guest
# (two vCPUs updating one entry at once) loses no count.
set -u
. "$(dirname "$0")/lib.sh"
emu_setup

ktap_plan 7
emu_build
ktap_ok build $? "make -C emulator failed, see $HWAGE_LOGS/emulator-build.log"

emu_known_answers p10-codec

# header: entry_size (20) 8, table_size (40) for 4096 8-byte entries,
# age_max (68) 7, flags (76) 4; then the pattern's counts, exact below 4096
emu_run pattern "$T,$R,format=p10"
rc=$?
hdr="$(emu_u32 "$tmp/t" 20) $(emu_u64 "$tmp/t" 40) $(emu_u32 "$tmp/t" 68) $(emu_u32 "$tmp/t" 76)"
[ $rc = $EMU_EXIT ] && [ "$hdr" = "8 65536 7 4" ] &&
	[ "$(emu_entry "$tmp/t" 16)" = "1000 0 0" ] && [ "$(emu_entry "$tmp/t" 32)" = "10 0 0" ] &&
	[ "$(emu_entry "$tmp/t" 48)" = "1 0 0" ] && [ "$(emu_entry "$tmp/t" 64)" = "0 0 0" ]
ktap_ok header_and_pattern $? "exit $rc; entry_size table_size age_max flags: $hdr" \
	"(want 8 65536 7 4); A $(emu_entry "$tmp/t" 16), B $(emu_entry "$tmp/t" 32)," \
	"C $(emu_entry "$tmp/t" 48) (want 1000 0 0, 10 0 0, 1 0 0)"

# the bench guest's pages 0x10-0x7f, plain then p10, the same seeded run
emu_run bench "$T,$R,sample=3,decay=1000000000000"
rc1=$?
emu_entries "$tmp/t" 16 112 >"$tmp/plain"
emu_run bench "$T,$R,sample=3,decay=1000000000000,format=p10"
rc2=$?
emu_entries "$tmp/t" 16 112 >"$tmp/p10"
wrong=0 floored=0 small=0 first=
while read -r pc _ && read -r qc _ <&3; do
	want=$(p10_floor "$pc")
	[ "$qc" = "$want" ] || { wrong=$((wrong + 1)); first=${first:-"plain $pc: p10 $qc, want $want"}; }
	[ "$qc" = "$pc" ] || floored=$((floored + 1))
	[ "$pc" -gt 16383 ] || small=$((small + 1))
done <"$tmp/plain" 3<"$tmp/p10"
[ $rc1 = $EMU_EXIT ] && [ $rc2 = $EMU_EXIT ] && [ $wrong = 0 ] && [ $small = 0 ] &&
	[ $floored -gt 50 ] && [ "$(wc -l <"$tmp/p10")" = 112 ]
ktap_ok bench_counts_are_plain_counts_floored $? "exits $rc1 $rc2; of 112 pages: $wrong" \
	"wrong (${first:-none}), $floored floored (want > 50), $small with plain counts" \
	"below 16384 (want 0); e.g. $(head -n 1 "$tmp/plain") -> $(head -n 1 "$tmp/p10")"

# run_decay DECAY MODE: the decay guest in the POWER10 layout; sets rc,
# ep (epoch), A's count, prev_count and age in ac ap aa, and the
# generation bits of A and of an untouched page in ga gu
run_decay() {
	emu_run decay "$T,$R,decay=$1,decay_mode=$2,format=p10"
	rc=$?
	ep=$(emu_u64 "$tmp/t" 48)
	read -r ac ap aa < <(emu_entry "$tmp/t" 16)
	ga=$(emu_p10_gen "$tmp/t" 16)
	gu=$(emu_p10_gen "$tmp/t" 100)
}

run_decay 40000 move
[ $rc = $EMU_EXIT ] && [ "$ep" -ge 2 ] && [ "$ep" -le 4 ] && [ $((ac + ap)) = 7 ] &&
	[ "$aa" = "$ep" ] && [ "$ga" = $((ep & 1)) ] && [ "$gu" = $((ep & 1)) ] &&
	[ "$(emu_entry "$tmp/t" 100)" = "0 0 $ep" ]
ktap_ok move_decays $? "exit $rc epoch=$ep (want 2..4); A: $ac $ap $aa (want count+prev=7," \
	"age=epoch), generation bits $ga $gu (want epoch & 1); pfn 100: $(emu_entry "$tmp/t" 100)"

# shift: A's history halves per decay (floored to prev_count's steps),
# and with 8 to 12 decays the age stops at 7
run_decay 40000 shift
lo=$(((1000 >> ep) - 4)) hi=$(((1007 >> (ep - 1)) + 7))
[ $rc = $EMU_EXIT ] && [ "$ep" -ge 2 ] && [ "$ep" -le 4 ] && [ "$aa" = "$ep" ] &&
	[ $((ac + ap)) -ge $lo ] && [ $((ac + ap)) -le $hi ] && [ "$(emu_u32 "$tmp/t" 76)" = 5 ]
ok=$?
msg="exit $rc epoch=$ep; A: $ac $ap $aa (want count+prev in $lo..$hi, age=epoch); flags $(emu_u32 "$tmp/t" 76) (want 5)"
run_decay 10000 shift
[ $ok = 0 ] && [ $rc = $EMU_EXIT ] && [ "$ep" -ge 8 ] && [ "$ep" -le 12 ] && [ "$aa" = 7 ] &&
	[ "$(emu_entry "$tmp/t" 100)" = "0 0 7" ] && [ "$gu" = $((ep & 1)) ]
ktap_ok shift_decays_age_saturates $? "$msg; then exit $rc epoch=$ep (want 8..12): A age $aa," \
	"pfn 100: $(emu_entry "$tmp/t" 100) (want age 7), generation bit $gu (want $((ep & 1)))"

# two vCPUs at once on the entries of A and F: 200000 accesses each, a
# count that the POWER10 form holds exactly (3125 * 64); three runs (a lost
# update between the vCPUs showed as 199936 in about one run in six)
bad=
for run in 1 2 3; do
	emu_run smp "$T,$R,decay=1000000000000,format=p10" -smp 2 -accel tcg,thread=multi
	rc=$?
	[ $rc = $EMU_EXIT ] && [ "$(emu_entry "$tmp/t" 16)" = "200000 0 0" ] &&
		[ "$(emu_entry "$tmp/t" 20)" = "200000 0 0" ] ||
		bad="$bad run $run: exit $rc, A $(emu_entry "$tmp/t" 16), F $(emu_entry "$tmp/t" 20);"
done
[ -z "$bad" ]
ktap_ok smp_loses_nothing $? "${bad:-}(want 200000 0 0 each)"
