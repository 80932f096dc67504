package service

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/llm"
)

// model returns the chat model for a profile's model name.
func (s *Service) model(name string) (llm.Model, error) {
	if s.builtin() {
		if name == "" {
			s.mu.Lock()
			name = s.settings.Model
			s.mu.Unlock()
		}
		return s.builtinModel(name)
	}
	base, name, apiKey, err := s.modelTarget(name)
	if err != nil {
		return nil, err
	}
	return llm.NewOpenAI(llm.Config{BaseURL: base, Model: name, APIKey: apiKey})
}

// modelTarget resolves a profile's model name ("" = the default) to the
// server and model that answer.
func (s *Service) modelTarget(name string) (base, model, apiKey string, err error) {
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	if name == "" {
		name = st.Model
	}
	base = st.BaseURL
	if st.DemoMode {
		d, err := s.demoServer()
		if err != nil {
			return "", "", "", err
		}
		base, name = d.url, "parley-demo"
	}
	if name == "" {
		picked, err := s.pickInstalledModel(base, st.APIKey)
		if err != nil {
			return "", "", "", err
		}
		name = picked
	}
	return base, name, st.APIKey, nil
}

// pickInstalledModel chooses a model when none is set: the first installed
// model that supports tools, else the first one. When the server cannot be
// asked, that is the error to show (not that no model is chosen).
func (s *Service) pickInstalledModel(base, apiKey string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	server, err := llm.ListModels(ctx, base, apiKey)
	switch {
	case fault.CodeOf(err) == llm.KindUnreachable:
		return "", err
	case err != nil:
		s.log.Warn("list models to pick one", "base_url", base, "err", err)
		return "", llm.NewError(llm.KindModelNotFound, err, "service.noModelNoList")
	case len(server.Models) == 0:
		return "", llm.NewError(llm.KindModelNotFound, nil, "service.noModels", base)
	}
	for _, m := range server.Models {
		if m.SupportsTools {
			return m.Name, nil
		}
	}
	return server.Models[0].Name, nil
}

// ModelInfo is one model the server offers.
type ModelInfo struct {
	Name          string `json:"name"`
	SupportsTools bool   `json:"supports_tools"`
	// ToolsUnknown: the server does not say whether the model can call
	// tools (OpenAI-compatible servers other than Ollama).
	ToolsUnknown bool `json:"tools_unknown,omitempty"`
	// SupportsVision: the model reads images (Ollama's "vision"
	// capability, or a listing that says so).
	SupportsVision bool `json:"supports_vision,omitempty"`
	// SupportsThinking: the model thinks before it answers (Ollama's
	// "thinking" capability; other servers do not say).
	SupportsThinking bool `json:"supports_thinking,omitempty"`
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
	// ServerModels, in demo mode, are the configured server's models (when
	// it answers): turning demo mode off in Settings lists them at once,
	// before Save.
	ServerModels []ModelInfo `json:"server_models,omitempty"`
	// err is why the server did not answer (for errors that keep the cause).
	err error
}

// CheckModelServer asks the configured server for its models.
func (s *Service) CheckModelServer(ctx context.Context) ModelStatus {
	st := s.GetSettings()
	out := ModelStatus{BaseURL: st.BaseURL, Model: st.Model, Demo: st.DemoMode}
	if st.Engine == config.EngineBuiltin && !st.DemoMode {
		// The built-in engine (SPEC §12): its models are the installed ones.
		out.Reachable, out.Models = true, s.builtinModelInfos()
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	server, err := llm.ListModels(ctx, st.BaseURL, st.APIKey)
	var models []ModelInfo
	if err == nil {
		for _, m := range server.Models {
			models = append(models, ModelInfo{Name: m.Name, SupportsTools: m.SupportsTools, SupportsVision: m.SupportsVision,
				SupportsThinking: m.SupportsThinking, ToolsUnknown: !server.Ollama})
		}
	}
	if st.DemoMode {
		out.Reachable = true
		out.Models = append(out.Models, ModelInfo{Name: "parley-demo", SupportsTools: true})
		out.ServerModels = models
		return out
	}
	if err != nil {
		out.Message, out.err = userMessage(err, st.BaseURL), err
		return out
	}
	out.Reachable, out.Ollama, out.Models = true, server.Ollama, models
	return out
}

// ListModels returns the models the configured server offers; an
// unreachable server is a fault.Upstream with the message to show.
func (s *Service) ListModels(ctx context.Context) ([]ModelInfo, error) {
	st := s.CheckModelServer(ctx)
	if !st.Reachable {
		return nil, upstreamError(st.Message, st.err)
	}
	return st.Models, nil
}

// PullModel downloads an Ollama model, reporting progress as model:pull
// events (and a last one with status "error" when it fails). A name the
// server refuses is a fault.Input, a failure of Ollama or its registry a
// fault.Upstream.
func (s *Service) PullModel(ctx context.Context, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return inputError(i18n.M("service.modelNameEmpty"))
	}
	st := s.GetSettings()
	err := llm.NewOllama(st.BaseURL).Pull(ctx, name, func(p llm.PullProgress) {
		s.ev.Emit(events.ModelPull, events.PullProgress(name, p.Status, p.Total, p.Completed))
	})
	if err != nil && ctx.Err() == nil {
		// Whoever follows the progress events learns that it ended.
		s.ev.Emit(events.ModelPull, events.PullFailed(name, userMessage(err, st.BaseURL)))
	}
	le := fault.Coded(err)
	switch {
	case err == nil:
		return nil
	case le == nil:
		return fmt.Errorf("pull model %s: %w", name, err)
	case le.Code == llm.KindBadRequest || le.Code == llm.KindModelNotFound:
		return inputErrorf(le.Error())
	default:
		return upstreamError(le.Error(), err)
	}
}

func userMessage(err error, base string) string {
	if le := fault.Coded(err); le != nil && le.Error() != "" {
		return le.Error()
	}
	return i18n.T("service.cannotReach", base, err.Error())
}
