# SPDX-License-Identifier: GPL-2.0
# KTAP output for the host tests (tests/host/*.sh, emulator/tests/*.sh).
# Source it, don't run it:
#   ktap_plan N                    the header and the plan "1..N"
#   ktap_ok NAME STATUS [DIAG...]  "ok" if STATUS is 0, else "not ok" and
#                                  each line of each DIAG as a "# " line
#   ktap_skip NAME WHY             "ok N NAME # SKIP WHY"
#   ktap_done                      exit 0 only if every case passed and
#                                  as many were reported as planned
# harness/host-tests.sh runs the host tests for harness/test.sh, counts
# their results and checks their plans again.

ktap_n=0
ktap_failed=0
ktap_planned=

ktap_plan() {
	ktap_planned=$1
	echo "KTAP version 1"
	echo "1..$1"
}

ktap_ok() {
	local name=$1 st=$2 d
	shift 2
	ktap_n=$((ktap_n + 1))
	if [ "$st" = 0 ]; then
		echo "ok $ktap_n $name"
		return 0
	fi
	echo "not ok $ktap_n $name"
	# every line of a DIAG is a "# " line: a log quoted here must not
	# add results of its own to this document
	for d in "$@"; do
		printf '%s\n' "$d" | sed 's/^/# /'
	done
	ktap_failed=$((ktap_failed + 1))
	return 1
}

ktap_skip() {
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1 # SKIP $2"
}

ktap_done() {
	if [ "$ktap_n" != "${ktap_planned:-none}" ]; then
		echo "# planned ${ktap_planned:-no} cases, reported $ktap_n"
		exit 1
	fi
	exit $((ktap_failed > 0))
}
