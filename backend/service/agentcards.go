package service

import (
	"sync"

	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/yield"
)

// agentCardsSource is the background gate's source for agents' cards.
const agentCardsSource = "agent-cards"

// agentCards paces background work while an agent's card waits for the
// user (issue #42), as an in-app run's open card does: an agent's card has
// no run, so the runtime's activity never tells the gate. It sees the
// question manager's events on their way out, and the cards restored at
// start.
type agentCards struct {
	events.Emitter
	gate *yield.Gate

	mu      sync.Mutex
	pending map[string]bool // ids of agents' cards waiting for the user
}

func newAgentCards(em events.Emitter, gate *yield.Gate) *agentCards {
	return &agentCards{Emitter: em, gate: gate, pending: map[string]bool{}}
}

// Emit passes the event on after noting an agent's card's state.
func (a *agentCards) Emit(name string, payload any) {
	if c, ok := payload.(*questions.Card); ok && c.FromAgent() {
		a.track(c)
	}
	a.Emitter.Emit(name, payload)
}

// restored notes the pending agents' cards a restart brought back.
func (a *agentCards) restored(cards []*questions.Card) {
	for _, c := range cards {
		if c.FromAgent() {
			a.track(c)
		}
	}
}

func (a *agentCards) track(c *questions.Card) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c.Status == questions.StatusPending {
		a.pending[c.ID] = true
	} else {
		delete(a.pending, c.ID)
	}
	mode := yield.Open
	if len(a.pending) > 0 {
		mode = yield.Paced
	}
	a.gate.Set(agentCardsSource, mode)
}
