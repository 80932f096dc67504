package crash

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ---------------------------------------------------------------------------
// The HTTP API.

type apiClient struct {
	base  string
	token string
	hc    *http.Client
}

func newAPI(base string) *apiClient {
	return &apiClient{base: base, token: apiToken, hc: &http.Client{Timeout: httpTimeout}}
}

// as is the same API with another bearer token (an agent token).
func (a *apiClient) as(token string) *apiClient {
	return &apiClient{base: a.base, token: token, hc: a.hc}
}

// call sends a JSON request with the bearer token and returns the status and body.
func (a *apiClient) call(method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// get expects 200 and decodes the body into out.
func (a *apiClient) get(path string, out any) error {
	status, b, err := a.call(http.MethodGet, path, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET %s: status %d: %s", path, status, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("GET %s: decode: %w (%s)", path, err, b)
	}
	return nil
}

// expect sends a request, expects the status and decodes the body into out (if not nil).
func (a *apiClient) expect(method, path string, body any, want int, out any) error {
	status, b, err := a.call(method, path, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if status != want {
		return fmt.Errorf("%s %s: status %d, want %d: %s", method, path, status, want, strings.TrimSpace(string(b)))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: decode: %w (%s)", method, path, err, b)
		}
	}
	return nil
}

type apiToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type apiMessage struct {
	ID             string        `json:"id"`
	ConversationID string        `json:"conversationId"`
	RunID          string        `json:"run_id"`
	Role           string        `json:"role"`
	Content        string        `json:"content"`
	ToolCalls      []apiToolCall `json:"tool_calls"`
	ToolCallID     string        `json:"tool_call_id"`
}

type apiQuestion struct {
	Question    string `json:"question"`
	MultiSelect bool   `json:"multiSelect"`
	AllowCustom bool   `json:"allowCustom"`
	Options     []struct {
		Label string `json:"label"`
	} `json:"options"`
}

type apiCard struct {
	ID             string            `json:"question_id"`
	ConversationID string            `json:"conversationId"`
	RunID          string            `json:"run_id"`
	ToolCallID     string            `json:"tool_call_id"`
	Status         string            `json:"status"`
	Questions      []apiQuestion     `json:"questions"`
	Answers        map[string]string `json:"answers"`
}

type apiConversation struct {
	ID              string       `json:"id"`
	Title           string       `json:"title"`
	State           string       `json:"state"`
	Error           string       `json:"error"`
	Messages        []apiMessage `json:"messages"`
	PendingQuestion *apiCard     `json:"pending_question"`
}

type apiState struct {
	ConversationID string `json:"conversationId"`
	RunID          string `json:"runId"`
	State          string `json:"state"`
	Error          string `json:"error"`
}

// answerFor is a valid submit for a card: the first option of every
// question, or free text where there are no options.
func answerFor(c *apiCard) map[string]any {
	answers := map[string]any{}
	for _, q := range c.Questions {
		if len(q.Options) == 0 {
			answers[q.Question] = map[string]any{"selected": []string{}, "custom": "nothing else, thanks"}
			continue
		}
		answers[q.Question] = map[string]any{"selected": []string{q.Options[0].Label}}
	}
	return map[string]any{"question_id": c.ID, "action": "submit", "answers": answers}
}
