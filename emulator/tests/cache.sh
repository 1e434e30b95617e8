#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host test: memory-side counting (cache=SIZE, cache_ways=N) against the
# test guests' known accesses (emulator/tests/testguest.S). In a cache
# that holds what a guest touches, each line counts once, at its first
# access: the pattern's 1000 loads of A, 10 stores to B and 1 load of C
# count 1 each; the sweep's stores to all of D and copy of D to E count
# 64 each (D's lines are still cached when the copy reads them). In a
# cache of 16 lines (1K, 4 ways), the copy finds none of D's lines: D
# counts 128. The ground truth counts every access, cache or not. The
# header's flags say HCA_TABLE_FLAG_MEMORY_SIDE (2).
set -u
. "$(dirname "$0")/lib.sh"
emu_setup

ktap_plan 5
emu_build
ktap_ok build $? "make -C emulator failed, see $HWAGE_LOGS/emulator-build.log"

emu_run pattern "$T,$R,cache=32K,truth=$tmp/truth"
rc=$?
[ $rc = $EMU_EXIT ] && [ "$(truth_body "$tmp/truth")" = "$EMU_PATTERN" ] &&
	[ "$(emu_entry $tmp/t 16)" = "1 0 0" ] && [ "$(emu_entry $tmp/t 32)" = "1 0 0" ] &&
	[ "$(emu_entry $tmp/t 48)" = "1 0 0" ]
ktap_ok pattern_counts_each_line_once $? "exit $rc; A $(emu_entry $tmp/t 16)," \
	"B $(emu_entry $tmp/t 32), C $(emu_entry $tmp/t 48) (want 1 0 0 each);" \
	"truth: $(truth_body "$tmp/truth" | tr '\n' ' ')"

emu_run sweep "$T,$R,cache=32K"
rc=$?
flags=$(emu_u32 "$tmp/t" 76)
[ $rc = $EMU_EXIT ] && [ "$(emu_entry $tmp/t 64)" = "64 0 0" ] &&
	[ "$(emu_entry $tmp/t 80)" = "64 0 0" ] && [ "$flags" = 2 ]
ktap_ok sweep_hits_what_it_stored $? "exit $rc; D $(emu_entry $tmp/t 64)," \
	"E $(emu_entry $tmp/t 80) (want 64 0 0 each); header flags $flags (want 2," \
	"HCA_TABLE_FLAG_MEMORY_SIDE)"

emu_run sweep "$T,$R,cache=1K,cache_ways=4"
rc=$?
[ $rc = $EMU_EXIT ] && [ "$(emu_entry $tmp/t 64)" = "128 0 0" ] &&
	[ "$(emu_entry $tmp/t 80)" = "64 0 0" ] && [ "$(emu_entry $tmp/t 16)" = "1 0 0" ]
ktap_ok small_cache_misses_again $? "exit $rc; D $(emu_entry $tmp/t 64)" \
	"(want 128 0 0), E $(emu_entry $tmp/t 80) (want 64 0 0), A $(emu_entry $tmp/t 16)" \
	"(want 1 0 0)"

# the same with 1 in 16 of the misses counted, each adding 16: D's 128
# misses give a multiple of 16 near 128
emu_run sweep "$T,$R,cache=1K,cache_ways=4,sample=16"
rc=$?
read -r dc _ < <(emu_entry $tmp/t 64)
[ $rc = $EMU_EXIT ] && [ $((dc % 16)) = 0 ] && [ "$dc" -ge 32 ] && [ "$dc" -le 320 ]
ktap_ok sampled_misses_scale $? "exit $rc; D count $dc (want a multiple of 16 in 32..320)"
