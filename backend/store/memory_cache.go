package store

import (
	"slices"
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
	pos    map[string]int  // a memory's place in all (built by touch)
	// index is all prepared for runs' prompts (built on first use, patched
	// by touch): a run's prompt then costs what it lists, not 10,000 memories.
	index *memory.Index
	// marks are runs' marks (MarkMemoriesUsed) not yet applied to all and
	// index: patching the index cost a run ~40 µs before its first request
	// to the model (issue #41). The touch queue applies them once the run
	// has ended; whoever reads the cache before applies them first, so
	// readers see every mark at once as before.
	marks []cacheMark
}

type cacheMark struct {
	ids []string
	at  time.Time
}

// prepared is the memories' index for prompts (built when not cached).
func (c *memoryCache) prepared(load func() ([]memory.Memory, error)) (*memory.Index, error) {
	c.mu.Lock()
	if c.index != nil {
		c.applyMarksLocked()
		x := c.index
		c.mu.Unlock()
		return x, nil
	}
	c.mu.Unlock()
	var all []memory.Memory
	var gen uint64
	err := c.read(load, func(ms []memory.Memory) { all, gen = slices.Clone(ms), c.gen }) // use runs with c.mu held
	if err != nil {
		return nil, err
	}
	x := memory.NewIndex(all) // outside the lock: runs reading the cache go on
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen && c.loaded && c.index == nil {
		c.index = x
	}
	return x, nil
}

// read calls use with every memory (loaded with load when not cached).
// use must not keep the slice: it is the cache's (memory.Scoped copies).
func (c *memoryCache) read(load func() ([]memory.Memory, error), use func([]memory.Memory)) error {
	c.mu.Lock()
	if c.loaded {
		defer c.mu.Unlock()
		c.applyMarksLocked()
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
		c.all, c.loaded, c.pos = all, true, nil
	}
	use(all)
	return nil
}

// invalidate drops what is cached; call it after a write commits.
func (c *memoryCache) invalidate() {
	c.mu.Lock()
	c.gen++
	c.loaded, c.all, c.pos, c.index, c.marks = false, nil, nil, nil, nil
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
	c.applyMarksLocked() // in order
	c.touchLocked(ids, at)
}

// mark records that the memories were used at at (their write pending),
// to be applied later (see marks): it costs the run a lock.
func (c *memoryCache) mark(ids []string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++ // a load begun before the mark may have read the old times
	if c.loaded {
		c.marks = append(c.marks, cacheMark{ids, at})
	}
}

// applyMarks applies the marks still pending.
func (c *memoryCache) applyMarks() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.applyMarksLocked()
}

func (c *memoryCache) applyMarksLocked() {
	for _, m := range c.marks {
		c.touchLocked(m.ids, m.at)
	}
	c.marks = nil
}

// touchLocked updates all and index (loaded) for memories used at at.
func (c *memoryCache) touchLocked(ids []string, at time.Time) {
	if c.index != nil {
		c.index = c.index.Touched(ids, at) // a new index: runs holding the old one read on
	}
	if c.pos == nil { // once per version: a run's touch then costs what it lists
		c.pos = make(map[string]int, len(c.all))
		for i, m := range c.all {
			c.pos[m.ID] = i
		}
	}
	for _, id := range ids {
		if i, ok := c.pos[id]; ok {
			t := at
			c.all[i].UsedAt = &t // a new pointer: copies handed out keep theirs
		}
	}
}
