#!/usr/bin/env bash
# Issue 15's speed-up over "today's loader", measured in one run: builds bench/loadonce.cpp
# against the loader of this tree and of the source tree BASE (the loader the issue was filed
# against: `git archive e1ec0c8 | tar -x -C DIR`), with the same compiler and flags, then loads
# each FILE ROUNDS times, the two builds alternating, pinned to CPUS, and prints each build's
# best and median wall and CPU seconds and the ratio of the best times.
#   BASE=DIR [CPUS=0,1] [ROUNDS=5] bench/compare-loaders.sh FILE...
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${BASE:?BASE=DIR: the source tree to compare with}
CPUS=${CPUS:-0,1}
ROUNDS=${ROUNDS:-5}
OUT=${OUT:-$ROOT/build-compare}
[ $# -gt 0 ] || { echo "usage: BASE=DIR $0 FILE..."; exit 2; }

build() { # TREE NAME: the tree's model and loader, nothing else (older trees cannot build without Qt)
    local obj=$OUT/$2
    mkdir -p "$obj/gen/core"
    sed 's/@[A-Z_]*@//g' "$1/core/version.h.in" > "$obj/gen/core/version.h"
    local flags="-O2 -g -DNDEBUG -std=c++20 -I$1 -I$obj/gen"
    printf '%s\n' "$1"/core/model/*.cpp "$1"/core/loading/*.cpp "$ROOT/bench/loadonce.cpp" \
        | xargs -P "$(nproc)" -I{} sh -c "g++ $flags -c {} -o $obj/\$(echo {} | tr / _).o"
    g++ "$obj"/*.o -lz -pthread -o "$obj/loadonce"
}
build "$ROOT" this
build "$BASE" base

summary() { # LABEL FILE-OF-"wall cpu events"-LINES
    sort -n "$2" | awk -v label="$1" '{w[NR]=$1; c[NR]=$2} END {
        m = int((NR + 1) / 2); printf "%s: best %.3f s wall, %.3f s CPU; median %.3f s wall (%d loads)\n",
        label, w[1], c[1], w[m], NR }'
}
for f in "$@"; do
    : > "$OUT/this.times"
    : > "$OUT/base.times"
    for _ in $(seq "$ROUNDS"); do
        taskset -c "$CPUS" "$OUT/this/loadonce" "$f" >> "$OUT/this.times"
        taskset -c "$CPUS" "$OUT/base/loadonce" "$f" >> "$OUT/base.times"
    done
    echo "== $f ($(du -m "$f" | cut -f1) MB), CPUs $CPUS"
    summary "  this tree" "$OUT/this.times"
    summary "  BASE     " "$OUT/base.times"
    best_this=$(sort -n "$OUT/this.times" | head -1 | cut -d' ' -f1)
    best_base=$(sort -n "$OUT/base.times" | head -1 | cut -d' ' -f1)
    awk -v a="$best_base" -v b="$best_this" 'BEGIN { printf "  this tree is %.2fx as fast as BASE (best times)\n", a / b }'
done
