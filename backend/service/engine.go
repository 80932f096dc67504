package service

import (
	"context"
	"path/filepath"
	"strconv"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/engine/ram"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/llm"
)

// The built-in engine (SPEC §12). Its models are the model library's
// (backend/engine/library, in library.go here): downloaded, imported, and
// any .gguf file of the models folder.

// modelsDir is the built-in engine's models folder (modelsDirFor the
// effective settings).
func (s *Service) modelsDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modelsDirFor(s.settings)
}

// modelsDirFor is the models folder with the settings st. Precedence:
// --models-dir / PARLEY_MODELS_DIR (for this process, as the other flags),
// else the setting engine_models_dir, else the default <data dir>/models
// ("" when there is no data folder, as in some tests).
func (s *Service) modelsDirFor(st Settings) string {
	cfg := s.opt.Config
	switch {
	case s.modelsDirByFlag():
		return cfg.ModelsDir
	case st.EngineModelsDir != "":
		return st.EngineModelsDir
	case cfg.ModelsDir != "":
		return cfg.ModelsDir
	case cfg.DataDir != "":
		return filepath.Join(cfg.DataDir, "models")
	}
	return ""
}

// modelsDirByFlag tells whether the command line set the models folder.
func (s *Service) modelsDirByFlag() bool {
	return s.opt.Config.Set["models-dir"] && s.opt.Config.ModelsDir != ""
}

// engineModels lists the models the engine may load (under s.mu).
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
			Command: s.opt.EngineCommand, ModelsDir: s.modelsDirFor(s.settings), Logger: s.log,
			Threads: s.settings.EngineThreads,
			OnState: func(st engine.Status) {
				st.Memory = s.machineMemory()
				st.ModelsDirByFlag = s.modelsDirByFlag()
				s.ev.Emit(events.EngineState, st)
			},
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
	var chosen library.Model
	if name == "" {
		if lib := s.currentLib(); lib != nil {
			for _, m := range lib.Ready() {
				if !m.Embedding() {
					chosen = m
					break
				}
			}
		}
		if chosen.ID == "" {
			return nil, llm.NewError(llm.KindModelNotFound, nil, "engine.noModels", s.modelsDir())
		}
		name = chosen.ID
	} else {
		m, err := s.checkBuiltinModel(name)
		if err != nil {
			return nil, llm.NewError(llm.KindModelNotFound, err, fault.As(err).Text.Key, fault.As(err).Text.Args...)
		}
		chosen = m
	}
	if err := s.checkFits(chosen); err != nil {
		return nil, err
	}
	sup, err := s.engine()
	if err != nil {
		return nil, err
	}
	return llm.NewOpenAI(llm.Config{BaseURL: engine.BaseURL, Model: name, Transport: sup.Transport()})
}

// checkBuiltinModel returns the installed model id, and refuses (422) one
// that is not installed or whose file is missing or not a readable GGUF.
func (s *Service) checkBuiltinModel(id string) (library.Model, error) {
	return checkBuiltinModelIn(s.currentLib(), id)
}

// checkBuiltinModelIn is checkBuiltinModel in the library lib.
func checkBuiltinModelIn(lib *library.Library, id string) (library.Model, error) {
	if lib == nil {
		return library.Model{}, fault.New(fault.Validation, i18n.M("engine.modelNotInstalled", id))
	}
	m, ok := lib.Model(id)
	switch {
	case !ok:
		return m, fault.New(fault.Validation, i18n.M("engine.modelNotInstalled", id))
	case m.State != library.StateReady:
		return m, fault.New(fault.Validation, i18n.M("engine.modelBroken", id, m.Error))
	}
	return m, nil
}

// CodeTooBig is the Code of the refusal of a model that needs more memory
// than the machine has (fault.Validation).
const CodeTooBig = "model_too_big"

// checkFits refuses (422) to load the installed model m when it needs
// more memory than the machine has in all, unless the user allowed it
// ("Load anyway"): loading it would have the machine swap itself to a
// halt, or the engine killed for lack of memory. Only the total counts:
// memory that is merely in use (caches, other programs) can be freed or
// swapped out without ruin, so a need above what is available now is
// logged, not refused. A machine whose memory cannot be read refuses
// nothing.
func (s *Service) checkFits(m library.Model) error {
	if m.RAM <= 0 {
		return nil
	}
	mem := s.machineMemory()
	switch {
	case mem.Total == 0 || m.AllowLarge:
		return nil
	case uint64(m.RAM) > mem.Total:
		return &fault.Error{Kind: fault.Validation, Code: CodeTooBig,
			Text: i18n.M("engine.tooBig", m.ID, memoryText(uint64(m.RAM)), memoryText(mem.Total))}
	case mem.Available > 0 && uint64(m.RAM) > mem.Available:
		s.log.Warn("the model needs more memory than is available now; loading it anyway",
			"model", m.ID, "need", m.RAM, "available", mem.Available, "total", mem.Total)
	}
	return nil
}

// machineMemory is the machine's memory (Total 0 when it cannot be read).
func (s *Service) machineMemory() ram.Machine {
	read := s.opt.MachineMemory
	switch {
	case read != nil:
	case s.opt.Config.MachineMemory > 0:
		return ram.Machine{Total: s.opt.Config.MachineMemory, Available: s.opt.Config.MachineMemory}
	default:
		read = ram.Read
	}
	m, err := read()
	if err != nil {
		s.log.Warn("cannot read the machine's memory: no model is refused for its size", "err", err)
		return ram.Machine{}
	}
	return m
}

// memoryText is an amount of memory as the model library shows it (GB of
// 1024³ bytes, one decimal; MB below 1 GB).
func memoryText(n uint64) string {
	if n < 1<<30 {
		return strconv.FormatUint((n+(1<<20)-1)>>20, 10) + " MB"
	}
	return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GB"
}

// EngineStatus is the built-in engine's state (GET /api/v1/engine), with
// the machine's memory.
func (s *Service) EngineStatus(context.Context) (engine.Status, error) {
	s.mu.Lock()
	sup := s.sup
	s.mu.Unlock()
	st := engine.Status{State: engine.StateStopped}
	if sup != nil {
		st = sup.Status()
	}
	// The folder of now: the engine's own status says the one it started with.
	st.ModelsDir, st.ModelsDirByFlag = s.modelsDir(), s.modelsDirByFlag()
	st.Memory = s.machineMemory()
	return st, nil
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
