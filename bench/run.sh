#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the A/B benchmark of ../shared/BENCHMARKS.md. For each target
# and each run, boots the guest once per configuration, interleaved (base,
# hca, hca-noref, unconstrained, base, ...), every boot with the counter
# plugin (so that its cost is the same for all), and collects what
# guest/runners/bench.c prints. Then writes, in the output directory:
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
#   HWAGE_HCA_SAMPLE, HWAGE_HCA_DECAY, HWAGE_HCA_OPTS   the plugin's
#                          options (run-guest.sh); every boot runs it with
#                          truth= (HWAGE_HCA_TRUTH=1), the classification
#                          of every configuration being scored against it
# Each boot has a log of its own, and only that log is collected
# (bench/rows.sh, which also records the QEMU and plugin options the boot
# really ran with); a boot that fails is reported, and make bench then
# exits non-zero after writing what the other boots measured.
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

csv=$OUT/results.csv
bash "$HWAGE_TOP/bench/rows.sh" --header >"$csv" || die "cannot write $csv"

# the series revision: the last commit of patches/, and whether it is edited
series=$(cd "$HWAGE_TOP" && git log -1 --format=%h -- patches 2>/dev/null)
[ -n "$(cd "$HWAGE_TOP" && git status --porcelain -- patches 2>/dev/null)" ] && series+=-dirty

t0=$(date +%s)
total=0
bad_boots=()
bash "$S/setup.sh" || exit 1
bash "$S/prepare-tree.sh" || exit 1
for arch in $ARCHS; do
	load_target "$arch"
	bash "$S/build-kernel.sh" "$arch" || die "the $arch kernel did not build"
	bash "$S/mkinitramfs.sh" "$arch" || die "the $arch initramfs did not build"
	for run in $(seq 1 "$RUNS"); do
		for config in $CONFIGS; do
			info "bench $arch run $run/$RUNS: $config ($WORKLOADS at pressure $PRESSURES, ${SECS}s each; $(($(date +%s) - t0))s so far)"
			# a log of this boot's own: only what it wrote is collected
			log=$HWAGE_LOGS/guest-$arch-bench-hca-on-$config-run$run-$(date +%Y%m%d-%H%M%S).log
			HWAGE_LOG=$log HWAGE_HCA=on HWAGE_HCA_TRUTH=1 \
				HWAGE_CMDLINE="hwage.config=$config hwage.workloads=$WORKLOADS hwage.pressures=$PRESSURES hwage.secs=$SECS" \
				bash "$S/run-guest.sh" "$arch" bench >"$OUT/boot.log" 2>&1
			rc=$?
			if ! grep -aq '^hwage-init: mode' "$log" 2>/dev/null; then
				why=$(sed -n 's/^hwage-host: \(boot did not start: \)\{0,1\}//p' "$log" 2>/dev/null | head -n 1)
				echo "hwage: bench boot did not start ($arch $config run $run): ${why:-run-guest.sh exited with status $rc}; log: $log" >&2
				tail -n 20 "$OUT/boot.log" >&2
				bad_boots+=("$arch $config run $run: did not start, ${why:-exit status $rc} ($log)")
				continue
			fi
			if [ "$rc" != 0 ] || grep -aq 'hwage-bench-error' "$log"; then
				echo "hwage: bench boot failed ($arch $config run $run), log: $log" >&2
				tail -n 20 "$OUT/boot.log" >&2
				bad_boots+=("$arch $config run $run: exit status $rc$(grep -aq 'hwage-bench-error' "$log" && echo ", hwage-bench-error") ($log)")
			fi
			rows=$(bash "$HWAGE_TOP/bench/rows.sh" "$arch" "$run" "$series" "$log")
			if [ -n "$rows" ]; then
				echo "$rows" >>"$csv"
				total=$((total + $(wc -l <<<"$rows")))
			fi
			grep -a '^hwage-bench ' "$log" | tr -d '\r' |
				awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(workload|pressure|ops_per_s|p99_us|workingset_refault_anon|errors|misses)=/) printf " %s", $i; print "" }' |
				sed 's/^/    /'
		done
	done
done
info "bench: $total measurements in $(($(date +%s) - t0))s: $csv"
if [ ${#bad_boots[@]} != 0 ]; then
	echo "hwage: bench: ${#bad_boots[@]} boot(s) failed:" >&2
	printf '  %s\n' "${bad_boots[@]}" >&2
fi
bash "$HWAGE_TOP/bench/report.sh" "$OUT" || die "could not summarise $csv"
[ ${#bad_boots[@]} = 0 ]
