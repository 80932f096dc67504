// Package notify shows native desktop notifications (a card arrived while
// Parley was in the background). The sending itself is injected: the app
// passes beeep.Notify (D-Bus org.freedesktop.Notifications on Linux,
// osascript on macOS, toast notifications on Windows); tests pass a fake.
package notify

import (
	"errors"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/time/rate"
)

// Sender shows one notification; icon may be "".
type Sender func(title, message, icon string) error

// Longest title and body, in characters; longer ones are cut with "…".
const (
	TitleMax = 80
	BodyMax  = 200
)

// ErrThrottled is returned when notifications come faster than the limit:
// a burst of cards gives one notification, the inbox shows the rest.
var ErrThrottled = errors.New("notification skipped: too many in a short time")

// Notifier sanitizes and rate-limits notifications.
type Notifier struct {
	send     Sender
	escape   bool
	interval time.Duration
	mu       sync.Mutex
	// limits holds one limiter per title: a burst of an agent's notices
	// must not swallow the notification of a card that follows them. The
	// titles are the app's own few (a card, a notice), so the map stays small.
	limits map[string]*rate.Limiter
}

// New returns a Notifier that sends at most one notification of a title per
// interval (bursts of one). escapeMarkup is for notification servers that
// render a subset of HTML in bodies (the freedesktop one, on Linux), so text
// from the model shows as text there.
func New(send Sender, interval time.Duration, escapeMarkup bool) *Notifier {
	return &Notifier{send: send, escape: escapeMarkup, interval: interval, limits: map[string]*rate.Limiter{}}
}

// Notify shows title and body as plain text.
func (n *Notifier) Notify(title, body string) error {
	title = clean(title, TitleMax)
	if title == "" {
		title = "Parley"
	}
	body = clean(body, BodyMax)
	if n.escape {
		body = markupEscaper.Replace(body)
	}
	n.mu.Lock()
	limit, ok := n.limits[title]
	if !ok {
		limit = rate.NewLimiter(rate.Every(n.interval), 1)
		n.limits[title] = limit
	}
	ok = limit.Allow()
	n.mu.Unlock()
	if !ok {
		return ErrThrottled
	}
	return n.send(title, body, "")
}

var markupEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// clean makes s one line of plain text of at most max characters.
func clean(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = strings.TrimSpace(string(r[:max-1])) + "…"
	}
	return s
}
