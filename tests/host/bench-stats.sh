#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test: bench/bootstrap.c, the ratio of two medians and its bootstrap
# confidence interval, on made-up data whose answer is known.
set -u
here=$(dirname "$0")
. "$here/../../harness/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
B=$tmp/bootstrap

ktap_plan 8
cc -O2 -Wall -Wextra -Werror -o "$B" "$here/../../bench/bootstrap.c" -lm 2>"$tmp/err"
ktap_ok builds $? "$(cat "$tmp/err")" || { ktap_done; }

# Constant samples: every resample has the same medians, the interval is
# the ratio itself and excludes 1.
out=$("$B" 10 10 10 10 10 / 5 5 5 5 5)
[ "$out" = "10 5 2 2 2 yes" ]
ktap_ok constant_samples $? "got: $out" "want: 10 5 2 2 2 yes"

# Worked by hand: a resample of {1, 3} has median 1, 2 or 3 with
# probabilities 1/4, 1/2, 1/4; over {2, 2} the ratio is 0.5, 1 or 1.5, so
# the central 95% runs from 0.5 to 1.5 and includes 1.
out=$("$B" 1 3 / 2 2)
[ "$out" = "2 2 1 0.5 1.5 no" ]
ktap_ok exact_small_case $? "got: $out" "want: 2 2 1 0.5 1.5 no"

# Ten runs each, 20% apart, +-2% noise: a real difference.
a="120 122 118 121 119 123 117 120 121 119"
b="100 101 99 102 98 100 101 99 100 100"
read -r ma mb ratio lo hi ex < <("$B" $a / $b)
awk -v r="$ratio" -v l="$lo" -v h="$hi" -v e="$ex" \
	'BEGIN { exit !(r == 1.2 && l > 1.15 && l <= r && h >= r && h < 1.25 && e == "yes") }'
ktap_ok separated_samples_exclude_1 $? "got: $ma $mb $ratio [$lo, $hi] $ex (want 1.2 inside (1.15, 1.25), excludes 1)"

# The same data on both sides: the interval holds 1 and, the two sides
# being alike, is symmetric in the log (lo * hi = 1 within resampling noise).
read -r ma mb ratio lo hi ex < <("$B" $b / $b)
awk -v r="$ratio" -v l="$lo" -v h="$hi" -v e="$ex" \
	'BEGIN { p = l * h; exit !(r == 1 && l < 1 && h > 1 && p > 0.995 && p < 1.005 && e == "no") }'
ktap_ok same_samples_hold_1 $? "got: $ratio [$lo, $hi] $ex (want 1 inside, lo*hi = 1 +- 0.005)"

# Seeded: the same input gives the same line, another seed the same ratio.
o1=$("$B" -s 7 $a / $b) && o2=$("$B" -s 7 $a / $b) && o3=$("$B" -s 8 $a / $b)
[ "$o1" = "$o2" ] && [ "${o1%% * * *}" = "${o3%% * * *}" ] && [ "$(cut -d' ' -f3 <<<"$o1")" = "$(cut -d' ' -f3 <<<"$o3")" ]
ktap_ok seeded_and_repeatable $? "seed 7: '$o1' then '$o2'; seed 8: '$o3'"

# A base median of 0 has no ratio; fewer than 2 values no interval.
o1=$("$B" 1 2 3 / 0 0 1) && o2=$("$B" 4 / 2)
[ "$o1" = "2 0 - - - -" ] && [ "$o2" = "4 2 2 - - -" ]
ktap_ok no_ratio_no_interval $? "zero base: '$o1' (want '2 0 - - - -'); one value: '$o2' (want '4 2 2 - - -')"

# Bad input is refused with a message that names it.
"$B" 1 2 x / 3 4 2>"$tmp/e1" >/dev/null
r1=$?
"$B" -n 5 1 2 / 3 4 2>"$tmp/e2" >/dev/null
r2=$?
"$B" 1 2 3 2>"$tmp/e3" >/dev/null
r3=$?
[ $r1 = 2 ] && grep -q 'not a number: x' "$tmp/e1" && [ $r2 = 2 ] && grep -q 'RESAMPLES.*: 5' "$tmp/e2" &&
	[ $r3 = 2 ] && grep -q "both sides of a '/'" "$tmp/e3"
ktap_ok bad_input_refused $? "exits $r1 $r2 $r3:" "$(cat "$tmp"/e1 "$tmp"/e2 "$tmp"/e3)"
ktap_done
