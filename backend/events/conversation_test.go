package events

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// decodedConversation is what a reader of the event's JSON finds: the
// broker's conversationId must be that, however it gets it.
func decodedConversation(t *testing.T, data []byte) string {
	var head struct {
		ConversationID string `json:"conversationId"`
	}
	_ = json.Unmarshal(data, &head)
	return head.ConversationID
}

type untaggedConversation struct{ ConversationID, Other string }

type omittedConversation struct {
	ConversationID string `json:"conversationId,omitempty"`
	N              int    `json:"n"`
}

type hiddenConversation struct {
	ConversationID string `json:"-"`
	Conv           string `json:"conv"`
}

type quotedConversation struct {
	ConversationID string `json:"conversationId,string"`
}

type twoConversations struct {
	A string `json:"conversationId"`
	B string `json:"CONVERSATIONID"`
}

type selfMarshalled struct{ ConversationID string }

func (s selfMarshalled) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"conversationId": "from-method-" + s.ConversationID})
}

type upperID string

func (u upperID) MarshalText() ([]byte, error) { return []byte(strings.ToUpper(string(u))), nil }

type textConversation struct {
	ConversationID upperID `json:"conversationId"`
}

type Inner struct {
	ConversationID string `json:"conversationId"`
}

type embeddedConversation struct {
	Inner
	Delta string `json:"delta"`
}

type shadowedConversation struct {
	Inner
	ConversationID string `json:"conversationId"`
}

func TestConversationOfReadsWhatTheJSONSays(t *testing.T) {
	long := strings.Repeat("a long reply ", 6000)
	payloads := map[string]any{
		"delta":          MessageDeltaPayload{ConversationID: "c1", Delta: "He", MessageID: "m", RunID: "r"},
		"delta pointer":  &MessageDeltaPayload{ConversationID: "c2"},
		"nil pointer":    (*MessageDeltaPayload)(nil),
		"message done":   MessageDonePayload{ConversationID: "c3", Message: chat.Message{ID: "m", ConversationID: "other", Content: long}},
		"updated":        TitleChanged("c4", "A title"),
		"no field":       struct{ Delta string }{"x"},
		"map":            map[string]any{"conversationId": "c5", "delta": "x"},
		"map without":    map[string]any{"delta": "x"},
		"untagged":       untaggedConversation{ConversationID: "c6"},
		"omitted empty":  omittedConversation{N: 1},
		"omitted set":    omittedConversation{ConversationID: "c7"},
		"hidden":         hiddenConversation{ConversationID: "c8", Conv: "c9"},
		"quoted":         quotedConversation{ConversationID: "c10"},
		"two keys":       twoConversations{A: "c11", B: "c12"},
		"self marshals":  selfMarshalled{ConversationID: "c13"},
		"text marshals":  textConversation{ConversationID: "c14"},
		"embedded":       embeddedConversation{Inner: Inner{ConversationID: "c15"}, Delta: "x"},
		"shadowed":       shadowedConversation{Inner: Inner{ConversationID: "c16"}, ConversationID: "c17"},
		"string":         "c18",
		"nil":            nil,
		"pointer to map": &map[string]string{"conversationId": "c19"},
	}
	for name, p := range payloads {
		data, err := json.Marshal(p)
		require.NoError(t, err, name)
		assert.Equal(t, decodedConversation(t, data), conversationOf(p, data), "%s: %s", name, data)
	}
}

// The payloads the app sends most (a streamed piece, a stored message) are
// read from their field, not decoded again: the point of conversationOf.
func TestConversationOfReadsPlainPayloadsWithoutDecoding(t *testing.T) {
	for _, p := range []any{MessageDeltaPayload{}, MessageReasoningPayload{}, MessageDonePayload{}, RunErrorPayload{}, ConversationUpdatedPayload{}} {
		f := conversationFieldOf(reflect.TypeOf(p))
		assert.True(t, f.plain, "%T is read from its field", p)
		assert.GreaterOrEqual(t, f.index, 0, "%T has the field", p)
	}
	// Not JSON at all: only a payload read from its field gives a conversation.
	assert.Equal(t, "c1", conversationOf(MessageDeltaPayload{ConversationID: "c1"}, []byte("not json")))
	assert.Equal(t, "", conversationOf(map[string]string{"conversationId": "c1"}, []byte("not json")))
	for _, p := range []any{selfMarshalled{}, textConversation{}, embeddedConversation{}, twoConversations{}, quotedConversation{}} {
		assert.False(t, conversationFieldOf(reflect.TypeOf(p)).plain, "%T is decoded", p)
	}
}

// BenchmarkBrokerEmit is one event through the broker, to one subscriber and
// to none (the window app without an SSE client): a streamed piece, and a
// stored reply of 76 KB (the end of a long stream).
func BenchmarkBrokerEmit(b *testing.B) {
	long := strings.Repeat("a long reply ", 6000)
	for _, c := range []struct {
		name    string
		payload any
	}{
		{"delta", MessageDeltaPayload{ConversationID: "c1", Delta: " word", MessageID: "m1", RunID: "r1"}},
		{"message-done-76KB", MessageDonePayload{ConversationID: "c1", RunID: "r1", Message: chat.Message{ID: "m1", ConversationID: "c1", Role: chat.RoleAssistant, Content: long}}},
	} {
		b.Run(c.name+"/no-subscriber", func(b *testing.B) {
			br := NewBroker(8)
			b.ReportAllocs()
			for b.Loop() {
				br.Emit(MessageDone, c.payload)
			}
		})
		b.Run(c.name, func(b *testing.B) {
			br := NewBroker(8)
			sub := br.Subscribe()
			defer sub.Close()
			b.ReportAllocs()
			for b.Loop() {
				br.Emit(MessageDone, c.payload)
				if m := <-sub.C; m.ConversationID != "c1" {
					b.Fatalf("conversation %q", m.ConversationID)
				}
			}
		})
	}
}
