package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
)

// MaxResultBytes bounds the text of a tool result the model receives.
const MaxResultBytes = 32 << 10

// Elicitation is an elicitation/create request a server sent during a call.
type Elicitation struct {
	Server  string
	Tool    string // the MCP tool being called
	Message string
	Mode    string // form or url
	// Schema is the requested schema as the server sent it (form mode).
	Schema        json.RawMessage
	URL           string
	ElicitationID string
}

// ElicitAnswer is what the server receives: accept (with content),
// decline or cancel.
type ElicitAnswer struct {
	Action  string
	Content json.RawMessage
}

// Call is one tool call.
type Call struct {
	Server    string
	Tool      string // the MCP tool's own name
	Arguments json.RawMessage
	// Elicit asks the user for what a server requests during the call (an
	// elicitation card of the calling conversation) and waits; nil declines.
	Elicit func(ctx context.Context, e Elicitation) (ElicitAnswer, error)
}

// Result is what a call gives the model: its text (cut at MaxResultBytes)
// and the images it returned, to show in the chat. IsError marks a tool
// error, a server that failed or a timeout: the text says which.
type Result struct {
	Text        string
	Attachments []chat.Attachment
	IsError     bool
}

func errorResult(format string, args ...any) Result {
	return Result{Text: "error: " + fmt.Sprintf(format, args...), IsError: true}
}

// activeCall is a call in flight; elicitations during it find it here.
type activeCall struct {
	id      uint64
	call    *Call
	ctx     context.Context
	timeout time.Duration
	mu      sync.Mutex
	timer   *time.Timer
	paused  int
}

// pause stops the call's timeout while the user answers an elicitation.
func (a *activeCall) pause() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.paused++
	a.timer.Stop()
}

// resume restarts the timeout (in full) after the last elicitation ended.
func (a *activeCall) resume() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.paused--
	if a.paused == 0 {
		a.timer.Reset(a.timeout)
	}
}

type callKey struct{}

var errCallTimeout = errors.New("call timed out")

// Call runs a tool and returns its result. Failures are results too, with
// text the model can act on. When ctx ends (the user stopped the run) the
// call is cancelled through the SDK (notifications/cancelled).
func (h *Host) Call(ctx context.Context, c Call) Result {
	h.mu.Lock()
	s, ok := h.servers[c.Server]
	var timeout time.Duration
	if ok {
		timeout = s.cfg.callTimeout(h.opt.CallTimeout)
	}
	stopped := h.stopped
	h.mu.Unlock()
	switch {
	case stopped:
		return errorResult("Parley is closing; the tool %q did not run", c.Tool)
	case !ok:
		return errorResult("the MCP server %q is not configured; the tool %q did not run", c.Server, c.Tool)
	}
	session, err := h.waitConnected(ctx, s, timeout)
	if err != nil {
		return errorResult("the tool %q did not run: %v", c.Tool, err)
	}
	args := c.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}

	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ac := &activeCall{call: &c, ctx: callCtx, timeout: timeout}
	ac.timer = time.AfterFunc(timeout, func() { cancel(errCallTimeout) })
	defer ac.timer.Stop()
	h.mu.Lock()
	h.callSeq++
	ac.id = h.callSeq
	s.calls[ac.id] = ac
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(s.calls, ac.id)
		h.mu.Unlock()
	}()

	res, err := session.CallTool(context.WithValue(callCtx, callKey{}, ac), &sdk.CallToolParams{Name: c.Tool, Arguments: args})
	switch {
	case err == nil:
		return convertResult(res, c.Tool)
	case ctx.Err() != nil:
		return errorResult("the call of %q was cancelled", c.Tool)
	case errors.Is(context.Cause(callCtx), errCallTimeout):
		h.log.Warn("MCP tool call timed out", "server", c.Server, "tool", c.Tool, "timeout", timeout)
		return errorResult("the MCP tool %q of server %q did not answer within %s and was cancelled; it may be stuck, try again later or another way",
			c.Tool, c.Server, timeout)
	case errors.As(err, new(*jsonrpc.Error)):
		h.log.Warn("MCP tool call refused", "server", c.Server, "tool", c.Tool, "err", h.describeErr(s, err))
		return errorResult("the MCP server %q refused the call of %q: %s", c.Server, c.Tool, h.describeErr(s, err))
	default:
		// Anything but an answer of the server: its connection failed.
		h.log.Warn("MCP server failed during a call", "server", c.Server, "tool", c.Tool, "err", h.describeErr(s, err))
		return errorResult("the MCP server %q stopped while running %q (it is being restarted); the tool may not have finished: %s",
			c.Server, c.Tool, h.describeErr(s, err))
	}
}

func (h *Host) describeErr(s *server, err error) string {
	h.mu.Lock()
	secrets := s.cfg.secrets()
	h.mu.Unlock()
	return redact(err.Error(), secrets)
}

// waitConnected returns the server's session, waiting while it connects
// (after Parley started, or a restart) for up to timeout.
func (h *Host) waitConnected(ctx context.Context, s *server, timeout time.Duration) (*sdk.ClientSession, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		cur := h.servers[s.name]
		if cur != nil {
			s = cur // replaced by a PUT meanwhile
		}
		status, session, changed, errText := s.status, s.session, s.changed, s.err
		secrets := s.cfg.secrets()
		h.mu.Unlock()
		switch {
		case cur == nil:
			return nil, fmt.Errorf("the MCP server %q was removed", s.name)
		case status == api.MCPConnected && session != nil:
			return session, nil
		case status == api.MCPDisabled:
			return nil, fmt.Errorf("the MCP server %q is disabled", s.name)
		case status == api.MCPError:
			return nil, fmt.Errorf("the MCP server %q is not available: %s", s.name, redact(errText, secrets))
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			return nil, fmt.Errorf("the MCP server %q did not connect within %s", s.name, timeout)
		}
	}
}

// convertResult turns a tool result into text for the model and
// attachments for the chat.
func convertResult(res *sdk.CallToolResult, tool string) Result {
	var parts []string
	var atts []chat.Attachment
	for _, c := range res.Content {
		switch v := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, v.Text)
		case *sdk.ImageContent:
			data := decodeData(v.Data)
			name := fmt.Sprintf("%s-image-%d%s", sanitize(tool), len(atts)+1, extension(v.MIMEType))
			atts = append(atts, chat.Attachment{Name: name, MIMEType: v.MIMEType, Size: int64(len(data)), Data: data})
			parts = append(parts, fmt.Sprintf("[image %s (%s, %d bytes): shown to the user]", name, v.MIMEType, len(data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio (%s) omitted]", v.MIMEType))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", v.Name, v.URI))
		case *sdk.EmbeddedResource:
			if v.Resource != nil && v.Resource.Text != "" {
				parts = append(parts, v.Resource.Text)
			} else if v.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource %s (%s) omitted]", v.Resource.URI, v.Resource.MIMEType))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := truncate(strings.Join(parts, "\n"))
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without details"
		}
		return Result{Text: "error: " + text, Attachments: atts, IsError: true}
	}
	return Result{Text: text, Attachments: atts}
}

// decodeData returns image bytes: the SDK decodes base64 already; data that
// still is base64 (a server that encoded twice) is decoded once more.
func decodeData(b []byte) []byte {
	if d, err := base64.StdEncoding.DecodeString(string(b)); err == nil && len(b) > 0 && looksLikeImage(d) {
		return d
	}
	return b
}

func looksLikeImage(b []byte) bool {
	return len(b) > 4 && (string(b[1:4]) == "PNG" || b[0] == 0xFF && b[1] == 0xD8 || string(b[:4]) == "GIF8" || string(b[:4]) == "RIFF")
}

func extension(mimeType string) string {
	switch mimeType {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	}
	if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
		return exts[0]
	}
	return ""
}

// truncate cuts text to MaxResultBytes (on a character boundary) and says so.
func truncate(s string) string {
	if len(s) <= MaxResultBytes {
		return s
	}
	cut := MaxResultBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n\n[Parley cut this tool result at %d KB; the full result was %d bytes.]", MaxResultBytes>>10, len(s))
}

// elicit handles a server's elicitation/create: it finds the call it
// belongs to, asks the user through the call's Elicit and answers the
// server. On the protocol of 2026-07-28 and later the request comes as part
// of the call's own result (the SDK's multi round-trip), and the context
// carries the call. Before it, elicitation/create names no call: it is the
// server's only call in flight; with several (two conversations calling the
// same server) it cannot be told apart and is refused with a reason that the
// server's tool passes on, rather than shown in a conversation that did not
// ask. Without a call to ask in, the request is declined.
func (h *Host) elicit(ctx context.Context, s *server, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	ac, _ := ctx.Value(callKey{}).(*activeCall)
	if ac == nil {
		h.mu.Lock()
		n := len(s.calls)
		for _, c := range s.calls {
			ac = c
		}
		h.mu.Unlock()
		if n > 1 {
			h.log.Warn("MCP elicitation refused: it names no call and several are in flight", "server", s.name, "calls", n)
			return nil, fmt.Errorf("cannot tell which of the %d calls in flight on the MCP server %q this request for input belongs to "+
				"(before protocol version 2026-07-28 the request names no call); it was refused, nobody was asked: try again when no other conversation uses this server", n, s.name)
		}
	}
	if ac == nil || ac.call.Elicit == nil {
		h.log.Warn("MCP elicitation outside a tool call declined", "server", s.name)
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	p := req.Params
	mode := p.Mode
	if mode == "" {
		mode = "form"
	}
	e := Elicitation{Server: s.name, Tool: ac.call.Tool, Message: p.Message, Mode: mode, URL: p.URL, ElicitationID: p.ElicitationID}
	if mode == "form" {
		e.Schema = rawSchema(p.Meta, p.RequestedSchema)
	}
	// The card ends when the server withdraws the request or the call ends.
	ectx, stop := context.WithCancel(ctx)
	defer stop()
	unhook := context.AfterFunc(ac.ctx, stop)
	defer unhook()
	ac.pause()
	defer ac.resume()
	ans, err := ac.call.Elicit(ectx, e)
	if err != nil {
		h.log.Info("MCP elicitation ended without an answer", "server", s.name, "err", err)
		return &sdk.ElicitResult{Action: "cancel"}, nil
	}
	out := &sdk.ElicitResult{Action: ans.Action}
	if ans.Action == "accept" && len(ans.Content) > 0 {
		if err := json.Unmarshal(ans.Content, &out.Content); err != nil {
			return nil, fmt.Errorf("elicitation content: %w", err)
		}
	}
	return out, nil
}
