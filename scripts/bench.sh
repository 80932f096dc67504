#!/usr/bin/env bash
# Runs Parley's benchmarks and prints their figures: the Go benchmarks of every
# package, then the bench scripts (BENCHTIME bounds each Go benchmark).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
scripts/setup.sh
step "Go benchmarks"
# With the SQLite driver the app ships (scripts/lib.sh).
go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-1s}" ${SQLITE_TAGS:+-tags "$SQLITE_TAGS"} ./...
for script in bench/*.sh; do
  [ -e "$script" ] || continue
  step "$script"
  "$script"
done
