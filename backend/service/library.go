package service

import (
	"context"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/engine/gguf"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// The model library (SPEC §12): the calls of Settings → Models and
// onboarding, over backend/engine/library.

// openLibrary opens the models folder and resumes the downloads a previous
// run left (nothing when there is no folder; a folder that cannot be made
// is logged, and the library's calls then say so).
func (s *Service) openLibrary() {
	dir := s.modelsDir()
	if dir == "" {
		return
	}
	lib, err := s.newLibrary(dir)
	if err != nil {
		s.log.Error("open the model library", "dir", dir, "err", err)
		return
	}
	s.mu.Lock()
	s.lib = lib
	s.mu.Unlock()
}

// newLibrary opens the model library on dir.
func (s *Service) newLibrary(dir string) (*library.Library, error) {
	opt := library.Options{
		Dir: dir, Endpoint: s.opt.Config.HFEndpoint, Logger: s.log,
		OnDownload: func(d library.Download) { s.ev.Emit(events.EngineDownload, d) },
	}
	if s.opt.LibraryOptions != nil {
		s.opt.LibraryOptions(&opt)
	}
	return library.Open(opt)
}

func (s *Service) closeLibrary() {
	s.mu.Lock()
	lib := s.lib
	s.lib = nil
	s.mu.Unlock()
	if lib != nil {
		lib.Close()
	}
}

// currentLib is the model library (nil without a models folder). It is
// read under s.mu: a change of the models folder swaps it.
func (s *Service) currentLib() *library.Library {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lib
}

func (s *Service) library() (*library.Library, error) {
	lib := s.currentLib()
	if lib == nil {
		return nil, fault.New(fault.Internal, i18n.M("library.noFolder"))
	}
	return lib, nil
}

// builtinModelInfos are the installed models that can be loaded, as the
// model list says models (GET /api/v1/models with the built-in engine).
func (s *Service) builtinModelInfos() []ModelInfo {
	out := []ModelInfo{}
	lib := s.currentLib()
	if lib == nil {
		return out
	}
	for _, m := range lib.Ready() {
		info := ModelInfo{Name: m.ID}
		for _, c := range m.Capabilities {
			switch c {
			case gguf.CapTools:
				info.SupportsTools = true
			case gguf.CapVision:
				info.SupportsVision = true
			case gguf.CapThinking:
				info.SupportsThinking = true
			}
		}
		out = append(out, info)
	}
	return out
}

// EngineModels lists the installed models, each checked (GET
// /api/v1/engine/models).
func (s *Service) EngineModels(context.Context) ([]library.Model, error) {
	lib := s.currentLib()
	if lib == nil {
		return []library.Model{}, nil
	}
	return lib.Models(), nil
}

// EngineCatalog is the curated catalogue (GET /api/v1/engine/catalog).
func (s *Service) EngineCatalog(context.Context) ([]library.CatalogEntry, error) {
	lib := s.currentLib()
	if lib == nil {
		return library.Catalog(), nil
	}
	return lib.Catalog(), nil
}

// EngineDownloads lists the downloads (GET /api/v1/engine/downloads).
func (s *Service) EngineDownloads(context.Context) ([]library.Download, error) {
	lib := s.currentLib()
	if lib == nil {
		return []library.Download{}, nil
	}
	return lib.Downloads(), nil
}

// StartEngineDownload queues a download from the hub: a catalogue entry,
// or any GGUF by repository and file (POST /api/v1/engine/downloads).
func (s *Service) StartEngineDownload(ctx context.Context, req api.EngineDownloadRequest) (library.Download, error) {
	lib, err := s.library()
	if err != nil {
		return library.Download{}, err
	}
	return lib.Start(ctx, req)
}

// CheckHubFile says what a GGUF of the hub would take before it is
// downloaded (GET /api/v1/engine/hub/file): its size, the memory it needs
// against this machine's, and whether the disk holds it. The same 422s
// as the download; nothing is changed.
func (s *Service) CheckHubFile(ctx context.Context, req api.HubFileArgs) (library.HubFile, error) {
	lib, err := s.library()
	if err != nil {
		return library.HubFile{}, err
	}
	f, err := lib.Check(ctx, api.EngineDownloadRequest{Repo: req.Repo, File: req.File, Revision: req.Revision})
	if err != nil {
		return library.HubFile{}, err
	}
	f.Memory = s.machineMemory().Total
	f.Fits = f.Memory == 0 || uint64(f.RAM) <= f.Memory
	return f, nil
}

// PauseEngineDownload pauses a download.
func (s *Service) PauseEngineDownload(_ context.Context, id string) (library.Download, error) {
	lib, err := s.library()
	if err != nil {
		return library.Download{}, err
	}
	return lib.Pause(id)
}

// ResumeEngineDownload resumes a paused (or failed) download.
func (s *Service) ResumeEngineDownload(_ context.Context, id string) (library.Download, error) {
	lib, err := s.library()
	if err != nil {
		return library.Download{}, err
	}
	return lib.Resume(id)
}

// CancelEngineDownload cancels a download; its partial file is deleted.
func (s *Service) CancelEngineDownload(_ context.Context, id string) (library.Download, error) {
	lib, err := s.library()
	if err != nil {
		return library.Download{}, err
	}
	return lib.Cancel(id)
}

// ImportEngineModel adds a GGUF from the disk, used in place (POST
// /api/v1/engine/models/import).
func (s *Service) ImportEngineModel(_ context.Context, path string) (library.Model, error) {
	lib, err := s.library()
	if err != nil {
		return library.Model{}, err
	}
	return lib.Import(path)
}

// UpdateEngineModel changes an installed model (PATCH
// /api/v1/engine/models/{id}): allow_large remembers the user's "Load
// anyway" for a model that needs more memory than the machine has.
func (s *Service) UpdateEngineModel(_ context.Context, req api.UpdateEngineModelArgs) (library.Model, error) {
	lib, err := s.library()
	if err != nil {
		return library.Model{}, err
	}
	if req.AllowLarge == nil {
		m, ok := lib.Model(req.ID)
		if !ok {
			return library.Model{}, fault.New(fault.NotFound, i18n.M("library.noModel", req.ID))
		}
		return m, nil
	}
	return lib.SetAllowLarge(req.ID, *req.AllowLarge)
}

// DeleteEngineModel deletes a downloaded model's file, or forgets an
// imported one (DELETE /api/v1/engine/models/{id}). The engine is stopped
// first when it has that model loaded.
func (s *Service) DeleteEngineModel(ctx context.Context, id string) error {
	lib, err := s.library()
	if err != nil {
		return err
	}
	if _, ok := lib.Model(id); !ok {
		return fault.New(fault.NotFound, i18n.M("library.noModel", id))
	}
	if st, _ := s.EngineStatus(ctx); st.Model != nil && *st.Model == id {
		s.closeEngine()
	}
	_, err = lib.Delete(id)
	return err
}
