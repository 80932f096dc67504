package llm

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// longTexts keeps a request's long message texts out of langchaingo's
// encoding of the body. langchaingo v0.1.14 encodes each message with its
// own MarshalJSON inside the request's own MarshalJSON, so encoding/json
// encodes a text once and then checks and copies it twice more (compact):
// about 7 ns a byte, 55 µs for the 2,000-token memory block (SPEC §14,
// issue #41) before the request leaves. A long text goes in as a short
// placeholder, unique to the request, and the transport puts the text in
// its place, encoded once.
type longTexts struct {
	nonce string
	texts []string
}

// spliceMin is the length from which a text is spliced: below it the
// passes cost less than the splice.
const spliceMin = 1024

// newLongTexts returns a splice for one request's body (its nonce is
// drawn with the first long text: most requests have none).
func newLongTexts() *longTexts { return &longTexts{} }

// stand returns what goes into the body for text: text itself when it is
// short, else a placeholder (letters, digits and dashes: JSON encodes it
// as it is).
func (l *longTexts) stand(text string) string {
	if l == nil || len(text) < spliceMin {
		return text
	}
	if l.nonce == "" {
		var b [8]byte
		_, _ = rand.Read(b[:]) // never fails (crypto/rand)
		l.nonce = hex.EncodeToString(b[:])
	}
	l.texts = append(l.texts, text)
	return l.placeholder(len(l.texts) - 1)
}

// any reports whether a text was spliced.
func (l *longTexts) any() bool { return l != nil && len(l.texts) > 0 }

func (l *longTexts) placeholder(i int) string {
	return fmt.Sprintf("parley-text-%s-%d-", l.nonce, i)
}

// splice puts the texts in place of their placeholders in body, each
// JSON-encoded (a placeholder stands inside a JSON string, alone or, when
// langchaingo joins the system prompt to the user's message, with other
// text). Each placeholder must be there once.
func (l *longTexts) splice(body []byte) ([]byte, error) {
	if !l.any() {
		return body, nil
	}
	size := len(body)
	for _, t := range l.texts {
		size += len(t) + len(t)/8
	}
	out := bytes.NewBuffer(make([]byte, 0, size))
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	rest := body
	for i, t := range l.texts {
		p := l.placeholder(i)
		at := bytes.Index(rest, []byte(p))
		if at < 0 {
			return nil, fmt.Errorf("put message %d's text in the request: not found", i)
		}
		out.Write(rest[:at])
		start := out.Len()
		if err := enc.Encode(t); err != nil {
			return nil, fmt.Errorf("put message %d's text in the request: %w", i, err)
		}
		// Encode wrote "text"\n: keep what is between the quotes.
		enc := out.Bytes()[start:]
		inner := len(enc) - 3
		copy(enc, enc[1:1+inner])
		out.Truncate(start + inner)
		rest = rest[at+len(p):]
	}
	out.Write(rest)
	return out.Bytes(), nil
}
