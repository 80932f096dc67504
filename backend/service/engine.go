package service

import (
	"context"
	"path/filepath"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/llm"
)

// The built-in engine (SPEC §12). Its models are the model library's
// (backend/engine/library, in library.go here): downloaded, imported, and
// any .gguf file of the models folder.

// modelsDir is the built-in engine's models folder: --models-dir /
// PARLEY_MODELS_DIR, else <data dir>/models ("" when there is no data
// folder, as in some tests).
func (s *Service) modelsDir() string {
	if s.opt.Config.ModelsDir != "" {
		return s.opt.Config.ModelsDir
	}
	if s.opt.Config.DataDir == "" {
		return ""
	}
	return filepath.Join(s.opt.Config.DataDir, "models")
}

// engineModels lists the models the engine may load.
func (s *Service) engineModels() []engine.Model {
	if s.lib == nil {
		return nil
	}
	var out []engine.Model
	for _, m := range s.lib.Ready() {
		out = append(out, engine.Model{ID: m.ID, Path: m.Path})
	}
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
			OnState: func(st engine.Status) { s.ev.Emit(events.EngineState, st) },
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

// builtinModel returns the built-in engine's model: name, an installed
// model's id, or the first installed chat model when name is "". A model
// that is not installed or whose file is broken is refused with the
// reason (the run ends in error saying it).
func (s *Service) builtinModel(name string) (llm.Model, error) {
	if name == "" {
		var first string
		if s.lib != nil {
			for _, m := range s.lib.Ready() {
				if !m.Embedding() {
					first = m.ID
					break
				}
			}
		}
		if first == "" {
			return nil, llm.NewError(llm.KindModelNotFound, nil, "engine.noModels", s.modelsDir())
		}
		name = first
	} else if err := s.checkBuiltinModel(name); err != nil {
		return nil, llm.NewError(llm.KindModelNotFound, err, fault.As(err).Text.Key, fault.As(err).Text.Args...)
	}
	sup, err := s.engine()
	if err != nil {
		return nil, err
	}
	return llm.NewOpenAI(llm.Config{BaseURL: engine.BaseURL, Model: name, Transport: sup.Transport()})
}

// checkBuiltinModel refuses (422) a model that is not installed or whose
// file is missing or not a readable GGUF.
func (s *Service) checkBuiltinModel(id string) error {
	if s.lib == nil {
		return fault.New(fault.Validation, i18n.M("engine.modelNotInstalled", id))
	}
	m, ok := s.lib.Model(id)
	switch {
	case !ok:
		return fault.New(fault.Validation, i18n.M("engine.modelNotInstalled", id))
	case m.State != library.StateReady:
		return fault.New(fault.Validation, i18n.M("engine.modelBroken", id, m.Error))
	}
	return nil
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
