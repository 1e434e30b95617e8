#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the A/B benchmark of ../shared/BENCHMARKS.md. For each target
# and each run, boots the guest once per configuration, interleaved (base,
# hca, hca-s16, hca-refs, base, ...), every boot with the
# counter plugin, and collects what guest/runners/bench.c prints. Then
# writes, in the output directory:
#   results.csv   every measurement with its settings
#   summary.md    medians, spread, ratios to base with bootstrap intervals
#   *.png         the ratios with their intervals (gnuplot)
#
# By default the guests run under QEMU's instruction counting (-icount):
# a guest second is a fixed number of guest instructions, so ops per guest
# second measure what the guest's CPU did and nothing of the host (its
# speed, its load, the plugin's cost). A guest then runs in one host
# thread, and HWAGE_BENCH_JOBS boots run at once without disturbing each
# other's figures.
#
# Configurations:
#   base           the patched kernel with counter aging off: stock MGLRU
#   hca            counter aging on with the kernel's defaults, exact
#                  counts: k-means with a gap (classifier 3), eviction
#                  without reference checks of the folios the counts say
#                  are cold (evict-skip-refs=1)
#   hca-kmeans     hca with plain k-means (classifier 2, the default
#                  before 2026-12-06)
#   hca-refs       hca with every reference checked at eviction
#                  (evict-skip-refs=0; what hca was before 2026-12-06)
#   hca-s16        counter aging on, the plugin counting 1 access in 16
#                  (sample=16, as the POWER10 engine can) and keeping no
#                  ground truth: no classification scores, the cheapest
#                  emulator
#   hca-noref      the same as hca (its name from before evict-skip-refs
#                  was the default)
#   hca-prevgen    hca with the promotion walk also looking at the
#                  generation the previous aging made (walk-prev-gen)
#   hca-tiers      hca with promotions by count counted in the
#                  folios' tiers (walk-refs)
#   hca-gap        the same as hca (kmeans-gap is the default now)
#   hca-share      counter aging with the share classifier
#   hca-linear     counter aging with the linear classifier (the RFC's)
#   hca-p10        hca on a table in the POWER10 entry layout
#                  (the plugin's format=p10: counts floored to m * 4^e,
#                  prev_count coarser still, ages up to 7)
#   hca-mem        hca on memory-side counts (the plugin's
#                  cache=8M,cache_ways=16: only the accesses that miss a
#                  modelled 8 MiB cache per vCPU count)
#   hca-thp        hca with huge pages split and collapsed by the hotness
#                  of their pages (thp-split-hot=25, thp-collapse-hot=25;
#                  for the thp and thp-collapse workloads)
#   hca-thpN       the same with both knobs at N (1 to 100), e.g.
#                  hca-thp10, hca-thp50: the threshold's sweep
#   hca-everywalk  hca with every promotion walk looking at every
#                  generation (walk-once-per-window=0: hca before patch 14)
#   nb-tiering     base with NUMA balancing's tiering mode
#                  (numa_balancing=2: promotion by hint faults), for the
#                  tiers workload
#   kp-faults      nb-tiering's hint faults recorded for kpromoted, which
#                  promotes by them (promote-faults=1; counts off): the
#                  hotness layer's second source, for the tiers workload
#   damon-hot      base with DAMON's DAMOS migrate_hot from node 1 to node 0
#                  (paddr, default intervals, regions used in 1 of 20
#                  samples, 256 MiB/s), for the tiers workload
#   damon-hot-counts  damon-hot on DAMON's count check (paddr_counts)
#   unconstrained  no memory limit: the ceiling
#
# Settings (environment):
#   HWAGE_BENCH_ARCHS      targets (ppc64le x86_64)
#   HWAGE_BENCH_RUNS       boots per configuration (10)
#   HWAGE_BENCH_CONFIGS    (base hca hca-s16 hca-refs; hca-kmeans, hca-noref, hca-prevgen, hca-tiers, hca-gap,
#                          hca-share, hca-linear, hca-p10, hca-mem, hca-thp
#                          and unconstrained on request)
#   HWAGE_BENCH_WORKLOADS  (hotcold,memcached; thp and thp-collapse on
#                          request: w-thp's huge pages split under a limit,
#                          and collapsed by khugepaged without one; they
#                          need the radix MMU on ppc64le, so ppc64le boots
#                          with either run on it, disable_radix=no;
#                          tiers on request: w-tiers, a hot set on a
#                          slow memory tier that moves, in guests with
#                          one (HWAGE_TIERS=512M); compare base (no
#                          promotion), hca (kpromoted by the counts),
#                          nb-tiering, kp-faults, damon-hot and
#                          damon-hot-counts; tiers-mc: memcached with every other page
#                          of its memory moved to node 1 after its load,
#                          scored by the share of all
#                          accesses node 0 served, from the emulator's
#                          ground truth (bench/tier-share.sh);
#                          damon, damon-fine on request: w-damon, DAMON's
#                          view of a hot, a warm and a cold set with the
#                          accessed-bit check (rows config=damon-ab) and
#                          the count check (damon-counts, patch 26) in
#                          turn, 3 rounds a boot, at DAMON's default
#                          intervals (5/100 ms) or finer ones (1/20 ms),
#                          scored against the ground truth
#                          (bench/damon-score.sh); damon-thp: damon with
#                          the sets in huge pages (ppc64le boots on the
#                          radix MMU); damon-reclaim: DAMOS pageout of
#                          the regions unaccessed for 5 aggregations,
#                          for the workload cgroup, with each check: the
#                          memory saved and the refaults; damon-quota:
#                          DAMOS lru_prio with a quota of the hot set's
#                          size, ranked by frequency, the warm set read
#                          every 2 ms: the share of hot pages it took,
#                          with each check; run them with
#                          HWAGE_BENCH_CONFIGS=base)
#   HWAGE_BENCH_PRESSURES  footprint over limit (1.2; e.g. 1.2,2)
#   HWAGE_BENCH_SECS       guest seconds of each run phase (8)
#   HWAGE_BENCH_SCALES     guest sizes, as multiples of the target's memory
#                          (1G): each scale N boots an N-times larger guest
#                          with N-times larger workloads (hwage.scale=N);
#                          x86_64 stops at 3 (make bench-scale: 1 2 4 8)
#   HWAGE_BENCH_ICOUNT     the guest clock: a shift N for -icount shift=N
#                          (a guest instruction is 2^N ns of guest time) or
#                          off for the host's clock (3)
#   HWAGE_BENCH_JOBS       boots at once (under -icount: nproc; off: 1,
#                          since boots would then slow each other down)
#   HWAGE_BENCH_OUT        output directory ($HWAGE_CACHE/bench/DATE)
#   HWAGE_BENCH_YOUNG      generations counted as young when scoring (1)
#   HWAGE_HCA_SAMPLE, HWAGE_HCA_DECAY, HWAGE_HCA_OPTS   the plugin's
#                          options (run-guest.sh) of every configuration
#                          but hca-s16; they run with truth=
#                          (HWAGE_HCA_TRUTH=1), the classification being
#                          scored against it
# Each boot has a log of its own, and only that log is collected
# (bench/rows.sh, which also records the QEMU and plugin options the boot
# really ran with, and the boot's wall time); a boot that fails is
# reported, and make bench then exits non-zero after writing what the
# other boots measured.
set -u
. "$(dirname "$0")/../harness/lib.sh"
# performance is measured on production kernels only (not HWAGE_KERNEL=debug)
[ "${HWAGE_KERNEL:-prod}" = prod ] ||
	die "HWAGE_KERNEL=$HWAGE_KERNEL: make bench measures performance, on the production kernel only (unset HWAGE_KERNEL)"
export HWAGE_KERNEL=prod
S=$HWAGE_TOP/harness
ARCHS=${HWAGE_BENCH_ARCHS:-ppc64le x86_64}
RUNS=${HWAGE_BENCH_RUNS:-10}
CONFIGS=${HWAGE_BENCH_CONFIGS:-base hca hca-s16 hca-refs}
WORKLOADS=${HWAGE_BENCH_WORKLOADS:-hotcold,memcached}
PRESSURES=${HWAGE_BENCH_PRESSURES:-1.2}
SECS=${HWAGE_BENCH_SECS:-8}
SCALES=${HWAGE_BENCH_SCALES:-1}
OUT=${HWAGE_BENCH_OUT:-$HWAGE_CACHE/bench/$(date +%Y%m%d-%H%M%S)}
ICOUNT=${HWAGE_BENCH_ICOUNT:-3}
case "$ICOUNT" in
off) JOBS=${HWAGE_BENCH_JOBS:-1} ;;
[0-9]|10) JOBS=${HWAGE_BENCH_JOBS:-$(nproc)} ;;
*) die "HWAGE_BENCH_ICOUNT=$ICOUNT: want off or a shift from 0 to 10" ;;
esac

[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "HWAGE_BENCH_RUNS=$RUNS: want a number of runs >= 1"
[[ "$SECS" =~ ^[1-9][0-9]*$ ]] || die "HWAGE_BENCH_SECS=$SECS: want seconds >= 1"
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || die "HWAGE_BENCH_JOBS=$JOBS: want a number of boots >= 1"
[ "$ICOUNT" != off ] || [ "$JOBS" = 1 ] ||
	info "warning: HWAGE_BENCH_JOBS=$JOBS with the host's clock: the boots' figures include each other's load"
for n in $SCALES; do
	[[ "$n" =~ ^[1-9][0-9]*$ ]] && [ "$n" -le 64 ] ||
		die "HWAGE_BENCH_SCALES: '$n' is not a scale from 1 to 64"
done
for c in $CONFIGS; do
	case $c in base|hca|hca-refs|hca-kmeans|hca-s16|hca-noref|hca-prevgen|hca-tiers|hca-gap|hca-share|hca-linear|hca-p10|hca-mem|hca-thp|hca-thp[1-9]|hca-thp[1-9][0-9]|hca-thp100|hca-everywalk|nb-tiering|kp-faults|damon-hot|damon-hot-counts|unconstrained) ;;
	*) die "HWAGE_BENCH_CONFIGS: unknown configuration '$c' (base hca hca-refs hca-kmeans hca-s16 hca-noref hca-prevgen hca-tiers hca-gap hca-share hca-linear hca-p10 hca-mem hca-thp hca-thpN (N 1 to 100) hca-everywalk nb-tiering kp-faults damon-hot damon-hot-counts unconstrained)" ;;
	esac
done
for w in ${WORKLOADS//,/ }; do
	case $w in hotcold|memcached|thp|thp-collapse|tiers|tiers-mc|damon|damon-fine|damon-thp|damon-reclaim|damon-quota) ;;
	*) die "HWAGE_BENCH_WORKLOADS: unknown workload '$w' (hotcold memcached thp thp-collapse tiers tiers-mc damon damon-fine damon-thp damon-reclaim damon-quota)" ;;
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

# boot ARCH SCALE RUN CONFIG: one benchmark boot, its rows into $OUT/rows/;
# what it measured, or why it failed, printed as it ends and kept in
# $OUT/rows/ID.msg
boot() {
	local arch=$1 scale=$2 run=$3 config=$4 log rc why t id=$1-x$2-$3-$4 guest_config=$4
	local sample=${HWAGE_HCA_SAMPLE:-1} truth=1 opts=${HWAGE_HCA_OPTS:-}
	local msg=$OUT/rows/$id.msg radix=
	# ppc64le's hash MMU has no PMD-sized huge pages with 4K pages
	[ "$arch" != ppc64le ] ||
		[[ ",$WORKLOADS," != *,thp,* && ",$WORKLOADS," != *,thp-collapse,* && ",$WORKLOADS," != *,damon-thp,* ]] ||
		radix="disable_radix=no "
	# tiers and tiers-mc want a slow memory tier: node 1, CPU-less; and one vCPU:
	# under -icount the guest clock runs on the instructions of all vCPUs,
	# so a thread's CPU time, in guest time, holds the other vCPU's
	# instructions too while that one is busy (kpromoted beside the
	# workload) and not while it idles (hint faults in the workload with
	# the other vCPU idle): with one vCPU every thread's time is its own
	local tiers= qargs=${HWAGE_QEMU_ARGS:-}
	[[ ",$WORKLOADS," != *,tiers,* && ",$WORKLOADS," != *,tiers-mc,* ]] ||
		tiers=512M qargs="$qargs -smp 1"
	# damon*: one vCPU too, for kdamond's CPU time
	[[ ",$WORKLOADS," != *,damon* ]] || [[ "$qargs" == *"-smp 1"* ]] || qargs="$qargs -smp 1"
	case $config in
	hca-s16) guest_config=hca sample=16 truth=0 ;;
	# the guest runs them as hca, the plugin counts otherwise
	hca-p10) guest_config=hca opts=format=p10${opts:+,$opts} ;;
	hca-mem) guest_config=hca opts=cache=8M,cache_ways=16${opts:+,$opts} ;;
	esac
	# a log of this boot's own: only what it wrote is collected
	log=$HWAGE_LOGS/guest-$arch-bench-hca-on-$config-x$scale-run$run-$(date +%Y%m%d-%H%M%S)-$BASHPID.log
	t=$EPOCHSECONDS
	HWAGE_LOG=$log HWAGE_HCA=on HWAGE_HCA_TRUTH=$truth HWAGE_HCA_SAMPLE=$sample HWAGE_HCA_OPTS=$opts \
		HWAGE_ICOUNT=$ICOUNT HWAGE_GUEST_MEM=$((scale * mem_mib))M HWAGE_TIERS=$tiers HWAGE_QEMU_ARGS=$qargs \
		HWAGE_CMDLINE="${radix}hwage.config=$guest_config hwage.workloads=$WORKLOADS hwage.pressures=$PRESSURES hwage.secs=$SECS hwage.scale=$scale" \
		bash "$S/run-guest.sh" "$arch" bench >"$OUT/rows/$id.boot" 2>&1
	rc=$?
	echo $((EPOCHSECONDS - t)) >"$log.wall"
	: >"$msg"
	if ! grep -aq '^hwage-init: mode' "$log" 2>/dev/null; then
		why=$(sed -n 's/^hwage-host: \(boot did not start: \)\{0,1\}//p' "$log" 2>/dev/null | head -n 1)
		{
			echo "hwage: bench boot did not start ($arch $config run $run): ${why:-run-guest.sh exited with status $rc}; log: $log"
			tail -n 20 "$OUT/rows/$id.boot"
		} >>"$msg"
		cat "$msg" >&2
		echo "$arch $config run $run: did not start, ${why:-exit status $rc} ($log)" >"$OUT/rows/$id.bad"
		return
	fi
	if [ "$rc" != 0 ] || grep -aq 'hwage-bench-error' "$log"; then
		{
			echo "hwage: bench boot failed ($arch $config run $run), log: $log"
			tail -n 20 "$OUT/rows/$id.boot"
		} >>"$msg"
		echo "$arch $config run $run: exit status $rc$(grep -aq 'hwage-bench-error' "$log" && echo ", hwage-bench-error") ($log)" >"$OUT/rows/$id.bad"
	fi
	# the guest knows hca-s16, hca-p10 and hca-mem as hca: the
	# third column says which it was
	bash "$HWAGE_TOP/bench/rows.sh" "$arch" "$run" "$series" "$log" |
		sed "s/^\([^,]*,[^,]*,\)$guest_config,/\1$config,/" >"$OUT/rows/$id.csv"
	grep -a '^hwage-bench ' "$log" | tr -d '\r' |
		awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(workload|pressure|ops_per_s|p99_us|workingset_refault_anon|errors|misses)=/) printf " %s", $i; print "" }' |
		sed 's/^/    /' >>"$msg"
	echo "    ($arch $config run $run: $(cat "$log.wall")s)" >>"$msg"
	cat "$msg"
}

t0=$(date +%s)
total=0
bad_boots=()
rm -rf "$OUT/rows"
mkdir -p "$OUT/rows" || die "cannot create $OUT/rows"
bash "$S/setup.sh" || exit 1
bash "$S/prepare-tree.sh" || exit 1
info "bench: clock ${ICOUNT/#[0-9]*/icount shift=$ICOUNT}, $JOBS boot(s) at once, $RUNS run(s) of: $CONFIGS"
for arch in $ARCHS; do
	load_target "$arch"
	bash "$S/build-kernel.sh" "$arch" || die "the $arch kernel did not build"
	bash "$S/mkinitramfs.sh" "$arch" || die "the $arch initramfs did not build"
	mem_mib=$(($(numfmt --from=iec "$GUEST_MEM") >> 20))
	ids=()
	for scale in $SCALES; do
		if [ "$arch" = x86_64 ] && [ $((scale * mem_mib)) -gt 3072 ]; then
			info "bench: skipping x86_64 at scale $scale: with the counter engine x86_64 guests stop at 3G (harness/run-guest.sh)"
			continue
		fi
		for run in $(seq 1 "$RUNS"); do
			for config in $CONFIGS; do
				ids+=("$arch-x$scale-$run-$config")
				while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
					wait -n
				done
				info "bench $arch $((scale * mem_mib))M run $run/$RUNS: $config ($WORKLOADS at pressure $PRESSURES, ${SECS}s each; $(($(date +%s) - t0))s so far)"
				boot "$arch" "$scale" "$run" "$config" &
			done
		done
	done
	wait
	# in the order of the boots, whatever order they ended in
	for id in "${ids[@]}"; do
		[ -f "$OUT/rows/$id.bad" ] && bad_boots+=("$(cat "$OUT/rows/$id.bad")")
		[ -s "$OUT/rows/$id.csv" ] || continue
		cat "$OUT/rows/$id.csv" >>"$csv"
		total=$((total + $(wc -l <"$OUT/rows/$id.csv")))
	done
done
info "bench: $total measurements in $(($(date +%s) - t0))s: $csv"
if [ ${#bad_boots[@]} != 0 ]; then
	echo "hwage: bench: ${#bad_boots[@]} boot(s) failed:" >&2
	printf '  %s\n' "${bad_boots[@]}" >&2
fi
bash "$HWAGE_TOP/bench/report.sh" "$OUT" || die "could not summarise $csv"
[ ${#bad_boots[@]} = 0 ]
