package assistant

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

// StatDelta is what one event adds to a model's statistics (how well it
// asks: cards, their outcomes, calls repaired or refused, corrections).
type StatDelta struct {
	CardsAsked int
	Answered   int
	Declined   int
	Cancelled  int
	TimedOut   int
	Repaired   int
	Refused    int
	Corrected  int
	// AnswerTime is how long the user took to answer a card (0 = none).
	AnswerTime time.Duration
}

// record adds to the statistics of the run's model.
func (l *runLoop) record(d StatDelta) {
	if l.rt.opt.Stats == nil {
		return
	}
	if l.model == nil {
		// A run resumed after a restart waits on its card before the model
		// is needed: the statistics still belong to the profile's model.
		m, err := l.rt.opt.Model(l.profile.Model)
		if err != nil {
			return
		}
		l.model = m
	}
	l.chooseForm()
	if model := l.text.modelName(); model != "" {
		l.rt.opt.Stats(model, d)
	}
}

// recordAsked counts a card shown to the user.
func (l *runLoop) recordAsked() { l.record(StatDelta{CardsAsked: 1}) }

// recordOutcome counts how a card ended, and the time to an answer. The
// count is held until the next step has made its model call, or the run
// ends (flushStats): its write is not on the way from the answer to the
// next model request.
func (l *runLoop) recordOutcome(card *questions.Card, out questions.Outcome) {
	var d StatDelta
	switch out.Status {
	case questions.StatusAnswered:
		d.Answered = 1
		d.AnswerTime = time.Since(card.CreatedAt)
	case questions.StatusDeclined:
		d.Declined = 1
	case questions.StatusCancelled:
		d.Cancelled = 1
	case questions.StatusTimedOut:
		d.TimedOut = 1
	default:
		return
	}
	l.heldStats = append(l.heldStats, d)
}

// flushStats records the first n counts held (n < 0: all of them).
func (l *runLoop) flushStats(n int) {
	if l == nil {
		return
	}
	if n < 0 || n > len(l.heldStats) {
		n = len(l.heldStats)
	}
	held := l.heldStats[:n]
	l.heldStats = slices.Clone(l.heldStats[n:])
	for _, d := range held {
		l.record(d)
	}
}

// correction matches the start of a message that corrects the reply
// before it ("no, ...", "actually ...", "wrong"): a rough signal that the
// assistant should have asked.
var correction = regexp.MustCompile(`(?i)^\W*(no|nope|not|actually|wrong|incorrect|that's not|that is not|thats not|i meant|i said)\b`)

// noteCorrection counts a run where the user corrected a reply that was
// given without asking: the message before the user's new one is a final
// assistant reply of an exchange in which no card was asked.
func (l *runLoop) noteCorrection(userText string) {
	if l.rt.opt.Stats == nil || !correction.MatchString(strings.TrimSpace(userText)) {
		return
	}
	history, err := l.rt.opt.History.Messages(context.WithoutCancel(l.ctx), l.run.ConversationID)
	if err != nil || len(history) < 2 {
		return
	}
	// history ends with the new user message.
	prev := history[:len(history)-1]
	last := prev[len(prev)-1]
	if last.Role != chat.RoleAssistant || len(last.ToolCalls) > 0 || strings.TrimSpace(last.Content) == "" {
		return
	}
	for i := len(prev) - 1; i >= 0 && prev[i].Role != chat.RoleUser; i-- {
		for _, tc := range prev[i].ToolCalls {
			if tc.Name == ToolAskUser {
				return // it asked
			}
		}
	}
	l.record(StatDelta{Corrected: 1})
}
