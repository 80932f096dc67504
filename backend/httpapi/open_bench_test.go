package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/cpuclock"
)

// openBenchMessages is the long conversation of issue #42's bench (e).
const openBenchMessages = 5_000

// BenchmarkGetConversation5000Messages is what Go does when a conversation
// of 5,000 messages is read: GET /api/v1/conversations/{id} on a real
// SQLite file, read to the last byte by an HTTP client; whole, and as the
// page reads it on each open (a window of its newest messages). On a
// two-core machine this work shares the cores with the page that asked for
// it, so its CPU time (cpu-ms/open, the process's, GC included) is the
// figure to keep small, beside its wall time and allocations.
func BenchmarkGetConversation5000Messages(b *testing.B) {
	svc, ts, _ := benchAgents(b, 10)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	msgs := make([]map[string]any, openBenchMessages)
	for i := range msgs {
		role, text := "user", fmt.Sprintf("Question number %d: what about item %d? msg %d", i+1, i+1, i+1)
		if i%2 == 1 {
			role = "assistant"
			text = fmt.Sprintf("Answer %d: here is a **short** reply with a [link](https://example.com/%d) and `code`. msg %d", i+1, i+1, i+1)
		}
		msgs[i] = map[string]any{"role": role, "content": text, "created_at": t0.Add(time.Duration(i) * time.Second).Format(time.RFC3339)}
	}
	doc, err := json.Marshal(map[string]any{"format": "parley.conversation", "version": 1, "exported_at": t0.Format(time.RFC3339),
		"conversation": map[string]any{"title": "Bench", "assistant": "default", "created_at": t0.Format(time.RFC3339), "updated_at": t0.Format(time.RFC3339)},
		"messages":     msgs, "runs": []any{}, "cards": []any{}})
	require.NoError(b, err)
	conv, err := svc.ImportConversation(context.Background(), doc)
	require.NoError(b, err)

	client := ts.Client()
	get := func(query string) (int, []byte) {
		req, err := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/conversations/"+conv.ID+query, nil)
		require.NoError(b, err)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := client.Do(req)
		require.NoError(b, err)
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.NoError(b, err)
		require.Equal(b, http.StatusOK, resp.StatusCode, "%s", body)
		return len(body), body
	}
	// whole: the visible path, as API clients read it; window: what the app
	// reads on each open (its newest 200 messages, SPEC §7).
	for _, c := range []struct {
		name, query string
		want        int
	}{{"whole", "", openBenchMessages}, {"window", "?last=200", 200}} {
		b.Run(c.name, func(b *testing.B) {
			// Once, checked: the messages asked for are there, in order, the last one last.
			_, body := get(c.query)
			var d api.ConversationDetail
			require.NoError(b, json.Unmarshal(body, &d))
			require.Len(b, d.Messages, c.want)
			require.Equal(b, openBenchMessages-c.want, d.Earlier)
			require.Contains(b, d.Messages[c.want-1].Content, fmt.Sprintf("msg %d", openBenchMessages))

			runtime.GC()
			size := 0
			c0 := cpuclock.Process()
			b.ReportAllocs()
			for b.Loop() {
				size, _ = get(c.query)
			}
			cpu := cpuclock.Process() - c0
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/open")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/open")
			b.ReportMetric(float64(size)/1024, "KiB/response")
		})
	}
}
