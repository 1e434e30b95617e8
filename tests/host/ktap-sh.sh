#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: harness/ktap.sh, the KTAP emitter of the host tests, whose
# output harness/host-tests.sh counts line by line.
set -u
K=$(dirname "$0")/../../harness/ktap.sh
. "$K"
ktap_plan 3

# A failing case quoting a log: no line of it may read as a result.
out=$(bash -c '. "$1"; ktap_plan 1; ktap_ok quoted 1 "first" "$(printf "ok 1 old\nnot ok 2 old")"; ktap_done' _ "$K")
rc=$?
[ "$rc" = 1 ] && [ "$(grep -cE '^(not )?ok ' <<<"$out")" = 1 ] && grep -q '^# ok 1 old$' <<<"$out"
ktap_ok multi_line_diagnostics_are_comments $? "exit $rc" "$out"

out=$(bash -c '. "$1"; ktap_plan 2; ktap_ok one 0; ktap_done' _ "$K")
rc=$?
[ "$rc" = 1 ] && grep -q '^# planned 2 cases, reported 1$' <<<"$out"
ktap_ok fewer_cases_than_planned_fail $? "exit $rc" "$out"

out=$(bash -c '. "$1"; ktap_plan 2; ktap_ok one 0; ktap_skip two why; ktap_done' _ "$K")
rc=$?
[ "$rc" = 0 ] && grep -q '^ok 2 two # SKIP why$' <<<"$out"
ktap_ok skips_pass $? "exit $rc" "$out"
ktap_done
