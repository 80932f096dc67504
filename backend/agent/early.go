package agent

import (
	"context"
	"sync"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/questions"
)

// earlyAsk shows the card of a model call's first ask_user_question as soon
// as the server has finished that call, without waiting for the end of the
// stream (usage chunks, [DONE], later calls): the card is validated, stored
// and announced while the stream ends. The call only counts if the model
// call succeeds with the same call; otherwise the card is cancelled. (The
// card is stored before it is shown, as always; the assistant message with
// the call is stored when the stream ends.)
type earlyAsk struct {
	l       *runLoop
	ctx     context.Context
	after   bool // the run's afterUserTurn when the model was called
	mu      sync.Mutex
	started bool
	wg      sync.WaitGroup
	callID  string
	args    string
	card    *questions.Card
}

// newEarlyAsk returns nil when this run cannot ask (no asker, the tool not
// offered).
func (l *runLoop) newEarlyAsk() *earlyAsk {
	if l.rt.opt.Asker == nil || !l.profile.hasTool(ToolAskUser) {
		return nil
	}
	return &earlyAsk{l: l, ctx: l.ctx, after: l.afterUserTurn}
}

// onCall is llm.Request.OnToolCall: it runs on the stream's goroutine, so
// the card is made on another one.
func (e *earlyAsk) onCall(tc llm.ToolCall) {
	if tc.Name != ToolAskUser || tc.ID == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		return // later calls of the same answer are asked in order, after the stream
	}
	e.started = true
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		qs, err := questions.ParseInput([]byte(tc.Arguments))
		if err != nil {
			return // the call is run after the stream, which tells the model
		}
		card, err := e.l.rt.opt.Asker.Create(e.ctx, questions.AskRequest{ConversationID: e.l.run.ConversationID, RunID: e.l.run.ID,
			ToolCallID: tc.ID, Questions: qs, AfterUserTurn: e.after})
		if err != nil {
			return // the same: rate limit, pending cap, closing...
		}
		e.mu.Lock()
		e.callID, e.args, e.card = tc.ID, tc.Arguments, card
		e.mu.Unlock()
	}()
}

// settle waits for the early card and returns it by call id when the model
// call's result has that call; otherwise (a failed call, other arguments)
// the card is cancelled and nothing is returned.
func (e *earlyAsk) settle(calls []chat.ToolCall, failed bool) map[string]*questions.Card {
	if e == nil {
		return nil
	}
	e.wg.Wait()
	e.mu.Lock()
	card, id, args := e.card, e.callID, e.args
	e.mu.Unlock()
	if card == nil {
		return nil
	}
	if !failed {
		for _, tc := range calls {
			if tc.ID == id && tc.Name == ToolAskUser && tc.Arguments == args {
				e.l.afterUserTurn = false
				e.l.recordAsked()
				return map[string]*questions.Card{id: card}
			}
		}
	}
	// Cancelled: Wait with an ended context cancels a pending card.
	ended, cancel := context.WithCancel(context.WithoutCancel(e.ctx))
	cancel()
	_, _ = e.l.rt.opt.Asker.Wait(ended, card.ID)
	return nil
}
