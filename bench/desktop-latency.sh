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
# BENCH_WINDOW_JSPROFILE=<dir> runs the window under JavaScriptCore's
# sampling profiler (a sample a millisecond, written when each web process
# ends) and prints the functions of Parley's page that held the most
# samples; build with PARLEY_NO_MINIFY=1 to read their names.
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
jsprofile=()
if [ -n "${BENCH_WINDOW_JSPROFILE:-}" ]; then
  mkdir -p "$BENCH_WINDOW_JSPROFILE"
  rm -f "$BENCH_WINDOW_JSPROFILE"/JSCSampilingProfile-*.txt # (JavaScriptCore's spelling)
  jsprofile=(JSC_useSamplingProfiler=1 "JSC_samplingProfilerPath=$(realpath "$BENCH_WINDOW_JSPROFILE")" JSC_samplingProfilerTopFunctionsCount=40)
fi
env "${jsprofile[@]}" PARLEY_BIN="$bin" WINDOW_FLOOR_BIN="$floor_dir/windowfloor" go test -count=1 -timeout 30m -tags desktop,bench -run '^TestWindowCardLatency$' -v ./tests/desktop/
if [ -n "${BENCH_WINDOW_JSPROFILE:-}" ]; then
  # One file per JavaScript VM; Parley's page is the one with the most
  # samples (the bare windows' pages hold a few dozen).
  busiest="$(awk '/Total samples:/ { print $NF, FILENAME; nextfile }' "$BENCH_WINDOW_JSPROFILE"/JSCSampilingProfile-*.txt 2>/dev/null |
    sort -rn | head -1 | cut -d' ' -f2-)"
  [ -n "$busiest" ] || die "BENCH_WINDOW_JSPROFILE: JavaScriptCore wrote no profile into $BENCH_WINDOW_JSPROFILE"
  echo
  echo "Desktop window: JavaScript samples of Parley's page (1 ms each; the whole run, warm-up and typing included; $busiest):"
  grep -m1 'Total samples' "$busiest"
  sed -n '/^Top functions/,/^$/p' "$busiest"
  sed -n '/^Tier breakdown/,/^$/p' "$busiest" | head -20
fi
node bench/window-trace-table.mjs "$PARLEY_ARTIFACTS/bench-window-trace.json"
if [ -n "${PARLEY_BENCH_BEFORE:-}" ]; then
  PARLEY_BIN="$bin" PARLEY_BENCH_BEFORE="$(realpath "$PARLEY_BENCH_BEFORE")" go test -count=1 -timeout 60m -tags desktop,bench -run '^TestWindowCardLatencyBeforeAfter$' -v ./tests/desktop/
fi
