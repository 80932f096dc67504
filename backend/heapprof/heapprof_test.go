package heapprof

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeapProfilesAreWrittenUntilStopped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "heap")
	stop, err := Start(dir, 5*time.Millisecond)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, "heap-002.pprof"))
		return err == nil
	}, 10*time.Second, 5*time.Millisecond, "three profiles")
	stop()

	profile, err := os.ReadFile(filepath.Join(dir, "heap-000.pprof"))
	require.NoError(t, err)
	require.Greater(t, len(profile), 2)
	assert.Equal(t, []byte{0x1f, 0x8b}, profile[:2], "a pprof profile is gzipped protobuf")

	f, err := os.Open(filepath.Join(dir, "memstats.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var lines []heapSnapshot
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s heapSnapshot
		require.NoError(t, json.Unmarshal(sc.Bytes(), &s), "%s", sc.Text())
		lines = append(lines, s)
	}
	require.GreaterOrEqual(t, len(lines), 3)
	for i, s := range lines {
		assert.Equal(t, i, s.N)
		assert.Greater(t, s.HeapAlloc, uint64(0))
		assert.Greater(t, s.NumGoroutine, 0)
	}
	// Nothing is written after stop.
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	time.Sleep(30 * time.Millisecond)
	after, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Equal(t, len(entries), len(after), "files written after stop")
}

func TestHeapProfilesNeedAWritableFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err := Start(filepath.Join(file, "sub"), time.Minute)
	assert.ErrorContains(t, err, "heap profile folder")
}
