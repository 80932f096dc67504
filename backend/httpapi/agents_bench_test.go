package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

// benchAgents is the real service on a real SQLite file behind the API with
// the agents' endpoints; every question:ask card goes to asked (the moment
// the window would be told), without blocking.
func benchAgents(b *testing.B, maxPending int) (*service.Service, *httptest.Server, chan askedAt) {
	b.Helper()
	dir := b.TempDir()
	db, err := store.Open(filepath.Join(dir, "parley.db"))
	require.NoError(b, err)
	b.Cleanup(func() { _ = db.Close() })
	asked := make(chan askedAt, 4)
	em := events.EmitterFunc(func(name string, payload any) {
		if card, ok := payload.(*questions.Card); ok && name == events.QuestionAsk {
			select {
			case asked <- askedAt{time.Now(), card}:
			default:
			}
		}
	})
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: em, Config: config.Config{DataDir: dir}, Version: "bench",
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	b.Cleanup(svc.Close)
	st := svc.GetSettings()
	st.RateLimitSeconds, st.MaxPendingQuestions, st.QuestionTimeoutSeconds = 0, maxPending, 0
	_, err = svc.SaveSettings(context.Background(), st)
	require.NoError(b, err)
	ts := httptest.NewServer(New(Options{Backend: svc, Token: testToken, Version: "bench", Heartbeat: time.Hour, Agents: svc.Agents(),
		Logger: slog.New(slog.DiscardHandler)}))
	b.Cleanup(ts.Close)
	return svc, ts, asked
}

type askedAt struct {
	at   time.Time
	card *questions.Card
}

// connectMCP connects the Go SDK's client over streamable HTTP.
func connectMCP(b *testing.B, url, token, name string) *sdk.ClientSession {
	b.Helper()
	hc := &http.Client{Transport: headerTransport{token: token}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// bareServer is a bare Go SDK server over streamable HTTP with one tool
// that answers at once: the floor of an MCP tool call on this machine.
func bareServer(b *testing.B) string {
	b.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{"answers":{"Ship it?":"Yes"}}`}}}, nil
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	b.Cleanup(ts.Close)
	return ts.URL
}

// p50 is the median of the durations, in microseconds.
func p50(ds []time.Duration) float64 { return quantileMicros(ds, 0.5) }

func quantileMicros(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[int(q*float64(len(s)-1))].Nanoseconds()) / 1e3
}

// BenchmarkAgentAskOverMCP measures an agent's card over /mcp (SPEC §10)
// against a bare Go SDK tool call on the same machine: ask-to-card is the
// ask_user_question call sent until the question:ask event (what the window
// shows); answer-to-result is the user's answer (Service.Respond) until the
// agent's call returns the §1 result. The ratios divide each median by the
// bare call's median. Parley and bare calls alternate.
func BenchmarkAgentAskOverMCP(b *testing.B) {
	svc, ts, asked := benchAgents(b, 10)
	agent := connectMCP(b, ts.URL+MCPPath, testToken, "bench-agent")
	bare := connectMCP(b, bareServer(b), "", "bench-bare")
	ctx := context.Background()
	const question = "Ship it?"
	args := map[string]any{"questions": []any{map[string]any{"question": question, "options": []string{"Yes", "No"}}}, "wait_seconds": 60}
	want := `{"answers":{"Ship it?":"Yes"}}`

	type result struct {
		text string
		err  error
	}
	round := func() (askToCard, answerToResult time.Duration) {
		done := make(chan result, 1)
		start := time.Now()
		go func() {
			res, err := agent.CallTool(ctx, &sdk.CallToolParams{Name: "ask_user_question", Arguments: args})
			if err == nil && len(res.Content) == 1 {
				done <- result{text: res.Content[0].(*sdk.TextContent).Text}
				return
			}
			done <- result{err: fmt.Errorf("call: %v %+v", err, res)}
		}()
		var a askedAt
		select {
		case a = <-asked:
		case r := <-done:
			require.FailNow(b, "the call ended before its card was asked", "%v %q", r.err, r.text)
		}
		answered := time.Now()
		_, err := svc.Respond(ctx, a.card.ConversationID, questions.Response{QuestionID: a.card.ID, Action: questions.ActionSubmit,
			Answers: map[string]questions.AnswerInput{question: {Selected: []string{"Yes"}}}})
		require.NoError(b, err)
		r := <-done
		end := time.Now()
		require.NoError(b, r.err)
		require.Equal(b, want, r.text)
		return a.at.Sub(start), end.Sub(answered)
	}
	bareCall := func() time.Duration {
		start := time.Now()
		res, err := bare.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{}})
		d := time.Since(start)
		require.NoError(b, err)
		require.False(b, res.IsError)
		return d
	}
	round() // warm up both connections
	bareCall()

	var asks, answers, bares []time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			bares = append(bares, bareCall())
		}
		ask, ans := round()
		asks, answers = append(asks, ask), append(answers, ans)
		if i%2 == 1 {
			bares = append(bares, bareCall())
		}
		i++
	}
	b.ReportMetric(p50(asks), "ask-to-card-p50-µs")
	b.ReportMetric(p50(answers), "answer-to-result-p50-µs")
	b.ReportMetric(p50(bares), "bare-call-p50-µs")
	b.ReportMetric(p50(asks)/p50(bares), "ask-ratio")
	b.ReportMetric(p50(answers)/p50(bares), "answer-ratio")
}

// BenchmarkThousandAgentCardsPending files 1,000 agents' cards (10 agents,
// 100 pending each, through the inbox as /mcp and /asks do), reports the Go
// heap they hold per card, then answers one card per iteration while the
// other 999 wait (and files a new one, so 1,000 stay pending): the respond
// latency.
func BenchmarkThousandAgentCardsPending(b *testing.B) {
	const agents, perAgent = 10, 100
	svc, _, _ := benchAgents(b, perAgent)
	inbox := svc.Agents()
	ctx := context.Background()
	file := func(agent string, n int) *questions.Card {
		q := fmt.Sprintf("Apply change %d?", n)
		card, err := inbox.Ask(ctx, agentinbox.AskRequest{Agent: agent,
			Input: []byte(`{"questions":[{"question":"` + q + `","options":["Apply","Skip"]}]}`), Context: "Change " + fmt.Sprint(n) + " is ready."})
		require.NoError(b, err)
		return card
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var pending []*questions.Card
	for n := range agents * perAgent {
		pending = append(pending, file(fmt.Sprintf("agent-%02d", n%agents), n))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	require.Len(b, svc.Manager().Pending(""), agents*perAgent)
	perCard := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(pending))

	var lat []time.Duration
	n := len(pending)
	for b.Loop() {
		c := pending[0]
		pending = pending[1:]
		start := time.Now()
		_, err := svc.Respond(ctx, c.ConversationID, questions.Response{QuestionID: c.ID, Action: questions.ActionSubmit,
			Answers: map[string]questions.AnswerInput{c.Questions[0].Question: {Selected: []string{"Apply"}}}})
		lat = append(lat, time.Since(start))
		require.NoError(b, err)
		pending = append(pending, file(c.Source.Agent, n))
		n++
	}
	b.ReportMetric(perCard, "heap-B/card")
	b.ReportMetric(p50(lat), "respond-p50-µs")
	b.ReportMetric(quantileMicros(lat, 0.95), "respond-p95-µs")
}
