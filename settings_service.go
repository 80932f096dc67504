package main

import "github.com/parley-app/parley/backend/service"

// SettingsService is window.go.main.SettingsService: settings, assistant
// profiles and the tools they may use.
type SettingsService struct{ binding }

// GetSettings returns the effective settings.
func (s *SettingsService) GetSettings() service.Settings { return s.svc.GetSettings() }

// SaveSettings validates and stores settings, applying them at once.
func (s *SettingsService) SaveSettings(st service.Settings) (service.Settings, error) {
	return s.svc.SaveSettings(s.ctx, st)
}

// Profiles lists assistant profiles; the default one is always there.
func (s *SettingsService) Profiles() ([]service.Profile, error) { return s.svc.Profiles(s.ctx) }

// SaveProfile creates or replaces a profile after checking it.
func (s *SettingsService) SaveProfile(p service.Profile) (service.Profile, error) {
	return s.svc.SaveProfile(s.ctx, p)
}

// DeleteProfile removes a profile; the default one resets to its defaults.
func (s *SettingsService) DeleteProfile(name string) error { return s.svc.DeleteProfile(s.ctx, name) }

// ExportSettings gathers settings, profiles and model statistics (without
// the API key) to save as a file.
func (s *SettingsService) ExportSettings() (service.SettingsExport, error) {
	return s.svc.ExportSettings(s.ctx)
}

// AvailableTools lists the tools profiles may opt in to.
func (s *SettingsService) AvailableTools() []service.ToolInfo { return s.svc.AvailableTools() }
