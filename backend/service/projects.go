package service

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/store"
)

// Projects (SPEC §14). A project's instructions open the system prompt of
// its conversations' runs, its collections are searched with theirs, its
// profile is the profile of conversations created in it without one, and
// its model answers its conversations that have no model of their own
// (before their profile's model). See projectScope and
// conversationKnowledge for the runs, CreateConversationIn for new
// conversations.

// Projects lists the projects by name.
func (s *Service) Projects(ctx context.Context) ([]chat.Project, error) {
	return s.store.Projects(ctx)
}

// Project returns one project.
func (s *Service) Project(ctx context.Context, id string) (*chat.Project, error) {
	return s.store.Project(ctx, id)
}

// CreateProject checks and stores a new project; a name is required.
func (s *Service) CreateProject(ctx context.Context, req api.ProjectRequest) (*chat.Project, error) {
	p := chat.Project{}
	if req.Name == nil {
		req.Name = new(string) // refused by the check, with its message
	}
	if err := s.applyProject(ctx, &p, req); err != nil {
		return nil, err
	}
	created, err := s.store.CreateProject(ctx, p)
	if err != nil {
		return nil, err
	}
	s.emitProject(created)
	return created, nil
}

// UpdateProject changes the fields req gives of a project; a refused
// change changes nothing.
func (s *Service) UpdateProject(ctx context.Context, id string, req api.ProjectRequest) (*chat.Project, error) {
	if req.Name == nil && req.Instructions == nil && req.Knowledge == nil && req.Profile == nil && req.Model == nil {
		return nil, inputErrorf(`give "name", "instructions", "knowledge", "profile" and/or "model"`)
	}
	p, err := s.store.Project(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.applyProject(ctx, p, req); err != nil {
		return nil, err
	}
	if err := s.store.UpdateProject(ctx, p); err != nil {
		return nil, err
	}
	s.emitProject(p)
	return p, nil
}

// applyProject checks the fields req gives and sets them on p.
func (s *Service) applyProject(ctx context.Context, p *chat.Project, req api.ProjectRequest) error {
	if req.Name != nil {
		name := strings.TrimSpace(*req.Name)
		if name == "" || utf8.RuneCountInString(name) > api.MaxProjectName {
			return inputError(i18n.M("service.projectName", api.MaxProjectName))
		}
		p.Name = name
	}
	if req.Instructions != nil {
		instructions := strings.TrimSpace(*req.Instructions)
		if utf8.RuneCountInString(instructions) > api.MaxProjectInstructions {
			return inputError(i18n.M("service.projectInstructionsTooLong", api.MaxProjectInstructions))
		}
		p.Instructions = instructions
	}
	if req.Knowledge != nil {
		ids, err := s.checkCollections(ctx, *req.Knowledge)
		if err != nil {
			return err
		}
		p.Knowledge = ids
	}
	if req.Profile != nil {
		profile := strings.TrimSpace(*req.Profile)
		if profile != "" {
			var err error
			if profile, err = s.checkAssistant(ctx, profile); err != nil {
				return err
			}
		}
		p.Profile = profile
	}
	if req.Model != nil {
		model := strings.TrimSpace(*req.Model)
		if utf8.RuneCountInString(model) > maxModelNameChars {
			return inputError(i18n.M("service.modelNameTooLong", maxModelNameChars))
		}
		p.Model = model
	}
	return nil
}

// DeleteProject deletes a project. Its conversations stay, out of any
// project, unless withConversations: then each is deleted as
// DeleteConversation does (its run stopped, its cards cancelled) before the
// project goes. A conversation that joins the project meanwhile is kept.
func (s *Service) DeleteProject(ctx context.Context, id string, withConversations bool) error {
	if _, err := s.store.Project(ctx, id); err != nil {
		return err
	}
	if withConversations {
		ids, err := s.store.ProjectConversationIDs(ctx, id)
		if err != nil {
			return err
		}
		for _, c := range ids {
			if err := s.DeleteConversation(ctx, c); err != nil && !errors.Is(err, chat.ErrNotFound) {
				return err
			}
		}
	}
	left, err := s.store.DeleteProject(ctx, id, withConversations)
	if err != nil {
		return err
	}
	s.memoryChanged("", true)
	for _, c := range left {
		s.ev.Emit(events.ConversationUpdated, events.ProjectIDChanged(c, ""))
	}
	s.ev.Emit(events.ProjectChanged, events.ProjectChangedPayload{ID: id, Deleted: true})
	return nil
}

func (s *Service) emitProject(p *chat.Project) {
	cp := *p
	cp.Knowledge = append([]string{}, p.Knowledge...)
	s.ev.Emit(events.ProjectChanged, events.ProjectChangedPayload{ID: p.ID, Project: &cp})
}

// checkProject returns an input error unless the project exists.
func (s *Service) checkProject(ctx context.Context, id string) (*chat.Project, error) {
	p, err := s.store.Project(ctx, id)
	if errors.Is(err, chat.ErrNotFound) {
		return nil, inputError(i18n.M("service.unknownProject", id))
	}
	return p, err
}

// SetConversationProject puts a conversation in a project; "" takes it out
// of its project.
func (s *Service) SetConversationProject(ctx context.Context, id, projectID string) error {
	projectID = strings.TrimSpace(projectID)
	if projectID != "" {
		if _, err := s.checkProject(ctx, projectID); err != nil {
			return err
		}
	}
	err := s.store.SetConversationProject(ctx, id, projectID)
	if errors.Is(err, store.ErrNoProject) { // deleted meanwhile
		return inputError(i18n.M("service.unknownProject", projectID))
	}
	if err != nil {
		return err
	}
	s.ev.Emit(events.ConversationUpdated, events.ProjectIDChanged(id, projectID))
	return nil
}

// projectScope is what a conversation's project gives its runs.
func (s *Service) projectScope(ctx context.Context, conversationID string) assistant.ProjectScope {
	c, err := s.store.GetConversation(ctx, conversationID)
	if err != nil || c.ProjectID == nil {
		return assistant.ProjectScope{}
	}
	p, err := s.store.Project(ctx, *c.ProjectID)
	if err != nil {
		return assistant.ProjectScope{}
	}
	return assistant.ProjectScope{Instructions: p.Instructions, Model: p.Model}
}
