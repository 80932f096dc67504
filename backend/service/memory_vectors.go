package service

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/knowledge"
	"github.com/parley-app/parley/backend/memory"
)

// Memories' vectors (SPEC §14: "vectors when an embedding model is set"):
// with an embedding model set, every memory gets its vector in the
// background (after it is kept, when the model changes, at start), made by
// the knowledge collections' embedder (backend/knowledge: Ollama's
// /api/embed or the OpenAI-compatible /v1/embeddings); a run whose
// memories do not all fit in the prompt then also lists those nearest the
// user's message by meaning.

var errWrongVectorCount = errors.New("the embedding server gave another number of vectors than texts")

// memoryVectorBatch is how many memories one embedding request carries.
const memoryVectorBatch = 32

// memoryVectors makes the vectors of memories that have none of the
// current model, one pass at a time.
type memoryVectors struct {
	s      *Service
	wake   chan struct{}
	settle chan chan struct{}
	stop   chan struct{}
	done   chan struct{}

	mu       sync.Mutex
	cfg      knowledge.EmbedConfig
	embedder *knowledge.Embedder
}

func newMemoryVectors(s *Service) *memoryVectors {
	v := &memoryVectors{s: s, wake: make(chan struct{}, 1), settle: make(chan chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{})}
	go v.loop()
	v.kick()
	return v
}

// kick asks for a pass (memories kept, the model changed).
func (v *memoryVectors) kick() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// waitPass runs a pass now and returns once it is over (tests: the
// vectors of what was kept before are made, or failed).
func (v *memoryVectors) waitPass(ctx context.Context) {
	over := make(chan struct{})
	select {
	case v.settle <- over:
	case <-ctx.Done():
		return
	case <-v.done:
		return
	}
	select {
	case <-over:
	case <-ctx.Done():
	}
}

func (v *memoryVectors) close() {
	close(v.stop)
	<-v.done
}

func (v *memoryVectors) loop() {
	defer close(v.done)
	for {
		var over chan struct{}
		select {
		case <-v.stop:
			return
		case <-v.wake:
		case over = <-v.settle:
		}
		v.pass()
		if over != nil {
			close(over)
		}
	}
}

// embedderFor is the embedder of cfg, kept while the settings stay.
func (v *memoryVectors) embedderFor(cfg knowledge.EmbedConfig) *knowledge.Embedder {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.embedder == nil || v.cfg != cfg {
		v.cfg, v.embedder = cfg, knowledge.NewEmbedder(cfg)
	}
	return v.embedder
}

// pass embeds the memories without a vector of the current model; a
// failure ends the pass (the next kick tries again).
func (v *memoryVectors) pass() {
	cfg := v.s.embedConfig()
	if cfg.Model == "" || !v.s.memoryOn() {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-v.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for ctx.Err() == nil {
		ms, err := v.s.store.MemoriesWithoutVector(ctx, cfg.Model, memoryVectorBatch)
		if err != nil || len(ms) == 0 {
			if err != nil {
				v.s.log.Warn("memories without vectors", "err", err)
			}
			return
		}
		texts := make([]string, len(ms))
		for i, m := range ms {
			texts[i] = m.Text
		}
		vecs, err := v.embedderFor(cfg).Embed(ctx, texts)
		if err == nil && len(vecs) != len(ms) {
			err = errWrongVectorCount
		}
		if err != nil {
			v.s.log.Warn("embed memories", "model", cfg.Model, "err", err)
			return
		}
		for i, m := range ms {
			unit := memory.Normalize(vecs[i])
			if unit == nil {
				unit = []float32{0} // a zero vector: kept, so it is not asked for again; it is near nothing
			}
			if err := v.s.store.SetMemoryVector(ctx, m.ID, cfg.Model, unit); err != nil {
				v.s.log.Warn("store memory vector", "memory", m.ID, "err", err)
				return
			}
		}
	}
}

// byMeaning returns, for a run's prompt, the memories of ms (those in
// scope) nearest the user's message by their vectors (nil without an
// embedding model, or when the message cannot be embedded: keywords then
// rank alone).
func (v *memoryVectors) byMeaning(ctx context.Context, userMessage string) func(ms []memory.Memory) []int {
	cfg := v.s.embedConfig()
	if cfg.Model == "" {
		return nil
	}
	return func(ms []memory.Memory) []int {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		q, err := v.embedderFor(cfg).Embed(ctx, []string{userMessage})
		if err != nil || len(q) != 1 {
			v.s.log.Warn("embed the message for memories: keywords only", "model", cfg.Model, "err", err)
			return nil
		}
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = m.ID
		}
		vectors, err := v.s.store.MemoryVectors(ctx, cfg.Model, ids)
		if err != nil {
			v.s.log.Warn("memory vectors: keywords only", "err", err)
			return nil
		}
		return memory.NearestByMeaning(ms, vectors, memory.Normalize(q[0]), memory.MaxNearbyByMeaning)
	}
}
