#!/usr/bin/env bash
# Card latency in the real desktop window (WebKitGTK under Xvfb): model chunk
# -> card in the DOM / painted, Submit -> next model request, and the card
# trace's hop table (tests/desktop/latency_bench_test.go); then the floor on
# the same display: bench/windowfloor, a bare Wails page appending one element
# per event emitted from Go, built here as Parley is (the same Wails and
# WebKitGTK). Prints figures; asserts no timings. Knobs: BENCH_WINDOW_ROUNDS
# (30), BENCH_WINDOW_WARMUP (3).
# PARLEY_BENCH_BEFORE=<an older parley binary> then also compares the two
# builds' card and Submit figures, in turns of BENCH_WINDOW_BLOCK (10)
# rounds (TestWindowCardLatencyBeforeAfter), and prints after/before.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
[ -z "${PARLEY_BENCH_BEFORE:-}" ] || [ -x "$PARLEY_BENCH_BEFORE" ] || die "PARLEY_BENCH_BEFORE=$PARLEY_BENCH_BEFORE is not an executable"
export PARLEY_ARTIFACTS="${PARLEY_ARTIFACTS:-$PWD/test-artifacts}"
mkdir -p "$PARLEY_ARTIFACTS"
if [ ! -x "${PARLEY_BIN:-build/bin/parley}" ]; then
  [ -d frontend/node_modules ] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
  build_app
fi
bin="$(realpath "${PARLEY_BIN:-build/bin/parley}")"
floor_dir="$(mktemp -d)"
go build -tags "desktop,production,$BUILD_TAGS" -o "$floor_dir/windowfloor" ./bench/windowfloor
XVFB_PID=""
trap '[ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null; rm -rf "$floor_dir"' EXIT
start_xvfb
rm -f "$PARLEY_ARTIFACTS/bench-window-trace.json"
PARLEY_BIN="$bin" WINDOW_FLOOR_BIN="$floor_dir/windowfloor" go test -count=1 -timeout 30m -tags desktop,bench -run '^TestWindowCardLatency$' -v ./tests/desktop/
node bench/window-trace-table.mjs "$PARLEY_ARTIFACTS/bench-window-trace.json"
if [ -n "${PARLEY_BENCH_BEFORE:-}" ]; then
  PARLEY_BIN="$bin" PARLEY_BENCH_BEFORE="$(realpath "$PARLEY_BENCH_BEFORE")" go test -count=1 -timeout 60m -tags desktop,bench -run '^TestWindowCardLatencyBeforeAfter$' -v ./tests/desktop/
fi
