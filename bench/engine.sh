#!/usr/bin/env bash
# The built-in engine's bench (issue #40; bench/engine/bench.mjs says what
# it measures): Parley's engine against node-llama-cpp 3.21.1 on the same
# llama.cpp libraries and a generated GGUF of ENGINE_BENCH_MB (500) MB.
# node-llama-cpp is a bench-only package (bench/engine/package.json and its
# lockfile), installed here, never by the test command: without optional
# packages (the other platforms' and the CUDA/Vulkan binaries), without
# install scripts, NODE_LLAMA_CPP_SKIP_DOWNLOAD=true: nothing is downloaded
# or built beyond the pinned tarballs. Prints figures; asserts no timings.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
export PARLEY_ENGINE_DIR="${PARLEY_ENGINE_DIR:-$(scripts/engine-libs.sh | tail -1)}"
export NODE_LLAMA_CPP_SKIP_DOWNLOAD=true
lock=$(sha256sum bench/engine/package-lock.json | cut -d' ' -f1)
if [ "$(cat bench/engine/node_modules/.parley-lock 2>/dev/null)" != "$lock" ]; then
  (cd bench/engine && npm ci --omit=optional --ignore-scripts --no-audit --no-fund)
  echo "$lock" >bench/engine/node_modules/.parley-lock
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/parley-engine" ./cmd/parley-engine
go build -o "$bin/gobench" ./bench/engine/gobench
df -h "${ENGINE_BENCH_TMP:-${TMPDIR:-/tmp}}" | tail -1
ENGINE_BENCH_BIN=$bin node bench/engine/bench.mjs
