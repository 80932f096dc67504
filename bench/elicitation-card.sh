#!/usr/bin/env bash
# Time from an MCP server's `elicitation/create` to the elicitation card in
# the DOM: `parley serve`, the real server-everything behind a timing
# pass-through, the built UI in Chromium (see bench/elicitation-card.mjs;
# BENCH_ROUNDS). Prints p50/p95; asserts no timings.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
need_app_and_browser
[ -d tests/mcp/node_modules/@modelcontextprotocol/server-everything ] || (cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)
export PARLEY_ARTIFACTS="${PARLEY_ARTIFACTS:-$PWD/test-artifacts}"
exec node bench/elicitation-card.mjs "$@"
