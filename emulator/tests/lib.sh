# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the host tests of the hca plugin (tests/*.sh)
# and for slowdown.sh.  Source it, don't run it.

. "$(dirname "${BASH_SOURCE[0]}")/../../harness/lib.sh"
EMU_SRC=$HWAGE_TOP/emulator
EMU_OUT=$HWAGE_CACHE/emulator
EMU_PLUGIN=$EMU_OUT/libhca.so
EMU_QEMU=qemu-system-x86_64
# The bare-metal guests of testguest.S: 16 MiB of RAM (guest-physical 0 to
# 16M); they exit with status 33.
EMU_RAM=16M
EMU_EXIT=33
# The ground truth of the pattern every test guest but loop and bench
# starts with (testguest.S): "pfn count" of A, B and C.
EMU_PATTERN='16 1000
32 10
48 1'

# emu_setup: what most tests start with: a directory $tmp removed at exit,
# QEMU's log in it, and the table and RAM options T and R of emu_run.
emu_setup() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	EMU_LOG=$tmp/qemu.log
	T=table=$tmp/t
	R=ram=$EMU_RAM
}

# truth_body FILE: the "pfn count" lines of a ground-truth file.
truth_body() {
	grep -v '^#' "$1" 2>/dev/null
}
EMU_QEMU_ARGS=(-nodefaults -display none -no-reboot
	-object memory-backend-ram,id=ram0,size=$EMU_RAM
	-M pc,memory-backend=ram0 -m $EMU_RAM
	-device isa-debug-exit,iobase=0xf4,iosize=1)

# emu_build: build the plugin, the size tool and the test guests.
emu_build() {
	command -v "$EMU_QEMU" >/dev/null || { echo "# $EMU_QEMU is not installed"; return 1; }
	logged "$HWAGE_LOGS/emulator-build.log" make -C "$EMU_SRC" all guests
}

# emu_run GUEST PLUGIN-OPTIONS [QEMU-ARGS...]: run a test guest with the
# plugin, stderr (plugin output included) to $EMU_LOG; returns QEMU's status
# (124 if it was stopped after EMU_TIMEOUT seconds, 60 unless set).
emu_run() {
	local guest=$1 opts=$2
	shift 2
	timeout "${EMU_TIMEOUT:-60}" "$EMU_QEMU" "${EMU_QEMU_ARGS[@]}" -bios "$EMU_OUT/guest-$guest.bin" \
		-plugin "$EMU_PLUGIN,$opts" -d plugin "$@" </dev/null >"$EMU_LOG" 2>&1
}

# emu_known_answers NAME: build tests/NAME.c against the table's header and
# run it: one case, NAME_known_answers (dashes as underscores), failing
# with what the program printed (its wrong answers).
emu_known_answers() {
	cc -std=gnu11 -Wall -Wextra -Werror -I"$EMU_OUT/uapi" -o "$tmp/$1" \
		"$EMU_SRC/tests/$1.c" >"$tmp/out" 2>&1 && "$tmp/$1" >"$tmp/out" 2>&1
	ktap_ok "${1//-/_}_known_answers" $? "$(head -n 20 "$tmp/out")"
}

# emu_u32 FILE OFFSET / emu_u64 FILE OFFSET: read a little-endian field.
emu_u32() {
	od -A n -t u4 -j "$2" -N 4 --endian=little "$1" | tr -d ' '
}
emu_u64() {
	od -A n -t u8 -j "$2" -N 8 --endian=little "$1" | tr -d ' '
}

# emu_entry FILE PFN: "count prev_count age" of entry PFN, in either
# layout: the header's flags (offset 76) say whether the entries are the
# POWER10 layout's (HCA_TABLE_FLAG_FORMAT_P10, 4), decoded here from the
# header's description: the 64-bit word's top 16 bits (IBM bits 0-15) are
# the count, 4-bit exponent e over a 12-bit mantissa m, m * 4^e; the next
# 16 (bits 16-31) the age (3 bits), the generation bit and prev_count (4-bit
# exponent over an 8-bit mantissa).
emu_entry() {
	local hi mid
	if (($(emu_u32 "$1" 76) & 4)); then
		hi=$(od -A n -t u2 -j $((4096 + 8 * $2 + 6)) -N 2 --endian=little "$1" | tr -d ' ')
		mid=$(od -A n -t u2 -j $((4096 + 8 * $2 + 4)) -N 2 --endian=little "$1" | tr -d ' ')
		echo "$(((hi & 4095) << (2 * (hi >> 12)))) $(((mid & 255) << (2 * (mid >> 8 & 15)))) $((mid >> 13))"
		return
	fi
	local off=$((4096 + 16 * $2))
	echo "$(emu_u32 "$1" $off) $(emu_u32 "$1" $((off + 4))) $(emu_u32 "$1" $((off + 8)))"
}

# emu_entries FILE FIRST N: emu_entry's lines for N entries from FIRST, read
# with one od (a loop of emu_entry forks a few processes per entry).
emu_entries() {
	local flags
	flags=$(emu_u32 "$1" 76)
	if ((flags & 4)); then
		od -A n -v -t u2 -w8 -j $((4096 + 8 * $2)) -N $((8 * $3)) --endian=little "$1" |
			awk '{ printf "%.0f %.0f %d\n", ($4 % 4096) * 4 ^ int($4 / 4096),
			       ($3 % 256) * 4 ^ (int($3 / 256) % 16), int($3 / 8192) }'
	else
		od -A n -v -t u4 -w16 -j $((4096 + 16 * $2)) -N $((16 * $3)) --endian=little "$1" |
			awk '{ print $1, $2, $3 }'
	fi
}

# emu_p10_gen FILE PFN: the generation bit (IBM bit 19) of a POWER10 entry.
emu_p10_gen() {
	local mid
	mid=$(od -A n -t u2 -j $((4096 + 8 * $2 + 4)) -N 2 --endian=little "$1" | tr -d ' ')
	echo $((mid >> 12 & 1))
}

# p10_floor N: N floored to what a POWER10 count field holds (4095 * 4^15 at most).
p10_floor() {
	local n=$1 e=0
	while ((e < 15 && (n >> (2 * e)) > 4095)); do e=$((e + 1)); done
	(((n >> (2 * e)) > 4095)) && n=$((4095 << (2 * e)))
	echo $(((n >> (2 * e)) << (2 * e)))
}

# emu_poke32 FILE OFFSET VALUE: write a little-endian u32 into the table in
# one 4-byte write, as the guest would through the BAR (OFFSET aligned).
emu_poke32() {
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($3 & 255)) $(($3 >> 8 & 255)) \
		$(($3 >> 16 & 255)) $(($3 >> 24 & 255)))" |
		dd of="$1" bs=4 seek=$(($2 / 4)) count=1 conv=notrunc status=none
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	local i n=$(($1 * 10))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

. "$HWAGE_TOP/harness/ktap.sh"
