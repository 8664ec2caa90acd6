#!/usr/bin/env bash
# packaging/make-deb.sh OUTDIR: a clean Release build in a temporary directory, packaged by
# CPack into exactly one OUTDIR/kinetoscope_<version>_<arch>.deb (dependencies from
# dpkg-shlibdeps). Built with CUPTI when CMake finds the CUDA toolkit, else without the
# collector's injection library (the package says so: `kinetoscope-cli collect` reports it).
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Debian's hardening flags (dpkg-buildflags), as a Debian build would use them.
if command -v dpkg-buildflags > /dev/null; then
  eval "$(dpkg-buildflags --export=sh)"
  export CXXFLAGS="$CXXFLAGS $CPPFLAGS" # CMake does not read CPPFLAGS (_FORTIFY_SOURCE)
fi
cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON
cmake --build "$work/build" -j "$(nproc 2>/dev/null || echo 2)" --target package_contents
(cd "$work/build" && cpack -G DEB -B "$work/package" > "$work/cpack.log") || { cat "$work/cpack.log" >&2; exit 1; }

debs=("$work"/package/kinetoscope_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
  echo "make-deb: expected one kinetoscope_*.deb, got: ${debs[*]}" >&2
  exit 1
fi
# lintian when present (about 30 s): errors fail the build.
if command -v lintian > /dev/null; then
  lintian --fail-on error "${debs[0]}" >&2
fi
rm -f "$out"/kinetoscope_*.deb
cp "${debs[0]}" "$out/"
echo "$out/$(basename "${debs[0]}")"
