package main

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aead.dev/minisign"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/update"
)

func TestWritesASignedFeedParleyAccepts(t *testing.T) {
	dir := t.TempDir()
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	require.NoError(t, err)
	// An unencrypted key: an encrypted one takes scrypt's seconds (the
	// password path is minisign.DecryptKey's own).
	enc, err := priv.MarshalText()
	require.NoError(t, err)
	keyFile := filepath.Join(dir, "release.key")
	require.NoError(t, os.WriteFile(keyFile, enc, 0o600))
	tarball := filepath.Join(dir, "parley_1.4.0_linux_amd64.tar.gz")
	require.NoError(t, os.WriteFile(tarball, []byte("tarball bytes"), 0o644))
	notes := filepath.Join(dir, "en.md")
	require.NoError(t, os.WriteFile(notes, []byte("Fixes.\n"), 0o644))

	var out, errOut bytes.Buffer
	code := run([]string{"-version", "1.4.0", "-out", dir, "-key", keyFile, "-notes", "en=" + notes,
		"-artifact", "tar:linux:amd64:" + tarball}, func(string) string { return "" }, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())

	body, err := os.ReadFile(filepath.Join(dir, update.FeedFile))
	require.NoError(t, err)
	sig, err := os.ReadFile(filepath.Join(dir, update.SignatureFile))
	require.NoError(t, err)
	feed, err := update.VerifyFeed(body, sig, []minisign.PublicKey{pub})
	require.NoError(t, err)
	assert.Equal(t, "1.4.0", feed.Version)
	assert.Equal(t, "Fixes.", feed.Notes["en"])
	require.Len(t, feed.Artifacts, 1)
	a := feed.Artifacts[0]
	assert.Equal(t, update.Artifact{OS: "linux", Arch: "amd64", Kind: "tar", URL: "parley_1.4.0_linux_amd64.tar.gz", Size: 13,
		SHA256: "8d5594eb4bf5ec277cad2e2b3f082170e7e490921a54bc712258a8b5cac6a842"}, a)
	d, err := update.Decide(feed, "1.3.0", "", "linux", "amd64", "tar", time.Now())
	require.NoError(t, err)
	assert.True(t, d.Newer)
	require.NotNil(t, d.Artifact)
}

func TestBadArgumentsFail(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "k")
	require.NoError(t, os.WriteFile(keyFile, []byte("untrusted comment: x\nnot a key"), 0o600))
	f := filepath.Join(dir, "a.deb")
	require.NoError(t, os.WriteFile(f, []byte("x"), 0o644))
	var out, errOut bytes.Buffer
	none := func(string) string { return "" }
	assert.Equal(t, 1, run([]string{"-version", "1.0.0", "-out", dir, "-key", keyFile, "-artifact", "deb:linux:amd64:" + f}, none, &out, &errOut))
	assert.Equal(t, 1, run([]string{"-version", "1.0.0", "-out", dir, "-artifact", "zip:linux:amd64:" + f}, none, &out, &errOut))
	assert.Equal(t, 1, run([]string{"-version", "1.0.0", "-out", dir}, none, &out, &errOut))
	assert.Equal(t, 1, run([]string{"-version", "1.0.0", "-out", dir, "-artifact", "deb:linux:" + f}, none, &out, &errOut))
}

func TestGenkeyMakesAPairTheFeedIsSignedAndVerifiedWith(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	var out, errOut bytes.Buffer
	none := func(string) string { return "" }
	require.Equal(t, 0, run([]string{"-genkey", keys}, none, &out, &errOut), errOut.String())
	assert.Contains(t, errOut.String(), "unencrypted")
	pubLine := strings.TrimSpace(out.String())
	parsed, err := update.ParseKeys(pubLine)
	require.NoError(t, err, "the printed line is what main.updateKeys takes")
	require.Len(t, parsed, 1)
	fromFile, err := minisign.PublicKeyFromFile(filepath.Join(keys, PublicKeyFile))
	require.NoError(t, err)
	assert.True(t, fromFile.Equal(parsed[0]))
	info, err := os.Stat(filepath.Join(keys, SecretKeyFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	// Never over an existing key.
	assert.Equal(t, 1, run([]string{"-genkey", keys}, none, &out, &errOut))

	f := filepath.Join(dir, "parley.tar.gz")
	require.NoError(t, os.WriteFile(f, []byte("x"), 0o644))
	out.Reset()
	require.Equal(t, 0, run([]string{"-version", "1.0.1", "-out", dir, "-key", filepath.Join(keys, SecretKeyFile), "-artifact", "tar:linux:amd64:" + f}, none, &out, &errOut), errOut.String())
	body, err := os.ReadFile(filepath.Join(dir, update.FeedFile))
	require.NoError(t, err)
	sig, err := os.ReadFile(filepath.Join(dir, update.SignatureFile))
	require.NoError(t, err)
	_, err = update.VerifyFeed(body, sig, parsed)
	require.NoError(t, err)

	// -base-url: where the release's files are downloaded from.
	require.Equal(t, 0, run([]string{"-version", "1.0.1", "-out", dir, "-base-url", "https://example.org/releases/download/v1.0.1/", "-artifact", "tar:linux:amd64:" + f}, none, &out, &errOut))
	body, err = os.ReadFile(filepath.Join(dir, update.FeedFile))
	require.NoError(t, err)
	assert.Contains(t, string(body), `"url": "https://example.org/releases/download/v1.0.1/parley.tar.gz"`)
}
