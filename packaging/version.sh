# shellcheck shell=bash disable=SC2120,SC2119
# Sourced by scripts/package.sh and the release workflow. Derives the package
# versions from VERSION (`git describe --tags --always --dirty`, or a tag such
# as v1.2.3, or PARLEY_VERSION):
#   PARLEY_DEB_VERSION  Debian-safe, starts with a digit, sorts like releases:
#       v1.2.3             -> 1.2.3
#       v1.2.3-rc1         -> 1.2.3~rc1            (before 1.2.3)
#       v1.2.3-4-gabc1234  -> 1.2.3+git4.abc1234   (after 1.2.3)
#       abc1234 (no tag)   -> 0.1.0~git<N>.abc1234 (0.1.0 = wails.json productVersion, N = commits)
#       ...-dirty          -> ....dirty / +dirty
#   PARLEY_NUM_VERSION  a.b.c, numbers only (Windows VERSIONINFO, NSIS, macOS bundle)
# Also used for file names: parley_<PARLEY_DEB_VERSION>_...

parley_base_version() {
  local v
  v=$(sed -n 's/.*"productVersion"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "${1:-wails.json}" 2>/dev/null | head -n1)
  [[ $v =~ ^[0-9]+(\.[0-9]+)*$ ]] || v=0.1.0
  printf '%s\n' "$v"
}

# parley_versions VERSION [BASE]: sets PARLEY_DEB_VERSION and PARLEY_NUM_VERSION.
parley_versions() {
  local raw=$1 base=${2:-$(parley_base_version)} v dirty="" deb n
  v=${raw#v}
  case $v in *-dirty) dirty=1; v=${v%-dirty} ;; esac
  if [[ $raw =~ ^v[0-9] || ! $v =~ ^[0-9a-f]{7,40}$ ]] && [[ $v =~ ^([0-9].*)-([0-9]+)-g([0-9a-f]{4,})$ ]]; then
    deb="${BASH_REMATCH[1]//-/\~}+git${BASH_REMATCH[2]}.${BASH_REMATCH[3]}"   # commits after a tag
  elif [[ ! $raw =~ ^v[0-9] && $v =~ ^[0-9a-f]{7,40}$ ]]; then
    n=$(git rev-list --count HEAD 2>/dev/null || echo 0)                        # no tag yet: a hash
    deb="${base}~git${n}.${v}"
  elif [[ $v =~ ^[0-9] ]]; then
    deb=${v//-/\~}                                                               # a tag
  else
    deb="${base}~${v:-dev}"                                                       # dev, or a name
  fi
  if [ -n "$dirty" ]; then
    case $deb in *+*|*~*) deb+=.dirty ;; *) deb+=+dirty ;; esac
  fi
  # Only what Debian allows in an upstream version without a revision.
  deb=$(printf '%s' "$deb" | tr -c 'A-Za-z0-9.+~' '.')
  PARLEY_DEB_VERSION=$deb

  local num a b c
  num=$(printf '%s' "$deb" | grep -oE '^[0-9]+(\.[0-9]+){0,2}' || true)
  [ -n "$num" ] || num=$base
  IFS=. read -r a b c <<<"$num"
  a=$((10#${a:-0})) b=$((10#${b:-0})) c=$((10#${c:-0}))
  # Windows version parts are 16-bit numbers.
  if [ "$a" -gt 65535 ] || [ "$b" -gt 65535 ] || [ "$c" -gt 65535 ]; then a=0 b=0 c=0; fi
  PARLEY_NUM_VERSION="$a.$b.$c"
  export PARLEY_DEB_VERSION PARLEY_NUM_VERSION
}
