#!/usr/bin/env bash
# Regenerates Parley's icons from build/icon.svg (needs ImageMagick).
set -euo pipefail
cd "$(dirname "$0")/.."
src=build/icon.svg
convert -background none -density 300 "$src" -resize 1024x1024 build/appicon.png
convert -background none -density 300 "$src" -define icon:auto-resize=256,128,64,48,32,16 build/windows/icon.ico
echo "icons written: build/appicon.png build/windows/icon.ico"
