#!/usr/bin/env bash
# Installs everything Kinetoscope needs to build, run and test on Debian 12 (idempotent).
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  qt6-base-dev qt6-base-dev-tools libgl1-mesa-dev
  qt6-svg-dev # the timeline and the charts as SVG (File > Export, the charts' context menu)
  libqcustomplot-dev libqcustomplot2.1-qt6
  nlohmann-json3-dev zlib1g-dev libcli11-dev
  libsqlite3-dev # kinetoscope-cli query, the Query dock (core/query)
  pybind11-dev python3-dev python3-numpy # the kinetoscope Python module (python/)
  python3 xvfb xauth
  libopenmpi-dev openmpi-bin # optional: summarize --mpi (tests/cli/tst_summarizecommand runs it)
  clang-14 libclang-rt-14-dev # fuzz targets (tests/fuzz)
  clang-format-14 # packaging/check-format.sh
  dpkg-dev file desktop-file-utils appstream shared-mime-info
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
