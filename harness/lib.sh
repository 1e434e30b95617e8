# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the hwage harness scripts. Source it, don't run it.

HWAGE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HWAGE_CACHE=${HWAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hwage}
HWAGE_SRC=$HWAGE_CACHE/linux		# unpacked linux-source-6.12, a git repo
HWAGE_BASE_SRC=$HWAGE_CACHE/linux-base	# its worktree without the series
HWAGE_LOGS=${HWAGE_LOGS:-$HWAGE_CACHE/logs}
HWAGE_JOBS=${HWAGE_JOBS:-$(nproc)}

case "$HWAGE_CACHE" in
"$HWAGE_TOP"|"$HWAGE_TOP"/*)
	echo "hwage: HWAGE_CACHE=$HWAGE_CACHE is inside the repository; point it elsewhere" >&2
	exit 1
	;;
esac
mkdir -p "$HWAGE_CACHE" "$HWAGE_LOGS"

die() {
	echo "hwage: error: $*" >&2
	exit 1
}

info() {
	echo "hwage: $*"
}

# step "what" cmd...: run cmd, print what it does and how long it took.
step() {
	local what=$1 t0 rc
	shift
	t0=$(date +%s)
	echo ">>> $what"
	"$@"
	rc=$?
	echo "<<< $what: $((($(date +%s) - t0)))s$([ $rc -eq 0 ] || echo ", FAILED (exit $rc)")"
	return $rc
}

# logged LOG cmd...: run cmd with output to LOG; on failure show its tail.
logged() {
	local log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		echo "---- last 40 lines of $log ----" >&2
		tail -n 40 "$log" >&2
		echo "---- full log: $log ----" >&2
		return 1
	fi
}

# Per-target settings (ARCH names as the kernel spells them).
load_target() {
	local arch=$1
	[ -f "$HWAGE_TOP/targets/$arch.conf" ] ||
		die "unknown ARCH '$arch' (targets: $(cd "$HWAGE_TOP/targets" && ls *.conf | sed 's/\.conf//' | tr '\n' ' '))"
	# shellcheck source=/dev/null
	. "$HWAGE_TOP/targets/$arch.conf"
	HWAGE_ARCH=$arch
	# the kernel flavour: prod (benchmarks, demo), debug (make test), kasan,
	# base (the debug kernel without the series, for make kselftest); the
	# tree it builds from: HWAGE_KSRC
	HWAGE_KERNEL=${HWAGE_KERNEL:-prod}
	HWAGE_KSRC=$HWAGE_SRC
	case "$HWAGE_KERNEL" in
	prod) HWAGE_BUILD=$HWAGE_CACHE/build-$arch ;;
	debug|kasan) HWAGE_BUILD=$HWAGE_CACHE/build-$arch-$HWAGE_KERNEL ;;
	base)
		HWAGE_BUILD=$HWAGE_CACHE/build-$arch-base
		HWAGE_KSRC=$HWAGE_BASE_SRC
		;;
	*) die "HWAGE_KERNEL=$HWAGE_KERNEL: want prod, debug, kasan or base" ;;
	esac
	# the build's name in logs: x86_64, x86_64-debug, ...
	HWAGE_KNAME=$arch$([ "$HWAGE_KERNEL" = prod ] || echo "-$HWAGE_KERNEL")
	HWAGE_GUEST=$HWAGE_CACHE/guest-$arch
}

# count LINE: add a "LABEL: N passed, N failed, N skipped" line to the
# caller's passed, failed, skipped and summary (a line without the
# figures counts as one failure).
count() {
	local p f s
	read -r p f s < <(sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' <<<"$1")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
	skipped=$((skipped + ${s:-0}))
	summary+=("$1")
}

# Hash of files' contents (for stamps), independent of mtimes.
content_hash() {
	cat "$@" 2>/dev/null | sha256sum | cut -c1-16
}
