package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-app/parley/backend/chat"
)

// A conversation is a tree of messages (SPEC §7). It is read with one
// indexed query and walked in memory: opening a long conversation with many
// branches costs what opening a list of the same length does.

// tree is a conversation's messages, read for one answer.
type tree struct {
	msgs             []chat.Message   // in stored order: a parent before its children
	byID             map[string]int   // index in msgs
	children         map[string][]int // parent id ("" = first messages) -> indexes, oldest first
	leaf             string
	attachmentCounts map[string]int
}

func loadTree(ctx context.Context, q querier, conversationID string) (*tree, error) {
	var leaf sql.NullString
	var count int // sizes the list at once: a long conversation's would grow in copies
	err := q.QueryRowContext(ctx, `SELECT leaf_id, (SELECT count(*) FROM messages WHERE conversation_id = ?) FROM conversations WHERE id = ?`,
		conversationID, conversationID).Scan(&leaf, &count)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("conversation %s: %w", conversationID, chat.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx,
		`SELECT `+messageColumns+` FROM messages WHERE conversation_id = ? ORDER BY seq`, conversationID)
	if err != nil {
		return nil, err
	}
	msgs, counts, err := scanMessages(rows, count)
	if err != nil {
		return nil, err
	}
	t := &tree{msgs: msgs, byID: make(map[string]int, len(msgs)), children: make(map[string][]int, len(msgs)), leaf: leaf.String, attachmentCounts: counts}
	for i, m := range msgs {
		t.byID[m.ID] = i
		t.children[m.ParentID] = append(t.children[m.ParentID], i)
	}
	if _, ok := t.byID[t.leaf]; !ok {
		t.leaf = ""
	}
	return t, nil
}

// fillSiblings sets m's sibling count and index from the tree.
func (t *tree) fillSiblings(m *chat.Message) {
	sibs := t.children[m.ParentID]
	m.Siblings = max(len(sibs), 1)
	m.SiblingIndex = 0
	m.SiblingIDs = nil
	if len(sibs) > 1 {
		m.SiblingIDs = make([]string, len(sibs))
	}
	for i, idx := range sibs {
		if t.msgs[idx].ID == m.ID {
			m.SiblingIndex = i
		}
		if m.SiblingIDs != nil {
			m.SiblingIDs[i] = t.msgs[idx].ID
		}
	}
}

// path returns the branch from a first message down to id ("" = empty).
// The messages are copies (with their siblings filled in), except when the
// branch is every message in stored order, as in a conversation never
// branched: then it is t.msgs itself, filled in place, which spares copying
// a long conversation twice on each open.
func (t *tree) path(id string) []chat.Message {
	var rev []int // indexes, leaf first
	seen := make([]bool, len(t.msgs))
	for id != "" {
		i, ok := t.byID[id]
		if !ok || seen[i] { // seen: a damaged file with a cycle must not hang
			break
		}
		seen[i] = true
		rev = append(rev, i)
		id = t.msgs[i].ParentID
	}
	whole := len(rev) == len(t.msgs)
	for k, i := range rev {
		if i != len(rev)-1-k {
			whole = false
			break
		}
	}
	if whole {
		for i := range t.msgs {
			t.fillSiblings(&t.msgs[i])
		}
		return t.msgs
	}
	path := make([]chat.Message, len(rev))
	for k, i := range rev {
		m := &path[len(rev)-1-k]
		*m = t.msgs[i]
		t.fillSiblings(m)
	}
	return path
}

// loadAttachments fills the attachments of msgs (those with any), in a few
// queries whatever their number.
func loadAttachments(ctx context.Context, q querier, msgs []chat.Message, counts map[string]int) error {
	var ids []any
	at := map[string]int{}
	for i, m := range msgs {
		if counts[m.ID] > 0 {
			ids = append(ids, m.ID)
			at[m.ID] = i
		}
	}
	const batch = 500 // below SQLite's bound on parameters
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(start+batch, len(ids))]
		rows, err := q.QueryContext(ctx,
			`SELECT message_id, name, mime_type, size, data FROM attachments WHERE message_id IN (?`+
				strings.Repeat(", ?", len(part)-1)+`) ORDER BY message_id, position`, part...)
		if err != nil {
			return fmt.Errorf("load attachments: %w", err)
		}
		for rows.Next() {
			var id string
			var a chat.Attachment
			if err := rows.Scan(&id, &a.Name, &a.MIMEType, &a.Size, &a.Data); err != nil {
				rows.Close()
				return fmt.Errorf("load attachments: %w", err)
			}
			if a.Data == nil {
				a.Data = []byte{}
			}
			m := &msgs[at[id]]
			m.Attachments = append(m.Attachments, a)
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return fmt.Errorf("load attachments: %w", err)
		}
		rows.Close()
	}
	return nil
}

// skeleton is the shape of a conversation's tree without its text: what
// moving the visible path needs.
type skeleton struct {
	parent   map[string]string   // id -> parent id ("" for a first message)
	children map[string][]string // parent id -> children, oldest first
	choices  map[string]string   // parent id -> the child last shown
}

func loadSkeleton(ctx context.Context, q querier, conversationID string) (*skeleton, error) {
	var exists bool
	if err := q.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM conversations WHERE id = ?)`, conversationID).Scan(&exists); err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("conversation %s: %w", conversationID, chat.ErrNotFound)
	}
	sk := &skeleton{parent: map[string]string{}, children: map[string][]string{}, choices: map[string]string{}}
	rows, err := q.QueryContext(ctx, `SELECT id, coalesce(parent_id, '') FROM messages WHERE conversation_id = ? ORDER BY seq`, conversationID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id, parent string
		if err := rows.Scan(&id, &parent); err != nil {
			rows.Close()
			return nil, err
		}
		sk.parent[id] = parent
		sk.children[parent] = append(sk.children[parent], id)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, err
	}
	rows.Close()
	rows, err = q.QueryContext(ctx, `SELECT parent_id, child_id FROM branch_choices WHERE conversation_id = ?`, conversationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var parent, child string
		if err := rows.Scan(&parent, &child); err != nil {
			return nil, err
		}
		sk.choices[parent] = child
	}
	return sk, rows.Err()
}

// descend follows the path below id as it was last shown (the newest
// child where no choice was made) down to a message without children.
func (sk *skeleton) descend(id string) string {
	seen := map[string]bool{}
	for !seen[id] {
		seen[id] = true
		kids := sk.children[id]
		if len(kids) == 0 {
			return id
		}
		next := kids[len(kids)-1]
		if c, ok := sk.choices[id]; ok && sk.parent[c] == id {
			next = c
		}
		id = next
	}
	return id
}
