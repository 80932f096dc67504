package calls

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/trace"
	"github.com/parley-app/parley/backend/update"
)

// The calls, by area. Adding a call = the service method it calls + one
// declaration here (+ the UI that uses it); `go run ./cmd/wiregen` writes
// the rest. docs/spec.md §4 is the HTTP side of each.

var fileType = reflect.TypeFor[api.ExportedFile]()

// errBadLast: a conversation window's "last" that is not a positive number.
var errBadLast = inputError(`"last" must be a positive number of messages`)

// windowOf is the window a read asks for: the newest *last messages (all
// when nil) of the path before the message before ("" for the leaf).
func windowOf(last *int, before string) (store.Window, error) {
	w := store.Window{Before: before}
	if last != nil {
		if *last < 1 {
			return w, errBadLast
		}
		w.Last = *last
	}
	return w, nil
}

var (
	Health = declare("Health", "GET /api/v1/health", "Says the backend answers, its version, and whether the card trace is on.",
		func(_ context.Context, b Backend, _ None) (api.Health, error) { return b.Health(), nil })

	// Conversations (SPEC §4, §7).
	ListConversations = declare("ListConversations", "GET /api/v1/conversations",
		"Returns one page of the conversation list, pinned first then newest, optionally filtered by q and by project.",
		func(ctx context.Context, b Backend, r api.ListConversationsArgs) (api.ConversationPage, error) {
			limit := api.DefaultPageSize
			if r.Limit != nil {
				limit = *r.Limit
			}
			return b.ListConversations(ctx, limit, r.Cursor, r.Q, r.Project)
		}, Query("limit", "cursor", "q", "project"), QueryError(service.ErrBadPageSize))
	CreateConversation = declare("CreateConversation", "POST /api/v1/conversations",
		"Starts an empty conversation with an optional title, assistant profile and project.",
		func(ctx context.Context, b Backend, r api.CreateConversationArgs) (*chat.Conversation, error) {
			return b.CreateConversationIn(ctx, r.Title, r.Assistant, r.ProjectID)
		}, Status(http.StatusCreated), OptionalBody())
	GetConversation = declare("GetConversation", "GET /api/v1/conversations/{id}",
		"Returns the conversation with its visible path (or the last messages of it, before a message), run state and pending card.",
		func(ctx context.Context, b Backend, r api.GetConversationArgs) (*api.ConversationDetail, error) {
			w, err := windowOf(r.Last, r.Before)
			if err != nil {
				return nil, err
			}
			return b.GetConversationWindow(ctx, r.ID, w)
		}, Query("last", "before"), QueryError(errBadLast))
	UpdateConversation = declare("UpdateConversation", "PATCH /api/v1/conversations/{id}",
		"Changes the title, pin, assistant profile, model, thinking setting, collections and/or project; returns the conversation.",
		func(ctx context.Context, b Backend, r api.UpdateConversationArgs) (*api.ConversationDetail, error) {
			return b.UpdateConversation(ctx, r.ID, r.ConversationUpdate)
		})
	DeleteConversation = declare("DeleteConversation", "DELETE /api/v1/conversations/{id}",
		"Stops the conversation's run, cancels its cards and deletes it.",
		func(ctx context.Context, b Backend, r api.ByID) (api.Deleted, error) {
			return api.Deleted{Deleted: true}, b.DeleteConversation(ctx, r.ID)
		})
	Send = declare("Send", "POST /api/v1/conversations/{id}/messages",
		"Stores a user message, with its files and optionally under an earlier message (an edit), and starts a run.",
		func(ctx context.Context, b Backend, r api.SendArgs) (api.RunStarted, error) {
			if r.Content == nil && len(r.Attachments) == 0 {
				return api.RunStarted{}, inputError(`"content" is required`)
			}
			req := api.SendRequest{ParentID: r.ParentID, Attachments: r.Attachments}
			if r.Content != nil {
				req.Content = *r.Content
			}
			return runStarted(b.Send(ctx, r.ID, req))
		}, Status(http.StatusAccepted), MaxBody(api.MaxMessageBodyBytes))
	Regenerate = declare("Regenerate", "POST /api/v1/conversations/{id}/regenerate",
		"Asks for a new reply beside the reply of message_id, by model when given.",
		func(ctx context.Context, b Backend, r api.RegenerateArgs) (api.RunStarted, error) {
			return runStarted(b.Regenerate(ctx, r.ID, r.MessageID, r.Model))
		}, Status(http.StatusAccepted))
	SelectBranch = declare("SelectBranch", "PUT /api/v1/conversations/{id}/branch",
		"Makes the path through message_id the visible one; returns the conversation (with the last messages of the path only, when given).",
		func(ctx context.Context, b Backend, r api.SelectBranchArgs) (*api.ConversationDetail, error) {
			w, err := windowOf(r.Last, "")
			if err != nil {
				return nil, err
			}
			return b.SelectBranchWindow(ctx, r.ID, r.MessageID, w)
		})
	ForkQuestion = declare("ForkQuestion", "POST /api/v1/conversations/{id}/questions/{question_id}/fork",
		"Changes an answered card's answer on a new branch, which then runs.",
		func(ctx context.Context, b Backend, r api.ForkQuestionArgs) (api.RunStarted, error) {
			return runStarted(b.ForkQuestion(ctx, r.ID, r.QuestionID, api.ForkRequest{Answers: r.Answers, Comments: r.Comments}))
		}, Status(http.StatusAccepted))
	Retry = declare("Retry", "POST /api/v1/conversations/{id}/retry",
		"Runs the assistant again on the saved history, without adding a user message.",
		func(ctx context.Context, b Backend, r api.ByID) (api.RunStarted, error) {
			return runStarted(b.Retry(ctx, r.ID))
		}, Status(http.StatusAccepted))
	Cancel = declare("Cancel", "POST /api/v1/conversations/{id}/cancel",
		"Stops the active run; a pending card is cancelled.",
		func(ctx context.Context, b Backend, r api.ByID) (api.OK, error) {
			return api.OK{OK: true}, b.Cancel(ctx, r.ID)
		})
	ExportConversation = declare("ExportConversation", "GET /api/v1/conversations/{id}/export",
		"Exports the conversation as Markdown or JSON.",
		func(ctx context.Context, b Backend, r api.ExportArgs) (api.ExportedFile, error) {
			out, err := b.ExportConversation(ctx, r.ID, r.Format)
			if err != nil {
				return api.ExportedFile{}, err
			}
			mime := "text/markdown; charset=utf-8"
			if r.Format == "json" {
				mime = "application/json"
			}
			return api.ExportedFile{Name: b.ExportFileName(ctx, r.ID, r.Format), MimeType: mime, Content: out}, nil
		}, Query("format"), File())
	ImportConversation = declare("ImportConversation", "POST /api/v1/conversations/import",
		"Adds a conversation exported as JSON, with new ids.",
		func(ctx context.Context, b Backend, r api.ImportArgs) (*chat.Conversation, error) {
			return b.ImportConversation(ctx, []byte(r.Data))
		}, RawBody("data"), MaxBody(api.MaxImportBytes), Status(http.StatusCreated))

	// Projects and the full backup (SPEC §14).
	Projects = declare("Projects", "GET /api/v1/projects", "Returns the projects by name.",
		func(ctx context.Context, b Backend, _ None) ([]chat.Project, error) { return b.Projects(ctx) })
	CreateProject = declare("CreateProject", "POST /api/v1/projects",
		"Stores a project: a name, and optionally instructions, collections, a profile and a model.",
		func(ctx context.Context, b Backend, r api.ProjectRequest) (*chat.Project, error) {
			return b.CreateProject(ctx, r)
		}, Status(http.StatusCreated))
	GetProject = declare("GetProject", "GET /api/v1/projects/{id}", "Returns one project.",
		func(ctx context.Context, b Backend, r api.ByID) (*chat.Project, error) { return b.Project(ctx, r.ID) })
	UpdateProject = declare("UpdateProject", "PATCH /api/v1/projects/{id}",
		"Changes the name, instructions, collections, profile and/or model of a project.",
		func(ctx context.Context, b Backend, r api.UpdateProjectArgs) (*chat.Project, error) {
			return b.UpdateProject(ctx, r.ID, r.ProjectRequest)
		})
	DeleteProject = declare("DeleteProject", "DELETE /api/v1/projects/{id}",
		"Deletes a project; its conversations stay, out of any project, unless with_conversations.",
		func(ctx context.Context, b Backend, r api.DeleteProjectArgs) (api.Deleted, error) {
			return api.Deleted{Deleted: true}, b.DeleteProject(ctx, r.ID, r.WithConversations)
		}, Query("with_conversations"))
	ExportBackup = declare("ExportBackup", "GET /api/v1/export",
		"Exports every project and conversation as one JSON backup.",
		func(ctx context.Context, b Backend, _ None) (api.ExportedFile, error) {
			out, err := b.ExportBackup(ctx)
			if err != nil {
				return api.ExportedFile{}, err
			}
			return api.ExportedFile{Name: service.BackupFileName(time.Now()), MimeType: "application/json", Content: out}, nil
		}, File())
	ImportBackup = declare("ImportBackup", "POST /api/v1/import",
		"Restores a backup; what is here already is left as it is, so importing it twice adds nothing twice.",
		func(ctx context.Context, b Backend, r api.ImportBackupArgs) (api.BackupImported, error) {
			return b.ImportBackup(ctx, []byte(r.Data))
		}, RawBody("data"), MaxBody(api.MaxBackupBytes))

	// Question cards (SPEC §2, §4).
	PendingQuestion = declare("PendingQuestion", "GET /api/v1/conversations/{id}/pending-question",
		"Returns the conversation's pending card, if any.",
		func(ctx context.Context, b Backend, r api.ByID) (api.PendingQuestionState, error) {
			// The card and the state; of the messages, only the newest.
			d, err := b.GetConversationWindow(ctx, r.ID, store.Window{Last: 1})
			if err != nil {
				return api.PendingQuestionState{}, err
			}
			return api.PendingQuestionState{HasPendingQuestion: d.PendingQuestion != nil, Card: d.PendingQuestion}, nil
		})
	Respond = declare("Respond", "POST /api/v1/conversations/{id}/respond",
		"Answers, skips, declines or cancels the conversation's pending card; returns the card.",
		func(ctx context.Context, b Backend, r api.RespondArgs) (*questions.Card, error) {
			return b.Respond(ctx, r.ID, r.Response)
		})
	ConversationQuestions = declare("ConversationQuestions", "GET /api/v1/conversations/{id}/questions",
		"Returns one conversation's cards, oldest first.",
		func(ctx context.Context, b Backend, r api.ByID) ([]*questions.Card, error) {
			return b.ConversationQuestions(ctx, r.ID)
		})
	Questions = declare("Questions", "GET /api/v1/questions",
		"Returns the cards of every conversation, by status when given (\"pending\": the inbox).",
		func(ctx context.Context, b Backend, r api.QuestionsArgs) ([]*questions.Card, error) {
			return b.Questions(ctx, r.Status)
		}, Query("status"))

	// Models (SPEC §4, §5).
	ListModels = declare("ListModels", "GET /api/v1/models",
		"Returns the models the configured server offers.",
		func(ctx context.Context, b Backend, _ None) ([]service.ModelInfo, error) { return b.ListModels(ctx) })
	CheckModelServer = declare("CheckModelServer", "GET /api/v1/models/status",
		"Says whether the model server answers, and its models.",
		func(ctx context.Context, b Backend, _ None) (service.ModelStatus, error) {
			return b.CheckModelServer(ctx), nil
		})
	PullModel = declare("PullModel", "POST /api/v1/models/pull",
		"Downloads an Ollama model; progress comes as model:pull events.",
		func(ctx context.Context, b Backend, r api.PullModelArgs) (api.PullDone, error) {
			return api.PullDone{Status: "success"}, b.PullModel(ctx, r.Model)
		})
	ModelStats = declare("ModelStats", "GET /api/v1/models/stats",
		"Returns how well each model asks.",
		func(ctx context.Context, b Backend, _ None) ([]store.ModelStats, error) { return b.ModelStats(ctx) })
	ResetModelStats = declare("ResetModelStats", "DELETE /api/v1/models/stats",
		"Forgets every model's statistics.",
		func(ctx context.Context, b Backend, _ None) (api.Reset, error) {
			return api.Reset{Reset: true}, b.ResetModelStats(ctx)
		})

	// The built-in engine (SPEC §12).
	EngineStatus = declare("EngineStatus", "GET /api/v1/engine",
		"Says the built-in engine's state: stopped, starting, ready or error, its model and backend.",
		func(ctx context.Context, b Backend, _ None) (engine.Status, error) { return b.EngineStatus(ctx) })
	// Its model library (SPEC §12): Settings → Models and onboarding.
	EngineModels = declare("EngineModels", "GET /api/v1/engine/models",
		"Returns the installed models, each checked: ready, or broken with the reason.",
		func(ctx context.Context, b Backend, _ None) ([]library.Model, error) { return b.EngineModels(ctx) })
	EngineCatalog = declare("EngineCatalog", "GET /api/v1/engine/catalog",
		"Returns the curated catalogue of models on the Hugging Face hub, each saying whether it is installed.",
		func(ctx context.Context, b Backend, _ None) ([]library.CatalogEntry, error) {
			return b.EngineCatalog(ctx)
		})
	StartEngineDownload = declare("StartEngineDownload", "POST /api/v1/engine/downloads",
		"Queues a download from the hub (a catalogue entry, or a repository's GGUF file); progress comes as engine:download events.",
		func(ctx context.Context, b Backend, r api.EngineDownloadRequest) (library.Download, error) {
			return b.StartEngineDownload(ctx, r)
		}, Status(http.StatusAccepted))
	CheckHubFile = declare("CheckHubFile", "GET /api/v1/engine/hub/file",
		"Asks the hub about a GGUF by repository and file before downloading it: its size, the memory it would need against this machine's, and whether the disk holds it.",
		func(ctx context.Context, b Backend, r api.HubFileArgs) (library.HubFile, error) {
			return b.CheckHubFile(ctx, r)
		}, Query("repo", "file", "revision"))
	EngineDownloads = declare("EngineDownloads", "GET /api/v1/engine/downloads",
		"Returns the downloads, oldest first.",
		func(ctx context.Context, b Backend, _ None) ([]library.Download, error) {
			return b.EngineDownloads(ctx)
		})
	PauseEngineDownload = declare("PauseEngineDownload", "POST /api/v1/engine/downloads/{id}/pause",
		"Pauses a download; its bytes stay for resume.",
		func(ctx context.Context, b Backend, r api.ByID) (library.Download, error) {
			return b.PauseEngineDownload(ctx, r.ID)
		})
	ResumeEngineDownload = declare("ResumeEngineDownload", "POST /api/v1/engine/downloads/{id}/resume",
		"Resumes a paused or failed download from where it stopped.",
		func(ctx context.Context, b Backend, r api.ByID) (library.Download, error) {
			return b.ResumeEngineDownload(ctx, r.ID)
		})
	CancelEngineDownload = declare("CancelEngineDownload", "DELETE /api/v1/engine/downloads/{id}",
		"Cancels a download and deletes its partial file.",
		func(ctx context.Context, b Backend, r api.ByID) (library.Download, error) {
			return b.CancelEngineDownload(ctx, r.ID)
		})
	ImportEngineModel = declare("ImportEngineModel", "POST /api/v1/engine/models/import",
		"Adds a GGUF file from the disk by its absolute path, used in place (not copied).",
		func(ctx context.Context, b Backend, r api.ImportModelArgs) (library.Model, error) {
			return b.ImportEngineModel(ctx, r.Path)
		}, Status(http.StatusCreated))
	UpdateEngineModel = declare("UpdateEngineModel", "PATCH /api/v1/engine/models/{id}",
		"Changes an installed model: allow_large loads it even though it needs more memory than the machine has.",
		func(ctx context.Context, b Backend, r api.UpdateEngineModelArgs) (library.Model, error) {
			return b.UpdateEngineModel(ctx, r)
		})
	DeleteEngineModel = declare("DeleteEngineModel", "DELETE /api/v1/engine/models/{id}",
		"Deletes a downloaded model's file; an imported model is only forgotten.",
		func(ctx context.Context, b Backend, r api.ByID) (api.Deleted, error) {
			return api.Deleted{Deleted: true}, b.DeleteEngineModel(ctx, r.ID)
		})

	// Updates (SPEC §13): Settings → About.
	GetUpdate = declare("GetUpdate", "GET /api/v1/update",
		"Says the running version, the install kind, whether automatic checks are on, the updater's state and the update available, if any.",
		func(_ context.Context, b Backend, _ None) (update.Status, error) { return b.UpdateStatus(), nil })
	CheckUpdate = declare("CheckUpdate", "POST /api/v1/update/check",
		"Checks the signed feed now (a verified update is then downloaded in the background) and answers the state after the check.",
		func(ctx context.Context, b Backend, _ None) (update.Status, error) { return b.CheckUpdate(ctx) })
	ApplyUpdate = declare("ApplyUpdate", "POST /api/v1/update/apply",
		"Installs the verified, downloaded update and restarts into it; 409 when none is ready.",
		func(ctx context.Context, b Backend, _ None) (update.Status, error) { return b.ApplyUpdate(ctx) },
		Status(http.StatusAccepted))

	// Settings and assistant profiles.
	GetSettings = declare("GetSettings", "GET /api/v1/settings", "Returns the effective settings.",
		func(_ context.Context, b Backend, _ None) (service.Settings, error) { return b.GetSettings(), nil })
	SaveSettings = declare("SaveSettings", "PUT /api/v1/settings",
		"Validates and stores the settings, applying them at once; returns the effective settings.",
		func(ctx context.Context, b Backend, r service.Settings) (service.Settings, error) {
			return b.SaveSettings(ctx, r)
		},
	).startFrom(func(_ context.Context, b Backend) service.Settings { return b.GetSettings() })
	ExportSettings = declare("ExportSettings", "GET /api/v1/settings/export",
		"Returns the settings, profiles and model statistics, without the API key.",
		func(ctx context.Context, b Backend, _ None) (service.SettingsExport, error) {
			return b.ExportSettings(ctx)
		},
		Attachment("parley-settings.json"))
	Profiles = declare("Profiles", "GET /api/v1/profiles", "Returns the assistant profiles; the default one is first.",
		func(ctx context.Context, b Backend, _ None) ([]assistant.Profile, error) { return b.Profiles(ctx) })
	SaveProfile = declare("SaveProfile", "PUT /api/v1/profiles/{name}", "Creates or replaces a profile after checking it.",
		func(ctx context.Context, b Backend, p assistant.Profile) (assistant.Profile, error) {
			return b.SaveProfile(ctx, p)
		})
	DeleteProfile = declare("DeleteProfile", "DELETE /api/v1/profiles/{name}",
		"Deletes a profile; deleting the default one resets it to its defaults.",
		func(ctx context.Context, b Backend, r api.ByName) (api.Deleted, error) {
			return api.Deleted{Deleted: true}, b.DeleteProfile(ctx, r.Name)
		})
	AvailableTools = declare("AvailableTools", "GET /api/v1/tools", "Returns the tools a profile may opt in to.",
		func(ctx context.Context, b Backend, _ None) ([]service.ToolInfo, error) {
			tools := b.AvailableTools()
			if lang := language(ctx); lang != "" {
				for i := range tools {
					if tools[i].Text.Key != "" {
						tools[i].Description = tools[i].Text.In(lang)
					}
				}
			}
			return tools, nil
		})

	// MCP servers (SPEC §6).
	MCPServers = declare("MCPServers", "GET /api/v1/mcp/servers",
		"Returns the MCP servers with their state and tools; secrets come back as key names only.",
		func(_ context.Context, b Backend, _ None) ([]api.MCPServer, error) { return b.MCPServers(), nil })
	GetMCPServer = declare("GetMCPServer", "GET /api/v1/mcp/servers/{name}", "Returns one MCP server with its state and tools.",
		func(_ context.Context, b Backend, r api.ByName) (api.MCPServer, error) { return b.MCPServer(r.Name) })
	PutMCPServer = declare("PutMCPServer", "PUT /api/v1/mcp/servers/{name}",
		"Adds or replaces a server; an env or header value left out (or masked) keeps the stored secret.",
		func(_ context.Context, b Backend, r api.PutMCPServerArgs) (api.MCPServer, error) {
			return b.PutMCPServer(r.Name, r.MCPServerConfig)
		})
	DeleteMCPServer = declare("DeleteMCPServer", "DELETE /api/v1/mcp/servers/{name}", "Stops and removes a server.",
		func(_ context.Context, b Backend, r api.ByName) (api.Deleted, error) {
			return api.Deleted{Deleted: true}, b.DeleteMCPServer(r.Name)
		})
	SetMCPToolPolicy = declare("SetMCPToolPolicy", "PUT /api/v1/mcp/servers/{name}/tools/{tool}",
		"Sets whether a server's tool runs, asks first or is blocked.",
		func(_ context.Context, b Backend, r api.MCPToolPolicyArgs) (api.MCPTool, error) {
			return b.SetMCPToolPolicy(r.Name, r.Tool, r.Policy)
		})
	ImportMCPConfig = declare("ImportMCPConfig", "POST /api/v1/mcp/import",
		"Adds the servers of another host's mcp.json or claude_desktop_config.json.",
		func(_ context.Context, b Backend, r api.ImportMCPConfigArgs) (api.MCPImportResult, error) {
			return b.ImportMCPConfig([]byte(r.Content))
		}, RawBody("content"))

	// Knowledge collections (SPEC §11).
	Collections = declare("Collections", "GET /api/v1/knowledge", "Returns the collections, oldest first.",
		func(ctx context.Context, b Backend, _ None) ([]api.Collection, error) { return b.Collections(ctx) })
	CreateCollection = declare("CreateCollection", "POST /api/v1/knowledge",
		"Stores a collection and starts indexing it; progress comes as knowledge:progress events.",
		func(ctx context.Context, b Backend, r api.CollectionRequest) (api.Collection, error) {
			return b.CreateCollection(ctx, r)
		}, Status(http.StatusCreated))
	GetCollection = declare("GetCollection", "GET /api/v1/knowledge/{id}", "Returns one collection.",
		func(ctx context.Context, b Backend, r api.ByID) (api.Collection, error) {
			return b.Collection(ctx, r.ID)
		})
	UpdateCollection = declare("UpdateCollection", "PATCH /api/v1/knowledge/{id}",
		"Renames a collection or changes its paths (indexed again).",
		func(ctx context.Context, b Backend, r api.UpdateCollectionArgs) (api.Collection, error) {
			return b.UpdateCollection(ctx, r.ID, r.CollectionRequest)
		})
	DeleteCollection = declare("DeleteCollection", "DELETE /api/v1/knowledge/{id}", "Deletes the index (never the files).",
		func(ctx context.Context, b Backend, r api.ByID) (api.Deleted, error) {
			return api.Deleted{Deleted: true}, b.DeleteCollection(ctx, r.ID)
		})
	ReindexCollection = declare("ReindexCollection", "POST /api/v1/knowledge/{id}/reindex", "Indexes the collection again.",
		func(ctx context.Context, b Backend, r api.ByID) (api.Reindexing, error) {
			return api.Reindexing{Reindexing: true}, b.ReindexCollection(ctx, r.ID)
		}, Status(http.StatusAccepted))
	CancelCollection = declare("CancelCollection", "POST /api/v1/knowledge/{id}/cancel",
		"Stops indexing; what was indexed stays searchable.",
		func(ctx context.Context, b Backend, r api.ByID) (api.Collection, error) {
			return b.CancelCollection(ctx, r.ID)
		})
	SearchCollection = declare("SearchCollection", "POST /api/v1/knowledge/{id}/search", "Searches one collection.",
		func(ctx context.Context, b Backend, r api.SearchCollectionArgs) (api.KnowledgeSearchResponse, error) {
			return b.SearchCollection(ctx, r.ID, r.KnowledgeSearchRequest)
		})

	// Memory (SPEC §14): Settings → Memory.
	Memories = declare("Memories", "GET /api/v1/memory",
		"Returns the memories, newest first: every one (project \"all\" or none), those of no project (\"none\"), or a project's own.",
		func(ctx context.Context, b Backend, r api.MemoriesArgs) ([]memory.Memory, error) {
			return b.Memories(ctx, r.Project)
		}, Query("project"))
	CreateMemory = declare("CreateMemory", "POST /api/v1/memory",
		"Keeps a memory the user typed, for every conversation or one project's; refused while memory is off.",
		func(ctx context.Context, b Backend, r api.MemoryRequest) (memory.Memory, error) {
			return b.CreateMemory(ctx, r)
		}, Status(http.StatusCreated))
	UpdateMemory = declare("UpdateMemory", "PATCH /api/v1/memory/{id}",
		"Changes a memory's text and/or whether it answers cards (auto_answer: memories made from an answer only).",
		func(ctx context.Context, b Backend, r api.UpdateMemoryArgs) (memory.Memory, error) {
			return b.UpdateMemory(ctx, r.ID, r.MemoryUpdate)
		})
	DeleteMemory = declare("DeleteMemory", "DELETE /api/v1/memory/{id}", "Forgets one memory.",
		func(ctx context.Context, b Backend, r api.ByID) (api.Deleted, error) {
			return api.Deleted{Deleted: true}, b.DeleteMemory(ctx, r.ID)
		})
	DeleteAllMemories = declare("DeleteAllMemories", "DELETE /api/v1/memory", "Forgets every memory.",
		func(ctx context.Context, b Backend, _ None) (api.Deleted, error) {
			return api.Deleted{Deleted: true}, b.DeleteAllMemories(ctx)
		})

	// Agent tokens (SPEC §10): Settings → Agents.
	AgentTokens = declare("AgentTokens", "GET /api/v1/agent-tokens", "Returns the agent tokens, never their secrets.",
		func(ctx context.Context, b Backend, _ None) ([]api.AgentToken, error) { return b.AgentTokens(ctx) }, ForAgents())
	CreateAgentToken = declare("CreateAgentToken", "POST /api/v1/agent-tokens", "Makes a token; its secret is in the answer this once.",
		func(ctx context.Context, b Backend, r api.AgentTokenRequest) (api.NewAgentToken, error) {
			return b.CreateAgentToken(ctx, r.Name)
		}, ForAgents(), Status(http.StatusCreated))
	RevokeAgentToken = declare("RevokeAgentToken", "DELETE /api/v1/agent-tokens/{id}", "Deletes a token: it stops working at once.",
		func(ctx context.Context, b Backend, r api.ByID) (None, error) {
			return None{}, b.RevokeAgentToken(ctx, r.ID)
		},
		ForAgents(), Status(http.StatusNoContent))

	// The card trace (backend/trace), while PARLEY_TRACE=1: the latency bench.
	ReportTrace = declare("ReportTrace", "POST /api/v1/debug/trace", "Records the page's marks of the card trace.",
		func(_ context.Context, _ Backend, marks []trace.PageMark) (None, error) {
			if !trace.Enabled() {
				return None{}, errTraceOff
			}
			if err := trace.Report(marks); err != nil {
				return None{}, inputError(err.Error())
			}
			return None{}, nil
		}, Status(http.StatusNoContent))
	Trace = declare("Trace", "GET /api/v1/debug/trace", "Returns the card trace's records.",
		func(_ context.Context, _ Backend, _ None) (api.TraceRecords, error) {
			if !trace.Enabled() {
				return api.TraceRecords{}, errTraceOff
			}
			return api.TraceRecords{Records: trace.Snapshot()}, nil
		})
)

// errTraceOff: the trace's calls are not there while tracing is off.
var errTraceOff = fault.Newf(fault.NotFound, "no such endpoint")

// inputError is a request the client got wrong (400), in words only API
// clients see.
func inputError(msg string) error { return fault.Newf(fault.Input, "%s", msg) }

// runStarted is the answer of a call that started a run.
func runStarted(runID string, err error) (api.RunStarted, error) {
	if err != nil {
		return api.RunStarted{}, err
	}
	return api.RunStarted{RunID: runID}, nil
}

// ClientName is a call's name in the TypeScript client (lower camel case).
func ClientName(c Call) string {
	n := c.Name()
	i := 0
	for i < len(n) && n[i] >= 'A' && n[i] <= 'Z' {
		i++
	}
	if i > 1 && i < len(n) {
		i-- // "MCPServers" → "mcpServers"
	}
	return strings.ToLower(n[:i]) + n[i:]
}
