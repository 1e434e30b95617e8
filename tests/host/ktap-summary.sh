#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: harness/ktap-summary.awk counts results and catches kernel
# problem reports in serial logs made up here.
set -u
AWK=$(dirname "$0")/../../harness/ktap-summary.awk
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

kunit_ok='[    1.0] KTAP version 1
[    1.0] 1..1
[    1.0]     KTAP version 1
[    1.0]     # Subtest: suite_a
[    1.0]     1..2
[    1.1]     ok 1 case_one
[    1.1]     ok 2 case_two # SKIP no hardware
[    1.2] ok 1 suite_a'
guest_head='hwage-init: mode test
KTAP version 1
1..1
    KTAP version 1
    # Subtest: kernel
    1..2'
done_line='hwage-init: tests done, 0 failed'

# check NAME EXPECTED-LAST-LINE EXPECTED-EXIT: the log is on stdin.
check() {
	local name=$1 want=$2 want_rc=$3 got rc
	cat >"$tmp/log"
	got=$(awk -v label=t -f "$AWK" "$tmp/log")
	rc=$?
	n=$((n + 1))
	if [ "$(tail -n 1 <<<"$got")" = "$want" ] && [ "$rc" = "$want_rc" ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		echo "# want '$want' (exit $want_rc), got '$(tail -n 1 <<<"$got")' (exit $rc)"
		failed=$((failed + 1))
	fi
}

echo "KTAP version 1"
echo "1..6"

# KUnit 1 pass 1 skip, guest 2 passes, + completion, clean log, KUnit ran.
check clean_run "t: 6 passed, 0 failed, 1 skipped" 0 <<EOF2
$kunit_ok
$guest_head
    ok 1 a
    ok 2 b
ok 1 t01-kernel
$done_line
EOF2

check warning_fails_the_run "t: 5 passed, 1 failed, 1 skipped" 1 <<EOF2
$kunit_ok
$guest_head
[   5.0] ------------[ cut here ]------------
[   5.0] WARNING: CPU: 0 PID: 1 at mm/vmscan.c:100 foo+0x10/0x20
    ok 1 a
    ok 2 b
ok 1 t01-kernel
$done_line
EOF2

check failing_case_counted "t: 5 passed, 1 failed, 1 skipped" 1 <<EOF2
$kunit_ok
$guest_head
    ok 1 a
    not ok 2 b
not ok 1 t01-kernel
$done_line
EOF2

# A program that died after passing its cases still fails, once.
check crashed_program_counted "t: 6 passed, 1 failed, 1 skipped" 1 <<EOF2
$kunit_ok
$guest_head
    ok 1 a
    ok 2 b
not ok 1 t01-kernel # killed by signal 11
$done_line
EOF2

check hang_or_panic_is_incomplete "t: 3 passed, 2 failed, 1 skipped" 1 <<EOF2
$kunit_ok
$guest_head
    ok 1 a
[   9.0] Kernel panic - not syncing: Attempted to kill init!
EOF2

check no_kunit_fails "t: 4 passed, 1 failed, 0 skipped" 1 <<EOF2
$guest_head
    ok 1 a
    ok 2 b
ok 1 t01-kernel
$done_line
EOF2

exit $((failed > 0))
