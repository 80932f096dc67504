package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
)

// ChatService is what the window's frontend calls (window.go.main.ChatService).
// Each method only adapts arguments for Wails and delegates to the domain
// service, which the HTTP API shares.
type ChatService struct {
	svc *service.Service
	ctx context.Context
}

func (c *ChatService) Health() map[string]string {
	return map[string]string{"status": "ok", "version": version}
}

func (c *ChatService) ListConversations(limit int, cursor, q string) (service.ConversationPage, error) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	return c.svc.ListConversations(c.ctx, limit, cursor, q)
}

func (c *ChatService) CreateConversation(title, assistant string) (*chat.Conversation, error) {
	return c.svc.CreateConversation(c.ctx, title, assistant)
}

func (c *ChatService) GetConversation(id string) (*service.ConversationDetail, error) {
	return c.svc.GetConversation(c.ctx, id)
}

func (c *ChatService) RenameConversation(id, title string) error {
	return c.svc.RenameConversation(c.ctx, id, title)
}

func (c *ChatService) SetPinned(id string, pinned bool) error {
	return c.svc.SetPinned(c.ctx, id, pinned)
}

// SetAssistant switches the conversation's assistant profile.
func (c *ChatService) SetAssistant(id, assistant string) error {
	return c.svc.SetAssistant(c.ctx, id, assistant)
}

func (c *ChatService) DeleteConversation(id string) error {
	return c.svc.DeleteConversation(c.ctx, id)
}

func (c *ChatService) SendMessage(id, content string) (map[string]string, error) {
	runID, err := c.svc.SendMessage(c.ctx, id, content)
	if err != nil {
		return nil, err
	}
	return map[string]string{"run_id": runID}, nil
}

func (c *ChatService) Retry(id string) (map[string]string, error) {
	runID, err := c.svc.Retry(c.ctx, id)
	if err != nil {
		return nil, err
	}
	return map[string]string{"run_id": runID}, nil
}

func (c *ChatService) Cancel(id string) error { return c.svc.Cancel(c.ctx, id) }

func (c *ChatService) Respond(id string, r questions.Response) (*questions.Card, error) {
	return c.svc.Respond(c.ctx, id, r)
}

func (c *ChatService) PendingQuestions() []*questions.Card { return c.svc.PendingQuestions() }

func (c *ChatService) ConversationQuestions(id string) ([]*questions.Card, error) {
	return c.svc.ConversationQuestions(c.ctx, id)
}

func (c *ChatService) GetSettings() service.Settings { return c.svc.GetSettings() }

func (c *ChatService) SaveSettings(s service.Settings) (service.Settings, error) {
	return c.svc.SaveSettings(c.ctx, s)
}

func (c *ChatService) ListModels() ([]service.ModelInfo, error) {
	st := c.svc.CheckModelServer(c.ctx)
	if !st.Reachable {
		return nil, &service.InputError{Msg: st.Message}
	}
	return st.Models, nil
}

func (c *ChatService) CheckModelServer() service.ModelStatus { return c.svc.CheckModelServer(c.ctx) }

func (c *ChatService) PullModel(name string) error { return c.svc.PullModel(c.ctx, name) }

// wailsEmitter sends events to the window once it exists.
type wailsEmitter struct {
	ctx atomic.Pointer[context.Context]
}

func (w *wailsEmitter) Emit(name string, payload any) {
	if ctx := w.ctx.Load(); ctx != nil {
		runtime.EventsEmit(*ctx, name, payload)
	}
}

func (c *ChatService) Profiles() ([]service.Profile, error) { return c.svc.Profiles(c.ctx) }

func (c *ChatService) SaveProfile(p service.Profile) (service.Profile, error) {
	return c.svc.SaveProfile(c.ctx, p)
}

func (c *ChatService) DeleteProfile(name string) error { return c.svc.DeleteProfile(c.ctx, name) }

func (c *ChatService) AvailableTools() []service.ToolInfo { return c.svc.AvailableTools() }

// ExportConversation asks where to save and writes the conversation as
// "markdown" or "json". It returns the path, or "" when the user cancelled.
func (c *ChatService) ExportConversation(id, format string) (string, error) {
	out, err := c.svc.ExportConversation(c.ctx, id, format)
	if err != nil {
		return "", err
	}
	ext := "md"
	if format == "json" {
		ext = "json"
	}
	path, err := runtime.SaveFileDialog(c.ctx, runtime.SaveDialogOptions{
		Title: "Export conversation", DefaultFilename: c.svc.ExportFileName(c.ctx, id, format),
		Filters: []runtime.FileFilter{{DisplayName: strings.ToUpper(ext) + " files", Pattern: "*." + ext}},
	})
	if err != nil || path == "" {
		return "", err
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// ImportConversation asks for an exported JSON file and adds it.
func (c *ChatService) ImportConversation() (*chat.Conversation, error) {
	path, err := runtime.OpenFileDialog(c.ctx, runtime.OpenDialogOptions{
		Title:   "Import conversation",
		Filters: []runtime.FileFilter{{DisplayName: "Parley conversation (*.json)", Pattern: "*.json"}},
	})
	if err != nil || path == "" {
		return nil, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > 64<<20 {
		return nil, fmt.Errorf("%s is too large to be a Parley conversation", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return c.svc.ImportConversation(c.ctx, data)
}
