#!/usr/bin/env bash
# Sets up, builds and launches the Parley desktop app. Extra arguments go to
# parley (for example --data-dir DIR or --base-url URL).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
scripts/setup.sh
build_app
step "starting Parley"
if [ "$(uname -s)" = "Linux" ] && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "no display found: starting a virtual one (Xvfb); use a desktop session to see the window"
  start_xvfb
fi
exec build/bin/parley "$@"
