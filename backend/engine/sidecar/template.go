package sidecar

import (
	"encoding/json"
	"sync"

	"github.com/ardanlabs/jinja"
)

// Render formats messages with a GGUF's Jinja chat template, as llama.cpp's
// server does: messages, tools (when there are some), the BOS and EOS
// tokens' texts, add_generation_prompt, and the request's
// chat_template_kwargs (enable_thinking...). It uses the same Jinja engine
// as yzma's pkg/template (github.com/ardanlabs/jinja), directly: that
// package's Apply takes its own message type, which cannot carry an
// assistant turn's tool_calls or the tokens' texts.
func Render(tmpl string, messages []any, tools []map[string]any, bos, eos string, extra map[string]any) (string, error) {
	t, err := compiled(tmpl)
	if err != nil {
		return "", err
	}
	vars := map[string]any{}
	for k, v := range extra {
		vars[k] = v
	}
	vars["messages"] = messages
	vars["add_generation_prompt"] = true
	vars["bos_token"] = bos
	vars["eos_token"] = eos
	if len(tools) > 0 {
		// Plain values (through JSON), so tojson writes them as the model
		// saw them in training.
		var plain []any
		b, _ := json.Marshal(tools)
		_ = json.Unmarshal(b, &plain)
		vars["tools"] = plain
	}
	return t.Render(vars)
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*jinja.Template{}
)

// compiled compiles a template once (a model's template is used for every
// request).
func compiled(tmpl string) (*jinja.Template, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if t, ok := cache[tmpl]; ok {
		return t, nil
	}
	t, err := jinja.Compile(tmpl)
	if err != nil {
		return nil, err
	}
	if len(cache) > 8 {
		clear(cache)
	}
	cache[tmpl] = t
	return t, nil
}
