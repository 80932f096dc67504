package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

// Transcript is one conversation with everything in it: the rows an export
// is made of and an import stores.
type Transcript struct {
	Conversation chat.Conversation
	// Messages is the whole tree, in stored order (a parent before its
	// children), with attachments.
	Messages []chat.Message
	// LeafID ends the visible path ("" with messages: the last one).
	LeafID string
	// Choices are the children last shown at branch points, by parent id
	// ("" for the first messages).
	Choices map[string]string
	Runs    []chat.Run
	Cards   []*questions.Card
}

// VisiblePath returns the messages of the transcript's visible path.
func (t *Transcript) VisiblePath() []chat.Message {
	byID := make(map[string]int, len(t.Messages))
	for i, m := range t.Messages {
		byID[m.ID] = i
	}
	var rev []chat.Message
	seen := map[string]bool{}
	for id := t.LeafID; id != "" && !seen[id]; {
		seen[id] = true
		i, ok := byID[id]
		if !ok {
			break
		}
		rev = append(rev, t.Messages[i])
		id = t.Messages[i].ParentID
	}
	path := make([]chat.Message, len(rev))
	for i, m := range rev {
		path[len(rev)-1-i] = m
	}
	return path
}

// Transcript reads a conversation and its rows in one read transaction.
func (s *Store) Transcript(ctx context.Context, id string) (*Transcript, error) {
	tx, err := s.readers.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	t := &Transcript{}
	t.Conversation, err = scanConversation(tx.QueryRowContext(ctx, `SELECT `+conversationColumns+` FROM conversations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, chat.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if t.Messages, err = allMessages(ctx, tx, id); err != nil {
		return nil, err
	}
	var leaf sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT leaf_id FROM conversations WHERE id = ?`, id).Scan(&leaf); err != nil {
		return nil, err
	}
	t.LeafID = leaf.String
	sk, err := loadSkeleton(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	t.Choices = sk.choices
	if t.Runs, err = runsOf(ctx, tx, id); err != nil {
		return nil, err
	}
	t.Cards, err = queryCards(ctx, tx,
		`SELECT `+cardColumns+` FROM cards WHERE conversation_id = ? ORDER BY created_at, rowid`, id)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ImportTranscript stores a transcript as a new conversation: every id is
// new (so importing twice gives two conversations), the title is marked as a
// copy ("Title (imported)", see importTitle), links between rows are kept,
// and work that was live when exported is ended (pending cards become
// cancelled, running runs interrupted) since nothing waits on it here. It is
// written in one transaction: a failed import writes nothing. The
// conversation stays in its project when that project exists here.
func (s *Store) ImportTranscript(ctx context.Context, t *Transcript) (*chat.Conversation, error) {
	c, _, err := s.importTranscript(ctx, t, false)
	return c, err
}

// RestoreTranscript stores a transcript from a full backup (SPEC §14) as it
// was: under its own ids and title, unless a conversation with its id is
// here already, which is then left as it is (added is false and the
// conversation nil): restoring the same backup twice adds nothing twice.
// A message, run or card id taken by another conversation gets a new one.
// Live work is ended as ImportTranscript does; it is one transaction too.
func (s *Store) RestoreTranscript(ctx context.Context, t *Transcript) (c *chat.Conversation, added bool, err error) {
	return s.importTranscript(ctx, t, true)
}

// importIDs gives an imported row its id: a new one, or (keep) its own
// while no row of the table has it.
type importIDs struct {
	ctx  context.Context
	tx   *sql.Tx
	keep bool
	err  error
}

func (ids *importIDs) id(table, old string) string {
	if ids.keep && old != "" && ids.err == nil {
		var taken bool
		ids.err = ids.tx.QueryRowContext(ids.ctx, `SELECT EXISTS(SELECT 1 FROM `+table+` WHERE id = ?)`, old).Scan(&taken)
		if !taken {
			return old
		}
	}
	if table == "messages" {
		return chat.NewMessageID()
	}
	return uuid.NewString() // a card's id is its question_id, a random UUID (SPEC §1)
}

func (s *Store) importTranscript(ctx context.Context, t *Transcript, restore bool) (*chat.Conversation, bool, error) {
	src := t.Conversation
	conv := &chat.Conversation{ID: uuid.NewString(), Title: src.Title, Assistant: src.Assistant, Model: src.Model, Thinking: src.Thinking, Pinned: src.Pinned,
		CreatedAt: src.CreatedAt.UTC(), UpdatedAt: src.UpdatedAt.UTC()}
	if restore {
		if src.ID == "" {
			return nil, false, errors.New("restore conversation: no id")
		}
		conv.ID = src.ID
	}
	skipped := false
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		ids := &importIDs{ctx: ctx, tx: tx, keep: restore}
		// Old id -> new id, for runs (messages, cards and resumed_from link to them).
		runIDs := map[string]string{}
		newRunID := func(old string) string {
			if old == "" {
				return ""
			}
			if id, ok := runIDs[old]; ok {
				return id
			}
			runIDs[old] = ids.id("runs", old)
			return runIDs[old]
		}
		if restore {
			var taken bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM conversations WHERE id = ?)`, conv.ID).Scan(&taken); err != nil {
				return fmt.Errorf("conversation: %w", err)
			}
			if taken {
				skipped = true
				return nil
			}
		} else {
			var err error
			if conv.Title, err = importTitle(ctx, tx, src.Title); err != nil {
				return fmt.Errorf("conversation: %w", err)
			}
		}
		if src.ProjectID != nil && *src.ProjectID != "" {
			switch err := projectExists(ctx, tx, *src.ProjectID); {
			case err == nil:
				conv.ProjectID = src.ProjectID
			case !errors.Is(err, ErrNoProject):
				return fmt.Errorf("conversation: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO conversations (id, title, assistant, model, thinking, pinned, created_at, updated_at, project_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			conv.ID, conv.Title, conv.Assistant, conv.Model, conv.Thinking, conv.Pinned, formatTime(conv.CreatedAt), formatTime(conv.UpdatedAt),
			nullStringPtr(conv.ProjectID)); err != nil {
			return fmt.Errorf("conversation: %w", err)
		}
		msgIDs := map[string]string{} // old id -> new id
		for i, m := range t.Messages {
			parent := ""
			if m.ParentID != "" {
				var ok bool
				if parent, ok = msgIDs[m.ParentID]; !ok {
					return fmt.Errorf("messages[%d]: parent %q is not an earlier message", i, m.ParentID)
				}
			}
			msg := &chat.Message{ID: ids.id("messages", m.ID), ConversationID: conv.ID, RunID: newRunID(m.RunID), Role: m.Role,
				Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName, CreatedAt: m.CreatedAt,
				ParentID: parent, Attachments: m.Attachments, Stats: m.Stats, Sources: m.Sources,
				Reasoning: m.Reasoning, ReasoningMs: m.ReasoningMs, ReasoningSource: m.ReasoningSource}
			if ids.err != nil {
				return fmt.Errorf("messages[%d]: %w", i, ids.err)
			}
			if err := insertMessage(ctx, tx, msg); err != nil {
				return fmt.Errorf("messages[%d]: %w", i, err)
			}
			if m.ID != "" {
				msgIDs[m.ID] = msg.ID
			}
		}
		if err := importBranches(ctx, tx, conv.ID, t, msgIDs); err != nil {
			return err
		}
		for i, r := range t.Runs {
			run := &chat.Run{ID: newRunID(r.ID), ConversationID: conv.ID, Status: r.Status, ResumedFrom: newRunID(r.ResumedFrom),
				Error: r.Error, StartedAt: r.StartedAt, EndedAt: r.EndedAt}
			if isLiveRunStatus(run.Status) || run.Status == chat.RunAwaiting {
				run.Status = chat.RunInterrupted
			}
			if ids.err != nil {
				return fmt.Errorf("runs[%d]: %w", i, ids.err)
			}
			if err := upsertRun(ctx, tx, run); err != nil {
				return fmt.Errorf("runs[%d]: %w", i, err)
			}
		}
		for i, c := range t.Cards {
			// Every field travels (approval and elicitation ones too).
			cp := *c
			card := &cp
			card.ID, card.ConversationID, card.RunID = ids.id("cards", c.ID), conv.ID, newRunID(c.RunID)
			card.FillKind()
			if card.Status == questions.StatusPending {
				card.Status = questions.StatusCancelled
			}
			if ids.err != nil {
				return fmt.Errorf("cards[%d]: %w", i, ids.err)
			}
			if err := upsertCard(ctx, tx, card); err != nil {
				return fmt.Errorf("cards[%d]: %w", i, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("import conversation: %w", err)
	}
	if skipped {
		return nil, false, nil
	}
	return conv, true, nil
}

// importBranches stores the imported tree's branch choices and leaf (the
// last message when the transcript names none).
func importBranches(ctx context.Context, tx *sql.Tx, convID string, t *Transcript, msgIDs map[string]string) error {
	for parent, child := range t.Choices {
		newParent, newChild := "", msgIDs[child]
		if parent != "" {
			newParent = msgIDs[parent]
		}
		if newChild == "" || parent != "" && newParent == "" {
			continue // a choice of messages not in the file means nothing
		}
		if err := chooseChild(ctx, tx, convID, newParent, newChild); err != nil {
			return fmt.Errorf("branch choice: %w", err)
		}
	}
	leaf := msgIDs[t.LeafID]
	if leaf == "" && len(t.Messages) > 0 {
		leaf = msgIDs[t.Messages[len(t.Messages)-1].ID]
	}
	if _, err := tx.ExecContext(ctx, `UPDATE conversations SET leaf_id = ? WHERE id = ?`, nullString(leaf), convID); err != nil {
		return fmt.Errorf("leaf: %w", err)
	}
	return nil
}

func isLiveRunStatus(status string) bool {
	for _, s := range liveRunStatuses {
		if s == status {
			return true
		}
	}
	return false
}
