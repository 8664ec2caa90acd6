#!/usr/bin/env bash
# Configures and builds Kinetoscope into build/ (Release with debug info, Ninja).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
werror=OFF
[ "${CI:-}" = true ] && werror=ON # warnings fail CI builds, never a user's
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINETOSCOPE_WERROR="$werror"
cmake --build build -j "$jobs"
