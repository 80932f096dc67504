#!/usr/bin/env bash
# Installs what Parley needs to build, run and test, and is quick when all of
# it is already there: Debian packages (GTK/WebKitGTK, SQLite's headers, Xvfb,
# Chromium, the WebKit WebDriver, NSIS, libffi8 for the built-in engine), the
# pinned Wails CLI, the frontend's npm packages, the MCP servers the Go tests
# run (tests/mcp) and the built-in engine's llama.cpp libraries
# (scripts/engine-libs.sh: npm pack, integrity-pinned, into build/engine/).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

APT_PACKAGES=(
  build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev libsqlite3-dev
  xvfb xauth x11-utils imagemagick xdotool chromium webkit2gtk-driver
  fonts-noto-color-emoji nsis poppler-utils locales libffi8
)
# What only the tests use (scripts/test.sh sets PARLEY_SETUP_TESTS=1): the
# package test's WebKitGTK 4.0 build and its checks of the packages.
if [ "${PARLEY_SETUP_TESTS:-}" = 1 ]; then
  APT_PACKAGES+=(libwebkit2gtk-4.0-dev file binutils p7zip-full)
fi

install_debian_packages() {
  local missing=() p
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null; then
    die "missing system packages (${missing[*]}) and no apt-get: see README.md for your platform"
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "need root (or sudo) to install: ${missing[*]}"
    sudo="sudo"
  fi
  step "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
}

install_wails() {
  # The output is read whole: `grep -q` in a pipe stops reading at the
  # match, wails dies of SIGPIPE, and pipefail made the check fail (so the
  # CLI was installed again on every run).
  local have=""
  [ -x "$WAILS" ] && have=$("$WAILS" version 2>/dev/null || true)
  case "$have" in "${WAILS_VERSION}"*) return 0 ;; esac
  step "installing the Wails CLI ${WAILS_VERSION}"
  go install "github.com/wailsapp/wails/v2/cmd/wails@${WAILS_VERSION}"
}

# npm_ci_cached DIR WHAT runs npm ci in DIR unless its lockfile is unchanged
# since the last run.
npm_ci_cached() {
  local dir=$1 what=$2 stamp="$1/node_modules/.parley-lock-hash" want
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  step "installing $what (npm ci)"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$stamp"
}

install_npm_packages() {
  npm_ci_cached frontend "frontend packages"
  # The real MCP servers (pinned) of the Go integration tests of backend/mcp.
  npm_ci_cached tests/mcp "the MCP test servers"
}

if [ "$(uname -s)" = "Linux" ]; then
  install_debian_packages
fi
install_wails
install_npm_packages
# The engine's libraries for this platform (only Linux x86-64 is pinned yet).
case "$(uname -s)-$(uname -m)" in Linux-x86_64) scripts/engine-libs.sh >/dev/null ;; esac
