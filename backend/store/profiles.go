package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-app/parley/backend/chat"
)

// Profile is a stored assistant: its system prompt, model ("" = the app's
// default) and the tools it opts in to.
type Profile struct {
	Name         string   `json:"name"`
	SystemPrompt string   `json:"system_prompt"`
	Model        string   `json:"model"`
	Tools        []string `json:"tools"`
	ToolCalling  string   `json:"tool_calling"` // auto, native, text or off ("" = auto)
	Thinking     string   `json:"thinking"`     // auto, off, low, medium or high ("" = auto)
	Knowledge    []string `json:"knowledge"`    // collections its conversations search (SPEC §11)
}

const profileColumns = "name, system_prompt, model, tools, tool_calling, thinking, knowledge"

// SaveProfile inserts or replaces the profile named p.Name.
func (s *Store) SaveProfile(ctx context.Context, p Profile) error {
	if strings.TrimSpace(p.Name) == "" {
		return errors.New("save assistant profile: empty name")
	}
	tools := p.Tools
	if tools == nil {
		tools = []string{}
	}
	b, err := json.Marshal(tools)
	if err != nil {
		return fmt.Errorf("save assistant profile %s: %w", p.Name, err)
	}
	t := formatTime(now())
	_, err = s.writer.ExecContext(ctx,
		`INSERT INTO profiles (name, system_prompt, model, tools, tool_calling, thinking, knowledge, created_at, updated_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		 ON CONFLICT (name) DO UPDATE SET system_prompt = excluded.system_prompt, model = excluded.model,
		     tools = excluded.tools, tool_calling = excluded.tool_calling, thinking = excluded.thinking,
		     knowledge = excluded.knowledge, updated_at = excluded.updated_at`,
		p.Name, p.SystemPrompt, p.Model, string(b), p.ToolCalling, p.Thinking, encodeIDs(p.Knowledge), t, t)
	if err != nil {
		return fmt.Errorf("save assistant profile %s: %w", p.Name, err)
	}
	return nil
}

// Profile loads one profile; chat.ErrNotFound when missing.
func (s *Store) Profile(ctx context.Context, name string) (*Profile, error) {
	p, err := scanProfile(s.readers.QueryRowContext(ctx,
		`SELECT `+profileColumns+` FROM profiles WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load assistant profile %s: %w", name, chat.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load assistant profile %s: %w", name, err)
	}
	return &p, nil
}

// Profiles loads every profile, by name.
func (s *Store) Profiles(ctx context.Context) ([]Profile, error) {
	rows, err := s.readers.QueryContext(ctx, `SELECT `+profileColumns+` FROM profiles ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("load assistant profiles: %w", err)
	}
	defer rows.Close()
	out := []Profile{}
	for rows.Next() {
		p, err := scanProfile(rows)
		if err != nil {
			return nil, fmt.Errorf("load assistant profiles: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load assistant profiles: %w", err)
	}
	return out, nil
}

// DeleteProfile deletes a profile; chat.ErrNotFound when missing.
// Conversations keep its name and fall back to the default profile.
func (s *Store) DeleteProfile(ctx context.Context, name string) error {
	res, err := s.writer.ExecContext(ctx, `DELETE FROM profiles WHERE name = ?`, name)
	return checkUpdated(res, err, "delete assistant profile", name)
}

func scanProfile(sc scanner) (Profile, error) {
	var p Profile
	var tools string
	var knowledge sql.NullString
	if err := sc.Scan(&p.Name, &p.SystemPrompt, &p.Model, &tools, &p.ToolCalling, &p.Thinking, &knowledge); err != nil {
		return p, err
	}
	var err error
	if p.Knowledge, err = decodeIDs(knowledge); err != nil {
		return p, fmt.Errorf("profile %s: decode knowledge: %w", p.Name, err)
	}
	if err := json.Unmarshal([]byte(tools), &p.Tools); err != nil {
		return p, fmt.Errorf("profile %s: decode tools: %w", p.Name, err)
	}
	if p.Tools == nil {
		p.Tools = []string{}
	}
	return p, nil
}
