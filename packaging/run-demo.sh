#!/usr/bin/env bash
# Installs the dependencies, builds, and opens the GUI on the bundled real trace
# (resources/demo.pt.trace.json.gz: one transformer layer training on an H200).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
packaging/build.sh
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "run-demo: no display found; starting the GUI under xvfb-run (invisible)." >&2
  exec xvfb-run -a -s "-screen 0 1920x1080x24" build/app/kinetoscope --demo "$@"
fi
exec build/app/kinetoscope --demo "$@"
