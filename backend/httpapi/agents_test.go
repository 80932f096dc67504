package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
)

// agentServer is the real service behind the API with the agents' endpoints.
func agentServer(t *testing.T, full func() bool) (*service.Service, *Server, *httptest.Server) {
	t.Helper()
	svc, _ := mcpService(t)
	ui := fstest.MapFS{"index.html": {Data: []byte("<title>Parley</title>")}}
	s := New(Options{Backend: svc, Token: testToken, Version: "test", UI: ui, Heartbeat: time.Hour,
		Agents: svc.Agents(), FullAPI: full, MCPProgressEvery: 50 * time.Millisecond})
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return svc, s, ts
}

func newAgentToken(t *testing.T, ts *httptest.Server, name string) api.NewAgentToken {
	t.Helper()
	code, body := do(t, ts, "POST", "/api/v1/agent-tokens", `{"name":`+jsonStr(name)+`}`, nil)
	require.Equal(t, 201, code, body)
	var tok api.NewAgentToken
	require.NoError(t, json.Unmarshal([]byte(body), &tok))
	require.True(t, strings.HasPrefix(tok.Token, agentinbox.TokenPrefix), tok.Token)
	return tok
}

func TestAsksRESTAnsweredWithTheExactResult(t *testing.T) {
	svc, _, ts := agentServer(t, nil)
	code, body := do(t, ts, "POST", "/api/v1/asks",
		`{"questions":[{"question":"Deploy to production?","options":["Yes","No"]}],"context":"Release **1.2**","agent":"deploy-bot","timeout_seconds":0}`, nil)
	require.Equal(t, 201, code, body)
	var filed api.AskFiled
	require.NoError(t, json.Unmarshal([]byte(body), &filed))
	assert.Equal(t, "pending", filed.Status)

	code, body = do(t, ts, "GET", "/api/v1/asks/"+filed.QuestionID+"?wait=0", "", nil)
	require.Equal(t, 200, code, body)
	assert.JSONEq(t, `{"question_id":"`+filed.QuestionID+`","status":"pending"}`, body)

	card, ok := svc.Manager().Get(filed.QuestionID)
	require.True(t, ok)
	assert.Equal(t, &questions.Source{Type: "agent", Agent: "deploy-bot"}, card.Source)
	assert.Equal(t, "Release **1.2**", card.Context)
	assert.Nil(t, card.ExpiresAt, "timeout_seconds 0 waits forever")

	// The agent's conversation is marked and holds the context above the card.
	detail, err := svc.GetConversation(context.Background(), filed.ConversationID)
	require.NoError(t, err)
	assert.Equal(t, "deploy-bot", detail.Agent)
	require.NotEmpty(t, detail.Messages)
	assert.Equal(t, "Release **1.2**", detail.Messages[0].Content)
	assert.Equal(t, card.ToolCallID, detail.Messages[0].ToolCalls[0].ID)

	// A waiting GET returns as soon as the user answers.
	got := make(chan string, 1)
	go func() {
		_, body := do(t, ts, "GET", "/api/v1/asks/"+filed.QuestionID+"?wait=30", "", nil)
		got <- body
	}()
	code, body = do(t, ts, "POST", "/api/v1/conversations/"+filed.ConversationID+"/respond",
		`{"question_id":"`+filed.QuestionID+`","action":"submit","answers":{"Deploy to production?":{"selected":["Yes"]}}}`, nil)
	require.Equal(t, 200, code, body)
	select {
	case body = <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting GET did not return after the answer")
	}
	var st api.AskState
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	assert.Equal(t, "answered", st.Status)
	assert.Equal(t, `{"answers":{"Deploy to production?":"Yes"}}`, st.Result)

	// No assistant replies in an agent's conversation.
	code, body = do(t, ts, "POST", "/api/v1/conversations/"+filed.ConversationID+"/messages", `{"content":"hi"}`, nil)
	assert.Equal(t, 409, code, body)
}

func TestAsksRESTRefusals(t *testing.T) {
	svc, _, ts := agentServer(t, nil)
	cases := []struct{ body, want string }{
		{`{"questions":[]}`, "questions"},
		{`{"questions":[{"question":"A?","options":["x","y","z","w","v"]}]}`, "options must have"},
		{`{"questions":[{"question":"A?"}],"timeout_seconds":-1}`, "timeout_seconds"},
		{`{"questions":[{"question":"A?"}],"agent":"` + strings.Repeat("a", 65) + `"}`, "agent name"},
	}
	for _, c := range cases {
		code, body := do(t, ts, "POST", "/api/v1/asks", c.body, nil)
		assert.Equal(t, 422, code, body)
		assert.Contains(t, body, c.want)
	}
	code, body := do(t, ts, "GET", "/api/v1/asks/nope", "", nil)
	assert.Equal(t, 404, code, body)
	code, body = do(t, ts, "GET", "/api/v1/asks/nope?wait=601", "", nil)
	assert.Equal(t, 400, code, body)

	// The rate limit applies per agent: a second card right away is 429 with
	// the reason; another agent is not held back by it.
	code, body = do(t, ts, "POST", "/api/v1/asks", `{"questions":[{"question":"One?"}],"agent":"a"}`, nil)
	require.Equal(t, 201, code, body)
	code, body = do(t, ts, "POST", "/api/v1/asks", `{"questions":[{"question":"Two?"}],"agent":"a"}`, nil)
	assert.Equal(t, 429, code, body)
	assert.Contains(t, body, "rate limited: wait")
	code, body = do(t, ts, "POST", "/api/v1/asks", `{"questions":[{"question":"Two?"}],"agent":"b"}`, nil)
	require.Equal(t, 201, code, body)

	// An answered card frees its place: the next card is not refused.
	var filed api.AskFiled
	require.NoError(t, json.Unmarshal([]byte(body), &filed))
	code, body = do(t, ts, "POST", "/api/v1/conversations/"+filed.ConversationID+"/respond",
		`{"question_id":"`+filed.QuestionID+`","action":"decline"}`, nil)
	require.Equal(t, 200, code, body)
	code, body = do(t, ts, "POST", "/api/v1/asks", `{"questions":[{"question":"Three?"}],"agent":"b"}`, nil)
	require.Equal(t, 201, code, body)

	// The pending cap applies per agent too, and never to the assistant's cards.
	set := svc.GetSettings()
	set.RateLimitSeconds = 0
	set.MaxPendingQuestions = 2
	_, err := svc.SaveSettings(context.Background(), set)
	require.NoError(t, err)
	code, body = do(t, ts, "POST", "/api/v1/asks", `{"questions":[{"question":"Four?"}],"agent":"b"}`, nil)
	require.Equal(t, 201, code, body)
	code, body = do(t, ts, "POST", "/api/v1/asks", `{"questions":[{"question":"Five?"}],"agent":"b"}`, nil)
	assert.Equal(t, 429, code, body)
	assert.Contains(t, body, "this agent already has 2 questions waiting")
}

// assertAgentScope: every route but the agents' answers 403 to an agent token.
func assertAgentScope(t *testing.T, s *Server, ts *httptest.Server, agent map[string]string) {
	t.Helper()
	checked := 0
	for _, pattern := range s.patterns {
		method, path, ok := strings.Cut(pattern, " ")
		if !ok {
			method, path = "GET", pattern
		}
		path = strings.NewReplacer("{id}", "x", "{name}", "x", "{tool}", "x", "{question_id}", "x").Replace(path)
		if agentPath(path) {
			continue
		}
		code, body := do(t, ts, method, path, `{}`, agent)
		assert.Equal(t, 403, code, "%s %s: %s", method, path, body)
		checked++
	}
	require.Greater(t, checked, 30, "the route table was not walked")
}

func TestAgentTokenScopeAndRevocation(t *testing.T) {
	_, s, ts := agentServer(t, nil)
	tok := newAgentToken(t, ts, "claude-code")
	agent := map[string]string{"Authorization": "Bearer " + tok.Token}
	assertAgentScope(t, s, ts, agent)

	code, body := do(t, ts, "POST", "/api/v1/asks", `{"questions":[{"question":"Which branch?"}]}`, agent)
	require.Equal(t, 201, code, body)
	var filed api.AskFiled
	require.NoError(t, json.Unmarshal([]byte(body), &filed))
	code, body = do(t, ts, "GET", "/api/v1/asks/"+filed.QuestionID, "", agent)
	require.Equal(t, 200, code, body)

	// Listed without the secret; the store keeps only its hash.
	code, body = do(t, ts, "GET", "/api/v1/agent-tokens", "", nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"name":"claude-code"`)
	assert.NotContains(t, body, tok.Token)

	// Revoked: it stops working at once.
	code, body = do(t, ts, "DELETE", "/api/v1/agent-tokens/"+tok.ID, "", nil)
	require.Equal(t, 204, code, body)
	code, _ = do(t, ts, "GET", "/api/v1/asks/"+filed.QuestionID, "", agent)
	assert.Equal(t, 401, code)
	code, _ = do(t, ts, "DELETE", "/api/v1/agent-tokens/"+tok.ID, "", nil)
	assert.Equal(t, 404, code)
}

func TestAgentsOnlyListener(t *testing.T) {
	_, _, ts := agentServer(t, func() bool { return false })
	code, body := do(t, ts, "GET", "/api/v1/conversations", "", nil)
	assert.Equal(t, 403, code)
	assert.Contains(t, body, "the local API is off")
	code, _ = do(t, ts, "GET", "/api/v1/health", "", nil)
	assert.Equal(t, 200, code)
	code, body = do(t, ts, "POST", "/api/v1/asks", `{"questions":[{"question":"Ok?"}]}`, nil)
	assert.Equal(t, 201, code, body)

	// Agent tokens are made there with the API token, never with an agent token.
	tok := newAgentToken(t, ts, "a script")
	code, body = do(t, ts, "GET", "/api/v1/agent-tokens", "", nil)
	assert.Equal(t, 200, code, body)
	code, body = do(t, ts, "GET", "/api/v1/agent-tokens", "", map[string]string{"Authorization": "Bearer " + tok.Token})
	assert.Equal(t, 403, code, body)
	code, body = do(t, ts, "POST", "/api/v1/agent-tokens", `{"name":"more"}`, map[string]string{"Authorization": "Bearer " + tok.Token})
	assert.Equal(t, 403, code, body)
	code, body = do(t, ts, "DELETE", "/api/v1/agent-tokens/"+tok.ID, "", nil)
	assert.Equal(t, 204, code, body)
}

// The listener's own agent token (for `parley ask` and `parley mcp`) is an
// agent token kept by this server only: the agents' paths, nothing stored,
// and a card named by the agent (else as with the API token).
func TestLocalAgentToken(t *testing.T) {
	local, err := agentinbox.NewSecret()
	require.NoError(t, err)
	svc, _ := mcpService(t)
	s := New(Options{Backend: svc, Token: testToken, Version: "test", Heartbeat: time.Hour,
		Agents: svc.Agents(), FullAPI: func() bool { return false }, LocalAgentToken: local})
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	agent := map[string]string{"Authorization": "Bearer " + local}
	assertAgentScope(t, s, ts, agent)

	code, body := do(t, ts, "POST", "/api/v1/asks", `{"questions":[{"question":"Named?"}],"agent":"deploy-bot"}`, agent)
	require.Equal(t, 201, code, body)
	code, body = do(t, ts, "POST", "/api/v1/asks", `{"questions":[{"question":"Nameless?"}]}`, agent)
	require.Equal(t, 201, code, body)
	cs := mcpClient(t, ts, local, "goose", nil)
	defer cs.Close()
	text, isErr := callText(t, cs, &sdk.CallToolParams{Name: "ask_user_question", Arguments: map[string]any{
		"questions": []any{map[string]any{"question": "Over MCP?"}}, "wait_seconds": 1}})
	require.False(t, isErr, text)
	names := map[string]string{}
	for _, c := range svc.PendingQuestions() {
		names[c.Questions[0].Question] = c.Source.Agent
	}
	assert.Equal(t, map[string]string{"Named?": "deploy-bot", "Nameless?": DefaultRESTAgent, "Over MCP?": "goose"}, names)

	toks, err := svc.Agents().Tokens(context.Background())
	require.NoError(t, err)
	assert.Empty(t, toks, "the listener's token is not stored")
	// Another server (Parley started again) does not know it.
	_, _, other := agentServer(t, nil)
	code, _ = do(t, other, "POST", "/api/v1/asks", `{"questions":[{"question":"Hi?"}]}`, agent)
	assert.Equal(t, 401, code)
	assert.Panics(t, func() { New(Options{Backend: svc, Token: testToken, LocalAgentToken: "not-an-agent-token"}) })
}

// mcpClient connects the Go SDK's client to /mcp with the token.
func mcpClient(t *testing.T, ts *httptest.Server, token, name string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: headerTransport{token: token}}
	c := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: ts.URL + MCPPath, HTTPClient: hc}, nil)
	require.NoError(t, err)
	return cs
}

type headerTransport struct{ token string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+h.token)
	return http.DefaultTransport.RoundTrip(r)
}

func callText(t *testing.T, cs *sdk.ClientSession, params *sdk.CallToolParams) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), params)
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

func TestMCPToolsOverStreamableHTTP(t *testing.T) {
	svc, _, ts := agentServer(t, nil)
	tok := newAgentToken(t, ts, "token-name")
	var progress []float64
	var mu sync.Mutex
	cs := mcpClient(t, ts, tok.Token, "claude-code", &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Progress)
			mu.Unlock()
		}})
	defer cs.Close()

	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		assert.Nil(t, tl.OutputSchema, "%s declares an output schema", tl.Name)
	}
	assert.ElementsMatch(t, []string{"ask_user_question", "get_answer", "request_permission", "notify_user"}, names)

	// Pending after wait_seconds, with progress on the way; the card stays open.
	params := &sdk.CallToolParams{Name: "ask_user_question", Arguments: map[string]any{
		"questions": []any{map[string]any{"question": "Which colour?", "options": []any{"Red", "Blue"}}}, "wait_seconds": 1}}
	params.SetProgressToken("p1")
	text, isErr := callText(t, cs, params)
	require.False(t, isErr, text)
	var pending struct{ Status, QuestionID, Message string }
	require.NoError(t, json.Unmarshal([]byte(text), &struct {
		Status     *string `json:"status"`
		QuestionID *string `json:"question_id"`
		Message    *string `json:"message"`
	}{&pending.Status, &pending.QuestionID, &pending.Message}))
	assert.Equal(t, "pending", pending.Status)
	assert.Equal(t, agentinbox.PendingMessage, pending.Message)
	mu.Lock()
	assert.NotEmpty(t, progress, "no progress notifications while waiting")
	mu.Unlock()
	card, ok := svc.Manager().Get(pending.QuestionID)
	require.True(t, ok)
	assert.Equal(t, questions.StatusPending, card.Status)
	assert.Equal(t, "claude-code", card.Source.Agent, "the agent is named by clientInfo.name")

	// Another agent cannot read it.
	other := mcpClient(t, ts, tok.Token, "codex", nil)
	text, isErr = callText(t, other, &sdk.CallToolParams{Name: "get_answer", Arguments: map[string]any{"question_id": pending.QuestionID, "wait_seconds": 1}})
	assert.True(t, isErr, text)
	assert.Contains(t, text, "unknown question_id")
	require.NoError(t, other.Close())

	_, err = svc.Respond(context.Background(), card.ConversationID, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
	require.NoError(t, err)
	text, isErr = callText(t, cs, &sdk.CallToolParams{Name: "get_answer", Arguments: map[string]any{"question_id": pending.QuestionID}})
	require.False(t, isErr, text)
	assert.Equal(t, `{"answers":{"Which colour?":"Blue"}}`, text)

	// A permission allowed with edited input, one denied with a reason.
	for _, c := range []struct {
		resp questions.Response
		want string
	}{
		{questions.Response{Action: questions.ActionApprove, Arguments: json.RawMessage(`{"command":"ls -la"}`)}, `{"behavior":"allow","updatedInput":{"command":"ls -la"}}`},
		{questions.Response{Action: questions.ActionReject, Reason: "Not on main"}, `{"behavior":"deny","message":"Not on main"}`},
		{questions.Response{Action: questions.ActionReject}, `{"behavior":"deny","message":"The user denied this."}`},
	} {
		done := make(chan string, 1)
		go func() {
			text, _ := callText(t, cs, &sdk.CallToolParams{Name: "request_permission", Arguments: map[string]any{
				"tool_name": "Bash", "input": map[string]any{"command": "ls"}, "tool_use_id": "toolu_1", "wait_seconds": 30}})
			done <- text
		}()
		var perm *questions.Card
		require.Eventually(t, func() bool {
			for _, c := range svc.PendingQuestions() {
				if c.Kind == questions.KindApproval {
					perm = c
					return true
				}
			}
			return false
		}, 10*time.Second, 5*time.Millisecond)
		assert.JSONEq(t, `{"command":"ls"}`, string(perm.Tool.Arguments))
		c.resp.QuestionID = perm.ID
		_, err := svc.Respond(context.Background(), perm.ConversationID, c.resp)
		require.NoError(t, err)
		select {
		case text := <-done:
			assert.JSONEq(t, c.want, text)
		case <-time.After(10 * time.Second):
			t.Fatal("request_permission did not return after the answer")
		}
	}

	text, isErr = callText(t, cs, &sdk.CallToolParams{Name: "notify_user", Arguments: map[string]any{"message": "Build finished", "level": "success"}})
	require.False(t, isErr, text)
	detail, err := svc.GetConversation(context.Background(), card.ConversationID)
	require.NoError(t, err)
	last := detail.Messages[len(detail.Messages)-1]
	assert.Equal(t, "✅ Build finished", last.Content)

	text, isErr = callText(t, cs, &sdk.CallToolParams{Name: "ask_user_question", Arguments: map[string]any{"questions": []any{}}})
	assert.True(t, isErr)
	assert.Contains(t, text, "invalid input: questions")
}

func TestMCPRefusesWithoutTokenAndCrossOrigin(t *testing.T) {
	_, _, ts := agentServer(t, nil)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	code, _ := do(t, ts, "POST", MCPPath, init, hdr)
	assert.Equal(t, 200, code)
	for name, extra := range map[string]map[string]string{
		"no token":     {"Authorization": ""},
		"wrong token":  {"Authorization": "Bearer " + agentinbox.TokenPrefix + "nope"},
		"cross origin": {"Origin": "http://evil.example"},
		"foreign host": {"Host": "evil.example"},
	} {
		h := map[string]string{}
		for k, v := range hdr {
			h[k] = v
		}
		for k, v := range extra {
			h[k] = v
		}
		code, body := do(t, ts, "POST", MCPPath, init, h)
		if strings.Contains(name, "token") {
			assert.Equal(t, 401, code, "%s: %s", name, body)
		} else {
			assert.Equal(t, 403, code, "%s: %s", name, body)
		}
	}
	code, _ = do(t, ts, "POST", MCPPath, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"`+strings.Repeat("a", MaxBodyBytes)+`"}}`, hdr)
	assert.Equal(t, 413, code)
}

func TestMCPSessionEndLeavesNoGoroutines(t *testing.T) {
	_, _, ts := agentServer(t, nil)
	ignore := goleak.IgnoreCurrent()
	for range 3 {
		cs := mcpClient(t, ts, testToken, "leak-check", nil)
		_, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		require.NoError(t, cs.Close())
	}
	ts.CloseClientConnections()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	goleak.VerifyNone(t, ignore)
}

// The second wall (issue 23) stands before the agents' routes too: /mcp's
// POST and DELETE, /api/v1/asks and the agent tokens refuse a body other
// than JSON (415) and a request a browser marks cross-site (403), and let a
// JSON one (what an MCP client sends) through.
func TestAgentRoutesRefuseForgeableRequests(t *testing.T) {
	_, s, ts := agentServer(t, nil)
	var agents []string
	for _, r := range stateChanging(t, s) {
		if agentPath(r[1]) || agentTokensPath(r[1]) {
			agents = append(agents, r[0]+" "+r[1])
		}
	}
	require.Subset(t, agents, []string{"POST /mcp", "DELETE /mcp", "POST /api/v1/asks", "POST /api/v1/agent-tokens", "DELETE /api/v1/agent-tokens/x"})
	assertForgeryWall(t, s, ts, map[string]string{"Authorization": "Bearer " + testToken})
}
