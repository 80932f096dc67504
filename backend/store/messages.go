package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/chat"
)

const messageColumns = "id, conversation_id, run_id, role, content, tool_calls, tool_call_id, tool_name, created_at"

// Messages returns the conversation's messages in the order they were
// appended; chat.ErrNotFound when the conversation does not exist.
func (s *Store) Messages(ctx context.Context, conversationID string) ([]chat.Message, error) {
	rows, err := s.readers.QueryContext(ctx,
		`SELECT `+messageColumns+` FROM messages WHERE conversation_id = ? ORDER BY seq`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("load messages of %s: %w", conversationID, err)
	}
	msgs, err := scanMessages(rows)
	if err != nil {
		return nil, fmt.Errorf("load messages of %s: %w", conversationID, err)
	}
	if len(msgs) == 0 {
		// Tell "no messages yet" from "no such conversation".
		if _, err := s.GetConversation(ctx, conversationID); err != nil {
			return nil, fmt.Errorf("load messages: %w", err)
		}
	}
	return msgs, nil
}

// AppendMessage stores m at the end of its conversation, filling ID and
// CreatedAt when empty, and bumps the conversation's updated_at.
func (s *Store) AppendMessage(ctx context.Context, m *chat.Message) error {
	if err := validateMessage(m); err != nil {
		return fmt.Errorf("append message: %w", err)
	}
	ts := now()
	if m.ID == "" {
		m.ID = uuid.NewString()
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = ts
	}
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE conversations SET updated_at = max(updated_at, ?) WHERE id = ?`, formatTime(ts), m.ConversationID)
		if err := checkUpdated(res, err, "conversation", m.ConversationID); err != nil {
			return err
		}
		return insertMessage(ctx, tx, m)
	})
	if err != nil {
		return fmt.Errorf("append message to %s: %w", m.ConversationID, err)
	}
	return nil
}

func validateMessage(m *chat.Message) error {
	if m.ConversationID == "" {
		return errors.New("empty conversation id")
	}
	switch m.Role {
	case chat.RoleSystem, chat.RoleUser, chat.RoleAssistant, chat.RoleTool:
		return nil
	}
	return fmt.Errorf("unknown role %q", m.Role)
}

func insertMessage(ctx context.Context, tx *sql.Tx, m *chat.Message) error {
	var toolCalls any
	if len(m.ToolCalls) > 0 {
		b, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return fmt.Errorf("encode tool calls: %w", err)
		}
		toolCalls = string(b)
	}
	_, err := tx.ExecContext(ctx,
		`INSERT INTO messages (id, conversation_id, run_id, role, content, tool_calls, tool_call_id, tool_name, created_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.ConversationID, nullString(m.RunID), m.Role, m.Content, toolCalls,
		nullString(m.ToolCallID), nullString(m.ToolName), formatTime(m.CreatedAt))
	return err
}

func scanMessages(rows *sql.Rows) ([]chat.Message, error) {
	defer rows.Close()
	msgs := []chat.Message{}
	for rows.Next() {
		var m chat.Message
		var runID, toolCalls, toolCallID, toolName sql.NullString
		var created string
		if err := rows.Scan(&m.ID, &m.ConversationID, &runID, &m.Role, &m.Content,
			&toolCalls, &toolCallID, &toolName, &created); err != nil {
			return nil, err
		}
		m.RunID, m.ToolCallID, m.ToolName = runID.String, toolCallID.String, toolName.String
		if toolCalls.Valid {
			if err := json.Unmarshal([]byte(toolCalls.String), &m.ToolCalls); err != nil {
				return nil, fmt.Errorf("message %s: decode tool calls: %w", m.ID, err)
			}
		}
		var err error
		if m.CreatedAt, err = parseTime(created); err != nil {
			return nil, fmt.Errorf("message %s: %w", m.ID, err)
		}
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}
