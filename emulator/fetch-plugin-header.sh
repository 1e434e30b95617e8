#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fetch-plugin-header.sh OUT: put QEMU's qemu-plugin.h in OUT.
#
# No Debian binary package ships the TCG plugin header, so take it from the
# orig tarball of Debian's qemu source package, with a private apt state in
# the cache (the host's apt configuration is not touched), and check that it
# matches the installed QEMU: same upstream version, plugin API version 1.
set -eu
. "$(dirname "$0")/../harness/lib.sh"

out=$1
D=$HWAGE_CACHE/apt-src
src=$HWAGE_CACHE/qemu-src
apt_opts=(-q -o Dir::Etc::SourceList="$D/sources.list"
	-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$D/lists"
	-o Dir::Cache="$D/cache" -o Debug::NoLocking=1)

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is not installed"
qver=$(qemu-system-x86_64 --version | sed -n '1s/^QEMU emulator version \([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$qver" ] || die "cannot tell the installed QEMU's version"

mkdir -p "$D/lists/partial" "$D/cache/archives/partial" "$src" "$out"
cat >"$D/sources.list.new" <<EOF2
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian-security bookworm-security main
EOF2
mv "$D/sources.list.new" "$D/sources.list"

tarball=$(ls "$src"/qemu_"$qver"*.orig.tar.* 2>/dev/null | head -n 1 || true)
if [ -z "$tarball" ]; then
	info "fetching the qemu source package (for qemu-plugin.h) into $src"
	fetch() {
		(cd "$src" && logged "$HWAGE_LOGS/apt-src-qemu.log" \
			apt-get "${apt_opts[@]}" source --download-only qemu)
	}
	# Reuse the package lists if there are any; refresh them if stale.
	if ! { ls "$D"/lists/*Sources* >/dev/null 2>&1 && fetch; }; then
		logged "$HWAGE_LOGS/apt-src-update.log" apt-get "${apt_opts[@]}" update ||
			die "apt-get update (deb-src) failed"
		fetch || die "apt-get source qemu failed"
	fi
	tarball=$(ls "$src"/qemu_"$qver"*.orig.tar.* 2>/dev/null | head -n 1 || true)
	[ -n "$tarball" ] || die "no qemu $qver orig tarball in $src (installed QEMU is $qver)"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xaf "$tarball" -C "$tmp" --wildcards '*/include/qemu/qemu-plugin.h'
hdr=$(echo "$tmp"/*/include/qemu/qemu-plugin.h)
[ -f "$hdr" ] || die "no include/qemu/qemu-plugin.h in $tarball"
grep -q '^#define QEMU_PLUGIN_VERSION 1$' "$hdr" ||
	die "$tarball: plugin API is not version 1"
cp "$hdr" "$out/qemu-plugin.h.new"
mv "$out/qemu-plugin.h.new" "$out/qemu-plugin.h"
info "qemu-plugin.h (QEMU $qver, API v1) in $out"
