package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/mcp"
	"github.com/parley-app/parley/backend/mcp/mcptest"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// fastMCP makes servers restart and stop quickly in tests.
func fastMCP(o *mcp.Options) {
	o.MinBackoff, o.MaxBackoff, o.Terminate = 20*time.Millisecond, 200*time.Millisecond, 500*time.Millisecond
}

// callTool is a model that calls one tool, then answers with what the
// tool said.
func callTool(name, args string) modelserver.Script {
	return func(req modelserver.ChatRequest) modelserver.Turn {
		if last := req.LastMessage(); last.Role == "tool" {
			return modelserver.Turn{Text: "Tool said: " + last.Content}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: name, Arguments: args}}}
	}
}

// newMCPEnv is an env whose mcp.json holds the servers.
func newMCPEnv(t *testing.T, script modelserver.Script, servers map[string]mcp.ServerConfig) *env {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, mcp.ConfigFile)
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	e := &env{t: t, dbPath: filepath.Join(dir, "parley.db"), model: modelserver.New(script), mcpPath: path}
	t.Cleanup(e.model.Close)
	e.cfg.BaseURL, e.cfg.Model, e.cfg.QuestionTimeout = e.model.URL(), "scripted", time.Minute
	e.cfg.Set = map[string]bool{"base-url": true, "model": true, "question-timeout": true}
	e.open()
	t.Cleanup(e.close)
	return e
}

func nodeServer(t *testing.T, name string, args ...string) mcp.ServerConfig {
	cmd, a := mcptest.NodeServer(t, name, args...)
	return mcp.ServerConfig{Command: cmd, Args: a}
}

func (e *env) waitConnected(name string) api.MCPServer {
	e.t.Helper()
	var last api.MCPServer
	require.Eventually(e.t, func() bool {
		for _, s := range e.svc.MCPServers() {
			if s.Name == name {
				last = s
				return s.Status == api.MCPConnected
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "server %s never connected", name)
	return last
}

// startWith starts a conversation with a message and waits for it to settle.
func (e *env) startWith(text string, want ...string) (string, *api.ConversationDetail) {
	e.t.Helper()
	c, err := e.svc.CreateConversation(context.Background(), "", "")
	require.NoError(e.t, err)
	_, err = e.svc.Send(context.Background(), c.ID, api.SendRequest{Content: text})
	require.NoError(e.t, err)
	return c.ID, e.waitState(c.ID, want...)
}

func lastMessage(d *api.ConversationDetail) chat.Message { return d.Messages[len(d.Messages)-1] }

func toolMessage(t *testing.T, d *api.ConversationDetail) chat.Message {
	t.Helper()
	for _, m := range d.Messages {
		if m.Role == chat.RoleTool {
			return m
		}
	}
	require.FailNow(t, "no tool message", "%+v", d.Messages)
	return chat.Message{}
}

func TestMCPEchoThroughTheAgentLoop(t *testing.T) {
	e := newMCPEnv(t, callTool("everything__echo", `{"message":"hello from the model"}`), map[string]mcp.ServerConfig{
		"everything": func() mcp.ServerConfig {
			c := nodeServer(t, "everything", "stdio")
			c.Env = map[string]string{"EVERYTHING_TOKEN": "tok-very-secret-123"}
			return c
		}()})
	e.waitConnected("everything")
	_, err := e.svc.SetMCPToolPolicy("everything", "echo", api.PolicyAllow)
	require.NoError(t, err)

	id, d := e.startWith("Echo something", chat.StateIdle)
	assert.Equal(t, "Echo: hello from the model", toolMessage(t, d).Content)
	assert.Equal(t, "Tool said: Echo: hello from the model", lastMessage(d).Content)
	// The model was offered the server's tools under their model names.
	reqs := e.model.Requests()
	require.NotEmpty(t, reqs)
	var offered []string
	for _, tl := range reqs[0].Tools {
		offered = append(offered, tl.Function.Name)
	}
	assert.Contains(t, offered, "everything__echo")
	assert.Contains(t, offered, "everything__trigger-elicitation-request")
	assert.Contains(t, offered, "ask_user_question")

	// A blocked tool is never offered, still listed.
	_, err = e.svc.SetMCPToolPolicy("everything", "get-sum", api.PolicyBlock)
	require.NoError(t, err)
	var listed bool
	for _, s := range e.svc.MCPServers() {
		for _, tl := range s.Tools {
			listed = listed || tl.Name == "get-sum" && tl.Policy == api.PolicyBlock
		}
	}
	assert.True(t, listed)
	for _, tl := range e.svc.AvailableTools() {
		if tl.Name == "everything__get-sum" {
			t.Log("listed for profiles (policies still apply)")
		}
	}

	// No secret in the export.
	for _, f := range []string{"json", "markdown"} {
		out, err := e.svc.ExportConversation(context.Background(), id, f)
		require.NoError(t, err)
		assert.NotContains(t, out, "tok-very-secret-123")
	}
	all, _ := json.Marshal(e.svc.MCPServers())
	assert.NotContains(t, string(all), "tok-very-secret-123")
}

// rawResult extracts the "Raw result: {...}" server-everything appends.
func rawResult(t *testing.T, text string) map[string]any {
	t.Helper()
	_, raw, ok := strings.Cut(text, "Raw result: ")
	require.True(t, ok, "no raw result in %q", text)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &m), raw)
	return m
}

func TestMCPFormElicitationThroughACard(t *testing.T) {
	e := newMCPEnv(t, callTool("everything__trigger-elicitation-request", `{}`),
		map[string]mcp.ServerConfig{"everything": nodeServer(t, "everything", "stdio")})
	e.waitConnected("everything")
	_, err := e.svc.SetMCPToolPolicy("everything", "trigger-elicitation-request", api.PolicyAllow)
	require.NoError(t, err)

	id, d := e.startWith("Ask me for my details", chat.StateAwaitingUserResponse)
	card := d.PendingQuestion
	require.NotNil(t, card)
	assert.Equal(t, questions.KindElicitation, card.Kind)
	assert.Equal(t, "everything", card.Server)
	assert.Equal(t, questions.ElicitForm, card.Mode)
	assert.Equal(t, "Please provide inputs for the following fields:", card.Message)
	assert.Equal(t, &questions.Source{Type: questions.SourceMCP, Server: "everything", Tool: "trigger-elicitation-request"}, card.Source)
	// The schema as the server sent it: its fields in the server's order.
	assert.True(t, strings.HasPrefix(string(card.Schema), `{"type":"object","properties":{"name":{`), string(card.Schema))
	assert.Less(t, strings.Index(string(card.Schema), `"check"`), strings.Index(string(card.Schema), `"legacyTitledEnum"`))

	// Bad content: a validation error, and nothing changes.
	_, err = e.svc.Respond(context.Background(), id, questions.Response{QuestionID: card.ID, Action: questions.ActionAccept,
		Content: json.RawMessage(`{"name":"Ann","email":"not-an-email","integer":500}`)})
	require.Equal(t, fault.Validation, fault.KindOf(err), "%v", err)
	d = e.waitState(id, chat.StateAwaitingUserResponse)
	assert.Equal(t, questions.StatusPending, d.PendingQuestion.Status)

	got, err := e.svc.Respond(context.Background(), id, questions.Response{QuestionID: card.ID, Action: questions.ActionAccept,
		Content: json.RawMessage(`{"name":"Ann Lee","check":true,"email":"ann@example.com","homepage":"https://ann.example/","birthdate":"1990-04-01","integer":7,
		"untitledMultipleSelectEnum":["Piano","Drums"],"titledMultipleSelectEnum":["fish-2"],"firstLine":""}`)})
	require.NoError(t, err)
	assert.Equal(t, questions.StatusAccepted, got.Status)
	d = e.waitState(id, chat.StateIdle)
	raw := rawResult(t, toolMessage(t, d).Content)
	want := map[string]any{"action": "accept", "content": map[string]any{
		"name": "Ann Lee", "check": true, "email": "ann@example.com", "homepage": "https://ann.example/", "birthdate": "1990-04-01",
		"integer": float64(7), "untitledMultipleSelectEnum": []any{"Piano", "Drums"}, "titledMultipleSelectEnum": []any{"fish-2"},
		// Defaults filled in for the fields left empty:
		"firstLine": "It was a dark and stormy night.", "number": 3.14, "untitledSingleSelectEnum": "Monica",
		"titledSingleSelectEnum": "hero-1", "legacyTitledEnum": "pet-1"}}
	assert.Equal(t, want, raw, "what the server received")
	assert.Contains(t, toolMessage(t, d).Content, "User provided the requested information")
}

func TestMCPElicitationDeclineAndURLMode(t *testing.T) {
	e := newMCPEnv(t, callTool("everything__trigger-url-elicitation", `{"url":"https://example.com/authorize?x=1","message":"Log in please"}`),
		map[string]mcp.ServerConfig{"everything": nodeServer(t, "everything", "stdio")})
	e.waitConnected("everything")
	_, err := e.svc.SetMCPToolPolicy("everything", "trigger-url-elicitation", api.PolicyAllow)
	require.NoError(t, err)

	for _, tc := range []struct {
		action questions.Action
		want   string
	}{{questions.ActionAccept, "User completed the URL elicitation flow"}, {questions.ActionDecline, "User declined to open the URL"}} {
		id, d := e.startWith("Log me in", chat.StateAwaitingUserResponse)
		card := d.PendingQuestion
		require.NotNil(t, card)
		assert.Equal(t, questions.ElicitURL, card.Mode)
		assert.Equal(t, "https://example.com/authorize?x=1", card.URL)
		assert.Equal(t, "Log in please", card.Message)
		assert.Empty(t, card.Schema)
		_, err := e.svc.Respond(context.Background(), id, questions.Response{QuestionID: "latest", Action: tc.action})
		require.NoError(t, err)
		d = e.waitState(id, chat.StateIdle)
		assert.Contains(t, toolMessage(t, d).Content, tc.want)
		assert.Equal(t, string(tc.action), rawResult(t, toolMessage(t, d).Content)["action"])
	}
}

func TestMCPApprovalOfFilesystemWrites(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "note.txt")
	edited := filepath.Join(dir, "edited.txt")
	e := newMCPEnv(t, callTool("filesystem__write_file", `{"path":`+jsonStr(target)+`,"content":"hello"}`),
		map[string]mcp.ServerConfig{"filesystem": nodeServer(t, "filesystem", dir)})
	srv := e.waitConnected("filesystem")
	for _, tl := range srv.Tools {
		if tl.Name == "write_file" {
			assert.Equal(t, api.PolicyAsk, tl.Policy, "asks by default")
		}
	}
	ctx := context.Background()

	t.Run("rejected: nothing written", func(t *testing.T) {
		id, d := e.startWith("Write a note", chat.StateAwaitingUserResponse)
		card := d.PendingQuestion
		require.NotNil(t, card)
		assert.Equal(t, questions.KindApproval, card.Kind)
		require.NotNil(t, card.Tool)
		assert.Equal(t, "filesystem", card.Tool.Server)
		assert.Equal(t, "write_file", card.Tool.Name)
		assert.NotEmpty(t, card.Tool.Description)
		assert.JSONEq(t, `{"path":`+jsonStr(target)+`,"content":"hello"}`, string(card.Tool.Arguments))
		assert.Contains(t, string(card.Tool.InputSchema), `"path"`)
		_, err := e.svc.Respond(ctx, id, questions.Response{QuestionID: card.ID, Action: questions.ActionReject, Reason: "not there"})
		require.NoError(t, err)
		d = e.waitState(id, chat.StateIdle)
		assert.Contains(t, toolMessage(t, d).Content, "rejected")
		assert.Contains(t, toolMessage(t, d).Content, "not there")
		assert.Contains(t, lastMessage(d).Content, "Tool said:", "the run went on")
		assert.NoFileExists(t, target)
	})
	t.Run("edited arguments that fail the schema: 422, nothing written", func(t *testing.T) {
		id, d := e.startWith("Write a note", chat.StateAwaitingUserResponse)
		card := d.PendingQuestion
		_, err := e.svc.Respond(ctx, id, questions.Response{QuestionID: card.ID, Action: questions.ActionApprove,
			Arguments: json.RawMessage(`{"path":5,"content":"hello"}`)})
		assert.Equal(t, fault.Validation, fault.KindOf(err), "%v", err)
		_, err = e.svc.Respond(ctx, id, questions.Response{QuestionID: card.ID, Action: questions.ActionApprove,
			Arguments: json.RawMessage(`{"content":"hello"}`)})
		assert.Equal(t, fault.Validation, fault.KindOf(err), "%v", err)
		d = e.waitState(id, chat.StateAwaitingUserResponse)
		assert.Equal(t, questions.StatusPending, d.PendingQuestion.Status)
		assert.NoFileExists(t, target)
		// Cancel: the tool does not run and the run stops.
		_, err = e.svc.Respond(ctx, id, questions.Response{QuestionID: card.ID, Action: questions.ActionCancel})
		require.NoError(t, err)
		d = e.waitState(id, chat.StateIdle)
		assert.Equal(t, questions.ApprovalCancelledResult, toolMessage(t, d).Content)
		assert.Equal(t, chat.RoleTool, lastMessage(d).Role, "the model was not called again")
		assert.NoFileExists(t, target)
	})
	t.Run("approved with an edited path: written there", func(t *testing.T) {
		id, d := e.startWith("Write a note", chat.StateAwaitingUserResponse)
		card := d.PendingQuestion
		_, err := e.svc.Respond(ctx, id, questions.Response{QuestionID: card.ID, Action: questions.ActionApprove,
			Arguments: json.RawMessage(`{"path":` + jsonStr(edited) + `,"content":"hello"}`)})
		require.NoError(t, err)
		d = e.waitState(id, chat.StateIdle)
		data, err := os.ReadFile(edited)
		require.NoError(t, err)
		assert.Equal(t, "hello", string(data))
		assert.NoFileExists(t, target)
		assert.Contains(t, toolMessage(t, d).Content, "Successfully wrote")
	})
	t.Run("approve always: the next call runs without a card", func(t *testing.T) {
		id, d := e.startWith("Write a note", chat.StateAwaitingUserResponse)
		_, err := e.svc.Respond(ctx, id, questions.Response{QuestionID: d.PendingQuestion.ID, Action: questions.ActionApprove, Always: true})
		require.NoError(t, err)
		e.waitState(id, chat.StateIdle)
		require.FileExists(t, target)
		require.NoError(t, os.Remove(target))
		for _, s := range e.svc.MCPServers() {
			for _, tl := range s.Tools {
				if tl.Name == "write_file" {
					assert.Equal(t, api.PolicyAllow, tl.Policy)
				}
			}
		}
		_, d = e.startWith("Write a note", chat.StateIdle)
		assert.FileExists(t, target)
		assert.Nil(t, d.PendingQuestion)
	})
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestMCPPendingApprovalSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "after-restart.txt")
	e := newMCPEnv(t, callTool("filesystem__write_file", `{"path":`+jsonStr(target)+`,"content":"survived"}`),
		map[string]mcp.ServerConfig{"filesystem": nodeServer(t, "filesystem", dir)})
	e.waitConnected("filesystem")
	id, d := e.startWith("Write it", chat.StateAwaitingUserResponse)
	cardID := d.PendingQuestion.ID

	e.close()
	e.open()
	// Shown again after the restart, before the server has even connected.
	d = e.waitState(id, chat.StateAwaitingUserResponse)
	require.NotNil(t, d.PendingQuestion)
	assert.Equal(t, cardID, d.PendingQuestion.ID)
	assert.Equal(t, questions.KindApproval, d.PendingQuestion.Kind)
	pending, err := e.svc.Questions(context.Background(), "pending")
	require.NoError(t, err)
	require.Len(t, pending, 1)

	_, err = e.svc.Respond(context.Background(), id, questions.Response{QuestionID: cardID, Action: questions.ActionApprove})
	require.NoError(t, err)
	d = e.waitState(id, chat.StateIdle)
	data, err := os.ReadFile(target)
	require.NoError(t, err, "the tool did not run on the restarted server")
	assert.Equal(t, "survived", string(data))
	assert.Equal(t, "Tool said: "+toolMessage(t, d).Content, lastMessage(d).Content, "the run went on")
}

func TestMCPPendingElicitationIsCancelledAtRestart(t *testing.T) {
	e := newMCPEnv(t, callTool("everything__trigger-elicitation-request", `{}`),
		map[string]mcp.ServerConfig{"everything": nodeServer(t, "everything", "stdio")})
	e.waitConnected("everything")
	_, err := e.svc.SetMCPToolPolicy("everything", "trigger-elicitation-request", api.PolicyAllow)
	require.NoError(t, err)
	id, d := e.startWith("Ask me", chat.StateAwaitingUserResponse)
	cardID := d.PendingQuestion.ID

	e.close()
	e.open()
	d = e.waitState(id, chat.StateIdle)
	assert.Nil(t, d.PendingQuestion)
	cards, err := e.svc.ConversationQuestions(context.Background(), id)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	assert.Equal(t, cardID, cards[0].ID)
	assert.Equal(t, questions.StatusCancelled, cards[0].Status)
	assert.Equal(t, questions.ElicitationEndedAtCloseReason, cards[0].Reason)
	// Nothing silently dropped: the tool call has that line as its result.
	assert.Equal(t, questions.ElicitationEndedAtCloseReason, toolMessage(t, d).Content)
	_, err = e.svc.Respond(context.Background(), id, questions.Response{QuestionID: cardID, Action: questions.ActionAccept})
	assert.Equal(t, fault.Conflict, fault.KindOf(err))
}

// Images an MCP tool returns travel with the tool message (shown live; the
// model gets a note), and a tool error reaches the model as a tool result.
func TestMCPImagesAndToolErrorsReachTheChat(t *testing.T) {
	bin := mcptest.BuildTestServer(t)
	e := newMCPEnv(t, func(req modelserver.ChatRequest) modelserver.Turn {
		last := req.LastMessage()
		switch {
		case last.Role == "user":
			return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: "local__image", Arguments: `{}`}}}
		case last.ToolCallID == "call_1":
			return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_2", Name: "local__fail", Arguments: `{}`}}}
		}
		return modelserver.Turn{Text: "Tool said: " + last.Content}
	}, map[string]mcp.ServerConfig{"local": {Command: bin}})
	e.waitConnected("local")
	for _, tool := range []string{"image", "fail"} {
		_, err := e.svc.SetMCPToolPolicy("local", tool, api.PolicyAllow)
		require.NoError(t, err)
	}
	_, d := e.startWith("Show me", chat.StateIdle)
	assert.Equal(t, "Tool said: error: disk quota exceeded", lastMessage(d).Content)
	var atts []chat.Attachment
	for _, ev := range e.rec.Events() {
		if p, ok := ev.Payload.(events.MessageDonePayload); ok && p.Message.Role == chat.RoleTool && p.Message.ToolCallID == "call_1" {
			atts = p.Message.Attachments
			assert.Contains(t, p.Message.Content, "shown to the user")
		}
	}
	require.Len(t, atts, 1)
	assert.Equal(t, "image/png", atts[0].MIMEType)
	assert.Equal(t, "\x89PNG", string(atts[0].Data[:4]))

	// The image is stored with the tool message: it comes back with the
	// conversation, also after a restart.
	for _, reopen := range []bool{false, true} {
		if reopen {
			e.close()
			e.open()
		}
		d, err := e.svc.GetConversation(context.Background(), d.ID)
		require.NoError(t, err)
		var stored []chat.Attachment
		for _, m := range d.Messages {
			if m.Role == chat.RoleTool && m.ToolCallID == "call_1" {
				stored = m.Attachments
			}
		}
		require.Len(t, stored, 1, "reopened %v", reopen)
		assert.Equal(t, atts[0].Data, stored[0].Data, "reopened %v", reopen)
	}
}

// Stop during a running MCP call cancels it on the server (through the
// SDK), and the conversation goes idle with the call closed in the history.
func TestMCPStopCancelsARunningCall(t *testing.T) {
	bin := mcptest.BuildTestServer(t)
	marker := t.TempDir()
	e := newMCPEnv(t, callTool("local__hang", `{}`), map[string]mcp.ServerConfig{"local": {Command: bin, Args: []string{"-marker", marker}}})
	e.waitConnected("local")
	_, err := e.svc.SetMCPToolPolicy("local", "hang", api.PolicyAllow)
	require.NoError(t, err)
	c, err := e.svc.CreateConversation(context.Background(), "", "")
	require.NoError(t, err)
	id := c.ID
	_, err = e.svc.Send(context.Background(), id, api.SendRequest{Content: "Wait forever"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(marker, "started"))
		return err == nil
	}, 15*time.Second, 10*time.Millisecond, "the call never reached the server")
	d, err := e.svc.GetConversation(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, chat.StateToolExecuting, d.State)
	require.NoError(t, e.svc.Cancel(context.Background(), id))
	d = e.waitState(id, chat.StateIdle)
	assert.Equal(t, interruptedToolResultText, toolMessage(t, d).Content)
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(marker, "cancelled"))
		return err == nil
	}, 10*time.Second, 10*time.Millisecond, "the server never saw the cancellation")
}

const interruptedToolResultText = "Cancelled by the user while this tool was running."
