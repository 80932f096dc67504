package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/knowledge"
)

// Knowledge (SPEC §11): the collections live in backend/knowledge; the
// service wires them to the settings (the embedding model), to the agent
// (search_knowledge) and to conversations and profiles.

// newKnowledge makes the collections' manager (started by New).
func (s *Service) newKnowledge() *knowledge.Manager {
	opt := knowledge.Options{Store: s.store, Events: s.ev, Logger: s.log, Embed: s.embedConfig, Gate: s.background}
	if s.opt.KnowledgeOptions != nil {
		s.opt.KnowledgeOptions(&opt)
	}
	return knowledge.New(opt)
}

// embedConfig is the server and model that make vectors: the chat's
// server (the demo model in demo mode, the built-in engine with
// "engine":"builtin", where the model is an installed one) and the
// embedding model setting.
func (s *Service) embedConfig() knowledge.EmbedConfig {
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	if st.EmbeddingModel == "" {
		return knowledge.EmbedConfig{}
	}
	if st.Engine == config.EngineBuiltin && !st.DemoMode {
		sup, err := s.engine()
		if err != nil {
			s.log.Error("the built-in engine for embeddings", "err", err)
			return knowledge.EmbedConfig{}
		}
		return knowledge.EmbedConfig{BaseURL: engine.BaseURL, Model: st.EmbeddingModel, Transport: sup.Transport(), OpenAIOnly: true}
	}
	base := st.BaseURL
	if st.DemoMode {
		d, err := s.demoServer()
		if err != nil {
			return knowledge.EmbedConfig{}
		}
		base = d.url
	}
	return knowledge.EmbedConfig{BaseURL: base, APIKey: st.APIKey, Model: st.EmbeddingModel}
}

// knowledgeSearch is the agent's view of the collections.
type knowledgeSearch struct{ m *knowledge.Manager }

func (k knowledgeSearch) Search(ctx context.Context, collections []string, query string, topK int) ([]chat.Source, error) {
	rs, err := k.m.Search(ctx, collections, query, topK)
	if err != nil {
		return nil, err
	}
	out := make([]chat.Source, len(rs))
	for i, r := range rs {
		out[i] = chat.Source{Path: r.Path, Locator: r.Locator, Text: r.Text}
	}
	return out, nil
}

// conversationKnowledge names the collections a conversation searches: its
// own, then its project's (SPEC §14).
func (s *Service) conversationKnowledge(ctx context.Context, id string) []string {
	c, err := s.store.GetConversation(ctx, id)
	if err != nil {
		return nil
	}
	if c.ProjectID == nil {
		return c.Knowledge
	}
	p, err := s.store.Project(ctx, *c.ProjectID)
	if err != nil {
		return c.Knowledge
	}
	return append(append([]string(nil), c.Knowledge...), p.Knowledge...)
}

// Collections lists the collections.
func (s *Service) Collections(ctx context.Context) ([]api.Collection, error) {
	return s.knowledge.List(ctx)
}

// Collection returns one collection with its figures.
func (s *Service) Collection(ctx context.Context, id string) (api.Collection, error) {
	return s.knowledge.Info(ctx, id)
}

// CreateCollection stores a collection and starts indexing it.
func (s *Service) CreateCollection(ctx context.Context, req api.CollectionRequest) (api.Collection, error) {
	name := ""
	if req.Name != nil {
		name = *req.Name
	}
	return s.knowledge.Create(ctx, name, req.Paths)
}

// UpdateCollection renames a collection or changes its paths; an update
// with neither is refused (both adapters, SPEC §11).
func (s *Service) UpdateCollection(ctx context.Context, id string, req api.CollectionRequest) (api.Collection, error) {
	if req.Name == nil && req.Paths == nil {
		return api.Collection{}, inputErrorf(`give "name" and/or "paths"`)
	}
	return s.knowledge.Update(ctx, id, req.Name, req.Paths)
}

// ReindexCollection indexes a collection again.
func (s *Service) ReindexCollection(ctx context.Context, id string) error {
	return s.knowledge.Reindex(ctx, id)
}

// CancelCollection stops a collection's indexing.
func (s *Service) CancelCollection(ctx context.Context, id string) (api.Collection, error) {
	return s.knowledge.Cancel(ctx, id)
}

// DeleteCollection removes a collection's index (never its files) and
// detaches it from conversations and profiles as they are next used.
func (s *Service) DeleteCollection(ctx context.Context, id string) error {
	return s.knowledge.Delete(ctx, id)
}

// SearchCollection searches one collection.
func (s *Service) SearchCollection(ctx context.Context, id string, req api.KnowledgeSearchRequest) (api.KnowledgeSearchResponse, error) {
	query := strings.TrimSpace(req.Query)
	if query == "" || len(query) > api.MaxKnowledgeQueryLen {
		return api.KnowledgeSearchResponse{}, knowledge.Invalid("knowledge.badQuery", api.MaxKnowledgeQueryLen)
	}
	if req.TopK == 0 {
		req.TopK = api.DefaultTopK
	}
	if req.TopK < 1 || req.TopK > api.MaxTopK {
		return api.KnowledgeSearchResponse{}, knowledge.Invalid("knowledge.badTopK", api.MaxTopK)
	}
	if !s.knowledge.Exists(ctx, id) {
		return api.KnowledgeSearchResponse{}, fmt.Errorf("collection %s: %w", id, chat.ErrNotFound)
	}
	rs, err := s.knowledge.Search(ctx, []string{id}, query, req.TopK)
	if err != nil {
		return api.KnowledgeSearchResponse{}, err
	}
	out := api.KnowledgeSearchResponse{Results: make([]api.KnowledgeResult, len(rs))}
	for i, r := range rs {
		out.Results[i] = api.KnowledgeResult{Path: r.Path, Locator: r.Locator, Text: r.Text, Score: r.Score}
	}
	return out, nil
}

// checkCollections checks that every id names a collection (each once).
func (s *Service) checkCollections(ctx context.Context, ids []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !s.knowledge.Exists(ctx, id) {
			return nil, knowledge.Invalid("knowledge.unknownCollection", id)
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// SetConversationKnowledge attaches collections to a conversation (the
// composer's picker); the next run searches them.
func (s *Service) SetConversationKnowledge(ctx context.Context, id string, ids []string) error {
	ids, err := s.checkCollections(ctx, ids)
	if err != nil {
		return err
	}
	if err := s.store.SetConversationKnowledge(ctx, id, ids); err != nil {
		return err
	}
	s.ev.Emit(events.ConversationUpdated, events.KnowledgeChanged(id, ids))
	return nil
}

// IndexedFile tells whether path is a file of a collection (the desktop
// app opens only those when a citation is clicked).
func (s *Service) IndexedFile(ctx context.Context, path string) bool {
	ok, err := s.store.HasKnowledgeFile(ctx, path)
	return err == nil && ok
}

// WaitKnowledgeIdle waits until no collection is being indexed (tests,
// benchmarks).
func (s *Service) WaitKnowledgeIdle(ctx context.Context) error { return s.knowledge.WaitIdle(ctx) }
