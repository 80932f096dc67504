package httpapi

import (
	"context"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
)

// The fake backend of the handler tests has one project, "p1".
func (f *fakeBackend) Projects(context.Context) ([]chat.Project, error) { return nil, f.err }
func (f *fakeBackend) Project(_ context.Context, id string) (*chat.Project, error) {
	return &chat.Project{ID: id, Knowledge: []string{}}, f.err
}
func (f *fakeBackend) CreateProject(context.Context, api.ProjectRequest) (*chat.Project, error) {
	return &chat.Project{ID: "p1", Knowledge: []string{}}, f.err
}
func (f *fakeBackend) UpdateProject(_ context.Context, id string, _ api.ProjectRequest) (*chat.Project, error) {
	return &chat.Project{ID: id, Knowledge: []string{}}, f.err
}
func (f *fakeBackend) DeleteProject(context.Context, string, bool) error { return f.err }
func (f *fakeBackend) ExportBackup(context.Context) (string, error)     { return "{}", f.err }
func (f *fakeBackend) ImportBackup(context.Context, []byte) (api.BackupImported, error) {
	return api.BackupImported{}, f.err
}
