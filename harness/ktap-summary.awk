# SPDX-License-Identifier: GPL-2.0
# Summarise a guest serial log: KTAP results (KUnit at boot, then the
# guest tests nested by init) and kernel problem reports.
#   awk -v label=ARCH -f ktap-summary.awk LOG
# Prints one line per top-level suite, the failures, and finally
#   "LABEL: N passed, N failed, N skipped"
# Counted: every leaf test case; a suite that failed with no failing case
# counts as one failure; "guest ran to completion" and "kernel log has no
# warnings" and "KUnit ran at boot" are checks of their own.

function flush_suite(name, ok,    status) {
	if (!ok && s_fail == 0) {
		failed++
		s_fail++
	}
	status = s_fail ? "FAIL" : "ok  "
	printf "  %s %-40s %d passed, %d failed, %d skipped\n", status, name, s_pass, s_fail, s_skip
	s_pass = s_fail = s_skip = 0
}

BEGIN {
	last_indent = -1
	passed = failed = skipped = 0
	done = 0
}

{
	sub(/\r$/, "")
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
}

/WARNING: CPU:|-----------\[ cut here \]|kernel BUG at|BUG: |Oops|Kernel panic|KASAN:|UBSAN:|possible circular locking|possible recursive locking|inconsistent lock state|INFO: task .* blocked|Unable to handle kernel|general protection fault|detected stall|soft lockup|hard LOCKUP/ {
	if (nprob < 20)
		prob[++nprob] = $0
	else
		nprob++
}

/^hwage-init: mode/ { in_init = 1 }
/^hwage-init: tests done/ { done = 1 }
/^KTAP version/ && !in_init { kunit = 1 }

/^ *(not )?ok [0-9]+/ {
	match($0, /^ */)
	indent = RLENGTH
	line = substr($0, indent + 1)
	ok = line !~ /^not /
	name = line
	sub(/^(not )?ok [0-9]+ */, "", name)
	directive = ""
	if (index(name, "#")) {
		directive = substr(name, index(name, "#"))
		sub(/ *#.*/, "", name)
	}
	if (indent < last_indent) {
		# closes a suite (or a parameterised case) whose children we saw
		if (indent == 0)
			flush_suite(name, ok)
	} else if (directive ~ /^# *SKIP/) {
		skipped++
		s_skip++
	} else if (ok) {
		passed++
		s_pass++
	} else {
		failed++
		s_fail++
		fails[++nfails] = name " " directive
		if (indent == 0)
			flush_suite(name, ok)
	}
	last_indent = indent
}

END {
	for (i = 1; i <= nfails && i <= 30; i++)
		printf "  failed case: %s\n", fails[i]
	if (done) {
		passed++
	} else {
		failed++
		printf "  FAIL guest did not run to completion (no 'tests done' line)\n"
	}
	if (kunit) {
		passed++
	} else {
		failed++
		printf "  FAIL KUnit did not run at boot (no KTAP before init)\n"
	}
	if (nprob == 0) {
		passed++
	} else {
		failed++
		printf "  FAIL kernel log has %d problem line(s):\n", nprob
		for (i = 1; i <= nprob && i <= 20; i++)
			printf "    %s\n", prob[i]
	}
	printf "%s: %d passed, %d failed, %d skipped\n", label, passed, failed, skipped
	exit failed ? 1 : 0
}
