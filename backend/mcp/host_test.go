package mcp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/events"
)

func TestEchoThroughTheHost(t *testing.T) {
	h := newTestHost(t, map[string]ServerConfig{"local": testServer()})
	s := h.waitStatus(t, "local", api.MCPConnected)
	assert.Equal(t, api.TransportStdio, s.Transport)
	names := map[string]string{}
	for _, tool := range s.Tools {
		names[tool.Name] = tool.ModelName
		assert.Equal(t, api.PolicyAsk, tool.Policy, "default policy of %s", tool.Name)
	}
	assert.Equal(t, "local__echo", names["echo"])

	res := call(h.Host, "local", "echo", `{"message":"hi there"}`)
	assert.False(t, res.IsError)
	assert.Equal(t, "Echo: hi there", res.Text)

	// Every state change was announced, ending with connected.
	var statuses []string
	for _, e := range h.rec.Events() {
		require.Equal(t, events.MCPServer, e.Name)
		statuses = append(statuses, e.Payload.(api.MCPServer).Status)
	}
	assert.Equal(t, []string{api.MCPConnecting, api.MCPConnected}, statuses[len(statuses)-2:])
}

func TestCapabilitiesElicitationFormAndURLNoRoots(t *testing.T) {
	h := newTestHost(t, map[string]ServerConfig{"local": testServer()})
	h.waitStatus(t, "local", api.MCPConnected)
	res := call(h.Host, "local", "caps", `{}`)
	require.False(t, res.IsError, res.Text)
	var caps map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(res.Text), &caps), res.Text)
	assert.JSONEq(t, `{"form":{},"url":{}}`, string(caps["elicitation"]))
	assert.Equal(t, "null", string(caps["roots"]))
	assert.Equal(t, "null", string(caps["sampling"]))
}
