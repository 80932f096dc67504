#!/usr/bin/env bash
# Opening the Settings panel in WebKit (see bench/settings-open.mjs). Prints
# figures; asserts no timings.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
need_app_and_browser
exec node bench/settings-open.mjs "$@"
