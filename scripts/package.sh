#!/usr/bin/env bash
# Builds Parley's installers and archives into dist/, with the version from
# `git describe` (or PARLEY_VERSION) built in (`parley version` prints it):
#   parley_<ver>_linux_amd64.tar.gz            binary, .desktop file, hicolor icons (WebKitGTK 4.1),
#                                              engine/ (the built-in engine's llama.cpp libraries)
#   parley_<ver>_amd64.deb                     Debian/Ubuntu package (WebKitGTK 4.1; the engine's
#                                              libraries in /usr/lib/parley/engine)
#   parley_<ver>_linux_amd64_webkit40.tar.gz   the same for WebKitGTK 4.0 (older distributions)
#   parley_<ver>_amd64_webkit40.deb
#   parley_<ver>_windows_amd64_installer.exe   NSIS installer (cross-built; needs makensis), with the
#                                              engine's DLLs beside Parley.exe and the VC++ runtime check
# <ver> is the Debian-safe version (packaging/version.sh), e.g. 1.2.3 for tag
# v1.2.3 or 0.1.0~git47.1b499ae without a tag.
# The Linux binaries use the system SQLite (libsqlite3-0, through cgo); the
# Windows one has SQLite built in (modernc.org/sqlite, pure Go): see
# backend/store/driver.go.
#
# Each package is built with its install kind and the update keys (SPEC
# §13: -X main.installKind=tar|deb|nsis, -X main.updateKeys from
# packaging/update-keys.txt or PARLEY_UPDATE_KEYS): the tarball's and the
# .deb's binaries differ only in the kind (the second is a relink, seconds).
# The WebKitGTK 4.0 build has no kind (it never updates itself: the feed
# offers one tarball and one .deb per architecture, the 4.1 ones).
# dist/stable.json is the update feed of what was built (sizes and sha256,
# URLs relative to the feed, or under PARLEY_FEED_BASE_URL), signed into
# dist/stable.json.minisig when PARLEY_RELEASE_KEY names a minisign secret
# key (its password in PARLEY_RELEASE_KEY_PASSWORD); unsigned otherwise,
# which Parley refuses. Release notes: PARLEY_RELEASE_NOTES, a folder of
# <lang>.md files (en is the fallback).
#
# PARLEY_TARGETS picks what to build (default: all three):
#   linux-webkit41 linux-webkit40 windows-amd64
# The builds run in a copy of the working tree (PARLEY_STAGE_DIR, default
# /tmp/parley-package-stage): the working tree is only read (build/bin,
# build/windows and frontend/dist stay untouched) and only dist/ is written.
# Ends with the sizes; exits 3 when the binary is over 22 MB or the installer
# over 13 MB (PARLEY_MAX_BINARY_MB, PARLEY_MAX_INSTALLER_MB; MB = 10^6 bytes);
# PARLEY_SIZE_CHECK=warn only reports it (the release workflow does).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source scripts/lib.sh
source packaging/version.sh
source packaging/update-keys.sh

TARGETS=${PARLEY_TARGETS:-linux-webkit41 linux-webkit40 windows-amd64}
STAGE=${PARLEY_STAGE_DIR:-${TMPDIR:-/tmp}/parley-package-stage}
DIST=$ROOT/dist
# 17 MB since the MCP host (SPEC §6): it was 15 MB, and the binary grew from
# 13.1 to 16.5 MB with the official MCP Go SDK and its dependencies, the JSON
# Schema validator (0.6 MB of it) and this version's other features.
MAX_BINARY_MB=${PARLEY_MAX_BINARY_MB:-22}
# 13 MB since the built-in engine (SPEC §12): llama.cpp's DLLs add 2.3 MB
# (9.5 -> 11.8 MB; README, Installers).
MAX_INSTALLER_MB=${PARLEY_MAX_INSTALLER_MB:-13}
# Icon sizes that the hicolor theme indexes (build/icons also has 1024 for macOS).
HICOLOR_SIZES=(16 22 24 32 48 64 128 256 512)

has() { case " $TARGETS " in *" $1 "*) return 0 ;; esac; return 1; }

for t in $TARGETS; do
  case $t in linux-webkit41|linux-webkit40|windows-amd64) ;; *) die "unknown target '$t' in PARLEY_TARGETS" ;; esac
done

# apt_need PKG...: installs Debian packages this script needs beyond scripts/setup.sh.
apt_need() {
  local missing=() p sudo=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || die "missing packages: ${missing[*]}"
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  step "installing Debian packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}" \
    || { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"; }
}

scripts/setup.sh
if has linux-webkit41 || has linux-webkit40; then
  apt_need libsqlite3-dev
  [ -n "$SQLITE_TAGS" ] || die "no SQLite build tags for $(uname -s) (scripts/lib.sh): the Linux packages are built on Linux"
fi
if has linux-webkit40; then apt_need libwebkit2gtk-4.0-dev; fi
if has windows-amd64; then command -v makensis >/dev/null || apt_need nsis; fi

parley_versions "$VERSION"
DEB_VERSION=$PARLEY_DEB_VERSION
NUM_VERSION=$PARLEY_NUM_VERSION
UPDATE_KEYS=$(parley_update_keys)
if [ -z "$UPDATE_KEYS" ]; then
  echo "warning: no update keys (packaging/update-keys.txt, PARLEY_UPDATE_KEYS): these packages will not update themselves" >&2
fi
# ldflags KIND: the version, the install kind and the update keys.
ldflags() {
  printf '%s' "-X main.version=${VERSION}${1:+ -X main.installKind=$1}${UPDATE_KEYS:+ -X main.updateKeys=${UPDATE_KEYS}}"
}
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
step "packaging Parley ${VERSION} (package version ${DEB_VERSION}, numeric ${NUM_VERSION}): ${TARGETS}"

mkdir -p "$DIST"
rm -rf "$DIST"/parley_* "$DIST/.work"
WORK=$DIST/.work
mkdir -p "$WORK"
umask 022

# The copy the builds run in: the working tree without VCS data, dependencies
# and outputs, with wails.json's productVersion set to the numeric version
# (Windows VERSIONINFO, the NSIS installer and the macOS bundle read it).
step "copying the tree to ${STAGE}"
case "$ROOT/" in "${STAGE%/}"/*) die "PARLEY_STAGE_DIR ($STAGE) must not contain the working tree" ;; esac
rm -rf "$STAGE"
mkdir -p "$STAGE"
tar -C "$ROOT" --exclude-vcs --exclude=./dist --exclude=./test-artifacts --exclude=./build/bin \
  --exclude=./parley --exclude=node_modules --exclude=./build/windows/installer/tmp \
  --exclude=./frontend/dist -cf - . \
  | tar -C "$STAGE" -xf -
node packaging/set-product-version.cjs "$STAGE/wails.json" "$NUM_VERSION"

# PARLEY_REUSE_BUILD=1 (scripts/test.sh, right after building and testing
# them): the working tree's frontend bundle goes into the packages as it
# is, and the WebKitGTK 4.1 binaries are relinks of build/bin/parley's build
# (the same flags as here, every package from Go's build cache) with their
# install kinds and keys, instead of being built again.
REUSE=""
if [ "${PARLEY_REUSE_BUILD:-}" = 1 ]; then
  [ -f "$ROOT/frontend/dist/index.html" ] || die "PARLEY_REUSE_BUILD: no frontend/dist/index.html to reuse"
  [ -x "$ROOT/build/bin/parley" ] || die "PARLEY_REUSE_BUILD: no build/bin/parley (scripts/test.sh builds it first)"
  REUSE=1
fi

# The frontend is built in the copy too (with the working tree's node_modules),
# so the working tree is only read: others may be building it meanwhile.
if [ -n "$REUSE" ]; then
  step "the frontend: the working tree's bundle"
  mkdir -p "$STAGE/frontend/dist"
  cp -a "$ROOT/frontend/dist/." "$STAGE/frontend/dist/"
else
  step "building the frontend"
  ln -s "$ROOT/frontend/node_modules" "$STAGE/frontend/node_modules"
  (cd "$STAGE/frontend" && npm run build --silent) >"$WORK/frontend.log" 2>&1 \
    || { cat "$WORK/frontend.log"; die "frontend build failed"; }
fi

# wails_build LOG KIND ARGS...: `wails build` in the stage, with the
# version, the install kind and the update keys built in.
wails_build() {
  local log=$WORK/$1.log kind=$2
  shift 2
  (cd "$STAGE" && "$WAILS" build -m -s -skipbindings -trimpath -clean \
      -ldflags "$(ldflags "$kind")" "$@") >"$log" 2>&1 \
    || { cat "$log"; die "wails build $* failed"; }
}

# relink DIR OUT TAGS KIND: the build of DIR (the stage after a wails build,
# or the working tree after build_app's) linked again with another kind.
relink() {
  local dir=$1 out=$2 tags=$3 kind=$4
  (cd "$dir" && relink_app "$out" "$tags" "$(ldflags "$kind")") >>"$WORK/relink.log" 2>&1 \
    || { cat "$WORK/relink.log"; die "relinking $out failed"; }
}

# The Linux builds use the cgo SQLite driver linked against the system
# libsqlite3 (SQLITE_TAGS, scripts/lib.sh), which WebKitGTK depends on too.
# 3.27 is the oldest SQLite with everything the store uses (VACUUM INTO,
# upserts, FTS5, JSON); Debian's and Ubuntu's are built with FTS5 and JSON.
SQLITE_DEB="libsqlite3-0 (>= 3.27)"

# --- The built-in engine (SPEC §12) -----------------------------------------
# Its llama.cpp libraries come from the npm registry (@node-llama-cpp/<platform>,
# pinned with their integrity hashes in scripts/engine-libs.sh, cached), are
# fetched into the stage's build/engine/<platform>, and are put where
# backend/engine/libs looks: engine/ beside the binary in the tarball,
# /usr/lib/parley/engine in the .deb, beside Parley.exe on Windows
# (build/windows/installer/parley_engine.nsh).
# What they (and the binary, through libffi) need beyond libc: checked with
# objdump -p (NEEDED: libstdc++.so.6, libgcc_s.so.1, libm, libc; the binary
# libffi.so.8) and objdump -T (GLIBCXX_3.4.29: GCC 11's libstdc++). The CPU
# set needs no libgomp and no libvulkan.
ENGINE_DEB="libffi8, libstdc++6 (>= 11), libgcc-s1"

# engine_libs PLATFORM: fetches the set into the stage; prints its folder.
engine_libs() {
  (cd "$STAGE" && scripts/engine-libs.sh "$1" >"$WORK/engine-libs-$1.log" 2>&1) \
    || { cat "$WORK/engine-libs-$1.log"; die "the engine's libraries for $1"; }
  echo "$STAGE/build/engine/$1"
}

# put_engine_libs DEST: the Linux set (symbolic links kept) in DEST.
put_engine_libs() {
  local src
  src=$(engine_libs linux-x64)
  mkdir -p "$1"
  cp -a "$src/." "$1/"
  rm -f "$1/.parley-integrity"
  find "$1" -type f -exec chmod 0644 {} +
}

# package_linux VARIANT TAGS WEBKIT_DEB SUFFIX KINDS: tarball and .deb of one
# Linux build; KINDS is "tar deb" (each binary with its install kind) or ""
# (a build that never updates itself).
package_linux() {
  local variant=$1 tags=$2 webkit_pkg=$3 suffix=$4 kinds=$5
  local tar_kind="" deb_kind=""
  [ -n "$kinds" ] && { tar_kind=tar; deb_kind=deb; }
  local bin=$WORK/$variant/parley debbin=$WORK/$variant/parley-deb
  mkdir -p "$WORK/$variant"
  if [ -n "$REUSE" ] && [ "$variant" = linux-webkit41 ]; then
    step "Linux amd64 (${variant}): build/bin/parley's build relinked per kind (${kinds:-none}), -tags ${tags}"
    relink "$ROOT" "$bin" "$tags" "$tar_kind"
    relink "$ROOT" "$debbin" "$tags" "$deb_kind"
  else
    step "Linux amd64 (${variant}): wails build -tags ${tags}, kinds: ${kinds:-none}"
    wails_build "$variant" "$tar_kind" -platform linux/amd64 -tags "$tags" -o parley
    cp "$STAGE/build/bin/parley" "$bin"
    if [ "$deb_kind" != "$tar_kind" ]; then
      relink "$STAGE" "$debbin" "$tags" "$deb_kind"
    else
      cp "$bin" "$debbin"
    fi
  fi
  local b
  for b in "$bin" "$debbin"; do
    [ "$("$b" version)" = "parley ${VERSION}" ] || die "$b version prints '$("$b" version)', want 'parley ${VERSION}'"
  done

  # Tarball: parley_<ver>_linux_amd64[_webkit40]/{parley,parley.desktop,icons/hicolor/...}
  local name=parley_${DEB_VERSION}_linux_amd64${suffix} n
  local tdir=$WORK/$variant/tar/$name
  mkdir -p "$tdir"
  install -m 0755 "$bin" "$tdir/parley"
  install -m 0644 packaging/linux/parley.desktop "$tdir/parley.desktop"
  for n in "${HICOLOR_SIZES[@]}"; do
    install -D -m 0644 "build/icons/${n}x${n}.png" "$tdir/icons/hicolor/${n}x${n}/apps/parley.png"
  done
  put_engine_libs "$tdir/engine"
  tar -C "$WORK/$variant/tar" --sort=name --owner=0 --group=0 --numeric-owner \
    --mtime="@${SOURCE_DATE_EPOCH}" -cf - "$name" | gzip -9n >"$DIST/$name.tar.gz"

  # .deb: /usr/bin/parley, the .desktop file, hicolor icons, maintainer scripts.
  local root=$WORK/$variant/deb
  install -D -m 0755 "$debbin" "$root/usr/bin/parley"
  install -D -m 0644 packaging/linux/parley.desktop "$root/usr/share/applications/parley.desktop"
  for n in "${HICOLOR_SIZES[@]}"; do
    install -D -m 0644 "build/icons/${n}x${n}.png" "$root/usr/share/icons/hicolor/${n}x${n}/apps/parley.png"
  done
  put_engine_libs "$root/usr/lib/parley/engine"
  mkdir -p "$root/DEBIAN"
  install -m 0755 packaging/deb/postinst packaging/deb/postrm "$root/DEBIAN/"
  local size
  size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
  cat >"$root/DEBIAN/control" <<EOF
Package: parley
Version: ${DEB_VERSION}
Architecture: amd64
Maintainer: Parley contributors <parley@users.noreply.github.com>
Installed-Size: ${size}
Depends: libc6, libgtk-3-0, ${webkit_pkg}, ${SQLITE_DEB}, ${ENGINE_DEB}
Section: utils
Priority: optional
Homepage: https://github.com/parley-app/parley
Description: local AI assistant that asks before it guesses
 Parley is a desktop chat app for local AI models (Ollama, llama.cpp's
 server, LM Studio or any OpenAI-compatible endpoint). When the model is
 unsure it asks you a question in the chat instead of guessing, and carries
 on with your answer.
 .
 This build uses WebKitGTK (${webkit_pkg}).
EOF
  (cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
  chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
  find "$root" -type d -exec chmod 0755 {} +
  dpkg-deb --root-owner-group -Zxz --build "$root" "$DIST/parley_${DEB_VERSION}_amd64${suffix}.deb" >/dev/null
  cp "$bin" "$DIST/.work/parley-${variant}"
}

package_windows() {
  # No SQLite tags: Windows builds use the pure-Go driver (no cgo needed).
  step "Windows amd64: wails build -nsis"
  command -v makensis >/dev/null || die "makensis not found (Debian package nsis)"
  engine_libs win-x64 >/dev/null # parley_engine.nsh takes the DLLs from build/engine/win-x64
  wails_build windows-amd64 nsis -platform windows/amd64 -nsis -webview2 download
  local inst=$STAGE/build/bin/Parley-amd64-installer.exe
  [ -f "$inst" ] || { cat "$WORK/windows-amd64.log"; die "no installer at $inst"; }
  cp "$inst" "$DIST/parley_${DEB_VERSION}_windows_amd64_installer.exe"
  cp "$STAGE/build/bin/parley.exe" "$WORK/parley-windows-amd64.exe"
}

if has linux-webkit41; then package_linux linux-webkit41 "webkit2_41,${SQLITE_TAGS}" libwebkit2gtk-4.1-0 "" "tar deb"; fi
if has linux-webkit40; then package_linux linux-webkit40 "${SQLITE_TAGS}" libwebkit2gtk-4.0-37 _webkit40 ""; fi
if has windows-amd64; then package_windows; fi

# The update feed of what was built (SPEC §13): the 4.1 tarball and .deb,
# the installer; signed when given a key. Only a release version (v1.2.3,
# v1.2.3-rc1: what Parley compares) has a feed.
rm -f "$DIST/stable.json" "$DIST/stable.json.minisig"
feed_args=(-version "$VERSION" -out "$DIST")
if [ -n "${PARLEY_FEED_BASE_URL:-}" ]; then feed_args+=(-base-url "$PARLEY_FEED_BASE_URL"); fi
artifacts=0
feed_artifact() { # feed_artifact KIND OS ARCH FILE
  if [ -f "$4" ]; then feed_args+=(-artifact "$1:$2:$3:$4"); artifacts=$((artifacts + 1)); fi
}
feed_artifact tar linux amd64 "$DIST/parley_${DEB_VERSION}_linux_amd64.tar.gz"
feed_artifact deb linux amd64 "$DIST/parley_${DEB_VERSION}_amd64.deb"
feed_artifact nsis windows amd64 "$DIST/parley_${DEB_VERSION}_windows_amd64_installer.exe"
if [ -n "${PARLEY_RELEASE_NOTES:-}" ]; then
  for f in "$PARLEY_RELEASE_NOTES"/*.md; do
    if [ -f "$f" ]; then feed_args+=(-notes "$(basename "$f" .md)=$f"); fi
  done
fi
if ! [[ $VERSION =~ ^v?[0-9]+\.[0-9]+ ]]; then
  step "update feed: none (${VERSION} is not a release version such as v1.2.3)"
elif [ "$artifacts" -eq 0 ]; then
  step "update feed: none (no package that updates itself was built)"
else
  step "update feed: dist/stable.json (${artifacts} artifacts)"
  (cd "$ROOT" && go build -o "$WORK/release-feed" ./cmd/release-feed) || die "building cmd/release-feed failed"
  if [ -n "${PARLEY_RELEASE_KEY:-}" ]; then
    "$WORK/release-feed" "${feed_args[@]}" -key "$PARLEY_RELEASE_KEY" || die "writing the signed feed failed"
  else
    "$WORK/release-feed" "${feed_args[@]}" 2>/dev/null || die "writing the feed failed"
    echo "warning: dist/stable.json is UNSIGNED (no PARLEY_RELEASE_KEY): Parley refuses an unsigned feed" >&2
  fi
fi

# Sizes, and the targets: binary <= 22 MB, installer <= 13 MB.
step "sizes"
over=0
mb() { awk -v b="$1" 'BEGIN { printf "%.2f MB", b / 1e6 }'; }
report() { # report LABEL FILE [LIMIT_MB]
  local label=$1 file=$2 limit=${3:-} bytes note=""
  [ -f "$file" ] || return 0
  bytes=$(stat -c %s "$file")
  if [ -n "$limit" ]; then
    if [ "$bytes" -le $((limit * 1000000)) ]; then note="(target <= ${limit} MB: ok)"; else note="(target <= ${limit} MB: OVER)"; over=1; fi
  fi
  printf '  %-34s %10s  %s  %s\n' "$label" "$(mb "$bytes")" "${file#"$ROOT"/}" "$note"
}
report "binary, linux amd64 (webkit 4.1)" "$WORK/parley-linux-webkit41" "$MAX_BINARY_MB"
report "binary, linux amd64 (webkit 4.0)" "$WORK/parley-linux-webkit40" "$MAX_BINARY_MB"
report "binary, windows amd64" "$WORK/parley-windows-amd64.exe"
for f in "$DIST"/parley_*; do
  case $f in
    *.deb) report ".deb" "$f" ;;
    *.tar.gz) report "tarball" "$f" ;;
    *installer.exe) report "installer, windows amd64" "$f" "$MAX_INSTALLER_MB" ;;
  esac
done
if [ "$over" -ne 0 ]; then
  if [ "${PARLEY_SIZE_CHECK:-enforce}" = warn ]; then
    echo "warning: a package is over its size target" >&2
  else
    echo "error: a package is over its size target" >&2
    exit 3
  fi
fi
step "packages in dist/"
