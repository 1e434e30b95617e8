#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the built kernel and initramfs of ARCH in QEMU (TCG).
#   run-guest.sh ARCH MODE [-- extra qemu args]
# MODE is test, demo or shell (see guest/init.c). shell is interactive
# (Ctrl-A X quits); the others run under a timeout with the serial log in
# $HWAGE_LOGS/guest-ARCH-MODE-*.log. Extra kernel parameters:
# HWAGE_CMDLINE; extra QEMU options: HWAGE_QEMU_ARGS or after "--".
#
# HWAGE_HCA picks the counter engine the guest gets (hwage.hca= tells it):
#   off       no counter device
#   on        the emulator plugin counts into a table exposed by ivshmem
#   badmagic  an ivshmem device whose table is all zeros (no plugin)
#   badsize   a well-formed table (emulator/hca-size -w) for a quarter of
#             the guest's RAM: too few pages, no plugin
# The plugin's options: HWAGE_HCA_SAMPLE (1), HWAGE_HCA_DECAY (instructions,
# 100000000). Its ground truth is written beside the log (.truth).
set -u
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 ARCH test|demo|bench|shell [-- qemu args]"
load_target "$1"
MODE=$2
shift 2
[ "${1:-}" = "--" ] && shift
case "$MODE" in test|demo|bench|shell) ;; *) die "unknown mode '$MODE' (test, demo, bench, shell)";; esac

kernel=$HWAGE_BUILD/$KIMAGE
initrd=$HWAGE_GUEST/initramfs.cpio
[ -f "$kernel" ] || die "no $HWAGE_ARCH kernel at $kernel (make kernel ARCH=$HWAGE_ARCH)"
[ -f "$initrd" ] || die "no $HWAGE_ARCH initramfs at $initrd (make initramfs ARCH=$HWAGE_ARCH)"
release=$(cat "$HWAGE_BUILD/.hwage-release" 2>/dev/null)
timeout=${HWAGE_TIMEOUT:-$BOOT_TIMEOUT}

hca=${HWAGE_HCA:-off}
log=$HWAGE_LOGS/guest-$HWAGE_ARCH-$MODE$([ "$hca" = off ] || echo "-hca-$hca")-$(date +%Y%m%d-%H%M%S).log
table=/dev/shm/hwage-$HWAGE_ARCH-$$.hca
trap 'rm -f "$table"' EXIT

# Main RAM is created first: the plugin sees offsets in the RAM block.
hca_args=(-object memory-backend-ram,id=ram0,size=$GUEST_MEM -m "$GUEST_MEM"
	-machine "$QEMU_MACHINE,memory-backend=ram0")
emulator() {
	make -s -C "$HWAGE_TOP/emulator" HWAGE_CACHE="$HWAGE_CACHE" all >/dev/null ||
		die "the counter plugin did not build (make -C emulator)"
}
# ivshmem_args SIZE: show the table file to the guest.
ivshmem_args() {
	hca_args+=(-object "memory-backend-file,id=hca,share=on,mem-path=$table,size=$1"
		-device ivshmem-plain,memdev=hca)
}
case "$hca" in
off) ;;
on)
	emulator
	size=$("$HWAGE_CACHE/emulator/hca-size" "$GUEST_MEM") || die "hca-size $GUEST_MEM failed"
	ivshmem_args "$size"
	hca_args+=(-plugin "$HWAGE_CACHE/emulator/libhca.so,table=$table,ram=$GUEST_MEM,sample=${HWAGE_HCA_SAMPLE:-1},decay=${HWAGE_HCA_DECAY:-100000000},truth=$log.truth"
		-d plugin)
	;;
badsize)
	# a well-formed table for a quarter of the RAM, no plugin behind it
	emulator
	size=$("$HWAGE_CACHE/emulator/hca-size" -w "$table" "$(($(numfmt --from=iec "$GUEST_MEM") / 4))") ||
		die "could not write a table to $table"
	ivshmem_args "$size"
	;;
badmagic)
	truncate -s 8M "$table"
	ivshmem_args 8M
	;;
*) die "unknown HWAGE_HCA=$hca (off, on, badmagic, badsize)" ;;
esac

cmdline="console=$CONSOLE panic=-1 hwage.mode=$MODE hwage.hca=$hca hwage.release=$release ${HWAGE_CMDLINE:-}"
qemu=($QEMU "${hca_args[@]}" $QEMU_ARGS -nodefaults -no-reboot -display none
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	${HWAGE_QEMU_ARGS:-} "$@")

if [ "$MODE" = shell ]; then
	info "booting $HWAGE_ARCH $release (hca=$hca), interactive: Ctrl-A X quits"
	"${qemu[@]}" -serial mon:stdio
	exit
fi

ln -sfn "$(basename "$log")" "$HWAGE_LOGS/guest-$HWAGE_ARCH-$MODE$([ "$hca" = off ] || echo "-hca-$hca").log"
echo "${qemu[*]}" >"$log.cmd"
t0=$(date +%s)
# Show progress (init's lines and top-level results) while logging it all.
progress() {
	local l t
	while IFS= read -r l; do
		t=$(awk -v a="$EPOCHREALTIME" -v b="$t0r" 'BEGIN { printf "%6.1f", a - b }')
		printf '[%s %ss] %s\n' "$HWAGE_ARCH" "$t" "${l%$'\r'}"
	done
}
t0r=$EPOCHREALTIME
timeout -k 10 "$timeout" "${qemu[@]}" -chardev stdio,id=con,signal=off -serial chardev:con \
	</dev/null 2>&1 | tee "$log" |
	if [ "$MODE" = test ]; then
		grep --line-buffered -aE '^(hwage-init|(not )?ok [0-9]+ t[0-9][0-9])|Kernel panic' | progress
	else
		sed -u -n '/^hwage-init: mode/,$p' | progress
	fi
rc=${PIPESTATUS[0]}
secs=$(($(date +%s) - t0))
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "hwage: $HWAGE_ARCH guest timed out after ${timeout}s; log: $log; its tail:" >&2
	tail -n 30 "$log" >&2
elif [ "$rc" != 0 ]; then
	echo "hwage: qemu exited with $rc after ${secs}s; log: $log; its tail:" >&2
	tail -n 30 "$log" >&2
fi
boot=$(sed -n 's/^\[ *\([0-9.]*\)\] Run \/init.*/\1/p' "$log" | head -n 1)
info "$HWAGE_ARCH guest ($MODE, hca=$hca) ran ${secs}s, kernel reached init at ${boot:-?}s; log: $log"
exit "$rc"
