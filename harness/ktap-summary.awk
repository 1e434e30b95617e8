# SPDX-License-Identifier: GPL-2.0
# Summarise one boot's guest serial log: the KTAP results (KUnit at boot,
# then the guest tests nested by init), their plans, and kernel problem
# reports.
#   awk -v label=LABEL [-v rc=N] -f ktap-summary.awk LOG
# rc is run-guest.sh's exit status for this boot, when the caller has it.
# Prints one line per top-level result (a KUnit suite or a guest test), the
# failed cases, a "  FAIL CAUSE" line for every other failure, and last
#   "LABEL: N passed, N failed, N skipped"
# Counted:
#  - every leaf test case; a top-level result without children is one case;
#    a "not ok ... # TODO WHY" case (a known defect, KTAP's TODO) is listed
#    as a known failure and counted with the skipped ones;
#  - a suite whose result is "not ok" although no case of it failed: one;
#  - a (sub)suite whose plan is missing (KUnit's parameterised cases, the
#    only documents that have none, are nested deeper than the suites) or
#    differs from the number of results it reported, and a top-level plan
#    of 1..0 (no tests ran): one failure each;
#  - a suite the log leaves without its result line (a crash mid-suite),
#    and a "Bail out!": one failure each;
#  - three checks: the guest started and ran to completion, KUnit ran at
#    boot, the kernel log has no WARN, BUG, oops, panic, KASAN, UBSAN,
#    lockdep or stall report.
# run-guest.sh writes "hwage-host:" lines into the log: "boot did not
# start: CAUSE" when it never started QEMU (then that is the only failure
# counted), and how QEMU ended when it did not end cleanly.

# The open KTAP documents, outermost first: indent, plan (-1: none yet),
# results so far, name, bailed out.
function push(ind, name) {
	lv++
	L_ind[lv] = ind
	L_plan[lv] = -1
	L_n[lv] = 0
	L_name[lv] = name
	L_bail[lv] = 0
}

function doc_name(i) {
	if (L_ind[i] == 0)
		return in_init ? "guest tests" : "KUnit"
	return L_name[i] != "" ? L_name[i] : "the suite at indent " L_ind[i]
}

# fail(CAUSE): a failure that no failing case shows; counted in the open
# top-level suite, if any.
function fail(cause) {
	failed++
	if (lv > 0 && L_ind[lv] > 0)
		s_fail++
	causes[++ncauses] = cause
}

function flush_suite(name, ok,    status) {
	if (!ok && s_fail == 0) {
		failed++
		s_fail++
	}
	status = s_fail ? "FAIL" : "ok  "
	printf "  %s %-40s %d passed, %d failed, %d skipped\n", status, name, s_pass, s_fail, s_skip
	s_pass = s_fail = s_skip = 0
}

# close_level(HOW, RNAME): close the innermost document. HOW is "result"
# when its result line (named RNAME) came, else what ended it.
function close_level(how, rname,    nm, top) {
	# a guest test's result names it better than its "# Subtest:" line
	nm = rname != "" ? rname : L_name[lv]
	if (nm == "")
		nm = doc_name(lv)
	if (how != "result" && last_top != "")
		nm = nm " (after " last_top ")"
	if (L_ind[lv] == 0) {
		if (L_plan[lv] == 0)
			fail(doc_name(lv) ": no tests ran (plan 1..0)")
		else if (L_bail[lv] || how == "eof") {
			# the completion check says how far it got
			top_n = L_n[lv]
			top_plan = L_plan[lv]
		} else if (L_plan[lv] < 0)
			fail(doc_name(lv) ": no plan (no 1..N line), " L_n[lv] " results")
		else if (L_plan[lv] != L_n[lv])
			fail(doc_name(lv) ": planned " L_plan[lv] ", reported " L_n[lv])
		lv--
		return
	}
	top = lv == 1 || L_ind[lv - 1] == 0
	if (L_bail[lv]) {
		;
	} else if (how != "result") {
		fail(nm ": stopped mid-suite (crash or hang): " (how == "eof" ? "the log ends" : how) \
		     " after " L_n[lv] (L_plan[lv] < 0 ? " result(s) (no plan)" : " of " L_plan[lv] " results") \
		     ", without the suite's result line")
	} else if (L_plan[lv] < 0 && L_ind[lv] <= 4) {
		fail(nm ": no plan (no 1..N line), " L_n[lv] " result(s)")
	} else if (L_plan[lv] >= 0 && L_plan[lv] != L_n[lv]) {
		fail(nm ": planned " L_plan[lv] ", reported " L_n[lv])
	}
	lv--
	# a top-level suite whose result line never came: show it now
	if (top && how != "result")
		flush_suite(nm, 0)
}

# close_deeper(IND, HOW, RNAME): close every document nested deeper than
# IND; the one directly under IND is closed by result line RNAME when HOW
# is "result", the others ended without theirs.
function close_deeper(ind, how, rname,    n) {
	n = 0
	while (lv > 0 && L_ind[lv] > ind) {
		if (how == "result" && (lv == 1 || L_ind[lv - 1] <= ind)) {
			close_level("result", rname)
			n++
		} else {
			close_level(how == "result" ? "a result line of an outer level came" : how, "")
		}
	}
	return n
}

BEGIN {
	passed = failed = skipped = 0
	lv = 0
}

{
	sub(/\r$/, "")
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
}

/^hwage-host: boot did not start: / {
	if (nostart == "")
		nostart = substr($0, length("hwage-host: boot did not start: ") + 1)
	next
}
/^hwage-host: / {
	if (host_end == "")
		host_end = substr($0, length("hwage-host: ") + 1)
	next
}
/^qemu(-system-[a-z0-9_]+)?: / && qemu_err == "" { qemu_err = $0 }

/WARNING: CPU:|-----------\[ cut here \]|kernel BUG at|BUG: |Oops|Kernel panic|KASAN:|UBSAN:|possible circular locking|possible recursive locking|inconsistent lock state|INFO: task .* blocked|Unable to handle kernel|general protection fault|detected stall|soft lockup|hard LOCKUP/ {
	if (nprob < 20)
		prob[++nprob] = $0
	else
		nprob++
}

/^hwage-init: mode/ {
	close_deeper(-1, "init starts", "")
	in_init = 1
	started = 1
	next
}
/^hwage-init: tests done/ {
	close_deeper(-1, "init reports the tests done", "")
	done = 1
	next
}

/^ *KTAP version/ {
	match($0, /^ */)
	ind = RLENGTH
	if (ind == 0 && !in_init)
		kunit = 1
	close_deeper(ind, "a new KTAP document starts", "")
	if (lv > 0 && L_ind[lv] == ind)
		close_level(ind == 0 ? "next" : "a new KTAP document starts", "")
	push(ind, "")
	next
}

/^ *# Subtest: / {
	match($0, /^ */)
	ind = RLENGTH
	name = substr($0, ind + 1)
	sub(/^# Subtest: */, "", name)
	close_deeper(ind, "a new suite starts", "")
	if (lv > 0 && L_ind[lv] == ind && L_name[lv] == "" && L_n[lv] == 0)
		L_name[lv] = name
	else {
		if (lv > 0 && L_ind[lv] == ind)
			close_level(ind == 0 ? "next" : "a new suite starts", "")
		push(ind, name)
	}
	next
}

/^ *1\.\.[0-9]+/ {
	match($0, /^ */)
	ind = RLENGTH
	close_deeper(ind, "a new plan starts", "")
	if (lv > 0 && L_ind[lv] == ind && (L_plan[lv] >= 0 || L_n[lv] > 0))
		close_level(ind == 0 ? "next" : "a new plan starts", "")
	if (lv == 0 || L_ind[lv] < ind)
		push(ind, "")
	L_plan[lv] = substr($0, ind + 4) + 0
	next
}

/^ *Bail out!/ {
	match($0, /^ */)
	ind = RLENGTH
	for (i = lv; i >= 1 && L_ind[i] >= ind; i--)
		L_bail[i] = 1
	why = substr($0, ind + 1)
	sub(/^Bail out! */, "", why)
	fail("bail out in " (i < lv ? doc_name(i + 1) (last_top != "" && L_ind[i + 1] > 0 ? " (after " last_top ")" : "") : "the log") \
	     (why == "" ? "" : ": " why))
	next
}

/^ *(not )?ok [0-9]+/ {
	match($0, /^ */)
	ind = RLENGTH
	line = substr($0, ind + 1)
	ok = line !~ /^not /
	name = line
	sub(/^(not )?ok [0-9]+ */, "", name)
	directive = ""
	if (index(name, "#")) {
		directive = substr(name, index(name, "#"))
		sub(/ *#.*/, "", name)
	}
	children = close_deeper(ind, "result", name)
	if (lv == 0 || L_ind[lv] < ind)
		push(ind, "")
	L_n[lv]++
	if (!children) {
		if (!ok && directive ~ /^# *TODO/) {
			# a known failure, reported as such (KTAP's TODO)
			skipped++
			s_skip++
			todos[++ntodos] = name " " directive
		} else if (directive ~ /^# *SKIP/) {
			skipped++
			s_skip++
		} else if (ok) {
			passed++
			s_pass++
		} else {
			failed++
			s_fail++
			fails[++nfails] = name (directive == "" ? "" : " " directive)
		}
	} else if (!ok && ind == 0 && directive != "") {
		fails[++nfails] = name (directive == "" ? "" : " " directive)
	} else if (ind == 0 && directive ~ /^# *SKIP/ && s_pass + s_fail + s_skip == 0) {
		# a suite skipped whole (KUnit's "1..0" then "ok N suite # SKIP")
		skipped++
		s_skip++
	}
	if (ind == 0) {
		flush_suite(name, ok)
		last_top = name
	}
	next
}

END {
	if (nostart != "") {
		printf "  FAIL %s: boot did not start: %s (log: %s)\n", label, nostart, FILENAME
		printf "%s: 0 passed, 1 failed, 0 skipped\n", label
		exit 1
	}
	close_deeper(-1, "eof", "")
	for (i = 1; i <= nfails && i <= 30; i++)
		printf "  failed case: %s\n", fails[i]
	for (i = 1; i <= ntodos && i <= 30; i++)
		printf "  known failure, not counted as passed: %s\n", todos[i]
	for (i = 1; i <= ncauses; i++)
		printf "  FAIL %s\n", causes[i]

	# how far the guest got, and why not further
	why = host_end
	if (qemu_err != "")
		why = why (why == "" ? "" : ": ") qemu_err
	if (nprob)
		why = why (why == "" ? "" : "; ") prob[1]
	if (!started) {
		failed++
		printf "  FAIL guest never started (no 'hwage-init: mode' line)%s\n", why == "" ? "" : ": " why
	} else if (!done) {
		failed++
		printf "  FAIL guest did not run to completion (no 'tests done' line; %d of %s tests reported)%s\n",
			top_n, top_plan < 0 ? "?" : top_plan, why == "" ? "" : ": " why
	} else {
		passed++
		if (host_end != "") {
			failed++
			printf "  FAIL after the tests ran: %s\n", host_end
		}
	}
	if (rc != "" && rc != 0 && host_end == "") {
		failed++
		printf "  FAIL run-guest.sh exited with status %s\n", rc
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
