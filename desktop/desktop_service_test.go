package desktop

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/fault"
)

func TestSourceURLTakesOnlyCleanAbsolutePaths(t *testing.T) {
	u, err := sourceURL("/home/me/My Notes/a#1.md")
	require.NoError(t, err)
	assert.Equal(t, "file:///home/me/My%20Notes/a%231.md", u)
	for _, bad := range []string{"", "notes.md", "/a/../etc/passwd", "/a/b\n.md", "/a/\x00b"} {
		_, err := sourceURL(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// A reply's citation opens only a file a collection indexes: a model cannot
// make the app open anything else by citing it.
func TestOpenSourceOpensOnlyIndexedFiles(t *testing.T) {
	a := newAdapters(t)
	dir := t.TempDir()
	doc := filepath.Join(dir, "notes.md")
	require.NoError(t, os.WriteFile(doc, []byte("# Notes\nsome text"), 0o644))
	name := "Notes"
	c, err := a.calls.CreateCollection(api.CollectionRequest{Name: &name, Paths: []string{dir}})
	require.NoError(t, err)
	assert.Equal(t, "Notes", c.Name)
	d := &DesktopService{svc: a.svc, ctx: context.Background()}
	assert.ErrorContains(t, d.OpenSource("/etc/passwd"), "not a file of a knowledge collection")
	require.NoError(t, a.svc.WaitKnowledgeIdle(d.ctx))
	assert.True(t, a.svc.IndexedFile(d.ctx, doc), "an indexed file passes the check")
	assert.False(t, a.svc.IndexedFile(d.ctx, filepath.Join(dir, "other.md")))
	assert.ErrorContains(t, d.OpenSource("notes.md"), "not a clean absolute path")
	w := &DesktopService{svc: a.svc} // before the window exists
	assert.ErrorContains(t, w.OpenSource(doc), "not ready")
}

// The window's import of a full backup (SPEC §14) reads files up to the
// backup's own bound, larger than a conversation's, and refuses one past it
// before reading it.
func TestReadBackupTakesUpToTheBackupBound(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "parley-backup.json")
	require.NoError(t, os.WriteFile(small, []byte(`{"format":"parley.backup"}`), 0o600))
	text, err := readBackup(small)
	require.NoError(t, err)
	assert.Equal(t, `{"format":"parley.backup"}`, text)

	// Sparse files: no disk used, and a refused file is never read.
	big := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(big, nil, 0o600))
	require.NoError(t, os.Truncate(big, api.MaxBackupBytes+1))
	_, err = readBackup(big)
	assert.Equal(t, fault.TooLarge, fault.KindOf(err), "a backup over api.MaxBackupBytes is refused as too large: %v", err)

	// A conversation file that size is refused sooner.
	require.NoError(t, os.Truncate(big, api.MaxImportBytes+1))
	_, err = readImport(big)
	assert.Equal(t, fault.TooLarge, fault.KindOf(err), "a conversation over api.MaxImportBytes is refused: %v", err)
}
