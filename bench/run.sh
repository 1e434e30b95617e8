#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the A/B benchmark of ../shared/BENCHMARKS.md. For each target
# and each run, boots the guest once per configuration, interleaved (base,
# hca, hca-noref, unconstrained, base, ...), every boot with the counter
# plugin (so that its cost is the same for all), and collects what
# guest/bench-run.c prints. Then writes, in the output directory:
#   results.csv   every measurement with its settings
#   summary.md    medians, spread (min-max) and ratios to base
#   *.png         ops/s and refaults per configuration (gnuplot)
#
# Settings (environment):
#   HWAGE_BENCH_ARCHS      targets (ppc64le x86_64)
#   HWAGE_BENCH_RUNS       boots per configuration (5)
#   HWAGE_BENCH_CONFIGS    (base hca hca-noref unconstrained)
#   HWAGE_BENCH_WORKLOADS  (hotcold,memcached)
#   HWAGE_BENCH_PRESSURES  footprint over limit (1.2,2)
#   HWAGE_BENCH_SECS       seconds of each run phase (8)
#   HWAGE_BENCH_OUT        output directory ($HWAGE_CACHE/bench/DATE)
#   HWAGE_BENCH_YOUNG      generations counted as young when scoring (1)
#   HWAGE_HCA_SAMPLE, HWAGE_HCA_DECAY   the plugin's options (run-guest.sh)
set -u
. "$(dirname "$0")/../harness/lib.sh"
S=$HWAGE_TOP/harness
ARCHS=${HWAGE_BENCH_ARCHS:-ppc64le x86_64}
RUNS=${HWAGE_BENCH_RUNS:-5}
CONFIGS=${HWAGE_BENCH_CONFIGS:-base hca hca-noref unconstrained}
WORKLOADS=${HWAGE_BENCH_WORKLOADS:-hotcold,memcached}
PRESSURES=${HWAGE_BENCH_PRESSURES:-1.2,2}
SECS=${HWAGE_BENCH_SECS:-8}
OUT=${HWAGE_BENCH_OUT:-$HWAGE_CACHE/bench/$(date +%Y%m%d-%H%M%S)}

[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "HWAGE_BENCH_RUNS=$RUNS: want a number of runs >= 1"
[[ "$SECS" =~ ^[1-9][0-9]*$ ]] || die "HWAGE_BENCH_SECS=$SECS: want seconds >= 1"
for c in $CONFIGS; do
	case $c in base|hca|hca-noref|unconstrained) ;;
	*) die "HWAGE_BENCH_CONFIGS: unknown configuration '$c' (base hca hca-noref unconstrained)" ;;
	esac
done
for w in ${WORKLOADS//,/ }; do
	case $w in hotcold|memcached) ;;
	*) die "HWAGE_BENCH_WORKLOADS: unknown workload '$w' (hotcold memcached)" ;;
	esac
done
for p in ${PRESSURES//,/ }; do
	[[ "$p" =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v p="$p" 'BEGIN { exit !(p >= 1) }' ||
		die "HWAGE_BENCH_PRESSURES: '$p' is not a pressure >= 1 (footprint / limit)"
done
mkdir -p "$OUT" || die "cannot create $OUT"

COLS="arch run config workload pressure ops_per_s p50_us p99_us ops errors misses exit
limit_kb footprint_kb workingset_refault_anon workingset_refault_file
workingset_activate_anon workingset_activate_file pgscan pgsteal pgmajfault pswpin pswpout
cpu_usec cpu_sys_usec aging_ns aging_calls look_around_ns look_around_calls swapped
swapped_cold cls_precision cls_recall cls_design_precision cls_design_recall
truth_agreement secs kernel series qemu emulator guest_mem phase_secs log"
csv=$OUT/results.csv
echo $COLS | tr ' ' , >"$csv"

# collect ARCH RUN LOG: one CSV row per "hwage-bench" line of the log
collect() {
	local arch=$1 run=$2 log=$3 meta scores
	meta="arch=$arch run=$run kernel=$(cat "$HWAGE_CACHE/build-$arch/.hwage-release" 2>/dev/null)"
	meta+=" series=$series"
	meta+=" qemu=$(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')"
	meta+=" emulator=sample:${HWAGE_HCA_SAMPLE:-1}/decay:${HWAGE_HCA_DECAY:-100000000}/lines:on"
	meta+=" guest_mem=$GUEST_MEM phase_secs=$SECS log=$(basename "$log")"
	scores=$(bash "$HWAGE_TOP/bench/score.sh" "$log")
	tr -d '\r' <"$log" | grep -a '^hwage-bench ' | awk -v meta="$meta" -v cols="$COLS" -v scores="$scores" '
		BEGIN { ncol = split(cols, col, /[ \n]+/); nsc = split(scores, sc, "\n") }
		{
			delete v
			n = split(meta " " $0, kv, " ")
			for (i = 1; i <= n; i++) if ((j = index(kv[i], "=")) > 0) v[substr(kv[i], 1, j - 1)] = substr(kv[i], j + 1)
			if (v["workload"] == "hotcold" && ++h <= nsc) {
				split(sc[h], s, " ")
				v["cls_precision"] = s[1]; v["cls_recall"] = s[2]
				v["cls_design_precision"] = s[3]; v["cls_design_recall"] = s[4]; v["truth_agreement"] = s[5]
			}
			line = ""
			for (i = 1; i <= ncol; i++) {
				x = (col[i] in v) ? v[col[i]] : ""
				if (x == "-") x = ""
				line = line (i > 1 ? "," : "") x
			}
			print line
		}' >>"$csv"
	grep -ac '^hwage-bench ' "$log"
}

# the series revision: the last commit of patches/, and whether it is edited
series=$(cd "$HWAGE_TOP" && git log -1 --format=%h -- patches 2>/dev/null)
[ -n "$(cd "$HWAGE_TOP" && git status --porcelain -- patches 2>/dev/null)" ] && series+=-dirty

t0=$(date +%s)
total=0
bash "$S/setup.sh" || exit 1
bash "$S/prepare-tree.sh" || exit 1
for arch in $ARCHS; do
	load_target "$arch"
	bash "$S/build-kernel.sh" "$arch" || die "the $arch kernel did not build"
	bash "$S/mkinitramfs.sh" "$arch" || die "the $arch initramfs did not build"
	for run in $(seq 1 "$RUNS"); do
		for config in $CONFIGS; do
			info "bench $arch run $run/$RUNS: $config ($WORKLOADS at pressure $PRESSURES, ${SECS}s each; $(($(date +%s) - t0))s so far)"
			HWAGE_HCA=on HWAGE_CMDLINE="hwage.config=$config hwage.workloads=$WORKLOADS hwage.pressures=$PRESSURES hwage.secs=$SECS" \
				bash "$S/run-guest.sh" "$arch" bench >"$OUT/boot.log" 2>&1
			rc=$?
			log=$(readlink -f "$HWAGE_LOGS/guest-$arch-bench-hca-on.log")
			if [ "$rc" != 0 ] || grep -aq 'hwage-bench-error' "$log"; then
				echo "hwage: bench boot failed ($arch $config run $run), log: $log" >&2
				tail -n 20 "$OUT/boot.log" >&2
			fi
			n=$(collect "$arch" "$run" "$log")
			total=$((total + n))
			grep -a '^hwage-bench ' "$log" | tr -d '\r' |
				awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(workload|pressure|ops_per_s|p99_us|workingset_refault_anon|errors|misses)=/) printf " %s", $i; print "" }' |
				sed 's/^/    /'
		done
	done
done
info "bench: $total measurements in $(($(date +%s) - t0))s: $csv"
bash "$HWAGE_TOP/bench/report.sh" "$OUT" || die "could not summarise $csv"
