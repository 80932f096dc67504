package service

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// memoryScript is a model that does what the user's message says: "ask
// <ask_user_question arguments>" asks, "remember <text>" proposes a memory;
// after a tool it repeats the tool's result; otherwise it says hello.
func memoryScript() modelserver.Script {
	return func(req modelserver.ChatRequest) modelserver.Turn {
		last := req.LastMessage()
		if last.Role == "tool" {
			return modelserver.Turn{Text: "Tool said: " + last.Content}
		}
		if args, ok := strings.CutPrefix(last.Content, "ask "); ok {
			return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_ask", Name: questions.ToolName, Arguments: args}}}
		}
		if text, ok := strings.CutPrefix(last.Content, "remember "); ok {
			args, _ := json.Marshal(map[string]string{"text": text})
			return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_rem", Name: assistant.ToolRemember, Arguments: string(args)}}}
		}
		return modelserver.Turn{Text: "Hello."}
	}
}

const languageCard = `{"questions":[{"question":"Which language should I use?","header":"Language","options":["Go","Rust","Zig"]}]}`

// send starts a run with the message in a new conversation and returns it.
func (e *env) sendNew(text string) *chat.Conversation {
	e.t.Helper()
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(e.t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: text})
	require.NoError(e.t, err)
	return c
}

// systemPromptOf is the system message of the last request the model got
// for the conversation whose user message is text.
func systemPromptOf(t *testing.T, model *modelserver.Server, text string) string {
	t.Helper()
	for i := len(model.Requests()) - 1; i >= 0; i-- {
		req := model.Requests()[i]
		for _, m := range req.Messages {
			if m.Role == "user" && m.Content == text {
				require.Equal(t, "system", req.Messages[0].Role, "the request starts with the system prompt")
				return req.Messages[0].Content
			}
		}
	}
	require.Failf(t, "no request", "the model never got %q", text)
	return ""
}

func toolNamesOf(req modelserver.ChatRequest) []string {
	var out []string
	for _, tl := range req.Tools {
		out = append(out, tl.Function.Name)
	}
	return out
}

func (e *env) setMemory(on string) {
	e.t.Helper()
	st := e.svc.GetSettings()
	st.Memory = on
	_, err := e.svc.SaveSettings(context.Background(), st)
	require.NoError(e.t, err)
}

func TestMemoriesGoIntoTheSystemPromptTheModelReceives(t *testing.T) {
	e := newEnv(t, memoryScript(), time.Minute)
	ctx := context.Background()
	fact, err := e.svc.CreateMemory(ctx, api.MemoryRequest{Text: "The user's cat is called Zephyr."})
	require.NoError(t, err)
	_, err = e.svc.CreateMemory(ctx, api.MemoryRequest{Text: "Deploys on Fridays.", ProjectID: new("proj-1")})
	assert.Equal(t, fault.Input, fault.KindOf(err), "a memory of a project that does not exist")
	project, err := e.svc.CreateProject(ctx, api.ProjectRequest{Name: new("Ops")})
	require.NoError(t, err)
	other, err := e.svc.CreateMemory(ctx, api.MemoryRequest{Text: "Deploys on Fridays.", ProjectID: &project.ID})
	require.NoError(t, err)

	c := e.sendNew("Hi there")
	e.waitState(c.ID, chat.StateIdle)
	system := systemPromptOf(t, e.model, "Hi there")
	assert.True(t, strings.HasPrefix(system, assistant.DefaultProfile().SystemPrompt), "the profile's prompt comes first: %s", system)
	assert.Contains(t, system, memory.PromptIntro+"\n- The user's cat is called Zephyr.", "the memory in scope, after the profile's prompt")
	assert.NotContains(t, system, "Deploys on Fridays.", "a project's memory stays out of a conversation in no project")
	assert.Contains(t, toolNamesOf(e.model.Requests()[len(e.model.Requests())-1]), assistant.ToolRemember, "the model gets remember")

	got, err := e.store().Memory(ctx, fact.ID)
	require.NoError(t, err)
	assert.NotNil(t, got.UsedAt, "the memory that went into the run is marked used")
	got, err = e.store().Memory(ctx, other.ID)
	require.NoError(t, err)
	assert.Nil(t, got.UsedAt, "the one that did not is not")

	// In the project, its memory and the global one are both in scope.
	in, err := e.svc.CreateConversationIn(ctx, "", "", project.ID)
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, in.ID, api.SendRequest{Content: "Hello project"})
	require.NoError(t, err)
	e.waitState(in.ID, chat.StateIdle)
	system = systemPromptOf(t, e.model, "Hello project")
	assert.Contains(t, system, "Deploys on Fridays.", "the project's memory in its conversation")
	assert.Contains(t, system, "The user's cat is called Zephyr.", "and the global one")
}

func (e *env) store() interface {
	Memory(ctx context.Context, id string) (memory.Memory, error)
} {
	return e.db
}

func TestMemoryOffKeepsNothingAndPutsNothingInPrompts(t *testing.T) {
	e := newEnv(t, memoryScript(), time.Minute)
	ctx := context.Background()
	kept, err := e.svc.CreateMemory(ctx, api.MemoryRequest{Text: "The user's cat is called Zephyr."})
	require.NoError(t, err)
	e.setMemory(MemoryOff)
	assert.Equal(t, MemoryOff, e.svc.GetSettings().Memory)

	_, err = e.svc.CreateMemory(ctx, api.MemoryRequest{Text: "Likes tea."})
	assert.Equal(t, fault.Input, fault.KindOf(err), "nothing new is kept while memory is off: %v", err)

	c := e.sendNew("Hi there")
	e.waitState(c.ID, chat.StateIdle)
	system := systemPromptOf(t, e.model, "Hi there")
	assert.NotContains(t, system, "Zephyr", "no memory in the prompt")
	assert.NotContains(t, toolNamesOf(e.model.Requests()[len(e.model.Requests())-1]), assistant.ToolRemember, "no remember tool")
	got, err := e.db.Memory(ctx, kept.ID)
	require.NoError(t, err)
	assert.Nil(t, got.UsedAt, "not used")

	// An answer with remember is taken, and nothing is kept.
	c = e.sendNew("ask " + languageCard)
	d := e.waitState(c.ID, chat.StateAwaitingUserResponse)
	card, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: d.PendingQuestion.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which language should I use?": {Selected: []string{"Go"}}}, Remember: []string{"Which language should I use?"}})
	require.NoError(t, err)
	assert.Equal(t, questions.StatusAnswered, card.Status)
	e.waitState(c.ID, chat.StateIdle)
	all, err := e.svc.Memories(ctx, "")
	require.NoError(t, err)
	assert.Len(t, all, 1, "only the memory kept before")

	// A "remember" the model calls anyway keeps nothing, and no card is shown.
	c = e.sendNew("remember Likes tea.")
	e.waitState(c.ID, chat.StateIdle)
	cards, err := e.svc.ConversationQuestions(ctx, c.ID)
	require.NoError(t, err)
	assert.Empty(t, cards, "no card")
	all, err = e.svc.Memories(ctx, "")
	require.NoError(t, err)
	assert.Len(t, all, 1)

	// Saving settings without the field (a client that does not know it) keeps it off.
	st := e.svc.GetSettings()
	st.Memory = ""
	saved, err := e.svc.SaveSettings(ctx, st)
	require.NoError(t, err)
	assert.Equal(t, MemoryOff, saved.Memory)
	st.Memory = "maybe"
	_, err = e.svc.SaveSettings(ctx, st)
	assert.Equal(t, fault.Input, fault.KindOf(err), "an unknown value")
}

// rememberCard waits for the conversation's "Remember this?" card.
func (e *env) rememberCard(convID string) *questions.Card {
	e.t.Helper()
	d := e.waitState(convID, chat.StateAwaitingUserResponse)
	card := d.PendingQuestion
	require.NotNil(e.t, card)
	require.Equal(e.t, questions.KindApproval, card.Kind)
	require.NotNil(e.t, card.Tool)
	assert.Equal(e.t, assistant.ToolRemember, card.Tool.Name)
	assert.Equal(e.t, "Remember this?", card.Tool.Description, "the card's title")
	assert.Equal(e.t, &questions.Source{Type: questions.SourceModel, Tool: assistant.ToolRemember}, card.Source)
	return card
}

// lastToolResult is the tool message the run stored last.
func (e *env) lastToolResult(convID string) string {
	e.t.Helper()
	d, err := e.svc.GetConversation(context.Background(), convID)
	require.NoError(e.t, err)
	for i := len(d.Messages) - 1; i >= 0; i-- {
		if d.Messages[i].Role == chat.RoleTool {
			return d.Messages[i].Content
		}
	}
	require.Fail(e.t, "no tool result")
	return ""
}

func TestRememberApprovedKeepsTheEditedText(t *testing.T) {
	e := newEnv(t, memoryScript(), time.Minute)
	ctx := context.Background()
	c := e.sendNew("remember Likes tea.")
	card := e.rememberCard(c.ID)
	assert.JSONEq(t, `{"text":"Likes tea."}`, string(card.Tool.Arguments))

	_, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: card.ID, Action: questions.ActionApprove,
		Arguments: json.RawMessage(`{"text":"` + strings.Repeat("x", 501) + `"}`)})
	assert.Equal(t, fault.Validation, fault.KindOf(err), "an edited text over 500 characters: %v", err)
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: card.ID, Action: questions.ActionApprove,
		Arguments: json.RawMessage(`{"text":"Likes green tea, no sugar."}`)})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)

	all, err := e.svc.Memories(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, 1)
	assert.Equal(t, "Likes green tea, no sugar.", all[0].Text, "the approved, edited text")
	assert.Equal(t, memory.Source{Type: memory.SourceModel, ConversationID: c.ID}, all[0].Source)
	result := e.lastToolResult(c.ID)
	assert.Contains(t, result, "edited")
	assert.Contains(t, result, "Likes green tea, no sugar.", "the model hears what was kept")
	assert.Contains(t, e.rec.Names(), events.MemoryChanged)
}

func TestRememberRejectedKeepsNothing(t *testing.T) {
	e := newEnv(t, memoryScript(), time.Minute)
	ctx := context.Background()
	c := e.sendNew("remember Likes tea.")
	card := e.rememberCard(c.ID)
	_, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: card.ID, Action: questions.ActionReject, Reason: "not true"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)
	all, err := e.svc.Memories(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, all, "nothing kept")
	result := e.lastToolResult(c.ID)
	assert.Contains(t, result, "nothing was kept")
	assert.Contains(t, result, "not true", "with the user's reason")
}

func TestRespondRememberKeepsOneMemoryPerNamedQuestion(t *testing.T) {
	e := newEnv(t, memoryScript(), time.Minute)
	ctx := context.Background()
	two := `{"questions":[{"question":"Which language should I use?","header":"Language","options":["Go","Rust","Zig"]},` +
		`{"question":"Anything else?","options":[]}]}`
	c := e.sendNew("ask " + two)
	d := e.waitState(c.ID, chat.StateAwaitingUserResponse)
	answers := map[string]questions.AnswerInput{"Which language should I use?": {Selected: []string{"Zig"}}, "Anything else?": {Custom: "Keep it small"}}

	_, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionDecline, Remember: []string{"Anything else?"}})
	assert.Equal(t, fault.Input, fault.KindOf(err), "remember goes with a submit")
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionSubmit, Answers: answers,
		Remember: []string{"Anything else?", "Which colour?"}})
	assert.Equal(t, fault.Input, fault.KindOf(err), "an unknown question")
	assert.Contains(t, err.Error(), "Which colour?")
	pending, err := e.svc.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	require.NotNil(t, pending.PendingQuestion, "the card is still pending")

	card, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionSubmit, Answers: answers,
		Remember: []string{"Anything else?"}})
	require.NoError(t, err)
	assert.Equal(t, d.PendingQuestion.ID, card.ID)
	all, err := e.svc.Memories(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, 1, "one memory per named question")
	assert.Equal(t, "Anything else? — Keep it small", all[0].Text)
	assert.Equal(t, memory.Source{Type: memory.SourceAnswer, ConversationID: c.ID, QuestionID: card.ID}, all[0].Source)
	assert.Nil(t, all[0].ProjectID, "a conversation in no project: every conversation's")
	assert.False(t, all[0].AutoAnswer)
}

// The first conversation answers and remembers with auto_answer; a second
// conversation's identical card is answered from memory without pausing,
// and a card with other options is asked.
func TestIdenticalCardIsAnsweredFromMemory(t *testing.T) {
	e := newEnv(t, memoryScript(), time.Minute)
	ctx := context.Background()
	first := e.sendNew("ask " + languageCard)
	d := e.waitState(first.ID, chat.StateAwaitingUserResponse)
	_, err := e.svc.Respond(ctx, first.ID, questions.Response{QuestionID: d.PendingQuestion.ID, Action: questions.ActionSubmit,
		Answers:  map[string]questions.AnswerInput{"Which language should I use?": {Selected: []string{"Rust"}}},
		Remember: []string{"Which language should I use?"}})
	require.NoError(t, err)
	e.waitState(first.ID, chat.StateIdle)
	all, err := e.svc.Memories(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, 1)
	assert.Equal(t, "Language: Which language should I use? — Rust", all[0].Text)
	m, err := e.svc.UpdateMemory(ctx, all[0].ID, api.MemoryUpdate{AutoAnswer: new(true)})
	require.NoError(t, err)
	require.True(t, m.AutoAnswer)

	// The same question, the options shuffled.
	shuffled := `{"questions":[{"question":"Which language should I use?","header":"Language","options":["Zig","Go","Rust"]}]}`
	second := e.sendNew("ask " + shuffled)
	e.waitState(second.ID, chat.StateIdle)
	cards, err := e.svc.ConversationQuestions(ctx, second.ID)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	card := cards[0]
	assert.Equal(t, questions.StatusAnswered, card.Status)
	assert.Equal(t, memory.AnsweredBy, card.AnsweredBy, "the card says the memory answered")
	assert.Equal(t, m.ID, card.MemoryID)
	assert.Equal(t, map[string]string{"Which language should I use?": "Rust"}, card.Answers)
	assert.Contains(t, e.lastToolResult(second.ID), `{"answers":{"Which language should I use?":"Rust"}}`, "the model got the normal answer")
	b, err := json.Marshal(card)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"answered_by":"memory"`)
	assert.Contains(t, string(b), `"memory_id":"`+m.ID+`"`)

	for _, ev := range e.rec.Events() {
		switch p := ev.Payload.(type) {
		case *questions.Card:
			if p.ConversationID == second.ID {
				assert.NotEqual(t, events.QuestionAsk, ev.Name, "the card was never asked")
			}
		case assistant.StateInfo:
			if p.ConversationID == second.ID {
				assert.NotEqual(t, chat.StateAwaitingUserResponse, p.State, "the run never paused")
			}
		}
	}
	used, err := e.db.Memory(ctx, m.ID)
	require.NoError(t, err)
	assert.NotNil(t, used.UsedAt)

	// "Ask me instead": the answer changes as any answered card's does (SPEC §7).
	_, err = e.svc.ForkQuestion(ctx, second.ID, card.ID, api.ForkRequest{
		Answers: map[string]questions.AnswerInput{"Which language should I use?": {Selected: []string{"Go"}}}})
	require.NoError(t, err)
	e.waitState(second.ID, chat.StateIdle)
	assert.Contains(t, e.lastToolResult(second.ID), `"Which language should I use?":"Go"`, "the new answer on the new branch")

	// A changed option list asks again.
	changed := `{"questions":[{"question":"Which language should I use?","header":"Language","options":["Go","Rust","Zig","C"]}]}`
	third := e.sendNew("ask " + changed)
	d = e.waitState(third.ID, chat.StateAwaitingUserResponse)
	require.NotNil(t, d.PendingQuestion, "asked")
	assert.Empty(t, d.PendingQuestion.AnsweredBy)
	require.NoError(t, e.svc.Cancel(ctx, third.ID))

	// Memory off: asked again too.
	e.setMemory(MemoryOff)
	fourth := e.sendNew("ask " + languageCard)
	d = e.waitState(fourth.ID, chat.StateAwaitingUserResponse)
	require.NotNil(t, d.PendingQuestion, "asked while memory is off")
	require.NoError(t, e.svc.Cancel(ctx, fourth.ID))
}

// An agent's card (SPEC §10) is never answered from a memory of every
// conversation (or of a project); the answer to an agent's card, kept with
// "Remember my answer", is scoped to that agent's conversation, and only
// such a memory answers the agent's next identical card — and no card of
// anyone else's.
func TestAgentsCardsAreAnsweredOnlyFromTheirConversationsMemories(t *testing.T) {
	e := newEnv(t, memoryScript(), time.Minute)
	ctx := context.Background()
	first := e.sendNew("ask " + languageCard)
	d := e.waitState(first.ID, chat.StateAwaitingUserResponse)
	_, err := e.svc.Respond(ctx, first.ID, questions.Response{QuestionID: d.PendingQuestion.ID, Action: questions.ActionSubmit,
		Answers:  map[string]questions.AnswerInput{"Which language should I use?": {Selected: []string{"Go"}}},
		Remember: []string{"Which language should I use?"}})
	require.NoError(t, err)
	all, err := e.svc.Memories(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, 1)
	global, err := e.svc.UpdateMemory(ctx, all[0].ID, api.MemoryUpdate{AutoAnswer: new(true)})
	require.NoError(t, err)
	require.Nil(t, global.ScopeConversationID)

	card, err := e.svc.Agents().Ask(ctx, agentinbox.AskRequest{Agent: "claude-code", Input: json.RawMessage(languageCard)})
	require.NoError(t, err)
	assert.Equal(t, questions.StatusPending, card.Status, "a global memory never answers an agent's card")
	assert.Empty(t, card.AnsweredBy)

	// The user answers the agent's card and asks Parley to remember it.
	_, err = e.svc.Respond(ctx, card.ConversationID, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers:  map[string]questions.AnswerInput{"Which language should I use?": {Selected: []string{"Zig"}}},
		Remember: []string{"Which language should I use?"}})
	require.NoError(t, err)
	all, err = e.svc.Memories(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, 2)
	var ofAgent memory.Memory
	for _, m := range all {
		if m.ID != global.ID {
			ofAgent = m
		}
	}
	require.NotNil(t, ofAgent.ScopeConversationID, "the answer to an agent's card is remembered for its conversation")
	assert.Equal(t, card.ConversationID, *ofAgent.ScopeConversationID)
	assert.Nil(t, ofAgent.ProjectID)
	ofAgent, err = e.svc.UpdateMemory(ctx, ofAgent.ID, api.MemoryUpdate{AutoAnswer: new(true)})
	require.NoError(t, err)

	again, err := e.svc.Agents().Ask(ctx, agentinbox.AskRequest{Agent: "claude-code", Input: json.RawMessage(languageCard), Context: "Setting up"})
	require.NoError(t, err)
	assert.Equal(t, questions.StatusAnswered, again.Status, "the agent's own memory answers its card at once")
	assert.Equal(t, memory.AnsweredBy, again.AnsweredBy)
	assert.Equal(t, ofAgent.ID, again.MemoryID)
	assert.Equal(t, card.ConversationID, again.ConversationID)
	require.NotNil(t, again.Source)
	assert.Equal(t, "claude-code", again.Source.Agent)
	got, err := e.svc.Agents().Answer(ctx, "claude-code", again.ID, 0)
	require.NoError(t, err)
	assert.False(t, got.Pending)
	assert.Contains(t, got.Result, `"Which language should I use?":"Zig"`, "the agent reads the remembered answer")
	used, err := e.db.Memory(ctx, ofAgent.ID)
	require.NoError(t, err)
	assert.NotNil(t, used.UsedAt)

	// Another agent's card: its conversation has no memory of its own.
	other, err := e.svc.Agents().Ask(ctx, agentinbox.AskRequest{Agent: "codex", Input: json.RawMessage(languageCard)})
	require.NoError(t, err)
	assert.Equal(t, questions.StatusPending, other.Status, "another agent's card is asked")

	// The model's card elsewhere: the global memory answers, not the agent's.
	model := e.sendNew("ask " + languageCard)
	e.waitState(model.ID, chat.StateIdle)
	cards, err := e.svc.ConversationQuestions(ctx, model.ID)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	assert.Equal(t, global.ID, cards[0].MemoryID, "the agent's memory stays in its conversation")
	assert.Equal(t, "Go", cards[0].Answers["Which language should I use?"])
	system := systemPromptOf(t, e.model, "ask "+languageCard)
	assert.NotContains(t, system, "Zig", "nor does it go into other conversations' prompts")

	// Memory off: the agent is asked.
	e.setMemory(MemoryOff)
	off, err := e.svc.Agents().Ask(ctx, agentinbox.AskRequest{Agent: "claude-code", Input: json.RawMessage(languageCard)})
	require.NoError(t, err)
	assert.Equal(t, questions.StatusPending, off.Status)
}

// A "Remember this?" card pending when the app quits comes back after the
// restart; approving it then keeps the memory, and the card is not asked twice.
func TestRememberCardSurvivesRestart(t *testing.T) {
	e := newEnv(t, memoryScript(), time.Minute)
	ctx := context.Background()
	c := e.sendNew("remember Likes tea.")
	card := e.rememberCard(c.ID)
	e.close()

	e.open()
	d := e.waitState(c.ID, chat.StateAwaitingUserResponse)
	require.NotNil(t, d.PendingQuestion)
	require.Equal(t, card.ID, d.PendingQuestion.ID, "the same card")
	_, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: card.ID, Action: questions.ActionApprove})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)
	all, err := e.svc.Memories(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, 1)
	assert.Equal(t, "Likes tea.", all[0].Text)
	assert.Equal(t, `Remembered: "Likes tea."`, e.lastToolResult(c.ID))
	cards, err := e.svc.ConversationQuestions(ctx, c.ID)
	require.NoError(t, err)
	assert.Len(t, cards, 1, "asked once")
}

// remember comes with asking the user: a profile without ask_user_question
// gets it only when it lists remember.
func TestRememberIsOfferedWithAskingOrWhenListed(t *testing.T) {
	e := newEnv(t, memoryScript(), time.Minute)
	ctx := context.Background()
	toolsFor := func(profile string) []string {
		t.Helper()
		c, err := e.svc.CreateConversation(ctx, "", profile)
		require.NoError(t, err)
		text := "hello from [" + profile + "]"
		_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: text})
		require.NoError(t, err)
		e.waitState(c.ID, chat.StateIdle)
		for _, req := range e.model.Requests() {
			if req.LastMessage().Content == text {
				return toolNamesOf(req)
			}
		}
		require.Fail(t, "no request", "the model never got %q", text)
		return nil
	}
	_, err := e.svc.SaveProfile(ctx, assistant.Profile{Name: "quiet", Tools: []string{assistant.ToolCalculator}})
	require.NoError(t, err)
	_, err = e.svc.SaveProfile(ctx, assistant.Profile{Name: "keeper", Tools: []string{assistant.ToolCalculator, assistant.ToolRemember}})
	require.NoError(t, err)
	assert.NotContains(t, toolsFor("quiet"), assistant.ToolRemember)
	assert.Contains(t, toolsFor("keeper"), assistant.ToolRemember)
	assert.Contains(t, toolsFor(""), assistant.ToolRemember, "the default profile asks the user")
}
