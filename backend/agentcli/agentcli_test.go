package agentcli

import (
	"bytes"
	"context"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/httpapi"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

const apiToken = "agentcli-test-token-0123456789abcdef0123456789"

// running is a Parley listening for agents on a temporary data folder: its
// listener file holds the agent token it keeps for its commands, and no
// api-token file is written (the commands never need the API token).
func running(t *testing.T) (*service.Service, string) {
	t.Helper()
	svc, dir, _ := runningAt(t, t.TempDir())
	return svc, dir
}

func runningAt(t *testing.T, dir string) (*service.Service, string, *httptest.Server) {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: events.NewRecorder(), Config: config.Config{DataDir: dir}, Version: "test"})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	agentToken, err := agentinbox.NewSecret()
	require.NoError(t, err)
	ts := httptest.NewServer(httpapi.New(httpapi.Options{Backend: svc, Token: apiToken, Version: "test", Agents: svc.Agents(), LocalAgentToken: agentToken}))
	t.Cleanup(ts.Close)
	require.NoError(t, WriteListener(dir, ts.URL, agentToken))
	return svc, dir, ts
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
	toks, err := svc.Agents().Tokens(context.Background())
	require.NoError(t, err)
	assert.Empty(t, toks, "parley mcp uses the running Parley's own agent token: none is stored")
}

// mcpCall calls a tool through `parley mcp` and returns its text.
func mcpCall(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

// A crashed Parley leaves its listener file: nothing listens there.
func TestAgentCommandsSayNotRunningWhenNothingListens(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, ln.Close())
	token, err := agentinbox.NewSecret()
	require.NoError(t, err)
	require.NoError(t, WriteListener(dir, "http://"+ln.Addr().String(), token))

	code, out, errOut := runAsk(t, "Hello?", "--data-dir", dir)()
	assert.Equal(t, ExitUnreachable, code)
	assert.Empty(t, out)
	assert.True(t, strings.HasPrefix(errOut, "parley ask: Parley is not running: open it and ask again"), errOut)

	text, isErr := mcpCall(t, connectStdio(t, dir, "codex"), "notify_user", map[string]any{"message": "hi"})
	assert.True(t, isErr)
	assert.Equal(t, "Parley is not running: open it and ask again", text)
}

// A Parley that listens but refuses the token is running: the commands say
// the token was refused, never that Parley is not running.
func TestAgentCommandsSayWhenTheTokenIsRefused(t *testing.T) {
	svc, dir, ts := runningAt(t, t.TempDir())
	stale := agentinbox.TokenPrefix + strings.Repeat("0", 64) // a previous run's
	require.NoError(t, WriteListener(dir, ts.URL, stale))

	code, _, errOut := runAsk(t, "Hello?", "--data-dir", dir)()
	assert.Equal(t, ExitUnreachable, code)
	assert.Contains(t, errOut, "refused the agent token of its "+ListenerFile)
	assert.NotContains(t, errOut, "not running")

	code, _, errOut = runAsk(t, "Hello?", "--data-dir", dir, "--token", "wrong")()
	assert.Equal(t, ExitUnreachable, code)
	assert.Contains(t, errOut, "refused the token given with --token")
	assert.NotContains(t, errOut, "not running")

	text, isErr := mcpCall(t, connectStdio(t, dir, "codex"), "notify_user", map[string]any{"message": "hi"})
	assert.True(t, isErr)
	assert.Contains(t, text, "refused the agent token of its "+ListenerFile)
	assert.NotContains(t, text, "not running")

	// --token overrides: the API token works too.
	wait := runAsk(t, "Ship it?", "--option", "Yes", "--option", "No", "--data-dir", dir, "--token", apiToken)
	answerNext(t, svc, func(*questions.Card) questions.Response {
		return questions.Response{Action: questions.ActionSubmit, Answers: map[string]questions.AnswerInput{"Ship it?": {Selected: []string{"No"}}}}
	})
	code, out, _ := wait()
	assert.Equal(t, ExitAnswered, code)
	assert.Equal(t, "No\n", out)

	// A listener file without a token (an older Parley) says so.
	require.NoError(t, WriteListener(dir, ts.URL, ""))
	code, _, errOut = runAsk(t, "Hello?", "--data-dir", dir)()
	assert.Equal(t, ExitUnreachable, code)
	assert.Contains(t, errOut, "left no agent token")
	assert.NotContains(t, errOut, "not running")
}

func TestListenerFileIsPrivateAndRemovedWithItsListener(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteListener(dir, "http://127.0.0.1:1", "parley_agent_x"))
	require.NoError(t, WriteListener(dir, "http://127.0.0.1:2", "parley_agent_y"))
	info, err := os.Stat(filepath.Join(dir, ListenerFile))
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	}
	l, err := ReadListener(dir)
	require.NoError(t, err)
	assert.Equal(t, Listener{URL: "http://127.0.0.1:2", PID: os.Getpid(), Token: "parley_agent_y"}, l)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left")

	RemoveListener(dir, "http://127.0.0.1:1") // another Parley's: kept
	_, err = ReadListener(dir)
	require.NoError(t, err)
	RemoveListener(dir, "http://127.0.0.1:2")
	_, err = ReadListener(dir)
	assert.ErrorIs(t, err, ErrNotRunning)
}
