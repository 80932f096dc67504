package llm

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OnToolCall gets each call once the server has finished it (a later index
// started, or finish_reason came) while the stream is still open: this
// server sends usage and [DONE] only after the client has seen both calls.
func TestOnToolCallBeforeTheStreamEnds(t *testing.T) {
	seen := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(delta string, finish string) {
			f := "null"
			if finish != "" {
				f = `"` + finish + `"`
			}
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, f)
			w.(http.Flusher).Flush()
		}
		send(`{"role":"assistant","content":""}`, "")
		send(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"one","arguments":""}}]}`, "")
		send(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":"}}]}`, "")
		send(`{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}`, "")
		send(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"two","arguments":"{}"}}]}`, "")
		send(`{}`, "tool_calls")
		select {
		case <-seen:
		case <-time.After(10 * time.Second):
			return // the client never saw the calls: the stream stays unfinished
		}
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":7,\"total_tokens\":12}}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	m, err := NewOpenAI(Config{BaseURL: srv.URL + "/v1", Model: "m"})
	require.NoError(t, err)
	var mu sync.Mutex
	var got []ToolCall
	resp, err := m.Chat(context.Background(), Request{
		Messages: []Message{{Role: "user", Content: "hi"}},
		Tools:    []Tool{{Name: "one"}, {Name: "two"}},
		OnToolCall: func(tc ToolCall) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, tc)
			if len(got) == 2 {
				close(seen)
			}
		},
	})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	want := []ToolCall{{ID: "call_a", Name: "one", Arguments: `{"x":1}`}, {ID: "call_b", Name: "two", Arguments: "{}"}}
	assert.Equal(t, want, got)
	assert.Equal(t, want, resp.ToolCalls, "the same calls as the response")
}
