package libs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// set makes d hold a set of libraries (the file yzma loads first).
func set(t *testing.T, d string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(d, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(d, LibraryFile()), nil, 0o644))
	return d
}

func noEnv(string) string { return "" }

// Each installer's layout is found from the binary's place, before a
// checkout's build/engine.
func TestFindsTheInstallersFolders(t *testing.T) {
	for _, c := range []struct{ name, exe, libs string }{
		{"tarball", "parley_1.0_linux_amd64/parley", "parley_1.0_linux_amd64/engine"},
		{".deb", "usr/bin/parley", "usr/lib/parley/engine"},
		{"macOS bundle", "Parley.app/Contents/MacOS/Parley", "Parley.app/Contents/Frameworks"},
		{"Windows", "Parley/Parley.exe", "Parley"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			want := set(t, filepath.Join(root, c.libs))
			checkout := t.TempDir() // a set-up checkout as the working folder: the installed set wins
			require.NoError(t, os.WriteFile(filepath.Join(checkout, "go.mod"), nil, 0o644))
			if p := Platform(); p != "" {
				set(t, filepath.Join(checkout, "build", "engine", p))
			}
			got, err := dir(noEnv, filepath.Join(root, c.exe), checkout)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// A checkout's build/engine/<platform> is the fallback, found from a
// folder below the one holding go.mod; PARLEY_ENGINE_DIR comes first.
func TestCheckoutFallbackAndVariable(t *testing.T) {
	p := Platform()
	require.NotEmpty(t, p, "a platform the engine's libraries are known for")
	checkout := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(checkout, "go.mod"), nil, 0o644))
	want := set(t, filepath.Join(checkout, "build", "engine", p))
	wd := filepath.Join(checkout, "backend", "engine")
	require.NoError(t, os.MkdirAll(wd, 0o755))
	got, err := dir(noEnv, filepath.Join(t.TempDir(), "parley"), wd)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	other := set(t, t.TempDir())
	got, err = dir(func(k string) string { return map[string]string{EnvVar: other}[k] }, "", wd)
	require.NoError(t, err)
	assert.Equal(t, other, got)
	_, err = dir(func(k string) string { return map[string]string{EnvVar: t.TempDir()}[k] }, "", wd)
	assert.ErrorContains(t, err, "holds no "+LibraryFile(), "a variable pointing at no set is an error, not a fallback")
}

// Missing everywhere: the error names each folder looked in.
func TestMissingSaysWhereItLooked(t *testing.T) {
	root := t.TempDir()
	exe := filepath.Join(root, "usr", "bin", "parley")
	_, err := dir(noEnv, exe, t.TempDir())
	require.ErrorIs(t, err, ErrNotFound)
	for _, d := range Installed(exe) {
		assert.Contains(t, err.Error(), d)
	}
	assert.Contains(t, err.Error(), filepath.Join(root, "usr", "lib", "parley", "engine"))
	t.Log(err)
}
