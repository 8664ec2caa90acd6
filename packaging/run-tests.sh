#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test through ctest. GUI tests run
# offscreen; GPU tests skip (and say so) where there is no NVIDIA GPU. Then builds the fuzz
# targets (clang-14, ASan+UBSan, build-fuzz/), replays every committed reproducer and
# fuzzes each target for FUZZ_SECONDS (default 50). The tree must be clang-format clean.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
packaging/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure --timeout 900
packaging/check-format.sh

if ! command -v clang++-14 >/dev/null || ! command -v clang-14 >/dev/null; then
  echo "run-tests: clang-14 is missing after install-deps.sh: the fuzz targets cannot be built" >&2
  exit 1
fi
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINETOSCOPE_FUZZ=ON
cmake --build build-fuzz -j "$(nproc 2>/dev/null || echo 2)"
tests/fuzz/run-fuzzers.sh --replay build-fuzz/tests/fuzz
# Committed reproducers (above) must pass; what a short run finds is new work, listed here and
# kept in build-fuzz/tests/fuzz/work/artifacts, not a reason to reject the change under test.
tests/fuzz/run-fuzzers.sh "${FUZZ_SECONDS:-50}" 1 build-fuzz/tests/fuzz \
  || echo "run-tests: the fuzzers found new failing inputs (listed above): make each a reproducer and a fix"
