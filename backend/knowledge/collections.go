package knowledge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/store"
)

// Errors of the collection API.
var (
	ErrInvalid  error = fault.Newf(fault.Validation, "invalid collection")
	ErrNotFound       = chat.ErrNotFound
)

// Invalid is a collection or a search that breaks a rule (fault.Validation,
// HTTP 422; errors.Is(err, ErrInvalid)). Its text is the catalogue message
// key (Settings → Knowledge shows it), said again in an HTTP client's
// language by i18n.Localize.
func Invalid(key string, args ...any) error {
	return fault.Wrap(fault.Validation, i18n.M(key, args...), ErrInvalid)
}

// status is indexing while the collection is scanned (or waits to be) or
// its passages wait for vectors, error when a path is gone, else ready.
func (m *Manager) status(ctx context.Context, c *store.Collection) string {
	model := m.opt.Embed().Model // not under m.mu: it takes the settings' lock
	m.mu.Lock()
	busy := m.running == c.ID || m.queued[c.ID]
	embedding, embedErr := m.embedding, m.embedErr
	m.mu.Unlock()
	switch {
	case c.Error != "":
		return api.KnowledgeError
	case busy && !c.Cancelled:
		return api.KnowledgeIndexing
	case model != "" && embedErr == "" && !c.Cancelled:
		if embedding || m.needsVectors(ctx, c.ID, model) {
			return api.KnowledgeIndexing
		}
	}
	return api.KnowledgeReady
}

func (m *Manager) needsVectors(ctx context.Context, id, model string) bool {
	n, err := m.st.CountWithoutVector(ctx, id, model)
	return err == nil && n > 0
}

// Info returns a collection as the API shows it.
func (m *Manager) Info(ctx context.Context, id string) (api.Collection, error) {
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return api.Collection{}, err
	}
	return m.info(ctx, c)
}

func (m *Manager) info(ctx context.Context, c *store.Collection) (api.Collection, error) {
	k, err := m.knowledgeCounts(ctx, c.ID)
	if err != nil {
		return api.Collection{}, err
	}
	out := api.Collection{ID: c.ID, Name: c.Name, Paths: c.Paths, Files: k.Files, IndexedFiles: k.IndexedFiles,
		Chunks: k.Chunks, Cancelled: c.Cancelled, Error: i18n.ShowStored(c.Error, i18n.Current()),
		CreatedAt: c.CreatedAt.Format(time.RFC3339)}
	for _, p := range k.Errors {
		out.Errors = append(out.Errors, api.KnowledgeFileError{Path: p.Path, Error: i18n.ShowStored(p.Error, i18n.Current())})
	}
	if model := m.opt.Embed().Model; model != "" {
		out.EmbeddingModel = &model
		if out.EmbeddedChunks, err = m.st.CountWithVector(ctx, c.ID, model); err != nil {
			return api.Collection{}, err
		}
		m.mu.Lock()
		out.EmbeddingError = i18n.ShowStored(m.embedErr, i18n.Current())
		m.mu.Unlock()
	}
	out.Status = m.status(ctx, c)
	return out, nil
}

// List returns every collection, oldest first.
func (m *Manager) List(ctx context.Context) ([]api.Collection, error) {
	cs, err := m.st.Collections(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]api.Collection, 0, len(cs))
	for i := range cs {
		info, err := m.info(ctx, &cs[i])
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

// checkName trims and checks a collection's name.
func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > api.MaxCollectionName {
		return "", Invalid("knowledge.badName", api.MaxCollectionName)
	}
	return name, nil
}

// checkPaths cleans paths: each absolute and existing, no duplicates.
func checkPaths(paths []string) ([]string, error) {
	if len(paths) == 0 || len(paths) > api.MaxCollectionPaths {
		return nil, Invalid("knowledge.badPathCount", api.MaxCollectionPaths)
	}
	out := make([]string, 0, len(paths))
	seen := map[string]bool{}
	for _, p := range paths {
		p = strings.TrimSpace(p)
		if !filepath.IsAbs(p) {
			return nil, Invalid("knowledge.pathNotAbsolute", p)
		}
		p = filepath.Clean(p)
		if _, err := os.Stat(p); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, Invalid("knowledge.pathMissing", p)
			}
			return nil, Invalid("knowledge.pathUnreadable", p, errDetail(err))
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// Create stores a new collection and starts indexing it.
func (m *Manager) Create(ctx context.Context, name string, paths []string) (api.Collection, error) {
	name, err := checkName(name)
	if err != nil {
		return api.Collection{}, err
	}
	if paths, err = checkPaths(paths); err != nil {
		return api.Collection{}, err
	}
	c, err := m.st.CreateCollection(ctx, name, paths)
	if err != nil {
		return api.Collection{}, err
	}
	m.enqueue(c.ID)
	return m.info(ctx, c)
}

// Update renames a collection and/or changes its paths (indexed again).
func (m *Manager) Update(ctx context.Context, id string, name *string, paths []string) (api.Collection, error) {
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return api.Collection{}, err
	}
	if name != nil {
		if c.Name, err = checkName(*name); err != nil {
			return api.Collection{}, err
		}
	}
	reindex := false
	if paths != nil {
		if c.Paths, err = checkPaths(paths); err != nil {
			return api.Collection{}, err
		}
		reindex, c.Cancelled = true, false
	}
	if reindex {
		m.stopScan(id) // the running scan follows the old paths
	}
	if err := m.st.UpdateCollection(ctx, c); err != nil {
		return api.Collection{}, err
	}
	if reindex {
		m.enqueue(id)
	}
	return m.info(ctx, c)
}

// Reindex scans a collection again (also after a cancel).
func (m *Manager) Reindex(ctx context.Context, id string) error {
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return err
	}
	if c.Cancelled {
		c.Cancelled = false
		if err := m.st.UpdateCollection(ctx, c); err != nil {
			return err
		}
	}
	m.enqueue(id)
	m.wakeEmbed()
	return nil
}

// Cancel stops a collection's indexing; what was indexed stays searchable.
func (m *Manager) Cancel(ctx context.Context, id string) (api.Collection, error) {
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return api.Collection{}, err
	}
	c.Cancelled = true
	if err := m.st.UpdateCollection(ctx, c); err != nil {
		return api.Collection{}, err
	}
	m.stopScan(id)
	m.emitProgress(id, true)
	return m.info(ctx, c)
}

// Delete removes a collection and its index; the files are never touched.
// The collection is gone at once (from the API and from search); its
// passages are removed in the background, in short transactions (also
// after a restart, when the app stopped before they all were).
func (m *Manager) Delete(ctx context.Context, id string) error {
	if _, err := m.st.Collection(ctx, id); err != nil {
		return err
	}
	m.stopScan(id)
	if err := m.st.DeleteCollection(ctx, id); err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.vectors, id)
	delete(m.lastEmit, id)
	delete(m.counts, id)
	m.mu.Unlock()
	m.countsChanged()
	m.wakePurge()
	return nil
}

// EmbeddingChanged restarts the embedding pass with the current settings:
// passages without a vector of the new model are embedded in the background.
func (m *Manager) EmbeddingChanged() {
	m.mu.Lock()
	m.embedErr = ""
	m.mu.Unlock()
	m.vectorsChanged()
	m.wakeEmbed()
}

// Exists tells whether a collection exists.
func (m *Manager) Exists(ctx context.Context, id string) bool {
	_, err := m.st.Collection(ctx, id)
	return err == nil
}
