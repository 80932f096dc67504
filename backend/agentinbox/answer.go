package agentinbox

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

// PendingMessage is what an agent is told while its card waits.
const PendingMessage = "The user has not answered yet. Call get_answer with this question_id to keep waiting."

// Permission results (Claude Code's --permission-prompt-tool shape).
const (
	DeniedMessage          = "The user denied this."
	PermissionCancelledMsg = "The user cancelled this request."
	PermissionTimedOutMsg  = "The permission request timed out without an answer from the user."
)

// Answer is where an agent's card stands.
type Answer struct {
	QuestionID string
	Status     questions.Status
	Kind       questions.Kind
	// Pending: not resolved yet; Result is then the pending object.
	Pending bool
	// Result is the exact text the agent gets: the §1 result, the
	// permission JSON, or the pending object.
	Result string
	Card   *questions.Card
}

// Answer waits up to wait for the agent's card to be resolved and says
// where it stands. agent "" reads any agent's card (the REST endpoint with
// the user's token); otherwise another agent's card is unknown. It works
// across restarts (the store has every card) and never cancels the card.
func (in *Inbox) Answer(ctx context.Context, agent, id string, wait time.Duration) (Answer, error) {
	card, err := in.cardOf(ctx, agent, id)
	if err != nil {
		return Answer{}, err
	}
	if card.Status == questions.StatusPending && wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		c, err := in.qm.Await(wctx, id)
		cancel()
		switch {
		case err == nil:
			card = c
		case errors.Is(err, questions.ErrNotFound):
			// Left memory while waiting: the store has it.
			if card, err = in.cardOf(ctx, agent, id); err != nil {
				return Answer{}, err
			}
		default:
			return Answer{}, err
		}
	}
	return AnswerOf(card), nil
}

// cardOf finds an agent's card in memory, else in the store.
func (in *Inbox) cardOf(ctx context.Context, agent, id string) (*questions.Card, error) {
	card, ok := in.qm.Get(id)
	if !ok {
		c, err := in.store.Card(ctx, id)
		if errors.Is(err, chat.ErrNotFound) {
			return nil, ErrUnknownCard
		}
		if err != nil {
			return nil, err
		}
		card = c
	}
	if !card.FromAgent() || (agent != "" && card.Source.Agent != agent) {
		return nil, ErrUnknownCard
	}
	return card, nil
}

// AnswerOf is where a card stands, with the text its agent gets.
func AnswerOf(c *questions.Card) Answer {
	a := Answer{QuestionID: c.ID, Status: c.Status, Kind: c.Kind, Card: c}
	if c.Status == questions.StatusPending {
		a.Pending = true
		a.Result = PendingObject(c.ID)
		return a
	}
	if c.Kind == questions.KindApproval {
		a.Result = permissionResult(c)
		return a
	}
	a.Result = questions.OutcomeFor(c).Result
	return a
}

// PendingObject is the result while a card waits (SPEC §10).
func PendingObject(id string) string {
	b, _ := json.Marshal(struct {
		Status     string `json:"status"`
		QuestionID string `json:"question_id"`
		Message    string `json:"message"`
	}{"pending", id, PendingMessage})
	return string(b)
}

// permissionResult is request_permission's answer: allow with the edited
// input (or the original), or deny with the user's reason; a timeout or a
// cancel denies.
func permissionResult(c *questions.Card) string {
	type allow struct {
		Behavior     string          `json:"behavior"`
		UpdatedInput json.RawMessage `json:"updatedInput"`
	}
	type deny struct {
		Behavior string `json:"behavior"`
		Message  string `json:"message"`
	}
	var v any
	switch c.Status {
	case questions.StatusApproved:
		input := c.ApprovedArguments
		if len(input) == 0 && c.Tool != nil {
			input = c.Tool.Arguments
		}
		v = allow{"allow", input}
	case questions.StatusRejected:
		msg := c.Reason
		if msg == "" {
			msg = DeniedMessage
		}
		v = deny{"deny", msg}
	case questions.StatusTimedOut:
		v = deny{"deny", PermissionTimedOutMsg}
	default:
		v = deny{"deny", PermissionCancelledMsg}
	}
	b, _ := json.Marshal(v)
	return string(b)
}
