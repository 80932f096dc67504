// Package api holds the wire-only types (answers that are not domain
// objects) and the request limits, in one place. It imports nothing of
// Parley's, so the service, the store and both adapters can use it;
// backend/wire lists these and the domain types for the TypeScript generator.
package api

// Health answers GET /api/v1/health and ChatService.Health.
type Health struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	// Trace is set while the card trace is on (PARLEY_TRACE=1): the page
	// then reports its marks (see backend/trace).
	Trace bool `json:"trace,omitempty"`
}

// RunStarted answers a sent message or a retry: the run now under way.
type RunStarted struct {
	RunID string `json:"run_id"`
}

// AppInfo is what the About box and settings show (the window's App.Info).
type AppInfo struct {
	Version string `json:"version"`
	DataDir string `json:"dataDir"`
}

// Limits of requests, in one place (the question limits are in
// backend/questions/limits.go).
const (
	// DefaultPageSize is the conversation list's page size when none is asked for.
	DefaultPageSize = 50
	// MaxPageSize is the largest page of conversations one request gets.
	MaxPageSize = 200
	// MaxBodyBytes bounds an HTTP request body.
	MaxBodyBytes = 1 << 20
	// MaxImportBytes bounds an imported conversation file.
	MaxImportBytes = 64 << 20
	// MaxAttachments bounds the files of one message.
	MaxAttachments = 8
	// MaxTextFileBytes bounds one attached text file (code, Markdown, CSV, JSON, logs).
	MaxTextFileBytes = 1 << 20
	// MaxImageBytes bounds one attached image.
	MaxImageBytes = 5 << 20
	// MaxAttachmentsBytes bounds all the files of one message together.
	MaxAttachmentsBytes = 10 << 20
	// MaxMessageBodyBytes bounds a request that sends a message: its files
	// arrive base64-encoded (4 bytes for 3) beside the text.
	MaxMessageBodyBytes = MaxAttachmentsBytes/3*4 + MaxBodyBytes
)

// RegenerateRequest asks for a new reply beside an assistant message's reply.
type RegenerateRequest struct {
	MessageID string `json:"message_id"`
	// Model answers instead of the conversation's model ("" = its own).
	Model string `json:"model,omitempty"`
}

// BranchRequest makes the path through a message the visible one.
type BranchRequest struct {
	MessageID string `json:"message_id"`
}

// GeneratedPath is where cmd/wiregen writes the TypeScript, from the
// repository root.
const GeneratedPath = "frontend/src/api/wire.gen.ts"
