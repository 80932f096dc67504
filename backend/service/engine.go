package service

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/llm"
)

// The built-in engine (SPEC §12). Until the model library lands, the
// installed models are the .gguf files of the models folder
// (<data dir>/models), each named by its file name without ".gguf".

// modelsDir is the built-in engine's models folder ("" when there is no
// data folder).
func (s *Service) modelsDir() string {
	if s.opt.Config.DataDir == "" {
		return ""
	}
	return filepath.Join(s.opt.Config.DataDir, "models")
}

// engineModels lists the installed models.
func (s *Service) engineModels() []engine.Model {
	dir := s.modelsDir()
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []engine.Model
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(strings.ToLower(name), ".gguf") {
			continue
		}
		out = append(out, engine.Model{ID: strings.TrimSuffix(name, filepath.Ext(name)), Path: filepath.Join(dir, name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// engine returns the engine's supervisor, made on first need (the engine
// process itself starts on the first request), with the installed models.
func (s *Service) engine() (*engine.Supervisor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sup == nil {
		sup, err := engine.New(engine.Config{
			Command: s.opt.EngineCommand, ModelsDir: s.modelsDir(), Logger: s.log,
		})
		if err != nil {
			return nil, err
		}
		s.sup = sup
	}
	if err := s.sup.SetModels(s.engineModels()); err != nil {
		return nil, err
	}
	return s.sup, nil
}

// builtin tells whether the built-in engine answers (and not demo mode).
func (s *Service) builtin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings.Engine == config.EngineBuiltin && !s.settings.DemoMode
}

// builtinModel returns the built-in engine's model name (the first
// installed one when none is chosen).
func (s *Service) builtinModel(name string) (llm.Model, error) {
	sup, err := s.engine()
	if err != nil {
		return nil, err
	}
	if name == "" {
		models := s.engineModels()
		if len(models) == 0 {
			return nil, llm.NewError(llm.KindModelNotFound, nil, "engine.noModels", s.modelsDir())
		}
		name = models[0].ID
	}
	return llm.NewOpenAI(llm.Config{BaseURL: engine.BaseURL, Model: name, Transport: sup.Transport()})
}

// EngineStatus is the built-in engine's state (GET /api/v1/engine).
func (s *Service) EngineStatus(context.Context) (engine.Status, error) {
	s.mu.Lock()
	sup := s.sup
	s.mu.Unlock()
	if sup == nil {
		return engine.Status{State: engine.StateStopped, ModelsDir: s.modelsDir()}, nil
	}
	return sup.Status(), nil
}

// closeEngine stops the engine.
func (s *Service) closeEngine() {
	s.mu.Lock()
	sup := s.sup
	s.sup = nil
	s.mu.Unlock()
	if sup != nil {
		_ = sup.Close()
	}
}
