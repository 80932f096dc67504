// Package trace records when each question card passes each hop of its path
// from the model's first tool-call chunk to the card painted in the page (and
// back: Submit to the next model request), for the latency bench (issue 17).
//
// It is off unless PARLEY_TRACE is set; off, every hook costs one atomic
// load. Timestamps are epoch milliseconds read from Go's monotonic clock
// (anchored once to the wall clock when the process starts), so that they
// compare with the page's performance.timeOrigin + performance.now(). A
// card's record is found by the tool call's id before the card exists and by
// the card's id after Link; at most MaxRecords are kept, the oldest dropped.
package trace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Hops of a card's path, in order.
const (
	HopChunk        = "chunk"         // the first tool-call chunk of the call reached the client
	HopCallComplete = "call_complete" // the server finished the call (a later call or finish_reason)
	HopStreamEnd    = "stream_end"    // the model call returned (stream finished)
	HopParsed       = "parsed"        // the agent has the call
	HopValidated    = "validated"     // the card's questions passed validation
	HopStored       = "stored"        // the pending card is in SQLite
	HopEmitted      = "emitted"       // question:ask handed to the emitters
	HopSSEWritten   = "sse_written"   // written and flushed to the first SSE client
	HopWailsSent    = "wails_sent"    // handed to the Wails runtime (desktop window)
	HopPageReceived = "page_received" // the page's event handler got it
	HopPageStore    = "page_store"    // the Pinia store holds it
	HopPageDOM      = "page_dom"      // the card's element is in the DOM
	// HopPageCardFrame: the frame after that began (its animation-frame
	// callbacks ran). Between it and page_paint: the frame's style, layout
	// and paint, then the tasks queued before the paint mark (issue #42:
	// the window paints in the page's own thread).
	HopPageCardFrame = "page_card_frame"
	HopPagePaint     = "page_paint" // the frame after that was painted
	// HopPageSend is not on the path: when the page sent the user's message
	// whose run asked the card (its Enter or click), reported with the card's
	// marks, so that a bench knows how long after the send the card came.
	HopPageSend = "page_send"
	// The page's own steps after that send, reported with the card's marks
	// too (issue #42: where the card waited): the send's task done (Vue's
	// patch and the scroll to the user's message), and the first frame
	// after it begun and done (WebKitGTK's window paints a frame in the
	// page's own thread: nothing else runs meanwhile, the card's event neither).
	HopPageEnterDone  = "page_enter_done"
	HopPageFrameStart = "page_frame_start"
	HopPageFrameEnd   = "page_frame_end"
)

// Hops of Submit -> the next model request, keyed by the card's id.
const (
	HopPageSubmit  = "page_submit"     // the Submit keydown or click in the page
	HopAnswered    = "answer_received" // the backend got the answer
	HopResumed     = "resumed"         // the run's wait for the card returned
	HopNextRequest = "next_request"    // the next model request is being sent
)

// CardHops and SubmitHops list the hops in path order (for tables).
var (
	CardHops   = []string{HopChunk, HopCallComplete, HopStreamEnd, HopParsed, HopValidated, HopStored, HopEmitted, HopSSEWritten, HopWailsSent, HopPageReceived, HopPageStore, HopPageDOM, HopPageCardFrame, HopPagePaint}
	SubmitHops = []string{HopPageSubmit, HopAnswered, HopResumed, HopNextRequest}
)

// pageHops are the hops the page may report.
var pageHops = map[string]bool{HopPageSend: true, HopPageEnterDone: true, HopPageFrameStart: true, HopPageFrameEnd: true, HopPageReceived: true, HopPageStore: true, HopPageDOM: true, HopPageCardFrame: true, HopPagePaint: true, HopPageSubmit: true}

// MaxRecords bounds the memory tracing uses.
const MaxRecords = 2048

// EnvVar turns tracing on ("1" or "true"); FileEnvVar names a file the
// records are written to (JSON, rewritten shortly after each mark).
const (
	EnvVar     = "PARLEY_TRACE"
	FileEnvVar = "PARLEY_TRACE_FILE"
)

var (
	enabled atomic.Bool
	base    = time.Now()
	baseMs  = float64(base.UnixNano()) / 1e6
	state   = newTracer()
)

// Enabled reports whether tracing is on; hooks check it before any work.
func Enabled() bool { return enabled.Load() }

// SetEnabled turns tracing on or off (the records are kept).
func SetEnabled(on bool) { enabled.Store(on) }

// FromEnv turns tracing on when PARLEY_TRACE says so and sets the file of
// PARLEY_TRACE_FILE; it reports whether tracing is on.
func FromEnv() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(EnvVar)))
	if v == "1" || v == "true" || v == "yes" {
		SetEnabled(true)
		SetFile(os.Getenv(FileEnvVar))
	}
	return Enabled()
}

// Now is the current time in epoch milliseconds on the monotonic clock.
func Now() float64 { return baseMs + float64(time.Since(base).Nanoseconds())/1e6 }

// CardRecord is one card's path: the keys it is known by (tool call id,
// card id) and the epoch-ms time of each hop passed. (Not "Record": Wails
// names the TypeScript class after it, which would hide TypeScript's Record
// in the window's models.ts.)
type CardRecord struct {
	Keys  []string           `json:"keys"`
	Marks map[string]float64 `json:"marks"`
}

type record struct {
	seq   uint64
	keys  []string
	marks map[string]float64
}

type tracer struct {
	mu      sync.Mutex
	seq     uint64
	byKey   map[string]*record
	order   []*record // oldest first
	file    string
	pending bool // a file write is scheduled
}

func newTracer() *tracer { return &tracer{byKey: map[string]*record{}} }

// Begin starts a new record for key (a model may reuse a tool call id in a
// later turn: the new call gets its own record) and marks hop on it.
func Begin(key, hop string) {
	if !Enabled() || key == "" {
		return
	}
	at := Now()
	state.mu.Lock()
	r := state.newLocked(key)
	r.marks[hop] = at
	state.mu.Unlock()
	state.changed()
}

// Mark records hop for key now, unless it was already recorded (the first
// time wins: the first of several SSE clients, say).
func Mark(key, hop string) {
	if !Enabled() || key == "" {
		return
	}
	markAt(key, hop, Now())
}

func markAt(key, hop string, at float64) {
	state.mu.Lock()
	r := state.byKey[key]
	if r == nil {
		r = state.newLocked(key)
	}
	if _, ok := r.marks[hop]; !ok {
		r.marks[hop] = at
	}
	state.mu.Unlock()
	state.changed()
}

// Link makes alias another key of from's record (the card's id after the
// tool call's id), creating the record when from has none.
func Link(from, alias string) {
	if !Enabled() || from == "" || alias == "" || from == alias {
		return
	}
	state.mu.Lock()
	defer state.mu.Unlock()
	r := state.byKey[from]
	if r == nil {
		r = state.newLocked(from)
	}
	if old := state.byKey[alias]; old == r {
		return
	}
	state.byKey[alias] = r
	r.keys = append(r.keys, alias)
}

func (t *tracer) newLocked(key string) *record {
	t.seq++
	r := &record{seq: t.seq, keys: []string{key}, marks: map[string]float64{}}
	if old := t.byKey[key]; old != nil {
		// The key now means the new record; the old one keeps its other keys.
		old.keys = without(old.keys, key)
	}
	t.byKey[key] = r
	t.order = append(t.order, r)
	if len(t.order) > MaxRecords {
		drop := t.order[0]
		t.order[0] = nil
		t.order = t.order[1:]
		for _, k := range drop.keys {
			if t.byKey[k] == drop {
				delete(t.byKey, k)
			}
		}
	}
	return r
}

func without(keys []string, key string) []string {
	out := keys[:0]
	for _, k := range keys {
		if k != key {
			out = append(out, k)
		}
	}
	return out
}

// Snapshot returns a copy of the records, oldest first.
func Snapshot() []CardRecord {
	state.mu.Lock()
	defer state.mu.Unlock()
	return state.snapshotLocked()
}

func (t *tracer) snapshotLocked() []CardRecord {
	out := make([]CardRecord, 0, len(t.order))
	for _, r := range t.order {
		marks := make(map[string]float64, len(r.marks))
		for k, v := range r.marks {
			marks[k] = v
		}
		out = append(out, CardRecord{Keys: append([]string(nil), r.keys...), Marks: marks})
	}
	return out
}

// Reset drops every record (tests, and the bench between runs).
func Reset() {
	state.mu.Lock()
	defer state.mu.Unlock()
	state.byKey = map[string]*record{}
	state.order = nil
}

// PageMark is one hop the page reports: a card id (data-question-id), the
// hop (one of pageHops: page_send and the page's steps after it, page_received ... page_paint, page_submit) and its
// time in epoch ms (performance.timeOrigin + performance.now()).
type PageMark struct {
	Key string  `json:"key"`
	Hop string  `json:"hop"`
	At  float64 `json:"at"`
}

// MaxPageMarks bounds one report of the page.
const MaxPageMarks = 256

// ErrDisabled is returned by Report while tracing is off.
var ErrDisabled = errors.New("tracing is off (start Parley with PARLEY_TRACE=1)")

// Report records the page's marks. Unknown hops, empty or long keys and
// times that are not plausible epoch ms are refused, and then none is kept.
func Report(marks []PageMark) error {
	if !Enabled() {
		return ErrDisabled
	}
	if len(marks) > MaxPageMarks {
		return fmt.Errorf("trace report: %d marks, at most %d", len(marks), MaxPageMarks)
	}
	for i, m := range marks {
		switch {
		case !pageHops[m.Hop]:
			return fmt.Errorf("trace report: mark %d: unknown hop %q", i, m.Hop)
		case m.Key == "" || len(m.Key) > 200:
			return fmt.Errorf("trace report: mark %d: the key must have 1 to 200 characters", i)
		case m.At < 1e12 || m.At > 1e14:
			return fmt.Errorf("trace report: mark %d: %v is not a time in epoch milliseconds", i, m.At)
		}
	}
	for _, m := range marks {
		markAt(m.Key, m.Hop, m.At)
	}
	return nil
}

// WithKey returns a context whose model requests mark HopNextRequest for key
// (the card just answered).
func WithKey(ctx context.Context, key string) context.Context {
	if !Enabled() || key == "" {
		return ctx
	}
	return context.WithValue(ctx, keyCtx{}, key)
}

// KeyFrom returns the key of WithKey, or "".
func KeyFrom(ctx context.Context) string {
	if !Enabled() {
		return ""
	}
	k, _ := ctx.Value(keyCtx{}).(string)
	return k
}

type keyCtx struct{}

// SetFile makes the records be written to path (JSON, a list of Record)
// shortly after each change; "" stops it.
func SetFile(path string) {
	state.mu.Lock()
	state.file = path
	state.mu.Unlock()
}

// fileDelay batches the file writes of a burst of marks.
const fileDelay = 50 * time.Millisecond

func (t *tracer) changed() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.file == "" || t.pending {
		return
	}
	t.pending = true
	time.AfterFunc(fileDelay, func() {
		if err := Flush(); err != nil {
			slog.Warn("write the trace file", "err", err)
		}
	})
}

// Flush writes the records to the trace file now (nothing without one).
func Flush() error {
	state.mu.Lock()
	path := state.file
	state.pending = false
	recs := state.snapshotLocked()
	state.mu.Unlock()
	if path == "" {
		return nil
	}
	data, err := json.Marshal(recs)
	if err != nil {
		return fmt.Errorf("marshal trace: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".trace-*")
	if err != nil {
		return fmt.Errorf("write trace file %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("write trace file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write trace file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write trace file %s: %w", path, err)
	}
	return nil
}
