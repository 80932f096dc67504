package modelserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEchoHistoryListsWhatTheRequestCarried(t *testing.T) {
	script := EchoHistory(func(ChatRequest) Turn { return Turn{Text: "from next"} })
	req := ChatRequest{Messages: []Message{
		{Role: "system", Content: "be nice"},
		{Role: "user", Content: "echo one"},
		{Role: "assistant", Content: "Reply 1."},
		{Role: "user", Content: "Echo two"},
	}}
	assert.Equal(t, "Reply 1. I received: [user: echo one | assistant: Reply 1. | user: Echo two]", script(req).Text)
	assert.Equal(t, "Reply 2. I received: [user: echo one | assistant: Reply 1. | user: Echo two]", script(req).Text, "replies are numbered")
	assert.Equal(t, "from next", script(ChatRequest{Messages: []Message{{Role: "user", Content: "plan a trip"}}}).Text)
	assert.Equal(t, "from next", script(ChatRequest{Messages: []Message{{Role: "user", Content: "echo"}, {Role: "tool", Content: "x"}}}).Text)
}
