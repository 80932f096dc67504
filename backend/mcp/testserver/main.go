// Command testserver is a tiny stdio MCP server, built on the SDK's server
// side, that misbehaves on request: the tests of backend/mcp build and run
// it to check how Parley's host copes with crashes, hangs, garbage on stdout
// and huge results.
//
//	testserver [-startup ok|crash|garbage] [-starts FILE] [-marker DIR]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tinyPNG is a 1x1 PNG.
var tinyPNG = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89}

func main() {
	startup := flag.String("startup", "ok", "ok, crash (exit at once, saying why on stderr) or garbage (print non-JSON on stdout)")
	starts := flag.String("starts", "", "append a line to this file at every start")
	marker := flag.String("marker", "", "folder where the hang tool writes \"cancelled\" when its call is cancelled")
	flag.Parse()

	if *starts != "" {
		f, err := os.OpenFile(*starts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
	}
	switch *startup {
	case "crash":
		fmt.Fprintf(os.Stderr, "fatal: cannot log in with token %s\n", os.Getenv("TEST_TOKEN"))
		os.Exit(3)
	case "garbage":
		fmt.Println("Hello! This server prints a banner on stdout, which is not JSON-RPC.")
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1"}, nil)
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		if required == nil {
			req = []byte("[]")
		}
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	args := func(req *mcp.CallToolRequest) map[string]any {
		var m map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &m)
		return m
	}
	add := func(name, desc string, schema json.RawMessage, h mcp.ToolHandler) {
		server.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: schema}, h)
	}

	add("echo", "Echoes back the message", obj(`"message":{"type":"string"}`, "message"),
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprintf("Echo: %v", args(req)["message"])), nil
		})
	add("crash", "Exits in the middle of the call", obj(""),
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "panic: the crash tool was called")
			os.Exit(2)
			return nil, nil
		})
	add("hang", "Never answers (until cancelled)", obj(""),
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			if *marker != "" {
				_ = os.WriteFile(filepath.Join(*marker, "cancelled"), []byte("cancelled"), 0o600)
			}
			return nil, ctx.Err()
		})
	add("garbage", "Prints garbage on stdout during the call", obj(""),
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Println("}}} this is not JSON {{{")
			time.Sleep(5 * time.Second)
			return text("too late"), nil
		})
	add("huge", "Returns a huge text", obj(`"bytes":{"type":"integer"}`),
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n, _ := args(req)["bytes"].(float64)
			return text(strings.Repeat("x", int(n))), nil
		})
	add("image", "Returns a tiny PNG and a caption", obj(""),
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "A tiny image"}, &mcp.ImageContent{Data: tinyPNG, MIMEType: "image/png"}}}, nil
		})
	add("fail", "Reports a tool error", obj(""),
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "disk quota exceeded"}}}, nil
		})
	add("caps", "Returns the client's capabilities as received (roots and sampling are null when not declared)", obj(""),
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c := req.Session.InitializeParams().Capabilities
			b, _ := json.Marshal(map[string]any{"elicitation": c.Elicitation, "roots": c.RootsV2, "sampling": c.Sampling})
			return text(string(b)), nil
		})
	// Names that collide once sanitized: all three become "<server>__get_x".
	for _, name := range []string{"get.x", "get x", "get_x"} {
		add(name, "Collides after sanitizing: "+name, obj(""),
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("I am " + name), nil
			})
	}

	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}
