package update

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"aead.dev/minisign"
)

// DefaultFeedURL is the built-in feed (PARLEY_UPDATE_URL overrides it).
const DefaultFeedURL = "https://github.com/parley-app/parley/releases/latest/download"

// FeedURLEnv overrides the feed's address (tests, mirrors).
const FeedURLEnv = "PARLEY_UPDATE_URL"

// States (SPEC §13).
const (
	StateIdle        = "idle"
	StateChecking    = "checking"
	StateDownloading = "downloading"
	StateReady       = "ready"
	StateError       = "error"
	StateRefused     = "refused"
)

// ErrNothingReady is Apply without a staged update.
var ErrNothingReady = errors.New("no update is ready to apply")

// ErrNoKind is a build that never updates itself.
var ErrNoKind = errors.New("this build does not update itself")

// Status is GET /api/v1/update.
type Status struct {
	Current   string     `json:"current"`
	Kind      string     `json:"kind"`
	Auto      bool       `json:"auto"`
	State     string     `json:"state"`
	Available *Available `json:"available"`
	Error     string     `json:"error,omitempty"`
	CheckedAt *time.Time `json:"checked_at,omitempty"`
}

// Available is an update the feed offers this install.
type Available struct {
	Version   string    `json:"version"`
	Notes     string    `json:"notes"`
	Published time.Time `json:"published"`
	Size      int64     `json:"size"`
}

// Config is what an Updater is built from.
type Config struct {
	Current string // the running version
	Kind    string // main.installKind ("" never updates itself)
	Keys    []minisign.PublicKey
	FeedURL string // "" = DefaultFeedURL
	DataDir string
	Client  *http.Client
	// GOOS and GOARCH default to the running ones.
	GOOS, GOARCH string
	// Binary is the installed program (tar: the binary; mac: the .app);
	// "" = os.Executable (and its bundle on macOS).
	Binary string
	// DBPath is the database, copied before a newer version opens it.
	DBPath string
	// Team is the macOS signing team an update must be signed by ("" =
	// the team that signed the running app, read from its signature).
	Team string
	// TeamOf reads the signing team of a bundle (nil: codesign's).
	TeamOf func(bundle string) (string, error)
	// Lang is the user's language for the notes (nil: English).
	Lang func() string
	Now  func() time.Time
	// Run runs a command (nil: exec, waiting when the command says so).
	Run func(ctx context.Context, c Command) error
	// LookPath finds a program (nil: exec.LookPath).
	LookPath func(string) (string, error)
	// Root says whether Parley runs as root (nil: the effective user is 0).
	Root func() bool
	// Staging hooks for tests.
	FreeSpace  func(dir string) (uint64, error)
	WrapWriter func(io.Writer) io.Writer
}

// Updater checks the feed, stages and applies updates. Safe for concurrent use.
type Updater struct {
	cfg Config

	mu       sync.Mutex
	auto     bool
	state    string
	err      string
	checked  *time.Time
	feed     *Feed
	artifact *Artifact
	staged   string
	busy     bool
	onChange func(Status)
	// changes orders the hook's calls: each gets the newest status.
	changes sync.Mutex
}

// New makes an Updater; automatic checks start on.
func New(cfg Config) *Updater {
	if cfg.FeedURL == "" {
		cfg.FeedURL = DefaultFeedURL
	}
	cfg.FeedURL = strings.TrimRight(cfg.FeedURL, "/")
	if cfg.GOOS == "" {
		cfg.GOOS = runtime.GOOS
	}
	if cfg.GOARCH == "" {
		cfg.GOARCH = runtime.GOARCH
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 10 * time.Minute}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.LookPath == nil {
		cfg.LookPath = exec.LookPath
	}
	if cfg.Run == nil {
		cfg.Run = runCommand
	}
	if cfg.Root == nil {
		cfg.Root = func() bool { return os.Geteuid() == 0 }
	}
	if !ValidKind(cfg.Kind) {
		cfg.Kind = KindNone
	}
	return &Updater{cfg: cfg, auto: true, state: StateIdle}
}

// UserAgent is all an update request says about this install.
func (u *Updater) UserAgent() string {
	return fmt.Sprintf("Parley/%s (%s/%s)", u.cfg.Current, u.cfg.GOOS, u.cfg.GOARCH)
}

// Kind is the install kind ("" never updates itself).
func (u *Updater) Kind() string { return u.cfg.Kind }

// SetLang sets how the user's language is found (the notes' language).
func (u *Updater) SetLang(lang func() string) { u.mu.Lock(); u.cfg.Lang = lang; u.mu.Unlock() }

// SetAuto records the automatic-checks setting (shown in Status).
func (u *Updater) SetAuto(on bool) {
	u.mu.Lock()
	changed := u.auto != on
	u.auto = on
	u.mu.Unlock()
	if changed {
		u.changed()
	}
}

// OnChange sets the function told the status after each change of state
// (the update:state event); it is called outside the updater's lock, one
// call at a time.
func (u *Updater) OnChange(fn func(Status)) { u.mu.Lock(); u.onChange = fn; u.mu.Unlock() }

// changed tells the hook the status now (each call reads the newest, so
// calls racing each other still end on the current state).
func (u *Updater) changed() {
	u.changes.Lock()
	defer u.changes.Unlock()
	u.mu.Lock()
	fn := u.onChange
	s := u.statusLocked()
	u.mu.Unlock()
	if fn != nil {
		fn(s)
	}
}

// Status is the updater's state now.
func (u *Updater) Status() Status {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.statusLocked()
}

func (u *Updater) statusLocked() Status {
	s := Status{Current: u.cfg.Current, Kind: u.cfg.Kind, Auto: u.auto, State: u.state, Error: u.err, CheckedAt: u.checked}
	if u.feed != nil && u.artifact != nil {
		lang := "en"
		if u.cfg.Lang != nil {
			lang = u.cfg.Lang()
		}
		s.Available = &Available{Version: u.feed.Version, Notes: u.feed.NotesFor(lang), Published: u.feed.Published, Size: u.artifact.Size}
	}
	return s
}

func (u *Updater) set(state string, err error) {
	u.state = state
	u.err = ""
	if err != nil {
		u.err = err.Error()
		var r *Refusal
		if errors.As(err, &r) {
			u.err = r.Reason
		}
	}
}

// Check fetches and verifies the feed. It downloads nothing: after it,
// Status().Available says whether an update is offered (Stage fetches it).
// Errors: a *Refusal (state refused), ErrUnreachable (state error), ErrNoKind.
func (u *Updater) Check(ctx context.Context) (Status, error) {
	if u.cfg.Kind == KindNone {
		return u.Status(), ErrNoKind
	}
	u.mu.Lock()
	if u.busy {
		s := u.statusLocked()
		u.mu.Unlock()
		return s, nil
	}
	u.busy = true
	u.set(StateChecking, nil)
	u.mu.Unlock()
	u.changed()
	defer u.changed()

	feed, art, err := u.check(ctx)

	u.mu.Lock()
	defer u.mu.Unlock()
	u.busy = false
	now := u.cfg.Now()
	u.checked = &now
	switch {
	case err != nil && IsRefusal(err):
		u.set(StateRefused, err)
	case err != nil:
		u.set(StateError, err)
	default:
		u.set(StateIdle, nil)
	}
	if err != nil || art == nil {
		u.feed, u.artifact, u.staged = nil, nil, ""
		return u.statusLocked(), err
	}
	if u.artifact == nil || *u.artifact != *art {
		u.staged = ""
	}
	u.feed, u.artifact = feed, art
	if u.staged != "" {
		u.state = StateReady
	}
	return u.statusLocked(), nil
}

func (u *Updater) check(ctx context.Context) (*Feed, *Artifact, error) {
	rec, err := LoadRecord(u.cfg.DataDir)
	if err != nil {
		return nil, nil, err
	}
	body, status, err := u.get(ctx, u.cfg.FeedURL+"/"+FeedFile)
	if err != nil {
		return nil, nil, err
	}
	if status != http.StatusOK {
		return nil, nil, fmt.Errorf("%w: %s answered %d", ErrUnreachable, FeedFile, status)
	}
	sig, status, err := u.get(ctx, u.cfg.FeedURL+"/"+SignatureFile)
	if err != nil {
		return nil, nil, err
	}
	if status == http.StatusNotFound {
		sig = nil
	} else if status != http.StatusOK {
		return nil, nil, fmt.Errorf("%w: %s answered %d", ErrUnreachable, SignatureFile, status)
	}
	feed, err := VerifyFeed(body, sig, u.cfg.Keys)
	if err != nil {
		return nil, nil, err
	}
	d, err := Decide(feed, u.cfg.Current, rec.NewestSeen, u.cfg.GOOS, u.cfg.GOARCH, u.cfg.Kind, u.cfg.Now())
	if err != nil {
		return nil, nil, err
	}
	if rec.NewestSeen == "" || CompareVersions(feed.Version, rec.NewestSeen) > 0 {
		rec.NewestSeen = feed.Version
		if err := SaveRecord(u.cfg.DataDir, rec); err != nil {
			return nil, nil, err
		}
	}
	if !d.Newer || d.Artifact == nil || rec.IsBad(feed.Version) {
		return feed, nil, nil
	}
	a := *d.Artifact
	ref, err := url.Parse(a.URL)
	if err != nil {
		return nil, nil, refuse("the artifact's url %q is not a URL", a.URL)
	}
	base, _ := url.Parse(u.cfg.FeedURL + "/")
	a.URL = base.ResolveReference(ref).String()
	return feed, &a, nil
}

func (u *Updater) get(ctx context.Context, address string) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, address, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("User-Agent", u.UserAgent())
	resp, err := u.cfg.Client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxFeedBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	if len(b) > MaxFeedBytes {
		return nil, 0, refuse("%s is larger than %d bytes", address, MaxFeedBytes)
	}
	return b, resp.StatusCode, nil
}

// Stage downloads and verifies the offered update (after Check); the
// state goes downloading, then ready (or error / refused).
func (u *Updater) Stage(ctx context.Context) (Status, error) {
	u.mu.Lock()
	if u.artifact == nil || u.busy {
		s := u.statusLocked()
		u.mu.Unlock()
		return s, nil
	}
	if u.staged != "" {
		u.state = StateReady
		s := u.statusLocked()
		u.mu.Unlock()
		return s, nil
	}
	a := *u.artifact
	u.busy = true
	u.set(StateDownloading, nil)
	u.mu.Unlock()
	u.changed()
	defer u.changed()

	st := &Stager{Client: u.cfg.Client, Dir: filepath.Join(Dir(u.cfg.DataDir), "staging"), UserAgent: u.UserAgent(),
		FreeSpace: u.cfg.FreeSpace, WrapWriter: u.cfg.WrapWriter}
	path, err := st.Stage(ctx, a)

	u.mu.Lock()
	defer u.mu.Unlock()
	u.busy = false
	switch {
	case err != nil && IsRefusal(err):
		u.set(StateRefused, err)
	case err != nil:
		u.set(StateError, err)
	default:
		u.staged = path
		u.set(StateReady, nil)
	}
	return u.statusLocked(), err
}

// CheckAndStage checks the feed and stages what it offers.
func (u *Updater) CheckAndStage(ctx context.Context) (Status, error) {
	s, err := u.Check(ctx)
	if err != nil || s.Available == nil {
		return s, err
	}
	return u.Stage(ctx)
}

// Applied is what the caller does after Apply.
type Applied struct {
	Version string
	// Restart: start Binary again and quit (tar, deb, mac).
	// Quit only: the installer replaces Parley and starts it (nsis).
	Restart bool
	Binary  string
}

// Apply installs the staged update per install kind and records it as
// pending until the new version marks itself healthy.
func (u *Updater) Apply(ctx context.Context) (Applied, error) {
	u.mu.Lock()
	if u.staged == "" || u.state != StateReady || u.busy {
		u.mu.Unlock()
		return Applied{}, ErrNothingReady
	}
	u.busy = true
	staged, version := u.staged, u.feed.Version
	u.mu.Unlock()

	out, err := u.apply(ctx, staged, version)

	u.mu.Lock()
	u.busy = false
	if err != nil {
		u.set(StateError, err)
	}
	u.mu.Unlock()
	if err != nil {
		u.changed()
	}
	return out, err
}

func (u *Updater) binary() (string, error) {
	if u.cfg.Binary != "" {
		return u.cfg.Binary, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", err
	}
	if u.cfg.Kind == KindMac {
		// Parley.app/Contents/MacOS/parley
		return filepath.Dir(filepath.Dir(filepath.Dir(exe))), nil
	}
	return exe, nil
}

func (u *Updater) apply(ctx context.Context, staged, version string) (Applied, error) {
	bin, err := u.binary()
	if err != nil {
		return Applied{}, err
	}
	p := &Pending{From: u.cfg.Current, To: version, Kind: u.cfg.Kind, Binary: bin, AppliedAt: u.cfg.Now()}
	out := Applied{Version: version, Restart: true, Binary: bin}
	switch u.cfg.Kind {
	case KindTar:
		backup, err := ApplyTar(staged, bin)
		if err != nil {
			return Applied{}, err
		}
		p.Backup = backup
	case KindDeb:
		c, err := DebCommand(staged, u.cfg.Root(), u.cfg.LookPath)
		if err != nil {
			return Applied{}, err
		}
		if err := u.cfg.Run(ctx, c); err != nil {
			return Applied{}, fmt.Errorf("the package manager did not install the update: %w", err)
		}
	case KindNSIS:
		if err := u.cfg.Run(ctx, NSISCommand(staged, filepath.Dir(bin))); err != nil {
			return Applied{}, fmt.Errorf("start the installer: %w", err)
		}
		out.Restart = false
	case KindMac:
		team := u.cfg.Team
		if team == "" {
			teamOf := u.cfg.TeamOf
			if teamOf == nil {
				teamOf = CodesignTeam
			}
			if team, err = teamOf(bin); err != nil || team == "" {
				return Applied{}, fmt.Errorf("this app's signing team is unknown, so the update's cannot be checked: %v", err)
			}
		}
		out.Binary = BundleExecutable(bin)
		unpack := filepath.Join(filepath.Dir(bin), ".parley-update")
		os.RemoveAll(unpack)
		for _, c := range MacCommands(staged, unpack, team) {
			if err := u.cfg.Run(ctx, c); err != nil {
				os.RemoveAll(unpack)
				return Applied{}, fmt.Errorf("%s: %w", c.Path, err)
			}
		}
		backup, err := SwapBundle(filepath.Join(unpack, "Parley.app"), bin)
		os.RemoveAll(unpack)
		if err != nil {
			return Applied{}, err
		}
		p.Backup = backup
	default:
		return Applied{}, ErrNoKind
	}
	rec, err := LoadRecord(u.cfg.DataDir)
	if err != nil {
		return Applied{}, err
	}
	rec.Pending = p
	if err := SaveRecord(u.cfg.DataDir, rec); err != nil {
		return Applied{}, err
	}
	return out, nil
}

func runCommand(ctx context.Context, c Command) error {
	if !c.Wait {
		ctx = context.Background() // it outlives Parley
	}
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if c.Env != nil {
		cmd.Env = append(os.Environ(), c.Env...)
	}
	rawCommandLine(cmd, c.WindowsCmdLine)
	if !c.Wait {
		if err := cmd.Start(); err != nil {
			return err
		}
		return cmd.Process.Release()
	}
	// sudo's or pkexec's text prompt reads the terminal.
	cmd.Stdin = os.Stdin
	return cmd.Run()
}

// ForBuild makes the Updater of this build: its version, its built-in keys
// (main.updateKeys) and install kind (main.installKind); PARLEY_UPDATE_URL
// (through getenv) overrides the feed. Unreadable keys leave a build that
// never updates itself, and say why.
func ForBuild(version, keys, kind, dataDir string, getenv func(string) string) (*Updater, error) {
	parsed, err := ParseKeys(keys)
	if err != nil || len(parsed) == 0 {
		kind = KindNone
	}
	return New(Config{Current: version, Kind: kind, Keys: parsed, FeedURL: getenv(FeedURLEnv), DataDir: dataDir,
		DBPath: filepath.Join(dataDir, "parley.db")}), err
}
