package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/parley-app/parley/backend/chat"
)

const messageColumns = "id, conversation_id, run_id, role, content, tool_calls, tool_call_id, tool_name, created_at, parent_id, attachment_count, stats, reasoning, reasoning_ms, reasoning_source, sources"

// Messages returns the conversation's visible path (SPEC §7): from a first
// message down to the conversation's leaf, each message with its parent,
// its number of siblings and its place among them, and its attachments.
// chat.ErrNotFound when the conversation does not exist.
func (s *Store) Messages(ctx context.Context, conversationID string) ([]chat.Message, error) {
	tx, err := s.readers.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("load messages of %s: %w", conversationID, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	t, err := loadTree(ctx, tx, conversationID)
	if err != nil {
		return nil, fmt.Errorf("load messages of %s: %w", conversationID, err)
	}
	path := t.path(t.leaf)
	if err := loadAttachments(ctx, tx, path, t.attachmentCounts); err != nil {
		return nil, fmt.Errorf("load messages of %s: %w", conversationID, err)
	}
	return path, nil
}

// AllMessages returns every message of the conversation, on every branch,
// in the order they were stored (a parent always before its children),
// with their attachments.
func (s *Store) AllMessages(ctx context.Context, conversationID string) ([]chat.Message, error) {
	tx, err := s.readers.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("load messages of %s: %w", conversationID, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	msgs, err := allMessages(ctx, tx, conversationID)
	if err != nil {
		return nil, fmt.Errorf("load messages of %s: %w", conversationID, err)
	}
	return msgs, nil
}

func allMessages(ctx context.Context, q querier, conversationID string) ([]chat.Message, error) {
	t, err := loadTree(ctx, q, conversationID)
	if err != nil {
		return nil, err
	}
	for i := range t.msgs {
		t.fillSiblings(&t.msgs[i])
	}
	if err := loadAttachments(ctx, q, t.msgs, t.attachmentCounts); err != nil {
		return nil, err
	}
	return t.msgs, nil
}

// Message loads one message of a conversation (without attachments);
// chat.ErrNotFound when the conversation has no such message.
func (s *Store) Message(ctx context.Context, conversationID, id string) (*chat.Message, error) {
	rows, err := s.readers.QueryContext(ctx,
		`SELECT `+messageColumns+` FROM messages WHERE id = ? AND conversation_id = ?`, id, conversationID)
	if err != nil {
		return nil, fmt.Errorf("load message %s: %w", id, err)
	}
	msgs, _, err := scanMessages(rows, 1)
	if err != nil {
		return nil, fmt.Errorf("load message %s: %w", id, err)
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("load message %s of conversation %s: %w", id, conversationID, chat.ErrNotFound)
	}
	return &msgs[0], nil
}

// PathTo returns the branch that ends at the message id: its ancestors
// from a first message down to it, with their attachments.
func (s *Store) PathTo(ctx context.Context, conversationID, id string) ([]chat.Message, error) {
	tx, err := s.readers.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("load branch of %s: %w", id, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	t, err := loadTree(ctx, tx, conversationID)
	if err != nil {
		return nil, fmt.Errorf("load branch of %s: %w", id, err)
	}
	if _, ok := t.byID[id]; !ok {
		return nil, fmt.Errorf("load branch of message %s: %w", id, chat.ErrNotFound)
	}
	path := t.path(id)
	if err := loadAttachments(ctx, tx, path, t.attachmentCounts); err != nil {
		return nil, fmt.Errorf("load branch of %s: %w", id, err)
	}
	return path, nil
}

// Leaf is the id of the last message of the conversation's visible path
// ("" when it is empty). The path is the leaf's ancestors and messages are
// never changed in place, so an unchanged leaf means an unchanged path: the
// assistant loop checks it instead of reading the whole conversation again.
func (s *Store) Leaf(ctx context.Context, conversationID string) (string, error) {
	var leaf sql.NullString
	err := s.readers.QueryRowContext(ctx, `SELECT leaf_id FROM conversations WHERE id = ?`, conversationID).Scan(&leaf)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("leaf of conversation %s: %w", conversationID, chat.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("leaf of conversation %s: %w", conversationID, err)
	}
	return leaf.String, nil
}

// AppendMessage stores m at the end of its conversation's visible path (its
// parent is the leaf, or none when the path is empty) and makes it the new
// leaf, with its attachments. It fills ID, CreatedAt, ParentID, Siblings and
// SiblingIndex, and bumps the conversation's updated_at.
func (s *Store) AppendMessage(ctx context.Context, m *chat.Message) error {
	if err := s.AppendMessages(ctx, []*chat.Message{m}); err != nil {
		return err
	}
	return nil
}

// AppendMessages stores msgs in order, each as AppendMessage would (so each
// becomes the child of the one before it in its conversation), in one
// transaction: all of them or none. A batch is one commit instead of one
// per message: an import, or results written together.
//
// Crash safety: the commit is atomic, so after a crash (kill -9 included)
// either every message of the batch is stored or none is; the database is
// in WAL mode with synchronous=NORMAL, which loses no commit when the
// process dies (only a power cut may undo the last commits, never leaving
// half of one). Callers announce the messages only after it returns
// (write before show). On an error nothing is stored; IDs and CreatedAt
// filled in msgs are then unused, and the tree fields are not to be read.
func (s *Store) AppendMessages(ctx context.Context, msgs []*chat.Message) error {
	return s.appendMessages(ctx, nil, msgs)
}

// SaveRunAndAppend saves the run (as SaveRun) and appends msgs (as
// AppendMessages) in one transaction: all of it or nothing. The assistant loop
// stores a run's new status with the message that comes with it (a run
// going on after its card was answered, with the answer's tool result; a
// run started with the user's turn) in one commit instead of two.
func (s *Store) SaveRunAndAppend(ctx context.Context, r *chat.Run, msgs []*chat.Message) error {
	if err := prepareRun(r); err != nil {
		return err
	}
	if err := s.appendMessages(ctx, r, msgs); err != nil {
		return fmt.Errorf("save run %s: %w", r.ID, err)
	}
	return nil
}

// appendMessages appends msgs, and saves run in the same transaction when
// it is not nil.
func (s *Store) appendMessages(ctx context.Context, run *chat.Run, msgs []*chat.Message) error {
	if len(msgs) == 0 && run == nil {
		return nil
	}
	ts := now()
	for i, m := range msgs {
		if err := validateMessage(m); err != nil {
			if len(msgs) == 1 {
				return fmt.Errorf("append message: %w", err)
			}
			return fmt.Errorf("append message %d of %d: %w", i+1, len(msgs), err)
		}
		if m.ID == "" {
			m.ID = chat.NewMessageID()
		}
		if m.CreatedAt.IsZero() {
			m.CreatedAt = ts
		}
	}
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if run != nil {
			if err := upsertRun(ctx, tx, run); err != nil {
				return err
			}
		}
		// leaves: the leaf of each conversation of the batch once it is known.
		leaves := map[string]string{}
		for _, m := range msgs {
			if err := appendInTx(ctx, tx, m, leaves); err != nil {
				return err
			}
		}
		for conv, leaf := range leaves {
			if _, err := tx.ExecContext(ctx, `UPDATE conversations SET leaf_id = ?, updated_at = max(updated_at, ?) WHERE id = ?`,
				leaf, formatTime(ts), conv); err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case err == nil:
		return nil
	case len(msgs) == 0:
		return err
	case len(msgs) == 1:
		return fmt.Errorf("append message to %s: %w", msgs[0].ConversationID, err)
	}
	return fmt.Errorf("append %d messages to %s: %w", len(msgs), msgs[0].ConversationID, err)
}

// appendInTx inserts m as the child of its conversation's leaf. leaves
// holds the leaves of the conversations already appended to in this
// transaction: a message just stored has no children, so its successor
// needs neither the leaf nor its siblings looked up.
func appendInTx(ctx context.Context, tx *sql.Tx, m *chat.Message, leaves map[string]string) error {
	leaf, known := leaves[m.ConversationID]
	older := 0
	if !known {
		var stored sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT leaf_id FROM conversations WHERE id = ?`, m.ConversationID).Scan(&stored)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("conversation %s: %w", m.ConversationID, chat.ErrNotFound)
		}
		if err != nil {
			return err
		}
		leaf = stored.String
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE conversation_id = ? AND parent_id IS ?`,
			m.ConversationID, nullString(leaf)).Scan(&older); err != nil {
			return err
		}
	}
	m.ParentID = leaf
	m.Siblings, m.SiblingIndex = older+1, older
	if err := insertMessage(ctx, tx, m); err != nil {
		return err
	}
	m.SiblingIDs = nil
	if older > 0 {
		// A new branch: it is the one shown under its parent from now on.
		if err := chooseChild(ctx, tx, m.ConversationID, m.ParentID, m.ID); err != nil {
			return err
		}
		var err error
		if m.SiblingIDs, err = siblingIDs(ctx, tx, m.ConversationID, m.ParentID); err != nil {
			return err
		}
	}
	leaves[m.ConversationID] = m.ID
	return nil
}

// SetLeaf makes the visible path end at the message id ("" = an empty
// path), so that the next message appended becomes its child: a new branch
// beside the children it already has (an edit, a regenerated reply, a
// changed answer). The branch points above it remember the choice.
func (s *Store) SetLeaf(ctx context.Context, conversationID, id string) error {
	return s.moveLeaf(ctx, conversationID, id, false)
}

// SelectBranch makes the path through the message id the visible one: the
// branch points above it choose it, and below it the path goes on as it was
// last shown (else by the newest child) to a leaf.
func (s *Store) SelectBranch(ctx context.Context, conversationID, id string) error {
	if id == "" {
		return fmt.Errorf("select branch in %s: empty message id", conversationID)
	}
	return s.moveLeaf(ctx, conversationID, id, true)
}

func (s *Store) moveLeaf(ctx context.Context, conversationID, id string, descend bool) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		sk, err := loadSkeleton(ctx, tx, conversationID)
		if err != nil {
			return err
		}
		leaf := id
		if id != "" {
			if _, ok := sk.parent[id]; !ok {
				return fmt.Errorf("message %s: %w", id, chat.ErrNotFound)
			}
			// Every branch point above chooses the way down to id.
			for child := id; ; {
				parent := sk.parent[child]
				if len(sk.children[parent]) > 1 && sk.choices[parent] != child {
					if err := chooseChild(ctx, tx, conversationID, parent, child); err != nil {
						return err
					}
				}
				if parent == "" {
					break
				}
				child = parent
			}
			if descend {
				leaf = sk.descend(id)
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE conversations SET leaf_id = ? WHERE id = ?`, nullString(leaf), conversationID)
		return err
	})
	if err != nil {
		return fmt.Errorf("select branch %q in %s: %w", id, conversationID, err)
	}
	return nil
}

func chooseChild(ctx context.Context, tx *sql.Tx, conversationID, parentID, childID string) error {
	_, err := tx.ExecContext(ctx,
		`INSERT INTO branch_choices (conversation_id, parent_id, child_id) VALUES (?, ?, ?)
		 ON CONFLICT (conversation_id, parent_id) DO UPDATE SET child_id = excluded.child_id`,
		conversationID, parentID, childID)
	return err
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

// indexMessage adds a stored message (row seq) to the search index, if
// its role is searched (migrations/0003: the text of user and assistant
// messages; tool output is noise). Every insert into messages calls it:
// the index is written here, not by a trigger (migrations/0014 says why),
// and it must hold exactly the rows the delete and update triggers expect.
func indexMessage(ctx context.Context, tx execer, seq int64, role, content string) error {
	if role != chat.RoleUser && role != chat.RoleAssistant {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO message_search (rowid, content) VALUES (?, ?)`, seq, content)
	return err
}

// insertMessage stores m with m.ParentID as it is, and its attachments.
func insertMessage(ctx context.Context, tx *sql.Tx, m *chat.Message) error {
	var toolCalls, stats, sources any
	if len(m.Sources) > 0 {
		b, err := json.Marshal(m.Sources)
		if err != nil {
			return fmt.Errorf("encode sources: %w", err)
		}
		sources = string(b)
	}
	if len(m.ToolCalls) > 0 {
		b, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return fmt.Errorf("encode tool calls: %w", err)
		}
		toolCalls = string(b)
	}
	if m.Stats != nil {
		b, err := json.Marshal(m.Stats)
		if err != nil {
			return fmt.Errorf("encode stats: %w", err)
		}
		stats = string(b)
	}
	res, err := tx.ExecContext(ctx,
		`INSERT INTO messages (id, conversation_id, run_id, role, content, tool_calls, tool_call_id, tool_name, created_at,
		     parent_id, attachment_count, stats, reasoning, reasoning_ms, reasoning_source, sources)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.ConversationID, nullString(m.RunID), m.Role, m.Content, toolCalls,
		nullString(m.ToolCallID), nullString(m.ToolName), formatTime(m.CreatedAt),
		nullString(m.ParentID), len(m.Attachments), stats, m.Reasoning, m.ReasoningMs, m.ReasoningSource, sources)
	if err != nil {
		return err
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("seq of message %s: %w", m.ID, err)
	}
	if err := indexMessage(ctx, tx, seq, m.Role, m.Content); err != nil {
		return fmt.Errorf("index message %s for search: %w", m.ID, err)
	}
	for i, a := range m.Attachments {
		data := a.Data
		if data == nil {
			data = []byte{}
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO attachments (message_id, position, name, mime_type, size, data) VALUES (?, ?, ?, ?, ?, ?)`,
			m.ID, i, a.Name, a.MIMEType, len(data), data); err != nil {
			return fmt.Errorf("attachment %d (%s): %w", i, a.Name, err)
		}
	}
	return nil
}

// scanMessages reads message rows and how many attachments each has (by id).
// Each row is scanned straight into its place in the list, and the columns
// that need converting into one set of variables reused for every row: a
// conversation of 5,000 messages is read with a few allocations per message
// (its strings) instead of a dozen.
func scanMessages(rows *sql.Rows, expected int) ([]chat.Message, map[string]int, error) {
	defer rows.Close()
	msgs := make([]chat.Message, 0, expected)
	counts := map[string]int{}
	var col struct {
		runID, toolCalls, toolCallID, toolName, parentID, stats, sources sql.NullString
		created                                                          string
		attachments                                                      int
	}
	dest := make([]any, 0, 16)
	for rows.Next() {
		msgs = append(msgs, chat.Message{})
		m := &msgs[len(msgs)-1]
		dest = append(dest[:0], &m.ID, &m.ConversationID, &col.runID, &m.Role, &m.Content,
			&col.toolCalls, &col.toolCallID, &col.toolName, &col.created, &col.parentID, &col.attachments, &col.stats,
			&m.Reasoning, &m.ReasoningMs, &m.ReasoningSource, &col.sources)
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, err
		}
		if col.sources.Valid {
			if err := json.Unmarshal([]byte(col.sources.String), &m.Sources); err != nil {
				return nil, nil, fmt.Errorf("message %s: decode sources: %w", m.ID, err)
			}
		}
		m.RunID, m.ToolCallID, m.ToolName, m.ParentID = col.runID.String, col.toolCallID.String, col.toolName.String, col.parentID.String
		m.Siblings = 1
		if col.toolCalls.Valid {
			if err := json.Unmarshal([]byte(col.toolCalls.String), &m.ToolCalls); err != nil {
				return nil, nil, fmt.Errorf("message %s: decode tool calls: %w", m.ID, err)
			}
		}
		if col.stats.Valid {
			m.Stats = &chat.MessageStats{}
			if err := json.Unmarshal([]byte(col.stats.String), m.Stats); err != nil {
				return nil, nil, fmt.Errorf("message %s: decode stats: %w", m.ID, err)
			}
		}
		var err error
		if m.CreatedAt, err = parseTime(col.created); err != nil {
			return nil, nil, fmt.Errorf("message %s: %w", m.ID, err)
		}
		if col.attachments > 0 {
			counts[m.ID] = col.attachments
		}
	}
	return msgs, counts, rows.Err()
}

// siblingIDs lists the children of parent ("" = the first messages), oldest first.
func siblingIDs(ctx context.Context, q querier, conversationID, parent string) ([]string, error) {
	return column[string](q.QueryContext(ctx, `SELECT id FROM messages WHERE conversation_id = ? AND parent_id IS ? ORDER BY seq`,
		conversationID, nullString(parent)))
}
