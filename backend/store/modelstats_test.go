package store

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModelStatsAddUpKeepTheMedianAndReset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	s := openAt(t, path, 0)
	empty, err := s.AllModelStats(ctx)
	require.NoError(t, err)
	assert.Empty(t, empty)

	require.NoError(t, s.AddModelStats(ctx, "qwen3", ModelStatDelta{CardsAsked: 1}))
	require.NoError(t, s.AddModelStats(ctx, "qwen3", ModelStatDelta{Answered: 1, AnswerTime: 3 * time.Second}))
	require.NoError(t, s.AddModelStats(ctx, "qwen3", ModelStatDelta{CardsAsked: 1}))
	require.NoError(t, s.AddModelStats(ctx, "qwen3", ModelStatDelta{Answered: 1, AnswerTime: 10 * time.Second}))
	require.NoError(t, s.AddModelStats(ctx, "qwen3", ModelStatDelta{CardsAsked: 1}))
	require.NoError(t, s.AddModelStats(ctx, "qwen3", ModelStatDelta{Answered: 1, AnswerTime: 4 * time.Second}))
	require.NoError(t, s.AddModelStats(ctx, "qwen3", ModelStatDelta{Repaired: 2, Refused: 1, Corrected: 1, Declined: 1, Cancelled: 1, TimedOut: 1}))
	require.NoError(t, s.AddModelStats(ctx, "llama3.2", ModelStatDelta{Refused: 1}))
	require.Error(t, s.AddModelStats(ctx, " ", ModelStatDelta{CardsAsked: 1}), "a model without a name")

	// Kept across a restart.
	require.NoError(t, s.Close())
	s = openAt(t, path, 0)
	all, err := s.AllModelStats(ctx)
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Equal(t, "llama3.2", all[0].Model)
	assert.Equal(t, 1, all[0].Refused)
	assert.Zero(t, all[0].MedianAnswerMillis, "no answers: no median")
	q := all[1]
	q.UpdatedAt = ""
	assert.Equal(t, ModelStats{Model: "qwen3", CardsAsked: 3, Answered: 3, Declined: 1, Cancelled: 1, TimedOut: 1,
		MedianAnswerMillis: 4000, Repaired: 2, Refused: 1, Corrected: 1}, q)

	require.NoError(t, s.AddModelStats(ctx, "qwen3", ModelStatDelta{Answered: 1, AnswerTime: 20 * time.Second}))
	all, err = s.AllModelStats(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(7000), all[1].MedianAnswerMillis, "even count: the mean of the middle two")

	require.NoError(t, s.ResetModelStats(ctx))
	all, err = s.AllModelStats(ctx)
	require.NoError(t, err)
	assert.Empty(t, all)
	assert.Zero(t, count(t, s, `SELECT count(*) FROM model_answer_times`))
}

func TestModelStatsConcurrentAdds(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			assert.NoError(t, s.AddModelStats(ctx, "m", ModelStatDelta{CardsAsked: 1, Answered: 1, AnswerTime: time.Second}))
		})
	}
	wg.Wait()
	all, err := s.AllModelStats(ctx)
	require.NoError(t, err)
	require.Len(t, all, 1)
	assert.Equal(t, 20, all[0].CardsAsked)
	assert.Equal(t, int64(1000), all[0].MedianAnswerMillis)
}

func TestProfileKeepsItsToolCallingForm(t *testing.T) {
	s := newStore(t)
	require.NoError(t, s.SaveProfile(ctx, Profile{Name: "small", Tools: []string{"calculator"}, ToolCalling: "text"}))
	require.NoError(t, s.SaveProfile(ctx, Profile{Name: "plain"}))
	p, err := s.Profile(ctx, "small")
	require.NoError(t, err)
	assert.Equal(t, "text", p.ToolCalling)
	p, err = s.Profile(ctx, "plain")
	require.NoError(t, err)
	assert.Empty(t, p.ToolCalling, "the default: automatic")
}
