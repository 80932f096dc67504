// Package crash is Parley's crash test: it runs the real `parley serve`
// binary against a scripted model server, drives conversations through the
// HTTP API, SIGKILLs the process at a random moment (while a reply streams,
// while a card is pending, right after an answer, ...), restarts it on the
// same data folder and checks that everything the server announced on its
// event stream is still there, that pending cards can be answered and their
// runs finish, and that the app exits cleanly on SIGTERM. Every round an
// agent also files a card through POST /api/v1/asks (SPEC §10) that is
// pending at the kill: after the restart it is still pending for the agent
// and in the inbox; a round later the user answers it and the agent gets
// exactly the §1 result, which every later restart keeps.
//
// The data folder is shared by all rounds, so history accumulates and every
// round re-checks what earlier rounds announced.
//
// Environment: PARLEY_CRASH_SEED (reproduce a run's choices; timings still
// vary), PARLEY_CRASH_ROUNDS (default 40; 12 with -short), PARLEY_ARTIFACTS
// (where the child logs of a failing round go; default ../../test-artifacts).
package crash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	apiToken  = "crash-test-token-0123456789abcdef0123456789"
	modelName = "crash-model"

	// Budgets. Nothing waits a fixed time for synchronisation: these only
	// bound how long an expected event may take before the test fails, so
	// a passing run never waits for them. They are generous because CI runs
	// this test beside the other packages' race tests on two cores (a round
	// takes well under 3 s there; the drive and the settling under 1 s).
	startTimeout  = 60 * time.Second
	driveTimeout  = 60 * time.Second
	settleTimeout = 60 * time.Second
	exitTimeout   = 30 * time.Second
	httpTimeout   = 60 * time.Second

	// userCancelled is the tool result of a card the user cancelled
	// (questions.CancelledResult): the run stops there, legitimately idle.
	userCancelled = "User cancelled the question"
)

var parleyBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "parley-crash-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash test:", err)
		os.Exit(1)
	}
	parleyBin = filepath.Join(dir, "parley")
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	// The child gets the test's build tags, so it runs with the SQLite
	// driver the app ships (scripts/test.sh passes its tags).
	args := []string{"build", "-o", parleyBin}
	if tags := buildTags(); tags != "" {
		args = append(args, "-tags", tags)
	}
	build := exec.Command(goTool, append(args, "github.com/parley-app/parley")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "crash test: build parley:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildTags returns the -tags this test binary was built with.
func buildTags() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, st := range bi.Settings {
			if st.Key == "-tags" {
				return st.Value
			}
		}
	}
	return ""
}

func TestCrashRecovery(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PARLEY_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "PARLEY_CRASH_SEED=%q", s)
		seed = v
	}
	rounds := 40
	if testing.Short() {
		rounds = 12
	}
	if s := os.Getenv("PARLEY_CRASH_ROUNDS"); s != "" {
		v, err := strconv.Atoi(s)
		require.NoError(t, err, "PARLEY_CRASH_ROUNDS=%q: want a positive number", s)
		require.GreaterOrEqual(t, v, 1, "PARLEY_CRASH_ROUNDS=%q: want a positive number", s)
		rounds = v
	}
	t.Logf("seed %d, %d rounds (reproduce the choices with PARLEY_CRASH_SEED=%d); parley built with tags %q", seed, rounds, seed, buildTags())

	h := &harness{t: t, seed: seed, dataDir: t.TempDir(), logDir: t.TempDir(), rec: newRecorder(), reported: map[string]bool{}, kinds: map[string]int{}}
	start := time.Now()
	for r := 1; r <= rounds; r++ {
		require.True(t, h.round(r), "round %d (seed %d): cannot go on", r, seed)
	}
	h.finale(rounds + 1)
	h.mu.Lock()
	if len(h.kinds) > 0 {
		kinds := make([]string, 0, len(h.kinds))
		for k, n := range h.kinds {
			kinds = append(kinds, fmt.Sprintf("%s x%d", k, n))
		}
		sort.Strings(kinds)
		assert.Failf(t, "problems found", "problems found (seed %d): %s", seed, strings.Join(kinds, ", "))
	}
	h.mu.Unlock()
	msgs, cards := h.rec.snapshot()
	t.Logf("done: %d rounds in %.1fs; %d conversations, %d messages and %d cards announced and found again",
		rounds, time.Since(start).Seconds(), len(h.rec.conversations()), len(msgs), len(cards))
}
