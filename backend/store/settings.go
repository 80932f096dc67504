package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// GetSetting decodes the JSON stored under key into dst. found is false
// (and dst untouched) when the key was never set.
func (s *Store) GetSetting(ctx context.Context, key string, dst any) (found bool, err error) {
	var value string
	err = s.readers.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("load setting %s: %w", key, err)
	}
	if err := json.Unmarshal([]byte(value), dst); err != nil {
		return true, fmt.Errorf("decode setting %s: %w", key, err)
	}
	return true, nil
}

// SetSetting stores v as JSON under key, replacing what was there.
func (s *Store) SetSetting(ctx context.Context, key string, v any) error {
	if key == "" {
		return errors.New("save setting: empty key")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode setting %s: %w", key, err)
	}
	_, err = s.writer.ExecContext(ctx,
		`INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
		 ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		key, string(b), formatTime(now()))
	if err != nil {
		return fmt.Errorf("save setting %s: %w", key, err)
	}
	return nil
}
