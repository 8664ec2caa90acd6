#!/usr/bin/env bash
# The whole ctest suite built with AddressSanitizer + UndefinedBehaviorSanitizer: the `asan`
# preset (build-asan/, -O1, line tables). Not in CI: the instrumented build of the whole tree
# would double CI's time on 2 cores (figures in packaging/README.md). Run it before a release or
# after touching parsers, the collector or threads.
#   packaging/run-sanitized-tests.sh [ctest -R regex]
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --preset asan
cmake --build --preset asan -j "$(nproc 2>/dev/null || echo 2)"
# The preset sets QT_QPA_PLATFORM=offscreen and the sanitizer options (leaks are reported by
# the fuzzers, core only; Qt's plugins keep allocations to exit).
ctest --preset asan ${1:+-R "$1"}
