#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check the host and install what the harness needs from Debian's packages,
# only what is missing.
set -u
. "$(dirname "$0")/lib.sh"

PACKAGES="build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils
	kmod git zstd e2fsprogs python3 python3-ply python3-git dwarves
	gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
	qemu-system-x86 qemu-system-ppc linux-source-6.12 gnuplot-nox"
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

install_missing() {
	local missing sudo=
	missing=$(missing_packages | tr '\n' ' ')
	[ -n "$missing" ] || return 0
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null || die "missing packages ($missing) and not root"
		sudo="sudo"
	fi
	info "installing: $missing"
	logged "$HWAGE_LOGS/apt-update.log" $sudo apt-get update || die "apt-get update failed"
	logged "$HWAGE_LOGS/apt-install.log" $sudo env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends $missing ||
		die "apt-get install failed"
}

check_host
step "host packages" install_missing || exit 1
