package service

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/textcalls"
)

// envWithServer opens a service on the given scripted server and model.
func envWithServer(t *testing.T, srv *modelserver.Server, model string) *env {
	t.Helper()
	t.Cleanup(srv.Close)
	e := &env{t: t, dbPath: filepath.Join(t.TempDir(), "parley.db"), model: srv,
		cfg: config.Config{BaseURL: srv.URL(), Model: model, QuestionTimeout: time.Minute,
			Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}}
	e.open()
	t.Cleanup(e.close)
	return e
}

type wireMessage struct{ Role, Content, ToolCallID string }

func wireMessages(req modelserver.ChatRequest) []wireMessage {
	out := []wireMessage{}
	for _, m := range req.Messages {
		out = append(out, wireMessage{m.Role, m.Content, m.ToolCallID})
	}
	return out
}

// A model whose Ollama capabilities lack tools, on a server that also
// refuses `tool` messages: the card is asked through a text-form call,
// survives a restart, and the answer reaches the model in a user message;
// what the server refused is remembered across restarts.
func TestTextFormCardSurvivesRestartAndTheModelGetsTheExactHistory(t *testing.T) {
	srv := modelserver.New(modelserver.TextTools(askThenAnswer(), modelserver.FormTag, 4),
		modelserver.WithModels([]string{"small"}, "small"), modelserver.WithoutTools(), modelserver.WithoutToolRole())
	e := envWithServer(t, srv, "small")
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
	require.NoError(t, err)
	card := e.waitState(c.ID, chat.StateAwaitingUserResponse).PendingQuestion
	require.Equal(t, "Which colour?", card.Questions[0].Question)
	reqs := srv.Requests()
	require.Len(t, reqs, 1, "the capabilities said no tools: no native attempt")
	assert.Empty(t, reqs[0].Tools)

	e.close() // the app quits with the card pending
	e.open()
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateIdle)
	require.Len(t, d.Messages, 4, "messages %+v", d.Messages)
	assert.Equal(t, `You said: {"answers":{"Which colour?":"Red"}}`, d.Messages[3].Content)

	// Stored: the assistant turn that made the call, then its result.
	am := d.Messages[1]
	assert.Equal(t, "One question first.", am.Content)
	require.Len(t, am.ToolCalls, 1)
	assert.Equal(t, card.ToolCallID, am.ToolCalls[0].ID)
	assert.Equal(t, chat.RoleTool, d.Messages[2].Role)
	assert.Equal(t, am.ToolCalls[0].ID, d.Messages[2].ToolCallID)

	reqs = srv.Requests()
	require.Len(t, reqs, 3, "the tool message was refused once, then sent as a user message")
	profile := assistant.DefaultProfile()
	for _, r := range reqs[1:] {
		require.Empty(t, r.Tools)
	}
	system := reqs[2].Messages[0].Content
	assert.True(t, strings.HasPrefix(system, profile.SystemPrompt+"\n\n# Tools\n"), system)
	assert.Equal(t, []wireMessage{
		{"system", system, ""},
		{"user", "paint", ""},
		{"assistant", "One question first.\n\n" + textcalls.FormatCall(assistant.ToolAskUser, am.ToolCalls[0].Arguments), ""},
		{"user", "<tool_response name=\"ask_user_question\">\n{\"answers\":{\"Which colour?\":\"Red\"}}\n</tool_response>", ""},
	}, wireMessages(reqs[2]))

	// Remembered after another restart: no refused request first.
	e.close()
	e.open()
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "and the door?"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateAwaitingUserResponse)
	reqs = srv.Requests()
	require.Len(t, reqs, 4)
	for _, m := range reqs[3].Messages {
		assert.NotEqual(t, "tool", m.Role)
	}

	// How well the model asks: two cards, one answered, one cancelled.
	require.NoError(t, e.svc.Cancel(ctx, c.ID))
	stats, err := e.svc.ModelStats(ctx)
	require.NoError(t, err)
	require.Len(t, stats, 1)
	assert.Equal(t, "small", stats[0].Model)
	assert.Equal(t, 2, stats[0].CardsAsked)
	assert.Equal(t, 1, stats[0].Answered)
	assert.Equal(t, 1, stats[0].Cancelled)
}

func TestProfileToolCallingIsCheckedAndKept(t *testing.T) {
	e := newEnv(t, askThenAnswer(), time.Minute)
	ctx := context.Background()
	_, err := e.svc.SaveProfile(ctx, assistant.Profile{Name: "small", Tools: []string{assistant.ToolAskUser}, ToolCalling: "sometimes"})
	require.Error(t, err)
	assert.Equal(t, `tool calling must be "auto", "native", "text" or "off"`, err.Error())
	_, err = e.svc.SaveProfile(ctx, assistant.Profile{Name: "small", Tools: []string{assistant.ToolAskUser}, ToolCalling: assistant.ToolCallingText})
	require.NoError(t, err)
	_, err = e.svc.SaveProfile(ctx, assistant.Profile{Name: "plain", Tools: []string{}})
	require.NoError(t, err)
	ps, err := e.svc.Profiles(ctx)
	require.NoError(t, err)
	got := map[string]string{}
	for _, p := range ps {
		got[p.Name] = p.ToolCalling
	}
	assert.Equal(t, map[string]string{"default": "auto", "small": "text", "plain": "auto"}, got)

	// The profile's form is what the model gets: tools described in text.
	conv, err := e.svc.CreateConversation(ctx, "", "small")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, conv.ID, api.SendRequest{Content: "hello"})
	require.NoError(t, err)
	e.waitState(conv.ID, chat.StateAwaitingUserResponse, chat.StateIdle)
	req := e.model.Requests()[0]
	assert.Empty(t, req.Tools)
	assert.Contains(t, req.Messages[0].Content, "<tool_call>")
}

func TestSettingsExportCarriesStatsButNoAPIKey(t *testing.T) {
	e := newEnv(t, askThenAnswer(), time.Minute)
	ctx := context.Background()
	st := e.svc.GetSettings()
	st.APIKey = "secret-key-123"
	_, err := e.svc.SaveSettings(ctx, st)
	require.NoError(t, err)
	c, _ := e.svc.CreateConversation(ctx, "", "")
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateAwaitingUserResponse)
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionDecline})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)

	out, err := e.svc.ExportSettings(ctx)
	require.NoError(t, err)
	assert.Equal(t, "parley-settings", out.Format)
	assert.Empty(t, out.Settings.APIKey)
	require.Len(t, out.ModelStats, 1)
	assert.Equal(t, "scripted", out.ModelStats[0].Model)
	assert.Equal(t, 1, out.ModelStats[0].Declined)
	require.NotEmpty(t, out.Profiles)

	require.NoError(t, e.svc.ResetModelStats(ctx))
	stats, err := e.svc.ModelStats(ctx)
	require.NoError(t, err)
	assert.Empty(t, stats)
}

// The model lists mark what Ollama's /api/show capabilities say: tools,
// vision and (SPEC §9) thinking.
func TestOllamaCapabilitiesSayToolsVisionAndThinking(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithModels([]string{"qwen3:8b", "gemma3:4b", "tinyllama"}, "gemma3:4b", "tinyllama"),
		modelserver.WithVision("gemma3:4b"), modelserver.WithThinkingModels("qwen3:8b"))
	e := envWithServer(t, srv, "qwen3:8b")
	st := e.svc.CheckModelServer(context.Background())
	require.True(t, st.Reachable, st.Message)
	got := map[string][3]bool{}
	for _, m := range st.Models {
		got[m.Name] = [3]bool{m.SupportsTools, m.SupportsVision, m.SupportsThinking}
	}
	assert.Equal(t, map[string][3]bool{"qwen3:8b": {true, false, true}, "gemma3:4b": {false, true, false}, "tinyllama": {false, false, false}}, got)
}
