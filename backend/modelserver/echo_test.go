package modelserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/parley-app/parley/backend/modelserver"
)

func TestEchoRepeatsWhatTheModelReceived(t *testing.T) {
	req := modelserver.ChatRequest{Model: "llava", Messages: []modelserver.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "file ```x```", ImageURLs: []string{"data:image/png;base64,AA=="}},
	}}
	turn := modelserver.Echo()(req)
	assert.Equal(t, "echo model=llava images=1\n\n```text\nfile '''x'''\n```", turn.Text)
}
