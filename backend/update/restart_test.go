//go:build !windows

package update

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test binary plays both Parleys: the one that applied an update
// (RESTART_HELPER=old) and the updated one it starts (which inherits that
// environment, and finds the wait descriptor in it).
func TestMain(m *testing.M) {
	role := os.Getenv("RESTART_HELPER")
	if role != "" && os.Getenv(WaitFDEnv) != "" {
		role = "new"
	}
	switch role {
	case "old":
		dir := os.Getenv("RESTART_DIR")
		if err := StartUpdated(os.Args[0], []string{"-test.run=^$"}); err != nil {
			os.Exit(3)
		}
		time.Sleep(300 * time.Millisecond) // still closing its database
		stamp(filepath.Join(dir, "old-exited"))
		os.Exit(0)
	case "new":
		WaitForPrevious(os.Getenv)
		stamp(filepath.Join(os.Getenv("RESTART_DIR"), "new-started"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// stamp writes the time to name whole or not at all (written aside, then
// renamed): the test polls for the file and read one still empty.
func stamp(name string) {
	tmp := name + ".tmp"
	_ = os.WriteFile(tmp, []byte(strconv.FormatInt(time.Now().UnixNano(), 10)), 0o600)
	_ = os.Rename(tmp, name)
}

func readStamp(t *testing.T, name string) int64 {
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	n, err := strconv.ParseInt(string(b), 10, 64)
	require.NoError(t, err)
	return n
}

func TestTheUpdatedParleyStartsOnlyOnceThePreviousExited(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RESTART_HELPER=old", "RESTART_DIR="+dir)
	require.NoError(t, cmd.Start())
	require.NoError(t, cmd.Wait())
	require.Eventually(t, func() bool { _, err := os.Stat(filepath.Join(dir, "new-started")); return err == nil }, 10*time.Second, 10*time.Millisecond)
	assert.GreaterOrEqual(t, readStamp(t, filepath.Join(dir, "new-started")), readStamp(t, filepath.Join(dir, "old-exited")))
}
