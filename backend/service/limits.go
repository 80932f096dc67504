package service

import (
	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/store"
)

// The limits both adapters (the Wails bindings and the HTTP API) enforce,
// through the service: one number each, in one place.
const (
	// MaxMessageChars bounds one user message.
	MaxMessageChars = 100_000
	// MaxTitleChars bounds a conversation title (the store's bound, which
	// imported titles keep too).
	MaxTitleChars = store.MaxTitleRunes
	// DefaultPageSize is the conversation page size when none is asked for.
	DefaultPageSize = api.DefaultPageSize
	// MaxPageSize bounds one page of the conversation list.
	MaxPageSize = api.MaxPageSize
	// MaxImportBytes bounds an imported conversation file.
	MaxImportBytes = api.MaxImportBytes
	// MaxSystemPromptChars bounds an assistant profile's system prompt.
	MaxSystemPromptChars = 20000
)
