#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: harness/host-tests.sh, which scores the host tests for make
# test, on made-up test files: a test that stops short of its plan, prints
# no plan, or crashes after passing cases must count as failed.
set -u
H=$(dirname "$0")/../../harness
. "$H/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 5

d=$tmp/t
mkdir "$d"
printf 'echo "KTAP version 1"; echo 1..2; echo "ok 1 a"; echo "ok 2 b"\n' >"$d/good.sh"
printf 'echo 1..3; echo "ok 1 a"; echo "ok 2 b"\n' >"$d/short.sh"
printf 'echo "ok 1 a"\n' >"$d/noplan.sh"
printf 'echo 1..2; echo "ok 1 a"; echo "ok 2 b"; exit 139\n' >"$d/crash.sh"
printf 'echo 1..1; echo "not ok 1 a"; echo "# why"; exit 1\n' >"$d/fails.sh"
printf 'echo "this is sourced, not run"; exit 3\n' >"$d/lib.sh"
out=$(HWAGE_CACHE=$tmp/cache bash "$H/host-tests.sh" "$d" 2>&1)
rc=$?

# good 2, short 2 + 1, noplan 1 + 1, crash 2 + 1, fails 0 + 1; lib.sh not run
[ "$rc" != 0 ] && [ "$(tail -n 1 <<<"$out")" = "host: 7 passed, 4 failed, 0 skipped" ]
ktap_ok counts_and_verdict $? "exit $rc" "$out"
grep -q 'FAIL short.sh: planned 3, reported 2' <<<"$out"
ktap_ok short_of_plan_named $? "$out"
grep -q 'FAIL noplan.sh: no plan' <<<"$out"
ktap_ok no_plan_named $? "$out"
grep -q 'FAIL crash.sh: exited with status 139' <<<"$out"
ktap_ok crash_named $? "$out"
! grep -q 'host/lib ' <<<"$out" && grep -q '^  ok   host/good ' <<<"$out"
ktap_ok lib_not_run $? "$out"
ktap_done
