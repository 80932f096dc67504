package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSettings(t *testing.T) {
	s := newStore(t)
	type prefs struct {
		Model   string  `json:"model"`
		Timeout int     `json:"timeout"`
		Rate    float64 `json:"rate"`
	}
	dst := prefs{Model: "default"}
	found, err := s.GetSetting(ctx, "prefs", &dst)
	require.NoError(t, err, "missing key")
	require.False(t, found, "missing key found: dst=%+v", dst)
	require.Equal(t, "default", dst.Model, "missing key changed dst: %+v", dst)
	want := prefs{Model: "qwen3", Timeout: 300, Rate: 2.5}
	require.NoError(t, s.SetSetting(ctx, "prefs", want))
	var got prefs
	found, err = s.GetSetting(ctx, "prefs", &got)
	assert.NoError(t, err)
	assert.True(t, found, "saved setting not found")
	assert.Equal(t, want, got)
	require.NoError(t, s.SetSetting(ctx, "prefs", prefs{Model: "llama"}))
	_, _ = s.GetSetting(ctx, "prefs", &got)
	assert.Equal(t, "llama", got.Model, "overwrite: %+v", got)
	var wrongType []int
	found, err = s.GetSetting(ctx, "prefs", &wrongType)
	assert.True(t, found, "decoding into the wrong type: not found")
	assert.Error(t, err, "decoding into the wrong type")
	assert.Error(t, s.SetSetting(ctx, "bad", func() {}), "unencodable value accepted")
	assert.Error(t, s.SetSetting(ctx, "", 1), "empty key accepted")
}

func TestProfiles(t *testing.T) {
	s := newStore(t)
	coder := Profile{Name: "coder", SystemPrompt: "You write Go.", Model: "qwen3-coder", Tools: []string{"calculator", "ask_user_question"}}
	plain := Profile{Name: "plain"}
	for _, p := range []Profile{coder, plain} {
		require.NoError(t, s.SaveProfile(ctx, p))
	}
	got, err := s.Profile(ctx, "coder")
	if assert.NoError(t, err, "coder") {
		assert.Equal(t, coder, *got, "coder")
	}
	got, _ = s.Profile(ctx, "plain")
	assert.NotNil(t, got.Tools, "nil tools should come back as an empty list")
	assert.Empty(t, got.Tools, "nil tools should come back as an empty list")
	coder.Tools = []string{"current_time"}
	require.NoError(t, s.SaveProfile(ctx, coder))
	all, err := s.Profiles(ctx)
	if assert.NoError(t, err, "profiles") && assert.Len(t, all, 2, "profiles = %+v", all) {
		assert.Equal(t, "coder", all[0].Name, "profiles = %+v", all)
		assert.Equal(t, "plain", all[1].Name, "profiles = %+v", all)
		assert.Equal(t, "current_time", all[0].Tools[0], "profiles = %+v", all)
	}
	require.NoError(t, s.DeleteProfile(ctx, "plain"))
	_, err = s.Profile(ctx, "plain")
	wantNotFound(t, err)
	wantNotFound(t, s.DeleteProfile(ctx, "plain"))
	assert.Error(t, s.SaveProfile(ctx, Profile{Name: "  "}), "blank name accepted")
}
