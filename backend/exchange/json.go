// Package exchange converts conversations between Parley's rows and the
// files people keep: the versioned JSON export (which imports back) and a
// readable Markdown transcript. Reading and writing the rows is the store's.
package exchange

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
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

// ExportJSON writes the conversation with its messages, runs and cards in
// the versioned export format ImportJSON reads.
func ExportJSON(ctx context.Context, s *store.Store, conversationID string) ([]byte, error) {
	t, err := s.Transcript(ctx, conversationID)
	if err != nil {
		return nil, fmt.Errorf("export conversation %s: %w", conversationID, err)
	}
	doc := exportDoc{
		Format: ExportFormat, Version: ExportVersion, ExportedAt: time.Now().UTC().Round(0),
		Conversation: &exportConversation{ID: t.Conversation.ID, Title: t.Conversation.Title, Assistant: t.Conversation.Assistant,
			Pinned: t.Conversation.Pinned, CreatedAt: t.Conversation.CreatedAt, UpdatedAt: t.Conversation.UpdatedAt},
		Messages: make([]exportMessage, 0, len(t.Messages)),
		Runs:     make([]exportRun, 0, len(t.Runs)),
		Cards:    make([]exportCard, 0, len(t.Cards)),
	}
	for _, m := range t.Messages {
		doc.Messages = append(doc.Messages, exportMessage{ID: m.ID, RunID: m.RunID, Role: m.Role, Content: m.Content,
			ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName, CreatedAt: m.CreatedAt})
	}
	for _, r := range t.Runs {
		doc.Runs = append(doc.Runs, exportRun{ID: r.ID, Status: r.Status, ResumedFrom: r.ResumedFrom, Error: r.Error,
			StartedAt: r.StartedAt, EndedAt: r.EndedAt})
	}
	for _, c := range t.Cards {
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

// ImportJSON stores an exported conversation as a new one (see
// store.ImportTranscript: new ids, the title marked as a copy, live work
// ended). The data is checked first and written in one transaction: a
// refused or failed import writes nothing.
func ImportJSON(ctx context.Context, s *store.Store, data []byte) (*chat.Conversation, error) {
	doc, err := decodeExport(data)
	if err != nil {
		return nil, fmt.Errorf("import conversation: %w", err)
	}
	return s.ImportTranscript(ctx, doc.transcript())
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

// transcript turns a checked export into the rows to store (with the
// export's ids; the store renews them).
func (doc *exportDoc) transcript() *store.Transcript {
	src := doc.Conversation
	t := &store.Transcript{
		Conversation: chat.Conversation{ID: src.ID, Title: src.Title, Assistant: src.Assistant, Pinned: src.Pinned,
			CreatedAt: src.CreatedAt, UpdatedAt: src.UpdatedAt},
	}
	for _, m := range doc.Messages {
		t.Messages = append(t.Messages, chat.Message{ID: m.ID, RunID: m.RunID, Role: m.Role, Content: m.Content,
			ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName, CreatedAt: m.CreatedAt})
	}
	for _, r := range doc.Runs {
		t.Runs = append(t.Runs, chat.Run{ID: r.ID, Status: r.Status, ResumedFrom: r.ResumedFrom, Error: r.Error,
			StartedAt: r.StartedAt, EndedAt: r.EndedAt})
	}
	for _, c := range doc.Cards {
		t.Cards = append(t.Cards, &questions.Card{ID: c.ID, RunID: c.RunID, ToolCallID: c.ToolCallID, Status: c.Status,
			Questions: c.Questions, Answers: c.Answers, Comments: c.Comments, CreatedAt: c.CreatedAt,
			ExpiresAt: c.ExpiresAt, AnsweredAt: c.AnsweredAt})
	}
	return t
}
