package agentinbox

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// TokenPrefix starts every agent token, so one is told from the API token
// (and found by secret scanners).
const TokenPrefix = "parley_agent_"

// TokenStore keeps agent tokens by their SHA-256 hash.
type TokenStore interface {
	CreateAgentToken(ctx context.Context, name, tokenHash string) (api.AgentToken, error)
	AgentTokens(ctx context.Context) ([]api.AgentToken, error)
	AgentTokenByHash(ctx context.Context, tokenHash string) (api.AgentToken, error)
	DeleteAgentToken(ctx context.Context, id string) error
	TouchAgentToken(ctx context.Context, id string, at time.Time) error
}

// ErrTokenNotFound: no agent token with that id.
var ErrTokenNotFound error = fault.New(fault.NotFound, i18n.M("agents.tokenNotFound"))

// touchEvery bounds how often a token's last use is written.
const touchEvery = time.Minute

type tokens struct {
	store TokenStore
	log   *slog.Logger

	mu      sync.Mutex
	touched map[string]time.Time // token id -> last write of last_used_at
}

func newTokens(s TokenStore, log *slog.Logger) *tokens {
	return &tokens{store: s, log: log, touched: map[string]time.Time{}}
}

// HashToken is how a token is stored.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// NewSecret returns a new random agent token secret (TokenPrefix + 64 hex).
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make an agent token: %w", err)
	}
	return TokenPrefix + hex.EncodeToString(b), nil
}

// CreateToken makes an agent token; the secret is returned this once.
func (t *tokens) CreateToken(ctx context.Context, name string) (api.NewAgentToken, error) {
	name, err := CleanAgentName(name)
	if err != nil {
		return api.NewAgentToken{}, err
	}
	secret, err := NewSecret()
	if err != nil {
		return api.NewAgentToken{}, err
	}
	tok, err := t.store.CreateAgentToken(ctx, name, HashToken(secret))
	if err != nil {
		return api.NewAgentToken{}, err
	}
	t.log.Info("agent token made", "id", tok.ID, "name", name)
	return api.NewAgentToken{ID: tok.ID, Name: tok.Name, Token: secret}, nil
}

// Tokens lists the agent tokens (never their secrets).
func (t *tokens) Tokens(ctx context.Context) ([]api.AgentToken, error) {
	return t.store.AgentTokens(ctx)
}

// RevokeToken deletes a token: it stops working at once (every request
// looks the token up).
func (t *tokens) RevokeToken(ctx context.Context, id string) error {
	err := t.store.DeleteAgentToken(ctx, id)
	if errors.Is(err, chat.ErrNotFound) {
		return ErrTokenNotFound
	}
	if err == nil {
		t.log.Info("agent token revoked", "id", id)
	}
	return err
}

// VerifyToken finds the agent token a request carries; ok is false for
// anything else. It records the token's use (at most once a minute).
func (t *tokens) VerifyToken(ctx context.Context, secret string) (api.AgentToken, bool) {
	if !strings.HasPrefix(secret, TokenPrefix) {
		return api.AgentToken{}, false
	}
	tok, err := t.store.AgentTokenByHash(ctx, HashToken(secret))
	if err != nil {
		if !errors.Is(err, chat.ErrNotFound) {
			t.log.Warn("check agent token", "err", err)
		}
		return api.AgentToken{}, false
	}
	now := time.Now().UTC()
	t.mu.Lock()
	due := now.Sub(t.touched[tok.ID]) >= touchEvery
	if due {
		t.touched[tok.ID] = now
	}
	t.mu.Unlock()
	if due {
		if err := t.store.TouchAgentToken(ctx, tok.ID, now); err != nil {
			t.log.Warn("record agent token use", "id", tok.ID, "err", err)
		}
	}
	return tok, true
}
