package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSchemaMeta is the _meta key under which Parley keeps a schema exactly
// as the server sent it (the SDK decodes schemas into maps, which lose the
// order of their properties, and forms show fields in the server's order).
const rawSchemaMeta = "parley.dev/raw-schema"

// stdioTransport starts a server process and talks newline-delimited
// JSON-RPC over its stdin/stdout (SDK's IOTransport), keeping the last lines
// of its stderr for error messages.
type stdioTransport struct {
	cfg       ServerConfig
	terminate time.Duration // grace after closing stdin, then after SIGTERM
	stderr    *tailBuffer
}

func (t *stdioTransport) start() (*sdk.IOTransport, *process, error) {
	cmd := exec.Command(t.cfg.Command, t.cfg.Args...)
	cmd.Env = os.Environ()
	for k, v := range t.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = t.stderr
	// A child that keeps stderr open (npx starts node) must not hold Wait.
	cmd.WaitDelay = t.terminate
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", t.cfg.Command, err)
	}
	p := &process{cmd: cmd, stdin: stdin, terminate: t.terminate, exited: make(chan struct{})}
	r := &rewriteReader{src: bufio.NewReaderSize(stdout, 64<<10), proc: p}
	return &sdk.IOTransport{Reader: r, Writer: p}, p, nil
}

// process is a running server. Closing it follows the MCP spec for stdio:
// close stdin, wait, SIGTERM, wait, SIGKILL (to its process group).
type process struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	terminate time.Duration
	exited    chan struct{}
	waitErr   error
	waitOnce  sync.Once
	closeOnce sync.Once
}

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// wait reaps the process in the background. It is started only once
// stdout has ended or the process is being closed, because Wait closes
// stdout and unread output would be lost.
func (p *process) wait() {
	p.waitOnce.Do(func() {
		go func() {
			p.waitErr = p.cmd.Wait()
			close(p.exited)
		}()
	})
}

// Close ends the process and waits for it (idempotent).
func (p *process) Close() error {
	p.closeOnce.Do(func() {
		_ = p.stdin.Close()
		p.wait()
		select {
		case <-p.exited:
			return
		case <-time.After(p.terminate):
		}
		signalGroup(p.cmd, syscall.SIGTERM)
		select {
		case <-p.exited:
			return
		case <-time.After(p.terminate):
		}
		signalGroup(p.cmd, syscall.SIGKILL)
		<-p.exited
	})
	return nil
}

// exitError describes how the process ended, once it has.
func (p *process) exitError() error {
	select {
	case <-p.exited:
		if p.waitErr == nil {
			return errors.New("exited")
		}
		return p.waitErr
	default:
		return nil
	}
}

// rewriteReader passes the server's stdout through, line by line, and
// copies the raw requestedSchema of elicitation/create requests and the raw
// inputSchema of listed tools into their _meta (see rawSchemaMeta). Lines
// longer than its buffer are passed through untouched.
type rewriteReader struct {
	src  *bufio.Reader
	proc *process
	buf  []byte
	err  error
}

func (r *rewriteReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := r.src.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			r.buf = append(r.buf[:0], line...)
		case err != nil:
			r.buf = append(r.buf[:0], line...)
			r.err = err
			r.proc.wait() // stdout ended: the process is exiting
		default:
			r.buf = rewriteLine(line)
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

func (r *rewriteReader) Close() error { return r.proc.Close() }

// rewriteLine returns the line with raw schemas copied into _meta, or the
// line itself when there is nothing to do.
func rewriteLine(line []byte) []byte {
	out := slicesClone(line)
	if !bytes.Contains(line, []byte(`"elicitation/create"`)) && !bytes.Contains(line, []byte(`"inputSchema"`)) {
		return out
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		return out
	}
	changed := false
	if m, ok := msg["method"]; ok && string(bytes.TrimSpace(m)) == `"elicitation/create"` {
		if params, ok := withRawSchema(msg["params"], "requestedSchema"); ok {
			msg["params"] = params
			changed = true
		}
	}
	if res, ok := msg["result"]; ok {
		var result map[string]json.RawMessage
		var tools []json.RawMessage
		if json.Unmarshal(res, &result) == nil && json.Unmarshal(result["tools"], &tools) == nil && len(tools) > 0 {
			for i, t := range tools {
				if nt, ok := withRawSchema(t, "inputSchema"); ok {
					tools[i] = nt
					changed = true
				}
			}
			if changed {
				result["tools"], _ = json.Marshal(tools)
				msg["result"], _ = json.Marshal(result)
			}
		}
	}
	if !changed {
		return out
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return out
	}
	return append(b, '\n')
}

// withRawSchema copies obj[field] as a string into obj._meta[rawSchemaMeta].
func withRawSchema(raw json.RawMessage, field string) (json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil, false
	}
	schema, ok := obj[field]
	if !ok {
		return nil, false
	}
	meta := map[string]any{}
	if m, ok := obj["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return nil, false
	}
	var compact bytes.Buffer
	if json.Compact(&compact, schema) != nil {
		return nil, false
	}
	meta[rawSchemaMeta] = compact.String()
	obj["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(obj)
	return b, err == nil
}

// rawSchema returns the schema as the server sent it, from _meta when the
// transport kept it there, else as the SDK decoded it.
func rawSchema(meta map[string]any, decoded any) json.RawMessage {
	if s, ok := meta[rawSchemaMeta].(string); ok && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	if decoded == nil {
		return nil
	}
	b, err := json.Marshal(decoded)
	if err != nil {
		return nil
	}
	return b
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }

// tailBuffer keeps the last bytes written to it (a server's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// lastLine is the last non-empty line written.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	return string(bytes.TrimSpace(lines[len(lines)-1]))
}
