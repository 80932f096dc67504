#!/usr/bin/env bash
# shellcheck disable=SC2016 # the bash -c checks below take their values as arguments
# Builds Parley's packages (scripts/package.sh) and tests them: the .deb's
# control fields and contents, the tarball, installing the .deb with apt
# (dependencies resolved), `parley version` from PATH, the installed app's
# window under Xvfb (screenshot: test-artifacts/package-installed.png), a clean
# exit on SIGTERM, `dpkg -r parley`, and the NSIS installer (a PE32 executable
# carrying Parley's name and version). Ends with the sizes and the time taken.
# Updates (SPEC §13): the packages are built with a throwaway minisign key
# pair made for the run (its secret deleted at the end), as version N (the
# tree's version when it is a release such as v1.2.3, else v<x.y.z> from
# wails.json); package.sh's dist/stable.json is checked (sizes, sha256, its
# signature). N+1 (x.y.z+1) is N's build relinked with another -X
# main.version and packed as N's tarball and .deb; its signed feed is served
# on 127.0.0.1, and the installed tarball and the installed .deb (through
# apt-get, run by the updater itself as root: no consent prompt; a desktop
# user gets pkexec's) are updated end to end with `parley update --yes`:
# `parley version` N then N+1, the conversations made by N intact. A
# tampered download and an unreachable feed change nothing (exit 3, exit 1).
# Needs Debian (apt-get, dpkg) and root for installing and removing: run as
# root, or as a user who may run `sudo -n` (only apt-get and dpkg run through
# it; the builds and the app run as that user).
# Prints "N passed, N failed" and exits non-zero on any failure.
# PARLEY_TARGETS is passed on to package.sh; its windows-amd64 target enables
# the installer checks.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
source scripts/lib.sh
source packaging/version.sh

ART="$PWD/test-artifacts"
mkdir -p "$ART"
LOG="$ART/package-test.log"
: >"$LOG"
TARGETS=${PARLEY_TARGETS:-linux-webkit41 linux-webkit40 windows-amd64}
export PARLEY_TARGETS=$TARGETS
# One version for the build and the checks, even if the tree changes
# meanwhile: a release version (the updater compares them), N; and N+1.
parley_versions "$VERSION"
if ! [[ $VERSION =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]]; then
  VERSION=v$PARLEY_NUM_VERSION
fi
export PARLEY_VERSION=$VERSION
parley_versions "$VERSION"
DEB_VERSION=$PARLEY_DEB_VERSION
NUM_VERSION=$PARLEY_NUM_VERSION
IFS=. read -r _a _b _c <<<"$NUM_VERSION"
NEXT_VERSION=v$_a.$_b.$((_c + 1))
parley_versions "$NEXT_VERSION"
NEXT_DEB_VERSION=$PARLEY_DEB_VERSION

START=$SECONDS
if ! command -v dpkg >/dev/null || ! command -v apt-get >/dev/null; then
  die "the package test needs Debian or Ubuntu (apt-get and dpkg)"
fi
# SUDO runs the commands that install and remove packages.
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
  else
    die "the package test installs and removes the parley package: run it as root, or as a user who may use sudo without a password (sudo -n)"
  fi
fi

PASS=0 FAIL=0
FAILED=()
XVFB_PID="" APP_PID="" INSTALLED_BY_US="" SERVE_PID="" FEED_PID=""
# The update test's key pair, feeds and installs (the secret key goes with it).
UPD=$(mktemp -d)
cleanup() {
  [ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null
  [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null
  [ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null
  "${SUDO[@]}" rm -rf "$UPD"
  if [ -n "$INSTALLED_BY_US" ] && dpkg-query -W -f='${Status}' parley 2>/dev/null | grep -q 'ok installed'; then
    "${SUDO[@]}" dpkg -r parley >>"$LOG" 2>&1
  fi
  return 0
}
trap cleanup EXIT

# check NAME COMMAND...: runs COMMAND (output to the log) and counts the result.
check() {
  local name=$1
  shift
  printf '\n--- %s: %s\n' "$name" "$*" >>"$LOG"
  if "$@" >>"$LOG" 2>&1; then
    PASS=$((PASS + 1))
    printf '  ok    %s\n' "$name"
  else
    FAIL=$((FAIL + 1))
    FAILED+=("$name")
    printf '  FAIL  %s\n' "$name"
  fi
}
has() { case " $TARGETS " in *" $1 "*) return 0 ;; esac; return 1; }
# contains TEXT PATTERN: grep -E on a string, shown in the log.
contains() { printf '%s\n' "$1" | grep -E -- "$2"; }

step "installing the tools the checks use"
missing=()
for p in file binutils p7zip-full x11-utils xdotool imagemagick xvfb; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >>"$LOG" 2>&1 \
    || { "${SUDO[@]}" apt-get update -q >>"$LOG" 2>&1 && "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >>"$LOG" 2>&1; }
fi

step "a throwaway update key pair (cmd/release-feed -genkey)"
go build -o "$UPD/release-feed" ./cmd/release-feed || die "building cmd/release-feed failed"
TEST_KEY=$("$UPD/release-feed" -genkey "$UPD/key" 2>>"$LOG") || die "release-feed -genkey failed"
mkdir -p "$UPD/notes"
printf 'Faster answers.\n' >"$UPD/notes/en.md"
printf 'Schnellere Antworten.\n' >"$UPD/notes/de.md"
export PARLEY_UPDATE_KEYS=$TEST_KEY PARLEY_RELEASE_KEY=$UPD/key/parley-release.key PARLEY_RELEASE_NOTES=$UPD/notes

step "building the packages (scripts/package.sh, version ${VERSION} -> ${DEB_VERSION})"
scripts/package.sh 2>&1 | tee "$ART/package-build.log"
rc=${PIPESTATUS[0]}
step "checks"
if [ "$rc" -eq 3 ]; then
  check "package.sh built every package" true
  check "sizes within targets (binary <= ${PARLEY_MAX_BINARY_MB:-22} MB, installer <= ${PARLEY_MAX_INSTALLER_MB:-13} MB)" false
else
  check "package.sh built every package" test "$rc" -eq 0
  check "sizes within targets (binary <= ${PARLEY_MAX_BINARY_MB:-22} MB, installer <= ${PARLEY_MAX_INSTALLER_MB:-13} MB)" test "$rc" -eq 0
fi

DEB=dist/parley_${DEB_VERSION}_amd64.deb
TARBALL=dist/parley_${DEB_VERSION}_linux_amd64.tar.gz
INSTALLER=dist/parley_${DEB_VERSION}_windows_amd64_installer.exe

# --- the .deb, before installing it
deb_field() { dpkg-deb --field "$DEB" "$1" 2>/dev/null; }
check ".deb exists ($DEB)" test -s "$DEB"
check "dpkg-deb --info reads it" dpkg-deb --info "$DEB"
check ".deb Package: parley" test "$(deb_field Package)" = parley
check ".deb Version: $DEB_VERSION (valid, starts with a digit)" \
  bash -c '[ "$1" = "$2" ] && dpkg --validate-version "$1" && [[ $1 =~ ^[0-9] ]]' _ "$(deb_field Version)" "$DEB_VERSION"
check ".deb Architecture: amd64" test "$(deb_field Architecture)" = amd64
check ".deb Depends on libgtk-3-0 and libwebkit2gtk-4.1-0" \
  contains "$(deb_field Depends)" '(^|, )libgtk-3-0(,|$).*libwebkit2gtk-4\.1-0|libwebkit2gtk-4\.1-0.*libgtk-3-0'
check ".deb Depends on libsqlite3-0 (the system SQLite the binary links)" \
  contains "$(deb_field Depends)" '(^|, )libsqlite3-0( \(>= [0-9.]+\))?(,|$)'
check ".deb Maintainer, Section, Priority, Description, Installed-Size" \
  bash -c 'for f in Maintainer Section Priority Description Installed-Size; do [ -n "$(dpkg-deb --field "$0" $f)" ] || { echo "no $f"; exit 1; }; done' "$DEB"
CONTENTS=$(dpkg-deb --contents "$DEB" 2>/dev/null)
check ".deb has /usr/bin/parley (root, 0755)" contains "$CONTENTS" '^-rwxr-xr-x root/root .* \./usr/bin/parley$'
check ".deb has /usr/share/applications/parley.desktop" contains "$CONTENTS" ' \./usr/share/applications/parley\.desktop$'
check ".deb has hicolor icons 16..512" bash -c '
  for n in 16 22 24 32 48 64 128 256 512; do
    grep -q " \./usr/share/icons/hicolor/${n}x${n}/apps/parley\.png$" <<<"$1" || { echo "no ${n}x${n}"; exit 1; }
  done' _ "$CONTENTS"
# (a symbolic link's line ends in " -> target": the path is before it)
check ".deb has only /usr files" bash -c '! sed "s/ -> .*//" <<<"$1" | awk "{print \$NF}" | grep -v -E "^\./(usr(/.*)?)?$"' _ "$CONTENTS"
check ".deb postinst and postrm refresh the caches" bash -c '
  d=$(mktemp -d); dpkg-deb --control "$1" "$d/c" &&
  grep -q update-desktop-database "$d/c/postinst" && grep -q gtk-update-icon-cache "$d/c/postinst" &&
  grep -q update-desktop-database "$d/c/postrm" && sh -n "$d/c/postinst" && sh -n "$d/c/postrm"; r=$?; rm -rf "$d"; exit $r' _ "$DEB"

# --- the tarball
check "tarball exists ($TARBALL)" test -s "$TARBALL"
TARDIR=$(mktemp -d)
tar -C "$TARDIR" -xzf "$TARBALL" 2>>"$LOG"
TROOT=$TARDIR/parley_${DEB_VERSION}_linux_amd64
check "tarball has parley, parley.desktop and icons" \
  test -x "$TROOT/parley" -a -f "$TROOT/parley.desktop" -a -f "$TROOT/icons/hicolor/256x256/apps/parley.png"
check "tarball's parley prints 'parley ${VERSION}'" test "$("$TROOT/parley" version 2>&1)" = "parley ${VERSION}"
check "tarball's parley links the system libsqlite3 and has no SQLite of its own" bash -c '
  ldd "$1" | grep -E "libsqlite3\.so\.0 => /" && ! nm -D --defined-only "$1" | grep -E " sqlite3_(open|prepare)"' _ "$TROOT/parley"
desktop_ok() {
  local f=$1 kv
  for kv in 'Type=Application' 'Name=Parley' 'Exec=parley' 'Icon=parley' 'Categories=Utility;Chat;' 'StartupWMClass=parley'; do
    grep -qxF "$kv" "$f" || { echo "missing $kv"; return 1; }
  done
  if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$f"; fi
}
check ".desktop file has Name, Exec, Icon, Categories, StartupWMClass" desktop_ok "$TROOT/parley.desktop"
check "the tarball's parley has the update key built in" bash -c '
  strings "$1" | grep -qxF "$2"' _ "$TROOT/parley" "$TEST_KEY"
rm -rf "$TARDIR"

# --- the update feed package.sh wrote (SPEC §13)
FEED_FILES=("$DEB" "$TARBALL")
has windows-amd64 && FEED_FILES+=("$INSTALLER")
check "dist/stable.json and its signature dist/stable.json.minisig" test -s dist/stable.json -a -s dist/stable.json.minisig
check "stable.json lists the .deb, the tarball$(has windows-amd64 && echo ' and the installer') with their sizes and sha256" \
  node scripts/update-test.mjs feed dist/stable.json "${FEED_FILES[@]}"
check "stable.json: version ${VERSION}, kinds deb, tar$(has windows-amd64 && echo ', nsis'), the notes in English and German" bash -c '
  grep -q "\"version\": \"$1\"" dist/stable.json && grep -q "\"kind\": \"deb\"" dist/stable.json && grep -q "\"kind\": \"tar\"" dist/stable.json &&
  { [ "$2" = 0 ] || grep -q "\"kind\": \"nsis\"" dist/stable.json; } && grep -q "Schnellere Antworten." dist/stable.json' _ "$VERSION" "$(has windows-amd64 && echo 1 || echo 0)"
if has linux-webkit40; then
  check "WebKitGTK 4.0 tarball and .deb exist" \
    test -s "dist/parley_${DEB_VERSION}_linux_amd64_webkit40.tar.gz" -a -s "dist/parley_${DEB_VERSION}_amd64_webkit40.deb"
  check "WebKitGTK 4.0 .deb depends on libwebkit2gtk-4.0-37 and libsqlite3-0" \
    contains "$(dpkg-deb --field "dist/parley_${DEB_VERSION}_amd64_webkit40.deb" Depends 2>/dev/null)" 'libwebkit2gtk-4\.0-37.*libsqlite3-0'
fi

# --- updates (SPEC §13): helpers
export PARLEY_TOKEN=package-test-token-0123456789abcdef0123
# No automatic check leaves the machine: the servers that only hold data
# look for their feed on a closed port.
NOWHERE=http://127.0.0.1:9
# start_serve BIN DATA [PREFIX...]: `parley serve` in the background (PREFIX
# runs it: sudo, env); sets SERVE_URL and SERVE_PID.
start_serve() {
  local bin=$1 data=$2 log=$UPD/serve.log i
  shift 2
  : >"$log"
  "$@" "$bin" serve --data-dir "$data" --addr 127.0.0.1:0 --token "$PARLEY_TOKEN" >"$log" 2>&1 &
  SERVE_PID=$!
  SERVE_URL=""
  for i in $(seq 300); do
    SERVE_URL=$(grep -oE 'serving on http://127\.0\.0\.1:[0-9]+' "$log" | head -n1 | sed 's/^serving on //')
    [ -n "$SERVE_URL" ] && return 0
    kill -0 "$SERVE_PID" 2>/dev/null || { echo "parley serve exited:"; cat "$log"; SERVE_PID=""; return 1; }
    sleep 0.1
  done
  echo "parley serve did not start:"; cat "$log"; return 1
}
stop_serve() {
  [ -n "$SERVE_PID" ] || return 0
  kill -TERM "$SERVE_PID" 2>/dev/null
  wait "$SERVE_PID"
  SERVE_PID=""
}
# seed BIN DATA OUT [PREFIX...]: conversations made by BIN in DATA, dumped into OUT.
seed() {
  local bin=$1 data=$2 out=$3
  shift 3
  start_serve "$bin" "$data" "$@" env PARLEY_UPDATE_URL=$NOWHERE || return 1
  node scripts/update-test.mjs seed "$SERVE_URL" >"$out"
  local rc=$?
  stop_serve
  cat "$out"
  return $rc
}
# same BIN DATA BEFORE VERSION [PREFIX...]: BIN on DATA is VERSION with BEFORE's conversations.
same() {
  local bin=$1 data=$2 before=$3 version=$4
  shift 4
  start_serve "$bin" "$data" "$@" env PARLEY_UPDATE_URL=$NOWHERE || return 1
  node scripts/update-test.mjs same "$SERVE_URL" "$before" "$version"
  local rc=$?
  stop_serve
  return $rc
}
# expect_rc RC PATTERN COMMAND...: COMMAND exits RC and says PATTERN (stdout and stderr).
expect_rc() {
  local want=$1 pattern=$2 out rc
  shift 2
  out=$("$@" 2>&1)
  rc=$?
  printf '%s\n(exit %s)\n' "$out" "$rc"
  [ "$rc" -eq "$want" ] && grep -qE -- "$pattern" <<<"$out"
}

# --- N+1: N's build relinked with another version, packed as N's packages,
# its feed signed with the test key; and a feed whose download is tampered.
# The relink runs where package.sh built (its Go build cache): the working
# tree after build_app (PARLEY_REUSE_BUILD), else package.sh's stage.
RELINK_DIR=${PARLEY_STAGE_DIR:-${TMPDIR:-/tmp}/parley-package-stage}
[ "${PARLEY_REUSE_BUILD:-}" = 1 ] && RELINK_DIR=$PWD
NEXT_TAR=parley_${NEXT_DEB_VERSION}_linux_amd64
NEXT_DEB=parley_${NEXT_DEB_VERSION}_amd64.deb
make_next() {
  local keys="-X main.updateKeys=$TEST_KEY" t=$UPD/next/tar d=$UPD/next/deb
  (cd "$RELINK_DIR" && relink_app "$UPD/next/parley-tar" "webkit2_41,${SQLITE_TAGS}" "-X main.version=$NEXT_VERSION -X main.installKind=tar $keys" &&
    relink_app "$UPD/next/parley-deb" "webkit2_41,${SQLITE_TAGS}" "-X main.version=$NEXT_VERSION -X main.installKind=deb $keys") || return 1
  mkdir -p "$t" "$UPD/www/good" "$UPD/www/hostile" || return 1
  tar -C "$t" -xzf "$TARBALL" && mv "$t/parley_${DEB_VERSION}_linux_amd64" "$t/$NEXT_TAR" &&
    install -m 0755 "$UPD/next/parley-tar" "$t/$NEXT_TAR/parley" &&
    tar -C "$t" --owner=0 --group=0 --numeric-owner -czf "$UPD/www/good/$NEXT_TAR.tar.gz" "$NEXT_TAR" || return 1
  dpkg-deb -R "$DEB" "$d" && install -m 0755 "$UPD/next/parley-deb" "$d/usr/bin/parley" &&
    sed -i "s/^Version: .*/Version: ${NEXT_DEB_VERSION}/" "$d/DEBIAN/control" &&
    (cd "$d" && find usr -type f -print0 | sort -z | xargs -0 md5sum >DEBIAN/md5sums) &&
    dpkg-deb --root-owner-group -Zgzip --build "$d" "$UPD/www/good/$NEXT_DEB" || return 1
  "$UPD/release-feed" -version "$NEXT_VERSION" -out "$UPD/www/good" -key "$PARLEY_RELEASE_KEY" \
    -notes "en=$UPD/notes/en.md" -notes "de=$UPD/notes/de.md" \
    -artifact "tar:linux:amd64:$UPD/www/good/$NEXT_TAR.tar.gz" -artifact "deb:linux:amd64:$UPD/www/good/$NEXT_DEB" || return 1
  cp "$UPD/www/good/"* "$UPD/www/hostile/" &&
    printf 'tampered-bytes!!' | dd of="$UPD/www/hostile/$NEXT_TAR.tar.gz" bs=1 seek=$(($(stat -c %s "$TARBALL") / 2)) conv=notrunc status=none &&
    ln -s "$PWD/dist" "$UPD/www/dist"
}
UPDATES_START=$SECONDS
check "N+1 ($NEXT_VERSION): N's build relinked, packed as N's tarball and .deb, its feed signed" make_next
start_feed() {
  node scripts/update-test.mjs serve "$UPD/www" >"$UPD/feed-url" 2>&1 &
  FEED_PID=$!
  local i
  for i in $(seq 100); do
    FEED=$(head -n1 "$UPD/feed-url")
    [[ $FEED == http://* ]] && return 0
    sleep 0.1
  done
  cat "$UPD/feed-url"; return 1
}
FEED=""
check "the feeds served on 127.0.0.1" start_feed

# --- the installed tarball, updated in place
mkdir -p "$UPD/inst" && tar -C "$UPD/inst" -xzf "$TARBALL" 2>>"$LOG"
TBIN=$UPD/inst/parley_${DEB_VERSION}_linux_amd64/parley
TDATA=$UPD/data-tar
TSUM=$(sha256sum "$TBIN" | cut -d' ' -f1)
check "the installed tarball ($VERSION) finds package.sh's signed feed of its own version: up to date" \
  expect_rc 0 "Parley $VERSION is up to date" env PARLEY_UPDATE_URL="$FEED/dist" "$TBIN" update --check --data-dir "$UPD/data-dist"
check "the installed tarball ($VERSION) makes two conversations (one with a reply)" seed "$TBIN" "$TDATA" "$UPD/before-tar.json"
check "a feed whose download was tampered: refused, exit 3, the reason on stderr" \
  expect_rc 3 "refused: the download's sha256 .* does not match" env PARLEY_UPDATE_URL="$FEED/hostile" "$TBIN" update --yes --data-dir "$TDATA"
check "an unreachable feed: exit 1" expect_rc 1 "cannot reach the update feed" env PARLEY_UPDATE_URL=$NOWHERE "$TBIN" update --check --data-dir "$TDATA"
check "...and nothing changed on disk (the binary, no backup, nothing staged)" bash -c '
  [ "$(sha256sum "$1" | cut -d" " -f1)" = "$2" ] && [ ! -e "$1.old" ] && [ -z "$(ls -A "$3/update/staging" 2>/dev/null)" ]' _ "$TBIN" "$TSUM" "$TDATA"
check "parley update --check offers $NEXT_VERSION" \
  expect_rc 0 "Parley $NEXT_VERSION is available" env PARLEY_UPDATE_URL="$FEED/good" "$TBIN" update --check --data-dir "$TDATA"
check "parley update --yes installs $NEXT_VERSION in place" \
  expect_rc 0 "Updated to $NEXT_VERSION" env PARLEY_UPDATE_URL="$FEED/good" "$TBIN" update --yes --data-dir "$TDATA"
check "parley version: $VERSION before, $NEXT_VERSION now (the previous binary kept as parley.old)" bash -c '
  [ "$("$1" version)" = "parley $2" ] && [ "$("$1.old" version)" = "parley $3" ]' _ "$TBIN" "$NEXT_VERSION" "$VERSION"
same_and_copied() { same "$@" && ls -l "$2/parley.db.pre-$4" && [ -f "$2/parley.db.pre-$4" ]; }
check "$NEXT_VERSION starts on the data of $VERSION: every conversation intact, the database copied first" \
  same_and_copied "$TBIN" "$TDATA" "$UPD/before-tar.json" "$NEXT_VERSION"
check "$NEXT_VERSION finds itself up to date" \
  expect_rc 0 "Parley $NEXT_VERSION is up to date" env PARLEY_UPDATE_URL="$FEED/good" "$TBIN" update --check --data-dir "$TDATA"
UPDATES_TIME=$((SECONDS - UPDATES_START))

# --- install with apt, run from PATH
if dpkg-query -W -f='${Status}' parley 2>/dev/null | grep -q 'ok installed'; then
  "${SUDO[@]}" dpkg -r parley >>"$LOG" 2>&1   # a left-over from an earlier run: start clean
fi
INSTALLED_BY_US=1
check "apt-get install ./$(basename "$DEB")" \
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "./$DEB"
check "dpkg lists parley $DEB_VERSION as installed" \
  test "$(dpkg-query -W -f='${Status} ${Version}' parley 2>/dev/null)" = "install ok installed $DEB_VERSION"
check "parley is on PATH at /usr/bin/parley" test "$(command -v parley)" = /usr/bin/parley
check "parley version prints 'parley ${VERSION}'" test "$(parley version 2>&1)" = "parley ${VERSION}"
check "installed .desktop file and 256x256 icon" \
  test -f /usr/share/applications/parley.desktop -a -f /usr/share/icons/hicolor/256x256/apps/parley.png

# --- the installed app's window under Xvfb
window_test() {
  start_xvfb || return 1
  local data wid="" i status
  data=$(mktemp -d)
  parley --data-dir "$data" >"$ART/package-installed-app.log" 2>&1 &
  APP_PID=$!
  for i in $(seq 300); do
    wid=$(xdotool search --name '^Parley$' 2>/dev/null | head -n1)
    [ -n "$wid" ] && break
    kill -0 "$APP_PID" 2>/dev/null || { echo "parley exited before showing a window"; cat "$ART/package-installed-app.log"; return 1; }
    sleep 0.1
  done
  [ -n "$wid" ] || { echo "no window titled Parley after 30 s"; cat "$ART/package-installed-app.log"; return 1; }
  echo "window $wid after $((i / 10)).$((i % 10)) s: $(xprop -id "$wid" WM_CLASS 2>&1)"
  sleep 3   # let the UI render before the screenshot
  import -display "$DISPLAY" -window root "$ART/package-installed.png" || return 1
  xprop -id "$wid" WM_CLASS | grep -q '"parley"' || { echo "WM_CLASS does not match StartupWMClass=parley"; return 1; }
  kill -0 "$APP_PID" || { echo "parley died"; return 1; }
  kill -TERM "$APP_PID"
  for i in $(seq 150); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$APP_PID" 2>/dev/null; then
    echo "still running 15 s after SIGTERM"; kill -KILL "$APP_PID"; wait "$APP_PID" 2>/dev/null; APP_PID=""; return 1
  fi
  wait "$APP_PID"
  status=$?
  APP_PID=""
  echo "exit status after SIGTERM: $status"
  rm -rf "$data"
  return "$status"
}
check "installed app shows a window titled 'Parley' (screenshot), WM_CLASS parley, SIGTERM exits 0" window_test
check "screenshot saved (test-artifacts/package-installed.png)" test -s "$ART/package-installed.png"

# --- the built-in engine of the installed package (SPEC §12)
# The .deb carries llama.cpp's libraries and says what they need; the
# installed `parley serve`, run outside any checkout (so only the installed
# libraries can be found), downloads the fixture model fixed.gguf from the
# fake Hugging Face hub (cmd/fakehub -fixtures, through HF_ENDPOINT) and
# answers a message with the engine: the reply is the fixture's greedy text
# (backend/engine/enginetest.Answer), and the engine process mapped
# /usr/lib/parley/engine/libllama.
ENGINE_ANSWER="Hello from the built-in engine. This reply is the same every time."
check ".deb Depends on libffi8, libstdc++6 and libgcc-s1 (the engine's libraries and the binary need them)" \
  contains "$(deb_field Depends)" '(^|, )libffi8(,|$).*libstdc\+\+6 \(>= 11\).*libgcc-s1'
check ".deb has the engine's libraries in /usr/lib/parley/engine (libllama.so, ggml's CPU variants)" bash -c '
  grep -qE " \./usr/lib/parley/engine/libllama\.so -> libllama\.v0\.4\.0\.so$" <<<"$1" &&
  grep -qE "^-rw-r--r-- root/root .* \./usr/lib/parley/engine/libggml-cpu-haswell\.so$" <<<"$1" &&
  grep -qE " \./usr/lib/parley/engine/libggml-base\.so$" <<<"$1"' _ "$CONTENTS"
check "tarball has engine/ beside parley (libllama.so, libggml-base.so)" bash -c '
  l=$(tar -tvzf "$1") && grep -qE "/engine/libllama\.so -> libllama\.v0\.4\.0\.so$" <<<"$l" && grep -qE "/engine/libggml-base\.so$" <<<"$l"' _ "$TARBALL"
engine_reply_test() {
  local tmp data hub="" url="" id="" i st conv enginepid hubpid="" servepid="" rc=1
  local tok=package-test-token-0123456789abcdef
  tmp=$(mktemp -d)
  data=$tmp/data
  api() { curl -sS -f -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' "$@"; }
  jget() { node -p "const v = JSON.parse(require('fs').readFileSync(0, 'utf8')); $1"; }
  (
    # What this test started ends with it, by process id.
    trap '[ -n "$servepid" ] && kill "$servepid" 2>/dev/null; [ -n "$hubpid" ] && kill "$hubpid" 2>/dev/null' EXIT
    go build -o "$tmp/fakehub" ./cmd/fakehub || exit 1
    # fakehub serves until its standard input closes: a FIFO held open here.
    mkfifo "$tmp/hub.in"
    "$tmp/fakehub" -fixtures <"$tmp/hub.in" >"$tmp/hub.out" 2>&1 &
    hubpid=$!
    exec 7>"$tmp/hub.in"
    for i in $(seq 300); do grep -q '"url"' "$tmp/hub.out" 2>/dev/null && break; sleep 0.1; done
    hub=$(head -n1 "$tmp/hub.out" | jget v.url) || { cat "$tmp/hub.out"; exit 1; }
    echo "fake hub at $hub"
    env -u PARLEY_ENGINE_DIR HF_ENDPOINT="$hub" bash -c 'cd / && exec parley serve --data-dir "$1" --addr 127.0.0.1:0 --token "$2" --engine builtin --model fixed' \
      _ "$data" "$tok" >"$tmp/serve.out" 2>&1 &
    servepid=$!
    for i in $(seq 300); do url=$(grep -oE 'serving on http://127\.0\.0\.1:[0-9]+' "$tmp/serve.out" | head -n1 | cut -d' ' -f3); [ -n "$url" ] && break; sleep 0.1; done
    [ -n "$url" ] || { echo "parley serve did not start"; cat "$tmp/serve.out"; exit 1; }
    api -X POST "$url/api/v1/engine/downloads" -d '{"repo":"parley/fixtures-GGUF","file":"fixed.gguf"}' || exit 1
    for i in $(seq 600); do
      api "$url/api/v1/engine/models" | jget 'v.some((m) => m.id === "fixed" && m.state === "ready")' | grep -qx true && break
      sleep 0.1
    done
    id=$(api -X POST "$url/api/v1/conversations" -d '{}' | jget v.id) || exit 1
    api -X POST "$url/api/v1/conversations/$id/messages" -d '{"content":"Hello"}' >/dev/null || exit 1
    for i in $(seq 600); do
      conv=$(api "$url/api/v1/conversations/$id") || exit 1
      st=$(jget v.state <<<"$conv")
      [ "$st" = idle ] || [ "$st" = error ] && break
      sleep 0.1
    done
    echo "conversation: $(jget 'v.state + " " + JSON.stringify(v.error ?? "") + " " + JSON.stringify(v.messages.at(-1))' <<<"$conv")"
    [ "$st" = idle ] && [ "$(jget 'v.messages.at(-1).content' <<<"$conv")" = "$ENGINE_ANSWER" ] || exit 1
    api "$url/api/v1/engine" | jget 'JSON.stringify(v)'
    api "$url/api/v1/engine" | jget 'v.state === "ready" && v.model === "fixed" && v.backend.startsWith("cpu")' | grep -qx true || exit 1
    enginepid=$(pgrep -P "$servepid" | head -n1)
    grep -q ' /usr/lib/parley/engine/libllama' "/proc/$enginepid/maps" || { echo "engine $enginepid did not map /usr/lib/parley/engine/libllama"; exit 1; }
    kill -TERM "$servepid"; wait "$servepid"; servepid=""
    exec 7>&-; wait "$hubpid"; hubpid=""
  )
  rc=$?
  [ "$rc" -eq 0 ] || { echo "--- parley serve's log"; cat "$tmp/serve.out" 2>/dev/null; }
  rm -rf "$tmp"
  return "$rc"
}
check "the installed engine answers a message with a fixture model (parley serve --engine builtin, from /usr/lib/parley/engine)" engine_reply_test
# Issue #40's "done when": a new user of the installed .deb picks the model
# onboarding suggests (the fake hub serves the card fixture as every
# catalogue model) and gets a streamed reply and a question card in Chromium.
check "a new user of the installed app: onboarding's suggested model downloaded, a streamed reply and a question card on its engine (e2e/first-run-engine.test.mjs, /usr/bin/parley)" \
  env -u PARLEY_ENGINE_DIR PARLEY_BIN=/usr/bin/parley PARLEY_E2E_ENGINE_LIBS=/usr/lib/parley/engine \
  bash -c 'cd frontend && node --test --test-concurrency=1 e2e/first-run-engine.test.mjs'

# --- the installed .deb, updated through the package manager. As root the
# updater runs apt-get itself, non-interactively (a desktop user gets the
# system's consent prompt, pkexec); it waits for it.
DDATA=$UPD/data-deb
UPDATES_START=$SECONDS
check "the installed .deb ($VERSION) makes two conversations" seed /usr/bin/parley "$DDATA" "$UPD/before-deb.json" "${SUDO[@]}"
check "parley update --yes hands $NEXT_DEB to apt-get and waits for it" \
  expect_rc 0 "Updated to $NEXT_VERSION" "${SUDO[@]}" env PARLEY_UPDATE_URL="$FEED/good" parley update --yes --data-dir "$DDATA"
check "dpkg lists parley $NEXT_DEB_VERSION as installed; parley version prints 'parley ${NEXT_VERSION}'" bash -c '
  [ "$(dpkg-query -W -f="\${Status} \${Version}" parley)" = "install ok installed $1" ] && [ "$(parley version)" = "parley $2" ]' _ "$NEXT_DEB_VERSION" "$NEXT_VERSION"
check "$NEXT_VERSION from the .deb starts on the data of $VERSION: every conversation intact" \
  same /usr/bin/parley "$DDATA" "$UPD/before-deb.json" "$NEXT_VERSION" "${SUDO[@]}"
UPDATES_TIME=$((UPDATES_TIME + SECONDS - UPDATES_START))

# --- remove
check "dpkg -r parley" "${SUDO[@]}" dpkg -r parley
INSTALLED_BY_US=""
check "binary, .desktop file and icons are gone" bash -c '
  for f in /usr/bin/parley /usr/share/applications/parley.desktop /usr/share/icons/hicolor/256x256/apps/parley.png; do
    [ ! -e "$f" ] || { echo "left behind: $f"; exit 1; }
  done
  ! dpkg-query -W -f="\${Status}" parley 2>/dev/null | grep -q "ok installed"'

# --- the Windows installer
if has windows-amd64; then
  check "installer exists ($INSTALLER)" test -s "$INSTALLER"
  check "installer is a PE32 executable (NSIS)" \
    contains "$(file -b "$INSTALLER" 2>&1)" '^PE32 executable .*Nullsoft Installer'
  WSTRINGS=$(strings -el "$INSTALLER" 2>/dev/null)
  check "installer VERSIONINFO: ProductVersion $NUM_VERSION, ProductName Parley" bash -c '
    grep -A1 -x ProductVersion <<<"$1" | tail -n1 | grep -qx "$2" &&
    grep -A1 -x FileVersion <<<"$1" | tail -n1 | grep -qx "$2" &&
    grep -A1 -x ProductName <<<"$1" | tail -n1 | grep -qx Parley' _ "$WSTRINGS" "$NUM_VERSION"
  # 7-Zip lists and unpacks NSIS installers: the payload is Parley.exe and the uninstaller.
  NSDIR=$(mktemp -d)
  7z x -y -o"$NSDIR" "$INSTALLER" >>"$LOG" 2>&1
  check "installer payload: Parley.exe (PE32+ x86-64, ProductVersion $NUM_VERSION)" bash -c '
    file -b "$1/Parley.exe" | grep -q "^PE32+ executable (GUI) x86-64" &&
    strings -el "$1/Parley.exe" | grep -A1 -x ProductVersion | tail -n1 | grep -qx "$2"' _ "$NSDIR" "$NUM_VERSION"
  check "installer payload: a Parley uninstaller, registered as 'Parley'" bash -c '
    file -b "$1/uninstall.exe" | grep -q "Nullsoft Installer" &&
    strings -el "$1/uninstall.exe" | grep -qx Parley &&
    grep -qx "!define UNINST_KEY_NAME \"Parley\"" build/windows/installer/project.nsi' _ "$NSDIR"
  rm -rf "$NSDIR"
fi

step "sizes (from scripts/package.sh)"
sed -n '/^==> sizes$/,/^==> /{/^==> /d;p}' "$ART/package-build.log"
printf '  package test took %d s (the update checks %d s of it, besides the feed package.sh wrote)\n' "$((SECONDS - START))" "${UPDATES_TIME:-0}"

printf '\n%d passed, %d failed\n' "$PASS" "$FAIL"
if [ "$FAIL" -gt 0 ]; then
  printf 'failed: %s\n' "${FAILED[@]}"
  echo "details: $LOG"
  exit 1
fi
