package service

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/engine/enginetest"
	"github.com/parley-app/parley/backend/engine/ggufgen"
)

// The question card through the template's native tool calls of other
// families than Hermes (SPEC §12): Llama 3.2's JSON reply and Mistral's
// [TOOL_CALLS] reach Parley as tool calls (the card arrives, as a native
// call: no text-form call text in the reply), the answer goes back
// through the template, and the run goes on to the model's words.
func TestBuiltinEngineAsksACardInNativeFormats(t *testing.T) {
	for name, spec := range map[string]ggufgen.Spec{
		"llama":   enginetest.LlamaCardSpec(""),
		"mistral": enginetest.MistralCardSpec(""),
	} {
		t.Run(name, func(t *testing.T) {
			// Llama 3.2's template writes the tools indented: with the
			// fixture's token a byte, Parley's tools take ~9000 tokens.
			t.Setenv(engineContextEnv, "16384")
			e, _ := builtinEnv(t, map[string]ggufgen.Spec{name: spec})
			svc := e.svc
			ctx := context.Background()
			c, err := svc.CreateConversation(ctx, "", "")
			require.NoError(t, err)
			_, err = svc.Send(ctx, c.ID, api.SendRequest{Content: "Pick a colour for my bedroom"})
			require.NoError(t, err)
			d := e.waitState(c.ID, chat.StateAwaitingUserResponse, chat.StateError, chat.StateIdle)
			require.Equal(t, chat.StateAwaitingUserResponse, d.State, "error: %s", d.Error)
			require.NotNil(t, d.PendingQuestion)
			assert.Equal(t, "Which colour?", d.PendingQuestion.Questions[0].Question)
			for _, m := range d.Messages {
				assert.NotContains(t, m.Content, "ask_user_question", "the call is no text of the conversation")
			}

			next := e.answerBlue(c, d)
			require.Equal(t, chat.StateIdle, next.State, "error: %s", next.Error)
			last := next.Messages[len(next.Messages)-1]
			assert.Equal(t, "assistant", last.Role)
			assert.Equal(t, enginetest.CardFollowUp, last.Content, "the answer reached the model through its template")
		})
	}
}

// Gemma 3's template has no tools (SPEC §12, §8): Parley describes them in
// the system prompt and reads the call from the reply's text; the result
// goes back as a user message (the template refuses the tool role, and
// Parley learns it), and the run goes on.
func TestBuiltinEngineGemmaAsksACardInTextForm(t *testing.T) {
	t.Setenv(engineContextEnv, "16384")
	spec := ggufgen.Spec{Template: enginetest.Gemma3Template,
		Answer: "Let me ask.\n<tool_call>\n" + enginetest.Card + "\n</tool_call>", AfterTool: enginetest.CardFollowUp,
		// The result comes back as <tool_response name="...">: that is the
		// fixture's mark (the system prompt's "<tool_response>" is not).
		ToolMark: "<tool_response name="}
	e, _ := builtinEnv(t, map[string]ggufgen.Spec{"gemma": spec})
	svc := e.svc
	ctx := context.Background()
	c, err := svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = svc.Send(ctx, c.ID, api.SendRequest{Content: "Pick a colour for my bedroom"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateAwaitingUserResponse, chat.StateError, chat.StateIdle)
	require.Equal(t, chat.StateAwaitingUserResponse, d.State, "error: %s", d.Error)
	require.NotNil(t, d.PendingQuestion)
	assert.Equal(t, "Which colour?", d.PendingQuestion.Questions[0].Question)

	next := e.answerBlue(c, d)
	require.Equal(t, chat.StateIdle, next.State, "error: %s", next.Error)
	assert.Equal(t, enginetest.CardFollowUp, next.Messages[len(next.Messages)-1].Content)
}
