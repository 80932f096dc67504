package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

func TestSaveRunUpsertsAndLoads(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	r := &chat.Run{ID: "r1", ConversationID: c.ID, Status: chat.RunRunning}
	require.NoError(t, s.SaveRun(ctx, r))
	assert.False(t, r.StartedAt.IsZero(), "StartedAt not filled")
	r.Status, r.Error, r.EndedAt = chat.RunFailed, "model unreachable", ptr(at("2026-05-01T00:00:01Z"))
	require.NoError(t, s.SaveRun(ctx, r))
	got, err := s.Run(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, r, got, "run")
	assert.Equal(t, 1, count(t, s, "SELECT count(*) FROM runs"), "runs after an update")

	_, err = s.Run(ctx, "missing")
	wantNotFound(t, err)
	wantNotFound(t, s.SaveRun(ctx, &chat.Run{ID: "r2", ConversationID: "missing", Status: chat.RunRunning}))
	other := mustConversation(t, s, "other")
	assert.Error(t, s.SaveRun(ctx, &chat.Run{ID: "r1", ConversationID: other.ID, Status: chat.RunRunning}), "run moved to another conversation")
	assert.Error(t, s.SaveRun(ctx, &chat.Run{ConversationID: c.ID, Status: chat.RunRunning}), "run without id accepted")
}

func TestLatestRun(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	_, err := s.LatestRun(ctx, c.ID)
	wantNotFound(t, err)
	for _, r := range []*chat.Run{
		{ID: "b", ConversationID: c.ID, Status: chat.RunCompleted, StartedAt: at("2026-01-01T02:00:00Z")},
		{ID: "c", ConversationID: c.ID, Status: chat.RunInterrupted, StartedAt: at("2026-01-01T03:00:00Z"), ResumedFrom: "b"},
		{ID: "a", ConversationID: c.ID, Status: chat.RunCompleted, StartedAt: at("2026-01-01T01:00:00Z")},
	} {
		require.NoError(t, s.SaveRun(ctx, r))
	}
	got, err := s.LatestRun(ctx, c.ID)
	if assert.NoError(t, err, "latest") {
		assert.Equal(t, "c", got.ID, "latest = %+v", got)
		assert.Equal(t, "b", got.ResumedFrom, "latest = %+v", got)
	}
}

func TestMarkInterruptedRuns(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	statuses := map[string]string{
		"running": chat.RunRunning, "requesting": chat.StateRequesting, "streaming": chat.StateStreaming,
		"tools": chat.StateToolExecuting, "awaiting": chat.RunAwaiting, "done": chat.RunCompleted,
		"failed": chat.RunFailed, "cancelled": chat.RunCancelled,
	}
	for id, st := range statuses {
		require.NoError(t, s.SaveRun(ctx, &chat.Run{ID: id, ConversationID: c.ID, Status: st}))
	}
	n, err := s.MarkInterruptedRuns(ctx)
	require.NoError(t, err, "marking interrupted runs")
	require.Equal(t, 4, n, "runs marked")
	for id, before := range statuses {
		r, err := s.Run(ctx, id)
		require.NoError(t, err)
		live := id == "running" || id == "requesting" || id == "streaming" || id == "tools"
		if live {
			assert.Equal(t, chat.RunInterrupted, r.Status, "%s: %+v, want interrupted", id, r)
			assert.NotNil(t, r.EndedAt, "%s: %+v, want an end time", id, r)
		} else {
			assert.Equal(t, before, r.Status, "%s: status changed", id)
		}
	}
	n, err = s.MarkInterruptedRuns(ctx)
	assert.NoError(t, err, "second call")
	assert.Equal(t, 0, n, "second call marked runs")
}

func TestUnfinishedRuns(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	for i, st := range []string{chat.RunRunning, chat.StateRequesting, chat.StateStreaming, chat.StateToolExecuting,
		chat.RunAwaiting, chat.RunCompleted, chat.RunFailed, chat.RunCancelled, chat.RunInterrupted} {
		started := at("2026-01-01T01:00:00Z").Add(time.Duration(i) * time.Minute)
		require.NoError(t, s.SaveRun(ctx, &chat.Run{ID: st, ConversationID: c.ID, Status: st, StartedAt: started}))
	}
	runs, err := s.UnfinishedRuns(ctx)
	require.NoError(t, err)
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{chat.RunRunning, chat.StateRequesting, chat.StateStreaming, chat.StateToolExecuting, chat.RunAwaiting}, ids,
		"working and awaiting runs, oldest first")
}
