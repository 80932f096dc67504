package questions

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
)

func TestCreateSavesThenAsks(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")

	id, err := uuid.Parse(c.ID)
	require.NoError(t, err, "id %q is not a UUID v4 (%v)", c.ID, err)
	require.Equal(t, uuid.Version(4), id.Version(), "id %q is not a UUID v4 (%v)", c.ID, err)
	mustEqual(t, "status", c.Status, StatusPending)
	mustEqual(t, "conversation", c.ConversationID, "conv-1")
	mustEqual(t, "created", c.CreatedAt, h.clock.Now())
	require.NotNil(t, c.ExpiresAt, "expires_at = %v, want created+5m", c.ExpiresAt)
	require.True(t, c.ExpiresAt.Equal(h.clock.Now().Add(5*time.Minute)), "expires_at = %v, want created+5m", c.ExpiresAt)
	got := h.events.list()
	require.True(t, slices.Equal(got, []string{"save pending", "emit question:ask pending"}), "journal = %q, want save before ask", got)
	ev := h.rec.Events()[0]
	payload, ok := ev.Payload.(*Card)
	require.True(t, ok, "question:ask payload = %#v, want the card", ev.Payload)
	require.Equal(t, c.ID, payload.ID, "question:ask payload = %#v, want the card", ev.Payload)
	raw, _ := json.Marshal(ev.Payload)
	var top map[string]any
	_ = json.Unmarshal(raw, &top)
	for _, key := range []string{"question_id", "conversationId", "status", "questions", "created_at", "expires_at"} {
		_, ok := top[key]
		assert.True(t, ok, "card JSON lacks %q: %s", key, raw)
	}
	saved := h.store.get(c.ID)
	require.NotNil(t, saved, "store has %+v, want the pending card", saved)
	require.Equal(t, StatusPending, saved.Status, "store has %+v, want the pending card", saved)
}

func TestCreateWithoutTimeoutWaitsForever(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Timeout = 0 })
	c := h.create(t, "conv-1")
	require.Nil(t, c.ExpiresAt, "expires_at = %v, want nil", c.ExpiresAt)
	raw, _ := json.Marshal(c)
	require.Contains(t, string(raw), `"expires_at":null`, "card JSON %s lacks expires_at null", raw)
	mustEqual(t, "active timers", h.clock.Active(), 0)
	h.clock.Advance(24 * time.Hour)
	mustEqual(t, "status", statusOf(t, h.m, c.ID), StatusPending)
}

func TestSubmitResolvesWait(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")
	waiting := waitAsync(context.Background(), h.m, c.ID)

	r := submit(c.ID, "SQLite")
	r.Comments = "  small app "
	got, err := h.m.Respond(context.Background(), "conv-1", r)
	require.NoError(t, err, "Respond")
	mustEqual(t, "status", got.Status, StatusAnswered)
	mustEqual(t, "answer", got.Answers["Which database?"], "SQLite")
	mustEqual(t, "comments", got.Comments, "small app")
	require.NotNil(t, got.AnsweredAt, "answered_at = %v", got.AnsweredAt)
	require.True(t, got.AnsweredAt.Equal(h.clock.Now()), "answered_at = %v", got.AnsweredAt)

	res := receive(t, waiting)
	require.NoError(t, res.err, "Wait: %v", res.err)
	want := Outcome{Status: StatusAnswered, Result: `{"answers":{"Which database?":"SQLite"},"comments":"small app"}`}
	mustEqual(t, "outcome", res.out, want)
	mustEqual(t, "timers left", h.clock.Active(), 0)
	j := h.events.list()
	require.True(t, slices.Equal(j[2:], []string{"save answered", "emit question:resolved answered"}), "journal = %q, want save before resolved", j)
	// Wait after the fact returns the same outcome at once.
	out, err := h.m.Wait(context.Background(), c.ID)
	mustEqual(t, "late Wait", out, want)
	mustEqual(t, "late Wait err", err, error(nil))
}

func TestDeclineAndCancelActions(t *testing.T) {
	tests := []struct {
		action Action
		want   Outcome
	}{
		{ActionDecline, Outcome{Status: StatusDeclined, Result: DeclinedResult}},
		{ActionCancel, Outcome{Status: StatusCancelled, Result: CancelledResult, StopRun: true}},
	}
	for _, tt := range tests {
		t.Run(string(tt.action), func(t *testing.T) {
			h := newHarness(t, nil)
			c := h.create(t, "conv-1")
			waiting := waitAsync(context.Background(), h.m, c.ID)
			got, err := h.m.Respond(context.Background(), "conv-1", Response{QuestionID: c.ID, Action: tt.action})
			require.NoError(t, err, "Respond")
			mustEqual(t, "status", got.Status, tt.want.Status)
			res := receive(t, waiting)
			mustEqual(t, "outcome", res.out, tt.want)
			mustEqual(t, "stored status", h.store.get(c.ID).Status, tt.want.Status)
			names := h.rec.Names()
			require.True(t, slices.Equal(names, []string{events.QuestionAsk, events.QuestionResolved}), "events = %q", names)
			_, err = h.m.Respond(context.Background(), "conv-1", submit(c.ID, "Postgres"))
			require.ErrorIs(t, err, ErrConflict, "answer after %s: err = %v, want ErrConflict", tt.action, err)
		})
	}
}

func TestUnknownActionIsValidationError(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")
	_, err := h.m.Respond(context.Background(), "conv-1", Response{QuestionID: c.ID, Action: "explode"})
	require.Equal(t, fault.Validation, fault.KindOf(err), "err = %v, want a fault.Validation", err)
	mustEqual(t, "status", statusOf(t, h.m, c.ID), StatusPending)
}

func TestWaitContextCancelledCancelsCard(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")
	ctx, cancel := context.WithCancel(context.Background())
	waiting := waitAsync(ctx, h.m, c.ID)
	cancel()
	res := receive(t, waiting)
	mustEqual(t, "outcome", res.out, Outcome{Status: StatusCancelled, Result: CancelledResult, StopRun: true})
	require.NoError(t, res.err, "err = %v, want nil (a cancelled card is an outcome, not a failure)", res.err)
	mustEqual(t, "status", statusOf(t, h.m, c.ID), StatusCancelled)
	mustEqual(t, "stored", h.store.get(c.ID).Status, StatusCancelled)
	mustEqual(t, "timers", h.clock.Active(), 0)
	_, err := h.m.Respond(context.Background(), "conv-1", submit(c.ID, "SQLite"))
	require.ErrorIs(t, err, ErrConflict, "answer after cancel: %v, want ErrConflict", err)
}

func TestTimeoutAndLateAnswer(t *testing.T) {
	late := make(chan *Card, 1)
	h := newHarness(t, func(c *Config) { c.OnLateAnswer = func(c *Card) { late <- c } })
	c := h.create(t, "conv-1")
	waiting := waitAsync(context.Background(), h.m, c.ID)

	h.clock.Advance(5*time.Minute - time.Nanosecond)
	mustEqual(t, "status before timeout", statusOf(t, h.m, c.ID), StatusPending)
	h.clock.Advance(time.Nanosecond)
	mustEqual(t, "status after timeout", statusOf(t, h.m, c.ID), StatusTimedOut)

	res := receive(t, waiting)
	mustEqual(t, "outcome", res.out, Outcome{Status: StatusTimedOut, Result: TimedOutResult})
	require.Contains(t, res.out.Result, "timed out", "timeout result %q lacks 'timed out'", res.out.Result)
	mustEqual(t, "stored", h.store.get(c.ID).Status, StatusTimedOut)

	// Only a submit can revive a timed-out card.
	_, err := h.m.Respond(context.Background(), "conv-1", Response{QuestionID: c.ID, Action: ActionDecline})
	require.ErrorIs(t, err, ErrConflict, "decline after timeout: %v, want ErrConflict", err)
	got, err := h.m.Respond(context.Background(), "conv-1", submit(c.ID, "Postgres"))
	require.NoError(t, err, "late answer")
	mustEqual(t, "late status", got.Status, StatusAnsweredLate)
	select {
	case lc := <-late:
		mustEqual(t, "OnLateAnswer card", lc.ID, c.ID)
		mustEqual(t, "OnLateAnswer answer", lc.Answers["Which database?"], "Postgres")
	case <-time.After(5 * time.Second):
		require.Fail(t, "OnLateAnswer not called")
	}
	mustEqual(t, "stored", h.store.get(c.ID).Status, StatusAnsweredLate)
	wantJournal := []string{"save pending", "emit question:ask pending", "save timed_out", "emit question:resolved timed_out",
		"save answered_late", "emit question:resolved answered_late"}
	j := h.events.list()
	require.True(t, slices.Equal(j, wantJournal), "journal = %q\nwant %q", j, wantJournal)
	_, err = h.m.Respond(context.Background(), "conv-1", submit(c.ID, "SQLite"))
	require.ErrorIs(t, err, ErrConflict, "second late answer: %v, want ErrConflict", err)
	// The run that asked still got the timeout, not the late answer.
	out, _ := h.m.Wait(context.Background(), c.ID)
	mustEqual(t, "outcome after late answer", out.Status, StatusTimedOut)
}

func TestNewCardSupersedesTimedOutOne(t *testing.T) {
	h := newHarness(t, nil)
	old := h.create(t, "conv-1")
	other := h.create(t, "conv-2")
	h.clock.Advance(5 * time.Minute)
	mustEqual(t, "old", statusOf(t, h.m, old.ID), StatusTimedOut)

	fresh := h.create(t, "conv-1")
	mustEqual(t, "old after new card", statusOf(t, h.m, old.ID), StatusSuperseded)
	mustEqual(t, "stored old", h.store.get(old.ID).Status, StatusSuperseded)
	mustEqual(t, "other conversation untouched", statusOf(t, h.m, other.ID), StatusTimedOut)
	j := h.events.list()
	wantTail := []string{"save pending", "save superseded", "emit question:resolved superseded", "emit question:ask pending"}
	require.True(t, slices.Equal(j[len(j)-4:], wantTail), "journal tail = %q, want %q", j[len(j)-4:], wantTail)
	_, err := h.m.Respond(context.Background(), "conv-1", submit(old.ID, "Postgres"))
	require.ErrorIs(t, err, ErrConflict, "answer to superseded card: %v, want ErrConflict", err)
	mustEqual(t, "fresh", statusOf(t, h.m, fresh.ID), StatusPending)
}

func TestExactlyOneConcurrentAnswerWins(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")
	waiting := waitAsync(context.Background(), h.m, c.ID)
	labels := []string{"Postgres", "SQLite"}

	const n = 100
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			action := ActionSubmit
			if i%10 == 9 {
				action = ActionDecline
			}
			r := submit(c.ID, labels[i%2])
			r.Action = action
			_, errs[i] = h.m.Respond(context.Background(), "conv-1", r)
		}()
	}
	close(start)
	wg.Wait()

	wins, conflicts := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case errors.Is(err, ErrConflict):
			conflicts++
		default:
			assert.Failf(t, "unexpected error", "unexpected error: %v", err)
		}
	}
	mustEqual(t, "winners", wins, 1)
	mustEqual(t, "conflicts", conflicts, n-1)
	mustEqual(t, "saves (create + one answer)", h.store.count(), 2)
	names := h.rec.Names()
	require.True(t, slices.Equal(names, []string{events.QuestionAsk, events.QuestionResolved}), "events = %q", names)
	final, _ := h.m.Get(c.ID)
	res := receive(t, waiting)
	mustEqual(t, "outcome matches the stored winner", res.out, OutcomeFor(final))
	mustEqual(t, "store agrees", h.store.get(c.ID).Status, final.Status)
}

func TestRateLimit(t *testing.T) {
	h := newHarness(t, nil)
	h.create(t, "conv-1")
	saves := h.store.count()

	_, err := h.m.Create(context.Background(), AskRequest{ConversationID: "conv-1", Questions: sampleQuestions()})
	var rl *RateLimitError
	require.True(t, errors.As(err, &rl), "second card at once: %v", err)
	require.Equal(t, "rate limited: wait 5.0s before asking again", err.Error(), "second card at once: %v", err)
	h.clock.Advance(1800 * time.Millisecond)
	_, err = h.m.Create(context.Background(), AskRequest{ConversationID: "conv-1", Questions: sampleQuestions()})
	mustEqual(t, "error after 1.8s", str(err), "rate limited: wait 3.2s before asking again")
	mustEqual(t, "nothing saved while limited", h.store.count(), saves)
	mustEqual(t, "nothing emitted while limited", len(h.rec.Events()), 1)

	mustEqual(t, "tiny wait rounds up", (&RateLimitError{Wait: time.Nanosecond}).Error(), "rate limited: wait 0.1s before asking again")
	mustEqual(t, "exact tenth", (&RateLimitError{Wait: 3200 * time.Millisecond}).Error(), "rate limited: wait 3.2s before asking again")

	h.create(t, "conv-2") // other conversations are not limited
	h.clock.Advance(3200 * time.Millisecond)
	h.create(t, "conv-1")

	// The rate is a setting: 0 turns it off.
	h.m.UpdateConfig(Config{Timeout: time.Minute, RateInterval: 0, MaxPending: 10})
	h.create(t, "conv-1")
	h.create(t, "conv-1")
}

func TestRateLimitViaHandleToolCall(t *testing.T) {
	h := newHarness(t, nil)
	h.create(t, "conv-1")
	out := h.m.HandleToolCall(context.Background(), "conv-1", "run", "call", `{"questions":[{"question":"Q","options":["A","B"]}]}`)
	mustEqual(t, "outcome", out, Outcome{Result: "rate limited: wait 5.0s before asking again"})
}

func TestPendingCap(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxPending = 2; c.RateInterval = 0 })
	a := h.create(t, "conv-1")
	h.create(t, "conv-2")
	_, err := h.m.Create(context.Background(), AskRequest{ConversationID: "conv-3", Questions: sampleQuestions()})
	require.ErrorIs(t, err, ErrTooManyPending, "third card: %v, want ErrTooManyPending", err)
	mustEqual(t, "text", err.Error(), "too many pending questions (2): wait for the user to answer")
	_, err = h.m.Respond(context.Background(), "conv-1", submit(a.ID, "SQLite"))
	require.NoError(t, err)
	h.create(t, "conv-3") // a slot was freed
	h.m.UpdateConfig(Config{MaxPending: 0})
	h.create(t, "conv-4")
	mustEqual(t, "pending", len(h.m.Pending("")), 3)
}

func TestUnknownOrForeignCardRefused(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")
	saves, nEvents := h.store.count(), len(h.rec.Events())

	for name, tc := range map[string]struct{ conv, id string }{
		"unknown id":         {"conv-1", uuid.NewString()},
		"other conversation": {"conv-2", c.ID},
		"latest elsewhere":   {"conv-2", LatestID},
		"empty id":           {"conv-1", ""},
	} {
		_, err := h.m.Respond(context.Background(), tc.conv, submit(tc.id, "SQLite"))
		assert.ErrorIs(t, err, ErrNotFound, "%s: err = %v, want ErrNotFound", name, err)
	}
	mustEqual(t, "status", statusOf(t, h.m, c.ID), StatusPending)
	mustEqual(t, "saves", h.store.count(), saves)
	mustEqual(t, "events", len(h.rec.Events()), nEvents)
	require.Contains(t, h.logs.String(), "response refused: unknown question card", "refusal not logged:\n%s", h.logs.String())
}

func TestInvalidAnswerLeavesCardPending(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")
	saves := h.store.count()
	_, err := h.m.Respond(context.Background(), "conv-1", submit(c.ID, "MySQL"))
	require.Equal(t, fault.Validation, fault.KindOf(err), "err = %v, want a fault.Validation naming the question", err)
	require.Equal(t, "Which database?", fault.As(err).Text.Args[0], "err = %v, want a fault.Validation naming the question", err)
	mustEqual(t, "status", statusOf(t, h.m, c.ID), StatusPending)
	mustEqual(t, "saves", h.store.count(), saves)
	mustEqual(t, "events", len(h.rec.Events()), 1)
	_, err = h.m.Respond(context.Background(), "conv-1", submit(c.ID, "Postgres"))
	require.NoError(t, err, "valid answer afterwards")
}

func TestSaveFailureOnCreate(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxPending = 1 })
	h.store.setFail(func(*Card) error { return errDiskFull })
	_, err := h.m.Create(context.Background(), AskRequest{ConversationID: "conv-1", Questions: sampleQuestions()})
	require.ErrorIs(t, err, errDiskFull, "Create: %v, want the store error", err)
	mustEqual(t, "events", len(h.rec.Events()), 0)
	mustEqual(t, "pending", len(h.m.Pending("")), 0)
	mustEqual(t, "timers", h.clock.Active(), 0)
	out := h.m.HandleToolCall(context.Background(), "conv-1", "r", "c", `{"question":"Q","options":["A","B"]}`)
	require.Empty(t, out.Status, "HandleToolCall outcome = %+v, want the store error as result", out)
	require.Contains(t, out.Result, "disk full", "HandleToolCall outcome = %+v, want the store error as result", out)
	// Neither the cap slot nor the rate token was used up.
	h.store.setFail(nil)
	h.create(t, "conv-1")
}

func TestSaveFailureOnRespondLeavesPending(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")
	waiting := waitAsync(context.Background(), h.m, c.ID)
	h.store.setFail(func(c *Card) error {
		if c.Status != StatusPending {
			return errDiskFull
		}
		return nil
	})
	for _, r := range []Response{submit(c.ID, "SQLite"), {QuestionID: c.ID, Action: ActionDecline}} {
		_, err := h.m.Respond(context.Background(), "conv-1", r)
		require.ErrorIs(t, err, errDiskFull, "Respond %s: %v, want the store error", r.Action, err)
	}
	mustEqual(t, "status", statusOf(t, h.m, c.ID), StatusPending)
	mustEqual(t, "events", len(h.rec.Events()), 1)
	select {
	case r := <-waiting:
		require.Failf(t, "Wait returned", "Wait returned %+v although the answer was not saved", r)
	default:
	}
	h.store.setFail(nil)
	_, err := h.m.Respond(context.Background(), "conv-1", submit(c.ID, "SQLite"))
	require.NoError(t, err, "retry")
	mustEqual(t, "outcome", receive(t, waiting).out.Status, StatusAnswered)
}

func TestSaveFailureOnTimeoutStillTimesOut(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")
	waiting := waitAsync(context.Background(), h.m, c.ID)
	h.store.setFail(func(*Card) error { return errDiskFull })
	h.clock.Advance(5 * time.Minute)
	mustEqual(t, "outcome", receive(t, waiting).out.Status, StatusTimedOut)
	mustEqual(t, "event", h.rec.Names()[1], events.QuestionResolved)
	require.Contains(t, h.logs.String(), "not saved", "failed save not logged:\n%s", h.logs.String())
}

func TestLatest(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.RateInterval = 0 })
	first := h.create(t, "conv-1")
	h.clock.Advance(time.Second)
	second := h.create(t, "conv-1")

	got, err := h.m.Respond(context.Background(), "conv-1", Response{QuestionID: LatestID, Action: ActionDecline})
	require.NoError(t, err, "latest resolved to %v (%v), want the newest card %s", got, err, second.ID)
	require.Equal(t, second.ID, got.ID, "latest resolved to %v (%v), want the newest card %s", got, err, second.ID)
	h.clock.Advance(5 * time.Minute)
	mustEqual(t, "first", statusOf(t, h.m, first.ID), StatusTimedOut)
	// No pending card left: LatestPending falls back to the late-answerable one.
	lp, ok := h.m.LatestPending("conv-1")
	require.True(t, ok, "LatestPending after timeout = %+v, %v; want the timed-out card", lp, ok)
	require.Equal(t, first.ID, lp.ID, "LatestPending after timeout = %+v, %v; want the timed-out card", lp, ok)
	require.Equal(t, StatusTimedOut, lp.Status, "LatestPending after timeout = %+v, %v; want the timed-out card", lp, ok)
	got, err = h.m.Respond(context.Background(), "conv-1", submit(LatestID, "SQLite"))
	require.NoError(t, err, "latest late answer = %+v (%v)", got, err)
	require.Equal(t, first.ID, got.ID, "latest late answer = %+v (%v)", got, err)
	require.Equal(t, StatusAnsweredLate, got.Status, "latest late answer = %+v (%v)", got, err)
	_, err = h.m.Respond(context.Background(), "conv-1", submit(LatestID, "SQLite"))
	require.ErrorIs(t, err, ErrNotFound, "latest with nothing open: %v, want ErrNotFound", err)
	lp, ok = h.m.LatestPending("conv-1")
	require.False(t, ok, "LatestPending with nothing answerable = %+v", lp)
}

func TestPendingListsAndLatestPending(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.RateInterval = 0 })
	a1 := h.create(t, "a")
	h.clock.Advance(time.Second)
	b1 := h.create(t, "b")
	h.clock.Advance(time.Second)
	a2 := h.create(t, "a")
	h.clock.Advance(time.Second)
	a3 := h.create(t, "a")
	_, err := h.m.Respond(context.Background(), "a", Response{QuestionID: a3.ID, Action: ActionDecline})
	require.NoError(t, err)
	ids := func(cs []*Card) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	got := ids(h.m.Pending("a"))
	require.True(t, slices.Equal(got, []string{a1.ID, a2.ID}), "Pending(a) = %v", got)
	got = ids(h.m.Pending(""))
	require.True(t, slices.Equal(got, []string{a1.ID, b1.ID, a2.ID}), "Pending(all) = %v", got)
	got = ids(h.m.Cards("a"))
	require.True(t, slices.Equal(got, []string{a1.ID, a2.ID, a3.ID}), "Cards(a) = %v", got)
	latest, ok := h.m.LatestPending("a")
	require.True(t, ok, "LatestPending(a) = %v", latest)
	require.Equal(t, a2.ID, latest.ID, "LatestPending(a) = %v", latest)
	_, ok = h.m.LatestPending("nobody")
	require.False(t, ok, "LatestPending of an empty conversation found a card")
}

func TestCancelConversation(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.RateInterval = 0 })
	a1, a2, b := h.create(t, "a"), h.create(t, "a"), h.create(t, "b")
	w1 := waitAsync(context.Background(), h.m, a1.ID)
	mustEqual(t, "cancelled", h.m.CancelConversation(context.Background(), "a"), 2)
	mustEqual(t, "waiter", receive(t, w1).out, Outcome{Status: StatusCancelled, Result: CancelledResult, StopRun: true})
	mustEqual(t, "a2", statusOf(t, h.m, a2.ID), StatusCancelled)
	mustEqual(t, "b", statusOf(t, h.m, b.ID), StatusPending)
	mustEqual(t, "again", h.m.CancelConversation(context.Background(), "a"), 0)
	mustEqual(t, "timers", h.clock.Active(), 1)
}

func TestCopiesDoNotLeakState(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")
	c.Status = StatusAnswered
	c.Questions[0].Options[0].Label = "hacked"
	*c.ExpiresAt = time.Time{}
	g, _ := h.m.Get(c.ID)
	g.Questions[0].Question = "hacked"
	p := h.m.Pending("conv-1")[0]
	p.Questions[0].Options = nil
	ev := h.rec.Events()[0].Payload.(*Card)
	ev.Questions[0].Header = "hacked"

	fresh, _ := h.m.Get(c.ID)
	require.Equal(t, StatusPending, fresh.Status, "internal card changed through a copy: %+v", fresh)
	require.Equal(t, "Which database?", fresh.Questions[0].Question, "internal card changed through a copy: %+v", fresh)
	require.Equal(t, "Postgres", fresh.Questions[0].Options[0].Label, "internal card changed through a copy: %+v", fresh)
	require.Equal(t, "Database", fresh.Questions[0].Header, "internal card changed through a copy: %+v", fresh)
	require.False(t, fresh.ExpiresAt.IsZero(), "internal card changed through a copy: %+v", fresh)
	_, err := h.m.Respond(context.Background(), "conv-1", submit(c.ID, "Postgres"))
	require.NoError(t, err)
	done, _ := h.m.Get(c.ID)
	done.Answers["Which database?"] = "hacked"
	again, _ := h.m.Get(c.ID)
	mustEqual(t, "answer", again.Answers["Which database?"], "Postgres")
}

func TestHandleToolCall(t *testing.T) {
	h := newHarness(t, nil)
	out := h.m.HandleToolCall(context.Background(), "conv-1", "run", "call", `{"questions":[{"question":"Q","options":["A"]}]}`)
	mustEqual(t, "invalid input", out, Outcome{Result: "invalid input: questions[0].options must have 2-4 items (got 1)"})
	mustEqual(t, "no card shown", len(h.rec.Events()), 0)

	done := make(chan Outcome, 1)
	go func() {
		done <- h.m.HandleToolCall(context.Background(), "conv-1", "run", "call-2",
			`{"question":"Pick a language","options":["Go","Rust"],"allowCustom":false}`)
	}()
	<-h.rec.Changed() // question:ask is out
	card, ok := h.m.LatestPending("conv-1")
	require.True(t, ok, "no pending card")
	mustEqual(t, "run id", card.RunID, "run")
	mustEqual(t, "tool call id", card.ToolCallID, "call-2")
	_, err := h.m.Respond(context.Background(), "conv-1", Response{QuestionID: LatestID, Action: ActionSubmit,
		Answers: map[string]AnswerInput{"Pick a language": {Selected: []string{"Go"}}}})
	require.NoError(t, err)
	select {
	case out := <-done:
		mustEqual(t, "outcome", out, Outcome{Status: StatusAnswered, Result: `{"answers":{"Pick a language":"Go"}}`})
	case <-time.After(5 * time.Second):
		require.Fail(t, "HandleToolCall did not return")
	}
}

func TestCloseReleasesWaitersAndKeepsCardsPending(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv-1")
	waiting := waitAsync(context.Background(), h.m, c.ID)
	h.m.Close()
	res := receive(t, waiting)
	require.ErrorIs(t, res.err, ErrClosed, "Wait after Close: %v, want ErrClosed (a context.Canceled)", res.err)
	require.ErrorIs(t, res.err, context.Canceled, "Wait after Close: %v, want ErrClosed (a context.Canceled)", res.err)
	mustEqual(t, "timers", h.clock.Active(), 0)
	mustEqual(t, "stored", h.store.get(c.ID).Status, StatusPending)
	_, err := h.m.Create(context.Background(), AskRequest{ConversationID: "conv-2", Questions: sampleQuestions()})
	require.ErrorIs(t, err, ErrClosed, "Create after Close: %v", err)
	_, err = h.m.Respond(context.Background(), "conv-1", submit(c.ID, "SQLite"))
	require.ErrorIs(t, err, ErrClosed, "Respond after Close: %v", err)
	h.m.Close() // idempotent
}

func TestUpdateConfigTimeoutAppliesToNewCards(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.RateInterval = 0 })
	old := h.create(t, "conv-1")
	h.m.UpdateConfig(Config{Timeout: time.Minute})
	fresh := h.create(t, "conv-1")
	require.True(t, fresh.ExpiresAt.Equal(fresh.CreatedAt.Add(time.Minute)), "new card expires at %v", fresh.ExpiresAt)
	h.clock.Advance(time.Minute)
	mustEqual(t, "new card", statusOf(t, h.m, fresh.ID), StatusTimedOut)
	mustEqual(t, "old card keeps its 5m", statusOf(t, h.m, old.ID), StatusPending)
	h.m.UpdateConfig(Config{Timeout: 0})
	c := h.create(t, "conv-1")
	require.Nil(t, c.ExpiresAt, "timeout 0 still sets expires_at %v", c.ExpiresAt)
}

func TestRetentionIsBounded(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.RateInterval = 0; c.RetainResolved = 2 })
	var ids []string
	for range 3 {
		c := h.create(t, "conv-1")
		_, err := h.m.Respond(context.Background(), "conv-1", submit(c.ID, "SQLite"))
		require.NoError(t, err)
		ids = append(ids, c.ID)
	}
	_, ok := h.m.Get(ids[0])
	require.False(t, ok, "oldest resolved card still held beyond RetainResolved")
	_, err := h.m.Respond(context.Background(), "conv-1", submit(ids[0], "SQLite"))
	require.ErrorIs(t, err, ErrNotFound, "forgotten card: %v", err)
	_, err = h.m.Respond(context.Background(), "conv-1", submit(ids[2], "SQLite"))
	require.ErrorIs(t, err, ErrConflict, "retained card: %v", err)
	mustEqual(t, "forgotten", h.m.ForgetConversation("conv-1"), 2)
	mustEqual(t, "cards left", len(h.m.Cards("conv-1")), 0)
}

func TestForgetConversationKeepsPending(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.RateInterval = 0 })
	done := h.create(t, "conv-1")
	_, err := h.m.Respond(context.Background(), "conv-1", Response{QuestionID: done.ID, Action: ActionDecline})
	require.NoError(t, err)
	open := h.create(t, "conv-1")
	mustEqual(t, "forgotten", h.m.ForgetConversation("conv-1"), 1)
	mustEqual(t, "pending kept", statusOf(t, h.m, open.ID), StatusPending)
}
