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

# step NAME announces a step; when PARLEY_STEP_TIMES names a file (test.sh
# sets it), the step's start is recorded there for step_summary.
step() {
  printf '\n==> %s\n' "$*"
  if [ -n "${PARLEY_STEP_TIMES:-}" ]; then
    printf '%s\t%s\t%s\n' "$(date +%s)" "$(basename "$0")" "$*" >>"$PARLEY_STEP_TIMES"
  fi
  return 0
}

# step_summary TOP prints how long each step recorded in PARLEY_STEP_TIMES
# took, until now: those of script TOP (they hold the steps of the scripts
# they called), and indented under each, the steps of the scripts it called.
step_summary() {
  [ -s "${PARLEY_STEP_TIMES:-}" ] || return 0
  printf '\n==> time of each step\n'
  awk -F'\t' -v top="$1" -v now="$(date +%s)" '
    { t[NR] = $1; who[NR] = $2; name[NR] = $3 }
    END {
      for (i = 1; i <= NR; i++) {
        end = now
        for (j = i + 1; j <= NR; j++) if (who[i] != top || who[j] == top) { end = t[j]; break }
        d = end - t[i]
        if (who[i] == top) printf "  %4d:%02d  %s\n", d / 60, d % 60, name[i]
        else printf "           %4d:%02d  %s: %s\n", d / 60, d % 60, who[i], name[i]
      }
      d = now - t[1]
      printf "  %4d:%02d  whole\n", d / 60, d % 60
    }' "$PARLEY_STEP_TIMES"
}
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# build_app builds the production binary into build/bin/parley.
build_app() {
  step "building the desktop app (wails build, version ${VERSION})"
  # -m: go.mod is kept tidy in the repository; -s: the frontend was built above.
  # FRONTEND_CHECKED=1: the caller has type-checked the frontend already
  # (test.sh), so only the bundle is built.
  if [ "${FRONTEND_CHECKED:-}" = 1 ]; then
    (cd frontend && npm run build:bundle --silent)
  else
    (cd frontend && npm run build --silent)
  fi
  # -trimpath as scripts/package.sh builds: the package test can ship this
  # very binary (PARLEY_REUSE_BUILD), and the packages' other builds find
  # the Go packages compiled here in the build cache.
  "$WAILS" build -m -s -trimpath -tags "$BUILD_TAGS" -ldflags "-X main.version=${VERSION}" >/tmp/parley-wails-build.log 2>&1 \
    || { cat /tmp/parley-wails-build.log; die "wails build failed"; }
}

# relink_app OUT TAGS LDFLAGS: the app as `wails build` builds it in this
# folder (the same go build tags, flags and cgo environment, with the
# frontend bundle frontend/dist holds), with other -ldflags: after a wails
# build every package comes from Go's build cache and only the link runs (a
# few seconds). The packages' install kinds (scripts/package.sh) and the
# update tests' versions and test keys (SPEC §13) are builds of this kind.
# TAGS are build_app's or package.sh's (e.g. $BUILD_TAGS).
relink_app() {
  local out=$1 tags=$2 ldflags=$3
  CGO_CXXFLAGS="${CGO_CXXFLAGS:+$CGO_CXXFLAGS }-I$PWD/build" CGO_ENABLED=1 \
    go build -buildvcs=false -trimpath -tags "desktop,${tags},production" -ldflags "${ldflags} -w -s" -o "$out" .
}

# need_app_and_browser gets what the benches of the UI in a browser need:
# the app (built unless PARLEY_BIN or build/bin/parley is there) and the
# frontend's packages, with Playwright.
need_app_and_browser() {
  [ -x "${PARLEY_BIN:-build/bin/parley}" ] || build_app
  [ -d frontend/node_modules/playwright-core ] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
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
