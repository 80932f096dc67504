package modelserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

const created = 1_700_000_000

func (h *handler) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]string{"message": err.Error()}})
		return
	}
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]string{"message": "invalid JSON: " + err.Error()}})
		return
	}
	h.mu.Lock()
	h.requests = append(h.requests, req)
	h.raw = append(h.raw, body)
	h.count++
	if h.keep > 0 && len(h.requests) > h.keep {
		h.requests = append(h.requests[:0:0], h.requests[len(h.requests)-h.keep:]...)
		h.raw = append(h.raw[:0:0], h.raw[len(h.raw)-h.keep:]...)
	}
	close(h.arrived)
	h.arrived = make(chan struct{})
	h.mu.Unlock()

	if h.refuse(w, req) || h.refuseThinking(w, req) {
		return
	}
	turn := h.script(req)
	if turn.Hold != nil {
		select {
		case <-turn.Hold:
		case <-r.Context().Done():
			return
		}
	}
	if turn.FirstTokenDelay > 0 {
		select {
		case <-time.After(turn.FirstTokenDelay):
		case <-r.Context().Done():
			return
		}
	}
	switch turn.Fault {
	case HTTPError:
		status := turn.Status
		if status == 0 {
			status = 500
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, turn.Body)
		return
	case NoToolSupport:
		if len(req.Tools) > 0 {
			writeJSON(w, 400, map[string]any{"error": map[string]string{
				"message": fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", req.Model), "type": "api_error"}})
			return
		}
	}
	if !req.Stream {
		h.complete(w, req, turn)
		return
	}
	h.stream(w, r, req, turn)
}

// complete answers a non-streaming request.
func (h *handler) complete(w http.ResponseWriter, req ChatRequest, turn Turn) {
	msg := map[string]any{"role": "assistant", "content": thinkingContent(turn)}
	reasoningMessage(msg, turn)
	finish := "stop"
	if len(turn.ToolCalls) > 0 {
		var calls []map[string]any
		for i, tc := range turn.ToolCalls {
			calls = append(calls, map[string]any{"id": callID(tc, i), "type": "function",
				"function": map[string]string{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	writeJSON(w, 200, map[string]any{
		"id": "chatcmpl-scripted", "object": "chat.completion", "created": created, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
	})
}

func callID(tc ToolCall, i int) string {
	if tc.ID != "" {
		return tc.ID
	}
	return fmt.Sprintf("call_%d", i+1)
}

// stream answers as llama.cpp's server streams: a role chunk, text in small
// deltas, each tool call's id/type/name on its first delta and its
// arguments in pieces, the finish reason, a usage chunk and [DONE].
func (h *handler) stream(w http.ResponseWriter, r *http.Request, req ChatRequest, turn Turn) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if !send(chunk(map[string]any{"role": "assistant", "content": ""}, nil)) {
		return
	}
	thinking := reasoningDeltas(turn)
	var callThinking map[string]any // the last thinking piece, sent with the first call
	if turn.ReasoningWithCall && len(turn.ToolCalls) > 0 && len(thinking) > 0 {
		callThinking, thinking = thinking[len(thinking)-1], thinking[:len(thinking)-1]
	}
	for i, d := range thinking {
		if i > 0 && turn.ReasoningDelay > 0 {
			select {
			case <-time.After(turn.ReasoningDelay):
			case <-r.Context().Done():
				return
			}
		}
		if !send(chunk(d, nil)) {
			return
		}
	}
	content := thinkingContent(turn)
	pieces := splitText(content)
	if turn.ChunkSize > 0 {
		pieces = splitBytes(content, turn.ChunkSize)
	}
	midStream := turn.Fault == DropMidStream || turn.Fault == ErrorFrame || turn.Fault == StallMidStream
	if midStream {
		pieces = pieces[:(len(pieces)+1)/2]
	}
	for _, p := range pieces {
		if !send(chunk(map[string]any{"content": p}, nil)) {
			return
		}
	}
	switch turn.Fault {
	case DropMidStream:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
			}
		}
		return
	case ErrorFrame:
		// As llama.cpp and vLLM report a failure after the stream started.
		msg := turn.Body
		if msg == "" {
			msg = "the model crashed"
		}
		send(map[string]any{"error": map[string]any{"message": msg, "type": "server_error"}})
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
		return
	case StallMidStream:
		<-r.Context().Done() // Server.Close cuts the connection, so this ends
		return
	}
	for i, tc := range turn.ToolCalls {
		first := map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": callID(tc, i), "type": "function",
			"function": map[string]string{"name": tc.Name, "arguments": ""}}}}
		if i == 0 && callThinking != nil {
			for k, v := range callThinking {
				first[k] = v
			}
		}
		if i == 0 && turn.OnToolCallSent != nil {
			turn.OnToolCallSent()
		}
		if !send(chunk(first, nil)) {
			return
		}
		for _, part := range splitN(tc.Arguments, 3) {
			if part == "" {
				continue // like llama.cpp: no empty argument deltas
			}
			if !send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]string{"arguments": part}}}}, nil)) {
				return
			}
		}
	}
	finish := "stop"
	if len(turn.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	send(chunk(map[string]any{}, finish))
	if !turn.NoUsage {
		send(map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{}, "usage": map[string]int{"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}})
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// splitText cuts text into word-sized deltas, keeping the spaces.
func splitText(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s[1:], ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// splitN cuts s into n roughly equal pieces (fewer when s is short).
func splitN(s string, n int) []string {
	if len(s) < n {
		return []string{s}
	}
	size := (len(s) + n - 1) / n
	var out []string
	for len(s) > 0 {
		k := min(size, len(s))
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// splitBytes cuts s into pieces of n bytes (the last may be shorter),
// keeping UTF-8 sequences whole.
func splitBytes(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}
