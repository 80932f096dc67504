package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/engine/sidecar"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

func TestMain(m *testing.M) {
	if os.Getenv(engineChildEnv) == "1" {
		// Run again by a test of the built-in engine: be the engine (with
		// the context a test asks for: a fixture's prompt is a token a
		// byte, so a template that writes the tools at length needs more
		// than the default 8192).
		args := os.Args[1:]
		if n := os.Getenv(engineContextEnv); n != "" {
			args = append(args, "--context", n)
		}
		os.Exit(sidecar.Main(args, os.Stdin, os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("database/sql.(*DB).connectionOpener"))
}

type env struct {
	t      *testing.T
	dbPath string
	model  *modelserver.Server
	cfg    config.Config
	db     *store.Store
	svc    *Service
	rec    *events.Recorder
	// mcpPath is the MCP servers' file ("" = none, in memory).
	mcpPath string
}

func newEnv(t *testing.T, script modelserver.Script, timeout time.Duration) *env {
	t.Helper()
	e := &env{t: t, dbPath: filepath.Join(t.TempDir(), "parley.db"), model: modelserver.New(script)}
	t.Cleanup(e.model.Close)
	e.cfg = config.Config{BaseURL: e.model.URL(), Model: "scripted", QuestionTimeout: timeout,
		Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
	e.open()
	t.Cleanup(e.close)
	return e
}

func (e *env) open() {
	e.t.Helper()
	db, err := store.Open(e.dbPath)
	require.NoError(e.t, err)
	e.db = db
	e.rec = events.NewRecorder()
	svc, err := New(context.Background(), Options{Store: db, Events: e.rec, Config: e.cfg, Version: "test",
		MCPConfigPath: e.mcpPath, MCPOptions: fastMCP})
	require.NoError(e.t, err)
	e.svc = svc
	// Tests ask several cards quickly.
	st := svc.GetSettings()
	st.RateLimitSeconds = 0
	_, err = svc.SaveSettings(context.Background(), st)
	require.NoError(e.t, err)
}

func (e *env) close() {
	if e.svc != nil {
		e.svc.Close()
		e.db.Close()
		e.svc, e.db = nil, nil
	}
}

func (e *env) waitState(id string, want ...string) *api.ConversationDetail {
	e.t.Helper()
	deadline := time.Now().Add(time.Minute) // bounds a broken run only
	for time.Now().Before(deadline) {
		active := e.svc.rt.Active(id)
		d, err := e.svc.GetConversation(context.Background(), id)
		require.NoError(e.t, err)
		for _, w := range want {
			if d.State == w && (w == chat.StateAwaitingUserResponse || !active) {
				return d
			}
		}
		select {
		case <-e.rec.Changed():
		case <-time.After(20 * time.Millisecond):
		}
	}
	require.Failf(e.t, "state not reached", "conversation %s never reached %v", id, want)
	return nil
}

const colourCard = `{"questions":[{"question":"Which colour?","options":["Red","Blue"]}]}`

func askThenAnswer() modelserver.Script {
	return func(req modelserver.ChatRequest) modelserver.Turn {
		if last := req.LastMessage(); last.Role == "tool" {
			return modelserver.Turn{Text: "You said: " + last.Content}
		}
		return modelserver.Turn{Text: "One question first.", ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: "ask_user_question", Arguments: colourCard}}}
	}
}

func TestMessageCardAnswerAndTitle(t *testing.T) {
	e := newEnv(t, askThenAnswer(), time.Minute)
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "  "})
	require.Error(t, err, "empty message accepted")
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Paint my bedroom please"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateAwaitingUserResponse)
	require.NotNil(t, d.PendingQuestion, "detail %+v", d)
	require.Equal(t, "Paint my bedroom please", d.Title, "detail %+v", d)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "again"})
	require.Equal(t, ErrRunActive, err, "second send: %v", err)
	_, err = e.svc.Respond(ctx, "other-conversation", questions.Response{QuestionID: d.PendingQuestion.ID, Action: questions.ActionSubmit})
	require.Error(t, err, "respond through another conversation accepted")
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Green"}}}})
	require.Error(t, err, "spoofed label accepted")
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	last := d.Messages[len(d.Messages)-1]
	require.Equal(t, "assistant", last.Role, "last message %+v; state %s %q; %d requests; events %v", last, d.State, d.Error, len(e.model.Requests()), e.rec.Names())
	require.Equal(t, `You said: {"answers":{"Which colour?":"Blue"}}`, last.Content, "last message %+v; state %s %q; %d requests; events %v", last, d.State, d.Error, len(e.model.Requests()), e.rec.Names())
	cards, err := e.svc.ConversationQuestions(ctx, c.ID)
	require.NoError(t, err, "cards %+v %v", cards, err)
	require.Len(t, cards, 1, "cards %+v %v", cards, err)
	require.Equal(t, questions.StatusAnswered, cards[0].Status, "cards %+v %v", cards, err)
	require.Equal(t, "Blue", cards[0].Answers["Which colour?"], "cards %+v %v", cards, err)
}

func TestPendingCardSurvivesRestartAndRunContinues(t *testing.T) {
	e := newEnv(t, askThenAnswer(), time.Minute)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Restart", "")
	_, err := e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
	require.NoError(t, err)
	card := e.waitState(c.ID, chat.StateAwaitingUserResponse).PendingQuestion
	e.close() // the app quits with the card pending

	e.open()
	pending := e.svc.PendingQuestions()
	require.Len(t, pending, 1, "pending after restart %+v", pending)
	require.Equal(t, card.ID, pending[0].ID, "pending after restart %+v", pending)
	d := e.waitState(c.ID, chat.StateAwaitingUserResponse)
	require.NotNil(t, d.PendingQuestion, "detail after restart %+v", d)
	require.Equal(t, card.ID, d.PendingQuestion.ID, "detail after restart %+v", d)
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	last := d.Messages[len(d.Messages)-1]
	require.Contains(t, last.Content, `"Which colour?":"Red"`, "run did not continue: %+v", d.Messages)
	n := len(e.model.Requests())
	require.Equal(t, 2, n, "%d model requests, want 2 (no repeated question)", n)
}

func TestLateAnswerStartsLinkedRun(t *testing.T) {
	e := newEnv(t, askThenAnswer(), 30*time.Millisecond)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Late", "")
	_, err := e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateIdle)
	require.Contains(t, d.Messages[len(d.Messages)-1].Content, "timed out", "no timeout reply: %+v", d.Messages)
	card, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}})
	require.NoError(t, err, "late answer %+v %v", card, err)
	require.Equal(t, questions.StatusAnsweredLate, card.Status, "late answer %+v %v", card, err)
	deadline := time.Now().Add(10 * time.Second)
	for len(e.model.Requests()) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	d = e.waitState(c.ID, chat.StateIdle)
	var lateTurn *chat.Message
	for i := range d.Messages {
		if d.Messages[i].Role == "user" && strings.Contains(d.Messages[i].Content, "Q: Which colour?\nA: Red") {
			lateTurn = &d.Messages[i]
		}
	}
	require.NotNil(t, lateTurn, "no late-answer turn: %+v", d.Messages)
	run, err := e.db.Run(ctx, lateTurn.RunID)
	require.NoError(t, err, "run %+v %v, want resumed_from %s", run, err, card.RunID)
	require.Equal(t, card.RunID, run.ResumedFrom, "run %+v %v, want resumed_from %s", run, err, card.RunID)
}

func TestCancelStopsRunAndCancelsCard(t *testing.T) {
	e := newEnv(t, askThenAnswer(), time.Minute)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Cancel", "")
	_, _ = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
	card := e.waitState(c.ID, chat.StateAwaitingUserResponse).PendingQuestion
	require.NoError(t, e.svc.Cancel(ctx, c.ID))
	d := e.waitState(c.ID, chat.StateIdle)
	require.Nil(t, d.PendingQuestion, "card still pending")
	stored, err := e.db.Card(ctx, card.ID)
	require.NoError(t, err, "stored card %+v %v", stored, err)
	require.Equal(t, questions.StatusCancelled, stored.Status, "stored card %+v %v", stored, err)
	last := d.Messages[len(d.Messages)-1]
	require.Equal(t, questions.CancelledResult, last.Content, "last message %+v", last)
}

func TestSettingsValidationAndDemoMode(t *testing.T) {
	e := newEnv(t, askThenAnswer(), time.Minute)
	ctx := context.Background()
	st := e.svc.GetSettings()
	bad := st
	bad.Theme = "neon"
	_, err := e.svc.SaveSettings(ctx, bad)
	require.Error(t, err, "bad theme accepted")
	bad = st
	bad.BaseURL = "ftp://x"
	_, err = e.svc.SaveSettings(ctx, bad)
	require.Error(t, err, "bad URL accepted")
	status := e.svc.CheckModelServer(ctx)
	require.True(t, status.Reachable, "model status %+v", status)
	require.NotEmpty(t, status.Models, "model status %+v", status)
	require.True(t, status.Models[0].SupportsTools, "model status %+v", status)
	st.DemoMode = true
	_, err = e.svc.SaveSettings(ctx, st)
	require.NoError(t, err)
	c, _ := e.svc.CreateConversation(ctx, "Demo", "")
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Write me a poem"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateAwaitingUserResponse)
	require.NotNil(t, d.PendingQuestion, "demo card %+v", d.PendingQuestion)
	require.Len(t, d.PendingQuestion.Questions, 2, "demo card %+v", d.PendingQuestion)
	n := len(e.model.Requests())
	require.Equal(t, 0, n, "demo mode used the configured server (%d requests)", n)
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionDecline})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	require.Contains(t, d.Messages[len(d.Messages)-1].Content, "sensible defaults", "demo reply %+v", d.Messages[len(d.Messages)-1])
}

func TestProfilesExportAndImport(t *testing.T) {
	e := newEnv(t, modelserver.Turns(modelserver.Turn{Text: "Plain **answer**."}), time.Minute)
	ctx := context.Background()
	_, err := e.svc.SaveProfile(ctx, assistant.Profile{Name: "bad/name"})
	require.Error(t, err, "bad profile name accepted")
	_, err = e.svc.SaveProfile(ctx, assistant.Profile{Name: "writer", Tools: []string{"rm_rf"}})
	require.Error(t, err, "unknown tool accepted")
	_, err = e.svc.SaveProfile(ctx, assistant.Profile{Name: "writer", SystemPrompt: "You write haiku.", Tools: []string{"calculator"}})
	require.NoError(t, err)
	ps, err := e.svc.Profiles(ctx)
	require.NoError(t, err, "profiles %+v %v", ps, err)
	require.Len(t, ps, 2, "profiles %+v %v", ps, err)
	require.Equal(t, "default", ps[0].Name, "profiles %+v %v", ps, err)
	require.Equal(t, "writer", ps[1].Name, "profiles %+v %v", ps, err)
	c, err := e.svc.CreateConversation(ctx, "", "writer")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "a poem"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)
	req := e.model.Requests()[0]
	require.Equal(t, "You write haiku.", req.Messages[0].Content, "the writer profile was not used: %+v", req)
	require.Len(t, req.Tools, 1, "the writer profile was not used: %+v", req)
	require.Equal(t, "calculator", req.Tools[0].Function.Name, "the writer profile was not used: %+v", req)
	md, err := e.svc.ExportConversation(ctx, c.ID, "markdown")
	require.NoError(t, err, "markdown export %q %v", md, err)
	require.Contains(t, md, "a poem", "markdown export %q %v", md, err)
	require.Contains(t, md, "Plain **answer**.", "markdown export %q %v", md, err)
	js, err := e.svc.ExportConversation(ctx, c.ID, "json")
	require.NoError(t, err)
	imported, err := e.svc.ImportConversation(ctx, []byte(js))
	require.NoError(t, err, "import %+v %v", imported, err)
	require.NotEqual(t, c.ID, imported.ID, "import %+v %v", imported, err)
	d, err := e.svc.GetConversation(ctx, imported.ID)
	require.NoError(t, err, "imported conversation %+v %v", d, err)
	require.Len(t, d.Messages, 2, "imported conversation %+v %v", d, err)
	_, err = e.svc.ImportConversation(ctx, []byte(`{"format":"nope"}`))
	require.Error(t, err, "bad import accepted")
	require.Equal(t, fault.Input, fault.KindOf(err), "bad import error %T %v, want a fault.Input", err, err)
}

func TestPicksAnInstalledToolModelWhenNoneIsSet(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: "hi"}), modelserver.WithModels([]string{"tiny:1b", "qwen3:8b"}, "tiny:1b"))
	defer srv.Close()
	db, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	require.NoError(t, err)
	defer db.Close()
	svc, err := New(context.Background(), Options{Store: db, Config: config.Config{BaseURL: srv.URL(), Set: map[string]bool{"base-url": true}}})
	require.NoError(t, err)
	defer svc.Close()
	ctx := context.Background()
	c, _ := svc.CreateConversation(ctx, "", "")
	_, err = svc.Send(ctx, c.ID, api.SendRequest{Content: "hello"})
	require.NoError(t, err)
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for svc.rt.Active(c.ID) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 1, "requests %+v, want one to qwen3:8b (the installed model with tools)", reqs)
	require.Equal(t, "qwen3:8b", reqs[0].Model, "requests %+v, want one to qwen3:8b (the installed model with tools)", reqs)
}

// crashAfterAnswer asks a card, stops the app, stores the answer as a
// process that died right after it would have (run left as runStatus) and
// starts the app again.
func crashAfterAnswer(t *testing.T, runStatus string) (*env, *chat.Conversation) {
	t.Helper()
	e := newEnv(t, askThenAnswer(), time.Minute)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Crash", "")
	_, err := e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
	require.NoError(t, err)
	card := e.waitState(c.ID, chat.StateAwaitingUserResponse).PendingQuestion
	e.close()
	answerInStore(t, e, card.ID, runStatus)
	e.open()
	return e, c
}

// answerInStore plays a process that stored the user's answer and died
// before the run stored the tool result: the card is answered in the
// database, the run's status is left as runStatus, nothing else changes.
func answerInStore(t *testing.T, e *env, cardID, runStatus string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(e.dbPath)
	require.NoError(t, err)
	defer db.Close()
	c, err := db.Card(ctx, cardID)
	require.NoError(t, err)
	now := time.Now().UTC()
	c.Status, c.Answers, c.AnsweredAt = questions.StatusAnswered, map[string]string{"Which colour?": "Red"}, &now
	require.NoError(t, db.SaveCard(ctx, c))
	run, err := db.Run(ctx, c.RunID)
	require.NoError(t, err)
	run.Status = runStatus
	require.NoError(t, db.SaveRun(ctx, run))
}

// The answer was stored while the run awaited it, then the process died:
// after the restart the run goes on with that answer, without asking again.
func TestAnswerGivenBeforeCrashReachesTheModel(t *testing.T) {
	e, c := crashAfterAnswer(t, chat.RunAwaiting)
	ctx := context.Background()
	d := e.waitState(c.ID, chat.StateIdle)
	last := d.Messages[len(d.Messages)-1]
	require.Equal(t, "assistant", last.Role, "the stored answer did not reach the model: %+v (state %s %q)", d.Messages, d.State, d.Error)
	require.Equal(t, `You said: {"answers":{"Which colour?":"Red"}}`, last.Content, "the stored answer did not reach the model: %+v (state %s %q)", d.Messages, d.State, d.Error)
	cards, err := e.svc.ConversationQuestions(ctx, c.ID)
	require.NoError(t, err, "cards after restart %+v %v (asked again?)", cards, err)
	require.Len(t, cards, 1, "cards after restart %+v %v (asked again?)", cards, err)
	n := len(e.model.Requests())
	require.Equal(t, 2, n, "%d model requests, want 2", n)
}

// The process died while the run was already going on with the answer:
// the run is interrupted, and Retry uses the stored answer.
func TestRetryAfterCrashUsesTheStoredAnswer(t *testing.T) {
	e, c := crashAfterAnswer(t, chat.RunRunning)
	ctx := context.Background()
	d := e.waitState(c.ID, chat.StateError)
	require.NotEqual(t, "", d.Error, "after restart: state %s %q, pending %v", d.State, d.Error, e.svc.PendingQuestions())
	require.Empty(t, e.svc.PendingQuestions(), "after restart: state %s %q, pending %v", d.State, d.Error, e.svc.PendingQuestions())
	_, err := e.svc.Retry(ctx, c.ID)
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	last := d.Messages[len(d.Messages)-1]
	require.Equal(t, `You said: {"answers":{"Which colour?":"Red"}}`, last.Content, "retry did not use the stored answer: %+v", d.Messages)
	cards, _ := e.svc.ConversationQuestions(ctx, c.ID)
	require.Len(t, cards, 1, "the card was asked again: %+v", cards)
}

// Closing the app while the model is answering leaves the run interrupted,
// so the next start offers a retry instead of a silent, unanswered turn.
func TestCloseDuringRequestLeavesRunInterrupted(t *testing.T) {
	slow := func(req modelserver.ChatRequest) modelserver.Turn {
		return modelserver.Turn{Text: "late", FirstTokenDelay: time.Minute}
	}
	e := newEnv(t, slow, time.Minute)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Slow", "")
	_, err := e.svc.Send(ctx, c.ID, api.SendRequest{Content: "hello"})
	require.NoError(t, err)
	deadline := time.Now().Add(10 * time.Second)
	for len(e.model.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	e.close()
	e.open()
	d := e.waitState(c.ID, chat.StateError)
	require.NotEqual(t, "", d.Error, "state %s without an error message", d.State)
	_, err = e.svc.Retry(ctx, c.ID)
	require.NoError(t, err, "retry")
}

// A late answer stored just before the process died still becomes the
// linked user turn after the restart, once.
func TestLateAnswerStoredBeforeCrashIsDeliveredOnce(t *testing.T) {
	e := newEnv(t, askThenAnswer(), 30*time.Millisecond)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Late crash", "")
	_, err := e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)
	cards, err := e.svc.ConversationQuestions(ctx, c.ID)
	require.NoError(t, err, "cards %+v %v", cards, err)
	require.Len(t, cards, 1, "cards %+v %v", cards, err)
	require.Equal(t, questions.StatusTimedOut, cards[0].Status, "cards %+v %v", cards, err)
	e.close()
	db, err := store.Open(e.dbPath)
	require.NoError(t, err)
	card := cards[0]
	now := time.Now().UTC()
	card.Status, card.Answers, card.AnsweredAt = questions.StatusAnsweredLate, map[string]string{"Which colour?": "Blue"}, &now
	require.NoError(t, db.SaveCard(ctx, card))
	db.Close()

	lateTurns := func() int {
		d := e.waitState(c.ID, chat.StateIdle)
		n := 0
		for _, m := range d.Messages {
			if m.Role == chat.RoleUser && strings.Contains(m.Content, "Q: Which colour?\nA: Blue") {
				n++
			}
		}
		return n
	}
	e.open()
	deadline := time.Now().Add(10 * time.Second)
	for len(e.model.Requests()) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	n := lateTurns()
	require.Equal(t, 1, n, "%d late-answer turns after the restart, want 1", n)
	e.close()
	e.open()
	n = lateTurns()
	require.Equal(t, 1, n, "%d late-answer turns after a second restart, want 1", n)
}

// Switching a conversation's assistant: the next run uses the new profile;
// an unknown profile is refused and nothing changes.
func TestSetAssistantSwitchesTheNextRun(t *testing.T) {
	e := newEnv(t, modelserver.Turns(modelserver.Turn{Text: "one"}, modelserver.Turn{Text: "two"}), time.Minute)
	ctx := context.Background()
	_, err := e.svc.SaveProfile(ctx, assistant.Profile{Name: "writer", SystemPrompt: "You write haiku.", Tools: []string{"calculator"}})
	require.NoError(t, err)
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	require.Error(t, e.svc.SetAssistant(ctx, c.ID, "nobody"), "unknown assistant accepted")
	require.Error(t, e.svc.SetAssistant(ctx, "missing", "writer"), "assistant set on a missing conversation")
	d, _ := e.svc.GetConversation(ctx, c.ID)
	require.Equal(t, "default", d.Assistant, "assistant changed by a refused call: %q", d.Assistant)
	require.NoError(t, e.svc.SetAssistant(ctx, c.ID, "writer"))
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "a poem"})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	require.Equal(t, "writer", d.Assistant, "assistant %q after the switch", d.Assistant)
	req := e.model.Requests()[0]
	require.Equal(t, "You write haiku.", req.Messages[0].Content, "the new profile was not used: %+v", req.Messages)
}

// The chat header's model picker: the conversation's chosen model answers
// its next runs (send, retry, regenerate), other conversations keep the
// default, regenerate with a model still wins, and "" goes back.
func TestSetModelChoosesTheConversationsModel(t *testing.T) {
	e := newEnv(t, modelserver.Turns(modelserver.Turn{Text: "one"}, modelserver.Turn{Text: "two"},
		modelserver.Turn{Text: "three"}, modelserver.Turn{Text: "four"}, modelserver.Turn{Text: "five"}), time.Minute)
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	other, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	require.Error(t, e.svc.SetModel(ctx, "missing", "llava"), "model set on a missing conversation")
	require.Error(t, e.svc.SetModel(ctx, c.ID, strings.Repeat("m", 201)), "an overlong model name accepted")
	d, err := e.svc.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	require.Empty(t, d.Model, "a refused call changed the model")

	require.NoError(t, e.svc.SetModel(ctx, c.ID, "  llava  "))
	d, err = e.svc.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, "llava", d.Model)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "hello"})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	_, err = e.svc.Send(ctx, other.ID, api.SendRequest{Content: "hello"})
	require.NoError(t, err)
	e.waitState(other.ID, chat.StateIdle)
	reply := d.Messages[len(d.Messages)-1]
	_, err = e.svc.Regenerate(ctx, c.ID, reply.ID, "")
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)
	_, err = e.svc.Regenerate(ctx, c.ID, reply.ID, "qwen3")
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)
	require.NoError(t, e.svc.SetModel(ctx, c.ID, ""))
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "again"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)

	var models []string
	for _, r := range e.model.Requests() {
		models = append(models, r.Model)
	}
	assert.Equal(t, []string{"llava", "scripted", "llava", "qwen3", "scripted"}, models)
}
