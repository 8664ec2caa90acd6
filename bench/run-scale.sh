#!/usr/bin/env bash
# Issue 15's scale figures in one run: builds bench_load and bench_tile without Qt, tiles
# tests/data/big.pt.trace.json.gz 8x, 32x and 129x (about 0.25, 1 and 4 GB of JSON, plus the
# smallest as .json.gz), and loads each file with the parallel and the single-threaded loader,
# pinned to CPUS (default 0,1: the issue's 2 cores).
#   BASE=DIR   also runs the bench_load of the source tree in DIR on the same files, right
#              after, for a before/after measured on the same machine in the same run.
#   STEP=tiles builds and tiles only; STEP=load loads only (the files of an earlier call).
# Needs about 5.5 GB of disk under BUILD (default build-scale).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build-scale}
TILES=$BUILD/tiles
CPUS=${CPUS:-0,1}
STEP=${STEP:-all}

build() { # SOURCE BUILD_DIR
    cmake -G Ninja -S "$1" -B "$2" -DKINETOSCOPE_BUILD_GUI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$2.cmake.log" 2>&1 \
        && cmake --build "$2" -j "$(nproc)" --target bench_load bench_tile > "$2.build.log" 2>&1 \
        || { echo "FAIL: build of $1 (see $2.cmake.log, $2.build.log)"; tail -20 "$2.build.log" "$2.cmake.log"; exit 1; }
}

files=("$TILES/x8.json" "$TILES/x8.json.gz" "$TILES/x32.json" "$TILES/x129.json")
if [ "$STEP" != load ]; then
    build "$ROOT" "$BUILD"
    if [ -n "${BASE:-}" ]; then build "$BASE" "$BUILD-base"; fi
    mkdir -p "$TILES"
    for k in 8 32 129; do
        "$BUILD/bench/bench_tile" "$ROOT/tests/data/big.pt.trace.json.gz" "$TILES/x$k.json" "$k"
    done
    gzip -1 -c "$TILES/x8.json" > "$TILES/x8.json.gz"
fi
[ "$STEP" = tiles ] && exit 0

echo "== $(git -C "$ROOT" log --oneline -1 2>/dev/null || echo this tree), pinned to CPUs $CPUS"
taskset -c "$CPUS" "$BUILD/bench/bench_load" "${files[@]}"
if [ -n "${BASE:-}" ]; then
    echo "== BASE ($BASE), pinned to CPUs $CPUS"
    taskset -c "$CPUS" "$BUILD-base/bench/bench_load" "${files[@]}"
fi
