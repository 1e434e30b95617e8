#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build, static, the kernel selftests that guest/kselftest/list names,
# from the cache's kernel tree (tools/testing/selftests, with its own
# makefiles and the target's exported uapi headers), into
# $HWAGE_GUEST/kselftest/PROGRAM, for mkinitramfs.sh to put into the test
# image's /kselftest (t22-kselftest runs them).
#   kselftest-build.sh ARCH
# The series does not touch tools/, so the patched and the unpatched kernel
# (make kselftest) run the same programs. Rebuilt only when the list, the
# compiler, or the tree's selftests or uapi headers changed.
set -u
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: $0 ARCH"
load_target "$1"
[ -d "$HWAGE_SRC/tools/testing/selftests" ] || die "no kernel tree in $HWAGE_SRC (run harness/prepare-tree.sh)"
command -v "$GUEST_CC" >/dev/null || die "$GUEST_CC not found (run harness/setup.sh)"

LIST=$HWAGE_TOP/guest/kselftest/list
SEL=$HWAGE_SRC/tools/testing/selftests
OUT=$HWAGE_GUEST/kselftest
HDR=$HWAGE_GUEST/kselftest-hdr
progs=$(sed 's/#.*//' "$LIST" | awk 'NF { print $1 }' | sort -u)
[ -n "$progs" ] || die "$LIST names no program"

# the stamp: the list, the compiler, and the tree's selftests and uapi
# headers (git tree ids), not its HEAD: a change of the series elsewhere
# rebuilds nothing here
stamp=$( (cat "$LIST"; "$GUEST_CC" --version | head -n 1
	git -C "$HWAGE_SRC" rev-parse HEAD:tools/testing/selftests HEAD:include/uapi \
		"HEAD:arch/$KARCH/include/uapi") | sha256sum | cut -c1-16)
if [ "$(cat "$OUT/.hwage-stamp" 2>/dev/null)" = "$stamp" ]; then
	info "$HWAGE_ARCH kselftests up to date ($(wc -w <<<"$progs") programs in $OUT)"
	exit 0
fi

# headers: the tree's uapi for the target in $HDR/usr/include (make headers,
# which needs no rsync, unlike headers_install), as KHDR_INCLUDES wants
headers() {
	unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
	make -C "$HWAGE_SRC" O="$HDR" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
		headers
}

# build: each program through its directory's makefile (lib.mk), static
# (USERLDFLAGS), with the flags the suite builds with otherwise
build() {
	local p dir extra
	unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
	rm -rf "$OUT"
	for p in $progs; do
		dir=${p%/*}
		mkdir -p "$OUT/$dir" || return 1
		echo "== $p"
		extra=
		# linux-source-6.12's mm/khugepaged.c returns KSFT_SKIP without
		# including kselftest.h (a stable backport's slip): give it the
		# value kselftest.h has
		[ "$p" != mm/khugepaged ] || extra=-DKSFT_SKIP=4
		make -C "$SEL/$dir" CC="$GUEST_CC" CROSS_COMPILE="$CROSS_COMPILE" \
			OUTPUT="$OUT/$dir" KHDR_INCLUDES="-isystem $HDR/usr/include" \
			USERCFLAGS="$extra" USERLDFLAGS=-static "$OUT/$p" || return 1
		# static, or the guest (which has no libc of its own) cannot run it
		! readelf -l "$OUT/$p" | grep -q INTERP ||
			{ echo "$OUT/$p is not statically linked" >&2; return 1; }
	done
}

step "$HWAGE_ARCH uapi headers for the kselftests" \
	logged "$HWAGE_LOGS/kselftest-hdr-$HWAGE_ARCH.log" headers ||
	die "headers_install failed for $HWAGE_ARCH"
step "build $HWAGE_ARCH kselftests ($(wc -w <<<"$progs") programs, log: $HWAGE_LOGS/kselftest-$HWAGE_ARCH.log)" \
	logged "$HWAGE_LOGS/kselftest-$HWAGE_ARCH.log" build ||
	die "the kselftests did not build for $HWAGE_ARCH"
echo "$stamp" >"$OUT/.hwage-stamp"
