package crash

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// ---------------------------------------------------------------------------
// An agent's cards (SPEC §10).

const agentName = "crash-agent"

// agentCard is a card an agent filed through POST /api/v1/asks.
type agentCard struct {
	id, conv, question string
	round              int
	result             string // the §1 result the agent got ("" while pending)
}

// fileAgentCard files this round's agent card (it is pending at the kill),
// making the agent token in round 1 (it must survive every kill too).
func (h *harness) fileAgentCard(r int, api *apiClient) error {
	if h.agentToken == "" {
		var tok struct {
			Token string `json:"token"`
		}
		if err := api.expect(http.MethodPost, "/api/v1/agent-tokens", map[string]any{"name": agentName}, http.StatusCreated, &tok); err != nil {
			return fmt.Errorf("make the agent token: %w", err)
		}
		h.agentToken = tok.Token
	}
	q := fmt.Sprintf("Deploy the build of round %d?", r)
	var filed struct {
		ID     string `json:"question_id"`
		Conv   string `json:"conversationId"`
		Status string `json:"status"`
	}
	body := map[string]any{"questions": []any{map[string]any{"question": q, "options": []string{"Yes", "No"}}},
		"context": fmt.Sprintf("Round %d is built.", r), "timeout_seconds": 0}
	if err := api.as(h.agentToken).expect(http.MethodPost, "/api/v1/asks", body, http.StatusCreated, &filed); err != nil {
		return fmt.Errorf("an agent's card: %w", err)
	}
	if filed.Status != "pending" || filed.ID == "" || filed.Conv == "" {
		return fmt.Errorf("an agent's card was filed as %+v, want a pending card with its conversation", filed)
	}
	h.agentCards = append(h.agentCards, &agentCard{id: filed.ID, conv: filed.Conv, question: q, round: r})
	return nil
}

// agentAsk is GET /api/v1/asks/{id}.
type agentAsk struct {
	ID     string `json:"question_id"`
	Status string `json:"status"`
	Result string `json:"result"`
}

// checkAgentCards checks every agent card after a restart: the agent still
// reaches it with its token; a pending one is in the inbox; an answered one
// keeps its result. Then the user answers those filed before this round
// (each stayed pending across at least two kills) and the agent must get
// exactly the §1 result; no model runs in the agent's conversation. It
// returns a summary.
func (h *harness) checkAgentCards(r int, api *apiClient) string {
	agent := api.as(h.agentToken)
	var inbox []apiCard
	if err := api.get("/api/v1/questions?status=pending", &inbox); err != nil {
		h.fail(r, "agentinbox-"+strconv.Itoa(r), "inbox: %v", err)
	}
	inInbox := map[string]bool{}
	for _, c := range inbox {
		inInbox[c.ID] = true
	}
	pending, answered := 0, 0
	for _, c := range h.agentCards {
		var got agentAsk
		if err := agent.get("/api/v1/asks/"+c.id, &got); err != nil {
			h.fail(r, "agentget-"+c.id, "the agent's card %s of round %d after the restart: %v", c.id, c.round, err)
			continue
		}
		if c.result != "" {
			if got.Status != "answered" || got.Result != c.result {
				h.fail(r, "agentkept-"+c.id, "the agent's card %s of round %d was answered with %s, after the restart it reads %+v", c.id, c.round, c.result, got)
			}
			continue
		}
		if got.Status != "pending" || got.Result != "" {
			h.fail(r, "agentpending-"+c.id, "the agent's card %s of round %d was left pending, after the restart it reads %+v", c.id, c.round, got)
			continue
		}
		if !inInbox[c.id] {
			h.fail(r, "agentinbox-"+c.id, "the agent's pending card %s of round %d is not in /questions?status=pending after the restart", c.id, c.round)
		}
		if c.round == r {
			pending++ // left pending across the next kill
			continue
		}
		answer := map[string]any{"question_id": c.id, "action": "submit", "answers": map[string]any{c.question: map[string]any{"selected": []string{"Yes"}}}}
		if err := api.expect(http.MethodPost, "/api/v1/conversations/"+c.conv+"/respond", answer, http.StatusOK, nil); err != nil {
			h.fail(r, "agentrespond-"+c.id, "answering the agent's card %s of round %d after the restart: %v", c.id, c.round, err)
			continue
		}
		want, _ := json.Marshal(map[string]any{"answers": map[string]string{c.question: "Yes"}})
		if err := agent.get("/api/v1/asks/"+c.id+"?wait=30", &got); err != nil || got.Status != "answered" || got.Result != string(want) {
			h.fail(r, "agentresult-"+c.id, "the agent's card %s of round %d, answered: the agent got %+v (%v), want status answered and result %s", c.id, c.round, got, err, want)
			continue
		}
		c.result = got.Result
		answered++
	}
	if len(h.agentCards) > 0 {
		var conv apiConversation
		conv0 := h.agentCards[0].conv
		if err := api.get("/api/v1/conversations/"+conv0, &conv); err != nil {
			h.fail(r, "agentconv-"+strconv.Itoa(r), "the agent's conversation %s: %v", conv0, err)
		} else {
			for _, m := range conv.Messages {
				if m.Role == "tool" || m.Role == "user" {
					h.fail(r, "agentrun-"+m.ID, "the agent's conversation %s holds a %s message %q: no model runs there", conv0, m.Role, clip(m.Content))
				}
			}
			if conv.State != "idle" && conv.State != "awaiting_user_response" {
				h.fail(r, "agentstate-"+strconv.Itoa(r), "the agent's conversation %s is %s", conv0, conv.State)
			}
		}
		for _, c := range h.agentCards {
			if c.conv != conv0 {
				h.fail(r, "agentconvs-"+c.id, "the agent's cards are in two conversations: %s and %s", conv0, c.conv)
			}
		}
	}
	return fmt.Sprintf("%d pending across the kill, %d answered now, %d filed", pending, answered, len(h.agentCards))
}
