package service

import (
	"context"
	"time"

	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/textcalls"
)

// refusalsKey is the settings row remembering what servers refused per
// model (native tools, `tool` messages), so runs go straight to the form
// that works.
const refusalsKey = "model_refusals"

// capabilities knows how each model takes tools: Ollama's /api/show (for
// the built-in engine, the model library: a GGUF whose template has no
// tools, as Gemma 3's, gets them in §8's text form), then what servers
// refused, remembered in the store.
func (s *Service) capabilities(ctx context.Context) *textcalls.Capabilities {
	saved := map[string]textcalls.Refusals{}
	if _, err := s.store.GetSetting(ctx, refusalsKey, &saved); err != nil {
		s.log.Warn("load remembered model refusals", "err", err)
	}
	probe := func(ctx context.Context, id llm.Identity) (caps []string, known bool) {
		if id.BaseURL == engine.BaseURL {
			// Known, like Ollama's models: thinking is then turned off
			// by reasoning_effort alone, which the engine reads too.
			lib := s.currentLib()
			if lib == nil {
				return nil, false
			}
			m, ok := lib.Model(id.Model)
			return m.Capabilities, ok
		}
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		caps, err := llm.NewOllama(id.BaseURL).Capabilities(ctx, id.Model)
		if err != nil {
			return nil, false // not Ollama, or it does not know the model: try native
		}
		return caps, true
	}
	save := func(all map[string]textcalls.Refusals) {
		if err := s.store.SetSetting(context.Background(), refusalsKey, all); err != nil {
			s.log.Warn("remember model refusals", "err", err)
		}
	}
	return textcalls.NewCapabilities(probe, saved, save)
}

// recordModelStats adds what a run reports to its model's statistics.
func (s *Service) recordModelStats(model string, d assistant.StatDelta) {
	err := s.store.AddModelStats(context.Background(), model, store.ModelStatDelta{
		CardsAsked: d.CardsAsked, Answered: d.Answered, Declined: d.Declined, Cancelled: d.Cancelled, TimedOut: d.TimedOut,
		Repaired: d.Repaired, Refused: d.Refused, Corrected: d.Corrected, AnswerTime: d.AnswerTime,
	})
	if err != nil {
		s.log.Warn("save model statistics", "model", model, "err", err)
	}
}

// ModelStats lists how well each model asks.
func (s *Service) ModelStats(ctx context.Context) ([]store.ModelStats, error) {
	return s.store.AllModelStats(ctx)
}

// ResetModelStats forgets every model's statistics.
func (s *Service) ResetModelStats(ctx context.Context) error {
	return s.store.ResetModelStats(ctx)
}

// SettingsExport is everything Settings holds, to keep or move elsewhere:
// the settings (without the API key), the assistant profiles and how well
// each model asks.
type SettingsExport struct {
	Format     string              `json:"format"` // "parley-settings"
	Version    int                 `json:"version"`
	ExportedAt string              `json:"exported_at"`
	Settings   Settings            `json:"settings"`
	Profiles   []assistant.Profile `json:"profiles"`
	ModelStats []store.ModelStats  `json:"model_stats"`
}

// ExportSettings gathers the settings export. The API key is left out: it
// is a secret.
func (s *Service) ExportSettings(ctx context.Context) (SettingsExport, error) {
	profiles, err := s.Profiles(ctx)
	if err != nil {
		return SettingsExport{}, err
	}
	stats, err := s.ModelStats(ctx)
	if err != nil {
		return SettingsExport{}, err
	}
	st := s.GetSettings()
	st.APIKey = ""
	return SettingsExport{Format: "parley-settings", Version: 1, ExportedAt: time.Now().UTC().Format(time.RFC3339),
		Settings: st, Profiles: profiles, ModelStats: stats}, nil
}
