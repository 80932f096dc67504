package yield

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wait is how long a test waits for a condition before failing.
const wait = 10 * time.Second

// waitFor waits until cond holds, looking again whenever the gate changes
// or a worker starts waiting (checked on a short tick: Waiting has no channel).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(wait)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			require.FailNow(t, "timed out waiting for "+what)
		case <-tick.C:
		}
	}
}

// yieldAsync runs Yield on a goroutine; the channel gets its error.
func yieldAsync(ctx context.Context, w *Worker) <-chan error {
	done := make(chan error, 1)
	go func() { done <- w.Yield(ctx) }()
	return done
}

func TestOpenGateLetsWorkThrough(t *testing.T) {
	g := New(Options{Linger: NoLinger})
	require.Equal(t, Open, g.Mode())
	w := g.Worker()
	for range 100 {
		require.NoError(t, w.Yield(context.Background()))
	}
	var nilGate *Gate
	require.Equal(t, Open, nilGate.Mode())
	require.NoError(t, nilGate.Worker().Yield(context.Background()), "a nil gate is open")
}

func TestClosedGateHoldsWorkUntilOpened(t *testing.T) {
	g := New(Options{Linger: NoLinger})
	g.Set("runs", Closed)
	require.Equal(t, Closed, g.Mode())
	done := yieldAsync(context.Background(), g.Worker())
	waitFor(t, "the worker to wait at the closed gate", func() bool { return g.Waiting() == 1 })
	select {
	case err := <-done:
		require.FailNow(t, "Yield returned while the gate was closed", "err %v", err)
	default:
	}
	g.Set("runs", Open)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(wait):
		require.FailNow(t, "Yield did not return once the gate opened")
	}
	require.Zero(t, g.Waiting())
}

func TestStrictestSourceWins(t *testing.T) {
	g := New(Options{Linger: NoLinger})
	g.Set("cards", Paced)
	require.Equal(t, Paced, g.Mode())
	g.Set("runs", Closed)
	require.Equal(t, Closed, g.Mode())
	g.Set("runs", Open)
	require.Equal(t, Paced, g.Mode(), "the card still paces")
	g.Set("cards", Open)
	require.Equal(t, Open, g.Mode())
}

func TestClosedGateLetsACancelThrough(t *testing.T) {
	g := New(Options{Linger: NoLinger})
	g.Set("runs", Closed)
	ctx, cancel := context.WithCancel(context.Background())
	done := yieldAsync(ctx, g.Worker())
	waitFor(t, "the worker to wait", func() bool { return g.Waiting() == 1 })
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(wait):
		require.FailNow(t, "Yield did not return on cancel")
	}
}

func TestGateLingersClosedAfterTheRunEnds(t *testing.T) {
	g := New(Options{Linger: time.Hour})
	g.Set("runs", Closed)
	g.Set("runs", Paced)
	require.Equal(t, Closed, g.Mode(), "closed for the linger after the run stopped working")
	g.Set("runs", Open)
	require.Equal(t, Closed, g.Mode())

	g = New(Options{Linger: 20 * time.Millisecond})
	g.Set("runs", Closed)
	changed := g.Changed()
	g.Set("runs", Open)
	<-changed
	changed = g.Changed()
	require.Equal(t, Closed, g.Mode())
	select { // the linger's timer tells the change
	case <-changed:
	case <-time.After(wait):
		require.FailNow(t, "the linger never ended")
	}
	require.Equal(t, Open, g.Mode())
}

func TestGateClosedTooLongPacesInstead(t *testing.T) {
	g := New(Options{Linger: NoLinger, MaxClosed: 30 * time.Millisecond})
	changed := g.Changed()
	g.Set("runs", Closed)
	<-changed
	changed = g.Changed()
	w := g.Worker()
	done := yieldAsync(context.Background(), w)
	select { // the MaxClosed timer wakes the worker, which may then go on
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(wait):
		require.FailNow(t, "a gate closed for longer than MaxClosed still held the worker")
	}
	<-changed
	require.Equal(t, Paced, g.Mode())
	// Closed again after a break: the MaxClosed clock starts over.
	g.Set("runs", Open)
	g.Set("runs", Closed)
	require.Equal(t, Closed, g.Mode())
}

// A paced worker works at most about Duty of the time: its slices are
// followed by rests three times as long (Duty 0.25).
func TestPacedGateRestsAfterEachSlice(t *testing.T) {
	g := New(Options{Linger: NoLinger, Slice: time.Millisecond, Duty: 0.25})
	g.Set("cards", Paced)
	w := g.Worker()
	var worked, rested time.Duration
	for range 20 {
		t0 := time.Now()
		for time.Since(t0) < 2*time.Millisecond { // a slice of busy work
			runtime.Gosched()
		}
		t1 := time.Now()
		require.NoError(t, w.Yield(context.Background()))
		worked += t1.Sub(t0)
		rested += time.Since(t1)
	}
	// The rest is at least 3x the slice worked (timers only ever fire late).
	assert.GreaterOrEqual(t, rested, 3*worked*9/10, "worked %v, rested %v", worked, rested)
}
