package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/parley-app/parley/backend/llm"
)

// Names of the tools the loop handles itself.
const (
	ToolAskUser     = "ask_user_question"
	ToolSpawnAgents = "spawn_agents"
	ToolCurrentTime = "current_time"
	ToolCalculator  = "calculator"
)

// Tool is a tool that runs on its own, without the conversation.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
	Run         func(ctx context.Context, arguments string) (string, error)
}

func (t Tool) definition() llm.Tool {
	return llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
}

// BuiltinTools are the safe tools every profile may opt in to.
func BuiltinTools(now func() time.Time) []Tool {
	if now == nil {
		now = time.Now
	}
	return []Tool{
		{
			Name:        ToolCurrentTime,
			Description: "Returns the current local date, time, weekday and time zone.",
			Parameters:  map[string]any{"type": "object", "properties": map[string]any{}},
			Run: func(context.Context, string) (string, error) {
				t := now()
				zone, _ := t.Zone()
				return fmt.Sprintf(`{"datetime":%q,"weekday":%q,"timezone":%q}`, t.Format(time.RFC3339), t.Weekday(), zone), nil
			},
		},
		{
			Name:        ToolCalculator,
			Description: "Evaluates an arithmetic expression exactly: + - * / % ^, parentheses, decimals, and sqrt(), abs(), round(), floor(), ceil(), min(), max(). Use it instead of doing arithmetic in your head.",
			Parameters: map[string]any{
				"type":     "object",
				"required": []string{"expression"},
				"properties": map[string]any{
					"expression": map[string]any{"type": "string", "description": "for example (12.5 * 4) / 3 + sqrt(16)"},
				},
			},
			Run: func(_ context.Context, arguments string) (string, error) {
				var in struct {
					Expression string `json:"expression"`
				}
				if err := json.Unmarshal([]byte(arguments), &in); err != nil || in.Expression == "" {
					return "", errors.New(`invalid input: "expression" must be a non-empty string`)
				}
				v, err := Evaluate(in.Expression)
				if err != nil {
					return "", err
				}
				return formatNumber(v), nil
			},
		},
	}
}
