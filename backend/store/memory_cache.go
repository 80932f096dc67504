package store

import (
	"sync"
	"time"

	"github.com/parley-app/parley/backend/memory"
)

// memoryCache keeps every memory between writes. A run lists the memories
// of its scope before its first request to the model (SPEC §14), and
// reading 10,000 rows from SQLite made that request ~50 ms later than with
// none. Every write to the memories table goes through the Store and
// invalidates it after it commits (a foreign key's cascade too: deleting
// a conversation or a project); marking memories used updates it in place.
type memoryCache struct {
	mu sync.Mutex
	// gen counts invalidations: a load begun before one is not kept.
	gen    uint64
	loaded bool
	all    []memory.Memory // newest first; never handed out (see read)
}

// read calls use with every memory (loaded with load when not cached).
// use must not keep the slice: it is the cache's (memory.Scoped copies).
func (c *memoryCache) read(load func() ([]memory.Memory, error), use func([]memory.Memory)) error {
	c.mu.Lock()
	if c.loaded {
		defer c.mu.Unlock()
		use(c.all)
		return nil
	}
	gen := c.gen
	c.mu.Unlock()
	all, err := load()
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen && !c.loaded {
		c.all, c.loaded = all, true
	}
	use(all)
	return nil
}

// invalidate drops what is cached; call it after a write commits.
func (c *memoryCache) invalidate() {
	c.mu.Lock()
	c.gen++
	c.loaded, c.all = false, nil
	c.mu.Unlock()
}

// touch records that the memories were used at at (stored already).
func (c *memoryCache) touch(ids []string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++ // a load begun before the update may have read the old times
	if !c.loaded {
		return
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	for i := range c.all {
		if want[c.all[i].ID] {
			t := at
			c.all[i].UsedAt = &t // a new pointer: copies handed out keep theirs
		}
	}
}
