#!/usr/bin/env bash
# packaging/check-deb.sh BUILD_DIR: packages an existing build with cpack (DEB) and checks the
# package: its name, control fields and dependencies, the files it installs, the desktop entry,
# AppStream metainfo, file types and man pages, and that the installed CLI finds its injection
# library and demo trace relative to itself. Run by ctest as `package_deb`.
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
arch=$(dpkg --print-architecture)
(cd "$build" && cpack -G DEB -B "$work/package" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log" >&2; exit 1; }
debs=("$work"/package/*.deb)
[ ${#debs[@]} -eq 1 ] || { fail "expected one .deb, got ${debs[*]}"; exit 1; }
deb=${debs[0]}
[ "$(basename "$deb")" = "kinetoscope_${version}_${arch}.deb" ] || fail "package file name $(basename "$deb")"

# Control fields: dependencies computed by dpkg-shlibdeps, none on NVIDIA's libcupti.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = kinetoscope ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), CMake says $version"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: $(field Architecture)"
depends=$(field Depends)
for lib in libc6 libqt6widgets6 libqcustomplot2.1-qt6 zlib1g; do
  grep -q "\b$lib\b" <<< "$depends" || fail "Depends lacks $lib: $depends"
done
grep -qi cupti <<< "$depends" && fail "Depends names CUPTI: $depends"

# Files.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' > "$work/files"
required=(/usr/bin/kinetoscope /usr/bin/kinetoscope-cli /usr/share/kinetoscope/demo.pt.trace.json.gz
  /usr/share/mime/packages/kinetoscope.xml /usr/share/icons/hicolor/scalable/apps/kinetoscope.svg
  /usr/share/man/man1/kinetoscope.1.gz /usr/share/man/man1/kinetoscope-cli.1.gz
  /usr/share/doc/kinetoscope/copyright /usr/share/doc/kinetoscope/changelog.gz)
for size in 16 22 24 32 48 64 128 256; do
  required+=("/usr/share/icons/hicolor/${size}x${size}/apps/kinetoscope.png")
done
for f in "${required[@]}"; do
  grep -qx -- "$f" "$work/files" || fail "missing $f"
done
injection_built=$(find "$build/collector/injection" -name libkinetoscope_injection.so 2>/dev/null | head -1)
if [ -n "$injection_built" ]; then # private: /usr/lib[/<triplet>]/kinetoscope/
  grep -Eqx '/usr/lib/([^/]+/)?kinetoscope/libkinetoscope_injection.so' "$work/files" || fail "missing the injection library"
fi
grep -v -e '^/usr/' -e '^/$' "$work/files" && fail "files outside /usr"

# Contents validate: one desktop entry and one metainfo named by the application id.
root="$work/root"
dpkg-deb -x "$deb" "$root"
desktops=("$root"/usr/share/applications/*.desktop)
metainfos=("$root"/usr/share/metainfo/*.metainfo.xml)
[ ${#desktops[@]} -eq 1 ] && [ -f "${desktops[0]}" ] || fail "expected one desktop entry: ${desktops[*]}"
[ ${#metainfos[@]} -eq 1 ] && [ -f "${metainfos[0]}" ] || fail "expected one metainfo file: ${metainfos[*]}"
desktop=${desktops[0]}
metainfo=${metainfos[0]}
app_id=$(basename "$desktop" .desktop)
[ "$(basename "$metainfo")" = "$app_id.metainfo.xml" ] || fail "metainfo $(basename "$metainfo") for $app_id"
grep -q "<launchable type=\"desktop-id\">$app_id.desktop</launchable>" "$metainfo" || fail "metainfo launchable"
desktop-file-validate "$desktop" || fail "desktop-file-validate"
grep -qx 'Exec=kinetoscope %F' "$desktop" || fail "desktop entry Exec"
appstreamcli validate --no-net --pedantic "$metainfo" > "$work/appstream.log" 2>&1 \
  || { cat "$work/appstream.log" >&2; fail "appstreamcli validate"; }
mkdir -p "$work/mime/packages"
cp "$root/usr/share/mime/packages/kinetoscope.xml" "$work/mime/packages/"
XDG_DATA_DIRS="$work" update-mime-database "$work/mime" 2> "$work/mime.log" || fail "update-mime-database: $(cat "$work/mime.log")"
[ -s "$work/mime.log" ] && fail "update-mime-database warns: $(cat "$work/mime.log")"
grep -q ':application/x-pytorch-trace+json:\*\.pt\.trace\.json$' "$work/mime/globs2" || fail "no glob for *.pt.trace.json"
grep -q ':application/x-pytorch-trace+json-compressed:\*\.pt\.trace\.json\.gz$' "$work/mime/globs2" \
  || fail "no glob for *.pt.trace.json.gz"
grep -qx 'application/x-pytorch-trace+json-compressed application/gzip' "$work/mime/subclasses" \
  || fail "compressed type is no sub-class of application/gzip"
grep -q '^MimeType=application/x-pytorch-trace+json;application/x-pytorch-trace+json-compressed;$' \
  "$desktop" || fail "desktop entry MimeType"
zcat "$root/usr/share/doc/kinetoscope/changelog.gz" | head -1 | grep -q "^kinetoscope ($version) " \
  || fail "changelog does not start with version $version"
grep -q "<release version=\"$version\"" "$metainfo" \
  || fail "metainfo has no release $version"
if command -v groff > /dev/null; then
  for page in kinetoscope kinetoscope-cli; do
    warnings=$(zcat "$root/usr/share/man/man1/$page.1.gz" | groff -man -ww -z 2>&1) || true
    [ -z "$warnings" ] || fail "man page $page: $warnings"
  done
fi

# The extracted programs find what they need relative to themselves, with no environment.
[ "$("$root/usr/bin/kinetoscope-cli" --version)" = "kinetoscope-cli $version" ] || fail "kinetoscope-cli --version"
collect=$(env -u KINETOSCOPE_INJECTION_LIBRARY "$root/usr/bin/kinetoscope-cli" collect -- /bin/true 2>&1) || true
if [ -n "$injection_built" ]; then
  grep -q "without using CUDA" <<< "$collect" || fail "collect did not use the installed injection library: $collect"
else
  grep -q "injection library is missing" <<< "$collect" || fail "collect without an injection library: $collect"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed for $(basename "$deb")" >&2
  exit 1
fi
echo "$(basename "$deb"): $(wc -l < "$work/files") entries, Depends: $depends"
