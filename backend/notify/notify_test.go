package notify

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

type sent struct{ title, body string }

func recorder() (*[]sent, Sender) {
	var got []sent
	return &got, func(title, message, _ string) error {
		got = append(got, sent{title, message})
		return nil
	}
}

func TestNotifyCleansText(t *testing.T) {
	cases := []struct {
		title, body, wantTitle, wantBody string
		escape                           bool
	}{
		{"Parley has a question", "Which colour?", "Parley has a question", "Which colour?", true},
		{"", "x", "Parley", "x", false},
		{"  a\n\tb  ", "line one\nline two\x07", "a b", "line one line two", false},
		{"t", `<img src=x onerror=alert(1)> & <b>bold</b>`, "t", "&lt;img src=x onerror=alert(1)&gt; &amp; &lt;b&gt;bold&lt;/b&gt;", true},
		{"t", `<b>bold</b> & co`, "t", `<b>bold</b> & co`, false},
	}
	for _, c := range cases {
		got, send := recorder()
		if err := New(send, time.Nanosecond, c.escape).Notify(c.title, c.body); err != nil {
			t.Fatal(err)
		}
		if len(*got) != 1 || (*got)[0] != (sent{c.wantTitle, c.wantBody}) {
			t.Errorf("Notify(%q, %q) sent %+v, want %q / %q", c.title, c.body, *got, c.wantTitle, c.wantBody)
		}
	}
}

func TestNotifyCutsLongText(t *testing.T) {
	got, send := recorder()
	if err := New(send, time.Nanosecond, false).Notify(strings.Repeat("t", 500), strings.Repeat("é", 500)); err != nil {
		t.Fatal(err)
	}
	s := (*got)[0]
	if n := utf8.RuneCountInString(s.title); n != TitleMax || !strings.HasSuffix(s.title, "…") {
		t.Errorf("title of %d characters: %q", n, s.title)
	}
	if n := utf8.RuneCountInString(s.body); n != BodyMax || !strings.HasSuffix(s.body, "…") {
		t.Errorf("body of %d characters: %q", n, s.body)
	}
}

func TestNotifyThrottlesBursts(t *testing.T) {
	got, send := recorder()
	n := New(send, time.Hour, false)
	if err := n.Notify("a", "1"); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := n.Notify("a", "2"); !errors.Is(err, ErrThrottled) {
			t.Fatalf("burst: %v, want ErrThrottled", err)
		}
	}
	if len(*got) != 1 {
		t.Fatalf("%d notifications sent in a burst, want 1", len(*got))
	}
}

func TestNotifyReportsSendErrors(t *testing.T) {
	boom := errors.New("no notification server")
	err := New(func(string, string, string) error { return boom }, time.Nanosecond, false).Notify("a", "b")
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
}
