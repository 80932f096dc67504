package questions

import (
	"log/slog"
	"time"
)

// Defaults of SPEC §1 "Lifecycle and limits".
const (
	DefaultTimeout        = 5 * time.Minute
	DefaultRateInterval   = 5 * time.Second
	DefaultMaxPending     = 10
	DefaultRetainResolved = 1000
)

// Config tunes the Manager. The zero value means: wait forever, no rate
// limit, no pending cap.
type Config struct {
	Timeout      time.Duration // per card; 0 (or less) = wait forever
	RateInterval time.Duration // min spacing of cards per conversation; 0 = unlimited
	MaxPending   int           // cards pending across all conversations; 0 = unlimited
	// RetainResolved is how many cards that left "pending" stay in memory,
	// so repeated answers get a conflict instead of "not found" and a
	// timed-out card can still be answered late. 0 = DefaultRetainResolved.
	RetainResolved int
	Clock          Clock        // nil = real clock
	Logger         *slog.Logger // nil = slog.Default()
	// OnLateAnswer is called in its own goroutine after a timed-out card was
	// answered (status answered_late), so the app can start the follow-up run.
	OnLateAnswer func(c *Card)
}

// DefaultConfig is the configuration of SPEC §1: 5 minute timeout, one card
// per 5 s per conversation, at most 10 pending cards.
func DefaultConfig() Config {
	return Config{
		Timeout:        DefaultTimeout,
		RateInterval:   DefaultRateInterval,
		MaxPending:     DefaultMaxPending,
		RetainResolved: DefaultRetainResolved,
	}
}

func (c Config) retain() int {
	if c.RetainResolved <= 0 {
		return DefaultRetainResolved
	}
	return c.RetainResolved
}
