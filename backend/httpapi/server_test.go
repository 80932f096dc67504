package httpapi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/calls"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/update"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef"

// fakeBackend returns canned values and the error set for each call. A
// call it does not implement panics (the embedded nil Backend): a test that
// needs one adds it.
type fakeBackend struct {
	calls.Backend
	err       error
	lastReply questions.Response
	lastSent  string
}

func (f *fakeBackend) ListConversations(context.Context, int, string, string, string) (api.ConversationPage, error) {
	return api.ConversationPage{Items: []chat.Conversation{{ID: "c1", Title: "Trip"}}}, f.err
}
func (f *fakeBackend) CreateConversationIn(_ context.Context, title, _, _ string) (*chat.Conversation, error) {
	return &chat.Conversation{ID: "c2", Title: title}, f.err
}
func (f *fakeBackend) GetConversationWindow(_ context.Context, id string, _ store.Window) (*api.ConversationDetail, error) {
	if f.err != nil {
		return nil, f.err
	}
	return &api.ConversationDetail{Conversation: chat.Conversation{ID: id}, State: "idle"}, nil
}
func (f *fakeBackend) DeleteConversation(context.Context, string) error { return f.err }
func (f *fakeBackend) Send(_ context.Context, _ string, req api.SendRequest) (string, error) {
	f.lastSent = req.Content
	return "r1", f.err
}
func (f *fakeBackend) Regenerate(context.Context, string, string, string) (string, error) {
	return "r1", f.err
}
func (f *fakeBackend) SelectBranchWindow(_ context.Context, id, _ string, _ store.Window) (*api.ConversationDetail, error) {
	return &api.ConversationDetail{Conversation: chat.Conversation{ID: id}}, f.err
}
func (f *fakeBackend) ForkQuestion(context.Context, string, string, api.ForkRequest) (string, error) {
	return "r1", f.err
}
func (f *fakeBackend) Cancel(context.Context, string) error { return f.err }
func (f *fakeBackend) Respond(_ context.Context, _ string, r questions.Response) (*questions.Card, error) {
	f.lastReply = r
	if f.err != nil {
		return nil, f.err
	}
	return &questions.Card{ID: r.QuestionID, Status: questions.StatusAnswered}, nil
}
func (f *fakeBackend) ConversationQuestions(context.Context, string) ([]*questions.Card, error) {
	return nil, f.err
}
func (f *fakeBackend) Questions(context.Context, string) ([]*questions.Card, error) {
	return nil, f.err
}

func (f *fakeBackend) UpdateConversation(ctx context.Context, id string, u api.ConversationUpdate) (*api.ConversationDetail, error) {
	if u == (api.ConversationUpdate{}) {
		return nil, fault.Newf(fault.Input, "give something to change") // as the service does
	}
	if f.err != nil {
		return nil, f.err
	}
	return f.GetConversationWindow(ctx, id, store.Window{})
}
func (f *fakeBackend) Health() api.Health { return api.Health{Status: "ok", Version: "test"} }
func (f *fakeBackend) ExportFileName(_ context.Context, _, format string) string {
	return "parley-conversation." + map[string]string{"json": "json"}[format] + map[string]string{"": "md", "markdown": "md"}[format]
}
func (f *fakeBackend) AgentTokens(context.Context) ([]api.AgentToken, error) { return nil, f.err }
func (f *fakeBackend) UpdateStatus() update.Status                           { return update.Status{State: update.StateIdle} }
func (f *fakeBackend) CheckUpdate(context.Context) (update.Status, error) {
	return update.Status{State: update.StateIdle}, f.err
}
func (f *fakeBackend) ApplyUpdate(context.Context) (update.Status, error) {
	return update.Status{}, f.err
}
func (f *fakeBackend) CreateAgentToken(context.Context, string) (api.NewAgentToken, error) {
	return api.NewAgentToken{}, f.err
}
func (f *fakeBackend) RevokeAgentToken(context.Context, string) error { return f.err }
func (f *fakeBackend) Retry(context.Context, string) (string, error)  { return "r2", f.err }
func (f *fakeBackend) GetSettings() service.Settings                  { return service.DefaultSettings() }
func (f *fakeBackend) SaveSettings(_ context.Context, s service.Settings) (service.Settings, error) {
	return s, f.err
}
func (f *fakeBackend) CheckModelServer(context.Context) service.ModelStatus {
	return service.ModelStatus{Reachable: f.err == nil, Models: []service.ModelInfo{{Name: "qwen3", SupportsTools: true}}}
}
func (f *fakeBackend) ListModels(context.Context) ([]service.ModelInfo, error) {
	if f.err != nil {
		return nil, &fault.Error{Kind: fault.Upstream, Msg: f.err.Error()}
	}
	return []service.ModelInfo{{Name: "qwen3", SupportsTools: true}}, nil
}
func (f *fakeBackend) PullModel(context.Context, string) error { return f.err }
func (f *fakeBackend) ModelStats(context.Context) ([]store.ModelStats, error) {
	return []store.ModelStats{}, f.err
}
func (f *fakeBackend) ResetModelStats(context.Context) error { return f.err }
func (f *fakeBackend) ExportSettings(context.Context) (service.SettingsExport, error) {
	return service.SettingsExport{}, f.err
}
func (f *fakeBackend) Profiles(context.Context) ([]assistant.Profile, error) {
	return []assistant.Profile{{Name: "default"}}, f.err
}
func (f *fakeBackend) SaveProfile(_ context.Context, p assistant.Profile) (assistant.Profile, error) {
	return p, f.err
}
func (f *fakeBackend) DeleteProfile(context.Context, string) error { return f.err }
func (f *fakeBackend) AvailableTools() []service.ToolInfo {
	return []service.ToolInfo{{Name: "calculator"}}
}
func (f *fakeBackend) ExportConversation(_ context.Context, _, format string) (string, error) {
	return "# Trip (" + format + ")", f.err
}
func (f *fakeBackend) ImportConversation(context.Context, []byte) (*chat.Conversation, error) {
	return &chat.Conversation{ID: "imported"}, f.err
}

func newTestServer(t *testing.T, b calls.Backend) (*Server, *httptest.Server, *events.Broker) {
	t.Helper()
	broker := events.NewBroker(16)
	ui := fstest.MapFS{"index.html": {Data: []byte("<title>Parley</title>")}, "assets/app.js": {Data: []byte("console.log(1)")}}
	s := New(Options{Backend: b, Broker: broker, Token: testToken, Version: "test", UI: ui, Heartbeat: time.Hour})
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts, broker
}

func do(t *testing.T, ts *httptest.Server, method, path, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestAuthHostAndOrigin(t *testing.T) {
	_, ts, _ := newTestServer(t, &fakeBackend{})
	cases := []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"token", nil, 200},
		{"no token", map[string]string{"Authorization": ""}, 401},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"not bearer", map[string]string{"Authorization": "Basic " + testToken}, 401},
		{"foreign host", map[string]string{"Host": "evil.example:8765"}, 403},
		{"rebinding host", map[string]string{"Host": "attacker.localhost.evil.com"}, 403},
		{"cross-site origin", map[string]string{"Origin": "http://evil.example"}, 403},
		{"same origin", map[string]string{"Origin": "http://" + strings.TrimPrefix(ts.URL, "http://")}, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := do(t, ts, "GET", "/api/v1/health", "", c.hdr)
			require.Equal(t, c.want, code, "status %d, want %d (%s)", code, c.want, body)
			if code != 200 {
				require.Contains(t, body, `"error"`, "error body %q has no error field", body)
			}
		})
	}
}

func TestLoginCodeSetsStrictHttpOnlyCookieOnce(t *testing.T) {
	s, ts, _ := newTestServer(t, &fakeBackend{})
	code := s.LoginCode()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(ts.URL + "/login?code=" + code)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "login status %d", res.StatusCode)
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == CookieName {
			cookie = c
		}
	}
	require.NotNil(t, cookie, "cookie = %+v", cookie)
	require.True(t, cookie.HttpOnly, "cookie = %+v", cookie)
	require.Equal(t, http.SameSiteStrictMode, cookie.SameSite, "cookie = %+v", cookie)
	require.Equal(t, testToken, cookie.Value, "cookie = %+v", cookie)
	code2, _ := do(t, ts, "GET", "/api/v1/health", "", map[string]string{"Authorization": "", "Cookie": CookieName + "=" + cookie.Value})
	require.Equal(t, 200, code2, "cookie auth status %d", code2)
	res, err = client.Get(ts.URL + "/login?code=" + code)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, "reused login code status %d, want 401", res.StatusCode)
}

func TestStatusCodes(t *testing.T) {
	cases := []struct {
		name         string
		err          error
		method, path string
		body         string
		want         int
	}{
		{"list", nil, "GET", "/api/v1/conversations?limit=10", "", 200},
		{"bad limit", service.ErrBadPageSize, "GET", "/api/v1/conversations?limit=0", "", 400},
		{"create", nil, "POST", "/api/v1/conversations", `{"title":"x"}`, 201},
		{"create empty body", nil, "POST", "/api/v1/conversations", ``, 201},
		{"get missing", fmt.Errorf("load: %w", chat.ErrNotFound), "GET", "/api/v1/conversations/nope", "", 404},
		{"send", nil, "POST", "/api/v1/conversations/c1/messages", `{"content":"hi"}`, 202},
		{"send while active", service.ErrRunActive, "POST", "/api/v1/conversations/c1/messages", `{"content":"hi"}`, 409},
		{"send malformed", nil, "POST", "/api/v1/conversations/c1/messages", `{"content":`, 400},
		{"send no content", nil, "POST", "/api/v1/conversations/c1/messages", `{}`, 400},
		{"send empty", fault.Newf(fault.Input, "empty"), "POST", "/api/v1/conversations/c1/messages", `{"content":" "}`, 400},
		{"respond ok", nil, "POST", "/api/v1/conversations/c1/respond", `{"question_id":"latest","action":"submit","answers":{"Q?":{"selected":["A"]}}}`, 200},
		{"respond unknown", questions.ErrNotFound, "POST", "/api/v1/conversations/c1/respond", `{"question_id":"x","action":"decline"}`, 404},
		{"respond conflict", questions.ErrConflict, "POST", "/api/v1/conversations/c1/respond", `{"question_id":"x","action":"submit"}`, 409},
		{"respond invalid", fault.Newf(fault.Validation, "invalid answer"), "POST", "/api/v1/conversations/c1/respond", `{"question_id":"x","action":"submit"}`, 422},
		{"respond bad action", fault.Newf(fault.Input, "bad action"), "POST", "/api/v1/conversations/c1/respond", `{"question_id":"x","action":"maybe"}`, 400},
		{"respond no id", fault.Newf(fault.Input, "no id"), "POST", "/api/v1/conversations/c1/respond", `{"action":"submit"}`, 400},
		{"oversized", nil, "POST", "/api/v1/conversations/c1/respond", `{"comments":"` + strings.Repeat("a", MaxBodyBytes) + `"}`, 413},
		{"oversized message", nil, "POST", "/api/v1/conversations/c1/messages", `{"content":"` + strings.Repeat("a", MaxMessageBodyBytes) + `"}`, 413},
		{"pending none", nil, "GET", "/api/v1/conversations/c1/pending-question", "", 200},
		{"questions", nil, "GET", "/api/v1/questions?status=pending", "", 200},
		{"unknown endpoint", nil, "GET", "/api/v1/nope", "", 404},
		{"rename", nil, "PATCH", "/api/v1/conversations/c1", `{"title":"New"}`, 200},
		{"patch nothing", nil, "PATCH", "/api/v1/conversations/c1", `{}`, 400},
		{"set assistant", nil, "PATCH", "/api/v1/conversations/c1", `{"assistant":"coder"}`, 200},
		{"set model", nil, "PATCH", "/api/v1/conversations/c1", `{"model":"llava"}`, 200},
		{"set unknown assistant", fault.Newf(fault.Input, "unknown assistant"), "PATCH", "/api/v1/conversations/c1", `{"assistant":"nope","title":"x"}`, 400},
		{"retry", nil, "POST", "/api/v1/conversations/c1/retry", ``, 202},
		{"settings", nil, "GET", "/api/v1/settings", ``, 200},
		{"save bad settings", fault.Newf(fault.Input, "bad"), "PUT", "/api/v1/settings", `{"theme":"neon"}`, 400},
		{"models", nil, "GET", "/api/v1/models", ``, 200},
		{"models unreachable", errors.New("down"), "GET", "/api/v1/models", ``, 502},
		{"profiles", nil, "GET", "/api/v1/profiles", ``, 200},
		{"save profile", nil, "PUT", "/api/v1/profiles/writer", `{"system_prompt":"x","tools":[]}`, 200},
		{"save bad profile", fault.Newf(fault.Input, "bad"), "PUT", "/api/v1/profiles/writer", `{"tools":["rm"]}`, 400},
		{"tools", nil, "GET", "/api/v1/tools", ``, 200},
		{"export", nil, "GET", "/api/v1/conversations/c1/export?format=json", ``, 200},
		{"export missing", chat.ErrNotFound, "GET", "/api/v1/conversations/c1/export", ``, 404},
		{"import", nil, "POST", "/api/v1/conversations/import", `{"format":"parley.conversation"}`, 201},
		{"import big", nil, "POST", "/api/v1/conversations/import", `"` + strings.Repeat("a", 2*MaxBodyBytes) + `"`, 201},
		{"internal", errors.New("disk on fire"), "DELETE", "/api/v1/conversations/c1", "", 500},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ts, _ := newTestServer(t, &fakeBackend{err: c.err})
			code, body := do(t, ts, c.method, c.path, c.body, map[string]string{"Content-Type": "application/json"})
			require.Equal(t, c.want, code, "status %d, want %d: %s", code, c.want, body)
			if code >= 400 {
				require.True(t, strings.HasPrefix(body, `{"error":`), "error body = %s", body)
			}
		})
	}
}

func TestRespondPassesAnswersThrough(t *testing.T) {
	fb := &fakeBackend{}
	_, ts, _ := newTestServer(t, fb)
	code, body := do(t, ts, "POST", "/api/v1/conversations/c1/respond",
		`{"question_id":"q1","action":"submit","answers":{"Which?":{"selected":["A","B"],"custom":"C"}},"comments":"thanks"}`, nil)
	require.Equal(t, 200, code, "%d %s", code, body)
	require.Contains(t, body, `"status":"answered"`, "%d %s", code, body)
	a := fb.lastReply.Answers["Which?"]
	require.Equal(t, "q1", fb.lastReply.QuestionID, "backend got %+v", fb.lastReply)
	require.Len(t, a.Selected, 2, "backend got %+v", fb.lastReply)
	require.Equal(t, "C", a.Custom, "backend got %+v", fb.lastReply)
	require.Equal(t, "thanks", fb.lastReply.Comments, "backend got %+v", fb.lastReply)
}

func TestPendingQuestionShape(t *testing.T) {
	_, ts, _ := newTestServer(t, &fakeBackend{})
	_, body := do(t, ts, "GET", "/api/v1/conversations/c1/pending-question", "", nil)
	for _, want := range []string{`"has_pending_question":false`, `"question_id":null`, `"questions":[]`, `"expires_at":null`} {
		assert.Contains(t, body, want, "body %s lacks %s", body, want)
	}
}

func TestEventsStreamAsSSEWithFilter(t *testing.T) {
	_, ts, broker := newTestServer(t, &fakeBackend{})
	req, _ := http.NewRequest("GET", ts.URL+"/api/v1/events?conversationId=c1", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := ts.Client().Do(req.WithContext(ctx))
	require.NoError(t, err)
	defer res.Body.Close()
	ct := res.Header.Get("Content-Type")
	require.Equal(t, "text/event-stream", ct, "content type %q", ct)
	r := bufio.NewReader(res.Body)
	line, _ := r.ReadString('\n')
	require.True(t, strings.HasPrefix(line, ": connected"), "first line %q", line)
	for broker.Subscribers() == 0 {
		time.Sleep(time.Millisecond)
	}
	broker.Emit(events.MessageDelta, map[string]string{"conversationId": "other", "delta": "x"})
	broker.Emit(events.MessageDelta, map[string]string{"conversationId": "c1", "delta": "<b>hi</b>"})
	var got []string
	for len(got) < 2 {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		if line = strings.TrimSpace(line); line != "" {
			got = append(got, line)
		}
	}
	require.Equal(t, "event: message:delta", got[0], "got %q", got)
	require.Equal(t, `data: {"conversationId":"c1","delta":"\u003cb\u003ehi\u003c/b\u003e"}`, got[1], "got %q", got)
}

func TestUIServedWithFallbackAndCSP(t *testing.T) {
	_, ts, _ := newTestServer(t, &fakeBackend{})
	for _, path := range []string{"/", "/conversations/abc"} {
		res, err := http.Get(ts.URL + path)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode, "%s: %d %s", path, res.StatusCode, b)
		require.Contains(t, string(b), "<title>Parley</title>", "%s: %d %s", path, res.StatusCode, b)
		require.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self'", "%s: no CSP", path)
	}
}

func TestTokenFileIsPrivateAndStable(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadOrCreateToken(dir)
	require.NoError(t, err)
	b, err := LoadOrCreateToken(dir)
	require.NoError(t, err)
	require.Equal(t, b, a, "tokens %q %q", a, b)
	require.GreaterOrEqual(t, len(a), 32, "tokens %q %q", a, b)
	info, err := os.Stat(filepath.Join(dir, TokenFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "token file mode %v", info.Mode().Perm())
}

// Issue 23: lists the backend returns as nil reach the client as [].
func TestNilListsAreSentAsEmptyArrays(t *testing.T) {
	_, ts, _ := newTestServer(t, &fakeBackend{})
	for _, path := range []string{"/api/v1/questions?status=pending", "/api/v1/conversations/c1/questions", "/api/v1/mcp/servers"} {
		code, body := do(t, ts, "GET", path, "", nil)
		require.Equal(t, 200, code, body)
		assert.JSONEq(t, `[]`, body, path)
	}
	code, body := do(t, ts, "GET", "/api/v1/conversations/c1", "", nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"messages":[]`)
}
