#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the built kernel and initramfs of ARCH in QEMU (TCG).
#   run-guest.sh ARCH MODE [-- extra qemu args]
# MODE is test, demo, bench or shell (see guest/init.c). shell is
# interactive (Ctrl-A X quits); the others run under a timeout
# (HWAGE_TIMEOUT seconds, else the target's BOOT_TIMEOUT) and log the serial
# console to HWAGE_LOG, by default a new
# $HWAGE_LOGS/guest-ARCH-MODE[-hca-SCENARIO]-DATE.log; the link of that
# name without -DATE names the latest boot's log, also one that failed.
# Beside the log: LOG.cmd, the QEMU command line, and with HWAGE_HCA_TRUTH=1
# the ground truth LOG.truth and its snapshots LOG.truth.N.
#
# A caller that scores the boot gives HWAGE_LOG (a path of its own) and
# reads that file only: whatever an earlier boot left at that path (the log,
# .cmd, .truth*) is removed first. When the boot cannot start (no kernel,
# the plugin does not build, ...) the log holds the line
#   hwage-host: boot did not start: CAUSE
# (and the build errors, if any) and the exit status is 1. When QEMU does
# not end cleanly a last line "hwage-host: qemu exited with status N ..."
# or "hwage-host: guest timed out ..." says so, and the exit status is
# QEMU's (124: timed out).
#
# A guest whose kernel runs /init but whose init then prints nothing (its
# first line, "hwage-init: mode", comes at once) for HWAGE_INIT_STALL
# seconds (120; 0 turns the check off) has stalled: the host asks QEMU
# (QMP, on a socket of this boot's) for the vCPUs' state and registers,
# sends an NMI, on which the kernel prints where each CPU was and panics
# (ppc64le: a system reset; x86_64: booted with unknown_nmi_panic=1; the
# kernels here have no SysRq), appends all of it to the log after a line
#   hwage-host: init stalled: ...
# and stops QEMU, rather than wait for the timeout; the exit status is 125.
#
# Extra kernel parameters: HWAGE_CMDLINE; extra QEMU options:
# HWAGE_QEMU_ARGS or after "--".
#
# HWAGE_KERNEL picks the kernel flavour booted (harness/build-kernel.sh):
# prod (the default; benchmarks and the demo), debug (make test: lockdep,
# DEBUG_VM, ..., configs/debug.config; booted with panic_on_warn=1) or
# kasan (make test-kasan: the debug kernel with KASAN; on ppc64le booted
# on the radix MMU, which KASAN needs).
#
# HWAGE_GUEST_MEM sets the guest's memory (a size as -m takes it, e.g. 4G;
# the target's GUEST_MEM by default). With the counter engine, x86_64's is
# at most 3G: -M pc puts the RAM above 3 GiB beyond its PCI hole, above
# 4 GiB, where a table of guest-physical pages from 0 does not reach.
#
# HWAGE_DISK=SIZE (e.g. 1G) attaches a new, empty ext4 disk of that size
# (a sparse file made with mkfs.ext4, removed after the boot) as the
# guest's /dev/vda, virtio-blk; t22-kselftest runs the kernel's selftests
# on it.
#
# HWAGE_HOTPLUG=SIZE (x86_64; e.g. 512M) boots with room for one pc-dimm
# of SIZE (-m RAM,slots=2,maxmem=RAM+SIZE) and a QEMU monitor on two FIFOs
# beside the log; when the guest prints "hwage-hotplug: plug" (t23-hotplug)
# the host plugs the DIMM (object_add, device_add), and the monitor's
# answers go to LOG.monitor.
#
# HWAGE_TIERS=SIZE (e.g. 512M) splits the guest's RAM over two NUMA nodes:
# the last SIZE on node 1, CPU-less, in a memory tier below node 0's (see
# below); t25-tiers runs there (scenario tiers, boot-test.sh).
#
# HWAGE_ICOUNT picks the guest's clock:
#   off       (the default) the guest's clocks follow the host's: host load,
#             the plugin's cost and vCPU scheduling show in guest time
#   N         QEMU's instruction counting, -icount shift=N,sleep=off,align=off
#             (N from 0 to 10): every guest instruction advances the guest's
#             clocks by 2^N ns and an idle guest skips ahead, so guest time,
#             and every rate measured in it, is a count of guest
#             instructions: the host's speed and load, and the plugin's
#             cost, do not show in it.  The vCPUs then run round-robin in
#             one host thread.  make bench runs so (HWAGE_BENCH_ICOUNT).
#
# HWAGE_HCA picks the counter engine the guest gets (hwage.hca= tells it):
#   off       no counter device
#   on        the emulator plugin counts into a table exposed by ivshmem
#   badmagic  an ivshmem device whose table is all zeros (no plugin)
#   badsize   a well-formed table (emulator/hca-size -w) for a quarter of
#             the guest's RAM: too few pages, no plugin
#   chaos     as on, and emulator/hca-chaos corrupts the live table all
#             the while (random entries, counts at the maximum, ages going
#             back, entries flipping between reads, header fields
#             overwritten for 20 ms); its tally ends the log as
#             "hwage-hca-chaos: ..."
#   badtable  ten ivshmem devices, no plugin: one all zeros (not a counter
#             device), seven tables that lie about their geometry (entries
#             beyond the BAR, misaligned, a size that overflows, a table
#             larger than the BAR, wrong header size, unknown flags,
#             another version), then two well-formed tables for the whole
#             RAM: the driver must refuse all but the first good one
#             (BADTABLES below lists them; t10 checks each)
# The plugin's options (emulator/hca.c lists them all), with HWAGE_HCA=on:
#   HWAGE_HCA_SAMPLE  sample=N: count 1 access in N (1)
#   HWAGE_HCA_DECAY   decay=N: guest instructions per decay period (100000000)
#   HWAGE_HCA_TRUTH   1: truth=LOG.truth, exact per-page counts the guest
#                     can snapshot and the host scores (t13, make bench).
#                     Every access then pays the full address resolution,
#                     so sampling buys no speed: off (0) unless asked for.
#                     The guest is told by hwage.truth=0|1; without truth
#                     w-hotcold's snapshot requests go unanswered
#   HWAGE_HCA_OPTS    more options, comma-separated as the plugin takes
#                     them and appended after the above (the last of a key
#                     wins): page=SIZE, lines=on|off, ifetch=off,
#                     decay_mode=move|shift, cache=SIZE, cache_ways=N;
#                     e.g. "lines=off,page=64K" or "cache=1M" (memory-side
#                     counting).
#                     table=, ram=, truth= and serial= are the harness's
#                     (serial=on with HWAGE_ICOUNT).
# The plugin prints the options it runs with into the log ("hca: table=...").
set -u
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 ARCH test|demo|bench|shell [-- qemu args]"
arch=$1
MODE=$2
shift 2
[ "${1:-}" = "--" ] && shift
hca=${HWAGE_HCA:-off}
name=guest-$arch-$MODE$([ "$hca" = off ] || echo "-hca-$hca")

log=
if [ "$MODE" != shell ]; then
	log=${HWAGE_LOG:-$HWAGE_LOGS/$name-$(date +%Y%m%d-%H%M%S).log}
	mkdir -p "$(dirname "$log")" || die "cannot create the directory of $log"
	rm -f "$log" "$log.cmd" "$log.truth" "$log".truth.* "$log.monitor" "$log.ended"
	: >"$log" || die "cannot write $log"
	# the latest boot's log, relative when it is in $HWAGE_LOGS
	if [ "$(cd "$(dirname "$log")" && pwd)" = "$(cd "$HWAGE_LOGS" && pwd)" ]; then
		[ "$(basename "$log")" = "$name.log" ] ||
			ln -sfn "$(basename "$log")" "$HWAGE_LOGS/$name.log"
	else
		ln -sfn "$log" "$HWAGE_LOGS/$name.log"
	fi
fi

# not_started CAUSE [DETAIL]: the boot cannot start; say why in the log
# (its first line, which the scorer reports) and on stderr, and stop.
not_started() {
	if [ -n "$log" ]; then
		echo "hwage-host: boot did not start: $1" >>"$log"
		[ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/    /' >>"$log"
	fi
	[ -z "${2:-}" ] || printf '%s\n' "$2" >&2
	die "$1${log:+ (log: $log)}"
}

[ -f "$HWAGE_TOP/targets/$arch.conf" ] ||
	not_started "unknown ARCH '$arch' (targets: $(cd "$HWAGE_TOP/targets" && ls *.conf | sed 's/\.conf//' | tr '\n' ' '))"
load_target "$arch"
# bytes SIZE MIN: SIZE as -m takes it (512M, 4G) in bytes, if it is at
# least MIN bytes; else nothing and status 1
bytes() {
	local b
	b=$(numfmt --from=iec "${1%B}" 2>/dev/null) && [[ "$b" =~ ^[0-9]+$ ]] && [ "$b" -ge "$2" ] &&
		echo "$b"
}
if [ -n "${HWAGE_GUEST_MEM:-}" ]; then
	mem_bytes=$(bytes "$HWAGE_GUEST_MEM" $((256 << 20))) ||
		not_started "HWAGE_GUEST_MEM=$HWAGE_GUEST_MEM: want a size of at least 256M, e.g. 4G"
	[ "$arch" != x86_64 ] || [ "${HWAGE_HCA:-off}" = off ] || [ "$mem_bytes" -le $((3 << 30)) ] ||
		not_started "HWAGE_GUEST_MEM=$HWAGE_GUEST_MEM: x86_64 with the counter engine takes at most 3G (RAM above 3 GiB sits above 4 GiB, beyond the table)"
	GUEST_MEM=$HWAGE_GUEST_MEM
fi
mem_bytes=$(bytes "$GUEST_MEM" 1) || not_started "GUEST_MEM=$GUEST_MEM of targets/$arch.conf is not a size"
case "$MODE" in test|demo|bench|shell) ;; *) not_started "unknown mode '$MODE' (test, demo, bench, shell)";; esac

kernel=$HWAGE_BUILD/$KIMAGE
initrd=$HWAGE_GUEST/initramfs.cpio
# test boots get the image with stress-ng (t21-stress); the demo and the
# benchmark keep the lighter one (harness/mkinitramfs.sh)
[ "$MODE" = test ] && initrd=$HWAGE_GUEST/initramfs-test.cpio
[ -f "$kernel" ] || not_started "no $HWAGE_KNAME kernel at $kernel (HWAGE_KERNEL=$HWAGE_KERNEL make kernel ARCH=$HWAGE_ARCH)"
[ -f "$initrd" ] || not_started "no $HWAGE_ARCH initramfs at $initrd (make initramfs ARCH=$HWAGE_ARCH)"
release=$(cat "$HWAGE_BUILD/.hwage-release" 2>/dev/null)
timeout=${HWAGE_TIMEOUT:-$BOOT_TIMEOUT}
icount=${HWAGE_ICOUNT:-off}
case "$icount" in
off) icount_args=() ;;
[0-9]|10) icount_args=(-icount "shift=$icount,sleep=off,align=off") ;;
*) not_started "HWAGE_ICOUNT=$icount: want off or a shift from 0 to 10" ;;
esac

table=/dev/shm/hwage-$HWAGE_ARCH-$$.hca
disk=$HWAGE_CACHE/disk-$HWAGE_ARCH-$$.img
# QMP, for the state of a stalled guest (a socket path is at most 107 bytes:
# not beside the log)
qmp=${TMPDIR:-/tmp}/hwage-qmp-$HWAGE_ARCH-$$.sock
trap 'rm -f "$table" "$table".* "$disk" "$qmp" ${mon:+"$mon.in" "$mon.out"}' EXIT
stall=${HWAGE_INIT_STALL:-120}
[[ "$stall" =~ ^[0-9]+$ ]] || not_started "HWAGE_INIT_STALL=$stall: want seconds (0: no check)"

# HWAGE_HOTPLUG: room for the DIMM in -m, and the monitor
mem_opt=$GUEST_MEM
hotplug_args=()
if [ -n "${HWAGE_HOTPLUG:-}" ]; then
	[ "$arch" = x86_64 ] || not_started "HWAGE_HOTPLUG is for x86_64 (pc-dimm on -M pc)"
	[ -n "$log" ] || not_started "HWAGE_HOTPLUG needs a logged boot (test, demo, bench)"
	hp_bytes=$(bytes "$HWAGE_HOTPLUG" $((128 << 20))) && [ $((hp_bytes % (128 << 20))) = 0 ] ||
		not_started "HWAGE_HOTPLUG=$HWAGE_HOTPLUG: want a multiple of 128M (a memory block), e.g. 512M"
	mem_opt="$GUEST_MEM,slots=2,maxmem=$((mem_bytes + hp_bytes))"
	mon=$log.mon
	rm -f "$mon.in" "$mon.out"
	mkfifo "$mon.in" "$mon.out" || not_started "could not make the monitor FIFOs $mon.in, $mon.out"
	hotplug_args=(-chardev "pipe,id=mon,path=$mon" -mon chardev=mon,mode=readline)
fi

# The plugin counts guest-physical pages [0, GUEST_MEM): on x86_64 -M pc,
# RAM above 3 GiB would sit above 4 GiB, beyond the table.
hca_args=(-m "$mem_opt" -machine "$QEMU_MACHINE")

# HWAGE_TIERS: two NUMA nodes, the last SIZE of the RAM on a CPU-less node 1
# that the kernel puts in a memory tier below node 0's: from ACPI HMAT on
# x86_64 (latency 3x, bandwidth a quarter of node 0's), from
# memory_tier_adistance= on ppc64le (pseries has no HMAT). Node 0's RAM
# comes first in guest-physical memory, node 1's right after it, so the
# counter table covers both.
tiers_cmdline=
if [ -n "${HWAGE_TIERS:-}" ]; then
	[ -z "${HWAGE_HOTPLUG:-}" ] || not_started "HWAGE_TIERS and HWAGE_HOTPLUG do not go together"
	slow=$(bytes "$HWAGE_TIERS" $((128 << 20))) && [ $((slow % (128 << 20))) = 0 ] &&
		[ "$slow" -lt "$mem_bytes" ] ||
		not_started "HWAGE_TIERS=$HWAGE_TIERS: want a multiple of 128M below the guest's RAM ($GUEST_MEM)"
	# every vCPU on node 0: -smp as QEMU takes it, the last one given
	smp=$(grep -o -- '-smp [0-9]*' <<<"$QEMU_ARGS ${HWAGE_QEMU_ARGS:-} $*" | tail -n 1 | awk '{ print $2 }')
	hca_args+=(-object "memory-backend-ram,id=tier0,size=$((mem_bytes - slow))"
		-object "memory-backend-ram,id=tier1,size=$slow"
		-numa "node,nodeid=0,cpus=0-$((${smp:-1} - 1)),memdev=tier0")
	if [ "$arch" = x86_64 ]; then
		hca_args+=(-machine hmat=on -numa "node,nodeid=1,memdev=tier1,initiator=0")
		# target latency (ns) bandwidth
		while read -r tgt lat bw; do
			hca_args+=(-numa "hmat-lb,initiator=0,target=$tgt,hierarchy=memory,data-type=access-latency,latency=$lat"
				-numa "hmat-lb,initiator=0,target=$tgt,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bw")
		done <<-EOF
			0 100 20G
			1 300 5G
		EOF
	else
		hca_args+=(-numa "node,nodeid=1,memdev=tier1")
		# DRAM is 576, a tier spans 128 (include/linux/memory-tiers.h)
		tiers_cmdline="memory_tier_adistance=1:1024"
	fi
fi
# first_last TEXT: its first 12 lines (the first error), and its last 2
# (make's verdict) when it is longer.
first_last() {
	local n
	n=$(wc -l <<<"$1")
	head -n 12 <<<"$1"
	[ "$n" -le 14 ] || printf '... (%d lines)\n%s\n' "$((n - 14))" "$(tail -n 2 <<<"$1")"
}
emulator() {
	local out
	# one build at a time: make bench boots guests in parallel, and two
	# makes extracting the table header at once trip over each other
	out=$(flock "$HWAGE_CACHE/emulator.lock" make -s -C "$HWAGE_TOP/emulator" HWAGE_CACHE="$HWAGE_CACHE" all 2>&1) ||
		not_started "the counter plugin did not build (make -C emulator HWAGE_CACHE=$HWAGE_CACHE)" \
			"$(first_last "$out")"
	# warnings of a build that worked
	[ -z "$out" ] || printf '%s\n' "$out" >&2
}
# The plugin's options: the harness's, then HWAGE_HCA_OPTS's.
plugin_opts() {
	local o opts_extra opts=sample=${HWAGE_HCA_SAMPLE:-1},decay=${HWAGE_HCA_DECAY:-100000000}
	# -icount runs the vCPUs one at a time in one thread: the plugin must
	# know (emulator/hca.c, serial=)
	[ "$icount" = off ] || opts+=,serial=on
	case "${HWAGE_HCA_TRUTH:-0}" in
	1) opts+=,truth=$log.truth ;;
	0) ;;
	*) not_started "HWAGE_HCA_TRUTH=${HWAGE_HCA_TRUTH}: want 0 or 1" ;;
	esac
	opts_extra=${HWAGE_HCA_OPTS:-}
	for o in ${opts_extra//,/ }; do
		case "$o" in
		table=*|ram=*|truth=*|serial=*)
			not_started "HWAGE_HCA_OPTS: ${o%%=*}= is set by the harness (HWAGE_HCA_TRUTH=1 for truth=, HWAGE_ICOUNT for serial=)" ;;
		[a-z]*=*) opts+=,$o ;;
		*) not_started "HWAGE_HCA_OPTS: '$o' is not key=value" ;;
		esac
	done
	echo "$opts"
}
# ivshmem_args SIZE [FILE ID]: show the table file (or FILE) to the guest.
ivshmem_args() {
	hca_args+=(-object "memory-backend-file,id=${3:-hca},share=on,mem-path=${2:-$table},size=$1"
		-device "ivshmem-plain,memdev=${3:-hca}")
}
# HWAGE_HCA=badtable: hca-size -w's header changes (-s FIELD=VALUE) of each
# lying table, in the order of the devices after the all-zero one
BADTABLES=(
	entries_offset=0x10000000000	# far beyond the BAR
	entries_offset=4104		# not a multiple of the entry size
	nr_pages=0x1000000000000000	# nr_pages * 16 overflows 64 bits
	table_size=0x10000000000	# more than the BAR holds
	header_size=64
	flags=0x80			# a flag this ABI version does not know
	version=2
)
case "$hca" in
off) ;;
on|chaos)
	opts=$(plugin_opts) || exit 1
	emulator
	# the table has one entry per page of the plugin's page= size
	page=$(tr ',' '\n' <<<"$opts" | sed -n 's/^page=//p' | tail -n 1)
	size=$("$HWAGE_CACHE/emulator/hca-size" "$GUEST_MEM" ${page:+"$page"}) ||
		not_started "hca-size $GUEST_MEM ${page:-} failed"
	ivshmem_args "$size"
	hca_args+=(-plugin "$HWAGE_CACHE/emulator/libhca.so,table=$table,ram=$GUEST_MEM,$opts" -d plugin)
	;;
badsize)
	# a well-formed table for a quarter of the RAM, no plugin behind it
	emulator
	size=$("$HWAGE_CACHE/emulator/hca-size" -w "$table" "$((mem_bytes / 4))") ||
		not_started "could not write a table to $table (hca-size -w)"
	ivshmem_args "$size"
	;;
badmagic)
	truncate -s 8M "$table"
	ivshmem_args 8M
	;;
badtable)
	emulator
	truncate -s 8M "$table.zero"
	ivshmem_args 8M "$table.zero" zero
	i=0
	for set in "${BADTABLES[@]}" "" ""; do
		i=$((i + 1))
		size=$("$HWAGE_CACHE/emulator/hca-size" -w "$table.$i" ${set:+-s "$set"} "$GUEST_MEM") ||
			not_started "could not write a table to $table.$i (hca-size -w ${set:+-s $set} $GUEST_MEM)"
		ivshmem_args "$size" "$table.$i" "hca$i"
	done
	;;
*) not_started "unknown HWAGE_HCA=$hca (off, on, chaos, badmagic, badsize, badtable)" ;;
esac

disk_args=()
if [ -n "${HWAGE_DISK:-}" ]; then
	disk_bytes=$(bytes "$HWAGE_DISK" $((64 << 20))) ||
		not_started "HWAGE_DISK=$HWAGE_DISK: want a size of at least 64M, e.g. 1G"
	out=$(truncate -s "$disk_bytes" "$disk" && mkfs.ext4 -q -F -L hwage "$disk" 2>&1) ||
		not_started "could not make the ext4 disk $disk (mkfs.ext4)" "$out"
	disk_args=(-drive "file=$disk,format=raw,if=none,id=disk,cache=unsafe"
		-device virtio-blk-pci,drive=disk)
fi

# hwage.truth=1 tells the guest that its ground-truth snapshot requests
# will be answered (HWAGE_HCA_TRUTH=1 with the plugin)
truth=0
[ "$hca" = on ] && [ "${HWAGE_HCA_TRUTH:-0}" = 1 ] && truth=1
# The debug and KASAN kernels (HWAGE_KERNEL, configs/debug.config) panic on
# any warning, so that a lockdep or VM report fails the boot; KASAN on
# ppc64le needs the radix MMU (the hash MMU is the kernel's default here).
kdebug=
case "$HWAGE_KERNEL" in
debug) kdebug="panic_on_warn=1" ;;
kasan) kdebug="panic_on_warn=1$([ "$arch" != ppc64le ] || echo " disable_radix=no")" ;;
esac
# an NMI from the host (a stalled guest, below) panics with a backtrace
[ "$arch" != x86_64 ] || kdebug+="${kdebug:+ }unknown_nmi_panic=1"
cmdline="console=$CONSOLE panic=-1 ${kdebug:+$kdebug }hwage.mode=$MODE hwage.hca=$hca hwage.truth=$truth hwage.release=$release ${tiers_cmdline:+$tiers_cmdline }${HWAGE_CMDLINE:-}"
qemu=($QEMU "${hca_args[@]}" "${disk_args[@]}" "${hotplug_args[@]}" $QEMU_ARGS -nodefaults -no-reboot -display none
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	"${icount_args[@]}" ${HWAGE_QEMU_ARGS:-} "$@")

if [ "$MODE" = shell ]; then
	info "booting $HWAGE_KNAME $release (hca=$hca, icount=$icount), interactive: Ctrl-A X quits"
	"${qemu[@]}" -serial mon:stdio
	exit
fi

[ "$stall" = 0 ] || qemu+=(-qmp "unix:$qmp,server=on,wait=off")
echo "${qemu[*]}" >"$log.cmd"
t0=$(date +%s)

# qmp_hmp COMMAND...: each monitor command's answer, through QMP
qmp_hmp() {
	python3 - "$qmp" "$@" <<-'EOF' 2>&1
	import json, socket, sys
	s = socket.socket(socket.AF_UNIX)
	s.settimeout(10)
	f = None
	try:
	    s.connect(sys.argv[1])
	    f = s.makefile("rw")
	    def ask(cmd, **args):
	        f.write(json.dumps({"execute": cmd, "arguments": args}) + "\n")
	        f.flush()
	        while True:
	            r = json.loads(f.readline())
	            if "return" in r or "error" in r:
	                return r
	    json.loads(f.readline())  # the greeting
	    ask("qmp_capabilities")
	    for c in sys.argv[2:]:
	        r = ask("human-monitor-command", **{"command-line": c})
	        print("(qemu) " + c)
	        print(r.get("return", "error: %s" % r.get("error")).rstrip())
	except (OSError, ValueError) as e:
	    print("QMP: %s" % e)
	EOF
}
# watch_init: whether init speaks within $stall seconds of the kernel
# running it; if not, the guest's state into the log, and QEMU stopped
watch_init() {
	local ran= why size i
	while sleep 2 && [ ! -e "$log.ended" ]; do
		grep -qa '^hwage-init: mode' "$log" && return
		if [ -z "$ran" ]; then
			grep -qaE '\] Run [^ ]+ as init process' "$log" && ran=$SECONDS
			continue
		fi
		[ $((SECONDS - ran)) -ge "$stall" ] || continue
		why="init stalled: the kernel ran /init ${stall}s ago and init has printed nothing"
		touch "$log.stalled"
		{
			echo "hwage-host: $why"
			echo "hwage-host: the vCPUs, from QMP:"
			qmp_hmp "info status" "info cpus" "info registers -a" | sed 's/^/hwage-qmp: /'
			echo "hwage-host: sending an NMI: the kernel prints where its CPUs were"
		} >>"$log"
		# an NMI on every vCPU: ppc64le takes it as a system reset, x86_64
		# as an unknown NMI (booted with unknown_nmi_panic=1); both print the
		# interrupted context and panic
		qmp_hmp nmi >/dev/null
		# what the kernel prints: 5 s, then until the log stops growing
		# for 2 s (20 s at most)
		sleep 5
		size=-1
		for i in $(seq 8); do
			[ "$(stat -c %s "$log")" != "$size" ] || break
			size=$(stat -c %s "$log")
			sleep 2
		done
		echo "hwage-host: stopping QEMU ($why)" >>"$log"
		qmp_hmp quit >/dev/null
		for i in $(seq 20); do
			[ -e "$log.ended" ] && return
			sleep 0.5
		done
		# a vCPU stuck in QEMU can keep it from quitting
		pkill -KILL -f -- "unix:$qmp," 2>/dev/null
		return
	done
}
# Show progress (init's lines and top-level results) while logging it all.
progress() {
	local l t
	while IFS= read -r l; do
		t=$(awk -v a="$EPOCHREALTIME" -v b="$t0r" 'BEGIN { printf "%6.1f", a - b }')
		printf '[%s %ss] %s\n' "$HWAGE_ARCH" "$t" "${l%$'\r'}"
	done
}
# HWAGE_HCA=chaos: the table corrupted while the guest runs (it waits for
# the plugin to set the table up); stopped when QEMU ends
chaos=
if [ "$hca" = chaos ]; then
	"$HWAGE_CACHE/emulator/hca-chaos" "$table" >"$log.chaos" 2>&1 &
	chaos=$!
fi
# HWAGE_HOTPLUG: the monitor's answers to LOG.monitor; the DIMM plugged
# when the guest asks for it
hotplug=
if [ -n "${HWAGE_HOTPLUG:-}" ]; then
	cat "$mon.out" >"$log.monitor" 2>&1 &
	monreader=$!
	(
		while [ ! -e "$log.ended" ]; do
			if grep -aq 'hwage-hotplug: plug' "$log"; then
				cmds=("object_add memory-backend-ram,id=hwage-hp,size=$hp_bytes"
					"device_add pc-dimm,id=hwage-dimm,memdev=hwage-hp" "info memory-devices")
				printf 'hwage-host: plugging a pc-dimm of %s: %s\n' "$HWAGE_HOTPLUG" \
					"$(printf '%s; ' "${cmds[@]}")" >>"$log.monitor"
				printf '%s\n' "${cmds[@]}" | timeout 10 tee "$mon.in" >/dev/null
				break
			fi
			sleep 1
		done
	) &
	hotplug=$!
fi
rm -f "$log.stalled" "$log.ended"
watcher=
if [ "$stall" != 0 ]; then
	watch_init &
	watcher=$!
fi
t0r=$EPOCHREALTIME
timeout -k 10 "$timeout" "${qemu[@]}" -chardev stdio,id=con,signal=off -serial chardev:con \
	</dev/null 2>&1 | tee -a "$log" |
	if [ "$MODE" = test ]; then
		grep --line-buffered -aE '^(hwage-init|(not )?ok [0-9]+ t[0-9][0-9])|Kernel panic' | progress
	else
		sed -u -n '/^hwage-init: mode/,$p' | progress
	fi
rc=${PIPESTATUS[0]}
secs=$(($(date +%s) - t0))
touch "$log.ended"
if [ -n "$watcher" ]; then
	kill "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
fi
if [ -n "$chaos" ]; then
	kill -TERM "$chaos" 2>/dev/null
	wait "$chaos"
	sed 's/^/hwage-/' "$log.chaos" | tee -a "$log"
	rm -f "$log.chaos"
fi
if [ -n "$hotplug" ]; then
	wait "$hotplug"
	sleep 0.2
	kill "$monreader" 2>/dev/null
	wait "$monreader" 2>/dev/null
	rm -f "$mon.in" "$mon.out"
	# the monitor's answers, without its echo of the commands (readline
	# redraws each keystroke: "(qemu) o\e[K\e[Dob...")
	tr -d '\r' <"$log.monitor" | grep -av -e '^(qemu)' -e '^ *$' | sed 's/^/hwage-monitor: /' >>"$log"
fi
# how QEMU ended, when not cleanly: in the log too, for the scorer
end=
if [ -e "$log.stalled" ]; then
	rm -f "$log.stalled"
	end="init stalled: it printed nothing in ${stall}s after the kernel ran it; QEMU stopped after ${secs}s (the guest's state is in the log above)"
	rc=125
elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	end="guest timed out after ${timeout}s and was killed"
elif [ "$rc" != 0 ]; then
	end="qemu exited with status $rc after ${secs}s"
fi
if [ -n "$end" ]; then
	echo "hwage: $HWAGE_ARCH: $end; log: $log; its tail:" >&2
	tail -n 30 "$log" >&2
	echo "hwage-host: $end" >>"$log"
fi
rm -f "$log.ended"
boot=$(sed -n 's/^\[ *\([0-9.]*\)\] Run \/init.*/\1/p' "$log" | head -n 1)
info "$HWAGE_KNAME guest ($MODE, hca=$hca, icount=$icount) ran ${secs}s, kernel reached init at ${boot:-?}s; log: $log"
exit "$rc"
