package desktop

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/service"
)

// SettingsService is window.go.desktop.SettingsService: settings, assistant
// profiles and the tools they may use.
type SettingsService struct{ binding }

// GetSettings returns the effective settings.
func (s *SettingsService) GetSettings() service.Settings { return api.NonNil(s.svc.GetSettings()) }

// SaveSettings validates and stores settings, applying them at once.
func (s *SettingsService) SaveSettings(st service.Settings) (service.Settings, error) {
	return wire(s.svc.SaveSettings(s.ctx, st))
}

// Profiles lists assistant profiles; the default one is always there.
func (s *SettingsService) Profiles() ([]service.Profile, error) { return wire(s.svc.Profiles(s.ctx)) }

// SaveProfile creates or replaces a profile after checking it.
func (s *SettingsService) SaveProfile(p service.Profile) (service.Profile, error) {
	return wire(s.svc.SaveProfile(s.ctx, p))
}

// DeleteProfile removes a profile; the default one resets to its defaults.
func (s *SettingsService) DeleteProfile(name string) error { return s.svc.DeleteProfile(s.ctx, name) }

// ExportSettings gathers settings, profiles and model statistics (without
// the API key) to save as a file.
func (s *SettingsService) ExportSettings() (service.SettingsExport, error) {
	return wire(s.svc.ExportSettings(s.ctx))
}

// SaveSettingsExport asks where to save and writes the settings export as
// JSON. It returns the path, or "" when the user cancelled. (A download link
// does not save a file in the desktop window's WebKitGTK.)
func (s *SettingsService) SaveSettingsExport() (string, error) {
	out, err := s.svc.ExportSettings(s.ctx)
	if err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode settings export: %w", err)
	}
	path, err := runtime.SaveFileDialog(s.ctx, runtime.SaveDialogOptions{
		Title: i18n.T("dialog.exportSettings"), DefaultFilename: "parley-settings.json",
		Filters: []runtime.FileFilter{{DisplayName: i18n.T("dialog.filesOfType", "JSON"), Pattern: "*.json"}},
	})
	if err != nil || path == "" {
		return "", err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// AvailableTools lists the tools profiles may opt in to.
func (s *SettingsService) AvailableTools() []service.ToolInfo {
	return api.NonNil(s.svc.AvailableTools())
}
