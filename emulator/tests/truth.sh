#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host test: the hca plugin's ground truth and table against bare-metal
# guests with a known access pattern (emulator/tests/testguest.S): page A (pfn 16)
# loaded 1000 times, page B (pfn 32) stored 10 times, page C (pfn 48) loaded
# once.  Also decays, 64K pages, sampling, the control area (through the
# shared file, as the guest would write it) and saturation.
set -u
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
qpid=
trap '[ -n "$qpid" ] && kill $qpid 2>/dev/null; rm -rf "$tmp"' EXIT
EMU_LOG=$tmp/qemu.log
T=table=$tmp/t
R=ram=$EMU_RAM

ktap_plan 22
emu_build
ktap_ok build $? "make -C emulator failed, see $HWAGE_LOGS/emulator-build.log"

# 2-3: exact counting.
emu_run pattern "$T,$R,truth=$tmp/truth"
rc=$?
[ $rc = $EMU_EXIT ] && [ "$(truth_body "$tmp/truth")" = "$EMU_PATTERN" ] &&
	grep -q "^# ram=16777216 page=4096 " "$tmp/truth"
ktap_ok truth_exact $? "exit $rc (want $EMU_EXIT); truth file:" "$(cat "$tmp/truth" 2>&1)"

S=$("$EMU_OUT/hca-size" $EMU_RAM)
got="$(emu_u64 $tmp/t 0) $(emu_u32 $tmp/t 8) $(emu_u32 $tmp/t 16) $(emu_u64 $tmp/t 24)"
got+=" $(emu_u64 $tmp/t 40) $(emu_u64 $tmp/t 48) $(emu_u32 $tmp/t 64) $(emu_u32 $tmp/t 256)"
got+=" | $(emu_entry $tmp/t 16), $(emu_entry $tmp/t 32), $(emu_entry $tmp/t 48), $(emu_entry $tmp/t 64)"
want="$(printf %d 0x4143484547415748) 1 12 4096 $S 0 1 1 | 1000 0 0, 10 0 0, 1 0 0, 0 0 0"
[ "$got" = "$want" ] && [ "$(stat -c %s $tmp/t)" = "$S" ]
ktap_ok table_exact $? "header (magic version shift pages size epoch sample enabled) | entries A B C D:" \
	"got  $got" "want $want" "file size $(stat -c %s $tmp/t), want $S"

# 4: entries are guest-physical pages whatever the order of the memory
# backends: another RAM backend created before main RAM (which put main
# RAM at a nonzero RAM block offset under QEMU 7.2) changes nothing.
cp $tmp/truth $tmp/truth.first
od -A d -t u4 -v $tmp/t >$tmp/t.first
timeout 60 "$EMU_QEMU" -object memory-backend-ram,id=before,size=1M "${EMU_QEMU_ARGS[@]}" \
	-bios "$EMU_OUT/guest-pattern.bin" -plugin "$EMU_PLUGIN,$T,$R,truth=$tmp/truth" \
	-d plugin </dev/null >"$EMU_LOG" 2>&1
rc=$?
od -A d -t u4 -v $tmp/t >$tmp/t.second
[ $rc = $EMU_EXIT ] && [ "$(truth_body "$tmp/truth")" = "$EMU_PATTERN" ] &&
	cmp -s $tmp/t.first $tmp/t.second
ktap_ok guest_physical_any_backend_order $? "exit $rc; truth: $(truth_body "$tmp/truth" | tr '\n' ' ')" \
	"$(diff $tmp/t.first $tmp/t.second | head -n 5)"

# 5: sampling 1 in 4: the truth stays exact, counts are multiples of 4 near
# the real numbers (fixed seeds: repeatable).
emu_run pattern "$T,$R,sample=4,truth=$tmp/truth"
rc=$?
read -r a _ < <(emu_entry $tmp/t 16)
read -r b _ < <(emu_entry $tmp/t 32)
read -r d _ < <(emu_entry $tmp/t 64)
[ $rc = $EMU_EXIT ] && [ "$(truth_body "$tmp/truth")" = "$EMU_PATTERN" ] &&
	[ $((a % 4)) = 0 ] && [ $a -ge 700 ] && [ $a -le 1300 ] &&
	[ $((b % 4)) = 0 ] && [ $b -le 40 ] && [ "$d" = 0 ]
ktap_ok sample_4 $? "exit $rc; A=$a B=$b D=$d (want A in [700,1300], B <= 40, multiples of 4, D=0)" \
	"$(truth_body "$tmp/truth" | tr '\n' ' ')"

# 6: 64K pages: A, B, C are pfns 1, 2, 3.
emu_run pattern "$T,$R,page=64K,truth=$tmp/truth"
rc=$?
[ $rc = $EMU_EXIT ] && [ "$(truth_body "$tmp/truth")" = "1 1000
2 10
3 1" ] && [ "$(emu_u32 $tmp/t 16)" = 16 ] && [ "$(emu_entry $tmp/t 1)" = "1000 0 0" ]
ktap_ok page_64k $? "exit $rc; entry 1: $(emu_entry $tmp/t 1)" "$(truth_body "$tmp/truth" | tr '\n' ' ')"

# 7: the instruction clock (scoreboard counts, flushed by a conditional
# callback) counts what the guest ran: the same guest code gives the same
# count whatever the page size (the 64K-page run above against the first
# run). Equal in every run seen but one, on a loaded host (2026-12-04), that
# counted 3044 and 3045; why is not known (the block QEMU exits in is a
# suspect), so a difference of 2 instructions out of about 3000 is accepted.
insns_64k=$(sed -n 's/^# .* insns=\([0-9]*\) .*/\1/p' "$tmp/truth")
insns_4k=$(sed -n 's/^# .* insns=\([0-9]*\) .*/\1/p' "$tmp/truth.first")
[ -n "$insns_4k" ] && [ "$insns_4k" -gt 0 ] && [ -n "$insns_64k" ] &&
	[ $((insns_64k - insns_4k)) -le 2 ] && [ $((insns_4k - insns_64k)) -le 2 ]
ktap_ok clock_counts_insns $? "insns ${insns_64k:-none} with page=64K, ${insns_4k:-none} with 4K"

# A sweep through a line counts once (lines=on, the default): rep stosb
# over D and rep movsb from D to E count 64 + 64 for D and 64 for E, in the
# table and in the truth; lines=off counts all 4096 accesses of each.
emu_run sweep "$T,$R,truth=$tmp/truth"
rc=$?
want="$EMU_PATTERN
64 128
80 64"
[ $rc = $EMU_EXIT ] && [ "$(truth_body "$tmp/truth")" = "$want" ] &&
	[ "$(emu_entry $tmp/t 64)" = "128 0 0" ] && [ "$(emu_entry $tmp/t 80)" = "64 0 0" ]
ktap_ok lines_count_a_sweep_once $? "exit $rc; D $(emu_entry $tmp/t 64), E $(emu_entry $tmp/t 80)" \
	"(want 128 and 64); truth: $(truth_body "$tmp/truth" | tr '\n' ' ')"
emu_run sweep "$T,$R,truth=$tmp/truth,lines=off"
rc=$?
want="$EMU_PATTERN
64 8192
80 4096"
[ $rc = $EMU_EXIT ] && [ "$(truth_body "$tmp/truth")" = "$want" ] &&
	[ "$(emu_entry $tmp/t 64)" = "8192 0 0" ]
ktap_ok lines_off_counts_every_access $? "exit $rc; D $(emu_entry $tmp/t 64) (want 8192);" \
	"truth: $(truth_body "$tmp/truth" | tr '\n' ' ')"

# 8: decays every 10000 instructions; the guest spins 100000 instructions
# after the pattern, then loads A 7 more times.
emu_run decay "$T,$R,decay=10000,truth=$tmp/truth"
rc=$?
ep=$(emu_u64 $tmp/t 48)
read -r ac ap aa < <(emu_entry $tmp/t 16)
[ $rc = $EMU_EXIT ] && [ "$(truth_body "$tmp/truth")" = "16 1007
32 10
48 1" ] && [ "$ep" -ge 8 ] && [ "$ep" -le 12 ] && [ $((ac + ap)) = 7 ] && [ "$aa" = "$ep" ] &&
	[ "$(emu_entry $tmp/t 32)" = "0 0 $ep" ] && [ "$(emu_entry $tmp/t 100)" = "0 0 $ep" ]
ktap_ok decay $? "exit $rc epoch=$ep (want 8..12); A: $ac $ap $aa (want count+prev=7, age=epoch);" \
	"B: $(emu_entry $tmp/t 32); pfn 100: $(emu_entry $tmp/t 100)" \
	"$(truth_body "$tmp/truth" | tr '\n' ' ')"

# 9: the table as the guest sees it: an ivshmem-plain BAR (QEMU creates the
# file first, at the size hca-size gives), mapped by the guest at 0xa0000.
# Addresses are guest-physical, so the plugin counts the pages below ram=;
# a real guest's BARs sit above its RAM, and so does this one with ram=512K
# (the real-mode guest cannot reach above 1 MiB).  Its 1000 loads and 1
# store through the BAR are not counted against any page, and its truth_req
# write reaches the plugin.
rm -f $tmp/t $tmp/truth
S512=$("$EMU_OUT/hca-size" 512K)
emu_run bar "$T,ram=512K,truth=$tmp/truth" \
	-object memory-backend-file,id=hca,share=on,mem-path=$tmp/t,size=$S512 \
	-device ivshmem-plain,memdev=hca,addr=05.0
rc=$?
sum=$(od -A n -t u4 -v -j 4096 $tmp/t | awk '{ s += $1 } END { print s }')
[ $rc = $EMU_EXIT ] && [ "$(truth_body "$tmp/truth")" = "$EMU_PATTERN" ] && [ "$sum" = 1011 ] &&
	[ "$(emu_u32 $tmp/t 264)" = 1 ] && [ "$(stat -c %s $tmp/t)" = "$S512" ]
ktap_ok ivshmem_bar_not_counted $? "exit $rc; sum of counts $sum (want 1011);" \
	"truth_done $(emu_u32 $tmp/t 264) (want 1); size $(stat -c %s $tmp/t) (want $S512)" \
	"$(truth_body "$tmp/truth" | tr '\n' ' ')"

# 10-15: the control area, with QEMU mapping the table as an ivshmem BAR
# (QEMU creates the file first, at the size hca-size gives), no decays; the guest
# loads A forever and the test writes the control area into the file.
rm -f $tmp/t $tmp/truth
timeout 60 "$EMU_QEMU" "${EMU_QEMU_ARGS[@]}" -bios "$EMU_OUT/guest-loop.bin" \
	-object memory-backend-file,id=hca,share=on,mem-path=$tmp/t,size=$S \
	-device ivshmem-plain,memdev=hca \
	-plugin "$EMU_PLUGIN,$T,$R,decay=1000000000000,truth=$tmp/truth" -d plugin </dev/null >"$EMU_LOG" 2>&1 &
qpid=$!
count_a() { emu_u32 $tmp/t $((4096 + 16 * 16)); }
a_above() { [ -f $tmp/t ] && [ "$(count_a)" -gt "$1" ] 2>/dev/null; }
wait_for 20 a_above 1000
ktap_ok counts_live_in_shared_table $? "A count $(count_a 2>&1) after 20 s" "$(cat "$EMU_LOG")"

emu_poke32 $tmp/t 256 0
sleep 0.3
a1=$(count_a)
sleep 0.5
a2=$(count_a)
emu_poke32 $tmp/t 256 1
a_above "$a2" || sleep 0.5
a3=$(count_a)
[ "$a1" = "$a2" ] && [ "$a3" -gt "$a2" ]
ktap_ok enabled_stops_and_restarts_counting $? "disabled: $a1 then $a2 (want equal); enabled: $a3"

emu_poke32 $tmp/t 260 1
truth_done() { [ "$(emu_u32 $tmp/t 264)" = 1 ]; }
wait_for 10 truth_done && [ "$(truth_body $tmp/truth | wc -l)" = 1 ] &&
	[ "$(truth_body $tmp/truth | cut -d' ' -f1)" = 16 ]
ktap_ok truth_on_request $? "truth_done=$(emu_u32 $tmp/t 264)" "$(cat $tmp/truth 2>&1 | head -n 5)"

# A second request: its dump is kept as truth.2 beside truth.1, and the
# loop's loads between the two show up as the difference.
emu_poke32 $tmp/t 260 2
truth_done2() { [ "$(emu_u32 $tmp/t 264)" = 2 ]; }
wait_for 10 truth_done2
s1=$(truth_body $tmp/truth.1 2>/dev/null | awk '$1 == 16 { print $2 }')
s2=$(truth_body $tmp/truth.2 2>/dev/null | awk '$1 == 16 { print $2 }')
[ -n "$s1" ] && [ -n "$s2" ] && [ "$s2" -gt "$s1" ] && grep -q 'request=2' $tmp/truth.2
ktap_ok truth_snapshots_kept $? "A in truth.1: ${s1:-none}, in truth.2: ${s2:-none} (want both, truth.2 larger)"

emu_poke32 $tmp/t 4352 4294967000
sleep 0.5
sat=$(count_a)
[ "$sat" = 4294967295 ]
ktap_ok count_saturates $? "A count $sat, want 4294967295"

# A guest clear (all three counters to 0): counting resumes from 0.
emu_poke32 $tmp/t 4352 0
emu_poke32 $tmp/t 4356 0
emu_poke32 $tmp/t 4360 0
sleep 0.3
read -r cc cp ca < <(emu_entry $tmp/t 16)
[ "$cc" -gt 0 ] && [ "$cc" -lt 4000000000 ] && [ "$cp" = 0 ] && [ "$ca" = 0 ]
ktap_ok clear_restarts_entry $? "A after clear: $cc $cp $ca (want 0 < count < 4e9, 0, 0)"

kill -TERM $qpid
wait $qpid
rc=$?
qpid=
n=$(truth_body $tmp/truth | cut -d' ' -f2)
[ "$(truth_body $tmp/truth | cut -d' ' -f1)" = 16 ] && [ "${n:-0}" -gt "$a3" ] && [ "$(stat -c %s $tmp/t)" = "$S" ]
ktap_ok truth_at_exit $? "QEMU exit $rc; truth: $(truth_body $tmp/truth | tr '\n' ' ') (want pfn 16 only, > $a3)"

# 16: ages saturate at 255 (decay every 1000 instructions, ~1 s of guest).
timeout 60 "$EMU_QEMU" "${EMU_QEMU_ARGS[@]}" -bios "$EMU_OUT/guest-loop.bin" \
	-plugin "$EMU_PLUGIN,$T,$R,decay=1000" -d plugin </dev/null >"$EMU_LOG" 2>&1 &
qpid=$!
epoch_above() { [ "$(emu_u64 $tmp/t 48)" -gt "$1" ] 2>/dev/null; }
wait_for 20 epoch_above 300
ep=$(emu_u64 $tmp/t 48)
kill -TERM $qpid
wait $qpid
qpid=
[ "$ep" -gt 300 ] && [ "$(emu_entry $tmp/t 100)" = "0 0 255" ] && [ "$(emu_u32 $tmp/t $((4096 + 16 * 16 + 8)))" = 255 ]
ktap_ok age_saturates $? "epoch $ep; pfn 100: $(emu_entry $tmp/t 100) (want 0 0 255)"

# 17: under -icount (guest time from instructions, not the host clock, as
# the benchmark runs), on two vCPUs run one at a time in one thread
# (serial=on), counts, decays and the truth are as in test 8.
emu_run decay "$T,$R,decay=10000,truth=$tmp/truth,serial=on" -icount shift=0,sleep=off -smp 2
rc=$?
ep=$(emu_u64 $tmp/t 48)
read -r ac ap aa < <(emu_entry $tmp/t 16)
[ $rc = $EMU_EXIT ] && [ "$(truth_body "$tmp/truth")" = "16 1007
32 10
48 1" ] && [ "$ep" -ge 8 ] && [ "$ep" -le 12 ] && [ $((ac + ap)) = 7 ] && [ "$aa" = "$ep" ]
ktap_ok icount_two_vcpus $? "exit $rc epoch=$ep (want 8..12); A: $ac $ap $aa (want count+prev=7, age=epoch)" \
	"$(truth_body "$tmp/truth" | tr '\n' ' ')" "$(grep -v '^hca:' "$EMU_LOG" | head -n 5)"

# 18, 19: serial= must match how QEMU runs the vCPUs, or QEMU stops with a
# message naming the option: -icount without it, multi-threaded TCG with it.
emu_run decay "$T,$R,decay=10000" -icount shift=0,sleep=off -smp 2
rc=$?
[ $rc != $EMU_EXIT ] && [ $rc != 124 ] && grep -q 'needs the option serial=on' "$EMU_LOG"
ktap_ok serial_needed_under_icount $? "exit $rc" "$(head -n 3 "$EMU_LOG")"
emu_run decay "$T,$R,decay=10000,serial=on" -accel tcg,thread=multi -smp 2
rc=$?
[ $rc != $EMU_EXIT ] && [ $rc != 124 ] && grep -q 'serial=on, but the vCPUs run in threads' "$EMU_LOG"
ktap_ok serial_refused_under_mttcg $? "exit $rc" "$(head -n 3 "$EMU_LOG")"

ktap_done
