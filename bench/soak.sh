#!/usr/bin/env bash
# Memory of the desktop window (tests/desktop, -tags desktop,bench): its
# startup RSS/PSS next to the Wails template's window (built once with the
# pinned Wails CLI into ~/.cache/parley-bench/wails-template), then a soak of
# BENCH_SOAK_MINUTES (default 30) minutes of use sampled each minute, under
# Xvfb. Prints tables and records figures; asserts no memory.
# BENCH_SOAK_HEAP_DIR=<dir> also makes the app write Go heap profiles there.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
export PARLEY_BIN="${PARLEY_BIN:-$PWD/build/bin/parley}"
[ -x "$PARLEY_BIN" ] || build_app
export PARLEY_ARTIFACTS="${PARLEY_ARTIFACTS:-$PWD/test-artifacts}"

TEMPLATE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/parley-bench/wails-template"
export WAILS_TEMPLATE_BIN="$TEMPLATE_DIR/build/bin/wails-template"
if [ ! -x "$WAILS_TEMPLATE_BIN" ]; then
  step "building the Wails template window (wails init -t vanilla, once)"
  rm -rf "$TEMPLATE_DIR"
  mkdir -p "$(dirname "$TEMPLATE_DIR")"
  "$WAILS" init -n tmpl -t vanilla -d "$TEMPLATE_DIR" >/tmp/parley-template-init.log 2>&1 \
    || { cat /tmp/parley-template-init.log; die "wails init failed"; }
  # The same WebKitGTK (4.1) as Parley.
  (cd "$TEMPLATE_DIR" && "$WAILS" build -tags webkit2_41) >/tmp/parley-template-build.log 2>&1 \
    || { cat /tmp/parley-template-build.log; die "building the Wails template failed"; }
fi

start_xvfb
minutes="${BENCH_SOAK_MINUTES:-30}"
go test -count=1 -tags desktop,bench -v -timeout "$((minutes + 15))m" \
  -run '^(TestStartupMemoryVsTemplate|TestSoak)$' ./tests/desktop/
