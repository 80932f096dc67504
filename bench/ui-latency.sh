#!/usr/bin/env bash
# UI latency benchmarks: `parley serve` with a scripted model server and the
# built UI in Chromium (see bench/ui-latency.mjs for what is measured and the
# BENCH_* knobs). Prints a table; asserts no timings.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
need_app_and_browser
export PARLEY_ARTIFACTS="${PARLEY_ARTIFACTS:-$PWD/test-artifacts}"
exec node bench/ui-latency.mjs "$@"
