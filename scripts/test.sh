#!/usr/bin/env bash
# Runs every test Parley has, after setting up what they need:
# go vet, Go tests with -race, short fuzzing runs, the frontend type-check and
# unit tests, browser end-to-end tests in Chromium (and WebKit), and a smoke
# test of the real desktop window under Xvfb. Screenshots and logs go to
# test-artifacts/. FUZZTIME (default 10s) bounds each fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
export PARLEY_ARTIFACTS="$PWD/test-artifacts"
mkdir -p "$PARLEY_ARTIFACTS"
XVFB_PID=""
trap '[ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true' EXIT

scripts/setup.sh

step "go vet"
go vet ./...

step "Go tests (-race)"
go test -race -count=1 ./...

step "fuzzing (${FUZZTIME:-10s} per target)"
for pkg in $(go list ./backend/...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "--- $pkg $target"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "${FUZZTIME:-10s}" "$pkg"
  done
done

step "frontend type-check and unit tests"
(cd frontend && npm run --silent typecheck && npx vitest run)

build_app

step "browser end-to-end tests"
(cd frontend && node --test --test-concurrency=1 e2e/)

step "desktop smoke test under Xvfb"
start_xvfb
PARLEY_BIN="$PWD/build/bin/parley" go test -count=1 -tags desktop -v ./tests/desktop/

step "all tests passed"
