# Shared by the scripts in this folder.
WAILS_VERSION=v2.16.0
WAILS="$(go env GOPATH)/bin/wails"
# SQLite driver (backend/store/driver.go). The tag sqlite_fts5 selects the cgo
# driver github.com/mattn/go-sqlite3 with FTS5; without it the store uses the
# pure-Go modernc.org/sqlite (~4 MB bigger; what Windows and CGO_ENABLED=0
# builds use). On Linux libsqlite3 also links the system SQLite
# (libsqlite3-0), which WebKitGTK already depends on and loads: one SQLite in
# the process, and a binary ~1.4 MB smaller than with SQLite compiled in. On
# macOS SQLite is compiled into the binary.
case "$(uname -s)" in
  Linux) SQLITE_TAGS=sqlite_fts5,libsqlite3 ;;
  Darwin) SQLITE_TAGS=sqlite_fts5 ;;
  *) SQLITE_TAGS="" ;;
esac
# The Linux app links WebKitGTK 4.1, the one current distributions ship.
BUILD_TAGS=webkit2_41${SQLITE_TAGS:+,$SQLITE_TAGS}
VERSION="${PARLEY_VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"

step() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# build_app builds the production binary into build/bin/parley.
build_app() {
  step "building the desktop app (wails build, version ${VERSION})"
  # -m: go.mod is kept tidy in the repository; -s: the frontend was built above.
  (cd frontend && npm run build --silent)
  "$WAILS" build -m -s -tags "$BUILD_TAGS" -ldflags "-X main.version=${VERSION}" >/tmp/parley-wails-build.log 2>&1 \
    || { cat /tmp/parley-wails-build.log; die "wails build failed"; }
}

# start_xvfb starts a virtual display unless one is set, and exports DISPLAY.
start_xvfb() {
  if [ -n "${DISPLAY:-}" ] && xdpyinfo >/dev/null 2>&1; then
    return 0
  fi
  local n
  for n in $(seq 90 120); do
    [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break
  done
  # Its output is kept with the test artifacts (when there are some): an app
  # that cannot open the display is then explained by the server's side too.
  local log=/dev/null
  [ -d "${PARLEY_ARTIFACTS:-}" ] && log="$PARLEY_ARTIFACTS/xvfb-$n.log"
  # -noreset: by default an X server resets itself whenever its last client
  # leaves and drops a client that connects meanwhile (xorg/xserver#1102);
  # the tests start and stop clients one after another, and on a busy
  # machine a freshly launched app died of it ("failed to init GTK").
  # tests/desktop/display_test.go checks it.
  Xvfb ":$n" -noreset -screen 0 1280x900x24 -nolisten tcp >"$log" 2>&1 &
  XVFB_PID=$!
  export DISPLAY=":$n"
  for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && return 0; sleep 0.1; done
  die "Xvfb did not start on $DISPLAY"
}
