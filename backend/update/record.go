package update

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// HealthWindow is how long a new version has to mark itself healthy.
const HealthWindow = 60 * time.Second

// Record is what the updater keeps in the data folder (update/state.json).
type Record struct {
	// NewestSeen is the newest version of a verified feed: an older feed
	// is a replay and refused.
	NewestSeen string `json:"newest_seen,omitempty"`
	// LastVersion is the newest version that has run on this data folder.
	LastVersion string `json:"last_version,omitempty"`
	// Pending is the last applied update until it marked itself healthy.
	Pending *Pending `json:"pending,omitempty"`
	// Bad are versions rolled back: never offered again.
	Bad []string `json:"bad,omitempty"`
}

// Pending is an applied update waiting for its healthy mark.
type Pending struct {
	From      string    `json:"from"`
	To        string    `json:"to"`
	Kind      string    `json:"kind"`
	Binary    string    `json:"binary,omitempty"` // the replaced binary or bundle
	Backup    string    `json:"backup,omitempty"` // the previous one, kept beside it
	AppliedAt time.Time `json:"applied_at"`
	StartedAt time.Time `json:"started_at,omitzero"` // the new version's first start
	Healthy   bool      `json:"healthy,omitempty"`
}

// Dir is the updater's folder in the data folder.
func Dir(dataDir string) string { return filepath.Join(dataDir, "update") }

func recordPath(dataDir string) string { return filepath.Join(Dir(dataDir), "state.json") }

// LoadRecord reads the record (a missing one is empty).
func LoadRecord(dataDir string) (Record, error) {
	var r Record
	b, err := os.ReadFile(recordPath(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, fmt.Errorf("update record: %w", err)
	}
	return r, nil
}

// SaveRecord writes the record atomically.
func SaveRecord(dataDir string, r Record) error {
	if err := os.MkdirAll(Dir(dataDir), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := recordPath(dataDir) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, recordPath(dataDir))
}

// DatabaseCopy is the copy of the database kept before version first opened it.
func DatabaseCopy(dbPath, version string) string { return dbPath + ".pre-" + version }

// Launch is what AtLaunch did.
type Launch struct {
	// RolledBack is set when the previous update never marked itself
	// healthy and its binary and database were restored: the caller starts
	// Binary (the restored previous version) and exits.
	RolledBack bool
	Binary     string
	From, To   string
	// DatabaseCopy is the copy made before this version opens the database ("" none).
	DatabaseCopy string
}

// AtLaunch runs before the database is opened, at every start of the
// desktop app or serve. It rolls back an update whose new version never
// marked itself healthy within HealthWindow of its first start (tar and
// mac kinds: binary and database), records this version's first start, and
// copies the database before a newer version first opens it.
func AtLaunch(dataDir, dbPath, version string, now time.Time) (Launch, error) {
	var out Launch
	r, err := LoadRecord(dataDir)
	if err != nil {
		return out, err
	}
	if p := r.Pending; p != nil && !p.Healthy {
		switch {
		case version == p.To && p.StartedAt.IsZero():
			p.StartedAt = now
		case version == p.To && now.Sub(p.StartedAt) > HealthWindow && (p.Kind == KindTar || p.Kind == KindMac) && p.Backup != "":
			if err := rollback(p, dbPath); err != nil {
				return out, fmt.Errorf("roll back %s to %s: %w", p.To, p.From, err)
			}
			bin := p.Binary
			if p.Kind == KindMac {
				bin = BundleExecutable(bin)
			}
			out = Launch{RolledBack: true, Binary: bin, From: p.From, To: p.To}
			r.Bad = append(r.Bad, p.To)
			r.Pending = nil
			r.LastVersion = p.From
			return out, SaveRecord(dataDir, r)
		case version != p.To:
			// The previous version runs again (rolled back, or reinstalled).
			r.Pending = nil
		}
	}
	if ValidVersion(version) && (r.LastVersion == "" || CompareVersions(version, r.LastVersion) > 0) {
		if r.LastVersion != "" {
			cp := DatabaseCopy(dbPath, version)
			if _, err := os.Stat(cp); errors.Is(err, fs.ErrNotExist) {
				if err := copyDatabase(dbPath, cp); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return out, fmt.Errorf("keep a copy of the database before %s opens it: %w", version, err)
				} else if err == nil {
					out.DatabaseCopy = cp
				}
			}
		}
		r.LastVersion = version
	}
	return out, SaveRecord(dataDir, r)
}

// MarkHealthy is written by a new version once it started fine.
func MarkHealthy(dataDir, version string) error {
	r, err := LoadRecord(dataDir)
	if err != nil {
		return err
	}
	if r.Pending == nil || r.Pending.To != version || r.Pending.Healthy {
		return nil
	}
	r.Pending.Healthy = true
	return SaveRecord(dataDir, r)
}

// IsBad reports whether version was rolled back on this install.
func (r Record) IsBad(version string) bool { return slices.Contains(r.Bad, version) }

func rollback(p *Pending, dbPath string) error {
	if _, err := os.Stat(p.Backup); err != nil {
		return fmt.Errorf("the previous version's backup: %w", err)
	}
	failed := p.Binary + ".failed"
	os.RemoveAll(failed)
	if err := os.Rename(p.Binary, failed); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(p.Backup, p.Binary); err != nil {
		os.Rename(failed, p.Binary)
		return err
	}
	os.RemoveAll(failed)
	cp := DatabaseCopy(dbPath, p.To)
	if _, err := os.Stat(cp); err == nil {
		if err := copyDatabase(cp, dbPath); err != nil {
			return fmt.Errorf("restore the database: %w", err)
		}
	}
	return nil
}

// copyDatabase copies a SQLite database file (not open by this process)
// with its -wal file, so the copy holds every committed change.
func copyDatabase(src, dst string) error {
	if err := copyFile(src, dst); err != nil {
		return err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(dst + suffix)
		if err := copyFile(src+suffix, dst+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, dst)
}
