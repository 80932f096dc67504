package crash

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Checking the restarted app against what the server announced.

// listAll pages through the conversation list.
func listAll(api *apiClient) ([]string, error) {
	var ids []string
	cursor := ""
	for page := 0; page < 1000; page++ {
		q := url.Values{"limit": {"7"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var p struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
			NextCursor string `json:"next_cursor"`
		}
		if err := api.get("/api/v1/conversations?"+q.Encode(), &p); err != nil {
			return nil, err
		}
		for _, it := range p.Items {
			ids = append(ids, it.ID)
		}
		if p.NextCursor == "" {
			return ids, nil
		}
		cursor = p.NextCursor
	}
	return nil, errors.New("conversation list did not end after 1000 pages")
}

// verify checks the restarted app against everything announced so far, then
// answers the pending cards and retries interrupted runs until every
// conversation is idle again. It returns a one-line summary.
func (h *harness) verify(r int, api *apiClient, st *sseStream) (string, error) {
	h.answered = map[string]bool{}
	var health struct {
		Status string `json:"status"`
	}
	if err := api.get("/api/v1/health", &health); err != nil || health.Status != "ok" {
		return "", fmt.Errorf("health after restart: %+v %v", health, err)
	}
	var settings struct {
		RateLimit float64 `json:"rate_limit_seconds"`
	}
	if err := api.get("/api/v1/settings", &settings); err != nil {
		return "", err
	}
	if settings.RateLimit != 0 {
		h.fail(r, "settings-lost", "saved setting rate_limit_seconds=0 came back as %v", settings.RateLimit)
	}

	known := h.rec.conversations()
	listed, err := listAll(api)
	if err != nil {
		return "", fmt.Errorf("list conversations after restart: %w", err)
	}
	seen := map[string]int{}
	for _, id := range listed {
		seen[id]++
	}
	for id, n := range seen {
		if n > 1 {
			h.fail(r, "dup-"+id, "conversation %s listed %d times when paging", id, n)
		}
	}
	for _, id := range known {
		if seen[id] == 0 {
			h.fail(r, "list-"+id, "conversation %s (created in round %d) is missing from the conversation list", id, h.rec.convs[id])
		}
	}

	msgs, cards := h.rec.snapshot()
	msgsByConv := map[string][]annMsg{}
	for _, m := range msgs {
		msgsByConv[m.conv] = append(msgsByConv[m.conv], m)
	}
	cardsByConv := map[string][]annCard{}
	for _, c := range cards {
		cardsByConv[c.conv] = append(cardsByConv[c.conv], c)
	}

	details := map[string]*apiConversation{}
	storedCards := map[string][]apiCard{}
	states := map[string]int{}
	var pendingCards []apiCard
	var errored []string
	var continuing []string       // conversations whose run went on by itself after the restart
	silent := map[string]string{} // resolved card -> why its idle conversation is unfinished
	stopped := map[string]bool{}  // conversations whose run the user cancelled: nothing to continue or retry
	checkedMsgs, checkedCards := 0, 0
	for _, id := range known {
		var d apiConversation
		if err := api.get("/api/v1/conversations/"+id, &d); err != nil {
			h.fail(r, "get-"+id, "conversation %s after restart: %v", id, err)
			continue
		}
		details[id] = &d
		states[d.State]++
		stored := map[string]apiMessage{}
		for _, m := range d.Messages {
			if _, dup := stored[m.ID]; dup {
				h.fail(r, "dupmsg-"+m.ID, "conversation %s holds message %s twice", id, m.ID)
			}
			stored[m.ID] = m
		}
		for _, m := range msgsByConv[id] {
			checkedMsgs++
			got, ok := stored[m.id]
			switch {
			case !ok:
				h.fail(r, "msg-"+m.id, "announced %s message %s (message:done in round %d) is missing from conversation %s after the restart; content %q",
					m.role, m.id, m.round, id, clip(m.content))
			case got.Role != m.role || got.Content != m.content:
				h.fail(r, "msgdiff-"+m.id, "message %s in %s differs from its announcement (round %d): stored %s %q, announced %s %q",
					m.id, id, m.round, got.Role, clip(got.Content), m.role, clip(m.content))
			case !slices.Equal(toolCallIDs(got.ToolCalls), m.toolCalls):
				h.fail(r, "msgtc-"+m.id, "message %s in %s: stored tool calls %v, announced %v", m.id, id, toolCallIDs(got.ToolCalls), m.toolCalls)
			}
		}

		var list []apiCard
		if err := api.get("/api/v1/conversations/"+id+"/questions", &list); err != nil {
			h.fail(r, "cards-"+id, "cards of %s after restart: %v", id, err)
			continue
		}
		storedCards[id] = list
		byID := map[string]apiCard{}
		for _, c := range list {
			byID[c.ID] = c
			if c.Status == "pending" {
				pendingCards = append(pendingCards, c)
			}
		}
		for _, c := range cardsByConv[id] {
			checkedCards++
			got, ok := byID[c.id]
			switch {
			case !ok:
				h.fail(r, "card-"+c.id, "announced card %s (%s via %s in round %d) is missing from conversation %s after the restart", c.id, c.status, c.via, c.round, id)
			case !atLeast(got.Status, c.status):
				h.fail(r, "cardstatus-"+c.id+got.Status, "card %s in %s was announced %s (via %s in round %d) but is %s after the restart",
					c.id, id, c.status, c.via, c.round, got.Status)
			}
		}

		// A run the user stopped by cancelling one of its cards stays stopped
		// (SPEC §1): after the restart it is neither an error offering a
		// retry nor a run that goes on.
		if c := cancelledLast(d.Messages, list); c != nil && d.State != "idle" {
			h.fail(r, "cancelnotidle-"+c.ID, "conversation %s is %s (%q) after the restart, although the user had cancelled card %s of its last run, "+
				"which must stop it and leave the conversation idle. %s The card's run %s is %s in storage.",
				id, d.State, d.Error, c.ID, h.announcedAs(c.ID), c.RunID, runStatus(api, id, c.RunID))
			stopped[id] = true
		}

		// The state the user sees must tell the truth about the history.
		switch d.State {
		case "awaiting_user_response":
			if d.PendingQuestion == nil {
				h.fail(r, "awaitnocard-"+id, "conversation %s is awaiting_user_response without a pending card", id)
			}
		case "error":
			if d.Error == "" {
				h.fail(r, "errnomsg-"+id, "conversation %s is in state error without an error message", id)
			}
			errored = append(errored, id)
		case "idle":
			if d.PendingQuestion != nil {
				h.fail(r, "idlecard-"+id, "conversation %s is idle but has pending card %s", id, d.PendingQuestion.ID)
			} else if why, open := unfinished(d.Messages); why != "" {
				if c := resolvedCardFor(list, open); c != nil {
					silent[c.ID] = why // reported by the answer check below, with the run's state
				} else {
					h.fail(r, "silentidle-"+id, "conversation %s shows idle after the restart, with no error and nothing to answer, but the assistant never finished: %s. %s",
						id, why, h.cardContext(list))
				}
			}
		case "requesting", "streaming", "tool_executing":
			// A run that was awaiting an answer the user gave just before
			// the kill goes on by itself with that answer. Its history may
			// already be finished here (the state is read before the
			// messages); settle checks that the run ends idle.
			continuing = append(continuing, id)
		default:
			h.fail(r, "state-"+id, "conversation %s is %q right after the restart", id, d.State)
		}
	}

	var inbox []apiCard
	if err := api.get("/api/v1/questions?status=pending", &inbox); err != nil {
		return "", err
	}
	inboxIDs := map[string]bool{}
	for _, c := range inbox {
		inboxIDs[c.ID] = true
	}
	pendingIDs := map[string]bool{}
	for _, c := range pendingCards {
		pendingIDs[c.ID] = true
		if !inboxIDs[c.ID] {
			h.fail(r, "inbox-"+c.ID, "pending card %s of %s is not in /questions?status=pending", c.ID, c.ConversationID)
		}
		if d := details[c.ConversationID]; d != nil && d.PendingQuestion == nil {
			// The conversation was read before its card list: a run that
			// went on by itself may have asked the card in between. Nobody
			// answers it meanwhile, so the conversation must show it now.
			var again apiConversation
			if err := api.get("/api/v1/conversations/"+c.ConversationID, &again); err != nil || again.PendingQuestion == nil {
				h.fail(r, "nopq-"+c.ID, "conversation %s has pending card %s but shows no pending_question (state %s, then %s %v)",
					c.ConversationID, c.ID, d.State, again.State, err)
			}
		}
	}
	for _, c := range inbox {
		if pendingIDs[c.ID] {
			continue
		}
		// Asked after its conversation was looked at (by a run that went
		// on by itself): it must be a pending card of that conversation.
		var list []apiCard
		if err := api.get("/api/v1/conversations/"+c.ConversationID+"/questions", &list); err != nil {
			h.fail(r, "inboxconv-"+c.ID, "cards of %s: %v", c.ConversationID, err)
			continue
		}
		if !slices.ContainsFunc(list, func(x apiCard) bool { return x.ID == c.ID && x.Status == "pending" }) {
			h.fail(r, "inboxextra-"+c.ID, "card %s in /questions?status=pending is not a pending card of its conversation %s", c.ID, c.ConversationID)
		}
	}

	// Continue: answer every pending card (its run must go on and finish)
	// and retry every interrupted run.
	targets := map[string]string{} // conversation -> what was done
	for _, c := range pendingCards {
		var p struct {
			Has bool   `json:"has_pending_question"`
			ID  string `json:"question_id"`
		}
		if err := api.get("/api/v1/conversations/"+c.ConversationID+"/pending-question", &p); err != nil || !p.Has {
			h.fail(r, "pq-"+c.ID, "pending-question of %s: %+v %v", c.ConversationID, p, err)
		}
		var got apiCard
		if err := api.expect(http.MethodPost, "/api/v1/conversations/"+c.ConversationID+"/respond", answerFor(&c), http.StatusOK, &got); err != nil {
			h.fail(r, "respond-"+c.ID, "answering card %s (pending across the restart) in %s: %v", c.ID, c.ConversationID, err)
			continue
		}
		h.rec.card(r, &got, "respond after restart")
		h.answered[c.ID] = true
		if got.Status != "answered" {
			h.fail(r, "respondstatus-"+c.ID, "card %s answered after the restart has status %s", c.ID, got.Status)
		}
		targets[c.ConversationID] = "answered restored card " + c.ID
	}
	for _, id := range continuing {
		if _, ok := targets[id]; !ok && !stopped[id] {
			targets[id] = continued
		}
	}
	for _, id := range errored {
		if _, ok := targets[id]; ok || stopped[id] {
			continue
		}
		if err := api.expect(http.MethodPost, "/api/v1/conversations/"+id+"/retry", nil, http.StatusAccepted, nil); err != nil {
			h.fail(r, "retry-"+id, "retry of interrupted conversation %s: %v", id, err)
			continue
		}
		targets[id] = "retried"
	}
	if err := h.settle(r, api, st, targets, storedCards); err != nil {
		h.fail(r, "settle-"+strconv.Itoa(r), "%v", err)
	}

	// Every card the user answered, skipped or cancelled must have reached
	// the model as a tool result: the answer is the user's data.
	ready := []string{}
	for _, id := range known {
		var d apiConversation
		if err := api.get("/api/v1/conversations/"+id, &d); err != nil {
			h.fail(r, "get2-"+id, "%v", err)
			continue
		}
		var list []apiCard
		if err := api.get("/api/v1/conversations/"+id+"/questions", &list); err != nil {
			h.fail(r, "cards2-"+id, "%v", err)
			continue
		}
		results := map[string]int{}
		for _, m := range d.Messages {
			if m.Role == "tool" {
				results[m.ToolCallID]++
			}
		}
		for _, c := range list {
			switch c.Status {
			case "answered", "declined", "cancelled":
				if results[c.ToolCallID] != 0 {
					break
				}
				if why, ok := silent[c.ID]; ok {
					h.fail(r, "lost-"+c.ID, "card %s in conversation %s is %s, but after the restart the conversation shows idle with no error and nothing to answer, "+
						"so the answer never reaches the assistant and nothing offers a retry: %s. %s The card's run %s is %s in storage.",
						c.ID, id, c.Status, why, h.announcedAs(c.ID), c.RunID, runStatus(api, id, c.RunID))
				} else {
					h.fail(r, "lost-"+c.ID, "card %s in conversation %s is %s, but its answer never reached the assistant: no tool result for call %s (conversation state %s). %s The card's run %s is %s in storage.",
						c.ID, id, c.Status, c.ToolCallID, d.State, h.announcedAs(c.ID), c.RunID, runStatus(api, id, c.RunID))
				}
			}
		}
		var runs map[string]string // run id -> stored status, loaded when needed
		for _, c := range list {
			if c.Status != "cancelled" {
				continue
			}
			if runs == nil {
				if runs, err = runStatuses(api, id); err != nil {
					h.fail(r, "runs-"+id, "runs of %s: %v", id, err)
					break
				}
			}
			if st := runs[c.RunID]; st != "cancelled" {
				h.fail(r, "cancelrun-"+c.ID, "card %s in conversation %s is cancelled, but its run %s is %q in storage, want \"cancelled\" (the cancel stops the run). %s",
					c.ID, id, c.RunID, st, h.announcedAs(c.ID))
			}
		}
		for call, n := range results {
			if n > 1 {
				h.fail(r, "dupresult-"+id+call, "conversation %s has %d tool results for call %s", id, n, call)
			}
		}
		if d.State == "idle" {
			ready = append(ready, id)
		} else {
			h.fail(r, "notidle-"+id, "conversation %s is %s (%s) after answering and retrying, want idle", id, d.State, d.Error)
		}
	}
	h.ready = ready
	agents := h.checkAgentCards(r, api)

	h.rec.mu.Lock()
	anomalies := slices.Clone(h.rec.anomalies)
	h.rec.mu.Unlock()
	for _, a := range anomalies {
		h.fail(r, "anomaly-"+a, "%s", a)
	}

	stateNames := make([]string, 0, len(states))
	for s, n := range states {
		stateNames = append(stateNames, fmt.Sprintf("%s=%d", s, n))
	}
	sort.Strings(stateNames)
	return fmt.Sprintf("%d msgs + %d cards found, states %s; %d card(s) answered, %d run(s) retried; agent cards: %s",
		checkedMsgs, checkedCards, strings.Join(stateNames, " "), len(pendingCards), len(targets)-len(pendingCards), agents), nil
}

// settle drives the target conversations until each is idle with a new
// assistant message, answering every card they ask.
func (h *harness) settle(r int, api *apiClient, st *sseStream, targets map[string]string, before map[string][]apiCard) error {
	type progress struct{ idle, replied bool }
	prog := map[string]*progress{}
	for id := range targets {
		prog[id] = &progress{}
	}
	deadline := time.NewTimer(settleTimeout)
	defer deadline.Stop()
	// A run that continued by itself may have ended before the event stream
	// was opened: those conversations are also polled.
	poll := time.NewTicker(250 * time.Millisecond)
	defer poll.Stop()
	for {
		finished := true
		for _, p := range prog {
			finished = finished && p.idle && p.replied
		}
		if finished {
			return nil
		}
		var ev sseEvent
		var ok bool
		select {
		case ev, ok = <-st.C:
		case <-poll.C:
			for id, p := range prog {
				if targets[id] != continued || p.idle && p.replied {
					continue
				}
				var d apiConversation
				if err := api.get("/api/v1/conversations/"+id, &d); err != nil {
					return fmt.Errorf("poll conversation %s: %w", id, err)
				}
				if why, _ := unfinished(d.Messages); d.State == "idle" && why == "" {
					p.idle, p.replied = true, true
				}
			}
			continue
		case <-deadline.C:
			var stuck []string
			for id, p := range prog {
				if !p.idle || !p.replied {
					stuck = append(stuck, fmt.Sprintf("%s (%s: idle=%v, new assistant message=%v)", id, targets[id], p.idle, p.replied))
				}
			}
			sort.Strings(stuck)
			return fmt.Errorf("runs did not finish within %s after the restart: %s", settleTimeout, strings.Join(stuck, "; "))
		}
		if !ok {
			return fmt.Errorf("event stream of the restarted app ended: %v", st.err)
		}
		p := prog[ev.Conv]
		if p == nil {
			continue
		}
		switch ev.Name {
		case "message:done":
			var m struct {
				Message apiMessage `json:"message"`
			}
			_ = json.Unmarshal(ev.Data, &m)
			if m.Message.Role == "assistant" {
				p.replied = true
			}
		case "question:ask":
			var card apiCard
			if err := json.Unmarshal(ev.Data, &card); err != nil {
				return err
			}
			for _, old := range before[card.ConversationID] {
				if old.ToolCallID == card.ToolCallID && old.ID != card.ID && old.Status != "pending" {
					h.fail(r, "reask-"+old.ID, "after the restart (%s) the assistant asked card %s again as %s for the same tool call %s, although the user had already %s it. %s",
						targets[ev.Conv], old.ID, card.ID, card.ToolCallID, old.Status, h.announcedAs(old.ID))
				}
			}
			if h.answered[card.ID] {
				continue
			}
			h.answered[card.ID] = true
			var got apiCard
			if err := api.expect(http.MethodPost, "/api/v1/conversations/"+card.ConversationID+"/respond", answerFor(&card), http.StatusOK, &got); err != nil {
				return fmt.Errorf("answer card %s after the restart: %w", card.ID, err)
			}
			h.rec.card(r, &got, "respond after restart")
		case "conversation:state":
			var s apiState
			_ = json.Unmarshal(ev.Data, &s)
			switch s.State {
			case "idle":
				p.idle = true
			case "error":
				return fmt.Errorf("conversation %s (%s) failed after the restart: %s", ev.Conv, targets[ev.Conv], s.Error)
			default:
				p.idle = false
			}
		}
	}
}

// continued marks a target conversation whose run went on by itself after
// the restart (see verify).
const continued = "continued after the restart"

// unfinished explains why a history is not a finished exchange ("" when it
// is): the last turn must be the assistant's final answer, or a run the user
// stopped by cancelling a card. open lists the tool calls left without a result.
func unfinished(msgs []apiMessage) (why string, open []string) {
	if len(msgs) == 0 {
		return "", nil
	}
	last := msgs[len(msgs)-1]
	switch {
	case last.Role == "assistant" && len(last.ToolCalls) == 0:
		return "", nil
	case last.Role == "user":
		return fmt.Sprintf("the last message is the user's %s %q, with no reply", last.ID, clip(last.Content)), nil
	}
	// Tool calls and results at the end: fine only if the user cancelled.
	answered := map[string]bool{}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role == "tool" {
			if m.Content == userCancelled {
				return "", nil
			}
			answered[m.ToolCallID] = true
			continue
		}
		if m.Role == "assistant" {
			var names []string
			for _, tc := range m.ToolCalls {
				if !answered[tc.ID] {
					open = append(open, tc.ID)
					names = append(names, tc.Name+" "+tc.ID)
				}
			}
			if len(open) > 0 {
				return fmt.Sprintf("assistant message %s ends the history with tool call(s) %v that have no result", m.ID, names), open
			}
			return fmt.Sprintf("the history ends with tool results of assistant message %s, and the model was never called with them", m.ID), nil
		}
		break
	}
	return fmt.Sprintf("the last message is a %s message %s", last.Role, last.ID), nil
}

// resolvedCardFor returns the answered, declined or cancelled card of one of
// the open tool calls, if any.
func resolvedCardFor(list []apiCard, open []string) *apiCard {
	for i := range list {
		switch list[i].Status {
		case "answered", "declined", "cancelled":
			if slices.Contains(open, list[i].ToolCallID) {
				return &list[i]
			}
		}
	}
	return nil
}

// runStatus is a run's stored status, read from the conversation's JSON export.
func runStatus(api *apiClient, conv, runID string) string {
	runs, err := runStatuses(api, conv)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	if st, ok := runs[runID]; ok {
		return strconv.Quote(st)
	}
	return "missing"
}

// runStatuses maps the conversation's runs to their stored statuses, read
// from its JSON export.
func runStatuses(api *apiClient, conv string) (map[string]string, error) {
	status, b, err := api.call(http.MethodGet, "/api/v1/conversations/"+conv+"/export?format=json", nil)
	if err != nil || status != http.StatusOK {
		return nil, fmt.Errorf("export: %d %v", status, err)
	}
	var doc struct {
		Runs []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	runs := map[string]string{}
	for _, run := range doc.Runs {
		runs[run.ID] = run.Status
	}
	return runs, nil
}

// cancelledLast returns the cancelled card of one of the tool calls of the
// history's last assistant message (after the last user turn), if any: the
// user stopped that run.
func cancelledLast(msgs []apiMessage, list []apiCard) *apiCard {
	var calls []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != "user"; i-- {
		if msgs[i].Role == "assistant" {
			calls = toolCallIDs(msgs[i].ToolCalls)
			break
		}
	}
	for i := range list {
		if list[i].Status == "cancelled" && slices.Contains(calls, list[i].ToolCallID) {
			return &list[i]
		}
	}
	return nil
}

// cardContext describes the conversation's newest card for a failure message.
func (h *harness) cardContext(list []apiCard) string {
	if len(list) == 0 {
		return "It has no cards."
	}
	last := list[len(list)-1]
	return fmt.Sprintf("Its newest card %s (tool call %s) is %s; %s", last.ID, last.ToolCallID, last.Status, h.announcedAs(last.ID))
}

func (h *harness) announcedAs(cardID string) string {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	if c, ok := h.rec.cards[cardID]; ok {
		return fmt.Sprintf("Before the kill the server announced it %s (via %s, round %d).", c.status, c.via, c.round)
	}
	return "It was never announced."
}

func atLeast(got, announced string) bool {
	switch {
	case got == announced:
		return true
	case statusRank(announced) == 2:
		return false // a final status never changes
	case announced == "timed_out":
		return got == "answered_late" || got == "superseded"
	}
	return statusRank(got) >= statusRank(announced)
}

func toolCallIDs(tcs []apiToolCall) []string {
	var ids []string
	for _, tc := range tcs {
		ids = append(ids, tc.ID)
	}
	return ids
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
