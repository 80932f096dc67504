#!/usr/bin/env bash
# Puts the built-in engine's llama.cpp libraries (SPEC §12) in
# build/engine/<platform>/ (git-ignored), from the npm registry only:
# `npm pack @node-llama-cpp/<platform>@3.21.1`, checked against the
# registry's integrity hash pinned below, unpacked (bins/<platform>/*, without
# the Node addon and libllama-common, which only the addon uses), plus the names hybridgroup/yzma v1.28.0 loads
# (libllama.so and libggml.so on Linux). Quick when they are already there
# (a stamp holds the pinned hash). On Linux it also checks that Debian's
# libffi8 is installed (yzma calls the libraries through libffi; setup.sh
# installs it).
#
#   scripts/engine-libs.sh [PLATFORM]   default: this machine's (linux-x64);
#                                       also win-x64, win-arm64, mac-arm64-metal, mac-x64 (for the installers)
#
# Prints the folder. PARLEY_ENGINE_DIR points Parley at it (or at another
# set); tests find build/engine/<platform> themselves (backend/engine/libs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

# The one version whose C API matches yzma v1.28.0 (notes/wave4.md); 3.21.1 is
# also the newest the registry serves for win-x64 and mac-arm64-metal.
NLC_VERSION=3.21.1
declare -A INTEGRITY=(
  [linux-x64]=sha512-Totj6RTDMGo3FoK2yNUaz/oGmZD0olAqTrRluFUWmu0kW2i9TOzHSW0OWCAiGkzRCVX0WsU2CyUQo/W2NYtdPA==
  [win-x64]=sha512-JcIpCnra7bAd7JNWA8ehdn2DIRaTMuj+fBC8bw+5rKSNzszWFbuj2XA05c5QHovonDMBLN1ePXE/hcfZtzXoUQ==
  [mac-arm64-metal]=sha512-6MIDAZV7DXD9R1+jEXWJkFuolni3GATGE6mmuyFYc6ZmtOh9djAy15df0T0AXK3sCmVKL+fQcOAWZezxx4MvQQ==
  [mac-x64]=sha512-Q4nyNmbcNiKygBZQZjX+qLk2w3YzoiFpLWsxNURQN7xjyUi2p2rWxjRa7Otg0FrjGf/ri4aQ+X3Uj5Y0zD06eg==
  [win-arm64]=sha512-/UDR7Y0B8iKfc/tqxBmWkcgRdZQ9Wrkwod7fYl4J6iZXcTIj286RkHvZSED7VMY67TrcUXVvxJVMNFtmjeYnDg==
)

platform=${1:-}
if [ -z "$platform" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) platform=linux-x64 ;;
    *) die "no built-in engine libraries are pinned for $(uname -s)-$(uname -m) yet" ;;
  esac
fi
want=${INTEGRITY[$platform]:-}
[ -n "$want" ] || die "no integrity hash pinned for @node-llama-cpp/$platform@$NLC_VERSION"

dest=build/engine/$platform
stamp=$dest/.parley-integrity

check_libffi() {
  case "$platform" in linux-*) ;; *) return 0 ;; esac
  if ! dpkg-query -W -f='${Status}' libffi8 2>/dev/null | grep -q 'install ok installed' \
    && ! ldconfig -p 2>/dev/null | grep -q 'libffi\.so\.8'; then
    die "libffi8 is missing (the engine calls llama.cpp through it): apt-get install libffi8, or run scripts/setup.sh"
  fi
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -e "$dest/libllama.so" ]; then
  check_libffi
  echo "$dest"
  exit 0
fi

step "fetching the engine's llama.cpp libraries (@node-llama-cpp/$platform@$NLC_VERSION, npm pack)"
cache=${PARLEY_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parley-build}
mkdir -p "$cache"
tgz=$cache/node-llama-cpp-$platform-$NLC_VERSION.tgz
have_integrity() { [ -f "$1" ] && [ "sha512-$(openssl dgst -sha512 -binary "$1" | openssl base64 -A)" = "$want" ]; }
if ! have_integrity "$tgz"; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack "@node-llama-cpp/$platform@$NLC_VERSION" --silent >/dev/null)
  mv "$tmp"/node-llama-cpp-"$platform"-"$NLC_VERSION".tgz "$tgz"
fi
have_integrity "$tgz" || { rm -f "$tgz"; die "@node-llama-cpp/$platform@$NLC_VERSION does not match its pinned integrity hash"; }

rm -rf "$dest"
mkdir -p "$dest"
# GNU tar needs --wildcards for the pattern; bsdtar (macOS) takes patterns as they are.
wildcards=()
tar --version 2>/dev/null | grep -q 'GNU tar' && wildcards=(--wildcards)
tar -xzf "$tgz" -C "$dest" --strip-components=3 "${wildcards[@]}" "package/bins/$platform/*" --exclude '*.node' \
  --exclude 'libllama-common.*' --exclude 'llama-common.*' --exclude '*.lib' --exclude '_nlcBuildMetadata.json'
tar -xzf "$tgz" -O package/LICENSE >"$dest/LICENSE.node-llama-cpp"
case "$platform" in
  linux-*)
    # yzma loads libggml.so, libggml-base.so and libllama.so; the versioned
    # files' sonames stay what the libraries link against.
    ln -sf libllama.v0.4.0.so "$dest/libllama.so"
    ln -sf libggml.v0.4.0.so "$dest/libggml.so"
    ;;
  win-*)
    # yzma loads llama.dll and ggml.dll; llama imports ggml.v0.4.0.dll by
    # that name, and nothing imports llama's: it is renamed, ggml copied
    # (171 KB). The DLLs need the VC++ 2015-2022 runtime (the installer
    # makes sure it is there).
    mv "$dest/llama.v0.4.0.dll" "$dest/llama.dll"
    cp "$dest/ggml.v0.4.0.dll" "$dest/ggml.dll"
    ;;
  mac-*)
    # yzma loads libllama.dylib and libggml.dylib: mac-x64 has
    # libllama.v0.4.0.dylib, mac-arm64-metal libllama.metal.v0.4.0.dylib.
    for f in "$dest"/lib*.v0.4.0.dylib; do
      [ -e "$f" ] || continue
      base=$(basename "$f")
      ln -sf "$base" "$dest/${base%%.*}.dylib"
    done
    ;;
esac
echo "$want" >"$stamp"
check_libffi
echo "$dest"
