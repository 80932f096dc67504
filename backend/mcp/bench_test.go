package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
	if _, err := h.PutServer("bench", api.MCPServerConfig{Command: testServerBin}); err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, _ := h.Server("bench")
		if s.Status == api.MCPConnected {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("server not connected: %+v", s)
		}
		time.Sleep(10 * time.Millisecond)
	}

	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(testServerBin)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer session.Close()

	args := json.RawMessage(`{"message":"ping"}`)
	var host, bare time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		res := h.Call(ctx, Call{Server: "bench", Tool: "echo", Arguments: args})
		host += time.Since(start)
		if res.IsError || res.Text != "Echo: ping" {
			b.Fatalf("host call: %+v", res)
		}
		start = time.Now()
		out, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: args})
		bare += time.Since(start)
		if err != nil || out.IsError {
			b.Fatalf("bare call: %v %+v", err, out)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(host.Nanoseconds())/float64(b.N), "host-ns/call")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "bare-ns/call")
	b.ReportMetric(float64(host)/float64(bare), "host/bare")
}
