package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/chat"
)

const conversationColumns = "id, title, assistant, model, thinking, pinned, created_at, updated_at, knowledge, agent, project_id"

// CreateConversation stores a new, empty conversation.
func (s *Store) CreateConversation(ctx context.Context, title, assistant string) (*chat.Conversation, error) {
	return s.CreateConversationWith(ctx, chat.Conversation{Title: title, Assistant: assistant})
}

// CreateConversationWith stores a new, empty conversation with c's title,
// assistant, model and project (its id and times are new). A project that
// does not exist is chat.ErrNotFound, and nothing is stored.
func (s *Store) CreateConversationWith(ctx context.Context, c chat.Conversation) (*chat.Conversation, error) {
	t := now()
	c.ID, c.CreatedAt, c.UpdatedAt = uuid.NewString(), t, t
	if c.ProjectID != nil && *c.ProjectID == "" {
		c.ProjectID = nil
	}
	var err error
	if c.ProjectID == nil && c.Model == "" {
		// The columns of the first schema only: the migration tests fill
		// older databases through this.
		_, err = s.writer.ExecContext(ctx,
			`INSERT INTO conversations (id, title, assistant, pinned, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)`,
			c.ID, c.Title, c.Assistant, formatTime(t), formatTime(t))
	} else {
		err = s.withTx(ctx, func(tx *sql.Tx) error {
			if c.ProjectID != nil {
				if err := projectExists(ctx, tx, *c.ProjectID); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx,
				`INSERT INTO conversations (id, title, assistant, model, pinned, created_at, updated_at, project_id) VALUES (?, ?, ?, ?, 0, ?, ?, ?)`,
				c.ID, c.Title, c.Assistant, c.Model, formatTime(t), formatTime(t), nullStringPtr(c.ProjectID))
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("create conversation: %w", err)
	}
	return &c, nil
}

// GetConversation loads one conversation; chat.ErrNotFound when missing.
func (s *Store) GetConversation(ctx context.Context, id string) (*chat.Conversation, error) {
	row := s.readers.QueryRowContext(ctx, `SELECT `+conversationColumns+` FROM conversations WHERE id = ?`, id)
	c, err := scanConversation(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load conversation %s: %w", id, chat.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load conversation %s: %w", id, err)
	}
	return &c, nil
}

// RenameConversation sets the title (the list order stays: it follows activity).
func (s *Store) RenameConversation(ctx context.Context, id, title string) error {
	res, err := s.writer.ExecContext(ctx, `UPDATE conversations SET title = ? WHERE id = ?`, title, id)
	return checkUpdated(res, err, "rename conversation", id)
}

// SetPinned pins or unpins a conversation.
func (s *Store) SetPinned(ctx context.Context, id string, pinned bool) error {
	res, err := s.writer.ExecContext(ctx, `UPDATE conversations SET pinned = ? WHERE id = ?`, pinned, id)
	return checkUpdated(res, err, "pin conversation", id)
}

// SetAssistant sets the assistant profile a conversation's next runs use.
func (s *Store) SetAssistant(ctx context.Context, id, assistant string) error {
	res, err := s.writer.ExecContext(ctx, `UPDATE conversations SET assistant = ? WHERE id = ?`, assistant, id)
	return checkUpdated(res, err, "set assistant of conversation", id)
}

// SetModel sets the model a conversation's next runs use ("" = its
// profile's model or the default).
func (s *Store) SetModel(ctx context.Context, id, model string) error {
	res, err := s.writer.ExecContext(ctx, `UPDATE conversations SET model = ? WHERE id = ?`, model, id)
	return checkUpdated(res, err, "set model of conversation", id)
}

// SetThinking sets the thinking setting of a conversation's next runs
// ("" = its profile's).
func (s *Store) SetThinking(ctx context.Context, id, thinking string) error {
	res, err := s.writer.ExecContext(ctx, `UPDATE conversations SET thinking = ? WHERE id = ?`, thinking, id)
	return checkUpdated(res, err, "set thinking of conversation", id)
}

// SetConversationKnowledge sets the collections a conversation searches.
func (s *Store) SetConversationKnowledge(ctx context.Context, id string, collections []string) error {
	res, err := s.writer.ExecContext(ctx, `UPDATE conversations SET knowledge = ? WHERE id = ?`, encodeIDs(collections), id)
	return checkUpdated(res, err, "set knowledge of conversation", id)
}

// DeleteConversation deletes a conversation with its messages, runs and
// cards (foreign keys cascade; triggers drop them from the search index).
func (s *Store) DeleteConversation(ctx context.Context, id string) error {
	res, err := s.writer.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, id)
	s.mems.invalidate() // its memories' source is cleared, those scoped to it go
	return checkUpdated(res, err, "delete conversation", id)
}

// checkUpdated turns "no row changed" into chat.ErrNotFound.
func checkUpdated(res sql.Result, err error, what, id string) error {
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, id, err)
	}
	if n == 0 {
		return fmt.Errorf("%s %s: %w", what, id, chat.ErrNotFound)
	}
	return nil
}

func scanConversation(sc scanner) (chat.Conversation, error) {
	var c chat.Conversation
	var created, updated string
	var knowledge, project sql.NullString
	if err := sc.Scan(&c.ID, &c.Title, &c.Assistant, &c.Model, &c.Thinking, &c.Pinned, &created, &updated, &knowledge, &c.Agent, &project); err != nil {
		return c, err
	}
	if project.Valid {
		c.ProjectID = &project.String
	}
	var err error
	if c.Knowledge, err = decodeIDs(knowledge); err != nil {
		return c, fmt.Errorf("conversation %s: knowledge: %w", c.ID, err)
	}
	if c.CreatedAt, err = parseTime(created); err != nil {
		return c, err
	}
	c.UpdatedAt, err = parseTime(updated)
	return c, err
}

// TouchConversation sets updated_at to now, moving the conversation to the
// top of its group (pinned or not) in the list.
func (s *Store) TouchConversation(ctx context.Context, id string) error {
	res, err := s.writer.ExecContext(ctx,
		`UPDATE conversations SET updated_at = max(updated_at, ?) WHERE id = ?`, formatTime(now()), id)
	return checkUpdated(res, err, "touch conversation", id)
}
