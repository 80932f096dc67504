package events

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBrokerFansOutInOrderWithConversationID(t *testing.T) {
	b := NewBroker(8)
	s1, s2 := b.Subscribe(), b.Subscribe()
	defer s1.Close()
	defer s2.Close()
	b.Emit(MessageDelta, map[string]any{"conversationId": "c1", "delta": "He"})
	b.Emit(MessageDelta, map[string]any{"conversationId": "c1", "delta": "llo"})
	for _, s := range []*Subscription{s1, s2} {
		for _, want := range []string{"He", "llo"} {
			m := <-s.C
			var p map[string]string
			require.NoError(t, json.Unmarshal(m.Data, &p))
			require.Equal(t, MessageDelta, m.Name, "got %+v %v, want delta %q", m, p, want)
			require.Equal(t, "c1", m.ConversationID, "got %+v %v, want delta %q", m, p, want)
			require.Equal(t, want, p["delta"], "got %+v %v", m, p)
		}
	}
}

func TestBrokerDropsSlowSubscriberWithoutBlocking(t *testing.T) {
	b := NewBroker(2)
	slow := b.Subscribe()
	fast := b.Subscribe()
	defer fast.Close()
	for i := 0; i < 3; i++ {
		b.Emit(ConversationState, map[string]any{"conversationId": "c", "i": i})
		<-fast.C
	}
	require.Equal(t, 1, b.Subscribers(), "subscribers (slow one dropped)")
	n := 0
	for range slow.C {
		n++
	}
	require.Equal(t, 2, n, "slow subscriber's buffered events before close")
	slow.Close() // closing again is safe
}

func TestRecorderKeepsOrder(t *testing.T) {
	r := NewRecorder()
	Multi{r, Discard}.Emit("a", 1)
	r.Emit("b", 2)
	require.Equal(t, []string{"a", "b"}, r.Names(), "names")
}

// Issue 23: a payload's nil lists reach SSE clients as [].
func TestBrokerSendsNilListsAsEmptyArrays(t *testing.T) {
	b := NewBroker(4)
	sub := b.Subscribe()
	defer sub.Close()
	type payload struct {
		ConversationID string   `json:"conversationId"`
		Items          []string `json:"items"`
	}
	b.Emit("x", payload{ConversationID: "c1"})
	msg := <-sub.C
	require.JSONEq(t, `{"conversationId":"c1","items":[]}`, string(msg.Data))
	require.Equal(t, "c1", msg.ConversationID)
}

// With no subscriber an event is dropped (nothing is marshalled); one who
// subscribes afterwards gets the events emitted from then on.
func TestBrokerWithoutSubscribersDropsEventsAndLaterOnesArrive(t *testing.T) {
	b := NewBroker(4)
	b.Emit(MessageDelta, MessageDeltaPayload{ConversationID: "c1", Delta: "before"})
	s := b.Subscribe()
	defer s.Close()
	b.Emit(MessageDelta, MessageDeltaPayload{ConversationID: "c1", Delta: "after"})
	m := <-s.C
	require.Equal(t, "c1", m.ConversationID)
	require.JSONEq(t, `{"conversationId":"c1","delta":"after","messageId":"","runId":""}`, string(m.Data))
	select {
	case extra := <-s.C:
		require.Fail(t, "an event emitted before the subscription arrived", "%s", extra.Data)
	default:
	}
}
