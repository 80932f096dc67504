package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

// The JSON export format. Its field names are its own (not the API's), so
// the API can change without breaking files people keep. Bump ExportVersion
// on any change an older Parley could misread.
const (
	ExportFormat  = "parley.conversation"
	ExportVersion = 1
)

// ErrInvalidImport is wrapped by ImportJSON for data it refuses.
var ErrInvalidImport = errors.New("invalid conversation export")

type exportDoc struct {
	Format       string              `json:"format"`
	Version      int                 `json:"version"`
	ExportedAt   time.Time           `json:"exported_at"`
	Conversation *exportConversation `json:"conversation"`
	Messages     []exportMessage     `json:"messages"`
	Runs         []exportRun         `json:"runs"`
	Cards        []exportCard        `json:"cards"`
}

type exportConversation struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Assistant string    `json:"assistant"`
	Pinned    bool      `json:"pinned"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

type exportMessage struct {
	ID         string          `json:"id"`
	RunID      string          `json:"run_id,omitempty"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  []chat.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolName   string          `json:"tool_name,omitempty"`
	CreatedAt  time.Time       `json:"created_at"`
}

type exportRun struct {
	ID          string     `json:"id"`
	Status      string     `json:"status"`
	ResumedFrom string     `json:"resumed_from,omitempty"`
	Error       string     `json:"error,omitempty"`
	StartedAt   time.Time  `json:"started_at"`
	EndedAt     *time.Time `json:"ended_at,omitempty"`
}

type exportCard struct {
	ID         string               `json:"id"`
	RunID      string               `json:"run_id,omitempty"`
	ToolCallID string               `json:"tool_call_id,omitempty"`
	Status     questions.Status     `json:"status"`
	Questions  []questions.Question `json:"questions"`
	Answers    map[string]string    `json:"answers,omitempty"`
	Comments   string               `json:"comments,omitempty"`
	CreatedAt  time.Time            `json:"created_at"`
	ExpiresAt  *time.Time           `json:"expires_at,omitempty"`
	AnsweredAt *time.Time           `json:"answered_at,omitempty"`
}

// transcript is one conversation with everything in it, read consistently.
type transcript struct {
	conv     chat.Conversation
	messages []chat.Message
	runs     []chat.Run
	cards    []*questions.Card
}

// loadTranscript reads a conversation and its rows in one read transaction.
func (s *Store) loadTranscript(ctx context.Context, id string) (*transcript, error) {
	tx, err := s.readers.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	t := &transcript{}
	t.conv, err = scanConversation(tx.QueryRowContext(ctx, `SELECT `+conversationColumns+` FROM conversations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, chat.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages WHERE conversation_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	if t.messages, err = scanMessages(rows); err != nil {
		return nil, err
	}
	if t.runs, err = runsOf(ctx, tx, id); err != nil {
		return nil, err
	}
	t.cards, err = queryCards(ctx, tx,
		`SELECT `+cardColumns+` FROM cards WHERE conversation_id = ? ORDER BY created_at, rowid`, id)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ExportJSON writes the conversation with its messages, runs and cards in
// the versioned export format ImportJSON reads.
func (s *Store) ExportJSON(ctx context.Context, conversationID string) ([]byte, error) {
	t, err := s.loadTranscript(ctx, conversationID)
	if err != nil {
		return nil, fmt.Errorf("export conversation %s: %w", conversationID, err)
	}
	doc := exportDoc{
		Format: ExportFormat, Version: ExportVersion, ExportedAt: now(),
		Conversation: &exportConversation{ID: t.conv.ID, Title: t.conv.Title, Assistant: t.conv.Assistant,
			Pinned: t.conv.Pinned, CreatedAt: t.conv.CreatedAt, UpdatedAt: t.conv.UpdatedAt},
		Messages: make([]exportMessage, 0, len(t.messages)),
		Runs:     make([]exportRun, 0, len(t.runs)),
		Cards:    make([]exportCard, 0, len(t.cards)),
	}
	for _, m := range t.messages {
		doc.Messages = append(doc.Messages, exportMessage{ID: m.ID, RunID: m.RunID, Role: m.Role, Content: m.Content,
			ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName, CreatedAt: m.CreatedAt})
	}
	for _, r := range t.runs {
		doc.Runs = append(doc.Runs, exportRun{ID: r.ID, Status: r.Status, ResumedFrom: r.ResumedFrom, Error: r.Error,
			StartedAt: r.StartedAt, EndedAt: r.EndedAt})
	}
	for _, c := range t.cards {
		doc.Cards = append(doc.Cards, exportCard{ID: c.ID, RunID: c.RunID, ToolCallID: c.ToolCallID, Status: c.Status,
			Questions: c.Questions, Answers: c.Answers, Comments: c.Comments, CreatedAt: c.CreatedAt,
			ExpiresAt: c.ExpiresAt, AnsweredAt: c.AnsweredAt})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("export conversation %s: %w", conversationID, err)
	}
	return b, nil
}

// ImportJSON stores an exported conversation as a new one: every id is new
// (so importing twice gives two conversations), the title is marked as a copy
// ("Title (imported)", see importTitle), links between rows are kept,
// and work that was live when exported is ended (pending cards become
// cancelled, running runs interrupted) since nothing waits on it here. The
// data is checked first and written in one transaction: a refused or failed
// import writes nothing.
func (s *Store) ImportJSON(ctx context.Context, data []byte) (*chat.Conversation, error) {
	doc, err := decodeExport(data)
	if err != nil {
		return nil, fmt.Errorf("import conversation: %w", err)
	}
	conv, err := s.insertImport(ctx, doc)
	if err != nil {
		return nil, fmt.Errorf("import conversation: %w", err)
	}
	return conv, nil
}

func decodeExport(data []byte) (*exportDoc, error) {
	var doc exportDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidImport, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrInvalidImport)
	}
	if err := validateExport(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidImport, err)
	}
	return &doc, nil
}

func (s *Store) insertImport(ctx context.Context, doc *exportDoc) (*chat.Conversation, error) {
	// Old id -> new id, for runs (messages, cards and resumed_from link to them).
	runIDs := map[string]string{}
	newRunID := func(old string) string {
		if old == "" {
			return ""
		}
		if id, ok := runIDs[old]; ok {
			return id
		}
		runIDs[old] = uuid.NewString()
		return runIDs[old]
	}
	src := doc.Conversation
	conv := &chat.Conversation{ID: uuid.NewString(), Title: src.Title, Assistant: src.Assistant, Pinned: src.Pinned,
		CreatedAt: src.CreatedAt.UTC(), UpdatedAt: src.UpdatedAt.UTC()}

	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		if conv.Title, err = importTitle(ctx, tx, src.Title); err != nil {
			return fmt.Errorf("conversation: %w", err)
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO conversations (id, title, assistant, pinned, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
			conv.ID, conv.Title, conv.Assistant, conv.Pinned, formatTime(conv.CreatedAt), formatTime(conv.UpdatedAt)); err != nil {
			return fmt.Errorf("conversation: %w", err)
		}
		for i, m := range doc.Messages {
			msg := &chat.Message{ID: uuid.NewString(), ConversationID: conv.ID, RunID: newRunID(m.RunID), Role: m.Role,
				Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName, CreatedAt: m.CreatedAt}
			if err := insertMessage(ctx, tx, msg); err != nil {
				return fmt.Errorf("messages[%d]: %w", i, err)
			}
		}
		for i, r := range doc.Runs {
			run := &chat.Run{ID: newRunID(r.ID), ConversationID: conv.ID, Status: r.Status, ResumedFrom: newRunID(r.ResumedFrom),
				Error: r.Error, StartedAt: r.StartedAt, EndedAt: r.EndedAt}
			if isLiveRunStatus(run.Status) || run.Status == chat.RunAwaiting {
				run.Status = chat.RunInterrupted
			}
			if err := upsertRun(ctx, tx, run); err != nil {
				return fmt.Errorf("runs[%d]: %w", i, err)
			}
		}
		for i, c := range doc.Cards {
			card := &questions.Card{ID: uuid.NewString(), ConversationID: conv.ID, RunID: newRunID(c.RunID),
				ToolCallID: c.ToolCallID, Status: c.Status, Questions: c.Questions, Answers: c.Answers,
				Comments: c.Comments, CreatedAt: c.CreatedAt, ExpiresAt: c.ExpiresAt, AnsweredAt: c.AnsweredAt}
			if card.Status == questions.StatusPending {
				card.Status = questions.StatusCancelled
			}
			if err := upsertCard(ctx, tx, card); err != nil {
				return fmt.Errorf("cards[%d]: %w", i, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return conv, nil
}

func isLiveRunStatus(status string) bool {
	for _, s := range liveRunStatuses {
		if s == status {
			return true
		}
	}
	return false
}
