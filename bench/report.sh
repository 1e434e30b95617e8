#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Summarise a benchmark's results.csv (bench/run.sh):
#   bench/report.sh DIR      writes DIR/summary.md and DIR/*.png, prints the table
# Medians over the runs, spread as min-max and CV, ratios of medians to base at the
# same target, workload and pressure, with a 95% bootstrap confidence
# interval (bench/bootstrap.c) for throughput and the work-normalised
# figures; a second table gives the figures per unit of work.
set -u
. "$(dirname "$0")/../harness/lib.sh"
DIR=${1:?usage: bench/report.sh DIR}
csv=$DIR/results.csv
[ -s "$csv" ] || die "no results in $csv"
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
cc -O2 -o "$tools/bootstrap" "$HWAGE_TOP/bench/bootstrap.c" -lm ||
	die "bench/bootstrap.c did not build"

# metric table: name in the summary, expression over CSV columns
awk -F, -v dir="$DIR" -v bs="$tools/bootstrap" '
function med(key, m,    n, i, j, t, a) {
	n = cnt[key, m]
	for (i = 1; i <= n; i++) a[i] = val[key, m, i]
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	lo[key, m] = a[1]; hi[key, m] = a[n]
	if (!n) return ""
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function col(name) { return (name in c) ? $c[name] : "" }
function add(key, m, x) { if (x == "") return; val[key, m, ++cnt[key, m]] = x + 0 }
function fmt(x) { if (x == "") return "-"; if (x >= 1e6) return sprintf("%.3gM", x / 1e6); if (x >= 1e4) return sprintf("%.0fk", x / 1e3); if (x >= 1000) return sprintf("%.0f", x); if (x == int(x)) return sprintf("%d", x); return sprintf("%.3g", x) }
function cell(key, m,    x) { x = med(key, m); if (x == "") return "-"; return fmt(x) (cnt[key, m] > 1 ? " (" fmt(lo[key, m]) "-" fmt(hi[key, m]) ")" : "") }
function ratio(key, bkey, m,    a, b) { a = med(key, m); b = med(bkey, m); if (a == "" || b == "" || b == 0) return "-"; return sprintf("%.2f", a / b) }
# coefficient of variation (sample standard deviation over mean), in %
function cv(key, m,    n, i, sum, mean, ss) {
	n = cnt[key, m]
	if (n < 2) return "-"
	for (i = 1; i <= n; i++) sum += val[key, m, i]
	mean = sum / n
	if (mean == 0) return "-"
	for (i = 1; i <= n; i++) ss += (val[key, m, i] - mean) ^ 2
	return sprintf("%.1f%%", 100 * sqrt(ss / (n - 1)) / mean)
}
function vals(key, m,    i, s) { for (i = 1; i <= cnt[key, m]; i++) s = s " " val[key, m, i]; return s }
# ratio of medians to base with its 95% bootstrap interval, and "yes" in
# real[] if the interval excludes 1
function ci(key, bkey, m,    cmd, line, f) {
	real[key, m] = "-"
	if (!cnt[key, m]) return "-"
	if (key == bkey) return "1.00"
	if (!cnt[bkey, m]) return "-"
	cmd = bs vals(key, m) " /" vals(bkey, m)
	line = ""
	cmd | getline line
	close(cmd)
	split(line, f, " ")
	if (f[3] == "-" || f[3] == "") return "-"
	if (f[4] == "-") return sprintf("%.2f", f[3])
	real[key, m] = f[6]
	rlo[key, m] = f[4]; rhi[key, m] = f[5]; rmid[key, m] = f[3]
	return sprintf("%.2f [%.2f, %.2f]", f[3], f[4], f[5])
}
# a size as -m takes it (1G, 1024M, 512) in MiB
function mib(x,    n, u) {
	if (x == "") return ""
	n = x + 0; u = toupper(substr(x, length(x)))
	return u == "G" ? n * 1024 : u == "T" ? n * 1048576 : u == "M" ? n : u ~ /[0-9]/ ? n : ""
}
function pv(x) { return (x == "" || x == "-") ? "NaN" : x }
function per(x, y) { return (x == "" || y == "" || y + 0 <= 0) ? "" : x / y }
# a column shown and not -1 (bench.c: absent)
function has(name) { return col(name) != "" && col(name) + 0 >= 0 }
# a markdown table: a line, its title, a line, its header and the separator
function table(title, head,    sep, n, i) {
	print ""; print title; print ""; print head
	n = gsub(/\|/, "|", head) - 1; sep = "|"
	for (i = 0; i < n; i++) sep = sep "---|"
	print sep
}
# medians over the runs of the isolate lru_lock hold p99 and max, in us
function holds(key,    a, b) { a = med(key, "hold_p99"); b = med(key, "hold_max"); if (a == "" || b == "") return "-"; return fmt(a) "/" fmt(b) }
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
	# a scaled guest (make bench-scale) is a target of its own
	tgt = col("arch")
	if (col("scale") != "" && col("scale") != 1) tgt = tgt " " col("guest_mem")
	key = tgt "|" col("workload") "|" col("pressure") "|" col("config")
	if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
	# for the scale sweep: the target and the guest memory in MiB
	rawarch[key] = col("arch"); mem[key] = mib(col("guest_mem"))
	if (mem[key] != "") mems[col("arch"), mem[key]] = 1
	runs[key]++
	bad[key] += (col("errors") != "0" || (col("misses") != "" && col("misses") != "0") || col("exit") != "0")
	add(key, "ops", col("ops_per_s")); add(key, "p99", col("p99_us"))
	add(key, "wall", col("boot_wall_s"))
	if (col("clock") != "") clock[key] = col("clock")
	if (col("workingset_refault_anon") != "")
		add(key, "refaults", col("workingset_refault_anon") + col("workingset_refault_file"))
	add(key, "pswpin", col("pswpin")); add(key, "pswpout", col("pswpout"))
	if (col("aging_ns") != "" && col("aging_ns") >= 0) add(key, "aging_ms", col("aging_ns") / 1e6)
	if (col("look_around_ns") != "" && col("look_around_ns") >= 0) add(key, "la_ms", col("look_around_ns") / 1e6)
	if (col("cpu_sys_usec") != "") add(key, "sys_ms", col("cpu_sys_usec") / 1e3)
	add(key, "prec", col("cls_precision")); add(key, "rec", col("cls_recall"))
	add(key, "aprec", col("aged_precision"))
	if (col("swapped") > 0) add(key, "coldev", col("swapped_cold") / col("swapped"))
	# per unit of work: per 1000 operations, per page reclaimed
	kops = col("ops") == "" ? "" : col("ops") / 1000
	if (col("workingset_refault_anon") != "")
		add(key, "rf_kop", per(col("workingset_refault_anon") + col("workingset_refault_file"), kops))
	add(key, "mj_kop", per(col("pgmajfault"), kops))
	add(key, "si_kop", per(col("pswpin"), kops))
	add(key, "scan_steal", per(col("pgscan"), col("pgsteal")))
	if (col("aging_ns") != "" && col("aging_ns") >= 0) add(key, "aging_rec", per(col("aging_ns"), col("pgsteal")))
	if (col("look_around_ns") != "" && col("look_around_ns") >= 0) add(key, "la_rec", per(col("look_around_ns"), col("pgsteal")))
	if (has("counts_ns")) add(key, "counts_rec", per(col("counts_ns"), col("pgsteal")))
	# every access-finding cost once: the sampling reads are in aging_ns already
	if (has("aging_ns") && has("look_around_ns") && has("counts_ns") && has("counts_sample_ns"))
		add(key, "read_rec", per(col("aging_ns") + col("look_around_ns") + col("counts_ns") - col("counts_sample_ns"), col("pgsteal")))
	# w-thp (workload thp): memory resident, hot pages kept, huge pages, faults
	if (col("workload") == "thp" && col("resident") != "") {
		thp = 1
		add(key, "resident", col("resident")); add(key, "majflt", col("majflt"))
		add(key, "huge", col("huge")); add(key, "limit_ms", col("limit_ms"))
		if (col("hot_pages") > 0) add(key, "hot_kept", col("hot_resident") / col("hot_pages"))
		if (has("counts_thp_calls") && col("counts_thp_calls") > 0)
			add(key, "thp_ns", col("counts_thp_ns") / col("counts_thp_calls"))
		if (col("subpage_cold") > 0) add(key, "cold_freed", col("subpage_cold_freed") / col("subpage_cold"))
		if (col("even_pages") > 0) add(key, "even_kept", col("even_huge") / col("even_pages"))
		if (has("limit_majflt")) add(key, "limit_majflt", col("limit_majflt"))
		if (has("thp_sparse_split")) add(key, "sparse_split", col("thp_sparse_split"))
		if (has("thp_split_page")) add(key, "split_page", col("thp_split_page"))
	}
	# w-thp -b (workload thp-collapse): what khugepaged collapsed, its time
	if (col("workload") == "thp-collapse" && col("huge") != "") {
		coll = 1
		if (col("even_pages") > 0) add(key, "even_kept", col("even_huge") / col("even_pages"))
		add(key, "huge", col("huge"))
		if (has("thp_collapse_alloc")) add(key, "collapsed", col("thp_collapse_alloc"))
		if (has("thp_collapse_uneven")) add(key, "uneven", col("thp_collapse_uneven"))
		if (has("khugepaged_ms")) add(key, "khp_ms", col("khugepaged_ms"))
	}
	# w-tiers (workload tiers): promotion from the slow memory tier
	if (col("workload") == "tiers" && col("share_a") != "") {
		tiers = 1
		add(key, "t90_a", col("t90_a")); add(key, "share_a", col("share_a"))
		add(key, "t90_b", col("t90_b")); add(key, "share_b", col("share_b"))
		add(key, "tprec", col("precision")); add(key, "cold_up", col("cold_up"))
		add(key, "promoted", col("promoted"))
		# kpromoted: its utime and stime (the time in its rounds, kpromoted_busy_ms,
		# holds the time the workload preempted it on the one vCPU)
		add(key, "pcpu_ms", col("kpromoted_ms") + col("sys_ms"))
		# of the time in its rounds, the part spent migrating (promote-stat)
		if (has("kpromoted_move_ms") && col("kpromoted_move_ms") >= 0) {
			add(key, "busy_ms", col("kpromoted_busy_ms")); add(key, "move_ms", col("kpromoted_move_ms"))
		}
	}
	# tiers-mc: memcached over both tiers, scored from the ground truth
	if (col("workload") == "tiers-mc" && col("fast_share") != "") {
		tmc = 1
		add(key, "fshare", col("fast_share")); add(key, "fbest", col("fast_best"))
		if (col("fast_best") > 0) add(key, "frel", col("fast_share") / col("fast_best"))
		if (col("fast_best_last") > 0) add(key, "frel_last", col("fast_share_last") / col("fast_best_last"))
		if (col("fast_movable") > 0) {
			add(key, "fmov", col("fast_movable")); add(key, "fmrel", col("fast_share") / col("fast_movable"))
		}
		if (col("fast_movable_last") > 0) add(key, "fmrel_last", col("fast_share_last") / col("fast_movable_last"))
		add(key, "promoted", col("promoted"))
		if (has("kpromoted_ms")) add(key, "kp_ms", col("kpromoted_ms"))
		add(key, "mc_sys_ms", col("cpu_sys_usec") / 1000)
	}
	# w-damon (workloads damon, damon-fine): the view of DAMON against the truth
	if (col("workload") ~ /^damon/ && col("workload") != "damon-reclaim" && col("workload") != "damon-quota" && col("damon_ops") != "") {
		dmn = 1
		add(key, "dprec", col("damon_precision")); add(key, "drec", col("damon_recall"))
		add(key, "derr", col("damon_error")); add(key, "kd_ms", col("kdamond_ms"))
		if (col("kdamond_warm_ms") != "" && col("warm_s") > 0) add(key, "kdw_ms", col("kdamond_warm_ms") / col("warm_s"))
		add(key, "regions", col("regions")); add(key, "thot", col("damon_truth_hot"))
	}
	# damon-quota: a DAMOS quota ranked by frequency, with each check
	if (col("workload") == "damon-quota" && col("quota_hot") != "") {
		dqt = 1
		add(key, "qhot", col("quota_hot")); add(key, "qcover", col("quota_cover"))
		add(key, "kd_ms", col("kdamond_ms"))
	}
	# damon-reclaim: DAMOS pageout with each check, what it saved and cost
	if (col("workload") == "damon-reclaim" && col("saved_kb") != "") {
		drc = 1
		add(key, "saved", col("saved_kb") / 1024); add(key, "applied", col("applied_kb") / 1024)
		add(key, "drf", col("workingset_refault_anon")); add(key, "dsi", col("pswpin"))
		add(key, "kd_ms", col("kdamond_ms"))
	}
	# how much of the workload anonymous memory is in huge pages at the end
	if (has("anon_kb") && col("anon_kb") > 0 && has("anon_thp_kb"))
		add(key, "thp_share", col("anon_thp_kb") / col("anon_kb"))
	if (has("lock_hold_p99_ns") && has("lock_hold_max_ns")) {
		add(key, "hold_p99", col("lock_hold_p99_ns") / 1e3); add(key, "hold_max", col("lock_hold_max_ns") / 1e3)
		if (!(key in worst) || col("lock_hold_max_ns") / 1e3 > worst[key]) worst[key] = col("lock_hold_max_ns") / 1e3
	}
}
END {
	print "| target | workload | pressure | config | runs | ops/s | CV | vs base [95% CI] | differs | p99 us | refaults | vs base | pswpout | aging ms | vs base | look-around ms | sys ms | precision | recall | after aging | evicted cold |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= nk; i++) {
		k = keys[i]; split(k, f, "|")
		b = f[1] "|" f[2] "|" f[3] "|base"
		r = ci(k, b, "ops")
		printf "| %s | %s | %sx | %s | %d%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			f[1], f[2], f[3], f[4], runs[k], bad[k] ? " (" bad[k] " failed)" : "",
			cell(k, "ops"), cv(k, "ops"), r, real[k, "ops"], cell(k, "p99"), cell(k, "refaults"), ratio(k, b, "refaults"),
			cell(k, "pswpout"), cell(k, "aging_ms"), ratio(k, b, "aging_ms"), cell(k, "la_ms"), cell(k, "sys_ms"),
			cell(k, "prec"), cell(k, "rec"), cell(k, "aprec"), cell(k, "coldev")
		# plot data, one file per target and workload: the ratios to
		# base with their intervals (ops/s, refaults per 1000 operations)
		# (unconstrained, the ceiling, would squash the scale: table only)
		if (f[4] == "base" || f[4] == "unconstrained") continue
		pn = f[1]; gsub(/ /, "-", pn)
		pf = dir "/plot-" pn "-" f[2] ".dat"
		ci(k, b, "rf_kop")
		printf "\"%sx %s\" %s %s %s %s %s %s\n", f[3], f[4],
			pv(rmid[k, "ops"]), pv(rlo[k, "ops"]), pv(rhi[k, "ops"]),
			pv(rmid[k, "rf_kop"]), pv(rlo[k, "rf_kop"]), pv(rhi[k, "rf_kop"]) > pf
	}
	table("Per unit of work (medians; kop = 1000 operations, reclaimed = pgsteal):",
	      "| target | workload | pressure | config | refaults/kop | vs base [95% CI] | differs | major faults/kop | swap-ins/kop | scanned/reclaimed | aging ns/reclaimed | vs base [95% CI] | differs | look-around ns/reclaimed | counts ns/reclaimed | reading cost ns/reclaimed | vs base [95% CI] | differs | isolate hold p99/max us |")
	for (i = 1; i <= nk; i++) {
		k = keys[i]; split(k, f, "|")
		b = f[1] "|" f[2] "|" f[3] "|base"
		r = ci(k, b, "rf_kop"); r2 = ci(k, b, "aging_rec"); r3 = ci(k, b, "read_rec")
		printf "| %s | %s | %sx | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			f[1], f[2], f[3], f[4], cell(k, "rf_kop"), r, real[k, "rf_kop"],
			cell(k, "mj_kop"), cell(k, "si_kop"), cell(k, "scan_steal"),
			cell(k, "aging_rec"), r2, real[k, "aging_rec"], cell(k, "la_rec"),
			cell(k, "counts_rec"), cell(k, "read_rec"), r3, real[k, "read_rec"], holds(k)
	}
	if (thp) {
		table("Huge pages (workload thp, w-thp: at the end of the measured run, in pages; major faults of the run, all on hot pages; reclaim to the limit: the write of memory.max; counts read per huge page by the eviction):",
		      "| target | pressure | config | resident | vs base [95% CI] | differs | hot pages kept | mapped huge | major faults | vs base [95% CI] | differs | reclaim to the limit ms | ns per huge page read |")
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (f[2] != "thp") continue
			b = f[1] "|" f[2] "|" f[3] "|base"
			r = ci(k, b, "resident"); r2 = ci(k, b, "majflt")
			printf "| %s | %sx | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				f[1], f[3], f[4], cell(k, "resident"), r, real[k, "resident"],
				cell(k, "hot_kept"), cell(k, "huge"), cell(k, "majflt"), r2, real[k, "majflt"],
				cell(k, "limit_ms"), cell(k, "thp_ns")
		}
		table("Huge pages, by region (workload thp: cold pages freed: of the cold pages of the sparse and cluster regions, the share not resident after the run; even kept huge: the share of the pages of the even region still mapped huge; faults while reclaiming: major faults on hot pages during the write of memory.max, through which the reads go on; splits: thp_sparse_split (by the counts) of thp_split_page (all)):",
		      "| target | pressure | config | cold pages freed | even kept huge | faults while reclaiming | major faults, total | splits by counts | splits, all |")
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (f[2] != "thp") continue
			if (cnt[k, "limit_majflt"]) for (j = 1; j <= cnt[k, "majflt"] && j <= cnt[k, "limit_majflt"]; j++)
				add(k, "all_majflt", val[k, "majflt", j] + val[k, "limit_majflt", j])
			printf "| %s | %sx | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[3], f[4],
				cell(k, "cold_freed"), cell(k, "even_kept"), cell(k, "limit_majflt"),
				cell(k, "all_majflt"), cell(k, "sparse_split"), cell(k, "split_page")
		}
	}
	if (coll) {
		table("Collapse (workload thp-collapse, w-thp -b: the regions faulted in as base pages, handed to khugepaged (woken every 50 ms) once their counts are mature, no limit; pages mapped huge after the run, of 4 regions; the CPU time of khugepaged over the run):",
		      "| target | config | runs | even kept huge | pages mapped huge | collapsed | left uneven | khugepaged ms | ops/s |")
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (f[2] != "thp-collapse") continue
			printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", f[1], f[4], runs[k],
				cell(k, "even_kept"), cell(k, "huge"), cell(k, "collapsed"),
				cell(k, "uneven"), cell(k, "khp_ms"), cell(k, "ops")
		}
	}
	if (tiers) {
		table("Promotion across memory tiers (workload tiers, w-tiers: a 16 MiB hot set read at random and a 48 MiB cold set start on the slow node 1; after the phase the hot set moves to another 16 MiB; share: the mean over the seconds of a phase of the hot set on node 0, the share of its reads node 0 served, the best placement being 1; t90: seconds until 90% of it was there (-1: never); precision: of the workload pages on node 0 at the end of phase a, the share of the hot set; CPU: kpromoted1 and kdamond 0 (their utime and stime) plus the workload system time (hint faults), over the run, one vCPU (bench/run.sh says why); above base: less the median of base, which promotes nothing (the workload own faults and move_pages() queries), in all and per page promoted (pgpromote_success, and the pages DAMOS migrate_hot moved under damon-hot); vs nb-tiering: ratio of medians with its 95% bootstrap interval; kpromoted rounds: the CPU time in its rounds (promote-stat busy_ns) and the part of it spent migrating pages (move_ns); the rest is reading counts and isolating):",
		      "| target | config | runs | share a | vs nb-tiering | t90 a s | share b (moved) | vs nb-tiering | t90 b s | precision | cold pages up | promoted | CPU ms | above base | ns per page promoted, above base | vs nb-tiering | kpromoted rounds ms | of it migrating ms |")
		# the CPU above the median of base (move_pages() queries, faults), per page
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (f[2] != "tiers") continue
			b = med(f[1] "|tiers|" f[3] "|base", "pcpu_ms")
			if (b == "") continue
			for (j = 1; j <= cnt[k, "pcpu_ms"] && j <= cnt[k, "promoted"]; j++) {
				add(k, "net_ms", val[k, "pcpu_ms", j] - b)
				if (val[k, "promoted", j] > 0)
					add(k, "net_ns", (val[k, "pcpu_ms", j] - b) * 1e6 / val[k, "promoted", j])
			}
		}
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (f[2] != "tiers") continue
			nb = f[1] "|tiers|" f[3] "|nb-tiering"
			printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[4], runs[k],
				cell(k, "share_a"), ci(k, nb, "share_a"), cell(k, "t90_a"),
				cell(k, "share_b"), ci(k, nb, "share_b"), cell(k, "t90_b"),
				cell(k, "tprec"), cell(k, "cold_up"), cell(k, "promoted"),
				cell(k, "pcpu_ms"), cell(k, "net_ms"), cell(k, "net_ns"), ci(k, nb, "net_ns"),
				cell(k, "busy_ms"), cell(k, "move_ms")
		}
	}
	if (dmn) {
		table("DAMON with the accessed-bit check (damon-ab: operations paddr) and the count check (damon-counts: paddr_counts, patch 26) (workloads damon and damon-fine, w-damon: a 16 MiB hot set read at random without pause, a 16 MiB warm set read a word a page every 100 ms, a 96 MiB cold set written once; in each boot the two checks 3 times each, in turn, at the default intervals (damon: 5 ms sampling, 100 ms aggregation) or finer ones (damon-fine: 1 ms, 20 ms), on the physical range of the sets with a stat scheme; after 5 s of warm-up a view of the regions each second over the run, scored against the ground truth of the run (bench/damon-score.sh): a page is hot if found accessed in at least 5 of 20 samples (DAMON) or accessed at least once per 4 sampling intervals (truth); precision and recall of the hot pages; error: the mean of |estimated - true share of sampling intervals with an access|, weighted by accesses; kdamond CPU per second of the warm-up, monitoring alone, and over the views, which adds the sysfs updates of the views, one vCPU; vs damon-ab: ratio of medians with its 95% bootstrap interval):",
		      "| target | workload | config | runs | precision | recall | error | vs damon-ab | regions | truth hot pages | kdamond ms/s | vs damon-ab | kdamond ms, views | vs damon-ab |")
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (f[2] !~ /^damon/ || f[2] == "damon-reclaim" || f[2] == "damon-quota") continue
			b = f[1] "|" f[2] "|" f[3] "|damon-ab"
			printf "| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[4],
				runs[k], cell(k, "dprec"), cell(k, "drec"), cell(k, "derr"), ci(k, b, "derr"),
				cell(k, "regions"), cell(k, "thot"), cell(k, "kdw_ms"), ci(k, b, "kdw_ms"),
				cell(k, "kd_ms"), ci(k, b, "kd_ms")
		}
	}
	if (dqt) {
		table("A DAMOS quota ranked by access frequency, with each check (workload damon-quota, w-damon -Q: the sets of the damon workload, the warm one read every 2 ms, so that both it and the hot set are found accessed at every sample; DAMOS lru_prio of the regions accessed in at least 5 of 20 samples, its quota the size of the hot set (16 MiB) each aggregation, ranked by frequency alone (weights nr_accesses 1000, age 0); a view each second of the regions it took; hot share: of the pages of the sets it took, the share that were hot, mean over the views; hot set taken: the share of the hot set it took; vs damon-ab: ratio of medians with its 95% bootstrap interval):",
		      "| target | config | runs | hot share | vs damon-ab | hot set taken | kdamond ms |")
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (f[2] != "damon-quota") continue
			b = f[1] "|" f[2] "|" f[3] "|damon-ab"
			printf "| %s | %s | %d | %s | %s | %s | %s |\n", f[1], f[4], runs[k],
				cell(k, "qhot"), ci(k, b, "qhot"), cell(k, "qcover"), cell(k, "kd_ms")
		}
	}
	if (drc) {
		table("DAMOS proactive reclaim with each check (workload damon-reclaim, w-damon -P: the sets of the damon workload, read back in before each run; DAMOS pageout of the regions found unaccessed for 5 aggregations (500 ms), filtered to the workload cgroup, swap on zram, for the run; saved: the cgroup memory.current before the run less its mean over the second half of the run; applied: what the scheme paged out; refaults: workingset_refault_anon of the cgroup over the run; swap-ins: pswpin; vs damon-ab: ratio of medians with its 95% bootstrap interval):",
		      "| target | config | runs | saved MiB | vs damon-ab | applied MiB | refaults | vs damon-ab | swap-ins | kdamond ms | vs damon-ab |")
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (f[2] != "damon-reclaim") continue
			b = f[1] "|" f[2] "|" f[3] "|damon-ab"
			printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[4], runs[k],
				cell(k, "saved"), ci(k, b, "saved"), cell(k, "applied"), cell(k, "drf"),
				ci(k, b, "drf"), cell(k, "dsi"), cell(k, "kd_ms"), ci(k, b, "kd_ms")
		}
	}
	if (tmc) {
		table("Memcached over both tiers (workload tiers-mc: after its load, every other page of its memory moved to the slow node 1 (move_pages), node 0 with room for all of it; after the load, 4 runs of the Zipfian load, a ground-truth snapshot around each; share: of all accesses in a run (the emulator counts every CPU access by page), the share node 0 served, mean over the runs; best: the share with the most accessed pages on node 0, as many as it manages; movable: the same with the pages of node 1 on no LRU list (slab, page tables: no promotion moves them) left there, the best page migration can reach; of best, of movable: share / best and share / movable per boot, then the median over the boots; last run: the same in the last of the 4 runs; vs nb-tiering: ratio of medians with its 95% bootstrap interval; memcached sys: the system time of its cgroup (hint faults and scans are charged there)):",
		      "| target | config | runs | ops/s | vs nb-tiering | share | best | movable | of best | of movable | vs nb-tiering | of movable, last run | promoted | kpromoted ms | memcached sys ms |")
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (f[2] != "tiers-mc") continue
			nb = f[1] "|tiers-mc|" f[3] "|nb-tiering"
			printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[4], runs[k],
				cell(k, "ops"), ci(k, nb, "ops"), cell(k, "fshare"), cell(k, "fbest"), cell(k, "fmov"),
				cell(k, "frel"), cell(k, "fmrel"), ci(k, nb, "fmrel"), cell(k, "fmrel_last"),
				cell(k, "promoted"), cell(k, "kp_ms"), cell(k, "mc_sys_ms")
		}
	}
	for (i = 1; i <= nk; i++) if (cnt[keys[i], "thp_share"]) share = 1
	if (share) {
		table("Huge page coverage (anon_thp over anon of the memory cgroup of the workload at the end of the measurement; THP is on, always, in these guests):",
		      "| target | workload | pressure | config | anonymous memory in huge pages |")
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (!cnt[k, "thp_share"]) continue
			printf "| %s | %s | %sx | %s | %s |\n", f[1], f[2], f[3], f[4], cell(k, "thp_share")
		}
	}
	# the scale sweep (make bench-scale): one table over the guest sizes,
	# when a target ran in more than one
	for (k in mems) { split(k, g, SUBSEP); nmem[g[1]]++ }
	for (a in nmem) if (nmem[a] > 1) sweep = 1
	if (sweep) {
		table("Scale sweep (guest memory, workloads scaled alike; medians, worst hold: the longest of all runs):",
		      "| target | memory | workload | pressure | config | runs | ops/s | aging ns/reclaimed | reading cost ns/reclaimed | isolate hold p99 us | worst isolate hold us |")
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, "|")
			if (nmem[rawarch[k]] < 2) continue
			printf "| %s | %s | %s | %sx | %s | %d | %s | %s | %s | %s | %s |\n", rawarch[k],
				(mem[k] >= 1024 ? mem[k] / 1024 "G" : mem[k] "M"), f[2], f[3], f[4], runs[k],
				cell(k, "ops"), cell(k, "aging_rec"), cell(k, "read_rec"), cell(k, "hold_p99"),
				(k in worst) ? fmt(worst[k]) : "-"
			# plot data: one file per target and workload, a line per config
			sf = dir "/sweep-" rawarch[k] "-" f[2] ".dat"
			if (!((sf, f[4]) in sweepcfg)) { sweepcfg[sf, f[4]] = 1; sweepcfgs[sf] = sweepcfgs[sf] " " f[4] }
			printf "%s %s %s %s %s\n", f[4], mem[k], pv(med(k, "read_rec")), pv(med(k, "aging_rec")),
				(k in worst) ? worst[k] : "NaN" > sf
		}
		for (sf in sweepcfgs) print substr(sweepcfgs[sf], 2) > (sf ".configs")
	}
	table("The boots (host wall-clock seconds per boot, median (min-max); the guest clock):",
	      "| target | config | boots | wall s | clock |")
	for (i = 1; i <= nk; i++) {
		k = keys[i]; split(k, f, "|")
		# one line per target and configuration: every measurement of a
		# boot has its wall time, so take the first workload and pressure
		kk = f[1] "|" f[4]
		if (kk in done) continue
		done[kk] = 1
		printf "| %s | %s | %d | %s | %s |\n", f[1], f[4], runs[k], cell(k, "wall"), (k in clock) ? clock[k] : "-"
	}
}' "$csv" >"$DIR/summary.md" || die "could not summarise $csv"

{
	echo
	echo "Medians over the runs, (min-max) spread; CV: the coefficient of variation of"
	echo "ops/s over the runs (standard deviation / mean); 'vs base' is the ratio of medians to base"
	echo "at the same target, workload and pressure; [95% CI] its percentile bootstrap"
	echo "interval (10000 resamples of each side's runs, bench/bootstrap.c), and 'differs'"
	echo "says whether that interval excludes 1.0 (- with fewer than 2 runs a side)."
	echo "Refaults: workingset_refault_anon + _file; aging: CPU time in try_to_inc_max_seq (page-table walk or counter sampling);"
	echo "counts: time reading access counts (patch 9) in the aging's promotion walk and in the"
	echo "eviction's check of evict-skip-refs; reading cost: the time spent finding accessed pages, each"
	echo "part once, (aging + look-around + counts - counts' sampling, which aging includes) per"
	echo "page reclaimed; isolate hold: how long the eviction held lru_lock (irqs off) to isolate"
	echo "a batch (patch 10), p99 and longest of each run as the upper bound of their log2 bucket,"
	echo "median over the runs;"
	echo "precision/recall: the hot set among the youngest generation at the end of the run,"
	echo "scored with the emulator's ground truth (that generation also holds whatever was faulted"
	echo "in since the last aging); after aging: the precision of the youngest generation that one"
	echo "more aging made right after (w-hotcold -A); evicted cold: share of the pages swapped out at the end"
	echo "that are cold by design (hca-s16 keeps no ground truth: no scores). With the"
	echo "guest clock icount:N, seconds and rates are guest time: 2^N ns per guest"
	echo "instruction, whatever the host did. Settings of every run: results.csv."
} >>"$DIR/summary.md"

if command -v gnuplot >/dev/null; then
	for dat in "$DIR"/plot-*.dat; do
		[ -e "$dat" ] || continue
		name=$(basename "$dat" .dat)
		name=${name#plot-}
		n=$(wc -l <"$dat")
		gnuplot <<EOF || info "warning: gnuplot failed for $dat"
set terminal pngcairo size 1000,420 font ",9" noenhanced
set output "$DIR/$name.png"
set multiplot layout 1,2 title "$name: ratio of medians to base, with its 95% bootstrap interval"
set xtics rotate by -35 noenhanced
set grid ytics
set xrange [-0.6:$n - 0.4]
unset key
set title "ops/s vs base (above 1 is better)"
plot "$dat" using 0:2:3:4:xtic(1) with yerrorbars lc rgb "#4878a8" pt 7 ps 1, 1 lc rgb "gray" dt 2
set title "refaults per 1000 ops vs base (below 1 is better)"
plot "$dat" using 0:5:6:7:xtic(1) with yerrorbars lc rgb "#c0504d" pt 7 ps 1, 1 lc rgb "gray" dt 2
unset multiplot
EOF
	done
	for dat in "$DIR"/sweep-*.dat; do
		[ -e "$dat" ] || continue
		name=$(basename "$dat" .dat)
		plots=() holds=()
		for cfg in $(cat "$dat.configs"); do
			# one series per configuration, in order of memory
			awk -v c="$cfg" '$1 == c' "$dat" | sort -n -k2 >"$tools/$name-$cfg.dat"
			plots+=("\"$tools/$name-$cfg.dat\" using (\$2 / 1024):3 with linespoints title \"$cfg\"")
			holds+=("\"$tools/$name-$cfg.dat\" using (\$2 / 1024):5 with linespoints title \"$cfg\"")
		done
		gnuplot <<EOF || info "warning: gnuplot failed for $dat"
set terminal pngcairo size 1000,420 font ",9" noenhanced
set output "$DIR/$name.png"
set multiplot layout 1,2 title "$name: cost against guest memory (workloads scaled alike)"
set logscale x 2
set xlabel "guest memory, GiB"
set grid
set key top left
set yrange [0:*]
set title "reading cost per page reclaimed, ns (median)"
plot $(IFS=,; echo "${plots[*]}")
set title "worst isolate lru_lock hold, us"
plot $(IFS=,; echo "${holds[*]}")
unset multiplot
EOF
	done
else
	info "warning: no gnuplot (apt-get install gnuplot-nox): no plots"
fi
cat "$DIR/summary.md"
ls "$DIR"/*.png 2>/dev/null | sed 's/^/plot: /'
