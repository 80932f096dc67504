package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
)

// BenchmarkToolCallRoundTrip times one echo call to the same stdio server
// through Parley's host (lookup, timeout, in-flight bookkeeping, result
// conversion) and through a bare SDK client, and reports both and their
// ratio (host-ns/call ÷ bare-ns/call).
func BenchmarkToolCallRoundTrip(b *testing.B) {
	h := New(Options{Terminate: 500 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	defer h.Stop()
	h.Start()
	_, err := h.PutServer("bench", api.MCPServerConfig{Command: testServerBin})
	require.NoError(b, err)
	require.Eventually(b, func() bool {
		s, _ := h.Server("bench")
		return s.Status == api.MCPConnected
	}, 30*time.Second, 10*time.Millisecond, "server not connected")

	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(testServerBin)}, nil)
	require.NoError(b, err)
	defer session.Close()

	args := json.RawMessage(`{"message":"ping"}`)
	var host, bare time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		res := h.Call(ctx, Call{Server: "bench", Tool: "echo", Arguments: args})
		host += time.Since(start)
		require.False(b, res.IsError, "host call: %+v", res)
		require.Equal(b, "Echo: ping", res.Text)
		start = time.Now()
		out, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: args})
		bare += time.Since(start)
		require.NoError(b, err)
		require.False(b, out.IsError, "bare call: %+v", out)
	}
	b.StopTimer()
	b.ReportMetric(float64(host.Nanoseconds())/float64(b.N), "host-ns/call")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "bare-ns/call")
	b.ReportMetric(float64(host)/float64(bare), "host/bare")
}
