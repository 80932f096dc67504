package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/parley-app/parley/backend/questions"
)

func (s *Server) pendingQuestion(w http.ResponseWriter, r *http.Request) error {
	d, err := s.opts.Backend.GetConversation(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	c := d.PendingQuestion
	if c == nil {
		writeJSON(w, http.StatusOK, map[string]any{"has_pending_question": false, "question_id": nil,
			"questions": []any{}, "created_at": nil, "expires_at": nil})
		return nil
	}
	// The whole card (every kind's fields, SPEC §6) plus the flag.
	body, err := json.Marshal(c)
	if err != nil {
		return err
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		return err
	}
	out["has_pending_question"] = true
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) respond(w http.ResponseWriter, r *http.Request) error {
	var req questions.Response
	if err := decode(r, &req); err != nil {
		return err
	}
	card, err := s.opts.Backend.Respond(r.Context(), r.PathValue("id"), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, card)
	return nil
}

func (s *Server) conversationQuestions(w http.ResponseWriter, r *http.Request) error {
	cards, err := s.opts.Backend.ConversationQuestions(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, nonNil(cards))
	return nil
}

func (s *Server) questions(w http.ResponseWriter, r *http.Request) error {
	cards, err := s.opts.Backend.Questions(r.Context(), r.URL.Query().Get("status"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, nonNil(cards))
	return nil
}

func nonNil(cards []*questions.Card) []*questions.Card {
	if cards == nil {
		return []*questions.Card{}
	}
	return cards
}
