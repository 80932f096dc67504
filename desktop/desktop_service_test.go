package desktop

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
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
