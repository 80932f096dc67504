#!/usr/bin/env bash
# Runs Parley's benchmarks and prints their figures: the Go benchmarks of every
# package, then the bench scripts (BENCHTIME bounds each Go benchmark), then
# the summary of issue #17's figures with their targets (bench/summary.mjs).
# bench/engine.sh is issue #40's built-in engine bench (BENCH_SKIP=engine).
# A failing script is reported and the others still run; the exit status says
# whether all of them ran.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
scripts/setup.sh
export PARLEY_ARTIFACTS="${PARLEY_ARTIFACTS:-$PWD/test-artifacts}"
mkdir -p "$PARLEY_ARTIFACTS"
: > "$PARLEY_ARTIFACTS/bench-figures.jsonl"
failed=()
step "Go benchmarks"
# With the SQLite driver the app ships (scripts/lib.sh). One package at a
# time (-p 1): go test otherwise runs a package's benchmarks per core at once,
# and on two cores one benchmark's figures (the agent loop's ratio, the 10,000
# cards, the indexer's gated/plain ratio) were taken beside another package's
# CPU-bound indexing benchmark.
if ! go test -p 1 -run '^$' -bench "${BENCH_GO:-.}" -benchmem -benchtime "${BENCHTIME:-1s}" ${SQLITE_TAGS:+-tags "$SQLITE_TAGS"} ./... \
  | tee "$PARLEY_ARTIFACTS/go-bench.txt"; then
  failed+=("Go benchmarks")
fi
for script in bench/*.sh; do
  [ -e "$script" ] || continue
  case " ${BENCH_SKIP:-} " in *" $(basename "$script" .sh) "*) step "$script skipped (BENCH_SKIP)"; continue ;; esac
  step "$script"
  "$script" || failed+=("$script")
done
node bench/summary.mjs
if [ ${#failed[@]} -gt 0 ]; then
  echo "bench: failed: ${failed[*]}" >&2
  exit 1
fi
