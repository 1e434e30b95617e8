#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the host and install what the harness needs from Debian's packages,
# only what is missing.
set -u
. "$(dirname "$0")/lib.sh"

PACKAGES="build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils
	kmod git zstd e2fsprogs python3 python3-ply python3-git dwarves
	gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
	libglib2.0-dev pkg-config linux-source-6.12 gnuplot-nox"
# QEMU comes from bookworm-backports: 10.0, whose plugin API gives
# guest-physical addresses and whose -icount runs 2 vCPUs on ppc64le
# (Debian 12's 7.2 hangs there).  QEMU_MIN is the oldest version accepted.
QEMU_PACKAGES="qemu-system-x86 qemu-system-ppc"
QEMU_MIN=10.0
BACKPORTS=/etc/apt/sources.list.d/hwage-bookworm-backports.sources
NEED_GB=12

check_host() {
	local id ver avail_kb
	id=$(. /etc/os-release 2>/dev/null && echo "${ID:-}")
	ver=$(. /etc/os-release 2>/dev/null && echo "${VERSION_ID:-}")
	[ "$id" = debian ] && [ "$ver" = 12 ] ||
		die "this host is '${id:-unknown} ${ver:-}', hwage needs Debian 12 (bookworm)"
	avail_kb=$(df -Pk "$HWAGE_CACHE" | awk 'NR == 2 { print $4 }')
	[ "$avail_kb" -ge $((NEED_GB * 1024 * 1024)) ] ||
		die "only $((avail_kb / 1024 / 1024)) GiB free under $HWAGE_CACHE; hwage needs ${NEED_GB} GiB (set HWAGE_CACHE to elsewhere)"
}

missing_packages() {
	local p
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

# Whether the installed QEMU packages are all at QEMU_MIN or later.
qemu_current() {
	local p v
	for p in $QEMU_PACKAGES; do
		v=$(dpkg-query -W -f='${Status} ${Version}\n' "$p" 2>/dev/null |
			sed -n 's/^install ok installed \(.*\)$/\1/p')
		[ -n "$v" ] && dpkg --compare-versions "${v#*:}" ge "$QEMU_MIN" || return 1
	done
}

# Debian's bookworm-backports suite, for QEMU only (backports are pinned
# below everything else by Debian's own release file: nothing else moves).
backports_sources() {
	grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ &&
		return 0
	info "enabling Debian's bookworm-backports suite in $BACKPORTS (for QEMU $QEMU_MIN)"
	$sudo tee "$BACKPORTS" >/dev/null <<-EOF2 || die "cannot write $BACKPORTS"
	Types: deb
	URIs: http://deb.debian.org/debian
	Suites: bookworm-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF2
}

install_missing() {
	local missing qemu= sudo=
	missing=$(missing_packages | tr '\n' ' ')
	qemu_current || qemu=$QEMU_PACKAGES
	[ -n "$missing$qemu" ] || return 0
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null ||
			die "missing packages ($missing$qemu) and not root"
		sudo="sudo"
	fi
	[ -z "$qemu" ] || backports_sources
	info "installing: $missing${qemu:+ $qemu (from bookworm-backports)}"
	# a mirror in the middle of a sync fails an update now and then: once
	# more, then the install tries with the lists there are (and says why
	# if they do not have what it needs)
	logged "$HWAGE_LOGS/apt-update.log" $sudo apt-get update ||
		{ sleep 10; logged "$HWAGE_LOGS/apt-update.log" $sudo apt-get update; } ||
		info "warning: apt-get update failed twice (see $HWAGE_LOGS/apt-update.log); installing from the lists there are"
	if [ -n "$missing" ]; then
		logged "$HWAGE_LOGS/apt-install.log" $sudo env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends $missing ||
			die "apt-get install failed (see $HWAGE_LOGS/apt-install.log)"
	fi
	if [ -n "$qemu" ]; then
		logged "$HWAGE_LOGS/apt-install-qemu.log" $sudo env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends -t bookworm-backports $qemu ||
			die "apt-get install -t bookworm-backports $qemu failed (see $HWAGE_LOGS/apt-install-qemu.log)"
		qemu_current || die "QEMU is still older than $QEMU_MIN after the install"
	fi
}

check_host
step "host packages" install_missing || exit 1
