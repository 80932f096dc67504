#!/usr/bin/env bash
# Runs every test Parley has, after setting up what they need:
# go vet, Go tests with -race (with the SQLite driver the app ships), the
# store's tests with the other SQLite builds, short fuzzing runs, the frontend
# type-check and unit tests, browser end-to-end tests in Chromium (and
# WebKit), a smoke test of the real desktop window under Xvfb, and on Debian
# the package test (scripts/package-test.sh: .deb, tarball and Windows
# installer built, installed, started, updated from a signed loopback feed
# and removed; needs root or sudo -n;
# PARLEY_PACKAGE_TEST=0 skips it). Screenshots and logs go to
# test-artifacts/. FUZZTIME (default 100000x) bounds each fuzz target as a
# count of runs: a duration races Go's fuzz coordinator (go.dev/issue/75804,
# fixed only in Go 1.27) and fails with "context deadline exceeded" on a busy
# machine though no input failed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
export PARLEY_ARTIFACTS="$PWD/test-artifacts"
mkdir -p "$PARLEY_ARTIFACTS"
# Each step's start is recorded; the time of each is printed at the end,
# whether the run passed or not.
export PARLEY_STEP_TIMES="$PARLEY_ARTIFACTS/step-times.tsv"
: >"$PARLEY_STEP_TIMES"
XVFB_PID=""
trap '[ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null; step_summary test.sh' EXIT

# PARLEY_SETUP_TESTS: the packages only the tests use come in the same apt
# transaction as the rest (the package test's WebKitGTK 4.0 build, NSIS, 7-Zip).
step "setting up (scripts/setup.sh)"
PARLEY_SETUP_TESTS=1 scripts/setup.sh

step "go vet, gofmt"
go vet ./...
unformatted="$(gofmt -l $(git ls-files '*.go'))"
[ -z "$unformatted" ] || { echo "gofmt -l lists these files: run gofmt -w on them" >&2; echo "$unformatted" >&2; exit 1; }
if [ -n "$SQLITE_TAGS" ]; then go vet -tags "$SQLITE_TAGS" ./backend/store/...; fi

# The frontend's wire types are generated from the Go types (backend/api).
step "generated calls and wire types are current (go run ./cmd/wiregen)"
go run ./cmd/wiregen
git diff --exit-code -- frontend/src/api/ desktop/calls.gen.go && [ -z "$(git status --porcelain -- frontend/src/api/ desktop/calls.gen.go)" ] \
  || { echo "frontend/src/api or desktop/calls.gen.go is stale: run go run ./cmd/wiregen and commit them" >&2; exit 1; }

# SQLITE_TAGS (scripts/lib.sh) picks the SQLite driver the app is built with:
# on Linux the cgo driver over the system libsqlite3, as the packages ship.
step "Go tests (-race${SQLITE_TAGS:+, -tags $SQLITE_TAGS})"
go test -race -count=1 ${SQLITE_TAGS:+-tags "$SQLITE_TAGS"} ./...

# The store with the other SQLite builds: pure Go (CGO_ENABLED=0, as the
# Windows installer) and, on Linux, SQLite compiled in through cgo (as macOS).
step "store tests with the pure-Go SQLite driver (CGO_ENABLED=0)"
CGO_ENABLED=0 go test -count=1 ./backend/store/...
if [ "$SQLITE_TAGS" = sqlite_fts5,libsqlite3 ]; then
  step "store tests with SQLite compiled in through cgo (-tags sqlite_fts5)"
  go test -count=1 -tags sqlite_fts5 ./backend/store/...
fi

step "fuzzing (${FUZZTIME:-100000x} per target)"
for pkg in $(go list ./backend/...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "--- $pkg $target"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "${FUZZTIME:-100000x}" -fuzzminimizetime 1000x "$pkg"
  done
done

step "frontend type-check and unit tests"
(cd frontend && npm run --silent typecheck && npx vitest run)
# User-visible text in component templates comes from the catalogues
# (frontend/src/i18n/locales): the lint fails on a literal one.
step "i18n lint (frontend/scripts/lint-i18n.mjs)"
(cd frontend && node scripts/lint-i18n.mjs)

step "bench summary (node --test bench/)"
node --test bench/

# The frontend was type-checked above: the build makes the bundle only. The
# binary is built once, and used by the browser, MCP, window and package
# tests alike.
FRONTEND_CHECKED=1 build_app
# wails build regenerates its bindings; the checked-in ones must match.
step "Wails bindings are current"
git diff --exit-code -- frontend/wailsjs && [ -z "$(git status --porcelain -- frontend/wailsjs)" ] || { echo "frontend/wailsjs is stale: commit what wails build generated" >&2; exit 1; }

step "browser end-to-end tests"
(cd frontend && node --test --test-concurrency=1 e2e/)

step "the MCP server for agents against the official TypeScript SDK (tests/mcp)"
(cd tests/mcp && PARLEY_BIN="$PWD/../../build/bin/parley" node --test agents.test.mjs)
step "the MCP conformance suite's server scenarios against /mcp (Node 22 from tests/mcp)"
(cd tests/mcp && PARLEY_BIN="$PWD/../../build/bin/parley" node conformance-server.mjs)
step "the MCP conformance suite's client scenarios against Parley's MCP host (tests/mcp/conformanceclient)"
(cd tests/mcp && node conformance-client.mjs)

step "desktop smoke test under Xvfb"
start_xvfb
PARLEY_BIN="$PWD/build/bin/parley" go test -count=1 -tags desktop,sqlite_fts5,libsqlite3 -v ./tests/desktop/

if [ "${PARLEY_PACKAGE_TEST:-1}" = 0 ]; then
  step "package test skipped (PARLEY_PACKAGE_TEST=0)"
elif ! command -v dpkg >/dev/null; then
  step "package test skipped: it needs Debian or Ubuntu (dpkg, apt-get)"
else
  step "package test (scripts/package-test.sh)"
  # PARLEY_REUSE_BUILD: the packages carry the frontend bundle built above,
  # and their WebKitGTK 4.1 binaries are relinks of the binary every test
  # before ran, with their install kinds and the update keys.
  PARLEY_REUSE_BUILD=1 scripts/package-test.sh
fi

step "all tests passed"
