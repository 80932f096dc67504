package modelserver

import (
	"fmt"
	"strings"
	"sync/atomic"
)

// EchoHistory wraps a script for end-to-end tests of conversation branches
// (SPEC §7): a user message that starts with "echo" is answered with the
// user and assistant texts the request carried, numbered, so a test reads
// from the reply the exact history the model got on that branch. Other
// requests go to next.
func EchoHistory(next Script) Script {
	var n atomic.Int64
	return func(req ChatRequest) Turn {
		last := req.LastMessage()
		if last.Role != "user" || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(last.Content)), "echo") {
			return next(req)
		}
		var seen []string
		for _, m := range req.Messages {
			if m.Role == "user" || m.Role == "assistant" {
				seen = append(seen, m.Role+": "+m.Content)
			}
		}
		return Turn{Text: fmt.Sprintf("Reply %d. I received: [%s]", n.Add(1), strings.Join(seen, " | "))}
	}
}
