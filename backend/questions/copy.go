package questions

import (
	"maps"
	"slices"
	"time"
)

// cloneCard deep-copies a card: callers and event subscribers get their own
// copy and can never change the manager's state.
func cloneCard(c *Card) *Card {
	if c == nil {
		return nil
	}
	cp := *c
	cp.Questions = cloneQuestions(c.Questions)
	cp.ExpiresAt = cloneTime(c.ExpiresAt)
	cp.AnsweredAt = cloneTime(c.AnsweredAt)
	if c.Answers != nil {
		cp.Answers = maps.Clone(c.Answers)
	}
	if c.MemoryIDs != nil {
		cp.MemoryIDs = maps.Clone(c.MemoryIDs)
	}
	if c.Source != nil {
		src := *c.Source
		cp.Source = &src
	}
	if c.Tool != nil {
		tool := *c.Tool
		tool.Arguments = slices.Clone(c.Tool.Arguments)
		tool.InputSchema = slices.Clone(c.Tool.InputSchema)
		cp.Tool = &tool
	}
	cp.ApprovedArguments = slices.Clone(c.ApprovedArguments)
	cp.Schema = slices.Clone(c.Schema)
	cp.Content = slices.Clone(c.Content)
	return &cp
}

func cloneQuestions(qs []Question) []Question {
	if qs == nil {
		return nil
	}
	out := make([]Question, len(qs))
	for i, q := range qs {
		out[i] = q
		if q.Options != nil {
			out[i].Options = append([]Option{}, q.Options...)
		}
	}
	return out
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := *t
	return &v
}
