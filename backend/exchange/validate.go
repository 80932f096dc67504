package exchange

import (
	"errors"
	"fmt"
	"slices"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

// validateExport refuses an export ImportJSON cannot store faithfully; the
// message names the field, like the rest of Parley's input errors.
func validateExport(doc *exportDoc) error {
	switch {
	case doc.Format != ExportFormat:
		return fmt.Errorf("format is %q, want %q", doc.Format, ExportFormat)
	case doc.Version > ExportVersion:
		return fmt.Errorf("version %d was written by a newer Parley (this one reads up to %d)", doc.Version, ExportVersion)
	case doc.Version < 1:
		return fmt.Errorf("version %d is not valid", doc.Version)
	case doc.Conversation == nil:
		return errors.New("conversation is missing")
	case doc.Conversation.CreatedAt.IsZero():
		return errors.New("conversation.created_at is missing")
	case doc.Conversation.UpdatedAt.IsZero():
		return errors.New("conversation.updated_at is missing")
	case doc.Conversation.Thinking != "" && !slices.Contains(chat.ThinkingSettings, doc.Conversation.Thinking):
		return fmt.Errorf("conversation.thinking %q is not one of auto, off, low, medium, high", doc.Conversation.Thinking)
	}
	msgIDs := map[string]bool{}
	for i, m := range doc.Messages {
		if m.ID != "" && msgIDs[m.ID] {
			return fmt.Errorf("messages[%d].id %q is repeated", i, m.ID)
		}
		if m.ParentID != "" && !msgIDs[m.ParentID] {
			return fmt.Errorf("messages[%d].parent_id %q is not the id of an earlier message", i, m.ParentID)
		}
		for j, a := range m.Attachments {
			if a.Name == "" {
				return fmt.Errorf("messages[%d].attachments[%d].name is missing", i, j)
			}
		}
		if m.ID != "" {
			msgIDs[m.ID] = true
		}
		switch m.Role {
		case chat.RoleSystem, chat.RoleUser, chat.RoleAssistant, chat.RoleTool:
		default:
			return fmt.Errorf("messages[%d].role %q is not one of system, user, assistant, tool", i, m.Role)
		}
		if m.CreatedAt.IsZero() {
			return fmt.Errorf("messages[%d].created_at is missing", i)
		}
		if m.ReasoningMs < 0 {
			return fmt.Errorf("messages[%d].reasoning_ms %d is negative", i, m.ReasoningMs)
		}
	}
	if doc.LeafID != "" && !msgIDs[doc.LeafID] {
		return fmt.Errorf("leaf_id %q is not the id of a message", doc.LeafID)
	}
	for i, b := range doc.Branches {
		if !msgIDs[b.ChildID] || b.ParentID != "" && !msgIDs[b.ParentID] {
			return fmt.Errorf("branches[%d] names a message that is not in the file", i)
		}
	}
	runIDs := map[string]bool{}
	for i, r := range doc.Runs {
		switch {
		case r.ID == "":
			return fmt.Errorf("runs[%d].id is missing", i)
		case runIDs[r.ID]:
			return fmt.Errorf("runs[%d].id %q is repeated", i, r.ID)
		case r.Status == "":
			return fmt.Errorf("runs[%d].status is missing", i)
		case r.StartedAt.IsZero():
			return fmt.Errorf("runs[%d].started_at is missing", i)
		}
		runIDs[r.ID] = true
	}
	cardIDs := map[string]bool{}
	for i, c := range doc.Cards {
		switch {
		case c.ID == "":
			return fmt.Errorf("cards[%d].id is missing", i)
		case cardIDs[c.ID]:
			return fmt.Errorf("cards[%d].id %q is repeated", i, c.ID)
		case !knownCardStatus(c.Status):
			return fmt.Errorf("cards[%d].status %q is not a card status", i, c.Status)
		case !knownCardKind(c.Kind):
			return fmt.Errorf("cards[%d].kind %q is not a card kind", i, c.Kind)
		case (c.Kind == "" || c.Kind == questions.KindQuestion) && len(c.Questions) == 0:
			return fmt.Errorf("cards[%d].questions is empty", i)
		case c.Kind == questions.KindApproval && c.Tool == nil:
			return fmt.Errorf("cards[%d].tool is missing", i)
		case c.Kind == questions.KindElicitation && c.Mode != questions.ElicitForm && c.Mode != questions.ElicitURL:
			return fmt.Errorf("cards[%d].mode %q is not form or url", i, c.Mode)
		case c.CreatedAt.IsZero():
			return fmt.Errorf("cards[%d].created_at is missing", i)
		}
		for j, q := range c.Questions {
			if q.Question == "" {
				return fmt.Errorf("cards[%d].questions[%d].question is empty", i, j)
			}
		}
		cardIDs[c.ID] = true
	}
	return nil
}

func knownCardStatus(s questions.Status) bool {
	switch s {
	case questions.StatusPending, questions.StatusAnswered, questions.StatusDeclined, questions.StatusCancelled,
		questions.StatusTimedOut, questions.StatusAnsweredLate, questions.StatusSuperseded,
		questions.StatusApproved, questions.StatusRejected, questions.StatusAccepted:
		return true
	}
	return false
}

// knownCardKind accepts the kinds of SPEC §6; none means a question card
// (exports made before card kinds).
func knownCardKind(k questions.Kind) bool {
	switch k {
	case "", questions.KindQuestion, questions.KindApproval, questions.KindElicitation:
		return true
	}
	return false
}
