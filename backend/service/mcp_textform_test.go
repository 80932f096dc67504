package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/mcp"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// A model without native tool calling reaches MCP tools through a call
// written in its text (SPEC §6 + §8): the approval card comes first, and
// the real server's answer goes back to the model.
func TestMCPToolThroughATextFormCall(t *testing.T) {
	for _, form := range []string{modelserver.FormTag, modelserver.FormFence} {
		t.Run(form, func(t *testing.T) {
			script := modelserver.TextTools(callTool("everything__echo", `{"message":"written in text"}`), form, 7)
			dir := t.TempDir()
			path := filepath.Join(dir, mcp.ConfigFile)
			data, err := json.Marshal(map[string]any{"mcpServers": map[string]mcp.ServerConfig{"everything": nodeServer(t, "everything", "stdio")}})
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data, 0o600))
			e := &env{t: t, dbPath: filepath.Join(dir, "parley.db"), model: modelserver.New(script, modelserver.WithoutTools()), mcpPath: path}
			t.Cleanup(e.model.Close)
			e.cfg.BaseURL, e.cfg.Model, e.cfg.QuestionTimeout = e.model.URL(), "scripted", time.Minute
			e.cfg.Set = map[string]bool{"base-url": true, "model": true, "question-timeout": true}
			e.open()
			t.Cleanup(e.close)
			e.waitConnected("everything")

			id, d := e.startWith("Echo something", chat.StateAwaitingUserResponse)
			require.NotNil(t, d.PendingQuestion, "no approval card: %+v", d)
			card := d.PendingQuestion
			assert.Equal(t, questions.KindApproval, card.Kind)
			require.NotNil(t, card.Tool)
			assert.Equal(t, "echo", card.Tool.Name)
			assert.JSONEq(t, `{"message":"written in text"}`, string(card.Tool.Arguments))
			for _, m := range d.Messages {
				assert.NotContains(t, m.Content, "<tool_call>", "the call text is shown: %+v", m)
			}

			_, err = e.svc.Respond(context.Background(), id, questions.Response{QuestionID: card.ID, Action: questions.ActionApprove})
			require.NoError(t, err)
			d = e.waitState(id, chat.StateIdle)
			assert.Equal(t, "Echo: written in text", toolMessage(t, d).Content)
			assert.Equal(t, "Tool said: Echo: written in text", lastMessage(d).Content)
			// The model was never offered native tools after the refusal,
			// and its next request carried the real server's answer.
			reqs := e.model.Requests()
			require.NotEmpty(t, reqs)
			last := reqs[len(reqs)-1]
			assert.Empty(t, last.Tools, "native tools offered to a model that refused them")
			assert.Contains(t, last.LastMessage().Content, "Echo: written in text")
		})
	}
}
