package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

const cardColumns = "id, conversation_id, run_id, tool_call_id, status, questions, answers, comments, created_at, expires_at, answered_at, kind, source, details, answered_by, memory_id"

// cardDetails are the kind-specific fields of a card (SPEC §6), stored as
// JSON in the details column.
type cardDetails struct {
	Tool              *questions.ApprovalTool `json:"tool,omitempty"`
	ApprovedArguments json.RawMessage         `json:"approved_arguments,omitempty"`
	Reason            string                  `json:"reason,omitempty"`
	Always            bool                    `json:"always,omitempty"`
	Server            string                  `json:"server,omitempty"`
	Message           string                  `json:"message,omitempty"`
	Mode              string                  `json:"mode,omitempty"`
	Schema            json.RawMessage         `json:"schema,omitempty"`
	URL               string                  `json:"url,omitempty"`
	Content           json.RawMessage         `json:"content,omitempty"`
	Context           string                  `json:"context,omitempty"`    // an agent's (SPEC §10)
	MemoryIDs         map[string]string       `json:"memory_ids,omitempty"` // answered from memory (SPEC §14)
}

func detailsOf(c *questions.Card) cardDetails {
	return cardDetails{Tool: c.Tool, ApprovedArguments: c.ApprovedArguments, Reason: c.Reason, Always: c.Always,
		Server: c.Server, Message: c.Message, Mode: c.Mode, Schema: c.Schema, URL: c.URL, Content: c.Content, Context: c.Context,
		MemoryIDs: c.MemoryIDs}
}

func (d cardDetails) apply(c *questions.Card) {
	c.Tool, c.ApprovedArguments, c.Reason, c.Always = d.Tool, d.ApprovedArguments, d.Reason, d.Always
	c.Server, c.Message, c.Mode, c.Schema, c.URL, c.Content = d.Server, d.Message, d.Mode, d.Schema, d.URL, d.Content
	c.Context, c.MemoryIDs = d.Context, d.MemoryIDs
}

// SaveCard inserts a question card or updates it (status, answers,
// comments, times). CreatedAt, Kind and Source are filled when zero. A card never moves to
// another conversation.
func (s *Store) SaveCard(ctx context.Context, c *questions.Card) error {
	switch {
	case c.ID == "":
		return errors.New("save question card: empty id")
	case c.ConversationID == "":
		return fmt.Errorf("save question card %s: empty conversation id", c.ID)
	case c.Status == "":
		return fmt.Errorf("save question card %s: empty status", c.ID)
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now()
	}
	c.FillKind()
	err := s.withTx(ctx, func(tx *sql.Tx) error { return upsertCard(ctx, tx, c) })
	if err != nil {
		return fmt.Errorf("save question card %s: %w", c.ID, err)
	}
	return nil
}

func upsertCard(ctx context.Context, tx *sql.Tx, c *questions.Card) error {
	c.FillKind()
	qs := c.Questions
	if qs == nil {
		qs = []questions.Question{}
	}
	questionsJSON, err := json.Marshal(qs)
	if err != nil {
		return fmt.Errorf("encode questions: %w", err)
	}
	var answersJSON any
	if len(c.Answers) > 0 {
		b, err := json.Marshal(c.Answers)
		if err != nil {
			return fmt.Errorf("encode answers: %w", err)
		}
		answersJSON = string(b)
	}
	sourceJSON, err := json.Marshal(c.Source)
	if err != nil {
		return fmt.Errorf("encode source: %w", err)
	}
	var detailsJSON any
	if b, err := json.Marshal(detailsOf(c)); err != nil {
		return fmt.Errorf("encode card details: %w", err)
	} else if string(b) != "{}" {
		detailsJSON = string(b)
	}
	res, err := tx.ExecContext(ctx,
		`INSERT INTO cards (`+cardColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		 ON CONFLICT (id) DO UPDATE SET
		     run_id = excluded.run_id, tool_call_id = excluded.tool_call_id, status = excluded.status,
		     questions = excluded.questions, answers = excluded.answers, comments = excluded.comments,
		     created_at = excluded.created_at, expires_at = excluded.expires_at, answered_at = excluded.answered_at,
		     kind = excluded.kind, source = excluded.source, details = excluded.details,
		     answered_by = excluded.answered_by, memory_id = excluded.memory_id
		 WHERE cards.conversation_id = excluded.conversation_id`,
		c.ID, c.ConversationID, nullString(c.RunID), nullString(c.ToolCallID), string(c.Status),
		string(questionsJSON), answersJSON, nullString(c.Comments),
		formatTime(c.CreatedAt), nullTime(c.ExpiresAt), nullTime(c.AnsweredAt),
		string(c.Kind), string(sourceJSON), detailsJSON, nullString(c.AnsweredBy), nullString(c.MemoryID))
	if isForeignKeyError(err) {
		return fmt.Errorf("conversation %s: %w", c.ConversationID, chat.ErrNotFound)
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return errors.New("the card belongs to another conversation")
	}
	return nil
}

// Card loads one question card; chat.ErrNotFound when missing.
func (s *Store) Card(ctx context.Context, id string) (*questions.Card, error) {
	c, err := scanCard(s.readers.QueryRowContext(ctx, `SELECT `+cardColumns+` FROM cards WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load question card %s: %w", id, chat.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load question card %s: %w", id, err)
	}
	return c, nil
}

// CardsByConversation loads a conversation's cards, oldest first.
func (s *Store) CardsByConversation(ctx context.Context, conversationID string) ([]*questions.Card, error) {
	cards, err := queryCards(ctx, s.readers,
		`SELECT `+cardColumns+` FROM cards WHERE conversation_id = ? ORDER BY created_at, rowid`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("load question cards of %s: %w", conversationID, err)
	}
	return cards, nil
}

// CardsByStatus loads the cards in any of the statuses (all cards when none
// is given) across conversations, oldest first; after a restart it finds
// the pending and timed-out cards to restore.
func (s *Store) CardsByStatus(ctx context.Context, statuses ...questions.Status) ([]*questions.Card, error) {
	query := `SELECT ` + cardColumns + ` FROM cards`
	args := make([]any, len(statuses))
	if len(statuses) > 0 {
		for i, st := range statuses {
			args[i] = string(st)
		}
		query += ` WHERE status IN (?` + strings.Repeat(", ?", len(statuses)-1) + `)`
	}
	query += ` ORDER BY created_at, rowid`
	cards, err := queryCards(ctx, s.readers, query, args...)
	if err != nil {
		return nil, fmt.Errorf("load question cards by status %v: %w", statuses, err)
	}
	return cards, nil
}

func queryCards(ctx context.Context, q querier, query string, args ...any) ([]*questions.Card, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cards := []*questions.Card{}
	for rows.Next() {
		c, err := scanCard(rows)
		if err != nil {
			return nil, err
		}
		cards = append(cards, c)
	}
	return cards, rows.Err()
}

func scanCard(sc scanner) (*questions.Card, error) {
	var c questions.Card
	var runID, toolCallID, answers, comments, expires, answered, source, details, answeredBy, memoryID sql.NullString
	var status, questionsJSON, created, kind string
	if err := sc.Scan(&c.ID, &c.ConversationID, &runID, &toolCallID, &status, &questionsJSON,
		&answers, &comments, &created, &expires, &answered, &kind, &source, &details, &answeredBy, &memoryID); err != nil {
		return nil, err
	}
	c.Kind = questions.Kind(kind)
	if source.Valid {
		if err := json.Unmarshal([]byte(source.String), &c.Source); err != nil {
			return nil, fmt.Errorf("card %s: decode source: %w", c.ID, err)
		}
	}
	if details.Valid {
		var d cardDetails
		if err := json.Unmarshal([]byte(details.String), &d); err != nil {
			return nil, fmt.Errorf("card %s: decode details: %w", c.ID, err)
		}
		d.apply(&c)
	}
	c.RunID, c.ToolCallID, c.Comments, c.Status = runID.String, toolCallID.String, comments.String, questions.Status(status)
	c.AnsweredBy, c.MemoryID = answeredBy.String, memoryID.String
	if err := json.Unmarshal([]byte(questionsJSON), &c.Questions); err != nil {
		return nil, fmt.Errorf("card %s: decode questions: %w", c.ID, err)
	}
	if answers.Valid {
		if err := json.Unmarshal([]byte(answers.String), &c.Answers); err != nil {
			return nil, fmt.Errorf("card %s: decode answers: %w", c.ID, err)
		}
	}
	var err error
	if c.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	}
	if c.ExpiresAt, err = parseNullTime(expires); err != nil {
		return nil, err
	}
	if c.AnsweredAt, err = parseNullTime(answered); err != nil {
		return nil, err
	}
	c.FillKind()
	return &c, nil
}
