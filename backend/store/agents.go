package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
)

// AgentConversation returns the conversation of an agent's cards (SPEC
// §10), making it on the agent's first card; created says it was new.
func (s *Store) AgentConversation(ctx context.Context, agent string) (c *chat.Conversation, created bool, err error) {
	if agent == "" {
		return nil, false, errors.New("agent conversation: empty agent name")
	}
	t := now()
	res, err := s.writer.ExecContext(ctx,
		`INSERT INTO conversations (id, title, assistant, pinned, created_at, updated_at, agent) VALUES (?, ?, '', 0, ?, ?, ?)
		 ON CONFLICT (agent) WHERE agent <> '' DO NOTHING`,
		uuid.NewString(), agent, formatTime(t), formatTime(t), agent)
	if err != nil {
		return nil, false, fmt.Errorf("make conversation of agent %q: %w", agent, err)
	}
	n, _ := res.RowsAffected()
	row := s.writer.QueryRowContext(ctx, `SELECT `+conversationColumns+` FROM conversations WHERE agent = ?`, agent)
	conv, err := scanConversation(row)
	if err != nil {
		return nil, false, fmt.Errorf("load conversation of agent %q: %w", agent, err)
	}
	return &conv, n == 1, nil
}

// CreateAgentToken stores a new agent token by its hash.
func (s *Store) CreateAgentToken(ctx context.Context, name, tokenHash string) (api.AgentToken, error) {
	tok := api.AgentToken{ID: uuid.NewString(), Name: name, CreatedAt: now()}
	_, err := s.writer.ExecContext(ctx, `INSERT INTO agent_tokens (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)`,
		tok.ID, name, tokenHash, formatTime(tok.CreatedAt))
	if err != nil {
		return api.AgentToken{}, fmt.Errorf("store agent token %q: %w", name, err)
	}
	return tok, nil
}

// AgentTokens lists the agent tokens, oldest first.
func (s *Store) AgentTokens(ctx context.Context) ([]api.AgentToken, error) {
	rows, err := s.readers.QueryContext(ctx, `SELECT id, name, created_at, last_used_at FROM agent_tokens ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list agent tokens: %w", err)
	}
	defer rows.Close()
	out := []api.AgentToken{}
	for rows.Next() {
		tok, err := scanAgentToken(rows)
		if err != nil {
			return nil, fmt.Errorf("list agent tokens: %w", err)
		}
		out = append(out, tok)
	}
	return out, rows.Err()
}

// AgentTokenByHash finds the token with the hash; chat.ErrNotFound when none.
func (s *Store) AgentTokenByHash(ctx context.Context, tokenHash string) (api.AgentToken, error) {
	tok, err := scanAgentToken(s.readers.QueryRowContext(ctx,
		`SELECT id, name, created_at, last_used_at FROM agent_tokens WHERE token_hash = ?`, tokenHash))
	if errors.Is(err, sql.ErrNoRows) {
		return tok, fmt.Errorf("agent token: %w", chat.ErrNotFound)
	}
	if err != nil {
		return tok, fmt.Errorf("load agent token: %w", err)
	}
	return tok, nil
}

// DeleteAgentToken removes a token; chat.ErrNotFound when unknown.
func (s *Store) DeleteAgentToken(ctx context.Context, id string) error {
	res, err := s.writer.ExecContext(ctx, `DELETE FROM agent_tokens WHERE id = ?`, id)
	return checkUpdated(res, err, "delete agent token", id)
}

// TouchAgentToken records when a token was last used.
func (s *Store) TouchAgentToken(ctx context.Context, id string, at time.Time) error {
	_, err := s.writer.ExecContext(ctx, `UPDATE agent_tokens SET last_used_at = ? WHERE id = ?`, formatTime(at), id)
	if err != nil {
		return fmt.Errorf("touch agent token %s: %w", id, err)
	}
	return nil
}

func scanAgentToken(sc scanner) (api.AgentToken, error) {
	var tok api.AgentToken
	var created string
	var used sql.NullString
	if err := sc.Scan(&tok.ID, &tok.Name, &created, &used); err != nil {
		return tok, err
	}
	var err error
	if tok.CreatedAt, err = parseTime(created); err != nil {
		return tok, err
	}
	tok.LastUsedAt, err = parseNullTime(used)
	return tok, err
}
