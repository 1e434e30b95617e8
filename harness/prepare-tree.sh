#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-6.12 into the cache as a git repository and
# apply patches/series on top of it. The series is first turned into
# commits through a scratch index, then the work tree is moved to the last
# one: only files whose content changed are rewritten, so the kernel build
# after it stays incremental.
set -u
. "$(dirname "$0")/lib.sh"

PKG=linux-source-6.12
TARBALL=/usr/src/$PKG.tar.xz
PATCHES=$HWAGE_TOP/patches
BASE_TAG=hwage-base

g() { git -C "$HWAGE_SRC" "$@"; }

installed=$(dpkg-query -W -f='${Version}' $PKG 2>/dev/null) ||
	die "$PKG is not installed (run harness/setup.sh)"
recorded=$(awk -v p=$PKG '$1 == p { print $2 }' "$PATCHES/BASE")
if [ "$installed" != "$recorded" ]; then
	info "note: installed $PKG is $installed, the series was made against $recorded (patches/BASE); trying it anyway"
fi

unpack() {
	local tmp=$HWAGE_CACHE/unpack.tmp
	rm -rf "$tmp" "$HWAGE_SRC"
	mkdir -p "$tmp"
	tar -xJf "$TARBALL" -C "$tmp" || return 1
	mv "$tmp/$PKG" "$HWAGE_SRC" && rmdir "$tmp" || return 1
	g init -q -b hwage &&
	g config gc.auto 0 &&
	g config user.name "hwage harness" &&
	g config user.email "hwage@localhost" &&
	g add -A -f . &&
	g commit -q -m "$PKG $installed" &&
	g tag $BASE_TAG &&
	echo "$installed" >"$HWAGE_SRC/.git/hwage-version"
}

if [ "$(cat "$HWAGE_SRC/.git/hwage-version" 2>/dev/null)" != "$installed" ]; then
	step "unpack $PKG $installed into $HWAGE_SRC" \
		logged "$HWAGE_LOGS/unpack.log" unpack || die "could not unpack $TARBALL"
fi

SERIES_DIR=$PATCHES
. "$HWAGE_TOP/harness/series.sh"
patches=$(series_patches) && series_check || die "patches/series is not usable"

stamp=$( (echo "$installed"; while read -r p; do
	echo "$p"; cat "$PATCHES/$p"; done <<<"$patches") | sha256sum | cut -c1-16)
if [ "$(cat "$HWAGE_SRC/.git/hwage-series" 2>/dev/null)" = "$stamp" ] &&
   [ -z "$(g status --porcelain --untracked-files=no)" ]; then
	info "series already applied ($(wc -l <<<"$patches") patches, $(g rev-parse --short HEAD))"
	exit 0
fi

# apply_series: build one commit per patch via a scratch index; print the tip.
apply_series() {
	local idx=$HWAGE_SRC/.git/hwage-index tip p info msg
	tip=$(g rev-parse $BASE_TAG) || return 1
	rm -f "$idx"
	GIT_INDEX_FILE=$idx g read-tree "$tip" || return 1
	msg=$(mktemp)
	while read -r p; do
		if ! GIT_INDEX_FILE=$idx g apply --cached --whitespace=nowarn "$PATCHES/$p" 2>"$msg.err"; then
			echo "patch $p does not apply to $PKG $installed:" >&2
			cat "$msg.err" >&2
			rm -f "$msg" "$msg.err"
			return 1
		fi
		info=$(git mailinfo "$msg" /dev/null <"$PATCHES/$p")
		tip=$(GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' <<<"$info") \
		      GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' <<<"$info") \
		      GIT_AUTHOR_DATE=$(sed -n 's/^Date: //p' <<<"$info") \
		      g commit-tree "$(GIT_INDEX_FILE=$idx g write-tree)" -p "$tip" \
			-F <(sed -n 's/^Subject: //p' <<<"$info"; echo; cat "$msg")) || return 1
	done <<<"$patches"
	rm -f "$msg" "$msg.err" "$idx"
	echo "$tip"
}

apply() {
	local tip
	tip=$(apply_series) || return 1
	g reset -q --hard "$tip" || return 1
	echo "$stamp" >"$HWAGE_SRC/.git/hwage-series"
	info "tree at $(g rev-parse --short HEAD): $(wc -l <<<"$patches") patches on $PKG $installed"
}
step "apply patches/series" apply || die "the series does not apply (tree: $PKG $installed)"
