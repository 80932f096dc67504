package assistant

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/cpuclock"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// benchAnswer is a 200-word answer; the modelserver streams it word by word.
var benchAnswer = func() string {
	words := make([]string, 200)
	for i := range words {
		words[i] = fmt.Sprintf("word%d", i)
	}
	return strings.Join(words, " ")
}()

// idleWaiter is an emitter that drops every event (like events.Discard) but
// tells when a conversation's run has ended, so the benchmark can wait
// without polling. Buffered so that a failing benchmark cannot block a run.
type idleWaiter chan StateInfo

func newIdleWaiter() idleWaiter { return make(idleWaiter, 16) }

var quiet = slog.New(slog.DiscardHandler)

// benchWait is how long a benchmark waits for any one step before failing.
const benchWait = 30 * time.Second

func (w idleWaiter) Emit(name string, payload any) {
	if name != events.ConversationState {
		return
	}
	if s := payload.(StateInfo); s.State == chat.StateIdle || s.State == chat.StateError {
		w <- s
	}
}

// loopBench runs exchanges through the assistant Runtime.
type loopBench struct {
	rt      *Runtime
	history *memoryHistory
	done    idleWaiter
	n       int
	keep    bool // keep each exchange's conversation (the warm-up's, to check it)
}

func newLoopBench(srv *modelserver.Server) *loopBench {
	lb := &loopBench{done: newIdleWaiter(), history: newMemoryHistory()}
	lb.rt = New(Options{
		History: lb.history,
		Events:  lb.done,
		Model: func(string) (llm.Model, error) {
			return llm.NewOpenAI(llm.Config{BaseURL: srv.URL(), Model: "bench-model"})
		},
		Tools:  BuiltinTools(nil),
		Logger: quiet,
	})
	return lb
}

// exchange is one run: user message in, streamed answer saved, run idle.
func (lb *loopBench) exchange(b *testing.B) {
	lb.n++
	conv := fmt.Sprintf("bench-%d", lb.n)
	_, err := lb.rt.Start(StartRequest{ConversationID: conv, UserText: "Tell me a long story."})
	require.NoError(b, err)
	select {
	case s := <-lb.done:
		require.Equal(b, chat.StateIdle, s.State, "run ended as %+v", s)
		require.Equal(b, conv, s.ConversationID, "run ended as %+v", s)
	case <-time.After(benchWait):
		require.FailNow(b, "the run did not end")
	}
	if !lb.keep {
		// The in-memory history stands in for SQLite: kept, every exchange
		// would stay on the heap and each garbage collection (both sides
		// pay for them) would take longer as the bench goes on.
		lb.history.forget(conv)
		lb.rt.Forget(conv) // its idle state, kept for the conversation list
	}
}

// bareBench runs the same exchange (same messages and tool definitions)
// through langchaingo's llms/openai directly.
type bareBench struct {
	client *openai.LLM
	msgs   []llms.MessageContent
	opts   []llms.CallOption
}

func newBareBench(b *testing.B, srv *modelserver.Server, rt *Runtime) *bareBench {
	transport := &http.Transport{MaxIdleConnsPerHost: 4}
	b.Cleanup(transport.CloseIdleConnections)
	client, err := openai.New(openai.WithBaseURL(srv.URL()), openai.WithToken("none"), openai.WithModel("bench-model"),
		openai.WithHTTPClient(&http.Client{Transport: transport}))
	require.NoError(b, err)
	profile := DefaultProfile()
	var tools []llms.Tool
	for _, t := range (&runLoop{rt: rt, profile: profile}).tools(false) {
		tools = append(tools, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	return &bareBench{
		client: client,
		msgs: []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, profile.SystemPrompt),
			llms.TextParts(llms.ChatMessageTypeHuman, "Tell me a long story."),
		},
		opts: []llms.CallOption{llms.WithTools(tools), llms.WithStreamingFunc(func(context.Context, []byte) error { return nil })},
	}
}

func (bb *bareBench) exchange(b *testing.B) {
	resp, err := bb.client.GenerateContent(context.Background(), bb.msgs, bb.opts...)
	require.NoError(b, err, "bare exchange")
	require.NotEmpty(b, resp.Choices, "bare exchange")
	require.Equal(b, benchAnswer, resp.Choices[0].Content, "bare exchange")
}

func benchServer(b *testing.B) *modelserver.Server {
	srv := modelserver.New(func(modelserver.ChatRequest) modelserver.Turn { return modelserver.Turn{Text: benchAnswer} })
	b.Cleanup(srv.Close)
	return srv
}

// loopBareTarget is issue #42's limit on the agent loop's time over a bare
// langchaingo call.
const loopBareTarget = 1.05

// minRatioPairs is how many loop/bare pairs the ratio is the median of, at least.
const minRatioPairs = 600

// BenchmarkLoopVsBareLangchaingo compares one exchange (a user message, a
// 200-word streamed answer) through the assistant Runtime with the same call
// made with bare langchaingo, both against the same modelserver.
func BenchmarkLoopVsBareLangchaingo(b *testing.B) {
	srv := benchServer(b)
	lb := newLoopBench(srv)
	b.Cleanup(lb.rt.Close)
	bb := newBareBench(b, srv, lb.rt)
	// Warm up connections and check both paths once.
	lb.keep = true
	lb.exchange(b)
	lb.keep = false
	bb.exchange(b)
	msgs, _ := lb.rt.opt.History.Messages(context.Background(), "bench-1")
	require.Len(b, msgs, 2, "loop saved %+v", msgs)
	require.Equal(b, benchAnswer, msgs[1].Content, "loop saved %+v", msgs)

	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			lb.exchange(b)
		}
	})
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			bb.exchange(b)
		}
	})
	b.Run("ratio", func(b *testing.B) {
		var loop, bare, loopCPU, bareCPU time.Duration
		var pairs []float64 // each iteration's loop time over its bare time
		i := 0
		pair := func() {
			// Alternate the order so neither side always runs on a warm cache.
			first, second := lb.exchange, bb.exchange
			if i%2 == 1 {
				first, second = bb.exchange, lb.exchange
			}
			// The process's CPU time too (the modelserver's included, the
			// same on both sides): other work on the machine sways it less.
			c0, t0 := cpuclock.Process(), time.Now()
			first(b)
			c1, t1 := cpuclock.Process(), time.Now()
			second(b)
			c2, t2 := cpuclock.Process(), time.Now()
			firstT, secondT := t1.Sub(t0), t2.Sub(t1)
			firstC, secondC := c1-c0, c2-c1
			if i%2 == 1 {
				firstT, secondT = secondT, firstT
				firstC, secondC = secondC, firstC
			}
			loop += firstT
			bare += secondT
			loopCPU += firstC
			bareCPU += secondC
			pairs = append(pairs, float64(firstT)/float64(secondT))
			i++
		}
		for b.Loop() {
			pair()
		}
		// At least minRatioPairs pairs, whatever -benchtime allows: at the
		// default 1s it gives ~150, whose median still moved by ±5 % from
		// one run to the next on a shared two-core machine (0.95-1.09×),
		// as much as the target leaves. The pairs after the timed loop are
		// timed here, as the others.
		for len(pairs) < minRatioPairs {
			pair()
		}
		b.ReportMetric(float64(loop.Nanoseconds())/float64(i), "loop-ns/op")
		b.ReportMetric(float64(bare.Nanoseconds())/float64(i), "bare-ns/op")
		b.ReportMetric(float64(loopCPU.Nanoseconds())/float64(i), "loop-cpu-ns/op")
		b.ReportMetric(float64(bareCPU.Nanoseconds())/float64(i), "bare-cpu-ns/op")
		if bareCPU > 0 {
			b.ReportMetric(float64(loopCPU)/float64(bareCPU), "cpu-ratio")
		}
		// The ratio is the median of the pairs' ratios: on a machine shared
		// with other work, a burst of it lands on one side of a pair and
		// would sway a ratio of sums (kept as sum-ratio) by several percent.
		slices.Sort(pairs)
		ratio := pairs[len(pairs)/2]
		b.ReportMetric(float64(loop)/float64(bare), "sum-ratio")
		b.ReportMetric(ratio, "ratio")
		verdict := "met"
		if ratio > loopBareTarget {
			verdict = "MISSED"
		}
		b.Logf("target: agent loop / bare langchaingo %.3f× <= %.2f× %s (median of %d pairs; ratio of sums %.3f×)", ratio, loopBareTarget, verdict, len(pairs), float64(loop)/float64(bare))
	})
}

// BenchmarkToolCallToQuestionAsk measures the way from the modelserver
// writing the first ask_user_question tool-call chunk to the question:ask
// event reaching the emitter: the rest of the stream, langchaingo's merge,
// our llm layer, the assistant loop, ParseInput and the QuestionManager.
func BenchmarkToolCallToQuestionAsk(b *testing.B) {
	// Buffered, and sent to without blocking, so a failing round cannot
	// block the server or the run.
	type ask struct {
		at   time.Time
		card *questions.Card
	}
	sent := make(chan time.Time, 4)
	asked := make(chan ask, 4)
	done := newIdleWaiter()
	args := askArgs(colourQuestion, toppingsQuestion)
	srv := modelserver.New(func(req modelserver.ChatRequest) modelserver.Turn {
		return modelserver.Turn{Text: "Two quick questions.", OnToolCallSent: func() {
			select {
			case sent <- time.Now():
			default:
			}
		},
			ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: args}}}
	})
	b.Cleanup(srv.Close)
	em := events.EmitterFunc(func(name string, payload any) {
		if name == events.QuestionAsk {
			select {
			case asked <- ask{time.Now(), payload.(*questions.Card)}:
			default:
			}
			return
		}
		done.Emit(name, payload)
	})
	qm := questions.NewManager(questions.Config{Logger: quiet}, nil, em)
	rt := New(Options{
		History: newMemoryHistory(),
		Events:  em,
		Asker:   qm,
		Model: func(string) (llm.Model, error) {
			return llm.NewOpenAI(llm.Config{BaseURL: srv.URL(), Model: "bench-model"})
		},
		Logger: quiet,
	})
	b.Cleanup(func() { rt.Close(); qm.Close() })

	var lat []time.Duration
	round := func(i int) {
		conv := fmt.Sprintf("ask-%d", i)
		_, err := rt.Start(StartRequest{ConversationID: conv, UserText: "help"})
		require.NoError(b, err)
		t0 := recv(b, sent, done, "tool-call chunk")
		a := recv(b, asked, done, "question:ask")
		card := a.card
		require.Equal(b, conv, card.ConversationID, "card %+v", card)
		require.Equal(b, "call_1", card.ToolCallID, "card %+v", card)
		require.Len(b, card.Questions, 2, "card %+v", card)
		lat = append(lat, a.at.Sub(t0))
		// Cancel the card: the run stops without another model call.
		_, err = qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionCancel})
		require.NoError(b, err)
		select {
		case s := <-done:
			require.Equal(b, chat.StateIdle, s.State, "run ended as %+v", s)
			require.Equal(b, conv, s.ConversationID, "run ended as %+v", s)
		case <-time.After(benchWait):
			require.FailNow(b, "the run did not end after the card was cancelled")
		}
	}
	round(-1) // warm-up
	lat = lat[:0]
	n := 0
	for b.Loop() {
		round(n)
		n++
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(pct(0.50), "p50_µs")
	b.ReportMetric(pct(0.99), "p99_µs")
}

// recv waits for the next value of ch, failing if the run ends first.
func recv[T any](b *testing.B, ch <-chan T, done idleWaiter, what string) T {
	b.Helper()
	select {
	case v := <-ch:
		return v
	case s := <-done:
		require.FailNow(b, "the run ended before "+what, "%+v", s)
	case <-time.After(benchWait):
		require.FailNow(b, fmt.Sprintf("no %s within %v", what, benchWait))
	}
	panic("unreachable")
}

// instantModel streams benchAnswer word by word without a server: what the
// loop does around a model call, alone.
type instantModel struct{ pieces []string }

func newInstantModel() instantModel {
	words := strings.Split(benchAnswer, " ")
	for i := 1; i < len(words); i++ {
		words[i] = " " + words[i]
	}
	return instantModel{pieces: words}
}

func (m instantModel) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	for _, p := range m.pieces {
		req.OnDelta(p)
	}
	return llm.Response{Text: benchAnswer}, nil
}

// BenchmarkLoopOwnWork is the exchange of BenchmarkLoopVsBareLangchaingo
// with a model that answers at once (no HTTP, no langchaingo): the agent
// loop's own work per exchange (issue #42), start to idle, and its
// allocations. Against the 2-3 ms of CPU an exchange costs over loopback,
// it tells how much of the loop/bare ratio the loop's code itself can be.
func BenchmarkLoopOwnWork(b *testing.B) {
	lb := &loopBench{done: newIdleWaiter(), history: newMemoryHistory()}
	model := newInstantModel()
	lb.rt = New(Options{History: lb.history, Events: lb.done, Tools: BuiltinTools(nil), Logger: quiet,
		Model: func(string) (llm.Model, error) { return model, nil }})
	b.Cleanup(lb.rt.Close)
	lb.keep = true
	lb.exchange(b)
	msgs, err := lb.history.Messages(context.Background(), "bench-1")
	require.NoError(b, err)
	require.Len(b, msgs, 2, "loop saved %+v", msgs)
	require.Equal(b, benchAnswer, msgs[1].Content, "loop saved %+v", msgs)
	lb.keep = false
	b.ReportAllocs()
	for b.Loop() {
		lb.exchange(b)
	}
}
