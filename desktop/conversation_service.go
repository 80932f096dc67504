package desktop

import (
	"fmt"
	"os"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/service"
)

// ConversationService is window.go.desktop.ConversationService: the
// conversation list, one conversation's messages and runs, export and import.
type ConversationService struct{ binding }

// ListConversations returns one page (limit 1 to service.MaxPageSize),
// pinned first then newest, optionally filtered by q.
func (c *ConversationService) ListConversations(limit int, cursor, q string) (service.ConversationPage, error) {
	return wire(c.svc.ListConversations(c.ctx, limit, cursor, q))
}

// CreateConversation starts an empty conversation with an optional title
// and assistant profile ("" = the default).
func (c *ConversationService) CreateConversation(title, assistant string) (*chat.Conversation, error) {
	return wire(c.svc.CreateConversation(c.ctx, title, assistant))
}

// GetConversation returns the conversation with its messages, run state and
// pending card.
func (c *ConversationService) GetConversation(id string) (*service.ConversationDetail, error) {
	return wire(c.svc.GetConversation(c.ctx, id))
}

// RenameConversation sets the title.
func (c *ConversationService) RenameConversation(id, title string) error {
	return c.svc.RenameConversation(c.ctx, id, title)
}

// SetPinned pins or unpins the conversation.
func (c *ConversationService) SetPinned(id string, pinned bool) error {
	return c.svc.SetPinned(c.ctx, id, pinned)
}

// SetModel chooses the conversation's model ("" = its profile's or the default).
func (c *ConversationService) SetModel(id, model string) error {
	return c.svc.SetModel(c.ctx, id, model)
}

// SetThinking chooses the conversation's thinking setting ("" = its profile's).
func (c *ConversationService) SetThinking(id, thinking string) error {
	return c.svc.SetThinking(c.ctx, id, thinking)
}

// SetAssistant switches the conversation's assistant profile.
func (c *ConversationService) SetAssistant(id, assistant string) error {
	return c.svc.SetAssistant(c.ctx, id, assistant)
}

// DeleteConversation stops its run, cancels its cards and deletes it.
func (c *ConversationService) DeleteConversation(id string) error {
	return c.svc.DeleteConversation(c.ctx, id)
}

// Send stores a user message, with its files and optionally under an
// earlier message (an edit: SPEC §7), and starts a run; it returns the run
// started. It is the one way to send, as POST .../messages is over HTTP.
func (c *ConversationService) Send(id string, req service.SendRequest) (api.RunStarted, error) {
	return runStarted(c.svc.Send(c.ctx, id, req))
}

// Regenerate asks for a new reply beside the reply of messageID, by model
// when given (else the conversation's); it returns the run started.
func (c *ConversationService) Regenerate(id, messageID, model string) (api.RunStarted, error) {
	return runStarted(c.svc.Regenerate(c.ctx, id, messageID, model))
}

// SelectBranch makes the path through messageID the visible one and returns
// the conversation.
func (c *ConversationService) SelectBranch(id, messageID string) (*service.ConversationDetail, error) {
	return wire(c.svc.SelectBranch(c.ctx, id, messageID))
}

// ForkQuestion changes the answer of an answered card on a new branch; it
// returns the run started.
func (c *ConversationService) ForkQuestion(id, questionID string, req service.ForkRequest) (api.RunStarted, error) {
	return runStarted(c.svc.ForkQuestion(c.ctx, id, questionID, req))
}

// runStarted is what the bound methods that start a run return: the body
// of the HTTP API's 202 for the same request.
func runStarted(runID string, err error) (api.RunStarted, error) {
	if err != nil {
		return api.RunStarted{}, err
	}
	return api.RunStarted{RunID: runID}, nil
}

// Retry runs the model again on the saved history; it returns the run
// started, as the HTTP API does.
func (c *ConversationService) Retry(id string) (api.RunStarted, error) {
	return runStarted(c.svc.Retry(c.ctx, id))
}

// Cancel stops the active run; a pending card is cancelled.
func (c *ConversationService) Cancel(id string) error { return c.svc.Cancel(c.ctx, id) }

// ExportConversation asks where to save and writes the conversation as
// "markdown" or "json". It returns the path, or "" when the user cancelled.
func (c *ConversationService) ExportConversation(id, format string) (string, error) {
	out, err := c.svc.ExportConversation(c.ctx, id, format)
	if err != nil {
		return "", err
	}
	ext := "md"
	if format == "json" {
		ext = "json"
	}
	path, err := runtime.SaveFileDialog(c.ctx, runtime.SaveDialogOptions{
		Title: i18n.T("dialog.exportConversation"), DefaultFilename: c.svc.ExportFileName(c.ctx, id, format),
		Filters: []runtime.FileFilter{{DisplayName: i18n.T("dialog.filesOfType", strings.ToUpper(ext)), Pattern: "*." + ext}},
	})
	if err != nil || path == "" {
		return "", err
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// ImportConversation asks for an exported JSON file and adds it; nil when
// the user cancelled.
func (c *ConversationService) ImportConversation() (*chat.Conversation, error) {
	path, err := runtime.OpenFileDialog(c.ctx, runtime.OpenDialogOptions{
		Title:   i18n.T("dialog.importConversation"),
		Filters: []runtime.FileFilter{{DisplayName: i18n.T("dialog.parleyConversation"), Pattern: "*.json"}},
	})
	if err != nil || path == "" {
		return nil, err
	}
	return c.importFile(path)
}

// importFile adds the conversation exported to path; a file over
// service.MaxImportBytes is refused before it is read.
func (c *ConversationService) importFile(path string) (*chat.Conversation, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > service.MaxImportBytes {
		return nil, fmt.Errorf("%s is %w", path, service.ErrTooLarge)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return wire(c.svc.ImportConversation(c.ctx, data))
}
