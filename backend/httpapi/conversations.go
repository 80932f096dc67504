package httpapi

import (
	"net/http"
	"strconv"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/service"
)

func (s *Server) listConversations(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit := service.DefaultPageSize
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return service.ErrBadPageSize
		}
		limit = n // the service checks the range
	}
	page, err := s.opts.Backend.ListConversations(r.Context(), limit, q.Get("cursor"), q.Get("q"))
	if err != nil {
		return err
	}
	if page.Items == nil {
		page.Items = []chat.Conversation{}
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func (s *Server) createConversation(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Title     string `json:"title"`
		Assistant string `json:"assistant"`
	}
	if r.ContentLength != 0 {
		if err := decode(r, &req); err != nil {
			return err
		}
	}
	c, err := s.opts.Backend.CreateConversation(r.Context(), req.Title, req.Assistant)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, c)
	return nil
}

func (s *Server) getConversation(w http.ResponseWriter, r *http.Request) error {
	d, err := s.opts.Backend.GetConversation(r.Context(), r.PathValue("id"))
	return writeConversation(w, d, err)
}

func (s *Server) deleteConversation(w http.ResponseWriter, r *http.Request) error {
	if err := s.opts.Backend.DeleteConversation(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"deleted": true})
	return nil
}

func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Content     *string           `json:"content"`
		ParentID    *string           `json:"parent_id"`
		Attachments []chat.Attachment `json:"attachments"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Content == nil && len(req.Attachments) == 0 {
		return httpError{http.StatusBadRequest, `"content" is required`}
	}
	send := service.SendRequest{ParentID: req.ParentID, Attachments: req.Attachments}
	if req.Content != nil {
		send.Content = *req.Content
	}
	runID, err := s.opts.Backend.Send(r.Context(), r.PathValue("id"), send)
	return writeRunStarted(w, runID, err)
}

func (s *Server) regenerate(w http.ResponseWriter, r *http.Request) error {
	var req api.RegenerateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	runID, err := s.opts.Backend.Regenerate(r.Context(), r.PathValue("id"), req.MessageID, req.Model)
	return writeRunStarted(w, runID, err)
}

func (s *Server) selectBranch(w http.ResponseWriter, r *http.Request) error {
	var req api.BranchRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	d, err := s.opts.Backend.SelectBranch(r.Context(), r.PathValue("id"), req.MessageID)
	return writeConversation(w, d, err)
}

func (s *Server) forkQuestion(w http.ResponseWriter, r *http.Request) error {
	var req service.ForkRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	runID, err := s.opts.Backend.ForkQuestion(r.Context(), r.PathValue("id"), r.PathValue("question_id"), req)
	return writeRunStarted(w, runID, err)
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request) error {
	if err := s.opts.Backend.Cancel(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	return nil
}

func (s *Server) patchConversation(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Title     *string   `json:"title"`
		Pinned    *bool     `json:"pinned"`
		Assistant *string   `json:"assistant"`
		Model     *string   `json:"model"`
		Thinking  *string   `json:"thinking"`
		Knowledge *[]string `json:"knowledge"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	id := r.PathValue("id")
	if req.Title == nil && req.Pinned == nil && req.Assistant == nil && req.Model == nil && req.Thinking == nil && req.Knowledge == nil {
		return httpError{http.StatusBadRequest, `give "title", "pinned", "assistant", "model", "thinking" and/or "knowledge"`}
	}
	if req.Thinking != nil {
		// First too: an unknown setting (422) changes nothing.
		if err := s.opts.Backend.SetThinking(r.Context(), id, *req.Thinking); err != nil {
			return err
		}
	}
	if req.Knowledge != nil {
		// First too: an unknown collection is refused before anything changes.
		if err := s.opts.Backend.SetConversationKnowledge(r.Context(), id, *req.Knowledge); err != nil {
			return err
		}
	}
	if req.Assistant != nil {
		// First: an unknown profile is refused before anything changes.
		if err := s.opts.Backend.SetAssistant(r.Context(), id, *req.Assistant); err != nil {
			return err
		}
	}
	if req.Model != nil {
		if err := s.opts.Backend.SetModel(r.Context(), id, *req.Model); err != nil {
			return err
		}
	}
	if req.Title != nil {
		if err := s.opts.Backend.RenameConversation(r.Context(), id, *req.Title); err != nil {
			return err
		}
	}
	if req.Pinned != nil {
		if err := s.opts.Backend.SetPinned(r.Context(), id, *req.Pinned); err != nil {
			return err
		}
	}
	return s.getConversation(w, r)
}

func (s *Server) retry(w http.ResponseWriter, r *http.Request) error {
	runID, err := s.opts.Backend.Retry(r.Context(), r.PathValue("id"))
	return writeRunStarted(w, runID, err)
}

// writeRunStarted answers a request that started a run: 202 with its id.
func writeRunStarted(w http.ResponseWriter, runID string, err error) error {
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, api.RunStarted{RunID: runID})
	return nil
}

// writeConversation answers with a conversation (its messages a list, never null).
func writeConversation(w http.ResponseWriter, d *service.ConversationDetail, err error) error {
	if err != nil {
		return err
	}
	if d.Messages == nil {
		d.Messages = []chat.Message{}
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}
