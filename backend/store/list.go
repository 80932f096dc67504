package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
)

// Page sizes of ListConversations (the API's, defined once in backend/api).
const (
	DefaultListLimit = api.DefaultPageSize
	MaxListLimit     = api.MaxPageSize
)

// ErrInvalidCursor is returned for a cursor ListConversations did not make.
var ErrInvalidCursor = errors.New("invalid cursor")

// ListOptions select one page of the conversation list.
type ListOptions struct {
	// Limit is the page size: 0 means DefaultListLimit; at most MaxListLimit.
	Limit int
	// Cursor continues after the page that returned it; "" starts at the top.
	Cursor string
	// Query, when set, keeps conversations whose title or user/assistant
	// message text has every word of it (word prefixes match, case and
	// accents are ignored).
	Query string
	// Project, when set, keeps the conversations of that project (SPEC §14).
	Project string
}

// listCursor is the sort key of the last row of a page (keyset paging: a
// page is "rows after this key", so pages neither repeat nor skip rows when
// earlier rows are inserted or deleted).
type listCursor struct {
	Pinned    bool   `json:"p"`
	UpdatedAt string `json:"u"`
	ID        string `json:"i"`
}

func (c listCursor) encode() string {
	b, _ := json.Marshal(c) // plain struct: cannot fail
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (listCursor, error) {
	var c listCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err == nil && c.ID == "" {
		err = errors.New("no id")
	}
	if err == nil {
		_, err = parseTime(c.UpdatedAt)
	}
	if err != nil {
		return c, fmt.Errorf("%w: %v", ErrInvalidCursor, err)
	}
	return c, nil
}

// ListConversations returns one page of conversations, pinned first, then
// the most recently active first, and the cursor of the next page ("" on
// the last page).
func (s *Store) ListConversations(ctx context.Context, opt ListOptions) ([]chat.Conversation, string, error) {
	limit := opt.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)

	var where []string
	var args []any
	if opt.Cursor != "" {
		cur, err := decodeCursor(opt.Cursor)
		if err != nil {
			return nil, "", fmt.Errorf("list conversations: %w", err)
		}
		// All three keys sort descending, so "after" is a row-value "less than".
		where = append(where, "(pinned, updated_at, id) < (?, ?, ?)")
		args = append(args, cur.Pinned, cur.UpdatedAt, cur.ID)
	}
	if opt.Project != "" {
		where = append(where, "project_id = ?")
		args = append(args, opt.Project)
	}
	if strings.TrimSpace(opt.Query) != "" {
		match := matchExpression(opt.Query)
		if match == "" {
			return []chat.Conversation{}, "", nil // only punctuation: nothing can match
		}
		where = append(where, `(seq IN (SELECT rowid FROM conversation_search WHERE conversation_search MATCH ?)
			OR id IN (SELECT m.conversation_id FROM message_search JOIN messages m ON m.seq = message_search.rowid
			          WHERE message_search MATCH ?))`)
		args = append(args, match, match)
	}
	query := `SELECT ` + conversationColumns + ` FROM conversations`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT ?"
	args = append(args, limit+1) // one more tells whether a next page exists

	rows, err := s.readers.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	page := make([]chat.Conversation, 0, limit)
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, "", fmt.Errorf("list conversations: %w", err)
		}
		page = append(page, c)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("list conversations: %w", err)
	}
	next := ""
	if len(page) > limit {
		page = page[:limit]
		last := page[limit-1]
		next = listCursor{Pinned: last.Pinned, UpdatedAt: formatTime(last.UpdatedAt), ID: last.ID}.encode()
	}
	if strings.TrimSpace(opt.Query) != "" {
		if err := s.fillMatches(ctx, page, matchExpression(opt.Query)); err != nil {
			return nil, "", fmt.Errorf("list conversations: %w", err)
		}
	}
	return page, next, nil
}
