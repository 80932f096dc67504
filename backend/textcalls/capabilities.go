package textcalls

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/llm"
)

// Refusals are what a server refused for one model, remembered so that
// later runs go straight to the form that works.
type Refusals struct {
	NoTools    bool `json:"no_tools,omitempty"`     // 400 "does not support tools"
	NoToolRole bool `json:"no_tool_role,omitempty"` // 400 on a `tool` message
	// Thinking lists the thinking settings the server refused for the
	// model (400 naming reasoning, think or effort; SPEC §9), and
	// "history" when it refused the thinking sent back with the history.
	Thinking []string `json:"thinking,omitempty"`
}

// RefusedHistory is the Refusals.Thinking entry of a server that refused
// the thinking sent back with the history.
const RefusedHistory = "history"

// Probe asks a server what a model can do (Ollama's /api/show: "tools",
// "vision", "thinking", ...); known is false when the server does not say
// (it is not Ollama, or does not know the model).
type Probe func(ctx context.Context, id llm.Identity) (caps []string, known bool)

// Capabilities knows, per server and model, whether the model takes tools
// natively and whether the server takes `tool` messages. Safe for
// concurrent use.
type Capabilities struct {
	probe Probe
	save  func(map[string]Refusals)

	mu      sync.Mutex
	refused map[string]Refusals
	probes  map[string]probed
}

type probed struct {
	caps  []string
	known bool
	at    time.Time
}

// probeTTL bounds how long a probe's answer is trusted (a model may be
// replaced by a newer one under the same name).
const probeTTL = 10 * time.Minute

// NewCapabilities returns capabilities starting from saved refusals; save
// (may be nil) is called with all of them whenever one is added. probe may
// be nil (nothing is asked: tools are native until refused).
func NewCapabilities(probe Probe, saved map[string]Refusals, save func(map[string]Refusals)) *Capabilities {
	c := &Capabilities{probe: probe, save: save, refused: map[string]Refusals{}, probes: map[string]probed{}}
	maps.Copy(c.refused, saved)
	return c
}

// Key is how a server and model are remembered.
func Key(id llm.Identity) string { return id.BaseURL + " " + id.Model }

// NativeTools reports whether the model takes tools natively: not when its
// server refused them before or says so (Ollama's capabilities).
func (c *Capabilities) NativeTools(ctx context.Context, id llm.Identity) bool {
	c.mu.Lock()
	refused := c.refused[Key(id)].NoTools
	c.mu.Unlock()
	if refused {
		return false
	}
	p := c.probed(ctx, id)
	return !p.known || slices.Contains(p.caps, "tools") // unknown: try, and learn from a refusal
}

// Ollama reports whether the model's server has Ollama's native API (and
// knows the model): its /v1 takes reasoning_effort "none" to turn
// thinking off, other servers need chat_template_kwargs too.
func (c *Capabilities) Ollama(ctx context.Context, id llm.Identity) bool {
	return c.probed(ctx, id).known
}

// probed returns what the probe said about the model, asking again after
// probeTTL.
func (c *Capabilities) probed(ctx context.Context, id llm.Identity) probed {
	k := Key(id)
	c.mu.Lock()
	p, ok := c.probes[k]
	c.mu.Unlock()
	if ok && time.Since(p.at) < probeTTL {
		return p
	}
	if c.probe == nil {
		return probed{}
	}
	caps, known := c.probe(ctx, id)
	p = probed{caps: caps, known: known, at: time.Now()}
	c.mu.Lock()
	c.probes[k] = p
	c.mu.Unlock()
	return p
}

// ThinkingRefused reports whether the server refused the thinking setting
// (or RefusedHistory) for the model before.
func (c *Capabilities) ThinkingRefused(id llm.Identity, setting string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.refused[Key(id)].Thinking, setting)
}

// RefuseThinking remembers that the server refused the thinking setting
// (or RefusedHistory) for the model.
func (c *Capabilities) RefuseThinking(id llm.Identity, setting string) {
	c.remember(id, func(r *Refusals) {
		if !slices.Contains(r.Thinking, setting) {
			r.Thinking = append(slices.Clone(r.Thinking), setting)
		}
	})
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
