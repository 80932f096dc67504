// Package config parses Parley's command line (SPEC §5): the command, flags
// and PARLEY_* environment variables, with flags overriding environment.
// Saved settings sit below both; the caller layers them with Overrides.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Commands.
const (
	CommandDesktop = "desktop"
	CommandServe   = "serve"
	CommandVersion = "version"
	// CommandAsk and CommandMCP are the agents' commands (SPEC §10); they
	// parse their own arguments (Config.Args).
	CommandAsk = "ask"
	CommandMCP = "mcp"
	// CommandUpdate is parley update [--check] [--yes] (SPEC §13); it
	// parses its own arguments, after the data folder's flag and variable.
	CommandUpdate = "update"
	// CommandEngine runs the built-in engine's process (SPEC §12), which
	// Parley starts itself (backend/engine); it parses its own arguments.
	// Not in the usage: people do not run it.
	CommandEngine = "engine"
)

// Engines (SPEC §12).
const (
	EngineBuiltin = "builtin"
	EngineServer  = "server"
)

// Defaults.
const (
	DefaultBaseURL         = "http://127.0.0.1:11434/v1"
	DefaultAddr            = "127.0.0.1:8765"
	DefaultQuestionTimeout = 5 * time.Minute
)

// Config is the parsed command line.
type Config struct {
	Command         string
	DataDir         string
	BaseURL         string
	Model           string
	APIKey          string
	QuestionTimeout time.Duration
	// Engine is "builtin" (Parley's own engine, SPEC §12) or "server" (a
	// model server at BaseURL); "" when neither flag nor variable says.
	Engine string
	// ModelsDir is the built-in engine's models folder (SPEC §12):
	// --models-dir, PARLEY_MODELS_DIR, else <DataDir>/models.
	ModelsDir string
	// HFEndpoint is the Hugging Face hub models are downloaded from
	// (HF_ENDPOINT, as in Hugging Face's own tools; "" = the real hub).
	HFEndpoint string
	// MachineMemory, when not 0, is the memory in bytes the built-in
	// engine assumes the machine has instead of asking the system
	// (PARLEY_MACHINE_MEMORY: a container's limit, or a test's machine).
	MachineMemory uint64
	Addr          string // serve only
	Token         string // serve only
	// Demo runs the scripted demo assistant (no model server) for this
	// process only, whatever the saved demo mode setting says.
	Demo bool
	// Args are the arguments of ask and mcp, unparsed.
	Args []string
	// Set records which of the fields above came from a flag or the
	// environment, so saved settings fill only the rest.
	Set map[string]bool
}

// takeDataDir takes --data-dir DIR (or --data-dir=DIR, one dash or two)
// out of args.
func takeDataDir(args []string) (rest []string, dir string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "data-dir" {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, "", errors.New("--data-dir needs a folder")
			}
			i++
			value = args[i]
		}
		dir = value
	}
	return rest, dir, nil
}

// ErrHelp is returned when -h/--help was asked for; usage has been printed.
var ErrHelp = flag.ErrHelp

// Parse reads args (without the program name) and the environment through
// getenv. Usage and errors are written to out.
func Parse(args []string, getenv func(string) string, out io.Writer) (Config, error) {
	cfg := Config{Command: CommandDesktop, Set: map[string]bool{}}
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		switch args[0] {
		case CommandServe, CommandVersion:
			cfg.Command = args[0]
			args = args[1:]
		case CommandAsk, CommandMCP, CommandEngine:
			cfg.Command, cfg.Args = args[0], args[1:]
			return cfg, nil
		case CommandUpdate:
			cfg.Command = args[0]
			// --data-dir (the common flag) is the update's too; the rest are its own.
			var dataDir string
			var err error
			cfg.Args, dataDir, err = takeDataDir(args[1:])
			if err != nil {
				return cfg, err
			}
			cfg.DataDir = dataDir
			if cfg.DataDir == "" {
				cfg.DataDir = getenv("PARLEY_DATA_DIR")
			}
			if cfg.DataDir == "" {
				dir, err := DefaultDataDir()
				if err != nil {
					return cfg, err
				}
				cfg.DataDir = dir
			}
			abs, err := filepath.Abs(cfg.DataDir)
			if err != nil {
				return cfg, fmt.Errorf("data dir %q: %w", cfg.DataDir, err)
			}
			cfg.DataDir = abs
			return cfg, nil
		default:
			return cfg, fmt.Errorf("unknown command %q (want serve, ask, mcp, update or version)", args[0])
		}
	}

	fs := flag.NewFlagSet("parley", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintln(out, "usage: parley [serve|ask|mcp|update|version] [flags]")
		fs.PrintDefaults()
	}
	dataDir := fs.String("data-dir", "", "data folder (env PARLEY_DATA_DIR; default: the OS user config dir)")
	baseURL := fs.String("base-url", "", "OpenAI-compatible endpoint (env PARLEY_BASE_URL; default "+DefaultBaseURL+")")
	model := fs.String("model", "", "model name (env PARLEY_MODEL)")
	apiKey := fs.String("api-key", "", "API key (env PARLEY_API_KEY)")
	timeout := fs.String("question-timeout", "", "how long a question waits, 0 = forever (env PARLEY_QUESTION_TIMEOUT; default 5m)")
	addr := fs.String("addr", DefaultAddr, "serve: listen address; the desktop app: where it listens for agents (overrides Settings → Agents)")
	token := fs.String("token", "", "serve: API token (default: the one stored in the data folder)")
	modelsDir := fs.String("models-dir", "", "the built-in engine's models folder (env PARLEY_MODELS_DIR; default <data dir>/models)")
	engine := fs.String("engine", "", `"builtin" (Parley's own engine) or "server" (the model server at --base-url) (env PARLEY_ENGINE)`)
	demo := fs.Bool("demo", false, "run the scripted demo assistant, no model server needed, for this run only (env PARLEY_DEMO=1; the saved settings are unchanged)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	pick := func(name, flagValue, env string) string {
		if given[name] {
			cfg.Set[name] = true
			return flagValue
		}
		if v := getenv(env); v != "" {
			cfg.Set[name] = true
			return v
		}
		return ""
	}
	cfg.DataDir = pick("data-dir", *dataDir, "PARLEY_DATA_DIR")
	cfg.BaseURL = pick("base-url", *baseURL, "PARLEY_BASE_URL")
	cfg.Model = pick("model", *model, "PARLEY_MODEL")
	cfg.APIKey = pick("api-key", *apiKey, "PARLEY_API_KEY")
	cfg.Engine = pick("engine", *engine, "PARLEY_ENGINE")
	cfg.ModelsDir = pick("models-dir", *modelsDir, "PARLEY_MODELS_DIR")
	cfg.HFEndpoint = strings.TrimRight(getenv("HF_ENDPOINT"), "/")
	if cfg.HFEndpoint != "" {
		if u, err := url.Parse(cfg.HFEndpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cfg, fmt.Errorf("invalid HF_ENDPOINT %q: want an http(s) URL such as https://huggingface.co", cfg.HFEndpoint)
		}
	}
	if s := getenv("PARLEY_MACHINE_MEMORY"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n == 0 {
			return cfg, fmt.Errorf("invalid PARLEY_MACHINE_MEMORY %q: want a number of bytes", s)
		}
		cfg.MachineMemory = n
	}
	switch cfg.Engine {
	case "", EngineBuiltin, EngineServer:
	default:
		return cfg, fmt.Errorf("invalid engine %q: want builtin or server", cfg.Engine)
	}
	cfg.Addr = *addr
	cfg.Token = *token
	if given["addr"] {
		cfg.Set["addr"] = true
	}
	switch {
	case given["demo"]:
		cfg.Demo = *demo
		cfg.Set["demo"] = true
	case getenv("PARLEY_DEMO") != "":
		v, err := strconv.ParseBool(getenv("PARLEY_DEMO"))
		if err != nil {
			return cfg, fmt.Errorf("invalid PARLEY_DEMO %q: want 1 or 0", getenv("PARLEY_DEMO"))
		}
		cfg.Demo = v
		cfg.Set["demo"] = true
	}

	cfg.QuestionTimeout = DefaultQuestionTimeout
	if s := pick("question-timeout", *timeout, "PARLEY_QUESTION_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return cfg, fmt.Errorf("invalid question timeout %q: want a duration such as 5m, 90s or 0", s)
		}
		cfg.QuestionTimeout = d
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.DataDir == "" {
		dir, err := DefaultDataDir()
		if err != nil {
			return cfg, err
		}
		cfg.DataDir = dir
	}
	abs, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return cfg, fmt.Errorf("data dir %q: %w", cfg.DataDir, err)
	}
	cfg.DataDir = abs
	if cfg.ModelsDir == "" {
		cfg.ModelsDir = filepath.Join(abs, "models")
	}
	if cfg.ModelsDir, err = filepath.Abs(cfg.ModelsDir); err != nil {
		return cfg, fmt.Errorf("models dir: %w", err)
	}
	return cfg, nil
}

// DefaultDataDir is "Parley" inside the OS user config dir
// (~/.config/Parley, ~/Library/Application Support/Parley, %AppData%\Parley).
func DefaultDataDir() (string, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config dir (set --data-dir or PARLEY_DATA_DIR): %w", err)
	}
	return filepath.Join(base, "Parley"), nil
}

// EnsureDataDir creates the data folder, readable only by the user.
func EnsureDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data dir %s: %w", dir, err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("data dir %s: %w", dir, err)
	}
	if !info.IsDir() {
		return errors.New("data dir " + dir + " is not a folder")
	}
	return nil
}

// CheckLoopbackAddr accepts host:port on this computer's loopback only
// (127.0.0.1, ::1 or localhost), port 0 (any free port) to 65535.
func CheckLoopbackAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (e.g. %s)", addr, DefaultAddr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q is not this computer's loopback: Parley listens for this computer only; use 127.0.0.1", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q has no valid port (0-65535)", addr)
	}
	return nil
}
