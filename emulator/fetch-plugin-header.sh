#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fetch-plugin-header.sh OUT: put QEMU's qemu-plugin.h in OUT.
#
# No Debian binary package ships the TCG plugin header, so take it from the
# orig tarball of the source package that built the installed QEMU (the
# bookworm-backports one, see harness/setup.sh), with a private apt state in
# the cache (the host's apt configuration is not touched), and check that it
# is the plugin API this plugin is written for.
set -eu
. "$(dirname "$0")/../harness/lib.sh"

# The plugin API version hca.c is written for (QEMU 10.0 has 4).
API_MIN=4

out=$1
D=$HWAGE_CACHE/apt-src
src=$HWAGE_CACHE/qemu-src
apt_opts=(-q -o Dir::Etc::SourceList="$D/sources.list"
	-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$D/lists"
	-o Dir::Cache="$D/cache" -o Debug::NoLocking=1)

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is not installed"
# The source package and version of the installed QEMU, e.g. qemu and
# 1:10.0.2+ds-2+deb13u1~bpo12+1; its orig tarball is qemu_10.0.2+ds.orig.*.
read -r spkg sver < <(dpkg-query -W -f='${source:Package} ${source:Version}\n' \
	qemu-system-x86 2>/dev/null) || die "qemu-system-x86 is not installed"
upver=${sver#*:}
upver=${upver%-*}
[ -n "$upver" ] || die "cannot tell the installed QEMU's version ($sver)"

mkdir -p "$D/lists/partial" "$D/cache/archives/partial" "$src" "$out"
cat >"$D/sources.list.new" <<EOF2
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian-security bookworm-security main
deb-src http://deb.debian.org/debian bookworm-backports main
EOF2
mv "$D/sources.list.new" "$D/sources.list"

tarball=$(ls "$src/${spkg}_$upver".orig.tar.* 2>/dev/null | head -n 1 || true)
if [ -z "$tarball" ]; then
	info "fetching the $spkg $sver source package (for qemu-plugin.h) into $src"
	fetch() {
		(cd "$src" && logged "$HWAGE_LOGS/apt-src-qemu.log" \
			apt-get "${apt_opts[@]}" source --download-only "$spkg=$sver")
	}
	orig() { ls "$src/${spkg}_$upver".orig.tar.* 2>/dev/null | head -n 1 || true; }
	# Only the orig tarball is needed: a mirror that lacks the .dsc or the
	# Debian diff (seen for backports) fails the command but leaves it.
	# Reuse the package lists if they know this version; refresh otherwise.
	if ! { ls "$D"/lists/*Sources* >/dev/null 2>&1 && { fetch || [ -n "$(orig)" ]; }; }; then
		logged "$HWAGE_LOGS/apt-src-update.log" apt-get "${apt_opts[@]}" update ||
			die "apt-get update (deb-src) failed"
		fetch || [ -n "$(orig)" ] ||
			die "apt-get source $spkg=$sver failed (see $HWAGE_LOGS/apt-src-qemu.log)"
	fi
	tarball=$(orig)
	[ -n "$tarball" ] || die "no ${spkg}_$upver orig tarball in $src"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xaf "$tarball" -C "$tmp" --wildcards '*/include/qemu/qemu-plugin.h'
hdr=$(echo "$tmp"/*/include/qemu/qemu-plugin.h)
[ -f "$hdr" ] || die "no include/qemu/qemu-plugin.h in $tarball"
api=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\)$/\1/p' "$hdr")
[ -n "$api" ] && [ "$api" -ge "$API_MIN" ] ||
	die "$tarball: plugin API version '${api:-?}', hca.c needs $API_MIN or later (QEMU 10.0)"
cp "$hdr" "$out/qemu-plugin.h.new"
mv "$out/qemu-plugin.h.new" "$out/qemu-plugin.h"
info "qemu-plugin.h (QEMU $upver, plugin API v$api) in $out"
