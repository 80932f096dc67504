package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// timeLayout is fixed-width UTC with nanoseconds, so stored times keep full
// precision and compare correctly as text.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t.UTC(), nil
}

// now is the store's clock, truncated to what the format keeps and without
// a monotonic reading, so a value read back equals the one written.
func now() time.Time { return time.Now().UTC().Round(0) }

// nullString stores "" as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullStringPtr stores nil and "" as NULL.
func nullStringPtr(s *string) any {
	if s == nil {
		return nil
	}
	return nullString(*s)
}

// nullTime stores nil as NULL.
func nullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return formatTime(*t)
}

func parseNullTime(ns sql.NullString) (*time.Time, error) {
	if !ns.Valid {
		return nil, nil
	}
	t, err := parseTime(ns.String)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// scanner is *sql.Row or *sql.Rows.
type scanner interface {
	Scan(dest ...any) error
}

// encodeIDs stores a list of ids as a JSON array (NULL when empty).
func encodeIDs(ids []string) any {
	if len(ids) == 0 {
		return nil
	}
	b, _ := json.Marshal(ids) // strings always encode
	return string(b)
}

// decodeIDs reads what encodeIDs stored (nil for NULL).
func decodeIDs(ns sql.NullString) ([]string, error) {
	if !ns.Valid {
		return nil, nil
	}
	var ids []string
	if err := json.Unmarshal([]byte(ns.String), &ids); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return ids, nil
}

// column reads the one column of a query's rows, closing them.
func column[T any](rows *sql.Rows, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
