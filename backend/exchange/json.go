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
	"maps"
	"slices"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// The JSON export format. Its field names are its own (not the API's), so
// the API can change without breaking files people keep. Bump ExportVersion
// on any change an older Parley could misread.
//
// Version 2 (conversations are trees, SPEC §7) adds each message's
// parent_id, attachments and stats, and the visible path (leaf_id and the
// branch choices). A version 1 file is a list: each message's parent is the
// one before it.
const (
	ExportFormat  = "parley.conversation"
	ExportVersion = 2
)

// ErrInvalidImport is wrapped by ImportJSON for data it refuses.
var ErrInvalidImport = errors.New("invalid conversation export")

type exportDoc struct {
	Format       string              `json:"format"`
	Version      int                 `json:"version"`
	ExportedAt   time.Time           `json:"exported_at"`
	Conversation *exportConversation `json:"conversation"`
	Messages     []exportMessage     `json:"messages"`
	// LeafID ends the visible path; Branches are the children last shown at
	// branch points (version 2).
	LeafID   string         `json:"leaf_id,omitempty"`
	Branches []exportBranch `json:"branches,omitempty"`
	Runs     []exportRun    `json:"runs"`
	Cards    []exportCard   `json:"cards"`
}

type exportConversation struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Assistant string    `json:"assistant"`
	Pinned    bool      `json:"pinned"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Thinking is the conversation's thinking setting ("" = its profile's).
	Thinking string `json:"thinking,omitempty"`
	// Project names the conversation's project, for people (SPEC §14);
	// ProjectID is its id: an import puts the conversation back in that
	// project when it exists there.
	Project   string `json:"project,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
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
	// Version 2.
	ParentID    string             `json:"parent_id,omitempty"`
	Attachments []exportAttachment `json:"attachments,omitempty"`
	Stats       *chat.MessageStats `json:"stats,omitempty"`
	// An assistant reply's thinking (SPEC §9), absent when it had none.
	Reasoning       string `json:"reasoning,omitempty"`
	ReasoningMs     int64  `json:"reasoning_ms,omitempty"`
	ReasoningSource string `json:"reasoning_source,omitempty"`
}

type exportAttachment struct {
	Name     string `json:"name"`
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"` // base64
}

type exportBranch struct {
	ParentID string `json:"parent_id"` // "" for the first messages
	ChildID  string `json:"child_id"`
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
	exportCardKind
}

// exportCardKind is what approval and elicitation cards carry besides a
// question card's fields (SPEC §6); absent for the model's own questions.
type exportCardKind struct {
	Kind              questions.Kind          `json:"kind,omitempty"`
	Source            *questions.Source       `json:"source,omitempty"`
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
}

func cardKindOf(c *questions.Card) exportCardKind {
	return exportCardKind{Kind: c.Kind, Source: c.Source, Tool: c.Tool, ApprovedArguments: c.ApprovedArguments,
		Reason: c.Reason, Always: c.Always, Server: c.Server, Message: c.Message, Mode: c.Mode, Schema: c.Schema,
		URL: c.URL, Content: c.Content}
}

func (k exportCardKind) fill(c *questions.Card) {
	c.Kind, c.Source, c.Tool, c.ApprovedArguments = k.Kind, k.Source, k.Tool, k.ApprovedArguments
	c.Reason, c.Always, c.Server, c.Message, c.Mode = k.Reason, k.Always, k.Server, k.Message, k.Mode
	c.Schema, c.URL, c.Content = k.Schema, k.URL, k.Content
	c.FillKind()
}

// ExportJSON writes the conversation with its messages, runs and cards in
// the versioned export format ImportJSON reads.
func ExportJSON(ctx context.Context, s *store.Store, conversationID string) ([]byte, error) {
	doc, err := exportDocOf(ctx, s, conversationID)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("export conversation %s: %w", conversationID, err)
	}
	return b, nil
}

// exportDocOf reads a conversation into the export format.
func exportDocOf(ctx context.Context, s *store.Store, conversationID string) (*exportDoc, error) {
	t, err := s.Transcript(ctx, conversationID)
	if err != nil {
		return nil, fmt.Errorf("export conversation %s: %w", conversationID, err)
	}
	project, err := projectOf(ctx, s, t)
	if err != nil {
		return nil, fmt.Errorf("export conversation %s: %w", conversationID, err)
	}
	doc := &exportDoc{
		Format: ExportFormat, Version: ExportVersion, ExportedAt: time.Now().UTC().Round(0),
		Conversation: &exportConversation{ID: t.Conversation.ID, Title: t.Conversation.Title, Assistant: t.Conversation.Assistant,
			Pinned: t.Conversation.Pinned, CreatedAt: t.Conversation.CreatedAt, UpdatedAt: t.Conversation.UpdatedAt,
			Thinking: t.Conversation.Thinking},
		Messages: make([]exportMessage, 0, len(t.Messages)),
		Runs:     make([]exportRun, 0, len(t.Runs)),
		Cards:    make([]exportCard, 0, len(t.Cards)),
	}
	if project != nil {
		doc.Conversation.Project, doc.Conversation.ProjectID = project.Name, project.ID
	}
	for _, m := range t.Messages {
		em := exportMessage{ID: m.ID, RunID: m.RunID, Role: m.Role, Content: m.Content,
			ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName, CreatedAt: m.CreatedAt,
			ParentID: m.ParentID, Stats: m.Stats, Reasoning: m.Reasoning, ReasoningMs: m.ReasoningMs, ReasoningSource: m.ReasoningSource}
		for _, a := range m.Attachments {
			em.Attachments = append(em.Attachments, exportAttachment{Name: a.Name, MIMEType: a.MIMEType, Data: a.Data})
		}
		doc.Messages = append(doc.Messages, em)
	}
	doc.LeafID = t.LeafID
	for _, parent := range slices.Sorted(maps.Keys(t.Choices)) {
		doc.Branches = append(doc.Branches, exportBranch{ParentID: parent, ChildID: t.Choices[parent]})
	}
	for _, r := range t.Runs {
		// A run's error is kept to be said in the language chosen (agent); a
		// file says it in words.
		doc.Runs = append(doc.Runs, exportRun{ID: r.ID, Status: r.Status, ResumedFrom: r.ResumedFrom, Error: i18n.ShowStored(r.Error, i18n.Current()),
			StartedAt: r.StartedAt, EndedAt: r.EndedAt})
	}
	for _, c := range t.Cards {
		doc.Cards = append(doc.Cards, exportCard{ID: c.ID, RunID: c.RunID, ToolCallID: c.ToolCallID, Status: c.Status,
			Questions: c.Questions, Answers: c.Answers, Comments: c.Comments, CreatedAt: c.CreatedAt,
			ExpiresAt: c.ExpiresAt, AnsweredAt: c.AnsweredAt, exportCardKind: cardKindOf(c)})
	}
	return doc, nil
}

// projectOf is the transcript's conversation's project (nil: none).
func projectOf(ctx context.Context, s *store.Store, t *store.Transcript) (*chat.Project, error) {
	if t.Conversation.ProjectID == nil {
		return nil, nil
	}
	p, err := s.Project(ctx, *t.Conversation.ProjectID)
	if errors.Is(err, chat.ErrNotFound) { // deleted since the transcript was read
		return nil, nil
	}
	return p, err
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
			CreatedAt: src.CreatedAt, UpdatedAt: src.UpdatedAt, Thinking: src.Thinking},
	}
	if src.ProjectID != "" {
		t.Conversation.ProjectID = &src.ProjectID
	}
	for i, m := range doc.Messages {
		msg := chat.Message{ID: m.ID, RunID: m.RunID, Role: m.Role, Content: m.Content,
			ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName, CreatedAt: m.CreatedAt,
			ParentID: m.ParentID, Stats: m.Stats, Reasoning: m.Reasoning, ReasoningMs: m.ReasoningMs, ReasoningSource: m.ReasoningSource}
		if msg.ID == "" {
			msg.ID = fmt.Sprintf("message-%d", i) // the store gives it a real id; links need one
		}
		if doc.Version < 2 && i > 0 {
			msg.ParentID = t.Messages[i-1].ID // a list: each after the one before
		}
		for _, a := range m.Attachments {
			msg.Attachments = append(msg.Attachments, chat.Attachment{Name: a.Name, MIMEType: a.MIMEType, Size: int64(len(a.Data)), Data: a.Data})
		}
		t.Messages = append(t.Messages, msg)
	}
	t.LeafID = doc.LeafID
	if len(doc.Branches) > 0 {
		t.Choices = map[string]string{}
		for _, b := range doc.Branches {
			t.Choices[b.ParentID] = b.ChildID
		}
	}
	for _, r := range doc.Runs {
		t.Runs = append(t.Runs, chat.Run{ID: r.ID, Status: r.Status, ResumedFrom: r.ResumedFrom, Error: r.Error,
			StartedAt: r.StartedAt, EndedAt: r.EndedAt})
	}
	for _, c := range doc.Cards {
		card := &questions.Card{ID: c.ID, RunID: c.RunID, ToolCallID: c.ToolCallID, Status: c.Status,
			Questions: c.Questions, Answers: c.Answers, Comments: c.Comments, CreatedAt: c.CreatedAt,
			ExpiresAt: c.ExpiresAt, AnsweredAt: c.AnsweredAt}
		c.fill(card)
		t.Cards = append(t.Cards, card)
	}
	return t
}
