package mcp

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/mcp/mcptest"
)

// callsInFlight is how many calls of the server are running.
func (h *testHost) callsInFlight(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers[name].calls)
}

// Issue 23: a server on a protocol before 2026-07-28 (the npm "everything"
// server, TypeScript SDK) sends elicitation/create with nothing that names the
// tool call it belongs to. With a call of another conversation in flight on
// the same server, the request was shown in that other conversation (the
// oldest call's). Now it is refused with a reason the calling tool returns,
// and the other conversation is never asked.
func TestElicitationOfAnOlderProtocolIsRefusedWhenTwoCallsAreInFlight(t *testing.T) {
	node, args := mcptest.NodeServer(t, "everything")
	h := newTestHost(t, map[string]ServerConfig{"everything": {Command: node, Args: args}})
	h.waitStatus(t, "everything", api.MCPConnected)

	var askedFirst, askedSecond atomic.Int32
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	firstDone := make(chan Result, 1)
	go func() {
		firstDone <- h.Call(ctx, Call{Server: "everything", Tool: "trigger-long-running-operation", Arguments: json.RawMessage(`{"duration":600,"steps":1}`),
			Elicit: func(context.Context, Elicitation) (ElicitAnswer, error) {
				askedFirst.Add(1)
				return ElicitAnswer{Action: "decline"}, nil
			}})
	}()
	waitFor(t, "the first call in flight", func() bool { return h.callsInFlight("everything") == 1 })

	res := h.Call(context.Background(), Call{Server: "everything", Tool: "trigger-elicitation-request", Arguments: json.RawMessage(`{}`),
		Elicit: func(context.Context, Elicitation) (ElicitAnswer, error) {
			askedSecond.Add(1)
			return ElicitAnswer{Action: "decline"}, nil
		}})
	assert.Zero(t, askedFirst.Load(), "the other conversation's call was asked")
	assert.Zero(t, askedSecond.Load(), "a request that cannot be told apart is refused, not guessed")
	assert.True(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "cannot tell which of the 2 calls")
	assert.Contains(t, h.logs.String(), "MCP elicitation refused")

	stop()
	first := <-firstDone
	assert.Contains(t, first.Text, "cancelled")
	waitFor(t, "no call in flight", func() bool { return h.callsInFlight("everything") == 0 })
}

// With one call in flight the older protocol's request is that call's.
func TestElicitationOfAnOlderProtocolGoesToTheOnlyCallInFlight(t *testing.T) {
	node, args := mcptest.NodeServer(t, "everything")
	h := newTestHost(t, map[string]ServerConfig{"everything": {Command: node, Args: args}})
	h.waitStatus(t, "everything", api.MCPConnected)
	var asked atomic.Int32
	res := h.Call(context.Background(), Call{Server: "everything", Tool: "trigger-elicitation-request", Arguments: json.RawMessage(`{}`),
		Elicit: func(_ context.Context, e Elicitation) (ElicitAnswer, error) {
			asked.Add(1)
			assert.Equal(t, "trigger-elicitation-request", e.Tool)
			return ElicitAnswer{Action: "decline"}, nil
		}})
	require.Equal(t, int32(1), asked.Load(), res.Text)
	assert.False(t, res.IsError, res.Text)
}
