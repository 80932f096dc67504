package desktop

import (
	"context"
	"sync/atomic"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/trace"
)

// The window's frontend calls one bound service per area
// (window.go.desktop.<Service>.<Method>). Each method only adapts arguments for
// Wails and delegates to the domain service, which the HTTP API shares: the
// rules, limits and errors are the service's, and an error reaches the
// window as a rejected promise carrying its message.

// wire is what a bound method returns: its value with [] (and {}) where a
// nil slice (or map) would reach the window as null (api.NonNil).
func wire[T any](v T, err error) (T, error) { return api.NonNil(v), err }

// binding is what every bound service holds: the domain service and the
// window's context (set when the window starts).
type binding struct {
	svc *service.Service
	ctx context.Context
}

// bindings are the services bound to the window.
type bindings struct {
	conversations *ConversationService
	questions     *QuestionService
	models        *ModelService
	settings      *SettingsService
	mcp           *MCPService
	knowledge     *KnowledgeService
	agents        *AgentsService
}

func newBindings(svc *service.Service) *bindings {
	b := binding{svc: svc, ctx: context.Background()}
	return &bindings{
		conversations: &ConversationService{b},
		questions:     &QuestionService{b},
		models:        &ModelService{b},
		settings:      &SettingsService{b},
		mcp:           &MCPService{b},
		knowledge:     &KnowledgeService{b},
		agents:        &AgentsService{binding: b},
	}
}

// startup gives every service the window's context.
func (b *bindings) startup(ctx context.Context) {
	b.conversations.ctx = ctx
	b.questions.ctx = ctx
	b.models.ctx = ctx
	b.settings.ctx = ctx
	b.mcp.ctx = ctx
	b.knowledge.ctx = ctx
	b.agents.ctx = ctx
}

// all lists the services for Wails' Bind option.
func (b *bindings) all() []any {
	return []any{b.conversations, b.questions, b.models, b.settings, b.mcp, b.knowledge, b.agents}
}

// wailsEmitter sends events to the window once it exists.
type wailsEmitter struct {
	ctx atomic.Pointer[context.Context]
}

// Emit sends one event to the window (dropped before the window starts).
func (w *wailsEmitter) Emit(name string, payload any) {
	if ctx := w.ctx.Load(); ctx != nil {
		runtime.EventsEmit(*ctx, name, api.NonNilAny(payload)) // [] where the UI's type says T[], never null
		if trace.Enabled() {
			trace.Mark(events.TraceKey(name, payload), trace.HopWailsSent)
		}
	}
}
