package sidecar

import (
	"encoding/json"
	"strings"
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
	// Jinja2 drops the source's one trailing newline (keep_trailing_newline
	// is off by default, as in Hugging Face's apply_chat_template): without
	// this, Mistral's templates end their prompt in "[/INST]\n".
	src := strings.TrimSuffix(strings.TrimSuffix(tmpl, "\n"), "\r")
	t, err := jinja.Compile(src)
	if err != nil {
		// The Jinja engine's scanner trips on a quote inside a comment
		// (Llama 3.1's and 3.3's templates: {#- This means we're in
		// ipython mode #}): try again with each comment written as an
		// empty expression, which trims the same space.
		var err2 error
		if t, err2 = jinja.Compile(withoutComments(src)); err2 != nil {
			return nil, err
		}
	}
	if len(cache) > 8 {
		clear(cache)
	}
	cache[tmpl] = t
	return t, nil
}

// withoutComments replaces each {# ... #} of tmpl with {{ "" }}, keeping
// its whitespace control ({#- and -#}).
func withoutComments(tmpl string) string {
	var b strings.Builder
	for {
		i := strings.Index(tmpl, "{#")
		if i < 0 {
			break
		}
		j := strings.Index(tmpl[i+2:], "#}")
		if j < 0 {
			break
		}
		body := tmpl[i+2 : i+2+j]
		b.WriteString(tmpl[:i])
		b.WriteString("{{")
		if strings.HasPrefix(body, "-") {
			b.WriteString("-")
		}
		b.WriteString(` "" `)
		if strings.HasSuffix(body, "-") {
			b.WriteString("-")
		}
		b.WriteString("}}")
		tmpl = tmpl[i+2+j+2:]
	}
	b.WriteString(tmpl)
	return b.String()
}
