#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host test: hca-chaos, the corrupter of HWAGE_HCA=chaos boots, on an idle
# table written by hca-size -w (no guest): it waits for the table, runs
# every kind of corruption for the time it is given, says so in its tally,
# leaves the header as it found it (the fields it overwrites for 20 ms are
# put back) and the control area alone, and has changed entries. Bad
# arguments are refused.
set -u
. "$(dirname "$0")/lib.sh"
emu_setup

ktap_plan 4
emu_build
ktap_ok build $? "make -C emulator failed, see $HWAGE_LOGS/emulator-build.log"

CHAOS=$EMU_OUT/hca-chaos
"$EMU_OUT/hca-size" -w "$tmp/t" 64M >/dev/null
# the control area as the guest left it: enabled 1, truth_req 5, truth_done 4
emu_poke32 "$tmp/t" 260 5
emu_poke32 "$tmp/t" 264 4
head -c 4096 "$tmp/t" >"$tmp/hdr0"
timeout 20 "$CHAOS" "$tmp/t" 2 >"$tmp/out" 2>&1
rc=$?
tally=$(cat "$tmp/out")
ok=1
[ $rc = 0 ] || ok=0
for kind in random max backward flip header; do
	n=$(sed -n "s/.* $kind \([0-9]*\).*/\1/p" <<<"$tally")
	[ "${n:-0}" -gt 0 ] || ok=0
done
[ $ok = 1 ]
ktap_ok every_corruption_runs $? "exit $rc, tally: $tally"

cmp "$tmp/hdr0" <(head -c 4096 "$tmp/t") >"$tmp/cmp" 2>&1
ktap_ok header_and_control_area_as_found $? "$(cat "$tmp/cmp")"

# entries: the idle table's are all zero; chaos must have changed many
changed=$(tail -c +4097 "$tmp/t" | od -A n -t x8 -v | tr ' ' '\n' | grep -cv '^0*$')
bad=""
"$CHAOS" >/dev/null 2>&1; [ $? = 2 ] || bad="no arguments: not refused"
"$CHAOS" "$tmp/t" -1 >/dev/null 2>&1; [ $? = 2 ] || bad="$bad; SECONDS -1: not refused"
[ "$changed" -gt 100 ] && [ -z "$bad" ]
ktap_ok entries_changed_and_bad_arguments_refused $? "$changed words changed (want > 100)$bad"

ktap_done
