package store

import (
	"reflect"
	"testing"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

func TestConversationCRUD(t *testing.T) {
	s := newStore(t)
	c, err := s.CreateConversation(ctx, "First", "coder")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID == "" || c.CreatedAt.IsZero() || !c.UpdatedAt.Equal(c.CreatedAt) || c.Pinned {
		t.Fatalf("created: %+v", c)
	}
	got, err := s.GetConversation(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("get = %+v, want %+v", got, c)
	}

	if err := s.RenameConversation(ctx, c.ID, "Renamed"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPinned(ctx, c.ID, true); err != nil {
		t.Fatal(err)
	}
	got, _ = s.GetConversation(ctx, c.ID)
	if got.Title != "Renamed" || !got.Pinned || got.Assistant != "coder" {
		t.Errorf("after rename and pin: %+v", got)
	}
	if err := s.SetPinned(ctx, c.ID, false); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.GetConversation(ctx, c.ID); got.Pinned {
		t.Error("still pinned")
	}

	if err := s.DeleteConversation(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.GetConversation(ctx, c.ID)
	wantNotFound(t, err)
	wantNotFound(t, s.DeleteConversation(ctx, c.ID))
	wantNotFound(t, s.RenameConversation(ctx, "missing", "x"))
	wantNotFound(t, s.SetPinned(ctx, "missing", true))
}

func TestDeleteConversationCascades(t *testing.T) {
	s := newStore(t)
	keep := mustConversation(t, s, "keep")
	mustAppend(t, s, keep.ID, chat.RoleUser, "keep this walrus")
	gone := mustConversation(t, s, "gone")
	mustAppend(t, s, gone.ID, chat.RoleUser, "delete this walrus")
	mustAppend(t, s, gone.ID, chat.RoleTool, "tool output")
	if err := s.SaveRun(ctx, &chat.Run{ID: "r1", ConversationID: gone.ID, Status: chat.RunCompleted}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCard(ctx, &questions.Card{ID: "q1", ConversationID: gone.ID, Status: questions.StatusPending,
		Questions: []questions.Question{{Question: "?"}}}); err != nil {
		t.Fatal(err)
	}

	if err := s.DeleteConversation(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]int{"messages": 1, "runs": 0, "cards": 0, "conversations": 1} {
		if n := count(t, s, "SELECT count(*) FROM "+table); n != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}
	page, _, err := s.ListConversations(ctx, ListOptions{Query: "walrus"})
	if err != nil || len(page) != 1 || page[0].ID != keep.ID {
		t.Errorf("search after delete: %v %+v", err, page)
	}
	for _, idx := range []string{"message_search", "conversation_search"} {
		if _, err := s.writer.Exec("INSERT INTO " + idx + "(" + idx + ") VALUES ('integrity-check')"); err != nil {
			t.Errorf("%s integrity: %v", idx, err)
		}
	}
}

func TestMessagesRoundTripInOrder(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	same := at("2026-03-01T10:00:00.123456789Z")
	in := []chat.Message{
		{Role: chat.RoleUser, Content: "What is 2+2?", CreatedAt: same},
		{Role: chat.RoleAssistant, RunID: "run-1", CreatedAt: same,
			ToolCalls: []chat.ToolCall{{ID: "call-1", Name: "calculator", Arguments: `{"expression":"2+2"}`}}},
		{Role: chat.RoleTool, RunID: "run-1", Content: "4", ToolCallID: "call-1", ToolName: "calculator", CreatedAt: same},
		{Role: chat.RoleAssistant, RunID: "run-1", Content: "It is **4**.", CreatedAt: same},
		{ID: "my-id", Role: chat.RoleSystem, Content: "note"},
	}
	for i := range in {
		in[i].ConversationID = c.ID
		if err := s.AppendMessage(ctx, &in[i]); err != nil {
			t.Fatal(err)
		}
		if in[i].ID == "" || in[i].CreatedAt.IsZero() {
			t.Fatalf("ID/CreatedAt not filled: %+v", in[i])
		}
	}
	if in[4].ID != "my-id" {
		t.Errorf("given id replaced: %q", in[4].ID)
	}
	got, err := s.Messages(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("messages differ:\n got %+v\nwant %+v", got, in)
	}
}

func TestAppendMessageBumpsUpdatedAt(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	time.Sleep(2 * time.Millisecond)
	m := mustAppend(t, s, c.ID, chat.RoleUser, "hi")
	got, _ := s.GetConversation(ctx, c.ID)
	if !got.UpdatedAt.After(c.UpdatedAt) || got.UpdatedAt.Before(m.CreatedAt) {
		t.Errorf("updated_at %v, created %v, message %v", got.UpdatedAt, c.UpdatedAt, m.CreatedAt)
	}
	if !got.CreatedAt.Equal(c.CreatedAt) {
		t.Error("created_at changed")
	}
}

func TestMessageErrors(t *testing.T) {
	s := newStore(t)
	wantNotFound(t, s.AppendMessage(ctx, &chat.Message{ConversationID: "missing", Role: chat.RoleUser}))
	_, err := s.Messages(ctx, "missing")
	wantNotFound(t, err)
	c := mustConversation(t, s, "t")
	if err := s.AppendMessage(ctx, &chat.Message{ConversationID: c.ID, Role: "wizard"}); err == nil {
		t.Error("unknown role accepted")
	}
	if err := s.AppendMessage(ctx, &chat.Message{Role: chat.RoleUser}); err == nil {
		t.Error("empty conversation id accepted")
	}
	m := mustAppend(t, s, c.ID, chat.RoleUser, "once")
	dup := &chat.Message{ID: m.ID, ConversationID: c.ID, Role: chat.RoleUser}
	if err := s.AppendMessage(ctx, dup); err == nil {
		t.Error("duplicate message id accepted")
	}
	msgs, err := s.Messages(ctx, c.ID)
	if err != nil || len(msgs) != 1 {
		t.Errorf("after refused appends: %v %d messages", err, len(msgs))
	}
	empty := mustConversation(t, s, "empty")
	if msgs, err := s.Messages(ctx, empty.ID); err != nil || msgs == nil || len(msgs) != 0 {
		t.Errorf("empty conversation: %v %#v", err, msgs)
	}
}

func TestTouchConversationMovesItUp(t *testing.T) {
	s := newStore(t)
	a := mustConversation(t, s, "a")
	b := mustConversation(t, s, "b")
	if _, err := s.writer.Exec(`UPDATE conversations SET updated_at = ? WHERE id = ?`,
		formatTime(at("2020-01-01T00:00:00Z")), a.ID); err != nil {
		t.Fatal(err)
	}
	page, _, err := s.ListConversations(ctx, ListOptions{})
	if err != nil || len(page) != 2 || page[0].ID != b.ID {
		t.Fatalf("before touch: %v %+v", err, page)
	}
	if err := s.TouchConversation(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	page, _, err = s.ListConversations(ctx, ListOptions{})
	if err != nil || len(page) != 2 || page[0].ID != a.ID {
		t.Fatalf("after touch: %v %+v", err, page)
	}
	wantNotFound(t, s.TouchConversation(ctx, "missing"))
}

func TestSchemaTableNames(t *testing.T) {
	s := newStore(t)
	for _, name := range []string{"conversations", "messages", "runs", "cards", "settings", "profiles"} {
		if count(t, s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name) != 1 {
			t.Errorf("table %s missing", name)
		}
	}
}
