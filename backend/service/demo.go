package service

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/parley-app/parley/backend/modelserver"
)

// demoServer runs the scripted demo model on a loopback port, so the
// question flow can be tried without any model server.
type demoServer struct {
	url string
	srv *http.Server
}

func (d *demoServer) close() { _ = d.srv.Close() }

func (s *Service) demoServer() (*demoServer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.demo != nil {
		return s.demo, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start demo model: %w", err)
	}
	srv := &http.Server{Handler: modelserver.NewHandler(modelserver.Demo()), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	s.demo = &demoServer{url: "http://" + ln.Addr().String() + "/v1", srv: srv}
	return s.demo, nil
}
