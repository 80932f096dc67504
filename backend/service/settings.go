package service

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/questions"
)

// Settings are the user's saved preferences. Command-line flags and
// environment variables override the endpoint, model, key, timeout and demo
// mode for the session without being saved.
type Settings struct {
	// Engine is "builtin" (Parley's own engine: Model names a GGUF of the
	// models folder) or "server" (the model server at BaseURL), SPEC §12.
	Engine                 string  `json:"engine"`
	BaseURL                string  `json:"base_url"`
	APIKey                 string  `json:"api_key"`
	Model                  string  `json:"model"`
	QuestionTimeoutSeconds int     `json:"question_timeout_seconds"` // 0 = wait forever
	RateLimitSeconds       float64 `json:"rate_limit_seconds"`       // min spacing of cards per conversation
	MaxPendingQuestions    int     `json:"max_pending_questions"`
	Theme                  string  `json:"theme"` // light, dark or system
	DemoMode               bool    `json:"demo_mode"`
	APIEnabled             bool    `json:"api_enabled"` // desktop app: also serve the local HTTP API
	Onboarded              bool    `json:"onboarded"`
	// EmbeddingModel makes the vectors of the knowledge collections (SPEC
	// §11); "" = keyword search only.
	EmbeddingModel string `json:"embedding_model"`
	// The desktop app listens for agents on the machine (SPEC §10): on by
	// default, at AgentsAddr (loopback only).
	AgentsEnabled bool   `json:"agents_enabled"`
	AgentsAddr    string `json:"agents_addr"`
	// Language of the interface and of the backend's messages: one of
	// i18n.Languages, or "" to follow the system's.
	Language string `json:"language"`
	// Memory is "on" (the default) or "off" (SPEC §14): off keeps nothing
	// new and puts no memory into prompts or answers. Saving "" (a client
	// that does not know the setting) keeps it as it is.
	Memory string `json:"memory,omitempty"`
	// UpdateChecks is "on" (the default) or "off" (SPEC §13): automatic
	// checks for updates at start and daily; off sends nothing. Saving ""
	// keeps it as it is.
	UpdateChecks string `json:"update_checks,omitempty"`
	// EngineThreads is how many threads the built-in engine computes with
	// (SPEC §12); 0, the default, is automatic: one per core.
	EngineThreads int `json:"engine_threads"`
	// EngineModelsDir is the built-in engine's models folder, an absolute
	// path; "" is the default, <data dir>/models. --models-dir /
	// PARLEY_MODELS_DIR wins over it (modelsdir.go).
	EngineModelsDir string `json:"engine_models_dir"`
}

// maxEngineThreads bounds EngineThreads (more threads than this is a typo).
const maxEngineThreads = 256

// The values of Settings.Memory.
const (
	MemoryOn  = "on"
	MemoryOff = "off"
)

// DefaultSettings are used until the user saves their own.
func DefaultSettings() Settings {
	return Settings{
		// A fresh install chats out of the box (SPEC §12); saved settings
		// from before the engine keep their server (loadSettings).
		Engine:                 config.EngineBuiltin,
		BaseURL:                config.DefaultBaseURL,
		QuestionTimeoutSeconds: int(config.DefaultQuestionTimeout / time.Second),
		RateLimitSeconds:       5,
		MaxPendingQuestions:    10,
		Theme:                  "system",
		AgentsEnabled:          true,
		AgentsAddr:             config.DefaultAddr,
		Memory:                 MemoryOn,
		UpdateChecks:           MemoryOn,
	}
}

// Validate checks settings before they are saved.
func (s Settings) Validate() error {
	u, err := url.Parse(s.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return inputError(i18n.M("service.baseURL", s.BaseURL, config.DefaultBaseURL))
	}
	if s.Engine != config.EngineBuiltin && s.Engine != config.EngineServer {
		return inputErrorf(`engine must be "builtin" or "server"`)
	}
	switch {
	case s.QuestionTimeoutSeconds < 0 || s.QuestionTimeoutSeconds > 7*24*3600:
		return inputError(i18n.M("service.questionTimeout", 604800))
	case s.RateLimitSeconds < 0 || s.RateLimitSeconds > 3600:
		return inputError(i18n.M("service.rateLimit", 3600))
	case s.MaxPendingQuestions < 1 || s.MaxPendingQuestions > 1000:
		return inputError(i18n.M("service.maxPending", 1000))
	case s.EngineThreads < 0 || s.EngineThreads > maxEngineThreads:
		return inputError(i18n.M("service.engineThreads", maxEngineThreads))
	}
	if err := checkModelsDirValue(s.EngineModelsDir); err != nil {
		return err
	}
	if len(s.EmbeddingModel) > maxModelNameChars {
		return inputErrorf(fmt.Sprintf("embedding model name must be at most %d characters", maxModelNameChars))
	}
	switch s.Theme {
	case "light", "dark", "system":
	default:
		return inputErrorf(`theme must be "light", "dark" or "system"`)
	}
	if err := config.CheckLoopbackAddr(s.AgentsAddr); err != nil {
		return inputErrorf("agents' address: " + err.Error())
	}
	if s.Memory != MemoryOn && s.Memory != MemoryOff {
		return inputErrorf(`memory must be "on" or "off"`)
	}
	if s.UpdateChecks != MemoryOn && s.UpdateChecks != MemoryOff {
		return inputErrorf(`update_checks must be "on" or "off"`)
	}
	if s.Language != "" && !i18n.Supported(s.Language) {
		return inputErrorf(fmt.Sprintf("language must be \"\" (the system's) or one of %s", strings.Join(i18n.Languages, ", ")))
	}
	return nil
}

// applyOverrides layers the command line over saved settings.
func applyOverrides(s Settings, cfg config.Config) Settings {
	if cfg.Set["base-url"] {
		s.BaseURL = cfg.BaseURL
	}
	if cfg.Set["model"] {
		s.Model = cfg.Model
	}
	if cfg.Set["api-key"] {
		s.APIKey = cfg.APIKey
	}
	if cfg.Set["question-timeout"] {
		s.QuestionTimeoutSeconds = int(cfg.QuestionTimeout / time.Second)
	}
	if cfg.Set["demo"] {
		s.DemoMode = cfg.Demo
	}
	switch {
	case cfg.Set["engine"]:
		s.Engine = cfg.Engine
	case cfg.Set["base-url"]:
		// A server given (--base-url, PARLEY_BASE_URL) is the one to use.
		s.Engine = config.EngineServer
	}
	if s.Engine == "" {
		s.Engine = config.EngineBuiltin
	}
	s.BaseURL = strings.TrimRight(s.BaseURL, "/")
	return s
}

// settingsKey is the settings row holding the saved Settings.
const settingsKey = "settings"

// loadSettings reads the saved settings over the defaults. Settings saved
// before the built-in engine existed (no "engine" in them) keep the model
// server they were using: only a fresh install starts on the engine.
func (s *Service) loadSettings(ctx context.Context) (Settings, error) {
	saved := DefaultSettings()
	found, err := s.store.GetSetting(ctx, settingsKey, &saved)
	if err != nil || !found {
		return saved, err
	}
	var probe struct {
		Engine *string `json:"engine"`
	}
	if _, err := s.store.GetSetting(ctx, settingsKey, &probe); err != nil {
		return saved, err
	}
	if probe.Engine == nil {
		saved.Engine = config.EngineServer
	}
	return saved, nil
}

// questionConfig turns the effective settings into the QuestionManager's.
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

// GetSettings returns the effective settings.
func (s *Service) GetSettings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

// SaveSettings validates and stores settings, applying them at once.
func (s *Service) SaveSettings(ctx context.Context, st Settings) (Settings, error) {
	st.BaseURL = strings.TrimRight(strings.TrimSpace(st.BaseURL), "/")
	st.EmbeddingModel = strings.TrimSpace(st.EmbeddingModel)
	st.EngineModelsDir = cleanModelsDir(st.EngineModelsDir)
	if st.Memory == "" {
		st.Memory = s.GetSettings().Memory
	}
	if st.UpdateChecks == "" {
		st.UpdateChecks = s.GetSettings().UpdateChecks
	}
	if st.Engine == "" {
		st.Engine = s.GetSettings().Engine // a client that does not know the setting yet keeps it
	}
	if err := st.Validate(); err != nil {
		return Settings{}, err
	}
	// One save at a time changes the models folder.
	s.folderMu.Lock()
	defer s.folderMu.Unlock()
	newLib, err := s.openModelsDir(st)
	if err != nil {
		return Settings{}, err
	}
	applied := false
	defer func() {
		if newLib != nil && !applied {
			newLib.Close() // refused: the folder stays the one it was
		}
	}()
	if before := s.GetSettings(); st.Engine == config.EngineBuiltin && st.Model != "" &&
		(st.Model != before.Model || before.Engine != config.EngineBuiltin) {
		// Choosing a built-in model: it must be installed and readable, and
		// fit in the machine's memory unless allowed (SPEC §12), in the
		// folder being chosen with it if any.
		lib := newLib
		if lib == nil {
			lib = s.currentLib()
		}
		m, err := checkBuiltinModelIn(lib, st.Model)
		if err != nil {
			return Settings{}, err
		}
		if err := s.checkFits(m); err != nil {
			return Settings{}, err
		}
	}
	if s.opt.Config.Set["demo"] {
		// --demo / PARLEY_DEMO holds for this process only: the saved demo
		// mode stays what it was (the window shows the effective one).
		saved, err := s.loadSettings(ctx)
		if err != nil {
			return Settings{}, fmt.Errorf("load settings: %w", err)
		}
		st.DemoMode = saved.DemoMode
	}
	if err := s.store.SetSetting(ctx, settingsKey, st); err != nil {
		return Settings{}, err
	}
	s.mu.Lock()
	before := s.settings
	s.settings = applyOverrides(st, s.opt.Config)
	eff := s.settings
	s.mu.Unlock()
	if newLib != nil {
		applied = true
		s.swapLibrary(newLib)
	}
	if before.EmbeddingModel != eff.EmbeddingModel || before.BaseURL != eff.BaseURL || before.APIKey != eff.APIKey || before.DemoMode != eff.DemoMode {
		s.knowledge.EmbeddingChanged() // vectors of the new model are made in the background
		s.vectors.kick()               // and of the memories
	}
	if before.Memory != eff.Memory {
		s.vectors.kick() // memory back on: what was kept since gets its vectors
	}
	if before.EngineThreads != eff.EngineThreads {
		// The engine takes its threads when it starts: the next message
		// starts it again with the new number.
		s.closeEngine()
	}
	i18n.SetCurrent(i18n.Choose(eff.Language))
	s.updateSettingChanged(eff.UpdateChecks == MemoryOn)
	s.qm.UpdateConfig(s.questionConfig())
	if s.opt.OnSettingsChanged != nil {
		s.opt.OnSettingsChanged(eff)
	}
	return eff, nil
}
