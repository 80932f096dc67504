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
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// ListConversations returns one page, pinned first then newest, of the
// conversations matching query ("" = all) in project ("" = in any project
// or none). limit must be 1 to MaxPageSize (callers that got none pass
// DefaultPageSize).
func (s *Service) ListConversations(ctx context.Context, limit int, cursor, query, project string) (api.ConversationPage, error) {
	if limit < 1 || limit > MaxPageSize {
		return api.ConversationPage{}, ErrBadPageSize
	}
	items, next, err := s.store.ListConversations(ctx, store.ListOptions{Limit: limit, Cursor: cursor, Query: query, Project: project})
	if err != nil {
		return api.ConversationPage{}, err
	}
	return api.ConversationPage{Items: items, NextCursor: next}, nil
}

// CreateConversation starts an empty conversation outside any project.
func (s *Service) CreateConversation(ctx context.Context, title, assistant string) (*chat.Conversation, error) {
	return s.CreateConversationIn(ctx, title, assistant, "")
}

// CreateConversationIn starts an empty conversation in a project ("" =
// none; an unknown one is refused and nothing is stored). Without an
// assistant, it gets the project's profile (while that profile exists),
// else the default one. Its model stays unset: its runs use the project's
// model (see projectScope).
func (s *Service) CreateConversationIn(ctx context.Context, title, assistant, projectID string) (*chat.Conversation, error) {
	title = strings.TrimSpace(title)
	if utf8.RuneCountInString(title) > MaxTitleChars {
		return nil, inputError(i18n.M("service.titleTooLong", MaxTitleChars))
	}
	c := chat.Conversation{Title: title}
	if projectID = strings.TrimSpace(projectID); projectID != "" {
		p, err := s.checkProject(ctx, projectID)
		if err != nil {
			return nil, err
		}
		c.ProjectID = &p.ID
		if assistant == "" && p.Profile != "" {
			if name, err := s.checkAssistant(ctx, p.Profile); err == nil {
				assistant = name
			}
		}
	}
	var err error
	if c.Assistant, err = s.checkAssistant(ctx, assistant); err != nil {
		return nil, err
	}
	created, err := s.store.CreateConversationWith(ctx, c)
	if errors.Is(err, store.ErrNoProject) { // deleted meanwhile
		return nil, inputError(i18n.M("service.unknownProject", projectID))
	}
	return created, err
}

// checkAssistant returns the profile name to store ("" = the default) or an
// input error when no such profile exists.
func (s *Service) checkAssistant(ctx context.Context, name string) (string, error) {
	if name == "" || name == assistant.DefaultProfileName {
		return assistant.DefaultProfileName, nil
	}
	if _, err := s.store.Profile(ctx, name); err != nil {
		return "", inputError(i18n.M("service.unknownAssistant", name))
	}
	return name, nil
}

// GetConversation returns the conversation with messages and state.
func (s *Service) GetConversation(ctx context.Context, id string) (*api.ConversationDetail, error) {
	return s.GetConversationWindow(ctx, id, store.Window{})
}

// GetConversationWindow returns the conversation with the window w of its
// messages (store.Window; the zero window is all of them) and its state.
func (s *Service) GetConversationWindow(ctx context.Context, id string, w store.Window) (*api.ConversationDetail, error) {
	// State first: messages read after it are at least as new, so an idle
	// state never comes with a missing final answer.
	st := s.rt.State(id)
	active := s.rt.Active(id)
	before, _ := s.qm.LatestPending(id)
	c, err := s.store.GetConversation(ctx, id)
	if err != nil {
		return nil, err
	}
	msgs, earlier, err := s.store.MessagesWindow(ctx, id, w)
	if err != nil {
		return nil, err
	}
	card, ok := s.qm.LatestPending(id)
	if ok && card.Status == questions.StatusPending && (before == nil || before.ID != card.ID) {
		// The card came while the messages were read: read them again, so
		// that the message that asked it (stored before it) is there.
		if msgs, earlier, err = s.store.MessagesWindow(ctx, id, w); err != nil {
			return nil, err
		}
	}
	d := &api.ConversationDetail{Conversation: *c, State: st.State, Error: st.Error, Messages: msgs, Earlier: earlier}
	if ok && card.Status == questions.StatusPending {
		d.PendingQuestion = card
		d.State = chat.StateAwaitingUserResponse
	}
	if d.State == chat.StateIdle && !active {
		if run, err := s.store.LatestRun(ctx, id); err == nil && run.Status == chat.RunInterrupted {
			d.State = chat.StateError
			d.Error = i18n.T("service.interrupted")
		}
	}
	return d, nil
}

// RenameConversation sets the title.
func (s *Service) RenameConversation(ctx context.Context, id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" || utf8.RuneCountInString(title) > MaxTitleChars {
		return inputError(i18n.M("service.titleLength", MaxTitleChars))
	}
	if err := s.store.RenameConversation(ctx, id, title); err != nil {
		return err
	}
	s.ev.Emit(events.ConversationUpdated, events.TitleChanged(id, title))
	return nil
}

// SetPinned pins or unpins.
func (s *Service) SetPinned(ctx context.Context, id string, pinned bool) error {
	if err := s.store.SetPinned(ctx, id, pinned); err != nil {
		return err
	}
	s.ev.Emit(events.ConversationUpdated, events.PinnedChanged(id, pinned))
	return nil
}

// SetAssistant switches the conversation to another assistant profile; the
// next run uses it (a run already going on keeps the one it started with).
func (s *Service) SetAssistant(ctx context.Context, id, assistant string) error {
	assistant, err := s.checkAssistant(ctx, assistant)
	if err != nil {
		return err
	}
	if err := s.store.SetAssistant(ctx, id, assistant); err != nil {
		return err
	}
	s.ev.Emit(events.ConversationUpdated, events.AssistantChanged(id, assistant))
	return nil
}

// SetModel chooses the model of the conversation's next runs (the chat
// header's picker); "" goes back to its profile's model or the default.
func (s *Service) SetModel(ctx context.Context, id, model string) error {
	model = strings.TrimSpace(model)
	if utf8.RuneCountInString(model) > maxModelNameChars {
		return inputError(i18n.M("service.modelNameTooLong", maxModelNameChars))
	}
	if err := s.store.SetModel(ctx, id, model); err != nil {
		return err
	}
	s.ev.Emit(events.ConversationUpdated, events.ModelChanged(id, model))
	return nil
}

// SetThinking chooses the thinking setting of the conversation's next runs
// (the chat header's menu, SPEC §9); "" goes back to its profile's.
func (s *Service) SetThinking(ctx context.Context, id, thinking string) error {
	thinking = strings.TrimSpace(thinking)
	if thinking != "" {
		if err := checkThinking(thinking); err != nil {
			return err
		}
	}
	if err := s.store.SetThinking(ctx, id, thinking); err != nil {
		return err
	}
	s.ev.Emit(events.ConversationUpdated, events.ThinkingChanged(id, thinking))
	return nil
}

// maxModelNameChars bounds a chosen model's name (servers use short ones).
const maxModelNameChars = 200

// DeleteConversation stops its run, cancels its cards and deletes it.
func (s *Service) DeleteConversation(ctx context.Context, id string) error {
	if _, err := s.store.GetConversation(ctx, id); err != nil {
		return err
	}
	s.qm.CancelConversation(ctx, id)
	s.rt.Cancel(id)
	if err := s.store.DeleteConversation(ctx, id); err != nil {
		return err
	}
	s.rt.Forget(id)
	s.ev.Emit(events.ConversationDeleted, events.ConversationDeletedPayload{ConversationID: id})
	return nil
}

// Retry runs the model again on the saved history (after an error or an
// interrupted run).
func (s *Service) Retry(ctx context.Context, id string) (string, error) {
	c, err := s.store.GetConversation(ctx, id)
	if err != nil {
		return "", err
	}
	if err := refuseAgentConversation(c); err != nil {
		return "", err
	}
	runID, err := s.rt.Start(assistant.StartRequest{ConversationID: id, Profile: c.Assistant, Model: c.Model, Thinking: c.Thinking})
	if errors.Is(err, assistant.ErrRunActive) {
		return "", ErrRunActive
	}
	return runID, err
}

// Cancel stops the active run; a pending card is cancelled.
func (s *Service) Cancel(ctx context.Context, id string) error {
	if _, err := s.store.GetConversation(ctx, id); err != nil {
		return err
	}
	s.rt.Cancel(id)
	s.qm.CancelConversation(ctx, id)
	return nil
}
