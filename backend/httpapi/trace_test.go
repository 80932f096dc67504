package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/trace"
)

// traceServer is the real service (SQLite, the scripted model server) behind
// the HTTP API, its events going to the API's SSE stream.
func traceServer(t *testing.T) *httptest.Server {
	t.Helper()
	model := modelserver.New(func(req modelserver.ChatRequest) modelserver.Turn {
		if last := req.LastMessage(); last.Role == "tool" {
			return modelserver.Turn{Text: "Tool said: " + last.Content}
		}
		return modelserver.Turn{Text: "One question.", ToolCalls: []modelserver.ToolCall{{ID: "call_trace", Name: questions.ToolName,
			Arguments: `{"questions":[{"question":"Which colour?","options":["Red","Blue"]}]}`}}}
	})
	t.Cleanup(model.Close)
	db, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	broker := events.NewBroker(64)
	cfg := config.Config{BaseURL: model.URL(), Model: "scripted", QuestionTimeout: time.Minute,
		Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: events.Multi{broker}, Config: cfg, Version: "test"})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	ts := httptest.NewServer(New(Options{Backend: svc, Broker: broker, Token: testToken, Version: "test", Heartbeat: time.Hour}))
	t.Cleanup(ts.Close)
	return ts
}

// sseCards returns the ids of the question:ask events of the SSE stream.
func sseCards(t *testing.T, ts *httptest.Server) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/v1/events", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, 200, res.StatusCode)
	ids := make(chan string, 8)
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		ask := false
		for sc.Scan() {
			line := sc.Text()
			if line == "event: "+events.QuestionAsk {
				ask = true
				continue
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok && ask {
				var c struct {
					ID string `json:"question_id"`
				}
				if json.Unmarshal([]byte(data), &c) == nil {
					ids <- c.ID
				}
			}
			ask = false
		}
	}()
	return ids
}

// With tracing on, one real card gets every hop of its path marked under
// the tool call's and the card's id: the Go side's through the service and
// the SSE stream, the page's as reported to POST /debug/trace, and Submit ->
// the next model request.
func TestTraceMarksEveryHopOfARealCard(t *testing.T) {
	trace.Reset()
	trace.SetEnabled(true)
	t.Cleanup(func() {
		trace.SetEnabled(false)
		trace.Reset()
	})
	ts := traceServer(t)
	code, body := do(t, ts, "GET", "/api/v1/health", "", nil)
	require.Equal(t, 200, code)
	assert.Contains(t, body, `"trace":true`)
	cards := sseCards(t, ts)

	code, body = do(t, ts, "POST", "/api/v1/conversations", `{"title":"Colours"}`, nil)
	require.Equal(t, 201, code, body)
	var conv struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &conv))
	code, body = do(t, ts, "POST", "/api/v1/conversations/"+conv.ID+"/messages", `{"content":"Paint my room"}`, nil)
	require.Equal(t, 202, code, body)
	var cardID string
	select {
	case cardID = <-cards:
	case <-time.After(15 * time.Second):
		require.FailNow(t, "no question:ask on the SSE stream")
	}

	page := []trace.PageMark{}
	for _, hop := range []string{trace.HopPageSend, trace.HopPageReceived, trace.HopPageStore, trace.HopPageDOM, trace.HopPageCardFrame, trace.HopPagePaint, trace.HopPageSubmit} {
		page = append(page, trace.PageMark{Key: cardID, Hop: hop, At: trace.Now()})
	}
	marks, _ := json.Marshal(page)
	code, body = do(t, ts, "POST", "/api/v1/debug/trace", string(marks), nil)
	require.Equal(t, 204, code, body)
	code, body = do(t, ts, "POST", "/api/v1/conversations/"+conv.ID+"/respond", fmt.Sprintf(`{"question_id":%q,"action":"skip"}`, cardID), nil)
	require.Equal(t, 200, code, body)
	require.Eventually(t, func() bool {
		_, body := do(t, ts, "GET", "/api/v1/conversations/"+conv.ID, "", nil)
		return strings.Contains(body, `"state":"idle"`) && strings.Contains(body, "Tool said: ")
	}, 15*time.Second, 10*time.Millisecond)

	code, body = do(t, ts, "GET", "/api/v1/debug/trace", "", nil)
	require.Equal(t, 200, code, body)
	var got struct{ Records []trace.CardRecord }
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	var rec *trace.CardRecord
	for i, r := range got.Records {
		for _, k := range r.Keys {
			if k == cardID {
				rec = &got.Records[i]
			}
		}
	}
	require.NotNil(t, rec, "no record of card %s in %s", cardID, body)
	assert.ElementsMatch(t, []string{"call_trace", cardID}, rec.Keys)
	assert.Contains(t, rec.Marks, trace.HopPageSend, "the page's send mark is kept with the card's")
	for _, hops := range [][]string{trace.CardHops, trace.SubmitHops} {
		for _, hop := range hops {
			if hop != trace.HopWailsSent {
				assert.Contains(t, rec.Marks, hop)
			}
		}
	}
	assert.NotContains(t, rec.Marks, trace.HopWailsSent, "no window here")
	// Each Go hop comes after the one before it on its path (the order, not the speed).
	for _, path := range [][]string{trace.CardHops[:8], trace.SubmitHops} {
		for i := 1; i < len(path); i++ {
			assert.LessOrEqual(t, rec.Marks[path[i-1]], rec.Marks[path[i]], "%s before %s", path[i-1], path[i])
		}
	}

	// Bad page marks are refused with the reason.
	code, body = do(t, ts, "POST", "/api/v1/debug/trace", `[{"key":"x","hop":"stored","at":1}]`, nil)
	assert.Equal(t, 400, code)
	assert.Contains(t, body, "unknown hop")
}

// Off (the default), the trace endpoints do not exist and health says nothing.
func TestTraceEndpointsAreAbsentWhenOff(t *testing.T) {
	trace.SetEnabled(false)
	_, ts, _ := newTestServer(t, &fakeBackend{})
	code, body := do(t, ts, "GET", "/api/v1/health", "", nil)
	require.Equal(t, 200, code)
	assert.NotContains(t, body, "trace")
	code, _ = do(t, ts, "GET", "/api/v1/debug/trace", "", nil)
	assert.Equal(t, 404, code)
	code, _ = do(t, ts, "POST", "/api/v1/debug/trace", `[]`, nil)
	assert.Equal(t, 404, code)
	code, _ = do(t, ts, "GET", "/api/v1/debug/trace", "", map[string]string{"Authorization": ""})
	assert.Equal(t, 401, code, "behind the token")
}
