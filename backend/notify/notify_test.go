package notify

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		require.NoError(t, New(send, time.Nanosecond, c.escape).Notify(c.title, c.body))
		assert.Equal(t, []sent{{c.wantTitle, c.wantBody}}, *got, "Notify(%q, %q)", c.title, c.body)
	}
}

func TestNotifyCutsLongText(t *testing.T) {
	got, send := recorder()
	require.NoError(t, New(send, time.Nanosecond, false).Notify(strings.Repeat("t", 500), strings.Repeat("é", 500)))
	s := (*got)[0]
	assert.Equal(t, TitleMax, utf8.RuneCountInString(s.title), "title characters: %q", s.title)
	assert.True(t, strings.HasSuffix(s.title, "…"), "title without ellipsis: %q", s.title)
	assert.Equal(t, BodyMax, utf8.RuneCountInString(s.body), "body characters: %q", s.body)
	assert.True(t, strings.HasSuffix(s.body, "…"), "body without ellipsis: %q", s.body)
}

func TestNotifyThrottlesBursts(t *testing.T) {
	got, send := recorder()
	n := New(send, time.Hour, false)
	require.NoError(t, n.Notify("a", "1"))
	for range 5 {
		require.ErrorIs(t, n.Notify("a", "2"), ErrThrottled, "burst")
	}
	require.Len(t, *got, 1, "notifications sent in a burst")
}

// A burst of one title (an agent's notices) does not swallow another (the
// card that follows them); each title is throttled on its own.
func TestNotifyThrottlesEachTitleApart(t *testing.T) {
	got, send := recorder()
	n := New(send, time.Hour, false)
	require.NoError(t, n.Notify("notice", "1"))
	require.ErrorIs(t, n.Notify("notice", "2"), ErrThrottled)
	require.NoError(t, n.Notify("card", "3"))
	require.ErrorIs(t, n.Notify("card", "4"), ErrThrottled)
	require.Equal(t, []sent{{"notice", "1"}, {"card", "3"}}, *got)
}

func TestNotifyReportsSendErrors(t *testing.T) {
	boom := errors.New("no notification server")
	err := New(func(string, string, string) error { return boom }, time.Nanosecond, false).Notify("a", "b")
	require.ErrorIs(t, err, boom)
}
