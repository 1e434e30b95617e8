#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: bench/rows.sh records the facts of the boot it is given, as
# that boot ran: the version of the QEMU binary in its .cmd (not another
# target's), the plugin options the plugin printed (not the defaults), the
# kernel, memory and phase length of its command line. The QEMU binaries
# are stand-ins printing made-up versions.
set -u
B=$(dirname "$0")/../../bench
. "$(dirname "$0")/../../harness/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_plan 9

mkdir "$tmp/bin"
for q in ppc64:10.0.91 x86_64:10.0.92; do
	printf '#!/bin/sh\necho "QEMU emulator version %s (Debian 1:10.0.2+ds-2)"\n' "${q#*:}" \
		>"$tmp/bin/qemu-system-${q%:*}"
	chmod +x "$tmp/bin/qemu-system-${q%:*}"
done
export PATH=$tmp/bin:$PATH

log=$tmp/guest-ppc64le-bench-hca-on-hca-run3-20250101-000000.log
cat >"$log" <<'LOG'
hca: table=/dev/shm/hwage-ppc64le-99.hca size=4198400 pages=262144 page=4096 sample=16 decay=5000 lines=off truth=/cache/logs/x.log.truth
[    0.000000] Linux version 6.12.57-hwage
hwage-init: mode bench
hwage-bench config=hca workload=memcached pressure=1.2 ops_per_s=50 errors=0 misses=0
hwage-bench config=hca workload=memcached pressure=2 ops_per_s=40 errors=0 misses=1 counts_ns=900 counts_evict_calls=7 lock_hold_p99_ns=4096 putback_hold_max_ns=-1 swapped=3
LOG
echo "qemu-system-ppc64 -object memory-backend-ram,id=ram0,size=2G -m 2G -machine pseries,memory-backend=ram0 -kernel /cache/build-ppc64le/vmlinux -append console=hvc0 panic=-1 hwage.mode=bench hwage.hca=on hwage.release=6.12.57-hwage hwage.config=hca hwage.workloads=memcached hwage.pressures=1.2,2 hwage.secs=7 -icount shift=2,sleep=off,align=off" >"$log.cmd"

# col CSV ROW NAME: the value of column NAME in row ROW (1: the first row)
col() {
	awk -F, -v r="$2" -v n="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } NR == r + 1 { print $c[n] }' "$1"
}
{ bash "$B/rows.sh" --header; bash "$B/rows.sh" ppc64le 3 abc123 "$log"; } >"$tmp/a.csv"
got="$(col "$tmp/a.csv" 1 arch) $(col "$tmp/a.csv" 1 run) $(col "$tmp/a.csv" 2 pressure) $(col "$tmp/a.csv" 2 misses) $(wc -l <"$tmp/a.csv")"
[ "$got" = "ppc64le 3 2 1 3" ]
ktap_ok one_row_per_measurement $? "got: $got (want ppc64le 3 2 1 3)" "$(cat "$tmp/a.csv")"
got=$(col "$tmp/a.csv" 1 qemu)
[ "$got" = 10.0.91 ]
ktap_ok qemu_version_of_the_binary_the_boot_ran $? "got: $got (want 10.0.91, qemu-system-ppc64's)"
got=$(col "$tmp/a.csv" 2 emulator)
[ "$got" = page:4096/sample:16/decay:5000/lines:off/truth:on ]
ktap_ok plugin_options_the_boot_ran_with $? "got: $got"
got="$(col "$tmp/a.csv" 1 kernel) $(col "$tmp/a.csv" 1 guest_mem) $(col "$tmp/a.csv" 1 phase_secs) $(col "$tmp/a.csv" 1 series) $(col "$tmp/a.csv" 1 log)"
[ "$got" = "6.12.57-hwage 2G 7 abc123 $(basename "$log")" ]
ktap_ok kernel_memory_phase_series_log $? "got: $got"

# the reading cost and lru_lock hold fields of bench.c land in their columns
got="$(col "$tmp/a.csv" 2 counts_ns) $(col "$tmp/a.csv" 2 counts_evict_calls) $(col "$tmp/a.csv" 2 lock_hold_p99_ns) $(col "$tmp/a.csv" 2 putback_hold_max_ns) $(col "$tmp/a.csv" 2 swapped) $(col "$tmp/a.csv" 1 counts_ns)"
[ "$got" = "900 7 4096 -1 3 " ]
ktap_ok counts_and_hold_columns $? "got: '$got' (want '900 7 4096 -1 3 ')"

got=$(col "$tmp/a.csv" 1 clock)
[ "$got" = icount:2 ]
ktap_ok guest_clock_of_the_boot $? "got: $got (want icount:2)"

# The boot's wall time (LOG.wall, from bench/run.sh) and its scale
# (hwage.scale=, 1 without).
echo 42 >"$log.wall"
got="$(bash "$B/rows.sh" ppc64le 1 abc "$log" | head -n 1 >"$tmp/r.csv"; { bash "$B/rows.sh" --header; cat "$tmp/r.csv"; } >"$tmp/b.csv"; col "$tmp/b.csv" 1 boot_wall_s) $(col "$tmp/b.csv" 1 scale)"
sed -i 's/ hwage.secs=7/ hwage.secs=7 hwage.scale=4/' "$log.cmd"
got+=" $({ bash "$B/rows.sh" --header; bash "$B/rows.sh" ppc64le 1 abc "$log"; } >"$tmp/c.csv"; col "$tmp/c.csv" 1 scale)"
[ "$got" = "42 1 4" ]
ktap_ok wall_time_and_scale $? "got: $got (want 42 1 4)"

# Without truth= the plugin prints none: recorded as truth:off.
sed -i 's/ truth=[^ ]*//' "$log"
got=$(bash "$B/rows.sh" ppc64le 1 abc "$log" | head -n 1 | cut -d, -f"$(bash "$B/rows.sh" --header | tr , '\n' | grep -nx emulator | cut -d: -f1)")
[ "$got" = page:4096/sample:16/decay:5000/lines:off/truth:off ]
ktap_ok truth_off_recorded $? "got: $got"

# No .cmd: not a boot of run-guest.sh; refused rather than guessed.
rm "$log.cmd"
bash "$B/rows.sh" ppc64le 1 abc "$log" >"$tmp/out" 2>&1
rc=$?
[ "$rc" != 0 ] && [ -z "$(grep -v '^bench/rows.sh: no ' "$tmp/out")" ]
ktap_ok no_cmd_file_refused $? "exit $rc" "$(cat "$tmp/out")"
ktap_done
