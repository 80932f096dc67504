// Command conformanceclient is Parley's MCP host (backend/mcp) as the client
// under test of the MCP conformance suite's client scenarios: the suite
// starts it with its test server's URL as the last argument and the
// scenario in MCP_CONFORMANCE_SCENARIO (README of
// @modelcontextprotocol/conformance, "Client Testing"). It connects the way
// Parley connects a configured streamable-HTTP server, then does what the
// scenario asks:
//
//   - initialize: the handshake and the tool list;
//   - tools_call: add_numbers {a, b};
//   - elicitation-sep1034-client-defaults: the server's form becomes an
//     elicitation card of Parley's question manager, which the user accepts
//     as shown: Parley fills in the schema's defaults (SEP-1034);
//   - sse-retry: a call whose SSE stream the server closes; the SDK's
//     transport must wait the stream's retry time and resume with
//     Last-Event-ID.
//
// It exits non-zero when the scenario's steps fail on Parley's side; the
// suite judges the wire.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/mcp"
	"github.com/parley-app/parley/backend/questions"
)

const (
	serverName   = "conformance"
	conversation = "conformance-client"
	timeout      = 25 * time.Second // the suite gives a client 30 s
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformanceclient <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)")
		os.Exit(2)
	}
	if err := run(os.Args[len(os.Args)-1], os.Getenv("MCP_CONFORMANCE_SCENARIO")); err != nil {
		fmt.Fprintln(os.Stderr, "conformance client:", err)
		os.Exit(1)
	}
}

func run(url, scenario string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))

	// The host announces each state of the server: wait for connected.
	states := make(chan api.MCPServer, 64)
	ev := events.EmitterFunc(func(name string, payload any) {
		if s, ok := payload.(api.MCPServer); ok && name == events.MCPServer && s.Name == serverName {
			select {
			case states <- s:
			default:
			}
		}
	})
	host := mcp.New(mcp.Options{Events: ev, Logger: log, Version: "conformance"})
	defer host.Stop()
	host.Start()
	if _, err := host.PutServer(serverName, api.MCPServerConfig{URL: url}); err != nil {
		return fmt.Errorf("configure the server: %w", err)
	}
	if err := connected(ctx, states); err != nil {
		return err
	}
	srv, err := host.Server(serverName)
	if err != nil {
		return err
	}
	log.Info("connected", "tools", len(srv.Tools))

	switch scenario {
	case "initialize":
		return nil
	case "tools_call":
		return call(ctx, host, mcp.Call{Server: serverName, Tool: "add_numbers", Arguments: json.RawMessage(`{"a":5,"b":3}`)}, "8")
	case "sse-retry":
		return call(ctx, host, mcp.Call{Server: serverName, Tool: "test_reconnection"}, "successfully")
	case "elicitation-sep1034-client-defaults":
		qm := questions.NewManager(questions.Config{Timeout: timeout, Logger: log}, nil, nil)
		defer qm.Close()
		return call(ctx, host, mcp.Call{Server: serverName, Tool: "test_client_elicitation_defaults", Elicit: acceptAsShown(qm)}, "Elicitation completed")
	}
	return fmt.Errorf("scenario %q is not one this client runs", scenario)
}

func connected(ctx context.Context, states <-chan api.MCPServer) error {
	var last api.MCPServer
	for {
		select {
		case s := <-states:
			last = s
			if s.Status == api.MCPConnected {
				return nil
			}
		case <-ctx.Done():
			return fmt.Errorf("not connected (last state %q: %s)", last.Status, last.Error)
		}
	}
}

// call runs the tool and checks that its text holds want.
func call(ctx context.Context, host *mcp.Host, c mcp.Call, want string) error {
	res := host.Call(ctx, c)
	fmt.Printf("%s: %s\n", c.Tool, res.Text)
	if res.IsError {
		return fmt.Errorf("%s: %s", c.Tool, res.Text)
	}
	if !strings.Contains(res.Text, want) {
		return fmt.Errorf("%s: the result %q does not hold %q", c.Tool, res.Text, want)
	}
	return nil
}

// acceptAsShown files the server's request as an elicitation card and
// accepts it as the form shows it, nothing typed: what the server gets is
// the card's content, with the defaults the question manager filled in.
func acceptAsShown(qm *questions.Manager) func(context.Context, mcp.Elicitation) (mcp.ElicitAnswer, error) {
	return func(ctx context.Context, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
		card, err := qm.CreateElicitation(ctx, questions.ElicitationRequest{ConversationID: conversation, RunID: "conformance",
			ToolCallID: "conformance", Server: e.Server, Tool: e.Tool, Message: e.Message, Mode: e.Mode, Schema: e.Schema, URL: e.URL})
		if err != nil {
			return mcp.ElicitAnswer{}, fmt.Errorf("elicitation card: %w", err)
		}
		done, err := qm.Respond(ctx, conversation, questions.Response{QuestionID: card.ID, Action: questions.ActionAccept, Content: json.RawMessage(`{}`)})
		if err != nil {
			return mcp.ElicitAnswer{}, fmt.Errorf("accept the elicitation card: %w", err)
		}
		if done.Status != questions.StatusAccepted {
			return mcp.ElicitAnswer{}, errors.New("the elicitation card was not accepted: " + string(done.Status))
		}
		return mcp.ElicitAnswer{Action: "accept", Content: json.RawMessage(done.Content)}, nil
	}
}
