package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// requestExtras is what a request carries beyond what langchaingo v0.1.14
// can send (it has no way to add top-level fields or message fields:
// ReasoningEffort exists in its request struct but openaillm.go never sets
// it): the thinking control, and the thinking of assistant turns sent back
// (SPEC §9). The tee transport writes them into the request body.
type requestExtras struct {
	thinking Thinking
	// turns holds, for each assistant message of the request in order,
	// the field and text of its thinking ("" text: none).
	turns []reasoningTurn
}

type reasoningTurn struct {
	field, text string
}

// newRequestExtras returns the extras of req, nil when there are none (the
// body then goes as langchaingo wrote it).
func newRequestExtras(req Request) *requestExtras {
	e := &requestExtras{thinking: req.Thinking}
	carries := req.Thinking.Sends()
	for _, m := range req.Messages {
		if m.Role != "assistant" {
			continue
		}
		t := reasoningTurn{}
		if m.Reasoning != "" {
			t = reasoningTurn{field: ReasoningField(m.ReasoningSource), text: m.Reasoning}
			carries = true
		}
		e.turns = append(e.turns, t)
	}
	if !carries {
		return nil
	}
	return e
}

// rewrite adds the extras to a chat-completions body as langchaingo wrote
// it: reasoning_effort and chat_template_kwargs at the top level, and each
// assistant message's thinking in its field. langchaingo writes one
// message per Message, in order (llms/openai/openaillm.go), so the n-th
// assistant message of the body is the n-th of the request.
func (e *requestExtras) rewrite(body []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("add the thinking fields to the request: %w", err)
	}
	if e.thinking.Effort != "" {
		top["reasoning_effort"] = mustJSON(e.thinking.Effort)
	}
	if e.thinking.TemplateOff {
		kwargs := map[string]json.RawMessage{}
		if raw, ok := top["chat_template_kwargs"]; ok {
			_ = json.Unmarshal(raw, &kwargs)
		}
		kwargs["enable_thinking"] = json.RawMessage("false")
		top["chat_template_kwargs"] = mustJSON(kwargs)
	}
	if e.hasReasoning() {
		var msgs []map[string]json.RawMessage
		if err := json.Unmarshal(top["messages"], &msgs); err != nil {
			return nil, fmt.Errorf("add the thinking to the request's messages: %w", err)
		}
		n := 0
		for _, m := range msgs {
			if !bytes.Equal(m["role"], []byte(`"assistant"`)) {
				continue
			}
			if n < len(e.turns) && e.turns[n].text != "" {
				m[e.turns[n].field] = mustJSON(e.turns[n].text)
			}
			n++
		}
		top["messages"] = mustJSON(msgs)
	}
	out, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("add the thinking fields to the request: %w", err)
	}
	return out, nil
}

func (e *requestExtras) hasReasoning() bool {
	for _, t := range e.turns {
		if t.text != "" {
			return true
		}
	}
	return false
}

// mustJSON encodes values that always encode (strings, maps of raw JSON).
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode %T: %v", v, err))
	}
	return b
}
