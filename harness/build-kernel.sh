#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build the guest kernel for one target, out of tree in the
# cache. Config fragments: configs/common.config, configs/$ARCH.config, for
# the flavours HWAGE_KERNEL=debug, kasan and base configs/debug.config (and
# configs/kasan.config), then configs/$ARCH-debug.config if there is one
# (what only that target's test kernels have), and, if present,
# configs/local.config (not tracked: your own additions). Each flavour
# builds in its own directory (harness/lib.sh, load_target).
#
# HWAGE_KERNEL=base is the debug kernel without the series: built from a
# worktree of the cache's tree at the unpatched package (hwage-base,
# $HWAGE_BASE_SRC), with the fragments' lines for the options the series
# adds (its patches' "config" entries) left out; make kselftest compares
# the kernel's own selftests on it with the patched kernel.
set -u
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: $0 ARCH"
load_target "$1"
[ -d "$HWAGE_SRC/.git" ] || die "no kernel tree in $HWAGE_SRC (run harness/prepare-tree.sh)"
mkdir -p "$HWAGE_BUILD"

FRAGS="$HWAGE_TOP/configs/common.config $HWAGE_TOP/configs/$HWAGE_ARCH.config"
case "$HWAGE_KERNEL" in
debug|base) FRAGS="$FRAGS $HWAGE_TOP/configs/debug.config" ;;
kasan) FRAGS="$FRAGS $HWAGE_TOP/configs/debug.config $HWAGE_TOP/configs/kasan.config" ;;
esac
[ "$HWAGE_KERNEL" = prod ] || [ ! -f "$HWAGE_TOP/configs/$HWAGE_ARCH-debug.config" ] ||
	FRAGS="$FRAGS $HWAGE_TOP/configs/$HWAGE_ARCH-debug.config"
[ -f "$HWAGE_TOP/configs/local.config" ] && FRAGS="$FRAGS $HWAGE_TOP/configs/local.config"

if [ "$HWAGE_KERNEL" = base ]; then
	# the unpatched tree: a worktree at hwage-base, moved there again when
	# the package (and so the tag) changed
	base=$(git -C "$HWAGE_SRC" rev-parse hwage-base) || die "no hwage-base tag in $HWAGE_SRC"
	cur=$(git -C "$HWAGE_KSRC" rev-parse HEAD 2>/dev/null)
	if [ -z "$cur" ]; then
		rm -rf "$HWAGE_KSRC"
		git -C "$HWAGE_SRC" worktree prune
		git -C "$HWAGE_SRC" worktree add -q --detach "$HWAGE_KSRC" "$base" ||
			die "could not check out the unpatched tree into $HWAGE_KSRC"
	elif [ "$cur" != "$base" ]; then
		git -C "$HWAGE_KSRC" checkout -q --detach "$base" ||
			die "could not move $HWAGE_KSRC to hwage-base"
	fi
	# the fragments without the series' own options
	syms=$(sed -n 's/^+\(menu\)\{0,1\}config \([A-Z0-9_]*\)$/\2/p' "$HWAGE_TOP"/patches/*.patch |
		sort -u | paste -sd'|')
	frags=
	for f in $FRAGS; do
		grep -vE "^(# )?CONFIG_($syms)[= ]" "$f" >"$HWAGE_BUILD/base-${f##*/}"
		frags="$frags $HWAGE_BUILD/base-${f##*/}"
	done
	FRAGS=$frags
fi
KMAKE="make -C $HWAGE_KSRC O=$HWAGE_BUILD ARCH=$KARCH CROSS_COMPILE=$CROSS_COMPILE"
# Under "make kernel ARCH=ppc64le" the parent make hands ARCH=ppc64le down
# through MAKEFLAGS, which would beat the ARCH=$KARCH merge_config.sh sets
# in the environment for its own make: start the kernel's makes afresh.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
export ARCH=$KARCH CROSS_COMPILE

# check_config: every line of the fragments must hold in the final .config.
check_config() {
	local bad
	bad=$(cat $FRAGS | sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 unset/p' |
	while read -r want; do
		case "$want" in
		*" unset")
			sym=${want% unset}
			grep -q "^$sym=" "$HWAGE_BUILD/.config" && echo "  $sym should be unset"
			;;
		*)
			grep -qxF "$want" "$HWAGE_BUILD/.config" ||
				echo "  $want, got: $(grep -E "^(# )?${want%%=*}[= ]" "$HWAGE_BUILD/.config" || echo 'absent (dependency missing?)')"
			;;
		esac
	done)
	[ -z "$bad" ] && return 0
	echo "config fragments not honoured for $HWAGE_KNAME:" >&2
	echo "$bad" >&2
	return 1
}

configure() {
	(cd "$HWAGE_KSRC" && ARCH=$KARCH CROSS_COMPILE=$CROSS_COMPILE \
		scripts/kconfig/merge_config.sh -n -O "$HWAGE_BUILD" $FRAGS) &&
	check_config
}

# Reconfigure only when the fragments or the tree changed.
cstamp=$( (cat $FRAGS; git -C "$HWAGE_KSRC" rev-parse HEAD) | sha256sum | cut -c1-16)
if [ "$(cat "$HWAGE_BUILD/.hwage-config" 2>/dev/null)" != "$cstamp" ] || [ ! -f "$HWAGE_BUILD/.config" ]; then
	step "configure $HWAGE_KNAME kernel" logged "$HWAGE_LOGS/config-$HWAGE_KNAME.log" configure ||
		die "kernel configuration failed for $HWAGE_KNAME"
	echo "$cstamp" >"$HWAGE_BUILD/.hwage-config"
fi

target=$(basename "$KIMAGE")
step "build $HWAGE_KNAME kernel ($target, log: $HWAGE_LOGS/build-$HWAGE_KNAME.log)" \
	logged "$HWAGE_LOGS/build-$HWAGE_KNAME.log" $KMAKE -j"$HWAGE_JOBS" "$target" ||
	die "kernel build failed for $HWAGE_KNAME"
$KMAKE -s kernelrelease >"$HWAGE_BUILD/.hwage-release" 2>/dev/null
info "$HWAGE_KNAME kernel $(cat "$HWAGE_BUILD/.hwage-release"): $HWAGE_BUILD/$KIMAGE"
