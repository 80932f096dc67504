package assistant

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/llm"
)

// Limits of spawn_agents (SPEC §1 "Sub-agents").
const (
	MaxSubAgents    = 4
	MaxSubAgentTask = 4000
)

var spawnAgentsTool = llm.Tool{
	Name: ToolSpawnAgents,
	Description: "Run 1-4 sub-agents concurrently, each on a self-contained task, and get their final answers. " +
		"Use it to research or draft independent parts of a larger job in parallel. " +
		"Sub-agents cannot ask the user questions or spawn further agents.",
	Parameters: map[string]any{
		"type":     "object",
		"required": []string{"agents"},
		"properties": map[string]any{
			"agents": map[string]any{
				"type": "array", "minItems": 1, "maxItems": MaxSubAgents,
				"items": map[string]any{
					"type":     "object",
					"required": []string{"task"},
					"properties": map[string]any{
						"name": map[string]any{"type": "string", "description": "short name; defaults to agent-1, agent-2, ..."},
						"task": map[string]any{"type": "string", "maxLength": MaxSubAgentTask, "description": "everything the sub-agent needs to know to do the task"},
					},
				},
			},
		},
	},
}

type subAgentSpec struct {
	Name string `json:"name"`
	Task string `json:"task"`
}

type subAgentResult struct {
	Name   string `json:"name"`
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

func parseSpawnInput(arguments string) ([]subAgentSpec, error) {
	var in struct {
		Agents []subAgentSpec `json:"agents"`
	}
	if err := json.Unmarshal([]byte(arguments), &in); err != nil {
		return nil, fmt.Errorf("invalid input: %v", err)
	}
	if n := len(in.Agents); n < 1 || n > MaxSubAgents {
		return nil, fmt.Errorf("invalid input: agents must have 1-%d items (got %d)", MaxSubAgents, n)
	}
	for i := range in.Agents {
		a := &in.Agents[i]
		a.Task = strings.TrimSpace(a.Task)
		if a.Task == "" || utf8.RuneCountInString(a.Task) > MaxSubAgentTask {
			return nil, fmt.Errorf("invalid input: agents[%d].task must be 1-%d characters", i, MaxSubAgentTask)
		}
		if a.Name = strings.TrimSpace(a.Name); a.Name == "" {
			a.Name = fmt.Sprintf("agent-%d", i+1)
		}
	}
	return in.Agents, nil
}

// spawnAgents runs the sub-agents concurrently and returns their results as
// JSON in the order given.
func (l *runLoop) spawnAgents(arguments string) string {
	specs, err := parseSpawnInput(arguments)
	if err != nil {
		return err.Error()
	}
	if l.model == nil { // resumed after a restart: the model was not needed yet
		if l.model, err = l.rt.opt.Model(l.profile.Model); err != nil {
			return "error: " + userMessage(err)
		}
	}
	results := make([]subAgentResult, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, err := l.runSubAgent(spec.Task)
			results[i] = subAgentResult{Name: spec.Name, Result: text}
			if err != nil {
				results[i] = subAgentResult{Name: spec.Name, Error: userMessage(err)}
			}
		}()
	}
	wg.Wait()
	b, _ := json.Marshal(map[string]any{"results": results})
	return string(b)
}

// runSubAgent is a loop without the conversation: its own messages, the
// parent's tools minus ask_user_question and spawn_agents, no streaming.
func (l *runLoop) runSubAgent(task string) (string, error) {
	msgs := []llm.Message{
		{Role: chat.RoleSystem, Content: "You are a sub-agent of Parley working on one task for the main assistant. Do the task and reply with the result only. You cannot ask the user anything."},
		{Role: chat.RoleUser, Content: task},
	}
	tools := l.tools(true)
	for step := 0; step < l.rt.opt.MaxSteps; step++ {
		resp, _, err := l.chat(msgs, tools, nil, nil, nil)
		if err == nil {
			err = l.ctx.Err()
		}
		if err != nil {
			return "", err
		}
		if len(resp.ToolCalls) == 0 {
			return resp.Text, nil
		}
		// Its thinking goes back between its own tool calls, as the run's does.
		msgs = append(msgs, llm.Message{Role: chat.RoleAssistant, Content: resp.Text, ToolCalls: resp.ToolCalls,
			Reasoning: resp.Reasoning, ReasoningSource: resp.ReasoningSource})
		for _, tc := range resp.ToolCalls {
			var out string
			switch {
			case tc.Name == ToolAskUser || tc.Name == ToolSpawnAgents:
				out = subAgentRefusal(tc.Name)
			case tc.Name == ToolSearchKnowledge && len(l.collections()) > 0:
				out, _ = l.searchKnowledge(tc.Arguments, 1) // its own numbering, for the parent to read
			case l.isMCP(tc.Name):
				var ok bool
				if out, ok = l.runMCPForSubAgent(tc); !ok {
					out = fmt.Sprintf("unknown tool %q", tc.Name)
				}
			case !l.profile.hasTool(tc.Name):
				out = fmt.Sprintf("unknown tool %q", tc.Name)
			default:
				t, ok := l.rt.tools[tc.Name]
				if !ok {
					out = fmt.Sprintf("unknown tool %q", tc.Name)
					break
				}
				res, err := t.Run(l.ctx, tc.Arguments)
				out = res
				if err != nil {
					out = "error: " + err.Error()
				}
			}
			msgs = append(msgs, llm.Message{Role: chat.RoleTool, Content: out, ToolCallID: tc.ID, ToolName: tc.Name})
		}
	}
	return "", fmt.Errorf("the sub-agent stopped after %d model calls without finishing", l.rt.opt.MaxSteps)
}
