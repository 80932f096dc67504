package events

import (
	"encoding/json"
	"testing"
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
			if err := json.Unmarshal(m.Data, &p); err != nil {
				t.Fatal(err)
			}
			if m.Name != MessageDelta || m.ConversationID != "c1" || p["delta"] != want {
				t.Fatalf("got %+v %v, want delta %q", m, p, want)
			}
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
	if b.Subscribers() != 1 {
		t.Fatalf("subscribers = %d, want 1 (slow one dropped)", b.Subscribers())
	}
	n := 0
	for range slow.C {
		n++
	}
	if n != 2 {
		t.Fatalf("slow subscriber got %d buffered events before close, want 2", n)
	}
	slow.Close() // closing again is safe
}

func TestRecorderKeepsOrder(t *testing.T) {
	r := NewRecorder()
	Multi{r, Discard}.Emit("a", 1)
	r.Emit("b", 2)
	if got := r.Names(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("names = %v", got)
	}
}
