package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
)

// A streamable HTTP server: the configured headers reach it, its tools are
// listed and called like a stdio server's.
func TestStreamableHTTPServerWithHeaders(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "greet", Description: "Greets", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello over HTTP"}}}, nil
		})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	var refused atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	h := newTestHost(t, map[string]ServerConfig{
		"web":   {URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer " + secret}},
		"nokey": {URL: ts.URL},
	})
	s := h.waitStatus(t, "web", api.MCPConnected)
	assert.Equal(t, api.TransportHTTP, s.Transport)
	assert.Equal(t, []string{"Authorization"}, s.HeaderKeys)
	require.Len(t, s.Tools, 1)
	assert.Equal(t, "web__greet", s.Tools[0].ModelName)
	assert.Equal(t, "hello over HTTP", call(h.Host, "web", "greet", `{}`).Text)

	bad := h.waitStatus(t, "nokey", api.MCPError)
	assert.NotEmpty(t, bad.Error)
	assert.Positive(t, refused.Load())
	assert.NotContains(t, h.logs.String(), secret)
}
