package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/fault"
)

// A window of the visible path: what a page shows of a long conversation
// (SPEC §7). Only the window's messages are read and sent; which they are is
// found in SQLite: with a few indexed queries when the conversation was
// never branched (linearWindow), by walking the path up from the leaf when
// it was (pathWindow), and in memory only for a damaged file. For 5,000
// messages, Go serves the app's window of 200 in about a fifth of the CPU
// the whole path costs (BenchmarkGetConversation5000Messages).

// ErrNotOnPath: the message named as a window's end is in the conversation
// but not on its visible path (another branch was made visible meanwhile).
var ErrNotOnPath error = fault.Newf(fault.Conflict, "the message is not on the conversation's visible path")

// Window selects part of the visible path: the Last messages before the
// message Before ("" = up to the end), and more when the first of them is
// not the first of its run: then from the run's first. Last 0 = no limit.
type Window struct {
	Before string
	Last   int
}

// MessagesWindow returns the window w of the conversation's visible path,
// each message as Messages gives it, and how many messages of the path come
// before the first one returned. chat.ErrNotFound when the conversation or
// the message w.Before does not exist; ErrNotOnPath when w.Before is not on
// the visible path.
func (s *Store) MessagesWindow(ctx context.Context, conversationID string, w Window) ([]chat.Message, int, error) {
	if w.Before == "" && w.Last <= 0 {
		msgs, err := s.Messages(ctx, conversationID)
		return msgs, 0, err
	}
	tx, err := s.readers.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("load messages of %s: %w", conversationID, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	msgs, earlier, err := messagesWindow(ctx, tx, conversationID, w)
	if err != nil {
		return nil, 0, fmt.Errorf("load messages of %s: %w", conversationID, err)
	}
	return msgs, earlier, nil
}

func messagesWindow(ctx context.Context, q querier, conversationID string, w Window) ([]chat.Message, int, error) {
	var leaf sql.NullString
	var count int
	err := q.QueryRowContext(ctx, `SELECT leaf_id, (SELECT count(*) FROM messages WHERE conversation_id = ?) FROM conversations WHERE id = ?`,
		conversationID, conversationID).Scan(&leaf, &count)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, fmt.Errorf("conversation %s: %w", conversationID, chat.ErrNotFound)
	}
	if err != nil {
		return nil, 0, err
	}
	ids, start, ok, err := linearWindow(ctx, q, conversationID, leaf.String, w)
	if err == nil && !ok {
		ids, start, ok, err = pathWindow(ctx, q, conversationID, leaf.String, count, w)
	}
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return treeWindow(ctx, q, conversationID, w)
	}
	msgs, counts, err := loadMessagesByID(ctx, q, conversationID, ids)
	if err != nil {
		return nil, 0, err
	}
	children, err := loadSiblings(ctx, q, conversationID, msgs)
	if err != nil {
		return nil, 0, err
	}
	for i := range msgs {
		fillSiblings(&msgs[i], children[msgs[i].ParentID])
	}
	if err := loadAttachments(ctx, q, msgs, counts); err != nil {
		return nil, 0, err
	}
	return msgs, start, nil
}

// runSlack is how many messages before a window are read to find where the
// run of its first message starts; a run longer than that starts the
// window within it.
const runSlack = 100

// linearWindow finds the window's message ids when the conversation was
// never branched: one first message, and no message with two replies. Its
// path up to the leaf is then every message stored up to the leaf, in
// stored order (a reply is always stored after what it answers), and the
// window is read with a few indexed queries. ok is false when the
// conversation has branches (pathWindow walks it then).
func linearWindow(ctx context.Context, q querier, conversationID, leaf string, w Window) (ids []string, start int, ok bool, err error) {
	var branched bool
	var roots int
	if err := q.QueryRowContext(ctx, `SELECT
		EXISTS(SELECT 1 FROM messages WHERE conversation_id = ?1 GROUP BY parent_id HAVING count(*) > 1),
		(SELECT count(*) FROM messages WHERE conversation_id = ?1 AND (parent_id IS NULL OR parent_id = ''))`,
		conversationID).Scan(&branched, &roots); err != nil {
		return nil, 0, false, err
	}
	if branched || roots != 1 {
		return nil, 0, false, nil
	}
	seqOf := func(id string) (int64, bool, error) {
		var seq int64
		err := q.QueryRowContext(ctx, `SELECT seq FROM messages WHERE id = ? AND conversation_id = ?`, id, conversationID).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, false, nil
		}
		return seq, err == nil, err
	}
	leafSeq, found, err := seqOf(leaf)
	if err != nil || !found {
		return nil, 0, err == nil && leaf == "", err // a leaf that is not there: walked as tree.path does
	}
	endSeq := leafSeq + 1 // the window ends before this
	if w.Before != "" {
		beforeSeq, found, err := seqOf(w.Before)
		if err != nil {
			return nil, 0, false, err
		}
		if !found {
			return nil, 0, true, fmt.Errorf("message %s: %w", w.Before, chat.ErrNotFound)
		}
		if beforeSeq > leafSeq {
			return nil, 0, true, fmt.Errorf("message %s: %w", w.Before, ErrNotOnPath)
		}
		endSeq = beforeSeq
	}
	var end int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE conversation_id = ? AND seq < ?`, conversationID, endSeq).Scan(&end); err != nil {
		return nil, 0, false, err
	}
	last := w.Last
	if last <= 0 {
		last = end
	}
	rows, err := q.QueryContext(ctx, `SELECT id, coalesce(run_id, '') FROM messages WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
		conversationID, endSeq, last+runSlack)
	if err != nil {
		return nil, 0, false, err
	}
	defer rows.Close()
	var got []windowRow // newest first
	for rows.Next() {
		var r windowRow
		if err := rows.Scan(&r.id, &r.run); err != nil {
			return nil, 0, false, err
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, err
	}
	slices.Reverse(got)
	ids, start = windowOf(got, end, last)
	return ids, start, true, nil
}

// windowRow is a message of the path as a window is chosen from it.
type windowRow struct{ id, run string }

// windowOf chooses the window from got, the path's messages just before
// position end (oldest first): its last `last`, and those before them in
// the run of the first of them (as many as got holds).
func windowOf(got []windowRow, end, last int) ([]string, int) {
	from := end - len(got)
	start := max(from, end-last)
	for start > from && got[start-from].run != "" && got[start-1-from].run == got[start-from].run {
		start--
	}
	ids := make([]string, 0, end-start)
	for _, r := range got[start-from:] {
		ids = append(ids, r.id)
	}
	return ids, start
}

// pathWindow finds the window's message ids in SQLite, walking the path up
// from the leaf there: only the window's rows come to Go, however long the
// conversation. ok is false when the walk did not end at a first message
// (a parent loop in a damaged file).
func pathWindow(ctx context.Context, q querier, conversationID, leaf string, count int, w Window) (ids []string, start int, ok bool, err error) {
	if leaf == "" || count == 0 {
		return nil, 0, true, nil
	}
	last := w.Last
	if last <= 0 {
		last = count
	}
	// depth counts from the leaf (0); pos, from the first message, is total-1-depth.
	rows, err := q.QueryContext(ctx, `WITH RECURSIVE path(id, parent, run, depth) AS MATERIALIZED (
		SELECT id, parent_id, coalesce(run_id, ''), 0 FROM messages WHERE id = ?1 AND conversation_id = ?2
		UNION ALL
		SELECT m.id, m.parent_id, coalesce(m.run_id, ''), p.depth + 1 FROM path p JOIN messages m ON m.id = p.parent
		WHERE m.conversation_id = ?2 AND p.depth < ?3
	), edge AS (SELECT coalesce((SELECT depth FROM path WHERE id = ?4), CASE WHEN ?4 = '' THEN -1 END) AS depth)
	SELECT (SELECT count(*) FROM path), (SELECT max(depth) FROM path), (SELECT depth FROM edge), id, run, depth
	FROM path WHERE depth > (SELECT depth FROM edge) AND depth <= (SELECT depth FROM edge) + ?5
	ORDER BY depth DESC`, leaf, conversationID, count, w.Before, last+runSlack)
	if err != nil {
		return nil, 0, false, err
	}
	defer rows.Close()
	var total, maxDepth int
	var edge sql.NullInt64
	var got []windowRow // oldest first
	for rows.Next() {
		var r windowRow
		var depth int
		if err := rows.Scan(&total, &maxDepth, &edge, &r.id, &r.run, &depth); err != nil {
			return nil, 0, false, err
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, err
	}
	if len(got) == 0 {
		// No row: the window is empty, the message Before is not on the path, or
		// the path could not be walked. Asked again for its size alone.
		if err := q.QueryRowContext(ctx, `WITH RECURSIVE path(id, parent, depth) AS (
			SELECT id, parent_id, 0 FROM messages WHERE id = ?1 AND conversation_id = ?2
			UNION ALL
			SELECT m.id, m.parent_id, p.depth + 1 FROM path p JOIN messages m ON m.id = p.parent
			WHERE m.conversation_id = ?2 AND p.depth < ?3
		) SELECT count(*), coalesce(max(depth), -1), (SELECT depth FROM path WHERE id = ?4) FROM path`,
			leaf, conversationID, count, w.Before).Scan(&total, &maxDepth, &edge); err != nil {
			return nil, 0, false, err
		}
	}
	if total > count || total != maxDepth+1 {
		return nil, 0, false, nil // a loop: more steps than messages
	}
	if w.Before != "" && !edge.Valid {
		return nil, 0, true, beforeError(ctx, q, conversationID, w.Before)
	}
	end := total
	if edge.Valid && w.Before != "" {
		end = total - 1 - int(edge.Int64)
	}
	ids, start = windowOf(got, end, last)
	return ids, start, true, nil
}

// beforeError says why a window's Before message is not on the visible path.
func beforeError(ctx context.Context, q querier, conversationID, id string) error {
	var exists bool
	if err := q.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM messages WHERE id = ? AND conversation_id = ?)`, id, conversationID).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("message %s: %w", id, chat.ErrNotFound)
	}
	return fmt.Errorf("message %s: %w", id, ErrNotOnPath)
}

// treeWindow is the window of a damaged file's path (a parent loop): the
// whole conversation read and walked in memory, as Messages does.
func treeWindow(ctx context.Context, q querier, conversationID string, w Window) ([]chat.Message, int, error) {
	t, err := loadTree(ctx, q, conversationID)
	if err != nil {
		return nil, 0, err
	}
	path := t.path(t.leaf)
	end := len(path)
	if w.Before != "" {
		end = slices.IndexFunc(path, func(m chat.Message) bool { return m.ID == w.Before })
		if _, ok := t.byID[w.Before]; !ok {
			return nil, 0, fmt.Errorf("message %s: %w", w.Before, chat.ErrNotFound)
		}
		if end < 0 {
			return nil, 0, fmt.Errorf("message %s: %w", w.Before, ErrNotOnPath)
		}
	}
	rows := make([]windowRow, end)
	for i, m := range path[:end] {
		rows[i] = windowRow{m.ID, m.RunID}
	}
	last := w.Last
	if last <= 0 {
		last = end
	}
	_, start := windowOf(rows, end, last)
	msgs := path[start:end]
	if err := loadAttachments(ctx, q, msgs, t.attachmentCounts); err != nil {
		return nil, 0, err
	}
	return msgs, start, nil
}

// loadSiblings reads the children of the parents of msgs (parent id, ""
// for the first messages -> ids, oldest first): what their sibling counts,
// indexes and ids come from.
func loadSiblings(ctx context.Context, q querier, conversationID string, msgs []chat.Message) (map[string][]string, error) {
	children := map[string][]string{}
	var parents []any
	roots := false
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.ParentID == "" {
			roots = true
		} else if !seen[m.ParentID] {
			seen[m.ParentID] = true
			parents = append(parents, m.ParentID)
		}
	}
	read := func(query string, args ...any) error {
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var parent, id string
			if err := rows.Scan(&parent, &id); err != nil {
				return err
			}
			children[parent] = append(children[parent], id)
		}
		return rows.Err()
	}
	if roots {
		if err := read(`SELECT '', id FROM messages WHERE conversation_id = ? AND coalesce(parent_id, '') = '' ORDER BY seq`, conversationID); err != nil {
			return nil, fmt.Errorf("load siblings: %w", err)
		}
	}
	const batch = 500 // below SQLite's bound on parameters
	for from := 0; from < len(parents); from += batch {
		part := parents[from:min(from+batch, len(parents))]
		args := append([]any{conversationID}, part...)
		// +seq: looked up by parent (messages_by_parent), then sorted; ordered by
		// seq, SQLite walked the conversation's every message instead.
		if err := read(`SELECT parent_id, id FROM messages WHERE conversation_id = ? AND parent_id IN (?`+
			strings.Repeat(", ?", len(part)-1)+`) ORDER BY +seq`, args...); err != nil {
			return nil, fmt.Errorf("load siblings: %w", err)
		}
	}
	return children, nil
}

// fillSiblings sets m's sibling count, index and ids from the ids of its
// parent's children, as tree.fillSiblings does from the tree.
func fillSiblings(m *chat.Message, sibs []string) {
	m.Siblings = max(len(sibs), 1)
	m.SiblingIndex = 0
	m.SiblingIDs = nil
	if len(sibs) > 1 {
		m.SiblingIDs = append([]string(nil), sibs...)
	}
	for i, id := range sibs {
		if id == m.ID {
			m.SiblingIndex = i
		}
	}
}

// loadMessagesByID reads the messages ids of a conversation, in that order.
func loadMessagesByID(ctx context.Context, q querier, conversationID string, ids []string) ([]chat.Message, map[string]int, error) {
	msgs := make([]chat.Message, 0, len(ids))
	counts := map[string]int{}
	const batch = 500 // below SQLite's bound on parameters
	for from := 0; from < len(ids); from += batch {
		part := ids[from:min(from+batch, len(ids))]
		args := make([]any, 0, len(part)+1)
		args = append(args, conversationID)
		for _, id := range part {
			args = append(args, id)
		}
		// +conversation_id: looked up by id (a few rows), not by conversation (all of them).
		rows, err := q.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages WHERE +conversation_id = ? AND id IN (?`+
			strings.Repeat(", ?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, nil, err
		}
		got, partCounts, err := scanMessages(rows, len(part))
		if err != nil {
			return nil, nil, err
		}
		byID := make(map[string]int, len(got))
		for i := range got {
			byID[got[i].ID] = i
		}
		for _, id := range part {
			i, ok := byID[id]
			if !ok {
				return nil, nil, fmt.Errorf("message %s: %w", id, chat.ErrNotFound)
			}
			msgs = append(msgs, got[i])
		}
		for id, n := range partCounts {
			counts[id] = n
		}
	}
	return msgs, counts, nil
}
