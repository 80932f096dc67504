// Package update is Parley's updater (SPEC §13): the signed feed and its
// refusal rules, the verified, resumable download staged in the data
// folder, applying per install kind, the database copy before a newer
// version opens it, and the rollback of a new version that never marked
// itself healthy. It imports neither Wails nor the rest of the backend.
package update

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"aead.dev/minisign"
)

// Install kinds (main.installKind). KindNone never updates itself.
const (
	KindDeb  = "deb"
	KindTar  = "tar"
	KindNSIS = "nsis"
	KindMac  = "mac"
	KindNone = ""
)

// ValidKind reports whether k is an install kind that updates itself.
func ValidKind(k string) bool {
	switch k {
	case KindDeb, KindTar, KindNSIS, KindMac:
		return true
	}
	return false
}

// FeedFile and SignatureFile are the feed's names under its URL.
const (
	FeedFile      = "stable.json"
	SignatureFile = "stable.json.minisig"
	// MaxFeedBytes bounds the feed and its signature.
	MaxFeedBytes = 1 << 20
)

// Feed is stable.json.
type Feed struct {
	Schema    int               `json:"schema"`
	Version   string            `json:"version"`
	Published time.Time         `json:"published"`
	Expires   time.Time         `json:"expires"`
	Notes     map[string]string `json:"notes"`
	Artifacts []Artifact        `json:"artifacts"`
}

// Artifact is one installable file of a release.
type Artifact struct {
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	Kind   string `json:"kind"`
	URL    string `json:"url"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Refusal is why a feed or an artifact was refused: nothing is installed.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return "update refused: " + r.Reason }

// IsRefusal reports whether err is a refusal.
func IsRefusal(err error) bool { var r *Refusal; return errors.As(err, &r) }

func refuse(format string, args ...any) error { return &Refusal{Reason: fmt.Sprintf(format, args...)} }

// ParseKeys reads the built-in keys: comma-separated minisign public keys
// (the base64 line of a minisign.pub).
func ParseKeys(s string) ([]minisign.PublicKey, error) {
	var keys []minisign.PublicKey
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		var k minisign.PublicKey
		if err := k.UnmarshalText([]byte(part)); err != nil {
			return nil, fmt.Errorf("update key %q: %w", part, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// VerifyFeed checks the feed's minisign signature against the built-in
// keys and parses it. A missing signature, one by no built-in key, or one
// that does not match the feed is a Refusal.
func VerifyFeed(body, sig []byte, keys []minisign.PublicKey) (*Feed, error) {
	if len(keys) == 0 {
		return nil, refuse("this build has no update keys")
	}
	if len(strings.TrimSpace(string(sig))) == 0 {
		return nil, refuse("the feed is not signed")
	}
	var s minisign.Signature
	if err := s.UnmarshalText(sig); err != nil {
		return nil, refuse("the feed's signature is unreadable: %v", err)
	}
	known := false
	for _, k := range keys {
		if k.ID() != s.KeyID {
			continue
		}
		known = true
		if minisign.Verify(k, body, sig) {
			var f Feed
			if err := json.Unmarshal(body, &f); err != nil {
				return nil, refuse("the feed is not valid JSON: %v", err)
			}
			return &f, nil
		}
	}
	if !known {
		return nil, refuse("the feed is signed by an unknown key (%X)", s.KeyID)
	}
	return nil, refuse("the feed's signature does not match it (tampered)")
}

// Decision is what a verified feed means for this install.
type Decision struct {
	// Newer is true when the feed offers a version newer than the running one.
	Newer bool
	// Artifact is the file for this os/arch/kind (nil: none in the feed).
	Artifact *Artifact
}

// Decide applies the refusal rules to a verified feed: its schema, its
// expiry, a version older than the running one or than the newest this
// install has seen (a replay). A feed of the running version is up to date.
func Decide(f *Feed, current, newestSeen, goos, goarch, kind string, now time.Time) (Decision, error) {
	if f.Schema != 1 {
		return Decision{}, refuse("unknown feed schema %d", f.Schema)
	}
	if !ValidVersion(f.Version) {
		return Decision{}, refuse("the feed's version %q is not a version", f.Version)
	}
	if f.Expires.IsZero() || !now.Before(f.Expires) {
		return Decision{}, refuse("the feed expired on %s", f.Expires.UTC().Format(time.RFC3339))
	}
	if ValidVersion(current) && CompareVersions(f.Version, current) < 0 {
		return Decision{}, refuse("the feed offers %s, older than the running %s (a downgrade)", f.Version, current)
	}
	if newestSeen != "" && CompareVersions(f.Version, newestSeen) < 0 {
		return Decision{}, refuse("the feed offers %s, older than %s seen before (a replayed feed)", f.Version, newestSeen)
	}
	if ValidVersion(current) && CompareVersions(f.Version, current) == 0 {
		return Decision{}, nil
	}
	d := Decision{Newer: true}
	for i := range f.Artifacts {
		a := f.Artifacts[i]
		if a.OS == goos && a.Arch == goarch && a.Kind == kind {
			if a.Size <= 0 || len(a.SHA256) != 64 || a.URL == "" {
				return Decision{}, refuse("the feed's %s/%s %s artifact has no valid size, sha256 or url", goos, goarch, kind)
			}
			d.Artifact = &a
			break
		}
	}
	return d, nil
}

// NotesFor is the notes in lang, else English, else "".
func (f *Feed) NotesFor(lang string) string {
	if n, ok := f.Notes[lang]; ok && n != "" {
		return n
	}
	if i := strings.IndexAny(lang, "-_"); i > 0 {
		if n, ok := f.Notes[lang[:i]]; ok && n != "" {
			return n
		}
	}
	return f.Notes["en"]
}
