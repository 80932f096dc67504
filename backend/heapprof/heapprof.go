// Package heapprof writes Go heap profiles on a timer for the memory soak.
package heapprof

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"
)

// EnvVar names a folder where the app writes a Go heap profile and
// a runtime.MemStats line every Every: a hidden switch for the
// memory soak (bench/soak.sh), to see what grows in a long session.
const EnvVar = "PARLEY_HEAP_PROFILE_DIR"

// Every is how often the app writes one while EnvVar is set.
const Every = time.Minute

// heapSnapshot is one line of memstats.jsonl.
type heapSnapshot struct {
	At           time.Time `json:"at"`
	N            int       `json:"n"`
	HeapAlloc    uint64    `json:"heap_alloc"`
	HeapInuse    uint64    `json:"heap_inuse"`
	HeapObjects  uint64    `json:"heap_objects"`
	Sys          uint64    `json:"sys"`
	NumGoroutine int       `json:"goroutines"`
}

// Start writes heap-NNN.pprof and a memstats.jsonl line into
// dir now and every interval until stop is called.
func Start(dir string, every time.Duration) (stop func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("heap profile folder %s: %w", dir, err)
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for n := 0; ; n++ {
			if err := writeHeapSnapshot(dir, n); err != nil {
				slog.Warn("heap profile", "err", err)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }, nil
}

func writeHeapSnapshot(dir string, n int) error {
	runtime.GC() // the profile and the figures show live memory
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	line, err := json.Marshal(heapSnapshot{At: time.Now(), N: n, HeapAlloc: ms.HeapAlloc, HeapInuse: ms.HeapInuse,
		HeapObjects: ms.HeapObjects, Sys: ms.Sys, NumGoroutine: runtime.NumGoroutine()})
	if err != nil {
		return err
	}
	stats, err := os.OpenFile(filepath.Join(dir, "memstats.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("memstats: %w", err)
	}
	_, err = stats.Write(append(line, '\n'))
	if cerr := stats.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("memstats: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%03d.pprof", n)))
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("heap profile %d: %w", n, err)
	}
	return f.Close()
}
