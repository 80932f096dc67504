package service

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// BenchmarkRespondToNextModelRequest measures the Go part of Submit → next
// model request: Service.Respond (checks, the card's answer stored, the
// waiting run unblocked) until the next chat request reaches the scripted
// model server (tool result stored, history rebuilt, request sent).
// Real SQLite file, real langchaingo client. Sub-benchmarks: a new
// conversation, and one with 200 earlier messages (the history the next
// request is built from).
func BenchmarkRespondToNextModelRequest(b *testing.B) {
	for _, earlier := range []int{0, 200} {
		b.Run(fmt.Sprintf("history-%d", earlier), func(b *testing.B) { benchRespond(b, earlier) })
	}
}

func benchRespond(b *testing.B, earlier int) {
	asked := make(chan *questions.Card, 4)
	script := func(req modelserver.ChatRequest) modelserver.Turn {
		if last := req.LastMessage(); last.Role == "tool" {
			return modelserver.Turn{Text: "Blue it is."}
		}
		return modelserver.Turn{Text: "One question first.", ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: "ask_user_question", Arguments: colourCard}}}
	}
	model, arrived := timedModelServer(b, script)
	db, err := store.Open(filepath.Join(b.TempDir(), "parley.db"))
	require.NoError(b, err)
	b.Cleanup(func() { _ = db.Close() })
	cfg := config.Config{BaseURL: model.URL + "/v1", Model: "scripted", QuestionTimeout: time.Hour,
		Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
	em := events.EmitterFunc(func(name string, payload any) {
		if name == events.QuestionAsk {
			select {
			case asked <- payload.(*questions.Card):
			default:
			}
		}
	})
	svc, err := New(context.Background(), Options{Store: db, Events: em, Config: cfg, Version: "bench"})
	require.NoError(b, err)
	b.Cleanup(svc.Close)
	ctx := context.Background()
	st := svc.GetSettings()
	st.RateLimitSeconds = 0
	_, err = svc.SaveSettings(ctx, st)
	require.NoError(b, err)

	var lat []time.Duration
	round := func() {
		c, err := svc.CreateConversation(ctx, "bench", "")
		require.NoError(b, err)
		for i := range earlier {
			role, text := chat.RoleUser, fmt.Sprintf("Earlier question %d about the house and the garden?", i)
			if i%2 == 1 {
				role, text = chat.RoleAssistant, "An earlier answer of a few sentences, as replies are, about paint, walls and light."
			}
			require.NoError(b, db.AppendMessage(ctx, &chat.Message{ConversationID: c.ID, Role: role, Content: text}))
		}
		_, err = svc.Send(ctx, c.ID, api.SendRequest{Content: "Paint my bedroom please"})
		require.NoError(b, err)
		<-arrived // the request that asks the card
		var card *questions.Card
		select {
		case card = <-asked:
		case <-time.After(time.Minute):
			require.FailNow(b, "no card asked")
		}
		require.Equal(b, c.ID, card.ConversationID, "card %+v", card)
		// The run stores its awaiting state after the card event: respond
		// once it waits, as a user would.
		for svc.rt.State(c.ID).State != chat.StateAwaitingUserResponse {
			time.Sleep(50 * time.Microsecond)
		}
		t0 := time.Now()
		_, err = svc.Respond(ctx, c.ID, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
			Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
		require.NoError(b, err)
		select {
		case t1 := <-arrived:
			lat = append(lat, t1.Sub(t0))
		case <-time.After(time.Minute):
			require.FailNow(b, "no model request after the answer")
		}
		<-svc.rt.Done(c.ID)
	}
	round() // warm-up: connections, caches
	lat = lat[:0]
	for b.Loop() {
		round()
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.95), "p95-µs")
}

// timedModelServer is a scripted model server that tells when each chat
// request reaches it, before it reads the body (decoding a long history is
// the model server's work). The channel is buffered and sent to without
// blocking: a failing round cannot block the server.
func timedModelServer(b *testing.B, script func(modelserver.ChatRequest) modelserver.Turn) (*httptest.Server, <-chan time.Time) {
	arrived := make(chan time.Time, 4)
	scripted := modelserver.NewHandler(script)
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			select {
			case arrived <- time.Now():
			default:
			}
		}
		scripted.ServeHTTP(w, r)
	}))
	b.Cleanup(model.Close)
	return model, arrived
}
