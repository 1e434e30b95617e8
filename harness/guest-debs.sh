#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian packages of the guest's architecture and unpack them into
# the target's guest root overlay ($HWAGE_GUEST/debs), which mkinitramfs.sh
# copies into the initramfs. Uses a private apt state, so the host's own
# apt configuration is not touched.
#   guest-debs.sh ARCH [-r] PACKAGE...
# With -r, the packages' Depends too, recursively (apt-cache depends
# --recurse; mkinitramfs.sh keeps only the libraries a program loads).
set -u
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 ARCH [-r] PACKAGE..."
load_target "$1"
shift
recurse=
[ "$1" = -r ] && { recurse=1; shift; }
[ $# -ge 1 ] || die "usage: guest-debs.sh ARCH [-r] PACKAGE..."
APTD=$HWAGE_CACHE/apt-$DEB_ARCH
OUT=$HWAGE_GUEST/debs
mkdir -p "$APTD/lists/partial" "$APTD/cache/archives/partial" "$APTD/debs" "$OUT"
APT=(apt-get -q -o APT::Architecture="$DEB_ARCH" -o APT::Architectures="$DEB_ARCH"
	-o Dir::State::Lists="$APTD/lists" -o Dir::Cache="$APTD/cache"
	-o Dir::State::status=/dev/null -o Debug::NoLocking=1)

# Refresh the package lists at most once a day. A refresh that fails (a
# mirror in the middle of a sync says "File has unexpected size") is tried
# again once; then, if lists from an earlier refresh are there, they are
# used with a warning, since the packages they name are still served or
# already downloaded (on a new machine: the indexes of this update that did
# download, e.g. all but the security suite's while its mirror syncs);
# without any lists it is an error.
if [ -z "$(find "$APTD/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n 1)" ]; then
	if ! step "apt lists for $DEB_ARCH" logged "$HWAGE_LOGS/apt-$DEB_ARCH.log" "${APT[@]}" update &&
	   ! { sleep 10; step "apt lists for $DEB_ARCH, again" logged "$HWAGE_LOGS/apt-$DEB_ARCH.log" "${APT[@]}" update; }; then
		[ -n "$(find "$APTD/lists" -maxdepth 1 -name '*Packages*' 2>/dev/null | head -n 1)" ] ||
			die "apt-get update for $DEB_ARCH failed (see $HWAGE_LOGS/apt-$DEB_ARCH.log)"
		info "warning: apt-get update for $DEB_ARCH failed; using the package lists there are, from this update's indexes that did download or an earlier update (see $HWAGE_LOGS/apt-$DEB_ARCH.log)"
	fi
fi

if [ -n "$recurse" ]; then
	# the dependency closure, virtual packages (<...>) left out
	pkgs=$("${APT[@]/apt-get/apt-cache}" depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances "$@" 2>>"$HWAGE_LOGS/apt-$DEB_ARCH.log" |
		grep -v '^ ' | grep -v '^<' | sort -u) && [ -n "$pkgs" ] ||
		die "could not resolve the dependencies of $* for $DEB_ARCH (see $HWAGE_LOGS/apt-$DEB_ARCH.log)"
	set -- $pkgs
fi

stamp=$OUT/.hwage-debs
for p in "$@"; do
	grep -qxF "$p" "$stamp" 2>/dev/null && continue
	deb=$(ls "$APTD/debs/${p}_"*"_$DEB_ARCH.deb" "$APTD/debs/${p}_"*_all.deb 2>/dev/null | head -n 1)
	if [ -z "$deb" ]; then
		(cd "$APTD/debs" && logged "$HWAGE_LOGS/apt-$DEB_ARCH.log" "${APT[@]}" download "$p") ||
			die "could not download $p for $DEB_ARCH"
		deb=$(ls "$APTD/debs/${p}_"*.deb | head -n 1)
	fi
	dpkg-deb -x "$deb" "$OUT" || die "could not unpack $deb"
	echo "$p" >>"$stamp"
	info "guest $DEB_ARCH: $(basename "$deb")"
done
