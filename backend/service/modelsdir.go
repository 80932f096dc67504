package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// The models folder as a setting (engine_models_dir, issue #40): "" is the
// default <data dir>/models; --models-dir / PARLEY_MODELS_DIR wins over it
// for the process (the UI then shows the folder read-only). A change
// reopens the model library on the new folder and stops the engine (the
// next message starts it again on the chosen model, if the new folder has
// it); the old folder's models stay where they are, nothing is moved or
// deleted. It is refused while a download has work to do (paused ones
// too): its partial file lives in the old folder.

// maxModelsDirChars bounds the setting (a longer path is a paste gone wrong).
const maxModelsDirChars = 4096

// cleanModelsDir is the setting as it is kept: trimmed, cleaned.
func cleanModelsDir(dir string) string {
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return ""
	}
	return filepath.Clean(dir)
}

// checkModelsDirValue refuses (400) a setting that is not an absolute path.
func checkModelsDirValue(dir string) error {
	if dir == "" {
		return nil
	}
	if len(dir) > maxModelsDirChars || !filepath.IsAbs(dir) || strings.ContainsRune(dir, 0) {
		return inputError(i18n.M("service.modelsDirNotAbsolute", dir))
	}
	return nil
}

// usableModelsDir makes dir when missing and checks that Parley can write
// there (422 with the reason otherwise). A folder it made for nothing is
// not removed: an empty folder harms no one, and it may be the user's.
func usableModelsDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fault.New(fault.Validation, i18n.M("service.modelsDirUnusable", dir, "not a folder"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fault.Wrap(fault.Validation, i18n.M("service.modelsDirUnusable", dir, reasonOf(err)), err)
	}
	probe, err := os.CreateTemp(dir, ".parley-write-check-*")
	if err != nil {
		return fault.Wrap(fault.Validation, i18n.M("service.modelsDirUnusable", dir, reasonOf(err)), err)
	}
	name := probe.Name()
	_ = probe.Close()
	_ = os.Remove(name)
	return nil
}

// reasonOf is err's words without the path the message already says.
func reasonOf(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// openModelsDir checks that the models folder may change from the current
// one to the settings' (flag, downloads, the folder itself) and opens the
// library there: nil when the folder stays the same. The caller swaps it
// in (swapLibrary) once the settings are saved, or closes it.
func (s *Service) openModelsDir(st Settings) (*library.Library, error) {
	before := s.GetSettings()
	if st.EngineModelsDir == before.EngineModelsDir {
		return nil, nil
	}
	if s.modelsDirByFlag() {
		return nil, fault.New(fault.Conflict, i18n.M("service.modelsDirByFlag", s.opt.Config.ModelsDir))
	}
	dir := s.modelsDirFor(st)
	if dir == "" {
		return nil, nil // no data folder (tests): nothing to open
	}
	if old := s.currentLib(); old != nil {
		if busy := old.Busy(); len(busy) > 0 {
			return nil, fault.New(fault.Conflict, i18n.M("service.modelsDirBusy", strconv.Itoa(len(busy))))
		}
		if filepath.Clean(old.Dir()) == filepath.Clean(dir) {
			return nil, nil // the same folder by another name ("" and the default)
		}
	}
	if err := usableModelsDir(dir); err != nil {
		return nil, err
	}
	lib, err := s.newLibrary(dir)
	if err != nil {
		return nil, fault.Wrap(fault.Validation, i18n.M("service.modelsDirUnusable", dir, reasonOf(err)), fmt.Errorf("open the model library %s: %w", dir, err))
	}
	return lib, nil
}

// swapLibrary puts lib in place of the current library and stops the
// engine, whose models were the old folder's. A reply the engine is
// streaming then ends as when the engine stops (its run ends in error
// saying so); the old library's downloads were idle (openModelsDir).
func (s *Service) swapLibrary(lib *library.Library) {
	s.mu.Lock()
	old := s.lib
	s.lib = lib
	s.mu.Unlock()
	s.closeEngine()
	if old != nil {
		old.Close()
	}
	s.log.Info("the models folder changed", "dir", lib.Dir())
}
