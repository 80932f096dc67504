package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/agentcli"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/core"
	"github.com/parley-app/parley/backend/httpapi"
	"github.com/parley-app/parley/backend/questions"
)

// `parley ask` and `parley mcp` reach the running Parley whatever token its
// API was started with, and without the API token: as `parley serve --token`
// starts it (no api-token file at all), and as the desktop app does with its
// local API off.
func TestAgentCommandsReachTheRunningParleyWhateverItsAPIToken(t *testing.T) {
	for _, tc := range []struct {
		name  string
		token string
		full  func() bool
	}{
		{"parley serve --token", "a-token-the-user-chose-0123456789abcdef", nil},
		{"desktop, local API off", "", func() bool { return false }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := config.Config{DataDir: dir, Token: tc.token}
			c, err := core.Open(core.Options{Config: cfg, Version: "test"})
			require.NoError(t, err)
			defer c.Close()
			s, err := core.StartAPI(c, "127.0.0.1:0", cfg, nil, tc.full)
			require.NoError(t, err)
			stopped := false
			defer func() {
				if !stopped {
					s.Stop()
				}
			}()
			if tc.token != "" {
				require.NoFileExists(t, filepath.Join(dir, httpapi.TokenFile), "parley serve --token writes no api-token")
			}

			// The listener file's token is an agent token: the agents' paths only.
			l, err := agentcli.ReadListener(dir)
			require.NoError(t, err)
			assert.Equal(t, s.URL(), l.URL)
			assert.Equal(t, http.StatusForbidden, get(t, s.URL()+"/api/v1/conversations", l.Token))
			assert.Equal(t, http.StatusForbidden, get(t, s.URL()+"/api/v1/agent-tokens", l.Token))
			if tc.full == nil {
				assert.Equal(t, http.StatusOK, get(t, s.URL()+"/api/v1/conversations", tc.token))
			}

			// answer answers the next card: over HTTP with the API token T
			// where the whole API answers, else in the app (the service).
			answer := func(label string) *questions.Card {
				var card *questions.Card
				require.Eventually(t, func() bool {
					p := c.Service.PendingQuestions()
					if len(p) == 0 {
						return false
					}
					card = p[0]
					return true
				}, 10*time.Second, 5*time.Millisecond)
				r := questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
					Answers: map[string]questions.AnswerInput{card.Questions[0].Question: {Selected: []string{label}}}}
				if tc.full == nil {
					b, err := json.Marshal(r)
					require.NoError(t, err)
					req, err := http.NewRequest(http.MethodPost, s.URL()+"/api/v1/conversations/"+card.ConversationID+"/respond", bytes.NewReader(b))
					require.NoError(t, err)
					req.Header.Set("Authorization", "Bearer "+tc.token)
					req.Header.Set("Content-Type", "application/json")
					res, err := http.DefaultClient.Do(req)
					require.NoError(t, err)
					_ = res.Body.Close()
					require.Equal(t, http.StatusOK, res.StatusCode)
				} else {
					_, err := c.Service.Respond(context.Background(), card.ConversationID, r)
					require.NoError(t, err)
				}
				return card
			}

			// parley ask
			wait := ask(t, "Deploy to production?", "--option", "Yes", "--option", "No", "--data-dir", dir)
			card := answer("Yes")
			code, out, errOut := wait()
			assert.Equal(t, agentcli.ExitAnswered, code, errOut)
			assert.Equal(t, "Yes\n", out)
			assert.Equal(t, agentcli.DefaultAskAgent, card.Source.Agent)

			// parley mcp, under the MCP client's name
			cs := mcpStdio(t, dir, "goose")
			text, isErr := callTool(t, cs, "notify_user", map[string]any{"message": "Build is green"})
			require.False(t, isErr, text)
			done := make(chan string, 1)
			go func() {
				text, isErr := callTool(t, cs, "ask_user_question", map[string]any{"wait_seconds": 30,
					"questions": []any{map[string]any{"question": "Tabs or spaces?", "options": []any{"Tabs", "Spaces"}}}})
				assert.False(t, isErr, text)
				done <- text
			}()
			card = answer("Spaces")
			select {
			case text := <-done:
				assert.Equal(t, `{"answers":{"Tabs or spaces?":"Spaces"}}`, text)
			case <-time.After(20 * time.Second):
				t.Fatal("the call through parley mcp did not return")
			}
			assert.Equal(t, "goose", card.Source.Agent)
			toks, err := c.Service.Agents().Tokens(context.Background())
			require.NoError(t, err)
			assert.Empty(t, toks, "no agent token is stored for the commands")

			// Stopped: the listener file goes, and Parley is not running.
			s.Stop()
			stopped = true
			require.NoFileExists(t, filepath.Join(dir, agentcli.ListenerFile))
			code, _, errOut = ask(t, "Still there?", "--data-dir", dir)()
			assert.Equal(t, agentcli.ExitUnreachable, code)
			assert.Contains(t, errOut, agentcli.ErrNotRunning.Error())
		})
	}
}

func get(t *testing.T, url, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = res.Body.Close()
	return res.StatusCode
}

// ask starts `parley ask`; the returned func waits for its exit code and output.
func ask(t *testing.T, args ...string) func() (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- agentcli.RunAsk(context.Background(), args, func(string) string { return "" }, &out, &errb)
	}()
	return func() (int, string, string) {
		select {
		case code := <-done:
			return code, out.String(), errb.String()
		case <-time.After(20 * time.Second):
			t.Fatal("parley ask did not return")
			return 0, "", ""
		}
	}
}

// mcpStdio runs `parley mcp` over an in-memory transport as the agent name.
func mcpStdio(t *testing.T, dataDir, name string) *sdk.ClientSession {
	t.Helper()
	serverSide, clientSide := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = agentcli.RunMCP(ctx, agentcli.MCPOptions{Args: []string{"--data-dir", dataDir}, Version: "test"}, serverSide)
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil).Connect(context.Background(), clientSide, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); cancel(); wg.Wait() })
	return cs
}

func callTool(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if !assert.NoError(t, err) || !assert.Len(t, res.Content, 1) {
		return "", true
	}
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}
