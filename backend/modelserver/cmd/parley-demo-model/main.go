// Command parley-demo-model serves the scripted demo assistant
// (modelserver.Demo) on a local port: an OpenAI-compatible endpoint plus
// Ollama's management API (or, with -openai-only, none, as llama.cpp's
// server or LM Studio), for trying Parley or running end-to-end tests
// without a real model.
//
//	go run ./backend/modelserver/cmd/parley-demo-model -addr 127.0.0.1:11435
//	parley serve --base-url http://127.0.0.1:11435/v1 --model demo
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/parley-app/parley/backend/modelserver"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:11435", "address to listen on (port 0 picks a free one)")
	model := flag.String("model", "demo", "model name the server lists")
	openAIOnly := flag.Bool("openai-only", false, "no Ollama API: models only at GET /v1/models, as llama.cpp's server or LM Studio")
	textTools := flag.String("text-tools", "", `a model without native tool calling: "tag" writes calls as <tool_call>{...}</tool_call>, "fence" as a json code block (streamed in small pieces; tools offered natively are refused with a 400)`)
	noToolRole := flag.Bool("no-tool-role", false, "refuse requests with a tool message (as a chat template without that role)")
	extra := flag.String("more-models", "", "comma-separated models listed besides -model")
	vision := flag.String("vision", "", "comma-separated models whose details list the \"vision\" capability")
	echo := flag.Bool("echo", false, "answer with what the model received (model, last user message, image count) instead of the demo script")
	echoHistory := flag.Bool("echo-history", false, `answer a message starting with "echo" with the history the request carried (for tests of branches)`)
	knowledge := flag.Bool("knowledge", false, "search the user's documents when search_knowledge is offered, cite [n], and ask which file when they disagree")
	embedModels := flag.String("embedding-models", "", "comma-separated embedding models listed besides the others (served on /api/embed and /v1/embeddings)")
	received := flag.Bool("received", false, "serve GET /received: the chat requests received (the last 64: model, messages and tools' names), for tests that check what reached the model")
	flag.Parse()
	script := modelserver.Demo()
	if *echo {
		script = modelserver.Echo()
	}
	if *echoHistory {
		script = modelserver.EchoHistory(script)
	}
	if *knowledge {
		script = modelserver.Knowledge(script)
	}
	models := []string{*model}
	if *extra != "" {
		models = append(models, strings.Split(*extra, ",")...)
	}
	opts := []modelserver.Option{modelserver.WithModels(models)}
	if *vision != "" {
		opts = append(opts, modelserver.WithVision(strings.Split(*vision, ",")...))
	}
	switch *textTools {
	case "":
	case modelserver.FormTag, modelserver.FormFence:
		script = modelserver.TextTools(script, *textTools, 5)
		opts = []modelserver.Option{modelserver.WithModels(models, *model), modelserver.WithoutTools()}
	default:
		fmt.Fprintf(os.Stderr, "-text-tools must be tag or fence, not %q\n", *textTools)
		os.Exit(2)
	}
	if *openAIOnly {
		opts = append(opts, modelserver.WithoutOllamaAPI())
	}
	if *embedModels != "" {
		opts = append(opts, modelserver.WithEmbeddingModels(strings.Split(*embedModels, ",")...))
	}
	if *noToolRole {
		opts = append(opts, modelserver.WithoutToolRole())
	}
	var log *receivedLog
	if *received {
		log = &receivedLog{}
		script = log.record(script)
	}
	if err := run(*addr, *model, script, opts, log); err != nil {
		slog.Error("demo model server", "err", err)
		os.Exit(1)
	}
}

func run(addr, model string, script modelserver.Script, opts []modelserver.Option, log *receivedLog) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	handler := modelserver.NewHandler(script, opts...)
	if log != nil {
		handler = log.serve(handler)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
	}
	// The URL line is what scripts wait for.
	fmt.Printf("demo model server: base URL http://%s/v1, model %s\n", ln.Addr(), model)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shut down: %w", err)
	}
	return nil
}

// receivedLog keeps the last chat requests the script was asked to answer
// (-received), served as JSON at GET /received.
type receivedLog struct {
	mu   sync.Mutex
	reqs []receivedRequest
}

type receivedRequest struct {
	Model    string                `json:"model"`
	Messages []modelserver.Message `json:"messages"`
	Tools    []string              `json:"tools"`
}

const keepReceived = 64

func (l *receivedLog) record(script modelserver.Script) modelserver.Script {
	return func(req modelserver.ChatRequest) modelserver.Turn {
		r := receivedRequest{Model: req.Model, Messages: req.Messages, Tools: []string{}}
		for _, t := range req.Tools {
			r.Tools = append(r.Tools, t.Function.Name)
		}
		l.mu.Lock()
		l.reqs = append(l.reqs, r)
		if len(l.reqs) > keepReceived {
			l.reqs = l.reqs[len(l.reqs)-keepReceived:]
		}
		l.mu.Unlock()
		return script(req)
	}
}

func (l *receivedLog) serve(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/received" {
			next.ServeHTTP(w, r)
			return
		}
		l.mu.Lock()
		body, err := json.Marshal(append([]receivedRequest{}, l.reqs...))
		l.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}
