#!/usr/bin/env bash
# The whole ctest suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DKINETOSCOPE_SANITIZE=ON) in build-sanitize/. Too slow for every CI run on 2 cores
# (a full instrumented rebuild): run it before a release or after touching parsers.
#   packaging/run-sanitized-tests.sh [ctest -R regex]
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINETOSCOPE_SANITIZE=ON
cmake --build build-sanitize -j "$(nproc 2>/dev/null || echo 2)"
export QT_QPA_PLATFORM=offscreen
# Leaks are reported by the fuzzers (core only); Qt's plugins keep allocations to exit.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
ctest --test-dir build-sanitize --output-on-failure --timeout 1800 ${1:+-R "$1"}
