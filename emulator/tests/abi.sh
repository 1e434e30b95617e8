#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host test: the counter table has one definition, the kernel series'
# include/uapi/misc/hca_emu.h, and the guest driver and the emulator agree
# with it. The header is extracted from patches/ (harness/series.sh) and a
# host program built against it (abi-layout.c) prints the offset and size
# of every field. Then:
#  - no patch of the series (outside that header) and no C or assembly
#    source of this repository defines a struct or constant of the header
#    again, or spells the magic; the driver includes the header;
#  - the plugin is built from that very file;
#  - the tables that the plugin (run on a bare-metal guest with a known
#    access pattern) and hca-size -w write hold, at each field's offset and
#    size by the header, the value the run set up; the entries are where
#    the header puts them; the plugin reads the guest's control fields
#    where the header puts them.
# A table changed on one side only (a private struct or constant in the
# driver or the emulator, a field the plugin writes or reads elsewhere)
# fails here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$HWAGE_TOP/harness/series.sh"
tmp=$(mktemp -d)
qpid=
trap '[ -n "$qpid" ] && kill $qpid 2>/dev/null; rm -rf "$tmp"' EXIT
EMU_LOG=$tmp/qemu.log
UAPI_PATH=include/uapi/misc/hca_emu.h
DRIVER_PATH=drivers/misc/hca-emu.c
HDR=$tmp/uapi/misc/hca_emu.h
T=table=$tmp/t
R=ram=$EMU_RAM
# a decay period no run reaches, and unlike any other value of the header
DECAY=987654321987

# report NAME PROBLEMS [DIAG...]: ok if PROBLEMS (lines) is empty.
report() {
	local name=$1 problems=$2 lines
	shift 2
	[ -z "$problems" ] && { ktap_ok "$name" 0; return; }
	mapfile -t lines <<<"$problems"
	ktap_ok "$name" 1 "${lines[@]}" "$@"
}

# read_field FILE OFFSET SIZE: a little-endian integer field in decimal, or
# for a field of another size (reserved bytes) "zero" or "nonzero".
read_field() {
	case $3 in
	1|2|4|8)
		od -A n -t "u$3" -j "$2" -N "$3" --endian=little "$1" 2>/dev/null | tr -d ' '
		;;
	*)
		if [ ! -f "$1" ]; then
			echo
		elif od -A n -t x1 -v -j "$2" -N "$3" "$1" | tr -d ' \n' | grep -q '[1-9a-f]'; then
			echo nonzero
		else
			echo zero
		fi
		;;
	esac
}

# fields_diff FILE STRUCT BASE FIELD=VALUE...: every field of STRUCT, read
# from FILE at BASE + its offset by the header, against its expected value;
# prints one line per difference. Every field needs an expected value.
fields_diff() {
	local file=$1 s=$2 base=$3 kv f got off size
	local -A want=()
	shift 3
	[ -f "$file" ] || { echo "no table file"; return; }
	for kv in "$@"; do
		want[${kv%%=*}]=${kv#*=}
	done
	for f in $(fields_of "$s"); do
		off=$((base + ${OFF[$s.$f]})) size=${SIZE[$s.$f]}
		if [ -z "${want[$f]+set}" ]; then
			echo "$s.$f: abi.sh has no expected value for this field: add one"
			continue
		fi
		got=$(read_field "$file" "$off" "$size")
		[ "$got" = "${want[$f]}" ] ||
			echo "$s.$f (offset $off, $size bytes): got ${got:-nothing}, want ${want[$f]}"
	done
	for f in "${!want[@]}"; do
		[ -n "${OFF[$s.$f]+set}" ] || echo "$s.$f: expected by abi.sh, not in the header"
	done
}

# fields_of STRUCT: its fields, in the order of the header.
fields_of() {
	sed -n "s/^field $1\.\([a-z0-9_]*\) .*/\1/p" "$tmp/layout"
}

# table_size RAM [PAGE]: hca-size's answer, or 0 (which no table has).
table_size() {
	local n
	n=$("$EMU_OUT/hca-size" "$@" 2>/dev/null)
	case $n in ''|*[!0-9]*) echo 0 ;; *) echo "$n" ;; esac
}

# header_diff FILE PAGE_SHIFT NR_PAGES TABLE_SIZE DECAY SAMPLE [DECAY_NS]:
# fields_diff of the header of FILE against an idle header (no decay yet,
# counting on, no ground truth asked for); DECAY is decay_insns.
header_diff() {
	fields_diff "$1" hca_table_header 0 \
		"magic=${CONST[HCA_TABLE_MAGIC]-}" "version=${CONST[HCA_TABLE_VERSION]-}" \
		"header_size=${CONST[HCA_TABLE_HEADER_SIZE]-}" "page_shift=$2" \
		"entry_size=${SSIZE[hca_entry]-}" "nr_pages=$3" \
		"entries_offset=${CONST[HCA_TABLE_HEADER_SIZE]-}" "table_size=$4" epoch=0 \
		"decay_insns=$5" "sample=$6" "age_max=${CONST[HCA_AGE_MAX]-}" \
		"count_max=${CONST[HCA_COUNT_MAX]-}" flags=0 "decay_ns=${7:-0}" \
		reserved0=zero enabled=1 truth_req=0 truth_done=0 reserved1=zero
}

# entry_base FILE PFN: offset of entries[PFN] by the header's entries_offset.
entry_base() {
	local eo
	eo=$(read_field "$1" "${OFF[hca_table_header.entries_offset]}" \
		"${SIZE[hca_table_header.entries_offset]}")
	echo $((${eo:-0} + $2 * ${SSIZE[hca_entry]}))
}

# header_field FILE FIELD: one field of the header.
header_field() {
	read_field "$1" "${OFF[hca_table_header.$2]}" "${SIZE[hca_table_header.$2]}"
}

ktap_plan 14
: >"$tmp/layout"

# 1-3: the header of the series, and its layout.
series_extract "$UAPI_PATH" "$HDR" 2>"$tmp/err"
ktap_ok series_has_the_header $? "$(cat "$tmp/err")"

cc -std=gnu11 -Wall -Wextra -Werror -I"$tmp/uapi" -o "$tmp/abi-layout" \
	"$here/abi-layout.c" >"$tmp/err" 2>&1 && "$tmp/abi-layout" >"$tmp/layout"
ktap_ok layout_program_builds $? "abi-layout.c against the series' $UAPI_PATH:" \
	"$(head -n 20 "$tmp/err")"

declare -A OFF=() SIZE=() SSIZE=() CONST=()
while read -r kind name a b; do
	case $kind in
	struct) SSIZE[$name]=$a ;;
	field) OFF[$name]=$a SIZE[$name]=$b ;;
	const) CONST[$name]=$a ;;
	esac
done <"$tmp/layout"

# Every byte of each struct is in a listed field, every struct and constant
# of the header is printed: a field or constant added to the header must be
# added to abi-layout.c (and given an expected value below).
problems=$(
	for s in "${!SSIZE[@]}"; do
		grep "^field $s\." "$tmp/layout" | sort -k 3,3n |
		awk -v s="$s" -v size="${SSIZE[$s]}" '
			$3 > end { printf "%s: bytes %d-%d are in no field listed in abi-layout.c\n", s, end, $3 - 1 }
			$3 < end { printf "%s: %s overlaps the field before it\n", s, $2 }
			$3 + $4 > end { end = $3 + $4 }
			END { if (end != size) printf "%s: bytes %d-%d are in no field listed in abi-layout.c\n", s, end, size - 1 }'
	done
	for s in $(sed -n 's/^struct \([a-z0-9_]*\) {$/\1/p' "$HDR" 2>/dev/null); do
		[ -n "${SSIZE[$s]+set}" ] || echo "struct $s of the header is not in abi-layout.c"
	done
	guard=$(sed -n 's/^#ifndef \([A-Za-z0-9_]*\)$/\1/p' "$HDR" 2>/dev/null | head -n 1)
	# object-like macros: the name is not followed by "("
	for c in $(sed -n 's/^#define[[:space:]]\+\([A-Za-z0-9_]\+\)\([^(A-Za-z0-9_].*\)\{0,1\}$/\1/p' "$HDR" 2>/dev/null); do
		[ "$c" = "$guard" ] || [ -n "${CONST[$c]+set}" ] ||
			echo "constant $c of the header is not in abi-layout.c"
	done
	[ ${#SSIZE[@]} -gt 0 ] || echo "no layout"
)
report layout_is_complete "$problems"

# The names the header defines, as definitions (a struct body or a
# #define), and the magic as a literal: nobody else may write them.
def_re=$( (sed -n 's/^struct \([a-z0-9_]*\) {$/struct[[:space:]]+\1[[:space:]]*\\{/p' "$HDR"
	for c in "${!CONST[@]}"; do
		echo "#[[:space:]]*define[[:space:]]+$c([^A-Za-z0-9_]|\$)"
	done
	[ -n "${CONST[HCA_TABLE_MAGIC]-}" ] &&
		printf '0x0*%x\n' "${CONST[HCA_TABLE_MAGIC]}") 2>/dev/null)
[ -n "$def_re" ] || def_re='no layout'

# 4: the series: the header is the only definition, the driver includes it.
problems=$(
	list=$(series_patches) || exit
	while read -r p; do
		awk -v skip="$UAPI_PATH" -v patch="$p" '
			/^diff --git / { file = $4; sub(/^b\//, "", file); next }
			/^\+\+\+ / { next }
			file != "" && file != skip && /^\+/ { print patch ": " file ": " substr($0, 2) }
		' "$SERIES_DIR/$p"
	done <<<"$list" | grep -iE -f <(echo "$def_re")
	series_extract "$DRIVER_PATH" "$tmp/driver.c" &&
		{ grep -q '^#include <uapi/misc/hca_emu\.h>' "$tmp/driver.c" ||
		  echo "$DRIVER_PATH does not include <uapi/misc/hca_emu.h>"; }
)
report driver_uses_the_header_only "$problems" \
	"(a struct or constant of $UAPI_PATH defined again in the series, or its magic)"

# 5: this repository's C and assembly sources (emulator, guest programs).
problems=$(cd "$HWAGE_TOP" &&
	grep -rnIE --include='*.[chS]' --exclude-dir=.git --exclude-dir=patches \
		-f <(echo "$def_re") . 2>&1
	grep -q '^#include <misc/hca_emu\.h>' emulator/hca-table.h ||
		echo "emulator/hca-table.h does not include <misc/hca_emu.h>")
report sources_use_the_header_only "$problems" \
	"(a struct or constant of $UAPI_PATH defined again, or its magic)"

# 6: one parser of sizes for the plugin and hca-size.
problems=$(cd "$HWAGE_TOP" && grep -nE '^[A-Za-z].*[[:space:]*]parse_size[[:space:]]*\(' \
	emulator/*.c emulator/*.h)
[ "$(wc -l <<<"$problems")" = 1 ] && [ "${problems%%:*}" = emulator/parse-size.h ]
ktap_ok one_parse_size $? "want one definition, in emulator/parse-size.h; found:" "$problems"

# 7-8: the plugin, built from the series' header.
emu_build
ktap_ok build $? "make -C emulator failed, see $HWAGE_LOGS/emulator-build.log"

cmp "$EMU_OUT/uapi/misc/hca_emu.h" "$HDR" >"$tmp/err" 2>&1
ktap_ok plugin_built_from_series_header $? "$(cat "$tmp/err")"

# 9-12 read the tables through the layout: without one, they cannot run.
if [ -z "${SSIZE[hca_table_header]-}" ] || [ -z "${SSIZE[hca_entry]-}" ] ||
   [ -z "${OFF[hca_table_header.entries_offset]-}" ]; then
	for n in plugin_header_matches_layout plugin_entries_match_layout \
		 plugin_reads_control_at_layout hca_size_header_matches_layout \
		 hca_size_sets_fields_at_layout; do
		ktap_ok $n 1 "no layout of the series' header (see layout_program_builds)"
	done
	ktap_done
fi

# 9: the header the plugin writes, with a value unlike the others where it
# can be (8K pages: page_shift 13, 2048 pages, sample 3).
S=$(table_size $EMU_RAM 8K)
emu_run pattern "$T,$R,page=8K,sample=3,decay=$DECAY"
rc=$?
problems=$([ $rc = $EMU_EXIT ] || echo "QEMU exit $rc, want $EMU_EXIT: $(tail -n 3 "$EMU_LOG")"
	[ "$S" != 0 ] || echo "hca-size $EMU_RAM 8K failed"
	[ "$(stat -c %s "$tmp/t")" = "$S" ] || echo "table file $(stat -c %s "$tmp/t") bytes, hca-size says $S"
	header_diff "$tmp/t" 13 2048 "$S" $DECAY 3)
report plugin_header_matches_layout "$problems"

# 10: exact counts: the pattern's pages (A pfn 16 loaded 1000 times, B pfn
# 32 stored 10 times, C pfn 48 loaded once, D pfn 64 untouched) in the
# entries where the header puts them.
S=$(table_size $EMU_RAM)
emu_run pattern "$T,$R,decay=$DECAY"
rc=$?
problems=$([ $rc = $EMU_EXIT ] || echo "QEMU exit $rc, want $EMU_EXIT: $(tail -n 3 "$EMU_LOG")"
	[ "$S" != 0 ] || echo "hca-size $EMU_RAM failed"
	header_diff "$tmp/t" 12 4096 "$S" $DECAY 1
	for pc in 16:1000 32:10 48:1 64:0 4095:0; do
		fields_diff "$tmp/t" hca_entry "$(entry_base "$tmp/t" ${pc%:*})" \
			count=${pc#*:} prev_count=0 age=0 reserved=0 | sed "s/^/entries[${pc%:*}]: /"
	done
	[ $(($(entry_base "$tmp/t" 4096))) -le "$(stat -c %s "$tmp/t")" ] ||
		echo "4096 entries do not fit the $(stat -c %s "$tmp/t")-byte file")
report plugin_entries_match_layout "$problems"

# 11: the control area, written as the driver would, at the header's
# offsets: enabled=0 stops counting, truth_req=N is answered in truth_done.
problems=$(
	for f in enabled truth_req truth_done; do
		[ "${SIZE[hca_table_header.$f]-}" = 4 ] || echo "$f is not a u32: update abi.sh"
	done)
if [ -z "$problems" ]; then
	timeout 60 "$EMU_QEMU" "${EMU_QEMU_ARGS[@]}" -bios "$EMU_OUT/guest-loop.bin" \
		-plugin "$EMU_PLUGIN,$T,$R,decay=$DECAY,truth=$tmp/truth" -d plugin \
		</dev/null >"$EMU_LOG" 2>&1 &
	qpid=$!
	a_off=$(($(entry_base "$tmp/t" 16) + ${OFF[hca_entry.count]}))
	count_a() { read_field "$tmp/t" $a_off 4; }
	a_above() { [ -f "$tmp/t" ] && [ "$(count_a)" -gt "$1" ] 2>/dev/null; }
	truth_done_is() { [ "$(header_field "$tmp/t" truth_done)" = "$1" ]; }
	problems=$(
		wait_for 20 a_above 1000 || echo "A not counted: $(count_a 2>&1) after 20 s"
		emu_poke32 "$tmp/t" "${OFF[hca_table_header.enabled]}" 0
		sleep 0.3
		a1=$(count_a)
		sleep 0.5
		a2=$(count_a)
		emu_poke32 "$tmp/t" "${OFF[hca_table_header.enabled]}" 1
		[ "$a1" = "$a2" ] || echo "enabled=0 did not stop counting: A $a1 then $a2"
		wait_for 10 a_above "$a2" || echo "enabled=1 did not restart counting: A stays $a2"
		emu_poke32 "$tmp/t" "${OFF[hca_table_header.truth_req]}" 7
		wait_for 10 truth_done_is 7 && [ -s "$tmp/truth.7" ] ||
			echo "truth_req=7: truth_done $(header_field "$tmp/t" truth_done), truth.7 $([ -s "$tmp/truth.7" ] && echo written || echo missing)")
	kill -TERM $qpid 2>/dev/null
	wait $qpid 2>/dev/null
	qpid=
fi
report plugin_reads_control_at_layout "$problems" "$(grep -m 3 '^hca' "$EMU_LOG" 2>/dev/null)"

# 12: hca-size -w, the table the harness hands a guest without the plugin.
rm -f "$tmp/t"
"$EMU_OUT/hca-size" -w "$tmp/t" $EMU_RAM 8K >"$tmp/out" 2>&1
rc=$?
S=$(table_size $EMU_RAM 8K)
problems=$([ $rc = 0 ] || echo "hca-size -w $tmp/t $EMU_RAM 8K: exit $rc: $(cat "$tmp/out")"
	[ "$(cat "$tmp/out")" = "$S" ] || echo "hca-size -w printed '$(head -c 200 "$tmp/out")', hca-size $EMU_RAM 8K says $S"
	[ "$(stat -c %s "$tmp/t" 2>/dev/null)" = "$S" ] || echo "file of $(stat -c %s "$tmp/t" 2>/dev/null || echo no) bytes, want $S"
	header_diff "$tmp/t" 13 2048 "$S" 0 1)
report hca_size_header_matches_layout "$problems"

# 13: hca-size -w -s FIELD=VALUE, the lying tables of HWAGE_HCA=badtable:
# each field set where the header puts it, the file the honest size, the
# rest of the header untouched; a field it does not know, a value too wide
# for the field or no value at all refused with status 2 and no file.
rm -f "$tmp/t"
"$EMU_OUT/hca-size" -w "$tmp/t" -s entries_offset=0x10000000000 -s flags=0x80 \
	-s version=2 $EMU_RAM 8K >"$tmp/out" 2>&1
rc=$?
problems=$([ $rc = 0 ] || echo "hca-size -w -s ...: exit $rc: $(cat "$tmp/out")"
	[ "$(stat -c %s "$tmp/t" 2>/dev/null)" = "$S" ] || echo "file of $(stat -c %s "$tmp/t" 2>/dev/null || echo no) bytes, want $S"
	fields_diff "$tmp/t" hca_table_header 0 \
		"magic=${CONST[HCA_TABLE_MAGIC]-}" version=2 \
		"header_size=${CONST[HCA_TABLE_HEADER_SIZE]-}" page_shift=13 \
		"entry_size=${SSIZE[hca_entry]-}" nr_pages=2048 \
		entries_offset=$((1 << 40)) "table_size=$S" epoch=0 decay_insns=0 sample=1 \
		"age_max=${CONST[HCA_AGE_MAX]-}" "count_max=${CONST[HCA_COUNT_MAX]-}" \
		flags=128 decay_ns=0 reserved0=zero enabled=1 truth_req=0 truth_done=0 \
		reserved1=zero
	for bad in nosuch=1 flags=0x100000000 flags version=x; do
		rm -f "$tmp/t"
		"$EMU_OUT/hca-size" -w "$tmp/t" -s "$bad" $EMU_RAM 8K >"$tmp/out" 2>&1
		rc=$?
		[ $rc = 2 ] && [ ! -e "$tmp/t" ] && grep -q -- "-s $bad" "$tmp/out" ||
			echo "-s $bad: exit $rc, file $([ -e "$tmp/t" ] && echo written || echo none), said: $(head -c 200 "$tmp/out")"
	done)
report hca_size_sets_fields_at_layout "$problems"

# 14: decays clocked in guest time (decay_clock=time): the period in
# decay_ns where the header puts it, decay_insns 0 (DECAY ns is 16 minutes:
# no decay happens in the run).
S=$(table_size $EMU_RAM)
emu_run pattern "$T,$R,decay=$DECAY,decay_clock=time"
rc=$?
problems=$([ $rc = $EMU_EXIT ] || echo "QEMU exit $rc, want $EMU_EXIT: $(tail -n 3 "$EMU_LOG")"
	header_diff "$tmp/t" 12 4096 "$S" 0 1 $DECAY)
report plugin_header_time_clock "$problems"

ktap_done
