#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: harness/ktap-summary.awk on the serial logs in fixtures/, one
# per parser case (as kunit.py keeps its test_data): each must end with its
# expected last line and exit status and print the line naming its cause.
# Every fixture must have a row here, and every row a fixture. The real-*
# fixtures are real boots' logs (paths shortened, t13's page lists cut;
# the x86_64 one booted with hwage.only=t01,t10).
set -u
here=$(dirname "$0")
AWK=$here/../../harness/ktap-summary.awk
F=$here/fixtures
. "$here/../../harness/ktap.sh"
L=x86_64/hca=on

# FIXTURE|AWK-ARGS|EXPECTED LAST LINE|EXPECTED CAUSE: a line of the summary
# must contain CAUSE; an empty CAUSE means no line may start with "  FAIL".
rows=(
"clean-run||$L: 13 passed, 0 failed, 2 skipped|  ok   kunit_fault                              0 passed, 0 failed, 1 skipped"
"real-ppc64le-hca-on||$L: 116 passed, 0 failed, 5 skipped|  ok   t15-hca-debugfs                          6 passed, 0 failed, 0 skipped"
"real-x86_64-hca-on-only||$L: 82 passed, 0 failed, 5 skipped|  ok   t10-hca                                  7 passed, 0 failed, 0 skipped"
"clean-run|-v rc=1|$L: 13 passed, 1 failed, 2 skipped|FAIL run-guest.sh exited with status 1"
"top-level-leaf||$L: 14 passed, 0 failed, 2 skipped|  ok   t02-memcg-swap                           1 passed, 0 failed, 0 skipped"
"kernel-warning||$L: 12 passed, 1 failed, 2 skipped|FAIL kernel log has 2 problem line(s):"
"failing-case||$L: 12 passed, 1 failed, 2 skipped|failed case: decay_moves_count"
"known-failure||$L: 12 passed, 0 failed, 3 skipped|known failure, not counted as passed: decay_moves_count # TODO memcg OOM kill, see issue 11"
"crashed-program||$L: 13 passed, 1 failed, 2 skipped|failed case: t10-hca # killed by signal 11"
"no-kunit||$L: 7 passed, 1 failed, 0 skipped|FAIL KUnit did not run at boot (no KTAP before init)"
"missing-plan||$L: 12 passed, 1 failed, 2 skipped|FAIL t10-hca: no plan (no 1..N line), 2 result(s)"
"no-tests-ran||$L: 8 passed, 1 failed, 2 skipped|FAIL guest tests: no tests ran (plan 1..0)"
"plan-mismatch-suite||$L: 12 passed, 1 failed, 2 skipped|FAIL t10-hca: planned 3, reported 2"
"plan-mismatch-top||$L: 13 passed, 1 failed, 2 skipped|FAIL guest tests: planned 3, reported 2"
"plan-mismatch-kunit||$L: 12 passed, 1 failed, 2 skipped|FAIL mglru-page-aging: planned 3, reported 2"
"crash-mid-suite||$L: 12 passed, 3 failed, 2 skipped|FAIL hca_aging (after t10-hca): stopped mid-suite (crash or hang): the log ends after 1 of 4 results"
"kunit-crash||$L: 3 passed, 3 failed, 0 skipped|FAIL mglru-page-aging: stopped mid-suite (crash or hang): the log ends after 2 of 3 results"
"killed-mid-suite||$L: 15 passed, 1 failed, 2 skipped|FAIL t14-memcached: planned 5, reported 2"
"timed-out||$L: 13 passed, 2 failed, 2 skipped|FAIL guest did not run to completion (no 'tests done' line; 2 of 3 tests reported): guest timed out after 900s"
"bail-out||$L: 10 passed, 1 failed, 2 skipped|FAIL bail out in hca (after t01-kernel): no /sys/kernel/debug/hca"
"never-started-panic||$L: 6 passed, 2 failed, 2 skipped|FAIL guest never started (no 'hwage-init: mode' line): Kernel panic - not syncing: VFS"
"never-started-qemu||$L: 1 passed, 2 failed, 0 skipped|FAIL guest never started (no 'hwage-init: mode' line): qemu exited with status 1 after 0s: qemu-system-ppc64:"
"boot-did-not-start||$L: 0 passed, 1 failed, 0 skipped|FAIL $L: boot did not start: the counter plugin did not build"
)

ktap_plan $((${#rows[@]} + 1))

for row in "${rows[@]}"; do
	IFS='|' read -r fx args want cause <<<"$row"
	# shellcheck disable=SC2086
	got=$(awk -v label="$L" $args -f "$AWK" "$F/$fx.log" 2>&1)
	rc=$?
	last=$(tail -n 1 <<<"$got")
	want_rc=1
	[[ "$want" == *" 0 failed,"* ]] && want_rc=0
	if [ -n "$cause" ]; then
		grep -qF -- "$cause" <<<"$got"
	else
		! grep -q '^  FAIL' <<<"$got"
	fi
	cause_ok=$?
	[ "$last" = "$want" ] && [ "$rc" = "$want_rc" ] && [ "$cause_ok" = 0 ]
	st=$?
	ktap_ok "${fx//-/_}${args:+ ($args)}" $st \
		"want: $want (exit $want_rc)" "cause: ${cause:-no FAIL line}" "got (exit $rc):" "$got"
done

# every fixture is checked
missing=
for f in "$F"/*.log; do
	fx=$(basename "$f" .log)
	printf '%s\n' "${rows[@]}" | grep -q "^$fx|" || missing+=" $fx"
done
[ -z "$missing" ]
ktap_ok every_fixture_has_a_row $? "fixtures without a row here:$missing"
ktap_done
