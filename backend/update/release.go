package update

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"aead.dev/minisign"
)

// ReleaseArtifact is one file given to MakeFeed.
type ReleaseArtifact struct {
	Path           string
	OS, Arch, Kind string
	// URL is where it is served ("" = its base name, relative to the feed).
	URL string
}

// MakeFeed writes the feed of a release: each artifact's size and sha256.
func MakeFeed(version string, published time.Time, validFor time.Duration, notes map[string]string, arts []ReleaseArtifact) (*Feed, error) {
	if !ValidVersion(version) {
		return nil, fmt.Errorf("%q is not a version", version)
	}
	f := &Feed{Schema: 1, Version: version, Published: published.UTC(), Expires: published.Add(validFor).UTC(), Notes: notes}
	for _, a := range arts {
		if !ValidKind(a.Kind) {
			return nil, fmt.Errorf("%s: unknown kind %q", a.Path, a.Kind)
		}
		size, sum, err := hashFile(a.Path)
		if err != nil {
			return nil, err
		}
		u := a.URL
		if u == "" {
			u = filepath.Base(a.Path)
		}
		f.Artifacts = append(f.Artifacts, Artifact{OS: a.OS, Arch: a.Arch, Kind: a.Kind, URL: u, Size: size, SHA256: sum})
	}
	return f, nil
}

// WriteSignedFeed writes dir/stable.json and, when key is given,
// dir/stable.json.minisig.
func WriteSignedFeed(dir string, f *Feed, key *minisign.PrivateKey) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, FeedFile), b, 0o644); err != nil {
		return err
	}
	if key == nil {
		return nil
	}
	sig := minisign.SignWithComments(*key, b, fmt.Sprintf("parley %s", f.Version), "signature from the Parley release key")
	return os.WriteFile(filepath.Join(dir, SignatureFile), sig, 0o644)
}

func hashFile(name string) (int64, string, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
