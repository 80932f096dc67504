package assistant

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// countingStore is the real store, counting full history reads.
type countingStore struct {
	*store.Store
	reads atomic.Int32
	// afterAppend, when set, runs after each message the loop stores.
	afterAppend func(m *chat.Message)
	mu          sync.Mutex
	batches     []int    // sizes of the appends, in order
	runSaves    []string // run statuses saved, in order ("+n" = with n messages)
}

func (s *countingStore) SaveRun(ctx context.Context, r *chat.Run) error {
	s.mu.Lock()
	s.runSaves = append(s.runSaves, r.Status)
	s.mu.Unlock()
	return s.Store.SaveRun(ctx, r)
}

func (s *countingStore) AppendMessage(ctx context.Context, m *chat.Message) error {
	return s.AppendMessages(ctx, []*chat.Message{m})
}

func (s *countingStore) AppendMessages(ctx context.Context, msgs []*chat.Message) error {
	return s.appended(s.Store.AppendMessages(ctx, msgs), msgs)
}

func (s *countingStore) SaveRunAndAppend(ctx context.Context, r *chat.Run, msgs []*chat.Message) error {
	s.mu.Lock()
	s.runSaves = append(s.runSaves, fmt.Sprintf("%s+%d", r.Status, len(msgs)))
	s.mu.Unlock()
	return s.appended(s.Store.SaveRunAndAppend(ctx, r, msgs), msgs)
}

// appended records a batch and runs afterAppend for its messages.
func (s *countingStore) appended(err error, msgs []*chat.Message) error {
	s.mu.Lock()
	s.batches = append(s.batches, len(msgs))
	s.mu.Unlock()
	for _, m := range msgs {
		if err == nil && s.afterAppend != nil {
			s.afterAppend(m)
		}
	}
	return err
}

func (s *countingStore) Messages(ctx context.Context, conversationID string) ([]chat.Message, error) {
	s.reads.Add(1)
	return s.Store.Messages(ctx, conversationID)
}

type storeHarness struct {
	db     *countingStore
	conv   string
	server *modelserver.Server
	qm     *questions.Manager
	rt     *Runtime
	rec    *events.Recorder
}

func newStoreHarness(t *testing.T, script modelserver.Script, edit ...func(*Options)) *storeHarness {
	t.Helper()
	db, err := store.OpenWith(filepath.Join(t.TempDir(), "parley.db"), store.Options{Logger: quiet})
	require.NoError(t, err)
	c, err := db.CreateConversation(context.Background(), "test", "")
	require.NoError(t, err)
	h := &storeHarness{db: &countingStore{Store: db}, conv: c.ID, server: modelserver.New(script), rec: events.NewRecorder()}
	h.qm = questions.NewManager(questions.Config{Timeout: time.Minute, Logger: quiet}, nil, h.rec)
	o := Options{
		History: h.db,
		Events:  h.rec,
		Asker:   h.qm,
		Model: func(string) (llm.Model, error) {
			return llm.NewOpenAI(llm.Config{BaseURL: h.server.URL(), Model: "test-model"})
		},
		Tools:  BuiltinTools(nil),
		Logger: quiet,
	}
	for _, e := range edit {
		e(&o)
	}
	h.rt = New(o)
	t.Cleanup(func() {
		h.rt.Close()
		h.qm.Close()
		h.server.Close()
		_ = db.Close()
	})
	return h
}

func (h *storeHarness) waitDone(t *testing.T) {
	t.Helper()
	select {
	case <-h.rt.Done(h.conv):
	case <-time.After(15 * time.Second):
		require.FailNow(t, "timed out waiting for the run to end")
	}
}

func (h *storeHarness) waitCard(t *testing.T) *questions.Card {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		if c, ok := h.qm.LatestPending(h.conv); ok && h.rt.State(h.conv).State == chat.StateAwaitingUserResponse {
			return c
		}
		select {
		case <-h.rec.Changed():
		case <-deadline:
			require.FailNow(t, "no card")
		}
	}
}

// answerBlue submits "Blue" to the colour card.
func (h *storeHarness) answerBlue(t *testing.T, card *questions.Card) {
	t.Helper()
	_, err := h.qm.Respond(context.Background(), h.conv, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
	require.NoError(t, err)
}

func roles(msgs []modelserver.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role+":"+m.Content)
	}
	return out
}

// The loop reads the conversation once per run and keeps it: the model
// calls after a tool result are built from what the loop stored, and are
// the same requests as if the store had been read again.
func TestLoopReadsTheHistoryOncePerRun(t *testing.T) {
	calc := modelserver.ToolCall{ID: "call_1", Name: ToolCalculator, Arguments: `{"expression":"6*7"}`}
	h := newStoreHarness(t, modelserver.Turns(
		modelserver.Turn{Text: "Let me compute.", ToolCalls: []modelserver.ToolCall{calc}},
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_2", Name: ToolCalculator, Arguments: `{"expression":"1+1"}`}}},
		modelserver.Turn{Text: "42 and 2."},
	))
	_, err := h.rt.Start(StartRequest{ConversationID: h.conv, UserText: "What is 6*7?"})
	require.NoError(t, err)
	h.waitDone(t)
	reqs := h.server.Requests()
	require.Len(t, reqs, 3, "model calls")
	assert.Equal(t, int32(1), h.db.reads.Load(), "full history reads in a run of three model calls")

	stored, err := h.db.Store.Messages(context.Background(), h.conv)
	require.NoError(t, err)
	require.Len(t, stored, 6, "stored history %+v", stored)
	// The last request carries exactly the stored history (after the system prompt).
	last := reqs[2].Messages
	require.Len(t, last, 1+5, "last request %v", roles(last))
	for i, m := range stored[:5] {
		assert.Equal(t, m.Role, last[i+1].Role, "message %d of %v", i, roles(last))
		assert.Equal(t, m.Content, last[i+1].Content, "message %d of %v", i, roles(last))
	}
}

// A message someone else stores while the run goes on (a late answer to
// an older card is posted this way) reaches the next model call, whether
// it came while the run waited on its card or just after the loop stored
// the card's result: the kept history is not used once the conversation's
// leaf moved.
func TestLoopReadsAgainAfterAnotherAppend(t *testing.T) {
	for _, when := range []string{"while the card waits", "after the tool result"} {
		t.Run(when, func(t *testing.T) {
			h := newStoreHarness(t, func(req modelserver.ChatRequest) modelserver.Turn {
				if req.LastMessage().Role != "user" || req.LastMessage().Content == "Also, the ceiling." {
					return modelserver.Turn{Text: "Thanks."}
				}
				return modelserver.Turn{Text: "One question.", ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}}
			})
			appendLate := func() {
				late := &chat.Message{ConversationID: h.conv, Role: chat.RoleUser, Content: "Also, the ceiling."}
				assert.NoError(t, h.db.Store.AppendMessage(context.Background(), late))
			}
			if when == "after the tool result" {
				h.db.afterAppend = func(m *chat.Message) {
					if m.Role == chat.RoleTool {
						appendLate()
					}
				}
			}
			_, err := h.rt.Start(StartRequest{ConversationID: h.conv, UserText: "Paint it"})
			require.NoError(t, err)
			card := h.waitCard(t)
			if when == "while the card waits" {
				appendLate()
			}
			h.answerBlue(t, card)
			h.waitDone(t)
			reqs := h.server.Requests()
			require.Len(t, reqs, 2, "model calls")
			got := roles(reqs[1].Messages)
			assert.Contains(t, got, "user:Also, the ceiling.", "second request %v", got)
			assert.Equal(t, int32(2), h.db.reads.Load(), "full history reads")
			stored, err := h.db.Store.Messages(context.Background(), h.conv)
			require.NoError(t, err)
			require.Len(t, stored, 5, "stored history %+v", stored)
			assert.Equal(t, "Thanks.", stored[4].Content, "stored history %+v", stored)
		})
	}
}

// When the user cancels a card, no tool of the step runs any more: the
// card's result and the cancelled results of the calls after it are stored
// in one transaction, in order, and the run ends without another model call.
func TestResultsAfterACancelAreStoredTogether(t *testing.T) {
	h := newStoreHarness(t, modelserver.Turns(modelserver.Turn{Text: "Some questions and sums.", ToolCalls: []modelserver.ToolCall{
		{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)},
		{ID: "call_2", Name: ToolCalculator, Arguments: `{"expression":"1+1"}`},
		{ID: "call_3", Name: ToolCurrentTime, Arguments: `{}`},
	}}))
	_, err := h.rt.Start(StartRequest{ConversationID: h.conv, UserText: "Paint it"})
	require.NoError(t, err)
	card := h.waitCard(t)
	_, err = h.qm.Respond(context.Background(), h.conv, questions.Response{QuestionID: card.ID, Action: questions.ActionCancel})
	require.NoError(t, err)
	h.waitDone(t)
	assert.Len(t, h.server.Requests(), 1, "model calls after the cancel")
	stored, err := h.db.Store.Messages(context.Background(), h.conv)
	require.NoError(t, err)
	require.Len(t, stored, 5, "stored history %+v", stored)
	assert.Equal(t, []string{"call_1", "call_2", "call_3"}, []string{stored[2].ToolCallID, stored[3].ToolCallID, stored[4].ToolCallID})
	assert.Equal(t, questions.OutcomeFor(&questions.Card{Status: questions.StatusCancelled}).Result, stored[2].Content, "the card's result")
	assert.Equal(t, cancelledToolResult, stored[3].Content, "a call after the cancel")
	assert.Equal(t, cancelledToolResult, stored[4].Content, "a call after the cancel")
	h.db.mu.Lock()
	defer h.db.mu.Unlock()
	// The user's turn, the assistant's message, then the three results at once.
	assert.Equal(t, []int{1, 1, 3}, h.db.batches, "appends")
}

// A run the user had cancelled before a crash is ended with all its
// missing results stored in one transaction.
func TestEndCancelledRunStoresTheResultsTogether(t *testing.T) {
	h := newStoreHarness(t, modelserver.Turns())
	h.rt.opt.Cards = h.db.CardsByConversation
	ctx := context.Background()
	run := chat.Run{ID: "run-1", ConversationID: h.conv, Status: chat.RunAwaiting, StartedAt: time.Now().UTC()}
	require.NoError(t, h.db.SaveRun(ctx, &run))
	require.NoError(t, h.db.AppendMessage(ctx, &chat.Message{ConversationID: h.conv, RunID: run.ID, Role: chat.RoleUser, Content: "Paint it"}))
	require.NoError(t, h.db.AppendMessage(ctx, &chat.Message{ConversationID: h.conv, RunID: run.ID, Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
		{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)},
		{ID: "call_2", Name: ToolCalculator, Arguments: `{"expression":"1+1"}`},
		{ID: "call_3", Name: ToolCurrentTime, Arguments: `{}`},
	}}))
	qs, err := questions.ParseInput([]byte(askArgs(colourQuestion)))
	require.NoError(t, err)
	card := &questions.Card{ID: "card-1", ConversationID: h.conv, RunID: run.ID, ToolCallID: "call_1", Kind: questions.KindQuestion,
		Status: questions.StatusCancelled, Questions: qs, CreatedAt: time.Now().UTC()}
	require.NoError(t, h.db.SaveCard(ctx, card))
	h.db.mu.Lock()
	h.db.batches = nil
	h.db.mu.Unlock()

	ended, err := h.rt.EndCancelledRun(ctx, run)
	require.NoError(t, err)
	require.True(t, ended, "the cancelled run was not ended")
	stored, err := h.db.Store.Messages(ctx, h.conv)
	require.NoError(t, err)
	require.Len(t, stored, 5, "stored history %+v", stored)
	assert.Equal(t, questions.OutcomeFor(card).Result, stored[2].Content, "the card's result")
	assert.Equal(t, []string{cancelledToolResult, cancelledToolResult}, []string{stored[3].Content, stored[4].Content}, "the calls after it")
	h.db.mu.Lock()
	defer h.db.mu.Unlock()
	assert.Equal(t, []int{3}, h.db.batches, "appends")
}

// A run that goes on after its card was answered stores its running status
// with the answer's tool result, in one commit (and a run stores its start
// with the user's turn): one write less between Submit and the next model
// request. Until then the store has the run awaiting with its card answered,
// which a restart continues with that answer.
func TestRunStatusIsStoredWithTheAnswersResult(t *testing.T) {
	h := newStoreHarness(t, func(req modelserver.ChatRequest) modelserver.Turn {
		if req.LastMessage().Role == "tool" {
			return modelserver.Turn{Text: "Blue it is."}
		}
		return modelserver.Turn{Text: "One question.", ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}}
	})
	runID, err := h.rt.Start(StartRequest{ConversationID: h.conv, UserText: "Paint it"})
	require.NoError(t, err)
	card := h.waitCard(t)
	h.answerBlue(t, card)
	h.waitDone(t)
	h.db.mu.Lock()
	saves := slices.Clone(h.db.runSaves)
	h.db.mu.Unlock()
	assert.Equal(t, []string{chat.RunRunning + "+1", chat.RunAwaiting, chat.RunRunning + "+1", chat.RunCompleted}, saves, "run saves")
	run, err := h.db.Run(context.Background(), runID)
	require.NoError(t, err)
	assert.Equal(t, chat.RunCompleted, run.Status, "stored run")
	stored, err := h.db.Store.Messages(context.Background(), h.conv)
	require.NoError(t, err)
	assert.Equal(t, []string{"user", "assistant", "tool", "assistant"},
		[]string{stored[0].Role, stored[1].Role, stored[2].Role, stored[3].Role}, "stored history")
}

// The count of an answered card is written once the step that follows it
// has ended, not between the answer and the next model request, and
// before the run's end is announced (whoever sees it idle finds the count).
func TestAnswerStatsAreWrittenAfterTheNextRequest(t *testing.T) {
	var mu sync.Mutex
	var journal []string
	note := func(s string) {
		mu.Lock()
		journal = append(journal, s)
		mu.Unlock()
	}
	requests := 0
	var h *storeHarness
	h = newStoreHarness(t, func(req modelserver.ChatRequest) modelserver.Turn {
		mu.Lock()
		requests++
		n := requests
		mu.Unlock()
		note(fmt.Sprintf("request %d", n))
		if req.LastMessage().Role == "tool" {
			return modelserver.Turn{Text: "Blue it is."}
		}
		return modelserver.Turn{Text: "One question.", ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}}
	}, func(o *Options) {
		o.Stats = func(model string, d StatDelta) {
			switch {
			case d.CardsAsked > 0:
				note("stats asked")
			case d.Answered > 0:
				note("stats answered")
			}
		}
		rec := o.Events
		o.Events = events.EmitterFunc(func(name string, payload any) {
			if s, ok := payload.(StateInfo); ok && name == events.ConversationState && s.State == chat.StateIdle {
				note("idle")
			}
			rec.Emit(name, payload)
		})
	})
	_, err := h.rt.Start(StartRequest{ConversationID: h.conv, UserText: "Paint it"})
	require.NoError(t, err)
	card := h.waitCard(t)
	h.answerBlue(t, card)
	h.waitDone(t)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"request 1", "stats asked", "request 2", "stats answered", "idle"}, journal)
}

// A history with large attachments is not kept between model calls (a run
// may wait hours on a card): it is read again for each call.
func TestLoopDoesNotKeepAHistoryWithLargeAttachments(t *testing.T) {
	defer func(n int) { maxKeptAttachmentBytes = n }(maxKeptAttachmentBytes)
	maxKeptAttachmentBytes = 64
	calc := modelserver.ToolCall{ID: "call_1", Name: ToolCalculator, Arguments: `{"expression":"6*7"}`}
	h := newStoreHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{calc}},
		modelserver.Turn{Text: "42."},
	))
	notes := chat.Attachment{Name: "notes.txt", MIMEType: "text/plain", Data: []byte(strings.Repeat("a line of notes\n", 8))}
	_, err := h.rt.Start(StartRequest{ConversationID: h.conv, UserText: "Compute", UserAttachments: []chat.Attachment{notes}})
	require.NoError(t, err)
	h.waitDone(t)
	require.Len(t, h.server.Requests(), 2, "model calls")
	// At the start (tool calls left by a crash?) and for each model call.
	assert.Equal(t, int32(3), h.db.reads.Load(), "full history reads")
	assert.Contains(t, fmt.Sprint(roles(h.server.Requests()[1].Messages)), "a line of notes", "the attachment reaches the second call")
}
