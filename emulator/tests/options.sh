#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host test: the hca plugin refuses each bad option with a message naming
# it, and QEMU stops with an error; a good option set runs a guest. Then
# random values for every option (RANDOM_PER_KEY each, from a seed printed
# as a diagnostic; HWAGE_OPTIONS_SEED replays one): each either runs the
# guest or stops QEMU with a message naming the option, never a crash, a
# hang or a message about something else.
set -u
. "$(dirname "$0")/lib.sh"
emu_setup

# bad NAME WORD OPTIONS: QEMU must fail and the message must name WORD.
bad() {
	local name=$1 word=$2 opts=$3 rc
	emu_run pattern "$opts"
	rc=$?
	grep -q "^hca: .*$word" "$EMU_LOG" && [ $rc != 0 ] && [ $rc != $EMU_EXIT ]
	ktap_ok "refuses_$name" $? "options '$opts': exit $rc, want an error naming '$word':" \
		"$(grep -m 2 -e '^hca' -e 'qemu' "$EMU_LOG")"
}

cases=(
	"unknown_key foo $T,$R,foo=1"
	"missing_table table $R"
	"empty_table table table=,$R"
	"table_in_missing_dir table table=$tmp/no/such/dir/t,$R"
	"missing_ram ram $T"
	"ram_bad_suffix ram $T,ram=16X"
	"ram_zero ram $T,ram=0"
	"ram_negative ram $T,ram=-1"
	"ram_not_page_multiple ram $T,ram=10000"
	"page_not_power_of_two page $T,$R,page=3000"
	"page_too_small page $T,$R,page=2048"
	"sample_zero sample $T,$R,sample=0"
	"sample_not_number sample $T,$R,sample=x"
	"decay_zero decay $T,$R,decay=0"
	"decay_not_number decay $T,$R,decay=1e6"
	"decay_empty decay $T,$R,decay="
	"decay_clock_bad decay_clock $T,$R,decay_clock=host"
	"decay_clock_empty decay_clock $T,$R,decay_clock="
	"decay_time_below_1ms decay $T,$R,decay_clock=time,decay=999999"
	"decay_mode_bad decay_mode $T,$R,decay_mode=halve"
	"decay_mode_empty decay_mode $T,$R,decay_mode="
	"format_bad format $T,$R,format=p9"
	"format_empty format $T,$R,format="
	"cache_not_power_of_two cache $T,$R,cache=3000"
	"cache_too_big cache $T,$R,cache=2G"
	"cache_below_one_set cache $T,$R,cache=256"
	"cache_ways_zero cache_ways $T,$R,cache=32K,cache_ways=0"
	"cache_ways_too_many cache_ways $T,$R,cache=32K,cache_ways=65"
	"cache_ways_not_dividing cache_ways $T,$R,cache=32K,cache_ways=3"
	"ifetch_maybe ifetch $T,$R,ifetch=maybe"
	"ifetch_on_unsupported ifetch $T,$R,ifetch=on"
	"empty_truth truth $T,$R,truth="
	"fast_removed fast $T,$R,fast=on"
	"clock_removed clock $T,$R,clock=inline"
	"lines_maybe lines $T,$R,lines=maybe"
	"serial_maybe serial $T,$R,serial=maybe"
)

# the options random values go to, and the characters they are made of
RANDOM_KEYS="ram page sample decay decay_clock decay_mode cache cache_ways ifetch lines serial truth format"
RANDOM_PER_KEY=3
RANDOM_CHARS='0123456789kKmMgGtTxX-+.,=onfy '

ktap_plan "$((3 + ${#cases[@]}))"
emu_build
ktap_ok build $? "make -C emulator failed, see $HWAGE_LOGS/emulator-build.log"

emu_run pattern "$T,$R,page=4K,sample=1,decay=1000000,decay_clock=insns,ifetch=off,truth=$tmp/truth,lines=on"
rc=$?
[ $rc = $EMU_EXIT ] && [ -s "$tmp/truth" ]
ktap_ok accepts_good_options $? "exit $rc, want $EMU_EXIT and a truth file" "$(tail -n 3 "$EMU_LOG")"

for c in "${cases[@]}"; do
	# shellcheck disable=SC2086
	bad $c
done

seed=${HWAGE_OPTIONS_SEED:-$(date +%s)}
RANDOM=$seed
problems=
ran=0
refused=0
for key in $RANDOM_KEYS; do
	for _ in $(seq $RANDOM_PER_KEY); do
		v=
		for _ in $(seq $((RANDOM % 12))); do
			v+=${RANDOM_CHARS:$((RANDOM % ${#RANDOM_CHARS})):1}
		done
		v=${v//,/}	# a comma would start another option
		[ "$key" = truth ] && v=$tmp/${v// /_}
		opts="$T,$R,$key=$v"
		[ "${key%_ways}" != "$key" ] && opts="$T,$R,cache=32K,$key=$v"
		emu_run pattern "$opts"
		rc=$?
		[ $rc = $EMU_EXIT ] && { ran=$((ran + 1)); continue; }
		refused=$((refused + 1))
		if [ $rc -ge 124 ] || ! grep -q "^hca: .*$key" "$EMU_LOG"; then
			problems+="$key='$v': exit $rc: $(grep -m 1 -e '^hca' -e 'qemu' "$EMU_LOG")"$'\n'
		fi
	done
done
echo "# random option values (seed $seed): $ran ran the guest, $refused stopped QEMU"
[ -z "$problems" ]
ktap_ok random_values_run_or_are_refused_by_name $? \
	"seed $seed (HWAGE_OPTIONS_SEED replays it):" "$problems"
ktap_done
