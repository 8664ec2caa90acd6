#!/usr/bin/env bash
# Fails when a tracked C++ file differs from .clang-format (clang-format 14: another version
# formats differently). Reformat with: packaging/check-format.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
format=clang-format-14
command -v "$format" >/dev/null || { echo "check-format: $format is missing (packaging/install-deps.sh)" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = --fix ]; then
  "$format" -i --style=file "${files[@]}"
else
  "$format" --dry-run -Werror --style=file "${files[@]}"
  echo "check-format: ${#files[@]} files formatted as .clang-format says"
fi
