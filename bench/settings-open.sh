#!/usr/bin/env bash
# Opening the Settings panel in WebKit (see bench/settings-open.mjs). Prints
# figures; asserts no timings.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x "${PARLEY_BIN:-build/bin/parley}" ]; then
  source scripts/lib.sh
  build_app
fi
[ -d frontend/node_modules/playwright-core ] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
exec node bench/settings-open.mjs "$@"
