#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copy a benchmark's results (bench/run.sh output directory) into
# docs/bench/ of the repo, which the README shows:
#   bench/publish.sh DIR
set -u
. "$(dirname "$0")/../harness/lib.sh"
DIR=${1:?usage: bench/publish.sh DIR}
[ -s "$DIR/results.csv" ] && [ -s "$DIR/summary.md" ] || die "no results.csv and summary.md in $DIR"
OUT=$HWAGE_TOP/docs/bench
mkdir -p "$OUT" && rm -f "$OUT"/*.png "$OUT"/results.csv "$OUT"/summary.md
cp "$DIR/results.csv" "$DIR/summary.md" "$OUT/" && cp "$DIR"/*.png "$OUT/" 2>/dev/null
info "published $DIR into docs/bench: $(ls "$OUT" | tr '\n' ' ')"
