#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test's host tests: run each tests/host/*.sh and emulator/tests/*.sh
# (or the .sh files of the directories given) and score its KTAP: one line
# per test file, its failures, and last
#   "host: N passed, N failed, 0 skipped"
# A file counts its "ok" and "not ok" lines, plus one failure when it
# printed no plan, reported another number of cases than its plan, or
# exited non-zero with no failing case. lib.sh files are helpers the tests
# source, not tests.
#   host-tests.sh [DIR...]
set -u
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || set -- "$HWAGE_TOP/tests/host" "$HWAGE_TOP/emulator/tests"
hp=0
hf=0
for d in "$@"; do
	for t in "$d"/*.sh; do
		[ -f "$t" ] && [ "$(basename "$t")" != lib.sh ] || continue
		out=$(bash "$t" 2>&1)
		rc=$?
		p=$(grep -c '^ok ' <<<"$out")
		f=$(grep -c '^not ok ' <<<"$out")
		plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' <<<"$out" | head -n 1)
		why=
		if [ -z "$plan" ]; then
			why="no plan (no 1..N line)"
		elif [ $((p + f)) != "$plan" ]; then
			why="planned $plan, reported $((p + f))"
		elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
			why="exited with status $rc"
		fi
		[ -z "$why" ] || f=$((f + 1))
		printf '  %s %-40s %d passed, %d failed\n' "$([ "$f" = 0 ] && echo "ok  " || echo FAIL)" \
			"host/$(basename "$t" .sh)" "$p" "$f"
		[ -z "$why" ] || echo "    FAIL $(basename "$t"): $why"
		[ "$f" = 0 ] || grep -E '^(not ok|#)' <<<"$out" | sed 's/^/    /'
		hp=$((hp + p))
		hf=$((hf + f))
	done
done
echo "host: $hp passed, $hf failed, 0 skipped"
[ "$hf" = 0 ]
