package agentcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/i18n"
)

// Exit codes of `parley ask` (SPEC §10).
const (
	ExitAnswered    = 0
	ExitUnreachable = 1
	ExitUsage       = 2
	ExitDeclined    = 3
	ExitCancelled   = 4
	ExitTimedOut    = 5
	ExitRefused     = 6
)

// DefaultAskAgent names the asker of `parley ask` cards unless --agent says.
const DefaultAskAgent = "parley ask"

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// askArgs is the parsed command line of `parley ask`.
type askArgs struct {
	question, context, dataDir, token, agent string
	options                                  stringList
	multi, json                              bool
	timeout                                  *time.Duration
}

// parseAsk reads the arguments after "ask"; flags may come before or after
// the question.
func parseAsk(args []string, getenv func(string) string, stderr io.Writer) (askArgs, error) {
	var a askArgs
	fs := flag.NewFlagSet("parley ask", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: parley ask "QUESTION" [--option LABEL ...] [--multi] [--context TEXT] [--timeout 1h] [--json]`)
		fmt.Fprintln(stderr, "Files the question in the running Parley, waits for the answer and prints the chosen label(s).")
		fmt.Fprintln(stderr, "Exit: 0 answered, 3 declined, 4 cancelled, 5 timed out, 6 refused, 2 usage error, 1 Parley not reachable.")
		fs.PrintDefaults()
	}
	fs.Var(&a.options, "option", "an option (2-4, repeat the flag); none = a free-text answer")
	fs.BoolVar(&a.multi, "multi", false, "the user may pick several options")
	fs.StringVar(&a.context, "context", "", "Markdown shown above the question: what you are doing and why you ask")
	timeout := fs.String("timeout", "", "how long the question stays open (e.g. 1h; 0 = never); default: Parley's question timeout")
	fs.BoolVar(&a.json, "json", false, "print the result JSON instead of the label(s)")
	fs.StringVar(&a.agent, "agent", DefaultAskAgent, "the name the card is filed under")
	fs.StringVar(&a.dataDir, "data-dir", "", "Parley's data folder (env PARLEY_DATA_DIR; default: the OS user config dir)")
	fs.StringVar(&a.token, "token", "", "token to send (an agent token or the API token; default: the agent token the running Parley keeps for its commands)")
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return a, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) != 1 || strings.TrimSpace(positional[0]) == "" {
		fs.Usage()
		return a, fmt.Errorf("want exactly one question (got %d arguments)", len(positional))
	}
	a.question = positional[0]
	if *timeout != "" {
		d, err := time.ParseDuration(*timeout)
		if err != nil || d < 0 {
			return a, fmt.Errorf("invalid --timeout %q: want a duration such as 10m, 1h or 0", *timeout)
		}
		a.timeout = &d
	}
	if a.dataDir == "" {
		a.dataDir = getenv("PARLEY_DATA_DIR")
	}
	if a.dataDir == "" {
		dir, err := config.DefaultDataDir()
		if err != nil {
			return a, err
		}
		a.dataDir = dir
	}
	return a, nil
}

// RunAsk is `parley ask`: it returns the exit code.
func RunAsk(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	a, err := parseAsk(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitUsage
	}
	if err != nil {
		fmt.Fprintln(stderr, "parley ask:", err)
		return ExitUsage
	}
	c, err := newClient(a.dataDir, a.token)
	if err != nil {
		fmt.Fprintln(stderr, "parley ask:", err)
		return ExitUnreachable
	}
	c.lang = i18n.System(getenv)
	q := map[string]any{"question": a.question, "options": []string(a.options), "multiSelect": a.multi}
	if a.options == nil {
		q["options"] = []string{}
	}
	body := map[string]any{"questions": []any{q}, "agent": a.agent}
	if a.context != "" {
		body["context"] = a.context
	}
	if a.timeout != nil {
		body["timeout_seconds"] = int(a.timeout.Seconds())
	}
	var filed api.AskFiled
	status, msg, err := c.do(ctx, http.MethodPost, "/api/v1/asks", body, &filed)
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "parley ask:", err)
		return ExitUnreachable
	case status == http.StatusTooManyRequests:
		fmt.Fprintln(stderr, "parley ask:", msg)
		return ExitRefused
	case status == http.StatusUnprocessableEntity || status == http.StatusBadRequest:
		fmt.Fprintln(stderr, "parley ask:", msg)
		return ExitUsage
	case status != http.StatusCreated:
		fmt.Fprintf(stderr, "parley ask: Parley answered %d: %s\n", status, msg)
		return ExitUnreachable
	}
	for {
		var st api.AskState
		status, msg, err := c.do(ctx, http.MethodGet, fmt.Sprintf("/api/v1/asks/%s?wait=%d", filed.QuestionID, api.MaxAgentWaitSeconds), nil, &st)
		switch {
		case err != nil:
			fmt.Fprintln(stderr, "parley ask:", err)
			return ExitUnreachable
		case status != http.StatusOK:
			fmt.Fprintf(stderr, "parley ask: Parley answered %d: %s\n", status, msg)
			return ExitUnreachable
		case st.Status == "pending":
			continue
		}
		return printOutcome(a, st, stdout, stderr)
	}
}

// printOutcome prints the answer and says how the card ended by the exit code.
func printOutcome(a askArgs, st api.AskState, stdout, stderr io.Writer) int {
	if a.json {
		fmt.Fprintln(stdout, st.Result)
	}
	switch st.Status {
	case "answered":
		if !a.json {
			var res struct {
				Answers map[string]string `json:"answers"`
			}
			if err := json.Unmarshal([]byte(st.Result), &res); err != nil {
				fmt.Fprintln(stderr, "parley ask: unexpected result:", st.Result)
				return ExitUnreachable
			}
			fmt.Fprintln(stdout, res.Answers[a.question])
		}
		return ExitAnswered
	case "declined":
		fmt.Fprintln(stderr, "parley ask: the user skipped the question")
		return ExitDeclined
	case "cancelled":
		fmt.Fprintln(stderr, "parley ask: the user cancelled the question")
		return ExitCancelled
	default: // timed_out (answered_late and superseded came after it)
		fmt.Fprintln(stderr, "parley ask: the question timed out without an answer")
		return ExitTimedOut
	}
}

// client talks to the running Parley's agents' endpoints.
type client struct {
	base, token string
	// explicit: the token came from --token.
	explicit bool
	http     *http.Client
	// lang is the terminal's language (LANG): Parley says a refusal in it
	// when its Settings choose no language.
	lang string
}

// newClient finds the running Parley and the agent token it keeps for its
// commands (or uses token, from --token).
func newClient(dataDir, token string) (*client, error) {
	l, err := ReadListener(dataDir)
	if err != nil {
		return nil, err
	}
	c := &client{base: l.URL, token: token, explicit: token != "", http: &http.Client{}}
	if token == "" {
		if l.Token == "" {
			return nil, errNoToken(l)
		}
		c.token = l.Token
	}
	return c, nil
}

// do sends a JSON request; a status other than 2xx comes back with the
// error text of the body. err is for Parley not reachable, or refusing the
// token.
func (c *client) do(ctx context.Context, method, path string, body, out any) (int, string, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, "", err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.lang != "" {
		req.Header.Set("Accept-Language", c.lang)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if connRefused(err) {
		return 0, "", fmt.Errorf("%w (nothing listens at %s)", ErrNotRunning, c.base)
	}
	if err != nil {
		return 0, "", fmt.Errorf("reach Parley at %s: %w", c.base, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if err != nil {
		return 0, "", fmt.Errorf("read Parley's answer: %w", err)
	}
	if res.StatusCode == http.StatusUnauthorized {
		return 0, "", errTokenRefused(c.base, c.explicit)
	}
	if res.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return res.StatusCode, e.Error, nil
		}
		return res.StatusCode, strings.TrimSpace(string(b)), nil
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return 0, "", fmt.Errorf("read Parley's answer: %w", err)
		}
	}
	return res.StatusCode, "", nil
}
