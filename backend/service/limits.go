package service

// The limits both adapters (the Wails bindings and the HTTP API) enforce,
// through the service: one number each, in one place.
const (
	// MaxMessageChars bounds one user message.
	MaxMessageChars = 100_000
	// MaxTitleChars bounds a conversation title.
	MaxTitleChars = 200
	// DefaultPageSize is the conversation page size when none is asked for.
	DefaultPageSize = 50
	// MaxPageSize bounds one page of the conversation list.
	MaxPageSize = 200
	// MaxImportBytes bounds an imported conversation file.
	MaxImportBytes = 64 << 20
	// MaxSystemPromptChars bounds an assistant profile's system prompt.
	MaxSystemPromptChars = 20000
)
