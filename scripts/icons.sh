#!/usr/bin/env bash
# Regenerates every icon from build/icon.svg, the one icon source:
#   build/icons/<N>x<N>.png  N = 16 22 24 32 48 64 128 256 512 1024 (hicolor names)
#   build/appicon.png        1024x1024, what `wails build` uses (and the macOS .app)
#   build/windows/icon.ico   16..256, the .exe and the NSIS installer
#   build/darwin/icon.icns   16..1024, for the macOS .app (release workflow)
# Needs ImageMagick (convert) and png2icns (Debian package icnsutils; installed
# here when missing and apt-get is at hand). The outputs are committed; running
# it again on the same machine rewrites the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."

src=build/icon.svg
sizes=(16 22 24 32 48 64 128 256 512 1024)
ico_sizes=(16 24 32 48 64 128 256)
icns_sizes=(16 32 48 128 256 512 1024)

need_icnsutils() {
  command -v png2icns >/dev/null && return 0
  command -v apt-get >/dev/null || { echo "error: png2icns missing (install icnsutils)" >&2; exit 1; }
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "==> installing icnsutils (png2icns)"
  $sudo apt-get install -y -q icnsutils >/dev/null 2>&1 \
    || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q icnsutils >/dev/null; }
}
command -v convert >/dev/null || { echo "error: ImageMagick's convert is missing" >&2; exit 1; }
need_icnsutils

# 8-bit RGBA PNGs without the time stamps ImageMagick adds, so reruns give the same bytes.
# shellcheck disable=SC2054 # the commas are ImageMagick option values
png_opts=(-strip -define png:exclude-chunks=date,time -define png:color-type=6 -define png:bit-depth=8)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Render once at 2048 px (twice the SVG's size) and scale down: smooth edges at every size.
convert -background none -density 192 "$src" -resize 2048x2048 "${png_opts[@]}" "PNG32:$tmp/master.png"

mkdir -p build/icons build/windows build/darwin
for n in "${sizes[@]}"; do
  convert "$tmp/master.png" -filter Lanczos -resize "${n}x${n}" "${png_opts[@]}" "PNG32:build/icons/${n}x${n}.png"
done
cp build/icons/1024x1024.png build/appicon.png

ico_in=()
for n in "${ico_sizes[@]}"; do ico_in+=("build/icons/${n}x${n}.png"); done
convert "${ico_in[@]}" build/windows/icon.ico

icns_in=()
for n in "${icns_sizes[@]}"; do icns_in+=("build/icons/${n}x${n}.png"); done
png2icns build/darwin/icon.icns "${icns_in[@]}" >/dev/null

echo "icons written: build/icons/{$(IFS=,; echo "${sizes[*]}")}.png build/appicon.png build/windows/icon.ico build/darwin/icon.icns"
