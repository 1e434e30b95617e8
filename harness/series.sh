#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The one reader of patches/series: one patch file name per line, applied
# in order; '#' starts a comment, blank lines are ignored. Source it for
# the functions, or run it:
#
#   series_patches             the patch file names, in order
#   series_check               every listed patch exists, or say which not
#   series_extract PATH OUT    write to OUT the file PATH, one the series
#                              creates, as the series leaves it (the parts
#                              of the patches that touch PATH, applied in
#                              order to an empty directory: no kernel tree
#                              needed)
#
#   bash harness/series.sh list | check | extract PATH OUT
#
# SERIES_DIR is the patches/ folder next to this script, unless set.

SERIES_DIR=${SERIES_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../patches" && pwd)}

series_patches() {
	[ -f "$SERIES_DIR/series" ] || {
		echo "hwage: error: no series file in $SERIES_DIR" >&2
		return 1
	}
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' \
		"$SERIES_DIR/series" | grep -v '^$'
}

series_check() {
	local p list bad=0
	list=$(series_patches) || return 1
	while read -r p; do
		[ -f "$SERIES_DIR/$p" ] && continue
		echo "hwage: error: patch $p (listed in patches/series) does not exist" >&2
		bad=1
	done <<<"$list"
	return $bad
}

series_extract() {
	local path=$1 out=$2 p list tmp n=0 rc=0
	list=$(series_patches) && series_check || return 1
	mkdir -p "$(dirname "$out")" || return 1
	tmp=$(mktemp -d "$(dirname "$out")/.series-extract.XXXXXX") || return 1
	while read -r p; do
		grep -qxF -e "+++ b/$path" -e "--- a/$path" "$SERIES_DIR/$p" || continue
		n=$((n + 1))
		# Outside any repository (git would otherwise take the paths
		# as relative to an enclosing one and skip them), and only PATH.
		if ! (cd "$tmp" && unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE &&
		      GIT_CEILING_DIRECTORIES=$(dirname "$tmp") \
		      git apply --include="$path" "$SERIES_DIR/$p"); then
			echo "hwage: error: $p: its part of $path does not apply" >&2
			rc=1
			break
		fi
	done <<<"$list"
	if [ $rc = 0 ] && [ $n = 0 ]; then
		echo "hwage: error: no patch in patches/series touches $path" >&2
		rc=1
	elif [ $rc = 0 ] && [ ! -f "$tmp/$path" ]; then
		echo "hwage: error: patches/series deletes $path" >&2
		rc=1
	fi
	[ $rc = 0 ] && mv "$tmp/$path" "$out"
	rm -rf "$tmp"
	return $rc
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	case "${1:-} $#" in
	"list 1") series_patches ;;
	"check 1") series_check ;;
	"extract 3") series_extract "$2" "$3" ;;
	*)
		echo "usage: $0 list | check | extract PATH OUT" >&2
		exit 2
		;;
	esac
fi
