// Command gobench is the Go half of the engine's bench (issue #40,
// bench/engine/bench.mjs drives it):
//
//	gobench gguf -out PATH -size BYTES
//	    writes a generated llama GGUF of about that size (ggufgen.Spec.Size:
//	    Q8_0 blocks, a chat template, a byte-level vocabulary; greedy
//	    decoding writes "la la la, " forever) and prints its shape as JSON.
//	gobench runner -lib-dir DIR -model PATH -threads T -context C
//	    opens the model on backend/engine/runner directly (no HTTP), then
//	    for each line {"prompt": raw prompt, "n": tokens} on its standard
//	    input runs one greedy generation and answers a line of what
//	    bench.mjs compares: the prompt's tokens (and how many were reused
//	    from the request before), request -> first token, first -> last.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/engine/runner"
)

// Answer is what the generated model writes, forever.
const Answer = "la la la, "

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gobench gguf|runner [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gguf":
		err = writeGGUF(os.Args[2:])
	case "runner":
		err = runRunner(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gobench:", err)
		os.Exit(1)
	}
}

func writeGGUF(args []string) error {
	fs := flag.NewFlagSet("gguf", flag.ContinueOnError)
	out := fs.String("out", "", "the GGUF to write")
	size := fs.Int64("size", 500<<20, "approximate size in bytes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("gguf: -out is needed")
	}
	start := time.Now()
	if err := ggufgen.Write(*out, ggufgen.Spec{Name: "parley-bench", Answer: Answer, Loop: true, Size: *size}); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	st, err := os.Stat(*out)
	if err != nil {
		return err
	}
	layers, embd, ff := ggufgen.SizedShape(*size)
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"path": *out, "bytes": st.Size(), "layers": layers, "embd": embd,
		"ff": ff, "seconds": time.Since(start).Seconds()})
}

// Timing is one generation's figures (bench.mjs reads the same from the
// sidecar and from node-llama-cpp).
type Timing struct {
	PromptTokens int     `json:"prompt_tokens"`
	FirstMS      float64 `json:"first_ms"` // request -> first token
	Tokens       int     `json:"tokens"`   // generated
	GenMS        float64 `json:"gen_ms"`   // first token -> last
	CachedTokens int     `json:"cached_tokens"`
}

func runRunner(args []string) error {
	fs := flag.NewFlagSet("runner", flag.ContinueOnError)
	libDir := fs.String("lib-dir", "", "the llama.cpp libraries")
	model := fs.String("model", "", "the GGUF")
	threads := fs.Int("threads", 0, "threads (0: the engine's default)")
	nctx := fs.Int("context", 4096, "context size")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := runner.Load(*libDir); err != nil {
		return err
	}
	m, err := runner.Open(*model, runner.Options{Context: *nctx, Threads: *threads})
	if err != nil {
		return err
	}
	defer m.Close()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<24)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			Prompt string `json:"prompt"`
			N      int    `json:"n"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return fmt.Errorf("read a request: %w", err)
		}
		t, err := generate(m, req.Prompt, req.N)
		if err != nil {
			return err
		}
		if err := out.Encode(t); err != nil {
			return err
		}
	}
	return in.Err()
}

// generate runs one greedy generation of n tokens, as the engine does for
// a request (reusing the prefix the prompt shares with the last one).
func generate(m *runner.Model, prompt string, n int) (Timing, error) {
	var first, last time.Time
	temp := 0.0
	start := time.Now()
	res, err := m.Generate(context.Background(), runner.Request{Prompt: prompt, MaxTokens: n,
		Sampling: runner.Sampling{Temperature: &temp}}, func(string) error {
		last = time.Now()
		if first.IsZero() {
			first = last
		}
		return nil
	})
	if err != nil {
		return Timing{}, err
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return Timing{PromptTokens: res.PromptTokens, CachedTokens: res.CachedTokens, FirstMS: ms(first.Sub(start)),
		Tokens: res.CompletionTokens, GenMS: ms(last.Sub(first))}, nil
}
