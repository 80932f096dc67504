#!/usr/bin/env bash
# UI latency benchmarks: `parley serve` with a scripted model server and the
# built UI in Chromium (see bench/ui-latency.mjs for what is measured and the
# BENCH_* knobs). Prints a table; asserts no timings.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x "${PARLEY_BIN:-build/bin/parley}" ]; then
  source scripts/lib.sh
  build_app
fi
[ -d frontend/node_modules/playwright-core ] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
export PARLEY_ARTIFACTS="${PARLEY_ARTIFACTS:-$PWD/test-artifacts}"
exec node bench/ui-latency.mjs "$@"
