package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-app/parley/backend/chat"
)

const runColumns = "id, conversation_id, status, resumed_from, error, started_at, ended_at"

// liveRunStatuses are the statuses of a run whose process is working on it.
// After a restart nothing is, so MarkInterruptedRuns ends them. Runs awaiting
// the user are not among them: their cards survive and the run resumes.
var liveRunStatuses = []any{chat.RunRunning, chat.StateRequesting, chat.StateStreaming, chat.StateToolExecuting}

// SaveRun inserts a run or updates it (status, resumed_from, error, times).
// StartedAt is filled when zero. A run never moves to another conversation.
func (s *Store) SaveRun(ctx context.Context, r *chat.Run) error {
	if err := prepareRun(r); err != nil {
		return err
	}
	err := s.withTx(ctx, func(tx *sql.Tx) error { return upsertRun(ctx, tx, r) })
	if err != nil {
		return fmt.Errorf("save run %s: %w", r.ID, err)
	}
	return nil
}

// prepareRun checks a run before it is saved and fills StartedAt.
func prepareRun(r *chat.Run) error {
	switch {
	case r.ID == "":
		return errors.New("save run: empty id")
	case r.ConversationID == "":
		return fmt.Errorf("save run %s: empty conversation id", r.ID)
	case r.Status == "":
		return fmt.Errorf("save run %s: empty status", r.ID)
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = now()
	}
	return nil
}

func upsertRun(ctx context.Context, tx *sql.Tx, r *chat.Run) error {
	res, err := tx.ExecContext(ctx,
		`INSERT INTO runs (id, conversation_id, status, resumed_from, error, started_at, ended_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?)
		 ON CONFLICT (id) DO UPDATE SET
		     status = excluded.status, resumed_from = excluded.resumed_from, error = excluded.error,
		     started_at = excluded.started_at, ended_at = excluded.ended_at
		 WHERE runs.conversation_id = excluded.conversation_id`,
		r.ID, r.ConversationID, r.Status, nullString(r.ResumedFrom), nullString(r.Error),
		formatTime(r.StartedAt), nullTime(r.EndedAt))
	if isForeignKeyError(err) {
		return fmt.Errorf("conversation %s: %w", r.ConversationID, chat.ErrNotFound)
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return errors.New("the run belongs to another conversation")
	}
	return nil
}

// Run loads one run; chat.ErrNotFound when missing.
func (s *Store) Run(ctx context.Context, id string) (*chat.Run, error) {
	r, err := scanRun(s.readers.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load run %s: %w", id, chat.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load run %s: %w", id, err)
	}
	return &r, nil
}

// LatestRun loads the conversation's most recently started run;
// chat.ErrNotFound when it has none.
func (s *Store) LatestRun(ctx context.Context, conversationID string) (*chat.Run, error) {
	r, err := scanRun(s.readers.QueryRowContext(ctx,
		`SELECT `+runColumns+` FROM runs WHERE conversation_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1`,
		conversationID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load latest run of %s: %w", conversationID, chat.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load latest run of %s: %w", conversationID, err)
	}
	return &r, nil
}

// RunsByStatus loads the runs that have one of the statuses, oldest first.
func (s *Store) RunsByStatus(ctx context.Context, statuses ...string) ([]chat.Run, error) {
	if len(statuses) == 0 {
		return []chat.Run{}, nil
	}
	args := make([]any, len(statuses))
	for i, st := range statuses {
		args[i] = st
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(statuses)), ", ")
	rows, err := s.readers.QueryContext(ctx,
		`SELECT `+runColumns+` FROM runs WHERE status IN (`+marks+`) ORDER BY started_at, rowid`, args...)
	if err != nil {
		return nil, fmt.Errorf("load runs by status: %w", err)
	}
	defer rows.Close()
	runs := []chat.Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("load runs by status: %w", err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load runs by status: %w", err)
	}
	return runs, nil
}

// UnfinishedRuns loads the runs a previous process left unended: working
// ones and those awaiting the user, oldest first. At start nothing works on
// them yet; recovery decides how each ends or goes on.
func (s *Store) UnfinishedRuns(ctx context.Context) ([]chat.Run, error) {
	statuses := []string{chat.RunAwaiting}
	for _, st := range liveRunStatuses {
		statuses = append(statuses, st.(string))
	}
	return s.RunsByStatus(ctx, statuses...)
}

// runsOf loads a conversation's runs, oldest first.
func runsOf(ctx context.Context, q querier, conversationID string) ([]chat.Run, error) {
	rows, err := q.QueryContext(ctx,
		`SELECT `+runColumns+` FROM runs WHERE conversation_id = ? ORDER BY started_at, rowid`, conversationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	runs := []chat.Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, rows.Err()
}

// MarkInterruptedRuns ends the runs a previous process left working (it
// crashed or was killed): they become "interrupted". Call it once at start,
// before any run begins.
func (s *Store) MarkInterruptedRuns(ctx context.Context) (int, error) {
	args := append([]any{chat.RunInterrupted, formatTime(now())}, liveRunStatuses...)
	res, err := s.writer.ExecContext(ctx,
		`UPDATE runs SET status = ?, ended_at = coalesce(ended_at, ?) WHERE status IN (?, ?, ?, ?)`, args...)
	if err != nil {
		return 0, fmt.Errorf("mark interrupted runs: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("mark interrupted runs: %w", err)
	}
	return int(n), nil
}

func scanRun(sc scanner) (chat.Run, error) {
	var r chat.Run
	var resumedFrom, errText, ended sql.NullString
	var started string
	if err := sc.Scan(&r.ID, &r.ConversationID, &r.Status, &resumedFrom, &errText, &started, &ended); err != nil {
		return r, err
	}
	r.ResumedFrom, r.Error = resumedFrom.String, errText.String
	var err error
	if r.StartedAt, err = parseTime(started); err != nil {
		return r, err
	}
	r.EndedAt, err = parseNullTime(ended)
	return r, err
}

// querier is *sql.DB or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
