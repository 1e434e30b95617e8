#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the static guest programs for ARCH and pack them into an initramfs
# (initramfs.cpio; initramfs-test.cpio, for test boots, also has stress-ng):
#   /init, /tests/* (guest/tests, run in name order by init), /demo/run and
#   /bench/run (guest/runners), the workloads w-* in /bin
#   (guest/workloads), and whatever harness/guest-debs.sh unpacked for this
#   target (busybox, memcached, stress-ng and their shared libraries);
#   the test image also has /kselftest, once make kselftest has built the
#   kernel's selftests (HWAGE_KSELFTESTS=1: harness/kselftest-build.sh; make
#   test does not, which saves it a minute a target): those programs,
#   guest/kselftest/list and the unpatched kernel's results
#   guest/kselftest/expect-ARCH (t22-kselftest, which skips without them).
set -u
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: $0 ARCH"
load_target "$1"
command -v "$GUEST_CC" >/dev/null || die "$GUEST_CC not found (run harness/setup.sh)"
# one build of a target's image at a time (make kselftest and make test
# side by side would pack the same root at once)
mkdir -p "$HWAGE_GUEST"
exec 9>"$HWAGE_GUEST/.lock"
flock 9

BIN=$HWAGE_GUEST/out
ROOT=$HWAGE_GUEST/root

# memcached and the libraries it loads: readelf -d of Debian 12's
# memcached (amd64 and ppc64el alike) needs libevent-2.1.so.7,
# libsasl2.so.2, libssl.so.3, libcrypto.so.3 and libc.so.6 (none of those
# needs more than libc); glibc loads libgcc_s.so.1 when a thread exits.
# The packages' other Depends (libsasl2-modules-db and libdb5.3 for SASL,
# which we don't turn on, libzstd1, adduser, perl, lsb-base) are not
# loaded, so they stay out of the image.
MEMCACHED_DEBS="memcached libevent-2.1-7 libsasl2-2 libssl3 libc6 libgcc-s1"

# Unpacked files the guest never uses, left out of the image (and
# libraries no program needs, see prune_libs).
# usr/share is docs, manuals, lintian overrides and memcached's scripts.
PRUNE="usr/share usr/include usr/lib/*/gconv usr/lib/*/engines-3
	usr/lib/*/ossl-modules usr/lib/tmpfiles.d lib/systemd etc/init.d
	etc/default etc/ld.so.conf.d .hwage-debs"

build() {
	make -C "$HWAGE_TOP/guest" CC="$GUEST_CC" OUT="$BIN"
}

# loader BINARY: make sure the guest root has the dynamic loader the
# binary asks for (PT_INTERP), as a link into the multiarch lib folder
# (libc6 ships it: lib64/ld64.so.2 on ppc64el, lib64/ld-linux-x86-64.so.2
# on amd64).
loader() {
	local interp real
	interp=$(readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
	[ -n "$interp" ] || { echo "hwage: no PT_INTERP in $1" >&2; return 1; }
	[ -L "$ROOT$interp" ] || [ -e "$ROOT$interp" ] && return 0
	real=$(cd "$ROOT" && ls lib/*-linux-gnu/"${interp##*/}" 2>/dev/null | head -n 1)
	[ -n "$real" ] || { echo "hwage: no ${interp##*/} in the unpacked libc6" >&2; return 1; }
	mkdir -p "$ROOT${interp%/*}" && ln -s "/$real" "$ROOT$interp"
}

# prune_libs: in the guest root, keep only the shared libraries that its
# dynamic programs load (the DT_NEEDED closure, plus libgcc_s.so.1, which
# glibc dlopens when a thread exits); fail if one of those is missing.
prune_libs() {
	local f so lib queue=() missing=()
	declare -A keep=([libgcc_s.so.1]=1)
	needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
	for f in usr/bin/* usr/sbin/* bin/* sbin/*; do
		[ -f "$f" ] && [ ! -L "$f" ] && queue+=($(needed "$f"))
	done
	while [ ${#queue[@]} -gt 0 ]; do
		so=${queue[0]}
		queue=("${queue[@]:1}")
		[ -n "${keep[$so]:-}" ] && continue
		keep[$so]=1
		lib=$(ls lib/*-linux-gnu/"$so" usr/lib/*-linux-gnu/"$so" 2>/dev/null | head -n 1)
		[ -n "$lib" ] || { missing+=("$so"); continue; }
		[ -L "$lib" ] && keep[$(basename "$(readlink "$lib")")]=1
		queue+=($(needed "$lib"))
	done
	[ ${#missing[@]} -eq 0 ] || { echo "hwage: guest libraries missing: ${missing[*]}" >&2; return 1; }
	for f in lib/*-linux-gnu/*.so* usr/lib/*-linux-gnu/*.so*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		[ -n "${keep[${f##*/}]:-}" ] || rm -f "$f"
	done
}

pack() {
	local src f
	rm -rf "$ROOT"
	mkdir -p "$ROOT"/{tests,demo,bench,bin,proc,sys,dev,tmp,etc,root}
	[ -d "$HWAGE_GUEST/debs" ] && cp -a "$HWAGE_GUEST/debs/." "$ROOT/"
	(cd "$ROOT" && rm -rf $PRUNE && prune_libs) || return 1
	loader "$ROOT/usr/bin/memcached" && loader "$ROOT/usr/bin/stress-ng" || return 1
	cp "$BIN/init" "$ROOT/init" && cp "$BIN/runners/demo" "$ROOT/demo/run" &&
		cp "$BIN/runners/bench" "$ROOT/bench/run" || return 1
	# only what guest/ has a source for: the binary of a test that was
	# renamed or removed stays in $BIN but must not run again
	for src in "$HWAGE_TOP"/guest/tests/t[0-9][0-9]-*.c; do
		f=$(basename "$src" .c)
		cp "$BIN/tests/$f" "$ROOT/tests/" || return 1
	done
	for src in "$HWAGE_TOP"/guest/workloads/w-*.c; do
		f=$(basename "$src" .c)
		cp "$BIN/bin/$f" "$ROOT/bin/" || return 1
	done
	[ -x "$ROOT/bin/busybox" ] && ln -sf busybox "$ROOT/bin/sh"
	echo "root:x:0:0:root:/root:/bin/sh" >"$ROOT/etc/passwd"
	# the test image, then the same without stress-ng, the kselftests and
	# the libraries only stress-ng loads (20-25 MiB of guest RAM the demo
	# and the benchmark keep for their workloads)
	rm -rf "$ROOT/kselftest"
	if [ -d "$HWAGE_GUEST/kselftest" ]; then
		cp -a "$HWAGE_GUEST/kselftest" "$ROOT/kselftest" &&
			rm -f "$ROOT/kselftest/.hwage-stamp" &&
			cp "$HWAGE_TOP/guest/kselftest/list" "$ROOT/kselftest/list" || return 1
		if [ -f "$HWAGE_TOP/guest/kselftest/expect-$HWAGE_ARCH" ]; then
			cp "$HWAGE_TOP/guest/kselftest/expect-$HWAGE_ARCH" "$ROOT/kselftest/expect" || return 1
		fi
	fi
	cpio_of "$HWAGE_GUEST/initramfs-test.cpio" &&
	rm -rf "$ROOT/usr/bin/stress-ng" "$ROOT/kselftest" && (cd "$ROOT" && prune_libs) &&
	cpio_of "$HWAGE_GUEST/initramfs.cpio"
}

# cpio_of FILE: the guest root as an initramfs
cpio_of() {
	(cd "$ROOT" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) >"$1.tmp" &&
		mv "$1.tmp" "$1"
}

# busybox gives "make boot" a shell; the tests do not need it.
bash "$HWAGE_TOP/harness/guest-debs.sh" "$HWAGE_ARCH" busybox-static ||
	info "warning: no busybox for $HWAGE_ARCH, 'make boot' will have no shell"
# memcached is a workload of the tests and benchmarks: no image without it.
bash "$HWAGE_TOP/harness/guest-debs.sh" "$HWAGE_ARCH" $MEMCACHED_DEBS ||
	die "could not fetch memcached for $HWAGE_ARCH ($DEB_ARCH: $MEMCACHED_DEBS; see $HWAGE_LOGS/apt-$DEB_ARCH.log)"
# stress-ng's vm, mmap, fork and swap stressors run in t21-stress; its
# Depends bring in EGL, GBM, X11 libraries and more that it never loads,
# which prune_libs drops again.
bash "$HWAGE_TOP/harness/guest-debs.sh" "$HWAGE_ARCH" -r stress-ng ||
	die "could not fetch stress-ng for $HWAGE_ARCH (see $HWAGE_LOGS/apt-$DEB_ARCH.log)"
logged "$HWAGE_LOGS/guest-$HWAGE_ARCH.log" build || die "guest programs failed to build for $HWAGE_ARCH"
if [ "${HWAGE_KSELFTESTS:-0}" = 1 ]; then
	bash "$HWAGE_TOP/harness/kselftest-build.sh" "$HWAGE_ARCH" || exit 1
fi
pack || die "could not pack the $HWAGE_ARCH initramfs"
info "$HWAGE_ARCH initramfs: $HWAGE_GUEST/initramfs.cpio ($(du -k "$HWAGE_GUEST/initramfs.cpio" | cut -f1) KiB), for make test and stress initramfs-test.cpio ($(du -k "$HWAGE_GUEST/initramfs-test.cpio" | cut -f1) KiB, with stress-ng)"
