#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: harness/t13-verdict.sh on score lines with known verdicts,
# among them the x86_64 boot of a CI run whose base run had none of the
# workload's pages in its youngest generation (scored "- 0.000 ...") and
# was then taken for a missing run.
set -u
V=$(dirname "$0")/../../harness/t13-verdict.sh
. "$(dirname "$0")/../../harness/ktap.sh"
ktap_plan 6

# verdict NAME STATUS "TRUTH" "PRECISION" SCORES: the exit status and the
# two counted lines must be the ones given
verdict() {
	local name=$1 want_rc=$2 want_t=$3 want_p=$4 out rc
	out=$(printf '%s\n' "$5" | bash "$V" x86_64)
	rc=$?
	[ "$rc" = "$want_rc" ] &&
		[ "$(tail -n 2 <<<"$out")" = "x86_64/t13-truth: $want_t
x86_64/t13-precision: $want_p" ]
	ktap_ok "$name" $? "exit status $rc (want $want_rc); got:" "$out"
}
verdict above_base_and_min 0 "1 passed, 0 failed, 0 skipped" "1 passed, 0 failed, 0 skipped" \
	"0.450 0.900 0.450 0.900 0.990
0.850 0.700 0.850 0.700 0.980"
verdict base_youngest_empty_is_precision_0 0 "1 passed, 0 failed, 0 skipped" "1 passed, 0 failed, 0 skipped" \
	"- 0.000 - 0.000 0.995
0.864 1.000 0.864 1.000 1.000"
verdict above_base_below_min_is_todo 0 "1 passed, 0 failed, 0 skipped" "0 passed, 0 failed, 1 skipped" \
	"0.450 0.900 0.450 0.900 0.990
0.600 0.700 0.600 0.700 0.980"
verdict below_base_fails 1 "1 passed, 0 failed, 0 skipped" "0 passed, 1 failed, 0 skipped" \
	"0.900 0.900 0.900 0.900 0.990
0.850 0.700 0.850 0.700 0.980"
verdict hca_youngest_empty_fails 1 "1 passed, 0 failed, 0 skipped" "0 passed, 1 failed, 0 skipped" \
	"0.450 0.900 0.450 0.900 0.990
- 0.000 - 0.000 0.980"
verdict no_classification_fails_both 1 "0 passed, 1 failed, 0 skipped" "0 passed, 1 failed, 0 skipped" \
	"0.450 0.900 0.450 0.900 0.990
- - - - -"
ktap_done
