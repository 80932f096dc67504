package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/agent"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// MaxMessageChars bounds one user message.
const MaxMessageChars = 100_000

const settingsKey = "settings"

// Options wire a Service.
type Options struct {
	Store   *store.Store
	Events  events.Emitter
	Config  config.Config // the command line: overrides saved settings
	Version string
	Logger  *slog.Logger
	// Clock for the QuestionManager; nil = real time.
	Clock questions.Clock
	// OnSettingsChanged is called after settings were saved (e.g. to turn
	// the desktop app's local API on or off).
	OnSettingsChanged func(Settings)
}

// Service is the domain façade behind the Wails bindings and the HTTP API.
type Service struct {
	opt   Options
	store *store.Store
	ev    events.Emitter
	qm    *questions.Manager
	rt    *agent.Runtime
	log   *slog.Logger

	mu       sync.Mutex
	settings Settings // effective: saved + overrides
	demo     *demoServer
}

// New opens the services and restores what a previous session left:
// interrupted runs are marked, pending cards come back with their timers.
func New(ctx context.Context, opt Options) (*Service, error) {
	if opt.Events == nil {
		opt.Events = events.Discard
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	s := &Service{opt: opt, store: opt.Store, ev: opt.Events, log: opt.Logger}
	saved := DefaultSettings()
	if _, err := s.store.GetSetting(ctx, settingsKey, &saved); err != nil {
		return nil, fmt.Errorf("load settings: %w", err)
	}
	s.settings = applyOverrides(saved, opt.Config)

	qcfg := s.questionConfig()
	qcfg.OnLateAnswer = s.onLateAnswer
	s.qm = questions.NewManager(qcfg, s.store, s.ev)
	s.rt = agent.New(agent.Options{
		History: s.store,
		Events:  s.ev,
		Asker:   s.qm,
		Cards:   s.store.CardsByConversation,
		Model:   s.model,
		Profile: s.profile,
		Tools:   agent.BuiltinTools(nil),
		Logger:  s.log,
	})
	if err := s.recover(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops every run (pending cards stay pending in storage).
func (s *Service) Close() {
	// The manager first: waiting runs then stop without resolving their
	// cards, which stay pending for the next start.
	s.qm.Close()
	s.rt.Close()
	s.mu.Lock()
	if s.demo != nil {
		s.demo.close()
		s.demo = nil
	}
	s.mu.Unlock()
}

// Questions returns the QuestionManager (for tests and wiring).
func (s *Service) Manager() *questions.Manager { return s.qm }

func (s *Service) questionConfig() questions.Config {
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	cfg := questions.DefaultConfig()
	cfg.Timeout = time.Duration(st.QuestionTimeoutSeconds) * time.Second
	if s.opt.Config.Set["question-timeout"] {
		cfg.Timeout = s.opt.Config.QuestionTimeout
	}
	cfg.RateInterval = time.Duration(st.RateLimitSeconds * float64(time.Second))
	cfg.MaxPending = st.MaxPendingQuestions
	cfg.Clock = s.opt.Clock
	cfg.Logger = s.log
	return cfg
}

func (s *Service) recover(ctx context.Context) error {
	if err := s.endCancelledRuns(ctx); err != nil {
		return err
	}
	if n, err := s.store.MarkInterruptedRuns(ctx); err != nil {
		return fmt.Errorf("mark interrupted runs: %w", err)
	} else if n > 0 {
		s.log.Info("runs interrupted by the last shutdown", "count", n)
	}
	cards, err := s.store.CardsByStatus(ctx, questions.StatusPending, questions.StatusTimedOut)
	if err != nil {
		return fmt.Errorf("load pending questions: %w", err)
	}
	if err := s.qm.Restore(cards); err != nil {
		return fmt.Errorf("restore pending questions: %w", err)
	}
	resumed := map[string]bool{} // conversation ids
	for _, c := range cards {
		if c.Status != questions.StatusPending {
			continue
		}
		conv, err := s.store.GetConversation(ctx, c.ConversationID)
		if err != nil {
			s.log.Warn("pending question without conversation", "question", c.ID, "err", err)
			continue
		}
		if _, err := s.rt.Start(agent.StartRequest{ConversationID: c.ConversationID, Profile: conv.Assistant, AwaitCard: c}); err != nil {
			s.log.Warn("resume run for pending question", "question", c.ID, "err", err)
			continue
		}
		resumed[c.ConversationID] = true
	}
	if err := s.continueAnsweredRuns(ctx, resumed); err != nil {
		return err
	}
	return s.redeliverLateAnswers(ctx)
}

// endCancelledRuns ends the runs the user had stopped by cancelling a card
// when the last process died before they ended: a stored cancel is honoured
// (the conversation goes idle), never turned into an interrupted run that
// offers a retry, nor continued.
func (s *Service) endCancelledRuns(ctx context.Context) error {
	runs, err := s.store.UnfinishedRuns(ctx)
	if err != nil {
		return fmt.Errorf("load unfinished runs: %w", err)
	}
	for _, run := range runs {
		ended, err := s.rt.EndCancelledRun(ctx, run)
		if err != nil {
			return fmt.Errorf("end cancelled run %s: %w", run.ID, err)
		}
		if ended {
			s.log.Info("run cancelled by the user before the last shutdown ended", "run", run.ID, "conversation", run.ConversationID)
		}
	}
	return nil
}

// redeliverLateAnswers posts late answers again whose user turn was never
// stored (the process died between storing the answer and the new run).
func (s *Service) redeliverLateAnswers(ctx context.Context) error {
	cards, err := s.store.CardsByStatus(ctx, questions.StatusAnsweredLate)
	if err != nil {
		return fmt.Errorf("load late answers: %w", err)
	}
	for _, c := range cards {
		msgs, err := s.store.Messages(ctx, c.ConversationID)
		if err != nil {
			return fmt.Errorf("load conversation %s: %w", c.ConversationID, err)
		}
		if !slices.ContainsFunc(msgs, func(m chat.Message) bool { return m.Role == chat.RoleUser && questions.IsLateAnswerTurn(c, m.Content) }) {
			s.log.Info("late answer delivered again after a restart", "question", c.ID)
			s.onLateAnswer(c)
		}
	}
	return nil
}

// continueAnsweredRuns goes on with runs that were awaiting the user when
// the last process died and whose card is no longer pending: the user had
// answered (or skipped, cancelled, or it timed out) just before, and the
// answer must still reach the model. The run continues under its own id
// and takes the outcome from the stored card; one with nothing left to do is
// marked interrupted, which offers a retry.
func (s *Service) continueAnsweredRuns(ctx context.Context, resumed map[string]bool) error {
	runs, err := s.store.RunsByStatus(ctx, chat.RunAwaiting)
	if err != nil {
		return fmt.Errorf("load runs awaiting the user: %w", err)
	}
	for _, run := range runs {
		if resumed[run.ConversationID] {
			continue
		}
		conv, err := s.store.GetConversation(ctx, run.ConversationID)
		if err == nil {
			err = s.rt.Resume(ctx, run.ConversationID, run.ID, conv.Assistant)
		}
		if err == nil {
			resumed[run.ConversationID] = true
			s.log.Info("run continued with an answer given before the restart", "run", run.ID, "conversation", run.ConversationID)
			continue
		}
		s.log.Warn("run awaiting the user cannot continue", "run", run.ID, "conversation", run.ConversationID, "err", err)
		run.Status = chat.RunInterrupted
		if run.EndedAt == nil {
			now := time.Now().UTC()
			run.EndedAt = &now
		}
		if err := s.store.SaveRun(ctx, &run); err != nil {
			return fmt.Errorf("mark run %s interrupted: %w", run.ID, err)
		}
	}
	return nil
}

// model returns the chat model for a profile's model name.
func (s *Service) model(name string) (llm.Model, error) {
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	if name == "" {
		name = st.Model
	}
	base := st.BaseURL
	if st.DemoMode {
		d, err := s.demoServer()
		if err != nil {
			return nil, err
		}
		base, name = d.url, "parley-demo"
	}
	if name == "" {
		picked, err := s.pickInstalledModel(base, st.APIKey)
		if err != nil {
			return nil, err
		}
		name = picked
	}
	return llm.NewOpenAI(llm.Config{BaseURL: base, Model: name, APIKey: st.APIKey})
}

// pickInstalledModel chooses a model when none is set: the first installed
// model that supports tools, else the first one. When the server cannot be
// asked, that is the error to show (not that no model is chosen).
func (s *Service) pickInstalledModel(base, apiKey string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	server, err := llm.ListModels(ctx, base, apiKey)
	var le *llm.Error
	switch {
	case errors.As(err, &le) && le.Kind == llm.KindUnreachable:
		return "", err
	case err != nil:
		s.log.Warn("list models to pick one", "base_url", base, "err", err)
		return "", &llm.Error{Kind: llm.KindModelNotFound, Err: err, Message: "No model is chosen yet, and Parley could not ask the model server for its models. Pick a model in Settings, or try the demo mode."}
	case len(server.Models) == 0:
		return "", &llm.Error{Kind: llm.KindModelNotFound, Message: fmt.Sprintf(
			"The model server at %s has no models yet. Download one in Settings (with Ollama, qwen3 is a good start) or load one in your server, or try the demo mode.", base)}
	}
	for _, m := range server.Models {
		if m.SupportsTools {
			return m.Name, nil
		}
	}
	return server.Models[0].Name, nil
}

func (s *Service) profile(name string) agent.Profile {
	if name == "" || name == agent.DefaultProfileName {
		if p, err := s.store.Profile(context.Background(), agent.DefaultProfileName); err == nil {
			return fromStoreProfile(*p)
		}
		return agent.DefaultProfile()
	}
	p, err := s.store.Profile(context.Background(), name)
	if err != nil {
		s.log.Warn("unknown assistant profile, using the default", "profile", name, "err", err)
		return agent.DefaultProfile()
	}
	return fromStoreProfile(*p)
}

func fromStoreProfile(p store.Profile) agent.Profile {
	return agent.Profile{Name: p.Name, SystemPrompt: p.SystemPrompt, Model: p.Model, Tools: p.Tools}
}

// ---- conversations ----

// ListConversations returns one page, pinned first then newest.
func (s *Service) ListConversations(ctx context.Context, limit int, cursor, query string) (ConversationPage, error) {
	items, next, err := s.store.ListConversations(ctx, store.ListOptions{Limit: limit, Cursor: cursor, Query: query})
	if err != nil {
		return ConversationPage{}, err
	}
	return ConversationPage{Items: items, NextCursor: next}, nil
}

// CreateConversation starts an empty conversation.
func (s *Service) CreateConversation(ctx context.Context, title, assistant string) (*chat.Conversation, error) {
	title = strings.TrimSpace(title)
	if utf8.RuneCountInString(title) > 200 {
		return nil, inputErrorf("title must be at most 200 characters")
	}
	assistant, err := s.checkAssistant(ctx, assistant)
	if err != nil {
		return nil, err
	}
	return s.store.CreateConversation(ctx, title, assistant)
}

// checkAssistant returns the profile name to store ("" = the default) or an
// input error when no such profile exists.
func (s *Service) checkAssistant(ctx context.Context, assistant string) (string, error) {
	if assistant == "" || assistant == agent.DefaultProfileName {
		return agent.DefaultProfileName, nil
	}
	if _, err := s.store.Profile(ctx, assistant); err != nil {
		return "", inputErrorf(fmt.Sprintf("unknown assistant %q", assistant))
	}
	return assistant, nil
}

// GetConversation returns the conversation with messages and state.
func (s *Service) GetConversation(ctx context.Context, id string) (*ConversationDetail, error) {
	// State first: messages read after it are at least as new, so an idle
	// state never comes with a missing final answer.
	st := s.rt.State(id)
	active := s.rt.Active(id)
	c, err := s.store.GetConversation(ctx, id)
	if err != nil {
		return nil, err
	}
	msgs, err := s.store.Messages(ctx, id)
	if err != nil {
		return nil, err
	}
	d := &ConversationDetail{Conversation: *c, State: st.State, Error: st.Error, Messages: msgs}
	if card, ok := s.qm.LatestPending(id); ok && card.Status == questions.StatusPending {
		d.PendingQuestion = card
		d.State = chat.StateAwaitingUserResponse
	}
	if d.State == chat.StateIdle && !active {
		if run, err := s.store.LatestRun(ctx, id); err == nil && run.Status == chat.RunInterrupted {
			d.State = chat.StateError
			d.Error = "Parley was closed before the assistant finished. Retry to continue."
		}
	}
	return d, nil
}

// RenameConversation sets the title.
func (s *Service) RenameConversation(ctx context.Context, id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" || utf8.RuneCountInString(title) > 200 {
		return inputErrorf("title must be 1 to 200 characters")
	}
	if err := s.store.RenameConversation(ctx, id, title); err != nil {
		return err
	}
	s.ev.Emit(events.ConversationUpdated, events.TitleChanged(id, title))
	return nil
}

// SetPinned pins or unpins.
func (s *Service) SetPinned(ctx context.Context, id string, pinned bool) error {
	if err := s.store.SetPinned(ctx, id, pinned); err != nil {
		return err
	}
	s.ev.Emit(events.ConversationUpdated, events.PinnedChanged(id, pinned))
	return nil
}

// SetAssistant switches the conversation to another assistant profile; the
// next run uses it (a run already going on keeps the one it started with).
func (s *Service) SetAssistant(ctx context.Context, id, assistant string) error {
	assistant, err := s.checkAssistant(ctx, assistant)
	if err != nil {
		return err
	}
	if err := s.store.SetAssistant(ctx, id, assistant); err != nil {
		return err
	}
	s.ev.Emit(events.ConversationUpdated, events.AssistantChanged(id, assistant))
	return nil
}

// DeleteConversation stops its run, cancels its cards and deletes it.
func (s *Service) DeleteConversation(ctx context.Context, id string) error {
	if _, err := s.store.GetConversation(ctx, id); err != nil {
		return err
	}
	s.qm.CancelConversation(ctx, id)
	s.rt.Cancel(id)
	if err := s.store.DeleteConversation(ctx, id); err != nil {
		return err
	}
	s.rt.Forget(id)
	s.ev.Emit(events.ConversationDeleted, events.ConversationDeletedPayload{ConversationID: id})
	return nil
}

// SendMessage stores the user's message and starts a run.
func (s *Service) SendMessage(ctx context.Context, id, content string) (string, error) {
	content = strings.TrimSpace(content)
	if content == "" {
		return "", inputErrorf(`"content" must not be empty`)
	}
	if utf8.RuneCountInString(content) > MaxMessageChars {
		return "", inputErrorf(fmt.Sprintf("message is longer than %d characters", MaxMessageChars))
	}
	c, err := s.store.GetConversation(ctx, id)
	if err != nil {
		return "", err
	}
	if s.rt.Active(id) {
		return "", ErrRunActive
	}
	runID, err := s.rt.Start(agent.StartRequest{ConversationID: id, Profile: c.Assistant, UserText: content})
	if errors.Is(err, agent.ErrRunActive) {
		return "", ErrRunActive
	}
	if err != nil {
		return "", err
	}
	if c.Title == "" {
		title := store.AutoTitle(content)
		if err := s.store.RenameConversation(ctx, id, title); err == nil {
			s.ev.Emit(events.ConversationUpdated, events.TitleChanged(id, title))
		}
	}
	return runID, nil
}

// Retry runs the model again on the saved history (after an error or an
// interrupted run).
func (s *Service) Retry(ctx context.Context, id string) (string, error) {
	c, err := s.store.GetConversation(ctx, id)
	if err != nil {
		return "", err
	}
	runID, err := s.rt.Start(agent.StartRequest{ConversationID: id, Profile: c.Assistant})
	if errors.Is(err, agent.ErrRunActive) {
		return "", ErrRunActive
	}
	return runID, err
}

// Cancel stops the active run; a pending card is cancelled.
func (s *Service) Cancel(ctx context.Context, id string) error {
	if _, err := s.store.GetConversation(ctx, id); err != nil {
		return err
	}
	s.rt.Cancel(id)
	s.qm.CancelConversation(ctx, id)
	return nil
}

// ---- questions ----

// Respond answers, skips or cancels a card of the conversation.
func (s *Service) Respond(ctx context.Context, id string, r questions.Response) (*questions.Card, error) {
	if _, err := s.store.GetConversation(ctx, id); err != nil {
		return nil, fmt.Errorf("%w: %v", questions.ErrNotFound, err)
	}
	return s.qm.Respond(ctx, id, r)
}

// ConversationQuestions lists the conversation's cards, oldest first.
func (s *Service) ConversationQuestions(ctx context.Context, id string) ([]*questions.Card, error) {
	if _, err := s.store.GetConversation(ctx, id); err != nil {
		return nil, err
	}
	return s.store.CardsByConversation(ctx, id)
}

// Questions lists cards across conversations, optionally by status.
func (s *Service) Questions(ctx context.Context, status string) ([]*questions.Card, error) {
	if status == "" {
		return s.store.CardsByStatus(ctx)
	}
	var sts []questions.Status
	for _, st := range strings.Split(status, ",") {
		switch questions.Status(st) {
		case questions.StatusPending, questions.StatusAnswered, questions.StatusDeclined, questions.StatusCancelled,
			questions.StatusTimedOut, questions.StatusAnsweredLate, questions.StatusSuperseded:
			sts = append(sts, questions.Status(st))
		default:
			return nil, inputErrorf(fmt.Sprintf("unknown status %q", st))
		}
	}
	return s.store.CardsByStatus(ctx, sts...)
}

// PendingQuestions lists pending cards of every conversation (the inbox).
func (s *Service) PendingQuestions() []*questions.Card { return s.qm.Pending("") }

// onLateAnswer posts a late answer as a new user turn that starts a run
// linked to the one that timed out.
func (s *Service) onLateAnswer(c *questions.Card) {
	ctx := context.Background()
	conv, err := s.store.GetConversation(ctx, c.ConversationID)
	if err != nil {
		s.log.Warn("late answer for a missing conversation", "question", c.ID, "err", err)
		return
	}
	text := questions.LateAnswerText(c)
	_, err = s.rt.Start(agent.StartRequest{ConversationID: c.ConversationID, Profile: conv.Assistant, UserText: text, ResumedFrom: c.RunID})
	if errors.Is(err, agent.ErrRunActive) {
		// The active run reads the history at its next model call.
		m := &chat.Message{ConversationID: c.ConversationID, Role: chat.RoleUser, Content: text}
		if err := s.store.AppendMessage(ctx, m); err != nil {
			s.log.Error("save late answer", "question", c.ID, "err", err)
			return
		}
		s.ev.Emit(events.MessageDone, events.MessageDonePayload{ConversationID: c.ConversationID, Message: *m})
		return
	}
	if err != nil {
		s.log.Error("start run for late answer", "question", c.ID, "err", err)
	}
}

// ---- settings and models ----

// GetSettings returns the effective settings.
func (s *Service) GetSettings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

// SaveSettings validates and stores settings, applying them at once.
func (s *Service) SaveSettings(ctx context.Context, st Settings) (Settings, error) {
	st.BaseURL = strings.TrimRight(strings.TrimSpace(st.BaseURL), "/")
	if err := st.Validate(); err != nil {
		return Settings{}, err
	}
	if err := s.store.SetSetting(ctx, settingsKey, st); err != nil {
		return Settings{}, err
	}
	s.mu.Lock()
	s.settings = applyOverrides(st, s.opt.Config)
	eff := s.settings
	s.mu.Unlock()
	s.qm.UpdateConfig(s.questionConfig())
	if s.opt.OnSettingsChanged != nil {
		s.opt.OnSettingsChanged(eff)
	}
	return eff, nil
}

// ModelInfo is one model the server offers.
type ModelInfo struct {
	Name          string `json:"name"`
	SupportsTools bool   `json:"supports_tools"`
	// ToolsUnknown: the server does not say whether the model can call
	// tools (OpenAI-compatible servers other than Ollama).
	ToolsUnknown bool `json:"tools_unknown,omitempty"`
}

// ModelStatus says whether the model server answers, for onboarding.
type ModelStatus struct {
	Reachable bool        `json:"reachable"`
	BaseURL   string      `json:"base_url"`
	Model     string      `json:"model"`
	Demo      bool        `json:"demo"`
	Ollama    bool        `json:"ollama"` // the server has Ollama's API (models can be pulled)
	Message   string      `json:"message,omitempty"`
	Models    []ModelInfo `json:"models"`
}

// CheckModelServer asks the configured server for its models.
func (s *Service) CheckModelServer(ctx context.Context) ModelStatus {
	st := s.GetSettings()
	out := ModelStatus{BaseURL: st.BaseURL, Model: st.Model, Demo: st.DemoMode, Models: []ModelInfo{}}
	if st.DemoMode {
		out.Reachable = true
		out.Models = append(out.Models, ModelInfo{Name: "parley-demo", SupportsTools: true})
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	server, err := llm.ListModels(ctx, st.BaseURL, st.APIKey)
	if err != nil {
		out.Message = userMessage(err, st.BaseURL)
		return out
	}
	out.Reachable, out.Ollama = true, server.Ollama
	for _, m := range server.Models {
		out.Models = append(out.Models, ModelInfo{Name: m.Name, SupportsTools: m.SupportsTools, ToolsUnknown: !server.Ollama})
	}
	return out
}

// PullModel downloads an Ollama model, reporting progress as model:pull
// events (and a last one with status "error" when it fails). A name the
// server refuses is an *InputError, a failure of Ollama or its registry an
// *UpstreamError.
func (s *Service) PullModel(ctx context.Context, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return inputErrorf("model name must not be empty")
	}
	st := s.GetSettings()
	err := llm.NewOllama(st.BaseURL).Pull(ctx, name, func(p llm.PullProgress) {
		s.ev.Emit(events.ModelPull, events.PullProgress(name, p.Status, p.Total, p.Completed))
	})
	if err != nil && ctx.Err() == nil {
		// Whoever follows the progress events learns that it ended.
		s.ev.Emit(events.ModelPull, events.PullFailed(name, userMessage(err, st.BaseURL)))
	}
	var le *llm.Error
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &le):
		return fmt.Errorf("pull model %s: %w", name, err)
	case le.Kind == llm.KindBadRequest || le.Kind == llm.KindModelNotFound:
		return &InputError{Msg: le.Message}
	default:
		return &UpstreamError{Msg: le.Message, Err: err}
	}
}

func userMessage(err error, base string) string {
	var le *llm.Error
	if errors.As(err, &le) && le.Message != "" {
		return le.Message
	}
	return fmt.Sprintf("Cannot reach the model server at %s: %v", base, err)
}

// ---- demo mode ----

// demoServer runs the scripted demo model on a loopback port, so the
// question flow can be tried without any model server.
type demoServer struct {
	url string
	srv *http.Server
}

func (d *demoServer) close() { _ = d.srv.Close() }

func (s *Service) demoServer() (*demoServer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.demo != nil {
		return s.demo, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start demo model: %w", err)
	}
	srv := &http.Server{Handler: modelserver.NewHandler(modelserver.Demo()), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	s.demo = &demoServer{url: "http://" + ln.Addr().String() + "/v1", srv: srv}
	return s.demo, nil
}
