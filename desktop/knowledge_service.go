package desktop

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/i18n"
)

// KnowledgeService is window.go.desktop.KnowledgeService: the knowledge
// collections (SPEC §11), the native folder and file pickers to fill them,
// and opening a cited file.
type KnowledgeService struct{ binding }

// ListCollections lists the collections with their figures.
func (k *KnowledgeService) ListCollections() ([]api.Collection, error) {
	return wire(k.svc.Collections(k.ctx))
}

// GetCollection returns one collection.
func (k *KnowledgeService) GetCollection(id string) (api.Collection, error) {
	return wire(k.svc.Collection(k.ctx, id))
}

// CreateCollection stores a collection and starts indexing it.
func (k *KnowledgeService) CreateCollection(req api.CollectionRequest) (api.Collection, error) {
	return wire(k.svc.CreateCollection(k.ctx, req))
}

// UpdateCollection renames a collection or changes its paths.
func (k *KnowledgeService) UpdateCollection(id string, req api.CollectionRequest) (api.Collection, error) {
	return wire(k.svc.UpdateCollection(k.ctx, id, req))
}

// ReindexCollection indexes a collection again.
func (k *KnowledgeService) ReindexCollection(id string) error {
	return k.svc.ReindexCollection(k.ctx, id)
}

// CancelCollection stops a collection's indexing.
func (k *KnowledgeService) CancelCollection(id string) (api.Collection, error) {
	return wire(k.svc.CancelCollection(k.ctx, id))
}

// DeleteCollection removes a collection's index (never its files).
func (k *KnowledgeService) DeleteCollection(id string) error {
	return k.svc.DeleteCollection(k.ctx, id)
}

// SearchCollection searches one collection.
func (k *KnowledgeService) SearchCollection(id string, req api.KnowledgeSearchRequest) (api.KnowledgeSearchResponse, error) {
	return wire(k.svc.SearchCollection(k.ctx, id, req))
}

// SetConversationKnowledge attaches collections to a conversation.
func (k *KnowledgeService) SetConversationKnowledge(conversationID string, ids []string) error {
	return k.svc.SetConversationKnowledge(k.ctx, conversationID, ids)
}

// ChooseFolder asks for a folder with the system's dialog ("" when cancelled).
func (k *KnowledgeService) ChooseFolder() (string, error) {
	return runtime.OpenDirectoryDialog(k.ctx, runtime.OpenDialogOptions{Title: i18n.T("dialog.addFolder")})
}

// ChooseFiles asks for files with the system's dialog (none when cancelled).
func (k *KnowledgeService) ChooseFiles() ([]string, error) {
	return wire(runtime.OpenMultipleFilesDialog(k.ctx, runtime.OpenDialogOptions{Title: i18n.T("dialog.addFiles")}))
}

// OpenSource opens a cited file with the system's application for it,
// through the same opener as links, and only a file that a collection
// indexes (a reply cannot make Parley open anything else).
func (k *KnowledgeService) OpenSource(path string) error {
	link, err := sourceURL(path)
	if err != nil {
		return err
	}
	if k.ctx == nil {
		return errors.New("open file: the window is not ready")
	}
	if !k.svc.IndexedFile(k.ctx, path) {
		return fmt.Errorf("open %s: it is not a file of a knowledge collection", path)
	}
	runtime.BrowserOpenURL(k.ctx, link)
	return nil
}

// sourceURL is the file: URL of an absolute path without control characters.
func sourceURL(path string) (string, error) {
	if !filepath.IsAbs(path) || strings.ContainsAny(path, "\x00\r\n") || filepath.Clean(path) != path {
		return "", fmt.Errorf("open %q: not a clean absolute path", path)
	}
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/... on Windows
	}
	return (&url.URL{Scheme: "file", Path: p}).String(), nil
}
