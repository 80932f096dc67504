package questions

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/events"
)

// The app saves every card; after a restart a new Manager gets them back.
func TestRestoreAfterRestart(t *testing.T) {
	clock := newFakeClock()
	store := newRecordingStore()
	cfg := Config{Timeout: 5 * time.Minute, Clock: clock, Logger: quietLogger()}
	before := NewManager(cfg, store, nil)

	create := func(conv string, timeout time.Duration) *Card {
		before.UpdateConfig(Config{Timeout: timeout})
		c, err := before.Create(context.Background(), AskRequest{ConversationID: conv, Questions: sampleQuestions()})
		require.NoError(t, err)
		return c
	}
	timedOut := create("conv-late", time.Minute)
	clock.Advance(time.Minute)
	answered := create("conv-done", time.Hour)
	_, err := before.Respond(context.Background(), "conv-done", submit(answered.ID, "SQLite"))
	require.NoError(t, err)
	expiring := create("conv-expiring", 2*time.Minute)
	open := create("conv-open", 10*time.Minute)
	forever := create("conv-forever", 0)
	before.Close() // the app quits; pending cards stay pending in the store
	mustEqual(t, "stored status", store.get(expiring.ID).Status, StatusPending)

	clock.Advance(3 * time.Minute) // the app was down for a while
	rec := events.NewRecorder()
	late := make(chan *Card, 1)
	after := NewManager(Config{Clock: clock, Logger: quietLogger(), OnLateAnswer: func(c *Card) { late <- c }}, store, rec)
	defer after.Close()
	require.NoError(t, after.Restore(store.all()), "Restore")

	// Expired while the app was down: timed out during Restore, saved and announced.
	mustEqual(t, "expired card", statusOf(t, after, expiring.ID), StatusTimedOut)
	mustEqual(t, "expired stored", store.get(expiring.ID).Status, StatusTimedOut)
	require.Equal(t, []string{events.QuestionResolved}, rec.Names(), "events after restore, want one question:resolved")

	// Still pending: listed again, answerable, and Wait works on the new manager.
	pending := after.Pending("")
	require.Len(t, pending, 2, "pending after restore = %v", pending)
	require.Equal(t, open.ID, pending[0].ID, "pending after restore = %v", pending)
	require.Equal(t, forever.ID, pending[1].ID, "pending after restore = %v", pending)
	waiting := waitAsync(context.Background(), after, open.ID)
	_, err = after.Respond(context.Background(), "conv-open", submit(open.ID, "Postgres"))
	require.NoError(t, err, "answer restored card")
	mustEqual(t, "restored outcome", receive(t, waiting).out.Result, `{"answers":{"Which database?":"Postgres"}}`)

	// Timed out before the restart: still answerable late.
	c, err := after.Respond(context.Background(), "conv-late", submit(timedOut.ID, "SQLite"))
	require.NoError(t, err, "late answer after restore")
	require.Equal(t, StatusAnsweredLate, c.Status, "late answer after restore: %v", c)
	<-late
	// Already answered: conflict, not "not found".
	_, err = after.Respond(context.Background(), "conv-done", submit(answered.ID, "SQLite"))
	require.ErrorIs(t, err, ErrConflict, "answered card after restore")
	// The remaining timer resumes from ExpiresAt, and no-timeout cards wait forever.
	clock.Advance(24 * time.Hour)
	mustEqual(t, "forever", statusOf(t, after, forever.ID), StatusPending)
	mustEqual(t, "timers", clock.Active(), 0)
}

func TestRestoreTimerResumesFromExpiresAt(t *testing.T) {
	h := newHarness(t, nil)
	now := h.clock.Now()
	exp := now.Add(90 * time.Second)
	card := &Card{ID: "11111111-1111-4111-8111-111111111111", ConversationID: "c", Status: StatusPending,
		Questions: sampleQuestions(), CreatedAt: now.Add(-210 * time.Second), ExpiresAt: &exp}
	require.NoError(t, h.m.Restore([]*Card{card}))
	h.clock.Advance(89 * time.Second)
	mustEqual(t, "before expiry", statusOf(t, h.m, card.ID), StatusPending)
	h.clock.Advance(time.Second)
	mustEqual(t, "at expiry", statusOf(t, h.m, card.ID), StatusTimedOut)
}

func TestRestoreSkipsBadCards(t *testing.T) {
	h := newHarness(t, nil)
	good := &Card{ID: "good", ConversationID: "c", Status: StatusPending, Questions: sampleQuestions(), CreatedAt: h.clock.Now()}
	bad := []*Card{
		nil,
		{ID: "", ConversationID: "c", Status: StatusPending, Questions: sampleQuestions()},
		{ID: "no-conv", Status: StatusPending, Questions: sampleQuestions()},
		{ID: "no-questions", ConversationID: "c", Status: StatusPending},
		{ID: "weird", ConversationID: "c", Status: "exploded", Questions: sampleQuestions()},
	}
	err := h.m.Restore(append(bad, good))
	require.Error(t, err, "Restore accepted malformed cards")
	for _, want := range []string{"no question_id", "no conversationId", "no questions", `unknown status "exploded"`} {
		assert.Contains(t, err.Error(), want)
	}
	mustEqual(t, "good restored", statusOf(t, h.m, "good"), StatusPending)
	err = h.m.Restore([]*Card{good})
	require.Error(t, err, "duplicate restore")
	require.Contains(t, err.Error(), "already known", "duplicate restore")
	mustEqual(t, "pending count", len(h.m.Pending("")), 1)
}
