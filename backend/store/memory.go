package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/memory"
)

// Memories (SPEC §14).

const memoryColumns = "id, text, source, conversation_id, question_id, project_id, auto_answer, question, options, answer, created_at, used_at, scope_conversation_id"

// Scope conditions of a conversation's memories (SPEC §14): those scoped
// to it, else those of every conversation or of its project.
const memoryScopeCondition = `(scope_conversation_id = ? OR scope_conversation_id IS NULL AND (project_id IS NULL OR project_id = ?))`

// MemoryFilter picks memories by scope: All, or those of Project ("" =
// the memories without a project).
type MemoryFilter struct {
	All     bool
	Project string
}

// AddMemory stores a new memory; its id and creation time are filled when
// empty. chat.ErrNotFound when its source conversation does not exist.
func (s *Store) AddMemory(ctx context.Context, m *memory.Memory) error {
	defer s.mems.invalidate()
	return s.withTx(ctx, func(tx *sql.Tx) error { return insertMemory(ctx, tx, m) })
}

// AddAnswerMemories stores the memories made from a card's answers in one
// transaction. Each replaces the memories of its scope made from an
// earlier answer to the same question (same text and option labels): the
// newest answer is the one remembered, and it keeps auto_answer when one
// it replaces had it. It returns the ids replaced.
func (s *Store) AddAnswerMemories(ctx context.Context, ms []*memory.Memory) (replaced []string, err error) {
	defer s.mems.invalidate()
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		replaced = nil
		for _, m := range ms {
			if m.Answer == nil {
				return fmt.Errorf("memory from an answer without the answer")
			}
			olds, err := queryMemories(ctx, tx, `SELECT `+memoryColumns+` FROM memories
				WHERE source = 'answer' AND question = ? AND project_id IS ? AND scope_conversation_id IS ?`,
				m.Answer.Question, ptrArg(m.ProjectID), ptrArg(m.ScopeConversationID))
			if err != nil {
				return err
			}
			for _, old := range olds {
				if old.Answer == nil || !memory.SameLabels(old.Answer.Labels, m.Answer.Labels) {
					continue
				}
				if _, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, old.ID); err != nil {
					return err
				}
				m.AutoAnswer = m.AutoAnswer || old.AutoAnswer
				replaced = append(replaced, old.ID)
			}
			if err := insertMemory(ctx, tx, m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store memories of answers: %w", err)
	}
	return replaced, nil
}

func insertMemory(ctx context.Context, tx *sql.Tx, m *memory.Memory) error {
	if m.ID == "" {
		m.ID = uuid.NewString()
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now()
	}
	var question, options, answer any
	if a := m.Answer; a != nil {
		question = a.Question
		labels := a.Labels
		if labels == nil {
			labels = []string{}
		}
		b, err := json.Marshal(labels)
		if err != nil {
			return err
		}
		options = string(b)
		if b, err = json.Marshal(a.Input); err != nil {
			return err
		}
		answer = string(b)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO memories (`+memoryColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.Text, m.Source.Type, nullString(m.Source.ConversationID), nullString(m.Source.QuestionID), ptrArg(m.ProjectID),
		boolInt(m.AutoAnswer), question, options, answer, formatTime(m.CreatedAt), nullTime(m.UsedAt), ptrArg(m.ScopeConversationID))
	if isForeignKeyError(err) {
		return fmt.Errorf("memory %s: conversation %s: %w", m.ID, m.Source.ConversationID, chat.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store memory %s: %w", m.ID, err)
	}
	return nil
}

// ptrArg is a nullable text column's argument.
func ptrArg(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Memory loads one memory; chat.ErrNotFound when there is none.
func (s *Store) Memory(ctx context.Context, id string) (memory.Memory, error) {
	s.flushTouches()
	m, err := scanMemory(s.readers.QueryRowContext(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Memory{}, fmt.Errorf("memory %s: %w", id, chat.ErrNotFound)
	}
	if err != nil {
		return memory.Memory{}, fmt.Errorf("load memory %s: %w", id, err)
	}
	return m, nil
}

// Memories lists memories, newest first.
func (s *Store) Memories(ctx context.Context, f MemoryFilter) ([]memory.Memory, error) {
	s.flushTouches()
	query := `SELECT ` + memoryColumns + ` FROM memories`
	var args []any
	switch {
	case f.All:
	case f.Project == "":
		query += ` WHERE project_id IS NULL`
	default:
		query += ` WHERE project_id = ?`
		args = append(args, f.Project)
	}
	ms, err := queryMemories(ctx, s.readers, query+` ORDER BY created_at DESC, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	return ms, nil
}

// MemoriesInScope lists the memories that apply to the conversation (see
// memory.InScope): those scoped to it, those without a project, and its
// project's. Newest first.
//
// They come from the memory cache (memory_cache.go): every run reads them
// before its first model request.
func (s *Store) MemoriesInScope(ctx context.Context, sc memory.Scope) ([]memory.Memory, error) {
	var out []memory.Memory
	err := s.mems.read(func() ([]memory.Memory, error) {
		s.flushTouches()
		return queryMemories(ctx, s.readers, `SELECT `+memoryColumns+` FROM memories ORDER BY created_at DESC, id`)
	}, func(all []memory.Memory) { out = memory.Scoped(all, sc) })
	if err != nil {
		return nil, fmt.Errorf("list memories in scope: %w", err)
	}
	return out, nil
}

// MemoryIndex is every memory prepared for runs' prompts
// (memory.Index.Prompt with the conversation's scope), kept with the
// memory cache: built again after a write, patched when memories are used.
func (s *Store) MemoryIndex(ctx context.Context) (*memory.Index, error) {
	x, err := s.mems.prepared(func() ([]memory.Memory, error) {
		s.flushTouches()
		return queryMemories(ctx, s.readers, `SELECT `+memoryColumns+` FROM memories ORDER BY created_at DESC, id`)
	})
	if err != nil {
		return nil, fmt.Errorf("prepare memories: %w", err)
	}
	return x, nil
}

// AutoAnswerMemories lists the auto-answer memories in the conversation's
// scope made for one of the question texts, newest first. For an agent's
// card (agent true) only the memories scoped to its conversation count
// (memory.ForAgentCard).
func (s *Store) AutoAnswerMemories(ctx context.Context, sc memory.Scope, agent bool, questionTexts []string) ([]memory.Memory, error) {
	if len(questionTexts) == 0 {
		return nil, nil
	}
	s.flushTouches()
	where, args := memoryScopeCondition, []any{sc.Conversation, sc.Project}
	if agent {
		where, args = `scope_conversation_id = ?`, []any{sc.Conversation}
	}
	for _, q := range questionTexts {
		args = append(args, q)
	}
	ms, err := queryMemories(ctx, s.readers, `SELECT `+memoryColumns+` FROM memories
		WHERE auto_answer = 1 AND `+where+`
		AND question IN (?`+strings.Repeat(", ?", len(questionTexts)-1)+`) ORDER BY created_at DESC, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list auto-answer memories: %w", err)
	}
	return ms, nil
}

// MemoryUpdate changes what it gives of a memory.
type MemoryUpdate struct {
	Text       *string
	AutoAnswer *bool
}

// UpdateMemory changes a memory and returns it; chat.ErrNotFound when
// there is none.
func (s *Store) UpdateMemory(ctx context.Context, id string, u MemoryUpdate) (memory.Memory, error) {
	s.flushTouches()
	defer s.mems.invalidate()
	var out memory.Memory
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if u.Text != nil {
			res, err := tx.ExecContext(ctx, `UPDATE memories SET text = ? WHERE id = ?`, *u.Text, id)
			if err := checkUpdated(res, err, "update memory", id); err != nil {
				return err
			}
			// The vectors were of the old text.
			if _, err := tx.ExecContext(ctx, `DELETE FROM memory_vectors WHERE memory_id = ?`, id); err != nil {
				return fmt.Errorf("update memory %s: %w", id, err)
			}
		}
		if u.AutoAnswer != nil {
			res, err := tx.ExecContext(ctx, `UPDATE memories SET auto_answer = ? WHERE id = ?`, boolInt(*u.AutoAnswer), id)
			if err := checkUpdated(res, err, "update memory", id); err != nil {
				return err
			}
		}
		var err error
		out, err = scanMemory(tx.QueryRowContext(ctx, `SELECT `+memoryColumns+` FROM memories WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("memory %s: %w", id, chat.ErrNotFound)
		}
		return err
	})
	return out, err
}

// DeleteMemory deletes one memory; chat.ErrNotFound when there is none.
func (s *Store) DeleteMemory(ctx context.Context, id string) error {
	res, err := s.writer.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, id)
	s.mems.invalidate()
	return checkUpdated(res, err, "delete memory", id)
}

// DeleteAllMemories deletes every memory and returns how many there were.
func (s *Store) DeleteAllMemories(ctx context.Context) (int, error) {
	res, err := s.writer.ExecContext(ctx, `DELETE FROM memories`)
	s.mems.invalidate()
	if err != nil {
		return 0, fmt.Errorf("delete memories: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// TouchMemories records that the memories went into a run's prompt (or
// answered a card) at at.
func (s *Store) TouchMemories(ctx context.Context, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	s.flushTouches() // in order: an earlier mark of the same memory does not land after this one
	if err := s.writeTouch(ctx, ids, at); err != nil {
		return err
	}
	s.mems.touch(ids, storedTime(at))
	return nil
}

// storedTime is at as the database gives it back (the stored form keeps
// nanoseconds; parsing it back is exact).
func storedTime(at time.Time) time.Time {
	if t, err := parseTime(formatTime(at)); err == nil {
		return t
	}
	return at
}

// MarkMemoriesUsed is TouchMemories for a run's prompt, which must not wait
// for (nor share the machine with) a write before its request to the
// model: the cache, and so the next runs, has the marks at once (applied
// by the first reader, or in the background once the run has ended); the
// database once after is closed (the run's end), in order. Every read of
// memories from the database first writes what is pending
// (flushTouches), as does Close; a failed write is logged and the cache
// dropped, so that it says what the database does.
func (s *Store) MarkMemoriesUsed(ids []string, at time.Time, after <-chan struct{}) {
	if len(ids) == 0 {
		return
	}
	ids = slices.Clone(ids)
	s.mems.mark(ids, storedTime(at))
	s.touches.add(after, func() {
		if err := s.writeTouch(context.Background(), ids, at); err != nil {
			s.log.Warn("mark memories used", "err", err)
		}
		s.mems.applyMarks()
	})
}

// WriteMemoryMarks writes the marks of MarkMemoriesUsed still pending now,
// without waiting for their runs to end (a bench's rounds start with
// nothing left in the background).
func (s *Store) WriteMemoryMarks() { s.flushTouches() }

// flushTouches writes the marks of MarkMemoriesUsed still pending.
func (s *Store) flushTouches() { s.touches.flush() }

// writeTouch stores used_at; on failure the cache is dropped (it may
// hold the mark already).
func (s *Store) writeTouch(ctx context.Context, ids []string, at time.Time) error {
	b, _ := json.Marshal(ids) // strings always encode
	_, err := s.writer.ExecContext(ctx, `UPDATE memories SET used_at = ? WHERE id IN (SELECT value FROM json_each(?))`,
		formatTime(at), string(b))
	if err != nil {
		s.mems.invalidate()
		return fmt.Errorf("mark memories used: %w", err)
	}
	return nil
}

// touchQueue runs MarkMemoriesUsed's writes one after another, in the
// order given, each once its after is closed (or at once when flushed),
// on a goroutine started when there is something to write.
type touchQueue struct {
	mu      sync.Mutex
	pending []pendingTouch
	busy    bool
	idle    chan struct{} // closed when busy ends
	hurry   chan struct{} // closed by flush: write without waiting
	hurried bool
}

type pendingTouch struct {
	after <-chan struct{}
	write func()
}

func (q *touchQueue) add(after <-chan struct{}, write func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, pendingTouch{after, write})
	if !q.busy {
		q.busy, q.idle, q.hurry, q.hurried = true, make(chan struct{}), make(chan struct{}), false
		go q.run(q.idle, q.hurry)
	}
}

func (q *touchQueue) run(idle, hurry chan struct{}) {
	for {
		q.mu.Lock()
		if len(q.pending) == 0 {
			q.busy = false
			close(idle)
			q.mu.Unlock()
			return
		}
		t := q.pending[0]
		q.pending = q.pending[1:]
		q.mu.Unlock()
		select {
		case <-t.after:
		case <-hurry:
		}
		t.write()
	}
}

func (q *touchQueue) flush() {
	q.mu.Lock()
	if !q.busy {
		q.mu.Unlock()
		return
	}
	idle := q.idle
	if !q.hurried {
		q.hurried = true
		close(q.hurry)
	}
	q.mu.Unlock()
	<-idle
}

func queryMemories(ctx context.Context, q querier, query string, args ...any) ([]memory.Memory, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []memory.Memory{}
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func scanMemory(sc scanner) (memory.Memory, error) {
	var m memory.Memory
	var conv, question, project, questionText, options, answer, used, scope sql.NullString
	var created string
	var auto int
	if err := sc.Scan(&m.ID, &m.Text, &m.Source.Type, &conv, &question, &project, &auto,
		&questionText, &options, &answer, &created, &used, &scope); err != nil {
		return m, err
	}
	m.Source.ConversationID, m.Source.QuestionID = conv.String, question.String
	if project.Valid {
		p := project.String
		m.ProjectID = &p
	}
	if scope.Valid {
		c := scope.String
		m.ScopeConversationID = &c
	}
	m.AutoAnswer = auto == 1
	if questionText.Valid && answer.Valid {
		a := &memory.Answer{Question: questionText.String, Labels: []string{}}
		if options.Valid {
			if err := json.Unmarshal([]byte(options.String), &a.Labels); err != nil {
				return m, fmt.Errorf("memory %s: decode options: %w", m.ID, err)
			}
		}
		if err := json.Unmarshal([]byte(answer.String), &a.Input); err != nil {
			return m, fmt.Errorf("memory %s: decode answer: %w", m.ID, err)
		}
		m.Answer = a
	}
	var err error
	if m.CreatedAt, err = parseTime(created); err != nil {
		return m, err
	}
	m.UsedAt, err = parseNullTime(used)
	return m, err
}

// RestoreMemory stores a memory from a backup under its own id; a memory
// of that id already here is left as it is (added false). A source
// conversation or a project that is not here is dropped (the memory then
// applies to every conversation); a memory scoped to a conversation that
// is not here is not restored (added false): it must not apply elsewhere.
func (s *Store) RestoreMemory(ctx context.Context, m memory.Memory) (added bool, err error) {
	defer s.mems.invalidate()
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE id = ?`, m.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if c := m.Source.ConversationID; c != "" {
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM conversations WHERE id = ?`, c).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				m.Source.ConversationID = ""
			}
		}
		if c := m.ScopeConversationID; c != nil {
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM conversations WHERE id = ?`, *c).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return nil
			}
		}
		if p := m.ProjectID; p != nil {
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM projects WHERE id = ?`, *p).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				m.ProjectID = nil
			}
		}
		added = true
		return insertMemory(ctx, tx, &m)
	})
	if err != nil {
		return false, fmt.Errorf("restore memory %s: %w", m.ID, err)
	}
	return added, nil
}

// SetMemoryVector keeps a memory's vector of an embedding model (unit
// length; see memory.Normalize); a memory deleted meanwhile is no error.
func (s *Store) SetMemoryVector(ctx context.Context, id, model string, v []float32) error {
	_, err := s.writer.ExecContext(ctx, `INSERT INTO memory_vectors (memory_id, model, vector)
		SELECT id, ?, ? FROM memories WHERE id = ?
		ON CONFLICT (memory_id, model) DO UPDATE SET vector = excluded.vector`, model, memory.EncodeVector(v), id)
	if err != nil {
		return fmt.Errorf("store vector of memory %s: %w", id, err)
	}
	return nil
}

// MemoryVectors are the vectors of the model of the memories named, by id
// (those without one are missing).
func (s *Store) MemoryVectors(ctx context.Context, model string, ids []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	b, _ := json.Marshal(ids) // strings always encode
	rows, err := s.readers.QueryContext(ctx, `SELECT memory_id, vector FROM memory_vectors
		WHERE model = ? AND memory_id IN (SELECT value FROM json_each(?))`, model, string(b))
	if err != nil {
		return nil, fmt.Errorf("load memory vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, fmt.Errorf("load memory vectors: %w", err)
		}
		out[id] = memory.DecodeVector(blob)
	}
	return out, rows.Err()
}

// MemoriesWithoutVector lists up to limit memories that have no vector of
// the model yet, oldest first.
func (s *Store) MemoriesWithoutVector(ctx context.Context, model string, limit int) ([]memory.Memory, error) {
	ms, err := queryMemories(ctx, s.readers, `SELECT `+memoryColumns+` FROM memories
		WHERE id NOT IN (SELECT memory_id FROM memory_vectors WHERE model = ?) ORDER BY created_at, id LIMIT ?`, model, limit)
	if err != nil {
		return nil, fmt.Errorf("list memories without vectors: %w", err)
	}
	return ms, nil
}
