#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-series: scripts/checkpatch.pl --strict over every patch in
# patches/series. Any error or warning fails.
set -u
. "$(dirname "$0")/lib.sh"
. "$HWAGE_TOP/harness/series.sh"

patches=$(series_patches) && series_check || die "patches/series is not usable"

n=0
bad=0
while read -r p; do
	n=$((n + 1))
	case "$p" in *cover-letter*) continue;; esac
	out=$(cd "$HWAGE_SRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --quiet "$HWAGE_TOP/patches/$p" 2>&1)
	if [ -n "$out" ]; then
		echo "$p:"
		echo "$out" | sed 's/^/  /'
		bad=$((bad + 1))
	else
		echo "ok  $p"
	fi
done <<<"$patches"
echo "check-series: $n patches, $bad with checkpatch reports"
[ "$bad" = 0 ]
