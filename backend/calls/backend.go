package calls

import (
	"context"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/update"
)

// Backend is what the declarations call: backend/service's Service (tests
// may give a fake).
type Backend interface {
	Health() api.Health
	UpdateStatus() update.Status
	CheckUpdate(ctx context.Context) (update.Status, error)
	ApplyUpdate(ctx context.Context) (update.Status, error)
	ListConversations(ctx context.Context, limit int, cursor, query, project string) (api.ConversationPage, error)
	CreateConversationIn(ctx context.Context, title, assistant, projectID string) (*chat.Conversation, error)
	GetConversationWindow(ctx context.Context, id string, w store.Window) (*api.ConversationDetail, error)
	UpdateConversation(ctx context.Context, id string, u api.ConversationUpdate) (*api.ConversationDetail, error)
	DeleteConversation(ctx context.Context, id string) error
	Send(ctx context.Context, id string, req api.SendRequest) (runID string, err error)
	Regenerate(ctx context.Context, id, messageID, model string) (runID string, err error)
	SelectBranchWindow(ctx context.Context, id, messageID string, w store.Window) (*api.ConversationDetail, error)
	ForkQuestion(ctx context.Context, id, questionID string, req api.ForkRequest) (runID string, err error)
	Retry(ctx context.Context, id string) (runID string, err error)
	Cancel(ctx context.Context, id string) error
	Respond(ctx context.Context, id string, r questions.Response) (*questions.Card, error)
	ConversationQuestions(ctx context.Context, id string) ([]*questions.Card, error)
	Questions(ctx context.Context, status string) ([]*questions.Card, error)
	ExportConversation(ctx context.Context, id, format string) (string, error)
	ExportFileName(ctx context.Context, id, format string) string
	ImportConversation(ctx context.Context, data []byte) (*chat.Conversation, error)

	Projects(ctx context.Context) ([]chat.Project, error)
	Project(ctx context.Context, id string) (*chat.Project, error)
	CreateProject(ctx context.Context, req api.ProjectRequest) (*chat.Project, error)
	UpdateProject(ctx context.Context, id string, req api.ProjectRequest) (*chat.Project, error)
	DeleteProject(ctx context.Context, id string, withConversations bool) error
	ExportBackup(ctx context.Context) (string, error)
	ImportBackup(ctx context.Context, data []byte) (api.BackupImported, error)

	ListModels(ctx context.Context) ([]service.ModelInfo, error)
	CheckModelServer(ctx context.Context) service.ModelStatus
	PullModel(ctx context.Context, name string) error
	ModelStats(ctx context.Context) ([]store.ModelStats, error)
	ResetModelStats(ctx context.Context) error

	GetSettings() service.Settings
	EngineStatus(ctx context.Context) (engine.Status, error)
	EngineModels(ctx context.Context) ([]library.Model, error)
	EngineCatalog(ctx context.Context) ([]library.CatalogEntry, error)
	EngineDownloads(ctx context.Context) ([]library.Download, error)
	CheckHubFile(ctx context.Context, req api.HubFileArgs) (library.HubFile, error)
	StartEngineDownload(ctx context.Context, req api.EngineDownloadRequest) (library.Download, error)
	PauseEngineDownload(ctx context.Context, id string) (library.Download, error)
	ResumeEngineDownload(ctx context.Context, id string) (library.Download, error)
	CancelEngineDownload(ctx context.Context, id string) (library.Download, error)
	ImportEngineModel(ctx context.Context, path string) (library.Model, error)
	UpdateEngineModel(ctx context.Context, req api.UpdateEngineModelArgs) (library.Model, error)
	DeleteEngineModel(ctx context.Context, id string) error
	SaveSettings(ctx context.Context, s service.Settings) (service.Settings, error)
	ExportSettings(ctx context.Context) (service.SettingsExport, error)
	Profiles(ctx context.Context) ([]assistant.Profile, error)
	SaveProfile(ctx context.Context, p assistant.Profile) (assistant.Profile, error)
	DeleteProfile(ctx context.Context, name string) error
	AvailableTools() []service.ToolInfo

	MCPServers() []api.MCPServer
	MCPServer(name string) (api.MCPServer, error)
	PutMCPServer(name string, cfg api.MCPServerConfig) (api.MCPServer, error)
	DeleteMCPServer(name string) error
	SetMCPToolPolicy(server, tool, policy string) (api.MCPTool, error)
	ImportMCPConfig(content []byte) (api.MCPImportResult, error)

	Collections(ctx context.Context) ([]api.Collection, error)
	Collection(ctx context.Context, id string) (api.Collection, error)
	CreateCollection(ctx context.Context, req api.CollectionRequest) (api.Collection, error)
	UpdateCollection(ctx context.Context, id string, req api.CollectionRequest) (api.Collection, error)
	ReindexCollection(ctx context.Context, id string) error
	CancelCollection(ctx context.Context, id string) (api.Collection, error)
	DeleteCollection(ctx context.Context, id string) error
	SearchCollection(ctx context.Context, id string, req api.KnowledgeSearchRequest) (api.KnowledgeSearchResponse, error)

	Memories(ctx context.Context, project string) ([]memory.Memory, error)
	CreateMemory(ctx context.Context, req api.MemoryRequest) (memory.Memory, error)
	UpdateMemory(ctx context.Context, id string, u api.MemoryUpdate) (memory.Memory, error)
	DeleteMemory(ctx context.Context, id string) error
	DeleteAllMemories(ctx context.Context) error

	AgentTokens(ctx context.Context) ([]api.AgentToken, error)
	CreateAgentToken(ctx context.Context, name string) (api.NewAgentToken, error)
	RevokeAgentToken(ctx context.Context, id string) error
}

var _ Backend = (*service.Service)(nil)

type languageKey struct{}

// WithLanguage says in which language the call's texts are answered (the
// HTTP API's client may ask for its own).
func WithLanguage(ctx context.Context, lang string) context.Context {
	return context.WithValue(ctx, languageKey{}, lang)
}

// language is the call's language; "" = the interface's.
func language(ctx context.Context) string {
	lang, _ := ctx.Value(languageKey{}).(string)
	return lang
}
