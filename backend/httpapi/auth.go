package httpapi

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// CookieName holds the token after a login through the login URL.
const CookieName = "parley_token"

// TokenFile is where the API token lives inside the data folder.
const TokenFile = "api-token"

// LoadOrCreateToken returns the data folder's API token, creating a random
// one (0600) on first use.
func LoadOrCreateToken(dataDir string) (string, error) {
	path := filepath.Join(dataDir, TokenFile)
	b, err := os.ReadFile(path)
	if err == nil {
		if tok := strings.TrimSpace(string(b)); len(tok) >= 32 {
			return tok, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read API token %s: %w", path, err)
	}
	tok := randomHex(32)
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write API token %s: %w", path, err)
	}
	return tok, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// auth checks the bearer token or cookie, and Host and Origin against the
// loopback names of the listening port (no DNS rebinding, no cross-site
// requests). One-time login codes trade for the cookie.
type auth struct {
	token string
	mu    sync.Mutex
	codes map[string]bool // one-time login codes, unused
}

func newAuth(token string) *auth { return &auth{token: token, codes: map[string]bool{}} }

// newLoginCode returns a code the login URL accepts once.
func (a *auth) newLoginCode() string {
	code := randomHex(16)
	a.mu.Lock()
	a.codes[code] = true
	a.mu.Unlock()
	return code
}

func (a *auth) useLoginCode(code string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.codes[code] {
		return false
	}
	delete(a.codes, code)
	return true
}

func (a *auth) tokenOK(candidate string) bool {
	return candidate != "" && subtle.ConstantTimeCompare([]byte(candidate), []byte(a.token)) == 1
}

// authorized reports whether the request carries the token.
func (a *auth) authorized(r *http.Request) bool {
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		return a.tokenOK(strings.TrimSpace(strings.TrimPrefix(h, "Bearer ")))
	}
	if c, err := r.Cookie(CookieName); err == nil {
		return a.tokenOK(c.Value)
	}
	return false
}

// loopbackHost reports whether a Host header names this machine's loopback.
func loopbackHost(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether an Origin header is absent or names a loopback
// host (the UI served by this server).
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	rest, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		return false
	}
	return loopbackHost(rest) && strings.EqualFold(rest, r.Host)
}
