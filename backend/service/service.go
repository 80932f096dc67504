package service

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/engine/ram"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/knowledge"
	"github.com/parley-app/parley/backend/mcp"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/update"
	"github.com/parley-app/parley/backend/yield"
)

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
	// MCPConfigPath is the MCP servers' file; "" = mcp.json in
	// Config.DataDir (in memory when that is empty too).
	MCPConfigPath string
	// MCPOptions tunes the MCP host (tests: timeouts, backoff).
	MCPOptions func(*mcp.Options)
	// KnowledgeOptions tunes the collections' indexer (tests, benchmarks).
	KnowledgeOptions func(*knowledge.Options)
	// EngineCommand runs the built-in engine's process (nil: this
	// executable's `engine` command; tests give another).
	EngineCommand []string
	// LibraryOptions tunes the model library (tests: the free-space
	// function, retry delays).
	LibraryOptions func(*library.Options)
	// MachineMemory reads the machine's memory (nil: Config.MachineMemory
	// when set, else the system's answer, backend/engine/ram).
	MachineMemory func() (ram.Machine, error)
	// Updater checks for, stages and applies updates (SPEC §13); nil: this
	// build never updates itself.
	Updater *update.Updater
	// OnUpdateApplied restarts into an applied update (nil: nothing).
	OnUpdateApplied func(update.Applied)
	// UpdateFirstCheck is the delay before the automatic check at start
	// (0: 10 s); UpdateEvery the one between checks (0: a day).
	UpdateFirstCheck, UpdateEvery time.Duration
}

// Service is the domain façade behind the Wails bindings and the HTTP API.
type Service struct {
	closeOnce sync.Once
	opt       Options
	store     *store.Store
	ev        events.Emitter
	qm        *questions.Manager
	rt        *assistant.Runtime
	mcp       *mcp.Host
	log       *slog.Logger
	// knowledge indexes and searches the collections (SPEC §11).
	knowledge *knowledge.Manager
	// agents files the cards and notices of agents on the machine (SPEC §10).
	agents *agentinbox.Inbox
	// background is the gate of the background work (the indexer): closed
	// while a run works, paced while one waits for the user (issue #42).
	background *yield.Gate
	// agentCards paces background work while an agent's card waits.
	agentCards *agentCards

	mu       sync.Mutex
	settings Settings // effective: saved + overrides
	demo     *demoServer
	sup      *engine.Supervisor // the built-in engine's, once needed
	// lib is the model library (SPEC §12); nil without a models folder.
	// Read it with currentLib: a change of the models folder swaps it.
	lib *library.Library
	// folderMu makes one settings save at a time change the models folder.
	folderMu sync.Mutex
	// contextLengths caches the models' context windows (server + model -> tokens, 0 = unknown).
	contextLengths map[string]int
	// updates is the automatic update checks' loop (SPEC §13).
	updates updateLoop
	// vectors makes memories' vectors when an embedding model is set (SPEC §14).
	vectors *memoryVectors
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
	saved, err := s.loadSettings(ctx)
	if err != nil {
		return nil, fmt.Errorf("load settings: %w", err)
	}
	s.settings = applyOverrides(saved, opt.Config)
	i18n.SetCurrent(i18n.Choose(s.settings.Language))

	// MCP servers connect in the background: they never delay the start.
	s.mcp = s.newMCPHost()
	s.mcp.Start()

	s.background = yield.New(yield.Options{})
	s.knowledge = s.newKnowledge()
	s.vectors = newMemoryVectors(s)
	s.openLibrary()

	qcfg := s.questionConfig()
	qcfg.OnLateAnswer = s.onLateAnswer
	s.agentCards = newAgentCards(s.ev, s.background)
	s.qm = questions.NewManager(qcfg, s.store, s.agentCards)
	s.agents = agentinbox.New(agentinbox.Options{Store: s.store, Manager: s.qm, Events: s.ev, Logger: s.log,
		AutoAnswer: s.agentAutoAnswer})
	s.rt = assistant.New(assistant.Options{
		History:  s.store,
		Events:   s.ev,
		Asker:    s.qm,
		Cards:    s.store.CardsByConversation,
		Model:    s.model,
		Profile:  s.profile,
		Tools:    assistant.BuiltinTools(nil),
		MCP:      s.mcp,
		Approver: s.qm,
		Logger:   s.log,
		// The reply figures show context use where the server tells the window.
		ContextLength: s.contextLength,
		// SPEC §8: how each model takes tools, and how well it asks.
		Capabilities: s.capabilities(ctx),
		Stats:        s.recordModelStats,
		// SPEC §11: the collections of the conversation and its profile.
		Knowledge:             knowledgeSearch{s.knowledge},
		ConversationKnowledge: s.conversationKnowledge,
		// SPEC §14: the project's instructions and model.
		Project: s.projectScope,
		// SPEC §14: memories in prompts, cards answered from them, remember.
		Memory: memoryHook{s},
		// Issue #42: background work gives way to the user's runs.
		OnActivity: s.runActivity,
	})
	if err := s.recover(ctx); err != nil {
		s.Close()
		return nil, err
	}
	// Indexing resumes in the background (changes since the last run too).
	if err := s.knowledge.Start(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("start knowledge: %w", err)
	}
	s.startUpdateChecks()
	return s, nil
}

// Close stops every run (pending cards stay pending in storage).
func (s *Service) Close() {
	// Once: the owner and a cleanup (tests, the window's shutdown after a
	// restart for an update) may both close it.
	s.closeOnce.Do(s.close)
}

func (s *Service) close() {
	// The manager first: waiting runs then stop without resolving their
	// cards, which stay pending for the next start.
	s.qm.Close()
	s.rt.Close()
	s.knowledge.Close()
	s.vectors.close()
	s.mcp.Stop()
	s.closeEngine()
	s.closeLibrary()
	s.closeUpdates()
	s.mu.Lock()
	if s.demo != nil {
		s.demo.close()
		s.demo = nil
	}
	s.mu.Unlock()
}

// runActivity sets the background work's gate from the runs: closed while
// one works (the model streams, tools run: what the user watches), paced
// while one waits for the user's answer (a card is open), open otherwise.
func (s *Service) runActivity(working, waiting int) {
	switch {
	case working > 0:
		s.background.Set("runs", yield.Closed)
	case waiting > 0:
		s.background.Set("runs", yield.Paced)
	default:
		s.background.Set("runs", yield.Open)
	}
}

// Background is the gate of the background work (for tests and wiring).
func (s *Service) Background() *yield.Gate { return s.background }

// Agents is the inbox of agents on the machine (SPEC §10).
func (s *Service) Agents() *agentinbox.Inbox { return s.agents }

// Manager returns the QuestionManager (for tests and wiring).
func (s *Service) Manager() *questions.Manager { return s.qm }
