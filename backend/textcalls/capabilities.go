package textcalls

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/llm"
)

// Refusals are what a server refused for one model, remembered so that
// later runs go straight to the form that works.
type Refusals struct {
	NoTools    bool `json:"no_tools,omitempty"`     // 400 "does not support tools"
	NoToolRole bool `json:"no_tool_role,omitempty"` // 400 on a `tool` message
}

// Probe asks a server what a model can do (Ollama's /api/show); known is
// false when the server does not say.
type Probe func(ctx context.Context, id llm.Identity) (tools, known bool)

// Capabilities knows, per server and model, whether the model takes tools
// natively and whether the server takes `tool` messages. Safe for
// concurrent use.
type Capabilities struct {
	probe Probe
	save  func(map[string]Refusals)

	mu      sync.Mutex
	refused map[string]Refusals
	probed  map[string]probed
}

type probed struct {
	tools bool
	at    time.Time
}

// probeTTL bounds how long a probe's answer is trusted (a model may be
// replaced by a newer one under the same name).
const probeTTL = 10 * time.Minute

// NewCapabilities returns capabilities starting from saved refusals; save
// (may be nil) is called with all of them whenever one is added. probe may
// be nil (nothing is asked: tools are native until refused).
func NewCapabilities(probe Probe, saved map[string]Refusals, save func(map[string]Refusals)) *Capabilities {
	c := &Capabilities{probe: probe, save: save, refused: map[string]Refusals{}, probed: map[string]probed{}}
	maps.Copy(c.refused, saved)
	return c
}

// Key is how a server and model are remembered.
func Key(id llm.Identity) string { return id.BaseURL + " " + id.Model }

// NativeTools reports whether the model takes tools natively: not when its
// server refused them before or says so (Ollama's capabilities).
func (c *Capabilities) NativeTools(ctx context.Context, id llm.Identity) bool {
	k := Key(id)
	c.mu.Lock()
	if c.refused[k].NoTools {
		c.mu.Unlock()
		return false
	}
	p, ok := c.probed[k]
	c.mu.Unlock()
	if ok && time.Since(p.at) < probeTTL {
		return p.tools
	}
	if c.probe == nil {
		return true
	}
	tools, known := c.probe(ctx, id)
	if !known {
		tools = true // unknown: try, and learn from a refusal
	}
	c.mu.Lock()
	c.probed[k] = probed{tools: tools, at: time.Now()}
	c.mu.Unlock()
	return tools
}

// ToolRole reports whether the server takes `tool` messages for the model.
func (c *Capabilities) ToolRole(id llm.Identity) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.refused[Key(id)].NoToolRole
}

// RefuseTools remembers that the server refused native tools for the model.
func (c *Capabilities) RefuseTools(id llm.Identity) {
	c.remember(id, func(r *Refusals) { r.NoTools = true })
}

// RefuseToolRole remembers that the server refused `tool` messages.
func (c *Capabilities) RefuseToolRole(id llm.Identity) {
	c.remember(id, func(r *Refusals) { r.NoToolRole = true })
}

func (c *Capabilities) remember(id llm.Identity, set func(*Refusals)) {
	c.mu.Lock()
	k := Key(id)
	r := c.refused[k]
	set(&r)
	c.refused[k] = r
	all := maps.Clone(c.refused)
	c.mu.Unlock()
	if c.save != nil {
		c.save(all)
	}
}
