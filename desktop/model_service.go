package desktop

import (
	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/service"
)

// ModelService is window.go.desktop.ModelService: the model server and its
// models.
type ModelService struct{ binding }

// ListModels returns the models the configured server offers; an
// unreachable server is an error with the message to show.
func (m *ModelService) ListModels() ([]service.ModelInfo, error) {
	return wire(m.svc.ListModels(m.ctx))
}

// CheckModelServer says whether the model server answers, for onboarding.
func (m *ModelService) CheckModelServer() service.ModelStatus {
	return api.NonNil(m.svc.CheckModelServer(m.ctx))
}

// ModelStats lists how well each model asks.
func (m *ModelService) ModelStats() ([]service.ModelStats, error) {
	return wire(m.svc.ModelStats(m.ctx))
}

// ResetModelStats forgets every model's statistics.
func (m *ModelService) ResetModelStats() error { return m.svc.ResetModelStats(m.ctx) }

// PullModel downloads an Ollama model, reporting progress as model:pull
// events.
func (m *ModelService) PullModel(name string) error { return m.svc.PullModel(m.ctx, name) }
