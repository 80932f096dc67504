package agentcli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/httpapi"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

const apiToken = "agentcli-test-token-0123456789abcdef0123456789"

// running is a Parley listening for agents on a temporary data folder.
func running(t *testing.T) (*service.Service, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: events.NewRecorder(), Config: config.Config{DataDir: dir}, Version: "test"})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	ts := httptest.NewServer(httpapi.New(httpapi.Options{Backend: svc, Token: apiToken, Version: "test", Agents: svc.Agents()}))
	t.Cleanup(ts.Close)
	require.NoError(t, os.WriteFile(filepath.Join(dir, APITokenFile), []byte(apiToken+"\n"), 0o600))
	require.NoError(t, WriteListener(dir, ts.URL))
	return svc, dir
}

// answerNext answers the next pending card with respond once it appears.
func answerNext(t *testing.T, svc *service.Service, respond func(c *questions.Card) questions.Response) {
	t.Helper()
	var card *questions.Card
	require.Eventually(t, func() bool {
		p := svc.PendingQuestions()
		if len(p) == 0 {
			return false
		}
		card = p[0]
		return true
	}, 10*time.Second, 5*time.Millisecond)
	r := respond(card)
	r.QuestionID = card.ID
	_, err := svc.Respond(context.Background(), card.ConversationID, r)
	require.NoError(t, err)
}

// runAsk starts `parley ask`; the returned func waits for its exit code and output.
func runAsk(t *testing.T, args ...string) func() (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- RunAsk(context.Background(), args, func(string) string { return "" }, &out, &errb) }()
	wait := func() (int, string, string) {
		select {
		case code := <-done:
			return code, out.String(), errb.String()
		case <-time.After(20 * time.Second):
			t.Fatal("parley ask did not return")
			return 0, "", ""
		}
	}
	return wait
}

func TestParleyAskOutputAndExitCodes(t *testing.T) {
	svc, dir := running(t)
	set := svc.GetSettings()
	set.RateLimitSeconds = 0
	_, err := svc.SaveSettings(context.Background(), set)
	require.NoError(t, err)

	wait := runAsk(t, "Deploy to production?", "--option", "Yes", "--option", "No", "--data-dir", dir, "--context", "Release 1.2")
	answerNext(t, svc, func(*questions.Card) questions.Response {
		return questions.Response{Action: questions.ActionSubmit, Answers: map[string]questions.AnswerInput{"Deploy to production?": {Selected: []string{"Yes"}}}}
	})
	code, out, _ := wait()
	assert.Equal(t, ExitAnswered, code)
	assert.Equal(t, "Yes\n", out)

	wait = runAsk(t, "--multi", "--json", "--data-dir", dir, "Which?", "--option", "A", "--option", "B", "--option", "C")
	answerNext(t, svc, func(*questions.Card) questions.Response {
		return questions.Response{Action: questions.ActionSubmit, Answers: map[string]questions.AnswerInput{"Which?": {Selected: []string{"A", "C"}}}}
	})
	code, out, _ = wait()
	assert.Equal(t, ExitAnswered, code)
	assert.Equal(t, `{"answers":{"Which?":"A, C"}}`+"\n", out)

	for _, c := range []struct {
		action questions.Action
		code   int
	}{{questions.ActionDecline, ExitDeclined}, {questions.ActionCancel, ExitCancelled}} {
		wait = runAsk(t, "Go on?", "--data-dir", dir)
		answerNext(t, svc, func(*questions.Card) questions.Response { return questions.Response{Action: c.action} })
		code, _, _ = wait()
		assert.Equal(t, c.code, code, c.action)
	}

	wait = runAsk(t, "Anyone there?", "--timeout", "1s", "--data-dir", dir)
	code, _, errOut := wait()
	assert.Equal(t, ExitTimedOut, code)
	assert.Contains(t, errOut, "timed out")

	// Refused by the pending cap: exit 6 with the reason.
	set.MaxPendingQuestions = 1
	_, err = svc.SaveSettings(context.Background(), set)
	require.NoError(t, err)
	first := runAsk(t, "First?", "--data-dir", dir)
	require.Eventually(t, func() bool { return len(svc.PendingQuestions()) == 1 }, 10*time.Second, 5*time.Millisecond)
	wait = runAsk(t, "Second?", "--data-dir", dir)
	code, _, errOut = wait()
	assert.Equal(t, ExitRefused, code)
	assert.Contains(t, errOut, "questions waiting for the user")
	// In the terminal's language (LANG) while Parley's Settings choose none.
	var germanOut, germanErr bytes.Buffer
	german := func(k string) string { return map[string]string{"LANG": "de_DE.UTF-8"}[k] }
	code = RunAsk(context.Background(), []string{"Second?", "--data-dir", dir}, german, &germanOut, &germanErr)
	assert.Equal(t, ExitRefused, code)
	assert.Contains(t, germanErr.String(), "abgelehnt: dieser Agent wartet schon auf so viele Antworten, wie er darf (Höchstzahl offener Fragen: 1)")
	assert.Empty(t, germanOut.String())
	answerNext(t, svc, func(*questions.Card) questions.Response { return questions.Response{Action: questions.ActionDecline} })
	code, _, _ = first()
	assert.Equal(t, ExitDeclined, code)

	// Usage errors: 2; Parley not reachable: 1.
	wait = runAsk(t, "--data-dir", dir)
	code, _, _ = wait()
	assert.Equal(t, ExitUsage, code)
	wait = runAsk(t, "One option?", "--option", "Only", "--data-dir", dir)
	code, _, errOut = wait()
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "options must have")
	wait = runAsk(t, "Hello?", "--data-dir", t.TempDir())
	code, _, errOut = wait()
	assert.Equal(t, ExitUnreachable, code)
	assert.Contains(t, errOut, "Parley is not running")
}

func connectStdio(t *testing.T, dataDir, name string) *sdk.ClientSession {
	t.Helper()
	serverSide, clientSide := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = RunMCP(ctx, MCPOptions{Args: []string{"--data-dir", dataDir}, Version: "test"}, serverSide)
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil).Connect(context.Background(), clientSide, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); cancel(); wg.Wait() })
	return cs
}

func TestParleyMCPNotRunningSaysSo(t *testing.T) {
	cs := connectStdio(t, t.TempDir(), "codex")
	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, 4, "the tools are listed even when Parley is not running")
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "notify_user", Arguments: map[string]any{"message": "hi"}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, "Parley is not running: open it and ask again", res.Content[0].(*sdk.TextContent).Text)
}

func TestParleyMCPForwardsUnderTheAgentsName(t *testing.T) {
	svc, dir := running(t)
	cs := connectStdio(t, dir, "goose")
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user_question", Arguments: map[string]any{
			"questions": []any{map[string]any{"question": "Tabs or spaces?", "options": []any{"Tabs", "Spaces"}}}, "wait_seconds": 30}})
		assert.NoError(t, err)
		done <- res
	}()
	answerNext(t, svc, func(c *questions.Card) questions.Response {
		assert.Equal(t, "goose", c.Source.Agent, "the calling agent's clientInfo.name is forwarded")
		return questions.Response{Action: questions.ActionSubmit, Answers: map[string]questions.AnswerInput{"Tabs or spaces?": {Selected: []string{"Spaces"}}}}
	})
	select {
	case res := <-done:
		require.False(t, res.IsError)
		assert.Equal(t, `{"answers":{"Tabs or spaces?":"Spaces"}}`, res.Content[0].(*sdk.TextContent).Text)
	case <-time.After(20 * time.Second):
		t.Fatal("the forwarded call did not return")
	}
	info, err := os.Stat(filepath.Join(dir, AgentTokenFile))
	require.NoError(t, err, "an agent token is made on first use")
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	toks, err := svc.Agents().Tokens(context.Background())
	require.NoError(t, err)
	require.Len(t, toks, 1)
	assert.Equal(t, MCPTokenName, toks[0].Name)
}
