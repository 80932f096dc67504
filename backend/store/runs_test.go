package store

import (
	"reflect"
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
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	if r.StartedAt.IsZero() {
		t.Error("StartedAt not filled")
	}
	r.Status, r.Error, r.EndedAt = chat.RunFailed, "model unreachable", ptr(at("2026-05-01T00:00:01Z"))
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("run:\n got %+v\nwant %+v", got, r)
	}
	if n := count(t, s, "SELECT count(*) FROM runs"); n != 1 {
		t.Errorf("%d runs after an update", n)
	}

	_, err = s.Run(ctx, "missing")
	wantNotFound(t, err)
	wantNotFound(t, s.SaveRun(ctx, &chat.Run{ID: "r2", ConversationID: "missing", Status: chat.RunRunning}))
	other := mustConversation(t, s, "other")
	if err := s.SaveRun(ctx, &chat.Run{ID: "r1", ConversationID: other.ID, Status: chat.RunRunning}); err == nil {
		t.Error("run moved to another conversation")
	}
	if err := s.SaveRun(ctx, &chat.Run{ConversationID: c.ID, Status: chat.RunRunning}); err == nil {
		t.Error("run without id accepted")
	}
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
		if err := s.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.LatestRun(ctx, c.ID)
	if err != nil || got.ID != "c" || got.ResumedFrom != "b" {
		t.Errorf("latest = %+v, %v", got, err)
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
		if err := s.SaveRun(ctx, &chat.Run{ID: id, ConversationID: c.ID, Status: st}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.MarkInterruptedRuns(ctx)
	if err != nil || n != 4 {
		t.Fatalf("marked %d (%v), want 4", n, err)
	}
	for id, before := range statuses {
		r, err := s.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		live := id == "running" || id == "requesting" || id == "streaming" || id == "tools"
		switch {
		case live && (r.Status != chat.RunInterrupted || r.EndedAt == nil):
			t.Errorf("%s: %+v, want interrupted with an end time", id, r)
		case !live && r.Status != before:
			t.Errorf("%s: status %s changed to %s", id, before, r.Status)
		}
	}
	if n, err := s.MarkInterruptedRuns(ctx); err != nil || n != 0 {
		t.Errorf("second call marked %d (%v)", n, err)
	}
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
