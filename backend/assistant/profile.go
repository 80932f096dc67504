package assistant

import "github.com/parley-app/parley/backend/chat"

// Profile is an assistant: its system prompt, model and the tools it opts in to.
type Profile struct {
	Name         string   `json:"name"`
	SystemPrompt string   `json:"system_prompt"`
	Model        string   `json:"model"` // empty = the app's default model
	Tools        []string `json:"tools"`
	// ToolCalling is how the model gets its tools: auto (the default, also
	// when empty), native, text or off (SPEC §8).
	ToolCalling string `json:"tool_calling,omitempty"`
	// Thinking is how much its model thinks: auto (the default, also when
	// empty: the server decides), off, low, medium or high (SPEC §9).
	Thinking string `json:"thinking,omitempty"`
	// Knowledge are the collections its conversations search (SPEC §11).
	Knowledge []string `json:"knowledge,omitempty"`
}

// DefaultProfileName names the profile new conversations use.
const DefaultProfileName = "default"

// DefaultProfile opts in to asking the user, sub-agents and the built-ins.
func DefaultProfile() Profile {
	return Profile{
		Name: DefaultProfileName,
		SystemPrompt: "You are Parley, a helpful assistant running on the user's own computer. " +
			"Answer clearly and concisely, using Markdown where it helps. " +
			"When a request is ambiguous, or several reasonable approaches exist and the user's preference matters, " +
			"call ask_user_question instead of guessing; otherwise just answer. " +
			"Use the calculator for arithmetic and current_time for today's date.",
		Tools:       []string{ToolAskUser, ToolSpawnAgents, ToolCurrentTime, ToolCalculator, MCPAllTools},
		ToolCalling: ToolCallingAuto,
		Thinking:    chat.ThinkingAuto,
		Knowledge:   []string{},
	}
}

func (p Profile) hasTool(name string) bool {
	for _, t := range p.Tools {
		if t == name {
			return true
		}
	}
	return false
}
