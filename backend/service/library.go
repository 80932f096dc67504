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
	opt := library.Options{
		Dir: dir, Endpoint: s.opt.Config.HFEndpoint, Logger: s.log,
		OnDownload: func(d library.Download) { s.ev.Emit(events.EngineDownload, d) },
	}
	if s.opt.LibraryOptions != nil {
		s.opt.LibraryOptions(&opt)
	}
	lib, err := library.Open(opt)
	if err != nil {
		s.log.Error("open the model library", "dir", dir, "err", err)
		return
	}
	s.lib = lib
}

func (s *Service) closeLibrary() {
	if s.lib != nil {
		s.lib.Close()
	}
}

func (s *Service) library() (*library.Library, error) {
	if s.lib == nil {
		return nil, fault.New(fault.Internal, i18n.M("library.noFolder"))
	}
	return s.lib, nil
}

// builtinModelInfos are the installed models that can be loaded, as the
// model list says models (GET /api/v1/models with the built-in engine).
func (s *Service) builtinModelInfos() []ModelInfo {
	out := []ModelInfo{}
	if s.lib == nil {
		return out
	}
	for _, m := range s.lib.Ready() {
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
	if s.lib == nil {
		return []library.Model{}, nil
	}
	return s.lib.Models(), nil
}

// EngineCatalog is the curated catalogue (GET /api/v1/engine/catalog).
func (s *Service) EngineCatalog(context.Context) ([]library.CatalogEntry, error) {
	if s.lib == nil {
		return library.Catalog(), nil
	}
	return s.lib.Catalog(), nil
}

// EngineDownloads lists the downloads (GET /api/v1/engine/downloads).
func (s *Service) EngineDownloads(context.Context) ([]library.Download, error) {
	if s.lib == nil {
		return []library.Download{}, nil
	}
	return s.lib.Downloads(), nil
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
