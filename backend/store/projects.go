package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/chat"
)

// Projects (SPEC §14): named groups of conversations with shared
// instructions, collections, profile and model.

// ErrNoProject is returned when a conversation is put in a project that
// does not exist (the service refuses it as the client's mistake; an
// unknown project asked for by its own id is chat.ErrNotFound).
var ErrNoProject = errors.New("no such project")

const projectColumns = "id, name, instructions, knowledge, profile, model, created_at, updated_at"

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// projectExists returns ErrNoProject unless the project exists.
func projectExists(ctx context.Context, q rowQuerier, id string) error {
	var ok bool
	if err := q.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM projects WHERE id = ?)`, id).Scan(&ok); err != nil {
		return fmt.Errorf("look up project %s: %w", id, err)
	}
	if !ok {
		return fmt.Errorf("project %s: %w", id, ErrNoProject)
	}
	return nil
}

// CreateProject stores a new project with p's fields (its id and times are
// new) and returns it.
func (s *Store) CreateProject(ctx context.Context, p chat.Project) (*chat.Project, error) {
	t := now()
	p.ID, p.CreatedAt, p.UpdatedAt = uuid.NewString(), t, t
	if err := insertProject(ctx, s.writer, &p, false); err != nil {
		return nil, fmt.Errorf("create project: %w", err)
	}
	return normalProject(&p), nil
}

// ImportProject stores p under its own id and times unless a project with
// that id exists already; added says which (a backup imported again adds
// nothing twice).
func (s *Store) ImportProject(ctx context.Context, p chat.Project) (added bool, err error) {
	if p.ID == "" {
		return false, errors.New("import project: no id")
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	res := insertProject(ctx, s.writer, &p, true)
	if errors.Is(res, errSkipped) {
		return false, nil
	}
	if res != nil {
		return false, fmt.Errorf("import project %s: %w", p.ID, res)
	}
	return true, nil
}

var errSkipped = errors.New("skipped")

func insertProject(ctx context.Context, ex execer, p *chat.Project, ignoreTaken bool) error {
	verb := "INSERT"
	if ignoreTaken {
		verb = "INSERT OR IGNORE"
	}
	res, err := ex.ExecContext(ctx, verb+` INTO projects (`+projectColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.Name, p.Instructions, encodeIDs(p.Knowledge), p.Profile, p.Model, formatTime(p.CreatedAt), formatTime(p.UpdatedAt))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return errSkipped
	}
	return nil
}

// Project loads one project; chat.ErrNotFound when missing.
func (s *Store) Project(ctx context.Context, id string) (*chat.Project, error) {
	p, err := scanProject(s.readers.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load project %s: %w", id, chat.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load project %s: %w", id, err)
	}
	return p, nil
}

// Projects lists the projects by name (case ignored), then oldest first.
func (s *Store) Projects(ctx context.Context) ([]chat.Project, error) {
	rows, err := s.readers.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects ORDER BY lower(name), created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	defer rows.Close()
	out := []chat.Project{}
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, fmt.Errorf("list projects: %w", err)
		}
		out = append(out, *p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	return out, nil
}

// UpdateProject stores p's name, instructions, collections, profile and
// model, and sets its updated_at (into p too).
func (s *Store) UpdateProject(ctx context.Context, p *chat.Project) error {
	t := now()
	res, err := s.writer.ExecContext(ctx,
		`UPDATE projects SET name = ?, instructions = ?, knowledge = ?, profile = ?, model = ?, updated_at = ? WHERE id = ?`,
		p.Name, p.Instructions, encodeIDs(p.Knowledge), p.Profile, p.Model, formatTime(t), p.ID)
	if err := checkUpdated(res, err, "update project", p.ID); err != nil {
		return err
	}
	p.UpdatedAt = t
	normalProject(p)
	return nil
}

// DeleteProject deletes a project. Its conversations stay and leave it
// (the foreign key sets their project_id to NULL); the ids of those are
// returned. Its memories are deleted withMemories, else they stay, of no
// project.
func (s *Store) DeleteProject(ctx context.Context, id string, withMemories bool) (left []string, err error) {
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM conversations WHERE project_id = ? ORDER BY seq`, id)
		if left, err = column[string](rows, err); err != nil {
			return err
		}
		// The project's memories go with it when its conversations do, and
		// otherwise stay, applying to every conversation (as its
		// conversations stay, in no project).
		if withMemories {
			if _, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE project_id = ?`, id); err != nil {
				return err
			}
		} else if _, err := tx.ExecContext(ctx, `UPDATE memories SET project_id = NULL WHERE project_id = ?`, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM projects WHERE id = ?`, id)
		return checkUpdated(res, err, "delete project", id)
	})
	s.mems.invalidate()
	if err != nil {
		return nil, err
	}
	return left, nil
}

// ProjectConversationIDs lists the ids of a project's conversations.
func (s *Store) ProjectConversationIDs(ctx context.Context, projectID string) ([]string, error) {
	rows, err := s.readers.QueryContext(ctx, `SELECT id FROM conversations WHERE project_id = ? ORDER BY seq`, projectID)
	ids, err := column[string](rows, err)
	if err != nil {
		return nil, fmt.Errorf("conversations of project %s: %w", projectID, err)
	}
	return ids, nil
}

// SetConversationProject puts a conversation in a project ("" = in none).
// A project that does not exist is ErrNoProject; a conversation that does
// not exist is chat.ErrNotFound.
func (s *Store) SetConversationProject(ctx context.Context, id, projectID string) error {
	return s.withTx(ctx, func(tx *sql.Tx) error {
		if projectID != "" {
			if err := projectExists(ctx, tx, projectID); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE conversations SET project_id = ? WHERE id = ?`, nullString(projectID), id)
		return checkUpdated(res, err, "set project of conversation", id)
	})
}

func scanProject(sc scanner) (*chat.Project, error) {
	var p chat.Project
	var knowledge sql.NullString
	var created, updated string
	if err := sc.Scan(&p.ID, &p.Name, &p.Instructions, &knowledge, &p.Profile, &p.Model, &created, &updated); err != nil {
		return nil, err
	}
	var err error
	if p.Knowledge, err = decodeIDs(knowledge); err != nil {
		return nil, fmt.Errorf("project %s: knowledge: %w", p.ID, err)
	}
	if p.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	}
	if p.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, err
	}
	return normalProject(&p), nil
}

// normalProject gives the project [] rather than no collections (the wire
// shows a list).
func normalProject(p *chat.Project) *chat.Project {
	if p.Knowledge == nil {
		p.Knowledge = []string{}
	}
	return p
}

// UserConversationIDs lists the ids of every conversation but agents'
// (SPEC §10), oldest first: what a full backup holds.
func (s *Store) UserConversationIDs(ctx context.Context) ([]string, error) {
	rows, err := s.readers.QueryContext(ctx, `SELECT id FROM conversations WHERE agent = '' ORDER BY seq`)
	ids, err := column[string](rows, err)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	return ids, nil
}
