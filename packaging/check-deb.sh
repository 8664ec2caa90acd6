#!/usr/bin/env bash
# packaging/check-deb.sh BUILD_DIR APP_ID: packages an existing build with cpack (DEB) and checks the
# package: its name, control fields and dependencies, the files it installs, the desktop entry,
# AppStream metainfo, file types and man pages, and that the installed CLI finds its injection
# library and demo trace relative to itself. Run by ctest as `package_deb`.
set -euo pipefail
build=$(cd "$1" && pwd)
app_id=$2 # reverse-DNS: names the desktop entry, metainfo, file-type XML and icons
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
for lib in libc6 libqt6widgets6 libqt6svg6 libqcustomplot2.1-qt6 zlib1g libsqlite3-0; do
  grep -q "\b$lib\b" <<< "$depends" || fail "Depends lacks $lib: $depends"
done
grep -qi cupti <<< "$depends" && fail "Depends names CUPTI: $depends"

# Files.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' > "$work/files"
required=(/usr/bin/kinetoscope /usr/bin/kinetoscope-cli /usr/share/kinetoscope/demo.pt.trace.json.gz
  "/usr/share/applications/$app_id.desktop" "/usr/share/metainfo/$app_id.metainfo.xml"
  "/usr/share/mime/packages/$app_id.xml" "/usr/share/icons/hicolor/scalable/apps/$app_id.svg"
  /usr/share/man/man1/kinetoscope.1.gz /usr/share/man/man1/kinetoscope-cli.1.gz
  /usr/share/doc/kinetoscope/copyright /usr/share/doc/kinetoscope/changelog.gz)
for size in 16 22 24 32 48 64 128 256; do
  required+=("/usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png")
done
for f in "${required[@]}"; do
  grep -qx -- "$f" "$work/files" || fail "missing $f"
done
injection_built=$(find "$build/collector/injection" -name libkinetoscope_injection.so 2>/dev/null | head -1)
if [ -n "$injection_built" ]; then # private: /usr/lib[/<triplet>]/kinetoscope/
  grep -Eqx '/usr/lib/([^/]+/)?kinetoscope/libkinetoscope_injection.so' "$work/files" || fail "missing the injection library"
fi
python_built=$(find "$build/python" -name 'kinetoscope*.so' 2>/dev/null | head -1)
if [ -n "$python_built" ]; then # the Python module, for Debian's python3
  grep -Eqx '/usr/lib/python3/dist-packages/kinetoscope[^/]*\.so' "$work/files" || fail "missing the Python module"
fi
grep -qx /usr/share/doc/kinetoscope/query.md "$work/files" || fail "missing the SQL schema (query.md)"
grep -v -e '^/usr/' -e '^/$' "$work/files" && fail "files outside /usr"

# Contents validate: one desktop entry and one metainfo, named by the application id, and the
# icon that both name.
root="$work/root"
dpkg-deb -x "$deb" "$root"
for dir in applications metainfo mime/packages; do
  [ "$(find "$root/usr/share/$dir" -type f | wc -l)" -eq 1 ] || fail "expected one file in /usr/share/$dir"
done
desktop=$root/usr/share/applications/$app_id.desktop
metainfo=$root/usr/share/metainfo/$app_id.metainfo.xml
grep -q "<id>$app_id</id>" "$metainfo" || fail "metainfo id"
grep -q "<launchable type=\"desktop-id\">$app_id.desktop</launchable>" "$metainfo" || fail "metainfo launchable"
grep -qx "Icon=$app_id" "$desktop" || fail "desktop entry Icon"
grep -q "<icon type=\"stock\">$app_id</icon>" "$metainfo" || fail "metainfo icon"
grep -q "<url type=\"homepage\">$(field Homepage)</url>" "$metainfo" || fail "metainfo and package home pages differ"
desktop-file-validate "$desktop" || fail "desktop-file-validate"
grep -qx 'Exec=kinetoscope %F' "$desktop" || fail "desktop entry Exec"
appstreamcli validate --no-net --pedantic "$metainfo" > "$work/appstream.log" 2>&1 \
  || { cat "$work/appstream.log" >&2; fail "appstreamcli validate"; }
mkdir -p "$work/mime/packages"
cp "$root/usr/share/mime/packages/$app_id.xml" "$work/mime/packages/" || fail "no file-type XML"
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
# The screenshot is a file of this repository, as GitHub serves it (raw.githubusercontent.com/OWNER/REPO/BRANCH/PATH).
screenshot=$(sed -n 's|^ *<image>https://raw\.githubusercontent\.com/[^/]*/[^/]*/[^/]*/\(.*\)</image>$|\1|p' "$metainfo")
source_dir=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$screenshot" ] && file -b "$source_dir/$screenshot" | grep -q '^PNG image' \
  || fail "metainfo screenshot is no PNG of this repository: $(grep '<image>' "$metainfo")"
# Every command of kinetoscope-cli has its entry in the man page.
for command in $("$root/usr/bin/kinetoscope-cli" --help | sed -n '/^Subcommands:/,$s/^  \([a-z-]*\) .*/\1/p'); do
  zcat "$root/usr/share/man/man1/kinetoscope-cli.1.gz" | grep -q "^\.BR $command " \
    || fail "man page kinetoscope-cli.1 lacks the command $command"
done
if command -v groff > /dev/null; then
  for page in kinetoscope kinetoscope-cli; do
    warnings=$(zcat "$root/usr/share/man/man1/$page.1.gz" | groff -man -ww -z 2>&1) || true
    [ -z "$warnings" ] || fail "man page $page: $warnings"
  done
fi

# The extracted programs find what they need relative to themselves, with no environment.
[ "$("$root/usr/bin/kinetoscope-cli" --version)" = "kinetoscope-cli $version" ] || fail "kinetoscope-cli --version"
[ "$(QT_QPA_PLATFORM=offscreen "$root/usr/bin/kinetoscope" --version 2> /dev/null)" = "kinetoscope $version" ] \
  || fail "kinetoscope --version"
collect() { env -u KINETOSCOPE_INJECTION_LIBRARY "$root/usr/bin/kinetoscope-cli" collect -- /bin/true 2>&1; }
if [ -n "$injection_built" ]; then
  output=$(collect) || true
  grep -q "without using CUDA" <<< "$output" || fail "collect did not use the installed injection library: $output"
  rm "$root"/usr/lib/*/kinetoscope/libkinetoscope_injection.so
fi
output=$(collect) && fail "collect without an injection library succeeded"
grep -q "injection library is missing" <<< "$output" || fail "collect without an injection library: $output"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed for $(basename "$deb")" >&2
  exit 1
fi
echo "$(basename "$deb"): $(wc -l < "$work/files") entries, Depends: $depends"
