package modelserver

import (
	"fmt"
	"strings"
)

// Echo answers every request with what it received: the model asked for,
// the last user message's text and how many images came with it. End-to-end
// tests read the reply in the page to see what reached the model.
func Echo() Script {
	return func(req ChatRequest) Turn {
		var last Message
		for _, m := range req.Messages {
			if m.Role == "user" {
				last = m
			}
		}
		return Turn{Text: fmt.Sprintf("echo model=%s images=%d\n\n```text\n%s\n```", req.Model, len(last.ImageURLs),
			strings.ReplaceAll(last.Content, "```", "'''"))}
	}
}
