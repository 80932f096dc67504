package update

import (
	"regexp"
	"strconv"
	"strings"
)

// CompareVersions compares two release versions such as "1.4.0", "v1.4.0"
// or "1.5.0-rc.1": -1 when a is older than b, 0 when equal, 1 when newer.
// Numeric parts compare as numbers; a pre-release is older than its release.
// A version that is not a release (e.g. "dev", or a commit hash) is older
// than any release; what `git describe` adds after a tag ("-4-gabc1234",
// "-dirty") is build metadata, as "+…" is.
func CompareVersions(a, b string) int {
	an, ap, aok := splitVersion(a)
	bn, bp, bok := splitVersion(b)
	switch {
	case !aok && !bok:
		return strings.Compare(a, b)
	case !aok:
		return -1
	case !bok:
		return 1
	}
	for i := 0; i < len(an) || i < len(bn); i++ {
		var x, y int
		if i < len(an) {
			x = an[i]
		}
		if i < len(bn) {
			y = bn[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case ap == bp:
		return 0
	case ap == "":
		return 1
	case bp == "":
		return -1
	}
	return comparePre(ap, bp)
}

// ValidVersion reports whether v is a release version CompareVersions orders.
func ValidVersion(v string) bool { _, _, ok := splitVersion(v); return ok }

// describeSuffix is what `git describe` adds after a tag: commits since
// it and the commit, and whether the tree was changed ("4-gabc1234",
// "4-gabc1234-dirty", "dirty"): build metadata, not a pre-release.
var describeSuffix = regexp.MustCompile(`^(\d+-g[0-9a-f]{4,}(-dirty)?|dirty)$`)

func splitVersion(v string) (nums []int, pre string, ok bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexByte(v, '+'); i >= 0 {
		v = v[:i]
	}
	if i := strings.IndexByte(v, '-'); i >= 0 {
		v, pre = v[:i], v[i+1:]
		if describeSuffix.MatchString(pre) {
			pre = ""
		}
	}
	parts := strings.Split(v, ".")
	// A release has at least major.minor: a bare number is more likely a
	// commit hash of digits only (a build without a tag) than a version.
	if v == "" || len(parts) < 2 {
		return nil, "", false
	}
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, "", false
		}
		nums = append(nums, n)
	}
	return nums, pre, true
}

func comparePre(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, xerr := strconv.Atoi(as[i])
		y, yerr := strconv.Atoi(bs[i])
		switch {
		case xerr == nil && yerr == nil:
			if x != y {
				if x < y {
					return -1
				}
				return 1
			}
		case xerr == nil:
			return -1
		case yerr == nil:
			return 1
		default:
			if c := strings.Compare(as[i], bs[i]); c != 0 {
				return c
			}
		}
	}
	switch {
	case len(as) < len(bs):
		return -1
	case len(as) > len(bs):
		return 1
	}
	return 0
}
