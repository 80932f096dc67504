package service

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/store"
)

// BenchmarkFirstModelRequestWith10000Memories is SPEC §14's bench: the
// run's first request to the model is not measurably later with 10,000
// memories in scope than with none. Services side by side in the same
// run, each on its real SQLite file, one holding 10,000 memories and the
// others none, send in turn to the same scripted model server; each round
// times Send until the chat request reaches the server, and starts once
// the previous run's bookkeeping (its memories' used_at) is written. It reports both
// medians and their ratio (10,000 / none), the figure judged (target
// firstRequestRatioTarget, printed with met or MISSED).
//
// The memory block (2,000 tokens) is bytes the request carries: a third
// service, with no memories and a system prompt as long as the block plus
// the default one, gives the floor those bytes set, and the ratio against
// it (10,000 / plain) says what the memories cost beyond their bytes.
func BenchmarkFirstModelRequestWith10000Memories(b *testing.B) {
	model, arrived := timedModelServer(b, func(modelserver.ChatRequest) modelserver.Turn { return modelserver.Turn{Text: "Hello."} })
	ctx := context.Background()
	const message = "Which option do I prefer for project 42 and topic-17?"
	open := func(memories int) *Service {
		db, err := store.Open(filepath.Join(b.TempDir(), "parley.db"))
		require.NoError(b, err)
		b.Cleanup(func() { _ = db.Close() })
		t0 := time.Now().Add(-time.Duration(memories) * time.Minute)
		for i := range memories {
			m := &memory.Memory{Text: fmt.Sprintf("Fact %d: the user prefers option %d for project %d and likes topic-%d.", i, i%7, i%113, i%1009),
				Source: memory.Source{Type: memory.SourceUser}, CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
			require.NoError(b, db.AddMemory(ctx, m))
		}
		cfg := config.Config{BaseURL: model.URL + "/v1", Model: "scripted", QuestionTimeout: time.Hour,
			Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
		svc, err := New(ctx, Options{Store: db, Events: events.Discard, Config: cfg, Version: "bench"})
		require.NoError(b, err)
		b.Cleanup(svc.Close)
		return svc
	}
	with, none, plain := open(10_000), open(0), open(0)
	x, err := with.store.MemoryIndex(ctx)
	require.NoError(b, err)
	block, _ := x.Prompt(memory.Scope{}, message, memory.PromptBudget, nil)
	require.Greater(b, memory.Tokens(block), memory.PromptBudget*9/10, "the block fills the budget")
	p := assistant.DefaultProfile()
	p.SystemPrompt += "\n\n" + strings.Repeat("x", len(block)) // what the runs of with send, in bytes
	_, err = plain.SaveProfile(ctx, p)
	require.NoError(b, err)

	var latWith, latNone, latPlain []time.Duration
	round := func(svc *Service, lat *[]time.Duration) {
		c, err := svc.CreateConversation(ctx, "bench", "")
		require.NoError(b, err)
		t0 := time.Now()
		_, err = svc.Send(ctx, c.ID, api.SendRequest{Content: message})
		require.NoError(b, err)
		select {
		case t1 := <-arrived:
			*lat = append(*lat, t1.Sub(t0))
		case <-time.After(time.Minute):
			require.FailNow(b, "no model request")
		}
		<-svc.rt.Done(c.ID)
		// The run's marks are written once it ended: not in the next
		// round's time (a user's next message comes seconds later).
		svc.store.WriteMemoryMarks()
	}
	round(with, &latWith) // warm-up: connections, caches
	round(none, &latNone)
	round(plain, &latPlain)
	latWith, latNone, latPlain = latWith[:0], latNone[:0], latPlain[:0]
	for b.Loop() {
		round(with, &latWith)
		round(none, &latNone)
		round(plain, &latPlain)
	}
	median := func(lat []time.Duration) float64 {
		slices.Sort(lat)
		return float64(lat[len(lat)/2].Nanoseconds()) / 1e3
	}
	w, n, f := median(latWith), median(latNone), median(latPlain)
	b.ReportMetric(w, "with-10k-p50-µs")
	b.ReportMetric(n, "none-p50-µs")
	b.ReportMetric(f, "plain-p50-µs")
	b.ReportMetric(w/n, "ratio")
	b.ReportMetric(w/f, "ratio-to-plain")
	b.Logf("send -> first model request, 10,000 memories / none: %.3f× (target <= %.1f×: %s); / as long a plain system prompt: %.3f×; p50 with %.0f µs, none %.0f µs, plain %.0f µs",
		w/n, firstRequestRatioTarget, verdict(w/n <= firstRequestRatioTarget), w/f, w, n, f)
}

// firstRequestRatioTarget is how much later the first model request may
// be with 10,000 memories (issue #41: not measurably later, what this
// machine's noise between runs of the same code is; bench/summary judges
// the same figure).
const firstRequestRatioTarget = 1.1

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "MISSED"
}
