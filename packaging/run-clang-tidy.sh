#!/usr/bin/env bash
# clang-tidy 14 with the checked-in .clang-tidy over the product code (core/ collector/ cli/
# widgets/ app/; not tests/ or bench/). Not in CI: core/ alone takes minutes on 2 cores.
# Configures build-tidy/ for compile_commands.json and builds only what the sources include
# but do not hold (Qt's moc output); exits non-zero on any finding.
#   packaging/run-clang-tidy.sh [regex of source paths, default: the five directories]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cmake -S . -B build-tidy -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
# AUTOMOC run directly: the *_autogen targets first build every library their target links
# (10 minutes on 2 cores), this takes seconds.
for info in build-tidy/{widgets,app}/CMakeFiles/*_autogen.dir/AutogenInfo.json; do
    cmake -E cmake_autogen "$info" Debug
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
run-clang-tidy-14 -p build-tidy -j "$(nproc 2>/dev/null || echo 2)" -quiet \
    "${1:-^$root/(core|collector|cli|widgets|app)/}" >"$log" 2>&1 || status=$?
# clang-tidy exits 0 on warnings (WarningsAsErrors is empty): a finding is a diagnostic line.
findings=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^/.*:[0-9]+:[0-9]+: (warning|error):' | sort -u || true)
if [ -n "$findings" ]; then
    echo "$findings"
    echo "clang-tidy: $(echo "$findings" | wc -l) finding(s)" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    cat "$log"
    exit "$status"
fi
echo "clang-tidy: clean"
