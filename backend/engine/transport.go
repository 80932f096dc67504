package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// Transport returns the http.RoundTripper that carries requests for
// BaseURL to the engine: it starts the engine when none runs, sends the
// request to its address with its secret, and keeps it from being stopped
// for idleness while the answer is read. When the engine dies, the request
// in progress fails with a *fault.Error (CodeStopped) that says so in one
// sentence; the next request starts it again.
func (s *Supervisor) Transport() http.RoundTripper { return roundTripper{s} }

type roundTripper struct{ s *Supervisor }

func (rt roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	s := rt.s
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	model := modelOf(body)
	s.begin()
	for attempt := 0; ; attempt++ {
		p, err := s.running()
		if err != nil {
			s.end()
			return nil, err
		}
		out := r.Clone(r.Context())
		out.URL.Scheme = "http"
		out.URL.Host = p.addr
		out.Host = p.addr
		out.Header.Set("Authorization", "Bearer "+p.secret)
		out.RequestURI = ""
		if body != nil {
			out.Body = io.NopCloser(bytes.NewReader(body))
			out.ContentLength = int64(len(body))
			out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		res, err := p.client.Transport.RoundTrip(out)
		if err != nil {
			if r.Context().Err() == nil && s.died(p) {
				if attempt == 0 {
					continue // it died before it read the request: start it again
				}
				s.end()
				return nil, stoppedError(err)
			}
			s.end()
			return nil, err
		}
		if res.StatusCode == http.StatusOK && model != "" {
			s.setStatus(func(st *Status) {
				if st.State == StateReady {
					st.Model = &model
				}
			})
		}
		res.Body = &watchedBody{ReadCloser: res.Body, s: s, p: p, req: r}
		return res, nil
	}
}

// begin and end bracket a request: an engine with requests in flight is
// not idle.
func (s *Supervisor) begin() {
	s.mu.Lock()
	s.inFlight++
	s.lastUse = time.Now()
	s.mu.Unlock()
}

func (s *Supervisor) end() {
	s.mu.Lock()
	s.inFlight--
	s.lastUse = time.Now()
	s.mu.Unlock()
}

// died tells whether p has exited, or exits within a moment (a killed
// process's sockets close as it goes, just before its exit is seen), and
// was not stopped by the supervisor for a reason of its own.
func (s *Supervisor) died(p *process) bool {
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !p.asked
}

// stoppedError is the one sentence a reply in progress ends with when the
// engine died.
func stoppedError(cause error) *fault.Error {
	return &fault.Error{Kind: fault.Internal, Code: CodeStopped, Text: i18n.M("engine.stopped"), Err: cause}
}

// watchedBody turns a read failure caused by the engine's death into
// stoppedError, and ends the request when the body is done.
type watchedBody struct {
	io.ReadCloser
	s    *Supervisor
	p    *process
	req  *http.Request
	once sync.Once
}

func (b *watchedBody) Read(buf []byte) (int, error) {
	n, err := b.ReadCloser.Read(buf)
	if err != nil && !errors.Is(err, io.EOF) && b.req.Context().Err() == nil && b.s.died(b.p) {
		err = stoppedError(err)
	}
	if err != nil {
		b.once.Do(b.s.end)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.s.end)
	return err
}

// modelOf is the "model" of a JSON request body ("" when none).
func modelOf(body []byte) string {
	if len(body) == 0 {
		return ""
	}
	var v struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &v)
	return v.Model
}
