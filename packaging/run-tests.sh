#!/usr/bin/env bash
# Installs the dependencies, builds, and runs every test through ctest. GUI tests run
# offscreen; GPU tests skip (and say so) where there is no NVIDIA GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
packaging/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure --timeout 900
