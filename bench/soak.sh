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

# The Wails template, built once with the pinned CLI and the same WebKitGTK
# (4.1) as Parley: as generated (no Linux options, so Wails turns hardware
# acceleration off, as Parley does), and with Linux options (linux.Options{},
# which Wails v2.16 turns into WEBKIT_HARDWARE_ACCELERATION_POLICY_ALWAYS).
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/parley-bench"
build_template() { # dir, with Linux options (0/1)
  local dir="$1"
  # wails init names the binary after the folder.
  [ -x "$dir/build/bin/$(basename "$dir")" ] && return 0
  step "building the Wails template window in $dir (once)"
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  "$WAILS" init -n tmpl -t vanilla -d "$dir" >/tmp/parley-template-init.log 2>&1 \
    || { cat /tmp/parley-template-init.log; die "wails init failed"; }
  if [ "$2" = 1 ]; then
    sed -i -e 's#"github.com/wailsapp/wails/v2/pkg/options/assetserver"#&\n\t"github.com/wailsapp/wails/v2/pkg/options/linux"#' \
      -e 's#^\t\tTitle: .*#&\n\t\tLinux: \&linux.Options{ProgramName: "tmpl"},#' "$dir/main.go"
    grep -q 'linux.Options' "$dir/main.go" || die "could not give the template Linux options"
  fi
  (cd "$dir" && "$WAILS" build -tags webkit2_41) >/tmp/parley-template-build.log 2>&1 \
    || { cat /tmp/parley-template-build.log; die "building the Wails template failed"; }
}
build_template "$CACHE/wails-template" 0
build_template "$CACHE/wails-template-linux-options" 1
export WAILS_TEMPLATE_BIN="$CACHE/wails-template/build/bin/wails-template"
export WAILS_TEMPLATE_GPU_BIN="$CACHE/wails-template-linux-options/build/bin/wails-template-linux-options"

start_xvfb
minutes="${BENCH_SOAK_MINUTES:-30}"
go test -count=1 -tags desktop,bench -v -timeout "$((minutes + 15))m" \
  -run '^(TestStartupMemoryVsTemplate|TestSoak)$' ./tests/desktop/
