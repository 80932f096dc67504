package questions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ApprovalRequest asks the user to approve an MCP tool call before it runs
// (SPEC §6). Tool.Arguments must be a JSON object.
type ApprovalRequest struct {
	ConversationID string
	RunID          string
	ToolCallID     string
	Tool           ApprovalTool
	// Source, when set, replaces the MCP source the card gets by default
	// (the model's own remember tool, SPEC §14).
	Source *Source
}

// ElicitationRequest is an MCP server's elicitation/create during a tool
// call of a run, shown as a card of that run's conversation.
type ElicitationRequest struct {
	ConversationID string
	RunID          string
	ToolCallID     string
	Server         string
	Tool           string // the MCP tool being called
	Message        string
	Mode           string // ElicitForm or ElicitURL
	Schema         json.RawMessage
	URL            string
}

// CreateApproval shows an approval card. The pending cap counts it; the
// rate limit does not apply (a run asks for one approval at a time).
func (m *Manager) CreateApproval(ctx context.Context, req ApprovalRequest) (*Card, error) {
	if req.ConversationID == "" {
		return nil, errors.New("create approval card: conversation id is required")
	}
	if !isObject(req.Tool.Arguments) {
		return nil, errors.New("create approval card: the arguments must be a JSON object")
	}
	tool := req.Tool
	if len(tool.InputSchema) == 0 {
		tool.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	src := &Source{Type: SourceMCP, Server: tool.Server, Tool: tool.Name}
	if req.Source != nil {
		s := *req.Source
		src = &s
	}
	return m.createCard(ctx, &Card{
		ConversationID: req.ConversationID,
		RunID:          req.RunID,
		ToolCallID:     req.ToolCallID,
		Kind:           KindApproval,
		Source:         src,
		Tool:           &tool,
	}, false, false)
}

// CreateElicitation shows an elicitation card. The pending cap and the
// conversation's rate limit apply: a server that floods requests gets
// errors, not a wall of cards.
func (m *Manager) CreateElicitation(ctx context.Context, req ElicitationRequest) (*Card, error) {
	if req.ConversationID == "" {
		return nil, errors.New("create elicitation card: conversation id is required")
	}
	c := &Card{
		ConversationID: req.ConversationID,
		RunID:          req.RunID,
		ToolCallID:     req.ToolCallID,
		Kind:           KindElicitation,
		Source:         &Source{Type: SourceMCP, Server: req.Server, Tool: req.Tool},
		Server:         req.Server,
		Message:        req.Message,
		Mode:           req.Mode,
	}
	switch req.Mode {
	case ElicitForm:
		schema := req.Schema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if !isObject(schema) {
			return nil, errors.New("invalid elicitation: the requested schema must be a JSON object")
		}
		if _, err := compileSchema(schema); err != nil {
			return nil, fmt.Errorf("invalid elicitation: the requested schema is not valid: %w", err)
		}
		c.Schema = schema
	case ElicitURL:
		if strings.TrimSpace(req.URL) == "" {
			return nil, errors.New("invalid elicitation: url mode needs a URL")
		}
		c.URL = req.URL
	default:
		return nil, fmt.Errorf("invalid elicitation: unknown mode %q", req.Mode)
	}
	return m.createCard(ctx, c, true, false)
}

// actionsFor lists the actions a card of the kind takes.
func actionsFor(k Kind) string {
	switch k {
	case KindApproval:
		return "approve, reject or cancel"
	case KindElicitation:
		return "accept, decline or cancel"
	}
	return "submit, decline (or skip) or cancel"
}

// changeFor is the change a response asks for, by the card's kind.
func (m *Manager) changeFor(kind Kind, r Response) (change, error) {
	pendingTo := func(st Status) change {
		return change{from: []Status{StatusPending}, apply: func(c *Card) { c.Status = st }}
	}
	a := r.Action.Canonical()
	if kind == "" {
		kind = KindQuestion
	}
	switch {
	case a == ActionCancel:
		return pendingTo(StatusCancelled), nil
	case kind == KindQuestion && a == ActionSubmit:
		return submitChange(r, m.now), nil
	case kind == KindQuestion && a == ActionDecline, kind == KindElicitation && a == ActionDecline:
		return pendingTo(StatusDeclined), nil
	case kind == KindApproval && a == ActionApprove:
		return m.approveChange(r), nil
	case kind == KindApproval && a == ActionReject:
		reason := strings.TrimSpace(r.Reason)
		if n := utf8.RuneCountInString(reason); n > MaxCommentsLen {
			return change{}, answerErr("", "questions.answer.reasonTooLong", strconv.Itoa(MaxCommentsLen), strconv.Itoa(n))
		}
		return change{from: []Status{StatusPending}, apply: func(c *Card) {
			c.Status, c.Reason = StatusRejected, reason
			at := m.now()
			c.AnsweredAt = &at
		}}, nil
	case kind == KindElicitation && a == ActionAccept:
		return m.acceptChange(r), nil
	}
	return change{}, protocolErr("action %q does not apply to a%s %s card (use %s)", r.Action, article(kind), kind, actionsFor(kind))
}

func article(k Kind) string {
	if k == KindApproval || k == KindElicitation {
		return "n"
	}
	return ""
}

// approveChange approves with the model's arguments, or with the user's
// edited ones when given (they must fit the tool's input schema).
func (m *Manager) approveChange(r Response) change {
	return change{
		from: []Status{StatusPending},
		check: func(c *Card) error {
			if len(r.Arguments) == 0 || string(r.Arguments) == "null" {
				return nil
			}
			if !isObject(r.Arguments) {
				return answerErr("", "questions.answer.argsNotObject")
			}
			if c.Tool == nil || len(c.Tool.InputSchema) == 0 {
				return nil
			}
			sch, err := compileSchema(c.Tool.InputSchema)
			if err != nil {
				// The server's schema cannot be checked here; the server checks.
				m.log().Warn("tool input schema not usable for checking edited arguments", "question_id", c.ID, "err", err)
				return nil
			}
			if err := validateValue(sch, r.Arguments); err != nil {
				return answerErr("", "questions.answer.argsSchema", err.Error())
			}
			return nil
		},
		apply: func(c *Card) {
			c.Status = StatusApproved
			if len(r.Arguments) > 0 && string(r.Arguments) != "null" {
				c.ApprovedArguments = append(json.RawMessage(nil), r.Arguments...)
			}
			c.Always = r.Always
			at := m.now()
			c.AnsweredAt = &at
		},
	}
}

// acceptChange accepts an elicitation: in form mode the content, with the
// schema's defaults filled in, must fit the requested schema (formats
// included).
func (m *Manager) acceptChange(r Response) change {
	var content json.RawMessage
	return change{
		from: []Status{StatusPending},
		check: func(c *Card) error {
			if c.Mode != ElicitForm {
				content = nil
				return nil
			}
			raw := r.Content
			if len(raw) == 0 || string(raw) == "null" {
				raw = json.RawMessage(`{}`)
			}
			if !isObject(raw) {
				return answerErr("", "questions.answer.contentNotObject")
			}
			filled, err := fillDefaults(c.Schema, raw)
			if err != nil {
				return answerErr("", "questions.answer.contentInvalid", err.Error())
			}
			sch, err := compileSchema(c.Schema)
			if err != nil {
				return answerErr("", "questions.answer.schemaUnusable", err.Error())
			}
			if err := validateValue(sch, filled); err != nil {
				return answerErr("", "questions.answer.contentSchema", err.Error())
			}
			content = filled
			return nil
		},
		apply: func(c *Card) {
			c.Status = StatusAccepted
			c.Content = content
			at := m.now()
			c.AnsweredAt = &at
		},
	}
}

// Results of approval and elicitation cards the model (or the run) gets.
const (
	// ApprovalCancelledResult: the user cancelled; the tool did not run and the run stops.
	ApprovalCancelledResult = "The user cancelled this tool call; it did not run."
	// ApprovalTimedOutResult: nobody answered in time; never approved by default.
	ApprovalTimedOutResult = "The approval request for this tool call timed out without an answer from the user, so the tool did not run. Proceed without it, or ask the user."
	// ElicitationEndedAtCloseReason is the line a pending elicitation card
	// gets when Parley closed under it: its server session is gone.
	ElicitationEndedAtCloseReason = "The server's request ended when Parley closed; the tool call did not finish."
)

// RejectedResult is the result when the user rejects a tool call.
func RejectedResult(reason string) string {
	if reason == "" {
		return "The user rejected this tool call; it did not run. Do not call it again with the same arguments unless the user asks."
	}
	return "The user rejected this tool call; it did not run. Reason: " + reason
}

// outcomeForKind is OutcomeFor of approval and elicitation cards.
func outcomeForKind(c *Card) Outcome {
	out := Outcome{Status: c.Status}
	switch c.Kind {
	case KindApproval:
		switch c.Status {
		case StatusApproved:
			out.Arguments = string(c.ApprovedArguments)
			if out.Arguments == "" && c.Tool != nil {
				out.Arguments = string(c.Tool.Arguments)
			}
			out.Always = c.Always
		case StatusRejected:
			out.Result = RejectedResult(c.Reason)
		case StatusCancelled:
			out.Result, out.StopRun = ApprovalCancelledResult, true
		case StatusTimedOut:
			out.Result = ApprovalTimedOutResult
		}
	case KindElicitation:
		out.Content = string(c.Content)
		if c.Status == StatusCancelled && c.Reason != "" {
			out.Result = c.Reason
		}
	}
	return out
}
