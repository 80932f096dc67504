package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ModelStatDelta is what one event adds to a model's statistics.
type ModelStatDelta struct {
	CardsAsked, Answered, Declined, Cancelled, TimedOut int
	Repaired, Refused, Corrected                        int
	// AnswerTime is a card's time to answer (0 = none).
	AnswerTime time.Duration
}

// ModelStats is how well one model asks.
type ModelStats struct {
	Model      string `json:"model"`
	CardsAsked int    `json:"cards_asked"`
	Answered   int    `json:"answered"`
	Declined   int    `json:"declined"` // skipped
	Cancelled  int    `json:"cancelled"`
	TimedOut   int    `json:"timed_out"`
	// MedianAnswerMillis is the median time to answer a card; 0 when no
	// card was answered.
	MedianAnswerMillis int64  `json:"median_answer_ms"`
	Repaired           int    `json:"repaired"`  // malformed calls repaired
	Refused            int    `json:"refused"`   // invalid calls sent back with an error
	Corrected          int    `json:"corrected"` // runs corrected after a reply without asking (rough signal)
	UpdatedAt          string `json:"updated_at"`
}

// AddModelStats adds d to the statistics of model.
func (s *Store) AddModelStats(ctx context.Context, model string, d ModelStatDelta) error {
	model = strings.TrimSpace(model)
	if model == "" {
		return fmt.Errorf("save model statistics: empty model name")
	}
	t := formatTime(now())
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save statistics of %s: %w", model, err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx,
		`INSERT INTO model_stats (model, cards_asked, answered, declined, cancelled, timed_out, repaired, refused, corrected, updated_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		 ON CONFLICT (model) DO UPDATE SET
		     cards_asked = cards_asked + excluded.cards_asked, answered = answered + excluded.answered,
		     declined = declined + excluded.declined, cancelled = cancelled + excluded.cancelled,
		     timed_out = timed_out + excluded.timed_out, repaired = repaired + excluded.repaired,
		     refused = refused + excluded.refused, corrected = corrected + excluded.corrected,
		     updated_at = excluded.updated_at`,
		model, d.CardsAsked, d.Answered, d.Declined, d.Cancelled, d.TimedOut, d.Repaired, d.Refused, d.Corrected, t)
	if err != nil {
		return fmt.Errorf("save statistics of %s: %w", model, err)
	}
	if d.AnswerTime > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO model_answer_times (model, millis, at) VALUES (?, ?, ?)`,
			model, d.AnswerTime.Milliseconds(), t); err != nil {
			return fmt.Errorf("save answer time of %s: %w", model, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save statistics of %s: %w", model, err)
	}
	return nil
}

// AllModelStats lists every model's statistics, by name.
func (s *Store) AllModelStats(ctx context.Context) ([]ModelStats, error) {
	rows, err := s.readers.QueryContext(ctx,
		`SELECT model, cards_asked, answered, declined, cancelled, timed_out, repaired, refused, corrected, updated_at
		 FROM model_stats ORDER BY model`)
	if err != nil {
		return nil, fmt.Errorf("load model statistics: %w", err)
	}
	defer rows.Close()
	out := []ModelStats{}
	for rows.Next() {
		var m ModelStats
		if err := rows.Scan(&m.Model, &m.CardsAsked, &m.Answered, &m.Declined, &m.Cancelled, &m.TimedOut,
			&m.Repaired, &m.Refused, &m.Corrected, &m.UpdatedAt); err != nil {
			return nil, fmt.Errorf("load model statistics: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load model statistics: %w", err)
	}
	times, err := s.answerTimes(ctx)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].MedianAnswerMillis = median(times[out[i].Model])
	}
	return out, nil
}

func (s *Store) answerTimes(ctx context.Context) (map[string][]int64, error) {
	rows, err := s.readers.QueryContext(ctx, `SELECT model, millis FROM model_answer_times`)
	if err != nil {
		return nil, fmt.Errorf("load answer times: %w", err)
	}
	defer rows.Close()
	out := map[string][]int64{}
	for rows.Next() {
		var model string
		var ms int64
		if err := rows.Scan(&model, &ms); err != nil {
			return nil, fmt.Errorf("load answer times: %w", err)
		}
		out[model] = append(out[model], ms)
	}
	return out, rows.Err()
}

// median of ms (the mean of the middle two for an even count); 0 for none.
func median(ms []int64) int64 {
	if len(ms) == 0 {
		return 0
	}
	slices.Sort(ms)
	n := len(ms)
	if n%2 == 1 {
		return ms[n/2]
	}
	return (ms[n/2-1] + ms[n/2]) / 2
}

// ResetModelStats forgets every model's statistics.
func (s *Store) ResetModelStats(ctx context.Context) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("reset model statistics: %w", err)
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM model_stats`, `DELETE FROM model_answer_times`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("reset model statistics: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("reset model statistics: %w", err)
	}
	return nil
}
