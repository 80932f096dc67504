# shellcheck shell=bash
# Sourced by scripts/package.sh and the release workflow.
# parley_update_keys prints the update keys to build in (SPEC §13), comma-
# separated: PARLEY_UPDATE_KEYS when set (the package test's throwaway key),
# else packaging/update-keys.txt without its comments and blank lines.
parley_update_keys() {
  if [ -n "${PARLEY_UPDATE_KEYS:-}" ]; then
    printf '%s\n' "$PARLEY_UPDATE_KEYS"
    return
  fi
  local file
  file="$(dirname "${BASH_SOURCE[0]}")/update-keys.txt"
  { grep -v -E '^[[:space:]]*(#|$)' "$file" || true; } | sed 's/[[:space:]]//g' | paste -sd, -
}
