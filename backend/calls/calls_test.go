package calls

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeclarationsAreUnique(t *testing.T) {
	names, routes, clients := map[string]bool{}, map[string]bool{}, map[string]bool{}
	require.NotEmpty(t, All())
	for _, c := range All() {
		route := c.Method() + " " + c.Path()
		assert.False(t, names[c.Name()], "two calls named %s", c.Name())
		assert.False(t, routes[route], "two calls on %s", route)
		assert.False(t, clients[ClientName(c)], "two client names %s", ClientName(c))
		names[c.Name()], routes[route], clients[ClientName(c)] = true, true, true
	}
}

func TestClientName(t *testing.T) {
	for name, want := range map[string]string{"MCPServers": "mcpServers", "GetConversation": "getConversation", "Send": "send", "ImportMCPConfig": "importMCPConfig"} {
		assert.Equal(t, want, ClientName(&Decl[None, None]{name: name}))
	}
}
