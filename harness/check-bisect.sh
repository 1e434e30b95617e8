#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-bisect: every patch of patches/series, applied in order,
# compiles. For each patch, in a worktree of the cache's kernel tree at
# that patch, the objects the patch can affect are compiled in three
# configurations: x86_64 with CONFIG_LRU_GEN_PAGE_AGING=y, x86_64 with it
# off, ppc64le with it on (each the debug kernel's configuration, which
# make test builds first). The objects: those of the .c files the patch
# touches, and, when it touches a header or a Kconfig, every object of mm/
# and drivers/misc/ whose source uses the multi-gen LRU or the series'
# interfaces (vmscan, workingset, memcontrol, rmap, ...). A
# warning or an error fails the patch. Only objects the configuration
# builds are compiled (those the debug kernel has). Linking is not checked
# per patch: make test links and boots the whole series.
#
# HWAGE_BISECT_CONFIGS limits the configurations (default
# "x86_64-on x86_64-off ppc64le-on"). Logs: $HWAGE_LOGS/bisect-*.log.
set -u
. "$(dirname "$0")/lib.sh"

CONFIGS=${HWAGE_BISECT_CONFIGS:-x86_64-on x86_64-off ppc64le-on}
WT=$HWAGE_CACHE/bisect/src
base=$(git -C "$HWAGE_SRC" rev-parse hwage-base 2>/dev/null) ||
	die "no hwage-base in $HWAGE_SRC (make tree first)"
mapfile -t commits < <(git -C "$HWAGE_SRC" rev-list --reverse "$base..HEAD")
[ "${#commits[@]}" -gt 0 ] || die "no patches applied in $HWAGE_SRC (make tree first)"

# the objects of mm/ and drivers/misc/ whose source uses the multi-gen LRU
# or the series' interfaces: those a change to one of its headers can break
header_users() {
	(cd "$WT" && grep -lE 'page_aging|lru_gen|lrugen|hca_emu' mm/*.c drivers/misc/*.c 2>/dev/null) |
		sed 's/\.c$/.o/'
}

# the build directory of one configuration, configured like the debug kernel
setup_config() {
	local cfg=$1 arch=${1%-*} dir=$HWAGE_CACHE/bisect/build-$1
	local src=$HWAGE_CACHE/build-$arch-debug/.config
	[ -f "$src" ] || die "no debug kernel configuration for $arch ($src): run make test first"
	mkdir -p "$dir"
	cp "$src" "$dir/config.saved"
	[ "${cfg#*-}" = off ] &&
		sed -i -e 's/^CONFIG_LRU_GEN_PAGE_AGING=y$/# CONFIG_LRU_GEN_PAGE_AGING is not set/' "$dir/config.saved"
	echo "$dir"
}

# compile OBJS at the worktree's commit in configuration CFG; warnings fail
compile() {
	local cfg=$1 arch=${1%-*} dir=$HWAGE_CACHE/bisect/build-$1 out
	shift
	(
		load_target "$arch"
		unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
		cp "$dir/config.saved" "$dir/.config"
		kmake="make -C $WT O=$dir ARCH=$KARCH CROSS_COMPILE=$CROSS_COMPILE"
		$kmake -s olddefconfig >/dev/null 2>&1 || { echo "olddefconfig failed"; exit 1; }
		if [ "${cfg#*-}" = off ] && grep -q '^CONFIG_LRU_GEN_PAGE_AGING=y' "$dir/.config"; then
			echo "CONFIG_LRU_GEN_PAGE_AGING is still on"
			exit 1
		fi
		$kmake -j"$HWAGE_JOBS" "$@" 2>&1
	) >"$HWAGE_LOGS/bisect-$cfg.log" 2>&1
	local rc=$?
	out=$(grep -E 'warning:|error:|Error [0-9]|failed|still on' "$HWAGE_LOGS/bisect-$cfg.log")
	[ $rc -eq 0 ] && [ -z "$out" ] && return 0
	echo "$out" | head -5 | sed 's/^/      /'
	return 1
}

mkdir -p "$HWAGE_CACHE/bisect"
if [ ! -d "$WT/.git" ] && [ ! -f "$WT/.git" ]; then
	git -C "$HWAGE_SRC" worktree prune
	git -C "$HWAGE_SRC" worktree add -q --detach "$WT" "${commits[0]}" ||
		die "could not add a worktree at $WT"
fi
for cfg in $CONFIGS; do
	case "$cfg" in x86_64-on|x86_64-off|ppc64le-on|ppc64le-off) ;; *) die "HWAGE_BISECT_CONFIGS: unknown '$cfg'" ;; esac
	setup_config "$cfg" >/dev/null
done

n=0
bad=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	subject=$(git -C "$HWAGE_SRC" log -1 --format=%s "$c")
	git -C "$WT" checkout -q --detach "$c" || die "could not check out $c in $WT"
	changed=$(git -C "$WT" diff --name-only "$c^" "$c")
	objs=$(grep -E '^(mm|drivers/misc)/[^/]*\.c$' <<<"$changed" | sed 's/\.c$/.o/')
	if grep -qE '(\.h|Kconfig)$' <<<"$changed"; then
		objs="$objs $(header_users)"
	fi
	objs=$(tr ' ' '\n' <<<"$objs" | sed '/^$/d' | sort -u | tr '\n' ' ')
	if [ -z "$objs" ]; then
		printf 'ok   %02d %s (no objects: %s)\n' "$n" "$subject" "$(tr '\n' ' ' <<<"$changed")"
		continue
	fi
	ok=1
	results=
	for cfg in $CONFIGS; do
		# only the objects the configuration builds: those of the debug
		# kernel (the final series), less the engine and the driver when
		# the option is off
		o=
		for f in $objs; do
			[ -f "$HWAGE_CACHE/build-${cfg%-*}-debug/$f" ] || continue
			[ "${cfg#*-}" = off ] && [[ $f =~ ^(mm/page_aging|drivers/misc/hca-emu)\.o$ ]] && continue
			o="$o $f"
		done
		[ -n "$o" ] || { results="$results $cfg:none"; continue; }
		nobj=$(wc -w <<<"$o")
		if compile "$cfg" $o; then
			results="$results $cfg:$nobj"
		else
			results="$results $cfg:FAILED"
			ok=0
		fi
	done
	if [ $ok = 1 ]; then
		printf 'ok   %02d %s (objects compiled:%s)\n' "$n" "$subject" "$results"
	else
		printf 'FAIL %02d %s (%s)\n' "$n" "$subject" "$results"
		bad=$((bad + 1))
	fi
done
echo "check-bisect: $n patches, $bad failed"
[ "$bad" = 0 ]
