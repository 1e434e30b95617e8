#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the static guest programs for ARCH and pack them into an initramfs:
#   /init, /tests/* (run in name order by init), /demo/*, /bench/*, the
#   workloads w-* in /bin, and whatever
#   scripts/guest-debs.sh unpacked for this target (busybox, ...).
set -u
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: $0 ARCH"
load_target "$1"
command -v "$GUEST_CC" >/dev/null || die "$GUEST_CC not found (run scripts/setup.sh)"

BIN=$HWAGE_GUEST/bin
ROOT=$HWAGE_GUEST/root

build() {
	make -C "$HWAGE_TOP/guest" CC="$GUEST_CC" OUT="$BIN"
}

pack() {
	local f
	rm -rf "$ROOT"
	mkdir -p "$ROOT"/{tests,demo,bench,bin,proc,sys,dev,tmp,etc,root}
	[ -d "$HWAGE_GUEST/debs" ] && cp -a "$HWAGE_GUEST/debs/." "$ROOT/"
	cp "$BIN/init" "$ROOT/init"
	for f in "$BIN"/t[0-9][0-9]-*; do
		cp "$f" "$ROOT/tests/"
	done
	for f in "$BIN"/demo-*; do
		[ -e "$f" ] && cp "$f" "$ROOT/demo/${f##*/demo-}"
	done
	for f in "$BIN"/bench-*; do
		[ -e "$f" ] && cp "$f" "$ROOT/bench/${f##*/bench-}"
	done
	for f in "$BIN"/w-*; do
		[ -e "$f" ] && cp "$f" "$ROOT/bin/"
	done
	[ -x "$ROOT/bin/busybox" ] && ln -sf busybox "$ROOT/bin/sh"
	echo "root:x:0:0:root:/root:/bin/sh" >"$ROOT/etc/passwd"
	(cd "$ROOT" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) \
		>"$HWAGE_GUEST/initramfs.cpio.tmp" &&
	mv "$HWAGE_GUEST/initramfs.cpio.tmp" "$HWAGE_GUEST/initramfs.cpio"
}

# busybox gives "make boot" a shell; the tests do not need it.
bash "$HWAGE_TOP/scripts/guest-debs.sh" "$HWAGE_ARCH" busybox-static ||
	info "warning: no busybox for $HWAGE_ARCH, 'make boot' will have no shell"
logged "$HWAGE_LOGS/guest-$HWAGE_ARCH.log" build || die "guest programs failed to build for $HWAGE_ARCH"
pack || die "could not pack the $HWAGE_ARCH initramfs"
info "$HWAGE_ARCH initramfs: $HWAGE_GUEST/initramfs.cpio ($(du -k "$HWAGE_GUEST/initramfs.cpio" | cut -f1) KiB)"
